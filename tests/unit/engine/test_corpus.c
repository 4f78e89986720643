/* The engine on the acceptance corpus: every program is lowered by the
 * frontend, run by the engine for every input of its inputs file, and run
 * natively (the executable the frontend built with the same flags); the
 * printed output and the exit status must be identical, and the bad
 * programs must stop with their messages. Usage: engine_corpus [NAME...]
 * (default: all). */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cache_dir.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "cbana/inputs.h"
#include "check.h"
#include "proc.h"

typedef struct prog {
  const char *name;
  const char *sources[3];
  const char *inputs;
  const char *cflags; /* NULL: -O2 */
} prog;

static const prog corpus[] = {
    {"stride_global", {"stride_global.c"}, "stride_global.inputs", NULL},
    {"branch_paths", {"branch_paths.c"}, "branch_paths.inputs", NULL},
    {"aos_soa", {"aos_soa.c"}, "aos_soa.inputs", NULL},
    {"conflict_pad", {"conflict_pad.c"}, "conflict_pad.inputs", NULL},
    {"rand_gather", {"rand_gather.c"}, "rand_gather.inputs", NULL},
    {"linked_list", {"linked_list.c"}, "linked_list.inputs", NULL},
    {"stack_stencil", {"stack_stencil.c"}, "stack_stencil.inputs", NULL},
    {"merge_sort", {"merge_sort.c"}, "merge_sort.inputs", NULL},
    {"mem_funcs", {"mem_funcs.c"}, "mem_funcs.inputs", NULL},
    {"stdin_hist", {"stdin_hist.c"}, "stdin_hist.inputs", NULL},
    {"converge", {"converge.c"}, "converge.inputs", NULL},
    {"matmul_heap", {"matmul_heap.c"}, "matmul_heap.inputs", NULL},
    {"two_files",
     {"two_files/main.c", "two_files/kernel.c"},
     "two_files/inputs",
     NULL},
    {"huge_alloc", {"bad/huge_alloc.c"}, NULL, NULL},
    {"endless", {"bad/endless.c"}, "bad/endless.inputs", NULL},
    {"out_of_bounds",
     {"bad/out_of_bounds.c"},
     "bad/out_of_bounds.inputs",
     NULL},
    /* tests/unit/engine/progs (marked by the leading '@') */
    {"libc_mix", {"@libc_mix.c"}, "@libc_mix.inputs", NULL},
    {"vec_mix", {"@vec_mix.c"}, "@vec_mix.inputs", NULL},
    {"libc_math", {"@libc_math.c"}, "@libc_math.inputs", NULL},
    {"libc_rand", {"@libc_rand.c"}, "@libc_rand.inputs", NULL},
    {"libc_string", {"@libc_string.c"}, "@libc_string.inputs", NULL},
    {"long_string", {"@long_string.c"}, "@long_string.inputs", NULL},
    /* the C language as clang lowers it, at every optimisation level */
    {"intrin_O0",
     {"@intrinsics_mix.c"},
     "@intrinsics_mix.inputs",
     "-O0 -fno-math-errno"},
    {"intrin_O1",
     {"@intrinsics_mix.c"},
     "@intrinsics_mix.inputs",
     "-O1 -fno-math-errno"},
    {"intrin_O2",
     {"@intrinsics_mix.c"},
     "@intrinsics_mix.inputs",
     "-O2 -fno-math-errno"},
    {"intrin_O3",
     {"@intrinsics_mix.c"},
     "@intrinsics_mix.inputs",
     "-O3 -fno-math-errno"},
    {"complex_O0", {"@complex_mix.c"}, "@complex_mix.inputs", "-O0"},
    {"complex_O2", {"@complex_mix.c"}, "@complex_mix.inputs", "-O2"},
    {"cldouble_O0", {"@complex_ldouble.c"}, "@complex_ldouble.inputs", "-O0"},
    {"cldouble_O2", {"@complex_ldouble.c"}, "@complex_ldouble.inputs", "-O2"},
    {"goto_O0", {"@computed_goto.c"}, "@computed_goto.inputs", "-O0"},
    {"goto_O2", {"@computed_goto.c"}, "@computed_goto.inputs", "-O2"},
    {"goto_O3", {"@computed_goto.c"}, "@computed_goto.inputs", "-O3"},
    {"varargs_O0", {"@varargs_mix.c"}, "@varargs_mix.inputs", "-O0"},
    {"varargs_O1", {"@varargs_mix.c"}, "@varargs_mix.inputs", "-O1"},
    {"varargs_O2", {"@varargs_mix.c"}, "@varargs_mix.inputs", "-O2"},
    {"varargs_O3", {"@varargs_mix.c"}, "@varargs_mix.inputs", "-O3"},
    {"logger_O0", {"@varargs_logger.c"}, "@varargs_logger.inputs", "-O0"},
    {"logger_O2", {"@varargs_logger.c"}, "@varargs_logger.inputs", "-O2"},
    {"unlocked_O0", {"@stdio_unlocked.c"}, "@stdio_unlocked.inputs", "-O0"},
    {"unlocked_O2", {"@stdio_unlocked.c"}, "@stdio_unlocked.inputs", "-O2"},
    {"atexit_O0", {"@atexit_mix.c"}, "@atexit_mix.inputs", "-O0"},
    {"atexit_O2", {"@atexit_mix.c"}, "@atexit_mix.inputs", "-O2"},
};

