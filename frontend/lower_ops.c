/* lower_ops.c: one LLVM instruction -> operations: arithmetic, casts,
 * comparisons, GEPs folded into address recipes, loads and stores
 * (aggregates member by member), branches. */
#include "lower_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static uint32_t agg_offset(LLVMTypeRef t, const unsigned *idx, unsigned n,
                           LLVMTypeRef *leaf) {
  uint32_t off = 0;
  for (unsigned i = 0; i < n; i++) {
    if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      for (unsigned k = 0; k < idx[i]; k++)
        off += fe_type_slots(LLVMStructGetTypeAtIndex(t, k), NULL);
      t = LLVMStructGetTypeAtIndex(t, idx[i]);
    } else {
      t = LLVMGetElementType(t);
      off += idx[i] * fe_type_slots(t, NULL);
    }
  }
  *leaf = t;
  return off;
}

/* The first debug location reached from `bb`, seen from the function of
 * `at` (a location inlined into it is taken at its call site in that
 * function). Phis, llvm.dbg intrinsics and instructions without a
 * location are passed over; an unconditional branch is followed (its own
 * location is the end of a construct, not where the side leads). A
 * bounded walk: blocks that only jump on are what loop rotation and
 * critical-edge splitting leave between a branch and the code of its
 * side. */
static void side_loc(fe *f, LLVMValueRef at, LLVMBasicBlockRef bb,
                     fe_side_loc *out) {
  LLVMMetadataRef at_loc = LLVMInstructionGetDebugLoc(at);
  LLVMMetadataRef at_ia = at_loc ? LLVMDILocationGetInlinedAt(at_loc) : NULL;
  memset(out, 0, sizeof *out);
  for (int step = 0; bb && step < 16; step++) {
    LLVMBasicBlockRef next = NULL;
    for (LLVMValueRef I = LLVMGetFirstInstruction(bb); I;
         I = LLVMGetNextInstruction(I)) {
      LLVMOpcode op = LLVMGetInstructionOpcode(I);
      if (op == LLVMPHI)
        continue;
      if (op == LLVMBr && !LLVMIsConditional(I)) {
        next = LLVMGetSuccessor(I, 0);
        break;
      }
      if (op == LLVMCall) {
        LLVMValueRef callee = LLVMGetCalledValue(I);
        size_t n = 0;
        const char *name = callee ? LLVMGetValueName2(callee, &n) : "";
        if (n > 9 && !strncmp(name, "llvm.dbg.", 9))
          continue;
      }
      LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(I);
      if (!loc || !LLVMDILocationGetLine(loc)) {
        if (LLVMIsATerminatorInst(I))
          return;
        continue;
      }
      while (loc && LLVMDILocationGetInlinedAt(loc) != at_ia)
        loc = LLVMDILocationGetInlinedAt(loc);
      if (!loc)
        return;
      uint32_t file = fe_file_of_scope(f, LLVMDILocationGetScope(loc));
      if (file == CB_NONE)
        return;
      out->file = file;
      out->line = LLVMDILocationGetLine(loc);
      out->col = LLVMDILocationGetColumn(loc);
      return;
    }
    bb = next;
  }
}

/* A branch point; for a conditional br, where each side first leads
 * (fe_branch_texts compares it with the source). */
static bool new_branch(fe *f, LLVMValueRef I, uint32_t block, uint32_t *out) {
  fe_branch_sides sides;
  memset(&sides, 0, sizeof sides);
  if (LLVMGetInstructionOpcode(I) == LLVMBr && LLVMIsConditional(I))
    for (unsigned k = 0; k < 2; k++)
      side_loc(f, I, LLVMGetSuccessor(I, k), &sides.side[k]);
  FE_PUSH(f->branch_sides, sides);
  cb_branch br;
  memset(&br, 0, sizeof br);
  br.func = f->cur_func;
  br.block = block;
  fe_loc_of(f, I, &br.file, &br.line, &br.col, NULL);
  br.text = NULL;
  FE_PUSH(f->branches, br);
  *out = f->branches.n - 1;
  return true;
}

