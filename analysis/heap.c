/* heap.c: glibc 2.36 malloc placement model (see heap.h).
 *
 * Written from the description of glibc's algorithm (malloc/malloc.c):
 * chunks have an 8-byte size header before the user pointer, are 16-byte
 * aligned and at least 32 bytes; the first call allocates the
 * tcache_perthread_struct (a 0x290-byte chunk); requests are served from
 * the tcache, then fastbins (chunks <= 128 bytes), small bins, the
 * unsorted list (sorting chunks into bins as it goes), the best-fitting
 * larger bin, and finally the top chunk, which grows with brk by the
 * request + 128 KiB of padding (page rounded). Requests at or above the
 * mmap threshold that the top cannot serve get their own mapping.
 *
 * Bookkeeping lives in records outside the modelled memory; every chunk
 * of the heap (in use or free, and the top) has a record found by address.
 */
#include "heap.h"

#include <stdlib.h>
#include <string.h>

#define SZ 8u
#define MINSIZE 32u
#define PAGE 4096u
#define NBINS 128
#define MIN_LARGE 1024u
#define MAX_FAST 128u
#define NFAST 10
#define TC_BINS 64
#define TC_COUNT 7
#define TOP_PAD 0x20000u
#define MMAP_THRESHOLD_DEFAULT 0x20000u
#define MMAP_THRESHOLD_MAX (32ull << 20)
#define CONSOLIDATE_THRESHOLD 65536u
#define MMAP_AS_MORECORE 0x100000u
#define MMAP_LIMIT (1ull << 36) /* larger mappings fail (no such memory) */
#define TCACHE_STRUCT_BYTES 0x280u
#define TCACHE_KEY 0x5a17c0de5a17c0deull

enum { C_FREE_REC, C_INUSE, C_TCACHE, C_FAST, C_BIN, C_TOP };

typedef struct chunk {
  uint64_t addr, size, prev_size;
  int32_t fd, bk; /* bin links (record indexes); fd also for fast/tcache */
  uint8_t state;
  uint8_t prev_free; /* PREV_INUSE clear */
  uint8_t mmapped;
} chunk;

typedef struct mapping {
  uint64_t lo, hi;
} mapping;

struct cb_heap {
  cb_heap_config cfg;
  cb_heap_hooks hk;
  chunk *c;
  int32_t nc, capc, free_rec;
  /* address -> record, open addressing */
  uint64_t *hkeys;
  int32_t *hvals;
  size_t hcap, hn;
  int32_t top; /* -1 before the first sysmalloc */
  int32_t fast[NFAST];
  int32_t tc[TC_BINS][TC_COUNT];
  uint16_t tcn[TC_BINS];
  bool tcache_ready;
  uint64_t tcache_mem;
  bool have_fast;
  uint64_t last_rem; /* address of the last remainder chunk */
  uint64_t brk, max_brk;
  bool contiguous;
  uint64_t mmap_threshold, trim_threshold;
  int n_mmaps;
  mapping *maps;
  size_t nmaps, capmaps;
};

/* ---- records and the address map ---- */

static uint64_t hhash(uint64_t a) {
  a >>= 4;
  a *= 0x9e3779b97f4a7c15ull;
  return a ^ (a >> 29);
}

static void hput(cb_heap *h, uint64_t key, int32_t v);

static void hgrow(cb_heap *h) {
  uint64_t *ok = h->hkeys;
  int32_t *ov = h->hvals;
  size_t oc = h->hcap;
  h->hcap = oc ? oc * 2 : 1024;
  h->hkeys = calloc(h->hcap, sizeof *h->hkeys);
  h->hvals = malloc(h->hcap * sizeof *h->hvals);
  h->hn = 0;
  for (size_t i = 0; i < oc; i++)
    if (ok[i])
      hput(h, ok[i], ov[i]);
  free(ok);
  free(ov);
}

static void hput(cb_heap *h, uint64_t key, int32_t v) {
  if ((h->hn + 1) * 2 > h->hcap)
    hgrow(h);
  size_t m = h->hcap - 1, i = hhash(key) & m;
  while (h->hkeys[i] && h->hkeys[i] != key)
    i = (i + 1) & m;
  if (!h->hkeys[i])
    h->hn++;
  h->hkeys[i] = key;
  h->hvals[i] = v;
}

static int32_t hget(const cb_heap *h, uint64_t key) {
  if (!h->hcap)
    return -1;
  size_t m = h->hcap - 1, i = hhash(key) & m;
  while (h->hkeys[i]) {
    if (h->hkeys[i] == key)
      return h->hvals[i];
    i = (i + 1) & m;
  }
  return -1;
}

