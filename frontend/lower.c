/* lower.c: LLVM IR -> the compact IR of program.h. Functions, blocks,
 * operations on slots, constants (addresses of globals and functions
 * resolved), GEPs folded into address recipes, sites with source
 * locations and the variable, type and field they access. */
#include "fe_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- reporting ---------------------------------------------------------- */

static void loc_of(fe *f, LLVMValueRef inst, uint32_t *file, uint32_t *line,
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

static bool unsupported(fe *f, LLVMValueRef inst, const char *what) {
  uint32_t file, line, col;
  loc_of(f, inst, &file, &line, &col, NULL);
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
static uint32_t type_slots(LLVMTypeRef t, cb_ty *ty) {
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
      uint32_t k = type_slots(LLVMStructGetTypeAtIndex(t, i), &et);
      if (k == UINT32_MAX)
        return k;
      if (i == 0 || *ty == CB_TY_VOID)
        *ty = et;
      total += k;
    }
    return total;
  }
  case LLVMArrayTypeKind: {
    uint32_t k = type_slots(LLVMGetElementType(t), ty);
    uint64_t n = LLVMGetArrayLength(t);
    if (k == UINT32_MAX || n * k > 4096)
      return UINT32_MAX;
    return (uint32_t)(n * k);
  }
  default:
    if (scalar_ty(t, ty))
      return 1;
    return UINT32_MAX;
  }
}

static const char *type_str(fe *f, LLVMTypeRef t) {
  char *s = LLVMPrintTypeToString(t);
  const char *r = fe_pool_str(f->pool, s);
  LLVMDisposeMessage(s);
  return r;
}

static int64_t sext(uint64_t u, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return (int64_t)u;
  return (int64_t)(u << (64 - bits)) >> (64 - bits);
}

/* ---- constants ---------------------------------------------------------- */

static bool const_scalar(fe *f, LLVMValueRef c, cb_value *out);

/* Byte offset of a constant-index GEP (ConstantExpr). */
static bool gep_const_offset(fe *f, LLVMValueRef g, int64_t *off) {
  LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
  unsigned n = (unsigned)LLVMGetNumOperands(g);
  int64_t o = 0;
  for (unsigned i = 1; i < n; i++) {
    LLVMValueRef idx = LLVMGetOperand(g, i);
    cb_value v;
    if (!LLVMIsAConstant(idx) || !const_scalar(f, idx, &v))
      return false;
    int64_t k = sext(v.u, LLVMGetIntTypeWidth(LLVMTypeOf(idx)));
    if (i == 1) {
      o += k * (int64_t)LLVMABISizeOfType(f->td, t);
    } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      o += (int64_t)LLVMOffsetOfElement(f->td, t, (unsigned)k);
      t = LLVMStructGetTypeAtIndex(t, (unsigned)k);
    } else {
      t = LLVMGetElementType(t);
      o += k * (int64_t)LLVMABISizeOfType(f->td, t);
    }
  }
  *off = o;
  return true;
}

static bool global_addr(fe *f, LLVMValueRef g, uint64_t *addr) {
  uint64_t gi;
  if (LLVMIsAFunction(g)) {
    if (fe_map_get(&f->func_index, g, &gi)) {
      *addr = f->functions.v[gi].addr;
      return true;
    }
    *addr = 0; /* a library function's address: unknown here */
    return true;
  }
  if (fe_map_get(&f->global_index, g, &gi)) {
    *addr = f->globals.v[gi].addr;
    return true;
  }
  return false;
}

static bool const_scalar(fe *f, LLVMValueRef c, cb_value *out) {
  out->u = 0;
  LLVMTypeRef t = LLVMTypeOf(c);
  if (LLVMIsAConstantInt(c)) {
    if (LLVMGetIntTypeWidth(t) > 64)
      return false;
    out->u = LLVMConstIntGetZExtValue(c);
    return true;
  }
  if (LLVMIsAConstantFP(c)) {
    LLVMBool loses;
    double d = LLVMConstRealGetDouble(c, &loses);
    if (LLVMGetTypeKind(t) == LLVMFloatTypeKind)
      out->f = (float)d;
    else if (LLVMGetTypeKind(t) == LLVMDoubleTypeKind)
      out->d = d;
    else
      return false;
    return true;
  }
  if (LLVMIsAConstantPointerNull(c) || LLVMIsAUndefValue(c) ||
      LLVMIsAConstantAggregateZero(c))
    return true;
  if (LLVMIsAGlobalAlias(c))
    return const_scalar(f, LLVMAliasGetAliasee(c), out);
  if (LLVMIsAGlobalValue(c))
    return global_addr(f, c, &out->u);
  if (!LLVMIsAConstantExpr(c))
    return false;
  LLVMOpcode op = LLVMGetConstOpcode(c);
  cb_value a = {0}, b = {0};
  unsigned bits =
      LLVMGetTypeKind(t) == LLVMIntegerTypeKind ? LLVMGetIntTypeWidth(t) : 64;
  switch (op) {
  case LLVMGetElementPtr: {
    int64_t off;
    if (!const_scalar(f, LLVMGetOperand(c, 0), &a) ||
        !gep_const_offset(f, c, &off))
      return false;
    out->u = a.u + (uint64_t)off;
    return true;
  }
  case LLVMBitCast:
  case LLVMAddrSpaceCast:
  case LLVMPtrToInt:
  case LLVMIntToPtr:
  case LLVMZExt:
  case LLVMTrunc: {
    if (!const_scalar(f, LLVMGetOperand(c, 0), &a))
      return false;
    out->u = a.u;
    if (bits < 64 && op != LLVMBitCast)
      out->u &= (1ULL << bits) - 1;
    return true;
  }
  case LLVMSExt: {
    LLVMValueRef o = LLVMGetOperand(c, 0);
    if (!const_scalar(f, o, &a))
      return false;
    out->u = (uint64_t)sext(a.u, LLVMGetIntTypeWidth(LLVMTypeOf(o)));
    if (bits < 64)
      out->u &= (1ULL << bits) - 1;
    return true;
  }
  case LLVMAdd:
  case LLVMSub:
  case LLVMMul:
  case LLVMAnd:
  case LLVMOr:
  case LLVMXor:
  case LLVMShl:
  case LLVMLShr:
    if (!const_scalar(f, LLVMGetOperand(c, 0), &a) ||
        !const_scalar(f, LLVMGetOperand(c, 1), &b))
      return false;
    switch (op) {
    case LLVMAdd:
      out->u = a.u + b.u;
      break;
    case LLVMSub:
      out->u = a.u - b.u;
      break;
    case LLVMMul:
      out->u = a.u * b.u;
      break;
    case LLVMAnd:
      out->u = a.u & b.u;
      break;
    case LLVMOr:
      out->u = a.u | b.u;
      break;
    case LLVMXor:
      out->u = a.u ^ b.u;
      break;
    case LLVMShl:
      out->u = b.u < 64 ? a.u << b.u : 0;
      break;
    default:
      out->u = b.u < 64 ? a.u >> b.u : 0;
      break;
    }
    if (bits < 64)
      out->u &= (1ULL << bits) - 1;
    return true;
  case LLVMICmp: {
    LLVMValueRef o0 = LLVMGetOperand(c, 0);
    if (!const_scalar(f, o0, &a) || !const_scalar(f, LLVMGetOperand(c, 1), &b))
      return false;
    unsigned w = LLVMGetTypeKind(LLVMTypeOf(o0)) == LLVMIntegerTypeKind
                     ? LLVMGetIntTypeWidth(LLVMTypeOf(o0))
                     : 64;
    int64_t sa = sext(a.u, w), sb = sext(b.u, w);
    bool r = false;
    switch (LLVMGetICmpPredicate(c)) {
    case LLVMIntEQ:
      r = a.u == b.u;
      break;
    case LLVMIntNE:
      r = a.u != b.u;
      break;
    case LLVMIntUGT:
      r = a.u > b.u;
      break;
    case LLVMIntUGE:
      r = a.u >= b.u;
      break;
    case LLVMIntULT:
      r = a.u < b.u;
      break;
    case LLVMIntULE:
      r = a.u <= b.u;
      break;
    case LLVMIntSGT:
      r = sa > sb;
      break;
    case LLVMIntSGE:
      r = sa >= sb;
      break;
    case LLVMIntSLT:
      r = sa < sb;
      break;
    case LLVMIntSLE:
      r = sa <= sb;
      break;
    }
    out->u = r;
    return true;
  }
  case LLVMSelect: {
    cb_value cond;
    if (!const_scalar(f, LLVMGetOperand(c, 0), &cond))
      return false;
    return const_scalar(f, LLVMGetOperand(c, cond.u & 1 ? 1 : 2), out);
  }
  default:
    return false;
  }
}

