/* The memory side of a loop template's address streams (template_streams.h):
 * where an entry's iterations would fault, checked page by page or as one
 * mapped region. cb_tpl_run (template_run.c) calls it once per loop entry,
 * before its iterations. */
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
