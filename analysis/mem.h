/* mem.h: the modelled process memory, byte addressed and sparse: 4 KiB
 * pages allocated on first touch, found through a small direct-mapped
 * translation cache in front of a hash table. Only addresses inside a
 * mapped region (the image, the heap up to the break, mmapped blocks, the
 * stack) can be touched; anything else is a fault the engine reports.
 *
 * The stale shadow (slicing, analysis/slice.h): a bit per byte, kept only
 * for pages that have had a stale byte, says the byte holds a value the
 * fast engine did not compute (a store of a sliced-away value). Such pages
 * never enter the translation cache, so cb_mem_ptr_clean() sends every
 * access to them to code that checks the bits; cb_mem_read() fails on a
 * stale byte (stale_hit names it) and cb_mem_write()/cb_mem_fill() make
 * the bytes they write exact again.
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

/* Entries of the translation cache of pages with a stale shadow: as
 * many as tlb's, for the same reason (a column walk of a sliced store
 * visits thousands of pages per loop). */
#define CB_STLB_N 4096u

typedef struct cb_mem_region {
  uint64_t lo, hi;
} cb_mem_region;

typedef struct cb_mem {
  struct {
    uint64_t pno;
    uint8_t *data;
  } tlb[CB_TLB_N];
  /* The pages with a stale shadow, which tlb never holds: their bytes
   * and their shadow (cb_mem_ptr_stale). */
  struct {
    uint64_t pno;
    uint8_t *data, *bits;
  } stlb[CB_STLB_N];
  /* How many times stale bits went back to exact (or may have: a native
   * kernel ran, a page with a shadow was dropped). Marks never lower
   * it; the marked streams below are good while it stays put. */
  uint64_t stale_clears;
  /* The strided runs of elements cb_mem_stale_mark_stream marked, and
   * the long ranges cb_mem_stale_mark did, by their first address,
   * stride and size, with how many elements and stale_clears at that
   * time (mem.c; NULL until the first). */
  struct cb_marked_stream *marked;
  uint64_t *keys; /* pno + 1; 0 = empty */
  uint8_t **data;
  uint8_t *valid;
  uint8_t **stale; /* per page slot: its shadow bitmap, or NULL */
  size_t cap, n;
  bool stale_any;     /* some byte has been marked stale */
  uint64_t stale_hit; /* the stale byte cb_mem_read() failed on, else 0 */
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
uint8_t *cb_mem_page_slow_clean(cb_mem *m, uint64_t addr);

/* The host address of addr, NULL when it is not mapped. Valid up to the
 * end of its page. */
static inline uint8_t *cb_mem_ptr(cb_mem *m, uint64_t addr) {
  uint64_t pno = addr >> CB_PG_BITS;
  unsigned i = (unsigned)pno & (CB_TLB_N - 1);
  if (m->tlb[i].pno == pno)
    return m->tlb[i].data + (addr & (CB_PG_SIZE - 1));
  return cb_mem_page_slow(m, addr);
}

/* As cb_mem_ptr, but NULL also for a page with a stale shadow: the fast
 * loop's loads and stores leave such pages to the checking reference. */
static inline uint8_t *cb_mem_ptr_clean(cb_mem *m, uint64_t addr) {
  uint64_t pno = addr >> CB_PG_BITS;
  unsigned i = (unsigned)pno & (CB_TLB_N - 1);
  if (m->tlb[i].pno == pno)
    return m->tlb[i].data + (addr & (CB_PG_SIZE - 1));
  return cb_mem_page_slow_clean(m, addr);
}

/* Sets (v = 0xff) or clears (v = 0) bits lo .. lo + k - 1: the partial
 * bytes at both ends bit by bit, whole bytes at once. */
static inline void cb_stale_bits_fill(uint8_t *bm, unsigned lo, unsigned k,
                                      uint8_t v) {
  unsigned b = lo, end = lo + k;
  for (; b < end && (b & 7); b++)
    bm[b >> 3] =
        (uint8_t)((bm[b >> 3] & ~(1u << (b & 7))) | (v & (1u << (b & 7))));
  if (end - b >= 8) {
    unsigned nb = (end - b) >> 3;
    if (nb <= 8) /* an element's bytes: no call (a sliced store's mark) */
      for (unsigned j = 0; j < nb; j++)
        bm[(b >> 3) + j] = v;
    else
      memset(bm + (b >> 3), v, nb);
    b += nb << 3;
  }
  for (; b < end; b++)
    bm[b >> 3] =
        (uint8_t)((bm[b >> 3] & ~(1u << (b & 7))) | (v & (1u << (b & 7))));
}

/* Whether any of bits lo .. lo + k - 1 is set. */
static inline bool cb_stale_bits_any(const uint8_t *bm, unsigned lo,
                                     unsigned k) {
  for (unsigned b = lo; b < lo + k; b++)
    if ((bm[b >> 3] >> (b & 7)) & 1)
      return true;
  return false;
}

uint8_t *cb_mem_page_stale_slow(cb_mem *m, uint64_t addr, uint8_t **bits);

/* The host address of addr on a page that has a stale shadow, and the
 * shadow (*bits: a bit per byte of the page, 1 = stale); NULL if the page
 * is not mapped or has no shadow. For the fast loop's accesses to such
 * pages, which cb_mem_ptr_clean() refuses: pr's rank array, written by a
 * sliced loop, sent two thirds of its 10^8 accesses through the
 * reference case and the page hash table. */
static inline uint8_t *cb_mem_ptr_stale(cb_mem *m, uint64_t addr,
                                        uint8_t **bits) {
  uint64_t pno = addr >> CB_PG_BITS;
  unsigned i = (unsigned)pno & (CB_STLB_N - 1);
  if (m->stlb[i].pno == pno) {
    *bits = m->stlb[i].bits;
    return m->stlb[i].data + (addr & (CB_PG_SIZE - 1));
  }
  return cb_mem_page_stale_slow(m, addr, bits);
}

/* Copies between the model and the host, across pages; false when some
 * byte is not mapped (then *bad is the first such address) or, for
 * cb_mem_read, stale (then stale_hit is set to it too). cb_mem_read_raw
 * reads stale bytes as they are. */
bool cb_mem_read(cb_mem *m, uint64_t addr, void *dst, size_t n, uint64_t *bad);
bool cb_mem_read_raw(cb_mem *m, uint64_t addr, void *dst, size_t n,
                     uint64_t *bad);
bool cb_mem_write(cb_mem *m, uint64_t addr, const void *src, size_t n,
                  uint64_t *bad);
bool cb_mem_fill(cb_mem *m, uint64_t addr, int byte, size_t n, uint64_t *bad);

/* Stale bits may have gone back to exact, where nothing can say which
 * (a native kernel ran: its stores clear bits themselves). */
static inline void cb_mem_stale_unknown(cb_mem *m) {
  m->stale_clears++;
}

/* The stale shadow. mark/clear: [addr, addr + n) becomes stale / exact
 * (clear is free while nothing is stale); any: is some byte of it stale. */
void cb_mem_stale_mark(cb_mem *m, uint64_t addr, uint64_t n);
/* Fetches into the host's cache, ahead of its use, the marked streams'
 * entry that marking the range at addr (stride 1) or the stream at addr
 * with that stride looks up: the table, 640 KiB, is out of the host's L2
 * by then, and heat-3d, whose every loop marks a row not marked in the
 * last 16 Ki, waited for memory there (9 % of its samples once its
 * simulation was mostly counted). */
void cb_mem_marked_prefetch(cb_mem *m, uint64_t addr, int64_t stride);
/* cb_mem_stale_mark of the size bytes at addr + t * stride, t < k (a
 * sliced store's stream). */
void cb_mem_stale_mark_stream(cb_mem *m, uint64_t addr, int64_t stride,
                              unsigned size, uint64_t k);
void cb_mem_stale_clear(cb_mem *m, uint64_t addr, uint64_t n);
bool cb_mem_stale_any(cb_mem *m, uint64_t addr, uint64_t n);
/* memmove in the model: the bytes and their stale states; false when a
 * byte is not mapped (*bad: the first). */
bool cb_mem_move(cb_mem *m, uint64_t dst, uint64_t src, uint64_t n,
                 uint64_t *bad);

#endif
