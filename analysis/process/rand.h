/* rand.h: glibc's random()/rand() (random_r.c, TYPE_3: the additive
 * feedback generator r[i] = r[i-3] + r[i-31] over 34 words seeded by the
 * Park-Miller LCG, 310 outputs discarded), so that rand() in the model
 * returns the numbers the real run gets. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_RAND_H
#define CBANA_ANALYSIS_RAND_H

#include <stdint.h>

typedef struct cb_rand {
  uint32_t r[34];
  unsigned k; /* index of the next word, mod 34 */
  /* outputs since the seed, mod 31: where glibc's rptr stands in its 31
   * words (fptr 3 words on), for the addresses random_r touches */
  unsigned pos;
} cb_rand;

void cb_rand_seed(cb_rand *g, uint32_t seed);
/* The next value of random() (0 .. 2^31-1). */
int32_t cb_rand_next(cb_rand *g);

#endif
