/* lower_wide.c: LLVM IR's wide values -> the compact IR (program.h, "Wide
 * values"): integers whose width is not 1, 8, 16, 32 or 64 (clang's
 * coalesced bit-fields, __int128) and x86_fp80 (long double). Their
 * arithmetic, compares and casts become CB_OP_WIDE ops, or plain 64-bit
 * ops where a value of at most 64 bits kept zero-extended needs no more
 * (and, or, xor, lshr, unsigned division, unsigned compares, zext); their
 * loads and stores become the accesses the x86 backend makes; their
 * constants are flattened into 64-bit limbs. Copies (phi, select,
 * aggregates, calls, returns) are lower_ops.c's, as for any value. */
#include "lower_internal.h"

#include <stdio.h>
#include <string.h>

unsigned fe_wide_int_bits(LLVMTypeRef t) {
  if (LLVMGetTypeKind(t) != LLVMIntegerTypeKind)
    return 0;
  unsigned w = LLVMGetIntTypeWidth(t);
  return w == 1 || w == 8 || w == 16 || w == 32 || w == 64 ? 0 : w;
}

bool fe_is_f80(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMX86_FP80TypeKind;
}

bool fe_wide_ty(LLVMTypeRef t) {
  return fe_wide_int_bits(t) || fe_is_f80(t);
}

/* Width in bits of an integer type (0 for any other). */
static unsigned int_bits(LLVMTypeRef t) {
  return LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 0;
}

static cb_ty fp_ty(LLVMTypeRef t) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMFloatTypeKind:
    return CB_TY_F32;
  case LLVMDoubleTypeKind:
    return CB_TY_F64;
  case LLVMX86_FP80TypeKind:
    return CB_TY_F80;
  default:
    return CB_TY_VOID;
  }
}

/* A constant of the current Program (not shared: the caller's own). */
static cb_operand kconst(fe *f, uint64_t v) {
  cb_value x;
  x.u = v;
  FE_PUSH(f->consts, x);
  return (f->consts.n - 1) | CB_OPND_CONST;
}

static uint32_t temp(fe *f) {
  return f->n_slots++;
}

static void emit2(fe *f, uint8_t code, cb_ty ty, uint32_t dst, cb_operand a,
                  cb_operand b) {
  cb_op o = fe_new_op(code);
  o.ty = (uint8_t)ty;
  o.dst = dst;
  o.a = a;
  o.b = b;
  FE_PUSH(f->ops, o);
}

static void emit_wide(fe *f, const cb_op *like, unsigned sub, unsigned pred,
                      unsigned rbits, unsigned obits, uint8_t ty2, cb_operand a,
                      cb_operand b) {
  cb_op o = *like;
  o.code = CB_OP_WIDE;
  o.ty2 = ty2;
  o.a = a;
  o.b = b;
  o.aux = CB_WIDE_AUX(sub, pred, rbits, obits);
  FE_PUSH(f->ops, o);
}

static bool too_wide(fe *f, LLVMValueRef I, unsigned bits) {
  if (bits <= CB_WIDE_MAX_BITS)
    return false;
  char buf[96];
  snprintf(buf, sizeof buf, "integer of %u bits (at most %u)", bits,
           CB_WIDE_MAX_BITS);
  return !fe_unsupported(f, I, buf);
}

/* ---- vector masks ----------------------------------------------------- */

static bool is_bool_vector(LLVMTypeRef t, unsigned n) {
  return LLVMGetTypeKind(t) == LLVMVectorTypeKind &&
         LLVMGetVectorSize(t) == n &&
         LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(LLVMGetElementType(t)) == 1;
}

/* A vector of n i1 lanes and an n-bit integer, n < 64 and not a width of
 * its own (the loop vectorizer's any-of and all-of reductions: `bitcast
 * <4 x i1> %c to i4`, then a compare with 0). The integer is one slot,
 * zero-extended; the bit cast of a vector of p = 8, 16 or 32 lanes to ip
 * is the engine's own (lane k is bit k, lower_ops.c), so the n lanes are
 * first padded to p with zero lanes, or cut from p after. 1: lowered,
 * 0: error reported, -1: not this case. */
