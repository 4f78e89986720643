/* jit.c: a native kernel's frame (kernel.h): its entry, the locals it
 * keeps the engine's counters in, its exits, and which blocks get code.
 * The ops are jit_ops.c's and jit_mem.c's, the calls jit_call.c's; the
 * compile with LLVM's ORC JIT, on a thread beside the engine, is
 * jit_compile.c's.
 *
 * Why. The interpreter runs an op in 5 to 30 ns (bench/results/
 * fast.md); the program's own machine code, which cachegrind runs, in
 * well under one. A kernel is that machine code for the lowered ops,
 * working on the interpreter's state (its slots, its page translation
 * cache, its access batch), so what it computes and emits is what the
 * interpreter would; anything it does not compile it leaves to the
 * interpreter by returning before the op. The identity tests
 * (tests/e2e/fast_identity.py) compare both engines counter for
 * counter. */
#include "fe_internal.h"
#include "jit_gen.h"

#include <stdio.h>
#include <string.h>

LLVMValueRef jit_load(jit_gen *g, LLVMTypeRef ty, LLVMValueRef ptr, int tb) {
  LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
  LLVMSetMetadata(v, g->tbaa_kind, g->tbaa[tb]);
  if (tb == TB_MEM)
    LLVMSetAlignment(v, 1);
  return v;
}

void jit_store(jit_gen *g, LLVMValueRef v, LLVMValueRef ptr, int tb) {
  LLVMValueRef s = LLVMBuildStore(g->B, v, ptr);
  LLVMSetMetadata(s, g->tbaa_kind, g->tbaa[tb]);
  if (tb == TB_MEM)
    LLVMSetAlignment(s, 1);
}

static LLVMTypeRef lv_type(jit_gen *g, int which) {
  switch (which) {
  case LV_PREV:
    return g->i32;
  case LV_SLOTS:
    return g->p64;
  case LV_BATCH:
    return g->p8;
  default:
    return g->i64;
  }
}

LLVMValueRef jit_lv(jit_gen *g, int which) {
  return LLVMBuildLoad2(g->B, lv_type(g, which), g->lv[which], "");
}

void jit_set_lv(jit_gen *g, int which, LLVMValueRef v) {
  LLVMBuildStore(g->B, v, g->lv[which]);
}

static LLVMBasicBlockRef exit_at(jit_gen *g, uint32_t ip, uint32_t block,
                                 bool made, uint32_t k);

LLVMBasicBlockRef jit_exit_before(jit_gen *g, uint32_t ip, uint32_t block) {
  if (g->tpl) {
    g->tpl_exits++;
    return g->tpl_bad;
  }
  /* after the machine-code accesses made before ip: the exit says so */
  bool made = ip == g->mach_made_ip;
  uint32_t k = ip - g->first_op + (made ? g->n_ops + 1 : 0);
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B);
  if (jit_slots_needed(g, ip)) {
    /* the temporaries the interpreter reads from ip on, then the exit */
    LLVMBasicBlockRef out = exit_at(g, ip, block, made, k);
    LLVMBasicBlockRef sp =
        LLVMAppendBasicBlockInContext(g->C, g->F, "exit.slots");
    LLVMPositionBuilderAtEnd(g->B, sp);
    jit_slots_store(g, ip);
    LLVMBuildBr(g->B, out);
    LLVMPositionBuilderAtEnd(g->B, here);
    return sp;
  }
  return exit_at(g, ip, block, made, k);
}

/* The exit before op ip (exits[k]), made once. */
static LLVMBasicBlockRef exit_at(jit_gen *g, uint32_t ip, uint32_t block,
                                 bool made, uint32_t k) {
  if (g->exits[k])
    return g->exits[k];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->C, g->F, "exit");
  LLVMPositionBuilderAtEnd(g->B, bb);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMValueRef ipv =
      LLVMConstInt(g->i32, made ? ip | CB_KERNEL_IP_MACH_MADE : ip, 0);
  LLVMValueRef bv = LLVMConstInt(g->i32, block, 0);
  LLVMAddIncoming(g->exit_ip, &ipv, &bb, 1);
  LLVMAddIncoming(g->exit_block, &bv, &bb, 1);
  LLVMPositionBuilderAtEnd(g->B, here);
  g->exits[k] = bb;
  return bb;
}

