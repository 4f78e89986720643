/* The interpreter on hand-built Programs: integer semantics of every
 * width, casts, floating point, vectors (shuffle, insert/extract, vector
 * select, reductions), parallel phis, switch, direct, recursive and
 * indirect calls, by-value arguments, the budget, and the faults. */
#include <math.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbana/engine.h"
#include "check.h"

/* ---- a tiny Program builder ---- */

typedef struct pb {
  cb_program p;
  cb_op ops[512];
  cb_block blocks[64];
  uint32_t succs[128], preds[128];
  cb_value consts[512];
  int64_t extra[2048];
  cb_function fns[8];
  cb_param params[64];
  cb_site sites[8];
  cb_global globals[8];
  cb_frame_obj fobjs[8];
  const char *files[1];
  uint32_t nsucc, cur_fn;
} pb;

static pb B;

static void pb_init(void) {
  memset(&B, 0, sizeof B);
  B.p.ops = B.ops;
  B.p.blocks = B.blocks;
  B.p.succs = B.succs;
  B.p.preds = B.preds;
  B.p.consts = B.consts;
  B.p.extra = B.extra;
  B.p.functions = B.fns;
  B.p.params = B.params;
  B.p.sites = B.sites;
  B.p.globals = B.globals;
  B.p.frame_objs = B.fobjs;
  B.p.files = B.files;
  B.files[0] = "t.c";
  B.p.n_files = 1;
  B.p.main_function = 0;
  B.p.load_base = 0x108000;
  B.p.image_end = 0x110000;
  for (int i = 0; i < 8; i++) {
    B.sites[i].line = 10 + (uint32_t)i;
    B.sites[i].func = 0;
    B.sites[i].var = CB_NONE;
    B.sites[i].type = CB_NONE;
    B.sites[i].field = CB_NONE;
  }
  B.sites[7].is_call = 1;
  B.p.n_sites = 8;
}

static cb_operand K(uint64_t v) {
  B.consts[B.p.n_consts].u = v;
  return CB_OPND_CONST | B.p.n_consts++;
}

static cb_operand KD(double d) {
  B.consts[B.p.n_consts].d = d;
  return CB_OPND_CONST | B.p.n_consts++;
}

static cb_operand KV(int n, const uint64_t *v) {
  uint32_t at = B.p.n_consts;
  for (int i = 0; i < n; i++)
    B.consts[B.p.n_consts++].u = v[i];
  return CB_OPND_CONST | at;
}

static uint32_t X(int64_t v) {
  B.extra[B.p.n_extra] = v;
  return B.p.n_extra++;
}

static void fn_begin(const char *name, uint32_t nslots, int nparams,
                     uint8_t ret_ty) {
  cb_function *f = &B.fns[B.p.n_functions];
  B.cur_fn = B.p.n_functions++;
  f->name = name;
  f->first_block = B.p.n_blocks;
  f->n_slots = nslots;
  f->first_param = 0;
  f->n_params = 0;
  f->ret_ty = ret_ty;
  f->ret_lanes = 1;
  f->addr = 0x109000 + 0x100 * B.cur_fn;
  for (int i = 0; i < nparams; i++) {
    cb_param *pa = &B.params[8 * B.cur_fn + (uint32_t)i];
    pa->slot = (uint32_t)i;
    pa->ty = CB_TY_I64;
    pa->lanes = 1;
  }
  f->first_param = 8 * B.cur_fn;
  f->n_params = (uint32_t)nparams;
}

/* a block of the current function with successors (function-relative) */
static void blk(int nsucc, uint32_t s0, uint32_t s1) {
  cb_block *b = &B.blocks[B.p.n_blocks++];
  b->first_op = B.p.n_ops;
  b->first_succ = B.nsucc;
  b->n_succ = (uint32_t)nsucc;
  if (nsucc > 0)
    B.succs[B.nsucc++] = s0;
  if (nsucc > 1)
    B.succs[B.nsucc++] = s1;
  B.fns[B.cur_fn].n_blocks++;
}

static void op(uint8_t code, uint8_t ty, uint32_t dst, cb_operand a,
               cb_operand b, cb_operand c, uint32_t aux, uint8_t lanes,
               uint8_t ty2) {
  cb_op *o = &B.ops[B.p.n_ops++];
  o->code = code;
  o->ty = ty;
  o->ty2 = ty2;
  o->lanes = lanes ? lanes : 1;
  o->dst = dst;
  o->a = a;
  o->b = b;
  o->c = c;
  o->aux = aux;
  B.blocks[B.p.n_blocks - 1].n_ops++;
}

