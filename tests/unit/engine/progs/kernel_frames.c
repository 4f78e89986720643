/* Stack objects, pages and computed gotos in native kernels
 * (frontend/jit_call.c's alloca, frontend/jit_mem.c's page look-up,
 * frontend/jit_ops.c's switch over labels' addresses). Each mode is run by
 * tests/e2e/kernel_frames.sh with the kernels and by the reference
 * interpreter (--exact-engine), reports compared byte for byte, and
 * against the native executable's output.
 * Usage: kernel_frames MODE N
 *   search  a recursive game-tree search N deep whose frame holds an
 *           array of moves indexed by variables (a fixed alloca whose
 *           address is taken), as Fhourstones' ab()
 *   vla     recursion whose frames hold variable-length arrays (dynamic
 *           allocas, the frame's sp lowered), N deep
 *   pages   a table of 40 MiB read and written at scattered places (the
 *           translation cache's 4096 pages missed all through), N rounds
 *   cross   loads and stores that cross a page, N times
 *   goto    a bytecode loop dispatched by `goto *` (an indirectbr, lowered
 *           to a switch over its labels' addresses), N rounds
 *   fault   a hot loop that then reads an unmapped address
 *   huge    a variable-length array larger than the stack */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int hist[64];

__attribute__((noinline)) static int pick(const int *mv, int n, int k) {
  return mv[(k * 7 + n) % n];
}

static int search(int depth, int alpha, unsigned seed) {
  int mv[7], n = 0;
  for (int i = 0; i < 7; i++)
    if ((seed >> i) & 1 || i == depth % 7)
      mv[n++] = i;
  if (depth == 0)
    return (int)(seed % 97) - 48 + hist[mv[0]];
  /* order by history, moving the best to the front (variable indexes) */
  for (int i = 0; i + 1 < n; i++) {
    int b = i;
    for (int j = i + 1; j < n; j++)
      if (hist[mv[j]] > hist[mv[b]])
        b = j;
    int t = mv[b];
    for (int l = b; l > i; l--)
      mv[l] = mv[l - 1];
    mv[i] = t;
  }
  int best = -1000;
  for (int i = 0; i < n && i < 3; i++) {
    int v = -search(depth - 1, -best, seed * 1103515245u + 12345u + mv[i]);
    if (v > best) {
      best = v;
      hist[mv[i]] += depth;
    }
    if (best >= alpha)
      break;
  }
  return best + pick(mv, n, depth);
}

static long vla(int depth, int n) {
  long a[n + 1];
  for (int i = 0; i <= n; i++)
    a[i] = (long)depth * i + n;
  if (depth == 0)
    return a[n];
  long r = vla(depth - 1, (n * 5 + 3) % 23);
  for (int i = 0; i <= n; i += 2)
    r += a[i] ^ i;
  return r;
}

static unsigned long pages(int rounds) {
  size_t n = 40u << 20;
  unsigned char *t = calloc(n, 1);
  if (!t)
    return 0;
  unsigned long h = 0, x = 88172645463325252ul;
  for (int r = 0; r < rounds; r++)
    for (int k = 0; k < 20000; k++) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      size_t at = (x % (n / 8)) * 8;
      unsigned long v;
      memcpy(&v, t + at, 8);
      h += v;
      v = v * 31 + (unsigned long)k;
      memcpy(t + at, &v, 8);
    }
  free(t);
  return h;
}

/* page-aligned: the loads at 4089..4095 and the stores at 8185..8191
 * cross a page */
static unsigned char ct[3 * 4096] __attribute__((aligned(4096)));

static unsigned long cross(int times) {
  for (int i = 0; i < 3 * 4096; i++)
    ct[i] = (unsigned char)(i * 13);
  unsigned long h = 0;
  for (int k = 0; k < times; k++)
    for (int i = 4096 - 16; i < 4096 + 16; i++) {
      unsigned long v;
      memcpy(&v, ct + i, 8);
      h = h * 3 + v;
      v ^= h;
      memcpy(ct + i + 4096, &v, 8);
    }
  return h;
}

static long dispatch(int n) {
  static const unsigned char code[] = {1, 2, 3, 1, 4, 2, 2, 3, 4, 1, 0};
  static void *const op[] = {&&done, &&add, &&shift, &&sub, &&mod};
  long acc = 0;
  for (int r = 0; r < n; r++) {
    const unsigned char *pc = code;
    goto *op[*pc++];
  add:
    acc += 3;
    goto *op[*pc++];
  shift:
    acc ^= acc << 1;
    goto *op[*pc++];
  sub:
    acc -= r;
    goto *op[*pc++];
  mod:
    acc = acc * 7 % 1000003;
    goto *op[*pc++];
  done:;
  }
  return acc;
}

static long huge(int n) {
  char a[n];
  memset(a, 1, (size_t)n);
  return a[n / 2] + a[n - 1];
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "search";
  int n = argc > 2 ? atoi(argv[2]) : 8;
  if (!strcmp(mode, "search")) {
    printf("search %d\n", search(n, 1000, 12345u));
  } else if (!strcmp(mode, "vla")) {
    long s = 0;
    for (int k = 0; k < 50; k++)
      s += vla(n, k % 19);
    printf("vla %ld\n", s);
  } else if (!strcmp(mode, "pages")) {
    printf("pages %lu\n", pages(n));
  } else if (!strcmp(mode, "cross")) {
    printf("cross %lu\n", cross(n));
  } else if (!strcmp(mode, "goto")) {
    printf("goto %ld\n", dispatch(n));
  } else if (!strcmp(mode, "fault")) {
    volatile long *bad = (volatile long *)(unsigned long)(n + 16);
    long s = 0;
    for (int i = 0; i < 200000; i++)
      s += i ^ (s >> 3);
    printf("fault %ld\n", s);
    fflush(stdout);
    s += bad[s & 1];
    printf("never %ld\n", s);
  } else if (!strcmp(mode, "huge")) {
    long s = 0;
    for (int k = 1; k < 1000; k++)
      s += huge(k * 8);
    printf("huge %ld\n", s);
    fflush(stdout);
    s += huge(n);
    printf("never %ld\n", s);
  }
  return 0;
}
