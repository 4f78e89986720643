/* By-value struct arguments copied by the caller: from the heap (loads
 * through a register, stores to the argument area) at 48 bytes (16-byte
 * moves) and at 140 bytes (`rep movsq` and a 4-byte rest). */
#include <stdio.h>
#include <stdlib.h>

#include "point.h"

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  struct point *pts = malloc(n * sizeof *pts);
  struct blob *blobs = malloc(n * sizeof *blobs);
  for (int i = 0; i < n; i++) {
    pts[i] = (struct point){i, i + 1, i + 2, i * 0.5, i * 0.25, i * 0.125};
    for (int k = 0; k < 35; k++)
      blobs[i].w[k] = i * 35 + k;
  }
  double s = 0;
  long t = 0;
  for (int r = 0; r < 3; r++)
    for (int i = 0; i < n; i++) {
      struct point *p = &pts[(i * 7) % n];
      s += point_norm1(*p);
      t += blob_sum(blobs[(i * 13) % n]);
    }
  printf("%.3f %ld\n", s, t);
  return 0;
}
