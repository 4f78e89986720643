/* engine_wide.c: CB_OP_WIDE, the operations on wide values (program.h):
 * integers of any width up to CB_WIDE_MAX_BITS kept as 64-bit limbs in
 * consecutive slots, and x87's 80-bit long double kept in two slots.
 *
 * Integers are computed limb by limb (two's complement, results masked to
 * their width), which is what LLVM's type legalization makes the machine
 * code compute; 128-bit division goes through the host's __int128, whose
 * quotient is the same exact one as compiler-rt's or libgcc's __udivti3.
 *
 * long double is computed with the host's long double, the same x87
 * format and instructions as the analysed program's (this file is built
 * with -ffp-contract=off like the rest, and x87 has no fused operation;
 * Linux starts processes in the x87's 64-bit-significand precision), so
 * each result is bit for bit the program's. Conversions that C leaves
 * undefined (a value out of the integer's range) give x87's "integer
 * indefinite", as fistp does. */
#include "engine_internal.h"

#include "cbana/libc_names.h"

#include <math.h>
#include <string.h>

#define WL ((CB_WIDE_MAX_BITS + 63) / 64)

typedef struct wint {
  uint64_t w[WL];
} wint;

static unsigned limbs(unsigned bits) {
  return bits ? (bits + 63) / 64 : 1;
}

/* Clears the bits at and above `bits`. */
static void wmask(wint *x, unsigned bits) {
  for (unsigned i = 0; i < WL; i++) {
    if (i * 64 >= bits)
      x->w[i] = 0;
    else if (bits - i * 64 < 64)
      x->w[i] &= (1ull << (bits - i * 64)) - 1;
  }
}

static void wget(wint *x, const cb_value *v, unsigned bits) {
  unsigned k = limbs(bits);
  memset(x, 0, sizeof *x);
  for (unsigned i = 0; i < k; i++)
    x->w[i] = v[i].u;
  wmask(x, bits);
}

static void wput(cb_value *d, wint *x, unsigned bits) {
  wmask(x, bits);
  for (unsigned i = 0; i < limbs(bits); i++)
    d[i].u = x->w[i];
}

static bool wsign(const wint *x, unsigned bits) {
  return bits && (x->w[(bits - 1) / 64] >> ((bits - 1) % 64) & 1);
}

/* Sign-extends x from `bits` to all limbs. */
static void wsext(wint *x, unsigned bits) {
  if (!wsign(x, bits))
    return;
  for (unsigned i = 0; i < WL; i++) {
    if (i * 64 >= bits)
      x->w[i] = ~0ull;
    else if (bits - i * 64 < 64)
      x->w[i] |= ~0ull << (bits - i * 64);
  }
}

static void wneg(wint *x) {
  unsigned carry = 1;
  for (unsigned i = 0; i < WL; i++) {
    uint64_t v = ~x->w[i] + carry;
    carry = carry && v == 0;
    x->w[i] = v;
  }
}

static int wcmp_u(const wint *a, const wint *b) {
  for (unsigned i = WL; i-- > 0;)
    if (a->w[i] != b->w[i])
      return a->w[i] < b->w[i] ? -1 : 1;
  return 0;
}

static bool wzero(const wint *a) {
  for (unsigned i = 0; i < WL; i++)
    if (a->w[i])
      return false;
  return true;
}

static void wshl(wint *x, unsigned n) {
  wint r;
  memset(&r, 0, sizeof r);
  unsigned q = n / 64, s = n % 64;
  for (unsigned i = WL; i-- > q;) {
    uint64_t v = x->w[i - q] << s;
    if (s && i - q > 0)
      v |= x->w[i - q - 1] >> (64 - s);
    r.w[i] = v;
  }
  *x = r;
}

/* Logical right shift of all limbs; fill: the bits shifted in. */
static void wshr(wint *x, unsigned n, uint64_t fill) {
  wint r;
  unsigned q = n / 64, s = n % 64;
  for (unsigned i = 0; i < WL; i++) {
    uint64_t lo = i + q < WL ? x->w[i + q] : fill;
    uint64_t hi = i + q + 1 < WL ? x->w[i + q + 1] : fill;
    r.w[i] = s ? lo >> s | hi << (64 - s) : lo;
  }
  *x = r;
}

