/* uname's fields, getuid and friends, and rename on the run's files: a file written, renamed,
 * read back under its new name; renaming a missing file (ENOENT); a
 * rename over an existing file; the old name gone afterwards. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

static long sum_of(const char *name) {
  FILE *f = fopen(name, "r");
  if (!f)
    return -1;
  long s = 0;
  int c;
  while ((c = getc(f)) != EOF)
    s = s * 31 + c;
  fclose(f);
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  struct utsname u;
  int r = uname(&u);
  printf("uname %d: %s %zu %zu %s\n", r, u.sysname, strlen(u.nodename),
         strlen(u.release), u.machine);
  printf("ids %d %d %d %d\n", (int)getuid(), (int)geteuid(), (int)getgid(),
         (int)getegid());
  /* names of this process's own (two runs at once must not share them) */
  char na[64], nb[64], nc[64];
  snprintf(na, sizeof na, "ren_a.%d.tmp", (int)getpid());
  snprintf(nb, sizeof nb, "ren_b.%d.tmp", (int)getpid());
  snprintf(nc, sizeof nc, "ren_c.%d.tmp", (int)getpid());
  for (int i = 0; i < n; i++) {
    FILE *f = fopen(na, "w");
    fprintf(f, "line %d of the file\n", i);
    fclose(f);
    int a = rename(na, nb);
    int b = rename(na, nc);
    int e = errno;
    printf("%d: rename %d, again %d errno %d, old %ld, new %ld\n", i, a, b,
           e, sum_of(na), sum_of(nb));
  }
  printf("remove %d\n", remove(nb));
  return 0;
}
