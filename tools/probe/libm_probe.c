/* libm_probe.c: calls one libm function on the arguments read from stdin
 * (lines "XBITS YBITS", the doubles' bits in hex), for a lackey trace of
 * each call (tools/probe/libm_tables.py, tests/unit/engine's
 * engine_libm_traffic). A store to `mark` comes before and after each
 * call; stderr names libm's load address, the thread pointer and mark's
 * address. The arguments are read and parsed before the first call, by
 * hand: scanf's between the calls made most of the trace lackey writes.
 * usage: libm_probe FN ARITY < ARGS */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long mark;
/* the results' sum: nothing live in a register across the call, so that
 * the first store after the mark is the call's */
volatile double sum;

typedef double (*fn1)(double);
typedef double (*fn2)(double, double);

static int hexdigit(char c) {
  return c >= '0' && c <= '9'   ? c - '0'
         : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : -1;
}

/* the next hex number from *p on; 0 at the end of the text */
static int hex(const char **p, const char *end, uint64_t *v) {
  const char *s = *p;
  while (s < end && hexdigit(*s) < 0)
    s++;
  if (s == end)
    return 0;
  uint64_t x = 0;
  for (int d; s < end && (d = hexdigit(*s)) >= 0; s++)
    x = x << 4 | (uint64_t)d;
  *p = s;
  *v = x;
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 3)
    return 2;
  void *h = dlopen("libm.so.6", RTLD_NOW);
  void *f = h ? dlsym(h, argv[1]) : NULL;
  Dl_info di;
  if (!f || !dladdr(f, &di))
    return 2;
  void *tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  fprintf(stderr, "base %p tp %p mark %p\n", di.dli_fbase, tp, (void *)&mark);
  int two = atoi(argv[2]) == 2;
  size_t n = 0, cap = 1 << 16;
  char *text = malloc(cap);
  for (size_t k; text && (k = fread(text + n, 1, cap - n, stdin)) > 0;)
    if ((n += k) == cap)
      text = realloc(text, cap *= 2);
  size_t m = 0, mcap = 1024;
  uint64_t(*args)[2] = malloc(mcap * sizeof *args);
  if (!text || !args)
    return 2;
  const char *p = text, *end = text + n;
  uint64_t a, b;
  while (hex(&p, end, &a) && hex(&p, end, &b)) {
    if (m == mcap && !(args = realloc(args, (mcap *= 2) * sizeof *args)))
      return 2;
    args[m][0] = a, args[m][1] = b, m++;
  }
  for (size_t i = 0; i < m; i++) {
    double x, y;
    memcpy(&x, &args[i][0], 8);
    memcpy(&y, &args[i][1], 8);
    mark = 1;
    double r = two ? ((fn2)f)(x, y) : ((fn1)f)(x);
    mark = 2;
    sum += r;
  }
  printf("%g\n", sum);
  return 0;
}
