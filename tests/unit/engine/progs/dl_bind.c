/* First calls of PLT functions (test_dlfixup.c): posix_memalign, memset
 * (an IFUNC), free, printf, each bound by ld.so on its first call. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  (void)argv;
  size_t n = 1000 + (size_t)argc;
  void *p = NULL;
  if (posix_memalign(&p, 64, n))
    return 1;
  memset(p, argc, n);
  double s = ((unsigned char *)p)[7];
  free(p);
  printf("%g\n", s);
  return 0;
}
