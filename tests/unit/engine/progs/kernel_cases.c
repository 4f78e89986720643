/* Cases for the native kernels (frontend/jit*.c): loops whose addresses
 * come from loaded or scrambled data, each mode touching what a kernel
 * must do as the interpreter does. tests/e2e/kernel_cases.sh runs them
 * against --exact-engine and the native executable.
 *
 *   kernel_cases MODE [N]
 *
 * gather   CSR-style gather: int indexes (sign-extended), double sums,
 *          fused multiply-adds, an if/else in the loop (path signature)
 * hash     xor/multiply hashing into a table of counters (h[k]++: x86's
 *          read-modify-write), 8-, 16- and 32-bit loads and stores,
 *          signed division and remainder by -1 and by negatives
 * chase    a shuffled linked list, followed to the end many times
 * rewrite  a table a template loop fills, read and rewritten by a
 *          gather in the kernel, then one value read back as an integer
 *          where it decides a branch
 * divzero  a divisor loaded from the data that is zero at the end: the
 *          engine's error, at the same operation
 * cross    8-byte loads at unaligned addresses, some across pages
 * status   random gathers whose sum only main's return value (the exit
 *          status) and printf take
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}

static int gather(long n) {
  int *col = malloc(4 * n * sizeof *col);
  double *x = malloc(n * sizeof *x), s = 0.0, t = 0.0;
  unsigned long long r = 7;
  for (long i = 0; i < 4 * n; i++) {
    r = lcg(r);
    col[i] = (int)((r >> 33) % (unsigned long long)n);
  }
  for (long i = 0; i < n; i++)
    x[i] = (double)(i % 97) * 0.5 - 3.0;
  for (int rep = 0; rep < 3; rep++)
    for (long k = 0; k < 4 * n; k++) {
      double v = x[col[k]];
      if (v > 0.0)
        s += v * 1.25;
      else
        t = t * 0.5 + v;
      x[col[k] / 2] = s * 1e-6 + t;
    }
  printf("gather %.6f %.6f\n", s, t);
  free(col);
  free(x);
  return 0;
}

static int hash(long n) {
  unsigned *h = calloc(1024, sizeof *h);
  unsigned short *w = calloc(512, sizeof *w);
  signed char *c = calloc(256, 1);
  long q = 0;
  unsigned long long key = 12345;
  for (long i = 0; i < n; i++) {
    key = lcg(key);
    unsigned k = (unsigned)((key ^ (key >> 29)) * 2654435761u) % 1024u;
    h[k]++;
    w[(k * k) % 512] += (unsigned short)k;
    c[k & 255] = (signed char)(c[k & 255] - 3);
    long d = (long)(k % 7) - 3; /* -3 .. 3 */
    if (d != 0)
      q += ((long)k - 500) / d + ((long)k - 500) % d + (long)c[k & 255] / -1;
  }
  unsigned long sum = 0;
  for (int i = 0; i < 1024; i++)
    sum = sum * 31 + h[i] + w[i % 512] + (unsigned char)c[i % 256];
  printf("hash %lu %ld\n", sum, q);
  free(h);
  free(w);
  free(c);
  return 0;
}

struct node {
  struct node *next;
  long val;
  char pad[48];
};

static int chase(long n) {
  struct node *a = malloc(n * sizeof *a);
  long *perm = malloc(n * sizeof *perm);
  unsigned long long r = 99;
  for (long i = 0; i < n; i++)
    perm[i] = i;
  for (long i = n - 1; i > 0; i--) {
    r = lcg(r);
    long j = (long)((r >> 33) % (unsigned long long)(i + 1));
    long t = perm[i];
    perm[i] = perm[j];
    perm[j] = t;
  }
  for (long i = 0; i < n; i++) {
    a[perm[i]].next = i + 1 < n ? &a[perm[i + 1]] : NULL;
    a[perm[i]].val = i;
  }
  long s = 0;
  for (int rep = 0; rep < 4; rep++)
    for (struct node *p = &a[perm[0]]; p; p = p->next)
      s += p->val ^ rep;
  printf("chase %ld\n", s);
  free(a);
  free(perm);
  return 0;
}

static int rewrite(long n) {
  double *v = malloc(n * sizeof *v);
  int *idx = malloc(n * sizeof *idx);
  for (long i = 0; i < n; i++) /* a template; its values only printed */
    v[i] = (double)i * 0.25;
  unsigned long long r = 5;
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    idx[i] = (int)((r >> 33) % (unsigned long long)n);
  }
  double s = 0.0;
  for (long k = 0; k < n; k++) {
    s += v[idx[k]];
    v[k] = s; /* over the filled values, in the kernel */
  }
  /* bytes the kernel stored, read back as an integer that decides a
   * branch */
  long bits;
  memcpy(&bits, &v[n / 2], sizeof bits);
  if (bits > 0x4059000000000000L) /* above 100.0 */
    printf("big ");
  printf("rewrite %.3f\n", s);
  free(v);
  free(idx);
  return 0;
}

static int divzero(long n) {
  long *d = malloc(n * sizeof *d), s = 0;
  for (long i = 0; i < n; i++)
    d[i] = n - 1 - i; /* the last is 0 */
  unsigned long long r = 3;
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    long k = (long)((r >> 33) % (unsigned long long)(n - 1));
    s += 1000 / d[i == n - 1 ? i : k];
  }
  printf("divzero %ld\n", s);
  free(d);
  return 0;
}

static int cross(long n) {
  unsigned char *b = malloc(4 * 4096 + 64);
  for (int i = 0; i < 4 * 4096 + 64; i++)
    b[i] = (unsigned char)(i * 7);
  unsigned long long r = 11, s = 0, m = 4 * 4096u + (unsigned long long)(n < 0);
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    long off = (long)((r >> 33) % m);
    unsigned long long x;
    memcpy(&x, b + off, 8);
    s += x >> (i & 7);
  }
  printf("cross %llu\n", s);
  free(b);
  return 0;
}

static int status(long n) {
  double *x = malloc(n * sizeof *x), s = 0.0;
  unsigned long long r = 5;
  for (long i = 0; i < n; i++)
    x[i] = (double)(i % 89) * 0.25;
  for (long k = 0; k < 8 * n; k++) {
    r = lcg(r);
    s += x[(r >> 33) % (unsigned long long)n];
  }
  printf("status %.3f\n", s);
  free(x);
  return 10 + (int)((long)s % 7);
}

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "gather";
  long n = argc > 2 ? atol(argv[2]) : 5000;
  if (!strcmp(m, "gather"))
    return gather(n);
  if (!strcmp(m, "hash"))
    return hash(n);
  if (!strcmp(m, "chase"))
    return chase(n);
  if (!strcmp(m, "rewrite"))
    return rewrite(n);
  if (!strcmp(m, "divzero"))
    return divzero(n);
  if (!strcmp(m, "cross"))
    return cross(n);
  if (!strcmp(m, "status"))
    return status(n);
  fprintf(stderr, "unknown mode %s\n", m);
  return 2;
}
