/* strcasecmp (glibc's __strcasecmp_avx2 under valgrind) on pairs of
 * strings at every alignment class: both at offsets 0 to 4095 of a page
 * (near the page end the function takes its page-cross paths: 32-, 16-,
 * 8-, 4-byte and byte steps, the first string read being the one with the
 * larger page offset), lengths 0 to 300 (its 128-byte loop), the first
 * difference anywhere, in case only or in the letter, and bytes outside
 * 'A'..'Z' whose case does not fold ('@', '[', 0xc0). Prints the sign
 * and value sums and a few results. argv[1]: the number of pairs, argv[2]:
 * a seed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static unsigned long long rng;

static unsigned next(void) {
  rng = rng * 6364136223846793005ull + 1442695040888963407ull;
  return (unsigned)(rng >> 33);
}

static const char alpha[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
    "0123456789@[`{ _-";

static int flip(int c) {
  if (c >= 'a' && c <= 'z')
    return c - 32;
  if (c >= 'A' && c <= 'Z')
    return c + 32;
  return c;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  rng = argc > 2 ? strtoull(argv[2], 0, 10) : 1;
  char *pa = aligned_alloc(4096, 3 * 4096), *pb = aligned_alloc(4096, 3 * 4096);
  memset(pa, 'x', 3 * 4096);
  memset(pb, 'x', 3 * 4096);
  long sum = 0, neg = 0, pos = 0, zero = 0;
  for (int i = 0; i < n; i++) {
    unsigned r = next();
    /* offsets: half of them within 160 bytes of a page end */
    unsigned oa = (r & 1) ? 4096 - 160 + next() % 160 : next() % 4096;
    unsigned ob = (r & 2) ? 4096 - 160 + next() % 160 : next() % 4096;
    if ((r & 12) == 12)
      ob = oa;
    unsigned len = (r & 16) ? next() % 301 : next() % 48;
    char *a = pa + oa, *b = pb + ob;
    for (unsigned k = 0; k < len; k++) {
      int c = alpha[next() % (sizeof alpha - 1)];
      a[k] = (char)c;
      b[k] = (char)((next() & 1) ? flip(c) : c);
    }
    a[len] = 0;
    b[len] = 0;
    unsigned how = next() % 6;
    if (len && how < 4) {
      unsigned at = next() % len;
      if (how == 0)
        b[at] = (char)(a[at] + 1);
      else if (how == 1)
        b[at] = 0;
      else if (how == 2)
        a[at] = (char)0xc0;
      else
        b[at] = '[';
    } else if (how == 4) {
      b[len] = 'q';
      b[len + 1] = 0;
    }
    int v = strcasecmp(a, b);
    sum += v;
    neg += v < 0;
    pos += v > 0;
    zero += v == 0;
    if (i < 8)
      printf("pair %d: offsets %u %u length %u: %d\n", i, oa, ob, len, v);
    /* clean up for the next pair's layout */
    memset(a, 'x', len + 2);
    memset(b, 'x', len + 2);
  }
  printf("%d pairs: sum %ld, %ld < 0, %ld == 0, %ld > 0\n", n, sum, neg, zero,
         pos);
  printf("fixed: %d %d %d %d\n", strcasecmp("Hello", "hELLO"),
         strcasecmp("abc", "ABD"), strcasecmp("", "A"), strcasecmp("[", "{"));
  free(pa);
  free(pb);
  return 0;
}
