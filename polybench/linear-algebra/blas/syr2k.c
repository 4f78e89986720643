/* syr2k: symmetric rank-2k update C := alpha*A*B**T + alpha*B*A**T + beta*C
   (lower triangle). PolyBench/C 4.2.1 linear-algebra/blas/syr2k,
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

static void init_array(int n, int m, double *alpha, double *beta,
                       double C[N][N], double A[N][M], double B[N][M]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % m) / m;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 3) % n) / m;
}

static void kernel_syr2k(int n, int m, double alpha, double beta,
                         double C[N][N], double A[N][M], double B[N][M]) {
  int i, j, k;

  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++)
      for (j = 0; j <= i; j++)
        C[i][j] += A[j][k] * alpha * B[i][k] + B[j][k] * alpha * A[i][k];
  }
}

static double checksum(int n, double C[N][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += C[i][j];
  return s;
}

int main(void) {
  int n = N;
  int m = M;
  double alpha, beta;
  double(*C)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*A)[M] = pb_alloc((size_t)N * M, sizeof(double));
  double(*B)[M] = pb_alloc((size_t)N * M, sizeof(double));

  init_array(n, m, &alpha, &beta, C, A, B);
  kernel_syr2k(n, m, alpha, beta, C, A, B);
  printf("%.17g\n", checksum(n, C));

  free(C);
  free(A);
  free(B);
  return 0;
}
