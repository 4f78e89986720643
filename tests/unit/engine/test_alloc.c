/* The allocation-site tracker (analysis/pipeline/alloc_track.c) against a naive
 * reference: random allocations, frees, reallocs and accesses, the
 * reference keeping every live block in a plain list and searching it
 * linearly for each access. Also the marker records' round trip, and a
 * hand-made sequence (a freed block reused by another site). */
#include <stdlib.h>
#include <string.h>

#include "alloc_track.h"
#include "check.h"

#define N_SITES 6

static cb_site sites[N_SITES];
static const char *files[] = {"t.c"};

static cb_program program(void) {
  cb_program p;
  memset(&p, 0, sizeof p);
  for (uint32_t s = 0; s < N_SITES; s++) {
    sites[s].line = 10 + s;
    sites[s].var = sites[s].type = sites[s].field = CB_NONE;
  }
  p.sites = sites;
  p.n_sites = N_SITES;
  p.files = files;
  p.n_files = 1;
  return p;
}

static void test_markers(void) {
  cb_alloc_event ev = {CB_ALLOC_REALLOC, 0x12345678u,  CB_LIBC_REALLOC,
                       0x4a2c010ull,     0x4035010ull, 1ull << 40};
  cb_access rec[CB_ALLOC_MARK_RECORDS];
  cb_alloc_encode(&ev, rec);
  CHECK(cb_alloc_is_mark(rec, CB_ALLOC_MARK_RECORDS));
  CHECK(!cb_alloc_is_mark(rec, 2));
  cb_alloc_event back;
  cb_alloc_decode(rec, &back);
  CHECK_EQ_U64(back.kind, ev.kind);
  CHECK_EQ_U64(back.site, ev.site);
  CHECK_EQ_U64(back.callee, ev.callee);
  CHECK_EQ_U64(back.addr, ev.addr);
  CHECK_EQ_U64(back.old, ev.old);
  CHECK_EQ_U64(back.size, ev.size);
}

/* Every access misses the one level, a compulsory miss. */
static const uint8_t compulsory[CB_MAX_LEVELS] = {CB_MISS_COMPULSORY};

static void access(cb_alloc_track *t, uint64_t addr, uint32_t site) {
  cb_access a = {addr, site, 8, 0, 0};
  uint32_t row = cb_alloc_track_find(t, addr, site);
  if (row != CB_NONE)
    cb_alloc_track_count(t, row, &a, 1, compulsory);
}

static const cb_alloc_site *row_of(const cb_alloc_site *rows, uint32_t n,
                                   uint32_t site) {
  for (uint32_t i = 0; i < n; i++)
    if (rows[i].site == site)
      return &rows[i];
  return NULL;
}

/* Site 0 mallocs 4 blocks of 64 bytes; block 2 is freed and site 1 gets
 * the same address; site 2 reallocs block 0 elsewhere. */
