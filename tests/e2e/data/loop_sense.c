/* A while loop that LLVM rotates at -O2: its in-loop branch tests the exit
 * (`x == 1`), so the compiled true is the source's false. cbana paths must
 * count `x != 1` in the source's sense (tests/e2e/report_alloc.sh). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long x = argc > 1 ? atol(argv[1]) : 6;
  int steps = 0;
  while (x != 1) {
    x = x % 2 ? 3 * x + 1 : x / 2;
    steps++;
  }
  printf("%d\n", steps);
  return 0;
}
