/* Values a loop computes that only printf, memcpy, a read through
 * another type, a call's return or the exit status take, one case per
 * first argument (the second: how many elements). The fast engine's loop
 * templates compute them as the interpreter does: fast_identity_progs
 * runs every case fast and exact and compares the reports, and
 * tests/e2e/no_native_run.sh compares the printed numbers and the exit
 * status with the program's own executable.
 *
 *   print    sums of arrays two loops filled, printed
 *   fields   the same through widths, precision, justification, %c, %d
 *   copy     an array moved by memcpy, then summed and printed
 *   pun      doubles read back as integers that pick addresses
 *   sqrt     a sum through sqrt into a loop (clang computes sqrt inline
 *            and calls libm only for a negative argument)
 *   sqrtneg  the same with a negative argument: the call binds libm's
 *            sqrt (lazy binding, traffic the model replays at that call)
 *   reuse    a heap block filled with doubles, freed; the same block
 *            again, filled with integers that pick the elements read
 *   status   a sum that only main's return value (the exit status) takes,
 *            returned by a function of its own
 *   fill     loops that store the same value every iteration (a constant,
 *            a value from before the loop), which later picks the
 *            branches and elements read
 *   iota     a loop stores its induction variable, read back to pick
 *            the branches
 *   branch   floats computed in one loop, compared in the next */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 4096

static double a[N], b[N];
static float f[N];
static int tag[N], pick[N];
static long seq[N];

static void fill(int n) {
  for (int i = 0; i < n; i++)
    a[i] = i * 0.25 + 1.0 / (i + 1);
  for (int i = 0; i < n; i++)
    b[i] = a[i] * 3.0 + 1.5;
}

static double total(const double *x, int n) {
  double s = 0;
  for (int i = 0; i < n; i++)
    s += x[i];
  return s;
}

/* total, kept out of line: its return value travels through a call */
__attribute__((noinline)) static double total_call(const double *x, int n) {
  return total(x, n);
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "print";
  int n = argc > 2 ? atoi(argv[2]) : N;
  if (n < 1 || n > N)
    return 2;
  fill(n);
  if (!strcmp(mode, "print")) {
    printf("%.17g %.17g\n", total(a, n), total(b, n));
  } else if (!strcmp(mode, "fields")) {
    double s = total(b, n);
    printf("[%-14.3f|%8d|%+.2e|%c|%x]\n", s, (int)s & 1023, s / 7,
           'a' + ((int)s & 15), (unsigned)s);
    printf("%g%%\n", s / n);
  } else if (!strcmp(mode, "copy")) {
    double *c = malloc(sizeof(double) * (size_t)n);
    if (!c)
      return 1;
    memcpy(c, b, sizeof(double) * (size_t)n);
    printf("%.6f\n", total(c, n));
    free(c);
  } else if (!strcmp(mode, "pun")) {
    /* the bits of a double choose the element read */
    const uint64_t *bits = (const uint64_t *)(const void *)b;
    double s = 0;
    for (int i = 0; i < n; i++)
      s += a[bits[i] % (uint64_t)n];
    printf("%.6f\n", s);
  } else if (!strcmp(mode, "sqrt") || !strcmp(mode, "sqrtneg")) {
    double s = total(b, n);
    double r = sqrt(!strcmp(mode, "sqrt") ? s : -s);
    for (int i = 0; i < n; i++)
      a[i] = a[i] / r + b[i];
    printf("%.6f\n", total(a, n));
  } else if (!strcmp(mode, "reuse")) {
    double *c = malloc(sizeof(double) * (size_t)n);
    if (!c)
      return 1;
    for (int i = 0; i < n; i++)
      c[i] = a[i] * 2.0 + 0.5;
    printf("%.6f\n", total(c, n));
    free(c);
    /* glibc gives the freed chunk back for the same size */
    uint64_t *w = malloc(sizeof(uint64_t) * (size_t)n);
    if (!w)
      return 1;
    for (int i = 0; i < n; i++)
      w[i] = (uint64_t)i * 7 % (uint64_t)n;
    double s = 0;
    for (int i = 0; i < n; i++)
      s += a[w[i]];
    printf("%.6f\n", s);
    free(w);
  } else if (!strcmp(mode, "status")) {
    return 3 + (int)total_call(b, n) % 5;
  } else if (!strcmp(mode, "fill")) {
    int v = n >> 1, c = 0;
    for (int i = 0; i < n; i++)
      tag[i] = 101;
    for (int i = 0; i < n; i++)
      pick[i] = v;
    for (int i = 0; i < n; i++)
      if (tag[i] > 100 && pick[i] == v)
        b[i] = c++;
    printf("%d\n", c);
  } else if (!strcmp(mode, "iota")) {
    int c = 0;
#pragma clang loop vectorize(disable) unroll(disable)
    for (long i = 0; i < n; i++)
      seq[i] = i;
    for (int i = 0; i < n; i++)
      if (seq[n - 1 - i] == n - 1 - i)
        b[i] = c++;
    printf("%d\n", c);
  } else if (!strcmp(mode, "branch")) {
    int count = 0;
    for (int i = 0; i < n; i++)
      f[i] = (float)i * 0.75f;
    for (int i = 0; i < n; i++)
      if (f[i] > 100.0f)
        count += i & 3;
    printf("%d\n", count);
  } else {
    return 2;
  }
  return 0;
}