#define N CB_NONE

static uint32_t call_rec(uint32_t kind, uint32_t callee, int nargs,
                         const cb_operand *args, const uint8_t *tys) {
  uint32_t at = X(kind);
  X(callee);
  X(7); /* site */
  X(nargs);
  for (int i = 0; i < nargs; i++)
    X((int64_t)((uint64_t)args[i] | ((uint64_t)tys[i] << 32) | (1ull << 40)));
  return at;
}

static uint64_t global(const char *name, uint64_t addr, uint64_t size,
                       const void *init) {
  cb_global *g = &B.globals[B.p.n_globals++];
  g->name = name;
  g->addr = addr;
  g->size = size;
  g->align = 8;
  g->init = init;
  g->var = CB_NONE;
  return addr;
}

static int run(const char *expect_out, cb_run_status expect_status,
               uint64_t budget, cb_run_outcome *o) {
  for (uint32_t f = 0; f < B.p.n_functions; f++) {
    uint32_t last = B.fns[f].first_block + B.fns[f].n_blocks;
    (void)last;
  }
  const char *argv[] = {"./t"};
  cb_run_input in = {1, argv, NULL, 0};
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  if (budget)
    opt.budget = budget;
  int rc = cb_engine_run(&B.p, &in, &opt, NULL, o);
  CHECK_EQ_U64(o->status, expect_status);
  if (expect_out) {
    CHECK(strcmp(o->out, expect_out) == 0);
    if (strcmp(o->out, expect_out))
      fprintf(stderr, "  got  \"%s\"\n  want \"%s\"\n", o->out, expect_out);
  }
  if (o->status != expect_status)
    fprintf(stderr, "  message: %s\n", o->message);
  return rc;
}

/* printf(fmt, values...) in the current block */
static void print(const char *fmt, int n, const cb_operand *v,
                  const uint8_t *tys) {
  static char fmts[8][128];
  static int nf;
  snprintf(fmts[nf], sizeof fmts[nf], "%s", fmt);
  uint64_t at =
      global("fmt", 0x10a000 + 0x80 * (uint64_t)nf, strlen(fmt) + 1, fmts[nf]);
  nf = (nf + 1) % 8;
  cb_operand args[32];
  uint8_t ty[32];
  args[0] = K(at);
  ty[0] = CB_TY_PTR;
  for (int i = 0; i < n; i++) {
    args[i + 1] = v[i];
    ty[i + 1] = tys[i];
  }
  op(CB_OP_CALL, CB_TY_I32, 60, N, N, N,
     call_rec(CB_CALL_LIBC, CB_LIBC_PRINTF, n + 1, args, ty), 1, 0);
}

/* ---- the tests ---- */

