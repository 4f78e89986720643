/* cfg.h: control flow of a Program's functions, computed on the compact
 * IR (no LLVM): reverse postorder, dominators (Cooper-Harvey-Kennedy),
 * natural loops with their nesting, and induction variables (header phis
 * that change by a constant step on every back edge). Part of analysis/;
 * built as the static library cb_cfg. Block numbers are indexes within
 * the function, as in program.h. */
#ifndef CBANA_CFG_H
#define CBANA_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"

typedef struct cb_indvar {
  uint32_t slot;   /* the header phi's destination slot */
  uint32_t op;     /* index of the phi in program->ops */
  cb_operand init; /* the value on entry to the loop */
  int64_t step;    /* added on every iteration (bytes for a pointer) */
  uint8_t ty;      /* cb_ty of the variable */
} cb_indvar;

typedef struct cb_loop {
  uint32_t header;
  uint32_t parent; /* index in the function's loops, CB_NONE: outermost */
  uint32_t depth;  /* 1 for an outermost loop */
  uint32_t first_block, n_blocks;  /* into loop_blocks, header first */
  uint32_t first_latch, n_latches; /* into latches: sources of back edges */
  uint32_t first_exit, n_exits;    /* into exits: blocks outside the loop
                                      that a block inside jumps to */
  uint32_t first_iv, n_ivs;        /* into ivs */
  uint32_t file, line;             /* where the loop's condition is, if
                                      known (line 0: unknown) */
} cb_loop;

typedef struct cb_func_cfg {
  uint32_t n_blocks;
  uint32_t *rpo; /* reachable blocks in reverse postorder; entry first */
  uint32_t n_rpo;
  uint32_t *rpo_index; /* per block: position in rpo, CB_NONE unreachable */
  uint32_t *idom;      /* per block: immediate dominator (entry: itself),
                          CB_NONE when unreachable */
  cb_loop *loops;      /* outer loops before the loops they contain */
  uint32_t n_loops;
  uint32_t *loop_of; /* per block: innermost loop, or CB_NONE */
  uint32_t *loop_blocks, *latches, *exits;
  cb_indvar *ivs;
  uint32_t n_ivs;
} cb_func_cfg;

typedef struct cb_cfg_info {
  uint32_t n_funcs;
  cb_func_cfg *funcs; /* parallel to program->functions */
} cb_cfg_info;

/* Analyses every function; never fails on a well-formed Program. */
cb_cfg_info *cb_cfg_analyze(const cb_program *p);
void cb_cfg_free(cb_cfg_info *info);

/* Per function (used by cb_cfg_analyze; callable alone). */
void cb_cfg_function(const cb_program *p, uint32_t func, cb_func_cfg *out);
void cb_cfg_function_free(cb_func_cfg *fc);

/* Does block a dominate block b? (Unreachable blocks: false.) */
bool cb_cfg_dominates(const cb_func_cfg *fc, uint32_t a, uint32_t b);

/* Is block b inside loop l (or a loop nested in it)? */
bool cb_cfg_in_loop(const cb_func_cfg *fc, uint32_t l, uint32_t b);

#endif
