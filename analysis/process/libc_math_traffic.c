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

/* ---- the wrappers' errno checks (math/w_exp_template.c and the
 * GLIBC_2.29 exp and pow, which set errno when a finite argument gives
 * an infinite, NaN or zero result) ---- */
static bool finite_(double x) {
  return fabs(x) <= 0x1.fffffffffffffp1023;
}

static int wrap_exp(double x, double ret) {
  if (finite_(ret) && ret != 0)
    return 0;
  return finite_(x) ? 2 : 1;
}

static int wrap_pow(double x, double y, double ret) {
  if (finite_(ret) && ret != 0)
    return 0;
  if (!finite_(ret))
    return finite_(x) && finite_(y) ? 2 : 1;
  return finite_(x) && x != 0 && finite_(y) ? 2 : 1;
}

/* ---- exp (e_exp.c) and pow's exp_inline (e_pow.c) ---- */
#define EXP_DATA 0xab20u /* __exp_data - 0xa0000 */
#define EXP_INVLN2N 0x40671547652b82feull
#define EXP_SHIFT 0x4338000000000000ull

/* kd = InvLn2N * x + Shift (one vfmadd); the entries T[2 (ki % N)] and
 * T[2 (ki % N) + 1] */
static uint32_t exp_entry(double x) {
  uint64_t ki = bits(fma(x, dbl(EXP_INVLN2N), dbl(EXP_SHIFT)));
  return 0xa0000u + EXP_DATA + 16u * (uint32_t)(ki & 127);
}

/* the paths of exp's and exp_inline's special cases: 0 the table alone,
 * 1 1 + x (tiny, or inf and NaN for exp), 2 0 (-inf), 3 __math_uflow,
 * 4 __math_oflow, 5 specialcase with k > 0 (its __math_check_oflow: 6
 * when the result is infinite), 7 specialcase with k < 0 and a result
 * of 2^-1022 and up, 8 below that (y < 1), 9 below and 0 */
static int exp_core(double x, double ret, bool inner_pow, uint32_t *idx) {
  uint32_t abstop = (uint32_t)(bits(x) >> 52) & 0x7ff;
  if (abstop - 0x3c9 >= 0x3f) {
    if ((int32_t)(abstop - 0x3c9) < 0)
      return 1;
    if (abstop >= 0x409) {
      if (!inner_pow) {
        if (bits(x) == 0xfff0000000000000ull)
          return 2;
        if (abstop == 0x7ff)
          return 1;
      }
      return bits(x) >> 63 ? 3 : 4;
    }
    idx[0] = exp_entry(x);
    uint64_t ki = bits(fma(x, dbl(EXP_INVLN2N), dbl(EXP_SHIFT)));
    if (!(ki & 0x80000000))
      return isinf(ret) ? 6 : 5;
    if (fabs(ret) >= 0x1p-1022)
      return 7;
    return ret == 0 ? 9 : 8;
  }
  idx[0] = exp_entry(x);
  return 0;
}

/* ---- exp2 (e_exp2.c: the generic code, no wrapper) ---- */
static int exp2_(double x, double ret, uint32_t *idx) {
  uint64_t ix = bits(x);
  uint32_t abstop = (uint32_t)(ix >> 52) & 0x7ff;
  bool special = false;
  if (abstop - 0x3c9 >= 0x3f) {
    if ((int32_t)(abstop - 0x3c9) < 0)
      return 1;
    if (abstop >= 0x409) {
      if (ix == 0xfff0000000000000ull)
        return 2;
      if (abstop == 0x7ff)
        return 10;
      if (!(ix >> 63))
        return 4;
      if (ix >= 0xc090cc0000000000ull) /* x <= -1075 */
        return 3;
    }
    special = 2 * ix > 2 * 0x408d000000000000ull; /* |x| > 928 */
  }
  uint64_t ki = bits(x + 0x1.8p45);
  idx[0] = 0xa0000u + EXP_DATA + 16u * (uint32_t)(ki & 127);
  if (!special)
    return 0;
  if (!(ki & 0x80000000))
    return isinf(ret) ? 6 : 5;
  if (fabs(ret) >= 0x1p-1022)
    return 7;
  return ret == 0 ? 9 : 8;
}

