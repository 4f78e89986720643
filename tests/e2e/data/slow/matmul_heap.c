/* corpus/matmul_heap.c with mm_ikj slowed to the jki loop order, for the
   `cbana check` test (tests/e2e/report_check.sh); same lines otherwise. */
#include <stdio.h>
#include <stdlib.h>

static void mm_ijk(int n, const double *A, const double *B, double *C) {
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++) {
      double s = 0.0;
      for (int k = 0; k < n; k++)
        s += A[i * n + k] * B[k * n + j];
      C[i * n + j] = s;
    }
}

static void mm_ikj(int n, const double *A, const double *B, double *C) {
  for (int j = 0; j < n; j++) /* slowed: j outermost, i innermost */
    for (int k = 0; k < n; k++) {
      double b = B[k * n + j];
      for (int i = 0; i < n; i++)
        C[i * n + j] += A[i * n + k] * b;
    }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  int order = argc > 2 ? atoi(argv[2]) : 0;
  double *A = malloc(sizeof(double) * n * n);
  double *B = malloc(sizeof(double) * n * n);
  double *C = calloc((size_t)n * n, sizeof(double));
  if (!A || !B || !C)
    return 1;
  for (int i = 0; i < n * n; i++) {
    A[i] = (i % 7) * 0.25;
    B[i] = (i % 5) * 0.5;
  }
  if (order == 0)
    mm_ijk(n, A, B, C);
  else
    mm_ikj(n, A, B, C);
  double t = 0.0;
  for (int i = 0; i < n * n; i++)
    t += C[i];
  printf("%f\n", t);
  free(C);
  free(B);
  free(A);
  return 0;
}
