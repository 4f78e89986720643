/* The intrinsics clang emits for C beyond the classic ones: saturating
 * arithmetic and bit reversal (scalar at -O1, vectors at -O2/-O3), ctlz,
 * cttz, abs and funnel shifts on vectors, the rounding family (lround,
 * llround, lrint, llrint, nearbyint, roundeven: intrinsics under
 * -fno-math-errno) with halfway, huge and NaN values, exp2/log2/log10,
 * __builtin_constant_p and __builtin_object_size. argv[1]: a seed. */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* clang makes roundeven llvm.roundeven only when it optimizes */
#ifdef __OPTIMIZE__
#define ROUNDEVEN(x) roundeven(x)
#else
#define ROUNDEVEN(x) rint(x)
#endif

#define N 64
static uint32_t u32[N];
static int8_t s8a[N], s8b[N], s8r[N];
static int16_t s16a[N], s16b[N], s16r[N];
static int32_t i32[N], o32[N];
static double d[N];
static long lr[N];

__attribute__((noinline)) static void sat8(void) {
  for (int i = 0; i < N; i++) {
    int s = s8a[i] + s8b[i];
    s8r[i] = s > 127 ? 127 : s < -128 ? -128 : s;
  }
}

__attribute__((noinline)) static void satsub16(void) {
  for (int i = 0; i < N; i++) {
    int s = s16a[i] - s16b[i];
    s16r[i] = s > 32767 ? 32767 : s < -32768 ? -32768 : s;
  }
}

__attribute__((noinline)) static void bits(void) {
  for (int i = 0; i < N; i++)
    o32[i] = __builtin_clz(u32[i] | 1) + __builtin_ctz(u32[i] | 0x80000000u);
}

__attribute__((noinline)) static void absmax(void) {
  for (int i = 0; i < N; i++)
    o32[i] =
        (i32[i] < 0 ? -i32[i] : i32[i]) + (i32[i] > o32[i] ? i32[i] : o32[i]);
}

__attribute__((noinline)) static uint32_t rotate(unsigned k) {
  uint32_t s = 0;
  for (int i = 0; i < N; i++)
    s += (u32[i] << 7) | (u32[i] >> 25);
  k &= 31;
  return s ^ ((u32[0] << k) | (u32[0] >> ((32 - k) & 31)));
}

__attribute__((noinline)) static uint32_t reverse(void) {
  uint32_t x = 0;
  for (int i = 0; i < N; i++)
    x ^= __builtin_bitreverse32(u32[i]) + __builtin_bitreverse8((uint8_t)i) +
         __builtin_bitreverse16((uint16_t)u32[i]) +
         (uint32_t)(__builtin_bitreverse64(u32[i]) >> 17);
  return x;
}

__attribute__((noinline)) static void rounding(void) {
  for (int i = 0; i < N; i++)
    lr[i] = lround(d[i]) + llrint(d[i]) + lrint(d[i]) + llround(d[i]) +
            (long)nearbyint(d[i] * 3) + (long)ROUNDEVEN(d[i]);
}

int main(int argc, char **argv) {
  uint32_t x = argc > 1 ? (uint32_t)atoi(argv[1]) : 12345;
  for (int i = 0; i < N; i++) {
    x = x * 1103515245u + 12345u;
    u32[i] = x;
    s8a[i] = (int8_t)(x >> 8);
    s8b[i] = (int8_t)(x >> 16);
    s16a[i] = (int16_t)(x >> 3);
    s16b[i] = (int16_t)(x >> 13);
    i32[i] = (int32_t)x >> 3;
    d[i] = (double)(int32_t)x / 1000.0;
  }
  /* halfway cases round away from zero (lround) or to even (lrint) */
  d[0] = 2.5;
  d[1] = -2.5;
  d[2] = 3.5;
  d[3] = 0.5;
  d[4] = -0.5;
  sat8();
  satsub16();
  bits();
  long s = 0;
  for (int i = 0; i < N; i++)
    s += s8r[i] * 3 + s16r[i] + o32[i];
  absmax();
  for (int i = 0; i < N; i++)
    s += o32[i];
  rounding();
  for (int i = 0; i < N; i++)
    s += lr[i];
  printf("%ld %u %u\n", s, rotate(x), reverse());
  /* out of range and NaN: the "integer indefinite" value */
  volatile double big = 1e300, nan = NAN, neg = -9.3e18;
  printf("%ld %ld %lld %lld %ld\n", lround(big), lrint(nan), llround(neg),
         llrint(big), lround(-2.5));
  volatile double e = (double)(x % 1000) / 7;
  printf("%.17g %.17g %.17g %.17g\n", exp2(e), log2(e + 1), log10(e + 1),
         ROUNDEVEN(e));
  printf("%d %d %d\n", __builtin_constant_p(x), __builtin_constant_p(3),
         (int)__builtin_object_size(u32, 0));
  return 0;
}