/* ---- log (e_log.c) ---- */
#define LOG_DATA 0xab3a0u

static int log_(double x, uint32_t *idx) {
  uint64_t ix = bits(x);
  uint32_t top = (uint32_t)(ix >> 48);
  if (ix - 0x3fee000000000000ull <
      0x3ff1090000000000ull - 0x3fee000000000000ull)
    return ix == 0x3ff0000000000000ull ? 0 : 1;
  int path = 2;
  if (top - 0x0010 >= 0x7ff0 - 0x0010) {
    if (ix * 2 == 0)
      return 3;
    if (ix == 0x7ff0000000000000ull)
      return 4;
    if ((top & 0x8000) || (top & 0x7ff0) == 0x7ff0)
      return isnan(x) ? 5 : 6;
    ix = bits(x * 0x1p52) - (52ull << 52);
    path = 7;
  }
  uint64_t tmp = ix - 0x3fe6000000000000ull;
  uint32_t i = (uint32_t)(tmp >> 45) % 128;
  idx[0] = LOG_DATA + 16u * i;
  return path;
}

/* ---- pow (e_pow.c) ---- */
#define POW_LOG_DATA 0xacce0u

/* log_inline(ix) as __ieee754_pow_fma computes it, with __pow_log_data's
 * constants and entries (libc_math_tables.h); *tail its low part */
static double pow_log(uint64_t ix, double *tail, uint32_t *entry) {
  uint64_t tmp = ix + 0xc0196aab00000000ull;
  uint32_t i = (uint32_t)(tmp >> 45) & 0x7f;
  double kd = (double)(int32_t)((int64_t)tmp >> 52);
  *entry = POW_LOG_DATA + 0x48u + 32u * i;
  double invc = dbl(lm_pow_tab[i][0]), logc = dbl(lm_pow_tab[i][1]);
  double logctail = dbl(lm_pow_tab[i][2]);
  double z = dbl(ix - (tmp & 0xfff0000000000000ull));
  double r = fma(z, invc, -1.0);
  double t1 = fma(kd, dbl(lm_pow_c[0]), logc);
  double lo1 = fma(kd, dbl(lm_pow_c[1]), logctail);
  double ar = r * dbl(lm_pow_c[2]);
  double a12 = fma(r, dbl(lm_pow_c[4]), dbl(lm_pow_c[3]));
  double a34 = fma(r, dbl(lm_pow_c[6]), dbl(lm_pow_c[5]));
  double t2 = r + t1;
  double ar2 = r * ar;
  double ar3 = r * ar2;
  double lo3 = fma(ar, r, -ar2);
  double lo2 = (t1 - t2) + r;
  double a56 = fma(r, dbl(lm_pow_c[8]), dbl(lm_pow_c[7]));
  double hi = t2 + ar2;
  double p = fma(a56, ar2, a34);
  double lo4 = (t2 - hi) + ar2;
  p = fma(ar2, p, a12);
  double lo = lo1 + lo2;
  lo = lo + lo3;
  lo = lo + lo4;
  lo = fma(ar3, p, lo);
  double y = hi + lo;
  *tail = (hi - y) + lo;
  return y;
}

/* checkint: 0 not an integer, 1 odd, 2 even; *how: which of its
 * returns gave it (0 to 4) */
static int checkint(uint64_t iy, int *how, uint32_t *idx) {
  int e = (int)(iy >> 52 & 0x7ff);
  /* the parity test is a `bt` on registers, which valgrind's VEX (so
   * cachegrind too) does through a spill below the stack and a byte read
   * at the bit's byte: idx[3] that byte */
  idx[3] = e <= 0x433 ? (uint32_t)(0x433 - e) >> 3 : 0;
  *how = 0;
  if (e < 0x3ff)
    return 0;
  *how = 1;
  if (e > 0x3ff + 52)
    return 2;
  *how = 2;
  if (iy & ((1ull << (0x3ff + 52 - e)) - 1))
    return 0;
  *how = 3;
  if (iy & (1ull << (0x3ff + 52 - e)))
    return 1;
  *how = 4;
  return 2;
}

