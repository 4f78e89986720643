/* Throughput of the cache model, the engine's inner loop: accesses per
 * second through a 32 KiB 8-way LRU L1D and a 1 MiB 16-way LRU LL
 * (cachegrind's defaults), on streams made in memory (no trace parsing,
 * generation not timed):
 *   sweep:  8-byte reads at stride 8 over 64 MiB, repeated (32 M accesses
 *           by default: 4 passes, the first one all compulsory misses);
 *   random: 8-byte reads at uniformly random 8-byte-aligned addresses in
 *           the same 64 MiB (a quarter as many accesses: with
 *           classification every access misses the host's caches in the
 *           model's tables, see bench/results/sim.md);
 * each with miss classification (3C + stack distances) off and on.
 * Then affine blocks (stream.h) against the same streams as records:
 *   sweep:  the sweep above, one block per 64 MiB pass;
 *   resident sweep: the same over 16 KiB (it stays in the L1D), one block
 *           per pass: what warping gives when the lines are cached;
 *   matmul: the inner loop of C = A * B on N x N doubles (i, j outer, k
 *           inner): per iteration a row read A[i][k] (stride 8), a column
 *           read B[k][j] (stride 8 N) and a write of C[i][j] (stride 0),
 *           one block of N iterations per (i, j); N chosen for about
 *           MILLION_ACCESSES accesses;
 *   byte sweep: 1-byte reads at stride 1 over 16 KiB (resident), one
 *           block per pass: 64 iterations per line, long warps;
 *   gemm:   PolyBench gemm's vectorized inner loop at LARGE (GEMM_NJ):
 *           6 accesses an iteration on two rows, events on most
 *           iterations (B's and C's lines change out of phase);
 *   column: 2000 doubles down a column, rows of 16000 bytes (cholesky's
 *           initialisation at LARGE), four columns in turn: every access
 *           a first-level miss and a last-level hit;
 * records made from the blocks outside the timing; each through
 * cb_hierarchy_run (records) and cb_hierarchy_run_affine (blocks).
 * Then small working sets, as records: a loop body of 4 W accesses
 * repeated, over W lines of three objects (half in an array of structs,
 * a quarter each in a global table and a stack frame, far apart), each
 * access a line of the set at random or, two times in five, the line of
 * the access before; W = 6, 12, 24, 48 (the classification's stack
 * distances are below W: n-body and Dhrystone have W of 6 to 9). Every
 * access after the first loop hits the L1D.
 * Then lone accesses with classification (the analysis's default mode),
 * each through cb_hierarchy_access_outcome, with a checksum of their
 * outcomes (lone_table).
 * Each figure is the best of a few runs, on one core.
 * usage: sim_bench [MILLION_ACCESSES [RUNS [CASE]]]  (defaults 32, 3, all;
 * the random stream runs a quarter of MILLION_ACCESSES)
 * CASE picks one figure: 0 sweep/off, 1 sweep/on, 2 random/off, 3
 * random/on, 4.. the affine table's rows in order, 28.. the small
 * working sets', 36.. the lone accesses' (for profiling). */
#include "cbana/stream.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define REGION (64ull << 20)
#define BATCH 4096

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t splitmix64(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Fills a batch of the stream from access number `k` on. */
static void fill(cb_access *b, size_t n, uint64_t k, int random,
                 uint64_t *rng) {
  const uint64_t base = 0x10000000;
  for (size_t i = 0; i < n; i++) {
    uint64_t off =
        random ? (splitmix64(rng) % (REGION / 8)) * 8 : ((k + i) * 8) % REGION;
    b[i] = (cb_access){.addr = base + off, .size = 8, .site = CB_SITE_NONE};
  }
}

/* Seconds spent in cb_hierarchy_run for `total` accesses; misses out. */
static double run(const cb_cache_config *cfg, int random, unsigned flags,
                  uint64_t total, uint64_t *l1_misses, uint64_t *ll_misses) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 0, flags, err, sizeof err);
  if (!h) {
    fprintf(stderr, "sim_bench: %s\n", err);
    exit(2);
  }
  static cb_access batch[BATCH];
  uint64_t rng = 1;
  double spent = 0;
  for (uint64_t k = 0; k < total; k += BATCH) {
    size_t n = total - k < BATCH ? (size_t)(total - k) : BATCH;
    fill(batch, n, k, random, &rng);
    double t0 = now();
    cb_hierarchy_run(h, batch, n);
    spent += now() - t0;
  }
  cb_level_stats s;
  cb_hierarchy_level_stats(h, 0, &s);
  *l1_misses = s.misses;
  cb_hierarchy_level_stats(h, 1, &s);
  *ll_misses = s.misses;
  cb_hierarchy_destroy(h);
  return spent;
}

