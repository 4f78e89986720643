/* cabs and cexp of double complex values (RSBench's Faddeeva kernel
 * calls both): hypot's value for cabs, glibc's cexp, bit for bit, over a
 * grid of arguments with zeros, infinities, NaNs and huge parts; the
 * sums over 8 KiB of values walked between the calls (their lines stay
 * in L1: the functions' own traffic is not modelled). argv[1]: grid
 * size. */
#include <complex.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double re[512], im[512];

/* CMPLX without C11's macro (glibc's <complex.h> defines it for GCC) */
static double complex mk(double re, double im) {
  double complex z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

static unsigned long long bits(double d) {
  unsigned long long u;
  memcpy(&u, &d, 8);
  return u;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 50;
  unsigned long long hash = 0;
  double complex acc = 0;
  for (int i = 0; i < 512; i++) {
    re[i] = i * 0.04 - 10.0;
    im[i] = (i % 37) * 0.3 - 5.0;
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < n; k++) {
      int j = (i * 41 + k * 7) & 511;
      double complex z = mk(re[j], im[j]) * (1.0 + i * 0.1);
      double r = cabs(z);
      double complex w = cexp(z);
      acc += w * 1e-3;
      hash = hash * 1000003u ^ bits(r) ^ (bits(creal(w)) >> 1) ^
             (bits(cimag(w)) << 1);
    }
  const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e308, 710.0};
  for (int i = 0; i < 7; i++)
    for (int k = 0; k < 7; k++) {
      double complex z = mk(special[i], special[k]);
      double complex w = cexp(z);
      printf("%g%+gi: |z| %g, cexp %g%+gi\n", creal(z), cimag(z), cabs(z),
             creal(w), cimag(w));
    }
  printf("hash %016llx, acc %.17g%+.17gi\n", hash, creal(acc), cimag(acc));
  return 0;
}
