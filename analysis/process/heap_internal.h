/* heap_internal.h: the malloc model's state, shared between heap.c and
 * heap_bins.c; internal to the analysis module (heap.h is the interface). */
#ifndef CBANA_HEAP_INTERNAL_H
#define CBANA_HEAP_INTERNAL_H

#include "heap.h"

#define SZ 8u
#define MINSIZE 32u
#define PAGE 4096u
#define NBINS 128
#define MIN_LARGE 1024u
#define MAX_FAST 128u
#define NFAST 10
#define TC_BINS 64
#define TC_COUNT 7
#define TOP_PAD 0x20000u
#define MMAP_THRESHOLD_DEFAULT 0x20000u
#define MMAP_THRESHOLD_MAX (32ull << 20)
#define CONSOLIDATE_THRESHOLD 65536u
#define MMAP_AS_MORECORE 0x100000u
#define MMAP_LIMIT (1ull << 36) /* larger mappings fail (no such memory) */
#define TCACHE_STRUCT_BYTES 0x280u
#define TCACHE_KEY 0x5a17c0de5a17c0deull

enum { C_FREE_REC, C_INUSE, C_TCACHE, C_FAST, C_BIN, C_TOP };

typedef struct chunk {
  uint64_t addr, size, prev_size;
  int32_t fd, bk; /* bin links (record indexes); fd also for fast/tcache */
  uint8_t state;
  uint8_t prev_free; /* PREV_INUSE clear */
  uint8_t mmapped;
} chunk;

typedef struct mapping {
  uint64_t lo, hi;
} mapping;

struct cb_heap {
  cb_heap_config cfg;
  cb_heap_hooks hk;
  chunk *c;
  int32_t nc, capc, free_rec;
  /* address -> record, open addressing */
  uint64_t *hkeys;
  int32_t *hvals;
  size_t hcap, hn;
  int32_t top; /* -1 before the first sysmalloc */
  int32_t fast[NFAST];
  int32_t tc[TC_BINS][TC_COUNT];
  uint16_t tcn[TC_BINS];
  bool tcache_ready;
  uint64_t tcache_mem;
  bool have_fast;
  uint64_t n_consolidate; /* malloc_consolidate runs so far */
  uint64_t last_rem;      /* address of the last remainder chunk */
  uint64_t brk, max_brk;
  bool contiguous;
  uint64_t mmap_threshold, trim_threshold;
  int n_mmaps;
  mapping *maps;
  size_t nmaps, capmaps;
  /* the public call's path (heap.h); depth: nested public calls
   * (realloc's malloc) add to the outer call's */
  cb_heap_path path;
  int path_depth;
  bool initialized;
};

/* heap_bins.c */
void heap_path_free(cb_heap *h, int32_t r, uint8_t route);
uint64_t heap_align_up(uint64_t x, uint64_t a);
bool heap_bin_empty(const cb_heap *h, int b);
void heap_bin_insert_after(cb_heap *h, int32_t pos, int32_t r);
void heap_bin_place(cb_heap *h, int32_t r);
void heap_bin_unlink(cb_heap *h, int32_t r);
void heap_unlink_chunk(cb_heap *h, int32_t r);
int heap_csize2tidx(uint64_t size);
uint64_t heap_do_mmap(cb_heap *h, uint64_t len);
bool heap_do_sbrk(cb_heap *h, int64_t incr);
int32_t heap_hget(const cb_heap *h, uint64_t key);
void heap_int_free(cb_heap *h, int32_t r);
int heap_largebin_index(uint64_t sz);
void heap_malloc_consolidate(cb_heap *h);
void heap_mapped(cb_heap *h, uint64_t lo, uint64_t hi, bool on);
void heap_maps_add(cb_heap *h, uint64_t lo, uint64_t hi);
void heap_maps_del(cb_heap *h, uint64_t lo);
void heap_mark_free(cb_heap *h, int32_t r);
void heap_mark_inuse(cb_heap *h, int32_t r);
uint64_t heap_mmap_find(const cb_heap *h, uint64_t len);
void heap_munmap_chunk(cb_heap *h, int32_t r);
int32_t heap_next_of(const cb_heap *h, int32_t r);
void heap_rd(cb_heap *h, uint64_t a, unsigned n);
void heap_wr(cb_heap *h, uint64_t a, unsigned n, uint64_t v);
void heap_rec_del(cb_heap *h, int32_t r);
void heap_rec_move(cb_heap *h, int32_t r, uint64_t addr);
int32_t heap_rec_new(cb_heap *h, uint64_t addr, uint64_t size);
void heap_set_head(cb_heap *h, int32_t r);
uint64_t heap_tc_counts(const cb_heap *h, int i);
int32_t heap_tcache_get(cb_heap *h, int idx);
void heap_tcache_put(cb_heap *h, int32_t r, int idx);

#endif
