/* jit_tpl.c: a loop template's iterations made natively (kernel.h's
 * cb_tpl_kernel_io): for a block of the kernel's function that is its own
 * successor, a function beside the kernel that runs the block's ops after
 * its phis k times, each iteration ending with the back edge's phi moves,
 * with jit_ops.c's forms on the same slots and memory. The template
 * (analysis/engine/template.h) has the closed forms of the loop's addresses and
 * exit test; it emits the iterations' accesses as one affine block and
 * calls this for the values, which it used to interpret op by op. The
 * code makes no records, spends no budget and counts nothing; it checks
 * each iteration's branch against the template's proof, and a page its
 * translation cache misses goes through the engine (io->access), so it
 * never leaves in the middle of an iteration. A block with an op the
 * kernels do not compile, or whose code could leave (an exit), gets
 * none: the template interprets it. */
#include "jit_gen.h"

#include <stdio.h>
#include <stdlib.h>

/* Fields of cb_tpl_kernel_io, in order. */
enum {
  TIO_SLOTS,
  TIO_TLB,
  TIO_FLAGS,
  TIO_ENGINE,
  TIO_ACCESS,
  TIO_K,
  TIO_NFIELDS
};

/* The local block lb's successor that stays in the loop, through its
 * conditional branch: 1 the true side, 0 the false side, -1 when the
 * block is no such loop. */
static int stay_side(const jit_gen *g, uint32_t lb) {
  const cb_program *p = g->p;
  const cb_block *b = &p->blocks[g->fn->first_block + lb];
  if (b->n_ops == 0 || b->n_succ != 2)
    return -1;
  const cb_op *br = &p->ops[b->first_op + b->n_ops - 1];
  if (br->code != CB_OP_BR || br->a == CB_NONE)
    return -1;
  const uint32_t *su = &p->succs[b->first_succ];
  if ((su[0] == lb) == (su[1] == lb))
    return -1;
  return su[0] == lb ? 1 : 0;
}

/* Whether the ops of global block gb between its phis and its branch
 * are all ones a kernel computes itself. */
static bool ops_covered(const jit_gen *g, uint32_t gb) {
  const cb_program *p = g->p;
  const cb_block *b = &p->blocks[gb];
  for (uint32_t ip = b->first_op + g->nphis[gb];
       ip + 1 < b->first_op + b->n_ops; ip++) {
    const cb_op *op = &p->ops[ip];
    if (op->code == CB_OP_BR || op->code == CB_OP_SWITCH ||
        op->code == CB_OP_RET || op->code == CB_OP_PHI ||
        !jit_op_covered(p, op))
      return false;
  }
  return true;
}

/* The kernel's generation state the template's code replaces. */
typedef struct saved {
  LLVMValueRef F, io, tlb, op_flags, lv[LV_COUNT];
  uint32_t mach_made_ip;
} saved;

void jit_gen_tpl(jit_gen *g, uint32_t lb) {
  const cb_program *p = g->p;
  uint32_t gb = g->fn->first_block + lb;
  int stay = stay_side(g, lb);
  if (stay < 0 || !ops_covered(g, gb))
    return;
  const cb_block *b = &p->blocks[gb];
  const cb_op *br = &p->ops[b->first_op + b->n_ops - 1];
  LLVMBuilderRef B = g->B;
  saved sv = {g->F, g->io, g->tlb, g->op_flags, {0}, g->mach_made_ip};
  for (int k = 0; k < LV_COUNT; k++)
    sv.lv[k] = g->lv[k];

  /* i64 (cb_tpl_kernel_io *) */
  LLVMTypeRef af[5] = {g->p8, g->i64, g->p8, g->i64, g->i64};
  g->tpl_access_ty = LLVMFunctionType(LLVMVoidTypeInContext(g->C), af, 5, 0);
  LLVMTypeRef tf[TIO_NFIELDS] = {
      g->p64, g->p64, g->p8, g->p8, LLVMPointerType(g->tpl_access_ty, 0),
      g->i64};
  LLVMTypeRef tio = LLVMStructTypeInContext(g->C, tf, TIO_NFIELDS, 0);
  LLVMTypeRef ptio = LLVMPointerType(tio, 0);
  char name[32];
  snprintf(name, sizeof name, "cbt%u", gb);
  g->F = LLVMAddFunction(g->M, name, LLVMFunctionType(g->i64, &ptio, 1, 0));
  LLVMAddAttributeAtIndex(
      g->F, 1,
      LLVMCreateEnumAttribute(
          g->C, LLVMGetEnumAttributeKindForName("noalias", 7), 0));
  LLVMAddAttributeAtIndex(
      g->F, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(g->C, "no-builtin-memset", 17, "", 0));
  g->io = LLVMGetParam(g->F, 0);
  g->tpl = true;
  g->tpl_exits = 0;
  g->mach_made_ip = CB_NONE;

  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->C, g->F, "entry");
  LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(g->C, g->F, "head");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->C, g->F, "body");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "done");
  LLVMBasicBlockRef left = LLVMAppendBasicBlockInContext(g->C, g->F, "left");
  g->tpl_bad = LLVMAppendBasicBlockInContext(g->C, g->F, "bad");
  LLVMPositionBuilderAtEnd(B, g->tpl_bad);
  LLVMBuildRet(B, jit_c64(g, 0));

  LLVMPositionBuilderAtEnd(B, entry);
