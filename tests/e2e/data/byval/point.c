#include "point.h"

double point_norm1(struct point p) { return p.x + p.y + p.z + p.tx; }

long blob_sum(struct blob b) {
  long s = 0;
  for (int k = 0; k < 35; k++)
    s += b.w[k];
  return s;
}
