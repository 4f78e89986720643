/* lower_vecgep.c: a getelementptr whose result is a vector of pointers
 * (the SLP and loop vectorizers' `getelementptr T, <2 x T*> %splat,
 * <2 x i64> <i64 1, i64 2>`, stored as a vector: arrays of row pointers,
 * libjpeg's MCU buffers). The compact IR's GEP is scalar; here the lanes
 * are computed with vector ops on 64-bit lanes, as LangRef defines the
 * vector form: each scalar operand is splat to every lane, each index is
 * sign-extended to 64 bits and scaled by its type's allocation size, and
 * struct field indices (equal in every lane) add their offset. */
#include "lower_internal.h"

#include <stdio.h>

typedef struct vgep {
  fe *f;
  LLVMValueRef I;
  unsigned n; /* lanes */
  LLVMTypeRef i64;
} vgep;

static uint32_t new_slots(fe *f, unsigned n) {
  uint32_t s = f->n_slots;
  f->n_slots += n;
  return s;
}

/* A constant vector of n 64-bit lanes. */
static bool const_lanes(vgep *g, const int64_t *v, cb_operand *out) {
  LLVMValueRef c[64];
  for (unsigned k = 0; k < g->n; k++)
    c[k] = LLVMConstInt(g->i64, (unsigned long long)v[k], 1);
  return fe_const_operand(g->f, LLVMConstVector(c, g->n), g->I, out);
}

/* dst (n lanes) = x splat (x one slot) */
static cb_operand splat(vgep *g, cb_operand x, uint8_t ty) {
  fe *f = g->f;
  cb_op o = fe_new_op(CB_OP_SHUFFLE);
  o.ty = ty;
  o.lanes = (uint8_t)g->n;
  o.dst = new_slots(f, g->n);
  o.a = o.b = x;
  o.aux = f->extra.n;
  FE_RESERVE(f->extra, g->n + 1);
  f->extra.v[f->extra.n++] = 1;
  for (unsigned k = 0; k < g->n; k++)
    f->extra.v[f->extra.n++] = 0;
  FE_PUSH(f->ops, o);
  return o.dst;
}

static cb_operand lanes_op(vgep *g, uint8_t code, uint8_t ty2, cb_operand a,
                           cb_operand b) {
  cb_op o = fe_new_op(code);
  o.ty = CB_TY_I64;
  o.ty2 = ty2;
  o.lanes = (uint8_t)g->n;
  o.dst = new_slots(g->f, g->n);
  o.a = a;
  o.b = b;
  FE_PUSH(g->f->ops, o);
  return o.dst;
}

/* The constant lanes of a constant index (undefined lanes: 0); false if
 * the index is not a constant. */
static bool index_consts(vgep *g, LLVMValueRef idx, int64_t *v) {
  if (!LLVMIsAConstant(idx) || LLVMIsAConstantExpr(idx))
    return false;
  bool vec = LLVMGetTypeKind(LLVMTypeOf(idx)) == LLVMVectorTypeKind;
  LLVMTypeRef et = vec ? LLVMGetElementType(LLVMTypeOf(idx)) : LLVMTypeOf(idx);
  unsigned bits = LLVMGetIntTypeWidth(et);
  bool zero = LLVMIsAUndefValue(idx) || LLVMIsAConstantAggregateZero(idx);
  bool data = LLVMIsAConstantDataSequential(idx) != NULL;
  for (unsigned k = 0; k < g->n; k++) {
    LLVMValueRef e = zero   ? NULL
                     : !vec ? idx
                     : data ? LLVMGetElementAsConstant(idx, k)
                            : LLVMGetOperand(idx, k);
    if (zero) {
      v[k] = 0;
      continue;
    }
    if (!e || LLVMIsAConstantExpr(e))
      return false;
    v[k] = LLVMIsAConstantInt(e)
               ? fe_sext(LLVMConstIntGetZExtValue(e), bits > 64 ? 64 : bits)
               : 0;
  }
  return true;
}

bool fe_lower_vector_gep(fe *f, LLVMValueRef I) {
  vgep g = {f, I, LLVMGetVectorSize(LLVMTypeOf(I)),
            LLVMInt64TypeInContext(f->ctx)};
  if (g.n < 2 || g.n > 64)
    return fe_unsupported(f, I, "getelementptr of more than 64 lanes");
  cb_operand acc;
  LLVMValueRef base = LLVMGetOperand(I, 0);
  if (!fe_operand_of(f, base, I, &acc))
    return false;
  if (LLVMGetTypeKind(LLVMTypeOf(base)) != LLVMVectorTypeKind)
    acc = splat(&g, acc, CB_TY_PTR);
  int64_t off[64] = {0};
  LLVMTypeRef t = LLVMGetGEPSourceElementType(I);
  unsigned nops = (unsigned)LLVMGetNumOperands(I);
  for (unsigned i = 1; i < nops; i++) {
    LLVMValueRef idx = LLVMGetOperand(I, i);
    bool vec = LLVMGetTypeKind(LLVMTypeOf(idx)) == LLVMVectorTypeKind;
    LLVMTypeRef it =
        vec ? LLVMGetElementType(LLVMTypeOf(idx)) : LLVMTypeOf(idx);
    if (LLVMGetTypeKind(it) != LLVMIntegerTypeKind ||
        LLVMGetIntTypeWidth(it) > 64)
      return fe_unsupported(f, I, "getelementptr index wider than 64 bits");
    int64_t v[64] = {0};
    bool konst = index_consts(&g, idx, v);
    int64_t scale;
    if (i == 1) {
      scale = (int64_t)LLVMABISizeOfType(f->td, t);
    } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      if (!konst)
        return fe_unsupported(f, I, "variable struct index in getelementptr");
      for (unsigned k = 0; k < g.n; k++)
        if (v[k] != v[0])
          return fe_unsupported(f, I, "struct index differing between lanes");
      unsigned fld = (unsigned)v[0];
      for (unsigned k = 0; k < g.n; k++)
        off[k] += (int64_t)LLVMOffsetOfElement(f->td, t, fld);
      t = LLVMStructGetTypeAtIndex(t, fld);
      continue;
    } else {
      t = LLVMGetElementType(t);
      scale = (int64_t)LLVMABISizeOfType(f->td, t);
    }
    if (konst) {
      for (unsigned k = 0; k < g.n; k++)
        off[k] += v[k] * scale;
      continue;
    }
    cb_operand x;
    if (!fe_operand_of(f, idx, I, &x))
      return false;
    if (!vec)
      x = splat(&g, x, fe_elem_ty_of(it));
    if (LLVMGetIntTypeWidth(it) < 64)
      x = lanes_op(&g, CB_OP_SEXT, fe_elem_ty_of(it), x, CB_NONE);
    if (scale != 1) {
      int64_t s[64];
      for (unsigned k = 0; k < g.n; k++)
        s[k] = scale;
      cb_operand sc;
      if (!const_lanes(&g, s, &sc))
        return false;
      x = lanes_op(&g, CB_OP_MUL, 0, x, sc);
    }
    acc = lanes_op(&g, CB_OP_ADD, 0, acc, x);
  }
  cb_operand dst, c;
  if (!fe_slot_of(f, I, NULL, &dst) || !const_lanes(&g, off, &c))
    return false;
  cb_op o = fe_new_op(CB_OP_ADD);
  o.ty = CB_TY_I64;
  o.lanes = (uint8_t)g.n;
  o.dst = dst;
  o.a = acc;
  o.b = c;
  FE_PUSH(f->ops, o);
  return true;
}
