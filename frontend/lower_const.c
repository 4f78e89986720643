/* lower_const.c: constants (addresses of globals and functions resolved,
 * constant GEPs folded) as operands, and the placement of globals: their
 * addresses and initial bytes. */
#include "lower_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
    int64_t k = fe_sext(v.u, LLVMGetIntTypeWidth(LLVMTypeOf(idx)));
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

static uint64_t synth_place(fe *f, uint64_t size, uint32_t align);

static bool global_addr(fe *f, LLVMValueRef g, uint64_t *addr) {
  uint64_t gi;
  if (LLVMIsAFunction(g)) {
    if (fe_map_get(&f->func_index, g, &gi)) {
      *addr = f->functions.v[gi].addr;
      return true;
    }
    /* a library function's address: unknown here. An unmodelled one
     * gets an address of its own in the synthetic range, so that a call
     * through the pointer is known to reach it (and stops there). */
    *addr = 0;
    size_t len;
    const char *name = LLVMGetValueName2(g, &len);
    int64_t um = LLVMIsDeclaration(g) && !f->init_probe
                     ? fe_unmodelled(f, name, len)
                     : -1;
    if (um >= 0) {
      if (!f->unmodelled_addr.v[um])
        f->unmodelled_addr.v[um] = synth_place(f, 1, 16);
      *addr = f->unmodelled_addr.v[um];
    }
    return true;
  }
  if (fe_map_get(&f->global_index, g, &gi)) {
    *addr = f->globals.v[gi].addr;
    return true;
  }
  return false;
}

/* The address of a label (a blockaddress constant: GNU C's &&label, for a
 * computed goto). Where a global's initial bytes hold it (a dispatch
 * table), the executable's bytes there (the link-time value, relocated by
 * the load base in a PIE) are the block's real address, taken when they
 * lie inside its function's code. Otherwise, or without an executable, an
 * address of its own in the synthetic range: unique and stable, so that
 * comparisons and indirectbr (a switch over the labels' addresses) see one
 * value per label; only printing it shows the difference. */
static uint64_t block_address(fe *f, LLVMValueRef ba) {
  uint64_t a = 0;
  if (fe_map_get(&f->block_addr, ba, &a))
    return a;
  if (f->init_probe)
    return 0; /* no address remembered from a trial write */
  const fe_elf_section *sec = f->init_at && f->elf.loaded
                                  ? fe_elf_section_at(&f->elf, f->init_at)
                                  : NULL;
  uint64_t gi;
  if (sec && sec->data && f->init_at + 8 <= sec->addr + sec->size &&
      fe_map_get(&f->func_index, LLVMGetOperand(ba, 0), &gi)) {
    uint64_t v, lo = f->functions.v[gi].addr, size = 0;
    memcpy(&v, sec->data + (f->init_at - sec->addr), 8);
    v += f->elf.pie ? f->elf.base : 0;
    for (uint32_t k = 0; k < f->elf.syms.n && lo; k++)
      if (f->elf.syms.v[k].is_func && f->elf.syms.v[k].value == lo)
        size = f->elf.syms.v[k].size;
    if (v > lo && v < lo + size)
      a = v;
  }
  if (!a)
    a = synth_place(f, 1, 1);
  fe_map_put(&f->block_addr, ba, a);
  return a;
}

uint64_t fe_block_address(fe *f, LLVMValueRef ba) {
  uint64_t keep = f->init_at;
  f->init_at = 0;
  uint64_t a = block_address(f, ba);
  f->init_at = keep;
  return a;
}

static bool const_scalar(fe *f, LLVMValueRef c, cb_value *out) {
  out->u = 0;
  if (LLVMIsABlockAddress(c)) {
    out->u = block_address(f, c);
    return true;
  }
  LLVMTypeRef t = LLVMTypeOf(c);
  if (LLVMIsAConstantInt(c)) {
    if (LLVMGetIntTypeWidth(t) > 64)
      return false;
    out->u = LLVMConstIntGetZExtValue(c);
    return true;
  }
  if (LLVMIsAConstantFP(c)) {
    /* the constant's bits, folded as an integer: through a double
     * (LLVMConstRealGetDouble) a signalling NaN comes back quiet */
    LLVMTypeKind k = LLVMGetTypeKind(t);
    if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind)
      return false;
    LLVMValueRef bits = LLVMConstBitCast(
        c, k == LLVMFloatTypeKind
               ? LLVMInt32TypeInContext(LLVMGetTypeContext(t))
               : LLVMInt64TypeInContext(LLVMGetTypeContext(t)));
    if (!LLVMIsAConstantInt(bits))
      return false;
    out->u = LLVMConstIntGetZExtValue(bits);
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
    out->u = (uint64_t)fe_sext(a.u, LLVMGetIntTypeWidth(LLVMTypeOf(o)));
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
    int64_t sa = fe_sext(a.u, w), sb = fe_sext(b.u, w);
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
  if (fe_wide_ty(t))
    return fe_wide_const(f, c, out, n);
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
    uint32_t m = fe_type_slots(LLVMTypeOf(e), NULL);
    if (m == UINT32_MAX || pos + m > n || !const_flat(f, e, out + pos, m))
      return false;
    pos += m;
  }
  return pos == n;
}

