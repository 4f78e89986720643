/* Option parsing for analyze, validate and check (getopt_long, so GNU
 * conventions hold: --opt=value or --opt value, options anywhere). */
#include "analyze_args.h"

#include "cbana/report.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
  OPT_INPUTS = 256,
  OPT_ARGS,
  OPT_CACHE,
  OPT_D1,
  OPT_L2,
  OPT_LL,
  OPT_CFLAGS,
  OPT_FORMAT,
  OPT_TOP,
  OPT_JOBS,
  OPT_SIM_THREADS,
  OPT_SPLIT_EPOCH,
  OPT_NO_SPLIT,
  OPT_BUDGET,
  OPT_TIMEOUT,
  OPT_STACK_TOP,
  OPT_NO_CLASSIFY,
  OPT_QUIET,
  OPT_STATS,
  OPT_BASELINE,
  OPT_TOLERANCE,
  OPT_LEVEL,
  OPT_UPDATE,
  OPT_ARGV0,
  OPT_EXACT_ENGINE,
  OPT_NO_MEMO,
  OPT_NO_PROCESS,
  OPT_NO_KERNELS,
  OPT_WAIT_KERNELS,
  OPT_SHARD,
  OPT_MRC,
};

static const struct option long_options[] = {
    {"inputs", required_argument, NULL, OPT_INPUTS},
    {"args", required_argument, NULL, OPT_ARGS},
    {"cache", required_argument, NULL, OPT_CACHE},
    {"D1", required_argument, NULL, OPT_D1},
    {"L2", required_argument, NULL, OPT_L2},
    {"LL", required_argument, NULL, OPT_LL},
    {"cflags", required_argument, NULL, OPT_CFLAGS},
    {"format", required_argument, NULL, OPT_FORMAT},
    {"output", required_argument, NULL, 'o'},
    {"top", required_argument, NULL, OPT_TOP},
    {"jobs", required_argument, NULL, OPT_JOBS},
    {"sim-threads", required_argument, NULL, OPT_SIM_THREADS},
    {"split-epoch", required_argument, NULL, OPT_SPLIT_EPOCH},
    {"no-split", no_argument, NULL, OPT_NO_SPLIT},
    {"budget", required_argument, NULL, OPT_BUDGET},
    {"timeout", required_argument, NULL, OPT_TIMEOUT},
    {"stack-top", required_argument, NULL, OPT_STACK_TOP},
    {"no-classify", no_argument, NULL, OPT_NO_CLASSIFY},
    {"quiet", no_argument, NULL, OPT_QUIET},
    {"stats", no_argument, NULL, OPT_STATS},
    {"baseline", required_argument, NULL, OPT_BASELINE},
    {"tolerance", required_argument, NULL, OPT_TOLERANCE},
    {"max-increase", required_argument, NULL, OPT_TOLERANCE},
    {"level", required_argument, NULL, OPT_LEVEL},
    {"update", no_argument, NULL, OPT_UPDATE},
    {"argv0", required_argument, NULL, OPT_ARGV0},
    {"exact-engine", no_argument, NULL, OPT_EXACT_ENGINE},
    {"no-memo", no_argument, NULL, OPT_NO_MEMO},
    {"no-process", no_argument, NULL, OPT_NO_PROCESS},
    {"no-kernels", no_argument, NULL, OPT_NO_KERNELS},
    {"wait-kernels", no_argument, NULL, OPT_WAIT_KERNELS},
    {"shard", required_argument, NULL, OPT_SHARD},
    {"mrc", required_argument, NULL, OPT_MRC},
    {NULL, 0, NULL, 0},
};

/* A whole unsigned number (any base strtoull takes), or false. */
static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-')
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end)
    return false;
  *out = v;
  return true;
}

/* "K/N" with 1 <= K <= N. */
static bool parse_shard(const char *s, unsigned *k, unsigned *n) {
  char *end;
  errno = 0;
  unsigned long a = strtoul(s, &end, 10);
  if (errno || end == s || *end != '/' || *s == '-')
    return false;
  const char *t = end + 1;
  unsigned long b = strtoul(t, &end, 10);
  if (errno || end == t || *end || *t == '-' || a < 1 || a > b || b > 1000000)
    return false;
  *k = (unsigned)a;
  *n = (unsigned)b;
  return true;
}

static bool bad_number(const char *command, const char *opt, const char *v) {
  fprintf(stderr, "cbana %s: %s needs a whole number, not '%s'\n", command, opt,
          v);
  return false;
}

