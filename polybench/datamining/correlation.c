/* correlation: correlation matrix of N samples of M variables.
   PolyBench/C 4.2.1 datamining/correlation, rewritten for cbana. */
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
  (void)n;

  *float_n = (double)N;
  for (i = 0; i < N; i++)
    for (j = 0; j < M; j++)
      data[i][j] = (double)(i * j) / M + i;
}

static void kernel_correlation(int m, int n, double float_n, double data[N][M],
                               double corr[M][M], double mean[M],
                               double stddev[M]) {
  int i, j, k;
  double eps = 0.1;

  for (j = 0; j < m; j++) {
    mean[j] = 0.0;
    for (i = 0; i < n; i++)
      mean[j] += data[i][j];
    mean[j] /= float_n;
  }

  for (j = 0; j < m; j++) {
    stddev[j] = 0.0;
    for (i = 0; i < n; i++)
      stddev[j] += (data[i][j] - mean[j]) * (data[i][j] - mean[j]);
    stddev[j] /= float_n;
    stddev[j] = sqrt(stddev[j]);
    /* Near-zero standard deviations would divide by zero below. */
    stddev[j] = stddev[j] <= eps ? 1.0 : stddev[j];
  }

  /* Center and reduce the column vectors. */
  for (i = 0; i < n; i++)
    for (j = 0; j < m; j++) {
      data[i][j] -= mean[j];
      data[i][j] /= sqrt(float_n) * stddev[j];
    }

  /* The m x m correlation matrix. */
  for (i = 0; i < m - 1; i++) {
    corr[i][i] = 1.0;
    for (j = i + 1; j < m; j++) {
      corr[i][j] = 0.0;
      for (k = 0; k < n; k++)
        corr[i][j] += (data[k][i] * data[k][j]);
      corr[j][i] = corr[i][j];
    }
  }
  corr[m - 1][m - 1] = 1.0;
}

static double checksum(int m, double corr[M][M]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < m; i++)
    for (j = 0; j < m; j++)
      s += corr[i][j];
  return s;
}

int main(void) {
  int n = N;
  int m = M;
  double float_n;
  double(*data)[M] = pb_alloc((size_t)N * M, sizeof(double));
  double(*corr)[M] = pb_alloc((size_t)M * M, sizeof(double));
  double *mean = pb_alloc(M, sizeof(double));
  double *stddev = pb_alloc(M, sizeof(double));

  init_array(m, n, &float_n, data);
  kernel_correlation(m, n, float_n, data, corr, mean, stddev);
  printf("%.17g\n", checksum(m, corr));

  free(data);
  free(corr);
  free(mean);
  free(stddev);
  return 0;
}
