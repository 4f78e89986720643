/* lower.c: LLVM IR -> the compact IR of program.h, the driver: the
 * module, its functions and their blocks (phis, debug intrinsics), with
 * the helpers the other lowering files share (reporting, types, values as
 * operands, new operations). Operations are lowered by lower_ops.c, calls
 * by lower_calls.c, constants and globals by lower_const.c, sites by
 * sites.c. */
#include "lower_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- reporting ---------------------------------------------------------- */

void fe_loc_of(fe *f, LLVMValueRef inst, uint32_t *file, uint32_t *line,
               uint32_t *col, LLVMMetadataRef *scope) {
  LLVMMetadataRef loc = inst ? LLVMInstructionGetDebugLoc(inst) : NULL;
  if (loc) {
    *line = LLVMDILocationGetLine(loc);
    *col = LLVMDILocationGetColumn(loc);
    LLVMMetadataRef sc = LLVMDILocationGetScope(loc);
    *file = fe_file_of_scope(f, sc);
    if (scope)
      *scope = sc;
    if (*file != CB_NONE)
      return;
  }
  *line = 0;
  *col = 0;
  *file =
      f->cur_func < f->functions.n ? f->functions.v[f->cur_func].file : CB_NONE;
  if (scope)
    *scope = f->cur_sp;
}

bool fe_unsupported(fe *f, LLVMValueRef inst, const char *what) {
  uint32_t file, line, col;
  fe_loc_of(f, inst, &file, &line, &col, NULL);
  const char *fn =
      f->cur_func < f->functions.n ? f->functions.v[f->cur_func].name : "?";
  if (file != CB_NONE)
    fe_errf(f->err, CB_FE_ERR_UNSUPPORTED,
            "%s:%u:%u: error: unsupported construct: %s (in function %s)\n",
            f->files.v[file], line, col, what, fn);
  else
    fe_errf(f->err, CB_FE_ERR_UNSUPPORTED,
            "error: unsupported construct: %s (in function %s)\n", what, fn);
  return false;
}

/* ---- types -------------------------------------------------------------- */

static bool scalar_ty(LLVMTypeRef t, cb_ty *out) {
  switch (LLVMGetTypeKind(t)) {
  case LLVMIntegerTypeKind:
    switch (LLVMGetIntTypeWidth(t)) {
    case 1:
      *out = CB_TY_I1;
      return true;
    case 8:
      *out = CB_TY_I8;
      return true;
    case 16:
      *out = CB_TY_I16;
      return true;
    case 32:
      *out = CB_TY_I32;
      return true;
    case 64:
      *out = CB_TY_I64;
      return true;
    default:
      return false;
    }
  case LLVMFloatTypeKind:
    *out = CB_TY_F32;
    return true;
  case LLVMDoubleTypeKind:
    *out = CB_TY_F64;
    return true;
  case LLVMPointerTypeKind:
    *out = CB_TY_PTR;
    return true;
  default:
    return false;
  }
}

/* Slots a value of the type occupies; 0 for void; UINT32_MAX when the
 * type cannot be expressed. *ty is the first scalar's type. */
uint32_t fe_type_slots(LLVMTypeRef t, cb_ty *ty) {
  cb_ty dummy;
  if (!ty)
    ty = &dummy;
  switch (LLVMGetTypeKind(t)) {
  case LLVMVoidTypeKind:
    *ty = CB_TY_VOID;
    return 0;
  case LLVMVectorTypeKind: {
    if (!scalar_ty(LLVMGetElementType(t), ty))
      return UINT32_MAX;
    unsigned n = LLVMGetVectorSize(t);
    return n > 255 ? UINT32_MAX : n;
  }
  case LLVMStructTypeKind: {
    unsigned n = LLVMCountStructElementTypes(t);
    uint32_t total = 0;
    *ty = CB_TY_VOID;
    for (unsigned i = 0; i < n; i++) {
      cb_ty et;
      uint32_t k = fe_type_slots(LLVMStructGetTypeAtIndex(t, i), &et);
      if (k == UINT32_MAX)
        return k;
      if (i == 0 || *ty == CB_TY_VOID)
        *ty = et;
      total += k;
    }
    return total;
  }
  case LLVMArrayTypeKind: {
    uint32_t k = fe_type_slots(LLVMGetElementType(t), ty);
    uint64_t n = LLVMGetArrayLength(t);
    if (k == UINT32_MAX || n * k > 4096)
      return UINT32_MAX;
    return (uint32_t)(n * k);
  }
  default:
    if (scalar_ty(t, ty))
      return 1;
    if (fe_is_f80(t)) {
      *ty = CB_TY_F80;
      return 2;
    }
    if (fe_wide_int_bits(t) && fe_wide_int_bits(t) <= CB_WIDE_MAX_BITS) {
      *ty = CB_TY_I64;
      return (fe_wide_int_bits(t) + 63) / 64;
    }
    return UINT32_MAX;
  }
}

