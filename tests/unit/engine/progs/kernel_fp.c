/* Floating point in native kernels (frontend/jit_ops_fp.c,
 * jit_ops_intr.c): gathers over a table of floats and doubles holding the
 * edge values (NaNs with payloads and signs, -0.0, infinities, the
 * largest and smallest values, subnormals), so that the loop is a
 * kernel's region, and every value folded into a checksum of bits.
 * Built with -fno-math-errno so that fmodf, sqrt and the rest are LLVM's
 * frem and intrinsics, as a program built that way has them. Every mode
 * but edge prints what the native executable prints, except where a
 * NaN meets a NaN: x86 returns the first operand's, and the compiler
 * may swap the operands of an addition or multiplication.
 *
 *   kernel_fp MODE [N]
 *
 * f32      float arithmetic, remainder, negation, comparisons, and the
 *          casts between float, double and integers (in range)
 * f64      the same for double, and float <-> double
 * intr     fabs, copysign, fmin/fmax, floor/ceil/trunc/rint/round,
 *          sqrt, exp/log/sin/cos/pow, and integer popcount, clz, ctz,
 *          bswap, rotations, abs, min/max, overflow checks (-msse4.1:
 *          the rounding family inline, as roundss)
 * edge     conversions out of range (undefined in C: x86's "integer
 *          indefinite" or the engine's rule; tests/e2e compares this
 *          mode between the engines only)
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NV 64

static float fv[NV];
static double dv[NV];
static int64_t iv[NV];

static uint64_t lcg(uint64_t s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}

static float f_bits(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static double d_bits(uint64_t u) {
  double d;
  memcpy(&d, &u, 8);
  return d;
}
static uint32_t bits_f(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static uint64_t bits_d(double d) {
  uint64_t u;
  memcpy(&u, &d, 8);
  return u;
}

static void fill(void) {
  static const uint32_t fe[] = {
      0x7fc00000u,                           /* NaN */
      0xffc00001u,                           /* -NaN with a payload */
      0x7fa00000u,                           /* a signalling NaN */
      0x80000000u,                           /* -0.0 */
      0x00000000u, 0x7f800000u, 0xff800000u, /* 0, inf, -inf */
      0x7f7fffffu, 0x00000001u, 0x80400000u, /* max, subnormals */
  };
  static const uint64_t de[] = {
      0x7ff8000000000000ull,
      0xfff8000000000123ull,
      0x7ff4000000000000ull,
      0x8000000000000000ull,
      0,
      0x7ff0000000000000ull,
      0xfff0000000000000ull,
      0x7fefffffffffffffull,
      1,
      0x8008000000000000ull,
  };
  uint64_t r = 99;
  for (int i = 0; i < NV; i++) {
    r = lcg(r);
    int64_t k = (int64_t)(r >> 40) - (1 << 23);
    fv[i] = (float)k / 1024.0f;
    dv[i] = (double)k / 3.0;
    iv[i] = (int64_t)(r >> 3) * ((i & 1) ? -1 : 1);
  }
  for (unsigned i = 0; i < sizeof fe / sizeof fe[0]; i++) {
    fv[3 * i + 1] = f_bits(fe[i]);
    dv[3 * i + 2] = d_bits(de[i]);
  }
  fv[40] = 2.5f;
  fv[41] = -2.5f;
  fv[42] = 3.5f;
  fv[43] = 1e9f;
  dv[44] = 9.3e18; /* above 2^63: unsigned only */
  dv[45] = 0.5;
  dv[46] = -0.5;
  dv[47] = 4503599627370497.0;
  iv[50] = INT64_MIN;
  iv[51] = INT64_MAX;
  iv[52] = -1;
  iv[53] = 0;
}

static int *indexes(long n) {
  int *idx = malloc(n * sizeof *idx);
  uint64_t r = 7;
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    idx[i] = (int)((r >> 33) % NV);
  }
  return idx;
}

static uint64_t mix(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001b3ull;
}

/* Small loops, so that their values stay in registers: a loop whose
 * machine code spills makes stack accesses the IR does not show, and
 * only the interpreter makes those. Constants come from memory (x86
 * code reads a literal from the constant pool inside the loop). */
static float fk[4] = {0.5f, 0.25f, 1e6f, 0.0f};
static double dk[4] = {0.125, 0.75, 9e18, 1.8e19};

__attribute__((noinline)) static uint64_t f32_arith(const int *idx, long n) {
  uint64_t h = 1;
  float acc = 0.0f, half = fk[0], quarter = fk[1];
  for (long k = 0; k + 1 < n; k++) {
    float a = fv[idx[k]], b = fv[idx[k + 1]];
    h = mix(h, bits_f(a + b));
    h = mix(h, bits_f(a - b));
    h = mix(h, bits_f(a * b));
    h = mix(h, bits_f(a / b));
    h = mix(h, bits_f(-a));
    h = mix(h, (uint64_t)((a < b) | (a == b) << 1 | (a != a) << 2 |
                          (isunordered(a, b) << 3) | ((a >= b) << 4)));
    if (a > acc)
      acc = acc * half + a;
    else
      acc = acc - b * quarter;
    fv[idx[k + 1] / 2] = acc;
  }
  return mix(h, bits_f(acc));
}