static bool zeroinfnan(uint64_t i) {
  return 2 * i - 1 >= 2 * 0x7ff0000000000000ull - 1;
}

/* pow's path: 200 + exp_core's for the main one (plus 20 to 60 when
 * x < 0 by checkint's answer, 100 when x is subnormal), below 100 its
 * special cases */
static int pow_inner(double x, double y, double ret, uint32_t *idx) {
  uint64_t ix = bits(x), iy = bits(y);
  uint32_t topx = (uint32_t)(ix >> 52), topy = (uint32_t)(iy >> 52);
  int flags = 0;
  if (topx - 0x001 >= 0x7ff - 0x001 ||
      (topy & 0x7ff) - 0x3be >= 0x43e - 0x3be) {
    if (zeroinfnan(iy)) {
      if (2 * iy == 0)
        return 1;
      if (ix == 0x3ff0000000000000ull)
        return 2;
      if (2 * ix > 2 * 0x7ff0000000000000ull ||
          2 * iy > 2 * 0x7ff0000000000000ull)
        return 3;
      if (2 * ix == 2 * 0x3ff0000000000000ull)
        return 4;
      if ((2 * ix < 2 * 0x3ff0000000000000ull) == !(iy >> 63))
        return 5;
      return 6;
    }
    if (zeroinfnan(ix)) {
      /* x < 0 asks checkint(y); an odd y negates x * x */
      int how = -1;
      if (ix >> 63)
        checkint(iy, &how, idx);
      if (2 * ix == 0 && iy >> 63)
        return 8 + how;
      return 14 + 2 * how + (int)(iy >> 63);
    }
    if (ix >> 63) {
      int how, yint = checkint(iy, &how, idx);
      if (yint == 0)
        return 24 + how;
      flags = yint == 1 ? 20 : 40 + 20 * (how == 4);
      ix &= 0x7fffffffffffffffull;
      topx &= 0x7ff;
    }
    if ((topy & 0x7ff) - 0x3be >= 0x43e - 0x3be) {
      if (ix == 0x3ff0000000000000ull)
        return 27 + flags;
      if ((topy & 0x7ff) < 0x3be)
        return (ix > 0x3ff0000000000000ull ? 28 : 29) + flags;
      return ((ix > 0x3ff0000000000000ull) == (topy < 0x800) ? 30 : 31) + flags;
    }
    if (topx == 0) {
      ix = bits(x * 0x1p52) & 0x7fffffffffffffffull;
      ix -= 52ull << 52;
      flags += 100;
    }
  }
  double tail;
  double hi = pow_log(ix, &tail, &idx[1]);
  double ehi = y * hi;
  (void)tail;
  return 200 + flags + exp_core(ehi, ret, true, idx);
}

/* ---- atan (s_atan.c; glibc 2.35 dropped its slow paths) ---- */
#define ATAN_CIJ 0xb92a0u /* cij[i][7] */
#define TWO52 0x1p52

/* i = (TWO52 + TWO8 * u) - TWO52 - 16: cij's row */
static uint32_t atan_row(double u) {
  int i = (int)(fma(u, 256.0, TWO52) - TWO52) - 16;
  return ATAN_CIJ + 56u * (uint32_t)i;
}

static int atan_(double x, uint32_t *idx) {
  if (isnan(x))
    return 0;
  double u = fabs(x);
  if (u < 1.0) {
    if (u < 0.0625)
      return u < 0x1.bb67ap-27 ? 1 : 2;
    idx[0] = atan_row(u);
    return 3;
  }
  if (u < 16.0) {
    idx[0] = atan_row(1.0 / u);
    return 4;
  }
  return u < 0x1.49ff2p+52 ? 5 : 6;
}

/* ---- asin (e_asin.c without its slow paths, glibc 2.35) ---- */
#define ASIN_ASNCS 0xb0d80u
#define ASIN_INROOT 0xb0980u
#define ASIN_POWTWO 0xb08a0u

