/* complex.c: the complex multiplication and division that clang calls
 * for _Complex float, _Complex double and _Complex long double (__mulsc3,
 * __muldc3, __mulxc3, __divsc3, __divdc3, __divxc3), which the real
 * executable takes from libgcc (GCC 12 on
 * Debian bookworm). cbana compiles this file to bitcode when it builds
 * (frontend/CMakeLists.txt) and links it into a Program that calls one of
 * them, so that the engine runs them as the compiled code they are.
 *
 * Multiplication follows C11 Annex G.5.1 (the _Cmultd example): the
 * schoolbook product, and when both parts come out NaN, infinities are
 * recovered by boxing infinite operands to +-1 and NaN operands to +-0.
 * Division follows libgcc 12 (libgcc2.c, the scaled Smith method of
 * "Practical improvement to libgcc complex divide", 2021): scaled so that
 * neither the ratio nor the denominator over- or underflows, then Annex
 * G.5.1's recovery of infinities and zeros. Single precision divides in
 * double, as libgcc does where the target has hardware double; long double
 * (x87's 80-bit format) uses the same code as double with its own bounds.
 * The values are bit for bit libgcc's (x86-64 evaluates in the operands'
 * precision, x87's control word at 64-bit mantissas,
 * no excess precision, no contraction into FMA; the build compiles this
 * file without vectorizing, which would negate a NaN operand), but for
 * the sign of a NaN result computed from two NaN operands, which x86 takes
 * from the first operand of each instruction, an order GCC's register
 * allocation chose in libgcc. */

#include <float.h>

typedef _Complex float cfloat;
typedef _Complex double cdouble;
typedef _Complex long double cldouble;

#define IS_NAN(x) ((x) != (x))
#define IS_INF(x) (!IS_NAN(x) && IS_NAN((x) - (x)))
#define IS_FINITE(x) (!IS_NAN((x) - (x)))

/* The sign of s on the magnitude of m (m >= 0). */
static inline double sign_of_d(double m, double s) {
  return __builtin_copysign(m, s);
}

static inline long double sign_of_x(long double m, long double s) {
  return __builtin_copysignl(m, s);
}

static inline float sign_of_f(float m, float s) {
  return __builtin_copysignf(m, s);
}

