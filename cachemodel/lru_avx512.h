/* policy.h's lru_touch for sets of 8 and 16 ways, with AVX-512: the
 * whole set in one or two registers, compared at once, and moved to front
 * by a masked blend with the set shifted by one way. The scalar version
 * leaves its loop at the way that hits, a branch the host mispredicts
 * whenever hits land on varying ways, as a column walk's last-level hits
 * do (nussinov LARGE: one such miss a column access); this one branches
 * only on a write miss that does not allocate. Same contract and same
 * result as lru_touch, way for way. Included by lru2_avx512.c alone,
 * which is compiled with -mavx512f and run only where the host has it.
 * Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_LRU_AVX512_H
#define CBANA_CACHEMODEL_LRU_AVX512_H

#include <immintrin.h>
#include <stdbool.h>
#include <stdint.h>

#include "policy.h"

/* Ways 0 .. p take the set shifted by one way (line in front), the rest
 * stay: for a hit at way p, lru_touch's move to front; for a miss (p the
 * last way), the shift that drops the least recent line. */
static inline __attribute__((always_inline)) bool
lru_touch_avx512(uint64_t *set, uint32_t assoc, uint64_t line, bool fill) {
  const __m512i l = _mm512_set1_epi64((long long)line);
  if (assoc == 8) {
    const __m512i v = _mm512_loadu_si512(set);
    const unsigned eq = _mm512_cmpeq_epi64_mask(v, l);
    if (!eq && !fill)
      return false;
    const unsigned p = eq ? (unsigned)__builtin_ctz(eq) : 7;
    /* [line, v0 .. v6] */
    const __m512i shifted = _mm512_alignr_epi64(v, l, 7);
    _mm512_storeu_si512(
        set, _mm512_mask_mov_epi64(v, (__mmask8)((2u << p) - 1), shifted));
    return eq != 0;
  }
  if (assoc == 16) {
    const __m512i lo = _mm512_loadu_si512(set);
    const __m512i hi = _mm512_loadu_si512(set + 8);
    const unsigned eq = (unsigned)_mm512_cmpeq_epi64_mask(lo, l) |
                        (unsigned)_mm512_cmpeq_epi64_mask(hi, l) << 8;
    if (!eq && !fill)
      return false;
    const unsigned p = eq ? (unsigned)__builtin_ctz(eq) : 15;
    const unsigned m = (2u << p) - 1;
    /* [line, lo0 .. lo6] and [lo7, hi0 .. hi6] */
    const __m512i sh_lo = _mm512_alignr_epi64(lo, l, 7);
    const __m512i sh_hi = _mm512_alignr_epi64(hi, lo, 7);
    _mm512_storeu_si512(set, _mm512_mask_mov_epi64(lo, (__mmask8)m, sh_lo));
    _mm512_storeu_si512(set + 8,
                        _mm512_mask_mov_epi64(hi, (__mmask8)(m >> 8), sh_hi));
    return eq != 0;
  }
  return lru_touch(set, assoc, line, fill);
}

#endif
