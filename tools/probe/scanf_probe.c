/* scanf_probe.c: sscanf, fscanf and scanf calls for lackey traces of
 * glibc's own traffic inside them (tools/probe/scanf_tables.sh,
 * docs/process-model.md section 9.12).
 * usage: scanf_probe WHICH N  (0-6: sscanf formats; 7: fscanf on
 * words.txt; 8: scanf from stdin) */
#include <stdio.h>
#include <stdlib.h>

static char in_s[4][40] = {"hello 123", "ab 7", "wordy 99999", "x 0"};
static char in_x[4][40] = {"name 1f 12", "q deadbeef 3", "zz 0 45", "k 7 1"};
static char in_f[4][40] = {"1.5 3", "12.25 -4", "0.000125 77", "3 1"};
static char in_c[4][40] = {"abc", "xyz", "q r", "  k"};
static char in_b[4][40] = {"abc123", "zz9", "hello1", "q"};
static char in_w[4][40] = {"12 abcdefgh", "3 xy", "45 abcde", "6 q"};

int main(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : 0;
  int n = argc > 2 ? atoi(argv[2]) : 4;
  long s = 0;
  char str[64] = {0};
  FILE *fw = which == 7 ? fopen("words.txt", "r") : NULL;
  for (int i = 0; i < n; i++) {
    unsigned long u = 0, v = 0;
    int d = 0;
    float f = 0;
    char c[4] = {0};
    switch (which) {
    case 0:
      sscanf(in_s[i & 3], "%s %lu", str, &u);
      break;
    case 1:
      sscanf(in_x[i & 3], "%s %lx %lu", str, &u, &v);
      break;
    case 2:
      sscanf(in_f[i & 3], "%f %d", &f, &d);
      break;
    case 3:
      sscanf(in_c[i & 3], "%c%c", &c[0], &c[1]);
      break;
    case 4:
      sscanf(in_b[i & 3], "%[a-z]", str);
      break;
    case 5:
      sscanf(in_w[i & 3], "%*d %5s", str);
      break;
    case 6:
      sscanf(in_s[i & 3], "%lu", &u);
      break;
    case 7:
      if (!fw || fscanf(fw, "%s", str) != 1)
        i = n;
      break;
    default:
      if (scanf("%d", &d) != 1)
        i = n;
      break;
    }
    s += (long)u + (long)v + d + (long)(f * 1000) + c[0] + c[1] + str[0];
  }
  printf("%ld\n", s);
  return 0;
}
