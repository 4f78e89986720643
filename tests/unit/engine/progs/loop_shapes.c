/* Single-block loops of many shapes, for the fast engine's loop templates
 * (analysis/engine/template.h): counting up and down, pointer induction
 * variables, exit tests of every predicate, trip counts from the input
 * (0, 1, 2, large), narrow induction variables that are sign- or
 * zero-extended (and wrap), 2-D nests, loops clang vectorizes, FP
 * reductions, stores that feed later loads of the same loop, an access
 * out of bounds on the last iteration, and a loop the budget ends.
 * Usage: loop_shapes N [MODE]; MODE 1: overrun a heap block at the end,
 * MODE 2: N * 1000 passes over an array (the budget ends them). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define M 4096
static double a[M], b[M], c[M];
static float f[M], g[M];
static int32_t x[M];
static uint8_t h[256];
static int16_t s16[M];
static double grid[64][64];

__attribute__((noinline)) static double up(long n) {
  double s = 0;
  for (long i = 0; i < n; i++)
    s += a[i] * b[i];
  return s;
}

__attribute__((noinline)) static void down(long n) {
  for (long i = n - 1; i >= 0; i--)
    c[i] = a[i] * 2.0 + 1.0;
}

__attribute__((noinline)) static void ptr_iv(double *p, double *e) {
  for (; p != e; p++)
    *p += 0.5;
}

__attribute__((noinline)) static void ule_loop(unsigned lo, unsigned hi) {
  for (unsigned i = lo; i <= hi; i++)
    x[i] += (int32_t)i;
}

__attribute__((noinline)) static void sgt_loop(int n) {
  for (int i = n; i > 0; i -= 3)
    s16[i] = (int16_t)(s16[i] + i);
}

__attribute__((noinline)) static void step_loop(int lo, int n, int st) {
  for (int i = lo; i < n; i += st)
    x[i] = x[i] * 3 + 1;
}

__attribute__((noinline)) static void wrap8(uint8_t from, uint8_t to) {
  for (uint8_t k = from; k != to; k++)
    h[k]++;
}

__attribute__((noinline)) static void wrap8s(int8_t from, int8_t to) {
  for (int8_t k = from; k != to; k++)
    x[k + 128] += 2;
}

__attribute__((noinline)) static void alias_loop(long n) {
  for (long i = 0; i + 1 < n; i++)
    a[i + 1] = a[i] * 1.0001;
}

__attribute__((noinline)) static float vec_float(long n) {
  float s = 0;
  for (long i = 0; i < n; i++) {
    g[i] = f[i] * 2.5f + g[i];
    s += g[i];
  }
  return s;
}

__attribute__((noinline)) static double nest(int n) {
  double s = 0;
  for (int i = 1; i < n; i++)
    for (int j = 1; j < n; j++)
      grid[i][j] = (grid[i - 1][j] + grid[i][j - 1]) * 0.5;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      s += grid[j][i];
  return s;
}

__attribute__((noinline)) static long int_sum(long n) {
  long s = 0;
  for (long i = 0; i < n; i++)
    s += x[i] ^ (x[i] >> 3);
  return s;
}

/* 16-byte vector accesses 8 bytes off their alignment, and 4-byte loads
 * 2 bytes off theirs: some cross a page. */
__attribute__((noinline)) static double misaligned(double *p, long n) {
  for (long i = 0; i < n; i++)
    p[i] = p[i] * 0.5 + 1.0;
  return p[n / 2];
}

__attribute__((noinline)) static long unaligned32(const char *q, long n) {
  long s = 0;
  for (long i = 0; i < n; i++) {
    int32_t v;
    memcpy(&v, q + 4 * i + 2, 4);
    s += v;
  }
  return s;
}

__attribute__((noinline)) static void overrun(double *p, long n) {
  for (long i = 0; i < n; i++)
    p[i] = (double)i;
}

__attribute__((noinline)) static double spin(long n) {
  for (long r = 0; r < n; r++)
    for (long i = 0; i < M; i++)
      c[i] += a[i];
  return c[7];
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 100;
  int mode = argc > 2 ? atoi(argv[2]) : 0;
  if (n < 0 || n > M - 8)
    n = M - 8;
  for (long i = 0; i < M; i++) {
    a[i] = (double)(i % 17) * 0.25;
    b[i] = (double)(i % 5) + 1.0;
    f[i] = (float)(i % 11);
    x[i] = (int32_t)(i * 7 % 1000) - 500;
    s16[i] = (int16_t)i;
  }
  for (int i = 0; i < 64; i++)
    for (int j = 0; j < 64; j++)
      grid[i][j] = i == 0 || j == 0 ? 1.0 : 0.0;
  if (mode == 1) {
    /* a block of its own pages: the last iteration leaves it */
    double *p = malloc(200000 * sizeof *p);
    overrun(p, 200000 + 1000 + n);
    printf("%f\n", p[3]);
    return 0;
  }
  if (mode == 2) {
    printf("%f\n", spin(n * 1000));
    return 0;
  }
  double r = up(n);
  down(n);
  ptr_iv(b, b + n);
  ule_loop((unsigned)(n / 3), (unsigned)n);
  sgt_loop((int)n);
  step_loop(1, (int)n, (int)(n % 7) + 1);
  wrap8((uint8_t)(n * 37), (uint8_t)(n * 11));
  wrap8s((int8_t)(n * 5), (int8_t)(n * 3));
  alias_loop(n);
  float fs = vec_float(n);
  int nn = (int)(n % 64);
  double gs = nest(nn);
  long is = int_sum(n);
  double ms = misaligned(c + 1, n);
  long us = unaligned32((const char *)x, n);
  double cs = 0;
  for (long i = 0; i < M; i++)
    cs += a[i] + b[i] + c[i] + x[i] + s16[i] + g[i];
  unsigned hs = 0;
  for (int i = 0; i < 256; i++)
    hs = hs * 31 + h[i];
  printf("%f %f %f %ld %f %u %f %ld\n", r, (double)fs, gs, is, cs, hs, ms, us);
  return 0;
}
