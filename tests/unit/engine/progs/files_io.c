/* File input and output against the real C library: fopen/fgets/fscanf/
 * fread/ungetc/fseek/ftell on an input file, open/read/lseek/fstat, an
 * output file written with fprintf/fputs/fputc/fwrite and read back, a
 * file written with write(2) and one removed, a missing file (NULL,
 * errno ENOENT, perror), and the heap blocks stdio makes (the distances
 * between the program's own blocks show where glibc's went). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static long dist(const void *a, const void *b) {
  return (long)((const char *)b - (const char *)a);
}

int main(int argc, char **argv) {
  const char *in = argc > 1 ? argv[1] : "files_io.data";
  int chunk = argc > 2 ? atoi(argv[2]) : 100;
  const char *out = argc > 3 ? argv[3] : "files_io.out";
  char *m0 = malloc(16);
  FILE *f = fopen(in, "r");
  char *m1 = malloc(16);
  if (!f) {
    perror(in);
    printf("no input: errno %d, heap %ld\n", errno, dist(m0, m1));
    return 3;
  }
  /* lines: a number, words, a number */
  char line[256];
  long sum = 0;
  int lines = 0, words = 0;
  for (int i = 0; i < 50 && fgets(line, sizeof line, f); i++) {
    lines++;
    sum += atol(line);
    for (char *p = line; *p; p++)
      words += *p == ' ';
  }
  char *m2 = malloc(16);
  printf("lines %d words %d sum %ld pos %ld heap %ld %ld\n", lines, words, sum,
         ftell(f), dist(m0, m1), dist(m1, m2));
  /* fscanf: number, words up to the last number */
  int v, n = 0;
  double d, dsum = 0;
  char w[32];
  while (n < 40 && fscanf(f, "%d", &v) == 1) {
    while (fscanf(f, "%31[a-z ]", w) == 1 || fscanf(f, "%lf", &d) != 1)
      ;
    dsum += d;
    sum += v;
    n++;
  }
  printf("scanned %d sum %ld dsum %.3f pos %ld\n", n, sum, dsum, ftell(f));
  /* ungetc: the same byte, then another one */
  int c = fgetc(f);
  ungetc(c, f);
  int c2 = getc(f);
  ungetc('#', f);
  char *m3 = malloc(16);
  int c3 = fgetc(f), c4 = fgetc(f);
  printf("ungetc %d %d %d %d pos %ld heap %ld\n", c, c2, c3, c4, ftell(f),
         dist(m2, m3));
  /* fread in small and large pieces, fseek and rewind */
  char *buf = malloc((size_t)chunk * 64 + 1);
  size_t got = fread(buf, 1, (size_t)chunk, f);
  unsigned long h = 0;
  for (size_t i = 0; i < got; i++)
    h = h * 31 + (unsigned char)buf[i];
  size_t big = fread(buf, 64, (size_t)chunk, f);
  for (size_t i = 0; i < big * 64; i++)
    h = h * 31 + (unsigned char)buf[i];
  printf("fread %zu %zu hash %lu eof %d\n", got, big, h, feof(f));
  size_t rest = fread(buf, 1, (size_t)chunk * 64, f);
  printf("rest %zu eof %d err %d\n", rest, feof(f), ferror(f));
  fseek(f, -10, SEEK_END);
  printf("tail %ld '%s", ftell(f), fgets(line, sizeof line, f));
  rewind(f);
  printf("first %c eof %d\n", fgetc(f), feof(f));
  fseek(f, 5000, SEEK_SET);
  printf("at 5000: %d\n", fgetc(f));
  fclose(f);
  /* the same file through descriptors */
  int fd = open(in, O_RDONLY);
  struct stat st;
  fstat(fd, &st);
  ssize_t r = read(fd, buf, 40);
  off_t end = lseek(fd, 0, SEEK_END);
  lseek(fd, 100, SEEK_SET);
  ssize_t r2 = read(fd, buf + 40, 20);
  buf[60] = 0;
  printf("fd %d size %lld read %zd %zd end %lld '%.10s' '%.10s'\n", fd,
         (long long)st.st_size, r, r2, (long long)end, buf, buf + 40);
  close(fd);
  /* an output file, read back */
  FILE *o = fopen(out, "w");
  char *m4 = malloc(16);
  for (int i = 0; i < 300; i++)
    fprintf(o, "%d:%ld\n", i, sum * i % 1000);
  fputs("end of numbers\n", o);
  fputc('!', o);
  fwrite(buf, 1, 60, o);
  fputc('\n', o);
  long opos = ftell(o);
  fclose(o);
  char *m5 = malloc(16);
  printf("wrote %ld heap %ld %ld\n", opos, dist(m3, m4), dist(m4, m5));
  o = fopen(out, "r");
  long back = 0;
  int k, val, cnt = 0;
  while (fscanf(o, "%d:%d", &k, &val) == 2) {
    back += val;
    cnt++;
  }
  fclose(o);
  printf("read back %d %ld\n", cnt, back);
  /* append, then a file with write(2), a scratch file removed */
  o = fopen(out, "a");
  fprintf(o, "appended %d\n", cnt);
  fclose(o);
  int wfd = open("files_io.raw", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ssize_t wr = write(wfd, buf, 60);
  close(wfd);
  FILE *t = fopen("files_io.tmp", "w");
  fputs("scratch\n", t);
  fclose(t);
  int rm = remove("files_io.tmp");
  FILE *gone = fopen("files_io.tmp", "r");
  int e1 = errno;
  printf("raw %zd removed %d reopen %p errno %d\n", wr, rm, (void *)gone, e1);
  errno = 0;
  FILE *none = fopen("no/such/dir/file", "r");
  if (!none)
    perror("open no/such/dir/file");
  fprintf(stderr, "errno after perror %d\n", errno);
  char *m6 = malloc(16);
  printf("heap %ld\n", dist(m5, m6));
  free(buf);
  return (int)(sum & 63);
}