/* A corpus path, or one of this directory's programs. */
static void prog_path(char *out, size_t n, const char *rel) {
  if (rel[0] == '@')
    snprintf(out, n, "%s/%s", CB_TEST_PROGS, rel + 1);
  else
    snprintf(out, n, "%s/%s", CB_TEST_CORPUS, rel);
}

static char tmpdir[64];

/* Runs exe natively with env -i semantics; returns the exit status, the
 * output in *out. */
static int run_native(const char *exe, int argc, char **args,
                      const char *stdin_path, char **out) {
  int pfd[2];
  if (pipe(pfd))
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    int in = open(stdin_path ? stdin_path : "/dev/null", O_RDONLY);
    dup2(in, 0);
    dup2(pfd[1], 1);
    close(pfd[0]);
    char **av = calloc((size_t)argc + 2, sizeof *av);
    av[0] = (char *)exe;
    for (int i = 0; i < argc; i++)
      av[i + 1] = args[i];
    char *envp[] = {NULL};
    alarm(120); /* never hang on a program that does not end */
    execve(exe, av, envp);
    _exit(127);
  }
  close(pfd[1]);
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  ssize_t k;
  while ((k = read(pfd[0], buf + n, cap - n - 1)) > 0) {
    n += (size_t)k;
    if (n + 1 >= cap)
      buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  close(pfd[0]);
  int st;
  waitpid(pid, &st, 0);
  *out = buf;
  return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *b = malloc((size_t)n + 1);
  *len = fread(b, 1, (size_t)n, f);
  fclose(f);
  return b;
}

static void count_sink(void *ctx, const cb_access *b, size_t n) {
  (void)b;
  *(uint64_t *)ctx += n;
}

static void one_input(const prog *pr, cb_program *p, const char *exe, int argc,
                      char **args, const char *stdin_path, const char *label) {
  char *native = NULL;
  bool endless = !strcmp(pr->name, "endless") && argc && !strcmp(args[0], "0");
  int want = endless ? 0 : run_native(exe, argc, args, stdin_path, &native);
  const char **argv = calloc((size_t)argc + 2, sizeof *argv);
  argv[0] = exe;
  for (int i = 0; i < argc; i++)
    argv[i + 1] = args[i];
  size_t in_len = 0;
  unsigned char *in = stdin_path ? slurp(stdin_path, &in_len) : NULL;
  cb_run_input ri = {argc + 1, argv, in, in_len};
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  if (!strcmp(pr->name, "endless"))
    opt.budget = 50000000;
  uint64_t total = 0;
  cb_access_sink sink = {count_sink, &total, NULL, NULL};
  cb_run_outcome o;
  clock_t t0 = clock();
  int rc = cb_engine_run(p, &ri, &opt, &sink, &o);
  double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
  printf("%-14s %-22s rc=%d status=%d exit=%d ops=%llu loads=%llu "
         "stores=%llu lib=%llu+%llu %.2fs%s%s\n",
         pr->name, label, rc, o.status, o.exit_code, (unsigned long long)o.ops,
         (unsigned long long)o.loads, (unsigned long long)o.stores,
         (unsigned long long)o.lib_reads, (unsigned long long)o.lib_writes,
         secs, o.message[0] ? "\n    " : "", o.message);
  if (endless) {
    CHECK(o.status == CB_RUN_BUDGET);
    CHECK(strstr(o.message, "budget") != NULL);
  } else if (!strcmp(pr->name, "out_of_bounds") && argc &&
             !strcmp(args[0], "100000000")) {
    CHECK(o.status == CB_RUN_ERROR);
    CHECK(o.file && strstr(o.file, "out_of_bounds.c") && o.line == 8);
    CHECK(strstr(o.message, "`a`") != NULL);
  } else {
    CHECK(rc == 0);
    CHECK_EQ_U64(o.exit_code, want);
    CHECK(strcmp(o.out, native) == 0);
    if (strcmp(o.out, native))
      fprintf(stderr, "  engine: %s  native: %s", o.out, native);
    if (!strcmp(pr->name, "libc_mix"))
      CHECK(strstr(o.err, "to stderr") != NULL);
    CHECK(total == o.loads + o.stores + o.lib_reads + o.lib_writes);
  }
  cb_run_outcome_free(&o);
  free(in);
  free(argv);
  free(native);
}