static uint32_t block_index(fe *f, LLVMBasicBlockRef b) {
  uint64_t x = CB_NONE;
  fe_map_get(&f->blockmap, b, &x);
  return (uint32_t)x;
}

/* A temporary slot of the current frame. */
static uint32_t temp_slot(fe *f) {
  return f->n_slots++;
}

/* dst = base + off (bytes) + idx * scale (idx CB_NONE: none). */
static void emit_gep(fe *f, uint32_t dst, cb_operand base, int64_t off,
                     cb_operand idx, unsigned bits, int64_t scale) {
  cb_op g = fe_new_op(CB_OP_GEP);
  g.ty = CB_TY_PTR;
  g.dst = dst;
  g.a = base;
  g.aux = f->extra.n;
  FE_PUSH(f->extra, off);
  FE_PUSH(f->extra, idx == CB_NONE ? 0 : 1);
  if (idx != CB_NONE) {
    FE_PUSH(f->extra, (int64_t)((uint64_t)idx | ((uint64_t)bits << 32)));
    FE_PUSH(f->extra, scale);
  }
  FE_PUSH(f->ops, g);
}

void fe_emit_gep_const(fe *f, uint32_t dst, cb_operand base, int64_t off) {
  emit_gep(f, dst, base, off, CB_NONE, 0, 0);
}

cb_operand fe_addr_at(fe *f, cb_operand base, uint64_t off) {
  if (!off)
    return base;
  uint32_t a = temp_slot(f);
  emit_gep(f, a, base, (int64_t)off, CB_NONE, 0, 0);
  return a;
}

/* A load or store of a vector wider than the function's vector registers:
 * the x86 backend splits it into accesses of a register's width, the
 * lowest first (type legalization), each one an access of its own under
 * cachegrind. */
static bool lower_split_vector_access(fe *f, LLVMValueRef I, const cb_op *like,
                                      bool st, LLVMValueRef addr,
                                      uint32_t size) {
  unsigned w = f->vec_bytes, n = size / w, part = like->lanes / n;
  cb_operand base, val = CB_NONE, dst = CB_NONE;
  if (st) {
    if (!fe_opnd(f, I, 0, &val) || !fe_opnd(f, I, 1, &base))
      return false;
  } else {
    cb_op d = *like;
    if (!fe_set_dst(f, &d, I) || !fe_opnd(f, I, 0, &base))
      return false;
    dst = d.dst;
  }
  for (unsigned i = 0; i < n; i++) {
    cb_op o = *like;
    o.lanes = (uint8_t)part;
    cb_operand at = fe_addr_at(f, base, (uint64_t)i * w);
    if (st) {
      o.a = val + i * part;
      o.b = at;
    } else {
      o.dst = dst + i * part;
      o.a = at;
    }
    o.aux = fe_new_site_at(f, I, addr, (int64_t)i * w, w, st, false);
    FE_PUSH(f->ops, o);
  }
  return true;
}

/* A load or store of a struct or array value: one access per scalar or
 * vector member, as the machine code does it. */
