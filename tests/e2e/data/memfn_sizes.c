/* memcpy and memset of one size, repeated: the traffic glibc's string
 * functions make on either side of their thresholds (rep movsb, rep
 * stosb, non-temporal stores), which depend on the machine as valgrind
 * presents it (analysis/process/glibc_tunables.h). tests/e2e/glibc_thresholds.sh
 * compares cbana's accesses with cachegrind's, size by size.
 * usage: memfn_sizes N REPS */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 0;
  long reps = argc > 2 ? atol(argv[2]) : 1;
  unsigned char *src = malloc(n + 1), *dst = malloc(n + 1);
  if (!src || !dst)
    return 1;
  unsigned sum = 0;
  for (long r = 0; r < reps; r++) {
    memset(src, (int)r, n);
    memcpy(dst, src, n);
    sum += dst[n / 2];
  }
  printf("%u\n", sum);
  free(src);
  free(dst);
  return 0;
}