static int lower_mask_cast(fe *f, LLVMValueRef I, LLVMTypeRef dst_t,
                           LLVMTypeRef src_t) {
  unsigned n = fe_wide_int_bits(dst_t);
  bool to_int = n && is_bool_vector(src_t, n);
  if (!to_int) {
    n = fe_wide_int_bits(src_t);
    if (!n || !is_bool_vector(dst_t, n))
      return -1;
  }
  if (n >= 32)
    return -1;
  unsigned p = n < 8 ? 8 : n < 16 ? 16 : 32;
  cb_ty ity = p == 8 ? CB_TY_I8 : p == 16 ? CB_TY_I16 : CB_TY_I32;
  cb_operand src, zero, dst;
  if (!fe_opnd(f, I, 0, &src) || !fe_slot_of(f, I, NULL, &dst))
    return 0;
  uint32_t tmp = f->n_slots;
  f->n_slots += p;
  cb_op sh = fe_new_op(CB_OP_SHUFFLE), bc = fe_new_op(CB_OP_BITCAST);
  bc.lanes = 1;
  if (to_int) {
    /* tmp = <p x i1> (v's lanes, then zeros); dst = bitcast tmp to ip */
    if (!fe_const_operand(f, LLVMConstNull(src_t), I, &zero))
      return 0;
    sh.ty = CB_TY_I1;
    sh.lanes = (uint8_t)p;
    sh.dst = tmp;
    sh.a = src;
    sh.b = zero;
    sh.aux = f->extra.n;
    FE_RESERVE(f->extra, p + 1);
    f->extra.v[f->extra.n++] = n;
    for (unsigned i = 0; i < p; i++)
      f->extra.v[f->extra.n++] = i < n ? (int64_t)i : (int64_t)n;
    bc.ty = (uint8_t)ity;
    bc.ty2 = CB_TY_I1;
    bc.dst = dst;
    bc.a = tmp;
    FE_PUSH(f->ops, sh);
    FE_PUSH(f->ops, bc);
  } else {
    /* tmp = bitcast v (zero-extended to ip) to <p x i1>; dst = its first
     * n lanes */
    bc.ty = CB_TY_I1;
    bc.lanes = (uint8_t)p;
    bc.ty2 = (uint8_t)ity;
    bc.dst = tmp;
    bc.a = src;
    sh.ty = CB_TY_I1;
    sh.lanes = (uint8_t)n;
    sh.dst = dst;
    sh.a = tmp;
    sh.b = tmp;
    sh.aux = f->extra.n;
    FE_RESERVE(f->extra, n + 1);
    f->extra.v[f->extra.n++] = p;
    for (unsigned i = 0; i < n; i++)
      f->extra.v[f->extra.n++] = i;
    FE_PUSH(f->ops, bc);
    FE_PUSH(f->ops, sh);
  }
  return 1;
}

/* ---- constants -------------------------------------------------------- */

bool fe_wide_const(fe *f, LLVMValueRef c, cb_value *out, uint32_t n) {
  (void)f;
  LLVMTypeRef t = LLVMTypeOf(c);
  memset(out, 0, n * sizeof *out);
  if (LLVMIsAUndefValue(c) || LLVMIsAConstantAggregateZero(c))
    return true;
  if (fe_is_f80(t)) {
    if (!LLVMIsAConstantFP(c) || n != 2)
      return false;
    /* the 80 bits as LLVM holds them (APFloat's x87 layout: the
     * significand, then sign and exponent), which is memory's order */
    c = LLVMConstBitCast(c, LLVMIntTypeInContext(LLVMGetTypeContext(t), 80));
    t = LLVMTypeOf(c);
  }
  if (!LLVMIsAConstantInt(c))
    return false;
  unsigned w = LLVMGetIntTypeWidth(t);
  LLVMTypeRef i64 = LLVMInt64TypeInContext(LLVMGetTypeContext(t));
  for (uint32_t j = 0; j < n && j * 64 < w; j++) {
    LLVMValueRef x = c;
    if (j)
      x = LLVMConstLShr(c, LLVMConstInt(t, 64ull * j, false));
    if (w > 64)
      x = LLVMConstTrunc(x, i64);
    if (!LLVMIsAConstantInt(x))
      return false;
    out[j].u = LLVMConstIntGetZExtValue(x);
  }
  return true;
}