static void test_ints(void) {
  pb_init();
  fn_begin("main", 64, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_SDIV, CB_TY_I32, 2, K(0xfffffff9), K(2), N, 0, 1, 0);
  op(CB_OP_SREM, CB_TY_I32, 3, K(0xfffffff9), K(2), N, 0, 1, 0);
  op(CB_OP_UDIV, CB_TY_I32, 4, K(0xfffffff9), K(2), N, 0, 1, 0);
  op(CB_OP_ASHR, CB_TY_I8, 5, K(0x80), K(1), N, 0, 1, 0);
  op(CB_OP_SHL, CB_TY_I32, 6, K(1), K(33), N, 0, 1, 0);
  op(CB_OP_ADD, CB_TY_I8, 7, K(250), K(10), N, 0, 1, 0);
  op(CB_OP_SEXT, CB_TY_I64, 8, K(0xff), N, N, 0, 1, CB_TY_I8);
  op(CB_OP_FPTOSI, CB_TY_I32, 9, KD(-2.7), N, N, 0, 1, CB_TY_F64);
  op(CB_OP_TRUNC, CB_TY_I16, 10, K(0x1234567890ull), N, N, 0, 1, CB_TY_I64);
  op(CB_OP_ICMP, CB_TY_I32, 11, K(0xffffffff), K(1), N, CB_ICMP_SLT, 1, 0);
  op(CB_OP_BITCAST, CB_TY_I64, 12, KD(1.0), N, N, 0, 1, CB_TY_F64);
  op(CB_OP_SELECT, CB_TY_I32, 13, 11, K(7), K(8), 0, 1, 0);
  op(CB_OP_SITOFP, CB_TY_F64, 14, K(0xfffffffe), N, N, 0, 1, CB_TY_I32);
  op(CB_OP_FDIV, CB_TY_F64, 15, 14, KD(4.0), N, 0, 1, 0);
  op(CB_OP_FCMP, CB_TY_F64, 16, 15, KD(-0.5), N, CB_FCMP_OEQ, 1, 0);
  op(CB_OP_FCMP, CB_TY_F64, 17, 15, KD(-1.0), N, CB_FCMP_OLT, 1, 0);
  op(CB_OP_FPTRUNC, CB_TY_F32, 18, KD(0.1), N, N, 0, 1, CB_TY_F64);
  op(CB_OP_FPEXT, CB_TY_F64, 19, 18, N, N, 0, 1, CB_TY_F32);
  op(CB_OP_LSHR, CB_TY_I16, 20, K(0x8000), K(15), N, 0, 1, 0);
  op(CB_OP_SREM, CB_TY_I64, 21, K((uint64_t)INT64_MIN), K(~0ull), N, 0, 1, 0);
  op(CB_OP_UITOFP, CB_TY_F32, 22, K(0xffffffff), N, N, 0, 1, CB_TY_I32);
  op(CB_OP_FPEXT, CB_TY_F64, 23, 22, N, N, 0, 1, CB_TY_F32);
  cb_operand v[] = {2,  3,  4,  5,  6,  7,  8,  9,  10, 11,
                    12, 13, 15, 16, 17, 19, 20, 21, 23};
  uint8_t t[] = {CB_TY_I32, CB_TY_I32, CB_TY_I32, CB_TY_I32, CB_TY_I32,
                 CB_TY_I32, CB_TY_I64, CB_TY_I32, CB_TY_I32, CB_TY_I32,
                 CB_TY_I64, CB_TY_I32, CB_TY_F64, CB_TY_I32, CB_TY_I32,
                 CB_TY_F64, CB_TY_I32, CB_TY_I64, CB_TY_F64};
  print("%d %d %u %u %u %u %lld %d %u %u %llx %d %g %d %d %.10g %u %lld "
        "%.1f\n",
        19, v, t);
  op(CB_OP_RET, CB_TY_I32, N, K(5), N, N, 0, 1, 0);
  cb_run_outcome o;
  float f01 = 0.1f;
  char want[256];
  snprintf(want, sizeof want,
           "-3 -1 2147483644 192 2 4 -1 -2 30864 1 3ff0000000000000 7 -0.5 "
           "1 0 %.10g 1 0 %.1f\n",
           (double)f01, (double)(float)4294967295.0);
  CHECK(run(want, CB_RUN_OK, 0, &o) == 0);
  CHECK_EQ_U64(o.exit_code, 5);
  cb_run_outcome_free(&o);
}

