/* engine_scalar.h: the interpreter's scalar operations on one lane:
 * sign extension, comparisons, integer and floating-point arithmetic,
 * casts, bit casts, loads and stores of a lane, the path signature's mix.
 * static inline: the interpreter loop (engine_interp.c) inlines them.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_ENGINE_SCALAR_H
#define CBANA_ANALYSIS_ENGINE_SCALAR_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "engine_internal.h"
#include "sse_fp.h"

static inline int64_t sx(uint64_t v, unsigned ty) {
  unsigned s = cb_ty_sx_shift(ty);
  return (int64_t)(v << s) >> s;
}

static inline int64_t sxbits(uint64_t v, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return (int64_t)v;
  unsigned s = 64 - bits;
  return (int64_t)(v << s) >> s;
}

static inline void fp_put_f(cb_value *d, float f) {
  d->u = 0;
  d->f = f;
}

static inline bool fcmp(unsigned pred, double a, double b) {
  /* LLVM's encoding (the enum order of cb_fcmp): 1 equal, 2 greater,
   * 4 less, 8 unordered */
  unsigned r = (isnan(a) || isnan(b)) ? 8 : a < b ? 4 : a == b ? 1 : 2;
  return (pred & r) != 0;
}

static inline bool icmp(unsigned pred, uint64_t a, uint64_t b, unsigned ty) {
  switch (pred) {
  case CB_ICMP_EQ:
    return a == b;
  case CB_ICMP_NE:
    return a != b;
  case CB_ICMP_UGT:
    return a > b;
  case CB_ICMP_UGE:
    return a >= b;
  case CB_ICMP_ULT:
    return a < b;
  case CB_ICMP_ULE:
    return a <= b;
  case CB_ICMP_SGT:
    return sx(a, ty) > sx(b, ty);
  case CB_ICMP_SGE:
    return sx(a, ty) >= sx(b, ty);
  case CB_ICMP_SLT:
    return sx(a, ty) < sx(b, ty);
  default:
    return sx(a, ty) <= sx(b, ty);
  }
}

/* Integer binary op on one lane; false on division by zero. */
static inline bool ibin(unsigned code, unsigned ty, uint64_t a, uint64_t b,
                        uint64_t *r) {
  uint64_t m = cb_ty_mask(ty);
  unsigned bits = ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
  switch (code) {
  case CB_OP_ADD:
    *r = (a + b) & m;
    return true;
  case CB_OP_SUB:
    *r = (a - b) & m;
    return true;
  case CB_OP_MUL:
    *r = (a * b) & m;
    return true;
  case CB_OP_UDIV:
    if (!b)
      return false;
    *r = (a / b) & m;
    return true;
  case CB_OP_UREM:
    if (!b)
      return false;
    *r = (a % b) & m;
    return true;
  case CB_OP_SDIV: {
    int64_t x = sx(a, ty), y = sx(b, ty);
    if (!y)
      return false;
    *r = (y == -1 ? (uint64_t)0 - (uint64_t)x : (uint64_t)(x / y)) & m;
    return true;
  }
  case CB_OP_SREM: {
    int64_t x = sx(a, ty), y = sx(b, ty);
    if (!y)
      return false;
    *r = (y == -1 ? 0 : (uint64_t)(x % y)) & m;
    return true;
  }
  case CB_OP_SHL:
    *r = (a << (b & (bits - 1))) & m;
    return true;
  case CB_OP_LSHR:
    *r = (a >> (b & (bits - 1))) & m;
    return true;
  case CB_OP_ASHR:
    *r = (uint64_t)(sx(a, ty) >> (b & (bits - 1))) & m;
    return true;
  case CB_OP_AND:
    *r = a & b;
    return true;
  case CB_OP_OR:
    *r = a | b;
    return true;
  default:
    *r = a ^ b;
    return true;
  }
}

static inline void fbin(unsigned code, unsigned ty, const cb_value *a,
                        const cb_value *b, cb_value *r) {
  if (ty == CB_TY_F32) {
    float x = a->f, y = b->f, z;
    switch (code) {
    case CB_OP_FADD:
      z = fadd_f(x, y);
      break;
    case CB_OP_FSUB:
      z = fsub_f(x, y);
      break;
    case CB_OP_FMUL:
      z = fmul_f(x, y);
      break;
    case CB_OP_FDIV:
      z = fdiv_f(x, y);
      break;
    default:
      z = fmodf(x, y);
      break;
    }
    fp_put_f(r, z);
  } else {
    double x = a->d, y = b->d;
    switch (code) {
    case CB_OP_FADD:
      r->d = fadd_d(x, y);
      break;
    case CB_OP_FSUB:
      r->d = fsub_d(x, y);
      break;
    case CB_OP_FMUL:
      r->d = fmul_d(x, y);
      break;
    case CB_OP_FDIV:
      r->d = fdiv_d(x, y);
      break;
    default:
      r->d = fmod(x, y);
      break;
    }
  }
}