LLVMValueRef jit_io_field(jit_gen *g, unsigned f) {
  return LLVMBuildStructGEP2(g->B, g->io_ty, g->io, f, "");
}

/* The io fields each local mirrors. */
static const unsigned lv_field[LV_COUNT] = {
    [LV_NBATCH] = IO_NBATCH,     [LV_BUDGET] = IO_BUDGET,
    [LV_STORES] = IO_STORES,     [LV_BRANCHES] = IO_BRANCHES,
    [LV_SIG_V] = IO_SIG_V,       [LV_SIG_N] = IO_SIG_N,
    [LV_PATH_SIG] = IO_PATH_SIG, [LV_PREV] = IO_PREV,
    [LV_LOADS] = IO_LOADS,       [LV_CFA] = IO_CFA,
    [LV_SLOTS] = IO_SLOTS,       [LV_BATCH] = IO_BATCH,
    [LV_CAP] = IO_CAP,           [LV_STREAM] = IO_STREAM};

void jit_save_locals(jit_gen *g) {
  for (int k = 0; k < LV_WRITTEN; k++)
    jit_store(g, jit_lv(g, k), jit_io_field(g, lv_field[k]), TB_IO);
}

void jit_load_local(jit_gen *g, int which) {
  jit_set_lv(
      g, which,
      jit_load(g, lv_type(g, which), jit_io_field(g, lv_field[which]), TB_IO));
}

void jit_alloc_locals(jit_gen *g) {
  for (int k = 0; k < LV_COUNT; k++)
    g->lv[k] = LLVMBuildAlloca(g->B, lv_type(g, k), "");
}

void jit_load_locals(jit_gen *g) {
  for (int k = 0; k < LV_COUNT; k++)
    jit_load_local(g, k);
}

void jit_load_locals_after_call(jit_gen *g) {
  for (int k = 0; k < LV_COUNT; k++)
    if (k != LV_PREV && k != LV_CFA)
      jit_load_local(g, k);
}

void jit_make_types(jit_gen *g) {
  g->i1 = LLVMInt1TypeInContext(g->C);
  g->i8 = LLVMInt8TypeInContext(g->C);
  g->i16 = LLVMInt16TypeInContext(g->C);
  g->i32 = LLVMInt32TypeInContext(g->C);
  g->i64 = LLVMInt64TypeInContext(g->C);
  g->f64 = LLVMDoubleTypeInContext(g->C);
  g->p8 = LLVMPointerType(g->i8, 0);
  g->p64 = LLVMPointerType(g->i64, 0);
  LLVMTypeRef f[IO_NFIELDS];
  for (unsigned i = 0; i < IO_NFIELDS; i++)
    f[i] = i >= IO_IP ? g->i32 : g->i64;
  f[IO_SLOTS] = g->p64;
  f[IO_TLB] = g->p64; /* pairs of words: pno, data */
  f[IO_STOP] = g->p8;
  f[IO_OP_FLAGS] = g->p8;
  f[IO_COUNTS] = g->p64;
  f[IO_BATCH] = g->p8;
  f[IO_ENGINE] = g->p8;
  f[IO_STACK] = g->p8; /* cb_kernel_stack, by offsetof (jit_call.c) */
  f[IO_KERNELS] = g->p8;
  /* named: the call field's type points back at it */
  g->io_ty = LLVMStructCreateNamed(g->C, "cb_kernel_io");
  LLVMTypeRef pio = LLVMPointerType(g->io_ty, 0);
  g->kernel_ty = LLVMFunctionType(g->i32, &pio, 1, 0);
  g->call_ty = g->kernel_ty;
  f[IO_CALL] = LLVMPointerType(g->call_ty, 0);
  f[IO_RET] = f[IO_CALL];
  f[IO_FLUSH] = f[IO_CALL];
  f[IO_TPL] = f[IO_CALL];
  f[IO_CALLEE] = LLVMPointerType(g->kernel_ty, 0);
  g->page_ty = LLVMFunctionType(g->p8, (LLVMTypeRef[]){g->p8, g->i64}, 2, 0);
  f[IO_PAGE] = LLVMPointerType(g->page_ty, 0);
  f[IO_ENTRIES] = g->p8;
  g->entry_ty =
      LLVMFunctionType(g->i32,
                       (LLVMTypeRef[]){pio, g->p64, g->i32, g->i32, g->i32,
                                       g->i32, g->i32, g->i64},
                       8, 0);
  LLVMStructSetBody(g->io_ty, f, IO_NFIELDS, 0);
  /* scalar type-based alias metadata: a root and one type per kind */
  static const char *const names[TB_COUNT] = {"slot", "mem",   "io",
                                              "tlb",  "table", "batch"};
  g->tbaa_kind = LLVMGetMDKindIDInContext(g->C, "tbaa", 4);
  LLVMMetadataRef root_s = LLVMMDStringInContext2(g->C, "cbana kernel", 12);
  LLVMMetadataRef root = LLVMMDNodeInContext2(g->C, &root_s, 1);
  LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(g->i64, 0, 0));
  for (int t = 0; t < TB_COUNT; t++) {
    LLVMMetadataRef ty_ops[3] = {
        LLVMMDStringInContext2(g->C, names[t], strlen(names[t])), root, zero};
    LLVMMetadataRef ty = LLVMMDNodeInContext2(g->C, ty_ops, 3);
    LLVMMetadataRef tag_ops[3] = {ty, ty, zero};
    g->tbaa[t] =
        LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, tag_ops, 3));
  }
  g->nt_kind = LLVMGetMDKindIDInContext(g->C, "nontemporal", 11);
  LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(g->i32, 1, 0));
  g->nt_node = LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, &one, 1));
  LLVMTypeRef fty =
      LLVMFunctionType(g->f64, (LLVMTypeRef[]){g->f64, g->f64, g->f64}, 3, 0);
  g->fma = LLVMAddFunction(g->M, "llvm.fma.f64", fty);
}

