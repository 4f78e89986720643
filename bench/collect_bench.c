/* collect_bench: the default `cbana analyze` path for affine blocks, the
 * per-access collector (analysis/pipeline/collector.c: a hierarchy with 3C
 * classification plus misses per set, working sets, strides and
 * allocation sites) fed the same stream as blocks (drv_fanout_affine,
 * which warps over all-hit iterations) and as records (drv_fanout_batch,
 * the expansion). CPU time of the fan-out calls only, best of RUNS; the
 * misses and the working set are printed so that the two rows can be
 * seen to agree (the tests check every view).
 *
 * Streams (cachegrind's hierarchy): an 8-byte stride-8 sweep over 64 MiB
 * and over 16 KiB (resident in the L1D), one block per pass, 4 M
 * accesses; a block body of a[i] read, b[i] written (4 bytes) and a
 * scalar read, 2 M iterations in blocks of 4096; and fannkuch's kind of
 * loop: a[i] read and b[i] written (4 bytes) in two 32-byte halves of
 * one 64-byte heap block, 8 iterations per block, 4 M iterations (the
 * allocation-site rows count every access). One program site per access,
 * each with a variable. */
#include "collector.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 4096
#define GROUP 1024

static double now(void) {
  return drv_thread_cpu_s();
}

typedef struct stream {
  const char *name;
  uint64_t region, n_iter, block_iter;
  uint32_t n_acc;
  cb_affine_access acc[3];
  uint64_t heap; /* bytes of a heap block at the first access's base */
} stream;

static double run(const cb_program *p, const stream *s, bool blocks,
                  uint64_t *m1, uint64_t *lines, uint64_t *warped) {
  cb_cache_config cfg;
  cb_cache_preset("cachegrind", &cfg);
  char err[CB_ERR_MAX];
  cb_hierarchy *h =
      cb_hierarchy_create(&cfg, p->n_sites, CB_CLASSIFY, err, sizeof err);
  collector col;
  if (!h || !drv_collector_init(&col, h, p)) {
    fprintf(stderr, "collect_bench: cannot set up\n");
    exit(2);
  }
  fanout f = {.c = &col, .n = 1};
  if (s->heap) {
    cb_alloc_event ev = {CB_ALLOC_NEW,   2, CB_LIBC_MALLOC,
                         s->acc[0].base, 0, s->heap};
    cb_access rec[CB_ALLOC_MARK_RECORDS];
    cb_alloc_encode(&ev, rec);
    drv_fanout_batch(&f, rec, CB_ALLOC_MARK_RECORDS);
  }
  /* Short blocks are timed in groups, and records in full batches
   * across blocks: the thread's CPU clock costs a system call. */
  static cb_access batch[BATCH];
  static cb_affine_access group[GROUP][3];
  static cb_affine_block blk[GROUP];
  size_t n_batch = 0, n_group = 0;
  double spent = 0;
  for (uint64_t done = 0; done < s->n_iter;) {
    cb_affine_access *acc = group[n_group];
    memcpy(acc, s->acc, sizeof group[0]);
    uint64_t t0 = done % (s->region / (uint64_t)s->acc[0].stride);
    for (uint32_t j = 0; j < s->n_acc; j++)
      acc[j].base += t0 * (uint64_t)acc[j].stride;
    uint64_t n = s->block_iter;
    if (n > s->n_iter - done)
      n = s->n_iter - done;
    cb_affine_block b = {n, s->n_acc, acc};
    done += n;
    if (blocks) {
      blk[n_group++] = b;
      if (n_group == GROUP || done == s->n_iter) {
        double t = now();
        for (size_t k = 0; k < n_group; k++)
          drv_fanout_affine(&f, &blk[k]);
        spent += now() - t;
        n_group = 0;
      }
      continue;
    }
    uint64_t pos = 0;
    size_t got;
    while ((got = cb_affine_expand(&b, &pos, batch + n_batch,
                                   BATCH - n_batch)) > 0) {
      n_batch += got;
      if (n_batch < BATCH && done < s->n_iter)
        continue;
      double t = now();
      drv_fanout_batch(&f, batch, n_batch);
      spent += now() - t;
      n_batch = 0;
    }
  }
  if (n_batch) {
    double t = now();
    drv_fanout_batch(&f, batch, n_batch);
    spent += now() - t;
  }
  cb_level_stats st;
  cb_hierarchy_level_stats(h, 0, &st);
  *m1 = st.misses;
  uint64_t vl[2] = {0, 0}, tl[1] = {0}, fl[1] = {0};
  uint64_t *ws[3] = {vl, tl, fl};
  if (p->n_vars > 2 || p->n_types > 1 || p->n_fields > 1 ||
      !drv_collector_ws_lines(&col, ws))
    fprintf(stderr, "collect_bench: no working sets\n");
  *lines = vl[0] + vl[1];
  cb_alloc_site *rows;
  uint32_t n_rows;
  if (s->heap && cb_alloc_track_export(col.alloc, &rows, &n_rows)) {
    if (n_rows != 1 || rows[0].level[0].accesses != s->n_iter * s->n_acc)
      fprintf(stderr, "collect_bench: the heap row missed accesses\n");
    free(rows);
  }
  cb_affine_stats as;
  cb_hierarchy_affine_stats(h, &as);
  *warped = as.warped_iterations;
  drv_collector_free(&col);
  cb_hierarchy_destroy(h);
  return spent;
}