const char *fe_type_str(fe *f, LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  const char *r = fe_pool_str(f->pool, s);
  LLVMDisposeMessage(s);
  return r;
}

int64_t fe_sext(uint64_t u, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return (int64_t)u;
  return (int64_t)(u << (64 - bits)) >> (64 - bits);
}

/* ---- values ------------------------------------------------------------- */

static bool is_intrinsic_named(LLVMValueRef fn, const char *prefix) {
  size_t len;
  const char *nm = LLVMGetValueName2(fn, &len);
  size_t pl = strlen(prefix);
  return len >= pl && strncmp(nm, prefix, pl) == 0 &&
         (len == pl || nm[pl] == '.');
}

LLVMValueRef fe_strip_casts(LLVMValueRef v) {
  while (LLVMIsAConstantExpr(v) && (LLVMGetConstOpcode(v) == LLVMBitCast ||
                                    LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
    v = LLVMGetOperand(v, 0);
  if (LLVMIsAGlobalAlias(v))
    return fe_strip_casts(LLVMAliasGetAliasee(v));
  return v;
}

/* The value an instruction copies unchanged, or NULL. */
LLVMValueRef fe_alias_source(LLVMValueRef I) {
  switch (LLVMGetInstructionOpcode(I)) {
  case LLVMBitCast: {
    LLVMTypeRef a = LLVMTypeOf(I), b = LLVMTypeOf(LLVMGetOperand(I, 0));
    if (a == b || (LLVMGetTypeKind(a) == LLVMPointerTypeKind &&
                   LLVMGetTypeKind(b) == LLVMPointerTypeKind))
      return LLVMGetOperand(I, 0);
    /* x86_fp80 and i80 keep the same ten bytes in the same two slots
     * (program.h's wide values): clang's isnan and isinf on a long
     * double, a memcpy of one */
    LLVMTypeKind ka = LLVMGetTypeKind(a), kb = LLVMGetTypeKind(b);
    if ((ka == LLVMX86_FP80TypeKind && kb == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(b) == 80) ||
        (kb == LLVMX86_FP80TypeKind && ka == LLVMIntegerTypeKind &&
         LLVMGetIntTypeWidth(a) == 80))
      return LLVMGetOperand(I, 0);
    return NULL;
  }
  case LLVMFreeze:
    return LLVMGetOperand(I, 0);
  case LLVMPtrToInt:
  case LLVMIntToPtr: {
    LLVMTypeRef a = LLVMTypeOf(I), b = LLVMTypeOf(LLVMGetOperand(I, 0));
    LLVMTypeRef it = LLVMGetTypeKind(a) == LLVMIntegerTypeKind ? a : b;
    if (LLVMGetTypeKind(it) == LLVMIntegerTypeKind &&
        LLVMGetIntTypeWidth(it) == 64)
      return LLVMGetOperand(I, 0);
    return NULL;
  }
  case LLVMGetElementPtr: {
    if (LLVMGetTypeKind(LLVMTypeOf(I)) != LLVMPointerTypeKind)
      return NULL;
    unsigned n = (unsigned)LLVMGetNumOperands(I);
    for (unsigned i = 1; i < n; i++) {
      LLVMValueRef x = LLVMGetOperand(I, i);
      if (!LLVMIsAConstantInt(x) || LLVMConstIntGetZExtValue(x) != 0)
        return NULL;
    }
    return LLVMGetOperand(I, 0);
  }
  case LLVMCall: {
    LLVMValueRef fn = LLVMGetCalledValue(I);
    if (LLVMIsAFunction(fn) &&
        (is_intrinsic_named(fn, "llvm.expect") ||
         is_intrinsic_named(fn, "llvm.ssa.copy") ||
         is_intrinsic_named(fn, "llvm.launder.invariant.group") ||
         is_intrinsic_named(fn, "llvm.strip.invariant.group")))
      return LLVMGetOperand(I, 0);
    return NULL;
  }
  default:
    return NULL;
  }
}

bool fe_slot_of(fe *f, LLVMValueRef v, LLVMValueRef user, cb_operand *op) {
  uint64_t x;
  if (fe_map_get(&f->vals, v, &x)) {
    *op = (cb_operand)x;
    return true;
  }
  if (LLVMIsAInstruction(v)) {
    LLVMValueRef src = fe_alias_source(v);
    if (src) {
      if (!fe_operand_of(f, src, v, op))
        return false;
      fe_map_put(&f->vals, v, *op);
      return true;
    }
  }
  uint32_t n = fe_type_slots(LLVMTypeOf(v), NULL);
  if (n == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "value of type %s",
             fe_type_str(f, LLVMTypeOf(v)));
    return fe_unsupported(f, LLVMIsAInstruction(v) ? v : user, buf);
  }
  *op = f->n_slots;
  f->n_slots += n ? n : 1;
  fe_map_put(&f->vals, v, *op);
  return true;
}

bool fe_operand_of(fe *f, LLVMValueRef v, LLVMValueRef user, cb_operand *op) {
  if (LLVMIsAInstruction(v) || LLVMIsAArgument(v))
    return fe_slot_of(f, v, user, op);
  if (LLVMIsAConstant(v))
    return fe_const_operand(f, v, user, op);
  if (LLVMIsAInlineAsm(v))
    return fe_unsupported(f, user, "inline assembly");
  return fe_unsupported(f, user,
                        "operand that is neither a value nor a constant");
}

/* ---- operations ------------------------------------------------------- */

cb_op fe_new_op(uint8_t code) {
  cb_op o;
  memset(&o, 0, sizeof o);
  o.code = code;
  o.lanes = 1;
  o.dst = CB_NONE;
  o.a = o.b = o.c = CB_NONE;
  o.aux = CB_NONE;
  return o;
}

bool fe_set_dst(fe *f, cb_op *o, LLVMValueRef I) {
  cb_ty ty;
  uint32_t n = fe_type_slots(LLVMTypeOf(I), &ty);
  if (n == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "value of type %s",
             fe_type_str(f, LLVMTypeOf(I)));
    return fe_unsupported(f, I, buf);
  }
  o->ty = (uint8_t)ty;
  o->lanes = (uint8_t)(n ? n : 1);
  if (n == 0) {
    o->dst = CB_NONE;
    o->lanes = 0;
    return true;
  }
  cb_operand d;
  if (!fe_slot_of(f, I, NULL, &d))
    return false;
  o->dst = d;
  return true;
}

