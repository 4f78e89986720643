/* br_path3: the CBANA paper's three-path workload (load1K_3br_path*,
   Table V).
 *
 *   br_path3 X [N]
 *
 * X in [0, 1000) selects the path; N (default 1000) scales the data. One
 * heap array of 8*N doubles is allocated and initialised on every path.
 *   path 1 (X <  333):        1000 passes over all 8*N doubles, regular
 *                             (8000*N loads)
 *   path 2 (333 <= X < 666):  10 passes of 8*N loads at random indexes
 *                             from an in-program LCG (80*N loads, irregular)
 *   path 3 (X >= 666):        one pass over the first N doubles (N loads)
 * X only selects the path and is added to the printed sum, so inputs on the
 * same path give the same access stream. Only malloc/free, printf and atoi
 * are called. */
#include <stdio.h>
#include <stdlib.h>

#define PASSES1 1000
#define PASSES2 10

static double sweep(const double *a, long len, int passes) {
  double sum = 0.0;
  long i;
  int p;
  for (p = 0; p < passes; p++)
    for (i = 0; i < len; i++)
      sum += a[i];
  return sum;
}

static double scatter(const double *a, long len, int passes) {
  double sum = 0.0;
  unsigned long long s = 12345;
  long i;
  int p;
  for (p = 0; p < passes; p++)
    for (i = 0; i < len; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      sum += a[(long)((s >> 33) % (unsigned long long)len)];
    }
  return sum;
}

int main(int argc, char **argv) {
  int x;
  long n = 1000, i;
  double *a;
  double sum;

  if (argc < 2) {
    printf("usage: br_path3 X [N]\n");
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

  if (x < 333)
    sum = sweep(a, 8 * n, PASSES1); /* path 1: heavy */
  else if (x < 666)
    sum = scatter(a, 8 * n, PASSES2); /* path 2: medium, irregular */
  else
    sum = sweep(a, n, 1); /* path 3: light */

  printf("%.17g\n", sum + x);
  free(a);
  return 0;
}
