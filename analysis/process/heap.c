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
 *
 * This file: allocation (split, top, sysmalloc, int_malloc) and the public
 * entry points (malloc, calloc, free, realloc, memalign). The records, bins,
 * tcache, the address space and free/consolidation are in heap_bins.c.
 */
#include "heap_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- allocation ---- */

static int32_t split(cb_heap *h, int32_t r, uint64_t nb, bool to_unsorted,
                     bool is_remainder) {
  uint64_t size = h->c[r].size;
  if (size - nb < MINSIZE) {
    heap_mark_inuse(h, r);
    return -1;
  }
  int32_t rem = heap_rec_new(h, h->c[r].addr + nb, size - nb);
  h->c[r].size = nb;
  h->c[r].state = C_INUSE;
  heap_set_head(h, r);
  h->c[rem].prev_free = 0;
  heap_set_head(h, rem);
  if (to_unsorted) {
    heap_bin_insert_after(h, 1, rem);
    heap_mark_free(h, rem);
    if (is_remainder)
      h->last_rem = h->c[rem].addr;
  }
  return rem;
}

static int32_t from_top(cb_heap *h, uint64_t nb) {
  int32_t v = h->top;
  uint64_t tsize = h->c[v].size;
  int32_t nt = heap_rec_new(h, h->c[v].addr + nb, tsize - nb);
  h->c[v].size = nb;
  h->c[v].state = C_INUSE;
  h->c[nt].state = C_TOP;
  h->top = nt;
  heap_set_head(h, v);
  heap_set_head(h, nt);
  return v;
}

/* the path record of the _int_malloc running (heap.h) */
static cb_heap_mstep *path_m(cb_heap *h) {
  cb_heap_path *p = &h->path;
  return p->n_malloc ? &p->m[p->n_malloc - 1] : NULL;
}

