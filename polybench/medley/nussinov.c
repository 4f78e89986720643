/* nussinov: RNA secondary structure prediction by dynamic programming
   (Nussinov's algorithm). PolyBench/C 4.2.1 medley/nussinov, rewritten for
   cbana. As in PolyBench the table is int and the bases are char. */
#include "../polybench.h"

#if !defined(N)
#ifdef MINI_DATASET
#define N 60
#endif
#ifdef SMALL_DATASET
#define N 180
#endif
#ifdef MEDIUM_DATASET
#define N 500
#endif
#ifdef LARGE_DATASET
#define N 2500
#endif
#ifdef EXTRALARGE_DATASET
#define N 5500
#endif
#endif

/* RNA bases as chars in [0, 3] */
typedef char base;

#define match(b1, b2) (((b1) + (b2)) == 3 ? 1 : 0)
#define max_score(s1, s2) ((s1 >= s2) ? s1 : s2)

static void init_array(int n, base seq[N], int table[N][N]) {
  int i, j;

  for (i = 0; i < n; i++) {
    seq[i] = (base)((i + 1) % 4);
  }

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      table[i][j] = 0;
}

static void kernel_nussinov(int n, base seq[N], int table[N][N]) {
  int i, j, k;

  for (i = n - 1; i >= 0; i--) {
    for (j = i + 1; j < n; j++) {

      if (j - 1 >= 0)
        table[i][j] = max_score(table[i][j], table[i][j - 1]);
      if (i + 1 < n)
        table[i][j] = max_score(table[i][j], table[i + 1][j]);

      if (j - 1 >= 0 && i + 1 < n) {
        /* adjacent elements do not bond */
        if (i < j - 1)
          table[i][j] = max_score(table[i][j],
                                  table[i + 1][j - 1] + match(seq[i], seq[j]));
        else
          table[i][j] = max_score(table[i][j], table[i + 1][j - 1]);
      }

      for (k = i + 1; k < j; k++) {
        table[i][j] = max_score(table[i][j], table[i][k] + table[k + 1][j]);
      }
    }
  }
}

/* The upper triangle, which is what PolyBench dumps. */
static long checksum(int n, int table[N][N]) {
  long s = 0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = i; j < n; j++)
      s += table[i][j];
  return s;
}

int main(void) {
  int n = N;
  base *seq = pb_alloc(N, sizeof(base));
  int(*table)[N] = pb_alloc((size_t)N * N, sizeof(int));

  init_array(n, seq, table);
  kernel_nussinov(n, seq, table);
  printf("%ld\n", checksum(n, table));

  free(seq);
  free(table);
  return 0;
}