static void hdel(cb_heap *h, uint64_t key) {
  size_t m = h->hcap - 1, i = hhash(key) & m;
  while (h->hkeys[i] && h->hkeys[i] != key)
    i = (i + 1) & m;
  if (!h->hkeys[i])
    return;
  h->hkeys[i] = 0;
  h->hn--;
  /* backward-shift the cluster */
  size_t j = i;
  for (;;) {
    j = (j + 1) & m;
    if (!h->hkeys[j])
      break;
    size_t k = hhash(h->hkeys[j]) & m;
    /* can the entry at j move to i? (k not cyclically in (i, j]) */
    bool between = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
    if (!between) {
      h->hkeys[i] = h->hkeys[j];
      h->hvals[i] = h->hvals[j];
      h->hkeys[j] = 0;
      i = j;
    }
  }
}

static int32_t rec_new(cb_heap *h, uint64_t addr, uint64_t size) {
  int32_t r;
  if (h->free_rec >= 0) {
    r = h->free_rec;
    h->free_rec = h->c[r].fd;
  } else {
    if (h->nc == h->capc) {
      h->capc = h->capc ? h->capc * 2 : 1024;
      h->c = realloc(h->c, (size_t)h->capc * sizeof *h->c);
    }
    r = h->nc++;
  }
  chunk *c = &h->c[r];
  memset(c, 0, sizeof *c);
  c->addr = addr;
  c->size = size;
  c->fd = c->bk = -1;
  c->state = C_INUSE;
  hput(h, addr, r);
  return r;
}

static void rec_del(cb_heap *h, int32_t r) {
  hdel(h, h->c[r].addr);
  h->c[r].state = C_FREE_REC;
  h->c[r].fd = h->free_rec;
  h->free_rec = r;
}

static void rec_move(cb_heap *h, int32_t r, uint64_t addr) {
  hdel(h, h->c[r].addr);
  h->c[r].addr = addr;
  hput(h, addr, r);
}

/* ---- traffic ---- */

static void rd(cb_heap *h, uint64_t a, unsigned n) {
  if (h->hk.access)
    h->hk.access(h->hk.ctx, a, n, false, 0);
}

static void wr(cb_heap *h, uint64_t a, unsigned n, uint64_t v) {
  if (h->hk.access)
    h->hk.access(h->hk.ctx, a, n, true, v);
}

static void set_head(cb_heap *h, int32_t r) {
  chunk *c = &h->c[r];
  uint64_t v = c->size | (c->prev_free ? 0 : 1) | (c->mmapped ? 2 : 0);
  wr(h, c->addr + SZ, 8, v);
}

static void mapped(cb_heap *h, uint64_t lo, uint64_t hi, bool on) {
  if (h->hk.map && hi > lo)
    h->hk.map(h->hk.ctx, lo, hi, on);
}

/* ---- chunk neighbourhood ---- */

static int32_t next_of(const cb_heap *h, int32_t r) {
  return hget(h, h->c[r].addr + h->c[r].size);
}

/* r became free (in a bin): its successor learns it */
static void mark_free(cb_heap *h, int32_t r) {
  h->c[r].state = C_BIN;
  int32_t n = next_of(h, r);
  if (n >= 0) {
    h->c[n].prev_free = 1;
    h->c[n].prev_size = h->c[r].size;
    wr(h, h->c[n].addr, 8, h->c[r].size); /* the foot */
  }
}

static void mark_inuse(cb_heap *h, int32_t r) {
  h->c[r].state = C_INUSE;
  int32_t n = next_of(h, r);
  if (n >= 0 && h->c[n].prev_free) {
    h->c[n].prev_free = 0;
    set_head(h, n);
  }
}

/* ---- bins (records 0..NBINS-1 are the heads) ---- */

static bool bin_empty(const cb_heap *h, int b) {
  return h->c[b].fd == b;
}

static void bin_unlink(cb_heap *h, int32_t r) {
  chunk *c = &h->c[r];
  rd(h, c->addr + 16, 8);
  rd(h, c->addr + 24, 8);
  h->c[c->bk].fd = c->fd;
  h->c[c->fd].bk = c->bk;
  c->fd = c->bk = -1;
}

static void bin_insert_after(cb_heap *h, int32_t pos, int32_t r) {
  int32_t nxt = h->c[pos].fd;
  h->c[r].fd = nxt;
  h->c[r].bk = pos;
  h->c[pos].fd = r;
  h->c[nxt].bk = r;
  wr(h, h->c[r].addr + 16, 8, nxt >= NBINS ? h->c[nxt].addr : 0);
  wr(h, h->c[r].addr + 24, 8, pos >= NBINS ? h->c[pos].addr : 0);
}

