/* libc_math.c: <math.h> in the C library model: every double and float
 * function of libc_names.h, its value from the host's libm (the same
 * glibc 2.36 the real run loads, so the bits are the same), and the
 * stores it makes through pointer arguments (frexp, modf, remquo) and
 * into signgam (lgamma). One table of C prototypes, made from the lists
 * of libc_names.h, instead of a case per function.
 *
 * libm's own traffic inside a call (its stack frame, its .rodata tables)
 * is libc_math_traffic.c's for the paths it models; the call's
 * return-address push and pop and the PLT's GOT read are engine_frames.c's,
 * as for every library call. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* the prototypes of libc_names.h's signatures */
typedef union libm_fn {
  double (*D_D)(double);
  double (*D_D_D)(double, double);
  double (*D_D_D_D)(double, double, double);
  int (*I_D)(double);
  long (*L_D)(double);
  long long (*LL_D)(double);
  double (*D_D_I)(double, int);
  double (*D_D_L)(double, long);
  double (*D_D_PI)(double, int *);
  double (*D_D_PD)(double, double *);
  double (*D_D_D_PI)(double, double, int *);
  double (*D_S)(const char *);
  float (*F_F)(float);
  float (*F_F_F)(float, float);
  float (*F_F_F_F)(float, float, float);
  int (*I_F)(float);
  long (*L_F)(float);
  long long (*LL_F)(float);
  float (*F_F_I)(float, int);
  float (*F_F_L)(float, long);
  float (*F_F_PI)(float, int *);
  float (*F_F_PF)(float, float *);
  float (*F_F_F_PI)(float, float, int *);
  float (*F_S)(const char *);
} libm_fn;

typedef enum libm_sig {
  SIG_NONE,
  SIG_D_D,
  SIG_D_D_D,
  SIG_D_D_D_D,
  SIG_I_D,
  SIG_L_D,
  SIG_LL_D,
  SIG_D_D_I,
  SIG_D_D_L,
  SIG_D_D_PI,
  SIG_D_D_PD,
  SIG_D_D_D_PI,
  SIG_D_S,
  SIG_F_F,
  SIG_F_F_F,
  SIG_F_F_F_F,
  SIG_I_F,
  SIG_L_F,
  SIG_LL_F,
  SIG_F_F_I,
  SIG_F_F_L,
  SIG_F_F_PI,
  SIG_F_F_PF,
  SIG_F_F_F_PI,
  SIG_F_S,
} libm_sig;

typedef struct libm_entry {
  libm_sig sig;
  libm_fn fn;
} libm_entry;

/* The math functions listed by hand in CB_LIBC_FUNCTIONS (fabs, floor,
 * ceil, round and sqrt among them: clang calls them when it cannot use
 * an instruction). */
#define LIBM_LISTED(M, X)                                                      \
  M(X, SQRT, sqrt, D_D)                                                        \
  M(X, SQRTF, sqrtf, F_F)                                                      \
  M(X, EXP, exp, D_D)                                                          \
  M(X, EXPF, expf, F_F)                                                        \
  M(X, LOG, log, D_D)                                                          \
  M(X, LOGF, logf, F_F)                                                        \
  M(X, LOG2, log2, D_D)                                                        \
  M(X, LOG10, log10, D_D)                                                      \
  M(X, POW, pow, D_D_D)                                                        \
  M(X, POWF, powf, F_F_F)                                                      \
  M(X, SIN, sin, D_D)                                                          \
  M(X, COS, cos, D_D)                                                          \
  M(X, TAN, tan, D_D)                                                          \
  M(X, ATAN, atan, D_D)                                                        \
  M(X, ATAN2, atan2, D_D_D)                                                    \
  M(X, TANH, tanh, D_D)                                                        \
  M(X, FABS, fabs, D_D)                                                        \
  M(X, FABSF, fabsf, F_F)                                                      \
  M(X, FLOOR, floor, D_D)                                                      \
  M(X, CEIL, ceil, D_D)                                                        \
  M(X, ROUND, round, D_D)                                                      \
  M(X, FMOD, fmod, D_D_D)                                                      \
  M(X, FMAX, fmax, D_D_D)                                                      \
  M(X, FMIN, fmin, D_D_D)                                                      \
  M(X, CABS, cabs_parts, D_D_D)

