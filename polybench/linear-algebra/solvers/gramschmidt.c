/* gramschmidt: QR decomposition by modified Gram-Schmidt, A = Q*R.
   PolyBench/C 4.2.1 linear-algebra/solvers/gramschmidt, rewritten for
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

static void init_array(int m, int n, double A[M][N], double R[N][N],
                       double Q[M][N]) {
  int i, j;

  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++) {
      A[i][j] = (((double)((i * j) % m) / m) * 100) + 10;
      Q[i][j] = 0.0;
    }
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      R[i][j] = 0.0;
}

static void kernel_gramschmidt(int m, int n, double A[M][N], double R[N][N],
                               double Q[M][N]) {
  int i, j, k;
  double nrm;

  for (k = 0; k < n; k++) {
    nrm = 0.0;
    for (i = 0; i < m; i++)
      nrm += A[i][k] * A[i][k];
    R[k][k] = sqrt(nrm);
    for (i = 0; i < m; i++)
      Q[i][k] = A[i][k] / R[k][k];
    for (j = k + 1; j < n; j++) {
      R[k][j] = 0.0;
      for (i = 0; i < m; i++)
        R[k][j] += Q[i][k] * A[i][j];
      for (i = 0; i < m; i++)
        A[i][j] = A[i][j] - Q[i][k] * R[k][j];
    }
  }
}

/* R then Q, which is what PolyBench dumps. */
static double checksum(int m, int n, double R[N][N], double Q[M][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += R[i][j];
  for (i = 0; i < m; i++)
    for (j = 0; j < n; j++)
      s += Q[i][j];
  return s;
}

int main(void) {
  int m = M;
  int n = N;
  double(*A)[N] = pb_alloc((size_t)M * N, sizeof(double));
  double(*R)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*Q)[N] = pb_alloc((size_t)M * N, sizeof(double));

  init_array(m, n, A, R, Q);
  kernel_gramschmidt(m, n, A, R, Q);
  printf("%.17g\n", checksum(m, n, R, Q));

  free(A);
  free(R);
  free(Q);
  return 0;
}
