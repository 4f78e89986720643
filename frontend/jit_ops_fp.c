/* jit_ops_fp.c: a kernel's floating-point ops (jit_gen.h): f32 and f64
 * arithmetic, remainder, negation, comparison, and the casts between
 * integers and floating point, each as engine_scalar.h computes it on the
 * interpreter's slot words (f32 as a float in the low half of the word,
 * the rest zero; f64 as its bits).
 *
 * The interpreter's results do not depend on how LLVM may reorder or fold
 * the code: a NaN first operand is returned quieted explicitly (fadd_d,
 * Intel SDM vol. 1, 4.8.3.5), negation and sign moves are integer bit
 * operations, out-of-range conversions to integers give x86's "integer
 * indefinite" through selects (LLVM's fptosi would give poison), and
 * fmod comes from the same glibc the interpreter calls. */
#include "jit_gen.h"

#include <math.h>

static LLVMTypeRef f32_ty(jit_gen *g) {
  return LLVMFloatTypeInContext(g->C);
}

LLVMValueRef jit_host_call(jit_gen *g, const void *addr, LLVMTypeRef ret,
                           LLVMValueRef *args, unsigned n) {
  LLVMTypeRef at[4];
  for (unsigned k = 0; k < n && k < 4; k++)
    at[k] = LLVMTypeOf(args[k]);
  LLVMTypeRef fty = LLVMFunctionType(ret, at, n, 0);
  LLVMValueRef fp = LLVMConstIntToPtr(jit_c64(g, (uint64_t)(uintptr_t)addr),
                                      LLVMPointerType(fty, 0));
  LLVMValueRef c = LLVMBuildCall2(g->B, fty, fp, args, n, "");
  /* the library's C functions do not unwind */
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddCallSiteAttribute(c, LLVMAttributeFunctionIndex,
                           LLVMCreateEnumAttribute(g->C, nounwind, 0));
  return c;
}

LLVMValueRef jit_put_d(jit_gen *g, LLVMValueRef d, unsigned ty) {
  if (ty == CB_TY_F32)
    return jit_word_f32(g, LLVMBuildFPTrunc(g->B, d, f32_ty(g), ""));
  return jit_word_f64(g, d);
}

LLVMValueRef jit_lane_d(jit_gen *g, LLVMValueRef w, unsigned ty) {
  if (ty == CB_TY_F32)
    return LLVMBuildFPExt(g->B, jit_f32_of(g, w), g->f64, "");
  return jit_f64_of(g, w);
}

/* isnan of the slot word w of type ty */
static LLVMValueRef is_nan(jit_gen *g, LLVMValueRef w, unsigned ty) {
  LLVMValueRef x = ty == CB_TY_F32 ? jit_f32_of(g, w) : jit_f64_of(g, w);
  return LLVMBuildFCmp(g->B, LLVMRealUNO, x, x, "");
}

LLVMValueRef jit_quiet(jit_gen *g, LLVMValueRef w, unsigned ty) {
  uint64_t q = ty == CB_TY_F32 ? 1ull << 22 : 1ull << 51;
  return LLVMBuildSelect(g->B, is_nan(g, w, ty),
                         LLVMBuildOr(g->B, w, jit_c64(g, q), ""), w, "");
}

LLVMValueRef jit_fbin(jit_gen *g, unsigned code, unsigned ty, LLVMValueRef a,
                      LLVMValueRef b) {
  LLVMBuilderRef B = g->B;
  bool f = ty == CB_TY_F32;
  LLVMValueRef x = f ? jit_f32_of(g, a) : jit_f64_of(g, a);
  LLVMValueRef y = f ? jit_f32_of(g, b) : jit_f64_of(g, b);
  LLVMValueRef z;
  switch (code) {
  case CB_OP_FADD:
    z = LLVMBuildFAdd(B, x, y, "");
    break;
  case CB_OP_FSUB:
    z = LLVMBuildFSub(B, x, y, "");
    break;
  case CB_OP_FMUL:
    z = LLVMBuildFMul(B, x, y, "");
    break;
  case CB_OP_FDIV:
    z = LLVMBuildFDiv(B, x, y, "");
    break;
  default: {
    /* fmod and fmodf themselves: exact, and their NaNs are glibc's */
    LLVMValueRef xy[2] = {x, y};
    z = f ? jit_host_call(g, (const void *)(uintptr_t)&fmodf, f32_ty(g), xy, 2)
          : jit_host_call(g, (const void *)(uintptr_t)&fmod, g->f64, xy, 2);
    return f ? jit_word_f32(g, z) : jit_word_f64(g, z);
  }
  }
  LLVMValueRef zw = f ? jit_word_f32(g, z) : jit_word_f64(g, z);
  uint64_t q = f ? 1ull << 22 : 1ull << 51;
  return LLVMBuildSelect(B, LLVMBuildFCmp(B, LLVMRealUNO, x, x, ""),
                         LLVMBuildOr(B, a, jit_c64(g, q), ""), zw, "");
}

/* engine_scalar.h's fp_to_si: the truncation, or INT64_MIN for a NaN or
 * a value out of range (cvttsd2si's "integer indefinite"). The fptosi in
 * the arm not taken may be poison, which a select does not pass on. */
static LLVMValueRef fp_to_si(jit_gen *g, LLVMValueRef d) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef lo = LLVMConstReal(g->f64, -9223372036854775808.0);
  LLVMValueRef hi = LLVMConstReal(g->f64, 9223372036854775808.0);
  LLVMValueRef in = LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, d, lo, ""),
                                 LLVMBuildFCmp(B, LLVMRealOLT, d, hi, ""), "");
  return LLVMBuildSelect(B, in, LLVMBuildFPToSI(B, d, g->i64, ""),
                         jit_c64(g, 0x8000000000000000ull), "");
}

