/* libm_probe.c: calls one libm function on the arguments read from stdin
 * (lines "XBITS YBITS", the doubles' bits in hex), for a lackey trace of
 * each call (tools/probe/libm_tables.py, tests/unit/engine's
 * engine_libm_traffic). A store to `mark` comes before and after each
 * call; stderr names libm's load address, the thread pointer and mark's
 * address. usage: libm_probe FN ARITY < ARGS */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long mark;

typedef double (*fn1)(double);
typedef double (*fn2)(double, double);

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
  uint64_t a, b;
  double s = 0;
  while (scanf("%" SCNx64 " %" SCNx64, &a, &b) == 2) {
    double x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    mark = 1;
    s += two ? ((fn2)f)(x, y) : ((fn1)f)(x);
    mark = 2;
  }
  printf("%g\n", s);
  return 0;
}
