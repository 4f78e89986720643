/* Strings and writes longer than 16 MiB: strlen, strcat and fwrite read
 * them to their end as glibc does (a string grown by realloc, as LLVM's
 * Shootout/strcat grows one). Argument: the first length. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  size_t n = argc > 1 ? (size_t)atol(argv[1]) : 1000;
  char *p = malloc(n);
  if (!p)
    return 1;
  memset(p, 'a', n - 1);
  p[n - 1] = 0;
  char *q = realloc(p, 2 * n + 8);
  if (!q)
    return 1;
  printf("%zu\n", strlen(q));
  memset(q + n - 1, 'b', n);
  q[2 * n - 1] = 0;
  strcat(q, "tail");
  printf("%zu %c\n", strlen(q), q[2 * n + 2]);
  size_t w = fwrite(q + n, 1, n + 3, stdout);
  printf("\n%zu\n", w);
  free(q);
  return 0;
}