static void test_reuse(void) {
  cb_program p = program();
  cb_alloc_track *t = cb_alloc_track_new(&p, 1, 6);
  CHECK(t != NULL);
  if (!t)
    return;
  uint64_t base = 0x4035000;
  for (int k = 0; k < 4; k++) {
    cb_alloc_event ev = {CB_ALLOC_NEW, 0, CB_LIBC_MALLOC, base + 80 * k, 0, 64};
    cb_alloc_track_event(t, &ev);
  }
  for (int k = 0; k < 4; k++)
    for (int i = 0; i < 8; i++)
      access(t, base + 80 * k + 8 * i, 3); /* 32 accesses to site 0 */
  access(t, base + 64, 3);                 /* between blocks: none */
  cb_alloc_event fr = {CB_ALLOC_FREE, 4, CB_LIBC_FREE, base + 160, 0, 0};
  cb_alloc_track_event(t, &fr);
  access(t, base + 160, 3); /* a freed block: none */
  cb_alloc_event re = {CB_ALLOC_NEW, 1, CB_LIBC_MALLOC, base + 160, 0, 64};
  cb_alloc_track_event(t, &re);
  for (int i = 0; i < 8; i++)
    access(t, base + 160 + 8 * i, 3); /* 8 accesses to site 1 */
  cb_alloc_event ra = {CB_ALLOC_REALLOC, 2,    CB_LIBC_REALLOC,
                       base + 1000,      base, 256};
  cb_alloc_track_event(t, &ra);
  access(t, base, 3);        /* the old place: none */
  access(t, base + 1200, 3); /* the new block: site 2 */
  access(t, base + 80, 3);   /* block 1: still site 0 */
  cb_alloc_site *rows;
  uint32_t n;
  CHECK(cb_alloc_track_export(t, &rows, &n));
  CHECK_EQ_U64(n, 3);
  const cb_alloc_site *a = row_of(rows, n, 0), *b = row_of(rows, n, 1),
                      *c = row_of(rows, n, 2);
  CHECK(a && b && c);
  if (a && b && c) {
    CHECK_EQ_U64(a->level[0].accesses, 33);
    CHECK_EQ_U64(a->level[0].misses, 33);
    CHECK_EQ_U64(a->level[0].compulsory, 33);
    CHECK_EQ_U64(a->level[0].capacity + a->level[0].conflict, 0);
    CHECK_EQ_U64(a->blocks, 4);
    CHECK_EQ_U64(a->bytes, 256);
    CHECK_EQ_U64(a->min_size, 64);
    CHECK_EQ_U64(a->max_size, 64);
    /* 4 blocks of 64 bytes at 80-byte steps: lines 0x4035000>>6 + ... */
    uint64_t lines = 0, prev = UINT64_MAX;
    for (int k = 0; k < 4; k++)
      for (int i = 0; i < 8; i++) {
        uint64_t l = (base + 80 * k + 8 * i) >> 6;
        lines += l != prev;
        prev = l;
      }
    CHECK_EQ_U64(a->lines, lines);
    CHECK_EQ_U64(b->level[0].accesses, 8);
    CHECK_EQ_U64(b->blocks, 1);
    CHECK_EQ_U64(c->level[0].accesses, 1);
    CHECK_EQ_U64(c->bytes, 256);
    CHECK_EQ_U64(c->hot_line, 13); /* site 3's line: its misses */
  }
  free(rows);
  cb_alloc_track_reset(t);
  access(t, base + 80, 3);
  CHECK(cb_alloc_track_export(t, &rows, &n));
  CHECK_EQ_U64(n, 0);
  free(rows);
  cb_alloc_track_free(t);
}

/* ---- random sequences against the naive reference ---- */

typedef struct ref_blk {
  uint64_t start, end;
  uint32_t site;
} ref_blk;

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) {
  rnd_state ^= rnd_state << 13;
  rnd_state ^= rnd_state >> 7;
  rnd_state ^= rnd_state << 17;
  return rnd_state;
}