/* 2 * range + (x < 0): each range of |x| has its asncs rows (n) */
static int asin_(double x, uint32_t *idx) {
  uint32_t k = hi32(x) & 0x7fffffff;
  int neg = signbit(x) != 0;
  int n, range;
  if (k < 0x3e500000)
    return 0;
  if (k < 0x3fc00000)
    return 1;
  if (fabs(x) > 1.0)
    return -1; /* the wrapper's __kernel_standard */
  if (k < 0x3fd00000) {
    n = 11 * (int)((k & 0x000fffff) >> 15);
    range = 1;
  } else if (k < 0x3fe00000) {
    n = 11 * (int)((k & 0x000fffff) >> 14) + 352;
    range = 2;
  } else if (k < 0x3fe80000) {
    n = 1056 + (int)((k & 0x000fe000) >> 11) * 3;
    range = 3;
  } else if (k < 0x3fed8000) {
    n = 992 + (int)((k & 0x000fe000) >> 13) * 13;
    range = 4;
  } else if (k < 0x3fee8000) {
    n = 884 + (int)((k & 0x000fe000) >> 13) * 14;
    range = 5;
  } else if (k < 0x3fef0000) {
    n = 768 + (int)((k & 0x000fe000) >> 13) * 15;
    range = 6;
  } else if (k < 0x3ff00000) {
    uint64_t z = bits((1.0 - fabs(x)) * 0.5);
    idx[0] = ASIN_INROOT + 8u * (uint32_t)((z >> 46) & 0x7f);
    idx[1] = ASIN_POWTWO + 8u * (uint32_t)(0x1ff - (z >> 53));
    return 14 + neg;
  } else if (lo32(x) == 0 && k == 0x3ff00000) {
    return 16 + neg;
  } else {
    return isnan(x) ? 18 : -1;
  }
  idx[0] = ASIN_ASNCS + 8u * (uint32_t)n;
  return 2 * range + neg;
}

/* ---- acos (e_asin.c's __ieee754_acos without its slow paths, glibc
 * 2.36): asin's ranges and tables (asncs, inroot, powtwo, static in the
 * same file), a smaller first threshold (|x| < 2^-55 returns hp0), and
 * the sign taking its own code in every range (m > 0 or m < 0) ---- */
static int acos_(double x, uint32_t *idx) {
  uint32_t k = hi32(x) & 0x7fffffff;
  int neg = signbit(x) != 0;
  if (k < 0x3c880000)
    return 0;
  if (k < 0x3fc00000)
    return 1;
  if (fabs(x) > 1.0)
    return -1; /* the wrapper's __kernel_standard */
  if (k < 0x3ff00000 && k >= 0x3fef0000) {
    /* 0.96875 <= |x| < 1: z = (1 -+ x) / 2, its root from the tables */
    uint64_t z = bits(0.5 * (neg ? 1.0 + x : 1.0 - x));
    idx[0] = ASIN_INROOT + 8u * (uint32_t)((z >> 46) & 0x7f);
    idx[1] = ASIN_POWTWO + 8u * (uint32_t)(0x1ff - (z >> 53));
    return 14 + neg;
  }
  if (k >= 0x3ff00000)
    return lo32(x) == 0 && k == 0x3ff00000 ? 16 + neg : isnan(x) ? 18 : -1;
  /* 0.125 <= |x| < 0.96875: asin's rows of asncs */
  return asin_(x, idx);
}

/* ---- atan2 (e_atan2.c without its slow paths, glibc 2.35, and the
 * wrapper math/w_atan2_compat.c) ---- */
#define ATAN2_CIJ 0xb5dc0u

/* the IEEE function's path: below 32 the special cases in the order
 * e_atan2.c tests them; 32 + 8 quadrant + 2 (table) + 4 * scaled */
