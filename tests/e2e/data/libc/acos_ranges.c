/* acos_ranges.c: acos over each range of glibc's __ieee754_acos (tiny,
 * below 0.125, the asncs rows up to 0.96875, the root near 1, 1 itself),
 * both signs, each call followed by a walk over a 32 KiB array (the whole
 * L1D): the tables and stack lines acos touches evict the walk's lines in
 * their sets. argv[1] picks the range, argv[2] the rounds. */
#include <math.h>
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

int main(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : 0;
  int rounds = argc > 2 ? atoi(argv[2]) : 100;
  static const double lo[] = {1e-20, 0.01, 0.2, 0.55, 0.8, 0.93, 0.96, 0.98};
  static const double hi[] = {1e-18, 0.12, 0.45, 0.7, 0.9, 0.95, 0.965, 0.999};
  static const double sign[] = {1.0, -1.0};
  double sum = 0;
  long w = 0;
  for (int i = 0; i < rounds; i++) {
    int r = which < 8 ? which : i % 8;
    double x = lo[r] + (hi[r] - lo[r]) * (double)(i % 97) / 97.0;
    x *= sign[i & 1]; /* a load, where -x would be a branch's xorpd */
    sum += acos(x);
    w += walk();
  }
  printf("%.6f %ld\n", sum, w);
  return 0;
}
