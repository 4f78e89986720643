/* huge.c: large buffers on transparent huge pages (cache.h,
 * cb_huge_map), for the memos' arenas here and the engine's modelled
 * memory and the time split's buffers in analysis/. */
#include "cbana/cache.h"

#include <stdint.h>
#include <sys/mman.h>

/* x86-64's and AArch64's (4 KiB granule) huge page */
#define HUGE_PAGE ((size_t)2 << 20)

void *cb_huge_map(size_t len) {
  len = (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1);
  size_t over = len + HUGE_PAGE;
  uint8_t *raw = mmap(NULL, over, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (raw == MAP_FAILED)
    return NULL;
  uintptr_t a = ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
  uint8_t *c = (uint8_t *)a;
  if (c > raw)
    munmap(raw, (size_t)(c - raw));
  size_t tail = (size_t)(raw + over - (c + len));
  if (tail)
    munmap(c + len, tail);
  madvise(c, len, MADV_HUGEPAGE); /* advice: may be refused */
  return c;
}

void cb_huge_unmap(void *p, size_t len) {
  if (p)
    munmap(p, (len + HUGE_PAGE - 1) & ~(size_t)(HUGE_PAGE - 1));
}
