/* Adjacent loads and stores that clang -O2 merges into one wider access
 * (DAGCombiner's MergeConsecutiveStores, tryStoreMergeOfLoads), and ones
 * it leaves: tests/e2e/merged_access.sh checks the merges in the object
 * code and every line's accesses against cachegrind. */
#include <stdio.h>
#include <stdlib.h>

struct pt {
  int x, y;
};

/* Swaps of adjacent pairs of doubles (a bit-reversal permutation of
   complex numbers): the first pair's loads become one 16-byte load and
   its stores one 16-byte store; the second pair's stay two and two. */
static void swap_pairs(int n, double *a, const int *idx) {
  for (int k = 0; k < n; k++) {
    int j1 = idx[k], k1 = idx[n - 1 - k];
    if (j1 >= k1)
      continue;
    double xr = a[j1], xi = a[j1 + 1];
    double yr = a[k1], yi = a[k1 + 1];
    a[j1] = yr;
    a[j1 + 1] = yi;
    a[k1] = xr;
    a[k1 + 1] = xi;
  }
}

/* A copy of four floats (one 16-byte load and store) and of a struct's
   two ints (8 bytes each way) between different arrays. */
static void copy_quads(int n, float *restrict d, const float *restrict s,
                       struct pt *restrict q, const struct pt *restrict p,
                       const int *idx) {
  for (int k = 0; k < n; k++) {
    int i = idx[k];
    float a0 = s[i], a1 = s[i + 1], a2 = s[i + 2], a3 = s[i + 3];
    d[i] = a0;
    d[i + 1] = a1;
    d[i + 2] = a2;
    d[i + 3] = a3;
    int px = p[k].x, py = p[k].y;
    q[i / 2].x = px;
    q[i / 2].y = py;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4096;
  double *a = malloc(sizeof(double) * 2 * n);
  int *idx = malloc(sizeof(int) * n);
  float *s = malloc(sizeof(float) * 4 * n), *d = malloc(sizeof(float) * 4 * n);
  struct pt *p = malloc(sizeof *p * n), *q = malloc(sizeof *q * 2 * n);
  for (int i = 0; i < 2 * n; i++)
    a[i] = i * 0.5;
  for (int i = 0; i < 4 * n; i++)
    s[i] = (float)i, d[i] = 0;
  for (int i = 0; i < n; i++) {
    idx[i] = (int)((i * 2654435761u) % (unsigned)n) * 2;
    p[i].x = i;
    p[i].y = -i;
    q[i].x = q[i].y = q[n + i].x = q[n + i].y = 0;
  }
  for (int r = 0; r < 8; r++)
    swap_pairs(n, a, idx);
  for (int r = 0; r < 4; r++)
    copy_quads(n, d, s, q, p, idx);
  double sum = 0;
  for (int i = 0; i < 2 * n; i++)
    sum += a[i] * (i % 7);
  for (int i = 0; i < 4 * n; i++)
    sum += d[i] * (i % 5);
  for (int i = 0; i < 2 * n; i++)
    sum += q[i].x - 2 * q[i].y;
  printf("%.1f\n", sum);
  free(a);
  free(idx);
  free(s);
  free(d);
  free(p);
  free(q);
  return 0;
}
