/* libc_rows.h: measured access tables of glibc functions whose rows need
 * more bases than libc_traffic.h's (libc_time.c, libc_locale.c): below
 * the caller's rsp (S), libc (L), the TLS page (T), ld.so (D), the call's
 * pointer arguments (A0, A1), the modelled environment (E: envp[i]; ES:
 * envp[i]'s string + off, as getenv reads them), blocks of glibc's own
 * the caller keeps (B), and OP rows where glibc mallocs or frees, which
 * the caller's callback makes (the heap model's traffic). Internal to the
 * analysis module; a generated table is included after this header. */
#ifndef CBANA_ANALYSIS_LIBC_ROWS_H
#define CBANA_ANALYSIS_LIBC_ROWS_H

#include "libc_internal.h"
#include "libc_traffic.h"

#undef S
#undef L
#undef D
#undef T
#undef V
#undef P
#undef F

typedef struct cb_row {
  uint8_t base, len, w;
  int32_t off;
} cb_row;

enum {
  ROW_S,
  ROW_L,
  ROW_T,
  ROW_D,
  ROW_A0,
  ROW_A1,
  ROW_E,  /* envp[off] */
  ROW_ES, /* envp[off >> 16]'s string + (off & 0xffff) */
  ROW_OP, /* a malloc (len 1) or free (len 2) of block w (255: NULL), its
             C off below the caller's rsp */
  ROW_B0  /* block b: ROW_B0 + b */
};

#define S(o, n, w)                                                             \
  { ROW_S, n, w, o }
#define L(o, n, w)                                                             \
  { ROW_L, n, w, o }
#define T(o, n, w)                                                             \
  { ROW_T, n, w, o }
#define D(o, n, w)                                                             \
  { ROW_D, n, w, o }
#define A0(o, n, w)                                                            \
  { ROW_A0, n, w, o }
#define A1(o, n, w)                                                            \
  { ROW_A1, n, w, o }
#define E(i, o, n, w)                                                          \
  { ROW_E, n, w, i }
#define ES(i, o, n, w)                                                         \
  { ROW_ES, n, w, ((i) << 16) | (o) }
#define OP(o, k, b)                                                            \
  { ROW_OP, k, b, o }
#define B(b, o, n, w)                                                          \
  { ROW_B0 + (b), n, w, o }

typedef struct cb_rows cb_rows;
struct cb_rows {
  cb_proc *pr;
  cb_lt m;
  bool trace; /* false: no layout, no traffic (OP rows still run) */
  uint64_t C, arg[2];
  const uint64_t *blk;
  void (*op)(cb_rows *r, const cb_row *t);
};

/* for a call with pointer arguments a0, a1 */
void cb_rows_init(cb_rows *r, cb_proc *pr, uint64_t a0, uint64_t a1);
void cb_rows_run(cb_rows *r, const cb_row *t, size_t n);
#define CB_ROWS(r, t) cb_rows_run(r, t, sizeof t / sizeof t[0])

#endif
