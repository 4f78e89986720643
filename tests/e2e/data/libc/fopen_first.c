/* A FILE stream's own mallocs and frees (fopen's FILE, the buffer at the
 * first read or write, fclose's frees) with malloc's traffic: when fopen
 * makes the program's first malloc, glibc's ptmalloc_init and tcache
 * set-up run inside it. argv[1]: what to do with the stream; argv[2]: 1
 * to malloc before (the set-up then runs in the program's malloc). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  void *p = argc > 2 && atoi(argv[2]) ? malloc(16) : NULL;
  FILE *f = fopen("fopen_first.in", "r");
  FILE *out = fopen("fopen_first.out", "w");
  long s = 0;
  int a = 0, b = 0, c;
  char buf[64];
  if (!f || !out)
    return 1;
  if (mode == 1)
    while ((c = fgetc(f)) != EOF)
      s += c;
  if (mode == 2)
    while (fscanf(f, "%d %d", &a, &b) == 2)
      s += a * b;
  if (mode == 3)
    while (fgets(buf, sizeof buf, f))
      s += buf[0];
  if (mode == 4)
    s += (long)fread(buf, 1, sizeof buf, f);
  fprintf(out, "%ld\n", s);
  if (mode != 5) {
    fclose(f);
    fclose(out);
    remove("fopen_first.out");
  }
  /* a missing file: fopen mallocs the FILE and frees it again */
  if (fopen("fopen_first.missing", "r"))
    return 2;
  printf("%d %ld %d\n", mode, s, p != NULL);
  if (mode == 5) {
    fclose(out); /* mode 5 leaves f open to exit */
    remove("fopen_first.out");
  }
  free(p);
  return 0;
}
