/* covariance: covariance matrix of N samples of M variables.
   PolyBench/C 4.2.1 datamining/covariance, rewritten for cbana. */
#include "../polybench.h"

#if !defined(M) && !defined(N)
#ifdef MINI_DATASET
#define M 28
#define N 32
#endif
#ifdef SMALL_DATASET
#define M 80
#define N 100
#endif
#ifdef MEDIUM_DATASET
#define M 240
#define N 260
#endif
#ifdef LARGE_DATASET
#define M 1200
#define N 1400
#endif
#ifdef EXTRALARGE_DATASET
#define M 2600
#define N 3000
#endif
#endif

static void init_array(int m, int n, double *float_n, double data[N][M]) {
  int i, j;
  (void)m;

  *float_n = (double)n;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = ((double)i * j) / M;
}

static void kernel_covariance(int m, int n, double float_n, double data[N][M],
                              double cov[M][M], double mean[M]) {
  int i, j, k;

  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++)
      data[i][j] -= mean[j];

  for (i = 0; i < m; i++)
    for (j = i; j < m; j++) {
      cov[i][j] = 0.0;
      for (k = 0; k < n; k++)
        cov[i][j] += data[k][i] * data[k][j];
      cov[i][j] /= (float_n - 1.0);
      cov[j][i] = cov[i][j];
    }
}

static double checksum(int m, double cov[M][M]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      s += cov[i][j];
  return s;
}

int main(void) {
  int n = N;
  int m = M;
  double float_n;
  double(*data)[M] = pb_alloc((size_t)N * M, sizeof(double));
  double(*cov)[M] = pb_alloc((size_t)M * M, sizeof(double));
  double *mean = pb_alloc(M, sizeof(double));

  init_array(m, n, &float_n, data);
  kernel_covariance(m, n, float_n, data, cov, mean);
  printf("%.17g\n", checksum(m, cov));

  free(data);
  free(cov);
  free(mean);
  return 0;
}
