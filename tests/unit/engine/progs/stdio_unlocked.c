/* glibc's unlocked stdio and getline on stdin and stdout: at -O1 and up
 * <stdio.h> makes getchar_unlocked, getc_unlocked, putchar_unlocked,
 * putc_unlocked, fputc_unlocked, feof_unlocked and ferror_unlocked inline
 * code that reads and moves the FILE's buffer pointers itself and calls
 * __uflow or __overflow only when the buffer is empty or full; at -O0 they
 * are calls. Lines of every length around getline's first 120 bytes and
 * stdin's 4096-byte blocks, interleaved with printf, fputs_unlocked,
 * fwrite_unlocked, ungetc, getdelim, and a file stream read with
 * getc_unlocked and getline. Usage: stdio_unlocked MODE [FILE]: MODE's bit
 * 0 echoes the first lines, bit 1 echoes the tail, bit 2 reads FILE. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long hash(const char *s, size_t n, unsigned long h) {
  for (size_t i = 0; i < n; i++)
    h = h * 33 + (unsigned char)s[i];
  return h;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  int c;
  long n = 0, lines = 0;
  printf("start\n");
  /* the first lines a byte at a time, through the inline forms */
  while ((c = getchar_unlocked()) != EOF) {
    n += c;
    if (mode & 1)
      putchar_unlocked(c == 'a' ? 'A' : c);
    if (c == '\n' && ++lines == 3)
      break;
  }
  /* getline: 120 bytes first, then twice as many while a line needs it */
  char *line = NULL;
  size_t cap = 0;
  ssize_t k;
  unsigned long h = 5381;
  while ((k = getline(&line, &cap, stdin)) > 0) {
    n += k;
    h = hash(line, (size_t)k, h);
    printf("%zd %zu\n", k, cap);
    if (line[0] == 'z') {
      /* the byte read before goes back: no backup area */
      ungetc('\n', stdin);
      break;
    }
    if (k < 200) {
      fputs_unlocked(line, stdout);
      putc_unlocked('|', stdout);
    } else {
      fwrite_unlocked(line, 1, 40, stdout);
      fputc_unlocked('\n', stdout);
    }
  }
  /* getdelim up to a space, twice, then the rest through getc_unlocked */
  for (int i = 0; i < 2; i++) {
    k = getdelim(&line, &cap, ' ', stdin);
    printf("getdelim %zd %zu\n", k, cap);
  }
  long tail = 0;
  while ((c = getc_unlocked(stdin)) != EOF) {
    tail++;
    if (mode & 2)
      fputc_unlocked(c, stdout);
  }
  printf("\n%ld %ld %lx eof %d err %d cap %zu\n", n, tail, h,
         feof_unlocked(stdin) != 0, ferror_unlocked(stdin) != 0, cap);
  /* getline at the end: -1, the buffer kept */
  printf("at end %zd\n", getline(&line, &cap, stdin));
  if ((mode & 4) && argc > 2) {
    FILE *f = fopen(argv[2], "r");
    if (!f)
      return 2;
    long fl = 0, fc = 0;
    while ((k = getline(&line, &cap, f)) > 0 && fl < 50)
      fl++;
    while ((c = getc_unlocked(f)) != EOF)
      fc++;
    printf("file: %ld lines, %ld bytes after, eof %d\n", fl, fc,
           feof_unlocked(f) != 0);
    fclose(f);
  }
  free(line);
  return 0;
}
