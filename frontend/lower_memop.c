/* lower_memop.c: llvm.memcpy, llvm.memmove and llvm.memset of a constant
 * length, as LLVM 14's x86-64 code generator emits them. Where it expands
 * one inline, its loads and stores are the program's own accesses, which
 * cachegrind counts on the call's line; they become the Program's loads
 * and stores here, of the pieces the code generator picks (so machine.c
 * pairs them with the machine code's accesses like any other). Where it
 * calls the library, the call is one of memcpy, memmove or memset.
 *
 * Functions compiled by SelectionDAG (not optnone): SelectionDAG::getMemcpy,
 * getMemmove and getMemset (SelectionDAG.cpp) first try
 * getMemcpyLoadsAndStores, getMemmoveLoadsAndStores and getMemsetStores,
 * whose pieces TargetLowering::findOptimalMemOpLowering chooses from the
 * type X86TargetLowering::getOptimalMemOpType gives: 64 bytes with
 * AVX-512 and a preferred vector width of 512 for 64 bytes and more, 32
 * with AVX for 32 and more, 16 with SSE for 16 and more, else 8 (length 8
 * and more) or 4; a remainder takes the next smaller integer, or, when the
 * copy is not volatile and that would not cover it, one more access of the
 * current type ending at the last byte (overlapping the one before). A
 * memmove never overlaps its pieces (getMemmoveLoadsAndStores passes
 * IsVolatile) and loads all before storing any. Beyond
 * X86TargetLowering's MaxStoresPerMemcpy 8, MaxStoresPerMemmove 8,
 * MaxStoresPerMemset 16 (4, 4, 8 in optsize and minsize functions),
 * X86SelectionDAGInfo expands copies of up to 128 bytes
 * (getMaxInlineSizeThreshold) with `rep movs` or `rep stos` when the
 * alignment is 4 or more, and otherwise calls the library.
 *
 * A memcpy from a constant global (a string literal, a struct's
 * initializer): the bytes are stores of immediates where the code
 * generator makes them so (getMemcpyLoadsAndStores' CopyFromConstant:
 * integer pieces of an i8 array or zero initializer, every piece of a
 * zero one), and otherwise a load of the global that MachineLICM hoists
 * out of loops: those loads are taken from the machine code itself
 * (fe_copy_src, machine.c), and the Program stores the global's bytes.
 *
 * optnone functions (clang -O0) go through X86FastISel
 * (fastLowerIntrinsicCall): a memcpy of up to 32 bytes is
 * TryEmitSmallMemcpy's loads and stores of 8, 4, 2 and 1 bytes in turn,
 * a longer one and every memset a library call; memmove is not FastISel's
 * and SelectionDAG expands it as above.
 *
 * Left intrinsics, with the engine's older model (glibc's traffic at the
 * call, without the call itself, up to 128 bytes): volatile copies,
 * llvm.memcpy.inline, the
 * `rep movs`/`rep stos` cases, and targets other than the generic
 * x86-64 (another target-cpu or tune-cpu tunes the choices above). */
#include "lower_internal.h"

#include <string.h>

enum { MAX_PIECES = 16 };

typedef struct piece {
  uint64_t off;
  unsigned size;
} piece;

static bool fn_enum(LLVMValueRef fn, const char *name) {
  unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
  return LLVMGetEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, k) != NULL;
}

static const char *fn_str(LLVMValueRef fn, const char *name, unsigned *len) {
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, name, (unsigned)strlen(name));
  *len = 0;
  return a ? LLVMGetStringAttributeValue(a, len) : NULL;
}

static bool str_is(const char *v, unsigned len, const char *s) {
  return v && len == strlen(s) && !strncmp(v, s, len);
}

/* feat ("+avx") is one of the comma-separated target features. */
static bool has_feat(const char *v, unsigned len, const char *feat) {
  size_t fl = strlen(feat);
  for (unsigned i = 0; v && i + fl <= len; i++)
    if ((i == 0 || v[i - 1] == ',') && !strncmp(v + i, feat, fl) &&
        (i + fl == len || v[i + fl] == ','))
      return true;
  return false;
}

/* The widest vector getOptimalMemOpType may pick in fn (bytes; 0: none),
 * or -1 when the function is tuned for another processor. */
