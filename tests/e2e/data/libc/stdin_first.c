/* stdin's buffer made by the program's first malloc, inside scanf,
 * or fscanf(stdin): glibc's ptmalloc_init and tcache set-up run there
 * (McCat/01-qbsort's and 04-bisect's first reads). argv[1]: which
 * function reads. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long s = 0;
  int a;
  if (mode == 0)
    while (scanf("%d", &a) == 1)
      s += a;
  if (mode == 1)
    while (fscanf(stdin, "%d", &a) == 1)
      s += a;
  printf("%d %ld\n", mode, s);
  return 0;
}
