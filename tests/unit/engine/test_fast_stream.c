/* The fast engine against the reference interpreter, access by access:
 * for every program of the corpus (the bad ones too: budget, faults) and
 * of tests/unit/engine/progs, and for PolyBench kernels at MINI, both
 * modes run every input; the access streams (address, size, site,
 * direction, in order), the outcome (status, message, exit code, output,
 * operations, loads, stores, library traffic, path signature, branches)
 * must be identical. The fast engine runs twice: once with a sink that
 * takes records only (loop templates expand their accesses into the
 * batch), once with a sink that also takes affine blocks (stream.h), which
 * this test expands itself; both must give the reference's stream. The
 * programs marked below must run loops from templates (counters > 0), so
 * that the templates cannot silently do nothing.
 * Usage: engine_fast_stream [NAME...] (default: all). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cache_dir.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "cbana/inputs.h"
#include "check.h"

typedef struct prog {
  const char *name;
  const char *sources[3];
  const char *inputs;
  const char *cflags;
} prog;

#define PB "-O2 -DMINI_DATASET -I" CB_TEST_POLYBENCH
static const prog progs[] = {
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
    {"endless", {"bad/endless.c"}, "bad/endless.inputs", NULL},
    {"out_of_bounds",
     {"bad/out_of_bounds.c"},
     "bad/out_of_bounds.inputs",
     NULL},
    {"libc_mix", {"@libc_mix.c"}, "@libc_mix.inputs", NULL},
    {"vec_mix", {"@vec_mix.c"}, "@vec_mix.inputs", NULL},
    {"loop_shapes", {"@loop_shapes.c"}, "@loop_shapes.inputs", NULL},
    {"time_steps", {"@time_steps.c"}, "@time_steps.inputs", NULL},
    {"gemm", {"%linear-algebra/blas/gemm.c"}, NULL, PB},
    {"seidel-2d", {"%stencils/seidel-2d.c"}, NULL, PB},
    {"cholesky", {"%linear-algebra/solvers/cholesky.c"}, NULL, PB},
    {"nussinov", {"%medley/nussinov.c"}, NULL, PB},
    {"deriche", {"%medley/deriche.c"}, NULL, PB},
};

/* Programs some of whose inputs must run loops from templates. */
static const char *const with_templates[] = {"loop_shapes", "stride_global",
                                             "seidel-2d", "cholesky"};

static void prog_path(char *out, size_t n, const char *rel) {
  if (rel[0] == '@')
    snprintf(out, n, "%s/%s", CB_TEST_PROGS, rel + 1);
  else if (rel[0] == '%')
    snprintf(out, n, "%s/%s", CB_TEST_POLYBENCH, rel + 1);
  else
    snprintf(out, n, "%s/%s", CB_TEST_CORPUS, rel);
}

/* The stream, hashed access by access, and its length. */
typedef struct stream {
  uint64_t h, n;
} stream;

static void hash_sink(void *ctx, const cb_access *b, size_t n) {
  stream *s = ctx;
  for (size_t i = 0; i < n; i++) {
    uint64_t w[2] = {b[i].addr, (uint64_t)b[i].site |
                                    (uint64_t)b[i].size << 32 |
                                    (uint64_t)b[i].is_write << 48};
    for (int k = 0; k < 2; k++) {
      s->h ^= w[k];
      s->h *= 0x100000001b3ull;
      s->h ^= s->h >> 29;
    }
  }
  s->n += n;
}

/* The affine block expanded as stream.h defines it: iteration by
 * iteration, each access in order. */
static void affine_sink(void *ctx, const cb_affine_block *blk) {
  cb_access buf[256];
  size_t n = 0;
  for (uint64_t t = 0; t < blk->n_iter; t++)
    for (uint32_t j = 0; j < blk->n_acc; j++) {
      const cb_affine_access *a = &blk->acc[j];
      buf[n].addr = a->base + t * (uint64_t)a->stride;
      buf[n].site = a->site;
      buf[n].size = a->size;
      buf[n].is_write = a->is_write;
      buf[n].reserved = 0;
      if (++n == 256) {
        hash_sink(ctx, buf, n);
        n = 0;
      }
    }
  if (n)
    hash_sink(ctx, buf, n);
}

static uint64_t budget = 200000000;

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char *b = malloc(1 << 20);
  *len = b ? fread(b, 1, 1 << 20, f) : 0;
  fclose(f);
  return b;
}

static void run_mode(const cb_program *p, const cb_run_input *in,
                     cb_engine_mode mode, bool affine, stream *s,
                     cb_run_outcome *o) {
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  opt.mode = mode;
  opt.budget = budget;
  memset(s, 0, sizeof *s);
  cb_access_sink sink = {hash_sink, s, affine ? affine_sink : NULL, NULL};
  cb_engine_run(p, in, &opt, &sink, o);
}

static uint64_t tpl_loops; /* of the program's inputs, summed */

static bool same_outcome(const stream *se, const cb_run_outcome *oe,
                         const stream *sf, const cb_run_outcome *of,
                         const cb_program *p) {
  bool same =
      se->h == sf->h && se->n == sf->n && oe->status == of->status &&
      !strcmp(oe->message, of->message) && oe->exit_code == of->exit_code &&
      oe->ops == of->ops && oe->loads == of->loads &&
      oe->stores == of->stores && oe->lib_reads == of->lib_reads &&
      oe->lib_writes == of->lib_writes &&
      oe->path_signature == of->path_signature &&
      oe->branches == of->branches && oe->out_len == of->out_len &&
      !memcmp(oe->out, of->out, oe->out_len) && oe->err_len == of->err_len &&
      !memcmp(oe->err, of->err, oe->err_len);
  if (same && oe->branch_counts && of->branch_counts)
    same = !memcmp(oe->branch_counts, of->branch_counts,
                   2 * (size_t)p->n_branches * sizeof(uint64_t));
  return same;
}

