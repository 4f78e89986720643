/* trmm: triangular matrix multiply B := alpha*A**T*B (A unit lower
   triangular). PolyBench/C 4.2.1 linear-algebra/blas/trmm, rewritten for
   cbana. */
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

static void init_array(int m, int n, double *alpha, double A[M][M],
                       double B[M][N]) {
  int i, j;

  *alpha = 1.5;
  for (i = 0; i < m; i++) {
    for (j = 0; j < i; j++)
      A[i][j] = (double)((i + j) % m) / m;
    A[i][i] = 1.0;
    for (j = 0; j < n; j++)
      B[i][j] = (double)((n + (i - j)) % n) / n;
  }
}

static void kernel_trmm(int m, int n, double alpha, double A[M][M],
                        double B[M][N]) {
  int i, j, k;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      for (k = i + 1; k < m; k++)
        B[i][j] += A[k][i] * B[k][j];
      B[i][j] = alpha * B[i][j];
    }
}

static double checksum(int m, int n, double B[M][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      s += B[i][j];
  return s;
}

int main(void) {
  int m = M;
  int n = N;
  double alpha;
  double(*A)[M] = pb_alloc((size_t)M * M, sizeof(double));
  double(*B)[N] = pb_alloc((size_t)M * N, sizeof(double));

  init_array(m, n, &alpha, A, B);
  kernel_trmm(m, n, alpha, A, B);
  printf("%.17g\n", checksum(m, n, B));

  free(A);
  free(B);
  return 0;
}
