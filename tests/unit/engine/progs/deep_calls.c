/* Calls between compiled functions (native kernels calling kernels),
 * run against the reference interpreter by fast_identity_progs: deep
 * recursion, past the kernels' own nesting limit, where the interpreter
 * takes over; mutual recursion through a pointer; a callee whose kernel
 * leaves in the middle (a page first touched deep in the recursion).
 * Usage: deep_calls MODE N
 *   0  sum of a list built by recursion N deep
 *   1  mutual recursion even/odd through function pointers, N deep
 *   2  a tree of calls, 2^N leaves, each touching a fresh page */
#include <stdio.h>
#include <stdlib.h>

struct node {
  long v;
  struct node *next;
};

static struct node *build(long n) {
  if (n == 0)
    return NULL;
  struct node *p = malloc(sizeof *p);
  p->v = n * 3 + 1;
  p->next = build(n - 1);
  return p;
}

static long sum(const struct node *p) {
  return p ? p->v + sum(p->next) : 0;
}

static int is_odd(unsigned n);
static int (*volatile odd_fn)(unsigned) = is_odd;
static int is_even(unsigned n) {
  return n == 0 ? 1 : odd_fn(n - 1);
}
static int (*volatile even_fn)(unsigned) = is_even;
static int is_odd(unsigned n) {
  return n == 0 ? 0 : even_fn(n - 1);
}

static char *pages;
static long leaves(int depth, long at) {
  if (depth == 0) {
    pages[at * 4096] += (char)at;
    return pages[at * 4096];
  }
  return leaves(depth - 1, 2 * at) + leaves(depth - 1, 2 * at + 1);
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long n = argc > 2 ? atol(argv[2]) : 1000;
  if (mode == 0) {
    long t = 0;
    for (int r = 0; r < 3; r++)
      t += sum(build(n));
    printf("%ld\n", t);
  } else if (mode == 1) {
    int c = 0;
    for (unsigned k = 0; k < 20; k++)
      c += is_even((unsigned)n + k);
    printf("%d\n", c);
  } else {
    pages = calloc((size_t)1 << n, 4096);
    long t = 0;
    for (int r = 0; r < 4; r++)
      t += leaves((int)n, 0);
    printf("%ld\n", t);
  }
  return 0;
}
