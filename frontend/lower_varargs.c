/* lower_varargs.c: variadic functions the program defines (SysV x86-64
 * ABI 3.5.7). va_arg needs nothing here: clang emits it as IR, loads and
 * stores on the 24-byte va_list {u32 gp_offset; u32 fp_offset; void
 * *overflow_arg_area; void *reg_save_area}. llvm.va_start and llvm.va_copy
 * become the stores and loads the x86 backend expands them into, so that
 * they are the IR's own accesses (machine.c then takes the machine code's
 * stack accesses on their line as those); llvm.va_end makes no code.
 *
 * va_start points reg_save_area at the function's register save area (a
 * frame object of 176 bytes, placed where the machine code keeps it,
 * machine.c) and overflow_arg_area past the named arguments passed on the
 * stack (a frame object at that offset above the CFA), with gp_offset = 8
 * x the named arguments in integer registers and fp_offset = 48 + 16 x
 * those in vector registers. What a call puts there is the engine's
 * (engine_varargs.c). */
#include "lower_internal.h"

#include <string.h>

/* How the ABI passes an argument of type t (its lowered form, as clang
 * coerced it): 0 an integer register, 1 a vector register, 2 memory (its
 * bytes in *mem). The classification of an aggregate was clang's, which
 * left scalars and byval pointers. */
static int arg_class(fe *f, LLVMTypeRef t, uint64_t byval, uint64_t *mem) {
  if (byval) {
    *mem = (byval + 7) & ~7ull;
    return 2;
  }
  LLVMTypeKind k = LLVMGetTypeKind(t);
  uint64_t size = LLVMABISizeOfType(f->td, t);
  if (k == LLVMFloatTypeKind || k == LLVMDoubleTypeKind ||
      (k == LLVMVectorTypeKind && size <= 16))
    return 1;
  if ((k == LLVMIntegerTypeKind && size <= 8) || k == LLVMPointerTypeKind)
    return 0;
  *mem = (size + 7) & ~7ull;
  return 2;
}

/* The named parameters of fn: in integer and vector registers, and the
 * bytes they take on the stack. */
static void named_args(fe *f, LLVMValueRef fn, unsigned *gp, unsigned *fp,
                       uint64_t *stack) {
  *gp = *fp = 0;
  *stack = 0;
  unsigned n = LLVMCountParams(fn);
  for (unsigned i = 0; i < n; i++) {
    LLVMAttributeRef a =
        LLVMGetEnumAttributeAtIndex(fn, i + 1, fe_byval_kind());
    LLVMTypeRef bt = a ? LLVMGetTypeAttributeValue(a) : NULL;
    uint64_t byval = bt ? LLVMABISizeOfType(f->td, bt) : 0, mem = 0;
    int c = arg_class(f, LLVMTypeOf(LLVMGetParam(fn, i)), byval, &mem);
    if (c == 0 && *gp < 6)
      (*gp)++;
    else if (c == 1 && *fp < 8)
      (*fp)++;
    else
      *stack += c == 2 ? mem : 8;
  }
}

static uint32_t new_frame_obj(fe *f, uint64_t size, uint32_t align,
                              int64_t offset) {
  cb_frame_obj fo;
  memset(&fo, 0, sizeof fo);
  fo.func = f->cur_func;
  fo.size = size;
  fo.align = align;
  fo.var = CB_NONE;
  fo.frame_offset = offset;
  FE_PUSH(f->frame_objs, fo);
  return f->frame_objs.n - 1;
}

/* dst = address of frame object obj. */
static void push_alloca(fe *f, uint32_t dst, uint32_t obj) {
  cb_op o = fe_new_op(CB_OP_ALLOCA);
  o.ty = CB_TY_PTR;
  o.dst = dst;
  o.aux = obj;
  FE_PUSH(f->ops, o);
}

/* A load (dst) or store (of val) of lanes x ty at base + off; site of I,
 * attributed through the va_list `ap`. */
static void push_access(fe *f, LLVMValueRef I, LLVMValueRef ap, bool store,
                        cb_operand base, int64_t off, cb_ty ty, unsigned lanes,
                        cb_operand val_or_dst) {
  uint32_t addr = f->n_slots++;
  fe_emit_gep_const(f, addr, base, off);
  cb_op o = fe_new_op(store ? CB_OP_STORE : CB_OP_LOAD);
  o.ty = (uint8_t)ty;
  o.lanes = (uint8_t)lanes;
  if (store) {
    o.a = val_or_dst;
    o.b = addr;
  } else {
    o.dst = val_or_dst;
    o.a = addr;
  }
  o.aux = fe_new_site(f, I, ap, cb_ty_bytes(ty) * lanes, store, false);
  FE_PUSH(f->ops, o);
}

