/* lru_avx512.h's set update against policy.h's lru_touch, way for way:
 * 8- and 16-way sets of distinct lines with some ways empty (NO_LINE),
 * looked up with lines in every way and lines not there, filling and
 * not. The hierarchy tests (test_cache_reference, test_cache_affine)
 * check the loops that use it by their counts; this one checks the
 * order it leaves, which a count may not show until much later. Built
 * with -mavx512f; exits 77 (skipped) on a host without AVX-512F. */
#include "check.h"
#include "lru_avx512.h"

#include <string.h>

/* xorshift64: a fixed sequence, the same on every run */
static uint64_t next(uint64_t *s) {
  *s ^= *s << 13;
  *s ^= *s >> 7;
  *s ^= *s << 17;
  return *s;
}

static void check_shape(uint32_t assoc, uint64_t *rng) {
  uint64_t want[16], got[16];
  int mismatched = 0;
  for (int round = 0; round < 20000; round++) {
    /* ways 0 .. used-1 hold distinct lines, the rest are empty */
    uint32_t used = (uint32_t)(next(rng) % (assoc + 1));
    for (uint32_t w = 0; w < assoc; w++)
      want[w] = w < used ? (next(rng) % 64) * 32 + w : NO_LINE;
    memcpy(got, want, sizeof want);
    /* a line in the set (any way) about half the time */
    uint64_t line = used && next(rng) % 2 ? want[next(rng) % used]
                                          : (next(rng) % 64) * 32 + 31;
    bool fill = next(rng) % 4 != 0;
    bool hit_want = lru_touch(want, assoc, line, fill);
    bool hit_got = lru_touch_avx512(got, assoc, line, fill);
    if (hit_want != hit_got || memcmp(want, got, assoc * sizeof *got) != 0)
      mismatched++;
  }
  CHECK_EQ_U64(mismatched, 0);
}

int main(void) {
  if (!__builtin_cpu_supports("avx512f")) {
    printf("skipped: this host has no AVX-512F\n");
    return 77;
  }
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  check_shape(8, &rng);
  check_shape(16, &rng);
  /* a hand-worked case: a hit at way 5 of 8 moves it to the front */
  uint64_t set[8] = {10, 11, 12, 13, 14, 15, 16, 17};
  CHECK(lru_touch_avx512(set, 8, 15, true));
  const uint64_t after[8] = {15, 10, 11, 12, 13, 14, 16, 17};
  CHECK(memcmp(set, after, sizeof set) == 0);
  /* a write miss that does not allocate leaves the set alone */
  CHECK(!lru_touch_avx512(set, 8, 99, false));
  CHECK(memcmp(set, after, sizeof set) == 0);
  /* a miss that fills drops the last way */
  CHECK(!lru_touch_avx512(set, 8, 99, true));
  const uint64_t filled[8] = {99, 15, 10, 11, 12, 13, 14, 16};
  CHECK(memcmp(set, filled, sizeof set) == 0);
  return check_done();
}