static void one_input(const prog *pr, const cb_program *p, int argc,
                      char **args, const char *stdin_path, const char *text) {
  const char *argv[64];
  argv[0] = "./prog";
  for (int i = 0; i < argc && i < 62; i++)
    argv[i + 1] = args[i];
  size_t len = 0;
  unsigned char *data = stdin_path ? slurp(stdin_path, &len) : NULL;
  cb_run_input in = {argc + 1, argv, data, len};
  stream se, sf, sa;
  cb_run_outcome oe, of, oa;
  run_mode(p, &in, CB_ENGINE_EXACT, false, &se, &oe);
  run_mode(p, &in, CB_ENGINE_FAST, false, &sf, &of);
  run_mode(p, &in, CB_ENGINE_FAST, true, &sa, &oa);
  bool same = same_outcome(&se, &oe, &sf, &of, p);
  /* the loops templates run may differ between the two fast runs: the
   * kernels leave for batch room at other places when affine blocks
   * take part of the stream, and the interpreter they leave to enters
   * templates the kernels would have run themselves */
  bool same_affine = same_outcome(&se, &oe, &sa, &oa, p) && oe.tpl_loops == 0;
  CHECK(same);
  CHECK(same_affine);
  if (!same_affine)
    printf("FAIL %s: the affine sink's stream differs\n", pr->name);
  tpl_loops += of.tpl_loops;
  printf("%s %-14s [%s]: %llu accesses, %llu ops, status %d; templates: %llu "
         "loops, %llu iterations, %llu accesses\n",
         same ? "ok  " : "FAIL", pr->name, text ? text : "",
         (unsigned long long)se.n, (unsigned long long)oe.ops, oe.status,
         (unsigned long long)of.tpl_loops, (unsigned long long)of.tpl_iters,
         (unsigned long long)of.tpl_accesses);
  if (!same)
    printf("     exact %llx/%llu ops %llu | fast %llx/%llu ops %llu\n",
           (unsigned long long)se.h, (unsigned long long)se.n,
           (unsigned long long)oe.ops, (unsigned long long)sf.h,
           (unsigned long long)sf.n, (unsigned long long)of.ops);
  cb_run_outcome_free(&oe);
  cb_run_outcome_free(&of);
  cb_run_outcome_free(&oa);
  free(data);
}

/* Input "x y" with a budget of 5000017 operations. */
static void input_on_budget(const prog *pr, const cb_program *p, const char *x,
                            const char *y) {
  char a0[32], a1[32], text[96];
  snprintf(a0, sizeof a0, "%s", x);
  snprintf(a1, sizeof a1, "%s", y);
  snprintf(text, sizeof text, "%s %s, budget 5000017", x, y);
  char *args[2] = {a0, a1};
  budget = 5000017;
  one_input(pr, p, 2, args, NULL, text);
  budget = 200000000;
}

static void one_prog(const prog *pr) {
  const char *srcs[3];
  size_t ns = 0;
  char paths[3][512];
  for (; ns < 3 && pr->sources[ns]; ns++) {
    prog_path(paths[ns], sizeof paths[ns], pr->sources[ns]);
    srcs[ns] = paths[ns];
  }
  cb_frontend_options fo = {0};
  fo.cache_dir = cb_cli_cache_dir();
  fo.sources = srcs;
  fo.n_sources = ns;
  fo.cflags = pr->cflags ? pr->cflags : "-O2";
  /* each function's kernel compiled when it first runs: both fast runs
   * take the same kernels, and so leave the same loops to templates */
  fo.eager_kernels = true;
  cb_program *p = NULL;
  char err[4096];
  cb_fe_status fs = cb_frontend_load(&fo, &p, err, sizeof err);
  CHECK(fs == CB_FE_OK);
  if (fs != CB_FE_OK) {
    fprintf(stderr, "%s: frontend: %s\n", pr->name, err);
    return;
  }
  tpl_loops = 0;
  if (!pr->inputs) {
    one_input(pr, p, 0, NULL, NULL, "(no args)");
  } else {
    char ip[600];
    prog_path(ip, sizeof ip, pr->inputs);
    cb_inputs in;
    CHECK(cb_inputs_parse_file(ip, &in) == 0);
    for (size_t i = 0; i < in.n; i++)
      one_input(pr, p, in.sets[i].argc, in.sets[i].args, in.sets[i].stdin_path,
                in.sets[i].text);
    cb_inputs_free(&in);
  }
  /* a budget that ends inside a loop run from a template (an odd
   * count, so that it ends inside an iteration) */
  if (!strcmp(pr->name, "loop_shapes"))
    input_on_budget(pr, p, "300", "2");
  if (!strcmp(pr->name, "time_steps"))
    input_on_budget(pr, p, "0", "100000");
  bool want = false;
  for (size_t i = 0; i < sizeof with_templates / sizeof *with_templates; i++)
    want |= !strcmp(pr->name, with_templates[i]);
  if (want) {
    CHECK(tpl_loops > 0);
    if (!tpl_loops)
      printf("FAIL %s: no loop ran from a template\n", pr->name);
  }
  cb_program_free(p);
}

int main(int argc, char **argv) {
  for (size_t i = 0; i < sizeof progs / sizeof *progs; i++) {
    bool want = argc < 2;
    for (int k = 1; k < argc; k++)
      if (!strcmp(argv[k], progs[i].name))
        want = true;
    if (want)
      one_prog(&progs[i]);
  }
  return check_done();
}