static void gen_free(jit_gen *g) {
  free(g->body);
  free(g->exits);
  free(g->head);
  free(g->need_ops);
  free(g->need_acc);
  g->body = NULL;
  g->exits = NULL;
  g->head = NULL;
  g->need_ops = g->need_acc = NULL;
  jit_slots_free(g);
}

/* Whether block gb's machine-code accesses are ones a kernel makes: not
 * a vararg prologue's vector spills, which depend on the caller's %al,
 * state only the interpreter keeps. An inline sqrt's path
 * (cb_mach_access.sqrt_path) is made after its library call, which the
 * engine runs (io->call) and follows with the accesses of the path it
 * took (engine_frames.h's eng_emit_mach_at): the kernel never makes
 * those itself. */
bool jit_mach_compiled(const cb_program *p, uint32_t gb) {
  const cb_block *b = &p->blocks[gb];
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    if (m->va_xmm)
      return false;
  }
  return true;
}

/* Which blocks get code (those in g->only, but for those jit_mach_compiled
 * refuses) and where they check their room; false when out of memory. */
static bool plan_blocks(jit_gen *g) {
  const cb_function *fn = g->fn;
  uint32_t n = fn->n_blocks;
  bool *has_body = calloc(n + 1, sizeof *has_body);
  g->head = calloc(n + 1, sizeof *g->head);
  g->need_ops = calloc(n + 1, sizeof *g->need_ops);
  g->need_acc = calloc(n + 1, sizeof *g->need_acc);
  if (!has_body || !g->head || !g->need_ops || !g->need_acc) {
    free(has_body);
    return false;
  }
  for (uint32_t lb = 0; lb < n; lb++)
    if ((!g->only || g->only[lb]) &&
        jit_mach_compiled(g->p, fn->first_block + lb)) {
      g->body[lb] = LLVMAppendBasicBlockInContext(g->C, g->F, "b");
      has_body[lb] = true;
    }
  jit_check_points(g->p, fn, g->nphis, has_body, g->head, g->need_ops,
                   g->need_acc);
  free(has_body);
  return true;
}

/* The exit: the locals back into io, and where the interpreter goes on
 * (the phis every exit adds to). */
static void build_leave(jit_gen *g) {
  LLVMBuilderRef B = g->B;
  LLVMPositionBuilderAtEnd(B, g->exit_bb);
  g->exit_ip = LLVMBuildPhi(B, g->i32, "ip");
  g->exit_block = LLVMBuildPhi(B, g->i32, "block");
  jit_save_locals(g);
  jit_store(g, g->exit_ip, jit_io_field(g, IO_IP), TB_IO);
  jit_store(g, g->exit_block, jit_io_field(g, IO_BLOCK), TB_IO);
  LLVMBuildRet(B, LLVMConstInt(g->i32, 0, 0));
}

