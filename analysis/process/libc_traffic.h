/* libc_traffic.h: the measured traffic tables of glibc's functions
 * (libc_malloc_tables.h, libc_stdio_tables.h) and their emitter, shared by
 * libc_malloc_traffic.c and libc_stdio_traffic.c; internal to the analysis
 * module. A row is one access as lackey traced it: a base (below a frame
 * base on the stack, in libc, in ld.so, in the TLS page, or relative to an
 * address the caller gives), an offset, a size and a direction. */
#ifndef CBANA_LIBC_TRAFFIC_H
#define CBANA_LIBC_TRAFFIC_H

#include "libc_internal.h"

typedef struct lt_acc {
  uint8_t base; /* LT_* */
  uint8_t len, write;
  uint32_t off;
} lt_acc;

/* S: base - off (the stack); L, D, T: libc, ld.so, the TLS page + off;
 * V, P, F: the given address + off */
enum { LT_S, LT_L, LT_D, LT_T, LT_V, LT_P, LT_F, LT_NBASES };

#define S(o, n, w)                                                             \
  { LT_S, n, w, o }
#define L(o, n, w)                                                             \
  { LT_L, n, w, o }
#define D(o, n, w)                                                             \
  { LT_D, n, w, o }
#define T(o, n, w)                                                             \
  { LT_T, n, w, o }
#define V(o, n, w)                                                             \
  { LT_V, n, w, o }
#define P(o, n, w)                                                             \
  { LT_P, n, w, o }
#define F(o, n, w)                                                             \
  { LT_F, n, w, o }

/* where libc, ld.so and the TLS page are in the modelled process */
typedef struct cb_lt {
  cb_proc *pr;
  uint64_t libc, tcb, ldso;
} cb_lt;

/* false when the layout is unknown (then no traffic is emitted) */
bool cb_lt_init(cb_lt *m, cb_proc *pr);
/* one access of the library call running */
void cb_lt_acc(cb_lt *m, uint64_t a, unsigned n, bool w);
/* n pushes from B - 0x10 down; their pops (and the `ret`'s read) */
void cb_lt_pushes(cb_lt *m, uint64_t B, unsigned n);
void cb_lt_pops(cb_lt *m, uint64_t B, unsigned n, bool ret);
/* a table's rows, in order; base[LT_S], [LT_V], [LT_P], [LT_F] given */
void cb_lt_table(cb_lt *m, const lt_acc *t, size_t n,
                 const uint64_t base[LT_NBASES]);

/* sscanf's and fscanf's traffic (libc_scanf_traffic.c), step by step as
 * libc_stdio.c's scan converts: `d` the bytes it scans (at `src` for a
 * string), positions are indices into them */
typedef struct cb_sct {
  cb_lt m;
  bool on, string, bytes, first, skipped, pend;
  char conv;
  uint64_t C, B, P, V, R, K, F, src, over;
  unsigned gp;
  const unsigned char *d;
  size_t dlen, pend_pos;
} cb_sct;

/* sscanf on the string at obj, fscanf on the FILE obj, scanf */
enum { CB_SCT_STRING, CB_SCT_STREAM, CB_SCT_STDIN };
bool cb_sct_begin(cb_proc *pr, cb_sct *t, int kind, uint64_t obj, uint64_t fmt);
void cb_sct_string_set(cb_sct *t);
void cb_sct_fmt_space(cb_sct *t, size_t fi, size_t pos);
void cb_sct_fmt_lit(cb_sct *t, size_t fi, size_t pos, bool match);
void cb_sct_spec(cb_sct *t, size_t fi, size_t fc_at, char conv);
void cb_sct_skip(cb_sct *t, size_t from, size_t pos);
void cb_sct_chars(cb_sct *t, size_t pos, size_t n, bool suppress, uint64_t dst,
                  bool width_full);
void cb_sct_number(cb_sct *t, size_t pos, size_t n, bool suppress,
                   bool is_float, bool width_full);
void cb_sct_number_done(cb_sct *t);
void cb_sct_end(cb_sct *t, size_t fi);

#endif
