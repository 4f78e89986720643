/* mem.c: sparse page memory of the modelled process (see mem.h). */
#include "mem.h"

#include "cbana/cache.h"

#include <stdlib.h>

/* Pages come from chunks of 32 MiB, 2 MiB aligned and advised to be
 * transparent huge pages: a page calloc'ed on its own (4 KiB and malloc's
 * header) spans two host pages, and the kernels' and the interpreter's
 * accesses to the modelled memory, random in the irregular programs,
 * each missed the host's TLB. A chunk is reserved, not committed: its
 * pages cost memory once touched, as the modelled program touches them. */
#define CB_MEM_CHUNK (32u << 20)

static uint64_t phash(uint64_t pno) {
  pno *= 0x9e3779b97f4a7c15ull;
  return pno ^ (pno >> 31);
}

void cb_mem_init(cb_mem *m) {
  memset(m, 0, sizeof *m);
  for (unsigned i = 0; i < CB_TLB_N; i++)
    m->tlb[i].pno = UINT64_MAX;
  for (unsigned i = 0; i < CB_STLB_N; i++)
    m->stlb[i].pno = UINT64_MAX;
}

/* A zeroed page of the current chunk, or of a new one; where no chunk
 * can be mapped, a page of its own (a chunk of one page). */
static uint8_t *page_alloc(cb_mem *m) {
  if (m->nchunks == 0 || m->chunk_used == m->chunks[m->nchunks - 1].len) {
    if (m->nchunks == m->capchunks) {
      size_t c = m->capchunks ? 2 * m->capchunks : 16;
      void *nc = realloc(m->chunks, c * sizeof *m->chunks);
      if (!nc)
        return NULL;
      m->chunks = nc;
      m->capchunks = c;
    }
    uint8_t *c = cb_huge_map(CB_MEM_CHUNK);
    size_t len = CB_MEM_CHUNK;
    if (!c) {
      c = calloc(1, CB_PG_SIZE);
      len = CB_PG_SIZE;
    }
    if (!c)
      return NULL;
    m->chunks[m->nchunks].data = c;
    m->chunks[m->nchunks++].len = len;
    m->chunk_used = 0;
  }
  uint8_t *pg = m->chunks[m->nchunks - 1].data + m->chunk_used;
  m->chunk_used += CB_PG_SIZE;
  return pg;
}

void cb_mem_destroy(cb_mem *m) {
  for (size_t i = 0; i < m->nchunks; i++) {
    if (m->chunks[i].len == CB_MEM_CHUNK)
      cb_huge_unmap(m->chunks[i].data, CB_MEM_CHUNK);
    else
      free(m->chunks[i].data);
  }
  free(m->chunks);
  free(m->keys);
  free(m->data);
  free(m->valid);
  if (m->stale)
    for (size_t i = 0; i < m->cap; i++)
      free(m->stale[i]);
  free(m->stale);
  free(m->marked);
  free(m->regs);
  memset(m, 0, sizeof *m);
}

static size_t slot_of(const cb_mem *m, uint64_t pno) {
  size_t mask = m->cap - 1, i = phash(pno) & mask;
  while (m->keys[i] && m->keys[i] != pno + 1)
    i = (i + 1) & mask;
  return i;
}

static void grow(cb_mem *m) {
  uint64_t *ok = m->keys;
  uint8_t **od = m->data;
  uint8_t *ov = m->valid;
  uint8_t **os = m->stale;
  size_t oc = m->cap;
  m->cap = oc ? oc * 2 : 4096;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->data = calloc(m->cap, sizeof *m->data);
  m->valid = calloc(m->cap, 1);
  m->stale = calloc(m->cap, sizeof *m->stale);
  if (!m->keys || !m->data || !m->valid || !m->stale)
    abort(); /* as calloc of a page below: the model cannot go on */
  for (size_t i = 0; i < oc; i++)
    if (ok[i]) {
      size_t j = slot_of(m, ok[i] - 1);
      m->keys[j] = ok[i];
      m->data[j] = od[i];
      m->valid[j] = ov[i];
      m->stale[j] = os[i];
    }
  free(ok);
  free(od);
  free(ov);
  free(os);
}

