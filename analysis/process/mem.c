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
  size_t oc = m->cap;
  m->cap = oc ? oc * 2 : 4096;
  m->keys = calloc(m->cap, sizeof *m->keys);
  m->data = calloc(m->cap, sizeof *m->data);
  m->valid = calloc(m->cap, 1);
  if (!m->keys || !m->data || !m->valid)
    abort(); /* as calloc of a page below: the model cannot go on */
  for (size_t i = 0; i < oc; i++)
    if (ok[i]) {
      size_t j = slot_of(m, ok[i] - 1);
      m->keys[j] = ok[i];
      m->data[j] = od[i];
      m->valid[j] = ov[i];
    }
  free(ok);
  free(od);
  free(ov);
}

bool cb_mem_mapped(const cb_mem *m, uint64_t addr) {
  for (size_t i = 0; i < m->nregs; i++)
    if (addr >= m->regs[i].lo && addr < m->regs[i].hi)
      return true;
  return false;
}

/* The slot of addr's page, made valid and put in the translation cache
 * (SIZE_MAX: not mapped). */
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
  unsigned t = (unsigned)pno & (CB_TLB_N - 1);
  m->tlb[t].pno = pno;
  m->tlb[t].data = m->data[i];
  return i;
}

uint8_t *cb_mem_page_slow(cb_mem *m, uint64_t addr) {
  size_t i = page_slot(m, addr);
  return i == SIZE_MAX ? NULL : m->data[i] + (addr & (CB_PG_SIZE - 1));
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
 * mapped again. A page the model touched but never wrote (an array only
 * read, or only looked up by a loop template's checks) is zero already,
 * and often not even backed, and PolyBench frees its arrays at its end.
 * Writing its zeros would fault it in fresh for nothing: on a host
 * that hands freed memory back to its hypervisor, about 3 ms a MiB
 * (bench/results/fast_notes.md), gemm LARGE 64 ms of
 * cb_mem_unmap's page faults a run. Reading it maps the kernel's zero
 * page instead. */
static void page_drop(cb_mem *m, size_t i) {
  if (!page_is_zero(m->data[i]))
    memset(m->data[i], 0, CB_PG_SIZE);
  m->valid[i] = 0;
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
    return;
  }
  for (uint64_t p = p0; p < p1; p++) {
    size_t i = slot_of(m, p);
    if (m->keys[i] && m->valid[i])
      page_drop(m, i);
    unsigned t = (unsigned)p & (CB_TLB_N - 1);
    if (m->tlb[t].pno == p)
      m->tlb[t].pno = UINT64_MAX;
  }
}

bool cb_mem_read(cb_mem *m, uint64_t addr, void *dst, size_t n, uint64_t *bad) {
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

bool cb_mem_move(cb_mem *m, uint64_t dst, uint64_t src, uint64_t n,
                 uint64_t *bad) {
  uint8_t buf[4096];
  bool ok = true;
  if (dst <= src || dst >= src + n) {
    for (uint64_t off = 0; off < n && ok; off += sizeof buf) {
      size_t k = n - off > sizeof buf ? sizeof buf : (size_t)(n - off);
      ok = cb_mem_read(m, src + off, buf, k, bad) &&
           cb_mem_write(m, dst + off, buf, k, bad);
    }
  } else {
    for (uint64_t done = 0; done < n && ok;) {
      size_t k = n - done > sizeof buf ? sizeof buf : (size_t)(n - done);
      uint64_t off = n - done - k;
      ok = cb_mem_read(m, src + off, buf, k, bad) &&
           cb_mem_write(m, dst + off, buf, k, bad);
      done += k;
    }
  }
  return ok;
}
