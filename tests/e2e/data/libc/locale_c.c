/* setlocale in a process without locale variables (env -i, as cbana's
 * model and validate run it): "" and "C" give "C" for every category and
 * LC_ALL, NULL asks; the result is libc's one "C". catopen of a missing
 * catalog, catgets and catclose on its (nl_catd) -1. */
#include <errno.h>
#include <locale.h>
#include <nl_types.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char empty[8] = "", cee[8] = "C";

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1;
  static const int cats[] = {LC_CTYPE,    LC_NUMERIC,  LC_TIME, LC_COLLATE,
                             LC_MONETARY, LC_MESSAGES, LC_ALL};
  long same = 0, len = 0;
  const char *first = setlocale(LC_ALL, NULL);
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 7; i++) {
      const char *a = setlocale(cats[i], empty);
      const char *b = setlocale(cats[i], NULL);
      const char *c = setlocale(cats[i], cee);
      same += (a == first) + (b == first) + (c == first);
      len += strlen(a) + strlen(b) + strlen(c);
    }
  printf("%s %ld %ld\n", first, same, len);
  /* a catalog path that does not exist: catopen fails (ENOENT), catgets
   * gives the default text, catclose fails (EBADF) */
  for (int k = 0; k < n; k++) {
    nl_catd c = catopen("no/such/dir/errors.C", 0);
    int e1 = errno;
    char *s = catgets(c, 3, 11, "default text");
    int r = catclose(c);
    printf("catopen %ld errno %d, catgets %s, catclose %d errno %d\n",
           (long)c, e1, s, r, errno);
  }
  return 0;
}
