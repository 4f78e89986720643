/* engine_kblocks.h: the blocks of a function the interpreter runs
 * outside its native kernel, and the ops its kernel runs (program.h's
 * kernel_ran, kernel_code, kernel_more, kernel_up). The frontend
 * compiles a kernel only for the blocks that have run, so that a large
 * function whose hot part is a few loops pays for compiling those alone;
 * a kernel leaves to the interpreter where a block has no code, and a
 * function whose blocks without code then run much is asked for again,
 * with them. A kernel made quickly to slower code is asked for again
 * once it has run long. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_ENGINE_KBLOCKS_H
#define CBANA_ANALYSIS_ENGINE_KBLOCKS_H

#include "engine_kernel.h"

/* Frame F's function has run this many ops, each entry a kernel's exit
 * and entry as well as the block's ops, in blocks its kernel has no code
 * for: counted towards asking for it again (kernel_more). */
void eng_kernel_missed(cb_eng *e, const cb_frame *F);
/* The same for n ops run in frame F's block (a loop template's). */
void eng_kernel_missed_ops(cb_eng *e, const cb_frame *F, uint64_t n);

/* Frame F is at the start of its block (after its phis) and the
 * interpreter is to run it: the function has no kernel k yet (NULL), or
 * k has no code for the block. Marks the block run, counts it towards asking
 * for the kernel (eng_kernel_warm) or asking for it again (eng_kernel_missed),
 * and returns the kernel to run the block with after all (an eager compile just
 * made it), else NULL. A relaxed byte each: the compile thread reads the marks
 * while the engines write them. */
static inline cb_kernel_fn eng_kernel_outside(cb_eng *e, const cb_frame *F,
                                              cb_kernel_fn k) {
  const cb_program *p = e->p;
  uint8_t *ran = &p->kernel_ran[F->block];
  if (!__atomic_load_n(ran, __ATOMIC_RELAXED))
    __atomic_store_n(ran, 1, __ATOMIC_RELAXED);
  if (k) {
    eng_kernel_missed(e, F);
    return NULL;
  }
  k = eng_kernel_warm(e, F);
  return k && p->kernel_code[F->block] ? k : NULL;
}

/* Function f's kernel, entered from the interpreter, has run n ops (the
 * kernels it called included): counted towards asking for it again
 * (kernel_up). */
static inline void eng_kernel_ran(cb_eng *e, uint32_t f, uint64_t n) {
  const cb_program *p = e->p;
  uint64_t *up = &p->kernel_up[f];
  uint64_t u = __atomic_load_n(up, __ATOMIC_RELAXED);
  if (u > n) {
    __atomic_store_n(up, u - n, __ATOMIC_RELAXED);
  } else if (u) {
    __atomic_store_n(up, 0, __ATOMIC_RELAXED);
    p->kernel_request(p, f);
  }
}

#endif
