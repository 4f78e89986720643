/* jit_ops_intr.c: a kernel's calls of value intrinsics (jit_gen.h), as
 * the interpreter's cb_intrinsic_call (analysis/process/libc.c) and
 * cb_intrinsic_ext (libc_intr_ext.c) compute them: lane by lane, a
 * scalar operand of a vector intrinsic shared by every lane, no library
 * traffic (the interpreter models none for these: the backend expands
 * them inline or calls libm, whose values glibc gives). The values that
 * come from libm (exp, floor, fmax, ...) come from the host's glibc here
 * too, called by address, so they are the interpreter's bit for bit; the
 * rest are integer and IEEE operations the code states explicitly. */
#include "jit_gen.h"

#include <math.h>

#include "cbana/libc_names.h"

#define INTR_MAX_LANES 256

typedef double (*fn_d)(double);

/* The call's record (program.h, cb_call_kind). */
typedef struct call {
  const int64_t *x;
  unsigned id, n;
} call;

static call call_of(const cb_program *p, const cb_op *op) {
  const int64_t *x = &p->extra[op->aux];
  return (call){x, (unsigned)x[1], (unsigned)x[3]};
}

static cb_operand arg(call c, unsigned k) {
  return CB_CALL_ARG_OPERAND((uint64_t)c.x[4 + k]);
}
static unsigned arg_ty(call c, unsigned k) {
  return CB_CALL_ARG_TY((uint64_t)c.x[4 + k]);
}
static unsigned arg_lanes(call c, unsigned k) {
  return CB_CALL_ARG_LANES((uint64_t)c.x[4 + k]);
}

static bool is_fp(unsigned ty) {
  return ty == CB_TY_F32 || ty == CB_TY_F64;
}
static bool is_int(unsigned ty) {
  return ty >= CB_TY_I8 && ty <= CB_TY_I64;
}
static unsigned ibits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes((cb_ty)ty) * 8;
}

/* the host's libm function of a unary intrinsic, for f64 and f32 */
static const void *libm1(unsigned id, bool f) {
  switch ((cb_intrinsic)id) {
  case CB_INTR_EXP:
    return f ? (const void *)(uintptr_t)&expf : (const void *)(uintptr_t)&exp;
  case CB_INTR_LOG:
    return f ? (const void *)(uintptr_t)&logf : (const void *)(uintptr_t)&log;
  case CB_INTR_SIN:
    return f ? (const void *)(uintptr_t)&sinf : (const void *)(uintptr_t)&sin;
  case CB_INTR_COS:
    return f ? (const void *)(uintptr_t)&cosf : (const void *)(uintptr_t)&cos;
  case CB_INTR_EXP2:
    return f ? (const void *)(uintptr_t)&exp2f : (const void *)(uintptr_t)&exp2;
  case CB_INTR_LOG2:
    return f ? (const void *)(uintptr_t)&log2f : (const void *)(uintptr_t)&log2;
  case CB_INTR_LOG10:
    return f ? (const void *)(uintptr_t)&log10f
             : (const void *)(uintptr_t)&log10;
  case CB_INTR_NEARBYINT:
    return f ? (const void *)(uintptr_t)&nearbyintf
             : (const void *)(uintptr_t)&nearbyint;
  case CB_INTR_ROUNDEVEN:
    return f ? (const void *)(uintptr_t)&roundevenf
             : (const void *)(uintptr_t)&roundeven;
  /* the rounding family takes the lane as a double (libc.c's put_d) */
  case CB_INTR_FLOOR:
    return (const void *)(uintptr_t)&floor;
  case CB_INTR_CEIL:
    return (const void *)(uintptr_t)&ceil;
  case CB_INTR_ROUND:
    return (const void *)(uintptr_t)&round;
  case CB_INTR_TRUNC:
    return (const void *)(uintptr_t)&trunc;
  case CB_INTR_RINT:
    return (const void *)(uintptr_t)&rint;
  default:
    return NULL;
  }
}