bool cb_mem_mapped(const cb_mem *m, uint64_t addr) {
  for (size_t i = 0; i < m->nregs; i++)
    if (addr >= m->regs[i].lo && addr < m->regs[i].hi)
      return true;
  return false;
}

/* The slot of addr's page, made valid (SIZE_MAX: not mapped). A page
 * with a stale shadow is not put in the translation cache. */
static size_t page_slot(cb_mem *m, uint64_t addr) {
  uint64_t pno = addr >> CB_PG_BITS;
  if ((m->n + 1) * 2 > m->cap)
    grow(m);
  size_t i = slot_of(m, pno);
  if (!m->keys[i] || !m->valid[i]) {
    if (!cb_mem_mapped(m, addr))
      return SIZE_MAX;
    if (!m->keys[i]) {
      m->keys[i] = pno + 1;
      m->data[i] = page_alloc(m);
      if (!m->data[i])
        abort();
      m->n++;
    }
    m->valid[i] = 1;
  }
  if (!m->stale[i]) {
    unsigned t = (unsigned)pno & (CB_TLB_N - 1);
    m->tlb[t].pno = pno;
    m->tlb[t].data = m->data[i];
  }
  return i;
}

uint8_t *cb_mem_page_slow(cb_mem *m, uint64_t addr) {
  size_t i = page_slot(m, addr);
  return i == SIZE_MAX ? NULL : m->data[i] + (addr & (CB_PG_SIZE - 1));
}

/* Puts addr's page (slot i, which has a shadow) in stlb. */
static void stlb_fill(cb_mem *m, uint64_t addr, size_t i) {
  uint64_t pno = addr >> CB_PG_BITS;
  unsigned t = (unsigned)pno & (CB_STLB_N - 1);
  m->stlb[t].pno = pno;
  m->stlb[t].data = m->data[i];
  m->stlb[t].bits = m->stale[i];
}

uint8_t *cb_mem_page_stale_slow(cb_mem *m, uint64_t addr, uint8_t **bits) {
  size_t i = page_slot(m, addr);
  if (i == SIZE_MAX || !m->stale[i])
    return NULL;
  stlb_fill(m, addr, i);
  *bits = m->stale[i];
  return m->data[i] + (addr & (CB_PG_SIZE - 1));
}

uint8_t *cb_mem_page_slow_clean(cb_mem *m, uint64_t addr) {
  /* a page known to have a shadow: no need to ask the hash table */
  uint64_t pno = addr >> CB_PG_BITS;
  if (m->stlb[(unsigned)pno & (CB_STLB_N - 1)].pno == pno)
    return NULL;
  size_t i = page_slot(m, addr);
  return i == SIZE_MAX || m->stale[i] ? NULL
                                      : m->data[i] + (addr & (CB_PG_SIZE - 1));
}

void cb_mem_map(cb_mem *m, uint64_t lo, uint64_t hi) {
  if (hi <= lo)
    return;
  /* merge with an adjacent region */
  for (size_t i = 0; i < m->nregs; i++) {
    if (m->regs[i].hi == lo) {
      m->regs[i].hi = hi;
      return;
    }
    if (m->regs[i].lo == hi) {
      m->regs[i].lo = lo;
      return;
    }
  }
  if (m->nregs == m->capregs) {
    m->capregs = m->capregs ? 2 * m->capregs : 16;
    m->regs = realloc(m->regs, m->capregs * sizeof *m->regs);
  }
  m->regs[m->nregs].lo = lo;
  m->regs[m->nregs].hi = hi;
  m->nregs++;
}

/* Whether the page's 4 KiB are all zero bytes. */
static bool page_is_zero(const uint8_t *pg) {
  uint64_t any = 0;
  for (unsigned k = 0; k < CB_PG_SIZE; k += 8) {
    uint64_t w;
    memcpy(&w, pg + k, sizeof w);
    any |= w;
  }
  return any == 0;
}

