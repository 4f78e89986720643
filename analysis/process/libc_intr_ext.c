/* libc_intr_ext.c: the value intrinsics clang emits for C beyond the
 * classic set of libc.c: saturating arithmetic, bit reversal, the
 * rounding family (nearbyint, roundeven, lround/llround/lrint/llrint),
 * IEEE 754-2019 minimum/maximum, and exp2/log2/log10; scalars and vectors
 * (one result per lane, the scalar operands shared by every lane). None
 * makes memory traffic of its own: the backend expands each inline, or
 * calls libm (exp2, log2, log10), whose values the host's glibc 2.36 gives
 * bit for bit. */
#include <math.h>

#include "libc_internal.h"

/* The lane of argument k that lane i reads (a scalar operand of a vector
 * intrinsic, such as lround's, is one slot). */
static const cb_value *lane(const cb_value *const *v, const uint8_t *alanes,
                            uint32_t k, unsigned i) {
  return alanes[k] > 1 ? &v[k][i] : &v[k][0];
}

static void put(cb_value *r, unsigned ty, double d) {
  if (ty == CB_TY_F32) {
    r->u = 0;
    r->f = (float)d;
  } else {
    r->d = d;
  }
}

/* LLVM's llvm.minimum/maximum (IEEE 754-2019 minimum/maximum): a NaN
 * operand gives NaN, and -0.0 orders below +0.0. */
static double min_max(double x, double y, bool is_max) {
  if (isnan(x) || isnan(y))
    return x + y;
  if (x == y && x == 0)
    return (signbit(x) != 0) == is_max ? y : x;
  return (x > y) == is_max ? x : y;
}

static uint64_t bit_reverse(uint64_t x, unsigned b) {
  uint64_t r = 0;
  for (unsigned k = 0; k < b; k++)
    r |= ((x >> k) & 1) << (b - 1 - k);
  return r;
}

cb_stop cb_intrinsic_ext(cb_proc *pr, uint32_t id, const cb_op *op,
                         const cb_value *const *v, const uint8_t *aty,
                         const uint8_t *alanes, uint32_t n, cb_value *r) {
  unsigned ty = op->ty, l = op->lanes ? op->lanes : 1;
  unsigned t0 = n ? aty[0] : ty;
  if (n == 0)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "intrinsic #%u without operands", id);
  for (unsigned i = 0; i < l; i++) {
    const cb_value *x = lane(v, alanes, 0, i);
    const cb_value *y = n > 1 ? lane(v, alanes, 1, i) : x;
    double dx = t0 == CB_TY_F32 ? (double)x->f : x->d;
    double dy = t0 == CB_TY_F32 ? (double)y->f : y->d;
    uint64_t m = cb_ty_mask(ty);
    uint64_t ux = x->u & m, uy = y->u & m;
    unsigned b = ibits(ty);
    switch ((cb_intrinsic)id) {
    case CB_INTR_SADD_SAT:
    case CB_INTR_SSUB_SAT: {
      /* two's complement in b bits, clamped to [min, max] */
      __int128 s = id == CB_INTR_SADD_SAT ? (__int128)isx(ux, ty) + isx(uy, ty)
                                          : (__int128)isx(ux, ty) - isx(uy, ty);
      __int128 hi = ((__int128)1 << (b - 1)) - 1, lo = -hi - 1;
      s = s > hi ? hi : s < lo ? lo : s;
      r[i].u = (uint64_t)s & m;
      break;
    }
    case CB_INTR_BITREVERSE:
      r[i].u = bit_reverse(ux, b);
      break;
    case CB_INTR_NEARBYINT:
      /* the default rounding mode, as rint: the two differ only in the
       * inexact flag */
      put(&r[i], ty,
          t0 == CB_TY_F32 ? (double)nearbyintf(x->f) : nearbyint(dx));
      break;
    case CB_INTR_ROUNDEVEN:
      put(&r[i], ty,
          t0 == CB_TY_F32 ? (double)roundevenf(x->f) : roundeven(dx));
      break;
    case CB_INTR_MINIMUM:
    case CB_INTR_MAXIMUM:
      put(&r[i], ty, min_max(dx, dy, id == CB_INTR_MAXIMUM));
      break;
    case CB_INTR_EXP2:
      put(&r[i], ty, t0 == CB_TY_F32 ? (double)exp2f(x->f) : exp2(dx));
      break;
    case CB_INTR_LOG2:
      put(&r[i], ty, t0 == CB_TY_F32 ? (double)log2f(x->f) : log2(dx));
      break;
    case CB_INTR_LOG10:
      put(&r[i], ty, t0 == CB_TY_F32 ? (double)log10f(x->f) : log10(dx));
      break;
    case CB_INTR_LROUND:
    case CB_INTR_LLROUND:
    case CB_INTR_LRINT:
    case CB_INTR_LLRINT: {
      /* x86-64 lowers these to libm's lround/llround and to cvtsd2si
       * (lrint): an out-of-range or NaN value gives the "integer
       * indefinite" 0x80...0 of the result's width, as glibc's do */
      bool rnd = id == CB_INTR_LROUND || id == CB_INTR_LLROUND;
      double k = rnd ? round(dx) : rint(dx);
      double lim = ldexp(1.0, (int)b - 1);
      uint64_t res;
      if (isnan(k) || k >= lim || k < -lim)
        res = 1ull << (b - 1);
      else
        res = (uint64_t)(int64_t)k;
      r[i].u = res & m;
      break;
    }
    default:
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "intrinsic #%u is not modelled", id);
    }
  }
  return CB_GO;
}
