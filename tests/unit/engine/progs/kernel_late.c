/* Native kernels made of the blocks that have run (frontend/
 * jit_compile.c): step()'s loop takes its other side only in the run's
 * last quarter, so the kernel made while the loop was hot has no code
 * for it and leaves to the interpreter there, until the function is
 * compiled again with it; a side taken once in 4096 iterations (and in
 * the last round only, another) keeps leaving. tests/e2e/kernel_lazy.sh
 * runs it against --exact-engine and the native executable.
 *
 *   kernel_late [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096u

static unsigned step(unsigned *t, unsigned round, unsigned rounds) {
  unsigned s = round;
  for (unsigned i = 0; i < N; i++) {
    unsigned v = t[i];
    if (round * 4 >= rounds * 3) {
      /* late: hashing and scattered read-modify-writes, more code than
       * the rest of the function, so that a kernel of the rest is not
       * compiled whole */
      v = v * 2654435761u ^ (v >> 13);
      t[(v ^ i) & (N - 1)] += s;
      v += (v << 7) ^ (v >> 3);
      v ^= v * 0x9e3779b1u;
      v = (v << 11) | (v >> 21);
      v += t[(v ^ (17 * i)) & (N - 1)];
      v ^= (v >> 9) * 31u;
      v = v * 0x85ebca6bu ^ (v >> 16);
      t[(v + i) & (N - 1)] ^= v >> 3;
      v += (v >> 5) * 0xc2b2ae35u;
      v ^= t[(v >> 7) & (N - 1)] * 13u;
      v = (v << 3) - (v >> 29) + i;
      t[(v * 5u) & (N - 1)] -= v & 0xffff;
      v ^= (v << 13) ^ (v >> 17) ^ (v << 5);
      s += (v & 0xff) + (v >> 24);
    } else {
      s += v ^ i;
    }
    if ((i & 4095) == 4095 && (s & 1))
      t[i / 2] = s; /* rare */
    if (round + 1 == rounds && (v & 63) == 0)
      s ^= t[(v >> 6) & (N - 1)]; /* the last round only */
    t[i] = v + (s & 7);
  }
  return s;
}

int main(int argc, char **argv) {
  unsigned rounds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2000;
  unsigned *t = malloc(N * sizeof *t), sum = 0;
  if (!t)
    return 1;
  for (unsigned i = 0; i < N; i++)
    t[i] = i * 40503u;
  for (unsigned r = 0; r < rounds; r++)
    sum += step(t, r, rounds);
  printf("%u\n", sum);
  free(t);
  return (int)(sum & 0x3f);
}