#define TIO(f) LLVMBuildStructGEP2(B, tio, g->io, f, "")
  g->tlb = jit_load(g, g->p64, TIO(TIO_TLB), TB_IO);
  g->op_flags = jit_load(g, g->p8, TIO(TIO_FLAGS), TB_IO);
  g->tpl_engine = jit_load(g, g->p8, TIO(TIO_ENGINE), TB_IO);
  g->tpl_access = jit_load(g, tf[TIO_ACCESS], TIO(TIO_ACCESS), TB_IO);
  LLVMValueRef kv = jit_load(g, g->i64, TIO(TIO_K), TB_IO);
  LLVMValueRef slots = jit_load(g, g->p64, TIO(TIO_SLOTS), TB_IO);
#undef TIO
  for (int k = 0; k < LV_COUNT; k++) {
    LLVMTypeRef ty = k == LV_PREV    ? g->i32
                     : k == LV_SLOTS ? g->p64
                     : k == LV_BATCH ? g->p8
                                     : g->i64;
    g->lv[k] = LLVMBuildAlloca(B, ty, "");
    LLVMBuildStore(B, k == LV_SLOTS ? slots : LLVMConstNull(ty), g->lv[k]);
  }
  /* a vector access of up to 2048 bytes (jit_op_covered) */
  LLVMValueRef buf = LLVMBuildAlloca(B, LLVMArrayType(g->i8, 2048), "buf");
  LLVMSetAlignment(buf, 16);
  g->tpl_buf = LLVMBuildBitCast(B, buf, g->p8, "");
  LLVMValueRef ctr = LLVMBuildAlloca(B, g->i64, "i");
  LLVMBuildStore(B, jit_c64(g, 0), ctr);
  LLVMBuildBr(B, head);

  LLVMPositionBuilderAtEnd(B, head);
  LLVMValueRef i = LLVMBuildLoad2(B, g->i64, ctr, "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, i, kv, ""), done, body);
  LLVMPositionBuilderAtEnd(B, done);
  LLVMBuildRet(B, kv);

  LLVMPositionBuilderAtEnd(B, body);
  for (uint32_t ip = b->first_op + g->nphis[gb];
       ip + 1 < b->first_op + b->n_ops; ip++)
    jit_op(g, &p->ops[ip], ip, gb);
  /* the branch the template proved stays in the loop */
  LLVMValueRef c = LLVMBuildTrunc(B, jit_val(g, br->a), g->i1, "");
  LLVMBasicBlockRef latch = LLVMAppendBasicBlockInContext(g->C, g->F, "latch");
  LLVMBuildCondBr(B, c, stay ? latch : left, stay ? left : latch);
  LLVMPositionBuilderAtEnd(B, left);
  LLVMBuildRet(B, LLVMBuildLoad2(B, g->i64, ctr, ""));
  LLVMPositionBuilderAtEnd(B, latch);
  jit_phi_moves(g, lb, gb);
  LLVMBuildStore(
      B, LLVMBuildAdd(B, LLVMBuildLoad2(B, g->i64, ctr, ""), jit_c64(g, 1), ""),
      ctr);
  LLVMBuildBr(B, head);

  if (g->tpl_exits) {
    LLVMDeleteFunction(g->F);
  } else {
    g->tpl_fns[lb] = g->F;
  }
  g->tpl = false;
  g->F = sv.F;
  g->io = sv.io;
  g->tlb = sv.tlb;
  g->op_flags = sv.op_flags;
  g->mach_made_ip = sv.mach_made_ip;
  for (int k = 0; k < LV_COUNT; k++)
    g->lv[k] = sv.lv[k];
}
