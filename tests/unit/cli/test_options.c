/* The option table (cli/options_table.c) against the command line's
 * contract: every option parses each good value into its field and
 * refuses each bad one with the error text users know, every option is
 * listed in the --help of the commands its entry names (the real cbana's
 * output) and in the man page, and the man page's option list is the one
 * the table writes.
 *
 *   test_options CBANA MAN_PAGE */
#include "check.h"

#include "options.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A field as text, written by hand from the field's name, not from the
 * table, so a wrong offset or kind in an entry shows. */
static bool render(const char *opt, const cb_analyze_args *a, char *buf,
                   size_t n) {
#define S(name, expr)                                                          \
  else if (strcmp(opt, name) == 0)                                             \
      snprintf(buf, n, "%s", (expr) ? (expr) : "(null)")
#define U(name, expr)                                                          \
  else if (strcmp(opt, name) == 0)                                             \
      snprintf(buf, n, "%" PRIu64, (uint64_t)(expr))
#define G(name, expr)                                                          \
  else if (strcmp(opt, name) == 0) snprintf(buf, n, "%g", (double)(expr))
  if (0)
    ;
  S("cflags", a->cflags);
  S("p", a->compdb_dir);
  S("inputs", a->inputs_file);
  S("args", a->inline_args);
  S("cache", a->n_caches ? a->caches[a->n_caches - 1] : NULL);
  S("D1", a->flag_d1);
  S("L2", a->flag_l2);
  S("LL", a->flag_ll);
  S("format", a->format);
  S("output", a->output);
  S("o", a->output);
  S("argv0", a->argv0);
  S("baseline", a->baseline);
  S("level", a->level);
  U("top", a->top);
  U("input", a->input);
  U("jobs", a->jobs);
  U("sim-threads", a->sim_threads);
  U("split-epoch", a->split_epoch);
  U("budget", a->budget);
  U("stack-top", a->stack_top);
  U("no-classify", a->no_classify);
  U("exact-mrc", a->exact_mrc);
  U("no-split", a->no_split);
  U("stats", a->stats);
  U("exact-engine", a->exact_engine);
  U("no-memo", a->no_memo);
  U("no-process", a->no_process);
  U("no-kernels", a->no_kernels);
  U("no-reuse", a->no_reuse);
  U("wait-kernels", a->wait_kernels);
  U("quiet", a->quiet);
  U("update", a->update);
  G("timeout", a->timeout);
  G("tolerance", a->tolerance);
  G("max-increase", a->tolerance);
  else if (strcmp(opt, "shard") == 0)
      snprintf(buf, n, "%u/%u", a->shard, a->shards);
  else return false;
  return true;
#undef S
#undef U
#undef G
}

/* One command line: the command, its arguments (after the command's name,
 * NULL-terminated), and either the option whose field is checked with the
 * value it must hold, or the one line on stderr. */
typedef struct pcase {
  const char *command;
  const char *argv[12];
  const char *opt, *want; /* accepted: render(opt) == want */
  const char *error;      /* refused: stderr */
} pcase;

#define OK(cmd, opt, want, ...)                                                \
  { cmd, {__VA_ARGS__, NULL}, opt, want, NULL }
#define BAD(cmd, error, ...)                                                   \
  { cmd, {__VA_ARGS__, NULL}, NULL, NULL, error }

