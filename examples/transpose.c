/* The bundled example of `make demo`: a matrix transpose done two ways.
 * argv[1] is the size, argv[2] picks the loop order: 0 walks the source
 * by rows (the destination is written down its columns), 1 the opposite;
 * argv[3] pads each row by that many doubles, which moves the columns out
 * of each other's cache sets. */
#include <stdio.h>
#include <stdlib.h>

static void transpose(int n, int ld, const double *src, double *dst,
                      int order) {
  if (order == 0) {
    for (int i = 0; i < n; i++)
      for (int j = 0; j < n; j++)
        dst[j * ld + i] = src[i * ld + j];
  } else {
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++)
        dst[j * ld + i] = src[i * ld + j];
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 256;
  int order = argc > 2 ? atoi(argv[2]) : 0;
  int pad = argc > 3 ? atoi(argv[3]) : 0;
  int ld = n + pad;
  double *src = malloc(sizeof(double) * (size_t)n * ld);
  double *dst = malloc(sizeof(double) * (size_t)n * ld);
  if (!src || !dst)
    return 1;
  for (int i = 0; i < n * ld; i++)
    src[i] = i % 97;
  transpose(n, ld, src, dst, order);
  double s = 0;
  for (int i = 0; i < n; i++)
    s += dst[i * ld + (i * 7) % n];
  printf("%.1f\n", s);
  free(src);
  free(dst);
  return 0;
}