/* Unmapping drops the bytes of a page (slot i): they read as zeros when
 * mapped again. A page the model touched but never wrote is zero
 * already, and often not even backed: the sliced engine looks up the
 * pages of the arrays it never writes, and PolyBench frees them at its
 * end. Writing its zeros would fault it in fresh for nothing: on a host
 * that hands freed memory back to its hypervisor, about 3 ms a MiB
 * (bench/results/fast_notes.md, session 28), gemm LARGE 64 ms of
 * cb_mem_unmap's page faults a run. Reading it maps the kernel's zero
 * page instead. */
static void page_drop(cb_mem *m, size_t i) {
  if (!page_is_zero(m->data[i]))
    memset(m->data[i], 0, CB_PG_SIZE);
  m->valid[i] = 0;
  m->stale_clears += m->stale[i] != NULL;
  free(m->stale[i]);
  m->stale[i] = NULL;
}

void cb_mem_unmap(cb_mem *m, uint64_t lo, uint64_t hi) {
  if (hi <= lo)
    return;
  for (size_t i = 0; i < m->nregs; i++) {
    cb_mem_region r = m->regs[i];
    if (r.hi <= lo || r.lo >= hi)
      continue;
    /* cut [lo, hi) out of r */
    if (r.lo < lo && r.hi > hi) {
      m->regs[i].hi = lo;
      cb_mem_map(m, hi, r.hi);
    } else if (r.lo < lo) {
      m->regs[i].hi = lo;
    } else if (r.hi > hi) {
      m->regs[i].lo = hi;
    } else {
      m->regs[i] = m->regs[--m->nregs];
      i--;
    }
  }
  /* zero and invalidate the pages wholly inside */
  uint64_t p0 = (lo + CB_PG_SIZE - 1) >> CB_PG_BITS, p1 = hi >> CB_PG_BITS;
  if (p1 <= p0 || !m->cap)
    return;
  if (p1 - p0 > m->cap) {
    for (size_t i = 0; i < m->cap; i++)
      if (m->keys[i] && m->keys[i] - 1 >= p0 && m->keys[i] - 1 < p1 &&
          m->valid[i])
        page_drop(m, i);
    for (unsigned t = 0; t < CB_TLB_N; t++)
      if (m->tlb[t].pno >= p0 && m->tlb[t].pno < p1)
        m->tlb[t].pno = UINT64_MAX;
    for (unsigned t = 0; t < CB_STLB_N; t++)
      if (m->stlb[t].pno >= p0 && m->stlb[t].pno < p1)
        m->stlb[t].pno = UINT64_MAX;
    return;
  }
  for (uint64_t p = p0; p < p1; p++) {
    size_t i = slot_of(m, p);
    if (m->keys[i] && m->valid[i])
      page_drop(m, i);
    unsigned t = (unsigned)p & (CB_TLB_N - 1);
    if (m->tlb[t].pno == p)
      m->tlb[t].pno = UINT64_MAX;
    t = (unsigned)p & (CB_STLB_N - 1);
    if (m->stlb[t].pno == p)
      m->stlb[t].pno = UINT64_MAX;
  }
}

bool cb_mem_read(cb_mem *m, uint64_t addr, void *dst, size_t n, uint64_t *bad) {
  if (m->stale_any && n && cb_mem_stale_any(m, addr, n)) {
    /* the first stale byte, for the message */
    uint64_t a = addr;
    while (!cb_mem_stale_any(m, a, 1))
      a++;
    m->stale_hit = a;
    if (bad)
      *bad = a;
    return false;
  }
  return cb_mem_read_raw(m, addr, dst, n, bad);
}

bool cb_mem_read_raw(cb_mem *m, uint64_t addr, void *dst, size_t n,
                     uint64_t *bad) {
  uint8_t *d = dst;
  while (n) {
    uint8_t *p = cb_mem_ptr(m, addr);
    if (!p) {
      if (bad)
        *bad = addr;
      return false;
    }
    size_t k = CB_PG_SIZE - (addr & (CB_PG_SIZE - 1));
    if (k > n)
      k = n;
    memcpy(d, p, k);
    d += k;
    addr += k;
    n -= k;
  }
  return true;
}