__attribute__((noinline)) static uint64_t f32_rem(const int *idx, long n) {
  uint64_t h = 1;
  for (long k = 0; k + 1 < n; k++)
    h = mix(h, bits_f(fmodf(fv[idx[k]], fv[idx[k + 1]])));
  return h;
}

__attribute__((noinline)) static uint64_t f32_cast(const int *idx, long n) {
  uint64_t h = 1;
  float lim = fk[2];
  for (long k = 0; k < n; k++) {
    float a = fv[idx[k]];
    int64_t i = iv[idx[k]];
    if (fabsf(a) < lim) {
      h = mix(h, (uint64_t)(int)a);
      h = mix(h, (uint64_t)(long)a);
      if (a >= 0.0f)
        h = mix(h, (uint64_t)(unsigned)a);
    }
    h = mix(h, bits_f((float)i));
    h = mix(h, bits_f((float)(uint64_t)i));
    h = mix(h, bits_f((float)(int32_t)i));
    h = mix(h, bits_f((float)(uint16_t)i));
    h = mix(h, bits_d((double)a));
  }
  return h;
}

static uint64_t f32(const int *idx, long n) {
  return f32_arith(idx, n) ^ f32_rem(idx, n) * 3 ^ f32_cast(idx, n) * 5;
}

__attribute__((noinline)) static uint64_t f64_arith(const int *idx, long n) {
  uint64_t h = 2;
  double acc = 0.0, e = dk[0], t = dk[1];
  for (long k = 0; k + 1 < n; k++) {
    double a = dv[idx[k]], b = dv[idx[k + 1]];
    h = mix(h, bits_d(a + b));
    h = mix(h, bits_d(a - b));
    h = mix(h, bits_d(a * b));
    h = mix(h, bits_d(a / b));
    h = mix(h, bits_d(-a));
    h = mix(h, (uint64_t)((a < b) | (a <= b) << 1 | (a != b) << 2 |
                          (isunordered(a, b) << 3)));
    acc = a > acc ? acc + a * e : acc * t - b;
    dv[idx[k + 1] / 2] = acc;
  }
  return mix(h, bits_d(acc));
}

__attribute__((noinline)) static uint64_t f64_rem(const int *idx, long n) {
  uint64_t h = 2;
  for (long k = 0; k + 1 < n; k++)
    h = mix(h, bits_d(fmod(dv[idx[k]], dv[idx[k + 1]])));
  return h;
}

__attribute__((noinline)) static uint64_t f64_cast(const int *idx, long n) {
  uint64_t h = 2;
  double big = dk[2], ubig = dk[3];
  for (long k = 0; k < n; k++) {
    double a = dv[idx[k]];
    int64_t i = iv[idx[k]];
    h = mix(h, bits_f((float)a));
    if (fabs(a) < big)
      h = mix(h, (uint64_t)(long)a);
    if (a >= 0.0 && a < ubig)
      h = mix(h, (uint64_t)a);
    if (a > -2e9 && a < 2e9)
      h = mix(h, (uint64_t)(int)a);
    h = mix(h, bits_d((double)i));
    h = mix(h, bits_d((double)(uint64_t)i));
    h = mix(h, bits_d((double)(uint32_t)i));
    h = mix(h, bits_d((double)(int8_t)i));
  }
  return h;
}

static uint64_t f64(const int *idx, long n) {
  return f64_arith(idx, n) ^ f64_rem(idx, n) * 3 ^ f64_cast(idx, n) * 5;
}

static int rotl(unsigned x, int s) {
  return (int)((x << s) | (x >> (32 - s)));
}

__attribute__((noinline)) static uint64_t intr_fp(const int *idx, long n) {
  uint64_t h = 3;
  float one = fk[0] * 2;
  for (long k = 0; k + 1 < n; k++) {
    float a = fv[idx[k]], b = fv[idx[k + 1]];
    double c = dv[idx[k]], d = dv[idx[k + 1]];
    h = mix(h, bits_f(fabsf(a)));
    h = mix(h, bits_f(copysignf(a, b)));
    h = mix(h, bits_f(floorf(a)));
    h = mix(h, bits_f(ceilf(b)));
    h = mix(h, bits_f(truncf(a)));
    h = mix(h, bits_f(rintf(a)));
    h = mix(h, bits_f(sqrtf(a)));
    h = mix(h, bits_f(a * b + one));
    h = mix(h, bits_d(fabs(c)));
    h = mix(h, bits_d(copysign(c, d)));
    h = mix(h, bits_d(floor(c)));
    h = mix(h, bits_d(sqrt(d)));
  }
  return h;
}

