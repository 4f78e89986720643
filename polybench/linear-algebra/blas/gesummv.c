/* gesummv: scalar, vector and matrix multiplication y = alpha*A*x + beta*B*x.
   PolyBench/C 4.2.1 linear-algebra/blas/gesummv, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(N)
#ifdef MINI_DATASET
#define N 30
#endif
#ifdef SMALL_DATASET
#define N 90
#endif
#ifdef MEDIUM_DATASET
#define N 250
#endif
#ifdef LARGE_DATASET
#define N 1300
#endif
#ifdef EXTRALARGE_DATASET
#define N 2800
#endif
#endif

static void init_array(int n, double *alpha, double *beta, double A[N][N],
                       double B[N][N], double x[N]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < n; i++) {
    x[i] = (double)(i % n) / n;
    for (j = 0; j < n; j++) {
      A[i][j] = (double)((i * j + 1) % n) / n;
      B[i][j] = (double)((i * j + 2) % n) / n;
    }
  }
}

static void kernel_gesummv(int n, double alpha, double beta, double A[N][N],
                           double B[N][N], double tmp[N], double x[N],
                           double y[N]) {
  int i, j;

  for (i = 0; i < n; i++) {
    tmp[i] = 0.0;
    y[i] = 0.0;
    for (j = 0; j < n; j++) {
      tmp[i] = A[i][j] * x[j] + tmp[i];
      y[i] = B[i][j] * x[j] + y[i];
    }
    y[i] = alpha * tmp[i] + beta * y[i];
  }
}

static double checksum(int n, double y[N]) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++)
    s += y[i];
  return s;
}

int main(void) {
  int n = N;
  double alpha, beta;
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*B)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double *tmp = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  init_array(n, &alpha, &beta, A, B, x);
  kernel_gesummv(n, alpha, beta, A, B, tmp, x, y);
  printf("%.17g\n", checksum(n, y));

  free(A);
  free(B);
  free(tmp);
  free(x);
  free(y);
  return 0;
}