/* ---- Affine blocks against records ---- */

enum { SWEEP, RESIDENT, MATMUL, BYTES, GEMM, COLUMN };

/* PolyBench gemm at LARGE as clang -O2 vectorizes it: for each (i, k) a
 * block over j of 2 x 16-byte loads of B[k][j..], 2 of C[i][j..] and 2
 * stores to C[i][j..], 32 bytes an iteration, rows of 1100 doubles. */
#define GEMM_NJ 1100
#define GEMM_NK 1200

/* column: cholesky's initialisation at LARGE walks a column of 2000
 * doubles, each step a first-level miss that hits the last level. */
#define COLUMN_N 2000
#define COLUMN_ROW 16000

typedef struct block_gen {
  int kind;
  uint64_t total; /* sweep: accesses */
  uint64_t n;     /* matmul: N */
  uint64_t k;     /* the next block's number */
  cb_affine_access acc[6];
} block_gen;

/* The next block of the stream, false at its end. */
static bool next_block(block_gen *g, cb_affine_block *b) {
  const uint64_t base = 0x10000000;
  if (g->kind == BYTES) {
    const uint64_t pass = 16384, first = g->k * pass;
    if (first >= g->total)
      return false;
    g->acc[0] = (cb_affine_access){
        .base = base, .stride = 1, .site = CB_SITE_NONE, .size = 1};
    uint64_t n = g->total - first < pass ? g->total - first : pass;
    *b = (cb_affine_block){n, 1, g->acc};
    g->k++;
    return true;
  }
  if (g->kind == GEMM) {
    const uint64_t row = GEMM_NJ * 8, iters = GEMM_NJ / 4;
    if (g->k * iters * 6 >= g->total)
      return false;
    uint64_t i = g->k / GEMM_NK, k = g->k % GEMM_NK;
    const uint64_t c = base, bm = base + (1ull << 30);
    for (int v = 0; v < 2; v++) {
      g->acc[v] = (cb_affine_access){.base = bm + k * row + 16 * v,
                                     .stride = 32,
                                     .site = CB_SITE_NONE,
                                     .size = 16};
      g->acc[2 + v] = (cb_affine_access){.base = c + i * row + 16 * v,
                                         .stride = 32,
                                         .site = CB_SITE_NONE,
                                         .size = 16};
      g->acc[4 + v] = g->acc[2 + v];
      g->acc[4 + v].is_write = 1;
    }
    *b = (cb_affine_block){iters, 6, g->acc};
    g->k++;
    return true;
  }
  if (g->kind == COLUMN) {
    /* 4 columns of 2000 doubles, rows of 16000 bytes, taken in turn: the
     * memo sees no segment equal to the one before it (nor to the one
     * before that), and the 8000 lines fit the 1 MiB LL */
    if (g->k * COLUMN_N >= g->total)
      return false;
    g->acc[0] = (cb_affine_access){.base = base + 64 * (g->k % 4),
                                   .stride = COLUMN_ROW,
                                   .site = CB_SITE_NONE,
                                   .size = 8};
    *b = (cb_affine_block){COLUMN_N, 1, g->acc};
    g->k++;
    return true;
  }
  if (g->kind != MATMUL) {
    const uint64_t pass = (g->kind == SWEEP ? REGION : 16384) / 8;
    const uint64_t first = g->k * pass;
    if (first >= g->total)
      return false;
    g->acc[0] = (cb_affine_access){
        .base = base, .stride = 8, .site = CB_SITE_NONE, .size = 8};
    uint64_t n = g->total - first < pass ? g->total - first : pass;
    *b = (cb_affine_block){n, 1, g->acc};
    g->k++;
    return true;
  }
  const uint64_t n = g->n, bytes = n * n * 8;
  if (g->k >= n * n)
    return false;
  uint64_t i = g->k / n, j = g->k % n;
  /* the matrices one after the other, a page apart */
  const uint64_t a = base, bm = a + bytes + 4096, c = bm + bytes + 4096;
  g->acc[0] = (cb_affine_access){
      .base = a + i * n * 8, .stride = 8, .site = CB_SITE_NONE, .size = 8};
  g->acc[1] = (cb_affine_access){.base = bm + j * 8,
                                 .stride = (int64_t)(n * 8),
                                 .site = CB_SITE_NONE,
                                 .size = 8};
  g->acc[2] = (cb_affine_access){.base = c + (i * n + j) * 8,
                                 .stride = 0,
                                 .site = CB_SITE_NONE,
                                 .size = 8,
                                 .is_write = 1};
  *b = (cb_affine_block){n, 3, g->acc};
  g->k++;
  return true;
}

