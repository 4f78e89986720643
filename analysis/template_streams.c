/* The memory side of a loop template's address streams (template_streams.h):
 * where an entry's iterations would fault, checked page by page or as one
 * mapped region, and slicing's shadow over the bytes they touch (slice.h):
 * whether a needed load could read a stale byte, and which stored bytes
 * hold their values afterwards. cb_tpl_run (template_run.c) calls these
 * once per loop entry, before and after its iterations. */
#include <string.h>

#include "slice.h"
#include "template_streams.h"

/* Is every byte of [addr, addr + size) mapped? (size <= a page) The
 * pages are touched where eng_run() touches them (cb_mem_read: addr, then
 * the next page's start), as whether a page is valid may depend on the
 * address of its first touch (mem.c). */
static bool mapped(cb_mem *mem, uint64_t addr, unsigned size) {
  if (!cb_mem_ptr(mem, addr))
    return false;
  uint64_t end = addr + size - 1;
  return (end >> CB_PG_BITS) == (addr >> CB_PG_BITS) ||
         cb_mem_ptr(mem, end & ~(uint64_t)(CB_PG_SIZE - 1));
}

/* Is [lo, hi) inside one mapped region whose ends are page boundaries?
 * Then every page of it is valid whatever touches it first. */
static bool in_region(cb_mem *mem, uint64_t lo, uint64_t hi) {
  size_t i = mem->region_hint;
  if (i >= mem->nregs || lo < mem->regs[i].lo || hi > mem->regs[i].hi) {
    for (i = 0; i < mem->nregs; i++)
      if (lo >= mem->regs[i].lo && hi <= mem->regs[i].hi)
        break;
    if (i == mem->nregs)
      return false;
    mem->region_hint = i;
  }
  return ((mem->regs[i].lo | mem->regs[i].hi) & (CB_PG_SIZE - 1)) == 0;
}

/* The first iteration t < k whose access of the stream touches an
 * unmapped byte (the interpreter's fault), else k. An access that crosses
 * into a mapped page is no stop: the template takes it as the interpreter
 * does, through a copy. */
uint64_t cb_tpl_first_bad(cb_mem *mem, uint64_t base, int64_t stride,
                          unsigned size, uint64_t k) {
  if (stride > (int64_t)1 << 40 || stride < -((int64_t)1 << 40))
    return 0; /* no array is that large: leave it to the interpreter */
  if (stride == 0)
    return mapped(mem, base, size) ? k : 0;
  /* the whole range at once (column walks would check a page per
   * iteration) */
  uint64_t last = base + (k - 1) * (uint64_t)stride;
  if (stride > 0 && last >= base && last + size > last &&
      in_region(mem, base, last + size))
    return k;
  if (stride < 0 && last <= base && base + size > base &&
      in_region(mem, last, base + size))
    return k;
  uint64_t t = 0;
  while (t < k) {
    uint64_t addr = base + t * (uint64_t)stride;
    if (!mapped(mem, addr, size))
      return t;
    uint64_t off = addr & (CB_PG_SIZE - 1), run;
    if (stride > 0) {
      /* iterations left in this page; only the last can cross its end */
      run = (CB_PG_SIZE - 1 - off) / (uint64_t)stride + 1;
      if (run > k - t)
        run = k - t;
      uint64_t last = addr + (run - 1) * (uint64_t)stride;
      if (!mapped(mem, last, size))
        return t + run - 1;
    } else {
      /* the first of the run has the highest address, checked above */
      run = off / (uint64_t)(-stride) + 1;
      if (run > k - t)
        run = k - t;
    }
    t += run;
  }
  return k;
}

/* ---- slicing's shadow over a template's streams (slice.h) ---- */

/* The bytes of iterations 0 .. k-1 of a stream, when they are one range
 * (a stride of the access size either way, or 0): its start and length. */
static bool stream_run(const sstate *s, unsigned size, uint64_t k, uint64_t *lo,
                       uint64_t *n) {
  if (s->stride == 0) {
    *lo = s->addr;
    *n = size;
    return true;
  }
  if (s->stride != (int64_t)size && s->stride != -(int64_t)size)
    return false;
  *lo = s->stride > 0 ? s->addr : s->addr + (k - 1) * (uint64_t)s->stride;
  *n = k * size;
  return true;
}

/* Does some access of iterations 0 .. k-1 touch a stale byte? */
static bool stream_stale(cb_mem *mem, const sstate *s, unsigned size,
                         uint64_t k) {
  uint64_t lo, n;
  if (stream_run(s, size, k, &lo, &n))
    return cb_mem_stale_any(mem, lo, n);
  for (uint64_t t = 0; t < k; t++)
    if (cb_mem_stale_any(mem, s->addr + t * (uint64_t)s->stride, size))
      return true;
  return false;
}

static void shadow_range(cb_mem *mem, uint64_t a, uint64_t n, bool stale) {
  if (stale)
    cb_mem_stale_mark(mem, a, n);
  else
    cb_mem_stale_clear(mem, a, n);
}