/* <complex.h>'s double complex travels as two doubles under the SysV
 * ABI (xmm0, xmm1 both ways): cabs(z) is glibc's __hypot of its parts
 * (math/s_cabs_template.c), cexp's result comes back in two registers. */
static double cabs_parts(double re, double im) {
  return cabs(CMPLX(re, im));
}

#define LIBM_ENTRY(X, id, f, sig) [CB_LIBC_##id] = {SIG_##sig, {.sig = f}},
static const libm_entry libm[CB_LIBC_COUNT] = {
    LIBM_LISTED(LIBM_ENTRY, _) CB_LIBM_FUNCTIONS(LIBM_ENTRY, _)};
#undef LIBM_ENTRY

bool cb_libc_is_libm(uint32_t fn) {
  return fn < CB_LIBC_COUNT && (libm[fn].sig != SIG_NONE || fn == CB_LIBC_CEXP);
}

/* An argument as the prototype's type (a caller without the prototype
 * may pass the other width). */
static double arg_d(const cb_value *a, const uint8_t *ty, uint32_t k) {
  return ty[k] == CB_TY_F32 ? (double)a[k].f : a[k].d;
}

static float arg_f(const cb_value *a, const uint8_t *ty, uint32_t k) {
  return ty[k] == CB_TY_F64 ? (float)a[k].d : a[k].f;
}

static void ret_f(cb_value *r, float f) {
  r->u = 0;
  r->f = f;
}

/* The store the real function makes through its pointer argument. */
static cb_stop store_out(cb_proc *pr, uint64_t p, const void *v, size_t n) {
  if (!cb_proc_write(pr, p, v, n))
    return CB_FAIL;
  cb_proc_lib(pr, p, n, true);
  return CB_GO;
}

/* lgamma's sign goes to signgam (math/w_lgamma_template.c); the program
 * sees it when it declares the variable. */
static cb_stop store_signgam(cb_proc *pr, int sign) {
  const cb_program *p = pr->p;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->name && g->size == 4 && !strcmp(g->name, "signgam"))
      return store_out(pr, g->addr, &sign, 4);
  }
  return CB_GO;
}

/* nan(tagp): glibc reads the tag as strtod reads "NAN(tagp)". */
static cb_stop read_tag(cb_proc *pr, uint64_t addr, char **s) {
  size_t len;
  *s = cb_proc_read_str(pr, addr, MAX_STR, &len);
  if (!*s)
    return CB_FAIL;
  cb_proc_lib(pr, addr, len + 1, false);
  return CB_GO;
}

