/* engine_trace: a developer tool (not a test): the engine's access stream
 * of one program and input, one line per access in lackey's format
 * (` L addr,size` / ` S addr,size`), to compare with
 * `valgrind --tool=lackey --trace-mem=yes` access by access
 * (tools/probe/libtrace.py's traces). The executable is built at EXE,
 * and the run is modelled as started as EXE from the current directory,
 * with the process's start-up and exit (analysis/process/process.h).
 * Usage: [CB_TRACE_CFLAGS=...] [CB_TRACE_STDIN=FILE] engine_trace EXE FILE.c
 * [-- ARGS...] */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_dir.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "process.h"

static void sink(void *ctx, const cb_access *b, size_t n) {
  (void)ctx;
  for (size_t i = 0; i < n; i++)
    printf(" %c %llx,%u\n", b[i].is_write ? 'S' : 'L',
           (unsigned long long)b[i].addr, (unsigned)b[i].size);
}

/* library loops and replayed iterations arrive as affine blocks */
static void sink_block(void *ctx, const cb_affine_block *b) {
  cb_access buf[256];
  uint64_t pos = 0;
  size_t k;
  while ((k = cb_affine_expand(b, &pos, buf, 256)) > 0)
    sink(ctx, buf, k);
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: engine_trace EXE FILE.c [-- ARGS...]\n");
    return 2;
  }
  const char *srcs[] = {argv[2]};
  cb_frontend_options fo = {0};
  fo.cache_dir = cb_cli_cache_dir();
  fo.sources = srcs;
  fo.n_sources = 1;
  /* CB_TRACE_CFLAGS: other flags than -O2 (e.g. -DSMALL_PROBLEM_SIZE) */
  const char *cf = getenv("CB_TRACE_CFLAGS");
  fo.cflags = cf && *cf ? cf : "-O2";
  fo.exe_out = argv[1];
  cb_program *p = NULL;
  char err[4096];
  if (cb_frontend_load(&fo, &p, err, sizeof err) != CB_FE_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  int pargc = 1;
  const char **pargv = calloc((size_t)argc, sizeof *pargv);
  if (!pargv)
    return 1;
  pargv[0] = argv[1];
  for (int i = 4; i < argc; i++)
    pargv[pargc++] = argv[i];
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    return 1;
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  opt.cwd = cwd;
  /* CB_TRACE_STDIN: a file as the program's standard input (else
   * /dev/null) */
  const char *sin = getenv("CB_TRACE_STDIN");
  unsigned char *data = NULL;
  size_t len = 0;
  if (sin && *sin) {
    FILE *fi = fopen(sin, "rb");
    if (!fi || fseek(fi, 0, SEEK_END) || (len = (size_t)ftell(fi), 0) ||
        fseek(fi, 0, SEEK_SET) || !(data = malloc(len + 1)) ||
        fread(data, 1, len, fi) != len) {
      fprintf(stderr, "cannot read %s\n", sin);
      return 1;
    }
    fclose(fi);
  }
  cb_run_input in = {pargc, pargv, data, len};
  /* start-up and exit from the process probes, as cbana analyze has them */
  cb_process_state ps;
  if (cb_process_prepare(&ps, p, fo.cache_dir, pargc, pargv, cwd))
    opt.process = &ps.replay;
  else
    fprintf(stderr, "no start-up and exit: %s\n", ps.why);
  cb_access_sink s = {sink, NULL, sink_block, NULL};
  cb_run_outcome o;
  int rc = cb_engine_run(p, &in, &opt, &s, &o);
  fprintf(stderr, "engine rc=%d %s\n", rc, o.message);
  cb_run_outcome_free(&o);
  cb_process_release(&ps);
  cb_program_free(p);
  free(pargv);
  free(data);
  return rc ? 1 : 0;
}