/* engine_scalar.h's fp_to_ui: from 2^63 up to 2^64 the truncation of
 * v - 2^63, plus 2^63; everywhere else fp_to_si's value (which is also
 * fp_to_ui's for a NaN, for 2^64 and beyond, and for v <= -1). */
static LLVMValueRef fp_to_ui(jit_gen *g, LLVMValueRef d) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef h63 = LLVMConstReal(g->f64, 9223372036854775808.0);
  LLVMValueRef h64 = LLVMConstReal(g->f64, 18446744073709551616.0);
  LLVMValueRef big =
      LLVMBuildAnd(B, LLVMBuildFCmp(B, LLVMRealOGE, d, h63, ""),
                   LLVMBuildFCmp(B, LLVMRealOLT, d, h64, ""), "");
  LLVMValueRef hv = LLVMBuildAdd(
      B, LLVMBuildFPToSI(B, LLVMBuildFSub(B, d, h63, ""), g->i64, ""),
      jit_c64(g, 0x8000000000000000ull), "");
  return LLVMBuildSelect(B, big, hv, fp_to_si(g, d), "");
}

/* engine_scalar.h's cast1 for the casts to or from floating point */
static LLVMValueRef cast(jit_gen *g, const cb_op *op, LLVMValueRef a) {
  LLVMBuilderRef B = g->B;
  unsigned ty = op->ty, ty2 = op->ty2;
  switch ((cb_opcode)op->code) {
  case CB_OP_FPTRUNC:
    return jit_word_f32(g,
                        LLVMBuildFPTrunc(B, jit_f64_of(g, a), f32_ty(g), ""));
  case CB_OP_FPEXT:
    return jit_word_f64(g, LLVMBuildFPExt(B, jit_f32_of(g, a), g->f64, ""));
  case CB_OP_FPTOUI:
  case CB_OP_FPTOSI: {
    LLVMValueRef d = jit_lane_d(g, a, ty2);
    LLVMValueRef r = op->code == CB_OP_FPTOUI ? fp_to_ui(g, d) : fp_to_si(g, d);
    return jit_mask(g, r, ty);
  }
  case CB_OP_UITOFP: {
    LLVMValueRef x = jit_mask(g, a, ty2);
    return ty == CB_TY_F32
               ? jit_word_f32(g, LLVMBuildUIToFP(B, x, f32_ty(g), ""))
               : jit_word_f64(g, LLVMBuildUIToFP(B, x, g->f64, ""));
  }
  default: { /* SITOFP */
    LLVMValueRef x = jit_sx(g, a, ty2);
    return ty == CB_TY_F32
               ? jit_word_f32(g, LLVMBuildSIToFP(B, x, f32_ty(g), ""))
               : jit_word_f64(g, LLVMBuildSIToFP(B, x, g->f64, ""));
  }
  }
}

static bool is_fp(unsigned ty) {
  return ty == CB_TY_F32 || ty == CB_TY_F64;
}

static bool is_int(unsigned ty) {
  return ty >= CB_TY_I1 && ty <= CB_TY_I64;
}

bool jit_fp_covered(const cb_op *op) {
  if (op->lanes > 1)
    return false;
  unsigned ty = op->ty, ty2 = op->ty2;
  switch ((cb_opcode)op->code) {
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
  case CB_OP_FNEG:
  case CB_OP_FCMP:
    return is_fp(ty);
  case CB_OP_FPTRUNC:
    return ty == CB_TY_F32 && ty2 == CB_TY_F64;
  case CB_OP_FPEXT:
    return ty == CB_TY_F64 && ty2 == CB_TY_F32;
  case CB_OP_FPTOUI:
  case CB_OP_FPTOSI:
    return (is_int(ty) || ty == CB_TY_PTR) && is_fp(ty2);
  case CB_OP_UITOFP:
  case CB_OP_SITOFP:
    return is_fp(ty) && (is_int(ty2) || ty2 == CB_TY_PTR);
  default:
    return false;
  }
}

void jit_fp_op(jit_gen *g, const cb_op *op) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef a = jit_val(g, op->a), r;
  switch ((cb_opcode)op->code) {
  case CB_OP_FNEG:
    /* -x flips the sign bit (xorps), NaNs too */
    r = op->ty == CB_TY_F32
            ? LLVMBuildAnd(B, LLVMBuildXor(B, a, jit_c64(g, 1ull << 31), ""),
                           jit_c64(g, 0xffffffffu), "")
            : LLVMBuildXor(B, a, jit_c64(g, 1ull << 63), "");
    break;
  case CB_OP_FCMP: {
    /* the predicates are LLVM's (program.h, cb_fcmp); an f32 compares
     * as its double would */
    bool f = op->ty == CB_TY_F32;
    LLVMValueRef b = jit_val(g, op->b);
    LLVMValueRef c = LLVMBuildFCmp(B, (LLVMRealPredicate)op->aux,
                                   f ? jit_f32_of(g, a) : jit_f64_of(g, a),
                                   f ? jit_f32_of(g, b) : jit_f64_of(g, b), "");
    r = LLVMBuildZExt(B, c, g->i64, "");
    break;
  }
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
    r = jit_fbin(g, op->code, op->ty, a, jit_val(g, op->b));
    break;
  default:
    r = cast(g, op, a);
    break;
  }
  jit_set(g, op->dst, r);
}