/* The lanes of argument k and the operand bounds. */
static bool arg_ok(const cb_program *p, call c, unsigned k, unsigned lanes) {
  cb_operand o = arg(c, k);
  if (o == CB_NONE)
    return false;
  unsigned l = arg_lanes(c, k) > 1 ? arg_lanes(c, k) : 1;
  if (l < lanes)
    l = lanes;
  return !(o & CB_OPND_CONST) ||
         (o & ~CB_OPND_CONST) + (uint64_t)l <= p->n_consts;
}

bool jit_intr_covered(const cb_program *p, const cb_op *op) {
  if (op->code != CB_OP_CALL || op->dst == CB_NONE)
    return false;
  call c = call_of(p, op);
  if (c.x[0] != CB_CALL_INTRINSIC || c.n == 0 || c.n > 3)
    return false;
  unsigned ty = op->ty, l = op->lanes ? op->lanes : 1, t0 = arg_ty(c, 0);
  if (l > INTR_MAX_LANES)
    return false;
  for (unsigned k = 0; k < c.n; k++)
    if (!arg_ok(p, c, k, k == 0 ? l : 1))
      return false;
  switch ((cb_intrinsic)c.id) {
  case CB_INTR_FABS:
  case CB_INTR_SQRT:
  case CB_INTR_EXP:
  case CB_INTR_LOG:
  case CB_INTR_SIN:
  case CB_INTR_COS:
  case CB_INTR_FLOOR:
  case CB_INTR_CEIL:
  case CB_INTR_ROUND:
  case CB_INTR_TRUNC:
  case CB_INTR_RINT:
    return is_fp(ty);
  case CB_INTR_POW:
  case CB_INTR_MAXNUM:
  case CB_INTR_MINNUM:
  case CB_INTR_COPYSIGN:
    return is_fp(ty) && c.n >= 2;
  case CB_INTR_FMA:
  case CB_INTR_FMULADD:
    return is_fp(ty) && c.n == 3;
  case CB_INTR_SMAX:
  case CB_INTR_SMIN:
  case CB_INTR_UMAX:
  case CB_INTR_UMIN:
  case CB_INTR_UADD_SAT:
  case CB_INTR_USUB_SAT:
  case CB_INTR_SADD_SAT:
  case CB_INTR_SSUB_SAT:
    return is_int(ty) && c.n >= 2;
  case CB_INTR_ABS:
  case CB_INTR_CTPOP:
  case CB_INTR_CTLZ:
  case CB_INTR_CTTZ:
  case CB_INTR_BSWAP:
  case CB_INTR_BITREVERSE:
    return is_int(ty);
  case CB_INTR_FSHL:
  case CB_INTR_FSHR:
    return is_int(ty) && c.n == 3;
  case CB_INTR_NEARBYINT:
  case CB_INTR_ROUNDEVEN:
  case CB_INTR_EXP2:
  case CB_INTR_LOG2:
  case CB_INTR_LOG10:
    return is_fp(ty) && is_fp(t0);
  case CB_INTR_MINIMUM:
  case CB_INTR_MAXIMUM:
    return is_fp(ty) && is_fp(t0) && c.n >= 2;
  case CB_INTR_LROUND:
  case CB_INTR_LLROUND:
  case CB_INTR_LRINT:
  case CB_INTR_LLRINT:
    return is_int(ty) && is_fp(t0);
  case CB_INTR_SADD_OVF:
  case CB_INTR_UADD_OVF:
  case CB_INTR_SSUB_OVF:
  case CB_INTR_USUB_OVF:
  case CB_INTR_SMUL_OVF:
  case CB_INTR_UMUL_OVF:
    /* {value, flag}: two slots (engine_frames.c) */
    return is_int(t0) && c.n == 2 && op->lanes <= 2;
  case CB_INTR_REDUCE_ADD:
  case CB_INTR_REDUCE_MUL:
  case CB_INTR_REDUCE_AND:
  case CB_INTR_REDUCE_OR:
  case CB_INTR_REDUCE_XOR:
  case CB_INTR_REDUCE_SMAX:
  case CB_INTR_REDUCE_SMIN:
  case CB_INTR_REDUCE_UMAX:
  case CB_INTR_REDUCE_UMIN:
    return (is_int(ty) || ty == CB_TY_I1) && l == 1 &&
           arg_ok(p, c, 0, arg_lanes(c, 0));
  case CB_INTR_REDUCE_FADD:
  case CB_INTR_REDUCE_FMUL:
    return is_fp(ty) && l == 1 && c.n == 2 && arg_ty(c, 1) == ty &&
           arg_ok(p, c, 1, arg_lanes(c, 1));
  case CB_INTR_REDUCE_FMAX:
  case CB_INTR_REDUCE_FMIN:
    return is_fp(ty) && l == 1 && is_fp(t0) && arg_ok(p, c, 0, arg_lanes(c, 0));
  default:
    return false;
  }
}

