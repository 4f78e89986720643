/* mem.h: the modelled process memory, byte addressed and sparse: 4 KiB
 * pages allocated on first touch, found through a small direct-mapped
 * translation cache in front of a hash table. Only addresses inside a
 * mapped region (the image, the heap up to the break, mmapped blocks, the
 * stack) can be touched; anything else is a fault the engine reports.
 * Internal to analysis/.
 */
#ifndef CBANA_ANALYSIS_MEM_H
#define CBANA_ANALYSIS_MEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define CB_PG_BITS 12
#define CB_PG_SIZE 4096u
/* Entries of the direct-mapped translation cache: 16 MiB of pages. With
 * 1024 (4 MiB), the CSR gathers of bench/workloads (pr, tc: 10^6 edges)
 * spent 10 % of their samples refilling it from the hash table; 4096
 * made pr 6 % faster in wall time and 12 % in CPU. The table is 64 KiB,
 * in the engine's heap-allocated state. */
#define CB_TLB_N 4096u

typedef struct cb_mem_region {
  uint64_t lo, hi;
} cb_mem_region;

typedef struct cb_mem {
  struct {
    uint64_t pno;
    uint8_t *data;
  } tlb[CB_TLB_N];
  uint64_t *keys; /* pno + 1; 0 = empty */
  uint8_t **data;
  uint8_t *valid;
  size_t cap, n;
  cb_mem_region *regs;
  size_t nregs, capregs;
  /* The region the last range check found (template_run.c's in_region
   * looks there first; any index, checked before use) */
  size_t region_hint;
  /* the pages' bytes, taken in order from chunks of CB_MEM_CHUNK bytes,
   * or of one page where none could be mapped (page_alloc, mem.c) */
  struct {
    uint8_t *data;
    size_t len;
  } * chunks;
  size_t nchunks, capchunks, chunk_used;
} cb_mem;

void cb_mem_init(cb_mem *m);
void cb_mem_destroy(cb_mem *m);
/* [lo, hi) becomes touchable (mapped) or not (its pages read as zeros
 * when mapped again). */
void cb_mem_map(cb_mem *m, uint64_t lo, uint64_t hi);
void cb_mem_unmap(cb_mem *m, uint64_t lo, uint64_t hi);
bool cb_mem_mapped(const cb_mem *m, uint64_t addr);
uint8_t *cb_mem_page_slow(cb_mem *m, uint64_t addr);

/* The host address of addr, NULL when it is not mapped. Valid up to the
 * end of its page. */
static inline uint8_t *cb_mem_ptr(cb_mem *m, uint64_t addr) {
  uint64_t pno = addr >> CB_PG_BITS;
  unsigned i = (unsigned)pno & (CB_TLB_N - 1);
  if (m->tlb[i].pno == pno)
    return m->tlb[i].data + (addr & (CB_PG_SIZE - 1));
  return cb_mem_page_slow(m, addr);
}

/* Copies between the model and the host, across pages; false when some
 * byte is not mapped (then *bad is the first such address). */
bool cb_mem_read(cb_mem *m, uint64_t addr, void *dst, size_t n, uint64_t *bad);
bool cb_mem_write(cb_mem *m, uint64_t addr, const void *src, size_t n,
                  uint64_t *bad);
bool cb_mem_fill(cb_mem *m, uint64_t addr, int byte, size_t n, uint64_t *bad);
/* memmove in the model; false when a byte is not mapped (*bad: the
 * first). */
bool cb_mem_move(cb_mem *m, uint64_t dst, uint64_t src, uint64_t n,
                 uint64_t *bad);

#endif
