/* Vectors in native kernels (frontend/jit_ops_vec.c, jit_mem.c): rows of
 * a table picked through a permutation (a gather of rows, so the loop is
 * a kernel's region) and worked on by inner loops that -O3 -mavx2
 * vectorises: vector loads and stores, lane-wise arithmetic, compares
 * and selects, conversions, shuffles (reversal, splats), reductions,
 * extraction of lanes.
 *
 *   kernel_vec MODE [N]
 *
 * f32      float rows: multiply-add, compare and select, reversal
 * i32      int rows: min/max, shifts, xor, sums (reductions), a splat
 *          of a gathered scalar
 * mixed    int rows converted to double and float, double rows to int,
 *          bytes widened and narrowed
 * lanes    GCC vector types: lanes read and written at a gathered index,
 *          shuffles, reinterpretation between lane types (bitcasts
 *          across lanes), conversions and compare masks
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROWS 64
#define W 16

static float tf[ROWS][W];
static int ti[ROWS][W];
static double td[ROWS][W / 2];
static unsigned char tb[ROWS][W];
static int perm[4096];
static float scale[4] = {0.5f, 1.25f, -0.75f, 2.0f};

static uint64_t lcg(uint64_t s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}

static void fill(void) {
  uint64_t r = 5;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < W; j++) {
      r = lcg(r);
      tf[i][j] = (float)((int64_t)(r >> 40) - (1 << 23)) / 4096.0f;
      ti[i][j] = (int)(r >> 32);
      tb[i][j] = (unsigned char)(r >> 24);
      if (j < W / 2)
        td[i][j] = (double)((int64_t)(r >> 20)) / 7.0;
    }
  tf[3][5] = -0.0f;
  memcpy(&tf[7][1], &(uint32_t){0x7fc00042u}, 4);
  tf[9][2] = 1.0f / 0.0f;
  for (int i = 0; i < 4096; i++) {
    r = lcg(r);
    perm[i] = (int)((r >> 33) % ROWS);
  }
}

static uint64_t mix(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 0x100000001b3ull;
  return h;
}

__attribute__((noinline)) static uint64_t f32(long n) {
  float acc[W] = {0}, mx[W], rev[W] = {0};
  float s = scale[0], t = scale[1];
  for (int j = 0; j < W; j++)
    mx[j] = tf[0][j];
  for (long r = 0; r < n; r++) {
    const float *row = tf[perm[r & 4095]];
    for (int j = 0; j < W; j++) {
      acc[j] = acc[j] * s + row[j];
      mx[j] = row[j] > mx[j] ? row[j] : mx[j] * t;
      rev[j] = rev[j] - row[W - 1 - j];
    }
  }
  uint64_t h = mix(1, acc, sizeof acc);
  h = mix(h, mx, sizeof mx);
  return mix(h, rev, sizeof rev);
}

__attribute__((noinline)) static uint64_t i32(long n) {
  int mx[W], mn[W], x[W] = {0};
  unsigned sum = 0;
  for (int j = 0; j < W; j++)
    mx[j] = mn[j] = ti[0][j];
  for (long r = 0; r < n; r++) {
    const int *row = ti[perm[r & 4095]];
    int k = row[perm[(r + 1) & 4095] & (W - 1)];
    unsigned s = 0;
    for (int j = 0; j < W; j++) {
      mx[j] = row[j] > mx[j] ? row[j] : mx[j];
      mn[j] = row[j] < mn[j] ? row[j] : mn[j];
      x[j] ^= (row[j] << 3) + (row[j] >> 2) + k;
      s += (unsigned)row[j];
    }
    sum += s;
  }
  uint64_t h = mix(2, mx, sizeof mx);
  h = mix(h, mn, sizeof mn);
  h = mix(h, x, sizeof x);
  return mix(h, &sum, sizeof sum);
}

__attribute__((noinline)) static uint64_t mixed(long n) {
  double ad[W] = {0};
  float af[W] = {0};
  long al[W / 2] = {0};
  unsigned char ab[W] = {0};
  for (long r = 0; r < n; r++) {
    int p = perm[r & 4095];
    const int *ri = ti[p];
    const double *rd = td[p];
    const unsigned char *rb = tb[p];
    for (int j = 0; j < W; j++) {
      ad[j] += (double)ri[j];
      af[j] += (float)ri[j];
      ab[j] = (unsigned char)(ab[j] + (rb[j] >> 1));
    }
    for (int j = 0; j < W / 2; j++)
      al[j] += (long)rd[j];
  }
  uint64_t h = mix(3, ad, sizeof ad);
  h = mix(h, af, sizeof af);
  h = mix(h, al, sizeof al);
  return mix(h, ab, sizeof ab);
}

typedef int v8i __attribute__((vector_size(32)));
typedef long long v4l __attribute__((vector_size(32)));
typedef float v8f __attribute__((vector_size(32)));
typedef short v16s __attribute__((vector_size(32)));

__attribute__((noinline)) static uint64_t lanes(long n) {
  v8i acc = {1, 2, 3, 4, 5, 6, 7, 8};
  v8f facc = {0};
  v4l lacc = {0};
  for (long r = 0; r < n; r++) {
    int p = perm[r & 4095];
    v8i row;
    memcpy(&row, ti[p], sizeof row);
    int k = perm[(r + 7) & 4095];
    acc[k & 7] += row[(k >> 3) & 7];
    v8i sh = __builtin_shufflevector(row, acc, 7, 9, 2, 11, 4, 13, 0, 15);
    acc ^= sh >> 1;
    v8i m = row > acc;
    acc += m & 3;
    facc += __builtin_convertvector(sh, v8f);
    lacc += (v4l)acc;
    v16s hs = (v16s)row;
    acc -= (v8i)(hs + hs);
  }
  uint64_t h = mix(4, &acc, sizeof acc);
  h = mix(h, &facc, sizeof facc);
  return mix(h, &lacc, sizeof lacc);
}

/* any-of and all-of reductions: the vectorizer's `bitcast <4 x i1> to
 * i4` of a compare's lanes, then a compare of that integer with 0 */