cb_stop cb_libc_math_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          const uint8_t *ty, cb_value *ret) {
  if (fn == CB_LIBC_CEXP) {
    /* its traffic (math/s_cexp_template.c: __sincos, __ieee754_exp) is
     * not modelled, as other functions' outside libc_math_traffic.c */
    double complex z = cexp(CMPLX(arg_d(a, ty, 0), arg_d(a, ty, 1)));
    ret[0].d = creal(z);
    ret[1].d = cimag(z);
    return CB_GO;
  }
  const libm_entry *m = &libm[fn];
  const libm_fn f = m->fn;
  int i = 0;
  double d;
  float x;
  char *s;
  switch (m->sig) {
  case SIG_D_D:
    d = arg_d(a, ty, 0);
    ret[0].d = f.D_D(d);
    cb_libm_traffic(pr, fn, &d, ret[0].d);
    if (fn == CB_LIBC_LGAMMA)
      return store_signgam(pr, signgam);
    return CB_GO;
  case SIG_D_D_D: {
    double xy[2] = {arg_d(a, ty, 0), arg_d(a, ty, 1)};
    ret[0].d = f.D_D_D(xy[0], xy[1]);
    cb_libm_traffic(pr, fn, xy, ret[0].d);
    return CB_GO;
  }
  case SIG_D_D_D_D:
    ret[0].d = f.D_D_D_D(arg_d(a, ty, 0), arg_d(a, ty, 1), arg_d(a, ty, 2));
    return CB_GO;
  case SIG_I_D:
    ret[0].u = (uint32_t)f.I_D(arg_d(a, ty, 0));
    return CB_GO;
  case SIG_L_D:
    ret[0].s = f.L_D(arg_d(a, ty, 0));
    return CB_GO;
  case SIG_LL_D:
    ret[0].s = f.LL_D(arg_d(a, ty, 0));
    return CB_GO;
  case SIG_D_D_I:
    ret[0].d = f.D_D_I(arg_d(a, ty, 0), (int)a[1].u);
    return CB_GO;
  case SIG_D_D_L:
    ret[0].d = f.D_D_L(arg_d(a, ty, 0), (long)a[1].s);
    return CB_GO;
  case SIG_D_D_PI:
    ret[0].d = f.D_D_PI(arg_d(a, ty, 0), &i);
    return store_out(pr, a[1].u, &i, 4);
  case SIG_D_D_PD:
    ret[0].d = f.D_D_PD(arg_d(a, ty, 0), &d);
    return store_out(pr, a[1].u, &d, 8);
  case SIG_D_D_D_PI:
    ret[0].d = f.D_D_D_PI(arg_d(a, ty, 0), arg_d(a, ty, 1), &i);
    return store_out(pr, a[2].u, &i, 4);
  case SIG_D_S:
    if (read_tag(pr, a[0].u, &s) != CB_GO)
      return CB_FAIL;
    ret[0].d = f.D_S(s);
    free(s);
    return CB_GO;
  case SIG_F_F:
    ret_f(ret, f.F_F(arg_f(a, ty, 0)));
    if (fn == CB_LIBC_LGAMMAF)
      return store_signgam(pr, signgam);
    return CB_GO;
  case SIG_F_F_F:
    ret_f(ret, f.F_F_F(arg_f(a, ty, 0), arg_f(a, ty, 1)));
    return CB_GO;
  case SIG_F_F_F_F:
    ret_f(ret, f.F_F_F_F(arg_f(a, ty, 0), arg_f(a, ty, 1), arg_f(a, ty, 2)));
    return CB_GO;
  case SIG_I_F:
    ret[0].u = (uint32_t)f.I_F(arg_f(a, ty, 0));
    return CB_GO;
  case SIG_L_F:
    ret[0].s = f.L_F(arg_f(a, ty, 0));
    return CB_GO;
  case SIG_LL_F:
    ret[0].s = f.LL_F(arg_f(a, ty, 0));
    return CB_GO;
  case SIG_F_F_I:
    ret_f(ret, f.F_F_I(arg_f(a, ty, 0), (int)a[1].u));
    return CB_GO;
  case SIG_F_F_L:
    ret_f(ret, f.F_F_L(arg_f(a, ty, 0), (long)a[1].s));
    return CB_GO;
  case SIG_F_F_PI:
    ret_f(ret, f.F_F_PI(arg_f(a, ty, 0), &i));
    return store_out(pr, a[1].u, &i, 4);
  case SIG_F_F_PF:
    ret_f(ret, f.F_F_PF(arg_f(a, ty, 0), &x));
    return store_out(pr, a[1].u, &x, 4);
  case SIG_F_F_F_PI:
    ret_f(ret, f.F_F_F_PI(arg_f(a, ty, 0), arg_f(a, ty, 1), &i));
    return store_out(pr, a[2].u, &i, 4);
  case SIG_F_S:
    if (read_tag(pr, a[0].u, &s) != CB_GO)
      return CB_FAIL;
    ret_f(ret, f.F_S(s));
    free(s);
    return CB_GO;
  case SIG_NONE:
    break;
  }
  return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                      "library function #%u is no math function", fn);
}
