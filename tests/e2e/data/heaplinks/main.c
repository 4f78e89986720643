/* Blocks from memalign freed in an interleaved order, then a large
 * request: glibc's malloc_consolidate walks the fastbins, coalesces
 * neighbours (unlink_chunk rewrites the links of the chunks around each
 * one) and sorts the unsorted list into the bins (the next chunk's size
 * and prev_size checked, the neighbours' links rewritten): reads and
 * writes of chunks all over the heap, which miss. */
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = 4000 };
static void *p[N];

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 10;
  long s = 0;
  for (int r = 0; r < rounds; r++) {
    for (int i = 0; i < N; i++)
      p[i] = memalign(32, 24 + (i % 3) * 16);
    for (int i = 0; i < N; i += 2)
      free(p[i]);
    void *big = malloc(2000);
    s += big != NULL;
    free(big);
    for (int i = 1; i < N; i += 2)
      free(p[i]);
  }
  printf("%ld\n", s);
  return 0;
}
