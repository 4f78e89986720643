/* graph.h: the random undirected graph that tc.c and pr.c run on, built in
   compressed sparse row (CSR) form from a seed, inside the program.
 *
 * EDGES endpoint pairs (u, v), u != v, are drawn with rand() % NODES after
 * srand(SEED) (glibc), each stored in both directions; every adjacency list
 * is then sorted and duplicates are removed, so the result is a simple
 * graph whose lists are sorted ascending (triangle counting relies on it).
 * Only malloc/free and rand/srand are called. */
#ifndef CBANA_WORKLOADS_GRAPH_H
#define CBANA_WORKLOADS_GRAPH_H

#include <stdlib.h>

struct csr {
  int n;     /* nodes */
  long nnz;  /* stored (directed) edges: twice the undirected ones */
  long *row; /* n + 1 offsets into col */
  int *col;  /* neighbours, sorted within each row */
};

/* Sort a[0..len) ascending (insertion sort: adjacency lists are short). */
static void sort_ints(int *a, long len) {
  long i, j;
  for (i = 1; i < len; i++) {
    int v = a[i];
    for (j = i - 1; j >= 0 && a[j] > v; j--)
      a[j + 1] = a[j];
    a[j + 1] = v;
  }
}

/* Build the graph; returns 0, or -1 if an allocation fails. */
static int graph_build(struct csr *g, int n, long edges, unsigned seed) {
  int *src = malloc((size_t)edges * sizeof *src);
  int *dst = malloc((size_t)edges * sizeof *dst);
  long *pos = malloc((size_t)(n + 1) * sizeof *pos);
  long *row = malloc((size_t)(n + 1) * sizeof *row);
  int *col = malloc((size_t)(2 * edges) * sizeof *col);
  long k, w;
  int i;

  if (!src || !dst || !pos || !row || !col || n < 2)
    return -1;

  srand(seed);
  for (k = 0; k < edges; k++) {
    int u = rand() % n;
    int v = rand() % n;
    if (u == v)
      v = (v + 1) % n;
    src[k] = u;
    dst[k] = v;
  }

  /* degrees, then offsets */
  for (i = 0; i <= n; i++)
    row[i] = 0;
  for (k = 0; k < edges; k++) {
    row[src[k] + 1]++;
    row[dst[k] + 1]++;
  }
  for (i = 0; i < n; i++)
    row[i + 1] += row[i];

  /* scatter both directions */
  for (i = 0; i <= n; i++)
    pos[i] = row[i];
  for (k = 0; k < edges; k++) {
    col[pos[src[k]]++] = dst[k];
    col[pos[dst[k]]++] = src[k];
  }

  /* sort each list and drop duplicates, compacting in place */
  w = 0;
  for (i = 0; i < n; i++) {
    long b = row[i], e = row[i + 1];
    sort_ints(col + b, e - b);
    row[i] = w;
    for (k = b; k < e; k++)
      if (k == b || col[k] != col[k - 1])
        col[w++] = col[k];
  }
  row[n] = w;

  free(src);
  free(dst);
  free(pos);
  g->n = n;
  g->nnz = w;
  g->row = row;
  g->col = col;
  return 0;
}

static void graph_free(struct csr *g) {
  free(g->row);
  free(g->col);
}

#endif /* CBANA_WORKLOADS_GRAPH_H */
