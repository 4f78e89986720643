/* libc_ldouble.c: C11 <math.h>'s long double functions (acosl to fmal in
 * libc_names.h). Their values come from the host's libm, the same glibc
 * 2.36 as the analysed program's, computing on the same x87 format; a
 * long double argument arrives in two slots (proc.h,
 * call_vals). The traffic of the call itself (return address, PLT, lazy
 * binding) is engine_frames.c's; libm's own accesses are its files',
 * which reports leave out as cachegrind's own-code totals do; the
 * functions that store through a pointer (frexpl, modfl, remquol) make
 * that store, attributed to the call. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* x87's 80-bit format in the first 10 bytes of two slots (program.h). */
long double cb_wide_f80(const cb_value *v) {
  long double x = 0;
  memcpy(&x, v, 10);
  return x;
}

void cb_wide_put_f80(cb_value *d, long double x) {
  d[0].u = d[1].u = 0;
  memcpy(d, &x, 10);
}

static long double arg_ld(const cb_proc *pr, const cb_value *a,
                          const uint8_t *ty, uint32_t n, uint32_t k) {
  if (k >= n)
    return 0;
  if (ty[k] == CB_TY_F80 && pr->call_vals)
    return cb_wide_f80(pr->call_vals[k]);
  if (ty[k] == CB_TY_F32)
    return a[k].f;
  if (ty[k] == CB_TY_F64)
    return a[k].d;
  return (long double)a[k].s;
}

/* A store the function makes through a pointer argument. */
static bool store_out(cb_proc *pr, uint64_t addr, const void *v, size_t len) {
  if (!cb_proc_write(pr, addr, v, len))
    return false;
  cb_proc_lib(pr, addr, len, true);
  return true;
}

typedef long double (*ld1)(long double);
typedef long double (*ld2)(long double, long double);

cb_stop cb_libc_ldouble_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                             const uint8_t *ty, uint32_t n, cb_value *ret) {
  static const ld1 one[CB_LIBC_COUNT] = {
      [CB_LIBC_ACOSL] = acosl,     [CB_LIBC_ASINL] = asinl,
      [CB_LIBC_ATANL] = atanl,     [CB_LIBC_COSL] = cosl,
      [CB_LIBC_SINL] = sinl,       [CB_LIBC_TANL] = tanl,
      [CB_LIBC_ACOSHL] = acoshl,   [CB_LIBC_ASINHL] = asinhl,
      [CB_LIBC_ATANHL] = atanhl,   [CB_LIBC_COSHL] = coshl,
      [CB_LIBC_SINHL] = sinhl,     [CB_LIBC_TANHL] = tanhl,
      [CB_LIBC_EXPL] = expl,       [CB_LIBC_EXP2L] = exp2l,
      [CB_LIBC_EXPM1L] = expm1l,   [CB_LIBC_LOGL] = logl,
      [CB_LIBC_LOG10L] = log10l,   [CB_LIBC_LOG1PL] = log1pl,
      [CB_LIBC_LOG2L] = log2l,     [CB_LIBC_LOGBL] = logbl,
      [CB_LIBC_CBRTL] = cbrtl,     [CB_LIBC_FABSL] = fabsl,
      [CB_LIBC_SQRTL] = sqrtl,     [CB_LIBC_ERFL] = erfl,
      [CB_LIBC_ERFCL] = erfcl,     [CB_LIBC_LGAMMAL] = lgammal,
      [CB_LIBC_TGAMMAL] = tgammal, [CB_LIBC_CEILL] = ceill,
      [CB_LIBC_FLOORL] = floorl,   [CB_LIBC_NEARBYINTL] = nearbyintl,
      [CB_LIBC_RINTL] = rintl,     [CB_LIBC_ROUNDL] = roundl,
      [CB_LIBC_TRUNCL] = truncl,
  };
  static const ld2 two[CB_LIBC_COUNT] = {
      [CB_LIBC_ATAN2L] = atan2l,
      [CB_LIBC_HYPOTL] = hypotl,
      [CB_LIBC_POWL] = powl,
      [CB_LIBC_FMODL] = fmodl,
      [CB_LIBC_REMAINDERL] = remainderl,
      [CB_LIBC_COPYSIGNL] = copysignl,
      [CB_LIBC_NEXTAFTERL] = nextafterl,
      [CB_LIBC_NEXTTOWARDL] = nexttowardl,
      [CB_LIBC_FDIML] = fdiml,
      [CB_LIBC_FMAXL] = fmaxl,
      [CB_LIBC_FMINL] = fminl,
  };
  long double x = arg_ld(pr, a, ty, n, 0), r = 0;
  if (one[fn]) {
    r = one[fn](x);
  } else if (two[fn]) {
    r = two[fn](x, arg_ld(pr, a, ty, n, 1));
  } else {
    switch ((cb_libfn)fn) {
    case CB_LIBC_FMAL:
      r = fmal(x, arg_ld(pr, a, ty, n, 1), arg_ld(pr, a, ty, n, 2));
      break;
    case CB_LIBC_LDEXPL:
      r = ldexpl(x, (int)(uint32_t)a[1].u);
      break;
    case CB_LIBC_SCALBNL:
      r = scalbnl(x, (int)(uint32_t)a[1].u);
      break;
    case CB_LIBC_SCALBLNL:
      r = scalblnl(x, (long)a[1].s);
      break;
    case CB_LIBC_ILOGBL:
      ret[0].u = (uint32_t)ilogbl(x);
      return CB_GO;
    case CB_LIBC_LRINTL:
      ret[0].s = lrintl(x);
      return CB_GO;
    case CB_LIBC_LLRINTL:
      ret[0].s = llrintl(x);
      return CB_GO;
    case CB_LIBC_LROUNDL:
      ret[0].s = lroundl(x);
      return CB_GO;
    case CB_LIBC_LLROUNDL:
      ret[0].s = llroundl(x);
      return CB_GO;
    case CB_LIBC_FREXPL: {
      int ex = 0;
      r = frexpl(x, &ex);
      if (!store_out(pr, a[1].u, &ex, sizeof ex))
        return CB_FAIL;
      break;
    }
    case CB_LIBC_MODFL: {
      long double ip = 0;
      r = modfl(x, &ip);
      if (!store_out(pr, a[1].u, &ip, 10)) /* fstp tbyte */
        return CB_FAIL;
      break;
    }
    case CB_LIBC_REMQUOL: {
      int q = 0;
      r = remquol(x, arg_ld(pr, a, ty, n, 1), &q);
      if (!store_out(pr, a[2].u, &q, sizeof q))
        return CB_FAIL;
      break;
    }
    case CB_LIBC_NANL: {
      size_t len = 0;
      char *tag = cb_proc_read_str(pr, a[0].u, 4096, &len);
      if (!tag)
        return CB_FAIL;
      cb_proc_lib(pr, a[0].u, len + 1, false);
      r = nanl(tag);
      free(tag);
      break;
    }
    default:
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "long double function %u has no model", fn);
    }
  }
  cb_wide_put_f80(ret, r);
  return CB_GO;
}