static void one_prog(const prog *pr) {
  const char *srcs[3];
  size_t ns = 0;
  char paths[3][512];
  for (; ns < 3 && pr->sources[ns]; ns++) {
    prog_path(paths[ns], sizeof paths[ns], pr->sources[ns]);
    srcs[ns] = paths[ns];
  }
  char exe[600];
  snprintf(exe, sizeof exe, "%s/%s", tmpdir, pr->name);
  cb_frontend_options fo = {0};
  fo.cache_dir = cb_cli_cache_dir();
  fo.sources = srcs;
  fo.n_sources = ns;
  fo.cflags = pr->cflags ? pr->cflags : "-O2";
  fo.exe_out = exe;
  cb_program *p = NULL;
  char err[4096];
  cb_fe_status fs = cb_frontend_load(&fo, &p, err, sizeof err);
  CHECK(fs == CB_FE_OK);
  if (fs != CB_FE_OK) {
    fprintf(stderr, "%s: frontend: %s\n", pr->name, err);
    return;
  }
  uint64_t hb, mb;
  cb_engine_layout(p, &hb, &mb);
  printf("%-14s layout: heap 0x%llx mmap 0x%llx\n", pr->name,
         (unsigned long long)hb, (unsigned long long)mb);
  CHECK_EQ_U64(hb, 0x4035000); /* small PIE programs */
  CHECK(mb == 0x4a2c000 || mb == 0x4a2c000 + 0xe0000);
  uint64_t got[CB_LIBC_COUNT];
  cb_engine_got_slots(p, got);
  /* every program here calls atoi (strtol), printf/puts or malloc */
  CHECK(got[CB_LIBC_STRTOL] || got[CB_LIBC_PRINTF] || got[CB_LIBC_PUTS] ||
        got[CB_LIBC_MALLOC] || got[CB_LIBC_ISOC99_SCANF]);
  for (int k = 0; k < CB_LIBC_COUNT; k++)
    CHECK(!got[k] || (got[k] > p->load_base && got[k] < p->image_end));
  if (!pr->inputs) {
    one_input(pr, p, exe, 0, NULL, NULL, "(no args)");
  } else {
    char ip[600];
    prog_path(ip, sizeof ip, pr->inputs);
    cb_inputs in;
    CHECK(cb_inputs_parse_file(ip, &in) == 0);
    for (size_t i = 0; i < in.n; i++)
      one_input(pr, p, exe, in.sets[i].argc, in.sets[i].args,
                in.sets[i].stdin_path, in.sets[i].text);
    cb_inputs_free(&in);
  }
  cb_program_free(p);
  unlink(exe);
}

int main(int argc, char **argv) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/cbana_corpusXXXXXX");
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  for (size_t i = 0; i < sizeof corpus / sizeof *corpus; i++) {
    bool want = argc < 2;
    for (int k = 1; k < argc; k++)
      if (!strcmp(argv[k], corpus[i].name))
        want = true;
    if (want)
      one_prog(&corpus[i]);
  }
  rmdir(tmpdir);
  return check_done();
}
