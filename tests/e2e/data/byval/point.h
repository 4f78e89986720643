struct point {
  double x, y, z, tx, ty, tz;
};
struct blob {
  int w[35];
};
double point_norm1(struct point p);
long blob_sum(struct blob b);
