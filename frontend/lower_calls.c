/* lower_calls.c: calls: direct and indirect calls, the intrinsics and
 * library functions cbana knows by name, those dropped, byval
 * arguments. */
#include "lower_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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

/* Whether the function holding I is compiled for an x86 feature
 * ("+sse4.1", "+fma": its "target-features" attribute). */
static bool has_feature(LLVMValueRef I, const char *feat) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(
      fn, LLVMAttributeFunctionIndex, "target-features", 15);
  if (!a)
    return false;
  unsigned len;
  const char *v = LLVMGetStringAttributeValue(a, &len);
  size_t fl = strlen(feat);
  for (unsigned i = 0; i + fl <= len; i++)
    if ((i == 0 || v[i - 1] == ',') && !strncmp(v + i, feat, fl) &&
        (i + fl == len || v[i + fl] == ','))
      return true;
  return false;
}

/* The libm function an intrinsic call becomes on x86-64 when the backend
 * has no instruction for it (LLVM 14's X86ISelLowering: sin, cos, exp,
 * log and pow always; floor, ceil, trunc, rint, nearbyint and round
 * without SSE4.1's roundsd; fma without FMA; lround and llround always,
 * while lrint is cvtsd2si): the machine code calls it through the PLT
 * like a call the source wrote. -1 when the call stays an intrinsic. */
static int intrinsic_libcall(LLVMValueRef I, int id) {
  LLVMTypeRef at = LLVMTypeOf(LLVMGetOperand(I, 0));
  LLVMTypeKind k = LLVMGetTypeKind(at);
  if (k != LLVMFloatTypeKind && k != LLVMDoubleTypeKind)
    return -1; /* vectors and x86_fp80 stay intrinsics */
  bool f = k == LLVMFloatTypeKind;
  bool round_insn = has_feature(I, "+sse4.1");
  switch ((cb_intrinsic)id) {
  case CB_INTR_SIN:
    return f ? CB_LIBC_SINF : CB_LIBC_SIN;
  case CB_INTR_COS:
    return f ? CB_LIBC_COSF : CB_LIBC_COS;
  case CB_INTR_EXP:
    return f ? CB_LIBC_EXPF : CB_LIBC_EXP;
  case CB_INTR_EXP2:
    return f ? CB_LIBC_EXP2F : CB_LIBC_EXP2;
  case CB_INTR_LOG:
    return f ? CB_LIBC_LOGF : CB_LIBC_LOG;
  case CB_INTR_LOG2:
    return f ? CB_LIBC_LOG2F : CB_LIBC_LOG2;
  case CB_INTR_LOG10:
    return f ? CB_LIBC_LOG10F : CB_LIBC_LOG10;
  case CB_INTR_POW:
    return f ? CB_LIBC_POWF : CB_LIBC_POW;
  case CB_INTR_LROUND:
    return f ? CB_LIBC_LROUNDF : CB_LIBC_LROUND;
  case CB_INTR_LLROUND:
    return f ? CB_LIBC_LLROUNDF : CB_LIBC_LLROUND;
  case CB_INTR_FLOOR:
    return round_insn ? -1 : f ? CB_LIBC_FLOORF : CB_LIBC_FLOOR;
  case CB_INTR_CEIL:
    return round_insn ? -1 : f ? CB_LIBC_CEILF : CB_LIBC_CEIL;
  case CB_INTR_TRUNC:
    return round_insn ? -1 : f ? CB_LIBC_TRUNCF : CB_LIBC_TRUNC;
  case CB_INTR_RINT:
    return round_insn ? -1 : f ? CB_LIBC_RINTF : CB_LIBC_RINT;
  case CB_INTR_NEARBYINT:
    return round_insn ? -1 : f ? CB_LIBC_NEARBYINTF : CB_LIBC_NEARBYINT;
  case CB_INTR_ROUND:
    return round_insn ? -1 : f ? CB_LIBC_ROUNDF : CB_LIBC_ROUND;
  case CB_INTR_FMA:
    if (has_feature(I, "+fma") || has_feature(I, "+fma4"))
      return -1;
    return f ? CB_LIBC_FMAF : CB_LIBC_FMA;
  default:
    return -1;
  }
}

static int find_libc(const char *name) {
  for (size_t i = 0; i < sizeof libc_names / sizeof *libc_names; i++)
    if (strcmp(name, libc_names[i]) == 0)
      return (int)i;
  return -1;
}

unsigned fe_byval_kind(void) {
  static unsigned k;
  if (!k)
    k = LLVMGetEnumAttributeKindForName("byval", 5);
  return k;
}

static uint32_t byval_bytes_call(fe *f, LLVMValueRef call, unsigned argi,
                                 LLVMValueRef callee) {
  LLVMAttributeRef a =
      LLVMGetCallSiteEnumAttribute(call, argi + 1, fe_byval_kind());
  if (!a && callee && LLVMIsAFunction(callee) && argi < LLVMCountParams(callee))
    a = LLVMGetEnumAttributeAtIndex(callee, argi + 1, fe_byval_kind());
  if (!a)
    return 0;
  LLVMTypeRef t = LLVMGetTypeAttributeValue(a);
  return t ? (uint32_t)LLVMABISizeOfType(f->td, t) : 0;
}

int64_t fe_unmodelled(fe *f, const char *name, size_t len) {
  const char *nm = fe_pool_intern(f->pool, name, len);
  for (uint32_t i = 0; i < f->unmodelled.n; i++)
    if (f->unmodelled.v[i] == nm)
      return i;
  if (strncmp(nm, "llvm.", 5) == 0 || find_libc(nm) >= 0 ||
      !fe_elf_links(&f->elf, nm))
    return -1;
  FE_PUSH(f->unmodelled, nm);
  FE_PUSH(f->unmodelled_addr, 0);
  return f->unmodelled.n - 1;
}

