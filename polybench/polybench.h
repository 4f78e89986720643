/* polybench.h: the little that the cbana PolyBench/C 4.2.1 kernels share.
 *
 * - Dataset selection: compile with one of -DMINI_DATASET, -DSMALL_DATASET,
 *   -DMEDIUM_DATASET, -DLARGE_DATASET, -DEXTRALARGE_DATASET; LARGE is the
 *   default, as in PolyBench. Each kernel defines its own sizes for these.
 *   A kernel's size macros (N, M, NI, ...) can also be given directly.
 * - pb_alloc(): every array is its own heap block from
 *   posix_memalign(4096, n * elt_size), exactly like PolyBench's
 *   polybench_alloc_data() with its default of no inter-array padding.
 *
 * The PolyBench timing, cache flushing and array dumping machinery is left
 * out: each program prints one checksum line of what PolyBench would dump.
 */
#ifndef CBANA_POLYBENCH_H
#define CBANA_POLYBENCH_H

#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200112L /* posix_memalign under -std=c11 */
#endif

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#if !defined(MINI_DATASET) && !defined(SMALL_DATASET) &&                       \
    !defined(MEDIUM_DATASET) && !defined(LARGE_DATASET) &&                     \
    !defined(EXTRALARGE_DATASET)
#define LARGE_DATASET
#endif

/* One page-aligned heap block of n elements of elt_size bytes; NULL if the
   allocation fails. */
static inline void *pb_alloc(size_t n, size_t elt_size) {
  void *p = NULL;
  if (posix_memalign(&p, 4096, n * elt_size) != 0)
    return NULL;
  return p;
}

#endif /* CBANA_POLYBENCH_H */