static int largebin_index(uint64_t sz) {
  if ((sz >> 6) <= 48)
    return 48 + (int)(sz >> 6);
  if ((sz >> 9) <= 20)
    return 91 + (int)(sz >> 9);
  if ((sz >> 12) <= 10)
    return 110 + (int)(sz >> 12);
  if ((sz >> 15) <= 4)
    return 119 + (int)(sz >> 15);
  if ((sz >> 18) <= 2)
    return 124 + (int)(sz >> 18);
  return 126;
}

static int bin_index(uint64_t sz) {
  return sz < MIN_LARGE ? (int)(sz >> 4) : largebin_index(sz);
}

/* Places a chunk taken off the unsorted list into its bin. Small bins:
 * at the head. Large bins are kept in decreasing size order; a chunk of
 * a size already present goes right after the first of that size. */
static void bin_place(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  int b = bin_index(size);
  if (size < MIN_LARGE || bin_empty(h, b)) {
    bin_insert_after(h, b, r);
    return;
  }
  int32_t last = h->c[b].bk;
  if (size < h->c[last].size) {
    bin_insert_after(h, last, r);
    return;
  }
  int32_t f = h->c[b].fd;
  while (size < h->c[f].size)
    f = h->c[f].fd;
  if (size == h->c[f].size)
    bin_insert_after(h, f, r);
  else
    bin_insert_after(h, h->c[f].bk, r);
}

/* ---- tcache ---- */

static uint64_t tc_counts(const cb_heap *h, int i) {
  return h->tcache_mem + 2 * (uint64_t)i;
}

static uint64_t tc_entries(const cb_heap *h, int i) {
  return h->tcache_mem + 128 + 8 * (uint64_t)i;
}

/* The tcache bin of a chunk size; TC_BINS for sizes beyond the tcache. */
static int csize2tidx(uint64_t size) {
  uint64_t i = (size - MINSIZE + 15) / 16;
  return i < TC_BINS ? (int)i : TC_BINS;
}

static void tcache_put(cb_heap *h, int32_t r, int idx) {
  chunk *c = &h->c[r];
  uint64_t mem = c->addr + 16;
  uint64_t old = h->tcn[idx] ? h->c[h->tc[idx][h->tcn[idx] - 1]].addr + 16 : 0;
  c->state = C_TCACHE;
  rd(h, tc_entries(h, idx), 8);
  wr(h, mem, 8, (mem >> 12) ^ old);
  wr(h, mem + 8, 8, TCACHE_KEY);
  wr(h, tc_entries(h, idx), 8, mem);
  h->tc[idx][h->tcn[idx]++] = r;
  wr(h, tc_counts(h, idx), 2, h->tcn[idx]);
}

static int32_t tcache_get(cb_heap *h, int idx) {
  int32_t r = h->tc[idx][--h->tcn[idx]];
  uint64_t mem = h->c[r].addr + 16;
  rd(h, tc_entries(h, idx), 8);
  rd(h, mem, 8);
  wr(h, tc_entries(h, idx), 8,
     h->tcn[idx] ? h->c[h->tc[idx][h->tcn[idx] - 1]].addr + 16 : 0);
  wr(h, tc_counts(h, idx), 2, h->tcn[idx]);
  wr(h, mem + 8, 8, 0);
  h->c[r].state = C_INUSE;
  return r;
}

/* ---- the address space ---- */

static uint64_t align_up(uint64_t x, uint64_t a) {
  return (x + a - 1) & ~(a - 1);
}

/* First fit above mmap_base; 0 on failure. */
static uint64_t mmap_find(const cb_heap *h, uint64_t len) {
  uint64_t at = h->cfg.mmap_base;
  for (size_t i = 0; i < h->nmaps; i++) {
    if (h->maps[i].lo >= at + len)
      break;
    if (h->maps[i].hi > at)
      at = h->maps[i].hi;
  }
  return at;
}

static void maps_add(cb_heap *h, uint64_t lo, uint64_t hi) {
  if (h->nmaps == h->capmaps) {
    h->capmaps = h->capmaps ? 2 * h->capmaps : 16;
    h->maps = realloc(h->maps, h->capmaps * sizeof *h->maps);
  }
  size_t i = 0;
  while (i < h->nmaps && h->maps[i].lo < lo)
    i++;
  memmove(&h->maps[i + 1], &h->maps[i], (h->nmaps - i) * sizeof *h->maps);
  h->maps[i].lo = lo;
  h->maps[i].hi = hi;
  h->nmaps++;
  mapped(h, lo, hi, true);
}

