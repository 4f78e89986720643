/* Heap blocks at known allocation sites (tests/e2e/report_alloc.sh reads
 * the SITE markers for the lines). Built with -O1: every access below is
 * one load or store, loop counters stay in registers. */
#include <stdio.h>
#include <stdlib.h>

#define NB 8
#define NE 64
#ifndef BIG
#define BIG 32768 /* doubles: 256 KiB, above the mmap threshold */
#endif

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 1;
  long *blk[NB];
  for (int k = 0; k < NB; k++)
    blk[k] = malloc(NE * sizeof(long)); /* SITE A */
  for (int k = 0; k < NB; k++)
    for (int i = 0; i < NE; i++)
      blk[k][i] = i * n + k; /* 512 stores to A */
  free(blk[3]);
  long *r = malloc(NE * sizeof(long)); /* SITE B: blk[3]'s chunk again */
  for (int i = 0; i < NE; i++)
    r[i] = i + n;                          /* 64 stores to B */
  double *g = malloc(16 * sizeof(double)); /* SITE C */
  for (int i = 0; i < 16; i++)
    g[i] = i * 0.5;                      /* 16 stores to C */
  g = realloc(g, 1024 * sizeof(double)); /* SITE D */
  for (int i = 16; i < 1024; i++)
    g[i] = i * 0.25;                        /* 1008 stores to D */
  double *m = malloc(BIG * sizeof(double)); /* SITE M */
  for (int i = 0; i < BIG; i++)
    m[i] = i * (double)n; /* 32768 stores to M */
  double s = 0;
  for (int i = 0; i < BIG; i++)
    s += m[i]; /* 32768 loads of M */
  long t = 0;
  for (int k = 0; k < NB; k++)
    if (k != 3)
      for (int i = 0; i < NE; i++)
        t += blk[k][i]; /* 448 loads of A */
  for (int i = 0; i < NE; i++)
    t += r[i]; /* 64 loads of B */
  for (int i = 0; i < 1024; i++)
    s += g[i]; /* 1024 loads of D */
  printf("%.1f %ld\n", s, t);
  free(m);
  free(g);
  free(r);
  for (int k = 0; k < NB; k++)
    if (k != 3)
      free(blk[k]);
  return 0;
}