bool cb_analyze_args_parse(int argc, char **argv, cb_analyze_args *a,
                           const char *command) {
  memset(a, 0, sizeof *a);
  a->cflags = "-O2";
  a->format = "text";
  a->top = 10;
  a->tolerance = -1;
  a->sources = calloc((size_t)argc + 1, sizeof *a->sources);
  if (!a->sources)
    return false;
  /* getopt_long wants argv[0] to be the program; shift by one. */
  char **av = calloc((size_t)argc + 2, sizeof *av);
  if (!av)
    return false;
  av[0] = (char *)command;
  for (int i = 0; i < argc; i++)
    av[i + 1] = argv[i];
  int ac = argc + 1;
  optind = 1;
  opterr = 0;
  bool ok = true;
  int c;
  uint64_t n;
  while (ok && (c = getopt_long(ac, av, ":o:p:", long_options, NULL)) != -1) {
    switch (c) {
    case OPT_INPUTS:
      a->inputs_file = optarg;
      break;
    case OPT_ARGS:
      a->inline_args = optarg;
      break;
    case OPT_CACHE:
      if (a->n_caches == CB_MAX_CACHE_ARGS) {
        fprintf(stderr, "cbana %s: at most %d --cache options\n", command,
                CB_MAX_CACHE_ARGS);
        ok = false;
      } else {
        a->caches[a->n_caches++] = optarg;
      }
      break;
    case OPT_D1:
      a->flag_d1 = optarg;
      break;
    case OPT_L2:
      a->flag_l2 = optarg;
      break;
    case OPT_LL:
      a->flag_ll = optarg;
      break;
    case OPT_CFLAGS:
      a->cflags = optarg;
      break;
    case 'p':
      a->compdb_dir = optarg;
      break;
    case OPT_FORMAT:
      a->format = optarg;
      break;
    case 'o':
      a->output = optarg;
      break;
    case OPT_TOP:
      ok = (parse_u64(optarg, &n) && n > 0 && n < 1000000)
               ? (a->top = (unsigned)n, true)
               : bad_number(command, "--top", optarg);
      break;
    case OPT_JOBS:
      ok = (parse_u64(optarg, &n) && n < 1024)
               ? (a->jobs = (unsigned)n, true)
               : bad_number(command, "--jobs", optarg);
      break;
    case OPT_SIM_THREADS:
      ok = (parse_u64(optarg, &n) && n < 1024)
               ? (a->sim_threads = (unsigned)n, true)
               : bad_number(command, "--sim-threads", optarg);
      break;
    case OPT_SPLIT_EPOCH:
      ok = (parse_u64(optarg, &n) && n > 0)
               ? (a->split_epoch = n, true)
               : bad_number(command, "--split-epoch", optarg);
      break;
    case OPT_NO_SPLIT:
      a->no_split = true;
      break;
    case OPT_BUDGET:
      ok = (parse_u64(optarg, &n) && n > 0)
               ? (a->budget = n, true)
               : bad_number(command, "--budget", optarg);
      break;
    case OPT_TIMEOUT: {
      char *end;
      errno = 0;
      a->timeout = strtod(optarg, &end);
      if (errno || end == optarg || *end || !(a->timeout > 0) ||
          a->timeout > 1e9) {
        fprintf(stderr,
                "cbana %s: --timeout needs a number of seconds > 0, not "
                "'%s'\n",
                command, optarg);
        ok = false;
      }
      break;
    }
    case OPT_STACK_TOP:
      ok = parse_u64(optarg, &a->stack_top)
               ? true
               : bad_number(command, "--stack-top", optarg);
      break;
    case OPT_NO_CLASSIFY:
      a->no_classify = true;
      break;
    /* --mrc: which miss-ratio curve (cachemodel/shadow.h) */
    case OPT_MRC:
      if (strcmp(optarg, "exact") == 0 || strcmp(optarg, "sampled") == 0) {
        a->mrc_exact = strcmp(optarg, "exact") == 0;
      } else {
        fprintf(stderr,
                "cbana %s: --mrc takes 'sampled' or 'exact', not '%s'\n",
                command, optarg);
        ok = false;
      }
      break;
    case OPT_QUIET:
      a->quiet = true;
      break;
    case OPT_STATS:
      a->stats = true;
      break;
    case OPT_BASELINE:
      a->baseline = optarg;
      break;
    case OPT_TOLERANCE: {
      char *end;
      a->tolerance = strtod(optarg, &end);
      if (*end || a->tolerance < 0) {
        fprintf(stderr,
                "cbana %s: a tolerance is a percentage >= 0, not "
                "'%s'\n",
                command, optarg);
        ok = false;
      }
      break;
    }
    case OPT_LEVEL:
      a->level = optarg;
      break;
    case OPT_UPDATE:
      a->update = true;
      break;
    case OPT_ARGV0:
      a->argv0 = optarg;
      break;
    case OPT_EXACT_ENGINE:
      a->exact_engine = true;
      break;
    case OPT_NO_MEMO:
      a->no_memo = true;
      break;
    case OPT_NO_PROCESS:
      a->no_process = true;
      break;
    case OPT_NO_KERNELS:
      a->no_kernels = true;
      break;
    case OPT_WAIT_KERNELS:
      a->wait_kernels = true;
      break;
    case OPT_SHARD:
      if (!parse_shard(optarg, &a->shard, &a->shards)) {
        fprintf(stderr, "cbana %s: --shard is K/N with 1 <= K <= N, not '%s'\n",
                command, optarg);
        ok = false;
      }
      break;
    case ':':
      fprintf(stderr, "cbana %s: %s needs a value\n", command, av[optind - 1]);
      ok = false;
      break;
    default:
      fprintf(stderr, "cbana %s: unknown option '%s'\n", command,
              av[optind - 1]);
      ok = false;
      break;
    }
  }
  for (int i = optind; ok && i < ac; i++)
    a->sources[a->n_sources++] = av[i];
  free(av);
  if (ok && a->n_sources == 0) {
    fprintf(stderr, "cbana %s: no C source given\n", command);
    ok = false;
  }
  bool known = false;
  for (const char *const *f = cb_report_formats; *f; f++)
    known |= strcmp(*f, a->format) == 0;
  if (ok && !known) {
    fprintf(stderr,
            "cbana %s: --format is text, json, annotate, html, sarif, dot or "
            "cachegrind, not '%s'\n",
            command, a->format);
    ok = false;
  }
  if (ok && a->shards && !a->inputs_file) {
    fprintf(stderr, "cbana %s: --shard slices an --inputs file: give one\n",
            command);
    ok = false;
  }
  if (ok && a->inputs_file && a->inline_args) {
    fprintf(stderr, "cbana %s: give --inputs or --args, not both\n", command);
    ok = false;
  }
  if (!ok) {
    free(a->sources);
    a->sources = NULL;
  }
  return ok;
}