/* Flattened slots of a constant (vectors, structs, arrays). */
static bool const_flat(fe *f, LLVMValueRef c, cb_value *out, uint32_t n) {
  LLVMTypeRef t = LLVMTypeOf(c);
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k != LLVMVectorTypeKind && k != LLVMStructTypeKind &&
      k != LLVMArrayTypeKind)
    return n == 1 && const_scalar(f, c, out);
  if (LLVMIsAUndefValue(c) || LLVMIsAConstantAggregateZero(c)) {
    memset(out, 0, n * sizeof *out);
    return true;
  }
  unsigned count = k == LLVMVectorTypeKind  ? LLVMGetVectorSize(t)
                   : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength(t)
                                            : LLVMCountStructElementTypes(t);
  bool data = LLVMIsAConstantDataSequential(c) != NULL;
  uint32_t pos = 0;
  for (unsigned i = 0; i < count; i++) {
    LLVMValueRef e =
        data ? LLVMGetElementAsConstant(c, i) : LLVMGetOperand(c, i);
    if (!e)
      return false;
    uint32_t m = type_slots(LLVMTypeOf(e), NULL);
    if (m == UINT32_MAX || pos + m > n || !const_flat(f, e, out + pos, m))
      return false;
    pos += m;
  }
  return pos == n;
}

static bool const_operand(fe *f, LLVMValueRef c, LLVMValueRef user,
                          cb_operand *op) {
  uint64_t idx;
  if (fe_map_get(&f->const_index, c, &idx)) {
    *op = (cb_operand)idx | CB_OPND_CONST;
    return true;
  }
  uint32_t n = type_slots(LLVMTypeOf(c), NULL);
  if (n == UINT32_MAX || n == 0) {
    char buf[256];
    snprintf(buf, sizeof buf, "constant of type %s",
             type_str(f, LLVMTypeOf(c)));
    return unsupported(f, user, buf);
  }
  FE_RESERVE(f->consts, n);
  cb_value *dst = f->consts.v + f->consts.n;
  memset(dst, 0, n * sizeof *dst);
  if (!const_flat(f, c, dst, n)) {
    if (LLVMIsABlockAddress(c))
      return unsupported(f, user, "address of a label (computed goto)");
    char *s = LLVMPrintValueToString(c);
    char buf[300];
    snprintf(buf, sizeof buf, "constant expression %.200s", s);
    LLVMDisposeMessage(s);
    return unsupported(f, user, buf);
  }
  idx = f->consts.n;
  f->consts.n += n;
  fe_map_put(&f->const_index, c, idx);
  *op = (cb_operand)idx | CB_OPND_CONST;
  return true;
}

/* ---- values ------------------------------------------------------------- */

static bool is_intrinsic_named(LLVMValueRef fn, const char *prefix) {
  size_t len;
  const char *nm = LLVMGetValueName2(fn, &len);
  size_t pl = strlen(prefix);
  return len >= pl && strncmp(nm, prefix, pl) == 0 &&
         (len == pl || nm[pl] == '.');
}

static LLVMValueRef strip_casts(LLVMValueRef v) {
  while (LLVMIsAConstantExpr(v) && (LLVMGetConstOpcode(v) == LLVMBitCast ||
                                    LLVMGetConstOpcode(v) == LLVMAddrSpaceCast))
    v = LLVMGetOperand(v, 0);
  if (LLVMIsAGlobalAlias(v))
    return strip_casts(LLVMAliasGetAliasee(v));
  return v;
}