/* Unsigned long division of magnitudes, bit by bit (widths over 128). */
static void wdivmod(const wint *n, const wint *d, unsigned bits, wint *q,
                    wint *r) {
  memset(q, 0, sizeof *q);
  memset(r, 0, sizeof *r);
  for (unsigned i = bits; i-- > 0;) {
    wshl(r, 1);
    r->w[0] |= n->w[i / 64] >> (i % 64) & 1;
    if (wcmp_u(r, d) >= 0) {
      uint64_t borrow = 0;
      for (unsigned k = 0; k < WL; k++) {
        uint64_t a = r->w[k], b = d->w[k];
        uint64_t v = a - b - borrow;
        borrow = (a < b) || (a - b < borrow);
        r->w[k] = v;
      }
      q->w[i / 64] |= 1ull << (i % 64);
    }
  }
}

static unsigned __int128 to_u128(const wint *x) {
  return (unsigned __int128)x->w[1] << 64 | x->w[0];
}

static void from_u128(wint *x, unsigned __int128 v) {
  memset(x, 0, sizeof *x);
  x->w[0] = (uint64_t)v;
  x->w[1] = (uint64_t)(v >> 64);
}

/* Integer division and remainder; false for a zero divisor. The quotient
 * of the most negative value by -1 wraps (x86's idiv would trap: LLVM
 * calls it undefined, and compiler-rt's __divti3 wraps). */
static bool wdiv(unsigned code, wint *a, wint *b, unsigned bits, wint *r) {
  if (wzero(b))
    return false;
  bool sgn = code == CB_OP_SDIV || code == CB_OP_SREM;
  bool na = false, nb = false;
  if (sgn) {
    na = wsign(a, bits);
    nb = wsign(b, bits);
    wsext(a, bits);
    wsext(b, bits);
    if (na)
      wneg(a);
    if (nb)
      wneg(b);
    /* magnitudes: the most negative value's, 2^(bits-1), fits too */
    wmask(a, bits);
    wmask(b, bits);
  }
  wint q, m;
  if (bits <= 128) {
    unsigned __int128 x = to_u128(a), y = to_u128(b);
    from_u128(&q, x / y);
    from_u128(&m, x % y);
  } else {
    wdivmod(a, b, bits, &q, &m);
  }
  bool rem = code == CB_OP_UREM || code == CB_OP_SREM;
  *r = rem ? m : q;
  if (sgn && (rem ? na : na != nb))
    wneg(r);
  return true;
}

static bool wint_op(const cb_op *op, const cb_value *av, const cb_value *bv,
                    cb_value *d) {
  unsigned sub = CB_WIDE_SUB(op->aux), rb = CB_WIDE_RBITS(op->aux),
           ob = CB_WIDE_OBITS(op->aux);
  wint a, b, r;
  wget(&a, av, ob);
  if (bv)
    wget(&b, bv, ob);
  else
    memset(&b, 0, sizeof b);
  unsigned k = limbs(rb);
  switch (sub) {
  case CB_OP_ADD: {
    uint64_t c = 0;
    for (unsigned i = 0; i < k; i++) {
      uint64_t s = a.w[i] + b.w[i];
      uint64_t c2 = s < a.w[i];
      s += c;
      c2 |= s < c;
      r.w[i] = s;
      c = c2;
    }
    break;
  }
  case CB_OP_SUB: {
    uint64_t br = 0;
    for (unsigned i = 0; i < k; i++) {
      uint64_t x = a.w[i], y = b.w[i];
      r.w[i] = x - y - br;
      br = (x < y) || (x - y < br);
    }
    break;
  }
  case CB_OP_MUL:
    memset(&r, 0, sizeof r);
    for (unsigned i = 0; i < k; i++) {
      uint64_t carry = 0;
      for (unsigned j = 0; i + j < k; j++) {
        unsigned __int128 t =
            (unsigned __int128)a.w[i] * b.w[j] + r.w[i + j] + carry;
        r.w[i + j] = (uint64_t)t;
        carry = (uint64_t)(t >> 64);
      }
    }
    break;
  case CB_OP_UDIV:
  case CB_OP_SDIV:
  case CB_OP_UREM:
  case CB_OP_SREM:
    if (!wdiv(sub, &a, &b, rb, &r))
      return false;
    break;
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR: {
    /* a shift by the width or more is poison in LLVM: any value will do */
    bool big = false;
    for (unsigned i = 1; i < WL; i++)
      big |= b.w[i] != 0;
    unsigned n = big || b.w[0] >= rb ? rb : (unsigned)b.w[0];
    r = a;
    if (sub == CB_OP_SHL) {
      wshl(&r, n);
    } else {
      uint64_t fill = 0;
      if (sub == CB_OP_ASHR && wsign(&r, rb)) {
        wsext(&r, rb);
        fill = ~0ull;
      }
      wshr(&r, n, fill);
    }
    break;
  }
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
    for (unsigned i = 0; i < WL; i++)
      r.w[i] = sub == CB_OP_AND  ? a.w[i] & b.w[i]
               : sub == CB_OP_OR ? a.w[i] | b.w[i]
                                 : a.w[i] ^ b.w[i];
    break;
  case CB_OP_ICMP: {
    unsigned pred = CB_WIDE_PRED(op->aux);
    int c;
    if (pred >= CB_ICMP_SGT) {
      bool sa = wsign(&a, ob), sb = wsign(&b, ob);
      c = sa != sb ? (sa ? -1 : 1) : wcmp_u(&a, &b);
    } else {
      c = wcmp_u(&a, &b);
    }
    bool t;
    switch (pred) {
    case CB_ICMP_EQ:
      t = c == 0;
      break;
    case CB_ICMP_NE:
      t = c != 0;
      break;
    case CB_ICMP_UGT:
    case CB_ICMP_SGT:
      t = c > 0;
      break;
    case CB_ICMP_UGE:
    case CB_ICMP_SGE:
      t = c >= 0;
      break;
    case CB_ICMP_ULT:
    case CB_ICMP_SLT:
      t = c < 0;
      break;
    default:
      t = c <= 0;
      break;
    }
    d[0].u = t;
    return true;
  }
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
    r = a;
    break;
  case CB_OP_SEXT:
    r = a;
    wsext(&r, ob);
    break;
  default:
    r = a;
    break;
  }
  wput(d, &r, rb);
  return true;
}

