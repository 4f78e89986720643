/* Calls a native kernel makes itself (frontend/jit_call.c): the frame
 * pushed and popped in the kernel, the callee's kernel called directly.
 * Each mode is run by tests/e2e/kernel_calls.sh with the kernels and by
 * the reference interpreter (--exact-engine), reports compared byte for
 * byte, and against the native executable's output.
 * Usage: kernel_calls MODE N
 *   fib     recursion (N deep), values through the return
 *   mutual  mutual recursion with stack arrays, N deep
 *   args    calls with stack-passed arguments, doubles, small and large
 *           struct returns, a struct passed by value (the engine's), N times
 *   mixed   direct, indirect and library calls interleaved in recursion
 *   deep    recursion N deep with a small frame (past the native stack's
 *           room for nested kernels, and the slot stack's growth)
 *   tree    a call tree of 2^N leaves whose leaves touch fresh pages
 *   tail    tail calls (the machine code's jumps: the caller's epilogue,
 *           then the callee in the caller's place), N times, into a
 *           leaf and along a mutual recursion */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fib(int n) {
  return n < 2 ? 1 : fib(n - 1) + fib(n - 2);
}

static int odd_sum(int n, int *acc);
static int even_sum(int n, int *acc) {
  int a[4];
  for (int i = 0; i < 4; i++)
    a[i] = n * i + acc[i & 1];
  if (n == 0)
    return a[3];
  acc[n & 1] += a[2];
  return a[1] + odd_sum(n - 1, acc);
}
static int odd_sum(int n, int *acc) {
  int b[3];
  for (int i = 0; i < 3; i++)
    b[i] = acc[i & 1] ^ (n + i);
  if (n == 0)
    return b[2];
  return b[0] - even_sum(n - 1, acc) / 2;
}

struct pair {
  int a, b;
};
struct big {
  long v[6];
};

__attribute__((noinline)) static long many(long a, long b, long c, long d,
                                           long e, long f, long g, long h,
                                           double x, double y, int i, int j) {
  return a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h +
         (long)(x * 10.0) - (long)(y * 3.0) + i * j;
}
__attribute__((noinline)) static double mix(double x, float y, int k,
                                            double z) {
  return x * y + k - z / 4.0;
}
__attribute__((noinline)) static struct pair mkpair(int x, int y) {
  struct pair p = {x + y, x - y};
  return p;
}
__attribute__((noinline)) static struct big mkbig(long s) {
  struct big r;
  for (int i = 0; i < 6; i++)
    r.v[i] = s * (i + 1) + i;
  return r;
}
__attribute__((noinline)) static long usebig(struct big b) {
  return b.v[0] - b.v[5] + b.v[2];
}

/* a callee of many slots (zeroed on each call by a loop, not memset) */
__attribute__((noinline)) static long wide(long x, const long *t) {
  long a0 = x * 3 + t[0], a1 = a0 ^ t[1], a2 = a1 * 5 + t[2], a3 = a2 - t[3];
  long a4 = a3 * a0 + t[4], a5 = a4 ^ (a1 >> 3), a6 = a5 + a2 * t[5];
  long a7 = a6 - (a3 << 2), a8 = a7 * t[6] + a4, a9 = a8 ^ (a5 >> 1);
  long b0 = a9 + t[7] * a6, b1 = b0 - a7 * 9, b2 = b1 ^ a8, b3 = b2 + a9 * t[0];
  long b4 = b3 * 7 - a0, b5 = b4 ^ (b0 >> 2), b6 = b5 + b1 * 11;
  long b7 = b6 - b2 * t[3], b8 = b7 ^ b3, b9 = b8 + b4 * b5;
  return b9 + b6 * a1 - b7 + a2;
}

static long args_mode(int n) {
  static const long t[8] = {3, 141, 59, 26, 53, 58, 97, 93};
  long s = 0;
  double d = 0;
  for (int i = 0; i < n; i++) {
    s += many(i, i + 1, i + 2, i + 3, i + 4, i + 5, i + 6, i + 7, i * 0.5,
              i * 0.25, i & 7, i >> 3);
    d += mix(i * 0.125, (float)i, i & 15, d);
    struct pair p = mkpair(i, (int)s & 255);
    s ^= p.a * 3 + p.b;
    struct big b = mkbig(s & 1023);
    s += usebig(b) + b.v[4];
    s += wide(s & 0xffff, t) & 0xfff;
  }
  return s + (long)d;
}

static long leafy(long x) {
  return x * 7 + 3;
}
static long (*volatile leafp)(long) = leafy;
static long mixed(int n, char *buf) {
  if (n == 0)
    return 1;
  long r = leafy(n) + leafp(n);
  buf[n % 64] = (char)('a' + n % 26);
  r += (long)strlen(buf) + mixed(n - 1, buf);
  return r;
}

static long deep(long n) {
  return n == 0 ? 0 : 1 + deep(n - 1) + (n & 1);
}

static char *pages;
static long leaves(int depth, long at) {
  if (depth == 0) {
    pages[at * 4096] += (char)at;
    return pages[at * 4096];
  }
  return leaves(depth - 1, 2 * at) + leaves(depth - 1, 2 * at + 1);
}

static long table[1024];
__attribute__((noinline)) static long put(long k, long v, long w, long x) {
  long h = (k * 2654435761u) & 1023;
  table[h] += v ^ w ^ x;
  return table[h];
}
/* callee-saved registers kept across the computation, popped before the
 * jump */
__attribute__((noinline)) static long store(long k, long v) {
  long a = k * 3, b = v * 5, c = k ^ v;
  if (k & 1)
    return put(a, b, c, k);
  return put(b, a, c, v) + 1;
}
__attribute__((noinline)) static long t_even(long n);
__attribute__((noinline)) static long t_odd(long n) {
  return n == 0 ? 0 : t_even(n - 1) + 1;
}
__attribute__((noinline)) static long t_even(long n) {
  return n == 0 ? 1 : t_odd(n - 1);
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  int n = atoi(argv[2]);
  const char *m = argv[1];
  if (!strcmp(m, "fib")) {
    printf("%ld\n", fib(n));
  } else if (!strcmp(m, "mutual")) {
    int acc[2] = {1, 2};
    int r = even_sum(n, acc);
    printf("%d %d %d\n", r, acc[0], acc[1]);
  } else if (!strcmp(m, "args")) {
    printf("%ld\n", args_mode(n));
  } else if (!strcmp(m, "mixed")) {
    char buf[65];
    memset(buf, 'x', 64);
    buf[64] = 0;
    long s = 0;
    for (int i = 0; i < 20; i++)
      s += mixed(n, buf);
    printf("%ld\n", s);
  } else if (!strcmp(m, "deep")) {
    printf("%ld\n", deep(n));
  } else if (!strcmp(m, "tail")) {
    long s = 0;
    for (long i = 0; i < n; i++)
      s += store(i, s) + t_odd(i & 63);
    printf("%ld\n", s);
  } else if (!strcmp(m, "tree")) {
    pages = calloc((size_t)1 << n, 4096);
    if (!pages)
      return 1;
    printf("%ld\n", leaves(n, 0));
  } else {
    return 2;
  }
  return 0;
}