/* The value an instruction copies unchanged, or NULL. */
static LLVMValueRef alias_source(LLVMValueRef I) {
  switch (LLVMGetInstructionOpcode(I)) {
  case LLVMBitCast: {
    LLVMTypeRef a = LLVMTypeOf(I), b = LLVMTypeOf(LLVMGetOperand(I, 0));
    if (a == b || (LLVMGetTypeKind(a) == LLVMPointerTypeKind &&
                   LLVMGetTypeKind(b) == LLVMPointerTypeKind))
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

static bool operand_of(fe *f, LLVMValueRef v, LLVMValueRef user,
                       cb_operand *op);

static bool slot_of(fe *f, LLVMValueRef v, LLVMValueRef user, cb_operand *op) {
  uint64_t x;
  if (fe_map_get(&f->vals, v, &x)) {
    *op = (cb_operand)x;
    return true;
  }
  if (LLVMIsAInstruction(v)) {
    LLVMValueRef src = alias_source(v);
    if (src) {
      if (!operand_of(f, src, v, op))
        return false;
      fe_map_put(&f->vals, v, *op);
      return true;
    }
  }
  uint32_t n = type_slots(LLVMTypeOf(v), NULL);
  if (n == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "value of type %s", type_str(f, LLVMTypeOf(v)));
    return unsupported(f, LLVMIsAInstruction(v) ? v : user, buf);
  }
  *op = f->n_slots;
  f->n_slots += n ? n : 1;
  fe_map_put(&f->vals, v, *op);
  return true;
}

static bool operand_of(fe *f, LLVMValueRef v, LLVMValueRef user,
                       cb_operand *op) {
  if (LLVMIsAInstruction(v) || LLVMIsAArgument(v))
    return slot_of(f, v, user, op);
  if (LLVMIsAConstant(v))
    return const_operand(f, v, user, op);
  if (LLVMIsAInlineAsm(v))
    return unsupported(f, user, "inline assembly");
  return unsupported(f, user, "operand that is neither a value nor a constant");
}

/* ---- sites --------------------------------------------------------------- */

static LLVMMetadataRef dbgval_var(fe *f, LLVMValueRef v, LLVMMetadataRef sp) {
  uint64_t i;
  if (!fe_map_get(&f->dbgval, v, &i))
    return NULL;
  LLVMMetadataRef first = f->dbgvals.v[i].var;
  for (uint32_t k = (uint32_t)i; k != CB_NONE; k = f->dbgvals.v[k].next) {
    LLVMMetadataRef var = f->dbgvals.v[k].var;
    if (sp && fe_subprogram_of(f, fe_md_op(f, var, 0)) == sp)
      return var;
  }
  return first;
}

/* Walks an address back to what it points into. */
static bool resolve_base(fe *f, LLVMValueRef v, LLVMMetadataRef sp, int depth,
                         LLVMValueRef *phis, int nphis, uint32_t *var,
                         bool *object, int64_t *off) {
  if (depth > 24)
    return false;
  LLVMMetadataRef dv = dbgval_var(f, v, sp);
  if (dv && !LLVMIsAGlobalValue(v)) {
    *var = fe_var(f, dv);
    *object = false;
    return *var != CB_NONE;
  }
  if (LLVMIsAGlobalVariable(v)) {
    uint64_t gi;
    if (!fe_map_get(&f->global_index, v, &gi) ||
        f->globals.v[gi].var == CB_NONE)
      return false;
    *var = f->globals.v[gi].var;
    *object = true;
    return true;
  }
  if (LLVMIsAAllocaInst(v)) {
    uint64_t md;
    if (!fe_map_get(&f->alloca_var, v, &md))
      return false;
    *var = fe_var(f, (LLVMMetadataRef)(uintptr_t)md);
    *object = true;
    return *var != CB_NONE;
  }
  bool is_inst = LLVMIsAInstruction(v) != NULL;
  bool is_ce = LLVMIsAConstantExpr(v) != NULL;
  if (is_inst || is_ce) {
    LLVMOpcode op =
        is_inst ? LLVMGetInstructionOpcode(v) : LLVMGetConstOpcode(v);
    if (op == LLVMGetElementPtr) {
      LLVMTypeRef t = LLVMGetGEPSourceElementType(v);
      unsigned n = (unsigned)LLVMGetNumOperands(v);
      int64_t o = 0;
      for (unsigned i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(v, i);
        int64_t k = 0;
        bool c = LLVMIsAConstantInt(idx) != NULL;
        if (c)
          k = sext(LLVMConstIntGetZExtValue(idx),
                   LLVMGetIntTypeWidth(LLVMTypeOf(idx)));
        if (i == 1) {
          o += k * (int64_t)LLVMABISizeOfType(f->td, t);
        } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
          o += (int64_t)LLVMOffsetOfElement(f->td, t, (unsigned)k);
          t = LLVMStructGetTypeAtIndex(t, (unsigned)k);
        } else {
          t = LLVMGetElementType(t);
          o += k * (int64_t)LLVMABISizeOfType(f->td, t);
        }
      }
      *off += o;
      return resolve_base(f, LLVMGetOperand(v, 0), sp, depth + 1, phis, nphis,
                          var, object, off);
    }
    if (op == LLVMBitCast || op == LLVMAddrSpaceCast || op == LLVMFreeze)
      return resolve_base(f, LLVMGetOperand(v, 0), sp, depth + 1, phis, nphis,
                          var, object, off);
    if (op == LLVMPHI && nphis < 8) {
      for (int i = 0; i < nphis; i++)
        if (phis[i] == v)
          return false;
      phis[nphis] = v;
      unsigned n = LLVMCountIncoming(v);
      for (unsigned i = 0; i < n; i++) {
        int64_t o = *off;
        if (resolve_base(f, LLVMGetIncomingValue(v, i), sp, depth + 1, phis,
                         nphis + 1, var, object, &o)) {
          *off = o;
          return true;
        }
      }
      return false;
    }
    if (op == LLVMSelect) {
      int64_t o = *off;
      if (resolve_base(f, LLVMGetOperand(v, 1), sp, depth + 1, phis, nphis, var,
                       object, &o)) {
        *off = o;
        return true;
      }
      return resolve_base(f, LLVMGetOperand(v, 2), sp, depth + 1, phis, nphis,
                          var, object, off);
    }
  }
  return false;
}

/* ---- the access as written ---------------------------------------------- */

typedef struct sbuf {
  char b[256];
  size_t n;
  bool bad;
} sbuf;

static void sb_add(sbuf *s, const char *t) {
  size_t l = strlen(t);
  if (s->n + l + 1 > sizeof s->b) {
    s->bad = true;
    return;
  }
  memcpy(s->b + s->n, t, l + 1);
  s->n += l;
}

/* An index as the source could have written it: a constant, a variable,
 * or a little arithmetic on them. */
static bool expr_text(fe *f, LLVMValueRef v, LLVMMetadataRef sp, int depth,
                      sbuf *out) {
  if (depth > 4)
    return false;
  if (LLVMIsAConstantInt(v)) {
    char t[32];
    snprintf(t, sizeof t, "%lld", LLVMConstIntGetSExtValue(v));
    sb_add(out, t);
    return !out->bad;
  }
  LLVMMetadataRef dv = dbgval_var(f, v, sp);
  if (dv) {
    size_t len;
    const char *nm = fe_md_op_str(f, dv, 1, &len);
    if (!nm)
      return false;
    char t[128];
    snprintf(t, sizeof t, "%.*s", (int)len, nm);
    sb_add(out, t);
    return !out->bad;
  }
  if (!LLVMIsAInstruction(v))
    return false;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMSExt || op == LLVMZExt || op == LLVMTrunc)
    return expr_text(f, LLVMGetOperand(v, 0), sp, depth + 1, out);
  const char *sym = op == LLVMAdd   ? " + "
                    : op == LLVMSub ? " - "
                    : op == LLVMMul ? " * "
                    : op == LLVMShl ? " << "
                                    : NULL;
  if (!sym)
    return false;
  LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
  if (op == LLVMAdd && LLVMIsAConstantInt(b) &&
      LLVMConstIntGetSExtValue(b) < 0) {
    if (!expr_text(f, a, sp, depth + 1, out))
      return false;
    char t[40];
    snprintf(t, sizeof t, " - %lld", -LLVMConstIntGetSExtValue(b));
    sb_add(out, t);
    return !out->bad;
  }
  bool paren = depth > 0 && (op == LLVMAdd || op == LLVMSub);
  if (paren)
    sb_add(out, "(");
  if (!expr_text(f, a, sp, depth + 1, out))
    return false;
  sb_add(out, sym);
  if (!expr_text(f, b, sp, depth + 1, out))
    return false;
  if (paren)
    sb_add(out, ")");
  return !out->bad;
}