/* Seconds in the hierarchy for the generator's stream, as blocks or as
 * records; misses and warped iterations out. */
static double run_blocks(const cb_cache_config *cfg, block_gen g, bool affine,
                         unsigned flags, uint64_t *m1, uint64_t *m2,
                         uint64_t *warped) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 0, flags, err, sizeof err);
  if (!h) {
    fprintf(stderr, "sim_bench: %s\n", err);
    exit(2);
  }
  static cb_access batch[BATCH];
  size_t fill_n = 0;
  double spent = 0;
  cb_affine_block b;
  while (next_block(&g, &b)) {
    if (affine) {
      double t0 = now();
      cb_hierarchy_run_affine(h, &b);
      spent += now() - t0;
      continue;
    }
    uint64_t pos = 0;
    size_t got;
    while ((got = cb_affine_expand(&b, &pos, batch + fill_n, BATCH - fill_n)) >
           0) {
      fill_n += got;
      if (fill_n == BATCH) {
        double t0 = now();
        cb_hierarchy_run(h, batch, fill_n);
        spent += now() - t0;
        fill_n = 0;
      }
    }
  }
  double t0 = now();
  cb_hierarchy_run(h, batch, fill_n);
  spent += now() - t0;
  cb_level_stats s;
  cb_hierarchy_level_stats(h, 0, &s);
  *m1 = s.misses;
  cb_hierarchy_level_stats(h, 1, &s);
  *m2 = s.misses;
  cb_affine_stats st;
  cb_hierarchy_affine_stats(h, &st);
  *warped = st.warped_iterations;
  cb_hierarchy_destroy(h);
  return spent;
}

static void affine_table(const cb_cache_config *cfg, uint64_t total, int runs,
                         int only) {
  uint64_t n = (uint64_t)cbrt((double)total / 3);
  n &= ~(uint64_t)7;
  printf("\n| stream | classification | as | accesses | M accesses/s | L1D "
         "misses | LL misses | warped iterations |\n"
         "|---|---|---|---:|---:|---:|---:|---:|\n");
  int row = 4;
  for (int kind = SWEEP; kind <= COLUMN; kind++)
    for (int classify = 0; classify < 2; classify++)
      for (int affine = 0; affine < 2; affine++, row++) {
        if (only >= 0 && only != row)
          continue;
        block_gen g = {.kind = kind, .total = total, .n = n};
        uint64_t count = kind == MATMUL ? n * n * n * 3
                         : kind == GEMM ? (total + 1649) / 1650 * 1650
                         : kind == COLUMN
                             ? (total + COLUMN_N - 1) / COLUMN_N * COLUMN_N
                             : total;
        double best = 1e30;
        uint64_t m1 = 0, m2 = 0, warped = 0;
        for (int r = 0; r < runs; r++) {
          double t = run_blocks(cfg, g, affine, classify ? CB_CLASSIFY : 0, &m1,
                                &m2, &warped);
          if (t < best)
            best = t;
        }
        char name[64];
        if (kind == GEMM)
          snprintf(name, sizeof name, "gemm inner loop, vectorized");
        else if (kind == COLUMN)
          snprintf(name, sizeof name, "column walk, 4 columns in turn");
        else if (kind == BYTES)
          snprintf(name, sizeof name, "byte sweep, 16 KiB resident");
        else if (kind == MATMUL)
          snprintf(name, sizeof name, "matmul inner loop, N = %llu",
                   (unsigned long long)n);
        else
          snprintf(name, sizeof name, "stride-8 sweep, %s",
                   kind == SWEEP ? "64 MiB" : "16 KiB resident");
        printf("| %s | %s | %s | %.1f M | %.1f | %llu | %llu | %llu |\n", name,
               classify ? "on" : "off", affine ? "blocks" : "records",
               (double)count / 1e6, (double)count / best / 1e6,
               (unsigned long long)m1, (unsigned long long)m2,
               (unsigned long long)warped);
        fflush(stdout);
      }
}