bool fe_opnd(fe *f, LLVMValueRef I, unsigned i, cb_operand *out) {
  return fe_operand_of(f, LLVMGetOperand(I, i), I, out);
}

uint8_t fe_elem_ty_of(LLVMTypeRef t) {
  cb_ty ty = CB_TY_VOID;
  fe_type_slots(t, &ty);
  return (uint8_t)ty;
}

/* ---- functions ----------------------------------------------------------- */

static void collect_debug_intrinsics(fe *f, LLVMValueRef fn) {
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef I = LLVMGetFirstInstruction(b); I;
         I = LLVMGetNextInstruction(I)) {
      if (!LLVMIsACallInst(I))
        continue;
      LLVMValueRef c = LLVMGetCalledValue(I);
      if (!LLVMIsAFunction(c))
        continue;
      bool is_value = is_intrinsic_named(c, "llvm.dbg.value");
      bool is_declare = is_intrinsic_named(c, "llvm.dbg.declare") ||
                        is_intrinsic_named(c, "llvm.dbg.addr");
      if (!is_value && !is_declare)
        continue;
      LLVMMetadataRef vmd = LLVMValueAsMetadata(LLVMGetOperand(I, 0));
      LLVMMetadataRef var = LLVMValueAsMetadata(LLVMGetOperand(I, 1));
      if (!vmd || !var ||
          LLVMGetMetadataKind(var) != LLVMDILocalVariableMetadataKind)
        continue;
      LLVMMetadataKind k = LLVMGetMetadataKind(vmd);
      if (k != LLVMLocalAsMetadataMetadataKind &&
          k != LLVMConstantAsMetadataMetadataKind)
        continue;
      LLVMValueRef ops[1] = {NULL};
      LLVMGetMDNodeOperands(LLVMGetOperand(I, 0), ops);
      LLVMValueRef v = ops[0];
      if (!v || LLVMIsAConstantInt(v) || LLVMIsAUndefValue(v))
        continue;
      if (is_declare && LLVMIsAAllocaInst(v)) {
        if (!fe_map_get(&f->alloca_var, v, NULL))
          fe_map_put(&f->alloca_var, v, (uint64_t)(uintptr_t)var);
        continue;
      }
      fe_dbgval dv = {var, CB_NONE};
      uint64_t first;
      if (fe_map_get(&f->dbgval, v, &first)) {
        /* append unless already present */
        uint32_t k2 = (uint32_t)first, last = k2;
        bool dup = false;
        for (; k2 != CB_NONE; k2 = f->dbgvals.v[k2].next) {
          if (f->dbgvals.v[k2].var == var)
            dup = true;
          last = k2;
        }
        if (!dup) {
          FE_PUSH(f->dbgvals, dv);
          f->dbgvals.v[last].next = f->dbgvals.n - 1;
        }
      } else {
        FE_PUSH(f->dbgvals, dv);
        fe_map_put(&f->dbgval, v, f->dbgvals.n - 1);
      }
    }
}