static void test_random(void) {
  cb_program p = program();
  cb_alloc_track *t = cb_alloc_track_new(&p, 1, 6);
  CHECK(t != NULL);
  if (!t)
    return;
  /* Address space in slots of 256 bytes, a block filling part of one
   * (starts 16-byte aligned, as glibc's, and some 8 bytes off), and
   * BIG slots of 16 KiB further up for blocks up to 12000 bytes: the
   * tracker's granule map holds the small blocks, its sorted array the
   * big ones. */
  enum { SLOTS = 512, BIG = 16, BIG_SLOT = 16384 };
  ref_blk live[SLOTS + BIG];
  bool used[SLOTS + BIG];
  memset(used, 0, sizeof used);
  uint64_t want_acc[N_SITES] = {0}, want_blocks[N_SITES] = {0};
  /* working sets: distinct 64-byte lines per site, from base - 256 */
  enum { LINES = (256 * SLOTS + 1024 + 4096 + BIG_SLOT * BIG) / 64 };
  static bool seen_line[N_SITES][LINES];
  uint64_t want_lines[N_SITES] = {0};
  uint64_t base = 0x4035000;
  int bad = 0;
  for (int step = 0; step < 200000; step++) {
    unsigned op = rnd() % 10;
    unsigned k = rnd() % SLOTS;
    if (op == 3 || op == 4)
      k = SLOTS + (unsigned)(rnd() % BIG);
    uint64_t big_base = base + 256ull * SLOTS + 4096;
    if (op == 3 && !used[k]) {
      uint32_t site = (uint32_t)(rnd() % 3);
      uint64_t size = 1 + rnd() % 12000;
      uint64_t start =
          big_base + (uint64_t)BIG_SLOT * (k - SLOTS) + 16 * (rnd() % 8);
      cb_alloc_event ev = {CB_ALLOC_NEW, site, CB_LIBC_MALLOC, start, 0, size};
      cb_alloc_track_event(t, &ev);
      live[k] = (ref_blk){start, start + size, site};
      used[k] = true;
      want_blocks[site]++;
    } else if (op == 4 && used[k]) {
      cb_alloc_event ev = {CB_ALLOC_FREE, 5, CB_LIBC_FREE, live[k].start, 0, 0};
      cb_alloc_track_event(t, &ev);
      used[k] = false;
    } else if (op == 3 || op == 4) {
      continue;
    } else if (op == 0 && !used[k]) {
      uint32_t site = (uint32_t)(rnd() % 3);
      uint64_t size = 1 + rnd() % 190;
      uint64_t start =
          base + 256ull * k + 16 * (rnd() % 4) + (rnd() % 8 == 0 ? 8 : 0);
      cb_alloc_event ev = {CB_ALLOC_NEW, site, CB_LIBC_MALLOC, start, 0, size};
      cb_alloc_track_event(t, &ev);
      live[k] = (ref_blk){start, start + size, site};
      used[k] = true;
      want_blocks[site]++;
    } else if (op == 1 && used[k]) {
      cb_alloc_event ev = {CB_ALLOC_FREE, 5, CB_LIBC_FREE, live[k].start, 0, 0};
      cb_alloc_track_event(t, &ev);
      used[k] = false;
    } else if (op == 2 && used[k]) {
      /* realloc into another free slot, or in place */
      unsigned j = rnd() % 2 ? k : (unsigned)(rnd() % SLOTS);
      if (j != k && used[j])
        continue;
      uint64_t size = 1 + rnd() % 190;
      uint64_t start =
          base + 256ull * j + 16 * (rnd() % 4) + (rnd() % 8 == 0 ? 8 : 0);
      cb_alloc_event ev = {CB_ALLOC_REALLOC, 3,   CB_LIBC_REALLOC, start,
                           live[k].start,    size};
      cb_alloc_track_event(t, &ev);
      used[k] = false;
      live[j] = (ref_blk){start, start + size, 3};
      used[j] = true;
      want_blocks[3]++;
    } else {
      uint64_t addr = rnd() % 4 ? base + rnd() % (256ull * SLOTS + 512) - 256
                                : big_base + rnd() % ((uint64_t)BIG_SLOT * BIG);
      uint32_t site = 4 + (uint32_t)(rnd() % 2);
      uint32_t want = CB_NONE;
      for (unsigned s = 0; s < SLOTS + BIG; s++) /* naive: every block */
        if (used[s] && addr >= live[s].start && addr < live[s].end)
          want = live[s].site;
      if (want != CB_NONE) {
        want_acc[want]++;
        uint64_t li = (addr >> 6) - ((base - 256) >> 6);
        if (!seen_line[want][li]) {
          seen_line[want][li] = true;
          want_lines[want]++;
        }
      }
      cb_access a = {addr, site, 1, 0, 0};
      uint32_t row = cb_alloc_track_find(t, addr, site);
      cb_alloc_site *rows;
      uint32_t n;
      if (row != CB_NONE) {
        cb_alloc_track_count(t, row, &a, 1, compulsory);
        if (cb_alloc_track_export(t, &rows, &n)) {
          bad += row >= n || rows[row].site != want;
          free(rows);
        }
      } else {
        bad += want != CB_NONE;
      }
    }
  }
  CHECK_EQ_U64(bad, 0);
  cb_alloc_site *rows;
  uint32_t n;
  CHECK(cb_alloc_track_export(t, &rows, &n));
  for (uint32_t s = 0; s < 4; s++) {
    const cb_alloc_site *r = row_of(rows, n, s);
    CHECK(r != NULL);
    if (r) {
      CHECK_EQ_U64(r->level[0].accesses, want_acc[s]);
      CHECK_EQ_U64(r->lines, want_lines[s]);
      CHECK_EQ_U64(r->blocks, want_blocks[s]);
    }
  }
  free(rows);
  cb_alloc_track_free(t);
}

int main(void) {
  test_markers();
  test_reuse();
  test_random();
  return check_done();
}
