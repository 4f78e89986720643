/* The two-level LRU loops for cachegrind's caches (8 and 16 ways, 64-byte
 * lines, write-allocate: accel.c, h->avx512) compiled with AVX-512 set
 * updates (lru_avx512.h) and that geometry as constants:
 * cb_affine_run's `inl` copy (affine_loop.h) and records_lru2.c's batch
 * loop (lru2_regs.h). This file alone is built with -mavx512f; they are
 * called only where accel.c chose them (h->avx512). The loops,
 * the warps and every count are those of the plain copies: only the way
 * a set moves its lines differs. */
#define LRU2_TOUCH lru_touch_avx512
#include "lru_avx512.h"

#include "affine_loop.h"

void affine_run_inl_avx512(cb_hierarchy *h, const cb_affine_block *b,
                           bool can_warp, bool aligned, affine_run *r) {
  /* The same copies as cb_affine_run's RUN_N, for the inline case. */
#define RUN_N(N)                                                               \
  do {                                                                         \
    if (can_warp && aligned)                                                   \
      run_iterations(h, b, N, true, true, true, 8, 16, LRU2_CG_SHIFT, NULL, 0, \
                     r);                                                       \
    else if (aligned)                                                          \
      run_iterations(h, b, N, false, true, true, 8, 16, LRU2_CG_SHIFT, NULL,   \
                     0, r);                                                    \
    else if (can_warp)                                                         \
      run_iterations(h, b, N, true, false, true, 8, 16, LRU2_CG_SHIFT, NULL,   \
                     0, r);                                                    \
    else                                                                       \
      run_iterations(h, b, N, false, false, true, 8, 16, LRU2_CG_SHIFT, NULL,  \
                     0, r);                                                    \
  } while (0)
  AFFINE_BY_N_ACC(b->n_acc, RUN_N);
#undef RUN_N
}

void records_run_lru2_avx512(cb_hierarchy *h, const cb_access *batch,
                             size_t n) {
  run_lru2(h, batch, n, 8, 16, LRU2_CG_SHIFT);
}
