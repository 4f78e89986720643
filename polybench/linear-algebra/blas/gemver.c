/* gemver: vector multiplication and matrix addition (BLAS GEMVER).
   PolyBench/C 4.2.1 linear-algebra/blas/gemver, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(N)
#ifdef MINI_DATASET
#define N 40
#endif
#ifdef SMALL_DATASET
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define N 400
#endif
#ifdef LARGE_DATASET
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define N 4000
#endif
#endif

static void init_array(int n, double *alpha, double *beta, double A[N][N],
                       double u1[N], double v1[N], double u2[N], double v2[N],
                       double w[N], double x[N], double y[N], double z[N]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;

  double fn = (double)n;

  for (i = 0; i < n; i++) {
    u1[i] = i;
    u2[i] = ((i + 1) / fn) / 2.0;
    v1[i] = ((i + 1) / fn) / 4.0;
    v2[i] = ((i + 1) / fn) / 6.0;
    y[i] = ((i + 1) / fn) / 8.0;
    z[i] = ((i + 1) / fn) / 9.0;
    x[i] = 0.0;
    w[i] = 0.0;
    for (j = 0; j < n; j++)
      A[i][j] = (double)(i * j % n) / n;
  }
}

static void kernel_gemver(int n, double alpha, double beta, double A[N][N],
                          double u1[N], double v1[N], double u2[N],
                          double v2[N], double w[N], double x[N], double y[N],
                          double z[N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j];

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x[i] = x[i] + beta * A[j][i] * y[j];

  for (i = 0; i < n; i++)
    x[i] = x[i] + z[i];

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      w[i] = w[i] + alpha * A[i][j] * x[j];
}

static double checksum(int n, double w[N]) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++)
    s += w[i];
  return s;
}

int main(void) {
  int n = N;
  double alpha, beta;
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double *u1 = pb_alloc(N, sizeof(double));
  double *v1 = pb_alloc(N, sizeof(double));
  double *u2 = pb_alloc(N, sizeof(double));
  double *v2 = pb_alloc(N, sizeof(double));
  double *w = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));
  double *z = pb_alloc(N, sizeof(double));

  init_array(n, &alpha, &beta, A, u1, v1, u2, v2, w, x, y, z);
  kernel_gemver(n, alpha, beta, A, u1, v1, u2, v2, w, x, y, z);
  printf("%.17g\n", checksum(n, w));

  free(A);
  free(u1);
  free(v1);
  free(u2);
  free(v2);
  free(w);
  free(x);
  free(y);
  free(z);
  return 0;
}