static bool has_feature(const char *feat, unsigned len, const char *name) {
  size_t n = strlen(name);
  for (unsigned k = 0; feat && k + n <= len; k++)
    if (!memcmp(feat + k, name, n) && (k == 0 || feat[k - 1] == ',') &&
        (k + n == len || feat[k + n] == ','))
      return true;
  return false;
}

static long int_attr(LLVMValueRef fn, const char *name) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, name, (unsigned)strlen(name));
  unsigned l = 0;
  const char *v = a ? LLVMGetStringAttributeValue(a, &l) : NULL;
  return v && l ? strtol(v, NULL, 10) : 0;
}

/* The widest vector register the x86 backend keeps a vector value in for
 * this function (X86ISelLowering's legal types): 16 bytes with SSE, 32
 * with AVX, 64 with AVX-512 where the function may use 512-bit vectors
 * ("prefer-vector-width" or "min-legal-vector-width" 512). A wider load
 * or store is split into accesses of this size. */
static unsigned vector_bytes(LLVMValueRef fn) {
  LLVMAttributeRef tf = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, "target-features", 15);
  unsigned tl = 0;
  const char *feat = tf ? LLVMGetStringAttributeValue(tf, &tl) : NULL;
  if (has_feature(feat, tl, "+avx512f") &&
      (int_attr(fn, "prefer-vector-width") >= 512 ||
       int_attr(fn, "min-legal-vector-width") >= 512))
    return 64;
  return has_feature(feat, tl, "+avx") ? 32 : 16;
}

