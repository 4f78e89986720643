/* Returns the code generator copies into their predecessors: a recursive
 * function's early return of a constant loads it from the constant pool
 * in a block of its own that ends in `ret` (the IR has one return block
 * with a phi). Its accesses belong to the IR's return block, on the edge
 * from the test. */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double fib_fp(double n) {
  if (n < 2.0)
    return 1.0;
  return fib_fp(n - 2.0) + fib_fp(n - 1.0);
}

__attribute__((noinline)) static double tak_fp(double x, double y, double z) {
  if (y < x)
    return tak_fp(tak_fp(x - 1.0, y, z), tak_fp(y - 1.0, z, x),
                  tak_fp(z - 1.0, x, y));
  return z;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 22;
  printf("%.1f %.1f\n", fib_fp(n), tak_fp(n / 2.0, n / 3.0, n / 4.0));
  return 0;
}
