/* jacobi-2d: 2D Jacobi stencil, 5 points, two arrays.
   PolyBench/C 4.2.1 stencils/jacobi-2d, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TSTEPS) && !defined(N)
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 30
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 90
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 250
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 1300
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 2800
#endif
#endif

static void init_array(int n, double A[N][N], double B[N][N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = ((double)i * (j + 2) + 2) / n;
      B[i][j] = ((double)i * (j + 3) + 3) / n;
    }
}

static void kernel_jacobi_2d(int tsteps, int n, double A[N][N],
                             double B[N][N]) {
  int t, i, j;

  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        B[i][j] = 0.2 * (A[i][j] + A[i][j - 1] + A[i][1 + j] + A[1 + i][j] +
                         A[i - 1][j]);
    for (i = 1; i < n - 1; i++)
      for (j = 1; j < n - 1; j++)
        A[i][j] = 0.2 * (B[i][j] + B[i][j - 1] + B[i][1 + j] + B[1 + i][j] +
                         B[i - 1][j]);
  }
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
  double(*B)[N] = pb_alloc((size_t)N * N, sizeof(double));

  init_array(n, A, B);
  kernel_jacobi_2d(tsteps, n, A, B);
  printf("%.17g\n", checksum(n, A));

  free(A);
  free(B);
  return 0;
}