/* ---- Small working sets ---- */

#define WS_BODY_MAX (4 * 48)

/* The loop body over w lines (see the top). */
static void ws_body(uint32_t w, uint64_t *addr) {
  uint64_t lines[48];
  for (uint32_t i = 0; i < w; i++) {
    uint32_t q = i % 4;
    uint64_t base = q < 2 ? 0x601000 : q == 2 ? 0x640000 : 0x7ffc0000f000;
    lines[i] = base / 64 + (q < 2 ? i / 4 * 2 + q : i / 4);
  }
  uint64_t rng = 42 + w, line = lines[0];
  for (uint32_t j = 0; j < 4 * w; j++) {
    if (splitmix64(&rng) % 5 >= 2)
      line = lines[splitmix64(&rng) % w];
    addr[j] = line * 64 + (splitmix64(&rng) % 8) * 8;
  }
}

static double run_ws(const cb_cache_config *cfg, uint32_t w, unsigned flags,
                     uint64_t total, uint64_t *l1_misses) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 0, flags, err, sizeof err);
  if (!h) {
    fprintf(stderr, "sim_bench: %s\n", err);
    exit(2);
  }
  uint64_t body[WS_BODY_MAX];
  ws_body(w, body);
  static cb_access batch[BATCH];
  double spent = 0;
  for (uint64_t k = 0; k < total; k += BATCH) {
    size_t n = total - k < BATCH ? (size_t)(total - k) : BATCH;
    for (size_t i = 0; i < n; i++)
      batch[i] = (cb_access){.addr = body[(k + i) % (4 * w)],
                             .size = 8,
                             .is_write = (k + i) % 3 == 0,
                             .site = CB_SITE_NONE};
    double t0 = now();
    cb_hierarchy_run(h, batch, n);
    spent += now() - t0;
  }
  cb_level_stats s;
  cb_hierarchy_level_stats(h, 0, &s);
  *l1_misses = s.misses;
  cb_hierarchy_destroy(h);
  return spent;
}

static void ws_table(const cb_cache_config *cfg, uint64_t total, int runs,
                     int only) {
  static const uint32_t ws[] = {6, 12, 24, 48};
  int row = 28;
  for (size_t i = 0; i < sizeof ws / sizeof ws[0]; i++)
    for (int classify = 0; classify < 2; classify++, row++) {
      if (only >= 0 && only != row)
        continue;
      if (only < 0 && row == 28)
        printf("\n| stream | classification | accesses | M accesses/s | L1D "
               "misses |\n|---|---|---:|---:|---:|\n");
      double best = 1e30;
      uint64_t m1 = 0;
      for (int r = 0; r < runs; r++) {
        double t = run_ws(cfg, ws[i], classify ? CB_CLASSIFY : 0, total, &m1);
        if (t < best)
          best = t;
      }
      printf("| small working set, %u lines | %s | %llu M | %.1f | %llu |\n",
             ws[i], classify ? "on" : "off",
             (unsigned long long)(total / 1000000), (double)total / best / 1e6,
             (unsigned long long)m1);
      fflush(stdout);
    }
}

/* ---- Lone accesses with classification ---- */

/* The analysis's default mode: each access through
 * cb_hierarchy_access_outcome, one at a time, with classification.
 * Streams: the small working sets above (W = 6, 24), the 64 MiB sweep,
 * the random reads (a quarter as many), and a sieve of Eratosthenes over
 * a bit array of 4 Mi bits in 32-bit words (nsieve-bits: a read of the
 * word per candidate and per multiple, a write per multiple cleared; its
 * strides over 512 KiB miss the L1D and hit the LL). A checksum of every
 * outcome, class and the curves (each level's histogram) is printed: two
 * builds that give the same stream the same answers print the same. */
