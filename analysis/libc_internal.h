/* libc_internal.h: shared between the C library model's files (libc.c,
 * libc_mem.c, libc_stdio.c); internal to the analysis module. */
#ifndef CBANA_LIBC_INTERNAL_H
#define CBANA_LIBC_INTERNAL_H

#include "engine_internal.h"

/* The longest string the model reads. */
#define MAX_STR (1u << 24)

/* libc_frames.c: posix_memalign's internal frames below the caller's
 * rsp. */
void cb_libc_memalign_frame(cb_eng *e, bool consolidated);

/* libc_mem.c */
/* glibc's AVX2 string functions read whole aligned 32-byte vectors. */
void cb_libc_scan(cb_eng *e, uint64_t addr, uint64_t len);
/* memmove/memcpy and memset: the bytes and glibc's traffic. */
cb_stop cb_libc_memmove(cb_eng *e, uint64_t dst, uint64_t src, uint64_t n);
cb_stop cb_libc_memset(cb_eng *e, uint64_t dst, int c, uint64_t n);
/* cb_libc_call for mem* and str* functions. */
cb_stop cb_libc_mem_call(cb_eng *e, uint32_t fn, const cb_value *a,
                         const uint8_t *ty, uint32_t n, cb_value *ret);

/* libc_math.c: whether fn is one of <math.h>'s functions, and its call. */
bool cb_libc_is_libm(uint32_t fn);
cb_stop cb_libc_math_call(cb_eng *e, uint32_t fn, const cb_value *a,
                          const uint8_t *ty, cb_value *ret);

/* libc.c: tells the allocation sink about a heap call (in stream order). */
void cb_libc_alloc_event(cb_eng *e, cb_alloc_kind kind, uint32_t fn,
                         uint64_t addr, uint64_t old, uint64_t size);

/* libc_string.c, libc_stdlib.c, libc_ctype.c: cb_libc_call for their
 * functions. */
cb_stop cb_libc_string_call(cb_eng *e, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret);
cb_stop cb_libc_stdlib_call(cb_eng *e, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret);
cb_stop cb_libc_ctype_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           cb_value *ret);

/* libc_rand.c */
/* One library access of exactly n bytes. */
void cb_libc_acc(cb_eng *e, uint64_t a, uint32_t n, bool w);
/* Where the stack protector's canary (%fs:0x28) is. */
uint64_t cb_libc_canary(const cb_eng *e);
/* random()'s traffic (via_rand: called by rand()), pos as in rand.h. */
void cb_libc_random_traffic(cb_eng *e, bool via_rand, unsigned pos);
/* srand()/srandom()'s traffic. */
void cb_libc_srand_traffic(cb_eng *e);
/* cb_libc_call for the rand48 family. */
cb_stop cb_libc_rand48_call(cb_eng *e, uint32_t fn, const cb_value *a,
                            cb_value *ret);

/* libc_stdio.c */
/* cb_libc_call for the printf and scanf families and the other stdio
 * functions. */
cb_stop cb_libc_stdio_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);

#endif
