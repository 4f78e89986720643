/* The native kernels' scalar forms (frontend/jit_ops.c) against the
 * reference interpreter: shifts of every integer width with amounts past the
 * width, signed and unsigned division and remainder (negative operands, a
 * divisor of -1, and a division by zero on the last input, which stops
 * the run), comparisons with NaN, selects, int <-> double conversions,
 * three-index arrays, and a loop whose data decides its branches. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N 16
static double cube[N][N][N];
static int64_t w64[64];
static int32_t w32[64];
static int16_t w16[64];
static int8_t w8[64];

int main(int argc, char **argv) {
  int seed = argc > 1 ? atoi(argv[1]) : 1;
  volatile int64_t zero = argc > 2 ? atoi(argv[2]) : 7;
  srand((unsigned)seed);
  for (int i = 0; i < 64; i++) {
    w64[i] = (int64_t)rand() * (rand() & 1 ? -1 : 1) * 977;
    w32[i] = (int32_t)(rand() - RAND_MAX / 2);
    w16[i] = (int16_t)rand();
    w8[i] = (int8_t)rand();
  }
  uint64_t acc = 0;
  for (int i = 0; i < 64; i++) {
    int s = (int)(w64[(i * 7) % 64] & 127);
    acc += (uint64_t)w64[i] >> (s & 63);
    acc ^= (uint64_t)(w64[i] >> (s & 63));
    acc += (uint64_t)((uint32_t)w32[i] << (s & 31));
    acc += (uint64_t)(w32[i] >> (s & 31));
    acc += (uint16_t)(w16[i] << (s & 15)) + (uint8_t)(w8[i] >> (s & 7));
    int64_t d = w64[(i + 1) % 64] % 1000 - 500;
    if (d != 0) {
      acc += (uint64_t)(w64[i] / d) + (uint64_t)(w64[i] % d);
      acc += (uint64_t)((uint64_t)w64[i] / (uint64_t)d);
      acc += (uint64_t)(w32[i] / (int32_t)d) + (uint64_t)(w32[i] % (int32_t)d);
    }
    acc += (uint64_t)(w64[i] / (i % 2 ? -1 : 3));
  }
  double nan = sqrt(-(double)(seed % 3 + 1)), sum = 0;
  for (int i = 0; i < N; i++)
    for (int j = 0; j < N; j++)
      for (int k = 0; k < N; k++)
        cube[i][j][k] = (double)(w32[(i + j + k) % 64] % 1000) / 7.0;
  long lt = 0, un = 0;
  for (int i = 1; i < N - 1; i++)
    for (int j = 1; j < N - 1; j++)
      for (int k = 1; k < N - 1; k++) {
        double v = cube[i][j][k];
        double t = (k % 5 == 0) ? nan : cube[i - 1][j + 1][k - 1];
        lt += v < t;
        un += !(v >= t);
        sum += v > t ? v - t : t;
        if (v > 50.0)
          cube[i][j + 1][k] = (double)(int64_t)(v * 3.0);
      }
  printf("%llu %ld %ld %.6f\n", (unsigned long long)acc, lt, un, sum);
  printf("%lld\n", (long long)(w64[3] / zero));
  return 0;
}
