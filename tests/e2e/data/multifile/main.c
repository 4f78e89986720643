/* A program in three files: main.c, table.c (its data and a static
 * function named like one here) and leaf.c (a leaf function on registers,
 * whose only accesses are its call's return address, and its own). */
#include <stdio.h>
#include <stdlib.h>

int leaf(int x);
long table_sum(int n);
extern int table[4096];

__attribute__((noinline)) static int step(int i) { return (i * 7) & 4095; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long s = 0;
  for (int i = 0; i < n; i++)
    s += leaf(table[step(i)]);
  printf("%ld %ld\n", s, table_sum(n));
  return 0;
}