static int atan2_core(double y, double x, uint32_t *idx) {
  int32_t ux = (int32_t)hi32(x), uy = (int32_t)hi32(y);
  uint32_t dy = lo32(y);
  if (isnan(x))
    return 0;
  if (isnan(y))
    return 1;
  if ((uint32_t)uy == 0 && dy == 0)
    return ux < 0 ? 3 : 2;
  if ((uint32_t)uy == 0x80000000u && dy == 0)
    return ux < 0 ? 5 : 4;
  if (x == 0) { /* the compiled code tests y's high word, and y = inf */
    if (((uint32_t)uy & 0x7fffffff) == 0)
      return uy < 0 ? 27 : 26;
    return (uy < 0 ? 7 : 6) + 24 * (isinf(y) != 0);
  }
  if (isinf(x)) {
    if (isinf(y))
      return 8 + 2 * (x < 0) + (y < 0);
    return 12 + 2 * (x < 0) + (uy < 0);
  }
  if (isinf(y))
    return 16 + (y < 0);
  int32_t de = (uy & 0x7ff00000) - (ux & 0x7ff00000);
  if (de >= 59768832)
    return 18 + (y <= 0);
  double ax = fabs(x), ay = fabs(y);
  if (de <= -59768832) {
    if (x > 0)
      return ay / ax < 0x1p-1022 ? -1 : 20; /* normalized: not measured */
    return 21 + (y <= 0);
  }
  int scaled = 0;
  if (ax < 0x1p-500 || ay < 0x1p-500) {
    ax *= 0x1p500;
    ay *= 0x1p500;
    scaled |= 1;
  }
  if (ax > 0x1p500 || ay > 0x1p500) {
    ax *= 0x1p-500;
    ay *= 0x1p-500;
    scaled |= 2;
  }
  double u = ay < ax ? ay / ax : ax / ay;
  int quad = x > 0 ? (ay < ax ? 0 : 1) : (ax < ay ? 2 : 3);
  int tab = u >= 0.0625;
  if (tab) {
    int i = (int)(fma(u, 256.0, TWO52) - TWO52) - 16;
    idx[0] = ATAN2_CIJ + 56u * (uint32_t)i;
  }
  return 32 + 8 * quad + 2 * tab + (y < 0) + 32 * scaled;
}

static int atan2_(double y, double x, double ret, uint32_t *idx) {
  int core = atan2_core(y, x, idx);
  if (core < 0)
    return -1;
  /* a y with a zero high word (a tiny subnormal) takes the compiled
   * code's branch for y = 0's low word */
  if (core > 1 && (hi32(y) & 0x7fffffff) == 0 && y != 0)
    core += 200;
  int pre = x == 0 && y == 0;
  int post = ret == 0 && y != 0 ? 1 + finite_(x) : 0;
  return 8 * core + 4 * pre + post;
}

/* ---- fmod (e_fmod.c, glibc 2.36's integer loop; the wrapper
 * math/w_fmod_compat.c) ---- */
#define FMOD_ZERO 0x90680u /* Zero[2] */

static int fmod_(double x, double y, double ret, uint32_t *idx) {
  if (!finite_(x) || y == 0 || isnan(y))
    return -1; /* the wrapper's _LIB_VERSION test, __kernel_standard */
  if (ret != 0 || fabs(x) < fabs(y))
    return 0;
  idx[0] = FMOD_ZERO + 8u * (signbit(x) != 0);
  return 1; /* Zero[sign of x] */
}

/* ---- hypot (sysdeps/ieee754/dbl-64/e_hypot.c, no wrapper since 2.35;
 * cabs jumps to it): a leaf that loads its constants (LARGE_VAL 0x1p511,
 * TINY_VAL 0x1p-459, EPS 0x1p-54, SCALE 0x1p-600 read in libm's .rodata).
 * Finite arguments, ax the larger magnitude: with ax <= LARGE_VAL and
 * ay >= TINY_VAL, ax + ay when ay <= ax * EPS (path 0), else the kernel,
 * whose h > 2 ay branch loads 4.0 (path 2; path 1 without); with ay tiny,
 * ax + ay when ax >= ay / EPS (path 3), else the kernel on the scaled
 * values (paths 4 and 5, 5 with 4.0). Not finite: 7 when x or y is an
 * infinity and x is not a signalling NaN (INFINITY's load), else 6. The
 * huge paths (ax > LARGE_VAL) are not modelled. ---- */
static int hypot_kernel_far(double ax, double ay) {
  /* the kernel's sum of squares as the code computes it: two products,
   * one sum, no fused step */
  volatile double p = ax * ax, q = ay * ay;
  double h = sqrt(p + q);
  return ay + ay < h;
}