bool cb_mem_write(cb_mem *m, uint64_t addr, const void *src, size_t n,
                  uint64_t *bad) {
  const uint8_t *s = src;
  cb_mem_stale_clear(m, addr, n);
  while (n) {
    uint8_t *p = cb_mem_ptr(m, addr);
    if (!p) {
      if (bad)
        *bad = addr;
      return false;
    }
    size_t k = CB_PG_SIZE - (addr & (CB_PG_SIZE - 1));
    if (k > n)
      k = n;
    memcpy(p, s, k);
    s += k;
    addr += k;
    n -= k;
  }
  return true;
}

bool cb_mem_fill(cb_mem *m, uint64_t addr, int byte, size_t n, uint64_t *bad) {
  cb_mem_stale_clear(m, addr, n);
  while (n) {
    uint8_t *p = cb_mem_ptr(m, addr);
    if (!p) {
      if (bad)
        *bad = addr;
      return false;
    }
    size_t k = CB_PG_SIZE - (addr & (CB_PG_SIZE - 1));
    if (k > n)
      k = n;
    memset(p, byte, k);
    addr += k;
    n -= k;
  }
  return true;
}

/* ---- the stale shadow ---- */

/* Calls fn(bitmap, first bit, bits) for each page piece of [addr, addr +
 * n) whose page is mapped; with make, a page without a bitmap gets one
 * (and leaves the translation cache), else it is skipped. */
typedef void (*stale_fn)(uint8_t *bm, unsigned lo, unsigned k, void *ctx);

static void stale_walk(cb_mem *m, uint64_t addr, uint64_t n, bool make,
                       stale_fn fn, void *ctx) {
  while (n) {
    unsigned off = (unsigned)(addr & (CB_PG_SIZE - 1));
    unsigned k = CB_PG_SIZE - off;
    if (k > n)
      k = (unsigned)n;
    /* in the stale cache: no need to ask the hash table (a sliced
     * column store marks one element a page, 2000 pages a loop in
     * gramschmidt LARGE, where the hash table took 24 % of the engine) */
    uint64_t pno = addr >> CB_PG_BITS;
    unsigned t = (unsigned)pno & (CB_STLB_N - 1);
    if (m->stlb[t].pno == pno) {
      fn(m->stlb[t].bits, off, k, ctx);
      addr += k;
      n -= k;
      continue;
    }
    /* a query or a clear finds the page; only a mark makes it (a page
     * never touched has no stale byte) */
    size_t i = SIZE_MAX;
    if (make) {
      i = page_slot(m, addr);
    } else if (m->cap) {
      size_t j = slot_of(m, addr >> CB_PG_BITS);
      if (m->keys[j] && m->valid[j])
        i = j;
    }
    if (i != SIZE_MAX) {
      if (!m->stale[i] && make) {
        m->stale[i] = calloc(CB_PG_SIZE / 8, 1);
        if (!m->stale[i])
          abort();
        unsigned tt = (unsigned)pno & (CB_TLB_N - 1);
        if (m->tlb[tt].pno == pno)
          m->tlb[tt].pno = UINT64_MAX;
      }
      if (m->stale[i]) {
        fn(m->stale[i], off, k, ctx);
        stlb_fill(m, addr, i); /* the next mark or clear finds it there */
      }
    }
    addr += k;
    n -= k;
  }
}

static void bits_set(uint8_t *bm, unsigned lo, unsigned k, void *ctx) {
  (void)ctx;
  cb_stale_bits_fill(bm, lo, k, 0xff);
}

static void bits_clear(uint8_t *bm, unsigned lo, unsigned k, void *ctx) {
  cb_mem *m = ctx;
  m->stale_clears += cb_stale_bits_any(bm, lo, k);
  cb_stale_bits_fill(bm, lo, k, 0);
}

