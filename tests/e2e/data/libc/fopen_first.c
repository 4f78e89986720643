/* A FILE stream's own mallocs and frees (fopen's FILE, the buffer at the
 * first read or write, fclose's frees) with malloc's traffic: when fopen
 * makes the program's first malloc, glibc's ptmalloc_init and tcache
 * set-up run inside it. The program writes its input file first. argv[1]:
 * how the file is read back; argv[2]: 1 to malloc before the first fopen
 * (the set-up then runs in the program's malloc). */
#include <stdio.h>
#include <stdlib.h>

static int tab[2048];

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  void *p = argc > 2 && atoi(argv[2]) ? malloc(16) : NULL;
  FILE *w = fopen("fopen_first.tmp", "w");
  if (!w)
    return 1;
  for (int i = 1; i <= 60; i += 2)
    fprintf(w, "%d %d\n", i, i + 1);
  fclose(w);
  FILE *f = fopen("fopen_first.tmp", "r");
  long s = 0;
  int a = 0, b = 0, c;
  char buf[64];
  if (!f)
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
  if (mode != 5)
    fclose(f);
  /* a missing file: fopen mallocs the FILE and frees it again */
  if (fopen("fopen_first.missing", "r"))
    return 2;
  /* the program's own work, so that its few spills around the calls are
   * a small share of its accesses */
  for (int i = 0; i < 2048; i++)
    tab[i] = i * mode + (int)s;
  for (int i = 0; i < 2048; i += 3)
    s += tab[i];
  printf("%d %ld %d\n", mode, s, p != NULL);
  remove("fopen_first.tmp");
  free(p);
  return 0;
}
