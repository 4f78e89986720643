/* fclose, rewind and ftell on the standard streams: stdin is read to its
 * end three times (rewind after the end; then from inside the first block,
 * where glibc only moves its read pointer back), ftell of stdin and stdout
 * (with output waiting and after fflush), then stdout and stderr closed, stdout
 * with a FILE from fopen still open ahead of it in glibc's list of streams
 * (modes 1-3), stderr never written (mode 1), stdin closed (mode 3). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long n = 0, sum = 0;
  int c;
  while ((c = getc(stdin)) != EOF) {
    n++;
    sum += c;
  }
  rewind(stdin);
  long again = 0;
  while ((c = getc(stdin)) != EOF) {
    again++;
    if (again == 100)
      printf("at 100: ftell(stdin) %ld\n", ftell(stdin));
  }
  /* a rewind from inside the first block after an earlier rewind: glibc
   * only moves its read pointer back */
  rewind(stdin);
  long head = 0;
  for (int i = 0; i < 100; i++)
    head += getc(stdin);
  rewind(stdin);
  long third = 0;
  while ((c = getc(stdin)) != EOF)
    third += c;
  printf("bytes %ld sum %ld again %ld head %ld third %ld\n", n, sum, again,
         head, third);
  long t1 = ftell(stdout);
  fflush(stdout);
  long t2 = ftell(stdout);
  printf("ftell(stdout) %ld %ld\n", t1, t2);
  if (mode != 1)
    fprintf(stderr, "to stderr\n");
  FILE *null = mode ? fopen("/dev/null", "r") : NULL;
  if (mode == 2)
    fflush(stdout);
  int r1 = fclose(stdout);
  int r2 = fclose(stderr);
  int r3 = mode == 3 ? fclose(stdin) : 0;
  if (null)
    fclose(null);
  void *p = malloc(100);
  memset(p, r1 + r2 + r3, 100);
  free(p);
  return r1 + r2 + r3;
}
