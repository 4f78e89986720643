/* bicg: the BiCG sub-kernel s := A**T*r, q := A*p.
   PolyBench/C 4.2.1 linear-algebra/kernels/bicg, rewritten for cbana. */
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

static void init_array(int m, int n, double A[N][M], double r[N], double p[M]) {
  int i, j;

  for (i = 0; i < m; i++)
    p[i] = (double)(i % m) / m;
  for (i = 0; i < n; i++) {
    r[i] = (double)(i % n) / n;
    for (j = 0; j < m; j++)
      A[i][j] = (double)(i * (j + 1) % n) / n;
  }
}

static void kernel_bicg(int m, int n, double A[N][M], double s[M], double q[N],
                        double p[M], double r[N]) {
  int i, j;

  for (i = 0; i < m; i++)
    s[i] = 0;
  for (i = 0; i < n; i++) {
    q[i] = 0.0;
    for (j = 0; j < m; j++) {
      s[j] = s[j] + r[i] * A[i][j];
      q[i] = q[i] + A[i][j] * p[j];
    }
  }
}

static double checksum(int m, int n, double s[M], double q[N]) {
  double sum = 0.0;
  int i;
  for (i = 0; i < m; i++)
    sum += s[i];
  for (i = 0; i < n; i++)
    sum += q[i];
  return sum;
}

int main(void) {
  int n = N;
  int m = M;
  double(*A)[M] = pb_alloc((size_t)N * M, sizeof(double));
  double *s = pb_alloc(M, sizeof(double));
  double *q = pb_alloc(N, sizeof(double));
  double *p = pb_alloc(M, sizeof(double));
  double *r = pb_alloc(N, sizeof(double));

  init_array(m, n, A, r, p);
  kernel_bicg(m, n, A, s, q, p, r);
  printf("%.17g\n", checksum(m, n, s, q));

  free(A);
  free(s);
  free(q);
  free(p);
  free(r);
  return 0;
}