static bool agg_members(fe *f, LLVMValueRef I, bool st, LLVMValueRef addr,
                        cb_operand base, cb_operand val, LLVMTypeRef t,
                        uint64_t off, uint32_t slot) {
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind) {
    unsigned n = k == LLVMStructTypeKind ? LLVMCountStructElementTypes(t)
                                         : (unsigned)LLVMGetArrayLength(t);
    for (unsigned i = 0; i < n; i++) {
      LLVMTypeRef et = k == LLVMStructTypeKind ? LLVMStructGetTypeAtIndex(t, i)
                                               : LLVMGetElementType(t);
      uint64_t eo = k == LLVMStructTypeKind ? LLVMOffsetOfElement(f->td, t, i)
                                            : i * LLVMABISizeOfType(f->td, et);
      if (!agg_members(f, I, st, addr, base, val, et, off + eo, slot))
        return false;
      slot += fe_type_slots(et, NULL);
    }
    return true;
  }
  cb_ty ty;
  uint32_t lanes = fe_type_slots(t, &ty);
  if (lanes == UINT32_MAX || lanes == 0)
    return fe_unsupported(f, I, "memory access of this aggregate type");
  cb_operand a = fe_addr_at(f, base, off);
  if (fe_wide_ty(t))
    return fe_wide_access(f, I, st, addr, a, val + slot, t);
  cb_op o = fe_new_op(st ? CB_OP_STORE : CB_OP_LOAD);
  o.ty = (uint8_t)ty;
  o.lanes = (uint8_t)lanes;
  if (st) {
    o.a = val + slot;
    o.b = a;
  } else {
    o.dst = val + slot;
    o.a = a;
  }
  uint32_t size = (uint32_t)LLVMStoreSizeOfType(f->td, t);
  o.aux = fe_new_site(f, I, addr, size, st, false);
  FE_PUSH(f->ops, o);
  return true;
}

static bool lower_aggregate_access(fe *f, LLVMValueRef I, bool st,
                                   LLVMValueRef addr, LLVMTypeRef t) {
  cb_operand base, val;
  if (fe_type_slots(t, NULL) == UINT32_MAX)
    return fe_unsupported(f, I, "load or store of a large aggregate");
  if (!fe_operand_of(f, addr, I, &base))
    return false;
  if (st) {
    if (!fe_operand_of(f, LLVMGetOperand(I, 0), I, &val))
      return false;
  } else if (!fe_slot_of(f, I, NULL, &val)) {
    return false;
  }
  return agg_members(f, I, st, addr, base, val, t, 0, 0);
}

/* llvm.load.relative(ptr, off): ptr + sext(*(i32 *)(ptr + off)). */
bool fe_lower_load_relative(fe *f, LLVMValueRef I) {
  cb_operand p, off, dst;
  if (!fe_operand_of(f, LLVMGetOperand(I, 0), I, &p) ||
      !fe_operand_of(f, LLVMGetOperand(I, 1), I, &off) ||
      !fe_slot_of(f, I, NULL, &dst))
    return false;
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(I, 1)));
  uint32_t at = temp_slot(f), v = temp_slot(f), w = temp_slot(f);
  emit_gep(f, at, p, 0, off, bits, 1);
  cb_op ld = fe_new_op(CB_OP_LOAD);
  ld.ty = CB_TY_I32;
  ld.dst = v;
  ld.a = at;
  ld.aux = fe_new_site(f, I, LLVMGetOperand(I, 0), 4, false, false);
  FE_PUSH(f->ops, ld);
  cb_op se = fe_new_op(CB_OP_SEXT);
  se.ty = CB_TY_I64;
  se.ty2 = CB_TY_I32;
  se.dst = w;
  se.a = v;
  FE_PUSH(f->ops, se);
  emit_gep(f, dst, p, 0, w, 64, 1);
  return true;
}