static int vector_bytes(LLVMValueRef fn) {
  unsigned l;
  const char *cpu = fn_str(fn, "target-cpu", &l);
  if (!str_is(cpu, l, "x86-64"))
    return -1;
  const char *tune = fn_str(fn, "tune-cpu", &l);
  if (tune && !str_is(tune, l, "generic"))
    return -1;
  if (fn_enum(fn, "noimplicitfloat"))
    return 0;
  unsigned fl;
  const char *ft = fn_str(fn, "target-features", &fl);
  if (has_feat(ft, fl, "-sse"))
    return 0;
  /* X86Subtarget: 512 unless the attribute says less */
  unsigned pw = 512;
  const char *pv = fn_str(fn, "prefer-vector-width", &l);
  if (pv && l) {
    pw = 0;
    for (unsigned i = 0; i < l && pv[i] >= '0' && pv[i] <= '9'; i++)
      pw = pw * 10 + (unsigned)(pv[i] - '0');
  }
  if (pw < 128)
    return 0;
  if (has_feat(ft, fl, "+avx512f") && pw >= 512)
    return 64;
  if (has_feat(ft, fl, "+avx") && pw >= 256)
    return 32;
  return 16;
}

/* findOptimalMemOpLowering: the pieces of n bytes, or -1 past limit. */
static int sdag_pieces(uint64_t n, int vec, bool overlap, unsigned limit,
                       piece *out) {
  unsigned vt = n >= 8 ? 8 : 4;
  if (vec && n >= 16)
    vt = n >= 64 && vec >= 64 ? 64 : n >= 32 && vec >= 32 ? 32 : 16;
  bool is_vec = vt >= 16;
  uint64_t left = n, off = 0;
  unsigned k = 0;
  while (left) {
    unsigned sz = vt;
    while (sz > left) {
      /* a vector's remainder takes i64, an integer's the next smaller;
         x86-64 accesses misaligned memory as fast (allowsMisaligned...) */
      unsigned nvt = is_vec ? 8 : vt / 2;
      if (k && overlap && nvt < left) {
        sz = (unsigned)left;
      } else {
        vt = sz = nvt;
        is_vec = false;
      }
    }
    if (++k > limit || k > MAX_PIECES)
      return -1;
    out[k - 1] = (piece){off - (vt - sz), vt};
    off += sz;
    left -= sz;
  }
  return (int)k;
}

/* TryEmitSmallMemcpy: 8, 4, 2, 1 bytes in turn, no overlap. */
static int fast_pieces(uint64_t n, piece *out) {
  unsigned k = 0;
  for (uint64_t off = 0; off < n;) {
    uint64_t left = n - off;
    unsigned sz = left >= 8 ? 8 : left >= 4 ? 4 : left >= 2 ? 2 : 1;
    out[k++] = (piece){off, sz};
    off += sz;
  }
  return (int)k;
}

static void piece_ty(unsigned size, cb_ty *ty, unsigned *lanes) {
  *lanes = size >= 8 ? size / 8 : 1;
  *ty = size >= 8   ? CB_TY_I64
        : size == 4 ? CB_TY_I32
        : size == 2 ? CB_TY_I16
                    : CB_TY_I8;
}

/* A load of the piece p of ptr (operand base) into new slots. */
static cb_operand emit_load(fe *f, LLVMValueRef I, LLVMValueRef ptr,
                            cb_operand addr, piece p) {
  cb_ty ty;
  unsigned lanes;
  piece_ty(p.size, &ty, &lanes);
  cb_op o = fe_new_op(CB_OP_LOAD);
  o.a = addr;
  o.ty = (uint8_t)ty;
  o.lanes = (uint8_t)lanes;
  o.dst = f->n_slots;
  f->n_slots += lanes;
  o.aux = fe_new_site_at(f, I, ptr, (int64_t)p.off, p.size, false, false);
  FE_PUSH(f->ops, o);
  return o.dst;
}

static void emit_store(fe *f, LLVMValueRef I, LLVMValueRef ptr, cb_operand addr,
                       piece p, cb_operand val) {
  cb_ty ty;
  unsigned lanes;
  piece_ty(p.size, &ty, &lanes);
  cb_op o = fe_new_op(CB_OP_STORE);
  o.a = val;
  o.b = addr;
  o.ty = (uint8_t)ty;
  o.lanes = (uint8_t)lanes;
  o.aux = fe_new_site_at(f, I, ptr, (int64_t)p.off, p.size, true, false);
  FE_PUSH(f->ops, o);
}