static const pcase cases[] = {
    /* defaults */
    OK("analyze", "cflags", "-O2", "a.c"),
    OK("analyze", "format", "text", "a.c"),
    OK("analyze", "top", "10", "a.c"),
    OK("check", "max-increase", "-1", "a.c"),
    OK("analyze", "input", "0", "a.c"),
    /* program */
    OK("analyze", "cflags", "-O0 -g", "a.c", "--cflags", "-O0 -g"),
    OK("paths", "cflags", "-O1", "--cflags=-O1", "a.c"),
    OK("analyze", "p", "build", "a.c", "-p", "build"),
    OK("analyze", "p", "b2", "-pb2", "a.c"),
    BAD("analyze", "cbana analyze: -p needs a value", "a.c", "-p"),
    /* inputs */
    OK("analyze", "inputs", "in.txt", "a.c", "--inputs", "in.txt"),
    OK("analyze", "args", "1 2", "a.c", "--args", "1 2"),
    BAD("analyze", "cbana analyze: give --inputs or --args, not both", "a.c",
        "--inputs", "x", "--args", "1"),
    BAD("analyze", "cbana analyze: --inputs needs a value", "a.c", "--inputs"),
    OK("analyze", "shard", "2/3", "a.c", "--inputs", "x", "--shard", "2/3"),
    OK("validate", "shard", "1000000/1000000", "a.c", "--inputs", "x",
       "--shard=1000000/1000000"),
    BAD("analyze", "cbana analyze: --shard is K/N with 1 <= K <= N, not '4/3'",
        "a.c", "--inputs", "x", "--shard", "4/3"),
    BAD("analyze", "cbana analyze: --shard is K/N with 1 <= K <= N, not '0/1'",
        "a.c", "--inputs", "x", "--shard", "0/1"),
    BAD("analyze",
        "cbana analyze: --shard is K/N with 1 <= K <= N, not '1/1000001'",
        "a.c", "--inputs", "x", "--shard", "1/1000001"),
    BAD("analyze", "cbana analyze: --shard is K/N with 1 <= K <= N, not '1'",
        "a.c", "--inputs", "x", "--shard", "1"),
    BAD("analyze", "cbana analyze: --shard slices an --inputs file: give one",
        "a.c", "--shard", "1/2"),
    /* caches */
    OK("analyze", "cache", "zen3", "a.c", "--cache", "l1.cfg", "--cache",
       "zen3"),
    OK("analyze", "cache", "8", "a.c", "--cache=1", "--cache=2", "--cache=3",
       "--cache=4", "--cache=5", "--cache=6", "--cache=7", "--cache=8"),
    BAD("analyze", "cbana analyze: at most 8 --cache options", "a.c",
        "--cache=1", "--cache=2", "--cache=3", "--cache=4", "--cache=5",
        "--cache=6", "--cache=7", "--cache=8", "--cache=9"),
    OK("analyze", "D1", "32768,8,64", "a.c", "--D1=32768,8,64"),
    OK("analyze", "L2", "1M,16,64", "a.c", "--L2", "1M,16,64"),
    OK("analyze", "LL", "8M,16,64", "a.c", "--LL=8M,16,64"),
    OK("analyze", "no-classify", "1", "a.c", "--no-classify"),
    OK("analyze", "exact-mrc", "1", "a.c", "--exact-mrc"),
    BAD("analyze", "cbana analyze: unknown option '--no-classify=1'", "a.c",
        "--no-classify=1"),
    /* output */
    OK("analyze", "format", "json", "a.c", "--format", "json"),
    OK("analyze", "format", "cachegrind", "a.c", "--format=cachegrind"),
    BAD("analyze",
        "cbana analyze: --format is text, json, annotate, html, sarif, dot or "
        "cachegrind, not 'xml'",
        "a.c", "--format", "xml"),
    OK("analyze", "output", "r.txt", "a.c", "-o", "r.txt"),
    OK("analyze", "o", "r2.txt", "a.c", "--output", "r2.txt"),
    OK("analyze", "top", "999999", "a.c", "--top", "999999"),
    OK("analyze", "top", "16", "a.c", "--top=0x10"),
    BAD("analyze", "cbana analyze: --top needs a whole number, not '0'", "a.c",
        "--top", "0"),
    BAD("analyze", "cbana analyze: --top needs a whole number, not '1000000'",
        "a.c", "--top", "1000000"),
    BAD("analyze", "cbana analyze: --top needs a whole number, not '-3'", "a.c",
        "--top=-3"),
    OK("annotate", "input", "3", "a.c", "--input", "3"),
    OK("annotate", "input", "2", "--input=2", "a.c"),
    BAD("annotate",
        "cbana annotate: --input needs an input number (1, 2, ...), not '0'",
        "a.c", "--input", "0"),
    BAD("annotate",
        "cbana annotate: --input needs an input number (1, 2, ...), not 'x'",
        "a.c", "--input=x"),
    /* elsewhere --input is a prefix of --inputs (getopt_long) */
    OK("analyze", "inputs", "3", "a.c", "--input", "3"),
    OK("check", "inputs", "in", "a.c", "--inp=in"),
    BAD("annotate", "cbana annotate: unknown option '--inp'", "a.c", "--inp",
        "x"),
    /* engine */
    OK("analyze", "jobs", "0", "a.c", "--jobs", "0"),
    OK("analyze", "jobs", "1023", "a.c", "--jobs", "1023"),
    BAD("analyze", "cbana analyze: --jobs needs a whole number, not '1024'",
        "a.c", "--jobs", "1024"),
    OK("analyze", "sim-threads", "4", "a.c", "--sim-threads", "4"),
    BAD("analyze",
        "cbana analyze: --sim-threads needs a whole number, not 'two'", "a.c",
        "--sim-threads", "two"),
    OK("analyze", "no-split", "1", "a.c", "--no-split"),
    OK("analyze", "split-epoch", "1000", "a.c", "--split-epoch", "1000"),
    BAD("analyze", "cbana analyze: --split-epoch needs a whole number, not '0'",
        "a.c", "--split-epoch", "0"),
    OK("analyze", "budget", "18446744073709551615", "a.c", "--budget",
       "18446744073709551615"),
    BAD("analyze",
        "cbana analyze: --budget needs a whole number, not "
        "'18446744073709551616'",
        "a.c", "--budget", "18446744073709551616"),
    BAD("analyze", "cbana analyze: --budget needs a whole number, not '1e6'",
        "a.c", "--budget", "1e6"),
    OK("analyze", "timeout", "2.5", "a.c", "--timeout", "2.5"),
    BAD("analyze",
        "cbana analyze: --timeout needs a number of seconds > 0, not '0'",
        "a.c", "--timeout", "0"),
    BAD("analyze",
        "cbana analyze: --timeout needs a number of seconds > 0, not '5s'",
        "a.c", "--timeout", "5s"),
    BAD("analyze",
        "cbana analyze: --timeout needs a number of seconds > 0, not '2e9'",
        "a.c", "--timeout", "2e9"),
    OK("analyze", "stack-top", "140737488216064", "a.c", "--stack-top",
       "0x7ffffffde000"),
    OK("analyze", "stack-top", "0", "a.c", "--stack-top", "0"),
    BAD("analyze", "cbana analyze: --stack-top needs a whole number, not ''",
        "a.c", "--stack-top="),
    OK("analyze", "argv0", "./prog", "a.c", "--argv0", "./prog"),
    OK("analyze", "stats", "1", "a.c", "--stats"),
    OK("analyze", "exact-engine", "1", "a.c", "--exact-engine"),
    OK("analyze", "no-memo", "1", "a.c", "--no-memo"),
    OK("analyze", "no-process", "1", "a.c", "--no-process"),
    OK("analyze", "no-kernels", "1", "a.c", "--no-kernels"),
    OK("analyze", "no-reuse", "1", "a.c", "--no-reuse"),
    OK("analyze", "wait-kernels", "1", "a.c", "--wait-kernels"),
    OK("analyze", "quiet", "1", "--quiet", "a.c"),
    /* gate: taken by every analysis command, as before the table */
    OK("check", "baseline", "base.json", "a.c", "--baseline", "base.json"),
    OK("analyze", "baseline", "b.json", "a.c", "--baseline=b.json"),
    OK("check", "update", "1", "a.c", "--update"),
    OK("check", "max-increase", "2.5", "a.c", "--max-increase", "2.5"),
    BAD("check", "cbana check: a tolerance is a percentage >= 0, not '-1'",
        "a.c", "--max-increase", "-1"),
    OK("check", "level", "LL", "a.c", "--level", "LL"),
    OK("validate", "tolerance", "0", "a.c", "--tolerance", "0"),
    OK("validate", "tolerance", "5", "a.c", "--tol", "5"),
    BAD("validate",
        "cbana validate: a tolerance is a percentage >= 0, not '5%'", "a.c",
        "--tolerance", "5%"),
    /* the rest of the command line */
    BAD("analyze", "cbana analyze: no C source given", "--quiet"),
    BAD("analyze", "cbana analyze: unknown option '--frobnicate'", "a.c",
        "--frobnicate"),
    BAD("analyze", "cbana analyze: unknown option '--no'", "a.c", "--no"),
    BAD("paths", "cbana paths: unknown option '-x'", "a.c", "-x"),
    BAD("analyze", "cbana analyze: --top needs a value", "a.c", "--top"),
};

