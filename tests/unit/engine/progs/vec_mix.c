/* Loops that clang -O2 vectorizes: selects on vector conditions,
 * reductions (min, max, sum), narrow integer arithmetic, reversed
 * accesses (shuffles), conversions, a switch and function pointers. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1000
static int x[N], y[N];
static float f[N];
static uint8_t b[N];
static int16_t h[N];
static double dd[N];

static int twice(int v) {
  return 2 * v;
}
static int negate(int v) {
  return -v;
}

int main(int argc, char **argv) {
  int seed = argc > 1 ? atoi(argv[1]) : 1;
  srand((unsigned)seed);
  for (int i = 0; i < N; i++) {
    x[i] = rand() % 2001 - 1000;
    b[i] = (uint8_t)(rand() & 0xff);
    h[i] = (int16_t)(rand() % 60000 - 30000);
  }
  for (int i = 0; i < N; i++)
    y[i] = x[i] > 0 ? x[i] : -x[i] / 3;
  int mn = y[0], mx = y[0];
  long sum = 0;
  for (int i = 0; i < N; i++) {
    mn = y[i] < mn ? y[i] : mn;
    mx = y[i] > mx ? y[i] : mx;
    sum += y[i];
  }
  unsigned bs = 0;
  for (int i = 0; i < N; i++) {
    b[i] = (uint8_t)(b[i] * 3 + 7);
    bs += b[i] >> 2;
  }
  long hs = 0;
  for (int i = 0; i < N; i++) {
    h[i] = (int16_t)((h[i] >> 1) + (h[N - 1 - i] >> 2));
    hs += h[i];
  }
  for (int i = 0; i < N; i++)
    f[i] = (float)x[N - 1 - i] * 0.5f + (float)b[i];
  double fs = 0;
  for (int i = 0; i < N; i++) {
    dd[i] = (double)f[i] / (1 + (i & 7));
    fs += dd[i];
  }
  int (*fp[2])(int) = {twice, negate};
  long cs = 0;
  for (int i = 0; i < N; i++) {
    switch (x[i] & 3) {
    case 0:
      cs += fp[0](x[i]);
      break;
    case 1:
      cs += fp[1](x[i]);
      break;
    case 2:
      cs ^= x[i];
      break;
    default:
      cs -= 5;
    }
  }
  unsigned long long u = 0;
  for (int i = 0; i < N; i++)
    u = u * 6364136223846793005ull + (unsigned)x[i];
  printf("%d %d %ld %u %ld %.6f %ld %llu\n", mn, mx, sum, bs, hs, fs, cs, u);
  return 0;
}