bool fe_wide_const_bytes(fe *f, LLVMValueRef c, uint8_t *buf, uint64_t size) {
  cb_value v[(CB_WIDE_MAX_BITS + 63) / 64 + 1];
  uint32_t n = fe_type_slots(LLVMTypeOf(c), NULL);
  if (n == UINT32_MAX || n > sizeof v / sizeof *v || size > n * 8u ||
      !fe_wide_const(f, c, v, n))
    return false;
  memcpy(buf, v, size);
  return true;
}

/* ---- loads and stores ------------------------------------------------- */

/* The x86 backend's accesses of an integer of `bytes` bytes: LegalizeDAG
 * splits a width that is not a power of two into its power-of-two low
 * part and the rest, recursively, and the type legalizer a width over 64
 * bits into 64-bit parts first (an i24 is a 2-byte and a 1-byte access,
 * an i56 4, 2 and 1, an i112 8, 4 and 2): from the lowest address, the
 * largest power of two not above min(8, bytes left). */
static unsigned piece_at(uint64_t left) {
  unsigned p = 8;
  while (p > left)
    p >>= 1;
  return p;
}

static cb_ty piece_ty(unsigned bytes) {
  return bytes == 8   ? CB_TY_I64
         : bytes == 4 ? CB_TY_I32
         : bytes == 2 ? CB_TY_I16
                      : CB_TY_I8;
}

bool fe_wide_access(fe *f, LLVMValueRef I, bool st, LLVMValueRef addr,
                    cb_operand base, cb_operand val, LLVMTypeRef t) {
  uint64_t bytes = LLVMStoreSizeOfType(f->td, t);
  if (fe_is_f80(t)) {
    /* fld/fstp tbyte: one access of 10 bytes */
    cb_op o = fe_new_op(st ? CB_OP_STORE : CB_OP_LOAD);
    o.ty = CB_TY_F80;
    if (st) {
      o.a = val;
      o.b = base;
    } else {
      o.dst = val;
      o.a = base;
    }
    o.aux = fe_new_site(f, I, addr, (uint32_t)bytes, st, false);
    FE_PUSH(f->ops, o);
    return true;
  }
  if (too_wide(f, I, int_bits(t)))
    return false;
  /* the pieces, for machine_merge.c to hold to the machine code's
     accesses (DAGCombiner narrows a bit-field's load to the bytes it
     needs, or folds the store into a read-modify-write) */
  fe_wide_grp grp = {f->cur_func, 0, 0, f->wide_ops.n, 0, (uint32_t)bytes, st};
  uint32_t col;
  fe_loc_of(f, I, &grp.file, &grp.line, &col, NULL);
  for (uint64_t off = 0; off < bytes;) {
    /* one 64-bit limb: its pieces */
    uint32_t limb = (uint32_t)(off / 8);
    uint64_t end = (off / 8 + 1) * 8 < bytes ? (off / 8 + 1) * 8 : bytes;
    cb_operand acc = CB_NONE;
    for (; off < end;) {
      unsigned pb = piece_at(end - off);
      unsigned shift = (unsigned)(off % 8) * 8;
      cb_operand at = fe_addr_at(f, base, off);
      uint32_t site = fe_new_site(f, I, addr, pb, st, false);
      cb_op o = fe_new_op(st ? CB_OP_STORE : CB_OP_LOAD);
      o.ty = (uint8_t)piece_ty(pb);
      o.aux = site;
      off += pb;
      bool last = off == end;
      grp.n++;
      if (st) {
        cb_operand v = val + limb;
        if (shift) {
          uint32_t s = temp(f);
          emit2(f, CB_OP_LSHR, CB_TY_I64, s, v, kconst(f, shift));
          v = s;
        }
        o.a = v;
        o.b = at;
        FE_PUSH(f->wide_ops, f->ops.n);
        FE_PUSH(f->ops, o);
        continue;
      }
      /* a load: zero-extended into a slot, shifted into place, or'ed */
      bool only = shift == 0 && last;
      uint32_t d = only ? val + limb : temp(f);
      o.dst = d;
      o.a = at;
      FE_PUSH(f->wide_ops, f->ops.n);
      FE_PUSH(f->ops, o);
      if (only)
        break;
      cb_operand part = d;
      if (shift) {
        uint32_t s = temp(f);
        emit2(f, CB_OP_SHL, CB_TY_I64, s, d, kconst(f, shift));
        part = s;
      }
      if (acc == CB_NONE) {
        acc = part;
      } else {
        uint32_t r = last ? val + limb : temp(f);
        emit2(f, CB_OP_OR, CB_TY_I64, r, acc, part);
        acc = r;
      }
    }
  }
  FE_PUSH(f->wide_grps, grp);
  return true;
}

