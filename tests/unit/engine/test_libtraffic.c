/* glibc's memset and memcpy/memmove traffic (process/proc_traffic.c) as it
 * reaches a sink that takes affine blocks, expanded, against a reference
 * that emits the same sequences record by record with glibc's loops as
 * written (do/while, while with its break), over every size class and
 * many alignments, overlaps and both sets of thresholds measured here.
 * The blocks must stand for exactly the records (stream.h), and the
 * library's read and write counters must agree. */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "proc.h"

/* A growable list of records. */
typedef struct seq {
  cb_access *v;
  size_t n, cap;
  uint64_t blocks;
} seq;

static void seq_add(seq *s, const cb_access *a) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
    if (!s->v)
      abort();
  }
  s->v[s->n++] = *a;
}

static void sink_records(void *ctx, const cb_access *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    seq_add(ctx, &b[i]);
}

static void sink_block(void *ctx, const cb_affine_block *b) {
  seq *s = ctx;
  cb_access buf[256];
  uint64_t pos = 0;
  size_t k;
  s->blocks++;
  while ((k = cb_affine_expand(b, &pos, buf, 256)) > 0)
    sink_records(ctx, buf, k);
}

/* ---- The reference: glibc's loops as proc_traffic.c wrote them
 * before library loops became blocks. ---- */
#define SITE 77
#define LIBC_BASE 0x4870000ull

static void put(seq *s, uint64_t a, uint32_t n, bool w) {
  cb_access r = {.addr = a, .size = (uint16_t)n, .site = SITE, .is_write = w};
  seq_add(s, &r);
}

