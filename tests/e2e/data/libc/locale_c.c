/* setlocale in a process without locale variables (env -i, as cbana's
 * model and validate run it): "" and "C" give "C" for every category and
 * LC_ALL, NULL asks; the result is libc's one "C". */
#include <locale.h>
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
  return 0;
}