static LLVMValueRef intrinsic(jit_gen *g, const char *name, LLVMTypeRef ret,
                              LLVMValueRef *args, unsigned n) {
  LLVMTypeRef at[4];
  for (unsigned k = 0; k < n; k++)
    at[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef fty = LLVMFunctionType(ret, at, n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(g->M, name);
  if (!f)
    f = LLVMAddFunction(g->M, name, fty);
  return LLVMBuildCall2(g->B, fty, f, args, n, "");
}

static LLVMValueRef i64_intr(jit_gen *g, const char *name, LLVMValueRef v) {
  return intrinsic(g, name, g->i64, &v, 1);
}

static LLVMValueRef sel(jit_gen *g, LLVMValueRef c, LLVMValueRef a,
                        LLVMValueRef b) {
  return LLVMBuildSelect(g->B, c, a, b, "");
}

static LLVMValueRef cmp(jit_gen *g, LLVMIntPredicate p, LLVMValueRef a,
                        LLVMValueRef b) {
  return LLVMBuildICmp(g->B, p, a, b, "");
}

static LLVMTypeRef f32_ty(jit_gen *g) {
  return LLVMFloatTypeInContext(g->C);
}

/* libc.c's fmax/fmin of two doubles, the host's functions */
static LLVMValueRef fmax_min(jit_gen *g, bool max, LLVMValueRef x,
                             LLVMValueRef y) {
  LLVMValueRef xy[2] = {x, y};
  return jit_host_call(
      g, max ? (const void *)(uintptr_t)&fmax : (const void *)(uintptr_t)&fmin,
      g->f64, xy, 2);
}

/* libc_intr_ext.c's min_max: a NaN operand gives x + y; -0.0 orders
 * below +0.0 */
static LLVMValueRef min_max(jit_gen *g, LLVMValueRef x, LLVMValueRef y,
                            bool is_max) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef nan = LLVMBuildFCmp(B, LLVMRealUNO, x, y, "");
  LLVMValueRef zero = LLVMConstReal(g->f64, 0.0);
  LLVMValueRef both0 =
      LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOEQ, x, y, ""),
                   LLVMBuildFCmp(B, LLVMRealOEQ, x, zero, ""), "");
  LLVMValueRef xneg = cmp(g, LLVMIntSLT, jit_word_f64(g, x), jit_c64(g, 0));
  /* (signbit(x) != 0) == is_max ? y : x */
  LLVMValueRef zpick = is_max ? sel(g, xneg, y, x) : sel(g, xneg, x, y);
  LLVMValueRef gt = LLVMBuildFCmp(B, LLVMRealOGT, x, y, "");
  LLVMValueRef pick = is_max ? sel(g, gt, x, y) : sel(g, gt, y, x);
  return sel(g, nan, LLVMBuildFAdd(B, x, y, ""), sel(g, both0, zpick, pick));
}

