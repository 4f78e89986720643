/* Where each function's locals sit: frames of different sizes, calls
 * whose stack arguments the backend pushes (X86CallFrameOptimization),
 * variadic calls with stack arguments, alloca and a VLA. Each function
 * prints the address of a local and walks an array on its stack, so the
 * printed addresses must equal the native run's and the walk's misses
 * cachegrind's. */
#include <alloca.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long walk(volatile long *a, int n) {
  long s = 0;
  for (int r = 0; r < 4; r++)
    for (int i = 0; i < n; i++)
      s += a[i] += i;
  return s;
}

__attribute__((noinline)) static long small(void) {
  volatile long x[3];
  x[0] = 1, x[1] = 2, x[2] = 3;
  printf("small %p\n", (void *)x);
  return walk(x, 3);
}

__attribute__((noinline)) static long big(int n) {
  volatile long b[100];
  memset((void *)b, n, sizeof b);
  printf("big %p\n", (void *)b);
  return walk(b, 100) + small();
}

__attribute__((noinline)) static long dyn(int n) {
  volatile long *p = alloca((size_t)n * sizeof *p);
  volatile int y = 2;
  for (int i = 0; i < n; i++)
    p[i] = i;
  printf("dyn %p %p\n", (void *)p, (void *)&y);
  return walk(p, n) + y + small();
}

__attribute__((noinline)) static long vla(int n) {
  volatile long v[n];
  for (int i = 0; i < n; i++)
    v[i] = i;
  printf("vla %p\n", (void *)v);
  return walk(v, n) + small();
}

__attribute__((noinline)) static long stk(long a, long b, long c, long d,
                                          long e, long f, long g, long h) {
  volatile long z[4] = {a, b, g, h};
  printf("stk %p\n", (void *)z);
  return walk(z, 4) + c + d + e + f + small();
}

__attribute__((noinline)) static long var(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, long);
  va_end(ap);
  volatile long q[2] = {s, n};
  printf("var %p\n", (void *)q);
  return walk(q, 2) + small();
}

__attribute__((noinline)) static long odd(int k) {
  volatile char c[24];
  c[0] = (char)k;
  printf("odd %p\n", (void *)c);
  long s = c[0] + small() + stk(1, 2, 3, 4, 5, 6, 7, k);
  s += var(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, (long)k);
  return s;
}

int main(int argc, char **argv) {
  volatile int m = 0;
  int k = argc > 1 ? atoi(argv[1]) : 1;
  printf("main %p argv %p\n", (void *)&m, (void *)argv);
  long s = small() + big(k) + dyn(17 + k) + dyn(40) + vla(9 + k);
  s += stk(1, 2, 3, 4, 5, 6, 7, k) + var(3, 1L, 2L, (long)k);
  s += var(9, 1L, 2L, 3L, 4L, 5L, 6L, 7L, 8L, (long)k);
  s += odd(k);
  printf("%ld\n", s + m);
  return 0;
}
