/* atax: matrix transpose and vector multiplication y := A**T*(A*x).
   PolyBench/C 4.2.1 linear-algebra/kernels/atax, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(M) && !defined(N)
#ifdef MINI_DATASET
#define M 38
#define N 42
#endif
#ifdef SMALL_DATASET
#define M 116
#define N 124
#endif
#ifdef MEDIUM_DATASET
#define M 390
#define N 410
#endif
#ifdef LARGE_DATASET
#define M 1900
#define N 2100
#endif
#ifdef EXTRALARGE_DATASET
#define M 1800
#define N 2200
#endif
#endif

static void init_array(int m, int n, double A[M][N], double x[N]) {
  int i, j;
  double fn;
  fn = (double)n;

  for (i = 0; i < n; i++)
    x[i] = 1 + (i / fn);
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      A[i][j] = (double)((i + j) % n) / (5 * m);
}

static void kernel_atax(int m, int n, double A[M][N], double x[N], double y[N],
                        double tmp[M]) {
  int i, j;

  for (i = 0; i < n; i++)
    y[i] = 0;
  for (i = 0; i < m; i++) {
    tmp[i] = 0.0;
    for (j = 0; j < n; j++)
      tmp[i] = tmp[i] + A[i][j] * x[j];
    for (j = 0; j < n; j++)
      y[j] = y[j] + A[i][j] * tmp[i];
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
  int m = M;
  int n = N;
  double(*A)[N] = pb_alloc((size_t)M * N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));
  double *tmp = pb_alloc(M, sizeof(double));

  init_array(m, n, A, x);
  kernel_atax(m, n, A, x, y, tmp);
  printf("%.17g\n", checksum(n, y));

  free(A);
  free(x);
  free(y);
  free(tmp);
  return 0;
}