/* One lane of an intrinsic of the main families; x, y, z the lanes'
 * slot words (y and z x itself when absent). */
static LLVMValueRef lane_value(jit_gen *g, unsigned id, unsigned ty,
                               unsigned t0, LLVMValueRef x, LLVMValueRef y,
                               LLVMValueRef z) {
  LLVMBuilderRef B = g->B;
  bool f = ty == CB_TY_F32;
  uint64_t m = cb_ty_mask((cb_ty)ty);
  unsigned b = ibits(ty);
  LLVMValueRef ux = jit_mask(g, x, ty), uy = jit_mask(g, y, ty);
  switch ((cb_intrinsic)id) {
  case CB_INTR_FABS:
  case CB_INTR_COPYSIGN: {
    /* the sign bit cleared, or taken from y: bit operations, NaNs
     * unchanged */
    uint64_t sign = f ? 1ull << 31 : 1ull << 63, rest = f ? sign - 1 : ~sign;
    LLVMValueRef v = LLVMBuildAnd(B, x, jit_c64(g, rest), "");
    return id == CB_INTR_FABS
               ? v
               : LLVMBuildOr(B, v, LLVMBuildAnd(B, y, jit_c64(g, sign), ""),
                             "");
  }
  case CB_INTR_SQRT: {
    /* sqrtss/sqrtsd, which glibc's sqrt and sqrtf are on x86-64 */
    LLVMValueRef v = f ? jit_f32_of(g, x) : jit_f64_of(g, x);
    LLVMValueRef r = intrinsic(g, f ? "llvm.sqrt.f32" : "llvm.sqrt.f64",
                               LLVMTypeOf(v), &v, 1);
    return f ? jit_word_f32(g, r) : jit_word_f64(g, r);
  }
  case CB_INTR_EXP:
  case CB_INTR_LOG:
  case CB_INTR_SIN:
  case CB_INTR_COS: {
    LLVMValueRef v = f ? jit_f32_of(g, x) : jit_f64_of(g, x);
    LLVMValueRef r =
        jit_host_call(g, libm1(id, f), f ? f32_ty(g) : g->f64, &v, 1);
    return f ? jit_word_f32(g, r) : jit_word_f64(g, r);
  }
  case CB_INTR_NEARBYINT:
  case CB_INTR_ROUNDEVEN:
  case CB_INTR_EXP2:
  case CB_INTR_LOG2:
  case CB_INTR_LOG10: {
    /* libc_intr_ext.c: by the argument's type, put as the result's */
    bool f0 = t0 == CB_TY_F32;
    LLVMValueRef v = f0 ? jit_f32_of(g, x) : jit_f64_of(g, x);
    LLVMValueRef r =
        jit_host_call(g, libm1(id, f0), f0 ? f32_ty(g) : g->f64, &v, 1);
    if (f0)
      r = LLVMBuildFPExt(B, r, g->f64, "");
    return jit_put_d(g, r, ty);
  }
  case CB_INTR_FLOOR:
  case CB_INTR_CEIL:
  case CB_INTR_ROUND:
  case CB_INTR_TRUNC:
  case CB_INTR_RINT: {
    LLVMValueRef v = jit_lane_d(g, x, ty);
    return jit_put_d(g, jit_host_call(g, libm1(id, false), g->f64, &v, 1), ty);
  }
  case CB_INTR_POW: {
    LLVMValueRef xy[2] = {f ? jit_f32_of(g, x) : jit_f64_of(g, x),
                          f ? jit_f32_of(g, y) : jit_f64_of(g, y)};
    LLVMValueRef r = jit_host_call(
        g, f ? (const void *)(uintptr_t)&powf : (const void *)(uintptr_t)&pow,
        f ? f32_ty(g) : g->f64, xy, 2);
    return f ? jit_word_f32(g, r) : jit_word_f64(g, r);
  }
  case CB_INTR_MAXNUM:
  case CB_INTR_MINNUM: {
    /* libc.c: y when x is a NaN or y is beyond x, else x; the bits */
    LLVMValueRef fx = f ? jit_f32_of(g, x) : jit_f64_of(g, x);
    LLVMValueRef fy = f ? jit_f32_of(g, y) : jit_f64_of(g, y);
    LLVMValueRef beyond = LLVMBuildFCmp(
        B, id == CB_INTR_MAXNUM ? LLVMRealOGT : LLVMRealOLT, fy, fx, "");
    LLVMValueRef pick_y =
        LLVMBuildOr(B, LLVMBuildFCmp(B, LLVMRealUNO, fx, fx, ""), beyond, "");
    return jit_mask(g, sel(g, pick_y, y, x), ty);
  }
  case CB_INTR_MINIMUM:
  case CB_INTR_MAXIMUM:
    return jit_put_d(g,
                     min_max(g, jit_lane_d(g, x, t0), jit_lane_d(g, y, t0),
                             id == CB_INTR_MAXIMUM),
                     ty);
  case CB_INTR_SMAX:
    return sel(g, cmp(g, LLVMIntSGT, jit_sx(g, ux, ty), jit_sx(g, uy, ty)), ux,
               uy);
  case CB_INTR_SMIN:
    return sel(g, cmp(g, LLVMIntSLT, jit_sx(g, ux, ty), jit_sx(g, uy, ty)), ux,
               uy);
  case CB_INTR_UMAX:
    return sel(g, cmp(g, LLVMIntUGT, ux, uy), ux, uy);
  case CB_INTR_UMIN:
    return sel(g, cmp(g, LLVMIntULT, ux, uy), ux, uy);
  case CB_INTR_ABS:
    return jit_mask(g,
                    sel(g, cmp(g, LLVMIntSLT, jit_sx(g, ux, ty), jit_c64(g, 0)),
                        LLVMBuildSub(B, jit_c64(g, 0), ux, ""), ux),
                    ty);
  case CB_INTR_CTPOP:
    return i64_intr(g, "llvm.ctpop.i64", ux);
  case CB_INTR_CTLZ: {
    /* clz of 0 is 64 here: b for a zero lane, as the interpreter's */
    LLVMValueRef a[2] = {ux, LLVMConstInt(g->i1, 0, 0)};
    LLVMValueRef r = intrinsic(g, "llvm.ctlz.i64", g->i64, a, 2);
    return LLVMBuildSub(B, r, jit_c64(g, 64 - b), "");
  }
  case CB_INTR_CTTZ: {
    LLVMValueRef a[2] = {ux, LLVMConstInt(g->i1, 0, 0)};
    LLVMValueRef r = intrinsic(g, "llvm.cttz.i64", g->i64, a, 2);
    return sel(g, cmp(g, LLVMIntEQ, ux, jit_c64(g, 0)), jit_c64(g, b), r);
  }
  case CB_INTR_BSWAP:
    return LLVMBuildLShr(B, i64_intr(g, "llvm.bswap.i64", ux),
                         jit_c64(g, 64 - b), "");
  case CB_INTR_BITREVERSE:
    return LLVMBuildLShr(B, i64_intr(g, "llvm.bitreverse.i64", ux),
                         jit_c64(g, 64 - b), "");
  case CB_INTR_FSHL:
  case CB_INTR_FSHR: {
    /* (x:y << s) >> b or x:y >> s in 2b bits, s = z mod b */
    LLVMTypeRef i128 = LLVMIntTypeInContext(g->C, 128);
    LLVMValueRef s =
        LLVMBuildZExt(B, LLVMBuildURem(B, z, jit_c64(g, b), ""), i128, "");
    LLVMValueRef bb = LLVMConstInt(i128, b, 0);
    LLVMValueRef cat =
        LLVMBuildOr(B, LLVMBuildShl(B, LLVMBuildZExt(B, ux, i128, ""), bb, ""),
                    LLVMBuildZExt(B, uy, i128, ""), "");
    LLVMValueRef r = id == CB_INTR_FSHL
                         ? LLVMBuildLShr(B, LLVMBuildShl(B, cat, s, ""), bb, "")
                         : LLVMBuildLShr(B, cat, s, "");
    return jit_mask(g, LLVMBuildTrunc(B, r, g->i64, ""), ty);
  }
  case CB_INTR_UADD_SAT: {
    LLVMValueRef s = jit_mask(g, LLVMBuildAdd(B, ux, uy, ""), ty);
    return sel(g, cmp(g, LLVMIntULT, s, ux), jit_c64(g, m), s);
  }
  case CB_INTR_USUB_SAT:
    return sel(g, cmp(g, LLVMIntUGT, ux, uy), LLVMBuildSub(B, ux, uy, ""),
               jit_c64(g, 0));
  case CB_INTR_SADD_SAT:
  case CB_INTR_SSUB_SAT: {
    /* in 128 bits, clamped to b bits' range */
    LLVMTypeRef i128 = LLVMIntTypeInContext(g->C, 128);
    LLVMValueRef a = LLVMBuildSExt(B, jit_sx(g, ux, ty), i128, "");
    LLVMValueRef c = LLVMBuildSExt(B, jit_sx(g, uy, ty), i128, "");
    LLVMValueRef s = id == CB_INTR_SADD_SAT ? LLVMBuildAdd(B, a, c, "")
                                            : LLVMBuildSub(B, a, c, "");
    LLVMValueRef hi = LLVMBuildSExt(
        B, jit_c64(g, (uint64_t)((1ull << (b - 1)) - 1)), i128, "");
    LLVMValueRef lo =
        LLVMBuildSExt(B, jit_c64(g, (uint64_t)0 - (1ull << (b - 1))), i128, "");
    s = sel(g, cmp(g, LLVMIntSGT, s, hi), hi, s);
    s = sel(g, cmp(g, LLVMIntSLT, s, lo), lo, s);
    return jit_mask(g, LLVMBuildTrunc(B, s, g->i64, ""), ty);
  }
  case CB_INTR_LROUND:
  case CB_INTR_LLROUND:
  case CB_INTR_LRINT:
  case CB_INTR_LLRINT: {
    /* round or rint, then the "integer indefinite" 1 << (b - 1) out of
     * range (libc_intr_ext.c) */
    bool rnd = id == CB_INTR_LROUND || id == CB_INTR_LLROUND;
    LLVMValueRef d = jit_lane_d(g, x, t0);
    LLVMValueRef k = jit_host_call(g,
                                   rnd ? (const void *)(uintptr_t)&round
                                       : (const void *)(uintptr_t)&rint,
                                   g->f64, &d, 1);
    double lim = ldexp(1.0, (int)b - 1);
    LLVMValueRef in = LLVMBuildAnd(
        B, LLVMBuildFCmp(B, LLVMRealOLT, k, LLVMConstReal(g->f64, lim), ""),
        LLVMBuildFCmp(B, LLVMRealOGE, k, LLVMConstReal(g->f64, -lim), ""), "");
    return jit_mask(g,
                    sel(g, in, LLVMBuildFPToSI(B, k, g->i64, ""),
                        jit_c64(g, 1ull << (b - 1))),
                    ty);
  }
  default: { /* FMA, FMULADD */
    bool fused = id == CB_INTR_FMA || g->p->fmuladd_fused;
    if (!fused)
      return jit_fbin(g, CB_OP_FADD, ty, jit_fbin(g, CB_OP_FMUL, ty, x, y), z);
    LLVMValueRef a[3] = {f ? jit_f32_of(g, x) : jit_f64_of(g, x),
                         f ? jit_f32_of(g, y) : jit_f64_of(g, y),
                         f ? jit_f32_of(g, z) : jit_f64_of(g, z)};
    LLVMValueRef r = intrinsic(g, f ? "llvm.fma.f32" : "llvm.fma.f64",
                               LLVMTypeOf(a[0]), a, 3);
    return f ? jit_word_f32(g, r) : jit_word_f64(g, r);
  }
  }
}

