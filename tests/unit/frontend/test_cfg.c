/* Dominators, natural loops, nesting and induction variables on
 * hand-built Programs. */
#include "cbana/cfg.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>

/* A function from an edge list: blocks each end in a br. */
typedef struct built {
  cb_program p;
  cb_function f;
  cb_block b[16];
  uint32_t succs[64], preds[64];
  cb_op ops[64];
  cb_value consts[8];
  int64_t extra[64];
} built;

static void build(built *x, uint32_t n, const uint32_t (*edges)[2],
                  uint32_t ne) {
  memset(x, 0, sizeof *x);
  uint32_t ns = 0, np = 0;
  for (uint32_t b = 0; b < n; b++) {
    x->b[b].first_succ = ns;
    for (uint32_t e = 0; e < ne; e++)
      if (edges[e][0] == b)
        x->succs[ns++] = edges[e][1];
    x->b[b].n_succ = ns - x->b[b].first_succ;
    x->b[b].first_pred = np;
    for (uint32_t e = 0; e < ne; e++)
      if (edges[e][1] == b)
        x->preds[np++] = edges[e][0];
    x->b[b].n_pred = np - x->b[b].first_pred;
    x->ops[b].code = CB_OP_BR;
    x->ops[b].a = CB_NONE;
    x->ops[b].dst = CB_NONE;
    x->ops[b].aux = CB_NONE;
    x->b[b].first_op = b;
    x->b[b].n_ops = 1;
  }
  x->f.name = "f";
  x->f.n_blocks = n;
  x->f.n_slots = 8;
  x->p.functions = &x->f;
  x->p.n_functions = 1;
  x->p.blocks = x->b;
  x->p.n_blocks = n;
  x->p.succs = x->succs;
  x->p.preds = x->preds;
  x->p.ops = x->ops;
  x->p.n_ops = n;
  x->p.consts = x->consts;
  x->p.extra = x->extra;
}

static void test_diamond(void) {
  /* 0 -> 1, 0 -> 2, 1 -> 3, 2 -> 3 */
  static const uint32_t e[][2] = {{0, 1}, {0, 2}, {1, 3}, {2, 3}};
  built x;
  build(&x, 4, e, 4);
  cb_func_cfg fc;
  cb_cfg_function(&x.p, 0, &fc);
  CHECK_EQ_U64(fc.idom[0], 0);
  CHECK_EQ_U64(fc.idom[1], 0);
  CHECK_EQ_U64(fc.idom[2], 0);
  CHECK_EQ_U64(fc.idom[3], 0);
  CHECK(cb_cfg_dominates(&fc, 0, 3));
  CHECK(!cb_cfg_dominates(&fc, 1, 3));
  CHECK_EQ_U64(fc.n_loops, 0);
  CHECK_EQ_U64(fc.n_rpo, 4);
  CHECK_EQ_U64(fc.rpo[0], 0);
  cb_cfg_function_free(&fc);
}

static void test_nested_loops(void) {
  /* 0 -> 1 (outer header) -> 2 (inner header) -> 3 (inner latch) -> 2,
     3 -> 4 (outer latch) -> 1, 1 -> 5 exit, 6 unreachable -> 1 */
  static const uint32_t e[][2] = {{0, 1}, {1, 2}, {2, 3}, {3, 2},
                                  {3, 4}, {4, 1}, {1, 5}, {6, 1}};
  built x;
  build(&x, 7, e, 8);
  cb_func_cfg fc;
  cb_cfg_function(&x.p, 0, &fc);
  CHECK_EQ_U64(fc.idom[6], CB_NONE);
  CHECK_EQ_U64(fc.idom[2], 1);
  CHECK_EQ_U64(fc.idom[5], 1);
  CHECK_EQ_U64(fc.n_loops, 2);
  CHECK_EQ_U64(fc.loops[0].header, 1);
  CHECK_EQ_U64(fc.loops[0].n_blocks, 4);
  CHECK_EQ_U64(fc.loops[0].depth, 1);
  CHECK_EQ_U64(fc.loops[0].parent, CB_NONE);
  CHECK_EQ_U64(fc.loops[0].n_exits, 1);
  CHECK_EQ_U64(fc.exits[fc.loops[0].first_exit], 5);
  CHECK_EQ_U64(fc.loops[1].header, 2);
  CHECK_EQ_U64(fc.loops[1].n_blocks, 2);
  CHECK_EQ_U64(fc.loops[1].parent, 0);
  CHECK_EQ_U64(fc.loops[1].depth, 2);
  CHECK_EQ_U64(fc.latches[fc.loops[1].first_latch], 3);
  CHECK_EQ_U64(fc.loop_of[3], 1);
  CHECK_EQ_U64(fc.loop_of[4], 0);
  CHECK_EQ_U64(fc.loop_of[5], CB_NONE);
  CHECK(cb_cfg_in_loop(&fc, 0, 3));
  CHECK(!cb_cfg_in_loop(&fc, 1, 4));
  cb_cfg_function_free(&fc);
}

static void test_induction(void) {
  /* 0 -> 1 (header: i = phi [0: 0], [1: i2]; i2 = i + 4) -> 1, 1 -> 2 */
  static const uint32_t e[][2] = {{0, 1}, {1, 1}, {1, 2}};
  built x;
  build(&x, 3, e, 3);
  /* block 1: phi, add, br */
  x.consts[0].u = 0;
  x.consts[1].u = 4;
  cb_op phi = {.code = CB_OP_PHI,
               .ty = CB_TY_I64,
               .lanes = 1,
               .dst = 1,
               .a = CB_NONE,
               .b = CB_NONE,
               .c = CB_NONE,
               .aux = 0};
  x.extra[0] = 2;
  x.extra[1] = 0;
  x.extra[2] = 0 | CB_OPND_CONST;
  x.extra[3] = 1;
  x.extra[4] = 2;
  cb_op add = {.code = CB_OP_ADD,
               .ty = CB_TY_I64,
               .lanes = 1,
               .dst = 2,
               .a = 1,
               .b = 1 | CB_OPND_CONST,
               .c = CB_NONE,
               .aux = CB_NONE};
  x.ops[3] = phi;
  x.ops[4] = add;
  x.ops[5] = x.ops[1];
  x.b[1].first_op = 3;
  x.b[1].n_ops = 3;
  x.p.n_ops = 6;
  cb_func_cfg fc;
  cb_cfg_function(&x.p, 0, &fc);
  CHECK_EQ_U64(fc.n_loops, 1);
  CHECK_EQ_U64(fc.loops[0].n_ivs, 1);
  if (fc.n_ivs == 1) {
    CHECK_EQ_U64(fc.ivs[0].slot, 1);
    CHECK_EQ_U64(fc.ivs[0].step, 4);
    CHECK_EQ_U64(fc.ivs[0].init, 0 | CB_OPND_CONST);
  }
  cb_cfg_function_free(&fc);
}

int main(void) {
  test_diamond();
  test_nested_loops();
  test_induction();
  return check_done();
}