void cb_analyze_args_free(cb_analyze_args *a) {
  free(a->sources);
  a->sources = NULL;
}

void cb_analyze_args_usage(const char *command, const char *extra) {
  printf(
      "usage: cbana %s FILE.c... [options]%s\n\n"
      "program:\n"
      "  --cflags \"...\"      compile flags (default -O2; -g is added)\n"
      "  -p DIR              take each file's flags from "
      "DIR/compile_commands.json\n"
      "inputs:\n"
      "  --inputs FILE       one input set a line (docs/inputs-format.md)\n"
      "  --args \"...\"        one input set inline\n"
      "  --shard K/N         only the inputs whose index i (1-based, in the\n"
      "                      file) has (i - 1) mod N = K - 1; `cbana merge`\n"
      "                      joins the JSON reports (docs/batches.md)\n"
      "caches:\n"
      "  --cache FILE|PRESET a configuration file or a preset; repeatable\n"
      "  --D1=S,A,L --L2=S,A,L --LL=S,A,L\n"
      "                      cachegrind-style levels (size, ways, line), LRU\n"
      "  --no-classify       skip the compulsory/capacity/conflict classes\n"
      "  --mrc sampled|exact the miss-ratio curve from a sample of the lines\n"
      "                      (default; exact at the level's capacity) or\n"
      "                      every line's stack distance (slower)\n"
      "output:\n"
      "  --format FORMAT     text (default), json (docs/report-json.md),\n"
      "                      annotate, html, sarif, dot "
      "(docs/report-views.md),\n"
      "                      cachegrind (cachegrind's out-file format, for\n"
      "                      cg_annotate, cg_diff, cg_merge: -o FILE, one\n"
      "                      file per input and cache, FILE.INDEX[.CACHE])\n"
      "  -o FILE             write the report to FILE\n"
      "  --top N             rows per table in the text report (10)\n"
      "engine:\n"
      "  --jobs N            inputs analysed in parallel (default: cores)\n"
      "  --sim-threads N     split long loops by cache set over N threads "
      "(default 1)\n"
      "  --no-split          simulate one input on one thread (by default,\n"
      "                      with cores to spare and --no-classify, a long\n"
      "                      stream runs on two, cut in time)\n"
      "  --split-epoch N     accesses per piece of that cut (256 Mi); it\n"
      "                      also asks for guesses at any time\n"
      "  --budget N          operations an input may execute before it "
      "stops\n"
      "                      (default: no limit)\n"
      "  --timeout SECONDS   wall-clock time an input may take before it "
      "stops\n"
      "                      (default: no limit)\n"
      "  --stack-top ADDR    the stack pointer at main's entry\n"
      "  --argv0 PATH        the program's path as the real run gets it "
      "(./NAME)\n"
      "  --stats             where the time went, on stderr\n"
      "  --exact-engine      the reference interpreter (same results, "
      "slower)\n"
      "  --no-memo           simulate every input, even when its access "
      "stream\n"
      "                      is identical to another's\n"
      "  --no-process        leave out ld.so's and libc's start-up and "
      "exit\n"
      "                      (reported apart; replayed from cbana's own "
      "probes)\n"
      "  --no-kernels        interpret every loop (no native kernels)\n"
      "  --wait-kernels      compile the native kernels before the run, "
      "not\n"
      "                      beside it (short runs then use them too)\n"
      "  --quiet             no progress on stderr (shown only on a "
      "terminal)\n"
      "\n"
      "Every value is computed in the model; the program itself is run "
      "only by\n"
      "validate (under cachegrind).\n"
      "Ctrl-C stops the analysis and still writes the report: the input "
      "that was\n"
      "running is reported stopped, with its counts so far (exit status "
      "3).\n",
      command, extra ? extra : "");
}
