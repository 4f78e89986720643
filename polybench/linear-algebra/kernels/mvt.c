/* mvt: matrix vector product and transpose x1 += A*y_1, x2 += A**T*y_2.
   PolyBench/C 4.2.1 linear-algebra/kernels/mvt, rewritten for cbana. */
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

static void init_array(int n, double x1[N], double x2[N], double y_1[N],
                       double y_2[N], double A[N][N]) {
  int i, j;

  for (i = 0; i < n; i++) {
    x1[i] = (double)(i % n) / n;
    x2[i] = (double)((i + 1) % n) / n;
    y_1[i] = (double)((i + 3) % n) / n;
    y_2[i] = (double)((i + 4) % n) / n;
    for (j = 0; j < n; j++)
      A[i][j] = (double)(i * j % n) / n;
  }
}

static void kernel_mvt(int n, double x1[N], double x2[N], double y_1[N],
                       double y_2[N], double A[N][N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x1[i] = x1[i] + A[i][j] * y_1[j];
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      x2[i] = x2[i] + A[j][i] * y_2[j];
}

static double checksum(int n, double x1[N], double x2[N]) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++)
    s += x1[i];
  for (i = 0; i < n; i++)
    s += x2[i];
  return s;
}

int main(void) {
  int n = N;
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double *x1 = pb_alloc(N, sizeof(double));
  double *x2 = pb_alloc(N, sizeof(double));
  double *y_1 = pb_alloc(N, sizeof(double));
  double *y_2 = pb_alloc(N, sizeof(double));

  init_array(n, x1, x2, y_1, y_2, A);
  kernel_mvt(n, x1, x2, y_1, y_2, A);
  printf("%.17g\n", checksum(n, x1, x2));

  free(A);
  free(x1);
  free(x2);
  free(y_1);
  free(y_2);
  return 0;
}