enum { LONE_WS6, LONE_WS24, LONE_SWEEP, LONE_RANDOM, LONE_SIEVE, LONE_KINDS };

#define SIEVE_BITS (1u << 22)

typedef struct lone_gen {
  int kind;
  uint64_t k, total, rng;
  uint64_t body[WS_BODY_MAX];
  uint32_t w;
  /* sieve: the candidate i, the multiple j (0: test i next) */
  uint64_t i, j;
  uint32_t *bits;
} lone_gen;

static size_t lone_fill(lone_gen *g, cb_access *b, size_t cap) {
  size_t n = 0;
  const uint64_t base = 0x10000000;
  while (n < cap && g->k < g->total) {
    switch (g->kind) {
    case LONE_WS6:
    case LONE_WS24:
      b[n++] = (cb_access){.addr = g->body[g->k % (4 * g->w)],
                           .size = 8,
                           .is_write = g->k % 3 == 0,
                           .site = CB_SITE_NONE};
      g->k++;
      break;
    case LONE_SWEEP:
    case LONE_RANDOM:
      fill(b + n, 1, g->k, g->kind == LONE_RANDOM, &g->rng);
      n++;
      g->k++;
      break;
    default: /* LONE_SIEVE; it starts again when done */
      if (g->i < 2 || g->i >= SIEVE_BITS) {
        for (uint32_t x = 0; x < SIEVE_BITS / 32; x++)
          g->bits[x] = UINT32_MAX;
        g->i = 2;
        g->j = 0;
      }
      if (g->j == 0) {
        b[n++] = (cb_access){
            .addr = base + g->i / 32 * 4, .size = 4, .site = CB_SITE_NONE};
        g->k++;
        if (g->bits[g->i / 32] >> (g->i % 32) & 1)
          g->j = 2 * g->i;
        else
          g->i++;
      } else if (g->j < SIEVE_BITS) {
        if (cap - n < 2)
          return n;
        uint64_t a = base + g->j / 32 * 4;
        uint32_t *word = &g->bits[g->j / 32], bit = 1u << (g->j % 32);
        b[n++] = (cb_access){.addr = a, .size = 4, .site = CB_SITE_NONE};
        g->k++;
        if (*word & bit) {
          b[n++] = (cb_access){
              .addr = a, .size = 4, .is_write = 1, .site = CB_SITE_NONE};
          g->k++;
          *word &= ~bit;
        }
        g->j += g->i;
      } else {
        g->j = 0;
        g->i++;
      }
    }
  }
  return n;
}

static uint64_t mix_in(uint64_t h, uint64_t v) {
  return (h ^ v) * 0x100000001B3ull + 0x9E3779B97F4A7C15ull;
}

static double run_lone(const cb_cache_config *cfg, int kind, uint64_t total,
                       uint64_t m[2], uint64_t *sum) {
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(cfg, 0, CB_CLASSIFY, err, sizeof err);
  if (!h) {
    fprintf(stderr, "sim_bench: %s\n", err);
    exit(2);
  }
  lone_gen g = {.kind = kind, .total = total, .rng = 1};
  g.w = kind == LONE_WS6 ? 6 : 24;
  ws_body(g.w, g.body);
  if (kind == LONE_SIEVE && !(g.bits = malloc(SIEVE_BITS / 8))) {
    fprintf(stderr, "sim_bench: out of memory\n");
    exit(2);
  }
  static cb_access batch[BATCH];
  double spent = 0;
  uint64_t cs = 0;
  size_t n;
  while ((n = lone_fill(&g, batch, BATCH)) > 0) {
    uint64_t local = 0;
    double t0 = now();
    for (size_t i = 0; i < n; i++) {
      uint8_t cls[CB_MAX_LEVELS];
      unsigned missed =
          cb_hierarchy_access_outcome(h, batch[i].addr, batch[i].size,
                                      batch[i].is_write, batch[i].site, cls);
      uint64_t o = missed;
      for (unsigned l = 0; l < missed; l++)
        o = o * 8 + cls[l];
      local = local * 31 + o;
    }
    spent += now() - t0;
    cs = mix_in(cs, local);
  }
  for (unsigned l = 0; l < 2; l++) {
    cb_level_stats s;
    cb_hierarchy_level_stats(h, l, &s);
    m[l] = s.misses;
    for (unsigned c = 0; c < CB_MISS_CLASSES; c++)
      cs = mix_in(cs, s.miss_class[c]);
    const uint64_t *hist;
    size_t len;
    uint64_t cold;
    if (cb_hierarchy_distance_histogram(h, l, &hist, &len, &cold)) {
      cs = mix_in(cs, cold);
      for (size_t d = 0; d < len; d++)
        cs = mix_in(cs, hist[d]);
    }
  }
  *sum = cs;
  free(g.bits);
  cb_hierarchy_destroy(h);
  return spent;
}