static void maps_del(cb_heap *h, uint64_t lo) {
  for (size_t i = 0; i < h->nmaps; i++)
    if (h->maps[i].lo == lo) {
      mapped(h, h->maps[i].lo, h->maps[i].hi, false);
      memmove(&h->maps[i], &h->maps[i + 1],
              (h->nmaps - i - 1) * sizeof *h->maps);
      h->nmaps--;
      return;
    }
}

static uint64_t do_mmap(cb_heap *h, uint64_t len) {
  if (len == 0 || len > MMAP_LIMIT)
    return 0;
  uint64_t at = mmap_find(h, len);
  maps_add(h, at, at + len);
  return at;
}

/* sbrk(incr) with valgrind's limit; false when it fails */
static bool do_sbrk(cb_heap *h, int64_t incr) {
  uint64_t nb = h->brk + (uint64_t)incr;
  if (incr > 0 && (uint64_t)incr > h->cfg.brk_max)
    return false;
  if (nb > h->cfg.heap_base + h->cfg.brk_max)
    return false;
  if (incr > 0)
    mapped(h, h->brk, nb, true);
  else if (incr < 0)
    mapped(h, nb, h->brk, false);
  h->brk = nb;
  if (nb > h->max_brk)
    h->max_brk = nb;
  return true;
}

/* ---- free and consolidation ---- */

static void systrim(cb_heap *h) {
  chunk *t = &h->c[h->top];
  if (t->size < MINSIZE + 1)
    return;
  uint64_t area = t->size - MINSIZE - 1;
  if (area <= TOP_PAD)
    return;
  uint64_t extra = (area - TOP_PAD) & ~(uint64_t)(PAGE - 1);
  if (!extra || t->addr + t->size != h->brk)
    return;
  if (do_sbrk(h, -(int64_t)extra)) {
    h->c[h->top].size -= extra;
    set_head(h, h->top);
  }
}

/* Merges free chunk r with free neighbours and puts it in the unsorted
 * list or into the top; returns the resulting size. */
static uint64_t merge_free(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  int32_t nx = next_of(h, r);
  rd(h, h->c[r].addr + SZ, 8);
  if (h->c[r].prev_free) {
    int32_t pv = hget(h, h->c[r].addr - h->c[r].prev_size);
    if (pv >= 0) {
      bin_unlink(h, pv);
      h->c[pv].size += size;
      rec_del(h, r);
      r = pv;
      size = h->c[r].size;
    }
  }
  if (nx >= 0 && nx != h->top) {
    if (h->c[nx].state == C_BIN) {
      bin_unlink(h, nx);
      size += h->c[nx].size;
      rec_del(h, nx);
    }
    h->c[r].size = size;
    h->c[r].prev_free = 0;
    set_head(h, r);
    bin_insert_after(h, 1, r);
    mark_free(h, r);
  } else if (nx >= 0) {
    size += h->c[nx].size;
    rec_del(h, nx);
    h->c[r].size = size;
    h->c[r].state = C_TOP;
    h->c[r].prev_free = 0;
    h->top = r;
    set_head(h, r);
  }
  return size;
}

static void malloc_consolidate(cb_heap *h) {
  h->have_fast = false;
  for (int i = 0; i < NFAST; i++) {
    int32_t p = h->fast[i];
    h->fast[i] = -1;
    while (p >= 0) {
      int32_t nextp = h->c[p].fd;
      h->c[p].fd = -1;
      h->c[p].state = C_INUSE;
      merge_free(h, p);
      p = nextp;
    }
  }
}

static void int_free(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  if (h->tcache_ready) {
    int idx = csize2tidx(size);
    if (idx < TC_BINS) {
      rd(h, h->c[r].addr + 16 + 8, 8); /* e->key */
      rd(h, tc_counts(h, idx), 2);
      if (h->tcn[idx] < TC_COUNT) {
        tcache_put(h, r, idx);
        return;
      }
    }
  }
  if (size <= MAX_FAST) {
    int fi = (int)(size >> 4) - 2;
    int32_t old = h->fast[fi];
    h->c[r].fd = old;
    h->c[r].state = C_FAST;
    h->fast[fi] = r;
    h->have_fast = true;
    rd(h, h->c[r].addr + SZ, 8);
    wr(h, h->c[r].addr + 16, 8,
       ((h->c[r].addr + 16) >> 12) ^ (old >= 0 ? h->c[old].addr : 0));
    return;
  }
  size = merge_free(h, r);
  if (size >= CONSOLIDATE_THRESHOLD) {
    if (h->have_fast)
      malloc_consolidate(h);
    if (h->c[h->top].size >= h->trim_threshold)
      systrim(h);
  }
}

static void munmap_chunk(cb_heap *h, int32_t r) {
  uint64_t lo = h->c[r].addr - h->c[r].prev_size;
  rec_del(h, r);
  maps_del(h, lo);
  h->n_mmaps--;
}

