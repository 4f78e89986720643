/* tc: triangle count on a random CSR graph (the CBANA paper's "tc",
   Table II): the total number of triangles, and the triangles at each
   vertex.
 *
 *   tc NODES EDGES [SEED [ITERATIONS]]
 *
 * The graph is built by graph.h from SEED (default 1). Each triangle
 * u < v < w is found once, by merging the sorted lists of u and v above v.
 * The count is repeated ITERATIONS times (default 1). Prints one line:
 * "TRIANGLES CHECKSUM", CHECKSUM = sum over vertices of (v+1) * tri[v].
 * Irregular: the addresses come from the loaded adjacency lists. */
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"

static long count_triangles(const struct csr *g, long *tri) {
  long total = 0;
  int u;

  for (u = 0; u < g->n; u++)
    tri[u] = 0;
  for (u = 0; u < g->n; u++) {
    long iu;
    for (iu = g->row[u]; iu < g->row[u + 1]; iu++) {
      int v = g->col[iu];
      long a, b;
      if (v <= u)
        continue;
      /* common neighbours w > v of u and v */
      a = iu + 1;
      b = g->row[v];
      while (b < g->row[v + 1] && g->col[b] <= v)
        b++;
      while (a < g->row[u + 1] && b < g->row[v + 1]) {
        int wa = g->col[a], wb = g->col[b];
        if (wa < wb) {
          a++;
        } else if (wa > wb) {
          b++;
        } else {
          total++;
          tri[u]++;
          tri[v]++;
          tri[wa]++;
          a++;
          b++;
        }
      }
    }
  }
  return total;
}

int main(int argc, char **argv) {
  struct csr g;
  int n, it, iters = 1;
  long edges, total = 0, check = 0, *tri;
  unsigned seed = 1;

  if (argc < 3) {
    printf("usage: tc NODES EDGES [SEED [ITERATIONS]]\n");
    return 2;
  }
  n = atoi(argv[1]);
  edges = atol(argv[2]);
  if (argc > 3)
    seed = (unsigned)strtol(argv[3], NULL, 10);
  if (argc > 4)
    iters = atoi(argv[4]);
  if (n < 2 || edges < 1 || graph_build(&g, n, edges, seed) != 0) {
    printf("tc: bad arguments or out of memory\n");
    return 2;
  }

  tri = malloc((size_t)n * sizeof *tri);
  if (!tri)
    return 1;
  for (it = 0; it < iters; it++)
    total = count_triangles(&g, tri);
  for (it = 0; it < n; it++)
    check += (long)(it + 1) * tri[it];

  printf("%ld %ld\n", total, check);
  free(tri);
  graph_free(&g);
  return 0;
}
