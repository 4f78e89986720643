/* symm: symmetric matrix multiply C := alpha*A*B + beta*C (A symmetric,
   lower triangle stored). PolyBench/C 4.2.1 linear-algebra/blas/symm,
   rewritten for cbana. */
#include "../../polybench.h"

#if !defined(M) && !defined(N)
#ifdef MINI_DATASET
#define M 20
#define N 30
#endif
#ifdef SMALL_DATASET
#define M 60
#define N 80
#endif
#ifdef MEDIUM_DATASET
#define M 200
#define N 240
#endif
#ifdef LARGE_DATASET
#define M 1000
#define N 1200
#endif
#ifdef EXTRALARGE_DATASET
#define M 2000
#define N 2600
#endif
#endif

static void init_array(int m, int n, double *alpha, double *beta,
                       double C[M][N], double A[M][M], double B[M][N]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      C[i][j] = (double)((i + j) % 100) / m;
      B[i][j] = (double)((n + i - j) % 100) / m;
    }
  for (i = 0; i < m; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (double)((i + j) % 100) / m;
    for (j = i + 1; j < m; j++)
      A[i][j] = -999; /* never read */
  }
}

static void kernel_symm(int m, int n, double alpha, double beta, double C[M][N],
                        double A[M][M], double B[M][N]) {
  int i, j, k;
  double temp2;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      temp2 = 0;
      for (k = 0; k < i; k++) {
        C[k][j] += alpha * B[i][j] * A[i][k];
        temp2 += B[k][j] * A[i][k];
      }
      C[i][j] = beta * C[i][j] + alpha * B[i][j] * A[i][i] + alpha * temp2;
    }
}

static double checksum(int m, int n, double C[M][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      s += C[i][j];
  return s;
}

int main(void) {
  int m = M;
  int n = N;
  double alpha, beta;
  double(*C)[N] = pb_alloc((size_t)M * N, sizeof(double));
  double(*A)[M] = pb_alloc((size_t)M * M, sizeof(double));
  double(*B)[N] = pb_alloc((size_t)M * N, sizeof(double));

  init_array(m, n, &alpha, &beta, C, A, B);
  kernel_symm(m, n, alpha, beta, C, A, B);
  printf("%.17g\n", checksum(m, n, C));

  free(C);
  free(A);
  free(B);
  return 0;
}