/* ---- allocation ---- */

static int32_t split(cb_heap *h, int32_t r, uint64_t nb, bool to_unsorted,
                     bool is_remainder) {
  uint64_t size = h->c[r].size;
  if (size - nb < MINSIZE) {
    mark_inuse(h, r);
    return -1;
  }
  int32_t rem = rec_new(h, h->c[r].addr + nb, size - nb);
  h->c[r].size = nb;
  h->c[r].state = C_INUSE;
  set_head(h, r);
  h->c[rem].prev_free = 0;
  set_head(h, rem);
  if (to_unsorted) {
    bin_insert_after(h, 1, rem);
    mark_free(h, rem);
    if (is_remainder)
      h->last_rem = h->c[rem].addr;
  }
  return rem;
}

static int32_t from_top(cb_heap *h, uint64_t nb) {
  int32_t v = h->top;
  uint64_t tsize = h->c[v].size;
  int32_t nt = rec_new(h, h->c[v].addr + nb, tsize - nb);
  h->c[v].size = nb;
  h->c[v].state = C_INUSE;
  h->c[nt].state = C_TOP;
  h->top = nt;
  set_head(h, v);
  set_head(h, nt);
  return v;
}

static int32_t sysmalloc(cb_heap *h, uint64_t nb) {
  if (nb >= h->mmap_threshold && h->n_mmaps < 65536) {
    uint64_t size = align_up(nb + SZ, PAGE);
    uint64_t mm = size > nb ? do_mmap(h, size) : 0;
    if (mm) {
      int32_t r = rec_new(h, mm, size);
      h->c[r].mmapped = 1;
      h->c[r].prev_size = 0;
      set_head(h, r);
      h->n_mmaps++;
      return r;
    }
  }
  uint64_t old_size = h->top >= 0 ? h->c[h->top].size : 0;
  uint64_t old_end = h->top >= 0 ? h->c[h->top].addr + old_size : 0;
  uint64_t size = nb + TOP_PAD + MINSIZE;
  if (h->contiguous)
    size -= old_size;
  size = align_up(size, PAGE);
  uint64_t base = h->brk;
  if (nb < (1ull << 60) && size < (1ull << 60) && do_sbrk(h, (int64_t)size)) {
    if (h->top >= 0 && old_end == base && h->contiguous) {
      h->c[h->top].size += size;
    } else {
      int32_t old = h->top;
      h->top = rec_new(h, base, size);
      h->c[h->top].state = C_TOP;
      if (old >= 0) {
        /* a break not contiguous with the old top: fence it off */
        uint64_t os = (h->c[old].size - 2 * 16) & ~15ull;
        h->c[old].size = os;
        h->c[old].state = C_INUSE;
        if (os >= MINSIZE)
          int_free(h, old);
        else
          rec_del(h, old);
      }
    }
  } else {
    /* brk failed: mmap as the new non-contiguous top */
    uint64_t msize = size;
    if (h->contiguous)
      msize = align_up(size + old_size, PAGE);
    if (msize < MMAP_AS_MORECORE)
      msize = MMAP_AS_MORECORE;
    uint64_t mm = msize > nb ? do_mmap(h, msize) : 0;
    if (!mm)
      return -1;
    h->contiguous = false;
    int32_t old = h->top;
    h->top = rec_new(h, mm, msize);
    h->c[h->top].state = C_TOP;
    if (old >= 0) {
      uint64_t os = (h->c[old].size - 2 * 16) & ~15ull;
      h->c[old].size = os;
      h->c[old].state = C_INUSE;
      if (os >= MINSIZE)
        int_free(h, old);
      else
        rec_del(h, old);
    }
  }
  if (h->c[h->top].size >= nb + MINSIZE)
    return from_top(h, nb);
  return -1;
}

static uint64_t request2size(uint64_t req) {
  if (req + SZ + 15 < MINSIZE)
    return MINSIZE;
  return (req + SZ + 15) & ~15ull;
}

