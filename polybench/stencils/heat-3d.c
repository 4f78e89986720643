/* heat-3d: 3D heat equation, 7-point stencil over two N^3 arrays.
   PolyBench/C 4.2.1 stencils/heat-3d, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TSTEPS) && !defined(N)
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 10
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 20
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 40
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 120
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 200
#endif
#endif

static void init_array(int n, double A[N][N][N], double B[N][N][N]) {
  int i, j, k;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        A[i][j][k] = B[i][j][k] = (double)(i + j + (n - k)) * 10 / (n);
}

static void kernel_heat_3d(int tsteps, int n, double A[N][N][N],
                           double B[N][N][N]) {
  int t, i, j, k;

  for (t = 1; t <= tsteps; t++) {
    for (i = 1; i < n - 1; i++) {
      for (j = 1; j < n - 1; j++) {
        for (k = 1; k < n - 1; k++) {
          B[i][j][k] =
              0.125 * (A[i + 1][j][k] - 2.0 * A[i][j][k] + A[i - 1][j][k]) +
              0.125 * (A[i][j + 1][k] - 2.0 * A[i][j][k] + A[i][j - 1][k]) +
              0.125 * (A[i][j][k + 1] - 2.0 * A[i][j][k] + A[i][j][k - 1]) +
              A[i][j][k];
        }
      }
    }
    for (i = 1; i < n - 1; i++) {
      for (j = 1; j < n - 1; j++) {
        for (k = 1; k < n - 1; k++) {
          A[i][j][k] =
              0.125 * (B[i + 1][j][k] - 2.0 * B[i][j][k] + B[i - 1][j][k]) +
              0.125 * (B[i][j + 1][k] - 2.0 * B[i][j][k] + B[i][j - 1][k]) +
              0.125 * (B[i][j][k + 1] - 2.0 * B[i][j][k] + B[i][j][k - 1]) +
              B[i][j][k];
        }
      }
    }
  }
}

static double checksum(int n, double A[N][N][N]) {
  double s = 0.0;
  int i, j, k;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      for (k = 0; k < n; k++)
        s += A[i][j][k];
  return s;
}

int main(void) {
  int n = N;
  int tsteps = TSTEPS;
  double(*A)[N][N] = pb_alloc((size_t)N * N * N, sizeof(double));
  double(*B)[N][N] = pb_alloc((size_t)N * N * N, sizeof(double));

  init_array(n, A, B);
  kernel_heat_3d(tsteps, n, A, B);
  printf("%.17g\n", checksum(n, A));

  free(A);
  free(B);
  return 0;
}
