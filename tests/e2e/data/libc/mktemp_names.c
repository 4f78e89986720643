/* mktemp on templates of many lengths and alignments (a global, the heap,
 * the stack): the name keeps its length and prefix; the run of X's and
 * the string end cross 16- and 32-byte boundaries at every offset. The
 * names themselves are random in a real run, so only their shape is
 * printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char g[256];

static int shaped(const char *b, const char *r, int l) {
  int ok = r == b && strlen(b) == (size_t)l + 6;
  for (int k = 0; k < l; k++)
    ok &= b[k] == 'a';
  return ok;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 8;
  char *h = malloc(512);
  char st[128];
  int ok = 0;
  strcpy(g, "/tmp/actXXXXXX");
  ok += mktemp(g) == g && strncmp(g, "/tmp/act", 8) == 0;
  for (int i = 0; i < n; i++) {
    char *b = g + i % 37;
    int l = i % 45;
    memset(b, 'a', l);
    memcpy(b + l, "XXXXXX", 7);
    ok += shaped(b, mktemp(b), l);
  }
  for (int i = 0; i < n; i++) {
    char *b = h + (i * 5) % 200;
    int l = (i * 3) % 70;
    memset(b, 'a', l);
    memcpy(b + l, "XXXXXX", 7);
    ok += shaped(b, mktemp(b), l);
  }
  for (int i = 0; i < n; i++) {
    char *b = st + i % 19;
    int l = (i * 11) % 60;
    memset(b, 'a', l);
    memcpy(b + l, "XXXXXX", 7);
    ok += shaped(b, mktemp(b), l);
  }
  printf("%d of %d names shaped\n", ok, 3 * n + 1);
  free(h);
  return 0;
}