static int32_t int_malloc(cb_heap *h, uint64_t nb) {
  int tc_idx = csize2tidx(nb);
  bool tc_ok = h->tcache_ready && tc_idx < TC_BINS;
  int idx;
  if (nb <= MAX_FAST) {
    int fi = (int)(nb >> 4) - 2;
    if (h->fast[fi] >= 0) {
      int32_t v = h->fast[fi];
      h->fast[fi] = h->c[v].fd;
      rd(h, h->c[v].addr + 16, 8);
      h->c[v].state = C_INUSE;
      if (tc_ok)
        while (h->tcn[tc_idx] < TC_COUNT && h->fast[fi] >= 0) {
          int32_t t = h->fast[fi];
          h->fast[fi] = h->c[t].fd;
          rd(h, h->c[t].addr + 16, 8);
          tcache_put(h, t, tc_idx);
        }
      return v;
    }
  }
  if (nb < MIN_LARGE) {
    idx = (int)(nb >> 4);
    if (!bin_empty(h, idx)) {
      int32_t v = h->c[idx].bk;
      bin_unlink(h, v);
      mark_inuse(h, v);
      if (tc_ok)
        while (h->tcn[tc_idx] < TC_COUNT && !bin_empty(h, idx)) {
          int32_t t = h->c[idx].bk;
          bin_unlink(h, t);
          mark_inuse(h, t);
          tcache_put(h, t, tc_idx);
        }
      return v;
    }
  } else {
    idx = largebin_index(nb);
    if (h->have_fast)
      malloc_consolidate(h);
  }
  for (;;) {
    bool return_cached = false;
    int iters = 0;
    while (!bin_empty(h, 1)) {
      int32_t v = h->c[1].bk;
      uint64_t size = h->c[v].size;
      rd(h, h->c[v].addr + SZ, 8);
      if (nb < MIN_LARGE && h->c[v].bk == 1 && h->c[v].addr == h->last_rem &&
          size > nb + MINSIZE) {
        bin_unlink(h, v);
        split(h, v, nb, true, true);
        return v;
      }
      bin_unlink(h, v);
      if (size == nb) {
        mark_inuse(h, v);
        if (tc_ok && h->tcn[tc_idx] < TC_COUNT) {
          tcache_put(h, v, tc_idx);
          return_cached = true;
          continue;
        }
        return v;
      }
      bin_place(h, v);
      if (++iters >= 10000)
        break;
    }
    if (return_cached)
      return tcache_get(h, tc_idx);
    if (nb >= MIN_LARGE) {
      int b = idx;
      if (!bin_empty(h, b) && h->c[h->c[b].fd].size >= nb) {
        int32_t v = h->c[b].bk;
        while (h->c[v].size < nb)
          v = h->c[v].bk;
        while (h->c[v].bk != b && h->c[h->c[v].bk].size == h->c[v].size)
          v = h->c[v].bk;
        if (v != h->c[b].bk && h->c[h->c[v].fd].size == h->c[v].size)
          v = h->c[v].fd;
        bin_unlink(h, v);
        split(h, v, nb, true, false);
        return v;
      }
    }
    for (int b = idx + 1; b < NBINS - 1; b++) {
      if (bin_empty(h, b))
        continue;
      int32_t v = h->c[b].bk;
      bin_unlink(h, v);
      split(h, v, nb, true, nb < MIN_LARGE);
      return v;
    }
    /* use the top */
    if (h->top >= 0 && h->c[h->top].size >= nb + MINSIZE)
      return from_top(h, nb);
    if (h->have_fast) {
      malloc_consolidate(h);
      idx = nb < MIN_LARGE ? (int)(nb >> 4) : largebin_index(nb);
      continue;
    }
    return sysmalloc(h, nb);
  }
}

static void tcache_init(cb_heap *h) {
  if (h->tcache_ready)
    return;
  int32_t r = int_malloc(h, request2size(TCACHE_STRUCT_BYTES));
  h->tcache_mem = h->c[r].addr + 16;
  h->tcache_ready = true;
  if (h->hk.clear)
    h->hk.clear(h->hk.ctx, h->tcache_mem, TCACHE_STRUCT_BYTES);
}

/* ---- public ---- */

cb_heap *cb_heap_new(const cb_heap_config *cfg, const cb_heap_hooks *hooks) {
  cb_heap *h = calloc(1, sizeof *h);
  h->cfg = *cfg;
  if (hooks)
    h->hk = *hooks;
  h->brk = h->max_brk = cfg->heap_base;
  h->free_rec = -1;
  h->top = -1;
  h->contiguous = true;
  h->mmap_threshold = MMAP_THRESHOLD_DEFAULT;
  h->trim_threshold = 2 * MMAP_THRESHOLD_DEFAULT;
  for (int i = 0; i < NFAST; i++)
    h->fast[i] = -1;
  /* bin heads: records 0..NBINS-1, not in the address map */
  h->capc = 1024;
  h->c = calloc((size_t)h->capc, sizeof *h->c);
  for (int b = 0; b < NBINS; b++) {
    h->c[b].fd = h->c[b].bk = b;
    h->c[b].state = C_BIN;
  }
  h->nc = NBINS;
  return h;
}

void cb_heap_free_model(cb_heap *h) {
  if (!h)
    return;
  free(h->c);
  free(h->hkeys);
  free(h->hvals);
  free(h->maps);
  free(h);
}

