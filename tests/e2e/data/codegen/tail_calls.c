/* Tail calls: the machine code jumps to the callee after the epilogue,
 * pushing no return address; the callee's frame takes the caller's place
 * and its `ret` is the caller's. A chain of mutually recursive functions
 * whose calls are tail calls keeps the stack flat (its frames reuse one
 * place); a tail call through a pointer; tail calls into the library
 * (putchar, printf), whose frames sit where the caller's was; the
 * towers of Hanoi, whose last move is a tail call after an epilogue that
 * drops an alignment push with `add rsp, 8`. noinline keeps the
 * functions apart, so that the calls stay calls. */
#include <stdio.h>
#include <stdlib.h>

static int table[4096];

__attribute__((noinline)) static int odd(unsigned n, int acc);

__attribute__((noinline)) static int even(unsigned n, int acc) {
  if (n == 0)
    return acc;
  acc += table[n & 4095] ^ (int)n;
  return odd(n - 1, acc);
}

__attribute__((noinline)) static int odd(unsigned n, int acc) {
  if (n == 0)
    return acc - 1;
  acc -= table[(n * 3) & 4095];
  return even(n - 1, acc);
}

__attribute__((noinline)) static int twice(int x) { return 2 * x + table[x & 7]; }
__attribute__((noinline)) static int thrice(int x) { return 3 * x - table[x & 7]; }

__attribute__((noinline)) static int apply(int (*f)(int), int x) {
  table[x & 4095] += x;
  return f(x);
}

__attribute__((noinline)) static int show(int v) {
  table[v & 4095] = v;
  return putchar('0' + (v & 7));
}

__attribute__((noinline)) static int report(int v, int w) {
  table[w & 4095] ^= v;
  return printf("%d %d\n", v, w);
}

__attribute__((noinline)) static void move(int from, int to) {
  table[(from * 64 + to) & 4095]++;
}

__attribute__((noinline)) static void hanoi(int i, int j, int k) {
  if (k == 1) {
    move(i, j);
  } else {
    int other = 6 - i - j;
    hanoi(i, other, k - 1);
    move(i, j);
    hanoi(other, j, k - 1);
  }
}

int main(int argc, char **argv) {
  unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 20000;
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 10;
  for (int i = 0; i < 4096; i++)
    table[i] = i * 7 + 1;
  int s = 0;
  for (unsigned r = 0; r < rounds; r++) {
    s += even(n + r, r);
    s += apply(r & 1 ? twice : thrice, (int)r);
    show(s);
    hanoi(1, 2, 8 + (int)(r & 3));
  }
  putchar('\n');
  report(s, (int)n);
  return 0;
}
