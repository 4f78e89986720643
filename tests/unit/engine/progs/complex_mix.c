/* _Complex arithmetic: clang multiplies inline and calls __muldc3 or
 * __mulsc3 when both parts come out NaN, and divides through __divdc3 and
 * __divsc3, which the executable takes from libgcc and cbana from its
 * runtime (frontend/runtime/complex.c). Finite values, values that scale
 * (huge, tiny, subnormal), zeros, infinities and one NaN at a time; every
 * result printed bit for bit (%a). argv[1]: how many values to mix. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const double vals[] = {1.5,       -2.25,  0.0,     -0.0,     INFINITY,
                              -INFINITY, NAN,    DBL_MAX, -DBL_MAX, DBL_MIN,
                              4.9e-324,  1e-300, 1e300,   3.0,      -7.0 / 3,
                              0.1,       1e-310, -1e-320, 2.0,      1e154};
#define NV (sizeof vals / sizeof *vals)

/* Where two NaNs meet in one instruction (two NaN operands, or one and
 * the NaN of inf - inf or inf * 0), x86 keeps the first operand's, and
 * which operand is first is the compiler's choice (the executable's,
 * libgcc's, the host's that built cbana): such a NaN's sign is left out. */
static int nan_meets_nan(double a, double b, double c, double d) {
  int nans = !!isnan(a) + !!isnan(b) + !!isnan(c) + !!isnan(d);
  int infs = !!isinf(a) + !!isinf(b) + !!isinf(c) + !!isinf(d);
  return nans > 1 || (nans == 1 && infs > 0);
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : NV;
  if (n > NV)
    n = NV;
  double sum_re = 0, sum_im = 0;
  unsigned lines = 0;
  for (unsigned i = 0; i < n; i++)
    for (unsigned j = 0; j < n; j++)
      for (unsigned k = 0; k < 3; k++) {
        double a = vals[i], b = vals[(i + k + 1) % n];
        double c = vals[j], d = vals[(j * 7 + k) % n];
        if (nan_meets_nan(a, b, c, d))
          continue;
        /* not a + b * I, which would compute inf * 0 */
        double complex x = __builtin_complex(a, b), y = __builtin_complex(c, d);
        double complex p = x * y, q = x / y;
        float complex xf = __builtin_complex((float)a, (float)b);
        float complex yf = __builtin_complex((float)c, (float)d);
        float complex pf = xf * yf, qf = xf / yf;
        printf("%a %a | %a %a | %a %a | %a %a\n", creal(p), cimag(p), creal(q),
               cimag(q), crealf(pf), cimagf(pf), crealf(qf), cimagf(qf));
        if (isfinite(creal(q)) && isfinite(cimag(q))) {
          sum_re += creal(q);
          sum_im += cimag(q);
        }
        lines++;
      }
  printf("%u lines, %a %a\n", lines, sum_re, sum_im);
  return 0;
}