static const char *site_text(fe *f, LLVMValueRef addr, uint32_t var,
                             bool object, LLVMMetadataRef sp) {
  LLVMValueRef geps[16];
  int n = 0;
  LLVMValueRef v = addr;
  for (int depth = 0;; depth++) {
    if (depth > 24)
      return NULL;
    if (object && (LLVMIsAGlobalVariable(v) || LLVMIsAAllocaInst(v)))
      break;
    if (!object) {
      LLVMMetadataRef dv = dbgval_var(f, v, sp);
      if (dv && fe_var(f, dv) == var)
        break;
    }
    bool ce = LLVMIsAConstantExpr(v) != NULL;
    if (!ce && !LLVMIsAInstruction(v))
      return NULL;
    LLVMOpcode op = ce ? LLVMGetConstOpcode(v) : LLVMGetInstructionOpcode(v);
    if (op == LLVMGetElementPtr) {
      if (n == 16)
        return NULL;
      geps[n++] = v;
    } else if (op != LLVMBitCast) {
      return NULL;
    }
    v = LLVMGetOperand(v, 0);
  }
  sbuf out = {.n = 0, .bad = false};
  out.b[0] = 0;
  sb_add(&out, f->vars.v[var].name);
  uint32_t cur = fe_type_strip(f, f->vars.v[var].type);
  if (!object) {
    if (cur == CB_NONE || f->types.v[cur].kind != CB_CT_POINTER)
      return NULL;
    cur = fe_type_strip(f, f->types.v[cur].elem);
  }
  size_t last_index = 0; /* where the last [..] starts, 0: none */
  bool deref = object;   /* a pointer not yet dereferenced */
  for (int k = n - 1; k >= 0; k--) {
    LLVMValueRef g = geps[k];
    LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
    unsigned nops = (unsigned)LLVMGetNumOperands(g);
    for (unsigned i = 1; i < nops; i++) {
      LLVMValueRef idx = LLVMGetOperand(g, i);
      bool zero = LLVMIsAConstantInt(idx) && LLVMConstIntGetZExtValue(idx) == 0;
      if (i == 1) {
        if (zero)
          continue;
        if (!deref && last_index == 0) {
          /* p[i] */
          last_index = out.n;
          sb_add(&out, "[");
          if (!expr_text(f, idx, sp, 0, &out))
            return NULL;
          sb_add(&out, "]");
          deref = true;
          continue;
        }
        if (last_index == 0)
          return NULL;
        /* a further offset on the last index: [a] + b -> [a + b] */
        out.n--; /* drop ']' */
        out.b[out.n] = 0;
        if (LLVMIsAConstantInt(idx) && LLVMConstIntGetSExtValue(idx) < 0) {
          char tt[40];
          snprintf(tt, sizeof tt, " - %lld", -LLVMConstIntGetSExtValue(idx));
          sb_add(&out, tt);
        } else {
          sb_add(&out, " + ");
          if (!expr_text(f, idx, sp, 1, &out))
            return NULL;
        }
        sb_add(&out, "]");
        continue;
      }
      if (cur == CB_NONE)
        return NULL;
      const cb_ctype *ct = &f->types.v[cur];
      if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        unsigned fi = (unsigned)LLVMConstIntGetZExtValue(idx);
        uint64_t off = LLVMOffsetOfElement(f->td, t, fi);
        t = LLVMStructGetTypeAtIndex(t, fi);
        if (ct->kind != CB_CT_STRUCT && ct->kind != CB_CT_UNION)
          return NULL;
        uint32_t hit = CB_NONE;
        for (uint32_t m = 0; m < ct->n_fields && hit == CB_NONE; m++)
          if (f->fields.v[ct->first_field + m].offset == off)
            hit = ct->first_field + m;
        if (hit == CB_NONE)
          return NULL;
        sb_add(&out, deref ? "." : "->");
        sb_add(&out, f->fields.v[hit].name);
        cur = fe_type_strip(f, f->fields.v[hit].type);
        deref = true;
        last_index = 0;
      } else {
        t = LLVMGetElementType(t);
        if (ct->kind != CB_CT_ARRAY)
          return NULL;
        last_index = out.n;
        sb_add(&out, "[");
        if (!expr_text(f, idx, sp, 0, &out))
          return NULL;
        sb_add(&out, "]");
        cur = fe_type_strip(f, ct->elem);
      }
    }
  }
  if (!deref)
    return NULL; /* *p: say nothing rather than guess */
  if (out.bad)
    return NULL;
  return fe_pool_intern(f->pool, out.b, out.n);
}

static uint32_t new_site(fe *f, LLVMValueRef I, LLVMValueRef addr,
                         uint32_t size, bool write, bool call) {
  cb_site s;
  memset(&s, 0, sizeof s);
  LLVMMetadataRef scope = NULL;
  loc_of(f, I, &s.file, &s.line, &s.col, &scope);
  s.func = fe_src_func(f, scope ? scope : f->cur_sp);
  s.var = s.type = s.field = CB_NONE;
  s.size = size;
  s.is_write = write;
  s.is_call = call;
  if (addr) {
    LLVMMetadataRef sp = scope ? fe_subprogram_of(f, scope) : f->cur_sp;
    LLVMValueRef phis[8];
    uint32_t var;
    bool object = false;
    int64_t off = 0;
    if (resolve_base(f, addr, sp, 0, phis, 0, &var, &object, &off)) {
      s.var = var;
      if (!call) {
        fe_resolve_access(f, var, object, off, size, &s.type, &s.field);
        s.text = site_text(f, addr, var, object, sp);
      }
    }
  }
  FE_PUSH(f->sites, s);
  return f->sites.n - 1;
}

/* ---- operations ------------------------------------------------------- */

static cb_op new_op(uint8_t code) {
  cb_op o;
  memset(&o, 0, sizeof o);
  o.code = code;
  o.lanes = 1;
  o.dst = CB_NONE;
  o.a = o.b = o.c = CB_NONE;
  o.aux = CB_NONE;
  return o;
}

static bool set_dst(fe *f, cb_op *o, LLVMValueRef I) {
  cb_ty ty;
  uint32_t n = type_slots(LLVMTypeOf(I), &ty);
  if (n == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "value of type %s", type_str(f, LLVMTypeOf(I)));
    return unsupported(f, I, buf);
  }
  o->ty = (uint8_t)ty;
  o->lanes = (uint8_t)(n ? n : 1);
  if (n == 0) {
    o->dst = CB_NONE;
    o->lanes = 0;
    return true;
  }
  cb_operand d;
  if (!slot_of(f, I, NULL, &d))
    return false;
  o->dst = d;
  return true;
}

static bool opnd(fe *f, LLVMValueRef I, unsigned i, cb_operand *out) {
  return operand_of(f, LLVMGetOperand(I, i), I, out);
}

static uint8_t elem_ty_of(LLVMTypeRef t) {
  cb_ty ty = CB_TY_VOID;
  type_slots(t, &ty);
  return (uint8_t)ty;
}

typedef struct intr_name {
  const char *name;
  int id;
} intr_name;

static const intr_name intrinsic_names[] = {
#define X(id, nm) {nm, CB_INTR_##id},
    CB_INTRINSICS(X)
#undef X
};

static const char *const libc_names[] = {
#define X(id, nm) nm,
    CB_LIBC_FUNCTIONS(X)
#undef X
};

static const char *const dropped_intrinsics[] = {
    "dbg",         "lifetime",
    "assume",      "experimental.noalias.scope.decl",
    "invariant",   "sideeffect",
    "pseudoprobe", "var.annotation",
    "donothing",   "prefetch",
    "annotation",  "ptr.annotation",
    "objc",        "codeview.annotation"};

static int find_intrinsic(const char *name) {
  int best = -1;
  size_t bl = 0;
  for (size_t i = 0; i < sizeof intrinsic_names / sizeof *intrinsic_names;
       i++) {
    size_t l = strlen(intrinsic_names[i].name);
    if (strncmp(name, intrinsic_names[i].name, l) == 0 &&
        (name[l] == 0 || name[l] == '.') && l > bl) {
      best = intrinsic_names[i].id;
      bl = l;
    }
  }
  return best;
}

static int find_libc(const char *name) {
  for (size_t i = 0; i < sizeof libc_names / sizeof *libc_names; i++)
    if (strcmp(name, libc_names[i]) == 0)
      return (int)i;
  return -1;
}

static unsigned byval_kind(void) {
  static unsigned k;
  if (!k)
    k = LLVMGetEnumAttributeKindForName("byval", 5);
  return k;
}

static uint32_t byval_bytes_call(fe *f, LLVMValueRef call, unsigned argi,
                                 LLVMValueRef callee) {
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, argi + 1, byval_kind());
  if (!a && callee && LLVMIsAFunction(callee) && argi < LLVMCountParams(callee))
    a = LLVMGetEnumAttributeAtIndex(callee, argi + 1, byval_kind());
  if (!a)
    return 0;
  LLVMTypeRef t = LLVMGetTypeAttributeValue(a);
  return t ? (uint32_t)LLVMABISizeOfType(f->td, t) : 0;
}

static bool lower_load_relative(fe *f, LLVMValueRef I);

