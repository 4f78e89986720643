/* Loops whose addresses are affine, each a loop template
 * (analysis/engine/template.h) whose values the kernels compute natively
 * (frontend/jit_tpl.c). tests/e2e/kernel_tpl.sh runs each mode against
 * --exact-engine and the native executable.
 *
 *   kernel_tpl MODE [N]
 *
 * reduce   double and float reductions, a fused multiply-add, a compare
 *          and select, integer sums with a division by a constant
 * inplace  a[i] = f(a[i]) and a[i+1] from a[i]: each iteration's store
 *          read back by a later iteration's load
 * cross    8-byte loads and stores at addresses 4 bytes off alignment,
 *          some across pages
 * pages    a column walk over 48 MiB, one page per iteration: the
 *          translation cache misses
 * narrow   8- and 16-bit loads and stores, shifts, sign extension
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int reduce(long n) {
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  float *f = malloc(n * sizeof *f);
  int *k = malloc(n * sizeof *k);
  for (long i = 0; i < n; i++) {
    x[i] = (double)(i % 101) * 0.25 - 7.0;
    y[i] = 1.0 / (double)(i + 3);
    f[i] = (float)(i % 13) * 0.5f;
    k[i] = (int)(i * 2654435761u >> 7);
  }
  double s = 0.0, m = -1e300;
  float fs = 0.0f;
  long q = 0;
  for (int rep = 0; rep < 4; rep++) {
    for (long i = 0; i < n; i++)
      s = __builtin_fma(x[i], y[i], s);
    for (long i = 0; i < n; i++)
      m = x[i] * y[i] > m ? x[i] * y[i] : m;
    for (long i = 0; i < n; i++)
      fs += f[i] * 0.75f;
    for (long i = 0; i < n; i++)
      q += k[i] / 7 + k[i] % 5;
  }
  printf("reduce %.9g %.9g %.6g %ld\n", s, m, (double)fs, q);
  free(x);
  free(y);
  free(f);
  free(k);
  return (int)(q & 63);
}

static int inplace(long n) {
  double *a = malloc((n + 1) * sizeof *a);
  for (long i = 0; i <= n; i++)
    a[i] = (double)(i & 15);
  for (int rep = 0; rep < 5; rep++) {
    for (long i = 0; i < n; i++)
      a[i] = a[i] * 0.5 + 1.0;
    for (long i = 0; i < n; i++)
      a[i + 1] = a[i + 1] * 0.25 + a[i];
  }
  double s = 0.0;
  for (long i = 0; i <= n; i++)
    s += a[i];
  printf("inplace %.9g %.9g\n", s, a[n / 2]);
  free(a);
  return 0;
}

static int cross(long n) {
  /* a buffer of 32 pages, walked at 8-byte steps from 4 bytes in */
  size_t bytes = 32 * 4096;
  unsigned char *b = malloc(bytes + 64);
  for (size_t i = 0; i < bytes + 64; i++)
    b[i] = (unsigned char)(i * 37 + 11);
  unsigned long long h = 0;
  for (long rep = 0; rep < n / 4096 + 1; rep++) {
    unsigned char *p = b + 4 + (size_t)(rep & 3) * 8;
    for (size_t i = 0; i + 8 <= bytes; i += 8) {
      unsigned long long v;
      memcpy(&v, p + i, 8);
      v = v * 31 + (unsigned long long)rep;
      memcpy(p + i, &v, 8);
      h ^= v >> 3;
    }
  }
  printf("cross %llu\n", h);
  free(b);
  return (int)(h & 31);
}

static int pages(long n) {
  /* 48 MiB: more pages than the translation cache holds */
  size_t cols = 4096 / sizeof(double), rows = (48u << 20) / 4096;
  double *a = malloc(rows * cols * sizeof *a);
  for (size_t r = 0; r < rows; r++)
    for (size_t c = 0; c < cols; c += 64)
      a[r * cols + c] = (double)((r + c) % 9);
  double s = 0.0;
  for (long rep = 0; rep < n / 20000 + 1; rep++)
    for (size_t c = 0; c < cols; c += 64)
      for (size_t r = 0; r < rows; r++) {
        s += a[r * cols + c];
        a[r * cols + c] = s * 1e-3;
      }
  printf("pages %.9g\n", s);
  free(a);
  return 0;
}

static int narrow(long n) {
  short *w = malloc(n * sizeof *w);
  signed char *c = malloc(n);
  for (long i = 0; i < n; i++) {
    w[i] = (short)(i * 977);
    c[i] = (signed char)(i * 13);
  }
  long s = 0;
  for (int rep = 0; rep < 3; rep++) {
    for (long i = 0; i < n; i++)
      w[i] = (short)((w[i] >> 1) + c[i]);
    for (long i = 0; i < n; i++)
      s += (long)w[i] * c[i];
    for (long i = 0; i < n; i++)
      c[i] = (signed char)(c[i] ^ (w[i] << 2));
  }
  printf("narrow %ld\n", s);
  free(w);
  free(c);
  return (int)(s & 15);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "reduce";
  long n = argc > 2 ? atol(argv[2]) : 20000;
  if (!strcmp(mode, "reduce"))
    return reduce(n);
  if (!strcmp(mode, "inplace"))
    return inplace(n);
  if (!strcmp(mode, "cross"))
    return cross(n);
  if (!strcmp(mode, "pages"))
    return pages(n);
  if (!strcmp(mode, "narrow"))
    return narrow(n);
  return 2;
}