/* {value, overflow} of the *.with.overflow family in t's bits, computed
 * in 128 (libc.c) */
static void overflow(jit_gen *g, const cb_op *op, call c) {
  LLVMBuilderRef B = g->B;
  unsigned t = arg_ty(c, 0), b = ibits(t), id = c.id;
  LLVMTypeRef i128 = LLVMIntTypeInContext(g->C, 128);
  LLVMValueRef x = jit_mask(g, jit_val(g, arg(c, 0)), t);
  LLVMValueRef y = jit_mask(g, jit_val(g, arg(c, 1)), t);
  bool u = id == CB_INTR_UADD_OVF || id == CB_INTR_USUB_OVF ||
           id == CB_INTR_UMUL_OVF;
  LLVMValueRef wx = u ? LLVMBuildZExt(B, x, i128, "")
                      : LLVMBuildSExt(B, jit_sx(g, x, t), i128, "");
  LLVMValueRef wy = u ? LLVMBuildZExt(B, y, i128, "")
                      : LLVMBuildSExt(B, jit_sx(g, y, t), i128, "");
  LLVMValueRef w = (id == CB_INTR_UADD_OVF || id == CB_INTR_SADD_OVF)
                       ? LLVMBuildAdd(B, wx, wy, "")
                   : (id == CB_INTR_USUB_OVF || id == CB_INTR_SSUB_OVF)
                       ? LLVMBuildSub(B, wx, wy, "")
                       : LLVMBuildMul(B, wx, wy, "");
  LLVMValueRef res = jit_mask(g, LLVMBuildTrunc(B, w, g->i64, ""), t), ovf;
  if (id == CB_INTR_USUB_OVF)
    ovf = cmp(g, LLVMIntULT, x, y);
  else if (u)
    ovf = cmp(g, LLVMIntNE, LLVMBuildLShr(B, w, LLVMConstInt(i128, b, 0), ""),
              LLVMConstInt(i128, 0, 0));
  else
    ovf = cmp(g, LLVMIntNE, w, LLVMBuildSExt(B, jit_sx(g, res, t), i128, ""));
  jit_set(g, op->dst, res);
  jit_set(g, op->dst + 1, LLVMBuildZExt(B, ovf, g->i64, ""));
}