static void bits_any(uint8_t *bm, unsigned lo, unsigned k, void *ctx) {
  bool *any = ctx;
  *any = *any || cb_stale_bits_any(bm, lo, k);
}

/* The marked streams' table: direct mapped, by first address, stride
 * and size. 16 Ki entries, 640 KiB, within the host's L2: heat-3d marks
 * a new row of B in every loop and finds nothing, and at 64 Ki entries
 * (2.6 MiB) each look-up waited for memory, 13 % of its engine's time;
 * cholesky's 2000 rows of B, marked again for every column, still find
 * their entries but one in nine. */
typedef struct cb_marked_stream {
  uint64_t addr, n, clears;
  int64_t stride;
  unsigned size;
} cb_marked_stream;
#define MARKED_N 16384u

/* Where a stream's entry lives (direct mapped by a hash of its first
 * address and stride). */
static cb_marked_stream *marked_slot(cb_mem *m, uint64_t addr, int64_t stride) {
  uint64_t h =
      (addr ^ (uint64_t)stride * 0x9e3779b97f4a7c15ull) * 0xff51afd7ed558ccdull;
  return &m->marked[(h >> 40) & (MARKED_N - 1)];
}

/* The entry for a stream, and how many of its first elements are still
 * marked (0 if none is known). */
static cb_marked_stream *marked_entry(cb_mem *m, uint64_t addr, int64_t stride,
                                      unsigned size, uint64_t *known) {
  *known = 0;
  if (!m->marked) {
    m->marked = calloc(MARKED_N, sizeof *m->marked);
    if (!m->marked)
      return NULL;
  }
  cb_marked_stream *e = marked_slot(m, addr, stride);
  if (e->n && e->addr == addr && e->stride == stride && e->size == size &&
      e->clears == m->stale_clears)
    *known = e->n;
  return e;
}

void cb_mem_marked_prefetch(cb_mem *m, uint64_t addr, int64_t stride) {
  if (m->marked)
    __builtin_prefetch(marked_slot(m, addr, stride), 1);
}

/* Ranges this long or longer are looked up in the marked streams'
 * table (as bytes: stride 1, size 1): cholesky's initialisation marks
 * the same row of B, 16000 bytes over four pages, for each of 2000
 * columns. A shorter one costs less to mark again. */
#define MARKED_MIN_RANGE 256

void cb_mem_stale_mark(cb_mem *m, uint64_t addr, uint64_t n) {
  m->stale_any = true;
  if (n >= MARKED_MIN_RANGE) {
    uint64_t known;
    cb_marked_stream *e = marked_entry(m, addr, 1, 1, &known);
    if (known >= n)
      return;
    if (e)
      *e = (cb_marked_stream){addr, n, m->stale_clears, 1, 1};
    addr += known;
    n -= known;
  }
  stale_walk(m, addr, n, true, bits_set, NULL);
}

/* The element's bits are one bitmap byte when it is 8 bytes at an
 * address a multiple of 8: in the stale cache, one store. A sliced column
 * store marks one element a page, each in a call: symm LARGE spent a
 * quarter of its CPU in cb_mem_stale_mark, gramschmidt a fifth. */
void cb_mem_stale_mark_stream(cb_mem *m, uint64_t addr, int64_t stride,
                              unsigned size, uint64_t k) {
  m->stale_any = true;
  /* A sliced loop stores the same column again and again (gramschmidt's
   * A[i][j] for every k, symm's C[k][j] for every i, one more row each
   * time): one bitmap byte per page, a page per element, over megabytes
   * of bitmaps. While no stale bit went back to exact, the elements
   * marked before still are: only the ones past them are marked. */
  uint64_t known;
  cb_marked_stream *e = marked_entry(m, addr, stride, size, &known);
  if (e && known < k)
    *e = (cb_marked_stream){addr, k, m->stale_clears, stride, size};
  if (known >= k)
    return;
  addr += known * (uint64_t)stride;
  k -= known;
  const bool whole = size == 8 && (addr & 7) == 0 && (stride & 7) == 0;
  for (uint64_t t = 0; t < k; t++, addr += (uint64_t)stride) {
    uint64_t pno = addr >> CB_PG_BITS;
    unsigned i = (unsigned)pno & (CB_STLB_N - 1);
    if (whole && m->stlb[i].pno == pno) {
      m->stlb[i].bits[(addr & (CB_PG_SIZE - 1)) >> 3] = 0xff;
      continue;
    }
    stale_walk(m, addr, size, true, bits_set, NULL);
  }
}