int main(int argc, char **argv) {
  int runs = argc > 1 ? atoi(argv[1]) : 3;
  int only = argc > 2 ? atoi(argv[2]) : -1;
  if (runs <= 0) {
    fprintf(stderr, "usage: collect_bench [RUNS [ROW]]\n");
    return 2;
  }
  cb_site sites[3];
  memset(sites, 0, sizeof sites);
  for (uint32_t k = 0; k < 3; k++) {
    sites[k].line = 10 + k;
    sites[k].var = k % 2;
    sites[k].type = CB_NONE;
    sites[k].field = CB_NONE;
    sites[k].size = 8;
  }
  cb_program p;
  memset(&p, 0, sizeof p);
  p.sites = sites;
  p.n_sites = 3;
  p.n_vars = 2;
  p.n_types = 1;
  p.n_fields = 1;
  const uint64_t base = 0x10000000, mib64 = 64ull << 20;
  stream streams[] = {
      {"stride-8 sweep, 64 MiB",
       mib64,
       4000000,
       mib64 / 8,
       1,
       {{.base = base, .stride = 8, .site = 0, .size = 8}},
       0},
      {"stride-8 sweep, 16 KiB resident",
       16384,
       4000000,
       16384 / 8,
       1,
       {{.base = base, .stride = 8, .site = 0, .size = 8}},
       0},
      {"a[i], b[i] = , s (3 accesses)",
       mib64,
       2000000,
       4096,
       3,
       {{.base = base, .stride = 8, .site = 0, .size = 8},
        {.base = base + mib64 + 4096,
         .stride = 4,
         .site = 1,
         .size = 4,
         .is_write = 1},
        {.base = base - 64, .stride = 0, .site = 2, .size = 8}},
       0},
      {"a[i] read, b[i] written, one 64-byte heap block",
       32,
       4000000,
       8,
       2,
       {{.base = base, .stride = 4, .site = 0, .size = 4},
        {.base = base + 32, .stride = 4, .site = 1, .size = 4, .is_write = 1}},
       .heap = 64},
  };
  printf("collect_bench: best of %d runs, CPU time of the fan-out (collector "
         "with classification); L1D 32 KiB 8-way, LL 1 MiB 16-way, LRU\n\n"
         "| stream | as | accesses | M accesses/s | L1D misses | var lines "
         "| warped iterations |\n|---|---|---:|---:|---:|---:|---:|\n",
         runs);
  int row = 0;
  for (size_t k = 0; k < sizeof streams / sizeof streams[0]; k++)
    for (int blocks = 0; blocks < 2; blocks++, row++) {
      if (only >= 0 && only != row)
        continue;
      double best = 1e30;
      uint64_t m1 = 0, lines = 0, warped = 0;
      for (int r = 0; r < runs; r++) {
        double t = run(&p, &streams[k], blocks, &m1, &lines, &warped);
        if (t < best)
          best = t;
      }
      uint64_t count = streams[k].n_iter * streams[k].n_acc;
      printf("| %s | %s | %.1f M | %.1f | %llu | %llu | %llu |\n",
             streams[k].name, blocks ? "blocks" : "records",
             (double)count / 1e6, (double)count / best / 1e6,
             (unsigned long long)m1, (unsigned long long)lines,
             (unsigned long long)warped);
      fflush(stdout);
    }
  return 0;
}
