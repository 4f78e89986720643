/* mem.c: sparse page memory of the modelled process (see mem.h). */
#include "mem.h"

#include <stdlib.h>

static uint64_t phash(uint64_t pno) {
  pno *= 0x9e3779b97f4a7c15ull;
  return pno ^ (pno >> 31);
}

void cb_mem_init(cb_mem *m) {
  memset(m, 0, sizeof *m);
  for (unsigned i = 0; i < CB_TLB_N; i++)
    m->tlb[i].pno = UINT64_MAX;
}

void cb_mem_destroy(cb_mem *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->keys[i])
      free(m->data[i]);
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

uint8_t *cb_mem_page_slow(cb_mem *m, uint64_t addr) {
  uint64_t pno = addr >> CB_PG_BITS;
  if ((m->n + 1) * 2 > m->cap)
    grow(m);
  size_t i = slot_of(m, pno);
  if (!m->keys[i] || !m->valid[i]) {
    if (!cb_mem_mapped(m, addr))
      return NULL;
    if (!m->keys[i]) {
      m->keys[i] = pno + 1;
      m->data[i] = calloc(1, CB_PG_SIZE);
      m->n++;
    }
    m->valid[i] = 1;
  }
  unsigned t = (unsigned)pno & (CB_TLB_N - 1);
  m->tlb[t].pno = pno;
  m->tlb[t].data = m->data[i];
  return m->data[i] + (addr & (CB_PG_SIZE - 1));
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
          m->valid[i]) {
        memset(m->data[i], 0, CB_PG_SIZE);
        m->valid[i] = 0;
      }
    for (unsigned t = 0; t < CB_TLB_N; t++)
      if (m->tlb[t].pno >= p0 && m->tlb[t].pno < p1)
        m->tlb[t].pno = UINT64_MAX;
    return;
  }
  for (uint64_t p = p0; p < p1; p++) {
    size_t i = slot_of(m, p);
    if (m->keys[i] && m->valid[i]) {
      memset(m->data[i], 0, CB_PG_SIZE);
      m->valid[i] = 0;
    }
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
