/* lu: LU decomposition without pivoting (in place).
   PolyBench/C 4.2.1 linear-algebra/solvers/lu, rewritten for cbana. */
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

static void init_array(int n, double A[N][N]) {
  int i, j;

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

static void kernel_lu(int n, double A[N][N]) {
  int i, j, k;

  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++) {
      for (k = 0; k < j; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
      A[i][j] /= A[j][j];
    }
    for (j = i; j < n; j++) {
      for (k = 0; k < i; k++) {
        A[i][j] -= A[i][k] * A[k][j];
      }
    }
  }
}

static double checksum(int n, double A[N][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += A[i][j];
  return s;
}

int main(void) {
  int n = N;
  double(*A)[N] = pb_alloc((size_t)N * N, sizeof(double));

  init_array(n, A);
  kernel_lu(n, A);
  printf("%.17g\n", checksum(n, A));

  free(A);
  return 0;
}
