/* jacobi-1d: 1D Jacobi stencil, 3 points, two arrays.
   PolyBench/C 4.2.1 stencils/jacobi-1d, rewritten for cbana. */
#include "../polybench.h"

#if !defined(TSTEPS) && !defined(N)
#ifdef MINI_DATASET
#define TSTEPS 20
#define N 30
#endif
#ifdef SMALL_DATASET
#define TSTEPS 40
#define N 120
#endif
#ifdef MEDIUM_DATASET
#define TSTEPS 100
#define N 400
#endif
#ifdef LARGE_DATASET
#define TSTEPS 500
#define N 2000
#endif
#ifdef EXTRALARGE_DATASET
#define TSTEPS 1000
#define N 4000
#endif
#endif

static void init_array(int n, double A[N], double B[N]) {
  int i;

  for (i = 0; i < n; i++) {
    A[i] = ((double)i + 2) / n;
    B[i] = ((double)i + 3) / n;
  }
}

static void kernel_jacobi_1d(int tsteps, int n, double A[N], double B[N]) {
  int t, i;

  for (t = 0; t < tsteps; t++) {
    for (i = 1; i < n - 1; i++)
      B[i] = 0.33333 * (A[i - 1] + A[i] + A[i + 1]);
    for (i = 1; i < n - 1; i++)
      A[i] = 0.33333 * (B[i - 1] + B[i] + B[i + 1]);
  }
}

static double checksum(int n, double A[N]) {
  double s = 0.0;
  int i;
  for (i = 0; i < n; i++)
    s += A[i];
  return s;
}

int main(void) {
  int n = N;
  int tsteps = TSTEPS;
  double *A = pb_alloc(N, sizeof(double));
  double *B = pb_alloc(N, sizeof(double));

  init_array(n, A, B);
  kernel_jacobi_1d(tsteps, n, A, B);
  printf("%.17g\n", checksum(n, A));

  free(A);
  free(B);
  return 0;
}