static void ref_memset(seq *s, const cb_glibc_thresholds *t, uint64_t d,
                       uint64_t n) {
  if (n == 0)
    return;
  if (n > 64)
    put(s, LIBC_BASE + 0x1d33d0ull, 8, false);
  if (n == 1) {
    put(s, d, 1, true);
  } else if (n <= 3) {
    put(s, d, 1, true);
    put(s, d + 1, 1, true);
    put(s, d + n - 1, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    put(s, d, k, true);
    put(s, d + n - k, k, true);
  } else if (n <= 128) {
    put(s, d, 32, true);
    put(s, d + 32, 32, true);
    put(s, d + n - 64, 32, true);
    put(s, d + n - 32, 32, true);
  } else if (n <= t->stosb) {
    for (int i = 0; i < 4; i++)
      put(s, d + 32 * (uint64_t)i, 32, true);
    if (n > 256) {
      uint64_t p = (d + 128) & ~31ull;
      do {
        for (int i = 0; i < 4; i++)
          put(s, p + 32 * (uint64_t)i, 32, true);
        p += 128;
      } while (p < d + n - 128);
    }
    uint64_t end = d + n - 128;
    for (int i = 0; i < 4; i++)
      put(s, end + 32 * (uint64_t)i, 32, true);
  } else {
    for (uint64_t i = 0; i < n; i++)
      put(s, d + i, 1, true);
  }
}

static void ref_vec_loop(seq *q, uint64_t d, uint64_t s, uint64_t n,
                         bool backward) {
  if (!backward) {
    put(q, s, 32, false);
    for (int i = 1; i <= 4; i++)
      put(q, s + n - 32 * (uint64_t)i, 32, false);
    uint64_t p = (d + 32) & ~31ull;
    while (p < d + n - 128) {
      for (int i = 0; i < 4; i++)
        put(q, s + (p - d) + 32 * (uint64_t)i, 32, false);
      for (int i = 0; i < 4; i++)
        put(q, p + 32 * (uint64_t)i, 32, true);
      p += 128;
    }
    for (int i = 1; i <= 4; i++)
      put(q, d + n - 32 * (uint64_t)i, 32, true);
    put(q, d, 32, true);
  } else {
    put(q, s + n - 32, 32, false);
    for (int i = 0; i < 4; i++)
      put(q, s + 32 * (uint64_t)i, 32, false);
    uint64_t p = (d + n - 32) & ~31ull;
    while (p > d + 128) {
      for (int i = 0; i < 4; i++)
        put(q, s + (p - d) - 32 * (uint64_t)i, 32, false);
      for (int i = 0; i < 4; i++)
        put(q, p - 32 * (uint64_t)i, 32, true);
      if (p < 128)
        break;
      p -= 128;
    }
    for (int i = 0; i < 4; i++)
      put(q, d + 32 * (uint64_t)i, 32, true);
    put(q, d + n - 32, 32, true);
  }
}

static void ref_memcpy(seq *q, const cb_glibc_thresholds *t, uint64_t d,
                       uint64_t s, uint64_t n) {
  if (n == 0)
    return;
  if (n > 64) {
    bool overlap_up = d - s < n;
    put(q, LIBC_BASE + 0x1d33d8ull, 8, false);
    if (n > t->movsb && !overlap_up) {
      put(q, LIBC_BASE + 0x1da548ull, 8, false);
      if (n < t->movsb_stop)
        put(q, LIBC_BASE + 0x1da540ull, 4, false);
      else
        put(q, LIBC_BASE + 0x1da550ull, 8, false);
    } else if (n > 256 && !overlap_up) {
      put(q, LIBC_BASE + 0x1da550ull, 8, false);
    }
  }
  if (n == 1) {
    put(q, s, 1, false);
    put(q, d, 1, true);
  } else if (n <= 3) {
    put(q, s, 1, false);
    put(q, s + n - 2, 2, false);
    put(q, d + n - 2, 2, true);
    put(q, d, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    put(q, s, k, false);
    put(q, s + n - k, k, false);
    put(q, d, k, true);
    put(q, d + n - k, k, true);
  } else if (n <= 256) {
    int v = n <= 128 ? 2 : 4;
    for (int i = 0; i < v; i++)
      put(q, s + 32 * (uint64_t)i, 32, false);
    for (int i = 1; i <= v; i++)
      put(q, s + n - 32 * (uint64_t)i, 32, false);
    for (int i = 0; i < v; i++)
      put(q, d + 32 * (uint64_t)i, 32, true);
    for (int i = 1; i <= v; i++)
      put(q, d + n - 32 * (uint64_t)i, 32, true);
  } else {
    bool overlap_up = d - s < n;
    bool alias4k = ((d - s) & 0xf00) == 0;
    if (n <= t->movsb || overlap_up || (n >= t->movsb_stop && n < t->nt)) {
      ref_vec_loop(q, d, s, n, overlap_up || alias4k);
    } else if (n < t->movsb_stop) {
      put(q, s, 32, false);
      put(q, s + 32, 32, false);
      uint64_t base = ((d - s) & 0xe00) == 0 ? s : d;
      uint64_t o = 64 - (base & 63);
      for (uint64_t i = o; i < n; i++) {
        put(q, s + i, 1, false);
        put(q, d + i, 1, true);
      }
      put(q, d, 32, true);
      put(q, d + 32, 32, true);
    } else {
      for (uint64_t i = 0; i < n; i += 32) {
        put(q, s + i, 32, false);
        put(q, d + i, 32, true);
      }
    }
  }
}

/* ---- The engine's traffic through a block-taking sink. ---- */

static uint64_t ref_reads, ref_writes;

static void count_ref(const seq *s) {
  ref_reads = ref_writes = 0;
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].is_write)
      ref_writes++;
    else
      ref_reads++;
}

/* One process and batch for every case (the batch alone is 64 KiB),
 * their emission state set anew each time. */
static cb_proc *engine;
static cb_accbuf *batch;
static cb_engine_options opts;

static cb_proc *new_engine(seq *got, cb_access_sink *sink, cb_run_outcome *out,
                           const cb_glibc_thresholds *t) {
  cb_proc *pr = engine;
  batch->nbatch = 0;
  *sink = (cb_access_sink){sink_records, got, sink_block, NULL};
  batch->sink = sink;
  pr->acc = batch;
  pr->out = out;
  opts.glibc = *t;
  pr->opt = &opts;
  pr->libc_base = LIBC_BASE;
  pr->cur_site = SITE;
  return pr;
}

static bool same_seq(const seq *a, const seq *b) {
  if (a->n != b->n)
    return false;
  for (size_t i = 0; i < a->n; i++)
    if (a->v[i].addr != b->v[i].addr || a->v[i].size != b->v[i].size ||
        a->v[i].site != b->v[i].site || a->v[i].is_write != b->v[i].is_write)
      return false;
  return true;
}