static void test_vectors(void) {
  pb_init();
  uint64_t g = global("g", 0x10c000, 64, NULL);
  fn_begin("main", 96, 2, CB_TY_I32);
  blk(0, 0, 0);
  uint64_t v1234[] = {1, 2, 3, 4}, v3[] = {3, 3, 3, 3};
  cb_operand v = KV(4, v1234);
  op(CB_OP_ADD, CB_TY_I32, 10, v, v, N, 0, 4, 0); /* [2,4,6,8] */
  uint32_t sh = X(4);
  X(3);
  X(0);
  X(5);
  X(-1);
  op(CB_OP_SHUFFLE, CB_TY_I32, 14, 10, v, N, sh, 4, 0); /* [8,2,2,?] */
  op(CB_OP_EXTRACTELT, CB_TY_I32, 18, 14, K(0), N, 0, 4, 0);
  op(CB_OP_INSERTELT, CB_TY_I32, 20, 10, K(100), K(2), 0, 4, 0);
  op(CB_OP_ICMP, CB_TY_I32, 24, 20, KV(4, v3), N, CB_ICMP_SGT, 4, 0);
  op(CB_OP_SELECT, CB_TY_I32, 28, 24, 20, v, 0, 4, CB_TY_I1); /* 1,4,100,8 */
  cb_operand ra[] = {28};
  uint8_t rt[] = {CB_TY_I32};
  uint32_t rc = call_rec(CB_CALL_INTRINSIC, CB_INTR_REDUCE_ADD, 1, ra, rt);
  B.extra[rc + 4] |= 4ll << 40; /* 4 lanes */
  op(CB_OP_CALL, CB_TY_I32, 32, N, N, N, rc, 1, 0);
  /* store the vector, load it back as two i64 and as bytes */
  op(CB_OP_STORE, CB_TY_I32, N, 28, K(g), N, 0, 4, 0);
  op(CB_OP_LOAD, CB_TY_I64, 33, K(g + 8), N, N, 1, 1, 0);
  op(CB_OP_LOAD, CB_TY_I8, 34, K(g + 8), N, N, 1, 1, 0);
  op(CB_OP_BITCAST, CB_TY_I16, 36, 10, N, N, 0, 8, CB_TY_I32);
  op(CB_OP_EXTRACTELT, CB_TY_I16, 44, 36, K(2), N, 0, 8, 0);
  /* float vector: fmul and reduce.fadd with a start value */
  uint64_t fv[2];
  double d2[] = {1.5, 2.5};
  memcpy(fv, d2, sizeof fv);
  op(CB_OP_FMUL, CB_TY_F64, 46, KV(2, fv), KV(2, fv), N, 0, 2, 0);
  cb_operand fa[] = {KD(1.0), 46};
  uint8_t ft[] = {CB_TY_F64, CB_TY_F64};
  uint32_t fr = call_rec(CB_CALL_INTRINSIC, CB_INTR_REDUCE_FADD, 2, fa, ft);
  B.extra[fr + 5] |= 2ll << 40;
  op(CB_OP_CALL, CB_TY_F64, 48, N, N, N, fr, 1, 0);
  cb_operand pv[] = {18, 32, 33, 34, 44, 48};
  uint8_t pt[] = {CB_TY_I32, CB_TY_I32, CB_TY_I64,
                  CB_TY_I32, CB_TY_I32, CB_TY_F64};
  print("%d %d %llx %d %d %g\n", 6, pv, pt);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  cb_run_outcome o;
  CHECK(run("8 113 800000064 100 4 9.5\n", CB_RUN_OK, 0, &o) == 0);
  CHECK_EQ_U64(o.loads, 2);
  CHECK_EQ_U64(o.stores, 1);
  cb_run_outcome_free(&o);
}