static bool lower_access(fe *f, LLVMValueRef I, bool st) {
  if (LLVMGetOrdering(I) != LLVMAtomicOrderingNotAtomic)
    return fe_unsupported(f, I, "atomic memory access");
  LLVMValueRef addr = LLVMGetOperand(I, st ? 1 : 0);
  LLVMTypeRef t = LLVMTypeOf(st ? LLVMGetOperand(I, 0) : I);
  cb_operand base, val;
  if (!fe_operand_of(f, addr, I, &base))
    return false;
  if (st ? !fe_operand_of(f, LLVMGetOperand(I, 0), I, &val)
         : !fe_slot_of(f, I, NULL, &val))
    return false;
  return fe_wide_access(f, I, st, addr, base, val, t);
}

/* ---- operations -------------------------------------------------------- */

static uint8_t map_binop(LLVMOpcode opc) {
  switch (opc) {
  case LLVMAdd:
    return CB_OP_ADD;
  case LLVMSub:
    return CB_OP_SUB;
  case LLVMMul:
    return CB_OP_MUL;
  case LLVMUDiv:
    return CB_OP_UDIV;
  case LLVMSDiv:
    return CB_OP_SDIV;
  case LLVMURem:
    return CB_OP_UREM;
  case LLVMSRem:
    return CB_OP_SREM;
  case LLVMShl:
    return CB_OP_SHL;
  case LLVMLShr:
    return CB_OP_LSHR;
  case LLVMAShr:
    return CB_OP_ASHR;
  case LLVMAnd:
    return CB_OP_AND;
  case LLVMOr:
    return CB_OP_OR;
  case LLVMXor:
    return CB_OP_XOR;
  case LLVMFAdd:
    return CB_OP_FADD;
  case LLVMFSub:
    return CB_OP_FSUB;
  case LLVMFMul:
    return CB_OP_FMUL;
  case LLVMFDiv:
    return CB_OP_FDIV;
  case LLVMFRem:
    return CB_OP_FREM;
  default:
    return CB_OP_COUNT;
  }
}

/* Does instruction I touch a wide value (its own or an operand's)? */
static bool touches_wide(LLVMValueRef I) {
  if (fe_wide_ty(LLVMTypeOf(I)))
    return true;
  unsigned n = (unsigned)LLVMGetNumOperands(I);
  for (unsigned i = 0; i < n && i < 3; i++)
    if (fe_wide_ty(LLVMTypeOf(LLVMGetOperand(I, i))))
      return true;
  return false;
}