/* ---- floating point --------------------------------------------------- */

static long double fp_get(unsigned ty, const cb_value *v) {
  if (ty == CB_TY_F32)
    return v->f;
  if (ty == CB_TY_F64)
    return v->d;
  long double x = 0;
  memcpy(&x, v, 10);
  return x;
}

static void fp_put(unsigned ty, cb_value *d, long double x) {
  if (ty == CB_TY_F32) {
    d->u = 0;
    d->f = (float)x;
  } else if (ty == CB_TY_F64) {
    d->d = (double)x;
  } else {
    d[0].u = d[1].u = 0;
    memcpy(d, &x, 10);
  }
}

static bool fcmp_ld(unsigned pred, long double a, long double b) {
  /* LLVM's encoding: 1 equal, 2 greater, 4 less, 8 unordered */
  unsigned r = (isnan(a) || isnan(b)) ? 8 : a < b ? 4 : a == b ? 1 : 2;
  return (pred & r) != 0;
}

/* The integer of `bits` bits (as a wide value) that C's conversion of x
 * gives; out of range, x87's integer indefinite (the sign bit alone). */
static void fp_to_int(long double x, bool sgn, unsigned bits, wint *r) {
  memset(r, 0, sizeof *r);
  long double t = truncl(x);
  bool ok;
  if (bits > 128)
    bits = 128; /* the frontend refuses wider conversions */
  long double lim = ldexpl(1.0L, (int)bits - (sgn ? 1 : 0));
  ok = !isnan(t) && t < lim && (sgn ? t >= -lim : t > -1.0L);
  if (!ok) {
    /* an unsigned conversion of a negative value in the signed range
     * wraps, as the machine code's signed conversion does */
    if (!sgn && !isnan(t) && t < 0 && t >= -ldexpl(1.0L, (int)bits - 1))
      ok = true;
    else {
      r->w[(bits - 1) / 64] = 1ull << ((bits - 1) % 64);
      return;
    }
  }
  if (t < 0) {
    unsigned __int128 m = (unsigned __int128)(-t);
    from_u128(r, m);
    wneg(r);
  } else {
    from_u128(r, (unsigned __int128)t);
  }
}

static long double int_to_fp(const wint *x, bool sgn, unsigned bits,
                             unsigned ty) {
  wint v = *x;
  bool neg = sgn && wsign(&v, bits);
  if (neg) {
    wsext(&v, bits);
    wneg(&v);
  }
  /* the magnitude fits 128 bits up to i128 (the frontend refuses wider
   * conversions) */
  unsigned __int128 m = to_u128(&v);
  /* convert in the result's type: one rounding, as the program's
   * conversion (cvtsi2sd, fild, __floattidf/xf) */
  if (ty == CB_TY_F32) {
    float f = (float)m;
    return neg ? -f : f;
  }
  if (ty == CB_TY_F64) {
    double f = (double)m;
    return neg ? -f : f;
  }
  long double f = (long double)m;
  return neg ? -f : f;
}

