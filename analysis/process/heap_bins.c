/* heap_bins.c: the glibc 2.36 malloc model's internals below malloc and
 * free (see heap.c): chunk records and the address map, the allocator's
 * own memory traffic, a chunk's neighbours, the bins (unsorted, small,
 * large), the tcache, the address space (brk and mmap), and freeing with
 * consolidation (malloc/malloc.c: _int_free, malloc_consolidate, systrim).
 */
#include "heap_internal.h"

#include <stdlib.h>
#include <string.h>

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

int32_t heap_hget(const cb_heap *h, uint64_t key) {
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

int32_t heap_rec_new(cb_heap *h, uint64_t addr, uint64_t size) {
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

void heap_rec_del(cb_heap *h, int32_t r) {
  hdel(h, h->c[r].addr);
  h->c[r].state = C_FREE_REC;
  h->c[r].fd = h->free_rec;
  h->free_rec = r;
}

void heap_rec_move(cb_heap *h, int32_t r, uint64_t addr) {
  hdel(h, h->c[r].addr);
  h->c[r].addr = addr;
  hput(h, addr, r);
}

/* ---- traffic ---- */

void heap_rd(cb_heap *h, uint64_t a, unsigned n) {
  if (h->hk.access)
    h->hk.access(h->hk.ctx, a, n, false, 0);
}

void heap_wr(cb_heap *h, uint64_t a, unsigned n, uint64_t v) {
  if (h->hk.access)
    h->hk.access(h->hk.ctx, a, n, true, v);
}

#define wr heap_wr

void heap_path_free(cb_heap *h, int32_t r, uint8_t route) {
  cb_heap_path *p = &h->path;
  if (p->n_free == CB_HEAP_PATH_MAX)
    p->n_free--; /* keep the last ones */
  cb_heap_fstep *f = &p->f[p->n_free++];
  memset(f, 0, sizeof *f);
  f->chunk = h->c[r].addr;
  f->size = h->c[r].size;
  f->route = route;
}

void heap_set_head(cb_heap *h, int32_t r) {
  chunk *c = &h->c[r];
  uint64_t v = c->size | (c->prev_free ? 0 : 1) | (c->mmapped ? 2 : 0);
  wr(h, c->addr + SZ, 8, v);
}

void heap_mapped(cb_heap *h, uint64_t lo, uint64_t hi, bool on) {
  if (h->hk.map && hi > lo)
    h->hk.map(h->hk.ctx, lo, hi, on);
}

/* ---- chunk neighbourhood ---- */

int32_t heap_next_of(const cb_heap *h, int32_t r) {
  return heap_hget(h, h->c[r].addr + h->c[r].size);
}

/* r became free (in a bin): its successor learns it */
void heap_mark_free(cb_heap *h, int32_t r) {
  h->c[r].state = C_BIN;
  int32_t n = heap_next_of(h, r);
  if (n >= 0) {
    h->c[n].prev_free = 1;
    h->c[n].prev_size = h->c[r].size;
    wr(h, h->c[n].addr, 8, h->c[r].size); /* the foot */
  }
}

void heap_mark_inuse(cb_heap *h, int32_t r) {
  h->c[r].state = C_INUSE;
  int32_t n = heap_next_of(h, r);
  if (n >= 0 && h->c[n].prev_free) {
    h->c[n].prev_free = 0;
    heap_set_head(h, n);
  }
}

/* ---- bins (records 0..NBINS-1 are the heads) ---- */

bool heap_bin_empty(const cb_heap *h, int b) {
  return h->c[b].fd == b;
}

void heap_bin_unlink(cb_heap *h, int32_t r) {
  chunk *c = &h->c[r];
  heap_rd(h, c->addr + 16, 8);
  heap_rd(h, c->addr + 24, 8);
  h->c[c->bk].fd = c->fd;
  h->c[c->fd].bk = c->bk;
  c->fd = c->bk = -1;
}

/* unlink_chunk (malloc.c): the size against the next chunk's prev_size,
 * the links, the neighbours' links back checked and rewritten (in their
 * chunks; a bin's head is main_arena's, the library's traffic), the size
 * read again for the large bins' test */
void heap_unlink_chunk(cb_heap *h, int32_t r) {
  chunk *c = &h->c[r];
  int32_t fd = c->fd, bk = c->bk;
  heap_rd(h, c->addr + SZ, 8);
  heap_rd(h, c->addr + c->size, 8);
  heap_rd(h, c->addr + 16, 8);
  heap_rd(h, c->addr + 24, 8);
  if (fd >= NBINS)
    heap_rd(h, h->c[fd].addr + 24, 8);
  if (bk >= NBINS)
    heap_rd(h, h->c[bk].addr + 16, 8);
  if (fd >= NBINS)
    wr(h, h->c[fd].addr + 24, 8, bk >= NBINS ? h->c[bk].addr : 0);
  if (bk >= NBINS)
    wr(h, h->c[bk].addr + 16, 8, fd >= NBINS ? h->c[fd].addr : 0);
  heap_rd(h, c->addr + SZ, 8);
  h->c[bk].fd = fd;
  h->c[fd].bk = bk;
  c->fd = c->bk = -1;
}

/* r between pos and pos's successor: its links, and the neighbours'
 * (fwd->bk = r, bck->fd = r) in their chunks (a bin's head is
 * main_arena's) */
void heap_bin_insert_after(cb_heap *h, int32_t pos, int32_t r) {
  int32_t nxt = h->c[pos].fd;
  h->c[r].fd = nxt;
  h->c[r].bk = pos;
  h->c[pos].fd = r;
  h->c[nxt].bk = r;
  wr(h, h->c[r].addr + 16, 8, nxt >= NBINS ? h->c[nxt].addr : 0);
  wr(h, h->c[r].addr + 24, 8, pos >= NBINS ? h->c[pos].addr : 0);
  if (nxt >= NBINS)
    wr(h, h->c[nxt].addr + 24, 8, h->c[r].addr);
  if (pos >= NBINS)
    wr(h, h->c[pos].addr + 16, 8, h->c[r].addr);
}

int heap_largebin_index(uint64_t sz) {
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
  return sz < MIN_LARGE ? (int)(sz >> 4) : heap_largebin_index(sz);
}

/* Places a chunk taken off the unsorted list into its bin. Small bins:
 * at the head. Large bins are kept in decreasing size order; a chunk of
 * a size already present goes right after the first of that size. */
void heap_bin_place(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  int b = bin_index(size);
  if (size < MIN_LARGE || heap_bin_empty(h, b)) {
    heap_bin_insert_after(h, b, r);
    return;
  }
  int32_t last = h->c[b].bk;
  if (size < h->c[last].size) {
    heap_bin_insert_after(h, last, r);
    return;
  }
  int32_t f = h->c[b].fd;
  while (size < h->c[f].size)
    f = h->c[f].fd;
  if (size == h->c[f].size)
    heap_bin_insert_after(h, f, r);
  else
    heap_bin_insert_after(h, h->c[f].bk, r);
}

/* ---- tcache ---- */

uint64_t heap_tc_counts(const cb_heap *h, int i) {
  return h->tcache_mem + 2 * (uint64_t)i;
}

static uint64_t tc_entries(const cb_heap *h, int i) {
  return h->tcache_mem + 128 + 8 * (uint64_t)i;
}

/* The tcache bin of a chunk size; TC_BINS for sizes beyond the tcache. */
int heap_csize2tidx(uint64_t size) {
  uint64_t i = (size - MINSIZE + 15) / 16;
  return i < TC_BINS ? (int)i : TC_BINS;
}

void heap_tcache_put(cb_heap *h, int32_t r, int idx) {
  chunk *c = &h->c[r];
  uint64_t mem = c->addr + 16;
  uint64_t old = h->tcn[idx] ? h->c[h->tc[idx][h->tcn[idx] - 1]].addr + 16 : 0;
  c->state = C_TCACHE;
  heap_rd(h, tc_entries(h, idx), 8);
  wr(h, mem, 8, (mem >> 12) ^ old);
  wr(h, mem + 8, 8, TCACHE_KEY);
  wr(h, tc_entries(h, idx), 8, mem);
  h->tc[idx][h->tcn[idx]++] = r;
  wr(h, heap_tc_counts(h, idx), 2, h->tcn[idx]);
}

int32_t heap_tcache_get(cb_heap *h, int idx) {
  int32_t r = h->tc[idx][--h->tcn[idx]];
  uint64_t mem = h->c[r].addr + 16;
  heap_rd(h, tc_entries(h, idx), 8);
  heap_rd(h, mem, 8);
  wr(h, tc_entries(h, idx), 8,
     h->tcn[idx] ? h->c[h->tc[idx][h->tcn[idx] - 1]].addr + 16 : 0);
  wr(h, heap_tc_counts(h, idx), 2, h->tcn[idx]);
  wr(h, mem + 8, 8, 0);
  h->c[r].state = C_INUSE;
  return r;
}

/* ---- the address space ---- */

uint64_t heap_align_up(uint64_t x, uint64_t a) {
  return (x + a - 1) & ~(a - 1);
}

/* First fit above mmap_base; 0 on failure. */
uint64_t heap_mmap_find(const cb_heap *h, uint64_t len) {
  uint64_t at = h->cfg.mmap_base;
  for (size_t i = 0; i < h->nmaps; i++) {
    if (h->maps[i].lo >= at + len)
      break;
    if (h->maps[i].hi > at)
      at = h->maps[i].hi;
  }
  return at;
}

void heap_maps_add(cb_heap *h, uint64_t lo, uint64_t hi) {
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
  heap_mapped(h, lo, hi, true);
}

void heap_maps_del(cb_heap *h, uint64_t lo) {
  for (size_t i = 0; i < h->nmaps; i++)
    if (h->maps[i].lo == lo) {
      heap_mapped(h, h->maps[i].lo, h->maps[i].hi, false);
      memmove(&h->maps[i], &h->maps[i + 1],
              (h->nmaps - i - 1) * sizeof *h->maps);
      h->nmaps--;
      return;
    }
}

uint64_t heap_do_mmap(cb_heap *h, uint64_t len) {
  if (len == 0 || len > MMAP_LIMIT)
    return 0;
  uint64_t at = heap_mmap_find(h, len);
  heap_maps_add(h, at, at + len);
  return at;
}

/* sbrk(incr) with valgrind's limit; false when it fails */
bool heap_do_sbrk(cb_heap *h, int64_t incr) {
  uint64_t nb = h->brk + (uint64_t)incr;
  if (incr > 0 && (uint64_t)incr > h->cfg.brk_max)
    return false;
  if (nb > h->cfg.heap_base + h->cfg.brk_max)
    return false;
  if (incr > 0)
    heap_mapped(h, h->brk, nb, true);
  else if (incr < 0)
    heap_mapped(h, nb, h->brk, false);
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
  if (heap_do_sbrk(h, -(int64_t)extra)) {
    h->c[h->top].size -= extra;
    heap_set_head(h, h->top);
  }
}

/* Merges free chunk r with free neighbours and puts it in the unsorted
 * list or into the top; returns the resulting size. */
static uint64_t merge_free(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  int32_t nx = heap_next_of(h, r);
  heap_rd(h, h->c[r].addr + SZ, 8);
  if (h->c[r].prev_free) {
    int32_t pv = heap_hget(h, h->c[r].addr - h->c[r].prev_size);
    if (pv >= 0) {
      /* prev_size (p), then the previous chunk's size against it */
      heap_rd(h, h->c[r].addr, 8);
      heap_rd(h, h->c[pv].addr + SZ, 8);
      heap_unlink_chunk(h, pv);
      h->c[pv].size += size;
      heap_rec_del(h, r);
      r = pv;
      size = h->c[r].size;
    }
  }
  /* no record after r: the fenceposts sysmalloc writes after an old top
   * it could not extend (malloc.c), which stay in use */
  if (nx < 0 || nx != h->top) {
    /* inuse_bit_at_offset (nextchunk, nextsize): the size word after it */
    if (nx >= 0)
      heap_rd(h, h->c[nx].addr + h->c[nx].size + SZ, 8);
    if (nx >= 0 && h->c[nx].state == C_BIN) {
      heap_unlink_chunk(h, nx);
      size += h->c[nx].size;
      heap_rec_del(h, nx);
    } else if (nx >= 0) {
      /* clear_inuse_bit_at_offset (nextchunk, 0): a read-modify-write of
       * its size, which counts as a read */
      heap_rd(h, h->c[nx].addr + SZ, 8);
    }
    h->c[r].size = size;
    h->c[r].prev_free = 0;
    /* a chunk past the small bins' range: fd_nextsize, bk_nextsize NULL */
    if (size >= MIN_LARGE) {
      wr(h, h->c[r].addr + 32, 8, 0);
      wr(h, h->c[r].addr + 40, 8, 0);
    }
    heap_set_head(h, r);
    heap_bin_insert_after(h, 1, r);
    heap_mark_free(h, r);
  } else {
    size += h->c[nx].size;
    heap_rec_del(h, nx);
    h->c[r].size = size;
    h->c[r].state = C_TOP;
    h->c[r].prev_free = 0;
    h->top = r;
    heap_set_head(h, r);
  }
  return size;
}

void heap_malloc_consolidate(cb_heap *h) {
  h->have_fast = false;
  h->n_consolidate++;
  for (int i = 0; i < NFAST; i++) {
    int32_t p = h->fast[i];
    h->fast[i] = -1;
    while (p >= 0) {
      int32_t nextp = h->c[p].fd;
      /* chunksize (p) for its fastbin, nextp = REVEAL_PTR (p->fd), the
       * next chunk's size (malloc.c, malloc_consolidate) */
      heap_rd(h, h->c[p].addr + SZ, 8);
      heap_rd(h, h->c[p].addr + 16, 8);
      heap_rd(h, h->c[p].addr + h->c[p].size + SZ, 8);
      h->c[p].fd = -1;
      h->c[p].state = C_INUSE;
      merge_free(h, p);
      p = nextp;
    }
  }
}

void heap_int_free(cb_heap *h, int32_t r) {
  uint64_t size = h->c[r].size;
  if (h->tcache_ready) {
    int idx = heap_csize2tidx(size);
    if (idx < TC_BINS) {
      heap_rd(h, h->c[r].addr + 16 + 8, 8); /* e->key */
      heap_rd(h, heap_tc_counts(h, idx), 2);
      if (h->tcn[idx] < TC_COUNT) {
        heap_path_free(h, r, CB_HEAP_F_TCACHE);
        heap_tcache_put(h, r, idx);
        return;
      }
    }
  }
  if (size <= MAX_FAST) {
    heap_path_free(h, r, CB_HEAP_F_FAST);
    int fi = (int)(size >> 4) - 2;
    int32_t old = h->fast[fi];
    h->c[r].fd = old;
    h->c[r].state = C_FAST;
    h->fast[fi] = r;
    h->have_fast = true;
    wr(h, h->c[r].addr + 16, 8,
       ((h->c[r].addr + 16) >> 12) ^ (old >= 0 ? h->c[old].addr : 0));
    return;
  }
  heap_path_free(h, r, CB_HEAP_F_BIN);
  cb_heap_fstep *f = &h->path.f[h->path.n_free - 1];
  size = merge_free(h, r);
  if (h->c[h->top].addr <= f->chunk &&
      f->chunk < h->c[h->top].addr + h->c[h->top].size)
    f->route = CB_HEAP_F_TOP;
  if (size >= CONSOLIDATE_THRESHOLD) {
    if (h->have_fast) {
      f->consolidated = true;
      heap_malloc_consolidate(h);
    }
    if (h->c[h->top].size >= h->trim_threshold) {
      f->trimmed = true;
      systrim(h);
    }
  }
}

void heap_munmap_chunk(cb_heap *h, int32_t r) {
  heap_path_free(h, r, CB_HEAP_F_MUNMAP);
  uint64_t lo = h->c[r].addr - h->c[r].prev_size;
  heap_rec_del(h, r);
  heap_maps_del(h, lo);
  h->n_mmaps--;
}