static uint64_t blocks_seen, cases, bad;

/* One call of each kind at (d, s, n), checked against the reference. */
static void check_case(const cb_glibc_thresholds *t, bool is_copy, uint64_t d,
                       uint64_t s, uint64_t n) {
  seq want = {0}, got = {0};
  cb_access_sink sink;
  cb_run_outcome out;
  memset(&out, 0, sizeof out);
  cb_proc *pr = new_engine(&got, &sink, &out, t);
  if (is_copy) {
    ref_memcpy(&want, t, d, s, n);
    cb_proc_memcpy_traffic(pr, d, s, n);
  } else {
    ref_memset(&want, t, d, n);
    cb_proc_memset_traffic(pr, d, n);
  }
  cb_acc_flush(pr->acc);
  count_ref(&want);
  cases++;
  blocks_seen += got.blocks;
  if (!same_seq(&want, &got) || out.lib_reads != ref_reads ||
      out.lib_writes != ref_writes) {
    if (bad++ < 5)
      fprintf(stderr,
              "%s d=%#llx s=%#llx n=%llu: %zu records (want %zu), reads "
              "%llu (want %llu), writes %llu (want %llu)\n",
              is_copy ? "memcpy" : "memset", (unsigned long long)d,
              (unsigned long long)s, (unsigned long long)n, got.n, want.n,
              (unsigned long long)out.lib_reads, (unsigned long long)ref_reads,
              (unsigned long long)out.lib_writes,
              (unsigned long long)ref_writes);
  }
  free(want.v);
  free(got.v);
}

int main(void) {
  engine = calloc(1, sizeof *engine);
  batch = calloc(1, sizeof *batch);
  if (!engine || !batch)
    abort();
  /* An AMD host's thresholds and an Intel host's (docs/process-model.md,
   * section 4). */
  const cb_glibc_thresholds hosts[] = {
      {.stosb = 2048, .movsb = 8192, .movsb_stop = 2u << 20, .nt = 2u << 20},
      {.stosb = 2048, .movsb = 4096, .movsb_stop = 3u << 20, .nt = 3u << 20},
  };
  /* Sizes: every one up to 600 (all the small classes and the first
   * loop trips), then around each threshold and a few large ones. */
  uint64_t sizes[700];
  size_t n_sizes = 0;
  for (uint64_t n = 0; n <= 600; n++)
    sizes[n_sizes++] = n;
  const uint64_t around[] = {2048, 4096, 8192, 2u << 20, 3u << 20};
  for (size_t i = 0; i < sizeof around / sizeof *around; i++)
    for (int64_t k = -2; k <= 2; k++)
      sizes[n_sizes++] = around[i] + (uint64_t)k;
  const uint64_t more[] = {1000, 2000, 5000, 12345, 65536, 100003};
  for (size_t i = 0; i < sizeof more / sizeof *more; i++)
    sizes[n_sizes++] = more[i];
  /* Destination alignments, and sources: far below, far above, 4 KiB
   * aliasing, overlapping below (memmove backward) and above. */
  const uint64_t d_offsets[] = {0, 1, 7, 31, 33, 63};
  for (size_t h = 0; h < 2; h++)
    for (size_t i = 0; i < n_sizes; i++)
      for (size_t a = 0; a < sizeof d_offsets / sizeof *d_offsets; a++) {
        uint64_t n = sizes[i];
        /* the larger sizes at one alignment only: they take long */
        if (n > 20000 && a > 0)
          continue;
        uint64_t d = 0x4a00000ull + d_offsets[a];
        check_case(&hosts[h], false, d, 0, n);
        const uint64_t srcs[] = {d - 0x900000ull + 17, d + 0x900000ull + 5,
                                 d - 0x1000000ull, d - n / 2 - 3, d + 40};
        for (size_t k = 0; k < sizeof srcs / sizeof *srcs; k++)
          check_case(&hosts[h], true, d, srcs[k], n);
      }
  CHECK_EQ_U64(bad, 0);
  /* the loops did travel as blocks */
  CHECK(blocks_seen > 1000);
  printf("%llu calls, %llu blocks\n", (unsigned long long)cases,
         (unsigned long long)blocks_seen);
  free(engine);
  free(batch);
  return check_done();
}
