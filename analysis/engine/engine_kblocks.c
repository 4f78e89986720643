/* engine_kblocks.c: a function whose kernel has no code for the blocks
 * it runs asks for its kernel again (engine_kblocks.h). */
#include "engine_kblocks.h"

/* What an entry to a block without code costs beyond its ops, counted
 * in ops: the kernel's exit before the branch (its counters written
 * back), the interpreter's branch, and the kernel's entry after the
 * block. */
#define KERNEL_MISS_OPS 8u

void eng_kernel_missed(cb_eng *e, const cb_frame *F) {
  eng_kernel_missed_ops(e, F, e->p->blocks[F->block].n_ops + KERNEL_MISS_OPS);
}

void eng_kernel_missed_ops(cb_eng *e, const cb_frame *F, uint64_t n) {
  const cb_program *p = e->p;
  uint64_t *more = &p->kernel_more[F->func];
  /* engines on other threads may count at once: a count lost between
   * them only asks a little later */
  uint64_t m = __atomic_load_n(more, __ATOMIC_RELAXED);
  if (m > n) {
    __atomic_store_n(more, m - n, __ATOMIC_RELAXED);
  } else if (m) {
    __atomic_store_n(more, 0, __ATOMIC_RELAXED);
    p->kernel_request(p, F->func);
  }
}
