/* The analysis commands' options, one entry each (the fields are described
 * in options.h). Their order is the order of --help and of the man page;
 * entries under one heading stay together. An entry's help text is what
 * `cbana COMMAND --help` prints, its man text the man page's paragraph.
 * A new option is an entry here, the field it sets in cb_analyze_args, and
 * its accepted and refused values in tests/unit/cli/test_options.c (which
 * fails until they are there); the build then rewrites docs/cbana.1. */
#include "options.h"

#include <errno.h>
#include <stdlib.h>

#define F(field) offsetof(cb_analyze_args, field)

static bool parse_cache(cb_analyze_args *a, const char *v,
                        const char *command) {
  if (a->n_caches == CB_MAX_CACHE_ARGS) {
    fprintf(stderr, "cbana %s: at most %d --cache options\n", command,
            CB_MAX_CACHE_ARGS);
    return false;
  }
  a->caches[a->n_caches++] = v;
  return true;
}

static bool parse_timeout(cb_analyze_args *a, const char *v,
                          const char *command) {
  char *end;
  errno = 0;
  a->timeout = strtod(v, &end);
  if (errno || end == v || *end || !(a->timeout > 0) || a->timeout > 1e9) {
    fprintf(stderr,
            "cbana %s: --timeout needs a number of seconds > 0, not '%s'\n",
            command, v);
    return false;
  }
  return true;
}

/* --tolerance (validate) and --max-increase (check) set one field. */
static bool parse_percent(cb_analyze_args *a, const char *v,
                          const char *command) {
  char *end;
  a->tolerance = strtod(v, &end);
  if (*end || a->tolerance < 0) {
    fprintf(stderr, "cbana %s: a tolerance is a percentage >= 0, not '%s'\n",
            command, v);
    return false;
  }
  return true;
}

/* "K/N" with 1 <= K <= N <= 1000000. */
static bool parse_shard(cb_analyze_args *a, const char *v,
                        const char *command) {
  char *end;
  errno = 0;
  unsigned long k = strtoul(v, &end, 10);
  bool ok = !(errno || end == v || *end != '/' || *v == '-');
  if (ok) {
    const char *t = end + 1;
    unsigned long n = strtoul(t, &end, 10);
    ok = !(errno || end == t || *end || *t == '-' || k < 1 || k > n ||
           n > 1000000);
    if (ok) {
      a->shard = (unsigned)k;
      a->shards = (unsigned)n;
    }
  }
  if (!ok)
    fprintf(stderr, "cbana %s: --shard is K/N with 1 <= K <= N, not '%s'\n",
            command, v);
  return ok;
}

static bool parse_input(cb_analyze_args *a, const char *v,
                        const char *command) {
  char *end;
  unsigned long k = strtoul(v, &end, 10);
  if (!*v || *end || k == 0) {
    fprintf(stderr,
            "cbana %s: --input needs an input number (1, 2, ...), not '%s'\n",
            command, v);
    return false;
  }
  a->input = (unsigned)k;
  return true;
}

#define ALL CB_CMD_ANALYSIS