bool fe_const_operand(fe *f, LLVMValueRef c, LLVMValueRef user,
                      cb_operand *op) {
  uint64_t idx;
  if (fe_map_get(&f->const_index, c, &idx)) {
    *op = (cb_operand)idx | CB_OPND_CONST;
    return true;
  }
  uint32_t n = fe_type_slots(LLVMTypeOf(c), NULL);
  if (n == UINT32_MAX || n == 0) {
    char buf[256];
    snprintf(buf, sizeof buf, "constant of type %s",
             fe_type_str(f, LLVMTypeOf(c)));
    return fe_unsupported(f, user, buf);
  }
  FE_RESERVE(f->consts, n);
  cb_value *dst = f->consts.v + f->consts.n;
  memset(dst, 0, n * sizeof *dst);
  if (!const_flat(f, c, dst, n)) {
    char *s = LLVMPrintValueToString(c);
    char buf[300];
    snprintf(buf, sizeof buf, "constant expression %.200s", s);
    LLVMDisposeMessage(s);
    return fe_unsupported(f, user, buf);
  }
  idx = f->consts.n;
  f->consts.n += n;
  fe_map_put(&f->const_index, c, idx);
  *op = (cb_operand)idx | CB_OPND_CONST;
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
  if (fe_wide_ty(t))
    return fe_wide_const_bytes(f, c, buf + off, tsz);
  if (placed && refs_unplaced(f, c, placed, 0))
    *unplaced = true;
  cb_value v;
  f->init_at = f->init_base ? f->init_base + off : 0;
  f->init_probe = placed != NULL;
  bool ok = const_scalar(f, c, &v);
  f->init_at = 0;
  f->init_probe = false;
  if (!ok)
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

bool fe_place_globals(fe *f) {
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
    const fe_sym *s = fe_elf_find_linked(&f->elf, cg->name, false, file);
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
    f->init_base = cg->addr;
    bool written = write_const(f, buf, cg->size, 0, init, NULL, &unpl);
    f->init_base = 0;
    if (!written) {
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

/* Whether a value lies in [lo, lo + n). */
static bool in_span(uint64_t v, uint64_t lo, uint64_t n) {
  return v >= lo && v - lo < n;
}

/* A library's variable moves to its place in the library when nothing but
 * the one constant of its own address (idx, CB_NONE: none) and the
 * standard streams' pointers (*std, which are rewritten with it) refer to
 * it: a constant or initial word inside its old span elsewhere (an
 * address computed from it, &optarg in a table) would keep pointing at
 * the old place, so then it stays where it was. */
static bool movable(const cb_program *p, uint32_t gi, uint64_t idx,
                    const bool *std) {
  const cb_global *g = &p->globals[gi];
  uint64_t n = g->size ? g->size : 1;
  for (uint32_t k = 0; k < p->n_consts; k++)
    if (k != idx && in_span(p->consts[k].u, g->addr, n))
      return false;
  for (uint32_t j = 0; j < p->n_globals; j++) {
    const cb_global *h = &p->globals[j];
    if (!h->init || std[j])
      continue;
    for (uint64_t o = 0; o + 8 <= h->size; o += 8) {
      uint64_t w;
      memcpy(&w, h->init + o, 8);
      if (in_span(w, g->addr, n))
        return false;
    }
  }
  return true;
}

cb_dl_info *fe_bind_lib_data(fe *f, cb_program *p, const char *exe,
                             const cb_frontend_options *o) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < p->n_globals; i++)
    n += p->globals[i].section && !strcmp(p->globals[i].section, "extern");
  fe_dl_data *q = calloc(n + 1, sizeof *q);
  uint32_t *qg = calloc(n + 1, sizeof *qg);
  bool *std = calloc(p->n_globals + 1, sizeof *std);
  if (!q || !qg || !std) {
    free(q), free(qg), free(std);
    return fe_dynlink(exe, NULL, 0);
  }
  n = 0;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (!g->section || strcmp(g->section, "extern"))
      continue;
    qg[n] = i;
    q[n++].name = g->name;
    /* stdin, stdout, stderr: their initial word is the address of the
     * FILE object made beside them (fe_place_globals) */
    std[i] = g->init && g->size == 8;
  }
  cb_dl_info *dl = fe_dynlink(exe, q, n);
  uint64_t base[CB_DL_MAX_OBJS];
  p->dl = dl;
  if (dl && o && o->object_bases &&
      o->object_bases(
          p, base, dl->n_objs < CB_DL_MAX_OBJS ? dl->n_objs : CB_DL_MAX_OBJS))
    for (uint32_t k = 0; k < n; k++) {
      if (!q[k].obj || q[k].obj >= dl->n_objs || !base[q[k].obj])
        continue;
      cb_global *g = &p->globals[qg[k]];
      uint64_t idx = CB_NONE;
      for (LLVMValueRef v = LLVMGetFirstGlobal(f->mod); v;
           v = LLVMGetNextGlobal(v)) {
        uint64_t gi, ci;
        if (fe_map_get(&f->global_index, v, &gi) && gi == qg[k] &&
            fe_map_get(&f->const_index, v, &ci))
          idx = ci;
      }
      if (!movable(p, qg[k], idx, std))
        continue;
      uint64_t old = g->addr, to = base[q[k].obj] + q[k].value;
      g->addr = to;
      g->lib_obj = q[k].obj;
      g->lib_off = q[k].value;
      if (idx != CB_NONE)
        p->consts[idx].u = to;
      for (uint32_t j = 0; j < p->n_globals; j++) {
        uint64_t w;
        if (!std[j])
          continue;
        memcpy(&w, p->globals[j].init, 8);
        if (w == old)
          memcpy((uint8_t *)p->globals[j].init, &to, 8);
      }
    }
  free(q);
  free(qg);
  free(std);
  return dl;
}
