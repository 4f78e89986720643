/* jit_call.c: a kernel's call op (jit_gen.h). The engine runs the call
 * in full (kernel.h, io->call): the program's own callee, with its frame,
 * arguments and machine-code accesses, and in it the callee's own kernel;
 * the C library model; an intrinsic. The kernel's locals go to io before
 * and come back after, since the call spends budget, fills and hands
 * over the batch and may move the slot stack. */
#include "jit_gen.h"

LLVMValueRef jit_call_engine(jit_gen *g, uint32_t ip, uint32_t gb,
                             unsigned field) {
  LLVMBuilderRef B = g->B;
  jit_save_locals(g);
  if (field != IO_TPL)
    jit_store(g, LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1), ""),
              jit_io_field(g, IO_BUDGET), TB_IO);
  jit_store(g, LLVMConstInt(g->i32, ip, 0), jit_io_field(g, IO_IP), TB_IO);
  jit_store(g, LLVMConstInt(g->i32, gb, 0), jit_io_field(g, IO_BLOCK), TB_IO);
  LLVMValueRef fn = jit_load(g, LLVMPointerType(g->call_ty, 0),
                             jit_io_field(g, field), TB_IO);
  return LLVMBuildCall2(B, g->call_ty, fn, &g->io, 1, "");
}

void jit_call_op(jit_gen *g, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  uint32_t lb = gb - g->fn->first_block;
  LLVMValueRef r = jit_call_engine(g, ip, gb, IO_CALL);
  LLVMBasicBlockRef started = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef enter = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef left = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ran = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r,
                                LLVMConstInt(g->i32, CB_KCALL_LEAVE, 0), ""),
                  jit_exit_before(g, ip, gb), started);
  LLVMPositionBuilderAtEnd(B, started);
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r,
                                LLVMConstInt(g->i32, CB_KCALL_ENTERED, 0), ""),
                  enter, ran);
  /* the callee's kernel, called from here: it returns after its `ret`,
   * or leaves, and then so does this one, at once: io is the callee's,
   * and the engine has this frame's place (ip + 1) */
  LLVMPositionBuilderAtEnd(B, enter);
  LLVMValueRef nest = jit_load(g, g->i32, jit_io_field(g, IO_NEST), TB_IO);
  jit_store(g, LLVMBuildAdd(B, nest, LLVMConstInt(g->i32, 1, 0), ""),
            jit_io_field(g, IO_NEST), TB_IO);
  LLVMValueRef k = jit_load(g, LLVMPointerType(g->kernel_ty, 0),
                            jit_io_field(g, IO_CALLEE), TB_IO);
  LLVMValueRef r2 = LLVMBuildCall2(B, g->kernel_ty, k, &g->io, 1, "");
  jit_store(g, nest, jit_io_field(g, IO_NEST), TB_IO);
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r2,
                                LLVMConstInt(g->i32, CB_KERNEL_LEFT, 0), ""),
                  left, ran);
  LLVMPositionBuilderAtEnd(B, left);
  LLVMBuildRet(B, LLVMConstInt(g->i32, CB_KERNEL_LEFT, 0));
  LLVMPositionBuilderAtEnd(B, ran);
  LLVMValueRef rr = LLVMBuildPhi(B, g->i32, "");
  LLVMValueRef done = LLVMConstInt(g->i32, CB_KCALL_DONE, 0);
  LLVMAddIncoming(rr, &r, &started, 1);
  LLVMAddIncoming(rr, &done, &enter, 1);
  r = rr;
  jit_load_locals(g);
  jit_guard(g,
            LLVMBuildICmp(B, LLVMIntNE, r,
                          LLVMConstInt(g->i32, CB_KCALL_DONE, 0), ""),
            ip + 1, gb);
  /* room for the way on to the next check */
  uint64_t ops, acc;
  jit_need_from(g, lb, ip + 1, &ops, &acc);
  jit_room(g, ops, acc, ip + 1, gb);
}

void jit_room(jit_gen *g, uint64_t ops, uint64_t acc, uint32_t ip,
              uint32_t gb) {
  LLVMBuilderRef B = g->B;
  jit_guard(
      g,
      LLVMBuildICmp(B, LLVMIntULT, jit_lv(g, LV_BUDGET), jit_c64(g, ops), ""),
      ip, gb);
  LLVMBasicBlockRef flush = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMValueRef room =
      LLVMBuildSub(B, jit_lv(g, LV_CAP), jit_lv(g, LV_NBATCH), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, room, jit_c64(g, acc), ""),
                  flush, ok);
  LLVMPositionBuilderAtEnd(B, flush);
  jit_store(g, jit_lv(g, LV_NBATCH), jit_io_field(g, IO_NBATCH), TB_IO);
  LLVMValueRef fn = jit_load(g, LLVMPointerType(g->call_ty, 0),
                             jit_io_field(g, IO_FLUSH), TB_IO);
  LLVMBuildCall2(B, g->call_ty, fn, &g->io, 1, "");
  static const int again[] = {LV_NBATCH, LV_BATCH, LV_CAP, LV_STREAM};
  for (unsigned k = 0; k < sizeof again / sizeof again[0]; k++)
    jit_load_local(g, again[k]);
  /* a batch area smaller than the way ahead: the interpreter goes on */
  jit_guard(g,
            LLVMBuildICmp(
                B, LLVMIntULT,
                LLVMBuildSub(B, jit_lv(g, LV_CAP), jit_lv(g, LV_NBATCH), ""),
                jit_c64(g, acc), ""),
            ip, gb);
  LLVMBuildBr(B, ok);
  LLVMPositionBuilderAtEnd(B, ok);
}

void jit_ret_op(jit_gen *g, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef nest = jit_load(g, g->i32, jit_io_field(g, IO_NEST), TB_IO);
  LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  /* entered by the interpreter: its loop makes the return */
  LLVMBuildCondBr(
      B, LLVMBuildICmp(B, LLVMIntEQ, nest, LLVMConstInt(g->i32, 0, 0), ""),
      jit_exit_before(g, ip, gb), back);
  LLVMPositionBuilderAtEnd(B, back);
  jit_call_engine(g, ip, gb, IO_RET);
  LLVMBuildRet(B, LLVMConstInt(g->i32, CB_KERNEL_RETURNED, 0));
}
