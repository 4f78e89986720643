/* br_path2: the CBANA paper's two-path workload (load1K_2br_path*, Table V).
 *
 *   br_path2 X [N]
 *
 * X in [0, 1000) selects the path; N (default 1000) scales the data. One
 * heap array of 8*N doubles is allocated and initialised on every path.
 *   path 1 (X <  500): 100 passes over all 8*N doubles   (800*N loads)
 *   path 2 (X >= 500): one pass over the first N doubles     (N loads)
 * Both use a consecutive index (regular). With N = 1000 the array is 64 KiB,
 * twice a 32 KiB L1: path 1 misses on every line in every pass, path 2 only
 * on its first touch. X only selects the path and is added to the printed
 * sum, so inputs on the same path give the same access stream.
 * Only malloc/free, printf and atoi are called. */
#include <stdio.h>
#include <stdlib.h>

#define PASSES1 100

static double sweep(const double *a, long len, int passes) {
  double sum = 0.0;
  long i;
  int p;
  for (p = 0; p < passes; p++)
    for (i = 0; i < len; i++)
      sum += a[i];
  return sum;
}

int main(int argc, char **argv) {
  int x;
  long n = 1000, i;
  double *a;
  double sum;

  if (argc < 2) {
    printf("usage: br_path2 X [N]\n");
    return 2;
  }
  x = atoi(argv[1]);
  if (argc > 2)
    n = atol(argv[2]);
  if (n < 1)
    return 2;

  a = malloc((size_t)(8 * n) * sizeof *a);
  if (!a)
    return 1;
  for (i = 0; i < 8 * n; i++)
    a[i] = (double)(i % 100);

  if (x < 500)
    sum = sweep(a, 8 * n, PASSES1); /* path 1: heavy */
  else
    sum = sweep(a, n, 1); /* path 2: light */

  printf("%.17g\n", sum + x);
  free(a);
  return 0;
}
