/* Variadic functions the program defines (SysV x86-64 ABI 3.5.7): ints
 * and doubles mixed, more than six integer and eight floating-point
 * arguments (the rest on the stack), va_copy, a va_list handed to another
 * function, small structs (in a register pair) and a large one (on the
 * stack) passed through `...`. Prints the sums. argv[1]: a scale. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct pair {
  int a;
  double b;
};
struct big {
  long v[5];
};

static long sum_ints(int n, ...) {
  va_list ap;
  long s = 0;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    s += va_arg(ap, int);
  va_end(ap);
  return s;
}

/* a va_list handed on, walked by its copy */
static double walk(const char *fmt, va_list ap) {
  va_list aq;
  double t = 0;
  va_copy(aq, ap);
  for (const char *p = fmt; *p; p++) {
    if (*p == 'd')
      t += 2 * va_arg(aq, double);
    else if (*p == 'l')
      t += (double)va_arg(aq, long);
    else if (*p == 'p') {
      struct pair q = va_arg(aq, struct pair);
      t += q.a + q.b;
    } else if (*p == 'b') {
      struct big g = va_arg(aq, struct big);
      t += (double)(g.v[0] + g.v[4]);
    } else
      t += va_arg(aq, int);
  }
  va_end(aq);
  return t;
}

/* fmt: 'i' int, 'l' long, 'd' double, 'p' struct pair, 'b' struct big */
static double sum_mixed(const char *fmt, ...) {
  va_list ap;
  double s = 0;
  va_start(ap, fmt);
  double t = walk(fmt, ap);
  for (const char *p = fmt; *p; p++) {
    if (*p == 'i')
      s += va_arg(ap, int);
    else if (*p == 'l')
      s += (double)va_arg(ap, long);
    else if (*p == 'p') {
      struct pair q = va_arg(ap, struct pair);
      s += q.a * q.b;
    } else if (*p == 'b') {
      struct big g = va_arg(ap, struct big);
      s += (double)(g.v[1] + g.v[2] + g.v[3]);
    } else
      s += va_arg(ap, double);
  }
  va_end(ap);
  return s + t;
}

/* named arguments in both register kinds before the `...` */
static double named(int k, double x, ...) {
  va_list ap;
  va_start(ap, x);
  double s = k * x;
  for (int i = 0; i < k; i++)
    s += va_arg(ap, double) + va_arg(ap, int);
  va_end(ap);
  return s;
}

int main(int argc, char **argv) {
  int m = argc > 1 ? atoi(argv[1]) : 1;
  struct pair pr = {3 * m, 0.25};
  struct big bg = {{1, 2 * m, 3, 4, 5 * m}};
  printf("%ld\n", sum_ints(3, m, 2, 3));
  printf("%ld\n", sum_ints(9, 1, 2, 3, 4, 5, 6, 7, 8, 9 * m));
  printf("%.3f\n", sum_mixed("ididid", m, 1.5, 2, 2.5, 3, 3.5 * m));
  printf("%.3f\n", sum_mixed("ddddddddddii", 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0,
                             8.0, 9.0, 10.0 * m, 11, 12));
  printf("%.3f\n", sum_mixed("iiiiiiiildddd", 1, 2, 3, 4, 5, 6, 7, 8, 9L * m,
                             1.25, 2.25, 3.25, 4.25));
  printf("%.3f\n", sum_mixed("pbipd", pr, bg, 7, pr, 0.5 * m));
  printf("%.3f\n", named(3, 1.5, 1.0, 1, 2.0, 2, 3.0 * m, 3));
  return 0;
}