static int32_t sysmalloc(cb_heap *h, uint64_t nb) {
  cb_heap_mstep *pm = path_m(h);
  if (nb >= h->mmap_threshold && h->n_mmaps < 65536) {
    uint64_t size = heap_align_up(nb + SZ, PAGE);
    uint64_t mm = size > nb ? heap_do_mmap(h, size) : 0;
    if (mm) {
      if (pm)
        pm->mmapped = true;
      int32_t r = heap_rec_new(h, mm, size);
      h->c[r].mmapped = 1;
      h->c[r].prev_size = 0;
      heap_set_head(h, r);
      h->n_mmaps++;
      return r;
    }
  }
  uint64_t old_size = h->top >= 0 ? h->c[h->top].size : 0;
  uint64_t old_end = h->top >= 0 ? h->c[h->top].addr + old_size : 0;
  uint64_t size = nb + TOP_PAD + MINSIZE;
  if (h->contiguous)
    size -= old_size;
  size = heap_align_up(size, PAGE);
  uint64_t base = h->brk;
  if (pm) {
    pm->brk = true;
    pm->first_brk = h->top < 0;
  }
  if (nb < (1ull << 60) && size < (1ull << 60) &&
      heap_do_sbrk(h, (int64_t)size)) {
    if (h->top >= 0 && old_end == base && h->contiguous) {
      h->c[h->top].size += size;
    } else {
      int32_t old = h->top;
      h->top = heap_rec_new(h, base, size);
      h->c[h->top].state = C_TOP;
      if (old >= 0) {
        /* a break not contiguous with the old top: fence it off */
        uint64_t os = (h->c[old].size - 2 * 16) & ~15ull;
        h->c[old].size = os;
        h->c[old].state = C_INUSE;
        if (os >= MINSIZE)
          heap_int_free(h, old);
        else
          heap_rec_del(h, old);
      }
    }
  } else {
    /* brk failed (valgrind's brk segment is full): mmap as the new
     * non-contiguous top. glibc 2.36 calls sysmalloc_mmap_fallback (&size,
     * nb, old_size, pagesize, MMAP_AS_MORECORE_SIZE, 0, av) against its
     * parameters (minsize, pagesize): the first fallback, still
     * contiguous, rounds size + old_size up to 1 MiB; later ones map the
     * page-rounded request as it is, with a minimum of one page (measured:
     * 1 MiB, then 0x21000 per malloc(24)). */
    uint64_t msize = size;
    if (h->contiguous)
      msize = heap_align_up(size + old_size, MMAP_AS_MORECORE);
    if (msize < PAGE)
      msize = PAGE;
    uint64_t mm = msize > nb ? heap_do_mmap(h, msize) : 0;
    if (!mm)
      return -1;
    h->contiguous = false;
    int32_t old = h->top;
    h->top = heap_rec_new(h, mm, msize);
    h->c[h->top].state = C_TOP;
    if (old >= 0) {
      uint64_t os = (h->c[old].size - 2 * 16) & ~15ull;
      h->c[old].size = os;
      h->c[old].state = C_INUSE;
      if (os >= MINSIZE)
        heap_int_free(h, old);
      else
        heap_rec_del(h, old);
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

static int32_t int_malloc_(cb_heap *h, uint64_t nb, uint8_t *route,
                           uint32_t *unsorted);

/* _int_malloc, its route recorded in the call's path */
static int32_t int_malloc(cb_heap *h, uint64_t nb) {
  cb_heap_path *p = &h->path;
  if (p->n_malloc == CB_HEAP_PATH_MAX)
    p->n_malloc--; /* keep the last ones */
  cb_heap_mstep *m = &p->m[p->n_malloc++];
  memset(m, 0, sizeof *m);
  m->nb = nb;
  m->top = h->top >= 0 ? h->c[h->top].addr : 0;
  uint8_t route = CB_HEAP_M_SYSMALLOC;
  int32_t r = int_malloc_(h, nb, &route, &m->unsorted);
  m = &p->m[p->n_malloc - 1];
  m->route = route;
  m->victim = r >= 0 ? h->c[r].addr : 0;
  return r;
}

static int32_t int_malloc_(cb_heap *h, uint64_t nb, uint8_t *route,
                           uint32_t *unsorted) {
  int tc_idx = heap_csize2tidx(nb);
  bool tc_ok = h->tcache_ready && tc_idx < TC_BINS;
  int idx;
  if (nb <= MAX_FAST) {
    int fi = (int)(nb >> 4) - 2;
    if (h->fast[fi] >= 0) {
      int32_t v = h->fast[fi];
      h->fast[fi] = h->c[v].fd;
      heap_rd(h, h->c[v].addr + 16, 8);
      h->c[v].state = C_INUSE;
      if (tc_ok)
        while (h->tcn[tc_idx] < TC_COUNT && h->fast[fi] >= 0) {
          int32_t t = h->fast[fi];
          h->fast[fi] = h->c[t].fd;
          heap_rd(h, h->c[t].addr + 16, 8);
          heap_tcache_put(h, t, tc_idx);
        }
      *route = CB_HEAP_M_FAST;
      return v;
    }
  }
  if (nb < MIN_LARGE) {
    idx = (int)(nb >> 4);
    if (!heap_bin_empty(h, idx)) {
      int32_t v = h->c[idx].bk;
      heap_bin_unlink(h, v);
      heap_mark_inuse(h, v);
      if (tc_ok)
        while (h->tcn[tc_idx] < TC_COUNT && !heap_bin_empty(h, idx)) {
          int32_t t = h->c[idx].bk;
          heap_bin_unlink(h, t);
          heap_mark_inuse(h, t);
          heap_tcache_put(h, t, tc_idx);
        }
      *route = CB_HEAP_M_SMALL;
      return v;
    }
  } else {
    idx = heap_largebin_index(nb);
    if (h->have_fast)
      heap_malloc_consolidate(h);
  }
  for (;;) {
    bool return_cached = false;
    int iters = 0;
    while (!heap_bin_empty(h, 1)) {
      int32_t v = h->c[1].bk;
      uint64_t size = h->c[v].size;
      ++*unsorted;
      heap_rd(h, h->c[v].addr + SZ, 8);
      /* the checks of the next chunk's size and prev_size ("invalid next
       * size (unsorted)", "mismatching next->prev_size (unsorted)") and
       * of bck->fd == victim (malloc.c, _int_malloc's unsorted loop) */
      heap_rd(h, h->c[v].addr + size + SZ, 8);
      heap_rd(h, h->c[v].addr + size, 8);
      int32_t bck = h->c[v].bk;
      if (bck >= NBINS)
        heap_rd(h, h->c[bck].addr + 16, 8);
      if (nb < MIN_LARGE && h->c[v].bk == 1 && h->c[v].addr == h->last_rem &&
          size > nb + MINSIZE) {
        heap_bin_unlink(h, v);
        split(h, v, nb, true, true);
        *route = CB_HEAP_M_UNSORTED;
        return v;
      }
      heap_bin_unlink(h, v);
      /* bck->fd = unsorted_chunks (av), in the chunk when bck is one */
      if (bck >= NBINS)
        heap_wr(h, h->c[bck].addr + 16, 8, 0);
      if (size == nb) {
        heap_mark_inuse(h, v);
        if (tc_ok && h->tcn[tc_idx] < TC_COUNT) {
          heap_tcache_put(h, v, tc_idx);
          return_cached = true;
          continue;
        }
        *route = CB_HEAP_M_UNSORTED;
        return v;
      }
      heap_bin_place(h, v);
      if (++iters >= 10000)
        break;
    }
    if (return_cached) {
      *route = CB_HEAP_M_CACHED;
      return heap_tcache_get(h, tc_idx);
    }
    if (nb >= MIN_LARGE) {
      int b = idx;
      if (!heap_bin_empty(h, b) && h->c[h->c[b].fd].size >= nb) {
        int32_t v = h->c[b].bk;
        while (h->c[v].size < nb)
          v = h->c[v].bk;
        while (h->c[v].bk != b && h->c[h->c[v].bk].size == h->c[v].size)
          v = h->c[v].bk;
        if (v != h->c[b].bk && h->c[h->c[v].fd].size == h->c[v].size)
          v = h->c[v].fd;
        heap_unlink_chunk(h, v);
        split(h, v, nb, true, false);
        *route = CB_HEAP_M_LARGE;
        return v;
      }
    }
    for (int b = idx + 1; b < NBINS - 1; b++) {
      if (heap_bin_empty(h, b))
        continue;
      int32_t v = h->c[b].bk;
      heap_unlink_chunk(h, v);
      split(h, v, nb, true, nb < MIN_LARGE);
      *route = CB_HEAP_M_BINMAP;
      return v;
    }
    /* use the top */
    if (h->top >= 0 && h->c[h->top].size >= nb + MINSIZE) {
      *route = CB_HEAP_M_TOP;
      return from_top(h, nb);
    }
    if (h->have_fast) {
      heap_malloc_consolidate(h);
      idx = nb < MIN_LARGE ? (int)(nb >> 4) : heap_largebin_index(nb);
      continue;
    }
    *route = CB_HEAP_M_SYSMALLOC;
    return sysmalloc(h, nb);
  }
}

static void tcache_init(cb_heap *h) {
  if (h->tcache_ready)
    return;
  int32_t r = int_malloc(h, request2size(TCACHE_STRUCT_BYTES));
  h->tcache_mem = h->c[r].addr + 16;
  h->tcache_ready = true;
  h->path.tcache_made = true;
  /* memset(tcache, 0, sizeof *tcache) as compiled in tcache_init: the
   * first and last words, then `rep stosq` over the rest from the
   * second word on (one access per word; lackey) */
  uint64_t m = h->tcache_mem;
  heap_wr(h, m, 8, 0);
  heap_wr(h, m + TCACHE_STRUCT_BYTES - 8, 8, 0);
  for (uint64_t o = 8; o < TCACHE_STRUCT_BYTES; o += 8)
    heap_wr(h, m + o, 8, 0);
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

/* A public call begins (the outermost one resets the path); init: it is
 * one that runs ptmalloc_init on the process's first call. */
static void path_enter(cb_heap *h, bool init) {
  if (!h->path_depth++) {
    memset(&h->path, 0, sizeof h->path);
    if (init && !h->initialized) {
      h->initialized = true;
      h->path.init = true;
    }
  }
}

static uint64_t path_leave(cb_heap *h, uint64_t v) {
  h->path_depth--;
  return v;
}

const cb_heap_path *cb_heap_last_path(const cb_heap *h) {
  return &h->path;
}

static uint64_t heap_malloc(cb_heap *h, uint64_t bytes) {
  if (bytes > (uint64_t)INT64_MAX)
    return 0;
  tcache_init(h);
  uint64_t nb = request2size(bytes);
  int idx = heap_csize2tidx(nb);
  if (idx < TC_BINS) {
    heap_rd(h, heap_tc_counts(h, idx), 2);
    if (h->tcn[idx] > 0) {
      h->path.tc_hit = true;
      return h->c[heap_tcache_get(h, idx)].addr + 16;
    }
  }
  int32_t r = int_malloc(h, nb);
  return r < 0 ? 0 : h->c[r].addr + 16;
}

uint64_t cb_heap_malloc(cb_heap *h, uint64_t bytes) {
  path_enter(h, true);
  return path_leave(h, heap_malloc(h, bytes));
}

static uint64_t heap_calloc(cb_heap *h, uint64_t n, uint64_t size);

uint64_t cb_heap_calloc(cb_heap *h, uint64_t n, uint64_t size) {
  path_enter(h, true);
  return path_leave(h, heap_calloc(h, n, size));
}

static uint64_t heap_calloc(cb_heap *h, uint64_t n, uint64_t size) {
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

static void heap_free(cb_heap *h, uint64_t mem);

void cb_heap_free(cb_heap *h, uint64_t mem) {
  path_enter(h, false);
  heap_free(h, mem);
  path_leave(h, 0);
}

static void heap_free(cb_heap *h, uint64_t mem) {
  if (!mem)
    return;
  int32_t r = heap_hget(h, mem - 16);
  if (r < 0 || h->c[r].state != C_INUSE)
    return; /* the engine checks validity before */
  if (h->c[r].mmapped) {
    uint64_t cs = h->c[r].size;
    if (cs > h->mmap_threshold && cs <= MMAP_THRESHOLD_MAX) {
      h->mmap_threshold = cs;
      h->trim_threshold = 2 * cs;
    }
    heap_munmap_chunk(h, r);
    return;
  }
  tcache_init(h);
  heap_int_free(h, r);
}

static uint64_t mremap_chunk(cb_heap *h, int32_t r, uint64_t nb) {
  uint64_t off = h->c[r].prev_size, size = h->c[r].size;
  uint64_t lo = h->c[r].addr - off;
  uint64_t new_size = heap_align_up(nb + off + SZ, PAGE);
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
      heap_mapped(h, lo + size + off, lo + new_size, true);
    else
      heap_mapped(h, lo + new_size, lo + size + off, false);
    h->maps[i].hi = lo + new_size;
    h->c[r].size = new_size - off;
    return h->c[r].addr + 16;
  }
  /* move: the kernel moves the pages (no cache traffic) */
  uint64_t at = heap_mmap_find(h, new_size);
  heap_maps_add(h, at, at + new_size);
  if (h->hk.copy)
    h->hk.copy(h->hk.ctx, at, lo,
               size + off < new_size ? size + off : new_size);
  heap_maps_del(h, lo);
  heap_rec_move(h, r, at + off);
  h->c[r].size = new_size - off;
  return at + off + 16;
}

static uint64_t heap_realloc(cb_heap *h, uint64_t mem, uint64_t bytes);

uint64_t cb_heap_realloc(cb_heap *h, uint64_t mem, uint64_t bytes) {
  path_enter(h, true);
  return path_leave(h, heap_realloc(h, mem, bytes));
}

static uint64_t heap_realloc(cb_heap *h, uint64_t mem, uint64_t bytes) {
  if (bytes == 0 && mem) {
    heap_free(h, mem);
    return 0;
  }
  if (!mem)
    return heap_malloc(h, bytes);
  if (bytes > (uint64_t)INT64_MAX)
    return 0;
  int32_t r = heap_hget(h, mem - 16);
  if (r < 0)
    return 0;
  uint64_t nb = request2size(bytes);
  if (h->c[r].mmapped) {
    uint64_t m = mremap_chunk(h, r, nb);
    if (m)
      return m;
    if (h->c[r].size - SZ >= nb)
      return mem;
    uint64_t nm = heap_malloc(h, bytes);
    if (!nm)
      return 0;
    if (h->hk.copy)
      h->hk.copy(h->hk.ctx, nm, mem, h->c[r].size - 2 * SZ);
    heap_munmap_chunk(h, r);
    return nm;
  }
  tcache_init(h);
  uint64_t oldsize = h->c[r].size;
  if (oldsize < nb) {
    int32_t nx = heap_next_of(h, r);
    if (nx >= 0 && nx == h->top && oldsize + h->c[nx].size >= nb + MINSIZE) {
      uint64_t tsize = h->c[nx].size;
      h->c[r].size = nb;
      heap_set_head(h, r);
      heap_rec_move(h, nx, h->c[r].addr + nb);
      h->c[nx].size = tsize - (nb - oldsize);
      heap_set_head(h, nx);
      return mem;
    }
    if (nx >= 0 && nx != h->top && h->c[nx].state == C_BIN &&
        oldsize + h->c[nx].size >= nb) {
      heap_unlink_chunk(h, nx);
      h->c[r].size += h->c[nx].size;
      heap_rec_del(h, nx);
      int32_t after = heap_next_of(h, r);
      if (after >= 0 && after != h->top && h->c[after].prev_free) {
        h->c[after].prev_free = 0;
        heap_set_head(h, after);
      }
    } else {
      int32_t n = int_malloc(h, nb);
      if (n < 0)
        return 0;
      if (h->c[n].addr == h->c[r].addr + oldsize) {
        h->c[r].size += h->c[n].size;
        heap_rec_del(h, n);
      } else {
        uint64_t nm = h->c[n].addr + 16;
        if (h->hk.copy)
          h->hk.copy(h->hk.ctx, nm, mem, oldsize - SZ);
        heap_int_free(h, r);
        return nm;
      }
    }
  }
  /* split off the tail */
  uint64_t size = h->c[r].size;
  if (size - nb >= MINSIZE) {
    int32_t rem = heap_rec_new(h, h->c[r].addr + nb, size - nb);
    h->c[r].size = nb;
    heap_set_head(h, r);
    heap_set_head(h, rem);
    heap_int_free(h, rem);
  }
  return mem;
}

static uint64_t heap_memalign(cb_heap *h, uint64_t align, uint64_t bytes);

uint64_t cb_heap_memalign(cb_heap *h, uint64_t align, uint64_t bytes) {
  path_enter(h, true);
  return path_leave(h, heap_memalign(h, align, bytes));
}

static uint64_t heap_memalign(cb_heap *h, uint64_t align, uint64_t bytes) {
  if (align <= 16)
    return heap_malloc(h, bytes);
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
      heap_rec_move(h, r, brk);
      h->c[r].prev_size = ps;
      h->c[r].size = newsize;
      heap_set_head(h, r);
      return brk + 16;
    }
    int32_t n = heap_rec_new(h, brk, newsize);
    h->c[n].prev_free = 0;
    heap_set_head(h, n);
    h->c[r].size = lead;
    heap_set_head(h, r);
    heap_int_free(h, r);
    r = heap_hget(h, brk);
  }
  if (!h->c[r].mmapped) {
    uint64_t size = h->c[r].size;
    if (size > nb + MINSIZE) {
      int32_t rem = heap_rec_new(h, h->c[r].addr + nb, size - nb);
      h->c[r].size = nb;
      heap_set_head(h, r);
      heap_set_head(h, rem);
      heap_int_free(h, rem);
    }
  }
  return h->c[r].addr + 16;
}

bool cb_heap_is_block(const cb_heap *h, uint64_t mem) {
  int32_t r = heap_hget(h, mem - 16);
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

uint64_t cb_heap_consolidations(const cb_heap *h) {
  return h->n_consolidate;
}
