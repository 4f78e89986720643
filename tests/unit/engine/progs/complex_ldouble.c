/* _Complex long double: clang calls __mulxc3 when both parts of the
 * inline product come out NaN, and divides through __divxc3, which the
 * executable takes from libgcc and cbana from its runtime
 * (frontend/runtime/complex.c). Special values (zeros, infinities, one
 * NaN at a time, the largest and smallest, subnormals) printed bit for
 * bit (%La), then argv[2] random operands of any exponent, whose results'
 * bits are summed. argv[1]: how many special values to mix. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const long double vals[] = {
    1.5L,      -2.25L,    0.0L,     -0.0L,       INFINITY, -INFINITY, NAN,
    LDBL_MAX,  -LDBL_MAX, LDBL_MIN, 0x1p-16445L, 1e-4900L, 1e4900L,   3.0L,
    -7.0L / 3, 0.1L,      1e-4940L, -1e-4943L,   2.0L,     1e2466L};
#define NV (sizeof vals / sizeof *vals)

/* as complex_mix.c: where two NaNs meet, the result's sign is the
 * compiler's choice of operand order */
static int nan_meets_nan(long double a, long double b, long double c,
                         long double d) {
  int nans = !!isnan(a) + !!isnan(b) + !!isnan(c) + !!isnan(d);
  int infs = !!isinf(a) + !!isinf(b) + !!isinf(c) + !!isinf(d);
  return nans > 1 || (nans == 1 && infs > 0);
}

static uint64_t state = 0x9e3779b97f4a7c15ull;

static uint64_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

/* a finite nonzero operand: a random 64-bit mantissa, an exponent over
 * the whole range one time in four, else within 2^+-100 */
static long double operand(void) {
  uint64_t m = next() | (1ull << 63);
  int e =
      (next() & 3) ? (int)(next() % 200) - 100 : (int)(next() % 32700) - 16350;
  long double x = ldexpl((long double)m, e - 63);
  return (next() & 1) ? -x : x;
}

static uint64_t bits(long double x) {
  uint64_t m;
  uint16_t se;
  memcpy(&m, &x, 8);
  memcpy(&se, (char *)&x + 8, 2);
  if (isnan(x))
    return 0x7fff; /* a NaN's sign and payload are left out */
  return m ^ ((uint64_t)se << 48) ^ (m >> 17);
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : NV;
  unsigned nr = argc > 2 ? (unsigned)atoi(argv[2]) : 1000;
  if (n > NV)
    n = NV;
  unsigned lines = 0;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++) {
      long double a = vals[i], b = vals[(i + 3) % n];
      long double c = vals[j], d = vals[(j * 7 + 1) % n];
      if (nan_meets_nan(a, b, c, d))
        continue;
      long double complex x = __builtin_complex(a, b);
      long double complex y = __builtin_complex(c, d);
      long double complex p = x * y, q = x / y;
      printf("%La %La | %La %La\n", creall(p), cimagl(p), creall(q), cimagl(q));
      lines++;
    }
  uint64_t h = 0;
  for (unsigned i = 0; i < nr; i++) {
    long double complex x = __builtin_complex(operand(), operand());
    long double complex y = __builtin_complex(operand(), operand());
    long double complex p = x * y, q = x / y;
    h = h * 31 + (bits(creall(p)) ^ bits(cimagl(p)) * 3);
    h = h * 31 + (bits(creall(q)) ^ bits(cimagl(q)) * 5);
    if (i % (nr / 4 + 1) == 0)
      printf("%La %La / %La %La = %La %La\n", creall(x), cimagl(x), creall(y),
             cimagl(y), creall(q), cimagl(q));
  }
  printf("%u lines, %u random, hash %016llx\n", lines, nr,
         (unsigned long long)h);
  return 0;
}