uint64_t cb_heap_malloc(cb_heap *h, uint64_t bytes) {
  if (bytes > (uint64_t)INT64_MAX)
    return 0;
  tcache_init(h);
  uint64_t nb = request2size(bytes);
  int idx = csize2tidx(nb);
  if (idx < TC_BINS) {
    rd(h, tc_counts(h, idx), 2);
    if (h->tcn[idx] > 0)
      return h->c[tcache_get(h, idx)].addr + 16;
  }
  int32_t r = int_malloc(h, nb);
  return r < 0 ? 0 : h->c[r].addr + 16;
}

uint64_t cb_heap_calloc(cb_heap *h, uint64_t n, uint64_t size) {
  uint64_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes) || bytes > (uint64_t)INT64_MAX)
    return 0;
  tcache_init(h);
  uint64_t oldtop = h->c[h->top].addr, oldtopsize = h->c[h->top].size;
  if (h->contiguous && oldtopsize < h->max_brk - oldtop)
    oldtopsize = h->max_brk - oldtop;
  int32_t r = int_malloc(h, request2size(bytes));
  if (r < 0)
    return 0;
  chunk *c = &h->c[r];
  uint64_t mem = c->addr + 16;
  if (c->mmapped)
    return mem;
  uint64_t csz = c->size;
  if (c->addr == oldtop && csz > oldtopsize)
    csz = oldtopsize;
  if (h->hk.clear)
    h->hk.clear(h->hk.ctx, mem, csz - SZ);
  return mem;
}

void cb_heap_free(cb_heap *h, uint64_t mem) {
  if (!mem)
    return;
  int32_t r = hget(h, mem - 16);
  if (r < 0 || h->c[r].state != C_INUSE)
    return; /* the engine checks validity before */
  if (h->c[r].mmapped) {
    uint64_t cs = h->c[r].size;
    if (cs > h->mmap_threshold && cs <= MMAP_THRESHOLD_MAX) {
      h->mmap_threshold = cs;
      h->trim_threshold = 2 * cs;
    }
    munmap_chunk(h, r);
    return;
  }
  tcache_init(h);
  int_free(h, r);
}

static uint64_t mremap_chunk(cb_heap *h, int32_t r, uint64_t nb) {
  uint64_t off = h->c[r].prev_size, size = h->c[r].size;
  uint64_t lo = h->c[r].addr - off;
  uint64_t new_size = align_up(nb + off + SZ, PAGE);
  if (size + off == new_size)
    return h->c[r].addr + 16;
  /* grow or shrink in place when the following range is free */
  size_t i = 0;
  while (i < h->nmaps && h->maps[i].lo != lo)
    i++;
  if (i == h->nmaps)
    return 0;
  uint64_t limit = i + 1 < h->nmaps ? h->maps[i + 1].lo : UINT64_MAX;
  if (lo + new_size <= limit) {
    if (new_size > size + off)
      mapped(h, lo + size + off, lo + new_size, true);
    else
      mapped(h, lo + new_size, lo + size + off, false);
    h->maps[i].hi = lo + new_size;
    h->c[r].size = new_size - off;
    return h->c[r].addr + 16;
  }
  /* move: the kernel moves the pages (no cache traffic) */
  uint64_t at = mmap_find(h, new_size);
  maps_add(h, at, at + new_size);
  if (h->hk.copy)
    h->hk.copy(h->hk.ctx, at, lo,
               size + off < new_size ? size + off : new_size);
  maps_del(h, lo);
  rec_move(h, r, at + off);
  h->c[r].size = new_size - off;
  return at + off + 16;
}

