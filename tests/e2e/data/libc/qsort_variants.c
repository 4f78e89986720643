/* qsort_variants.c: qsort on 4-byte ints, 8-byte doubles and 12-byte
 * records (glibc's msort.c variants: word copies, memcpy), below and above
 * the 1024 bytes where its work area moves from the stack to the heap;
 * each sort followed by a walk over a 32 KiB array (the whole L1D), so the
 * stack lines of msort_with_tmp's recursion show in the walk's misses.
 * argv[1] picks the element type, argv[2] the count, argv[3] the rounds. */
#include <stdio.h>
#include <stdlib.h>

#define WALK (32768 / sizeof(long))
static volatile long arr[WALK];

static long walk(void) {
  long s = 0;
  for (size_t i = 0; i < WALK; i += 8)
    s += arr[i];
  return s;
}

typedef struct rec {
  int key, a, b;
} rec;

static int cmp_int(const void *x, const void *y) {
  int a = *(const int *)x, b = *(const int *)y;
  return (a > b) - (a < b);
}

static int cmp_dbl(const void *x, const void *y) {
  double a = *(const double *)x, b = *(const double *)y;
  return (a > b) - (a < b);
}

static int cmp_rec(const void *x, const void *y) {
  int a = ((const rec *)x)->key, b = ((const rec *)y)->key;
  return (a > b) - (a < b);
}

int main(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : 0;
  int n = argc > 2 ? atoi(argv[2]) : 100;
  int rounds = argc > 3 ? atoi(argv[3]) : 10;
  int *vi = malloc(n * sizeof *vi);
  double *vd = malloc(n * sizeof *vd);
  rec *vr = malloc(n * sizeof *vr);
  if (!vi || !vd || !vr)
    return 1;
  unsigned s = 12345;
  long sum = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < n; i++) {
      s = s * 1103515245u + 12345u;
      vi[i] = (int)(s >> 8) % 1000;
      vd[i] = vi[i] * 0.5;
      vr[i].key = vi[i];
      vr[i].a = i;
    }
    if (which == 0) {
      qsort(vi, n, sizeof *vi, cmp_int);
      sum += vi[0] + vi[n - 1];
    } else if (which == 1) {
      qsort(vd, n, sizeof *vd, cmp_dbl);
      sum += (long)vd[n / 2];
    } else {
      qsort(vr, n, sizeof *vr, cmp_rec);
      sum += vr[0].a + vr[n - 1].key;
    }
    sum += walk();
  }
  printf("%ld\n", sum);
  free(vi);
  free(vd);
  free(vr);
  return 0;
}
