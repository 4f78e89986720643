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

/* libc_stdio.c */
/* cb_libc_call for the printf and scanf families and the other stdio
 * functions. */
cb_stop cb_libc_stdio_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);

/* libc_intr_ext.c: cb_intrinsic_call for CB_INTR_SADD_SAT to
 * CB_INTR_LLRINT. */
cb_stop cb_intrinsic_ext(cb_eng *e, uint32_t id, const cb_op *op,
                         const cb_value *const *v, const uint8_t *aty,
                         const uint8_t *alanes, uint32_t n, cb_value *r);

#endif
