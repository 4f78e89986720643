/* template.h: loop templates, the fast engine's "dynamic splicing"
 * (DESIGN.md, "Input-aware paths and dynamic splicing"). This module owns
 * the single-block innermost loops of a Program (a header that is its own
 * latch, as -O2 inner loops and LLVM's vector.body are): once per run it
 * splits each such block into control/address ops (induction-variable
 * phis and the integer and pointer arithmetic affine in them, the exit
 * compare and the branch), whose values have closed forms, and value ops
 * (loads and stores at affine addresses, arithmetic on data, reduction
 * phis), which still run every iteration, in order. At run time, when
 * the interpreter or a native kernel enters such a header from outside
 * the loop and the frontend has compiled the loop's iterations with the
 * function's kernel (program.h's tpl_kernels, kernel.h's
 * cb_tpl_kernel_io), cb_tpl_run computes the trip count and every
 * access's base and stride, checks that every access stays in mapped
 * memory, and runs all iterations but the last, their values by that
 * native code, leaving the engine's state exactly as the interpreter
 * would (the kernel or the interpreter then runs the last iteration).
 * Accesses go to the sink as one affine block (stream.h) when the sink
 * takes them, else expanded into the engine's batch. A loop without
 * native iterations is not the template's: the kernel or the interpreter
 * runs it. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_TEMPLATE_H
#define CBANA_ANALYSIS_TEMPLATE_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"

struct cb_eng;
struct cb_frame;

/* One operand of a control/address op: the index of the control op of
 * the same block that defines it, or -1 for a loop invariant (a slot
 * defined outside the block, or a constant), whose value is o's. */
typedef struct cb_tpl_ref {
  int32_t cop;
  cb_operand o;
} cb_tpl_ref;

/* A control/address op (the slice of addresses and the exit test). */
typedef struct cb_tpl_cop {
  uint32_t op;        /* program->ops */
  uint32_t first_ref; /* into set->refs: a, b (gep: base, then indexes) */
  int32_t back;       /* induction phi: the cop of its back-edge value */
  bool mat;           /* a value op reads it: written to its slot each
                         iteration */
  /* the op's code, type and source type, read here by every loop entry
   * (eval_cops) without the op: one load less in the chain to a GEP
   * index's width took a tenth of heat-3d's cb_tpl_run */
  uint8_t code, ty, ty2;
} cb_tpl_cop;

/* A load or store: its address stream. */
typedef struct cb_tpl_stream {
  uint32_t op;
  cb_tpl_ref addr;
  uint32_t site;
  uint16_t size;
  uint8_t is_write;
  uint8_t emits; /* 0: a store folded into its load (no record) */
} cb_tpl_stream;

/* A reduction phi: dst = src after every iteration. */
typedef struct cb_tpl_vphi {
  uint32_t dst;
  cb_operand src;
  uint32_t lanes;
} cb_tpl_vphi;

typedef struct cb_tpl {
  uint32_t block;     /* global */
  uint32_t n_ops, np; /* the block's ops (one iteration's budget), phis */
  uint32_t cmp;       /* the cop of the exit compare */
  uint32_t br_aux;    /* the branch point, or CB_NONE */
  uint8_t cont;       /* the condition value that stays in the loop */
  uint32_t first_cop, n_cop;
  uint32_t first_vop, n_vop; /* into set->vops: op indexes, block order */
  uint32_t first_vphi, n_vphi;
  uint32_t first_stream, n_stream;
  uint32_t n_rec, n_loads, n_stores; /* per iteration */
} cb_tpl;

typedef struct cb_tpl_set {
  const cb_program *p;
  const uint8_t *rmw;
  int32_t *of_block; /* per global block: template index or -1 */
  cb_tpl *t;
  uint32_t n;
  cb_tpl_cop *cops;
  cb_tpl_ref *refs;
  uint32_t *vops;
  cb_tpl_vphi *vphis;
  cb_tpl_stream *streams;
  /* scratch for cb_tpl_run, sized for the largest template */
  void *scratch;
  size_t max_ops, max_lanes;
} cb_tpl_set;

/* The templates of every eligible loop of p (rmw: the engine's per-op
 * flags); NULL when none or out of memory. */
cb_tpl_set *cb_tpl_build(const cb_program *p, const uint8_t *rmw,
                         const uint32_t *nphis);
void cb_tpl_free(cb_tpl_set *ts);

/* The template index of global block gb, or -1. */
int32_t cb_tpl_of(const cb_tpl_set *ts, uint32_t gb);

/* Frame F has just entered header block F->block of template t from
 * outside the loop (the phi moves done, at its first non-phi op, where
 * it stays: the next iteration starts there). Runs as many whole
 * iterations as it can prove the interpreter would run without stopping
 * (at most all but the last), their values by nk, the loop's native
 * iterations, and leaves slots, F->prev, *budget and the outcome's
 * counters as the interpreter would after them. Returns the iterations
 * run (0: nothing changed). */
uint64_t cb_tpl_run(struct cb_eng *e, struct cb_frame *F, cb_value *S,
                    int32_t t, cb_tpl_kernel_fn nk, uint64_t *budget);

#endif