static int hypot_(double x, double y) {
  if (!finite_(x) || !finite_(y)) {
    uint64_t bx = bits(x);
    bool snan_x = isnan(x) && !(bx & 0x8000000000000ull);
    return (isinf(x) || isinf(y)) && !snan_x ? 7 : 6;
  }
  double ax = fabs(x), ay = fabs(y);
  if (ay > ax) {
    double t = ax;
    ax = ay;
    ay = t;
  }
  if (ax > 0x1p511)
    return -1;
  if (ay < 0x1p-459) {
    if (ax >= ay * 0x1p54)
      return 3;
    return 4 + hypot_kernel_far(ax * 0x1p600, ay * 0x1p600);
  }
  if (ax * 0x1p-54 >= ay)
    return 0;
  return 1 + hypot_kernel_far(ax, ay);
}

int cb_libm_path(uint32_t fn, const double *a, double ret,
                 uint32_t idx[CB_LM_NIDX]) {
  memset(idx, 0, CB_LM_NIDX * sizeof *idx);
  switch (fn) {
  case CB_LIBC_SIN:
    return sin_cos(a[0], false, idx);
  case CB_LIBC_COS:
    return sin_cos(a[0], true, idx);
  case CB_LIBC_EXP:
    return 3 * exp_core(a[0], ret, false, idx) + wrap_exp(a[0], ret);
  case CB_LIBC_LOG:
    return log_(a[0], idx);
  case CB_LIBC_EXP2:
    return exp2_(a[0], ret, idx);
  case CB_LIBC_ATAN:
    return atan_(a[0], idx);
  case CB_LIBC_ASIN:
    return asin_(a[0], idx);
  case CB_LIBC_ACOS:
    return acos_(a[0], idx);
  case CB_LIBC_ATAN2:
    return atan2_(a[0], a[1], ret, idx);
  case CB_LIBC_FMOD:
    return fmod_(a[0], a[1], ret, idx);
  case CB_LIBC_POW:
    return 3 * pow_inner(a[0], a[1], ret, idx) + wrap_pow(a[0], a[1], ret);
  case CB_LIBC_HYPOT:
  case CB_LIBC_CABS:
    return hypot_(a[0], a[1]);
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
static uint64_t libm_base(cb_proc *pr, uint64_t *tp) {
  const cb_program *p = pr->p;
  uint64_t ldso, lmap, tcb = 0, obj[CB_DL_MAX_OBJS];
  uint64_t libm = 0;
  if (p->dl && cb_eng_dl_layout(p, &ldso, &lmap, &tcb, obj))
    for (uint32_t i = 1; i < p->dl->n_objs && i < CB_DL_MAX_OBJS; i++)
      if (!strncmp(p->dl->objs[i].soname, "libm.so", 7))
        libm = pr->dl_obj[i] ? pr->dl_obj[i] : obj[i];
  if (!libm && pr->libc_base)
    libm = pr->libc_base - 0xe0000;
  if (pr->dl_tcb)
    tcb = pr->dl_tcb;
  /* the thread pointer in the page after the last library (layout.c) */
  *tp = tcb ? tcb + 0x740 : 0;
  return libm;
}

void cb_libm_traffic(cb_proc *pr, uint32_t fn, const double *a, double ret) {
  if (!pr->libm_base)
    pr->libm_base = libm_base(pr, &pr->libm_tp);
  uint64_t L = pr->libm_base, C = cb_libc_caller_sp(pr);
  uint32_t idx[CB_LM_NIDX];
  if (fn == CB_LIBC_CABS)
    fn = CB_LIBC_HYPOT; /* cabs: jmp __hypot */
  int path = cb_libm_path(fn, a, ret, idx);
  size_t n;
  const cb_lm_row *r = path >= 0 ? cb_libm_rows(fn, path, &n) : NULL;
  if (!r || !L || !C || !pr->libm_tp)
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
      at = pr->libm_tp + (uint64_t)(int64_t)r[i].off;
      break;
    case CB_LM_Z:
      at = C - (uint64_t)(int64_t)r[i].off + idx[3];
      break;
    default:
      at = L + idx[r[i].base - CB_LM_X0] + (uint64_t)(int64_t)r[i].off;
      break;
    }
    cb_libc_acc(pr, at, r[i].len, r[i].write);
  }
}
