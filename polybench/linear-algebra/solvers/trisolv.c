/* trisolv: triangular solver L*x = b by forward substitution.
   PolyBench/C 4.2.1 linear-algebra/solvers/trisolv, rewritten for cbana. */
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

static void init_array(int n, double L[N][N], double x[N], double b[N]) {
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = -999;
    b[i] = i;
    for (j = 0; j <= i; j++)
      L[i][j] = (double)(i + n - j + 1) * 2 / n;
  }
}

static void kernel_trisolv(int n, double L[N][N], double x[N], double b[N]) {
  int i, j;

  for (i = 0; i < n; i++) {
    x[i] = b[i];
    for (j = 0; j < i; j++)
      x[i] -= L[i][j] * x[j];
    x[i] = x[i] / L[i][i];
  }
}

static double checksum(int n, double x[N]) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++)
    s += x[i];
  return s;
}

int main(void) {
  int n = N;
  double(*L)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *b = pb_alloc(N, sizeof(double));

  init_array(n, L, x, b);
  kernel_trisolv(n, L, x, b);
  printf("%.17g\n", checksum(n, x));

  free(L);
  free(x);
  free(b);
  return 0;
}
