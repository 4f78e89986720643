/* syrk: symmetric rank-k update C := alpha*A*A**T + beta*C (lower triangle).
   PolyBench/C 4.2.1 linear-algebra/blas/syrk, rewritten for cbana. */
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
                       double C[N][N], double A[N][M]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      A[i][j] = (double)((i * j + 1) % n) / n;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      C[i][j] = (double)((i * j + 2) % m) / m;
}

static void kernel_syrk(int n, int m, double alpha, double beta, double C[N][N],
                        double A[N][M]) {
  int i, j, k;

  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      C[i][j] *= beta;
    for (k = 0; k < m; k++) {
      for (j = 0; j <= i; j++)
        C[i][j] += alpha * A[i][k] * A[j][k];
    }
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

  init_array(n, m, &alpha, &beta, C, A);
  kernel_syrk(n, m, alpha, beta, C, A);
  printf("%.17g\n", checksum(n, C));

  free(C);
  free(A);
  return 0;
}
