/* stdin's buffer made by the program's first malloc, inside scanf,
 * fscanf(stdin) or getchar: glibc's ptmalloc_init and tcache set-up run
 * there (McCat/01-qbsort's and 04-bisect's first reads). argv[1]: which
 * function reads. */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long s = 0;
  int a, c;
  if (mode == 0)
    while (scanf("%d", &a) == 1)
      s += a;
  if (mode == 1)
    while (fscanf(stdin, "%d", &a) == 1)
      s += a;
  if (mode == 2)
    while ((c = getchar()) != EOF)
      s += c;
  printf("%d %ld\n", mode, s);
  return 0;
}
