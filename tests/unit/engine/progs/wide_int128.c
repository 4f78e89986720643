/* __int128: arithmetic with carries, division and remainder (signed and
 * unsigned), shifts, compares, conversions, loads and stores of 16
 * bytes, printed as two 64-bit halves (program.h, wide values). */
#include <stdio.h>
#include <stdlib.h>

typedef __int128 i128;
typedef unsigned __int128 u128;

static void pr(const char *s, u128 v) {
  printf("%s %016llx%016llx\n", s, (unsigned long long)(v >> 64),
         (unsigned long long)v);
}

u128 arr[32];

int main(int argc, char **argv) {
  long k = argc > 1 ? atol(argv[1]) : 1;
  u128 x = (u128)0x0123456789abcdefULL * (k + 0xfedcba9876543210ULL);
  i128 y = -(i128)x / 7;
  for (int i = 0; i < 32; i++) {
    arr[i] = x * (u128)(i + 1) + (x >> (i * 3));
    x ^= arr[i] << 5;
  }
  u128 s = 0;
  i128 t = 0;
  for (int i = 0; i < 32; i++) {
    s += arr[i] / (u128)(i * 12345 + 7);
    t -= (i128)arr[i] % (i128)(-(i + 3));
    if ((i128)arr[i] < y)
      t += 1;
  }
  pr("x", x);
  pr("y", (u128)y);
  pr("s", s);
  pr("t", (u128)t);
  i128 m = (i128)-1 << 127;
  pr("min/-1", (u128)(m / -(i128)k));
  pr("mul", (u128)((i128)-123456789123456789ll * (i128)987654321987654321ll));
  printf("%d %lld %llu %.17g %.17g %.17g\n", (int)(s > x), (long long)(t >> 70),
         (unsigned long long)(s % 1000000007), (double)t, (double)(u128)s,
         (double)(float)y);
  printf("%lld %llu\n", (long long)(i128)(-1.5e30 / k),
         (unsigned long long)((u128)(3.0e20 * k) >> 10));
  return (int)(t & 0x7f);
}