/* fib: recursive, iterative with parallel phis, switch, indirect call */
static void test_calls(void) {
  pb_init();
  /* f0 main */
  fn_begin("main", 64, 2, CB_TY_I32);
  blk(0, 0, 0);
  cb_operand a10[] = {K(10)};
  uint8_t ti[] = {CB_TY_I64};
  op(CB_OP_CALL, CB_TY_I64, 2, N, N, N, call_rec(CB_CALL_DIRECT, 1, 1, a10, ti),
     1, 0);
  cb_operand a20[] = {K(20)};
  op(CB_OP_CALL, CB_TY_I64, 3, N, N, N, call_rec(CB_CALL_DIRECT, 2, 1, a20, ti),
     1, 0);
  cb_operand a7[] = {K(7)};
  op(CB_OP_CALL, CB_TY_I64, 4, K(0x109000 + 0x300), N, N,
     call_rec(CB_CALL_INDIRECT, 0, 1, a7, ti), 1, 0);
  cb_operand pv[] = {2, 3, 4};
  uint8_t pt[] = {CB_TY_I64, CB_TY_I64, CB_TY_I64};
  print("%lld %lld %lld\n", 3, pv, pt);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);

  /* f1 fib(n) = n < 2 ? n : fib(n-1) + fib(n-2) */
  fn_begin("fib", 16, 1, CB_TY_I64);
  blk(2, 1, 2); /* bb0 */
  op(CB_OP_ICMP, CB_TY_I64, 1, 0, K(2), N, CB_ICMP_SLT, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, 1, N, N, 0, 1, 0);
  blk(0, 0, 0); /* bb1 */
  op(CB_OP_RET, CB_TY_I64, N, 0, N, N, 0, 1, 0);
  blk(0, 0, 0); /* bb2 */
  op(CB_OP_SUB, CB_TY_I64, 2, 0, K(1), N, 0, 1, 0);
  cb_operand r1[] = {2};
  op(CB_OP_CALL, CB_TY_I64, 3, N, N, N, call_rec(CB_CALL_DIRECT, 1, 1, r1, ti),
     1, 0);
  op(CB_OP_SUB, CB_TY_I64, 4, 0, K(2), N, 0, 1, 0);
  cb_operand r2[] = {4};
  op(CB_OP_CALL, CB_TY_I64, 5, N, N, N, call_rec(CB_CALL_DIRECT, 1, 1, r2, ti),
     1, 0);
  op(CB_OP_ADD, CB_TY_I64, 6, 3, 5, N, 0, 1, 0);
  op(CB_OP_RET, CB_TY_I64, N, 6, N, N, 0, 1, 0);

  /* f2 iterative: a, b = b, a + b (parallel phis), n times */
  fn_begin("fibi", 16, 1, CB_TY_I64);
  blk(1, 1, 0); /* bb0 */
  op(CB_OP_BR, CB_TY_VOID, N, N, N, N, N, 1, 0);
  blk(2, 1, 2); /* bb1: loop */
  uint32_t ph1 = X(2);
  X(0);
  X((int64_t)K(0));
  X(1);
  X(2); /* b */
  uint32_t ph2 = X(2);
  X(0);
  X((int64_t)K(1));
  X(1);
  X(1); /* a + b... see below */
  uint32_t ph3 = X(2);
  X(0);
  X((int64_t)K(0));
  X(1);
  X(5);
  op(CB_OP_PHI, CB_TY_I64, 1, N, N, N, ph1, 1, 0); /* a <- b */
  op(CB_OP_PHI, CB_TY_I64, 2, N, N, N, ph2, 1, 0); /* b <- a+b (slot 6) */
  op(CB_OP_PHI, CB_TY_I64, 4, N, N, N, ph3, 1, 0); /* i */
  B.extra[ph2 + 4] = 6;
  op(CB_OP_ADD, CB_TY_I64, 6, 1, 2, N, 0, 1, 0);
  op(CB_OP_ADD, CB_TY_I64, 5, 4, K(1), N, 0, 1, 0);
  op(CB_OP_ICMP, CB_TY_I64, 7, 5, 0, N, CB_ICMP_SLT, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, 7, N, N, 0, 1, 0);
  blk(0, 0, 0); /* bb2 */
  op(CB_OP_RET, CB_TY_I64, N, 2, N, N, 0, 1, 0);

  /* f3 sw(x): switch x {1: 100, 7: 700, default: 0} */
  fn_begin("sw", 16, 1, CB_TY_I64);
  {
    cb_block *b = &B.blocks[B.p.n_blocks++];
    b->first_op = B.p.n_ops;
    b->first_succ = B.nsucc;
    b->n_succ = 3;
    B.succs[B.nsucc++] = 3; /* default */
    B.succs[B.nsucc++] = 1;
    B.succs[B.nsucc++] = 2;
    B.fns[B.cur_fn].n_blocks++;
    uint32_t s = X(2);
    X(1);
    X(1);
    X(7);
    X(2);
    X(1); /* branch point */
    op(CB_OP_SWITCH, CB_TY_I64, N, 0, N, N, s, 1, 0);
  }
  blk(0, 0, 0);
  op(CB_OP_RET, CB_TY_I64, N, K(100), N, N, 0, 1, 0);
  blk(0, 0, 0);
  op(CB_OP_RET, CB_TY_I64, N, K(700), N, N, 0, 1, 0);
  blk(0, 0, 0);
  op(CB_OP_RET, CB_TY_I64, N, K(0), N, N, 0, 1, 0);
  cb_run_outcome o;
  CHECK(run("55 6765 700\n", CB_RUN_OK, 0, &o) == 0);
  CHECK(o.branches > 0);
  uint64_t sig = o.path_signature;
  cb_run_outcome_free(&o);
  CHECK(run("55 6765 700\n", CB_RUN_OK, 0, &o) == 0);
  CHECK_EQ_U64(o.path_signature, sig);
  cb_run_outcome_free(&o);
}

/* The endless loop built last, stopped from outside or by a budget
 * past the first allowance (engine.h: CB_ENGINE_CHECK_OPS): by default
 * nothing limits it. */
static void endless_stops(void) {
  const char *argv[] = {"./t"};
  cb_run_input in = {1, argv, NULL, 0};
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  CHECK_EQ_U64(opt.budget, UINT64_MAX);
  CHECK(opt.interrupt == NULL && opt.deadline == 0);
  cb_run_outcome o;
  /* a budget across two allowances ends where it says */
  opt.budget = CB_ENGINE_CHECK_OPS + 12345;
  CHECK(cb_engine_run(&B.p, &in, &opt, NULL, &o) != 0);
  CHECK_EQ_U64(o.status, CB_RUN_BUDGET);
  CHECK_EQ_U64(o.ops, CB_ENGINE_CHECK_OPS + 12345);
  cb_run_outcome_free(&o);
  /* a signal number at *interrupt stops it at the first look */
  atomic_int sig;
  atomic_init(&sig, SIGINT);
  cb_engine_options_default(&opt);
  opt.interrupt = &sig;
  CHECK(cb_engine_run(&B.p, &in, &opt, NULL, &o) != 0);
  CHECK_EQ_U64(o.status, CB_RUN_STOPPED);
  CHECK_EQ_U64(o.ops, CB_ENGINE_CHECK_OPS);
  char want[96];
  snprintf(want, sizeof want,
           "interrupted by SIGINT after %llu operations in main",
           (unsigned long long)CB_ENGINE_CHECK_OPS);
  CHECK(strstr(o.message, want) != NULL);
  cb_run_outcome_free(&o);
  /* so does a deadline that has passed */
  cb_engine_options_default(&opt);
  opt.deadline = 1;
  opt.timeout_s = 2.5;
  CHECK(cb_engine_run(&B.p, &in, &opt, NULL, &o) != 0);
  CHECK_EQ_U64(o.status, CB_RUN_STOPPED);
  CHECK(strstr(o.message, "the time limit (2.5 s) ran out") != NULL);
  cb_run_outcome_free(&o);
}

