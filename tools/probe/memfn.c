/* Probe: the data traffic of glibc's memset/memcpy/memmove/strlen.
 * For every size in a list it calls the function once on heap buffers,
 * between two calls of mark(): under `valgrind --tool=lackey
 * --trace-mem=yes` the stores to `marker` delimit each call's accesses.
 * argv: FUNC DSTOFF SRCOFF SIZE...
 * FUNC: memset memcpy memmove strlen, or memmove_in (source inside the
 * destination buffer: overlapping moves). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile long marker;

__attribute__((noinline)) static void mark(long id) {
  marker = id;
}

int main(int argc, char **argv) {
  if (argc < 5)
    return 2;
  const char *fn = argv[1];
  size_t doff = (size_t)atol(argv[2]), soff = (size_t)atol(argv[3]);
  size_t maxn = 0;
  for (int i = 4; i < argc; i++)
    if ((size_t)atol(argv[i]) > maxn)
      maxn = (size_t)atol(argv[i]);
  /* 4096-aligned buffers, so that the offsets are the alignments. */
  char *dst, *src;
  if (posix_memalign((void **)&dst, 4096, maxn + 8192) ||
      posix_memalign((void **)&src, 4096, maxn + 8192))
    return 1;
  memset(src, 'a', maxn + 8192);
  memset(dst, 'b', maxn + 8192);
  char *d = dst + doff, *s = src + soff;
  /* memmove_in: source and destination in the same buffer (overlap). */
  if (!strcmp(fn, "memmove_in")) {
    fn = "memmove";
    s = dst + soff;
  }
  volatile size_t sink = 0;
  int f = !strcmp(fn, "memset")    ? 0
          : !strcmp(fn, "memcpy")  ? 1
          : !strcmp(fn, "memmove") ? 2
                                   : 3;
  printf("dst 0x%lx src 0x%lx span %zu\n", (unsigned long)dst,
         (unsigned long)src, maxn + 8192);
  fflush(stdout);
  for (int i = 4; i < argc; i++) {
    size_t n = (size_t)atol(argv[i]);
    if (f == 3)
      s[n] = 0;
    mark(i);
    switch (f) {
    case 0:
      memset(d, 7, n);
      break;
    case 1:
      memcpy(d, s, n);
      break;
    case 2:
      memmove(d, s, n);
      break;
    default:
      sink += strlen(s);
    }
    mark(-i);
    if (f == 3)
      s[n] = 'a';
  }
  (void)sink;
  return 0;
}
