/* ludcmp: LU decomposition followed by forward and back substitution,
   solving A*x = b. PolyBench/C 4.2.1 linear-algebra/solvers/ludcmp,
   rewritten for cbana. */
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

static void init_array(int n, double A[N][N], double b[N], double x[N],
                       double y[N]) {
  int i, j;
  double fn = (double)n;

  for (i = 0; i < n; i++) {
    x[i] = 0;
    y[i] = 0;
    b[i] = (i + 1) / fn / 2.0 + 4;
  }

  for (i = 0; i < n; i++) {
    for (j = 0; j <= i; j++)
      A[i][j] = (double)(-j % n) / n + 1;
    for (j = i + 1; j < n; j++) {
      A[i][j] = 0;
    }
    A[i][i] = 1;
  }

  /* Make the matrix positive semi-definite: A := A*A**T, through a
     temporary heap array B allocated and freed here, as PolyBench does. */
  int r, s, t;
  double(*B)[N] = pb_alloc((size_t)N * N, sizeof(double));
  for (r = 0; r < n; ++r)
    for (s = 0; s < n; ++s)
      B[r][s] = 0;
  for (t = 0; t < n; ++t)
    for (r = 0; r < n; ++r)
      for (s = 0; s < n; ++s)
        B[r][s] += A[r][t] * A[s][t];
  for (r = 0; r < n; ++r)
    for (s = 0; s < n; ++s)
      A[r][s] = B[r][s];
  free(B);
}

static void kernel_ludcmp(int n, double A[N][N], double b[N], double x[N],
                          double y[N]) {
  int i, j, k;
  double w;

  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      w = A[i][j];
      for (k = 0; k < j; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w / A[j][j];
    }
    for (j = i; j < n; j++) {
      w = A[i][j];
      for (k = 0; k < i; k++) {
        w -= A[i][k] * A[k][j];
      }
      A[i][j] = w;
    }
  }

  for (i = 0; i < n; i++) {
    w = b[i];
    for (j = 0; j < i; j++)
      w -= A[i][j] * y[j];
    y[i] = w;
  }

  for (i = n - 1; i >= 0; i--) {
    w = y[i];
    for (j = i + 1; j < n; j++)
      w -= A[i][j] * x[j];
    x[i] = w / A[i][i];
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
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double *b = pb_alloc(N, sizeof(double));
  double *x = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  init_array(n, A, b, x, y);
  kernel_ludcmp(n, A, b, x, y);
  printf("%.17g\n", checksum(n, x));

  free(A);
  free(b);
  free(x);
  free(y);
  return 0;
}
