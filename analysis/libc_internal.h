/* libc_internal.h: shared between the C library model's files (libc.c,
 * libc_mem.c, libc_stdio.c); internal to the analysis module. */
#ifndef CBANA_LIBC_INTERNAL_H
#define CBANA_LIBC_INTERNAL_H

#include "engine_internal.h"

/* The longest string the model reads. */
#define MAX_STR (1u << 24)

/* libc_malloc_traffic.c: the allocator's traffic outside the heap for
 * the heap call fn (CB_LIBC_MALLOC ... POSIX_MEMALIGN) that just ran in
 * the heap model, called with the caller's rsp C; arg: free's, realloc's
 * pointer; mem: the block returned; consolidated: malloc_consolidate ran.
 * cb_libc_caller_sp: C for a call from the Program. */
void cb_libc_heap_traffic(cb_eng *e, uint32_t fn, uint64_t C, uint64_t arg,
                          uint64_t mem, bool consolidated);
uint64_t cb_libc_caller_sp(const cb_eng *e);

/* libc_stdio_traffic.c: printf, puts and putchar/putc on stdout. begin
 * (before cb_libc_stdio_call) notes where the output starts and mutes the
 * model's approximate traffic for the format and the buffer; false: not
 * modelled here (other streams, a terminal). end emits glibc's. */
typedef struct cb_stdio_mark {
  bool first;   /* stdout had no buffer yet */
  uint64_t pos; /* stdout's position before */
  uint64_t C;   /* the caller's rsp */
} cb_stdio_mark;
bool cb_libc_stdio_traffic_begin(cb_eng *e, uint32_t fn, const cb_value *a,
                                 cb_stdio_mark *mk);
void cb_libc_stdio_traffic_end(cb_eng *e, uint32_t fn, const cb_value *a,
                               const uint8_t *ty, uint32_t n,
                               const cb_stdio_mark *mk, cb_stop st);

/* libc_mem.c */
/* glibc's AVX2 string functions read whole aligned 32-byte vectors. */
void cb_libc_scan(cb_eng *e, uint64_t addr, uint64_t len);
/* memmove/memcpy and memset: the bytes and glibc's traffic. */
cb_stop cb_libc_memmove(cb_eng *e, uint64_t dst, uint64_t src, uint64_t n);
cb_stop cb_libc_memset(cb_eng *e, uint64_t dst, int c, uint64_t n);
/* cb_libc_call for mem* and str* functions. */
cb_stop cb_libc_mem_call(cb_eng *e, uint32_t fn, const cb_value *a,
                         const uint8_t *ty, uint32_t n, cb_value *ret);

/* libc_stdio.c */
/* cb_libc_call for the printf and scanf families and the other stdio
 * functions. */
cb_stop cb_libc_stdio_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);

#endif