/* The long double intrinsics x86-64's backend computes inline (the
 * frontend makes the others libm calls): fabs, fsqrt, the sign bit's
 * copy, and fmuladd as an fmul and an fadd (x87 has no fused form). */
static void wfp_intrinsic(unsigned id, const cb_value *av, const cb_value *bv,
                          const cb_value *cv, cb_value *d) {
  long double x = fp_get(CB_TY_F80, av), r;
  switch (id) {
  case CB_INTR_FABS:
    r = fabsl(x);
    break;
  case CB_INTR_SQRT:
    r = sqrtl(x);
    break;
  case CB_INTR_COPYSIGN:
    r = copysignl(x, fp_get(CB_TY_F80, bv));
    break;
  default: { /* CB_INTR_FMULADD */
    long double p = x * fp_get(CB_TY_F80, bv);
    r = p + fp_get(CB_TY_F80, cv);
    break;
  }
  }
  fp_put(CB_TY_F80, d, r);
}

static void wfp_op(const cb_op *op, const cb_value *av, const cb_value *bv,
                   const cb_value *cv, cb_value *d) {
  unsigned sub = CB_WIDE_SUB(op->aux);
  switch (sub) {
  case CB_OP_CALL:
    wfp_intrinsic(CB_WIDE_RBITS(op->aux), av, bv, cv, d);
    return;
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM: {
    long double x = fp_get(op->ty, av), y = fp_get(op->ty, bv), z;
    z = sub == CB_OP_FADD   ? x + y
        : sub == CB_OP_FSUB ? x - y
        : sub == CB_OP_FMUL ? x * y
        : sub == CB_OP_FDIV ? x / y
                            : fmodl(x, y);
    fp_put(op->ty, d, z);
    return;
  }
  case CB_OP_FNEG:
    fp_put(op->ty, d, -fp_get(op->ty, av));
    return;
  case CB_OP_FCMP:
    d[0].u = fcmp_ld(CB_WIDE_PRED(op->aux), fp_get(op->ty2, av),
                     fp_get(op->ty2, bv));
    return;
  case CB_OP_FPTRUNC:
  case CB_OP_FPEXT:
    fp_put(op->ty, d, fp_get(op->ty2, av));
    return;
  case CB_OP_FPTOSI:
  case CB_OP_FPTOUI: {
    wint r;
    unsigned rb = CB_WIDE_RBITS(op->aux);
    fp_to_int(fp_get(op->ty2, av), sub == CB_OP_FPTOSI, rb, &r);
    if (rb > 128 && sub == CB_OP_FPTOSI)
      wsext(&r, 128);
    wput(d, &r, rb);
    return;
  }
  case CB_OP_SITOFP:
  case CB_OP_UITOFP: {
    wint x;
    unsigned ob = CB_WIDE_OBITS(op->aux);
    wget(&x, av, ob);
    fp_put(op->ty, d, int_to_fp(&x, sub == CB_OP_SITOFP, ob, op->ty));
    return;
  }
  default:
    return;
  }
}

static bool is_fp_sub(unsigned sub) {
  switch (sub) {
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
  case CB_OP_FNEG:
  case CB_OP_FCMP:
  case CB_OP_FPTRUNC:
  case CB_OP_FPEXT:
  case CB_OP_FPTOSI:
  case CB_OP_FPTOUI:
  case CB_OP_SITOFP:
  case CB_OP_UITOFP:
  case CB_OP_CALL:
    return true;
  default:
    return false;
  }
}

bool cb_wide_exec(const cb_op *op, const cb_value *a, const cb_value *b,
                  const cb_value *c, cb_value *d) {
  /* into a copy: the destination's slots are the value's own (SSA), but
   * a hand-built Program may reuse an operand's */
  cb_value r[WL];
  unsigned n = op->lanes ? op->lanes : 1;
  if (n > WL)
    n = WL;
  memset(r, 0, sizeof r);
  if (is_fp_sub(CB_WIDE_SUB(op->aux)))
    wfp_op(op, a, b, c, r);
  else if (!wint_op(op, a, b, r))
    return false;
  memcpy(d, r, n * sizeof *r);
  return true;
}