static bool lower_function(fe *f, LLVMValueRef fn, uint32_t fi) {
  cb_function *cf = &f->functions.v[fi];
  f->cur_func = fi;
  f->cur_sp = LLVMGetSubprogram(fn);
  f->vec_bytes = vector_bytes(fn);
  fe_map_clear(&f->vals);
  fe_map_clear(&f->blockmap);
  fe_map_clear(&f->dbgval);
  fe_map_clear(&f->alloca_var);
  f->dbgvals.n = 0;
  f->n_slots = 0;
  collect_debug_intrinsics(f, fn);

  uint32_t nb = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b))
    fe_map_put(&f->blockmap, b, nb++);

  cf->first_param = f->params.n;
  cf->n_params = LLVMCountParams(fn);
  for (unsigned i = 0; i < cf->n_params; i++) {
    LLVMValueRef p = LLVMGetParam(fn, i);
    cb_param cp;
    memset(&cp, 0, sizeof cp);
    cb_ty ty;
    uint32_t n = fe_type_slots(LLVMTypeOf(p), &ty);
    if (n == UINT32_MAX) {
      char buf[256];
      snprintf(buf, sizeof buf, "parameter of type %s",
               fe_type_str(f, LLVMTypeOf(p)));
      return fe_unsupported(f, NULL, buf);
    }
    cb_operand s;
    fe_slot_of(f, p, NULL, &s);
    cp.slot = s;
    cp.ty = (uint8_t)ty;
    cp.lanes = (uint8_t)n;
    LLVMAttributeRef a =
        LLVMGetEnumAttributeAtIndex(fn, i + 1, fe_byval_kind());
    if (a) {
      LLVMTypeRef t = LLVMGetTypeAttributeValue(a);
      cp.byval = t ? (uint32_t)LLVMABISizeOfType(f->td, t) : 0;
    }
    FE_PUSH(f->params, cp);
  }
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  cb_ty rt;
  uint32_t rl = fe_type_slots(LLVMGetReturnType(ft), &rt);
  if (rl == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "return type %s",
             fe_type_str(f, LLVMGetReturnType(ft)));
    return fe_unsupported(f, NULL, buf);
  }
  cf = &f->functions.v[fi];
  cf->ret_ty = (uint8_t)rt;
  cf->ret_lanes = (uint8_t)rl;
  cf->is_vararg = LLVMIsFunctionVarArg(ft);

  cf->first_block = f->blocks.n;
  cf->n_blocks = nb;
  f->cur_nblocks = nb;
  f->want_trap_block = false;
  FE_RESERVE(f->blocks, nb + 1);
  uint32_t bi = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b), bi++) {
    cb_block blk;
    memset(&blk, 0, sizeof blk);
    blk.first_op = f->ops.n;
    blk.first_succ = f->succs.n;
    for (LLVMValueRef I = LLVMGetFirstInstruction(b); I;
         I = LLVMGetNextInstruction(I))
      if (!fe_lower_inst(f, I, bi, &blk))
        return false;
    blk.n_ops = f->ops.n - blk.first_op;
    f->blocks.v[f->blocks.n++] = blk;
  }
  if (f->want_trap_block) {
    /* where an indirectbr goes with an address none of its labels has */
    cb_block blk;
    memset(&blk, 0, sizeof blk);
    blk.first_op = f->ops.n;
    blk.first_succ = f->succs.n;
    cb_op u = fe_new_op(CB_OP_UNREACHABLE);
    FE_PUSH(f->ops, u);
    blk.n_ops = 1;
    f->blocks.v[f->blocks.n++] = blk;
    nb++;
    f->functions.v[fi].n_blocks = nb;
  }
  /* predecessors, deduplicated, in block order */
  cb_block *blocks = f->blocks.v + cf->first_block;
  uint32_t *cnt = calloc(nb + 1, sizeof *cnt);
  for (uint32_t b = 0; b < nb; b++)
    for (uint32_t k = 0; k < blocks[b].n_succ; k++) {
      uint32_t s = f->succs.v[blocks[b].first_succ + k];
      bool dup = false;
      for (uint32_t j = 0; j < k; j++)
        if (f->succs.v[blocks[b].first_succ + j] == s)
          dup = true;
      if (!dup && s < nb)
        cnt[s]++;
    }
  uint32_t pos = f->preds.n;
  for (uint32_t b = 0; b < nb; b++) {
    blocks[b].first_pred = pos;
    blocks[b].n_pred = 0;
    pos += cnt[b];
  }
  FE_RESERVE(f->preds, pos - f->preds.n);
  for (uint32_t b = 0; b < nb; b++)
    for (uint32_t k = 0; k < blocks[b].n_succ; k++) {
      uint32_t s = f->succs.v[blocks[b].first_succ + k];
      bool dup = false;
      for (uint32_t j = 0; j < k; j++)
        if (f->succs.v[blocks[b].first_succ + j] == s)
          dup = true;
      if (!dup && s < nb)
        f->preds.v[blocks[s].first_pred + blocks[s].n_pred++] = b;
    }
  f->preds.n = pos;
  free(cnt);
  f->functions.v[fi].n_slots = f->n_slots;
  return true;
}

