/* sqrt with errno (clang's default): outside -O0 the code generator
 * computes it inline (sqrtsd) and calls libm only when the argument fails
 * `x >= 0` (negative or NaN), from a block of its own; the values live
 * across that call are spilled and reloaded there, on that path only. At
 * -O0 every call goes to libm. The second argument makes the first
 * arguments negative. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double w[64];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int shift = argc > 2 ? atoi(argv[2]) : 0;
  double a = 0, b = 0, c = 0, d = 0;
  int nan = 0;
  for (int i = 0; i < 64; i++)
    w[i] = 1.0 / (i + 1);
  for (int i = 0; i < n; i++) {
    double x = (double)(i - shift);
    double r = sqrt(x);
    if (r != r)
      nan++;
    else
      a += r * w[i & 63];
    b += w[(i * 7) & 63] * x;
    c += sqrtf((float)x + 0.5f);
    d += b * c + a;
  }
  printf("%d %.3f %.3f %.3f %.3f\n", nan, a, b, c, d);
  return 0;
}