/* Lowers a call; returns false on error. *emitted false when dropped. */
static bool lower_call(fe *f, LLVMValueRef I) {
  LLVMValueRef callee = strip_casts(LLVMGetCalledValue(I));
  if (LLVMIsAInlineAsm(callee))
    return unsupported(f, I, "inline assembly");
  cb_op o = new_op(CB_OP_CALL);
  int64_t kind, target = 0;
  if (LLVMIsAFunction(callee)) {
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    uint64_t idx;
    if (strncmp(name, "llvm.", 5) == 0) {
      const char *iname = name + 5;
      for (size_t i = 0;
           i < sizeof dropped_intrinsics / sizeof *dropped_intrinsics; i++) {
        size_t l = strlen(dropped_intrinsics[i]);
        if (strncmp(iname, dropped_intrinsics[i], l) == 0 &&
            (iname[l] == 0 || iname[l] == '.'))
          return true;
      }
      if (alias_source(I))
        return true;
      if (strncmp(iname, "trap", 4) == 0 ||
          strncmp(iname, "debugtrap", 9) == 0) {
        cb_op u = new_op(CB_OP_UNREACHABLE);
        FE_PUSH(f->ops, u);
        return true;
      }
      if (strncmp(iname, "load.relative", 13) == 0)
        return lower_load_relative(f, I);
      if (strncmp(iname, "va_", 3) == 0)
        return unsupported(f, I, "variable argument list (va_start/va_arg)");
      int id = find_intrinsic(iname);
      if (id < 0) {
        char buf[300];
        snprintf(buf, sizeof buf, "intrinsic %.200s", name);
        return unsupported(f, I, buf);
      }
      kind = CB_CALL_INTRINSIC;
      target = id;
    } else if (fe_map_get(&f->func_index, callee, &idx)) {
      kind = CB_CALL_DIRECT;
      target = (int64_t)idx;
    } else {
      int lib = find_libc(name);
      if (lib < 0) {
        if (strcmp(name, "setjmp") == 0 || strcmp(name, "_setjmp") == 0 ||
            strcmp(name, "longjmp") == 0 || strcmp(name, "__sigsetjmp") == 0)
          return unsupported(f, I, "setjmp/longjmp");
        if (strncmp(name, "pthread_", 8) == 0)
          return unsupported(f, I, "threads");
        fe_unknown_call u;
        uint32_t col;
        loc_of(f, I, &u.file, &u.line, &col, NULL);
        u.name = fe_pool_intern(f->pool, name, len);
        FE_PUSH(f->unknown, u);
        lib = 0;
      }
      kind = CB_CALL_LIBC;
      target = lib;
    }
  } else {
    kind = CB_CALL_INDIRECT;
    if (!operand_of(f, LLVMGetCalledValue(I), I, &o.a))
      return false;
  }
  if (!set_dst(f, &o, I))
    return false;
  if (o.dst == CB_NONE)
    o.ty = CB_TY_VOID;
  unsigned nargs = (unsigned)LLVMGetNumArgOperands(I);
  LLVMValueRef first_ptr = NULL;
  for (unsigned k = 0; k < nargs && !first_ptr; k++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(I, k))) ==
        LLVMPointerTypeKind)
      first_ptr = LLVMGetOperand(I, k);
  uint32_t site =
      new_site(f, I, kind == CB_CALL_DIRECT ? NULL : first_ptr, 0, false, true);
  o.aux = f->extra.n;
  FE_RESERVE(f->extra, 4 + nargs);
  f->extra.v[f->extra.n++] = kind;
  f->extra.v[f->extra.n++] = target;
  f->extra.v[f->extra.n++] = site;
  f->extra.v[f->extra.n++] = nargs;
  for (unsigned k = 0; k < nargs; k++) {
    LLVMValueRef arg = LLVMGetOperand(I, k);
    LLVMTypeRef at = LLVMTypeOf(arg);
    if (LLVMGetTypeKind(at) == LLVMMetadataTypeKind)
      return unsupported(f, I, "call with a metadata argument");
    cb_operand a;
    if (!operand_of(f, arg, I, &a))
      return false;
    cb_ty ty;
    uint32_t lanes = type_slots(at, &ty);
    uint64_t bv =
        byval_bytes_call(f, I, k, kind == CB_CALL_DIRECT ? callee : NULL);
    if (bv > 0xffff)
      return unsupported(f, I, "struct passed by value larger than 64 KiB");
    f->extra.v[f->extra.n++] =
        (int64_t)((uint64_t)a | ((uint64_t)ty << 32) |
                  ((uint64_t)(lanes & 0xff) << 40) | (bv << 48));
  }
  FE_PUSH(f->ops, o);
  return true;
}

/* Flattened slot offset of an aggregate index path. */
static uint32_t agg_offset(LLVMTypeRef t, const unsigned *idx, unsigned n,
                           LLVMTypeRef *leaf) {
  uint32_t off = 0;
  for (unsigned i = 0; i < n; i++) {
    if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
      for (unsigned k = 0; k < idx[i]; k++)
        off += type_slots(LLVMStructGetTypeAtIndex(t, k), NULL);
      t = LLVMStructGetTypeAtIndex(t, idx[i]);
    } else {
      t = LLVMGetElementType(t);
      off += idx[i] * type_slots(t, NULL);
    }
  }
  *leaf = t;
  return off;
}

static bool new_branch(fe *f, LLVMValueRef I, uint32_t block, uint32_t *out) {
  cb_branch br;
  memset(&br, 0, sizeof br);
  br.func = f->cur_func;
  br.block = block;
  loc_of(f, I, &br.file, &br.line, &br.col, NULL);
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
  cb_op g = new_op(CB_OP_GEP);
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
      slot += type_slots(et, NULL);
    }
    return true;
  }
  cb_ty ty;
  uint32_t lanes = type_slots(t, &ty);
  if (lanes == UINT32_MAX || lanes == 0)
    return unsupported(f, I, "memory access of this aggregate type");
  cb_operand a = base;
  if (off) {
    a = temp_slot(f);
    emit_gep(f, a, base, (int64_t)off, CB_NONE, 0, 0);
  }
  cb_op o = new_op(st ? CB_OP_STORE : CB_OP_LOAD);
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
  o.aux = new_site(f, I, addr, size, st, false);
  FE_PUSH(f->ops, o);
  return true;
}

static bool lower_aggregate_access(fe *f, LLVMValueRef I, bool st,
                                   LLVMValueRef addr, LLVMTypeRef t) {
  cb_operand base, val;
  if (type_slots(t, NULL) == UINT32_MAX)
    return unsupported(f, I, "load or store of a large aggregate");
  if (!operand_of(f, addr, I, &base))
    return false;
  if (st) {
    if (!operand_of(f, LLVMGetOperand(I, 0), I, &val))
      return false;
  } else if (!slot_of(f, I, NULL, &val)) {
    return false;
  }
  return agg_members(f, I, st, addr, base, val, t, 0, 0);
}

