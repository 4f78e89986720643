/* seidel-2d: 2D Gauss-Seidel stencil, 9 points, in place.
   PolyBench/C 4.2.1 stencils/seidel-2d, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TSTEPS) && !defined(N)
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 40
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 400
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 4000
#endif
#endif

static void init_array(int n, double A[N][N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = ((double)i * (j + 2) + 2) / n;
}

static void kernel_seidel_2d(int tsteps, int n, double A[N][N]) {
  int t, i, j;

  for (t = 0; t <= tsteps - 1; t++)
    for (i = 1; i <= n - 2; i++)
      for (j = 1; j <= n - 2; j++)
        A[i][j] = (A[i - 1][j - 1] + A[i - 1][j] + A[i - 1][j + 1] +
                   A[i][j - 1] + A[i][j] + A[i][j + 1] + A[i + 1][j - 1] +
                   A[i + 1][j] + A[i + 1][j + 1]) /
                  9.0;
}

static double checksum(int n, double A[N][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += A[i][j];
  return s;
}

int main(void) {
  int n = N;
  int tsteps = TSTEPS;
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));

  init_array(n, A);
  kernel_seidel_2d(tsteps, n, A);
  printf("%.17g\n", checksum(n, A));

  free(A);
  return 0;
}