static void test_failures(void) {
  /* endless loop: the budget stops it */
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(1, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, N, N, N, N, 1, 0);
  blk(1, 1, 0);
  op(CB_OP_ADD, CB_TY_I64, 2, 2, K(1), N, 0, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, N, N, N, N, 1, 0);
  cb_run_outcome o;
  CHECK(run(NULL, CB_RUN_BUDGET, 100000, &o) != 0);
  CHECK_EQ_U64(o.ops, 100000);
  CHECK(strstr(o.message, "budget") != NULL);
  cb_run_outcome_free(&o);
  endless_stops();

  /* unreachable, division by zero */
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_UNREACHABLE, CB_TY_VOID, N, N, N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "unreachable") != NULL);
  cb_run_outcome_free(&o);
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_SDIV, CB_TY_I32, 2, K(1), 5, N, 0, 1, 0); /* slot 5: 0 */
  op(CB_OP_RET, CB_TY_I32, N, 2, N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "division by zero") != NULL);
  cb_run_outcome_free(&o);

  /* a store far past a global: fault naming the site and the object */
  pb_init();
  global("arr", 0x10c000, 64, NULL);
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_STORE, CB_TY_I32, N, K(1), K(0x10c000 + 0x100000), N, 3, 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(o.file && !strcmp(o.file, "t.c") && o.line == 13);
  CHECK(strstr(o.message, "t.c:") == NULL); /* the location is apart */
  CHECK(strstr(o.message, "`arr`") != NULL);
  cb_run_outcome_free(&o);

  /* a call through a pointer to no function */
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_CALL, CB_TY_VOID, N, K(0x1234), N, N,
     call_rec(CB_CALL_INDIRECT, 0, 0, NULL, NULL), 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "0x1234") != NULL);
  cb_run_outcome_free(&o);

  /* a malformed Program is an error, not a crash */
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_ADD, CB_TY_I32, 2, 5000, K(1), N, 0, 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "malformed") != NULL);
  cb_run_outcome_free(&o);
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_ADD, CB_TY_I32, 2, 1, K(1), N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "terminator") != NULL);
  cb_run_outcome_free(&o);

  /* deep recursion: a clean stack overflow */
  pb_init();
  fn_begin("main", 8, 2, CB_TY_I32);
  blk(0, 0, 0);
  op(CB_OP_CALL, CB_TY_VOID, N, N, N, N,
     call_rec(CB_CALL_DIRECT, 0, 0, NULL, NULL), 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  CHECK(run(NULL, CB_RUN_ERROR, 0, &o) != 0);
  CHECK(strstr(o.message, "stack overflow") != NULL);
  cb_run_outcome_free(&o);
}