/* Runs one case; what it printed on stderr goes to err. */
static bool parse_case(const pcase *c, cb_analyze_args *a, char *err,
                       size_t n) {
  char *argv[12];
  int argc = 0;
  while (c->argv[argc]) {
    argv[argc] = (char *)c->argv[argc];
    argc++;
  }
  fflush(stderr);
  FILE *tmp = tmpfile();
  if (!tmp) {
    snprintf(err, n, "tmpfile failed");
    return false;
  }
  int saved = dup(2);
  dup2(fileno(tmp), 2);
  bool ok = cb_analyze_args_parse(argc, argv, a, c->command);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  rewind(tmp);
  size_t got = fread(err, 1, n - 1, tmp);
  err[got] = '\0';
  fclose(tmp);
  if (got && err[got - 1] == '\n')
    err[got - 1] = '\0';
  return ok;
}

static const char *opt_name(const cb_option *o) {
  static char s[2];
  if (o->name)
    return o->name;
  s[0] = o->short_name;
  return s;
}

static void test_parsing(void) {
  size_t n = sizeof cases / sizeof cases[0];
  for (size_t i = 0; i < n; i++) {
    const pcase *c = &cases[i];
    cb_analyze_args a;
    char err[512], got[512];
    bool ok = parse_case(c, &a, err, sizeof err);
    if (c->error) {
      CHECK(!ok);
      if (strcmp(err, c->error) != 0)
        fprintf(stderr, "case %zu: stderr '%s', want '%s'\n", i, err, c->error);
      CHECK(strcmp(err, c->error) == 0);
      continue;
    }
    CHECK(ok);
    CHECK(err[0] == '\0');
    if (!ok) {
      fprintf(stderr, "case %zu (%s): refused: %s\n", i, c->opt, err);
      continue;
    }
    CHECK(render(c->opt, &a, got, sizeof got));
    if (strcmp(got, c->want) != 0)
      fprintf(stderr, "case %zu: %s is '%s', want '%s'\n", i, c->opt, got,
              c->want);
    CHECK(strcmp(got, c->want) == 0);
    cb_analyze_args_free(&a);
  }
  /* Every entry has a case it passes and, when it takes a value that can
   * be wrong, one it refuses: a new option comes with its cases. */
  for (size_t i = 0; i < cb_n_options; i++) {
    const cb_option *o = &cb_options[i];
    const char *name = opt_name(o);
    /* Listed somewhere, and taken wherever it is listed. */
    CHECK(o->lists != 0);
    CHECK((o->lists & ~o->takes) == 0);
    char dashed[64];
    snprintf(dashed, sizeof dashed, o->name ? "--%s" : "-%s", name);
    bool accepted = false, refused = false;
    for (size_t k = 0; k < n; k++) {
      if (cases[k].opt && strcmp(cases[k].opt, name) == 0 && cases[k].argv[1])
        accepted = true;
      for (const char *const *v = cases[k].argv; cases[k].error && *v; v++)
        if (strcmp(*v, dashed) == 0 ||
            (strncmp(*v, dashed, strlen(dashed)) == 0 &&
             (*v)[strlen(dashed)] == '='))
          refused = true;
    }
    if (!accepted)
      fprintf(stderr, "no case sets %s\n", dashed);
    CHECK(accepted);
    if (o->kind != CB_OPT_FLAG && o->kind != CB_OPT_STRING && !refused)
      fprintf(stderr, "no case refuses a value of %s\n", dashed);
    CHECK(o->kind == CB_OPT_FLAG || o->kind == CB_OPT_STRING || refused);
  }
}

