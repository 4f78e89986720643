/* The part memo's runs (memo_parts_run.h) for cachegrind's caches with
 * AVX-512 set updates (lru_avx512.h): built with -mavx512f like
 * lru2_avx512.c, and called by memo_parts.c's run_parts only where
 * accel.c chose it (h->avx512). Only the way a set moves its
 * lines differs from the plain copy; every count is the same. */
#include "lru2_regs.h"
#include "lru_avx512.h"

/* accel.c's cg_lines: 64-byte lines at both levels, and so the parts'
 * shift (the widest line's) too */
#define PARTS_SHIFT(g) LRU2_CG_SHIFT
#define PARTS_PART_SHIFT(s) ((void)(s), LRU2_CG_SHIFT)

#define PARTS_TOUCH lru_touch_avx512
#define PARTS_RUN_NAME run_parts_avx512
#define PARTS_RUN_LINKAGE
#include "memo_parts_run.h"
