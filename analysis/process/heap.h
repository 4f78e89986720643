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

/* What the last public call (malloc, calloc, realloc, free, memalign) did
 * inside, in the order glibc does it, for the library's own traffic
 * (libc_malloc_traffic.c): which of _int_malloc's routes each request
 * took, which of _int_free's each free, and the first call's set-up. */
enum {
  CB_HEAP_M_FAST,     /* a fastbin's first chunk */
  CB_HEAP_M_SMALL,    /* a small bin's last chunk */
  CB_HEAP_M_UNSORTED, /* an exact fit or the last remainder, from unsorted */
  CB_HEAP_M_CACHED,   /* exact fits moved into the tcache, one returned */
  CB_HEAP_M_LARGE,    /* the request's large bin */
  CB_HEAP_M_BINMAP,   /* a larger bin found through the binmap */
  CB_HEAP_M_TOP,      /* split off the top */
  CB_HEAP_M_SYSMALLOC /* sysmalloc: the top grown with brk, or mmap */
};
enum {
  CB_HEAP_F_TCACHE, /* into the tcache */
  CB_HEAP_F_FAST,   /* onto a fastbin */
  CB_HEAP_F_BIN,    /* coalesced into the unsorted list */
  CB_HEAP_F_TOP,    /* coalesced into the top */
  CB_HEAP_F_MUNMAP  /* an mmapped chunk unmapped */
};
#define CB_HEAP_PATH_MAX 4
typedef struct cb_heap_mstep {  /* one _int_malloc */
  uint64_t nb;                  /* the chunk size asked for */
  uint64_t top;                 /* the top chunk before (0: the initial top) */
  uint64_t victim;              /* the chunk returned, 0 on failure */
  uint32_t unsorted;            /* chunks taken off the unsorted list */
  uint8_t route;                /* CB_HEAP_M_* */
  bool brk, mmapped, first_brk; /* sysmalloc's ways */
} cb_heap_mstep;
typedef struct cb_heap_fstep { /* one _int_free or munmap_chunk */
  uint64_t chunk, size;
  uint8_t route; /* CB_HEAP_F_* */
  bool consolidated, trimmed;
} cb_heap_fstep;
typedef struct cb_heap_path {
  bool init;        /* ptmalloc_init ran: the process's first call */
  bool tcache_made; /* tcache_init made the tcache (a first _int_malloc) */
  bool tc_hit;      /* malloc/calloc/realloc served from the tcache */
  uint8_t n_malloc, n_free;
  cb_heap_mstep m[CB_HEAP_PATH_MAX];
  cb_heap_fstep f[CB_HEAP_PATH_MAX];
} cb_heap_path;

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

/* The path of the last public call (valid until the next one). */
const cb_heap_path *cb_heap_last_path(const cb_heap *h);

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
