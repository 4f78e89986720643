/* First calls of PLT functions (test_dlfixup.c), each bound by ld.so on
 * its first call: posix_memalign (a weak symbol), memset, memcpy and
 * strlen (IFUNCs; memcpy needs GLIBC_2.14, so the executable's version
 * array has 5 entries), malloc, strtod, free, printf. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  size_t n = 1000 + (size_t)argc;
  void *p = NULL;
  if (posix_memalign(&p, 64, n))
    return 1;
  memset(p, argc, n);
  char *q = malloc(n);
  memcpy(q, p, n);
  size_t l = strlen(argv[0]);
  double s = ((unsigned char *)q)[7] + (double)l + strtod("2.5", NULL);
  free(q);
  free(p);
  printf("%g\n", s);
  return 0;
}