static bool lower_cast(fe *f, LLVMValueRef I, LLVMOpcode opc) {
  LLVMValueRef src = LLVMGetOperand(I, 0);
  LLVMTypeRef st = LLVMTypeOf(src), dt = LLVMTypeOf(I);
  unsigned sb = int_bits(st), db = int_bits(dt);
  if (too_wide(f, I, sb) || too_wide(f, I, db))
    return false;
  cb_op o = fe_new_op(CB_OP_MOV);
  if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
    return false;
  uint8_t ty2 = fe_elem_ty_of(st);
  switch (opc) {
  case LLVMZExt:
    if (db <= 64) {
      FE_PUSH(f->ops, o); /* kept zero-extended already */
      return true;
    }
    emit_wide(f, &o, CB_OP_ZEXT, 0, db, sb, ty2, o.a, CB_NONE);
    return true;
  case LLVMTrunc:
    if (sb <= 64 && fe_wide_int_bits(dt)) {
      emit2(f, CB_OP_AND, CB_TY_I64, o.dst, o.a, kconst(f, (1ull << db) - 1));
      return true;
    }
    if (sb <= 64) { /* to i1, i8, i16 or i32: the plain truncation */
      emit2(f, CB_OP_TRUNC, (cb_ty)o.ty, o.dst, o.a, CB_NONE);
      f->ops.v[f->ops.n - 1].ty2 = CB_TY_I64;
      return true;
    }
    emit_wide(f, &o, CB_OP_TRUNC, 0, db, sb, ty2, o.a, CB_NONE);
    return true;
  case LLVMSExt:
    emit_wide(f, &o, CB_OP_SEXT, 0, db, sb, ty2, o.a, CB_NONE);
    return true;
  case LLVMFPExt:
  case LLVMFPTrunc:
    emit_wide(f, &o, opc == LLVMFPExt ? CB_OP_FPEXT : CB_OP_FPTRUNC, 0, 0, 0,
              fp_ty(st), o.a, CB_NONE);
    return true;
  case LLVMFPToSI:
  case LLVMFPToUI:
    if (db > 128)
      return fe_unsupported(f, I,
                            "conversion of a floating-point value to "
                            "an integer wider than 128 bits");
    emit_wide(f, &o, opc == LLVMFPToSI ? CB_OP_FPTOSI : CB_OP_FPTOUI, 0, db, 0,
              fp_ty(st), o.a, CB_NONE);
    return true;
  case LLVMSIToFP:
  case LLVMUIToFP:
    if (sb > 128)
      return fe_unsupported(f, I,
                            "conversion of an integer wider than 128 "
                            "bits to floating point");
    emit_wide(f, &o, opc == LLVMSIToFP ? CB_OP_SITOFP : CB_OP_UITOFP, 0, 0, sb,
              ty2, o.a, CB_NONE);
    return true;
  default:
    return fe_unsupported(f, I, "this cast of a wide value");
  }
}