const cb_option cb_options[] = {
    /* program */
    {.name = "cflags",
     .arg = "\"...\"",
     .kind = CB_OPT_STRING,
     .field = F(cflags),
     .takes = ALL,
     .lists = ALL,
     .group = "program",
     .help = "compile flags (default -O2; -g is added)",
     .man = "Compile flags (default \\-O2; \\-g is added)."},
    {.short_name = 'p',
     .arg = "DIR",
     .kind = CB_OPT_STRING,
     .field = F(compdb_dir),
     .takes = ALL,
     .lists = ALL,
     .group = "program",
     .help = "take each file's flags from DIR/compile_commands.json",
     .man = "Take each file's flags from DIR/compile_commands.json."},
    {.name = "no-reuse",
     .kind = CB_OPT_FLAG,
     .field = F(no_reuse),
     .takes = ALL,
     .lists = ALL,
     .group = "program",
     .help = "compile every source again (no units from the cache)",
     .man = "Compile every source again: take no translation unit's bitcode "
            "and\n"
            "object from cbana's cache directory, and keep none there (by "
            "default a\n"
            "unit whose compiler, flags, directory, source and headers are "
            "unchanged\n"
            "is reused; docs/speed.md)."},
    /* inputs */
    {.name = "inputs",
     .arg = "FILE",
     .kind = CB_OPT_STRING,
     .field = F(inputs_file),
     .takes = ALL,
     .lists = ALL,
     .group = "inputs",
     .help = "one input set a line (docs/inputs-format.md)",
     .man = "One input set a line: the program's arguments, and\n"
            ".BI < \" FILE\"\n"
            "for standard input (docs/inputs-format.md)."},
    {.name = "args",
     .arg = "\"...\"",
     .kind = CB_OPT_STRING,
     .field = F(inline_args),
     .takes = ALL,
     .lists = ALL,
     .group = "inputs",
     .help = "one input set inline",
     .man = "One input set inline (not with \\-\\-inputs)."},
    {.name = "shard",
     .arg = "K/N",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_shard,
     .takes = ALL,
     .lists = ALL,
     .group = "inputs",
     .help = "only the inputs whose index i (1-based, in the\n"
             "file) has (i - 1) mod N = K - 1; `cbana merge`\n"
             "joins the JSON reports (docs/batches.md)",
     .man = "Analyse only the inputs of index K, K + N, ... of the inputs "
            "file;\n"
            ".B cbana merge\n"
            "joins the JSON reports (docs/batches.md)."},
    /* caches */
    {.name = "cache",
     .arg = "FILE|PRESET",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_cache,
     .takes = ALL,
     .lists = ALL,
     .group = "caches",
     .help = "a configuration file or a preset; repeatable",
     .man = "A cache configuration file (docs/cache-config.md) or preset\n"
            "(repeatable, at most 8)."},
    {.name = "D1",
     .arg = "=S,A,L",
     .kind = CB_OPT_STRING,
     .field = F(flag_d1),
     .takes = ALL,
     .lists = ALL,
     .group = "caches"},
    {.name = "L2",
     .arg = "=S,A,L",
     .kind = CB_OPT_STRING,
     .field = F(flag_l2),
     .takes = ALL,
     .lists = ALL,
     .group = "caches"},
    {.name = "LL",
     .arg = "=S,A,L",
     .kind = CB_OPT_STRING,
     .field = F(flag_ll),
     .takes = ALL,
     .lists = ALL,
     .group = "caches",
     .help = "cachegrind-style levels (size, ways, line), LRU",
     .man = "Cachegrind-style LRU levels: size, ways, line size."},
    {.name = "no-classify",
     .kind = CB_OPT_FLAG,
     .field = F(no_classify),
     .takes = ALL,
     .lists = ALL,
     .group = "caches",
     .help = "skip the compulsory/capacity/conflict classes",
     .man = "Skip the miss classes (and the data view, findings and "
            "curves)."},
    {.name = "exact-mrc",
     .kind = CB_OPT_FLAG,
     .field = F(exact_mrc),
     .takes = ALL,
     .lists = ALL,
     .group = "caches",
     .help = "exact miss-ratio curves however many lines a level\n"
             "sees (by default sampled past 65536 distinct lines)",
     .man = "Exact LRU stack distances for the miss-ratio curves however "
            "many\n"
            "distinct lines a level sees. By default a level's distances are "
            "exact\n"
            "up to 65536 distinct lines and sampled past that (SHARDS, a "
            "fixed\n"
            "sample of at most 16384 lines chosen by a hash of the line; the "
            "report's\n"
            ".I mrc_sampling\n"
            "gives each level's rate), which leaves the miss classes exact "
            "and costs\n"
            "a fraction of the exact distances' time."},
    /* output */
    {.name = "format",
     .arg = "FORMAT",
     .kind = CB_OPT_STRING,
     .field = F(format),
     .takes = ALL,
     .lists = ALL,
     .group = "output",
     .help = "text (default), json (docs/report-json.md),\n"
             "annotate, html, sarif, dot (docs/report-views.md),\n"
             "cachegrind (cachegrind's out-file format, for\n"
             "cg_annotate, cg_diff, cg_merge: -o FILE, one\n"
             "file per input and cache, FILE.INDEX[.CACHE])",
     .man = ".B text\n"
            "(the default),\n"
            ".BR json ,\n"
            ".BR annotate ,\n"
            ".BR html ,\n"
            ".BR sarif ,\n"
            ".B dot\n"
            "or\n"
            ".B cachegrind\n"
            "(valgrind's cachegrind out-file format, one file per input and "
            "cache:\n"
            ".I FILE\n"
            "for one,\n"
            ".IR FILE . INDEX [. CACHE ]\n"
            "for several);\n"
            ".B paths\n"
            "takes text, json or dot."},
    {.name = "output",
     .short_name = 'o',
     .arg = "FILE",
     .kind = CB_OPT_STRING,
     .field = F(output),
     .takes = ALL,
     .lists = ALL,
     .group = "output",
     .help = "write the report to FILE",
     .man = "Write the report to FILE (default: standard output)."},
    {.name = "top",
     .arg = "N",
     .kind = CB_OPT_UINT,
     .field = F(top),
     .min = 1,
     .max = 999999,
     .takes = ALL,
     .lists = ALL,
     .group = "output",
     .help = "rows per table in the text report (10)",
     .man = "Rows per table of the text report (default 10)."},
    {.name = "input",
     .arg = "N",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_input,
     .takes = CB_CMD_ANNOTATE,
     .lists = CB_CMD_ANNOTATE,
     .group = "output",
     .help = "the input shown, 1, 2, ... (default the first)",
     .man = "The input whose lines are shown, counted from 1 (default the "
            "first)."},
    /* engine */
    {.name = "jobs",
     .arg = "N",
     .kind = CB_OPT_UINT,
     .field = F(jobs),
     .min = 0,
     .max = 1023,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "inputs analysed in parallel (default: cores)",
     .man = "Inputs analysed in parallel (default, or 0: the number of "
            "cores)."},
    {.name = "sim-threads",
     .arg = "N",
     .kind = CB_OPT_UINT,
     .field = F(sim_threads),
     .min = 0,
     .max = 1023,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "split long loops by cache set over N threads (default 1)",
     .man = "Split long loops whose accesses each lie in one cache line "
            "(column\n"
            "walks) by cache set over N threads, each on its own sets; the "
            "counts are\n"
            "those of one thread. Only with\n"
            ".BR \\-\\-no\\-classify ,\n"
            "and not for random or very wide (over 32 ways) levels. Default "
            "1 (off)."},
    {.name = "no-split",
     .kind = CB_OPT_FLAG,
     .field = F(no_split),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "simulate one input on one thread (by default,\n"
             "with cores to spare and --no-classify, a long\n"
             "stream runs on two, cut in time)",
     .man = "Simulate each input on one thread. By default, with\n"
            ".B \\-\\-no\\-classify\n"
            "and a core to spare (more cores than inputs run at once), an "
            "input's\n"
            "stream is cut into epochs and simulated by two threads at once: "
            "one\n"
            "holds the true state, the other runs the next epoch from a stale "
            "one\n"
            "until a checkpoint shows the two states equal, from where its "
            "counts are\n"
            "taken; the counts are those of one thread. Only for LRU, FIFO "
            "and MRU\n"
            "levels."},
    {.name = "split-epoch",
     .arg = "N",
     .kind = CB_OPT_U64,
     .field = F(split_epoch),
     .min = 1,
     .max = UINT64_MAX,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "accesses per piece of that cut (256 Mi); it\n"
             "also asks for guesses at any time",
     .man = "Accesses per epoch of that split (default 268435456)."},
    {.name = "budget",
     .arg = "N",
     .kind = CB_OPT_U64,
     .field = F(budget),
     .min = 1,
     .max = UINT64_MAX,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "operations an input may execute before it stops\n"
             "(default: no limit)",
     .man = "Stop an input after N operations (reported as stopped, exit "
            "status 3):\n"
            "a gate for CI. By default there is no limit."},
    {.name = "timeout",
     .arg = "SECONDS",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_timeout,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "wall-clock time an input may take before it stops\n"
             "(default: no limit)",
     .man = "Stop an input after SECONDS of wall-clock time (its message "
            "names the\n"
            "input and the limit; exit status 3). By default there is no "
            "limit."},
    {.name = "stack-top",
     .arg = "ADDR",
     .kind = CB_OPT_U64,
     .field = F(stack_top),
     .min = 0,
     .max = UINT64_MAX,
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "the stack pointer at main's entry",
     .man = "The stack pointer at main's entry (by default computed as the "
            "kernel\n"
            "lays out the stack for the program's arguments and "
            "environment)."},
    {.name = "argv0",
     .arg = "PATH",
     .kind = CB_OPT_STRING,
     .field = F(argv0),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "the program's path as the real run gets it (./NAME)",
     .man = "The program's path as the real run gets it in argv[0] (default\n"
            ".BI ./ NAME\n"
            "for the first source\n"
            ".IR NAME .c)."},
    {.name = "stats",
     .kind = CB_OPT_FLAG,
     .field = F(stats),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "where the time went, on stderr",
     .man = "Where the time went (compile, lowering, path selection, stream\n"
            "generation, simulation), loop templates, the native kernels "
            "compiled\n"
            "for the program's hot functions (functions, compile time, "
            "operations\n"
            "they ran, the ops they left before, the functions whose "
            "operations the\n"
            "interpreter ran outside them), the affine blocks the cache\n"
            "model counted without running them (a repeated segment, or a "
            "repeated\n"
            "run of 64 to 4095 segments, at the caches' fixed point; LRU "
            "levels\n"
            "without classification), those run part by part with the parts "
            "counted\n"
            "and run (only a few stores beside the loop moved), the segments "
            "and\n"
            "parts found steady after one run (column walks that flood the "
            "first\n"
            "level: their second run's counts in closed form), and those "
            "split by set\n"
            "over threads, on standard error."},
    {.name = "exact-engine",
     .kind = CB_OPT_FLAG,
     .field = F(exact_engine),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "the reference interpreter (same results, slower)",
     .man = "The reference interpreter: every operation as written (same "
            "results,\n"
            "slower)."},
    {.name = "no-memo",
     .kind = CB_OPT_FLAG,
     .field = F(no_memo),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "simulate every input, even when its access stream\n"
             "is identical to another's",
     .man = "Simulate every input, even when its access stream is identical "
            "to\n"
            "another's (by default such an input takes the other's counts)."},
    {.name = "no-process",
     .kind = CB_OPT_FLAG,
     .field = F(no_process),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "leave out ld.so's and libc's start-up and exit\n"
             "(reported apart; replayed from cbana's own probes)",
     .man = "Leave out the dynamic loader's and the C library's start-up and "
            "exit\n"
            "traffic, which by default is replayed from cbana's own probes "
            "and\n"
            "reported apart from the program's own."},
    {.name = "no-kernels",
     .kind = CB_OPT_FLAG,
     .field = F(no_kernels),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "interpret every function (no native kernels)",
     .man = "Interpret every function: compile no native kernels (by "
            "default, a\n"
            "function that runs long enough is compiled to machine code "
            "with LLVM, on a\n"
            "thread beside the engine, which takes its kernel up when it "
            "is ready)."},
    {.name = "wait-kernels",
     .kind = CB_OPT_FLAG,
     .field = F(wait_kernels),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "compile each function's kernel when it first runs,\n"
             "and wait for it (every run then uses the same kernels)",
     .man = "Compile each function's native kernel when the function "
            "first runs, and\n"
            "wait for the compile, instead of once it is hot, beside the "
            "engine: every\n"
            "run then uses the same kernels (the tests do)."},
    {.name = "quiet",
     .kind = CB_OPT_FLAG,
     .field = F(quiet),
     .takes = ALL,
     .lists = ALL,
     .group = "engine",
     .help = "no progress on stderr (shown only on a terminal)",
     .man = "No progress on standard error. Progress (operations, accesses "
            "and the\n"
            "time so far, a few times a second, from a second into the "
            "analysis) is\n"
            "shown only when standard error is a terminal."},
    /* gate: check and validate; the other commands accept and ignore them */
    {.name = "baseline",
     .arg = "FILE",
     .kind = CB_OPT_STRING,
     .field = F(baseline),
     .takes = ALL,
     .lists = CB_CMD_CHECK,
     .group = "gate",
     .help = "the JSON report to compare with (required)",
     .man = "The JSON report to compare with (required)."},
    {.name = "update",
     .kind = CB_OPT_FLAG,
     .field = F(update),
     .takes = ALL,
     .lists = CB_CMD_CHECK,
     .group = "gate",
     .help = "write the current report to FILE instead",
     .man = "Write the current report to the baseline file instead of "
            "comparing."},
    {.name = "max-increase",
     .arg = "PCT",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_percent,
     .takes = ALL,
     .lists = CB_CMD_CHECK,
     .group = "gate",
     .help = "allowed growth in percent (default 1)",
     .man = "Allowed growth of an input's misses over the baseline's, in "
            "percent\n"
            "(default 1)."},
    {.name = "level",
     .arg = "NAME",
     .kind = CB_OPT_STRING,
     .field = F(level),
     .takes = ALL,
     .lists = CB_CMD_CHECK,
     .group = "gate",
     .help = "the level compared (default: the first, L1D)",
     .man = "The cache level compared (default: the first, L1D)."},
    {.name = "tolerance",
     .arg = "PCT",
     .kind = CB_OPT_CUSTOM,
     .parse = parse_percent,
     .takes = ALL,
     .lists = CB_CMD_VALIDATE,
     .group = "gate",
     .help = "allowed gap in own-code accesses and L1D misses, in\n"
             "percent (default: 1% or 20, whichever is larger)",
     .man = "Allowed gap between cbana's and cachegrind's own-code "
            "accesses and L1D\n"
            "misses, in percent (default: 1% or 20, whichever is larger); "
            "the output\n"
            "and exit status must be the real run's."},
};

const size_t cb_n_options = sizeof cb_options / sizeof cb_options[0];