static char *read_all(FILE *f) {
  char *buf = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&buf, &len);
  char chunk[4096];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    fwrite(chunk, 1, n, m);
  fclose(m);
  return buf;
}

/* Whether a --help text lists label ("--top", "-p") on an option line:
 * one starting with two spaces and '-', whose labels run to two spaces or
 * the line's end ("  -o, --output FILE   write..."). */
static bool help_lists(const char *help, const char *label) {
  size_t n = strlen(label);
  for (const char *line = help; line && *line;
       line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
    if (strncmp(line, "  -", 3) != 0)
      continue;
    const char *s = line + 2;
    const char *stop = strstr(s, "  ");
    const char *eol = strchr(s, '\n');
    if (!stop || (eol && eol < stop))
      stop = eol ? eol : s + strlen(s);
    while (s < stop) {
      const char *t = s;
      while (t < stop && *t != ' ')
        t++;
      if ((size_t)(t - s) >= n && strncmp(s, label, n) == 0 &&
          (s + n == t || s[n] == '=' || s[n] == ','))
        return true;
      s = t + 1;
    }
  }
  return false;
}

static const char *const commands[] = {"analyze", "validate", "check",
                                       "annotate", "paths"};

/* The real --help of each command lists the entries the table names for
 * it, and no other. */