static bool const_int(fe *f, LLVMValueRef I, unsigned bits, uint64_t v,
                      cb_operand *out) {
  LLVMTypeRef t = LLVMIntTypeInContext(f->ctx, bits);
  return fe_const_operand(f, LLVMConstInt(t, v, false), I, out);
}

static bool optnone(LLVMValueRef fn) {
  return LLVMGetEnumAttributeAtIndex(
             fn, LLVMAttributeFunctionIndex,
             LLVMGetEnumAttributeKindForName("optnone", 7)) != NULL;
}

bool fe_lower_va_start(fe *f, LLVMValueRef I) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
  LLVMValueRef ap = LLVMGetOperand(I, 0);
  cb_function *cf = &f->functions.v[f->cur_func];
  unsigned gp, fp;
  uint64_t stack;
  named_args(f, fn, &gp, &fp, &stack);
  if (!cf->va_save1) {
    /* placed by the machine code (machine.c), else by the engine */
    cf->va_save1 = new_frame_obj(f, 176, 16, CB_FRAME_OFFSET_UNKNOWN) + 1;
    cf->va_gp = (uint8_t)gp;
    cf->va_fp = (uint8_t)fp;
  }
  /* the stack arguments start at the CFA: the first unnamed one there */
  uint32_t ovf_obj = new_frame_obj(f, 8, 8, (int64_t)stack);
  cb_operand apv, gpv, fpv, both;
  if (!fe_operand_of(f, ap, I, &apv) || !const_int(f, I, 32, 8 * gp, &gpv) ||
      !const_int(f, I, 32, 48 + 16 * fp, &fpv) ||
      !const_int(f, I, 64, ((uint64_t)(48 + 16 * fp) << 32) | (8 * gp), &both))
    return false;
  uint32_t save = f->n_slots++, ovf = f->n_slots++;
  push_alloca(f, save, cf->va_save1 - 1);
  push_alloca(f, ovf, ovf_obj);
  if (optnone(fn)) {
    /* FastISel (-O0): four stores, the last field first */
    push_access(f, I, ap, true, apv, 16, CB_TY_PTR, 1, save);
    push_access(f, I, ap, true, apv, 8, CB_TY_PTR, 1, ovf);
    push_access(f, I, ap, true, apv, 4, CB_TY_I32, 1, fpv);
    push_access(f, I, ap, true, apv, 0, CB_TY_I32, 1, gpv);
  } else {
    /* SelectionDAG merges the two constant offsets into one store */
    push_access(f, I, ap, true, apv, 0, CB_TY_I64, 1, both);
    push_access(f, I, ap, true, apv, 8, CB_TY_PTR, 1, ovf);
    push_access(f, I, ap, true, apv, 16, CB_TY_PTR, 1, save);
  }
  return true;
}

bool fe_lower_va_copy(fe *f, LLVMValueRef I) {
  LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInstructionParent(I));
  LLVMValueRef dst = LLVMGetOperand(I, 0), src = LLVMGetOperand(I, 1);
  cb_operand d, s;
  if (!fe_operand_of(f, dst, I, &d) || !fe_operand_of(f, src, I, &s))
    return false;
  /* a 24-byte memcpy (X86ISelLowering LowerVACOPY): 16 bytes in an xmm
   * register and 8 in a general one */
  uint32_t v16 = f->n_slots, v8 = f->n_slots + 2;
  f->n_slots += 3;
  if (optnone(fn)) {
    push_access(f, I, src, false, s, 16, CB_TY_I64, 1, v8);
    push_access(f, I, dst, true, d, 16, CB_TY_I64, 1, v8);
    push_access(f, I, src, false, s, 0, CB_TY_I64, 2, v16);
    push_access(f, I, dst, true, d, 0, CB_TY_I64, 2, v16);
  } else {
    push_access(f, I, src, false, s, 0, CB_TY_I64, 2, v16);
    push_access(f, I, dst, true, d, 0, CB_TY_I64, 2, v16);
    push_access(f, I, src, false, s, 16, CB_TY_I64, 1, v8);
    push_access(f, I, dst, true, d, 16, CB_TY_I64, 1, v8);
  }
  return true;
}
