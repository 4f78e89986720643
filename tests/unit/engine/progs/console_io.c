/* Console stdio against the real C library: a tokenizer over stdin with
 * getchar/ungetc (as McGill's exptree does), fgets on stdin, perror,
 * setvbuf on stdout, fprintf to stderr, snprintf, puts, fflush and a
 * write(1, ...) between buffered output. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char obuf[256];

/* the next number of stdin, or -1 at its end */
static long next_number(void) {
  int c;
  while ((c = getchar()) != EOF && (c < '0' || c > '9'))
    ;
  if (c == EOF)
    return -1;
  long v = 0;
  while (c >= '0' && c <= '9') {
    v = v * 10 + (c - '0');
    c = getchar();
  }
  ungetc(c, stdin);
  return v;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  char *m0 = malloc(16);
  if (mode == 1)
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);
  else if (mode == 2)
    setvbuf(stdout, NULL, _IONBF, 0);
  char line[64];
  if (fgets(line, sizeof line, stdin))
    printf("header: %s", line);
  int c = getc(stdin);
  ungetc('@', stdin);
  int back = getchar();
  ungetc(c, stdin);
  long sum = 0, n = 0, v;
  while ((v = next_number()) >= 0) {
    sum += v;
    n++;
  }
  char *m1 = malloc(16);
  char msg[40];
  int k = snprintf(msg, sizeof msg, "%ld numbers, sum %ld, mean %.3f", n, sum,
                   n ? (double)sum / (double)n : 0.0);
  puts(msg);
  printf("back %d first %d len %d heap %ld eof %d\n", back, c, k,
         (long)(m1 - m0), feof(stdin));
  fflush(stdout);
  write(1, "[raw]\n", 6);
  printf("after raw\n");
  errno = ERANGE;
  perror("range");
  fprintf(stderr, "errno now %d\n", errno);
  errno = ENOENT;
  perror(NULL);
  fputs("done\n", stderr);
  printf("%s", "end\n");
  return (int)(sum % 100);
}