/* The vector.reduce family (libc.c), folded lane by lane in order. */
static void reduce(jit_gen *g, const cb_op *op, call c) {
  LLVMBuilderRef B = g->B;
  unsigned id = c.id, ty = op->ty;
  bool fstart = id == CB_INTR_REDUCE_FADD || id == CB_INTR_REDUCE_FMUL;
  unsigned k = fstart ? 1 : 0;
  cb_operand xo = arg(c, k);
  unsigned et = arg_ty(c, k), ln = arg_lanes(c, k) ? arg_lanes(c, k) : 1;
  LLVMValueRef r;
  if (fstart) {
    /* f32: each step in float (libc.c's fadd_f on the float values; the
     * start's round trip through double quiets a signalling NaN, and a
     * lane's does nothing an f32 addition would not) */
    r = jit_val(g, arg(c, 0));
    if (ty == CB_TY_F32)
      r = jit_quiet(g, LLVMBuildAnd(B, r, jit_c64(g, 0xffffffffu), ""), ty);
    for (unsigned i = 0; i < ln; i++) {
      LLVMValueRef d = jit_val(g, (cb_operand)(xo + i));
      r = jit_fbin(g, id == CB_INTR_REDUCE_FADD ? CB_OP_FADD : CB_OP_FMUL, ty,
                   r, d);
    }
  } else if (id == CB_INTR_REDUCE_FMAX || id == CB_INTR_REDUCE_FMIN) {
    LLVMValueRef acc = jit_lane_d(g, jit_val(g, xo), et);
    for (unsigned i = 1; i < ln; i++)
      acc = fmax_min(g, id == CB_INTR_REDUCE_FMAX, acc,
                     jit_lane_d(g, jit_val(g, (cb_operand)(xo + i)), et));
    r = jit_put_d(g, acc, ty);
  } else {
    r = jit_val(g, xo);
    for (unsigned i = 1; i < ln; i++) {
      LLVMValueRef y = jit_val(g, (cb_operand)(xo + i));
      switch ((cb_intrinsic)id) {
      case CB_INTR_REDUCE_ADD:
        r = LLVMBuildAdd(B, r, y, "");
        break;
      case CB_INTR_REDUCE_MUL:
        r = LLVMBuildMul(B, r, y, "");
        break;
      case CB_INTR_REDUCE_AND:
        r = LLVMBuildAnd(B, r, y, "");
        break;
      case CB_INTR_REDUCE_OR:
        r = LLVMBuildOr(B, r, y, "");
        break;
      case CB_INTR_REDUCE_XOR:
        r = LLVMBuildXor(B, r, y, "");
        break;
      case CB_INTR_REDUCE_SMAX:
        r = sel(g, cmp(g, LLVMIntSGT, jit_sx(g, y, et), jit_sx(g, r, et)), y,
                r);
        break;
      case CB_INTR_REDUCE_SMIN:
        r = sel(g, cmp(g, LLVMIntSLT, jit_sx(g, y, et), jit_sx(g, r, et)), y,
                r);
        break;
      case CB_INTR_REDUCE_UMAX:
        r = sel(g, cmp(g, LLVMIntUGT, y, r), y, r);
        break;
      default:
        r = sel(g, cmp(g, LLVMIntULT, y, r), y, r);
        break;
      }
    }
    r = jit_mask(g, r, ty);
  }
  jit_set(g, op->dst, r);
}