/* Marks (stale) or clears the bytes of iterations 0 .. k-1. */
static void stream_shadow(cb_mem *mem, const sstate *s, unsigned size,
                          uint64_t k, bool stale) {
  uint64_t lo, n;
  if (stream_run(s, size, k, &lo, &n)) {
    shadow_range(mem, lo, n, stale);
    return;
  }
  if (stale) {
    cb_mem_stale_mark_stream(mem, s->addr, s->stride, size, k);
    return;
  }
  for (uint64_t t = 0; t < k; t++)
    shadow_range(mem, s->addr + t * (uint64_t)s->stride, size, stale);
}

/* The lowest and one past the highest byte a stream touches. */
static void stream_span(const sstate *s, unsigned size, uint64_t k,
                        uint64_t *lo, uint64_t *hi) {
  uint64_t last = s->addr + (k - 1) * (uint64_t)s->stride;
  *lo = s->stride >= 0 ? s->addr : last;
  *hi = (s->stride >= 0 ? last : s->addr) + size;
}

/* With stale bytes about, may a template that computes its values run
 * these k iterations? Not when a needed load would read a stale byte, nor
 * when a store of a maybe-garbage value could write bytes a needed load
 * of a later iteration reads: the interpreter then takes the loop, access
 * by access. */
bool cb_tpl_streams_exact(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                          const sstate *ss, uint64_t k) {
  for (uint32_t i = 0; i < t->n_stream; i++) {
    const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
    if (st->is_write || !(e->sl[st->op] & CB_SL_NEED))
      continue;
    if (stream_stale(&e->mem, &ss[i], st->size, k))
      return false;
    uint64_t lo, hi;
    stream_span(&ss[i], st->size, k, &lo, &hi);
    for (uint32_t j = 0; j < t->n_stream; j++) {
      const cb_tpl_stream *w = &ts->streams[t->first_stream + j];
      uint64_t wlo, whi;
      if (!w->is_write || !(e->sl[w->op] & CB_SL_MAYBE))
        continue;
      stream_span(&ss[j], w->size, k, &wlo, &whi);
      if (wlo < hi && lo < whi)
        return false;
    }
  }
  return true;
}

/* The marked streams' entries cb_tpl_streams_shadow will look up for the
 * stores, fetched while the block is handed on (cb_mem_marked_prefetch):
 * each store's range or stream, and the range that tiled stores make
 * together, from the lowest. A wrong guess costs a fetch, nothing else. */
void cb_tpl_shadow_prefetch(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                            const sstate *ss, uint64_t k) {
  uint64_t lo = UINT64_MAX, run_lo, run_n;
  uint32_t n = 0;
  for (uint32_t i = 0; i < t->n_stream; i++) {
    const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
    if (!st->is_write)
      continue;
    n++;
    if (stream_run(&ss[i], st->size, k, &run_lo, &run_n))
      cb_mem_marked_prefetch(&e->mem, run_lo, 1);
    else
      cb_mem_marked_prefetch(&e->mem, ss[i].addr, ss[i].stride);
    if (ss[i].addr < lo)
      lo = ss[i].addr;
  }
  if (n > 1)
    cb_mem_marked_prefetch(&e->mem, lo, 1);
}

/* After k iterations: each store's bytes hold its value, or maybe
 * garbage. */
void cb_tpl_streams_shadow(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                           const sstate *ss, uint64_t k) {
  /* An unrolled or vectorized loop stores through several streams of one
   * stride that tile it (stride 32: bytes 0-15 and 16-31): together they
   * write one range, which is one operation on the shadow instead of one
   * per element and stream (gemm LARGE spent a third of its time here). */
  for (int stale = 0; stale < 2; stale++) {
    uint64_t lo = UINT64_MAX, sum = 0;
    int64_t stride = 0;
    uint32_t n = 0;
    bool tiled = true;
    for (uint32_t i = 0; i < t->n_stream; i++) {
      const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
      if (!st->is_write || ((e->sl[st->op] & CB_SL_MAYBE) != 0) != stale)
        continue;
      if (n++ == 0)
        stride = ss[i].stride;
      tiled &= ss[i].stride == stride && stride > 0;
      sum += st->size;
      if (ss[i].addr < lo)
        lo = ss[i].addr;
    }
    if (n == 0)
      continue;
    /* tiling: the sizes fill the stride, each stream's bytes [base - lo,
     * base - lo + size) of the first iteration disjoint and inside it */
    uint8_t seen[256];
    if (tiled && n > 1 && sum == (uint64_t)stride && stride <= 256) {
      memset(seen, 0, (size_t)stride);
      for (uint32_t i = 0; i < t->n_stream && tiled; i++) {
        const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
        if (!st->is_write || ((e->sl[st->op] & CB_SL_MAYBE) != 0) != stale)
          continue;
        uint64_t off = ss[i].addr - lo;
        for (uint64_t b = off; b < off + st->size && tiled; b++)
          tiled = b < (uint64_t)stride && !seen[b]++;
      }
      if (tiled) {
        shadow_range(&e->mem, lo, k * (uint64_t)stride, stale);
        continue;
      }
    }
    for (uint32_t i = 0; i < t->n_stream; i++) {
      const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
      if (st->is_write && ((e->sl[st->op] & CB_SL_MAYBE) != 0) == stale)
        stream_shadow(&e->mem, &ss[i], st->size, k, stale);
    }
  }
}
