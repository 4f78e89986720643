/* A loop over packed odd-width bit-fields that clang unrolls by two: the
 * second element's index is `i | 1`, so the pairing cannot place its
 * accesses relative to the first's, and cbana must say so (the lines are
 * named in a warning) rather than count the IR's pieces silently. */
#include <stdio.h>
#include <stdlib.h>

#pragma pack(push, 1)
struct s5 {
  unsigned a : 13;
  signed b : 20;
  unsigned c : 7;
};
#pragma pack(pop)

static struct s5 arr[64];

__attribute__((noinline)) static long through(struct s5 *p, int n) {
  long t = 0;
  for (int i = 0; i < n; i++) {
    t += p[i].b;
    p[i].c = (unsigned)t;
  }
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 64;
  printf("%ld\n", through(arr, n < 64 ? n : 64));
  return 0;
}