static inline int64_t fp_to_si(double v) {
  if (v != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return INT64_MIN; /* x86's "integer indefinite" */
  return (int64_t)v;
}

static inline uint64_t fp_to_ui(double v) {
  if (v != v || v >= 18446744073709551616.0 || v <= -1.0)
    return v <= -1.0 && v > -9223372036854775808.0 ? (uint64_t)(int64_t)v
                                                   : 0x8000000000000000ull;
  if (v >= 9223372036854775808.0)
    return (uint64_t)(v - 9223372036854775808.0) + 0x8000000000000000ull;
  return (uint64_t)(int64_t)v;
}

static inline void cast1(unsigned code, unsigned ty, unsigned ty2,
                         const cb_value *a, cb_value *r) {
  double d;
  switch (code) {
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    r->u = a->u & cb_ty_mask(ty);
    break;
  case CB_OP_SEXT:
    r->u = (uint64_t)sx(a->u, ty2) & cb_ty_mask(ty);
    break;
  case CB_OP_FPTRUNC:
    fp_put_f(r, (float)a->d);
    break;
  case CB_OP_FPEXT:
    r->d = (double)a->f;
    break;
  case CB_OP_FPTOUI:
    d = ty2 == CB_TY_F32 ? (double)a->f : a->d;
    r->u = fp_to_ui(d) & cb_ty_mask(ty);
    break;
  case CB_OP_FPTOSI:
    d = ty2 == CB_TY_F32 ? (double)a->f : a->d;
    r->u = (uint64_t)fp_to_si(d) & cb_ty_mask(ty);
    break;
  case CB_OP_UITOFP:
    if (ty == CB_TY_F32)
      fp_put_f(r, (float)(a->u & cb_ty_mask(ty2)));
    else
      r->d = (double)(a->u & cb_ty_mask(ty2));
    break;
  case CB_OP_SITOFP:
    if (ty == CB_TY_F32)
      fp_put_f(r, (float)sx(a->u, ty2));
    else
      r->d = (double)sx(a->u, ty2);
    break;
  }
}

static inline unsigned ty_bits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
}

/* Reinterprets the bits of `lanes_in` values of ty2 as values of ty. */
static inline void bitcast(unsigned ty, unsigned lanes, unsigned ty2,
                           const cb_value *a, cb_value *r) {
  unsigned ob = ty_bits(ty), ib = ty_bits(ty2);
  unsigned total = ob * lanes, in_lanes = ib ? total / ib : 0;
  uint8_t buf[2048] = {0};
  if (total > sizeof buf * 8)
    return;
  for (unsigned i = 0; i < in_lanes; i++) {
    uint64_t v = a[i].u;
    if (ty2 == CB_TY_F32) {
      uint32_t w;
      memcpy(&w, &a[i].f, 4);
      v = w;
    }
    for (unsigned bit = 0; bit < ib; bit++)
      if (v >> bit & 1) {
        unsigned pos = i * ib + bit;
        buf[pos / 8] |= (uint8_t)(1u << (pos % 8));
      }
  }
  for (unsigned i = 0; i < lanes; i++) {
    uint64_t v = 0;
    for (unsigned bit = 0; bit < ob; bit++) {
      unsigned pos = i * ob + bit;
      if (buf[pos / 8] >> (pos % 8) & 1)
        v |= 1ull << bit;
    }
    if (ty == CB_TY_F32) {
      uint32_t w = (uint32_t)v;
      r[i].u = 0;
      memcpy(&r[i].f, &w, 4);
    } else {
      r[i].u = v;
    }
  }
}

static inline void load_lane(cb_value *d, const uint8_t *pp, unsigned ty) {
  switch (ty) {
  case CB_TY_I1:
    d->u = pp[0] & 1;
    break;
  case CB_TY_I8:
    d->u = pp[0];
    break;
  case CB_TY_I16: {
    uint16_t v;
    memcpy(&v, pp, 2);
    d->u = v;
    break;
  }
  case CB_TY_I32: {
    uint32_t v;
    memcpy(&v, pp, 4);
    d->u = v;
    break;
  }
  case CB_TY_F32:
    d->u = 0;
    memcpy(&d->f, pp, 4);
    break;
  case CB_TY_F80: /* two slots (program.h, wide values) */
    d[0].u = d[1].u = 0;
    memcpy(d, pp, 10);
    break;
  default:
    memcpy(&d->u, pp, 8);
    break;
  }
}

static inline void store_lane(uint8_t *pp, const cb_value *v, unsigned ty) {
  switch (ty) {
  case CB_TY_I1:
  case CB_TY_I8:
    pp[0] = (uint8_t)v->u;
    break;
  case CB_TY_I16: {
    uint16_t x = (uint16_t)v->u;
    memcpy(pp, &x, 2);
    break;
  }
  case CB_TY_I32: {
    uint32_t x = (uint32_t)v->u;
    memcpy(pp, &x, 4);
    break;
  }
  case CB_TY_F32:
    memcpy(pp, &v->f, 4);
    break;
  case CB_TY_F80:
    memcpy(pp, v, 10);
    break;
  default:
    memcpy(pp, &v->u, 8);
    break;
  }
}

/* The path signature hashes the sequence of branch outcomes as runs of
 * equal outcomes (outcome, length), which identify the sequence as well,
 * so that a loop template adds its k iterations' outcomes at once. */
static inline void sig_flush(cb_eng *e) {
  if (e->sig_n) { /* program.h: the kernels mix too */
    e->out->path_signature =
        cb_path_sig_run(e->out->path_signature, e->sig_v, e->sig_n);
  }
  e->sig_n = 0;
}
static inline void sig_add(cb_eng *e, uint64_t v, uint64_t n) {
  if (e->sig_n && v != e->sig_v)
    sig_flush(e);
  e->sig_v = v;
  e->sig_n += n;
}

#endif
