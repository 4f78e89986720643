/* Calls through pointers a native kernel makes itself (frontend/jit_call.c:
 * the callee found by its address, its frame pushed by its entry, its
 * kernel called directly), and those it leaves to the engine. Each mode
 * is run by tests/e2e/kernel_icalls.sh with the kernels and by the
 * reference interpreter (--exact-engine), reports compared byte for
 * byte, and against the native executable's output.
 * Usage: kernel_icalls MODE N
 *   methods  objects with methods in their structs (Shootout's methcall):
 *            two targets at one call site, alternating, N calls
 *   table    a table of operations of one to six arguments, integer and
 *            double, picked by a pseudo-random walk, N calls
 *   rec      recursion through pointers (fib, N deep), and a mutual
 *            recursion whose pointers change on the way
 *   qsort    qsort's comparator (the C library calls the program) and a
 *            comparator called through a pointer by the program's own
 *            sort, N elements
 *   engine   calls through pointers the engine keeps (a struct by value,
 *            a tail call, a variadic callee) mixed with ones the kernels
 *            make (seven arguments, one passed on the stack), N times */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct toggle {
  char state;
  char (*value)(struct toggle *);
  struct toggle *(*activate)(struct toggle *);
} toggle;

typedef struct nth_toggle {
  toggle base;
  int count, max;
} nth_toggle;

static char toggle_value(toggle *t) {
  return t->state;
}
static toggle *toggle_activate(toggle *t) {
  t->state = !t->state;
  return t;
}
static toggle *nth_activate(toggle *t) {
  nth_toggle *n = (nth_toggle *)t;
  if (++n->count >= n->max) {
    t->state = !t->state;
    n->count = 0;
  }
  return t;
}

static long methods(int n) {
  toggle *a = malloc(sizeof *a);
  nth_toggle *b = malloc(sizeof *b);
  if (!a || !b)
    return -1;
  a->state = 1;
  a->value = toggle_value;
  a->activate = toggle_activate;
  b->base.state = 1;
  b->base.value = toggle_value;
  b->base.activate = nth_activate;
  b->count = 0;
  b->max = 3;
  toggle *objs[2] = {a, &b->base};
  long s = 0;
  for (int i = 0; i < n; i++) {
    toggle *t = objs[i & 1];
    s += t->activate(t)->value(t) * (i & 7);
  }
  free(a);
  free(b);
  return s;
}

static long op1(long a) {
  return a * 3 + 1;
}
static long op2(long a, long b) {
  return a ^ (b << 3);
}
static long op3(long a, long b, long c) {
  return a + b * c;
}
static long op6(long a, long b, long c, long d, long e, long f) {
  return a - b + c - d + e - f;
}
static double opd(double x, long k) {
  return x * 0.5 + (double)k;
}
static unsigned char op8(unsigned char a, short b) {
  return (unsigned char)(a + b);
}

typedef long (*any_fn)(void);
static volatile any_fn table[6] = {(any_fn)op1, (any_fn)op2, (any_fn)op3,
                                   (any_fn)op6, (any_fn)opd, (any_fn)op8};

static long table_mode(int n) {
  unsigned x = 12345;
  long s = 0;
  double d = 1;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    long v = (long)(x >> 8);
    switch ((x >> 16) % 6) {
    case 0:
      s += ((long (*)(long))table[0])(v);
      break;
    case 1:
      s += ((long (*)(long, long))table[1])(v, s);
      break;
    case 2:
      s += ((long (*)(long, long, long))table[2])(v, s, i);
      break;
    case 3:
      s += ((long (*)(long, long, long, long, long, long))table[3])(v, s, i, 7,
                                                                    v >> 3, -i);
      break;
    case 4:
      d = ((double (*)(double, long))table[4])(d, i & 15);
      break;
    default:
      s += ((unsigned char (*)(unsigned char, short))table[5])((unsigned char)v,
                                                               (short)s);
    }
  }
  return s + (long)d;
}

