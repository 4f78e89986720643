/* sqrt and sqrtf with errno (clang's default, -O2): the code generator
 * computes them inline and calls libm only for an argument that fails
 * `x >= 0`; the register allocator's spills and reloads around that call
 * are made only on that path (cb_mach_access.sqrt_path). A loop that also
 * calls pow keeps values live across the calls, so the paths have
 * accesses of their own. Modes: pos (every argument > 0: the inline
 * path), mixed (the first quarter's arguments <= 0: both paths).
 * Usage: kernel_sqrt pos|mixed [N] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int mixed = argc > 1 && !strcmp(argv[1], "mixed");
  int n = argc > 2 ? atoi(argv[2]) : 200000;
  int off = mixed ? n / 4 : 0;
  double a = 0, b = 0;
  for (int k = 1; k <= n; k++) {
    double d = k - off;
    a += pow(2.0 / 3.0, d - 1);
    b += 1 / sqrt(d);
  }
  printf("%.9g %.9g\n", a, b);
  return 0;
}
