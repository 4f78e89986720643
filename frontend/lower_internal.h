/* lower_internal.h: shared between the files that lower LLVM IR
 * (lower.c, lower_const.c, lower_ops.c, lower_calls.c, sites.c); never
 * installed. */
#ifndef CBANA_LOWER_INTERNAL_H
#define CBANA_LOWER_INTERNAL_H

#include "fe_internal.h"

/* lower.c */
int64_t fe_sext(uint64_t u, unsigned bits);
uint32_t fe_type_slots(LLVMTypeRef t, cb_ty *ty);
const char *fe_type_str(fe *f, LLVMTypeRef t);
bool fe_unsupported(fe *f, LLVMValueRef inst, const char *what);
void fe_loc_of(fe *f, LLVMValueRef inst, uint32_t *file, uint32_t *line,
               uint32_t *col, LLVMMetadataRef *scope);
LLVMValueRef fe_alias_source(LLVMValueRef I);
cb_op fe_new_op(uint8_t code);
bool fe_operand_of(fe *f, LLVMValueRef v, LLVMValueRef user, cb_operand *op);
bool fe_set_dst(fe *f, cb_op *o, LLVMValueRef I);
LLVMValueRef fe_strip_casts(LLVMValueRef v);
bool fe_opnd(fe *f, LLVMValueRef I, unsigned i, cb_operand *out);
bool fe_slot_of(fe *f, LLVMValueRef v, LLVMValueRef user, cb_operand *op);
uint8_t fe_elem_ty_of(LLVMTypeRef t);

/* lower_const.c */
bool fe_const_operand(fe *f, LLVMValueRef c, LLVMValueRef user, cb_operand *op);
bool fe_place_globals(fe *f);
/* A label's address (blockaddress constant ba): see lower_const.c. */
uint64_t fe_block_address(fe *f, LLVMValueRef ba);

/* sites.c */
uint32_t fe_new_site(fe *f, LLVMValueRef I, LLVMValueRef addr, uint32_t size,
                     bool write, bool call);
/* The same for the bytes at addr + at (a piece of a copy). */
uint32_t fe_new_site_at(fe *f, LLVMValueRef I, LLVMValueRef addr, int64_t at,
                        uint32_t size, bool write, bool call);

/* lower_calls.c */
unsigned fe_byval_kind(void);
bool fe_lower_call(fe *f, LLVMValueRef I);
/* The index in f->unmodelled of a library function the executable links
 * against but cbana does not model (added at its first use), or -1: a
 * modelled function, an intrinsic, or one the link did not find. */
int64_t fe_unmodelled(fe *f, const char *name, size_t len);

/* lower_wide.c: wide integers and x86_fp80 (program.h, "Wide values") */
unsigned fe_wide_int_bits(LLVMTypeRef t);
bool fe_is_f80(LLVMTypeRef t);
bool fe_wide_ty(LLVMTypeRef t);
/* 1: lowered, 0: error reported, -1: not a wide operation of its own (a
 * copy: lower_ops.c lowers it) */
int fe_lower_wide(fe *f, LLVMValueRef I);
bool fe_wide_access(fe *f, LLVMValueRef I, bool st, LLVMValueRef addr,
                    cb_operand base, cb_operand val, LLVMTypeRef t);
bool fe_wide_const(fe *f, LLVMValueRef c, cb_value *out, uint32_t n);
bool fe_wide_const_bytes(fe *f, LLVMValueRef c, uint8_t *buf, uint64_t size);
/* A call of intrinsic llvm.INAME with a wide argument or result: 1
 * lowered inline, 2 a call of *kind *target instead (a long double
 * intrinsic the machine code calls libm for), 0 error, -1 none wide. */
int fe_wide_intrinsic(fe *f, LLVMValueRef I, const char *iname, int64_t *kind,
                      int64_t *target);
/* A library call with a wide argument or result: only long doubles, to
 * the printf family or libm's long double functions; false after an
 * error. */
bool fe_wide_call_check(fe *f, LLVMValueRef I, int64_t kind, int64_t target);
/* lower_varargs.c: llvm.va_start and llvm.va_copy. */
bool fe_lower_va_start(fe *f, LLVMValueRef I);
bool fe_lower_va_copy(fe *f, LLVMValueRef I);

/* lower_memop.c: llvm.memcpy, llvm.memmove and llvm.memset as x86-64's
 * code generator emits them: 1 lowered into the loads and stores of its
 * inline expansion, 2 a call of the library (*kind, *target set), -1 left
 * an intrinsic (see there), 0 error. */
int fe_lower_memop(fe *f, LLVMValueRef I, int id, int64_t *kind,
                   int64_t *target);

/* lower_vecgep.c: a getelementptr whose result is a vector of pointers. */
bool fe_lower_vector_gep(fe *f, LLVMValueRef I);

/* lower_ops.c */
bool fe_lower_inst(fe *f, LLVMValueRef I, uint32_t bi, cb_block *blk);
/* dst = base + off bytes (a GEP op). */
void fe_emit_gep_const(fe *f, uint32_t dst, cb_operand base, int64_t off);
/* base + off bytes: base itself when off is 0, else a GEP into a new
 * slot. */
cb_operand fe_addr_at(fe *f, cb_operand base, uint64_t off);
bool fe_lower_load_relative(fe *f, LLVMValueRef I);

#endif