/* The constant of the piece's type holding bytes b[0 .. size). */
static bool const_bytes(fe *f, LLVMValueRef I, const uint8_t *b, unsigned size,
                        cb_operand *out) {
  LLVMTypeRef i64 = LLVMInt64TypeInContext(f->ctx);
  if (size <= 8) {
    uint64_t v = 0;
    for (unsigned i = 0; i < size; i++)
      v |= (uint64_t)b[i] << (8 * i);
    LLVMTypeRef t = LLVMIntTypeInContext(f->ctx, 8 * size);
    return fe_const_operand(f, LLVMConstInt(t, v, false), I, out);
  }
  LLVMValueRef lanes[8];
  for (unsigned l = 0; l < size / 8; l++) {
    uint64_t v = 0;
    for (unsigned i = 0; i < 8; i++)
      v |= (uint64_t)b[8 * l + i] << (8 * i);
    lanes[l] = LLVMConstInt(i64, v, false);
  }
  return fe_const_operand(f, LLVMConstVector(lanes, size / 8), I, out);
}

/* The constant global a constant source pointer points into, and the
 * offset; NULL when it is none. */
static const cb_global *const_source(fe *f, cb_operand src, uint64_t *off) {
  if (!(src & CB_OPND_CONST))
    return NULL;
  uint64_t a = f->consts.v[src & ~CB_OPND_CONST].u;
  for (uint32_t i = 0; i < f->globals.n; i++) {
    const cb_global *g = &f->globals.v[i];
    if (a >= g->addr && a < g->addr + g->size) {
      *off = a - g->addr;
      return g->is_constant ? g : NULL;
    }
  }
  return NULL;
}

/* getConstantDataArrayInfo (ValueTracking.cpp) as isMemSrcFromConstant
 * asks it: the global's initializer is an i8 array's data, or zero. *zero:
 * no data (Slice.Array null); *len: bytes from off. */
static bool copy_from_constant(LLVMValueRef src, uint64_t off, fe *f,
                               bool *zero, uint64_t *len) {
  LLVMValueRef v = src;
  for (int d = 0; d < 8 && LLVMIsAConstantExpr(v); d++) {
    LLVMOpcode op = LLVMGetConstOpcode(v);
    if (op != LLVMGetElementPtr && op != LLVMBitCast)
      return false;
    v = LLVMGetOperand(v, 0);
  }
  if (!LLVMIsAGlobalVariable(v) || !LLVMIsGlobalConstant(v))
    return false;
  LLVMValueRef init = LLVMGetInitializer(v);
  LLVMLinkage lk = LLVMGetLinkage(v);
  if (!init || lk == LLVMWeakAnyLinkage || lk == LLVMWeakODRLinkage ||
      lk == LLVMLinkOnceAnyLinkage || lk == LLVMLinkOnceODRLinkage ||
      lk == LLVMExternalWeakLinkage || lk == LLVMCommonLinkage ||
      lk == LLVMAvailableExternallyLinkage)
    return false;
  LLVMTypeRef t = LLVMGlobalGetValueType(v);
  bool is_arr = LLVMGetTypeKind(t) == LLVMArrayTypeKind;
  bool i8_arr = is_arr &&
                LLVMGetTypeKind(LLVMGetElementType(t)) == LLVMIntegerTypeKind &&
                LLVMGetIntTypeWidth(LLVMGetElementType(t)) == 8;
  if (LLVMIsNull(init)) {
    uint64_t size = LLVMStoreSizeOfType(f->td, t);
    *zero = true;
    *len = size > off ? size - off : 0;
    return is_arr ? i8_arr && off <= size : off < size;
  }
  if (!LLVMIsAConstantDataArray(init) || !i8_arr)
    return false;
  uint64_t ne = LLVMGetArrayLength(t);
  *zero = false;
  *len = ne > off ? ne - off : 0;
  return off <= ne;
}

static void note_copy_src(fe *f, const cb_global *g) {
  for (uint32_t i = 0; i < f->copy_srcs.n; i++)
    if (f->copy_srcs.v[i].func == f->cur_func &&
        f->copy_srcs.v[i].lo == g->addr)
      return;
  fe_copy_src s = {f->cur_func, g->addr, g->addr + g->size};
  FE_PUSH(f->copy_srcs, s);
}

