/* A row walk over 4 MiB, four times the LL, with a gather through an
 * index array: a stream mostly of records (the gather's loop runs in a
 * native kernel), which the time split does not guess (split.c,
 * records_heavy); time_split.py checks its report all the same. */
#include <stdio.h>
#include <stdlib.h>
#define N (1 << 19)
static double a[N], b[N];
static unsigned idx[N];
int main(void) {
  unsigned x = 12345;
  for (unsigned i = 0; i < N; i++) {
    a[i] = i;
    x = x * 1103515245u + 12345u;
    idx[i] = (x >> 8) % N;
  }
  double s = 0;
  for (int rep = 0; rep < 3; rep++)
    for (unsigned i = 0; i < N; i++) {
      b[i] += a[i] * 0.5;
      if ((i & 7) == 0)
        s += a[idx[i]];
    }
  printf("%g %g\n", s, b[N - 1]);
  return 0;
}
