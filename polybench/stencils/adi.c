/* adi: alternating direction implicit solver for 2D heat diffusion.
   PolyBench/C 4.2.1 stencils/adi, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TSTEPS) && !defined(N)
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 20
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 60
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 200
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 1000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 2000
#endif
#endif

static void init_array(int n, double u[N][N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      u[i][j] = (double)(i + n - j) / n;
    }
}

static void kernel_adi(int tsteps, int n, double u[N][N], double v[N][N],
                       double p[N][N], double q[N][N]) {
  int t, i, j;
  double DX, DY, DT;
  double B1, B2;
  double mul1, mul2;
  double a, b, c, d, e, f;

  DX = 1.0 / (double)n;
  DY = 1.0 / (double)n;
  DT = 1.0 / (double)tsteps;
  B1 = 2.0;
  B2 = 1.0;
  mul1 = B1 * DT / (DX * DX);
  mul2 = B2 * DT / (DY * DY);

  a = -mul1 / 2.0;
  b = 1.0 + mul1;
  c = a;
  d = -mul2 / 2.0;
  e = 1.0 + mul2;
  f = d;

  for (t = 1; t <= tsteps; t++) {
    /* column sweep */
    for (i = 1; i < n - 1; i++) {
      v[0][i] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = v[0][i];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -c / (a * p[i][j - 1] + b);
        q[i][j] = (-d * u[j][i - 1] + (1.0 + 2.0 * d) * u[j][i] -
                   f * u[j][i + 1] - a * q[i][j - 1]) /
                  (a * p[i][j - 1] + b);
      }

      v[n - 1][i] = 1.0;
      for (j = n - 2; j >= 1; j--) {
        v[j][i] = p[i][j] * v[j + 1][i] + q[i][j];
      }
    }
    /* row sweep */
    for (i = 1; i < n - 1; i++) {
      u[i][0] = 1.0;
      p[i][0] = 0.0;
      q[i][0] = u[i][0];
      for (j = 1; j < n - 1; j++) {
        p[i][j] = -f / (d * p[i][j - 1] + e);
        q[i][j] = (-a * v[i - 1][j] + (1.0 + 2.0 * a) * v[i][j] -
                   c * v[i + 1][j] - d * q[i][j - 1]) /
                  (d * p[i][j - 1] + e);
      }
      u[i][n - 1] = 1.0;
      for (j = n - 2; j >= 1; j--) {
        u[i][j] = p[i][j] * u[i][j + 1] + q[i][j];
      }
    }
  }
}

static double checksum(int n, double u[N][N]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += u[i][j];
  return s;
}

int main(void) {
  int n = N;
  int tsteps = TSTEPS;
  double(*u)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*v)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*p)[N] = pb_alloc((size_t)N * N, sizeof(double));
  double(*q)[N] = pb_alloc((size_t)N * N, sizeof(double));

  init_array(n, u);
  kernel_adi(tsteps, n, u, v, p, q);
  printf("%.17g\n", checksum(n, u));

  free(u);
  free(v);
  free(p);
  free(q);
  return 0;
}