/* malloc, qsort with a comparator of the program, free */
static void test_qsort(void) {
  pb_init();
  fn_begin("main", 64, 2, CB_TY_I32);
  blk(0, 0, 0);
  cb_operand ma[] = {K(40)};
  uint8_t mt[] = {CB_TY_I64};
  op(CB_OP_CALL, CB_TY_PTR, 2, N, N, N,
     call_rec(CB_CALL_LIBC, CB_LIBC_MALLOC, 1, ma, mt), 1, 0);
  int vals[10] = {5, 3, 9, 1, 7, 2, 8, 0, 6, 4};
  for (int i = 0; i < 10; i++) {
    uint32_t gep = X(4 * i);
    X(0);
    op(CB_OP_GEP, CB_TY_PTR, 10 + (uint32_t)i, 2, N, N, gep, 1, 0);
    op(CB_OP_STORE, CB_TY_I32, N, K((uint64_t)vals[i]), 10 + (uint32_t)i, N, 0,
       1, 0);
  }
  cb_operand qa[] = {2, K(10), K(4), K(0x109100)};
  uint8_t qt[] = {CB_TY_PTR, CB_TY_I64, CB_TY_I64, CB_TY_PTR};
  op(CB_OP_CALL, CB_TY_VOID, N, N, N, N,
     call_rec(CB_CALL_LIBC, CB_LIBC_QSORT, 4, qa, qt), 1, 0);
  cb_operand pv[10];
  uint8_t pt[10];
  for (int i = 0; i < 10; i++) {
    op(CB_OP_LOAD, CB_TY_I32, 30 + (uint32_t)i, 10 + (uint32_t)i, N, N, 1, 1,
       0);
    pv[i] = 30 + (uint32_t)i;
    pt[i] = CB_TY_I32;
  }
  print("%d%d%d%d%d%d%d%d%d%d\n", 10, pv, pt);
  cb_operand fa[] = {2};
  uint8_t ft[] = {CB_TY_PTR};
  op(CB_OP_CALL, CB_TY_VOID, N, N, N, N,
     call_rec(CB_CALL_LIBC, CB_LIBC_FREE, 1, fa, ft), 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  /* f1 cmp(a, b) = *b - *a (descending) */
  fn_begin("cmp", 8, 2, CB_TY_I32);
  B.params[8].ty = B.params[9].ty = CB_TY_PTR;
  blk(0, 0, 0);
  op(CB_OP_LOAD, CB_TY_I32, 2, 0, N, N, 2, 1, 0);
  op(CB_OP_LOAD, CB_TY_I32, 3, 1, N, N, 2, 1, 0);
  op(CB_OP_SUB, CB_TY_I32, 4, 3, 2, N, 0, 1, 0);
  op(CB_OP_RET, CB_TY_I32, N, 4, N, N, 0, 1, 0);
  cb_run_outcome o;
  CHECK(run("9876543210\n", CB_RUN_OK, 0, &o) == 0);
  cb_run_outcome_free(&o);
}

/* machine-code accesses of a block run each time it runs */
static void test_mach(void) {
  pb_init();
  static cb_mach_access m[1] = {{-24, 0, 2, 8, 0, 0, 0, 0, 0}};
  B.p.mach = m;
  B.p.n_mach = 1;
  fn_begin("main", 16, 2, CB_TY_I32);
  blk(1, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, N, N, N, N, 1, 0);
  blk(2, 1, 2); /* loop: i = phi(0, i + 1) while i + 1 < 3 */
  B.blocks[B.p.n_blocks - 1].n_mach = 1;
  uint32_t ph = X(2);
  X(0);
  X((int64_t)K(0));
  X(1);
  X(3);
  op(CB_OP_PHI, CB_TY_I64, 2, N, N, N, ph, 1, 0);
  op(CB_OP_ADD, CB_TY_I64, 3, 2, K(1), N, 0, 1, 0);
  op(CB_OP_ICMP, CB_TY_I64, 4, 3, K(3), N, CB_ICMP_SLT, 1, 0);
  op(CB_OP_BR, CB_TY_VOID, N, 4, N, N, 0, 1, 0);
  blk(0, 0, 0);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  cb_run_outcome o;
  CHECK(run("", CB_RUN_OK, 0, &o) == 0);
  CHECK_EQ_U64(o.loads, 3);
  cb_run_outcome_free(&o);
}

/* frame objects at their CFA offsets under an overridden stack top */
static void test_stack(void) {
  pb_init();
  fn_begin("main", 64, 2, CB_TY_I32);
  B.fobjs[0] = (cb_frame_obj){0, 16, 16, CB_NONE, -48};
  B.fobjs[1] = (cb_frame_obj){0, 8, 8, CB_NONE, CB_FRAME_OFFSET_UNKNOWN};
  B.p.n_frame_objs = 2;
  blk(0, 0, 0);
  op(CB_OP_ALLOCA, CB_TY_PTR, 2, N, N, N, 0, 1, 0);
  op(CB_OP_ALLOCA, CB_TY_PTR, 3, N, N, N, 1, 1, 0);
  op(CB_OP_STORE, CB_TY_I64, N, K(77), 3, N, 0, 1, 0);
  op(CB_OP_LOAD, CB_TY_I64, 4, 3, N, N, 1, 1, 0);
  cb_operand v[] = {2, 3, 4};
  uint8_t t[] = {CB_TY_PTR, CB_TY_PTR, CB_TY_I64};
  print("%llx %llx %lld\n", 3, v, t);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  const char *argv[] = {"./t"};
  cb_run_input in = {1, argv, NULL, 0};
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  opt.stack_top = 0x7ff000001000ull;
  cb_run_outcome o;
  CHECK(cb_engine_run(&B.p, &in, &opt, NULL, &o) == 0);
  if (o.message[0])
    fprintf(stderr, "  %s\n", o.message);
  /* the unknown one goes below the known one, 8-aligned */
  CHECK(strcmp(o.out, "7ff000000fd0 7ff000000fc8 77\n") == 0);
  if (strcmp(o.out, "7ff000000fd0 7ff000000fc8 77\n"))
    fprintf(stderr, "  got %s", o.out);
  cb_run_outcome_free(&o);
}

/* vsnprintf and vprintf read their va_list as the SysV x86-64 ABI lays it
 * out (gp_offset, fp_offset, overflow_arg_area, reg_save_area): integers
 * from the register save area while gp_offset < 48, doubles while
 * fp_offset < 176, then the overflow area; the offsets and the overflow
 * pointer are written back. The va_list here is built in memory as a
 * variadic function's va_start leaves it after two named integer
 * arguments. */
static void test_va_list(void) {
  pb_init();
  static uint8_t save[176], ovf[64];
  static uint64_t va[3];
  static const char fmt[] = "%d %ld %s %.2f %d %d %d %.1f %x";
  static const char str[] = "hey";
  memset(save, 0, sizeof save);
  memset(ovf, 0, sizeof ovf);
  int64_t gp[4] = {11, -22, 0x10d000, 33}; /* slots 2..5: 16..40 */
  memcpy(save + 16, gp, sizeof gp);
  double fp[1] = {3.14159};
  memcpy(save + 48, fp, sizeof fp); /* xmm0 */
  /* past the registers: 44, 55 (ints), 2.5 (a double: its registers are
   * left, so it comes from the register area), then 0xbeef */
  int64_t o[3] = {44, 55, 0xbeef};
  memcpy(ovf, o, sizeof o);
  double fp2 = 2.5;
  memcpy(save + 64, &fp2, 8); /* xmm1 */
  uint32_t offs[2] = {16, 48};
  memcpy(va, offs, 8);
  va[1] = 0x10c100; /* overflow_arg_area */
  va[2] = 0x10c000; /* reg_save_area */
  global("save", 0x10c000, sizeof save, save);
  global("ovf", 0x10c100, sizeof ovf, ovf);
  global("va", 0x10c200, sizeof va, va);
  global("fmt", 0x10c300, sizeof fmt, fmt);
  global("out", 0x10c400, 128, NULL);
  global("str", 0x10d000, sizeof str, str);
  fn_begin("main", 64, 2, CB_TY_I32);
  blk(0, 0, 0);
  cb_operand args[4] = {K(0x10c400), K(128), K(0x10c300), K(0x10c200)};
  uint8_t tys[4] = {CB_TY_PTR, CB_TY_I64, CB_TY_PTR, CB_TY_PTR};
  op(CB_OP_CALL, CB_TY_I32, 10, N, N, N,
     call_rec(CB_CALL_LIBC, CB_LIBC_VSNPRINTF, 4, args, tys), 1, 0);
  op(CB_OP_LOAD, CB_TY_I32, 11, K(0x10c200), N, N, 1, 1, 0);
  op(CB_OP_LOAD, CB_TY_I32, 12, K(0x10c204), N, N, 1, 1, 0);
  op(CB_OP_LOAD, CB_TY_I64, 13, K(0x10c208), N, N, 1, 1, 0);
  cb_operand v[5] = {K(0x10c400), 10, 11, 12, 13};
  uint8_t t[5] = {CB_TY_PTR, CB_TY_I32, CB_TY_I32, CB_TY_I32, CB_TY_I64};
  print("%s|%d|%d %d %lx\n", 5, v, t);
  op(CB_OP_RET, CB_TY_I32, N, K(0), N, N, 0, 1, 0);
  cb_run_outcome out;
  CHECK(run("11 -22 hey 3.14 33 44 55 2.5 beef|33|48 80 10c118\n", CB_RUN_OK, 0,
            &out) == 0);
  cb_run_outcome_free(&out);
}

int main(void) {
  test_stack();
  test_mach();
  test_ints();
  test_vectors();
  test_calls();
  test_failures();
  test_qsort();
  test_va_list();
  return check_done();
}
