/* fastops.h: the fast engine's pre-decoded operation kinds. For each op
 * of a Program, once per run, a kind byte says which specialised handler
 * of the interpreter loop runs it (scalar integer and f64 arithmetic,
 * 8- and 16-byte loads and stores, fused multiply-adds, one- and
 * two-index address arithmetic), or FK_NONE for the reference handler.
 * Every specialised handler computes what the reference handler computes
 * for that form, bit for bit, and emits the same accesses; the identity
 * tests (tests/e2e/fast_identity.py) hold both engines to it. Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_FASTOPS_H
#define CBANA_ANALYSIS_FASTOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"

enum {
  FK_NONE = 0,
  FK_ADD,
  FK_SUB,
  FK_MUL,
  FK_AND,
  FK_OR,
  FK_XOR,
  FK_FADD_D,
  FK_FSUB_D,
  FK_FMUL_D,
  FK_ICMP,
  FK_GEP0, /* base + offset */
  FK_GEP1, /* base + offset + index * scale */
  FK_GEP2,
  FK_LOAD8,   /* one 8-byte lane: i64, ptr, f64 */
  FK_STORE8,  /* one 8-byte lane, not folded into a read-modify-write */
  FK_LOAD16,  /* two 8-byte lanes */
  FK_STORE16, /* two 8-byte lanes, not folded */
  FK_FMA_D,   /* llvm.fmuladd / llvm.fma on f64 lanes */
  FK_FDIV_D,
  FK_FADD_V, /* f64 vectors of 2 to 8 lanes */
  FK_FSUB_V,
  FK_FMUL_V,
  FK_FDIV_V,
  /* Kinds only cb_fast_loop (fastloop.c) runs; eng_run() takes them as the
   * reference does. All scalar. */
  FK_BR,
  FK_ZEXT, /* trunc, zext, ptrtoint, inttoptr: a masked copy */
  FK_SEXT,
  FK_SHL, /* integer types */
  FK_LSHR,
  FK_ASHR,
  FK_UDIV, /* division by zero is left to eng_run() */
  FK_UREM,
  FK_SDIV,
  FK_SREM,
  FK_SITOFP_D, /* to f64 */
  FK_FCMP_D,
  FK_SELECT,
  FK_MOV,
  FK_GEPN,      /* three or more indexes */
  FK_INSERTELT, /* up to 8 lanes */
  /* A one- or two-index gep whose result is the address of the next op,
   * an 8-byte load or store (FK_LOAD8, FK_STORE8): cb_fast_loop runs the
   * pair in one dispatch. The next op keeps its own kind. */
  FK_GEP1_LOAD8,
  FK_GEP2_LOAD8,
  FK_GEP1_STORE8,
  FK_GEP2_STORE8,
  FK_LOAD_S,  /* one lane of i1, i8, i16, i32 or f32 */
  FK_STORE_S, /* one lane of any type, folded into its load or not */
  /* A one- or two-index gep whose result is the address of the next op,
   * an FK_LOAD_S (a CSR gather's index: pr's col[k]) */
  FK_GEP1_LOAD_S,
  FK_GEP2_LOAD_S,
  FK_COUNT
};

/* One kind per op (p->n_ops), malloc'ed; rmw: the engine's per-op flags
 * (bit 0: a store folded into its load). NULL when out of memory. */
uint8_t *cb_fast_kinds(const cb_program *p, const uint8_t *rmw);

/* Phi moves per CFG edge, so that entering a block does not search each
 * phi's incoming list: for global block b, edges[first[b] .. first[b+1])
 * name its predecessors (local block indexes, first match of each phi's
 * list, as the reference takes it), each with its moves. */
typedef struct cb_phi_move {
  uint32_t dst;   /* slot */
  uint32_t src;   /* operand, or CB_NONE: the phi has no value for the
                     edge (the reference writes 0) */
  uint32_t lanes; /* >= 1 */
} cb_phi_move;

typedef struct cb_phi_edge {
  uint32_t pred;       /* local block index of the predecessor */
  uint32_t first_move; /* into moves */
  uint32_t n_moves;
  /* every move one lane, and no move reads a slot an earlier move of the
   * edge writes: the moves may run one after the other, in place, without
   * the parallel copy's buffer */
  uint32_t in_order;
} cb_phi_edge;

/* Where a block's branch goes, per successor, found once: the fast
 * loop's branch read four tables (the block, its function, the successor
 * list, the target) and searched the target's phi edges on every jump. */
typedef struct cb_br_target {
  uint32_t block;    /* global index; CB_NONE: the target has machine-code
                        accesses, left to eng_run() */
  uint32_t first_op; /* the target's first op (its phis first) */
  uint32_t np;       /* its leading phis */
  uint32_t edge;     /* into edges, from the branching block; CB_NONE:
                        none (the phis get 0, as the reference does) */
  uint32_t from;     /* the branching block's index in its function */
} cb_br_target;

typedef struct cb_phi_edges {
  uint32_t *first; /* n_blocks + 1 */
  cb_phi_edge *edges;
  cb_phi_move *moves;
  cb_br_target *br; /* 2 per block: successor 0 (taken), successor 1 */
} cb_phi_edges;

/* nphis: the engine's per-block count of leading phis. false when out of
 * memory (pe is then empty and the reference path runs). */
bool cb_phi_edges_build(const cb_program *p, const uint32_t *nphis,
                        cb_phi_edges *pe);
void cb_phi_edges_free(cb_phi_edges *pe);

#endif
