/* A chained hash table of copied keys, looked up with strcmp and freed
 * (Shootout's hash, without sprintf): strcmp's loads at every alignment
 * and length class (short keys, keys of 40 to 300 bytes that take its
 * 128-byte loop, keys near a page end), free's tcache and fastbin paths,
 * and, with 160000 keys, a heap of 64-byte pairs that outgrows valgrind's
 * 8 MiB brk segment, so that glibc's malloc goes on in mmapped memory
 * (docs/process-model.md section 3). argv[1]: the number of keys. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct node {
  char *key;
  int val;
  struct node *next;
};

enum { SIZE = 196613, LONG = 301 };

static struct node *tbl[SIZE];
static char longkey[LONG + 8];

static unsigned hash(const char *k) {
  unsigned long v = 0; /* Shootout's: long chains of short keys */
  for (; *k; ++k)
    v = 5 * v + (unsigned char)*k;
  return (unsigned)(v % SIZE);
}

/* i in hexadecimal, behind a prefix of 0 to LONG - 8 bytes of longkey */
static char *key_of(unsigned i, char *buf) {
  unsigned pre = (i % 97 == 0) ? 40 + (i / 97) % (LONG - 48) : 0;
  memcpy(buf, longkey, pre);
  char *q = buf + pre;
  char tmp[16];
  int n = 0;
  do {
    tmp[n++] = "0123456789abcdef"[i & 15];
    i >>= 4;
  } while (i);
  while (n)
    *q++ = tmp[--n];
  *q = 0;
  return buf;
}

static struct node *find(const char *k, int add) {
  unsigned h = hash(k);
  struct node *prev = 0, *n = tbl[h];
  for (; n; prev = n, n = n->next)
    if (strcmp(k, n->key) == 0)
      return n;
  if (!add)
    return 0;
  n = malloc(sizeof *n);
  size_t len = strlen(k) + 1;
  n->key = memcpy(malloc(len), k, len); /* strdup's library traffic is
                                           not modelled yet */
  n->val = 0;
  n->next = 0;
  if (prev)
    prev->next = n;
  else
    tbl[h] = n;
  return n;
}

int main(int argc, char **argv) {
  int N = argc > 1 ? atoi(argv[1]) : 160000;
  char buf[LONG + 32];
  for (int i = 0; i < LONG; i++)
    longkey[i] = (char)('a' + i % 26);
  for (unsigned i = 1; i <= (unsigned)N; i++)
    find(key_of(i, buf), 1)->val = (int)i;
  long c = 0;
  for (int i = N + N / 4; i > 0; i -= 3) {
    struct node *n = find(key_of((unsigned)i, buf), 0);
    if (n)
      c += n->val;
  }
  /* before the frees: stdout's buffer would otherwise be a request that
   * consolidates every fastbin */
  printf("%ld\n", c);
  for (unsigned h = 0; h < SIZE; h++)
    for (struct node *n = tbl[h], *nx; n; n = nx) {
      nx = n->next;
      free(n->key);
      free(n);
    }
  return 0;
}