int fe_lower_wide(fe *f, LLVMValueRef I) {
  if (!touches_wide(I))
    return -1;
  LLVMOpcode opc = LLVMGetInstructionOpcode(I);
  switch (opc) {
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMUDiv:
  case LLVMSDiv:
  case LLVMURem:
  case LLVMSRem:
  case LLVMShl:
  case LLVMLShr:
  case LLVMAShr:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMFAdd:
  case LLVMFSub:
  case LLVMFMul:
  case LLVMFDiv:
  case LLVMFRem: {
    LLVMTypeRef t = LLVMTypeOf(I);
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      return fe_unsupported(f, I, "vector of wide values");
    unsigned bits = int_bits(t);
    if (too_wide(f, I, bits))
      return 0;
    cb_op o = fe_new_op(CB_OP_MOV);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return 0;
    uint8_t sub = map_binop(opc);
    /* values of at most 64 bits are kept zero-extended: these results
     * need no mask, and the plain ops keep their fast paths */
    if (bits && bits <= 64 &&
        (sub == CB_OP_AND || sub == CB_OP_OR || sub == CB_OP_XOR ||
         sub == CB_OP_LSHR || sub == CB_OP_UDIV || sub == CB_OP_UREM)) {
      emit2(f, sub, CB_TY_I64, o.dst, o.a, o.b);
      return 1;
    }
    emit_wide(f, &o, sub, 0, bits, bits, o.ty, o.a, o.b);
    return 1;
  }
  case LLVMFNeg: {
    cb_op o = fe_new_op(CB_OP_MOV);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
      return 0;
    emit_wide(f, &o, CB_OP_FNEG, 0, 0, 0, o.ty, o.a, CB_NONE);
    return 1;
  }
  case LLVMICmp:
  case LLVMFCmp: {
    LLVMTypeRef t = LLVMTypeOf(LLVMGetOperand(I, 0));
    if (LLVMGetTypeKind(t) == LLVMVectorTypeKind)
      return fe_unsupported(f, I, "vector of wide values");
    unsigned bits = int_bits(t);
    if (too_wide(f, I, bits))
      return 0;
    cb_op o = fe_new_op(CB_OP_MOV);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return 0;
    if (opc == LLVMFCmp) {
      emit_wide(f, &o, CB_OP_FCMP, (unsigned)LLVMGetFCmpPredicate(I), 0, 0,
                CB_TY_F80, o.a, o.b);
      return 1;
    }
    unsigned pred = (unsigned)(LLVMGetICmpPredicate(I) - LLVMIntEQ);
    if (bits <= 64 && pred < CB_ICMP_SGT) {
      cb_op c = o;
      c.code = CB_OP_ICMP;
      c.ty = CB_TY_I64;
      c.aux = pred;
      FE_PUSH(f->ops, c);
      return 1;
    }
    emit_wide(f, &o, CB_OP_ICMP, pred, 1, bits, CB_TY_I64, o.a, o.b);
    return 1;
  }
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMFPToUI:
  case LLVMFPToSI:
  case LLVMUIToFP:
  case LLVMSIToFP:
    return lower_cast(f, I, opc) ? 1 : 0;
  case LLVMBitCast: {
    /* an integer of whole limbs and a vector of 64-bit lanes share their
     * slots' layout (lower_ops.c's bit cast); others do not */
    LLVMTypeRef a = LLVMTypeOf(I), b = LLVMTypeOf(LLVMGetOperand(I, 0));
    unsigned wa = fe_wide_int_bits(a), wb = fe_wide_int_bits(b);
    if ((!wa || wa % 64 == 0) && (!wb || wb % 64 == 0) && !fe_is_f80(a) &&
        !fe_is_f80(b))
      return -1;
    if (fe_alias_source(I)) /* x86_fp80 and i80: one layout (lower.c) */
      return -1;
    int m = lower_mask_cast(f, I, a, b);
    if (m >= 0)
      return m;
    return fe_unsupported(f, I, "bit cast of a wide value") ? 1 : 0;
  }
  case LLVMPtrToInt:
  case LLVMIntToPtr:
    return fe_unsupported(f, I, "pointer cast to or from a wide integer") ? 1
                                                                          : 0;
  case LLVMLoad:
  case LLVMStore:
    return lower_access(f, I, opc == LLVMStore) ? 1 : 0;
  case LLVMSwitch:
    if (fe_is_f80(LLVMTypeOf(LLVMGetOperand(I, 0))) ||
        int_bits(LLVMTypeOf(LLVMGetOperand(I, 0))) > 64)
      return fe_unsupported(f, I, "switch on an integer wider than 64 bits")
                 ? 1
                 : 0;
    return -1;
  default:
    /* copies (phi, select, freeze, aggregates, calls, returns) */
    return -1;
  }
}

/* ---- calls ---------------------------------------------------------------
 */

static bool call_touches_wide(LLVMValueRef I) {
  if (fe_wide_ty(LLVMTypeOf(I)))
    return true;
  unsigned n = (unsigned)LLVMGetNumArgOperands(I);
  for (unsigned k = 0; k < n; k++)
    if (fe_wide_ty(LLVMTypeOf(LLVMGetOperand(I, k))))
      return true;
  return false;
}

static bool call_touches_wide_int(LLVMValueRef I) {
  if (fe_wide_int_bits(LLVMTypeOf(I)))
    return true;
  unsigned n = (unsigned)LLVMGetNumArgOperands(I);
  for (unsigned k = 0; k < n; k++)
    if (fe_wide_int_bits(LLVMTypeOf(LLVMGetOperand(I, k))))
      return true;
  return false;
}

/* The long double intrinsics that x86-64's backend computes inline (fabs,
 * fsqrt, the sign bit's bit operations, fmul and fadd) and those it
 * calls libm for (X86ISelLowering: FFLOOR, FRINT, FMAXNUM, FMA, FSIN, ...
 * are Expand for f80, a libcall). */