/* ---- module ----------------------------------------------------------------
 */

bool fe_lower_module(fe *f) {
  f->synth_next = ((f->elf.image_end + 0xffff) & ~(uint64_t)0xffff) + 0x10000;
  if (!f->elf.loaded)
    f->synth_next = 0x10000000;
  /* functions first: their addresses are constants */
  for (LLVMValueRef fn = LLVMGetFirstFunction(f->mod); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    LLVMAttributeRef tf = LLVMGetStringAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex, "target-features", 15);
    if (tf) {
      unsigned tl;
      const char *feat = LLVMGetStringAttributeValue(tf, &tl);
      for (unsigned k = 0; feat && k + 4 <= tl; k++)
        if (!memcmp(feat + k, "+fma", 4) && (k + 4 == tl || feat[k + 4] == ','))
          f->fmuladd_fused = true;
    }
    size_t len;
    const char *name = LLVMGetValueName2(fn, &len);
    cb_function cf;
    memset(&cf, 0, sizeof cf);
    cf.name = fe_pool_strn(f->pool, name, len);
    cf.file = CB_NONE;
    LLVMMetadataRef sp = LLVMGetSubprogram(fn);
    if (sp) {
      cf.file = fe_file_of_scope(f, sp);
      cf.line = LLVMDISubprogramGetLine(sp);
    }
    bool local = LLVMGetLinkage(fn) == LLVMInternalLinkage ||
                 LLVMGetLinkage(fn) == LLVMPrivateLinkage;
    const fe_sym *s = fe_elf_find_linked(
        &f->elf, cf.name, true,
        local && cf.file != CB_NONE ? f->files.v[cf.file] : NULL);
    cf.addr = s ? s->value : 0;
    cf.optnone = LLVMGetEnumAttributeAtIndex(
                     fn, LLVMAttributeFunctionIndex,
                     LLVMGetEnumAttributeKindForName("optnone", 7)) != NULL;
    fe_map_put(&f->func_index, fn, f->functions.n);
    FE_PUSH(f->functions, cf);
  }
  if (!fe_place_globals(f))
    return false;
  uint32_t fi = 0;
  for (LLVMValueRef fn = LLVMGetFirstFunction(f->mod); fn;
       fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn))
      continue;
    if (!lower_function(f, fn, fi++))
      return false;
  }
  /* functions the program calls but nobody defines */
  if (f->unknown.n) {
    for (uint32_t i = 0; i < f->unknown.n; i++) {
      const char *nm = f->unknown.v[i].name;
      bool first = true;
      for (uint32_t k = 0; k < i; k++)
        if (f->unknown.v[k].name == nm)
          first = false;
      if (!first)
        continue;
      fe_errf(f->err, CB_FE_ERR_UNDEFINED,
              "error: function '%s' is called but defined nowhere (not in the "
              "sources, not in cbana's C library model)\n",
              nm);
      for (uint32_t k = i; k < f->unknown.n; k++)
        if (f->unknown.v[k].name == nm) {
          const fe_unknown_call *u = &f->unknown.v[k];
          fe_errf(f->err, CB_FE_ERR_UNDEFINED, "  called at %s:%u\n",
                  u->file != CB_NONE ? f->files.v[u->file] : "?", u->line);
        }
    }
    return false;
  }
  return true;
}
