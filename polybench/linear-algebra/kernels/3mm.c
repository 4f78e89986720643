/* 3mm: three matrix multiplications G := (A*B)*(C*D).
   PolyBench/C 4.2.1 linear-algebra/kernels/3mm, rewritten for cbana. */
#include "../../polybench.h"

#if !defined(NI) && !defined(NJ) && !defined(NK) && !defined(NL) && !defined(NM)
#ifdef MINI_DATASET
#define NI 16
#define NJ 18
#define NK 20
#define NL 22
#define NM 24
#endif
#ifdef SMALL_DATASET
#define NI 40
#define NJ 50
#define NK 60
#define NL 70
#define NM 80
#endif
#ifdef MEDIUM_DATASET
#define NI 180
#define NJ 190
#define NK 200
#define NL 210
#define NM 220
#endif
#ifdef LARGE_DATASET
#define NI 800
#define NJ 900
#define NK 1000
#define NL 1100
#define NM 1200
#endif
#ifdef EXTRALARGE_DATASET
#define NI 1600
#define NJ 1800
#define NK 2000
#define NL 2200
#define NM 2400
#endif
#endif

static void init_array(int ni, int nj, int nk, int nl, int nm, double A[NI][NK],
                       double B[NK][NJ], double C[NJ][NM], double D[NM][NL]) {
  int i, j;

  for (i = 0; i < ni; i++)
    for (j = 0; j < nk; j++)
      A[i][j] = (double)((i * j + 1) % ni) / (5 * ni);
  for (i = 0; i < nk; i++)
    for (j = 0; j < nj; j++)
      B[i][j] = (double)((i * (j + 1) + 2) % nj) / (5 * nj);
  for (i = 0; i < nj; i++)
    for (j = 0; j < nm; j++)
      C[i][j] = (double)(i * (j + 3) % nl) / (5 * nl);
  for (i = 0; i < nm; i++)
    for (j = 0; j < nl; j++)
      D[i][j] = (double)((i * (j + 2) + 2) % nk) / (5 * nk);
}

static void kernel_3mm(int ni, int nj, int nk, int nl, int nm, double E[NI][NJ],
                       double A[NI][NK], double B[NK][NJ], double F[NJ][NL],
                       double C[NJ][NM], double D[NM][NL], double G[NI][NL]) {
  int i, j, k;

  /* E := A*B */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nj; j++) {
      E[i][j] = 0.0;
      for (k = 0; k < nk; ++k)
        E[i][j] += A[i][k] * B[k][j];
    }
  /* F := C*D */
  for (i = 0; i < nj; i++)
    for (j = 0; j < nl; j++) {
      F[i][j] = 0.0;
      for (k = 0; k < nm; ++k)
        F[i][j] += C[i][k] * D[k][j];
    }
  /* G := E*F */
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++) {
      G[i][j] = 0.0;
      for (k = 0; k < nj; ++k)
        G[i][j] += E[i][k] * F[k][j];
    }
}

static double checksum(int ni, int nl, double G[NI][NL]) {
  double s = 0.0;
  int i, j;
  for (i = 0; i < ni; i++)
    for (j = 0; j < nl; j++)
      s += G[i][j];
  return s;
}

int main(void) {
  int ni = NI;
  int nj = NJ;
  int nk = NK;
  int nl = NL;
  int nm = NM;
  double(*E)[NJ] = pb_alloc((size_t)NI * NJ, sizeof(double));
  double(*A)[NK] = pb_alloc((size_t)NI * NK, sizeof(double));
  double(*B)[NJ] = pb_alloc((size_t)NK * NJ, sizeof(double));
  double(*F)[NL] = pb_alloc((size_t)NJ * NL, sizeof(double));
  double(*C)[NM] = pb_alloc((size_t)NJ * NM, sizeof(double));
  double(*D)[NL] = pb_alloc((size_t)NM * NL, sizeof(double));
  double(*G)[NL] = pb_alloc((size_t)NI * NL, sizeof(double));

  init_array(ni, nj, nk, nl, nm, A, B, C, D);
  kernel_3mm(ni, nj, nk, nl, nm, E, A, B, F, C, D, G);
  printf("%.17g\n", checksum(ni, nl, G));

  free(E);
  free(A);
  free(B);
  free(F);
  free(C);
  free(D);
  free(G);
  return 0;
}
