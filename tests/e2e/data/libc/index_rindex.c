/* index and rindex, the BSD names of strchr and strrchr (MiBench
 * office-ispell calls index): first and last occurrences in words of
 * many lengths and alignments, the terminating NUL found as a character,
 * and characters not present. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static char text[4096];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < (int)sizeof text - 1; i++)
    text[i] = "abcdefghij klmnop,qrstuvwxyz"[(i * 7 + i / 13) % 28];
  long first = 0, last = 0, none = 0;
  for (int i = 0; i < n; i++) {
    char *s = text + (i * 37) % 3000;
    char save = s[i % 200 + 1];
    s[i % 200 + 1] = 0;
    char c = "aq,z "[i % 5];
    char *f = index(s, c), *l = rindex(s, c);
    first += f ? f - s : -1;
    last += l ? l - s : -1;
    none += index(s, '#') == NULL && rindex(s, '\0') == s + strlen(s);
    s[i % 200 + 1] = save;
  }
  printf("%ld %ld %ld\n", first, last, none);
  return 0;
}