/* llvm.load.relative(ptr, off): ptr + sext(*(i32 *)(ptr + off)). */
static bool lower_load_relative(fe *f, LLVMValueRef I) {
  cb_operand p, off, dst;
  if (!operand_of(f, LLVMGetOperand(I, 0), I, &p) ||
      !operand_of(f, LLVMGetOperand(I, 1), I, &off) ||
      !slot_of(f, I, NULL, &dst))
    return false;
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(LLVMGetOperand(I, 1)));
  uint32_t at = temp_slot(f), v = temp_slot(f), w = temp_slot(f);
  emit_gep(f, at, p, 0, off, bits, 1);
  cb_op ld = new_op(CB_OP_LOAD);
  ld.ty = CB_TY_I32;
  ld.dst = v;
  ld.a = at;
  ld.aux = new_site(f, I, LLVMGetOperand(I, 0), 4, false, false);
  FE_PUSH(f->ops, ld);
  cb_op se = new_op(CB_OP_SEXT);
  se.ty = CB_TY_I64;
  se.ty2 = CB_TY_I32;
  se.dst = w;
  se.a = v;
  FE_PUSH(f->ops, se);
  emit_gep(f, dst, p, 0, w, 64, 1);
  return true;
}

static bool lower_inst(fe *f, LLVMValueRef I, uint32_t bi, cb_block *blk) {
  LLVMOpcode opc = LLVMGetInstructionOpcode(I);
  cb_op o;
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
    o = new_op(map[opc]);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
      return false;
    break;
  }
  case LLVMFNeg:
    o = new_op(CB_OP_FNEG);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a))
      return false;
    break;
  case LLVMICmp:
  case LLVMFCmp: {
    o = new_op(opc == LLVMICmp ? CB_OP_ICMP : CB_OP_FCMP);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
      return false;
    o.ty = elem_ty_of(LLVMTypeOf(LLVMGetOperand(I, 0)));
    o.aux = opc == LLVMICmp ? (uint32_t)(LLVMGetICmpPredicate(I) - LLVMIntEQ)
                            : (uint32_t)LLVMGetFCmpPredicate(I);
    break;
  }
  case LLVMSelect:
    o = new_op(CB_OP_SELECT);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b) ||
        !opnd(f, I, 2, &o.c))
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
    if (alias_source(I)) {
      cb_operand dummy;
      return slot_of(f, I, NULL, &dummy);
    }
    static const uint8_t map[] = {
        [LLVMTrunc] = CB_OP_TRUNC,       [LLVMZExt] = CB_OP_ZEXT,
        [LLVMSExt] = CB_OP_SEXT,         [LLVMFPTrunc] = CB_OP_FPTRUNC,
        [LLVMFPExt] = CB_OP_FPEXT,       [LLVMFPToUI] = CB_OP_FPTOUI,
        [LLVMFPToSI] = CB_OP_FPTOSI,     [LLVMUIToFP] = CB_OP_UITOFP,
        [LLVMSIToFP] = CB_OP_SITOFP,     [LLVMPtrToInt] = CB_OP_PTRTOINT,
        [LLVMIntToPtr] = CB_OP_INTTOPTR, [LLVMBitCast] = CB_OP_BITCAST,
        [LLVMFreeze] = CB_OP_MOV};
    o = new_op(map[opc]);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a))
      return false;
    o.ty2 = elem_ty_of(LLVMTypeOf(LLVMGetOperand(I, 0)));
    break;
  }
  case LLVMGetElementPtr: {
    if (alias_source(I)) {
      cb_operand dummy;
      return slot_of(f, I, NULL, &dummy);
    }
    if (LLVMGetTypeKind(LLVMTypeOf(I)) != LLVMPointerTypeKind)
      return unsupported(f, I, "vector of pointers (vector getelementptr)");
    o = new_op(CB_OP_GEP);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a))
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
        return unsupported(f, I, "vector index in getelementptr");
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
          return unsupported(f, I, "128-bit index");
        off += sext(LLVMConstIntGetZExtValue(idx), bits) * scale;
        continue;
      }
      if (LLVMIsAConstant(idx) && !LLVMIsAConstantExpr(idx)) {
        continue; /* undef/poison index: 0 */
      }
      cb_operand a;
      if (!operand_of(f, idx, I, &a))
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
      return unsupported(f, I, "atomic memory access");
    bool st = opc == LLVMStore;
    LLVMValueRef val = st ? LLVMGetOperand(I, 0) : I;
    LLVMValueRef addr = LLVMGetOperand(I, st ? 1 : 0);
    LLVMTypeRef t = LLVMTypeOf(val);
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind)
      return lower_aggregate_access(f, I, st, addr, t);
    cb_ty ty;
    uint32_t lanes = type_slots(t, &ty);
    if (lanes == UINT32_MAX) {
      char buf[256];
      snprintf(buf, sizeof buf, "memory access of type %s", type_str(f, t));
      return unsupported(f, I, buf);
    }
    o = new_op(st ? CB_OP_STORE : CB_OP_LOAD);
    o.ty = (uint8_t)ty;
    o.lanes = (uint8_t)lanes;
    uint32_t size = (uint32_t)LLVMStoreSizeOfType(f->td, t);
    if (st) {
      if (!opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
        return false;
    } else {
      if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a))
        return false;
    }
    o.aux = new_site(f, I, addr, size, st, false);
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
    o = new_op(CB_OP_ALLOCA);
    if (!set_dst(f, &o, I))
      return false;
    LLVMValueRef cnt = LLVMGetOperand(I, 0);
    if (LLVMIsAConstantInt(cnt)) {
      fo.size *= LLVMConstIntGetZExtValue(cnt);
    } else if (!opnd(f, I, 0, &o.a)) {
      return false;
    }
    o.aux = f->frame_objs.n;
    FE_PUSH(f->frame_objs, fo);
    break;
  }
  case LLVMExtractElement:
    o = new_op(CB_OP_EXTRACTELT);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
      return false;
    o.lanes = (uint8_t)LLVMGetVectorSize(LLVMTypeOf(LLVMGetOperand(I, 0)));
    break;
  case LLVMInsertElement:
    o = new_op(CB_OP_INSERTELT);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b) ||
        !opnd(f, I, 2, &o.c))
      return false;
    break;
  case LLVMShuffleVector: {
    o = new_op(CB_OP_SHUFFLE);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
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
    o = new_op(CB_OP_EXTRACTVAL);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a))
      return false;
    LLVMTypeRef leaf;
    o.aux = agg_offset(LLVMTypeOf(LLVMGetOperand(I, 0)), LLVMGetIndices(I),
                       LLVMGetNumIndices(I), &leaf);
    break;
  }
  case LLVMInsertValue: {
    o = new_op(CB_OP_INSERTVAL);
    if (!set_dst(f, &o, I) || !opnd(f, I, 0, &o.a) || !opnd(f, I, 1, &o.b))
      return false;
    LLVMTypeRef leaf;
    uint32_t off = agg_offset(LLVMTypeOf(I), LLVMGetIndices(I),
                              LLVMGetNumIndices(I), &leaf);
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)type_slots(LLVMTypeOf(I), NULL));
    FE_PUSH(f->extra, (int64_t)off);
    o.lanes = (uint8_t)type_slots(leaf, NULL);
    break;
  }
  case LLVMPHI: {
    o = new_op(CB_OP_PHI);
    if (!set_dst(f, &o, I))
      return false;
    unsigned n = LLVMCountIncoming(I);
    o.aux = f->extra.n;
    FE_PUSH(f->extra, (int64_t)n);
    for (unsigned i = 0; i < n; i++) {
      cb_operand a;
      if (!operand_of(f, LLVMGetIncomingValue(I, i), I, &a))
        return false;
      FE_PUSH(f->extra, (int64_t)block_index(f, LLVMGetIncomingBlock(I, i)));
      FE_PUSH(f->extra, (int64_t)a);
    }
    break;
  }
  case LLVMCall:
    return lower_call(f, I);
  case LLVMBr: {
    o = new_op(CB_OP_BR);
    o.lanes = 0;
    blk->first_succ = f->succs.n;
    if (LLVMIsConditional(I)) {
      if (!operand_of(f, LLVMGetCondition(I), I, &o.a))
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
    o = new_op(CB_OP_SWITCH);
    LLVMValueRef cond = LLVMGetOperand(I, 0);
    if (!operand_of(f, cond, I, &o.a))
      return false;
    o.ty = elem_ty_of(LLVMTypeOf(cond));
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
    o = new_op(CB_OP_RET);
    o.lanes = 0;
    if (LLVMGetNumOperands(I) > 0) {
      LLVMValueRef v = LLVMGetOperand(I, 0);
      cb_ty ty;
      o.lanes = (uint8_t)type_slots(LLVMTypeOf(v), &ty);
      o.ty = (uint8_t)ty;
      if (!operand_of(f, v, I, &o.a))
        return false;
    }
    blk->first_succ = f->succs.n;
    blk->n_succ = 0;
    break;
  case LLVMUnreachable:
    o = new_op(CB_OP_UNREACHABLE);
    blk->first_succ = f->succs.n;
    blk->n_succ = 0;
    break;
  case LLVMVAArg:
    return unsupported(f, I, "variable argument list (va_arg)");
  case LLVMFence:
  case LLVMAtomicCmpXchg:
  case LLVMAtomicRMW:
    return unsupported(f, I, "atomic operation");
  case LLVMIndirectBr:
    return unsupported(f, I, "computed goto (indirectbr)");
  case LLVMAddrSpaceCast:
    return unsupported(f, I, "address space cast");
  case LLVMCallBr:
    return unsupported(f, I, "asm goto");
  default: {
    char *s = LLVMPrintValueToString(I);
    char buf[300];
    snprintf(buf, sizeof buf, "instruction `%.200s`", s);
    LLVMDisposeMessage(s);
    return unsupported(f, I, buf);
  }
  }
  FE_PUSH(f->ops, o);
  return true;
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

static bool lower_function(fe *f, LLVMValueRef fn, uint32_t fi) {
  cb_function *cf = &f->functions.v[fi];
  f->cur_func = fi;
  f->cur_sp = LLVMGetSubprogram(fn);
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
    uint32_t n = type_slots(LLVMTypeOf(p), &ty);
    if (n == UINT32_MAX) {
      char buf[256];
      snprintf(buf, sizeof buf, "parameter of type %s",
               type_str(f, LLVMTypeOf(p)));
      return unsupported(f, NULL, buf);
    }
    cb_operand s;
    slot_of(f, p, NULL, &s);
    cp.slot = s;
    cp.ty = (uint8_t)ty;
    cp.lanes = (uint8_t)n;
    LLVMAttributeRef a = LLVMGetEnumAttributeAtIndex(fn, i + 1, byval_kind());
    if (a) {
      LLVMTypeRef t = LLVMGetTypeAttributeValue(a);
      cp.byval = t ? (uint32_t)LLVMABISizeOfType(f->td, t) : 0;
    }
    FE_PUSH(f->params, cp);
  }
  LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
  cb_ty rt;
  uint32_t rl = type_slots(LLVMGetReturnType(ft), &rt);
  if (rl == UINT32_MAX) {
    char buf[256];
    snprintf(buf, sizeof buf, "return type %s",
             type_str(f, LLVMGetReturnType(ft)));
    return unsupported(f, NULL, buf);
  }
  cf = &f->functions.v[fi];
  cf->ret_ty = (uint8_t)rt;
  cf->ret_lanes = (uint8_t)rl;
  cf->is_vararg = LLVMIsFunctionVarArg(ft);

  cf->first_block = f->blocks.n;
  cf->n_blocks = nb;
  FE_RESERVE(f->blocks, nb);
  uint32_t bi = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b;
       b = LLVMGetNextBasicBlock(b), bi++) {
    cb_block blk;
    memset(&blk, 0, sizeof blk);
    blk.first_op = f->ops.n;
    blk.first_succ = f->succs.n;
    for (LLVMValueRef I = LLVMGetFirstInstruction(b); I;
         I = LLVMGetNextInstruction(I))
      if (!lower_inst(f, I, bi, &blk))
        return false;
    blk.n_ops = f->ops.n - blk.first_op;
    f->blocks.v[f->blocks.n++] = blk;
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

/* ---- globals ---------------------------------------------------------------
 */

/* Does a constant refer to a global without an address yet? */
static bool refs_unplaced(fe *f, LLVMValueRef c, const bool *placed,
                          int depth) {
  if (depth > 16)
    return false;
  if (LLVMIsAGlobalVariable(c)) {
    uint64_t gi;
    return fe_map_get(&f->global_index, c, &gi) && !placed[gi];
  }
  if (!LLVMIsAConstantExpr(c))
    return false;
  int n = LLVMGetNumOperands(c);
  for (int i = 0; i < n; i++)
    if (refs_unplaced(f, LLVMGetOperand(c, (unsigned)i), placed, depth + 1))
      return true;
  return false;
}

/* Writes a constant's bytes; *unplaced set when it points to a global
 * that has no address yet. */
static bool write_const(fe *f, uint8_t *buf, uint64_t size, uint64_t off,
                        LLVMValueRef c, const bool *placed, bool *unplaced) {
  LLVMTypeRef t = LLVMTypeOf(c);
  uint64_t tsz = LLVMStoreSizeOfType(f->td, t);
  if (off + tsz > size)
    return false;
  if (LLVMIsAUndefValue(c) || LLVMIsAConstantAggregateZero(c) ||
      LLVMIsAConstantPointerNull(c))
    return true;
  LLVMTypeKind k = LLVMGetTypeKind(t);
  if (k == LLVMStructTypeKind || k == LLVMArrayTypeKind ||
      k == LLVMVectorTypeKind) {
    unsigned n = k == LLVMStructTypeKind  ? LLVMCountStructElementTypes(t)
                 : k == LLVMArrayTypeKind ? (unsigned)LLVMGetArrayLength(t)
                                          : LLVMGetVectorSize(t);
    if (LLVMIsAConstantDataSequential(c)) {
      LLVMTypeRef et = LLVMGetElementType(t);
      if (LLVMGetTypeKind(et) == LLVMIntegerTypeKind &&
          LLVMGetIntTypeWidth(et) == 8) {
        size_t len;
        const char *s = LLVMGetAsString(c, &len);
        memcpy(buf + off, s, len < n ? len : n);
        return true;
      }
      uint64_t es = LLVMABISizeOfType(f->td, et);
      for (unsigned i = 0; i < n; i++)
        if (!write_const(f, buf, size, off + i * es,
                         LLVMGetElementAsConstant(c, i), placed, unplaced))
          return false;
      return true;
    }
    for (unsigned i = 0; i < n; i++) {
      uint64_t eo;
      if (k == LLVMStructTypeKind)
        eo = LLVMOffsetOfElement(f->td, t, i);
      else
        eo = i * LLVMABISizeOfType(f->td, LLVMGetElementType(t));
      if (!write_const(f, buf, size, off + eo, LLVMGetOperand(c, i), placed,
                       unplaced))
        return false;
    }
    return true;
  }
  /* a scalar */
  if (placed && refs_unplaced(f, c, placed, 0))
    *unplaced = true;
  cb_value v;
  if (!const_scalar(f, c, &v))
    return false;
  if (k == LLVMFloatTypeKind)
    memcpy(buf + off, &v.f, 4);
  else if (k == LLVMDoubleTypeKind)
    memcpy(buf + off, &v.d, 8);
  else
    memcpy(buf + off, &v.u, tsz > 8 ? 8 : tsz);
  return true;
}

static uint64_t synth_place(fe *f, uint64_t size, uint32_t align) {
  if (align < 16)
    align = 16;
  uint64_t a = (f->synth_next + align - 1) & ~((uint64_t)align - 1);
  f->synth_next = a + (size ? size : 1);
  return a;
}

static bool place_globals(fe *f) {
  uint32_t n = 0;
  for (LLVMValueRef g = LLVMGetFirstGlobal(f->mod); g;
       g = LLVMGetNextGlobal(g)) {
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    if (strncmp(name, "llvm.", 5) == 0)
      continue;
    LLVMTypeRef t = LLVMGlobalGetValueType(g);
    cb_global cg;
    memset(&cg, 0, sizeof cg);
    cg.name = fe_pool_strn(f->pool, name, len);
    cg.size = LLVMABISizeOfType(f->td, t);
    cg.align = LLVMGetAlignment(g);
    if (!cg.align)
      cg.align = LLVMABIAlignmentOfType(f->td, t);
    cg.var = CB_NONE;
    cg.is_constant = LLVMIsGlobalConstant(g);
    size_t nmd = 0;
    LLVMValueMetadataEntry *mds = LLVMGlobalCopyAllMetadata(g, &nmd);
    unsigned dbg_kind = LLVMGetMDKindIDInContext(f->ctx, "dbg", 3);
    for (size_t i = 0; i < nmd; i++) {
      if (LLVMValueMetadataEntriesGetKind(mds, (unsigned)i) != dbg_kind)
        continue;
      LLVMMetadataRef gve =
          LLVMValueMetadataEntriesGetMetadata(mds, (unsigned)i);
      if (LLVMGetMetadataKind(gve) ==
          LLVMDIGlobalVariableExpressionMetadataKind) {
        LLVMMetadataRef dv = LLVMDIGlobalVariableExpressionGetVariable(gve);
        if (dv) {
          cg.var = fe_var(f, dv);
          break;
        }
      }
    }
    if (mds)
      LLVMDisposeValueMetadataEntries(mds);
    fe_map_put(&f->global_index, g, n++);
    FE_PUSH(f->globals, cg);
  }
  bool *placed = calloc(n + 1, sizeof *placed);
  uint32_t i = 0;
  /* pass 1: symbols */
  for (LLVMValueRef g = LLVMGetFirstGlobal(f->mod); g;
       g = LLVMGetNextGlobal(g)) {
    uint64_t gi;
    if (!fe_map_get(&f->global_index, g, &gi))
      continue;
    cb_global *cg = &f->globals.v[gi];
    const char *file = cg->var != CB_NONE && f->vars.v[cg->var].file != CB_NONE
                           ? f->files.v[f->vars.v[cg->var].file]
                           : NULL;
    const fe_sym *s = fe_elf_find(&f->elf, cg->name, false, file);
    if (!s) { /* LLVMLinkModules2 renames clashing statics: name.N */
      const char *dot = strrchr(cg->name, '.');
      if (dot && dot[1] >= '0' && dot[1] <= '9') {
        char buf[512];
        snprintf(buf, sizeof buf, "%.*s", (int)(dot - cg->name), cg->name);
        s = fe_elf_find(&f->elf, buf, false, file);
      }
    }
    if (s) {
      cg->addr = s->value;
      cg->section = fe_pool_str(f->pool, s->section);
      placed[gi] = true;
    }
    i++;
  }
  /* pass 2: private constants found by their bytes in .rodata */
  for (int round = 0; round < 3 && f->elf.loaded; round++) {
    for (LLVMValueRef g = LLVMGetFirstGlobal(f->mod); g;
         g = LLVMGetNextGlobal(g)) {
      uint64_t gi;
      if (!fe_map_get(&f->global_index, g, &gi) || placed[gi])
        continue;
      cb_global *cg = &f->globals.v[gi];
      LLVMValueRef init = LLVMGetInitializer(g);
      if (!init || !cg->is_constant || cg->size == 0 || cg->size > (1u << 24))
        continue;
      uint8_t *buf = calloc(1, cg->size);
      bool unpl = false;
      if (write_const(f, buf, cg->size, 0, init, placed, &unpl) && !unpl) {
        uint64_t a = fe_elf_find_bytes(&f->elf, buf, cg->size, cg->align);
        if (a) {
          cg->addr = a;
          const fe_elf_section *sec = fe_elf_section_at(&f->elf, a);
          cg->section = sec ? fe_pool_str(f->pool, sec->name) : ".rodata";
          placed[gi] = true;
        }
      }
      free(buf);
    }
  }
  /* pass 3: the synthetic range; stdin/stdout/stderr point to FILEs */
  static const char *const std_files[] = {"stdin", "stdout", "stderr"};
  for (LLVMValueRef g = LLVMGetFirstGlobal(f->mod); g;
       g = LLVMGetNextGlobal(g)) {
    uint64_t gi;
    if (!fe_map_get(&f->global_index, g, &gi) || placed[gi])
      continue;
    cb_global *cg = &f->globals.v[gi];
    cg->addr = synth_place(f, cg->size, cg->align);
    bool decl = LLVMGetInitializer(g) == NULL;
    cg->section = decl ? "extern" : "synthetic";
    placed[gi] = true;
    for (int k = 0; k < 3 && decl; k++)
      if (strcmp(cg->name, std_files[k]) == 0 && cg->size == 8) {
        char nm[32];
        snprintf(nm, sizeof nm, "_IO_2_1_%s_", std_files[k]);
        cb_global file;
        memset(&file, 0, sizeof file);
        file.name = fe_pool_str(f->pool, nm);
        file.size = 216; /* sizeof(FILE) in glibc */
        file.align = 16;
        file.addr = synth_place(f, file.size, file.align);
        file.var = CB_NONE;
        file.section = "extern";
        uint8_t *init = fe_pool_alloc(f->pool, 8);
        memcpy(init, &file.addr, 8);
        f->globals.v[gi].init = init;
        FE_PUSH(f->globals, file);
        cg = &f->globals.v[gi];
      }
  }
  /* pass 4: initial bytes */
  for (LLVMValueRef g = LLVMGetFirstGlobal(f->mod); g;
       g = LLVMGetNextGlobal(g)) {
    uint64_t gi;
    if (!fe_map_get(&f->global_index, g, &gi))
      continue;
    cb_global *cg = &f->globals.v[gi];
    LLVMValueRef init = LLVMGetInitializer(g);
    if (!init || LLVMIsAConstantAggregateZero(init) ||
        LLVMIsAConstantPointerNull(init) || LLVMIsAUndefValue(init))
      continue;
    uint8_t *buf = fe_pool_alloc(f->pool, cg->size);
    bool unpl = false;
    if (!write_const(f, buf, cg->size, 0, init, NULL, &unpl)) {
      free(placed);
      fe_errf(f->err, CB_FE_ERR_UNSUPPORTED,
              "error: unsupported construct: initializer of global %s\n",
              cg->name);
      return false;
    }
    bool zero = true;
    for (uint64_t k = 0; k < cg->size && zero; k++)
      zero = buf[k] == 0;
    cg->init = zero ? NULL : buf;
  }
  free(placed);
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
    const fe_sym *s =
        fe_elf_find(&f->elf, cf.name, true,
                    local && cf.file != CB_NONE ? f->files.v[cf.file] : NULL);
    cf.addr = s ? s->value : 0;
    fe_map_put(&f->func_index, fn, f->functions.n);
    FE_PUSH(f->functions, cf);
  }
  if (!place_globals(f))
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
