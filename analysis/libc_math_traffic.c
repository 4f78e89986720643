/* libc_math_traffic.c: the traffic of glibc 2.36's libm functions inside
 * a call (libc_math_traffic.h): each function's path and table entries
 * from its arguments' bits, as glibc's sources compute them
 * (sysdeps/ieee754/dbl-64: s_sin.c, e_exp.c, e_log.c, e_pow.c ...) with
 * the fused multiply-adds the host's FMA variants (__sin_fma, ...) use,
 * and the path's rows, generated from lackey traces
 * (libc_math_tables.h). Offsets are from libm.so.6's load address
 * (Debian 12's glibc 2.36, build id d6e6f9e3...). A path not listed
 * here (e.g. sin's __branred for |x| >= 105414350) emits nothing: its
 * traffic stays unmodelled, as docs/process-model.md 9.4 says. */
#include <math.h>
#include <string.h>

#include "libc_internal.h"
#include "libc_math_traffic.h"

#include "libc_math_tables.h"

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}

static double dbl(uint64_t u) {
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static uint32_t hi32(double x) {
  return (uint32_t)(bits(x) >> 32);
}
static uint32_t lo32(double x) {
  return (uint32_t)bits(x);
}

/* ---- sin, cos (s_sin.c) ---- */
#define SINCOSTAB 0xa9d40u
#define SC_BIG 0x42c8000000000000ull /* 52776558133248.0 */
#define SC_HPINV 0x3fe45f306dc9c883ull
#define SC_TOINT 0x4338000000000000ull
#define SC_MP1 0x3ff921fb58000000ull
#define SC_MP2 0xbe4dde973c000000ull
#define SC_PP3 0xbc8cb3b398000000ull
#define SC_PP4 0xbacd747f23e32ed7ull
#define SC_HP0 0x3ff921fb54442d18ull
#define SC_HP1 0x3c91a62633145c07ull

/* SINCOS_TABLE_LOOKUP's k = u.i[LOW_HALF] << 2 with u = big + |x| */
static uint32_t sc_entry(double ax) {
  int32_t k = (int32_t)(lo32(dbl(SC_BIG) + ax) << 2);
  return SINCOSTAB + 8u * (uint32_t)k;
}

/* reduce_sincos as __sin_fma computes it: a (the high part) and n */
static unsigned sc_reduce(double x, double *a) {
  double t = fma(x, dbl(SC_HPINV), dbl(SC_TOINT));
  double xn = t - dbl(SC_TOINT);
  double y = fma(-xn, dbl(SC_MP2), fma(-xn, dbl(SC_MP1), x));
  double t2 = fma(-xn, dbl(SC_PP3), y);
  *a = fma(-xn, dbl(SC_PP4), t2);
  return lo32(t) & 3;
}

/* do_sin(a): 0 the Taylor polynomial (|a| < 0.126), 1 the table */
static int sc_do_sin(double a, uint32_t *idx) {
  if (fabs(a) < 0.126)
    return 0;
  idx[0] = sc_entry(fabs(a));
  return 1;
}

static int sin_cos(double x, bool cos_, uint32_t *idx) {
  uint32_t k = hi32(x) & 0x7fffffff;
  if (k < (cos_ ? 0x3e400000u : 0x3e500000u))
    return 0;
  if (k < 0x3feb6000) {
    if (cos_) {
      idx[0] = sc_entry(fabs(x));
      return 1;
    }
    return 1 + sc_do_sin(x, idx);
  }
  if (k < 0x400368fd) {
    double t = dbl(SC_HP0) - fabs(x);
    if (!cos_) {
      idx[0] = sc_entry(fabs(t));
      return 3;
    }
    double a = t + dbl(SC_HP1);
    return 4 + sc_do_sin(a, idx);
  }
  if (k < 0x419921fb) {
    double a;
    unsigned n = sc_reduce(x, &a) + cos_;
    if (n & 1) {
      idx[0] = sc_entry(fabs(a));
      return 6 + ((n & 2) != 0);
    }
    return 8 + 2 * ((n & 2) != 0) + sc_do_sin(a, idx);
  }
  if (k < 0x7ff00000)
    return -1; /* __branred */
  return k == 0x7ff00000 && lo32(x) == 0 ? 12 : 13;
}

int cb_libm_path(uint32_t fn, const double *a, double ret,
                 uint32_t idx[CB_LM_NIDX]) {
  (void)ret;
  memset(idx, 0, CB_LM_NIDX * sizeof *idx);
  switch (fn) {
  case CB_LIBC_SIN:
    return sin_cos(a[0], false, idx);
  case CB_LIBC_COS:
    return sin_cos(a[0], true, idx);
  default:
    return -1;
  }
}

const cb_lm_row *cb_libm_rows(uint32_t fn, int path, size_t *n) {
  size_t np;
  const lm_path *t = lm_fn_paths(fn, &np);
  if (path < 0 || (size_t)path >= np || !t[path].rows) {
    *n = 0;
    return NULL;
  }
  *n = t[path].n;
  return t[path].rows;
}

/* libm.so.6's load address: the scope's order (layout.c), else 0xe0000
 * below libc, where cbana's link line maps it (docs/process-model.md 3.3) */
static uint64_t libm_base(cb_eng *e, uint64_t *tp) {
  const cb_program *p = e->p;
  uint64_t ldso, lmap, tcb = 0, obj[CB_DL_MAX_OBJS];
  uint64_t libm = 0;
  if (p->dl && cb_eng_dl_layout(p, &ldso, &lmap, &tcb, obj))
    for (uint32_t i = 1; i < p->dl->n_objs && i < CB_DL_MAX_OBJS; i++)
      if (!strncmp(p->dl->objs[i].soname, "libm.so", 7))
        libm = e->dl_obj[i] ? e->dl_obj[i] : obj[i];
  if (!libm && e->libc_base)
    libm = e->libc_base - 0xe0000;
  if (e->dl_tcb)
    tcb = e->dl_tcb;
  /* the thread pointer in the page after the last library (layout.c) */
  *tp = tcb ? tcb + 0x740 : 0;
  return libm;
}

void cb_libm_traffic(cb_eng *e, uint32_t fn, const double *a, double ret) {
  if (!e->libm_base)
    e->libm_base = libm_base(e, &e->libm_tp);
  uint64_t L = e->libm_base, C = cb_libc_caller_sp(e);
  uint32_t idx[CB_LM_NIDX];
  int path = cb_libm_path(fn, a, ret, idx);
  size_t n;
  const cb_lm_row *r = path >= 0 ? cb_libm_rows(fn, path, &n) : NULL;
  if (!r || !L || !C || !e->libm_tp)
    return;
  for (size_t i = 0; i < n; i++) {
    uint64_t at;
    switch (r[i].base) {
    case CB_LM_S:
      at = C - (uint64_t)(int64_t)r[i].off;
      break;
    case CB_LM_M:
      at = L + (uint64_t)(int64_t)r[i].off;
      break;
    case CB_LM_T:
      at = e->libm_tp + (uint64_t)(int64_t)r[i].off;
      break;
    default:
      at = L + idx[r[i].base - CB_LM_X0] + (uint64_t)(int64_t)r[i].off;
      break;
    }
    cb_libc_acc(e, at, r[i].len, r[i].write);
  }
}
