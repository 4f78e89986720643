/* floyd-warshall: all-pairs shortest paths on an N-node graph.
   PolyBench/C 4.2.1 medley/floyd-warshall, rewritten for cbana. As in
   PolyBench the data type is int. */
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
#define N 2800
#endif
#ifdef EXTRALARGE_DATASET
#define N 5600
#endif
#endif

static void init_array(int n, int path[N][N]) {
  int i, j;

  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++) {
      path[i][j] = i * j % 7 + 1;
      if ((i + j) % 13 == 0 || (i + j) % 7 == 0 || (i + j) % 11 == 0)
        path[i][j] = 999;
    }
}

static void kernel_floyd_warshall(int n, int path[N][N]) {
  int i, j, k;

  for (k = 0; k < n; k++) {
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        path[i][j] = path[i][j] < path[i][k] + path[k][j]
                         ? path[i][j]
                         : path[i][k] + path[k][j];
  }
}

static long checksum(int n, int path[N][N]) {
  long s = 0;
  int i, j;
  for (i = 0; i < n; i++)
    for (j = 0; j < n; j++)
      s += path[i][j];
  return s;
}

int main(void) {
  int n = N;
  int(*path)[N] = pb_alloc((size_t)N * N, sizeof(int));

  init_array(n, path);
  kernel_floyd_warshall(n, path);
  printf("%ld\n", checksum(n, path));

  free(path);
  return 0;
}
