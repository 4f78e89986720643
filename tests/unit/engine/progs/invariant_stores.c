/* Loops whose stores write the same value every iteration, or values
 * the loop computes for its addresses anyway, while nothing else they
 * compute is read: the loop templates must still write those bytes. A
 * later loop reads them to pick the lines it reads, so a store left
 * undone changes the cache counts. One case per first argument (the
 * second: how many elements):
 *
 *   const      a constant, through a volatile array (no memset)
 *   invariant  a value computed before the loop (vector stores of a
 *              splat; the loop computes nothing)
 *   iv         the induction variable itself, a control value the loop
 *              computes for its addresses anyway
 *   scalar     a constant to one volatile scalar, every iteration (a
 *              stride-0 stream), beside constants to an array
 *   order      two constants to overlapping elements, a[i] = 1 then
 *              a[i + 1] = 2: each element ends with the one stored last
 *              in the program's order, iteration by iteration (1, but
 *              the last) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 512
#define BIG (1 << 16) /* ints: 256 KiB, more lines than the caches */

static int big[BIG];
static volatile int cvals[N];
static int ivals[N];
static long perm[N];
static volatile int scal;
static volatile int ovals[N + 1];

/* Reads big at lines picked by idx: idx[i] * (i + scale) spreads over
 * many lines, where zeros (the bytes before the stores) read one. */
static unsigned gather(const volatile int *idx, int n, int scale) {
  unsigned s = 0;
  for (int i = 0; i < n; i++)
    s += (unsigned)big[((unsigned)idx[i] * (unsigned)(i + scale)) & (BIG - 1)];
  return s;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "const";
  int n = argc > 2 ? atoi(argv[2]) : N;
  if (n < 1 || n > N)
    return 2;
  for (int i = 0; i < BIG; i++)
    big[i] = i * 3 + 1;
  unsigned s;
  if (!strcmp(mode, "const")) {
    for (int i = 0; i < n; i++)
      cvals[i] = 37;
    s = gather(cvals, n, 1024);
  } else if (!strcmp(mode, "invariant")) {
    int v = n * 7 + 5; /* needed below, and only known at run time */
    for (int i = 0; i < n; i++)
      ivals[i] = v;
    s = gather(ivals, n, 256);
  } else if (!strcmp(mode, "iv")) {
#pragma clang loop vectorize(disable) unroll(disable)
    for (long i = 0; i < n; i++)
      perm[i] = i;
    s = 0;
    for (int i = 0; i < n; i++)
      s += (unsigned)big[(perm[i] * (i + 4160)) & (BIG - 1)];
  } else if (!strcmp(mode, "scalar")) {
    for (int i = 0; i < n; i++) {
      cvals[i] = 11;
      scal = 53;
    }
    s = gather(cvals, n, 1024) + (unsigned)big[scal * 1000];
  } else if (!strcmp(mode, "order")) {
    for (int i = 0; i < n; i++) {
      ovals[i] = 1;
      ovals[i + 1] = 2;
    }
    s = gather(ovals, n + 1, 8192);
  } else {
    return 2;
  }
  printf("%u\n", s);
  return 0;
}
