/* doitgen: multi-resolution analysis kernel (MADNESS), A[r][q][*] := A[r][q][*]
   * C4. PolyBench/C 4.2.1 linear-algebra/kernels/doitgen, rewritten for
   cbana. As in PolyBench, kernel_doitgen is the one kernel function that is
   not static (clang still inlines it into main at -O2, and also keeps an
   out-of-line copy). */
#include "../../polybench.h"

#if !defined(NQ) && !defined(NR) && !defined(NP)
#ifdef MINI_DATASET
#define NQ 8
#define NR 10
#define NP 12
#endif
#ifdef SMALL_DATASET
#define NQ 20
#define NR 25
#define NP 30
#endif
#ifdef MEDIUM_DATASET
#define NQ 40
#define NR 50
#define NP 60
#endif
#ifdef LARGE_DATASET
#define NQ 140
#define NR 150
#define NP 160
#endif
#ifdef EXTRALARGE_DATASET
#define NQ 220
#define NR 250
#define NP 270
#endif
#endif

static void init_array(int nr, int nq, int np, double A[NR][NQ][NP],
                       double C4[NP][NP]) {
  int i, j, k;

  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        A[i][j][k] = (double)((i * j + k) % np) / np;
  for (i = 0; i < np; i++)
    for (j = 0; j < np; j++)
      C4[i][j] = (double)(i * j % np) / np;
}

void kernel_doitgen(int nr, int nq, int np, double A[NR][NQ][NP],
                    double C4[NP][NP], double sum[NP]);

void kernel_doitgen(int nr, int nq, int np, double A[NR][NQ][NP],
                    double C4[NP][NP], double sum[NP]) {
  int r, q, p, s;

  for (r = 0; r < nr; r++)
    for (q = 0; q < nq; q++) {
      for (p = 0; p < np; p++) {
        sum[p] = 0.0;
        for (s = 0; s < np; s++)
          sum[p] += A[r][q][s] * C4[s][p];
      }
      for (p = 0; p < np; p++)
        A[r][q][p] = sum[p];
    }
}

static double checksum(int nr, int nq, int np, double A[NR][NQ][NP]) {
  double s = 0.0;
  int i, j, k;
  for (i = 0; i < nr; i++)
    for (j = 0; j < nq; j++)
      for (k = 0; k < np; k++)
        s += A[i][j][k];
  return s;
}

int main(void) {
  int nr = NR;
  int nq = NQ;
  int np = NP;
  double(*A)[NQ][NP] = pb_alloc((size_t)NR * NQ * NP, sizeof(double));
  double *sum = pb_alloc(NP, sizeof(double));
  double(*C4)[NP] = pb_alloc((size_t)NP * NP, sizeof(double));

  init_array(nr, nq, np, A, C4);
  kernel_doitgen(nr, nq, np, A, C4, sum);
  printf("%.17g\n", checksum(nr, nq, np, A));

  free(A);
  free(sum);
  free(C4);
  return 0;
}