static inline cdouble make_d(double re, double im) {
  cdouble z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

static inline cldouble make_x(long double re, long double im) {
  cldouble z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

static inline cfloat make_f(float re, float im) {
  cfloat z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

/* (a + ib) * (c + id), for double (d) and long double (x) */
#define DEFINE_MUL(NAME, T, CT, SFX, INF)                                      \
  CT NAME(T a, T b, T c, T d) {                                                \
    T ac = a * c, bd = b * d, ad = a * d, bc = b * c;                          \
    T re = ac - bd, im = ad + bc;                                              \
    if (!(IS_NAN(re) && IS_NAN(im)))                                           \
      return make_##SFX(re, im);                                               \
    int again = 0;                                                             \
    if (IS_INF(a) || IS_INF(b)) {                                              \
      /* the first factor is infinite: box it, zero the other's NaNs */        \
      a = sign_of_##SFX(IS_INF(a) ? 1 : 0, a);                                 \
      b = sign_of_##SFX(IS_INF(b) ? 1 : 0, b);                                 \
      if (IS_NAN(c))                                                           \
        c = sign_of_##SFX(0, c);                                               \
      if (IS_NAN(d))                                                           \
        d = sign_of_##SFX(0, d);                                               \
      again = 1;                                                               \
    }                                                                          \
    if (IS_INF(c) || IS_INF(d)) {                                              \
      c = sign_of_##SFX(IS_INF(c) ? 1 : 0, c);                                 \
      d = sign_of_##SFX(IS_INF(d) ? 1 : 0, d);                                 \
      if (IS_NAN(a))                                                           \
        a = sign_of_##SFX(0, a);                                               \
      if (IS_NAN(b))                                                           \
        b = sign_of_##SFX(0, b);                                               \
      again = 1;                                                               \
    }                                                                          \
    if (!again && (IS_INF(ac) || IS_INF(bd) || IS_INF(ad) || IS_INF(bc))) {    \
      /* an overflow to infinity: the NaNs came from inf - inf */              \
      if (IS_NAN(a))                                                           \
        a = sign_of_##SFX(0, a);                                               \
      if (IS_NAN(b))                                                           \
        b = sign_of_##SFX(0, b);                                               \
      if (IS_NAN(c))                                                           \
        c = sign_of_##SFX(0, c);                                               \
      if (IS_NAN(d))                                                           \
        d = sign_of_##SFX(0, d);                                               \
      again = 1;                                                               \
    }                                                                          \
    if (again) {                                                               \
      re = INF * (a * c - b * d);                                              \
      im = INF * (a * d + b * c);                                              \
    }                                                                          \
    return make_##SFX(re, im);                                                 \
  }

DEFINE_MUL(__muldc3, double, cdouble, d, __builtin_inf())
DEFINE_MUL(__mulxc3, long double, cldouble, x, __builtin_infl())

cfloat __mulsc3(float a, float b, float c, float d) {
  float ac = a * c, bd = b * d, ad = a * d, bc = b * c;
  float re = ac - bd, im = ad + bc;
  if (!(IS_NAN(re) && IS_NAN(im)))
    return make_f(re, im);
  int again = 0;
  if (IS_INF(a) || IS_INF(b)) {
    a = sign_of_f(IS_INF(a) ? 1.0f : 0.0f, a);
    b = sign_of_f(IS_INF(b) ? 1.0f : 0.0f, b);
    if (IS_NAN(c))
      c = sign_of_f(0.0f, c);
    if (IS_NAN(d))
      d = sign_of_f(0.0f, d);
    again = 1;
  }
  if (IS_INF(c) || IS_INF(d)) {
    c = sign_of_f(IS_INF(c) ? 1.0f : 0.0f, c);
    d = sign_of_f(IS_INF(d) ? 1.0f : 0.0f, d);
    if (IS_NAN(a))
      a = sign_of_f(0.0f, a);
    if (IS_NAN(b))
      b = sign_of_f(0.0f, b);
    again = 1;
  }
  if (!again && (IS_INF(ac) || IS_INF(bd) || IS_INF(ad) || IS_INF(bc))) {
    if (IS_NAN(a))
      a = sign_of_f(0.0f, a);
    if (IS_NAN(b))
      b = sign_of_f(0.0f, b);
    if (IS_NAN(c))
      c = sign_of_f(0.0f, c);
    if (IS_NAN(d))
      d = sign_of_f(0.0f, d);
    again = 1;
  }
  if (again) {
    re = __builtin_inff() * (a * c - b * d);
    im = __builtin_inff() * (a * d + b * c);
  }
  return make_f(re, im);
}

/* The scaling bounds of libgcc 12's division (libgcc2.c), per type:
 * half the largest value, the smallest normal, the machine epsilon,
 * 1/epsilon, and the product of the first and third. */
#define D_BIG (DBL_MAX / 2)
#define D_MIN DBL_MIN
#define D_MIN2 DBL_EPSILON
#define D_MINSCAL (1 / DBL_EPSILON)
#define D_MAX2 (D_BIG * D_MIN2)
#define X_BIG (LDBL_MAX / 2)
#define X_MIN LDBL_MIN
#define X_MIN2 LDBL_EPSILON
#define X_MINSCAL (1 / LDBL_EPSILON)
#define X_MAX2 (X_BIG * X_MIN2)

static inline double fabs_d(double x) {
  return __builtin_fabs(x);
}

static inline long double fabs_x(long double x) {
  return __builtin_fabsl(x);
}

/* Annex G.5.1's recovery when both parts came out NaN: a nonzero over
 * zero, an infinity over a finite, a finite over an infinity. */
#define DEFINE_DIV_RECOVER(T, CT, SFX, INF)                                    \
  static inline CT div_recover_##SFX(T a, T b, T c, T d, T re, T im) {         \
    if (!(IS_NAN(re) && IS_NAN(im)))                                           \
      return make_##SFX(re, im);                                               \
    if (c == 0 && d == 0 && (!IS_NAN(a) || !IS_NAN(b))) {                      \
      re = sign_of_##SFX(INF, c) * a;                                          \
      im = sign_of_##SFX(INF, c) * b;                                          \
    } else if ((IS_INF(a) || IS_INF(b)) && IS_FINITE(c) && IS_FINITE(d)) {     \
      a = sign_of_##SFX(IS_INF(a) ? 1 : 0, a);                                 \
      b = sign_of_##SFX(IS_INF(b) ? 1 : 0, b);                                 \
      re = INF * (a * c + b * d);                                              \
      im = INF * (b * c - a * d);                                              \
    } else if ((IS_INF(c) || IS_INF(d)) && IS_FINITE(a) && IS_FINITE(b)) {     \
      c = sign_of_##SFX(IS_INF(c) ? 1 : 0, c);                                 \
      d = sign_of_##SFX(IS_INF(d) ? 1 : 0, d);                                 \
      re = (T)0 * (a * c + b * d);                                             \
      im = (T)0 * (b * c - a * d);                                             \
    }                                                                          \
    return make_##SFX(re, im);                                                 \
  }

/* (a + ib) / (c + id). The operands are scaled in place, and the
 * recovery sees the scaled ones, as libgcc's does. */
#define DEFINE_DIV(NAME, T, CT, SFX, P)                                        \
  CT NAME(T a, T b, T c, T d) {                                                \
    T re, im;                                                                  \
    /* the larger of |c| and |d| (q) divides the other */                      \
    int d_larger = fabs_##SFX(c) < fabs_##SFX(d);                              \
    if (fabs_##SFX(d_larger ? d : c) >= P##_BIG) {                             \
      /* halve everything: the denominator would overflow */                   \
      a = a / 2;                                                               \
      b = b / 2;                                                               \
      c = c / 2;                                                               \
      d = d / 2;                                                               \
    }                                                                          \
    T q = fabs_##SFX(d_larger ? d : c);                                        \
    int up;                                                                    \
    if (q < P##_MIN2)                                                          \
      up = 1; /* c and d both tiny: scale up, no overflow possible */          \
    else                                                                       \
      up = (fabs_##SFX(a) < P##_MIN && fabs_##SFX(b) < P##_MAX2 &&             \
            q < P##_MAX2) ||                                                   \
           (fabs_##SFX(b) < P##_MIN && fabs_##SFX(a) < P##_MAX2 &&             \
            q < P##_MAX2);                                                     \
    if (up) {                                                                  \
      a = a * P##_MINSCAL;                                                     \
      b = b * P##_MINSCAL;                                                     \
      c = c * P##_MINSCAL;                                                     \
      d = d * P##_MINSCAL;                                                     \
    }                                                                          \
    if (d_larger) {                                                            \
      T ratio = c / d;                                                         \
      T denom = (c * ratio) + d;                                               \
      if (fabs_##SFX(ratio) > P##_MIN) {                                       \
        re = ((a * ratio) + b) / denom;                                        \
        im = ((b * ratio) - a) / denom;                                        \
      } else {                                                                 \
        /* a subnormal ratio loses bits: divide by d first */                  \
        re = ((c * (a / d)) + b) / denom;                                      \
        im = ((c * (b / d)) - a) / denom;                                      \
      }                                                                        \
    } else {                                                                   \
      T ratio = d / c;                                                         \
      T denom = (d * ratio) + c;                                               \
      if (fabs_##SFX(ratio) > P##_MIN) {                                       \
        re = ((b * ratio) + a) / denom;                                        \
        im = (b - (a * ratio)) / denom;                                        \
      } else {                                                                 \
        re = (a + (d * (b / c))) / denom;                                      \
        im = (b - (d * (a / c))) / denom;                                      \
      }                                                                        \
    }                                                                          \
    return div_recover_##SFX(a, b, c, d, re, im);                              \
  }

DEFINE_DIV_RECOVER(double, cdouble, d, __builtin_inf())
DEFINE_DIV_RECOVER(long double, cldouble, x, __builtin_infl())
DEFINE_DIV(__divdc3, double, cdouble, d, D)
DEFINE_DIV(__divxc3, long double, cldouble, x, X)

cfloat __divsc3(float a, float b, float c, float d) {
  /* in double, rounded once to float at the end */
  double ad = a, bd = b, cd = c, dd = d;
  double denom = (cd * cd) + (dd * dd);
  float re = (float)(((ad * cd) + (bd * dd)) / denom);
  float im = (float)(((bd * cd) - (ad * dd)) / denom);
  if (!(IS_NAN(re) && IS_NAN(im)))
    return make_f(re, im);
  if (c == 0.0f && d == 0.0f && (!IS_NAN(a) || !IS_NAN(b))) {
    re = sign_of_f(__builtin_inff(), c) * a;
    im = sign_of_f(__builtin_inff(), c) * b;
  } else if ((IS_INF(a) || IS_INF(b)) && IS_FINITE(c) && IS_FINITE(d)) {
    a = sign_of_f(IS_INF(a) ? 1.0f : 0.0f, a);
    b = sign_of_f(IS_INF(b) ? 1.0f : 0.0f, b);
    re = __builtin_inff() * (a * c + b * d);
    im = __builtin_inff() * (b * c - a * d);
  } else if ((IS_INF(c) || IS_INF(d)) && IS_FINITE(a) && IS_FINITE(b)) {
    c = sign_of_f(IS_INF(c) ? 1.0f : 0.0f, c);
    d = sign_of_f(IS_INF(d) ? 1.0f : 0.0f, d);
    re = 0.0f * (a * c + b * d);
    im = 0.0f * (b * c - a * d);
  }
  return make_f(re, im);
}