/* fmin and fmax (LLVM's minnum and maxnum: x86's minss and maxss with
 * the NaN cases selected around them), with NaNs and signed zeros */
__attribute__((noinline)) static uint64_t intr_minmax(const int *idx, long n) {
  uint64_t h = 3;
  for (long k = 0; k + 1 < n; k++) {
    float a = fv[idx[k]], b = fv[idx[k + 1]];
    double c = dv[idx[k]], d = dv[idx[k + 1]];
    h = mix(h, bits_f(fmaxf(a, b)));
    h = mix(h, bits_f(fminf(a, b)));
    h = mix(h, bits_d(fmax(c, d)));
    h = mix(h, bits_d(fmin(c, d)));
    h = mix(h, bits_f(roundf(b)));
  }
  return h;
}

__attribute__((noinline)) static uint64_t intr_libm(const int *idx, long n) {
  uint64_t h = 3;
  double small = dk[0] * 8e-6, half = dk[0] * 4;
  for (long k = 0; k + 1 < n; k++) {
    double c = dv[idx[k]], d = dv[idx[k + 1]];
    h = mix(h, bits_d(exp(c * small)));
    h = mix(h, bits_d(log(d)));
    h = mix(h, bits_d(sin(c)));
    h = mix(h, bits_d(cos(d)));
    h = mix(h, bits_d(pow(c, half)));
    h = mix(h, bits_f(expf(fv[idx[k]] * (float)small)));
  }
  return h;
}

__attribute__((noinline)) static uint64_t intr_int(const int *idx, long n) {
  uint64_t h = 3;
  for (long k = 0; k + 1 < n; k++) {
    int64_t x = iv[idx[k]], y = iv[idx[k + 1]];
    unsigned u = (unsigned)x;
    h = mix(h, (uint64_t)__builtin_popcountll((uint64_t)x));
    h = mix(h, (uint64_t)(x ? __builtin_clzll((uint64_t)x) : 64));
    h = mix(h, (uint64_t)(u ? __builtin_ctz(u) : 32));
    h = mix(h, __builtin_bswap64((uint64_t)x));
    h = mix(h, __builtin_bswap32(u));
    h = mix(h, (uint64_t)rotl(u, (int)(y & 15) + 1));
    h = mix(h, (uint64_t)labs(x == INT64_MIN ? 0 : x));
    h = mix(h, (uint64_t)abs((int)u == INT32_MIN ? 1 : (int)u));
    h = mix(h, (uint64_t)(x < y ? x : y));
    h = mix(h, (uint64_t)((uint64_t)x > (uint64_t)y ? x : y));
    int64_t o;
    h = mix(h, (uint64_t)__builtin_add_overflow(x, y, &o));
    h = mix(h, (uint64_t)o);
    h = mix(h, (uint64_t)__builtin_mul_overflow(x, y, &o));
    h = mix(h, (uint64_t)o);
    unsigned uo;
    h = mix(h, (uint64_t)__builtin_sub_overflow(u, (unsigned)y, &uo));
    h = mix(h, uo);
    iv[idx[k + 1] / 2 + 8] = (int64_t)h;
  }
  return h;
}

static uint64_t intr(const int *idx, long n) {
  return intr_fp(idx, n) ^ intr_minmax(idx, n) * 3 ^ intr_libm(idx, n) * 5 ^
         intr_int(idx, n) * 7;
}

static uint64_t edge(const int *idx, long n) {
  uint64_t h = 4;
  for (long k = 0; k < n; k++) {
    float a = fv[idx[k]];
    double c = dv[idx[k]];
    /* undefined out of range: the engines' rule */
    h = mix(h, (uint64_t)(int)a);
    h = mix(h, (uint64_t)(long)a);
    h = mix(h, (uint64_t)(unsigned)a);
    h = mix(h, (uint64_t)(unsigned long)a);
    h = mix(h, (uint64_t)(short)c);
    h = mix(h, (uint64_t)(long)c);
    h = mix(h, (uint64_t)(unsigned long)c);
    h = mix(h, (uint64_t)(unsigned)c);
    h = mix(h, (uint64_t)lrint(c));
    h = mix(h, (uint64_t)llround(c));
  }
  return h;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "f32";
  long n = argc > 2 ? atol(argv[2]) : 3000;
  fill();
  int *idx = indexes(n);
  uint64_t h;
  if (!strcmp(mode, "f32"))
    h = f32(idx, n);
  else if (!strcmp(mode, "f64"))
    h = f64(idx, n);
  else if (!strcmp(mode, "intr"))
    h = intr(idx, n);
  else if (!strcmp(mode, "edge"))
    h = edge(idx, n);
  else
    return 2;
  printf("%s %016llx\n", mode, (unsigned long long)h);
  free(idx);
  return 0;
}