/* Lowers a call; returns false on error. *emitted false when dropped. */
bool fe_lower_call(fe *f, LLVMValueRef I) {
  LLVMValueRef callee = fe_strip_casts(LLVMGetCalledValue(I));
  if (LLVMIsAInlineAsm(callee))
    return fe_unsupported(f, I, "inline assembly");
  cb_op o = fe_new_op(CB_OP_CALL);
  int64_t kind, target = 0;
  /* The callee's name, for reports of library traffic per call site. */
  const char *callee_name = "(indirect)";
  size_t callee_len = strlen(callee_name);
  if (LLVMIsAFunction(callee)) {
    size_t len;
    const char *name = LLVMGetValueName2(callee, &len);
    callee_name = name;
    callee_len = len;
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
      if (fe_alias_source(I))
        return true;
      if (strncmp(iname, "load.relative", 13) == 0)
        return fe_lower_load_relative(f, I);
      if (!strcmp(iname, "va_start"))
        return fe_lower_va_start(f, I);
      if (!strcmp(iname, "va_copy"))
        return fe_lower_va_copy(f, I);
      if (!strcmp(iname, "va_end"))
        return true;                                          /* no code */
      int w = fe_wide_intrinsic(f, I, iname, &kind, &target); /* lower_wide.c */
      if (w == 0 || w == 1)
        return w == 1;
      /* llvm.trap, llvm.debugtrap, llvm.ubsantrap: ud2 or int3, which
       * stop the process (SIGILL, SIGTRAP) */
      int id = w == 2 ? -2
               : !strcmp(iname, "trap") || !strcmp(iname, "debugtrap") ||
                       !strcmp(iname, "ubsantrap")
                   ? CB_INTR_TRAP
                   : find_intrinsic(iname);
      if (id == -2) {
        callee_name = libc_names[target];
        callee_len = strlen(callee_name);
      } else if (id < 0) {
        char buf[300];
        snprintf(buf, sizeof buf, "intrinsic %.200s", name);
        return fe_unsupported(f, I, buf);
      } else {
        kind = CB_CALL_INTRINSIC;
        target = id;
        callee_name = iname; /* llvm.memcpy.p0i8... reads as memcpy... */
        callee_len = strcspn(iname, ".");
        if (id == CB_INTR_MEMCPY || id == CB_INTR_MEMMOVE ||
            id == CB_INTR_MEMSET) {
          int m = fe_lower_memop(f, I, id, &kind, &target);
          if (m == 0 || m == 1)
            return m == 1;
          if (m == 2) {
            callee_name = libc_names[target];
            callee_len = strlen(callee_name);
          }
        }
        int lib = kind == CB_CALL_INTRINSIC && LLVMGetNumArgOperands(I)
                      ? intrinsic_libcall(I, id)
                      : -1;
        if (lib >= 0) {
          kind = CB_CALL_LIBC;
          target = lib;
          callee_name = libc_names[lib];
          callee_len = strlen(callee_name);
        }
      }
    } else if (fe_map_get(&f->func_index, callee, &idx)) {
      kind = CB_CALL_DIRECT;
      target = (int64_t)idx;
    } else {
      int lib = find_libc(name);
      if (lib < 0) {
        if (strncmp(name, "pthread_", 8) == 0)
          return fe_unsupported(f, I, "threads");
        int64_t um = fe_unmodelled(f, name, len);
        if (um < 0) {
          fe_unknown_call u;
          uint32_t col;
          fe_loc_of(f, I, &u.file, &u.line, &col, NULL);
          u.name = fe_pool_intern(f->pool, name, len);
          FE_PUSH(f->unknown, u);
          lib = 0;
        } else {
          /* linked, so a real library function: the input that reaches
           * the call stops there (engine_frames.c) */
          kind = CB_CALL_UNMODELLED;
          target = um;
        }
      }
      if (lib >= 0) {
        kind = CB_CALL_LIBC;
        target = lib;
      }
    }
  } else {
    kind = CB_CALL_INDIRECT;
    if (!fe_operand_of(f, LLVMGetCalledValue(I), I, &o.a))
      return false;
  }
  if (!fe_wide_call_check(f, I, kind, target) || !fe_set_dst(f, &o, I))
    return false;
  if (o.dst == CB_NONE)
    o.ty = CB_TY_VOID;
  unsigned nargs = (unsigned)LLVMGetNumArgOperands(I);
  LLVMValueRef first_ptr = NULL;
  for (unsigned k = 0; k < nargs && !first_ptr; k++)
    if (LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(I, k))) ==
        LLVMPointerTypeKind)
      first_ptr = LLVMGetOperand(I, k);
  uint32_t site = fe_new_site(f, I, kind == CB_CALL_DIRECT ? NULL : first_ptr,
                              0, false, true);
  f->sites.v[site].text = fe_pool_intern(f->pool, callee_name, callee_len);
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
      return fe_unsupported(f, I, "call with a metadata argument");
    cb_operand a;
    if (!fe_operand_of(f, arg, I, &a))
      return false;
    cb_ty ty;
    uint32_t lanes = fe_type_slots(at, &ty);
    uint64_t bv =
        byval_bytes_call(f, I, k, kind == CB_CALL_DIRECT ? callee : NULL);
    if (bv > 0xffff)
      return fe_unsupported(f, I, "struct passed by value larger than 64 KiB");
    f->extra.v[f->extra.n++] =
        (int64_t)((uint64_t)a | ((uint64_t)ty << 32) |
                  ((uint64_t)(lanes & 0xff) << 40) | (bv << 48));
  }
  FE_PUSH(f->ops, o);
  return true;
}

/* Flattened slot offset of an aggregate index path. */