/* The bytes of global g at off (zero past its end or without data). */
static void global_bytes(const cb_global *g, uint64_t off, unsigned size,
                         uint8_t *b) {
  for (unsigned i = 0; i < size; i++)
    b[i] = g->init && off + i < g->size ? g->init[off + i] : 0;
}

int fe_lower_memop(fe *f, LLVMValueRef I, int id, int64_t *kind,
                   int64_t *target) {
  bool is_set = id == CB_INTR_MEMSET, is_move = id == CB_INTR_MEMMOVE;
  LLVMValueRef callee = fe_strip_casts(LLVMGetCalledValue(I));
  size_t nl;
  const char *name = LLVMGetValueName2(callee, &nl);
  if (LLVMGetNumArgOperands(I) < 4 || strstr(name, ".inline"))
    return -1;
  LLVMValueRef len = LLVMGetOperand(I, 2), vol = LLVMGetOperand(I, 3);
  if (!LLVMIsAConstantInt(len))
    return -1; /* a call: the engine's rule for variable lengths */
  if (!LLVMIsAConstantInt(vol) || LLVMConstIntGetZExtValue(vol))
    return -1;
  uint64_t n = LLVMConstIntGetZExtValue(len);
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
  bool fast = fn_enum(fn, "optnone");
  int vec = vector_bytes(fn);
  if (vec < 0)
    return -1;
  int64_t lib = is_set    ? CB_LIBC_MEMSET
                : is_move ? CB_LIBC_MEMMOVE
                          : CB_LIBC_MEMCPY;
  piece pc[64];
  int np;
  if (fast && !is_move) {
    /* X86FastISel: memset always calls; memcpy inline up to 32 bytes
       (IsMemcpySmall) */
    if (is_set || n > 32) {
      *kind = CB_CALL_LIBC;
      *target = lib;
      return 2;
    }
    np = fast_pieces(n, pc);
  } else {
    bool small = fn_enum(fn, "optsize") || fn_enum(fn, "minsize");
    unsigned limit = is_set ? (small ? 8 : 16) : small ? 4 : 8;
    np = n ? sdag_pieces(n, vec, !is_move, limit, pc) : 0;
    if (np < 0) {
      /* X86SelectionDAGInfo: rep movs/stos up to 128 bytes when aligned
         to 4 (not modelled: the older rule), else the library */
      LLVMAttributeRef a0 = LLVMGetCallSiteEnumAttribute(
          I, 1, LLVMGetEnumAttributeKindForName("align", 5));
      LLVMAttributeRef a1 =
          is_set ? NULL
                 : LLVMGetCallSiteEnumAttribute(
                       I, 2, LLVMGetEnumAttributeKindForName("align", 5));
      uint64_t al = a0 ? LLVMGetEnumAttributeValue(a0) : 1;
      if (!is_set) {
        uint64_t al1 = a1 ? LLVMGetEnumAttributeValue(a1) : 1;
        al = al1 < al ? al1 : al;
      }
      if (n <= 128 && al >= 4)
        return -1;
      *kind = CB_CALL_LIBC;
      *target = lib;
      return 2;
    }
  }
  LLVMValueRef dptr = LLVMGetOperand(I, 0), sval = LLVMGetOperand(I, 1);
  cb_operand d, s = CB_NONE;
  if (!fe_operand_of(f, dptr, I, &d))
    return 0;
  if (!fe_operand_of(f, sval, I, &s))
    return 0;
  /* a byte known at run time only: its splat, b * 0x0101010101010101
     (getMemsetValue), truncated or repeated in lanes per piece */
  cb_operand splat[65] = {0};
  if (is_set && !LLVMIsAConstantInt(sval)) {
    cb_op z = fe_new_op(CB_OP_ZEXT);
    z.ty = CB_TY_I64;
    z.ty2 = CB_TY_I8;
    z.lanes = 1;
    z.a = s;
    z.dst = f->n_slots++;
    FE_PUSH(f->ops, z);
    cb_operand k;
    LLVMTypeRef i64 = LLVMInt64TypeInContext(f->ctx);
    if (!fe_const_operand(f, LLVMConstInt(i64, 0x0101010101010101ull, false), I,
                          &k))
      return 0;
    cb_op m = fe_new_op(CB_OP_MUL);
    m.ty = CB_TY_I64;
    m.lanes = 1;
    m.a = z.dst;
    m.b = k;
    m.dst = f->n_slots++;
    FE_PUSH(f->ops, m);
    for (int i = 0; i < np; i++) {
      unsigned sz = pc[i].size;
      if (splat[sz])
        continue;
      if (sz == 8) {
        splat[sz] = m.dst;
      } else if (sz < 8) {
        cb_op t = fe_new_op(CB_OP_TRUNC);
        t.ty = sz == 4 ? CB_TY_I32 : sz == 2 ? CB_TY_I16 : CB_TY_I8;
        t.ty2 = CB_TY_I64;
        t.lanes = 1;
        t.a = m.dst;
        t.dst = f->n_slots++;
        FE_PUSH(f->ops, t);
        splat[sz] = t.dst;
      } else {
        uint32_t base = f->n_slots;
        f->n_slots += sz / 8;
        for (unsigned l = 0; l < sz / 8; l++) {
          cb_op v = fe_new_op(CB_OP_MOV);
          v.ty = CB_TY_I64;
          v.lanes = 1;
          v.a = m.dst;
          v.dst = base + l;
          FE_PUSH(f->ops, v);
        }
        splat[sz] = base;
      }
    }
  }
  uint64_t goff = 0;
  const cb_global *g =
      fast || is_set || is_move ? NULL : const_source(f, s, &goff);
  /* the addresses first: the accesses stay together, in an order
     machine.c may change to the machine code's */
  cb_operand da[MAX_PIECES], sa[MAX_PIECES];
  uint32_t addr_ops = f->ops.n;
  for (int i = 0; i < np; i++) {
    da[i] = fe_addr_at(f, d, pc[i].off);
    sa[i] = is_set || g ? CB_NONE : fe_addr_at(f, s, pc[i].off);
  }
  fe_copy_grp grp = {f->cur_func, f->ops.n, 0, 0, 0, f->ops.n - addr_ops};
  uint32_t col;
  fe_loc_of(f, I, &grp.file, &grp.line, &col, NULL);
  if (is_set && np && splat[pc[0].size]) {
    for (int i = 0; i < np; i++)
      emit_store(f, I, dptr, da[i], pc[i], splat[pc[i].size]);
  } else if (is_set) {
    uint8_t b[64];
    memset(b, (int)(LLVMConstIntGetZExtValue(sval) & 0xff), sizeof b);
    for (int i = 0; i < np; i++) {
      cb_operand v;
      if (!const_bytes(f, I, b, pc[i].size, &v))
        return 0;
      emit_store(f, I, dptr, da[i], pc[i], v);
    }
  } else if (fast && !is_move) {
    /* interleaved, as TryEmitSmallMemcpy emits them */
    for (int i = 0; i < np; i++)
      emit_store(f, I, dptr, da[i], pc[i], emit_load(f, I, sval, sa[i], pc[i]));
  } else if (g) {
    /* a constant source: immediates, or loads the machine code places */
    bool zero = false;
    uint64_t slen = 0;
    bool cfc = copy_from_constant(sval, goff, f, &zero, &slen);
    bool loads = false;
    for (int i = 0; i < np; i++) {
      uint8_t b[64];
      bool imm = cfc && (zero || pc[i].size <= 8);
      if (imm && zero)
        memset(b, 0, sizeof b);
      else
        global_bytes(g, goff + pc[i].off, pc[i].size, b);
      if (imm && !zero) /* getMemsetStringVal: zero past the slice */
        for (unsigned k = 0; k < pc[i].size; k++)
          if (pc[i].off + k >= slen)
            b[k] = 0;
      loads |= !imm;
      cb_operand v;
      if (!const_bytes(f, I, b, pc[i].size, &v))
        return 0;
      emit_store(f, I, dptr, da[i], pc[i], v);
    }
    if (loads)
      note_copy_src(f, g);
  } else {
    cb_operand vals[MAX_PIECES];
    for (int i = 0; i < np; i++)
      vals[i] = emit_load(f, I, sval, sa[i], pc[i]);
    for (int i = 0; i < np; i++)
      emit_store(f, I, dptr, da[i], pc[i], vals[i]);
  }
  grp.n = f->ops.n - grp.first;
  if (grp.n > 1)
    FE_PUSH(f->copy_grps, grp);
  return 1;
}
