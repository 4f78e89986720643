/* pr: PageRank on a random CSR graph (the CBANA paper's "pr", Table II).
 *
 *   pr NODES EDGES [SEED [ITERATIONS]]
 *
 * The graph is built by graph.h from SEED (default 1); it is undirected, so
 * a vertex's in-neighbours are its neighbours. ITERATIONS (default 20)
 * pull-style iterations with damping 0.85:
 *   contrib[u] = rank[u] / degree(u)          (0 for isolated vertices)
 *   rank[v]    = 0.15 / n + 0.85 * sum of contrib[u], u neighbour of v
 * Prints one line: the sum of the ranks and the sum of (v+1) * rank[v].
 * Irregular: contrib[] is read at the indexes stored in the lists. */
#include <stdio.h>
#include <stdlib.h>

#include "graph.h"

#define DAMPING 0.85

static void pagerank(const struct csr *g, int iters, double *rank,
                     double *contrib) {
  int u, it;
  double base = (1.0 - DAMPING) / g->n;

  for (u = 0; u < g->n; u++)
    rank[u] = 1.0 / g->n;
  for (it = 0; it < iters; it++) {
    for (u = 0; u < g->n; u++) {
      long deg = g->row[u + 1] - g->row[u];
      contrib[u] = deg > 0 ? rank[u] / deg : 0.0;
    }
    for (u = 0; u < g->n; u++) {
      double s = 0.0;
      long k;
      for (k = g->row[u]; k < g->row[u + 1]; k++)
        s += contrib[g->col[k]];
      rank[u] = base + DAMPING * s;
    }
  }
}

int main(int argc, char **argv) {
  struct csr g;
  int n, u, iters = 20;
  long edges;
  unsigned seed = 1;
  double *rank, *contrib, sum = 0.0, wsum = 0.0;

  if (argc < 3) {
    printf("usage: pr NODES EDGES [SEED [ITERATIONS]]\n");
    return 2;
  }
  n = atoi(argv[1]);
  edges = atol(argv[2]);
  if (argc > 3)
    seed = (unsigned)strtol(argv[3], NULL, 10);
  if (argc > 4)
    iters = atoi(argv[4]);
  if (n < 2 || edges < 1 || iters < 0 || graph_build(&g, n, edges, seed) != 0) {
    printf("pr: bad arguments or out of memory\n");
    return 2;
  }

  rank = malloc((size_t)n * sizeof *rank);
  contrib = malloc((size_t)n * sizeof *contrib);
  if (!rank || !contrib)
    return 1;
  pagerank(&g, iters, rank, contrib);
  for (u = 0; u < n; u++) {
    sum += rank[u];
    wsum += (u + 1) * rank[u];
  }

  printf("%.17g %.17g\n", sum, wsum);
  free(rank);
  free(contrib);
  graph_free(&g);
  return 0;
}
