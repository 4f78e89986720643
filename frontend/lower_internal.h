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

/* lower_calls.c */
unsigned fe_byval_kind(void);
bool fe_lower_call(fe *f, LLVMValueRef I);

/* lower_varargs.c: llvm.va_start and llvm.va_copy. */
bool fe_lower_va_start(fe *f, LLVMValueRef I);
bool fe_lower_va_copy(fe *f, LLVMValueRef I);

/* lower_ops.c */
bool fe_lower_inst(fe *f, LLVMValueRef I, uint32_t bi, cb_block *blk);
bool fe_lower_load_relative(fe *f, LLVMValueRef I);

#endif