/* The entry: a switch on the block to start at; a block that does not
 * check its room (jit_check_points) is entered through a check. */
static void build_entries(jit_gen *g, LLVMValueRef blk) {
  const cb_function *fn = g->fn;
  uint32_t entries = 0;
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
    entries += g->body[lb] != NULL;
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(g->C, g->F, "none");
  LLVMValueRef sw = LLVMBuildSwitch(g->B, blk, none, entries);
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
    if (!g->body[lb])
      continue;
    LLVMBasicBlockRef in = g->body[lb];
    if (!g->head[lb]) {
      in = LLVMAppendBasicBlockInContext(g->C, g->F, "enter");
      LLVMPositionBuilderAtEnd(g->B, in);
      jit_check(g, lb);
      LLVMBuildBr(g->B, g->body[lb]);
    }
    LLVMAddCase(sw, LLVMConstInt(g->i32, fn->first_block + lb, 0), in);
  }
  LLVMPositionBuilderAtEnd(g->B, none);
  LLVMBuildRet(g->B, LLVMConstInt(g->i32, 0, 0));
}

bool jit_gen_kernel(jit_gen *g, uint32_t fi) {
  const cb_program *p = g->p;
  const cb_function *fn = &p->functions[fi];
  g->fn = fn;
  uint32_t end;
  cb_function_ops(p, fn, &g->first_op, &end);
  uint32_t n_ops = end - g->first_op;
  g->body = calloc(fn->n_blocks, sizeof *g->body);
  g->n_ops = n_ops;
  g->mach_made_ip = CB_NONE;
  g->icall_args = NULL;
  g->exits = calloc(2 * (n_ops + 1), sizeof *g->exits);
  if (!g->body || !g->exits || !jit_slots_plan(g)) {
    gen_free(g);
    return false;
  }
  char name[32];
  snprintf(name, sizeof name, "cbk%u", fi);
  g->F = LLVMAddFunction(g->M, name, g->kernel_ty);
  g->io = LLVMGetParam(g->F, 0);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMAddAttributeAtIndex(g->F, 1, LLVMCreateEnumAttribute(g->C, noalias, 0));
  /* no call of memset made up from a loop of stores (jit_call.c's
   * zeroing of a callee's slots): the JIT resolves no C library symbols */
  LLVMAddAttributeAtIndex(
      g->F, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(g->C, "no-builtin-memset", 17, "", 0));

  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->C, g->F, "entry");
  g->entry_bb = entry;
  g->exit_bb = LLVMAppendBasicBlockInContext(g->C, g->F, "leave");
  LLVMPositionBuilderAtEnd(g->B, entry);
  g->tlb = jit_load(g, g->p64, jit_io_field(g, IO_TLB), TB_IO);
  g->stop = jit_load(g, g->p8, jit_io_field(g, IO_STOP), TB_IO);
  g->op_flags = jit_load(g, g->p8, jit_io_field(g, IO_OP_FLAGS), TB_IO);
  g->counts = jit_load(g, g->p64, jit_io_field(g, IO_COUNTS), TB_IO);
  jit_alloc_locals(g);
  g->page_out = LLVMBuildAlloca(g->B, g->p8, "");
  jit_load_locals(g);
  LLVMValueRef blk = jit_load(g, g->i32, jit_io_field(g, IO_BLOCK), TB_IO);

  bool ok = plan_blocks(g);
  if (ok) {
    build_leave(g);
    LLVMPositionBuilderAtEnd(g->B, entry);
    build_entries(g, blk);
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
      if (g->body[lb]) {
        LLVMPositionBuilderAtEnd(g->B, g->body[lb]);
        jit_block(g, lb);
      }
    for (uint32_t lb = 0; lb < fn->n_blocks && g->tpl_fns; lb++)
      if (g->body[lb])
        jit_gen_tpl(g, lb);
  } else {
    LLVMDeleteFunction(g->F); /* half made */
  }
  gen_free(g);
  return ok;
}