static void test_help(const char *cbana) {
  for (unsigned c = 0; c < 5; c++) {
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s --help", cbana, commands[c]);
    FILE *p = popen(cmd, "r");
    CHECK(p != NULL);
    if (!p)
      continue;
    char *help = read_all(p);
    CHECK(pclose(p) == 0);
    unsigned bit = cb_options_command(commands[c]);
    CHECK(bit != 0);
    for (size_t i = 0; i < cb_n_options; i++) {
      const cb_option *o = &cb_options[i];
      char label[64];
      if (o->name)
        snprintf(label, sizeof label, "--%s", o->name);
      else
        snprintf(label, sizeof label, "-%c", o->short_name);
      bool found = help_lists(help, label);
      bool listed = (o->lists & bit) != 0;
      if (found != listed)
        fprintf(stderr, "%s --help %s %s\n", commands[c],
                found ? "lists" : "does not list", label);
      CHECK(found == listed);
    }
    free(help);
  }
}

/* docs/cbana.1's option list is the table's, and names every entry. */
static void test_man(const char *path) {
  FILE *f = fopen(path, "r");
  CHECK(f != NULL);
  if (!f)
    return;
  char *page = read_all(f);
  fclose(f);
  char *begin = strstr(page, CB_OPTIONS_MAN_BEGIN "\n");
  char *end = begin ? strstr(begin, CB_OPTIONS_MAN_END "\n") : NULL;
  CHECK(begin && end);
  if (!end) {
    free(page);
    return;
  }
  begin += strlen(CB_OPTIONS_MAN_BEGIN "\n");
  *end = '\0';
  char *want = NULL;
  size_t len = 0;
  FILE *m = open_memstream(&want, &len);
  cb_options_man(m);
  fclose(m);
  if (strcmp(begin, want) != 0)
    fprintf(stderr,
            "%s: the option list is not the table's: build cbana "
            "(it rewrites the page) and commit the page\n",
            path);
  CHECK(strcmp(begin, want) == 0);
  for (size_t i = 0; i < cb_n_options; i++) {
    const cb_option *o = &cb_options[i];
    if (!o->lists)
      continue;
    /* The label as the page writes it ("\-\-sim\-threads", "\-p"),
     * ended as a label is: by '"' (the end of .B's argument), '=' or ','. */
    char full[80];
    size_t k = 0;
    if (o->name) {
      k = (size_t)snprintf(full, sizeof full, "\\-\\-");
      for (const char *t = o->name; *t && k < sizeof full - 3; t++) {
        if (*t == '-')
          full[k++] = '\\';
        full[k++] = *t;
      }
      full[k] = '\0';
    } else {
      k = (size_t)snprintf(full, sizeof full, "\\-%c", o->short_name);
    }
    bool found = false;
    for (const char *t = begin; (t = strstr(t, full)); t++)
      found |= t[k] == '"' || t[k] == '=' || t[k] == ',';
    if (!found)
      fprintf(stderr, "the man page does not list %s\n", full);
    CHECK(found);
    /* Every listed entry is described, or shares the next one's lines. */
    CHECK(o->help ? o->man && *o->man : i + 1 < cb_n_options);
  }
  free(want);
  free(page);
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: test_options CBANA MAN_PAGE\n");
    return 2;
  }
  test_parsing();
  test_help(argv[1]);
  test_man(argv[2]);
  return check_done();
}
