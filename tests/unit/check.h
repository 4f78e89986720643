/* A minimal test harness: CHECK records a failure with its location and
 * goes on; check_done prints "N passed, N failed" and gives the exit
 * status. Header-only so every test executable stands alone. */
#ifndef CBANA_TESTS_CHECK_H
#define CBANA_TESTS_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static int check_passed, check_failed;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (cond) {                                                                \
      check_passed++;                                                          \
    } else {                                                                   \
      check_failed++;                                                          \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

#define CHECK_EQ_U64(got, want)                                                \
  do {                                                                         \
    uint64_t g_ = (uint64_t)(got), w_ = (uint64_t)(want);                      \
    if (g_ == w_) {                                                            \
      check_passed++;                                                          \
    } else {                                                                   \
      check_failed++;                                                          \
      fprintf(stderr, "%s:%d: %s = %" PRIu64 ", want %" PRIu64 "\n", __FILE__, \
              __LINE__, #got, g_, w_);                                         \
    }                                                                          \
  } while (0)

/* splitmix64 (Steele, Lea, Flood 2014): the tests' reproducible random
 * numbers, from the state *s. */
static inline uint64_t check_rand(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static inline int check_done(void) {
  printf("%d passed, %d failed\n", check_passed, check_failed);
  return check_failed ? 1 : 0;
}

#endif