bool fe_lower_inst(fe *f, LLVMValueRef I, uint32_t bi, cb_block *blk) {
  LLVMOpcode opc = LLVMGetInstructionOpcode(I);
  cb_op o;
  int w = fe_lower_wide(f, I); /* lower_wide.c */
  if (w >= 0)
    return w == 1;
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
    static const uint8_t map[] = {
        [LLVMAdd] = CB_OP_ADD,   [LLVMSub] = CB_OP_SUB,
        [LLVMMul] = CB_OP_MUL,   [LLVMUDiv] = CB_OP_UDIV,
        [LLVMSDiv] = CB_OP_SDIV, [LLVMURem] = CB_OP_UREM,
        [LLVMSRem] = CB_OP_SREM, [LLVMShl] = CB_OP_SHL,
        [LLVMLShr] = CB_OP_LSHR, [LLVMAShr] = CB_OP_ASHR,
        [LLVMAnd] = CB_OP_AND,   [LLVMOr] = CB_OP_OR,
        [LLVMXor] = CB_OP_XOR,   [LLVMFAdd] = CB_OP_FADD,
        [LLVMFSub] = CB_OP_FSUB, [LLVMFMul] = CB_OP_FMUL,
        [LLVMFDiv] = CB_OP_FDIV, [LLVMFRem] = CB_OP_FREM};
    o = fe_new_op(map[opc]);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return false;
    break;
  }
  case LLVMFNeg:
    o = fe_new_op(CB_OP_FNEG);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
      return false;
    break;
  case LLVMICmp:
  case LLVMFCmp: {
    o = fe_new_op(opc == LLVMICmp ? CB_OP_ICMP : CB_OP_FCMP);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return false;
    o.ty = fe_elem_ty_of(LLVMTypeOf(LLVMGetOperand(I, 0)));
    o.aux = opc == LLVMICmp ? (uint32_t)(LLVMGetICmpPredicate(I) - LLVMIntEQ)
                            : (uint32_t)LLVMGetFCmpPredicate(I);
    break;
  }
  case LLVMSelect:
    o = fe_new_op(CB_OP_SELECT);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b) || !fe_opnd(f, I, 2, &o.c))
      return false;
    break;
  case LLVMTrunc:
  case LLVMZExt:
  case LLVMSExt:
  case LLVMFPTrunc:
  case LLVMFPExt:
  case LLVMFPToUI:
  case LLVMFPToSI:
  case LLVMUIToFP:
  case LLVMSIToFP:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMBitCast:
  case LLVMFreeze: {
    if (fe_alias_source(I)) {
      cb_operand dummy;
      return fe_slot_of(f, I, NULL, &dummy);
    }
    static const uint8_t map[] = {
        [LLVMTrunc] = CB_OP_TRUNC,       [LLVMZExt] = CB_OP_ZEXT,
        [LLVMSExt] = CB_OP_SEXT,         [LLVMFPTrunc] = CB_OP_FPTRUNC,
        [LLVMFPExt] = CB_OP_FPEXT,       [LLVMFPToUI] = CB_OP_FPTOUI,
        [LLVMFPToSI] = CB_OP_FPTOSI,     [LLVMUIToFP] = CB_OP_UITOFP,
        [LLVMSIToFP] = CB_OP_SITOFP,     [LLVMPtrToInt] = CB_OP_PTRTOINT,
        [LLVMIntToPtr] = CB_OP_INTTOPTR, [LLVMBitCast] = CB_OP_BITCAST,
        [LLVMFreeze] = CB_OP_MOV};
    o = fe_new_op(map[opc]);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
      return false;
    o.ty2 = fe_elem_ty_of(LLVMTypeOf(LLVMGetOperand(I, 0)));
    break;
  }
  case LLVMGetElementPtr: {
    if (fe_alias_source(I)) {
      cb_operand dummy;
      return fe_slot_of(f, I, NULL, &dummy);
    }
    if (LLVMGetTypeKind(LLVMTypeOf(I)) == LLVMVectorTypeKind)
      return fe_lower_vector_gep(f, I);
    o = fe_new_op(CB_OP_GEP);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
      return false;
    LLVMTypeRef t = LLVMGetGEPSourceElementType(I);
    unsigned n = (unsigned)LLVMGetNumOperands(I);
    int64_t off = 0;
    uint32_t base = f->extra.n;
    FE_RESERVE(f->extra, 2 + 2 * n);
    f->extra.n += 2;
    uint32_t nv = 0;
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef idx = LLVMGetOperand(I, i);
      if (LLVMGetTypeKind(LLVMTypeOf(idx)) != LLVMIntegerTypeKind)
        return fe_unsupported(f, I, "vector index in getelementptr");
      unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(idx));
      int64_t scale;
      if (i == 1) {
        scale = (int64_t)LLVMABISizeOfType(f->td, t);
      } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        unsigned k = (unsigned)LLVMConstIntGetZExtValue(idx);
        off += (int64_t)LLVMOffsetOfElement(f->td, t, k);
        t = LLVMStructGetTypeAtIndex(t, k);
        continue;
      } else {
        t = LLVMGetElementType(t);
        scale = (int64_t)LLVMABISizeOfType(f->td, t);
      }
      if (LLVMIsAConstantInt(idx)) {
        if (bits > 64)
          return fe_unsupported(f, I, "128-bit index");
        off += fe_sext(LLVMConstIntGetZExtValue(idx), bits) * scale;
        continue;
      }
      if (LLVMIsAConstant(idx) && !LLVMIsAConstantExpr(idx)) {
        continue; /* undef/poison index: 0 */
      }
      cb_operand a;
      if (!fe_operand_of(f, idx, I, &a))
        return false;
      f->extra.v[f->extra.n++] =
          (int64_t)((uint64_t)a | ((uint64_t)bits << 32));
      f->extra.v[f->extra.n++] = scale;
      nv++;
    }
    f->extra.v[base] = off;
    f->extra.v[base + 1] = nv;
    o.aux = base;
    break;
  }
  case LLVMLoad:
  case LLVMStore: {
    if (LLVMGetOrdering(I) != LLVMAtomicOrderingNotAtomic)
      return fe_unsupported(f, I, "atomic memory access");
    bool st = opc == LLVMStore;
    LLVMValueRef val = st ? LLVMGetOperand(I, 0) : I;
    LLVMValueRef addr = LLVMGetOperand(I, st ? 1 : 0);
    LLVMTypeRef t = LLVMTypeOf(val);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind)
      return lower_aggregate_access(f, I, st, addr, t);
    cb_ty ty;
    uint32_t lanes = fe_type_slots(t, &ty);
    if (lanes == UINT32_MAX) {
      char buf[256];
      snprintf(buf, sizeof buf, "memory access of type %s", fe_type_str(f, t));
      return fe_unsupported(f, I, buf);
    }
    o = fe_new_op(st ? CB_OP_STORE : CB_OP_LOAD);
    o.ty = (uint8_t)ty;
    o.lanes = (uint8_t)lanes;
    uint32_t size = (uint32_t)LLVMStoreSizeOfType(f->td, t);
    if (k == LLVMVectorTypeKind && size > f->vec_bytes &&
        size % f->vec_bytes == 0 && size == lanes * cb_ty_bytes(ty) &&
        lanes % (size / f->vec_bytes) == 0)
      return lower_split_vector_access(f, I, &o, st, addr, size);
    if (st) {
      if (!fe_opnd(f, I, 0, &o.a) || !fe_opnd(f, I, 1, &o.b))
        return false;
    } else {
      if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
        return false;
    }
    o.aux = fe_new_site(f, I, addr, size, st, false);
    break;
  }
  case LLVMAlloca: {
    LLVMTypeRef t = LLVMGetAllocatedType(I);
    cb_frame_obj fo;
    memset(&fo, 0, sizeof fo);
    fo.func = f->cur_func;
    fo.size = LLVMABISizeOfType(f->td, t);
    fo.align = LLVMGetAlignment(I);
    fo.var = CB_NONE;
    fo.frame_offset = CB_FRAME_OFFSET_UNKNOWN;
    uint64_t md;
    if (fe_map_get(&f->alloca_var, I, &md))
      fo.var = fe_var(f, (LLVMMetadataRef)(uintptr_t)md);
    o = fe_new_op(CB_OP_ALLOCA);
    if (!fe_set_dst(f, &o, I))
      return false;
    LLVMValueRef cnt = LLVMGetOperand(I, 0);
    if (LLVMIsAConstantInt(cnt)) {
      fo.size *= LLVMConstIntGetZExtValue(cnt);
    } else if (!fe_opnd(f, I, 0, &o.a)) {
      return false;
    }
    o.aux = f->frame_objs.n;
    FE_PUSH(f->frame_objs, fo);
    break;
  }
  case LLVMExtractElement:
    o = fe_new_op(CB_OP_EXTRACTELT);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return false;
    o.lanes = (uint8_t)LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(I, 0)));
    break;
  case LLVMInsertElement:
    o = fe_new_op(CB_OP_INSERTELT);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b) || !fe_opnd(f, I, 2, &o.c))
      return false;
    break;
  case LLVMShuffleVector: {
    o = fe_new_op(CB_OP_SHUFFLE);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return false;
    unsigned n = LLVMGetNumMaskElements(I);
    o.aux = f->extra.n;
    FE_RESERVE(f->extra, n + 1);
    f->extra.v[f->extra.n++] =
        LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(I, 0)));
    for (unsigned i = 0; i < n; i++) {
      int m = LLVMGetMaskValue(I, i);
      f->extra.v[f->extra.n++] = m == LLVMGetUndefMaskElem() ? -1 : m;
    }
    break;
  }
  case LLVMExtractValue: {
    o = fe_new_op(CB_OP_EXTRACTVAL);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a))
      return false;
    LLVMTypeRef leaf;
    o.aux = agg_offset(LLVMTypeOf(LLVMGetOperand(I, 0)), LLVMGetIndices(I),
                       LLVMGetNumIndices(I), &leaf);
    break;
  }
  case LLVMInsertValue: {
    o = fe_new_op(CB_OP_INSERTVAL);
    if (!fe_set_dst(f, &o, I) || !fe_opnd(f, I, 0, &o.a) ||
        !fe_opnd(f, I, 1, &o.b))
      return false;
    LLVMTypeRef leaf;
    uint32_t off = agg_offset(LLVMTypeOf(I), LLVMGetIndices(I),
                              LLVMGetNumIndices(I), &leaf);
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)fe_type_slots(LLVMTypeOf(I), NULL));
    FE_PUSH(f->extra, (int64_t)off);
    o.lanes = (uint8_t)fe_type_slots(leaf, NULL);
    break;
  }
  case LLVMPHI: {
    o = fe_new_op(CB_OP_PHI);
    if (!fe_set_dst(f, &o, I))
      return false;
    unsigned n = LLVMCountIncoming(I);
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)n);
    for (unsigned i = 0; i < n; i++) {
      cb_operand a;
      if (!fe_operand_of(f, LLVMGetIncomingValue(I, i), I, &a))
        return false;
      FE_PUSH(f->extra, (int64_t)block_index(f, LLVMGetIncomingBlock(I, i)));
      FE_PUSH(f->extra, (int64_t)a);
    }
    break;
  }
  case LLVMCall:
    return fe_lower_call(f, I);
  case LLVMBr: {
    o = fe_new_op(CB_OP_BR);
    o.lanes = 0;
    blk->first_succ = f->succs.n;
    if (LLVMIsConditional(I)) {
      if (!fe_operand_of(f, LLVMGetCondition(I), I, &o.a))
        return false;
      FE_PUSH(f->succs, block_index(f, LLVMGetSuccessor(I, 0)));
      FE_PUSH(f->succs, block_index(f, LLVMGetSuccessor(I, 1)));
      new_branch(f, I, bi, &o.aux);
    } else {
      FE_PUSH(f->succs, block_index(f, LLVMGetSuccessor(I, 0)));
    }
    blk->n_succ = f->succs.n - blk->first_succ;
    break;
  }
  case LLVMSwitch: {
    o = fe_new_op(CB_OP_SWITCH);
    LLVMValueRef cond = LLVMGetOperand(I, 0);
    if (!fe_operand_of(f, cond, I, &o.a))
      return false;
    o.ty = fe_elem_ty_of(LLVMTypeOf(cond));
    unsigned nops = (unsigned)LLVMGetNumOperands(I);
    unsigned ncases = (nops - 2) / 2;
    blk->first_succ = f->succs.n;
    FE_PUSH(f->succs, block_index(f, LLVMGetSwitchDefaultDest(I)));
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)ncases);
    for (unsigned c = 0; c < ncases; c++) {
      LLVMValueRef cv = LLVMGetOperand(I, 2 + 2 * c);
      uint32_t dest =
          block_index(f, LLVMValueAsBasicBlock(LLVMGetOperand(I, 3 + 2 * c)));
      uint32_t si = CB_NONE;
      for (uint32_t k = blk->first_succ; k < f->succs.n; k++)
        if (f->succs.v[k] == dest)
          si = k - blk->first_succ;
      if (si == CB_NONE) {
        si = f->succs.n - blk->first_succ;
        FE_PUSH(f->succs, dest);
      }
      FE_PUSH(f->extra, (int64_t)LLVMConstIntGetZExtValue(cv));
      FE_PUSH(f->extra, (int64_t)si);
    }
    uint32_t brp;
    new_branch(f, I, bi, &brp);
    FE_PUSH(f->extra, (int64_t)brp);
    blk->n_succ = f->succs.n - blk->first_succ;
    break;
  }
  case LLVMRet:
    o = fe_new_op(CB_OP_RET);
    o.lanes = 0;
    if (LLVMGetNumOperands(I) > 0) {
      LLVMValueRef v = LLVMGetOperand(I, 0);
      cb_ty ty;
      o.lanes = (uint8_t)fe_type_slots(LLVMTypeOf(v), &ty);
      o.ty = (uint8_t)ty;
      if (!fe_operand_of(f, v, I, &o.a))
        return false;
    }
    blk->first_succ = f->succs.n;
    blk->n_succ = 0;
    break;
  case LLVMUnreachable:
    o = fe_new_op(CB_OP_UNREACHABLE);
    blk->first_succ = f->succs.n;
    blk->n_succ = 0;
    break;
  case LLVMVAArg:
    return fe_unsupported(f, I, "variable argument list (va_arg)");
  case LLVMFence:
  case LLVMAtomicCmpXchg:
  case LLVMAtomicRMW:
    return fe_unsupported(f, I, "atomic operation");
  case LLVMIndirectBr: {
    /* goto *p: a switch over the addresses of its labels (lower_const.c
     * gives each its address); any other address is undefined behaviour,
     * the block after the function's, which stops the input */
    o = fe_new_op(CB_OP_SWITCH);
    if (!fe_opnd(f, I, 0, &o.a))
      return false;
    o.ty = CB_TY_PTR;
    unsigned n = LLVMGetNumSuccessors(I);
    LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
    blk->first_succ = f->succs.n;
    FE_PUSH(f->succs, f->cur_nblocks);
    f->want_trap_block = true;
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)n);
    for (unsigned k = 0; k < n; k++) {
      LLVMBasicBlockRef bb = LLVMGetSuccessor(I, k);
      uint32_t dest = block_index(f, bb);
      uint32_t si = CB_NONE;
      for (uint32_t j = blk->first_succ; j < f->succs.n; j++)
        if (f->succs.v[j] == dest)
          si = j - blk->first_succ;
      if (si == CB_NONE) {
        si = f->succs.n - blk->first_succ;
        FE_PUSH(f->succs, dest);
      }
      FE_PUSH(f->extra, (int64_t)fe_block_address(f, LLVMBlockAddress(fn, bb)));
      FE_PUSH(f->extra, (int64_t)si);
    }
    uint32_t brp;
    new_branch(f, I, bi, &brp);
    FE_PUSH(f->extra, (int64_t)brp);
    blk->n_succ = f->succs.n - blk->first_succ;
    break;
  }
  case LLVMAddrSpaceCast:
    return fe_unsupported(f, I, "address space cast");
  case LLVMCallBr:
    return fe_unsupported(f, I, "asm goto");
  default: {
    char *s = LLVMPrintValueToString(I);
    char buf[300];
    snprintf(buf, sizeof buf, "instruction `%.200s`", s);
    LLVMDisposeMessage(s);
    return fe_unsupported(f, I, buf);
  }
  }
  FE_PUSH(f->ops, o);
  return true;
}