static long fibp(int n);
static long (*volatile fib_ptr)(int) = fibp;
static long fibp(int n) {
  return n < 2 ? 1 : fib_ptr(n - 1) + fib_ptr(n - 2);
}

static int ping(int n, int *acc);
static int pong(int n, int *acc);
static int (*volatile next_of[2])(int, int *) = {ping, pong};
static int ping(int n, int *acc) {
  int a[3] = {n, acc[0], acc[1]};
  if (n == 0)
    return a[1];
  acc[n & 1] += a[0] + a[2];
  return next_of[n % 3 == 0](n - 1, acc) + 1;
}
static int pong(int n, int *acc) {
  if (n == 0)
    return acc[1];
  acc[0] ^= n;
  return next_of[n % 5 != 0](n - 1, acc) + 2;
}

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}
static int cmp_rev(const void *a, const void *b) {
  return cmp_int(b, a);
}
/* insertion sort by a comparator, the program's own */
static void isort(int *v, int n, int (*cmp)(const void *, const void *)) {
  for (int i = 1; i < n; i++) {
    int k = v[i], j = i - 1;
    while (j >= 0 && cmp(&v[j], &k) > 0) {
      v[j + 1] = v[j];
      j--;
    }
    v[j + 1] = k;
  }
}

static long qsort_mode(int n) {
  int *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return -1;
  unsigned x = 7;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    v[i] = (int)(x >> 12) % 1000;
  }
  qsort(v, (size_t)n, sizeof *v, cmp_int);
  long s = v[0] + 3L * v[n / 2] + 7L * v[n - 1];
  int m = n < 600 ? n : 600;
  isort(v, m, cmp_rev);
  isort(v + m / 2, m / 2, cmp_int);
  for (int i = 0; i < m; i++)
    s = s * 31 + v[i];
  free(v);
  return s;
}

typedef struct big {
  long w[5];
} big;
static long by_value(big b, long k) {
  return b.w[0] + b.w[4] * k;
}
static long seven(long a, long b, long c, long d, long e, long f, long g) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g;
}
static long sum_va(int n, ...) {
  va_list ap;
  va_start(ap, n);
  long s = 0;
  for (int i = 0; i < n; i++)
    s += va_arg(ap, long);
  va_end(ap);
  return s;
}
static long (*volatile by_value_p)(big, long) = by_value;
static long (*volatile seven_p)(long, long, long, long, long, long,
                                long) = seven;
static long (*volatile sum_va_p)(int, ...) = sum_va;
static long (*volatile op1_p)(long) = op1;
static long tail_through(long k) {
  return op1_p(k + 1); /* a jump at -O2 */
}

static long engine_mode(int n) {
  big b = {{1, 2, 3, 4, 5}};
  long s = 0;
  for (int i = 0; i < n; i++) {
    b.w[i % 5] += i;
    s += by_value_p(b, i);
    s += seven_p(i, s, 3, 4, 5, 6, i * 2);
    s += sum_va_p(3, (long)i, s, 9L);
    s += tail_through(s & 1023);
    s += op1_p(i);
  }
  return s;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  int n = atoi(argv[2]);
  const char *m = argv[1];
  if (!strcmp(m, "methods")) {
    printf("%ld\n", methods(n));
  } else if (!strcmp(m, "table")) {
    printf("%ld\n", table_mode(n));
  } else if (!strcmp(m, "rec")) {
    int acc[2] = {1, 2};
    int r = ping(n * 20, acc);
    printf("%ld %d %d %d\n", fibp(n), r, acc[0], acc[1]);
  } else if (!strcmp(m, "qsort")) {
    printf("%ld\n", qsort_mode(n));
  } else if (!strcmp(m, "engine")) {
    printf("%ld\n", engine_mode(n));
  } else {
    return 2;
  }
  return 0;
}