__attribute__((noinline)) static int any_above(const double *x, int n,
                                               double v) {
  int found = 0;
  for (int i = 0; i < n; i++)
    if (x[i] > v)
      found = 1;
  return found;
}

__attribute__((noinline)) static int all_below(const long long *x, int n,
                                               long long v) {
  int ok = 1;
  for (int i = 0; i < n; i++)
    if (x[i] >= v)
      ok = 0;
  return ok;
}

#define MASK_N 256
static long long tl[MASK_N];
static double tm[MASK_N];

__attribute__((noinline)) static uint64_t masks(long n) {
  for (int j = 0; j < MASK_N; j++) {
    tl[j] = (long long)((j * 53) % 257) * 40 - 5000;
    tm[j] = (double)((j * 37) % 101) / 100.0;
  }
  uint64_t h = 5;
  for (long r = 0; r < n; r++) {
    int len = 1 + (int)((perm[(r + 3) & 4095] * 4 + r) % (MASK_N - 1));
    h = h * 31 + (uint64_t)any_above(tm, len, 0.9 + (double)(r % 97) * 0.001);
    h = h * 31 + (uint64_t)all_below(tl, len, (long long)(r % 10000) - 4000);
    tm[r & (MASK_N - 1)] += 0.0001;
  }
  return h;
}

/* vectors of pointers: `getelementptr T, T* %base, <4 x i64> %index`
 * and struct-field forms, stored as vectors */
struct item {
  int key;
  float w[3];
};
static double *vptr[MASK_N];
static struct item *iptr[MASK_N];
static float *fptr[MASK_N];
static struct item items[2 * MASK_N];

__attribute__((noinline)) static void make_ptrs(int n, long stride, int off) {
  for (int i = 0; i < n; i++) {
    vptr[i] = tm + ((long)i * stride & (MASK_N - 1));
    iptr[i] = &items[i + off];
    fptr[i] = &items[i].w[2];
  }
}

__attribute__((noinline)) static uint64_t ptrs(long n) {
  for (int j = 0; j < 2 * MASK_N; j++) {
    items[j].key = j * 3;
    items[j].w[2] = (float)j * 0.25f;
  }
  uint64_t h = 6;
  for (long r = 0; r < n; r++) {
    int len = 1 + (int)((perm[r & 4095] * 4 + r) % (MASK_N - 1));
    make_ptrs(len, 1 + r % 7, (int)(r % MASK_N));
    int i = (int)(r % len);
    h = h * 31 + (uint64_t)(vptr[i] - tm) + (uint64_t)iptr[i]->key +
        (uint64_t)*fptr[i];
  }
  return h;
}

/* a count of true compares: the SLP vectorizer's `ctpop(bitcast <4 x i1>
 * to i4)` (GSM's RPE quantizer) */
__attribute__((noinline)) static int level(unsigned short x) {
  return (x > 511) + (x > 1023) + (x > 2047) + (x > 4095) + (x > 8191) +
         (x > 16383);
}

__attribute__((noinline)) static uint64_t popcnt(long n) {
  uint64_t h = 7;
  for (long r = 0; r < n; r++)
    h = h * 31 + (uint64_t)level((unsigned short)((uint64_t)r * 40503u));
  return h;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "f32";
  long n = argc > 2 ? atol(argv[2]) : 4000;
  fill();
  uint64_t h;
  if (!strcmp(mode, "f32"))
    h = f32(n);
  else if (!strcmp(mode, "i32"))
    h = i32(n);
  else if (!strcmp(mode, "mixed"))
    h = mixed(n);
  else if (!strcmp(mode, "lanes"))
    h = lanes(n);
  else if (!strcmp(mode, "masks"))
    h = masks(n);
  else if (!strcmp(mode, "ptrs"))
    h = ptrs(n);
  else if (!strcmp(mode, "popcnt"))
    h = popcnt(n);
  else
    return 2;
  printf("%s %016llx\n", mode, (unsigned long long)h);
  return 0;
}