void jit_intr_op(jit_gen *g, const cb_op *op) {
  call c = call_of(g->p, op);
  unsigned id = c.id;
  if (id >= CB_INTR_SADD_OVF && id <= CB_INTR_UMUL_OVF) {
    overflow(g, op, c);
    return;
  }
  if (id >= CB_INTR_REDUCE_ADD && id <= CB_INTR_REDUCE_FMIN) {
    reduce(g, op, c);
    return;
  }
  unsigned l = op->lanes ? op->lanes : 1, t0 = arg_ty(c, 0);
  /* libc_intr_ext.c's intrinsics read the first operand's lane as the
   * others (a scalar one is shared); libc.c's read lane i of it */
  bool ext = id >= CB_INTR_SADD_SAT && id <= CB_INTR_LLRINT;
  LLVMValueRef v[INTR_MAX_LANES];
  for (unsigned i = 0; i < l; i++) {
    unsigned i0 = !ext || arg_lanes(c, 0) > 1 ? i : 0;
    LLVMValueRef x = jit_val(g, (cb_operand)(arg(c, 0) + i0));
    LLVMValueRef y =
        c.n > 1
            ? jit_val(g,
                      (cb_operand)(arg(c, 1) + (arg_lanes(c, 1) > 1 ? i : 0)))
            : x;
    LLVMValueRef z =
        c.n > 2
            ? jit_val(g,
                      (cb_operand)(arg(c, 2) + (arg_lanes(c, 2) > 1 ? i : 0)))
            : x;
    v[i] = lane_value(g, id, op->ty, t0, x, y, z);
  }
  for (unsigned i = 0; i < l; i++)
    jit_set(g, op->dst + i, v[i]);
}
