/* durbin: Levinson-Durbin recursion for the Yule-Walker equations.
   PolyBench/C 4.2.1 linear-algebra/solvers/durbin, rewritten for cbana.
   As in PolyBench, z is a local (stack) array of the kernel. */
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

static void init_array(int n, double r[N]) {
  int i;

  for (i = 0; i < n; i++) {
    r[i] = (n + 1 - i);
  }
}

static void kernel_durbin(int n, double r[N], double y[N]) {
  double z[N];
  double alpha;
  double beta;
  double sum;

  int i, k;

  y[0] = -r[0];
  beta = 1.0;
  alpha = -r[0];

  for (k = 1; k < n; k++) {
    beta = (1 - alpha * alpha) * beta;
    sum = 0.0;
    for (i = 0; i < k; i++) {
      sum += r[k - i - 1] * y[i];
    }
    alpha = -(r[k] + sum) / beta;

    for (i = 0; i < k; i++) {
      z[i] = y[i] + alpha * y[k - i - 1];
    }
    for (i = 0; i < k; i++) {
      y[i] = z[i];
    }
    y[k] = alpha;
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
  int n = N;
  double *r = pb_alloc(N, sizeof(double));
  double *y = pb_alloc(N, sizeof(double));

  init_array(n, r);
  kernel_durbin(n, r, y);
  printf("%.17g\n", checksum(n, y));

  free(r);
  free(y);
  return 0;
}
