/* heap.h: a model of glibc 2.36's malloc (main arena, one thread) that
 * places blocks where the real allocator would for the same sequence of
 * calls: tcache (64 bins of 7), fastbins, unsorted, small and large bins,
 * the top chunk grown with brk, mmapped chunks, the dynamic mmap
 * threshold, trimming. It keeps its bookkeeping outside the modelled
 * memory and reports through hooks what the real allocator would read and
 * write there, so that the engine can emit that traffic and keep memory
 * contents (free lists, zeroed calloc blocks, realloc copies) right.
 * Internal to analysis/.
 */
#ifndef CBANA_ANALYSIS_HEAP_H
#define CBANA_ANALYSIS_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct cb_heap_hooks {
  void *ctx;
  /* A read or write of the allocator's own (size <= 8; value for
   * writes). */
  void (*access)(void *ctx, uint64_t addr, unsigned size, bool is_write,
                 uint64_t value);
  /* memset(addr, 0, len) as calloc does it. */
  void (*clear)(void *ctx, uint64_t addr, uint64_t len);
  /* memcpy(dst, src, len) as realloc does it. */
  void (*copy)(void *ctx, uint64_t dst, uint64_t src, uint64_t len);
  /* The address space changed: [lo, hi) became mapped or unmapped. */
  void (*map)(void *ctx, uint64_t lo, uint64_t hi, bool mapped);
} cb_heap_hooks;

typedef struct cb_heap_config {
  uint64_t heap_base; /* initial program break (page aligned) */
  uint64_t mmap_base; /* mmapped blocks go upward from here */
  uint64_t brk_max;   /* bytes the break may grow (valgrind: ~8 MiB) */
} cb_heap_config;

typedef struct cb_heap cb_heap;

cb_heap *cb_heap_new(const cb_heap_config *cfg, const cb_heap_hooks *hooks);
void cb_heap_free_model(cb_heap *h);

/* The C functions; 0 is NULL. */
uint64_t cb_heap_malloc(cb_heap *h, uint64_t bytes);
uint64_t cb_heap_calloc(cb_heap *h, uint64_t n, uint64_t size);
uint64_t cb_heap_realloc(cb_heap *h, uint64_t mem, uint64_t bytes);
void cb_heap_free(cb_heap *h, uint64_t mem);
/* memalign/aligned_alloc/posix_memalign (the caller checks alignment
 * validity where the C function does). */
uint64_t cb_heap_memalign(cb_heap *h, uint64_t align, uint64_t bytes);
/* How many times malloc_consolidate has run (its stack frame is library
 * traffic of the call that ran it). */
uint64_t cb_heap_consolidations(const cb_heap *h);

/* The live block (user pointer and usable size) containing addr, if any.
 */
bool cb_heap_find_block(const cb_heap *h, uint64_t addr, uint64_t *mem,
                        uint64_t *usable);
/* Is the pointer a live block's user pointer? */
bool cb_heap_is_block(const cb_heap *h, uint64_t mem);
/* Current program break and the first address of the heap. */
uint64_t cb_heap_brk(const cb_heap *h);
uint64_t cb_heap_start(const cb_heap *h);

#endif