void cb_mem_stale_clear(cb_mem *m, uint64_t addr, uint64_t n) {
  if (!m->stale_any || !n)
    return;
  /* a page in the translation cache has no bitmap */
  uint64_t pno = addr >> CB_PG_BITS;
  if (((addr + n - 1) >> CB_PG_BITS) == pno &&
      m->tlb[(unsigned)pno & (CB_TLB_N - 1)].pno == pno)
    return;
  stale_walk(m, addr, n, false, bits_clear, m);
}

bool cb_mem_stale_any(cb_mem *m, uint64_t addr, uint64_t n) {
  bool any = false;
  if (!m->stale_any || !n)
    return false;
  uint64_t pno = addr >> CB_PG_BITS;
  if (((addr + n - 1) >> CB_PG_BITS) == pno &&
      m->tlb[(unsigned)pno & (CB_TLB_N - 1)].pno == pno)
    return false;
  stale_walk(m, addr, n, false, bits_any, &any);
  return any;
}

/* The stale bit of each byte of [addr, addr + n) into out[0 .. n), a
 * page at a time (out is zeroed: pages without a bitmap stay 0). */
static void stale_get(cb_mem *m, uint64_t addr, uint64_t n, uint8_t *out) {
  for (uint64_t done = 0; done < n;) {
    uint64_t a = addr + done;
    unsigned off = (unsigned)(a & (CB_PG_SIZE - 1));
    uint64_t k = CB_PG_SIZE - off;
    if (k > n - done)
      k = n - done;
    if (m->cap) {
      size_t j = slot_of(m, a >> CB_PG_BITS);
      const uint8_t *bm = m->keys[j] && m->valid[j] ? m->stale[j] : NULL;
      for (unsigned b = off; bm && b < off + k; b++)
        out[done + b - off] = (bm[b >> 3] >> (b & 7)) & 1;
    }
    done += k;
  }
}

bool cb_mem_move(cb_mem *m, uint64_t dst, uint64_t src, uint64_t n,
                 uint64_t *bad) {
  /* the stale states of src first: the ranges may overlap */
  uint8_t *st = NULL;
  if (m->stale_any && n && cb_mem_stale_any(m, src, n)) {
    st = calloc(n, 1);
    if (!st)
      abort();
    stale_get(m, src, n, st);
  }
  uint8_t buf[4096];
  bool ok = true;
  if (dst <= src || dst >= src + n) {
    for (uint64_t off = 0; off < n && ok; off += sizeof buf) {
      size_t k = n - off > sizeof buf ? sizeof buf : (size_t)(n - off);
      ok = cb_mem_read_raw(m, src + off, buf, k, bad) &&
           cb_mem_write(m, dst + off, buf, k, bad);
    }
  } else {
    for (uint64_t done = 0; done < n && ok;) {
      size_t k = n - done > sizeof buf ? sizeof buf : (size_t)(n - done);
      uint64_t off = n - done - k;
      ok = cb_mem_read_raw(m, src + off, buf, k, bad) &&
           cb_mem_write(m, dst + off, buf, k, bad);
      done += k;
    }
  }
  /* marked again run by run (the writes above cleared them) */
  for (uint64_t j = 0; st && ok && j < n;) {
    if (!st[j]) {
      j++;
      continue;
    }
    uint64_t e = j;
    while (e < n && st[e])
      e++;
    cb_mem_stale_mark(m, dst + j, e - j);
    j = e;
  }
  free(st);
  return ok;
}
