/* Copies of one step with libm calls and an early exit, all on one line
 * as a complete unrolling leaves them (almabench's Kepler equation, whose
 * loop of at most ten iterations the optimizer unrolls): the copies have
 * the same calls and branch on the same line, each spills and reloads
 * around its calls, and the later copies run only when the earlier ones
 * did not leave. The k-th copy in the machine code is the k-th in the
 * IR, in dominator order. The second argument is the eccentricity: the
 * larger, the more steps. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define STEP                                                                   \
  {                                                                            \
    double dae = (am - ae + de * sin(ae)) / (1.0 - de * cos(ae));              \
    ae = ae + dae;                                                             \
    if (fabs(dae) < 1e-12)                                                     \
      return ae;                                                               \
  }

__attribute__((noinline)) static double kepler(double am, double de) {
  double ae = am + de * sin(am);
  /* clang-format off */
  STEP STEP STEP STEP STEP STEP STEP STEP STEP STEP
  /* clang-format on */
  return ae;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  double e0 = argc > 2 ? atof(argv[2]) : 0.2;
  double s = 0;
  for (int i = 0; i < n; i++)
    s += kepler(0.001 * i, e0 + 0.00001 * (i % 50000));
  printf("%.6f\n", s);
  return 0;
}