static void lone_table(const cb_cache_config *cfg, uint64_t total, int runs,
                       int only) {
  static const char *const names[LONE_KINDS] = {
      "small working set, 6 lines", "small working set, 24 lines",
      "stride-8 sweep, 64 MiB", "random 8 B reads, 64 MiB", "sieve, 4 Mi bits"};
  int row = 36;
  for (int kind = 0; kind < LONE_KINDS; kind++, row++) {
    if (only >= 0 && only != row)
      continue;
    if (only < 0 && kind == 0)
      printf("\n| stream, lone accesses, classification on | accesses | M "
             "accesses/s | L1D misses | LL misses | checksum |\n"
             "|---|---:|---:|---:|---:|---|\n");
    uint64_t count = kind == LONE_RANDOM ? total / 4 : total;
    double best = 1e30;
    uint64_t m[2] = {0, 0}, sum = 0;
    for (int r = 0; r < runs; r++) {
      double t = run_lone(cfg, kind, count, m, &sum);
      if (t < best)
        best = t;
    }
    printf("| %s | %llu M | %.1f | %llu | %llu | %016llx |\n", names[kind],
           (unsigned long long)(count / 1000000), (double)count / best / 1e6,
           (unsigned long long)m[0], (unsigned long long)m[1],
           (unsigned long long)sum);
    fflush(stdout);
  }
}

int main(int argc, char **argv) {
  uint64_t millions = argc > 1 ? strtoull(argv[1], NULL, 10) : 32;
  int runs = argc > 2 ? atoi(argv[2]) : 3;
  int only = argc > 3 ? atoi(argv[3]) : -1;
  if (millions == 0 || runs <= 0) {
    fprintf(stderr, "usage: sim_bench [MILLION_ACCESSES [RUNS]]\n");
    return 2;
  }
  uint64_t total = millions * 1000000;
  cb_cache_config cfg;
  cb_cache_preset("cachegrind", &cfg);
  printf("sim_bench: best of %d runs, CPU time of cb_hierarchy_run; L1D 32 "
         "KiB 8-way, LL 1 MiB 16-way, LRU, 64-byte lines\n\n",
         runs);
  printf("| stream | classification | accesses | M accesses/s | L1D misses "
         "| LL misses |\n|---|---|---:|---:|---:|---:|\n");
  for (int random = 0; random < 2; random++)
    for (int classify = 0; classify < 2; classify++) {
      if (only >= 0 && only != 2 * random + classify)
        continue;
      double best = 1e30;
      uint64_t m1 = 0, m2 = 0, count = random ? total / 4 : total;
      for (int r = 0; r < runs; r++) {
        double t =
            run(&cfg, random, classify ? CB_CLASSIFY : 0, count, &m1, &m2);
        if (t < best)
          best = t;
      }
      printf("| %s | %s | %llu M | %.1f | %llu | %llu |\n",
             random ? "random 8 B reads, 64 MiB" : "stride-8 sweep, 64 MiB",
             classify ? "on" : "off", (unsigned long long)(count / 1000000),
             (double)count / best / 1e6, (unsigned long long)m1,
             (unsigned long long)m2);
      fflush(stdout);
    }
  affine_table(&cfg, total, runs, only);
  ws_table(&cfg, total, runs, only);
  lone_table(&cfg, total, runs, only);
  return 0;
}