uint64_t cb_heap_realloc(cb_heap *h, uint64_t mem, uint64_t bytes) {
  if (bytes == 0 && mem) {
    cb_heap_free(h, mem);
    return 0;
  }
  if (!mem)
    return cb_heap_malloc(h, bytes);
  if (bytes > (uint64_t)INT64_MAX)
    return 0;
  int32_t r = hget(h, mem - 16);
  if (r < 0)
    return 0;
  uint64_t nb = request2size(bytes);
  if (h->c[r].mmapped) {
    uint64_t m = mremap_chunk(h, r, nb);
    if (m)
      return m;
    if (h->c[r].size - SZ >= nb)
      return mem;
    uint64_t nm = cb_heap_malloc(h, bytes);
    if (!nm)
      return 0;
    if (h->hk.copy)
      h->hk.copy(h->hk.ctx, nm, mem, h->c[r].size - 2 * SZ);
    munmap_chunk(h, r);
    return nm;
  }
  tcache_init(h);
  uint64_t oldsize = h->c[r].size;
  if (oldsize < nb) {
    int32_t nx = next_of(h, r);
    if (nx >= 0 && nx == h->top && oldsize + h->c[nx].size >= nb + MINSIZE) {
      uint64_t tsize = h->c[nx].size;
      h->c[r].size = nb;
      set_head(h, r);
      rec_move(h, nx, h->c[r].addr + nb);
      h->c[nx].size = tsize - (nb - oldsize);
      set_head(h, nx);
      return mem;
    }
    if (nx >= 0 && nx != h->top && h->c[nx].state == C_BIN &&
        oldsize + h->c[nx].size >= nb) {
      bin_unlink(h, nx);
      h->c[r].size += h->c[nx].size;
      rec_del(h, nx);
      int32_t after = next_of(h, r);
      if (after >= 0 && after != h->top && h->c[after].prev_free) {
        h->c[after].prev_free = 0;
        set_head(h, after);
      }
    } else {
      int32_t n = int_malloc(h, nb);
      if (n < 0)
        return 0;
      if (h->c[n].addr == h->c[r].addr + oldsize) {
        h->c[r].size += h->c[n].size;
        rec_del(h, n);
      } else {
        uint64_t nm = h->c[n].addr + 16;
        if (h->hk.copy)
          h->hk.copy(h->hk.ctx, nm, mem, oldsize - SZ);
        int_free(h, r);
        return nm;
      }
    }
  }
  /* split off the tail */
  uint64_t size = h->c[r].size;
  if (size - nb >= MINSIZE) {
    int32_t rem = rec_new(h, h->c[r].addr + nb, size - nb);
    h->c[r].size = nb;
    set_head(h, r);
    set_head(h, rem);
    int_free(h, rem);
  }
  return mem;
}

uint64_t cb_heap_memalign(cb_heap *h, uint64_t align, uint64_t bytes) {
  if (align <= 16)
    return cb_heap_malloc(h, bytes);
  if (align < MINSIZE)
    align = MINSIZE;
  if (align & (align - 1)) {
    uint64_t a = MINSIZE * 2;
    while (a < align)
      a <<= 1;
    align = a;
  }
  if (bytes > (uint64_t)INT64_MAX - align - MINSIZE)
    return 0;
  /* glibc 2.36 does not set up the tcache here */
  uint64_t nb = request2size(bytes);
  int32_t r = int_malloc(h, request2size(nb + align + MINSIZE));
  if (r < 0)
    return 0;
  uint64_t m = h->c[r].addr + 16;
  if (m % align) {
    uint64_t brk = ((m + align - 1) & ~(align - 1)) - 16;
    if (brk - h->c[r].addr < MINSIZE)
      brk += align;
    uint64_t lead = brk - h->c[r].addr;
    uint64_t newsize = h->c[r].size - lead;
    if (h->c[r].mmapped) {
      uint64_t ps = h->c[r].prev_size + lead;
      rec_move(h, r, brk);
      h->c[r].prev_size = ps;
      h->c[r].size = newsize;
      set_head(h, r);
      return brk + 16;
    }
    int32_t n = rec_new(h, brk, newsize);
    h->c[n].prev_free = 0;
    set_head(h, n);
    h->c[r].size = lead;
    set_head(h, r);
    int_free(h, r);
    r = hget(h, brk);
  }
  if (!h->c[r].mmapped) {
    uint64_t size = h->c[r].size;
    if (size > nb + MINSIZE) {
      int32_t rem = rec_new(h, h->c[r].addr + nb, size - nb);
      h->c[r].size = nb;
      set_head(h, r);
      set_head(h, rem);
      int_free(h, rem);
    }
  }
  return h->c[r].addr + 16;
}

bool cb_heap_is_block(const cb_heap *h, uint64_t mem) {
  int32_t r = hget(h, mem - 16);
  return r >= 0 && h->c[r].state == C_INUSE;
}

bool cb_heap_find_block(const cb_heap *h, uint64_t addr, uint64_t *mem,
                        uint64_t *usable) {
  for (int32_t r = NBINS; r < h->nc; r++) {
    const chunk *c = &h->c[r];
    if (c->state != C_INUSE ||
        (h->tcache_ready && c->addr + 16 == h->tcache_mem))
      continue;
    uint64_t lo = c->addr + 16, hi = c->addr + c->size + (c->mmapped ? 0 : 8);
    if (addr >= lo && addr < hi) {
      *mem = lo;
      *usable = hi - lo;
      return true;
    }
  }
  return false;
}

uint64_t cb_heap_brk(const cb_heap *h) {
  return h->brk;
}

uint64_t cb_heap_start(const cb_heap *h) {
  return h->cfg.heap_base;
}