static const struct {
  const char *name;
  int intr;  /* computed inline: the cb_intrinsic, else -1 */
  int libfn; /* called: the cb_libfn */
} f80_intrinsics[] = {
    {"fabs", CB_INTR_FABS, -1},         {"sqrt", CB_INTR_SQRT, -1},
    {"copysign", CB_INTR_COPYSIGN, -1}, {"fmuladd", CB_INTR_FMULADD, -1},
    {"floor", -1, CB_LIBC_FLOORL},      {"ceil", -1, CB_LIBC_CEILL},
    {"trunc", -1, CB_LIBC_TRUNCL},      {"round", -1, CB_LIBC_ROUNDL},
    {"rint", -1, CB_LIBC_RINTL},        {"nearbyint", -1, CB_LIBC_NEARBYINTL},
    {"maxnum", -1, CB_LIBC_FMAXL},      {"minnum", -1, CB_LIBC_FMINL},
    {"fma", -1, CB_LIBC_FMAL},          {"pow", -1, CB_LIBC_POWL},
    {"exp", -1, CB_LIBC_EXPL},          {"exp2", -1, CB_LIBC_EXP2L},
    {"log", -1, CB_LIBC_LOGL},          {"log2", -1, CB_LIBC_LOG2L},
    {"log10", -1, CB_LIBC_LOG10L},      {"sin", -1, CB_LIBC_SINL},
    {"cos", -1, CB_LIBC_COSL},
};

int fe_wide_intrinsic(fe *f, LLVMValueRef I, const char *iname, int64_t *kind,
                      int64_t *target) {
  if (!call_touches_wide(I))
    return -1;
  char buf[300];
  size_t il = strcspn(iname, ".");
  /* ctpop of a value of at most 64 bits kept zero-extended is the 64-bit
   * ctpop of its slot (the vectorizer counts a compare's true lanes as
   * `ctpop(bitcast <4 x i1> to i4)`) */
  if (!strncmp(iname, "ctpop.", 6) && fe_wide_int_bits(LLVMTypeOf(I)) <= 64)
    return -1;
  if (call_touches_wide_int(I)) {
    snprintf(buf, sizeof buf, "intrinsic llvm.%.200s on a wide integer", iname);
    return fe_unsupported(f, I, buf) ? 1 : 0;
  }
  for (size_t i = 0; i < sizeof f80_intrinsics / sizeof *f80_intrinsics; i++) {
    if (strlen(f80_intrinsics[i].name) != il ||
        strncmp(iname, f80_intrinsics[i].name, il))
      continue;
    if (f80_intrinsics[i].libfn >= 0) {
      *kind = CB_CALL_LIBC;
      *target = f80_intrinsics[i].libfn;
      return 2;
    }
    cb_op o = fe_new_op(CB_OP_MOV);
    unsigned n = (unsigned)LLVMGetNumArgOperands(I);
    if (n < 1 || n > 3 || !fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        (n > 1 && !fe_opnd(f, I, 1, &o.b)))
      return 0;
    if (n > 2 && !fe_opnd(f, I, 2, &o.c))
      return 0;
    cb_op w = o;
    w.code = CB_OP_WIDE;
    w.ty2 = CB_TY_F80;
    w.aux = CB_WIDE_AUX(CB_OP_CALL, 0, f80_intrinsics[i].intr, 0);
    FE_PUSH(f->ops, w);
    return 1;
  }
  snprintf(buf, sizeof buf, "intrinsic llvm.%.200s on long double", iname);
  return fe_unsupported(f, I, buf) ? 1 : 0;
}

bool fe_wide_call_check(fe *f, LLVMValueRef I, int64_t kind, int64_t target) {
  if (kind != CB_CALL_LIBC || !call_touches_wide(I))
    return true;
  size_t len;
  const char *name = LLVMGetValueName2(LLVMGetCalledValue(I), &len);
  char buf[300];
  if (!call_touches_wide_int(I)) {
    /* long double: the printf family formats it, libm computes it */
    if (target == CB_LIBC_PRINTF || target == CB_LIBC_FPRINTF ||
        target == CB_LIBC_SPRINTF || target == CB_LIBC_SNPRINTF ||
        (target >= CB_LIBC_ACOSL && target <= CB_LIBC_FMAL))
      return true;
    snprintf(buf, sizeof buf, "long double argument or result of %.*s",
             (int)(len < 200 ? len : 200), name);
  } else {
    snprintf(buf, sizeof buf, "wide integer argument or result of %.*s",
             (int)(len < 200 ? len : 200), name);
  }
  return fe_unsupported(f, I, buf);
}
