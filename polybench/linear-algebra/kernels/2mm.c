/* 2mm: two matrix multiplications D := alpha*A*B*C + beta*D.
   PolyBench/C 4.2.1 linear-algebra/kernels/2mm, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL)
#ifdef MINI_DATASET
#define NI 16
#define NJ 18
#define NK 22
#define NL 24
#endif
#ifdef SMALL_DATASET
#define NI 40
#define NJ 50
#define NK 70
#define NL 80
#endif
#ifdef MEDIUM_DATASET
#define NI 180
#define NJ 190
#define NK 210
#define NL 220
#endif
#ifdef LARGE_DATASET
#define NI 800
#define NJ 900
#define NK 1100
#define NL 1200
#endif
#ifdef EXTRALARGE_DATASET
#define NI 1600
#define NJ 1800
#define NK 2200
#define NL 2400
#endif
#endif

static void init_array(int ni, int nj, int nk, int nl, double *alpha,
                       double *beta, double A[NI][NK], double B[NK][NJ],
                       double C[NJ][NL], double D[NI][NL]) {
  int i, j;

  *alpha = 1.5;
  *beta = 1.2;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)((i * j + 1) % ni) / ni;
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)(i * (j + 1) % nj) / nj;
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++)
      C[i][j] = (double)((i * (j + 3) + 1) % nl) / nl;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double)(i * (j + 2) % nk) / nk;
}

static void kernel_2mm(int ni, int nj, int nk, int nl, double alpha,
                       double beta, double tmp[NI][NJ], double A[NI][NK],
                       double B[NK][NJ], double C[NJ][NL], double D[NI][NL]) {
  int i, j, k;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      tmp[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
        tmp[i][j] += alpha * A[i][k] * B[k][j];
    }
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      D[i][j] *= beta;
      for (k = 0; k < nj; ++k)
        D[i][j] += tmp[i][k] * C[k][j];
    }
}

static double checksum(int ni, int nl, double D[NI][NL]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      s += D[i][j];
  return s;
}

int main(void) {
  int ni = NI;
  int nj = NJ;
  int nk = NK;
  int nl = NL;
  double alpha, beta;
  double(*tmp)[NJ] = pb_alloc((size_t)NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc((size_t)NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc((size_t)NK * NJ, sizeof(double));
  double(*C)[NL] = pb_alloc((size_t)NJ * NL, sizeof(double));
  double(*D)[NL] = pb_alloc((size_t)NI * NL, sizeof(double));

  init_array(ni, nj, nk, nl, &alpha, &beta, A, B, C, D);
  kernel_2mm(ni, nj, nk, nl, alpha, beta, tmp, A, B, C, D);
  printf("%.17g\n", checksum(ni, nl, D));

  free(tmp);
  free(A);
  free(B);
  free(C);
  free(D);
  return 0;
}
