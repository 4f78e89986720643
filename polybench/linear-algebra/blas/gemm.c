/* gemm: C := alpha*A*B + beta*C.
   PolyBench/C 4.2.1 linear-algebra/blas/gemm, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(NI) && !defined(NJ) && !defined(NK)
#ifdef MINI_DATASET
#define NI 20
#define NJ 25
#define NK 30
#endif
#ifdef SMALL_DATASET
#define NI 60
#define NJ 70
#define NK 80
#endif
#ifdef MEDIUM_DATASET
#define NI 200
#define NJ 220
#define NK 240
#endif
#ifdef LARGE_DATASET
#define NI 1000
#define NJ 1100
#define NK 1200
#endif
#ifdef EXTRALARGE_DATASET
#define NI 2000
#define NJ 2300
#define NK 2600
#endif
#endif

static void init_array(int ni, int nj, int nk, double *alpha, double *beta,
                       double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      C[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)(i * (j + 1) % nk) / nk;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 2) % nj) / nj;
}

static void kernel_gemm(int ni, int nj, int nk, double alpha, double beta,
                        double C[NI][NJ], double A[NI][NK], double B[NK][NJ]) {
  int i, j, k;

  for (i = 0; i < ni; i++) {
    for (j = 0; j < nj; j++)
      C[i][j] *= beta;
    for (k = 0; k < nk; k++) {
      for (j = 0; j < nj; j++)
        C[i][j] += alpha * A[i][k] * B[k][j];
    }
  }
}

static double checksum(int ni, int nj, double C[NI][NJ]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++)
      s += C[i][j];
  return s;
}

int main(void) {
  int ni = NI;
  int nj = NJ;
  int nk = NK;
  double alpha, beta;
  double(*C)[NJ] = pb_alloc((size_t)NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc((size_t)NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc((size_t)NK * NJ, sizeof(double));

  init_array(ni, nj, nk, &alpha, &beta, C, A, B);
  kernel_gemm(ni, nj, nk, alpha, beta, C, A, B);
  printf("%.17g\n", checksum(ni, nj, C));

  free(C);
  free(A);
  free(B);
  return 0;
}
