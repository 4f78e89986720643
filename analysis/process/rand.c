/* rand.c: glibc's TYPE_3 random() sequence (see rand.h). */
#include "rand.h"

static uint32_t step(cb_rand *g) {
  unsigned k = g->k;
  uint32_t v = g->r[(k + 34 - 31) % 34] + g->r[(k + 34 - 3) % 34];
  g->r[k] = v;
  g->k = (k + 1) % 34;
  return v;
}

void cb_rand_seed(cb_rand *g, uint32_t seed) {
  int32_t w = seed ? (int32_t)seed : 1;
  g->r[0] = (uint32_t)w;
  for (int i = 1; i < 31; i++) {
    /* 16807 * w mod (2^31 - 1) by Schrage's method, signed as glibc */
    int32_t hi = w / 127773, lo = w % 127773;
    w = 16807 * lo - 2836 * hi;
    if (w < 0)
      w += 2147483647;
    g->r[i] = (uint32_t)w;
  }
  for (int i = 31; i < 34; i++)
    g->r[i] = g->r[i - 31];
  g->k = 34 % 34;
  for (int i = 34; i < 344; i++)
    step(g);
  g->pos = 0; /* 310 discarded outputs: a multiple of 31 */
}

int32_t cb_rand_next(cb_rand *g) {
  g->pos = (g->pos + 1) % 31;
  return (int32_t)(step(g) >> 1);
}
