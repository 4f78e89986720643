/* template_eval.h: the loop templates' value evaluator (template_eval.c),
 * the part of cb_tpl_run (template_run.c) that runs the iterations: the
 * value ops over operands resolved once per loop entry, the address
 * streams, the materialized control values and the reduction phis.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_TEMPLATE_EVAL_H
#define CBANA_ANALYSIS_TEMPLATE_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_internal.h"
#include "template.h"

/* Forms the evaluator runs without the generic code: f64 lanes (one or
 * two), 8- and 16-byte loads and stores. */
enum {
  RK_GEN = 0,
  RK_LD8,
  RK_LD16,
  RK_ST8,
  RK_ST16,
  RK_FADD1,
  RK_FSUB1,
  RK_FMUL1,
  RK_FDIV1,
  RK_FADD2,
  RK_FSUB2,
  RK_FMUL2,
  RK_FDIV2,
  RK_FMA1,
  RK_FMA2,
  RK_LD4, /* one 4-byte lane: i32, f32 (zero-extended bits, as load_lane) */
  RK_ST4,
  RK_ADD1, /* one integer lane */
  RK_ICMP1,
  RK_SEL1,    /* one lane */
  RK_MULADD1, /* llvm.fmuladd unfused (program.h): a multiply, an add */
  RK_MULADD2
};

/* A value op with its operands resolved for this frame. */
typedef struct rvop {
  const cb_op *op;
  cb_value *d;
  const cb_value *a, *b, *c;
  int32_t s;    /* stream of a load or store, else -1 */
  uint8_t vsel; /* a select on a lane vector (engine_check.c, rmw bit 1) */
  uint8_t kind; /* RK_ */
  uint8_t emit; /* a load, or a store not folded into its load */
} rvop;

/* The RK_ form of a value op of p. */
uint8_t cb_tpl_rk_kind(const cb_program *p, const cb_op *op);

/* An address stream while the template runs. */
typedef struct sstate {
  uint64_t addr; /* this iteration's */
  int64_t stride;
  /* a load walking more than a cache line per iteration (a column) misses
   * the host's caches unless its line is fetched ahead: the address
   * CB_TPL_AHEAD iterations on, for pf_n more iterations (those checked
   * to be mapped) */
  uint64_t pf_n;
  uint64_t pno; /* page of `page` (UINT64_MAX: none yet) */
  uint8_t *page;
} sstate;

/* A control op a value op reads: written to its slot every iteration. */
typedef struct mat {
  uint64_t *slot;
  uint64_t cur, step, mask;
} mat;

/* Lookahead of the strided loads' prefetch, in iterations. */
#define CB_TPL_AHEAD 6

typedef struct cb_tpl_iter {
  const rvop *rv;
  uint32_t nvop;
  sstate *ss;
  mat *mt;
  uint32_t nmat;
  const cb_tpl_vphi *vp;
  const cb_value *const *vsrc;
  uint32_t nvphi;
  bool direct; /* no reduction phi reads another's slots */
  uint64_t *ptmp;
  cb_value *S;
  uint64_t k;
  int emit; /* 1: records into the engine's batch */
} cb_tpl_iter;

/* Runs iterations 0 .. k-1 of the value ops and reduction phis. */
void cb_tpl_iterate(cb_eng *e, const cb_tpl_iter *it);

#endif
