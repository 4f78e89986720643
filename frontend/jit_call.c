/* jit_call.c: a kernel's call, `ret` and alloca ops (jit_gen.h).
 *
 * A direct call of a function of the program whose kernel is there, with
 * none of the engine's special cases (byval or variadic arguments, a tail
 * call, accesses the engine counts as the library's), the kernel makes
 * itself: what eng_do_call, eng_push_frame and eng_set_params do
 * (analysis/engine/engine_frames.c) on the engine's frame stack (kernel.h,
 * cb_kernel_stack), then the callee's kernel called directly. Its `ret`
 * pops the frame as eng_pop_frame does and writes the value into the
 * caller's slots. Why: a call through the engine's C (the locals handed
 * over and back, the argument copies, the frame pushed in general form)
 * bound call-heavy programs: kernel_calls' fib 34 took 45 ns a call and
 * return that way, 20 ns natively; BenchmarkGame/recursive's engine
 * 22.8 s, 8.2 s natively (bench/results/engine.md).
 *
 * A call through a pointer finds its callee by address (a table of the
 * program's functions in the module) and has the callee's entry push the
 * frame (kernel.h's io->entries: the push depends on the callee, so each
 * function with a kernel has one beside it), then calls the callee's
 * kernel as a direct call does. Shootout's methcall makes 100 M calls
 * through pointers; through the engine's C they took 28 s of its 36 s
 * of stream generation (bench/results/engine.md).
 *
 * Every check that the engine would answer otherwise (a stack overflow,
 * the frame or slot stack to grow, a return address's page not in the
 * translation cache, the native stack low, no callee kernel yet) sends
 * the call to the engine instead (io->call), which then runs it in full
 * or pushes its frame and has this kernel call the callee's kernel. */
#include "jit_gen.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The type of field `off` bytes into base (a p8), as a pointer. */
static LLVMValueRef ptr_at(jit_gen *g, LLVMValueRef base, LLVMValueRef off,
                           LLVMTypeRef ty) {
  LLVMValueRef q = LLVMBuildGEP2(g->B, g->i8, base, &off, 1, "");
  return LLVMBuildBitCast(g->B, q, LLVMPointerType(ty, 0), "");
}

/* The engine's frame and slot stacks: neither slots nor the program's
 * memory nor io (TB_TABLE: tables the kernels read and write). */
static LLVMValueRef ld_at(jit_gen *g, LLVMValueRef base, uint64_t off,
                          LLVMTypeRef ty) {
  return jit_load(g, ty, ptr_at(g, base, jit_c64(g, off), ty), TB_TABLE);
}

static void st_at(jit_gen *g, LLVMValueRef v, LLVMValueRef base, uint64_t off) {
  jit_store(g, v, ptr_at(g, base, jit_c64(g, off), LLVMTypeOf(v)), TB_TABLE);
}

static LLVMValueRef c32(jit_gen *g, uint32_t v) {
  return LLVMConstInt(g->i32, v, 0);
}

/* Goes to `no` when cond holds; code goes on after it. */
static void fail_if(jit_gen *g, LLVMValueRef cond, LLVMBasicBlockRef no) {
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(g->B, cond, no, ok);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

/* The batch handed over (io->flush) and the next taken. */
static void flush(jit_gen *g) {
  jit_store(g, jit_lv(g, LV_NBATCH), jit_io_field(g, IO_NBATCH), TB_IO);
  LLVMValueRef fn = jit_load(g, LLVMPointerType(g->call_ty, 0),
                             jit_io_field(g, IO_FLUSH), TB_IO);
  LLVMBuildCall2(g->B, g->call_ty, fn, &g->io, 1, "");
  static const int again[] = {LV_NBATCH, LV_BATCH, LV_CAP, LV_STREAM};
  for (unsigned k = 0; k < sizeof again / sizeof again[0]; k++)
    jit_load_local(g, again[k]);
}

/* Room for n records in the batch, a full one handed over first; else
 * to `no` (a sink's area may be smaller than n). */
static void room_or(jit_gen *g, uint64_t n, LLVMBasicBlockRef no) {
  if (n == 0)
    return;
  LLVMBuilderRef B = g->B;
  LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMValueRef room =
      LLVMBuildSub(B, jit_lv(g, LV_CAP), jit_lv(g, LV_NBATCH), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, room, jit_c64(g, n), ""),
                  full, ok);
  LLVMPositionBuilderAtEnd(B, full);
  flush(g);
  fail_if(g,
          LLVMBuildICmp(
              B, LLVMIntULT,
              LLVMBuildSub(B, jit_lv(g, LV_CAP), jit_lv(g, LV_NBATCH), ""),
              jit_c64(g, n), ""),
          no);
  LLVMBuildBr(B, ok);
  LLVMPositionBuilderAtEnd(B, ok);
}

/* One record, the batch handed over first when full (cb_eng_emit's own
 * rule, so the records and their order are the engine's). */
static void emit_checked(jit_gen *g, LLVMValueRef addr, unsigned size,
                         uint32_t site, bool is_write) {
  LLVMBuilderRef B = g->B;
  LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(
      B,
      LLVMBuildICmp(B, LLVMIntEQ, jit_lv(g, LV_NBATCH), jit_lv(g, LV_CAP), ""),
      full, ok);
  LLVMPositionBuilderAtEnd(B, full);
  flush(g);
  LLVMBuildBr(B, ok);
  LLVMPositionBuilderAtEnd(B, ok);
  jit_emit(g, addr, size, site, is_write);
}

/* engine_frames.h's eng_emit_mach_at for block gb at op `at`, with the
 * frame's cfa: on a new frame's entry (at its block's first op; its prev
 * is none, so no access of an edge) or after a call (each record
 * checked: nothing before counted them). The block has code, so none of
 * its accesses is a vararg prologue's (jit_mach_compiled), and an inline
 * sqrt's follow a library call, which is the engine's. Returns the accesses
 * made (entry) as reads and writes. */
static void mach_at(jit_gen *g, uint32_t gb, uint32_t at, LLVMValueRef cfa,
                    bool entry, uint64_t *reads, uint64_t *writes) {
  const cb_program *p = g->p;
  const cb_block *b = &p->blocks[gb];
  LLVMBuilderRef B = g->B;
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    if (m->op > b->first_op ? m->op != at : at != b->first_op)
      continue;
    if (entry && m->from1)
      continue;
    LLVMBasicBlockRef done = NULL;
    if (m->from1) {
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMBuildCondBr(B,
                      LLVMBuildICmp(B, LLVMIntEQ, jit_lv(g, LV_PREV),
                                    c32(g, m->from1 - 1), ""),
                      yes, done);
      LLVMPositionBuilderAtEnd(B, yes);
    }
    LLVMValueRef a =
        m->cfa_offset
            ? LLVMBuildAdd(B, cfa, jit_c64(g, (uint64_t)m->cfa_offset), "")
            : jit_c64(g, m->addr);
    unsigned size = m->size ? m->size : 8;
    if (entry) {
      jit_emit(g, a, size, m->site, m->is_write != 0);
      ++*(m->is_write ? writes : reads);
    } else {
      emit_checked(g, a, size, m->site, m->is_write != 0);
      jit_add_lv(g, m->is_write ? LV_STORES : LV_LOADS, 1);
    }
    if (done) {
      LLVMBuildBr(B, done);
      LLVMPositionBuilderAtEnd(B, done);
    }
  }
}

/* The records a new frame's entry block makes before its first op. */
static uint64_t entry_mach_count(const cb_program *p, uint32_t gb) {
  const cb_block *b = &p->blocks[gb];
  uint64_t n = 0;
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    n += m->op <= b->first_op && !m->from1;
  }
  return n;
}

/* Whether the kernel may push a frame of function fi itself: no body
 * (the engine's error), a variadic callee's register save area, saved
 * registers without their machine-code line, or an entry block whose
 * records a push does not make are the engine's. */
static bool callee_ok(const jit_gen *g, uint32_t fi) {
  const cb_program *p = g->p;
  const cb_function *fn = &p->functions[fi];
  if (fn->n_blocks == 0 || (fn->is_vararg && fn->va_save1))
    return false;
  if (fn->n_saved_regs && (!p->fn_mach || p->fn_mach[fi].entry_site == CB_NONE))
    return false;
  /* the callee's kernel is entered at its first block (kentry), which no
   * loop template stops (only a block that is its own successor is) */
  uint32_t eb = fn->first_block;
  const cb_block *b = &p->blocks[eb];
  if (g->nphis[eb] >= b->n_ops || !jit_mach_compiled(p, eb) ||
      entry_mach_count(p, eb) + 1 + fn->n_saved_regs > JIT_CHECK_MAX_ACCESSES)
    return false;
  for (uint32_t k = 0; k < b->n_succ; k++)
    if (p->succs[b->first_succ + k] == 0)
      return false;
  return true;
}

/* A parameter lane's value: the caller's operand. */
typedef struct param_move {
  uint32_t slot;
  cb_operand src;
} param_move;
#define MAX_MOVES 1024u
#define MAX_ARG_LANES 256u /* eng_do_call's argv_copy */

/* The callee of call op `op` when the kernel makes the call itself
 * (CB_NONE: the engine does), and its parameters' moves: eng_do_call
 * copies each argument's lanes one after another (argv_copy) and
 * eng_set_params reads each parameter's lanes from its argument's first
 * on, which only lanes that were copied may give. *tail: a tail call
 * (the machine code's jump), made natively when the caller's epilogue
 * has its own line (its pops are the caller's reads there). */
static uint32_t native_callee(const jit_gen *g, const cb_op *op, param_move *mv,
                              uint32_t *n_mv, bool *tail) {
  const cb_program *p = g->p;
  const int64_t *x = &p->extra[op->aux];
  uint32_t kind = (uint32_t)x[0], callee = (uint32_t)x[1];
  uint32_t site = (uint32_t)x[2], nargs = (uint32_t)x[3];
  if (kind != CB_CALL_DIRECT || callee >= p->n_functions || nargs > 64 ||
      !callee_ok(g, callee))
    return CB_NONE;
  const cb_function *fn = &p->functions[callee];
  /* a return address, saved registers or, for a tail call, the caller's
   * epilogue that the engine counts as the library's (no machine code
   * told their lines) */
  if (site >= p->n_sites)
    return CB_NONE;
  *tail = p->sites[site].is_tail;
  uint32_t caller = (uint32_t)(g->fn - p->functions);
  if (*tail ? !p->fn_mach || p->fn_mach[caller].exit_site == CB_NONE
            : !p->ra_site || p->ra_site[site] == CB_NONE)
    return CB_NONE;
  cb_operand flat[MAX_ARG_LANES];
  uint32_t start[64], used = 0;
  for (uint32_t k = 0; k < nargs; k++) {
    uint64_t a = (uint64_t)x[4 + k];
    unsigned l = CB_CALL_ARG_LANES(a) ? CB_CALL_ARG_LANES(a) : 1;
    if (CB_CALL_ARG_BYVAL(a) || used + l > MAX_ARG_LANES)
      return CB_NONE;
    start[k] = used;
    for (unsigned i = 0; i < l; i++)
      flat[used + i] = (cb_operand)(CB_CALL_ARG_OPERAND(a) + i);
    used += l;
  }
  uint32_t n = nargs < fn->n_params ? nargs : fn->n_params;
  *n_mv = 0;
  for (uint32_t k = 0; k < n; k++) {
    const cb_param *pa = &p->params[fn->first_param + k];
    unsigned l = pa->lanes ? pa->lanes : 1;
    unsigned lk = CB_CALL_ARG_LANES((uint64_t)x[4 + k]);
    if (lk && lk < l)
      l = lk;
    if (start[k] + l > used || *n_mv + l > MAX_MOVES)
      return CB_NONE;
    for (unsigned i = 0; i < l; i++)
      mv[(*n_mv)++] = (param_move){pa->slot + i, flat[start[k] + i]};
  }
  return callee;
}

/* The host address of the 8 bytes at addr through the translation cache,
 * else to `no`. */
static LLVMValueRef host8(jit_gen *g, LLVMValueRef addr, LLVMBasicBlockRef no) {
  LLVMBuilderRef B = g->B;
  const uint64_t pg = CB_KERNEL_PAGE_SIZE;
  LLVMValueRef off = LLVMBuildAnd(B, addr, jit_c64(g, pg - 1), "");
  LLVMValueRef pno =
      LLVMBuildLShr(B, addr, jit_c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef i0 =
      LLVMBuildShl(B, LLVMBuildAnd(B, pno, jit_c64(g, CB_KERNEL_TLB_N - 1), ""),
                   jit_c64(g, 1), "");
  LLVMValueRef e0 = LLVMBuildGEP2(B, g->i64, g->tlb, &i0, 1, "");
  fail_if(g, LLVMBuildICmp(B, LLVMIntUGT, off, jit_c64(g, pg - 8), ""), no);
  fail_if(g,
          LLVMBuildICmp(B, LLVMIntNE, jit_load(g, g->i64, e0, TB_TLB), pno, ""),
          no);
  LLVMValueRef one = jit_c64(g, 1);
  LLVMValueRef d0 = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
      g->p8, "");
  return LLVMBuildBitCast(B, LLVMBuildGEP2(B, g->i8, d0, &off, 1, ""), g->p64,
                          "");
}

/* The stack pointer of the native code now. */
static LLVMValueRef native_sp(jit_gen *g) {
  LLVMValueRef f = LLVMGetNamedFunction(g->M, "llvm.stacksave");
  LLVMTypeRef ty = LLVMFunctionType(g->p8, NULL, 0, 0);
  if (!f)
    f = LLVMAddFunction(g->M, "llvm.stacksave", ty);
  return LLVMBuildPtrToInt(g->B, LLVMBuildCall2(g->B, ty, f, NULL, 0, ""),
                           g->i64, "");
}

/* n bytes at p (8-aligned, n a multiple of 8) zeroed: a memset of up to
 * 128 bytes x86 makes with stores; a longer one would be a call of
 * memset, a symbol the JIT does not resolve, so a loop of 16-byte stores
 * (which the kernel's no-builtin-memset keeps a loop, jit.c). */
static void zero(jit_gen *g, LLVMValueRef p, uint64_t n) {
  LLVMBuilderRef B = g->B;
  if (n <= 128) {
    LLVMBuildMemSet(B, p, LLVMConstInt(g->i8, 0, 0), jit_c64(g, n), 8);
    return;
  }
  LLVMTypeRef v2 = LLVMVectorType(g->i64, 2);
  LLVMValueRef z2 = LLVMConstNull(v2);
  LLVMValueRef vp = LLVMBuildBitCast(B, p, LLVMPointerType(v2, 0), "");
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(B);
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildBr(B, loop);
  LLVMPositionBuilderAtEnd(B, loop);
  LLVMValueRef i = LLVMBuildPhi(B, g->i64, "");
  LLVMValueRef s = LLVMBuildStore(B, z2, LLVMBuildGEP2(B, v2, vp, &i, 1, ""));
  LLVMSetAlignment(s, 8);
  LLVMValueRef i1 = LLVMBuildAdd(B, i, jit_c64(g, 1), "");
  LLVMValueRef z = jit_c64(g, 0);
  LLVMAddIncoming(i, &z, &pre, 1);
  LLVMAddIncoming(i, &i1, &loop, 1);
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, i1, jit_c64(g, n / 16), ""),
                  loop, done);
  LLVMPositionBuilderAtEnd(B, done);
  if (n % 16) {
    LLVMValueRef last = jit_c64(g, n / 8 - 1);
    LLVMValueRef q = LLVMBuildBitCast(B, p, g->p64, "");
    LLVMValueRef t =
        LLVMBuildStore(B, z, LLVMBuildGEP2(B, g->i64, q, &last, 1, ""));
    LLVMSetAlignment(t, 8);
  }
}

static LLVMValueRef frame_at(jit_gen *g, LLVMValueRef frames,
                             LLVMValueRef idx32) {
  LLVMValueRef off = LLVMBuildMul(g->B, LLVMBuildZExt(g->B, idx32, g->i64, ""),
                                  jit_c64(g, sizeof(cb_frame)), "");
  return LLVMBuildGEP2(g->B, g->i8, frames, &off, 1, "");
}

/* The call a push makes, as values (constants in a kernel's direct call,
 * an entry's parameters for a call through a pointer): the call op
 * (global), its block, its site, the op's dst, and the return address's
 * record (cb_access's second word; unused in a tail call). */
typedef struct push_call {
  LLVMValueRef ip, gb, site, dst, ra_word;
} push_call;

/* eng_do_call, eng_push_frame and eng_set_params for call c of `callee`
 * (native_callee, or an entry's callee), in the kernel: any check that
 * fails goes to `no` before anything changed; else the frame is pushed,
 * its parameters' slots (n_mv of them, dst[i]) set to vals[i], io is the
 * callee's at its first block, and the callee's kernel is returned. A
 * tail call (eng_tail_epilogue first) makes the caller's epilogue's
 * pops, marks the caller's frame tail_done and puts the callee's frame
 * where the caller's was, its return address the caller's own (written
 * again, not emitted). */
static LLVMValueRef native_push(jit_gen *g, const push_call *c, uint32_t callee,
                                bool tail, const uint32_t *dst,
                                LLVMValueRef *vals, uint32_t n_mv,
                                LLVMBasicBlockRef no) {
  const cb_program *p = g->p;
  const cb_function *fn = &p->functions[callee];
  uint32_t in_site = p->fn_mach ? p->fn_mach[callee].entry_site : CB_NONE;
  uint32_t eb = fn->first_block, e_ip = p->blocks[eb].first_op;
  LLVMBuilderRef B = g->B;
  LLVMValueRef st = jit_load(g, g->p8, jit_io_field(g, IO_STACK), TB_IO);
  /* room on the native stack for the callee's kernel (kstack_lo) */
  LLVMValueRef klo = ld_at(g, st, offsetof(cb_kernel_stack, kstack_lo), g->i64);
  fail_if(g, LLVMBuildICmp(B, LLVMIntULE, native_sp(g), klo, ""), no);
  /* the callee's kernel; the frontend's compile may be filling the
   * table (the engine's acquire) */
  LLVMTypeRef kp_ty = LLVMPointerType(g->kernel_ty, 0);
  LLVMValueRef ktab = jit_load(g, g->p8, jit_io_field(g, IO_KERNELS), TB_IO);
  LLVMValueRef k = LLVMBuildLoad2(
      B, kp_ty,
      ptr_at(g, ktab, jit_c64(g, (uint64_t)callee * sizeof(void *)), kp_ty),
      "");
  LLVMSetOrdering(k, LLVMAtomicOrderingAcquire);
  LLVMSetAlignment(k, sizeof(void *));
  fail_if(g, LLVMBuildIsNull(B, k, ""), no);
  /* the frame stack: the depth limit, its room, the caller's frame */
  LLVMValueRef depth = ld_at(g, st, offsetof(cb_kernel_stack, depth), g->i32);
  LLVMValueRef capf =
      ld_at(g, st, offsetof(cb_kernel_stack, capframes), g->i32);
  fail_if(g,
          LLVMBuildICmp(B, LLVMIntUGE, depth, c32(g, CB_KERNEL_MAX_DEPTH), ""),
          no);
  fail_if(g, LLVMBuildICmp(B, LLVMIntUGE, depth, capf, ""), no);
  LLVMValueRef frames = ld_at(g, st, offsetof(cb_kernel_stack, frames), g->p8);
  LLVMValueRef Fp = frame_at(g, frames, LLVMBuildSub(B, depth, c32(g, 1), ""));
  /* a frame that made a tail call pushes no return address */
  fail_if(g,
          LLVMBuildICmp(B, LLVMIntNE,
                        ld_at(g, Fp, offsetof(cb_frame, tail_done), g->i8),
                        LLVMConstInt(g->i8, 0, 0), ""),
          no);
  LLVMValueRef sp = ld_at(
      g, Fp, tail ? offsetof(cb_frame, cfa) : offsetof(cb_frame, sp), g->i64);
  LLVMValueRef fstab =
      ld_at(g, st, offsetof(cb_kernel_stack, frame_size), g->p8);
  LLVMValueRef fs = ld_at(g, fstab, (uint64_t)callee * 8, g->i64);
  LLVMValueRef new_sp = LLVMBuildSub(B, sp, fs, "");
  fail_if(g,
          LLVMBuildICmp(
              B, LLVMIntULT, new_sp,
              ld_at(g, st, offsetof(cb_kernel_stack, stack_lo), g->i64), ""),
          no);
  /* the slot stack's room */
  LLVMValueRef nsl = ld_at(g, st, offsetof(cb_kernel_stack, nslots), g->i64);
  LLVMValueRef caps = ld_at(g, st, offsetof(cb_kernel_stack, capslots), g->i64);
  fail_if(g,
          LLVMBuildICmp(
              B, LLVMIntUGT,
              LLVMBuildAdd(B, nsl, jit_c64(g, (uint64_t)fn->n_slots + 1), ""),
              caps, ""),
          no);
  /* the return address's page */
  LLVMValueRef ra_at = LLVMBuildSub(B, sp, jit_c64(g, 8), "");
  LLVMValueRef ra_host = host8(g, ra_at, no);
  /* the records: the return address, the saved registers, the entry
   * block's before its first op */
  uint64_t n_entry = entry_mach_count(p, eb);
  /* the caller's pops in a tail call (eng_tail_epilogue) */
  const cb_function *cf = g->fn;
  unsigned nr = 0;
  if (tail) {
    nr = cf->n_saved_regs;
    nr -= cf->n_unpopped < nr ? cf->n_unpopped : nr;
  }
  room_or(g, (tail ? nr : 1) + fn->n_saved_regs + n_entry, no);

  /* the call is made from here on */
  jit_set_lv(g, LV_BUDGET,
             LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1), ""));
  /* the caller's place, where the interpreter returns to */
  st_at(g, LLVMBuildAdd(B, c->ip, c32(g, 1), ""), Fp, offsetof(cb_frame, ip));
  st_at(g, c->gb, Fp, offsetof(cb_frame, block));
  st_at(g, jit_lv(g, LV_PREV), Fp, offsetof(cb_frame, prev));
  /* the callee's slots, zeroed (and one past them, as eng_push_frame) */
  LLVMValueRef slots = ld_at(g, st, offsetof(cb_kernel_stack, slots), g->p8);
  LLVMValueRef S = LLVMBuildGEP2(
      B, g->i8, slots,
      (LLVMValueRef[]){LLVMBuildShl(B, nsl, jit_c64(g, 3), "")}, 1, "");
  zero(g, S, ((uint64_t)fn->n_slots + 1) * 8);
  st_at(g, LLVMBuildAdd(B, nsl, jit_c64(g, fn->n_slots), ""), st,
        offsetof(cb_kernel_stack, nslots));
  st_at(g, LLVMBuildAdd(B, depth, c32(g, 1), ""), st,
        offsetof(cb_kernel_stack, depth));
  LLVMValueRef NF = frame_at(g, frames, depth);
  st_at(g, c32(g, callee), NF, offsetof(cb_frame, func));
  st_at(g, LLVMBuildTrunc(B, nsl, g->i32, ""), NF,
        offsetof(cb_frame, slot_base));
  st_at(g, c32(g, eb), NF, offsetof(cb_frame, block));
  st_at(g, c32(g, CB_NONE), NF, offsetof(cb_frame, prev));
  st_at(g, c32(g, e_ip), NF, offsetof(cb_frame, ip));
  st_at(g, c->ip, NF, offsetof(cb_frame, call_op));
  st_at(g, c->site, NF, offsetof(cb_frame, call_site));
  st_at(g, c->dst, NF, offsetof(cb_frame, ret_dst));
  st_at(g, sp, NF, offsetof(cb_frame, cfa));
  st_at(g, new_sp, NF, offsetof(cb_frame, sp));
  /* va_al: the engine's va_al_next, 0 but in a variadic callee's push */
  st_at(g, LLVMConstInt(g->i8, 0, 0), NF, offsetof(cb_frame, va_al));
  st_at(g, LLVMConstInt(g->i8, 0, 0), NF, offsetof(cb_frame, tail_done));
  /* call pushes the return address (the caller's access on the call's
   * line), the prologue the callee-saved registers (the callee's on its
   * first line); a tail call's jump pushes nothing, after the caller's
   * epilogue's pops (its reads on its exit line) */
  uint64_t reads = 0, writes = fn->n_saved_regs;
  if (tail) {
    uint32_t x = p->fn_mach[cf - p->functions].exit_site;
    for (unsigned r = nr; r-- > 0;)
      jit_emit(g, LLVMBuildSub(B, sp, jit_c64(g, 16 + 8 * (uint64_t)r), ""), 8,
               x, false);
    reads += nr;
    st_at(g, LLVMConstInt(g->i8, 1, 0), Fp, offsetof(cb_frame, tail_done));
  }
  jit_store(g, jit_c64(g, CB_KERNEL_RET_ADDR), ra_host, TB_MEM);
  if (!tail) {
    jit_emit_word(g, ra_at, c->ra_word);
    writes++;
  }
  for (unsigned r = 0; r < fn->n_saved_regs; r++)
    jit_emit(g, LLVMBuildSub(B, sp, jit_c64(g, 16 + 8 * (uint64_t)r), ""), 8,
             in_site, true);
  mach_at(g, eb, e_ip, sp, true, &reads, &writes);
  if (writes)
    jit_add_lv(g, LV_STORES, writes);
  if (reads)
    jit_add_lv(g, LV_LOADS, reads);
  LLVMValueRef S64 = LLVMBuildBitCast(B, S, g->p64, "");
  for (uint32_t i = 0; i < n_mv; i++) {
    LLVMValueRef at = jit_c64(g, dst[i]);
    jit_store(g, vals[i], LLVMBuildGEP2(B, g->i64, S64, &at, 1, ""), TB_SLOT);
  }
  /* io as the callee's kernel starts with it */
  jit_save_locals(g);
  jit_store(g, S64, jit_io_field(g, IO_SLOTS), TB_IO);
  jit_store(g, sp, jit_io_field(g, IO_CFA), TB_IO);
  jit_store(g, c32(g, CB_NONE), jit_io_field(g, IO_PREV), TB_IO);
  jit_store(g, c32(g, eb), jit_io_field(g, IO_BLOCK), TB_IO);
  jit_store(g, c32(g, e_ip), jit_io_field(g, IO_IP), TB_IO);
  return k;
}

/* The record of a return address pushed at `site`'s line (jit_emit's
 * second word). */
static uint64_t ra_record(const cb_program *p, uint32_t site) {
  return (uint64_t)p->ra_site[site] | (8ull << 32) | (1ull << 48);
}

/* Calls through pointers pass at most this many arguments to an entry
 * (the kernel's buffer of argument words). */
#define MAX_ICALL_ARGS 16u

typedef struct fn_addr {
  uint64_t addr;
  uint32_t fi;
} fn_addr;

static int cmp_fn_addr(const void *a, const void *b) {
  uint64_t x = ((const fn_addr *)a)->addr, y = ((const fn_addr *)b)->addr;
  return x < y ? -1 : x > y;
}

/* The module's function `i32 find(i64 addr)`: the program's function at
 * code address addr, as the engine's cb_eng_function_at finds it, or
 * CB_NONE (not a function of the program, or an address two functions
 * share, which the engine resolves); NULL when no function has an
 * address. A branch-free binary search over a table of the addresses in
 * the module's constants (the callee of a call through a pointer varies
 * from call to call, methcall's between two methods). */
static LLVMValueRef find_fn(jit_gen *g) {
  if (g->icall_find)
    return g->icall_find;
  const cb_program *p = g->p;
  fn_addr *t = malloc((p->n_functions + 1) * sizeof *t);
  if (!t)
    return NULL;
  uint32_t n = 0, m = 0;
  for (uint32_t f = 0; f < p->n_functions; f++)
    if (p->functions[f].addr)
      t[n++] = (fn_addr){p->functions[f].addr, f};
  qsort(t, n, sizeof *t, cmp_fn_addr);
  for (uint32_t i = 0; i < n; i++)
    if (!(i > 0 && t[i - 1].addr == t[i].addr) &&
        !(i + 1 < n && t[i + 1].addr == t[i].addr))
      t[m++] = t[i];
  if (m == 0) {
    free(t);
    return NULL;
  }
  LLVMValueRef *av = malloc(m * sizeof *av), *iv = malloc(m * sizeof *iv);
  if (!av || !iv) {
    free(t);
    free(av);
    free(iv);
    return NULL;
  }
  for (uint32_t i = 0; i < m; i++) {
    av[i] = jit_c64(g, t[i].addr);
    iv[i] = c32(g, t[i].fi);
  }
  free(t);
  LLVMTypeRef aty = LLVMArrayType(g->i64, m), ity = LLVMArrayType(g->i32, m);
  LLVMValueRef ga = LLVMAddGlobal(g->M, aty, "cbfa");
  LLVMValueRef gi = LLVMAddGlobal(g->M, ity, "cbfi");
  LLVMSetInitializer(ga, LLVMConstArray(g->i64, av, m));
  LLVMSetInitializer(gi, LLVMConstArray(g->i32, iv, m));
  free(av);
  free(iv);
  LLVMValueRef gl[2] = {ga, gi};
  for (int k = 0; k < 2; k++) {
    LLVMSetGlobalConstant(gl[k], 1);
    LLVMSetLinkage(gl[k], LLVMPrivateLinkage);
  }
  LLVMTypeRef fty = LLVMFunctionType(g->i32, &g->i64, 1, 0);
  LLVMValueRef F = LLVMAddFunction(g->M, "cbfind", fty);
  LLVMSetLinkage(F, LLVMPrivateLinkage);
  LLVMBuilderRef B = LLVMCreateBuilderInContext(g->C);
  LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(g->C, F, ""));
  LLVMValueRef a = LLVMGetParam(F, 0);
  LLVMValueRef base = jit_c64(g, 0), z = jit_c64(g, 0);
  for (uint32_t len = m; len > 1; len -= len / 2) {
    LLVMValueRef mid = LLVMBuildAdd(B, base, jit_c64(g, len / 2), "");
    LLVMValueRef v = LLVMBuildLoad2(
        B, g->i64, LLVMBuildGEP2(B, aty, ga, (LLVMValueRef[]){z, mid}, 2, ""),
        "");
    base = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULE, v, a, ""), mid, base,
                           "");
  }
  LLVMValueRef v = LLVMBuildLoad2(
      B, g->i64, LLVMBuildGEP2(B, aty, ga, (LLVMValueRef[]){z, base}, 2, ""),
      "");
  LLVMValueRef fi = LLVMBuildLoad2(
      B, g->i32, LLVMBuildGEP2(B, ity, gi, (LLVMValueRef[]){z, base}, 2, ""),
      "");
  LLVMBuildRet(B, LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, v, a, ""), fi,
                                  c32(g, CB_NONE), ""));
  LLVMDisposeBuilder(B);
  g->icall_find = F;
  return F;
}

/* A call through a pointer at call op ip (global block gb): when the
 * callee is one of the program's functions with an entry (kernel.h's
 * io->entries), the entry pushes its frame and the code goes to
 * `entered` (io the callee's, io->callee its kernel); otherwise to `no`
 * (the engine), with nothing done. False when the call never goes
 * through an entry: byval or wide arguments, a tail call, a return
 * address the engine counts as the library's, too many arguments. */
static bool native_indirect(jit_gen *g, uint32_t ip, uint32_t gb,
                            LLVMBasicBlockRef no, LLVMBasicBlockRef entered) {
  const cb_program *p = g->p;
  const cb_op *op = &p->ops[ip];
  const int64_t *x = &p->extra[op->aux];
  uint32_t site = (uint32_t)x[2], nargs = (uint32_t)x[3];
  if ((uint32_t)x[0] != CB_CALL_INDIRECT || nargs > MAX_ICALL_ARGS ||
      site >= p->n_sites || p->sites[site].is_tail || !p->ra_site ||
      p->ra_site[site] == CB_NONE)
    return false;
  for (uint32_t k = 0; k < nargs; k++)
    if (CB_CALL_ARG_BYVAL(x[4 + k]) || CB_CALL_ARG_LANES(x[4 + k]) > 1)
      return false;
  LLVMValueRef find = find_fn(g);
  if (!find)
    return false;
  LLVMBuilderRef B = g->B;
  if (!g->icall_args) {
    /* in the kernel's entry block, so that a call in a loop takes no
     * more native stack */
    LLVMBuilderRef b2 = LLVMCreateBuilderInContext(g->C);
    LLVMPositionBuilderBefore(
        b2, LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(g->F)));
    g->icall_args =
        LLVMBuildAlloca(b2, LLVMArrayType(g->i64, MAX_ICALL_ARGS), "");
    LLVMDisposeBuilder(b2);
  }
  LLVMValueRef addr = jit_val(g, op->a);
  LLVMValueRef fi =
      LLVMBuildCall2(B, LLVMGlobalGetValueType(find), find, &addr, 1, "");
  fail_if(g, LLVMBuildICmp(B, LLVMIntEQ, fi, c32(g, CB_NONE), ""), no);
  LLVMValueRef tab = jit_load(g, g->p8, jit_io_field(g, IO_ENTRIES), TB_IO);
  fail_if(g, LLVMBuildIsNull(B, tab, ""), no);
  /* the frontend's compile may be filling the table (the engine's
   * acquire, as for the kernels) */
  LLVMTypeRef ep = LLVMPointerType(g->entry_ty, 0);
  LLVMValueRef off = LLVMBuildMul(B, LLVMBuildZExt(B, fi, g->i64, ""),
                                  jit_c64(g, sizeof(void *)), "");
  LLVMValueRef ent = LLVMBuildLoad2(B, ep, ptr_at(g, tab, off, ep), "");
  LLVMSetOrdering(ent, LLVMAtomicOrderingAcquire);
  LLVMSetAlignment(ent, sizeof(void *));
  fail_if(g, LLVMBuildIsNull(B, ent, ""), no);
  LLVMValueRef args = LLVMBuildBitCast(B, g->icall_args, g->p64, "");
  for (uint32_t k = 0; k < nargs; k++) {
    LLVMValueRef at = jit_c64(g, k);
    jit_store(g, jit_val(g, CB_CALL_ARG_OPERAND(x[4 + k])),
              LLVMBuildGEP2(B, g->i64, args, &at, 1, ""), TB_TABLE);
  }
  jit_save_locals(g);
  LLVMValueRef av[8] = {g->io,           args,
                        c32(g, nargs),   c32(g, ip),
                        c32(g, gb),      c32(g, site),
                        c32(g, op->dst), jit_c64(g, ra_record(p, site))};
  LLVMValueRef r = LLVMBuildCall2(B, g->entry_ty, ent, av, 8, "");
  LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r, c32(g, CB_KCALL_ENTERED), ""),
                  entered, back);
  /* declined: a batch it handed over is io's */
  LLVMPositionBuilderAtEnd(B, back);
  jit_load_locals_after_call(g);
  LLVMBuildBr(B, no);
  return true;
}

/* The function at addr in t (n, sorted by address), or CB_NONE. */
static uint32_t fn_at(const fn_addr *t, uint32_t n, uint64_t addr) {
  uint32_t lo = 0, hi = n;
  while (lo < hi) {
    uint32_t mid = lo + (hi - lo) / 2;
    if (t[mid].addr == addr)
      return t[mid].fi;
    if (t[mid].addr < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return CB_NONE;
}

uint8_t *jit_addr_taken(const cb_program *p) {
  uint8_t *taken = calloc(p->n_functions + 1, 1);
  fn_addr *t = malloc((p->n_functions + 1) * sizeof *t);
  if (!taken || !t) {
    free(taken);
    free(t);
    return NULL;
  }
  uint32_t n = 0;
  for (uint32_t f = 0; f < p->n_functions; f++)
    if (p->functions[f].addr)
      t[n++] = (fn_addr){p->functions[f].addr, f};
  qsort(t, n, sizeof *t, cmp_fn_addr);
  for (uint32_t i = 0; n && i < p->n_consts; i++) {
    uint32_t f = fn_at(t, n, p->consts[i].u);
    if (f != CB_NONE)
      taken[f] = 1;
  }
  for (uint32_t g = 0; n && g < p->n_globals; g++) {
    const cb_global *gl = &p->globals[g];
    for (uint64_t off = 0; gl->init && off + 8 <= gl->size; off += 8) {
      uint64_t v;
      memcpy(&v, gl->init + off, 8);
      uint32_t f = fn_at(t, n, v);
      if (f != CB_NONE)
        taken[f] = 1;
    }
  }
  free(t);
  return taken;
}

LLVMValueRef jit_gen_entry(jit_gen *g, uint32_t fi, const char *name) {
  const cb_program *p = g->p;
  const cb_function *fn = &p->functions[fi];
  if (!callee_ok(g, fi) || fn->n_params > MAX_ICALL_ARGS)
    return NULL;
  for (uint32_t k = 0; k < fn->n_params; k++)
    if (p->params[fn->first_param + k].lanes > 1)
      return NULL;
  jit_gen h = *g;
  h.fn = fn;
  h.sl_val = NULL; /* the entry sets no slot of its own frame */
  h.F = LLVMAddFunction(g->M, name, g->entry_ty);
  h.io = LLVMGetParam(h.F, 0);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMAddAttributeAtIndex(h.F, 1, LLVMCreateEnumAttribute(g->C, noalias, 0));
  LLVMAddAttributeAtIndex(
      h.F, LLVMAttributeFunctionIndex,
      LLVMCreateStringAttribute(g->C, "no-builtin-memset", 17, "", 0));
  LLVMBuilderRef B = g->B;
  LLVMBasicBlockRef keep = LLVMGetInsertBlock(B);
  LLVMPositionBuilderAtEnd(B, LLVMAppendBasicBlockInContext(g->C, h.F, ""));
  h.tlb = jit_load(&h, g->p64, jit_io_field(&h, IO_TLB), TB_IO);
  jit_alloc_locals(&h);
  jit_load_locals(&h);
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(g->C, h.F, "");
  push_call c = {LLVMGetParam(h.F, 3), LLVMGetParam(h.F, 4),
                 LLVMGetParam(h.F, 5), LLVMGetParam(h.F, 6),
                 LLVMGetParam(h.F, 7)};
  LLVMValueRef args = LLVMGetParam(h.F, 1), nargs = LLVMGetParam(h.F, 2);
  LLVMValueRef vals[MAX_ICALL_ARGS];
  uint32_t dst[MAX_ICALL_ARGS];
  /* eng_set_params: the parameters the call passes; the others stay 0 */
  for (uint32_t k = 0; k < fn->n_params; k++) {
    LLVMValueRef at = jit_c64(g, k);
    LLVMValueRef v = jit_load(
        &h, g->i64, LLVMBuildGEP2(B, g->i64, args, &at, 1, ""), TB_TABLE);
    vals[k] =
        LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, c32(g, k), nargs, ""),
                        v, jit_c64(g, 0), "");
    dst[k] = p->params[fn->first_param + k].slot;
  }
  LLVMValueRef k = native_push(&h, &c, fi, false, dst, vals, fn->n_params, no);
  jit_store(&h, k, jit_io_field(&h, IO_CALLEE), TB_IO);
  LLVMBuildRet(B, c32(g, CB_KCALL_ENTERED));
  LLVMPositionBuilderAtEnd(B, no);
  jit_save_locals(&h);
  LLVMBuildRet(B, c32(g, CB_KCALL_LEAVE));
  LLVMPositionBuilderAtEnd(B, keep);
  return h.F;
}

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
  /* the engine and a callee read and write the slots themselves; the
   * call's value is in its slot after it */
  jit_slots_spill(g, ip);
  LLVMBasicBlockRef eng = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef enter = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef returned = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef cont = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef entered = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef here = LLVMGetInsertBlock(B);
  LLVMPositionBuilderAtEnd(B, enter);
  LLVMValueRef kphi = LLVMBuildPhi(B, LLVMPointerType(g->kernel_ty, 0), "");
  LLVMPositionBuilderAtEnd(B, here);
  param_move mv[MAX_MOVES];
  uint32_t n_mv = 0;
  bool tail = false;
  uint32_t callee = native_callee(g, &g->p->ops[ip], mv, &n_mv, &tail);
  if (callee != CB_NONE) {
    const cb_op *op = &g->p->ops[ip];
    uint32_t site = (uint32_t)g->p->extra[op->aux + 2];
    push_call c = {c32(g, ip), c32(g, gb), c32(g, site), c32(g, op->dst),
                   jit_c64(g, tail ? 0 : ra_record(g->p, site))};
    LLVMValueRef vals[MAX_MOVES];
    uint32_t dst[MAX_MOVES];
    for (uint32_t i = 0; i < n_mv; i++) {
      dst[i] = mv[i].slot;
      vals[i] = jit_val(g, mv[i].src);
    }
    LLVMValueRef k = native_push(g, &c, callee, tail, dst, vals, n_mv, eng);
    LLVMBasicBlockRef at = LLVMGetInsertBlock(B);
    LLVMAddIncoming(kphi, &k, &at, 1);
    LLVMBuildBr(B, enter);
  } else if (!native_indirect(g, ip, gb, eng, entered)) {
    LLVMBuildBr(B, eng);
  }

  /* the engine runs the call, or pushes the frame of a callee whose
   * kernel this one then calls */
  LLVMPositionBuilderAtEnd(B, eng);
  LLVMValueRef r = jit_call_engine(g, ip, gb, IO_CALL);
  LLVMBasicBlockRef started = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ran = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, r, c32(g, CB_KCALL_LEAVE), ""),
                  jit_exit_before(g, ip, gb), started);
  LLVMPositionBuilderAtEnd(B, started);
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r, c32(g, CB_KCALL_ENTERED), ""),
                  entered, ran);
  /* io is the callee's (the engine's push, or an entry's) */
  LLVMPositionBuilderAtEnd(B, entered);
  LLVMValueRef k = jit_load(g, LLVMPointerType(g->kernel_ty, 0),
                            jit_io_field(g, IO_CALLEE), TB_IO);
  LLVMAddIncoming(kphi, &k, &entered, 1);
  LLVMBuildBr(B, enter);
  /* run in full (the machine-code accesses after it made), or stopped */
  LLVMPositionBuilderAtEnd(B, ran);
  jit_load_locals_after_call(g);
  jit_guard(g, LLVMBuildICmp(B, LLVMIntNE, r, c32(g, CB_KCALL_DONE), ""),
            ip + 1, gb);
  LLVMBuildBr(B, cont);

  /* the callee's kernel, called from here: it returns after its `ret`,
   * or leaves, and then so does this one, at once: io is the callee's,
   * and the frame stack has this frame's place (ip + 1) */
  LLVMPositionBuilderAtEnd(B, enter);
  LLVMValueRef nest = jit_load(g, g->i32, jit_io_field(g, IO_NEST), TB_IO);
  jit_store(g, LLVMBuildAdd(B, nest, c32(g, 1), ""), jit_io_field(g, IO_NEST),
            TB_IO);
  LLVMValueRef r2 = LLVMBuildCall2(B, g->kernel_ty, kphi, &g->io, 1, "");
  jit_store(g, nest, jit_io_field(g, IO_NEST), TB_IO);
  LLVMBasicBlockRef left = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B,
                  LLVMBuildICmp(B, LLVMIntEQ, r2, c32(g, CB_KERNEL_LEFT), ""),
                  left, returned);
  LLVMPositionBuilderAtEnd(B, left);
  LLVMBuildRet(B, c32(g, CB_KERNEL_LEFT));
  /* returned: the value is in this frame's slots (io->slots, which may
   * have moved); the accesses after the call are this kernel's */
  LLVMPositionBuilderAtEnd(B, returned);
  jit_load_locals_after_call(g);
  uint64_t unused_r = 0, unused_w = 0;
  mach_at(g, gb, ip + 1, jit_lv(g, LV_CFA), false, &unused_r, &unused_w);
  LLVMBuildBr(B, cont);

  /* room for the way on to the next check */
  LLVMPositionBuilderAtEnd(B, cont);
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
  LLVMBasicBlockRef full = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMValueRef room =
      LLVMBuildSub(B, jit_lv(g, LV_CAP), jit_lv(g, LV_NBATCH), "");
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntULT, room, jit_c64(g, acc), ""),
                  full, ok);
  LLVMPositionBuilderAtEnd(B, full);
  flush(g);
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

/* eng_pop_frame and eng_kernel_ret for `ret` op ip of a kernel called by
 * a kernel, when the function's epilogue has its own line (exit_site;
 * else the engine's: the library's reads at the call's site): the pops
 * and the return address's read, the value into the caller's slots at
 * the frame's ret_dst, the frame popped, io the caller's. A frame left by
 * a tail call made its pops then, and its callee's `ret` read its return
 * address: it is popped without a read. A batch area too small goes to
 * `no`. */
static void native_ret(jit_gen *g, uint32_t ip, uint32_t x,
                       LLVMBasicBlockRef no) {
  const cb_program *p = g->p;
  const cb_function *fn = g->fn;
  const cb_op *op = &p->ops[ip];
  LLVMBuilderRef B = g->B;
  unsigned nr = fn->n_saved_regs;
  nr -= fn->n_unpopped < nr ? fn->n_unpopped : nr; /* dropped by `add rsp` */
  LLVMValueRef st = jit_load(g, g->p8, jit_io_field(g, IO_STACK), TB_IO);
  LLVMValueRef depth = ld_at(g, st, offsetof(cb_kernel_stack, depth), g->i32);
  LLVMValueRef frames = ld_at(g, st, offsetof(cb_kernel_stack, frames), g->p8);
  LLVMValueRef Fp = frame_at(g, frames, LLVMBuildSub(B, depth, c32(g, 1), ""));
  LLVMBasicBlockRef pops = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef popped = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(
      B,
      LLVMBuildICmp(B, LLVMIntNE,
                    ld_at(g, Fp, offsetof(cb_frame, tail_done), g->i8),
                    LLVMConstInt(g->i8, 0, 0), ""),
      popped, pops);
  LLVMPositionBuilderAtEnd(B, pops);
  room_or(g, nr + 1, no);
  /* the epilogue's pops and ret, the callee's reads on its exit line */
  LLVMValueRef cfa = jit_lv(g, LV_CFA);
  for (unsigned r = nr; r-- > 0;)
    jit_emit(g, LLVMBuildSub(B, cfa, jit_c64(g, 16 + 8 * (uint64_t)r), ""), 8,
             x, false);
  jit_emit(g, LLVMBuildSub(B, cfa, jit_c64(g, 8), ""), 8, x, false);
  jit_add_lv(g, LV_LOADS, nr + 1);
  LLVMBuildBr(B, popped);
  LLVMPositionBuilderAtEnd(B, popped);
  unsigned l = 0;
  if (op->a != CB_NONE && fn->ret_ty != CB_TY_VOID)
    l = fn->ret_lanes ? fn->ret_lanes : 1;
  if (l > 256)
    l = 256;
  LLVMValueRef rv[256];
  for (unsigned i = 0; i < l; i++)
    rv[i] = jit_val(g, (cb_operand)(op->a + i));
  jit_set_lv(g, LV_BUDGET,
             LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1), ""));
  LLVMValueRef slots = ld_at(g, st, offsetof(cb_kernel_stack, slots), g->p8);
  LLVMValueRef Cp = frame_at(g, frames, LLVMBuildSub(B, depth, c32(g, 2), ""));
  LLVMValueRef cbase = LLVMBuildZExt(
      B, ld_at(g, Cp, offsetof(cb_frame, slot_base), g->i32), g->i64, "");
  LLVMValueRef CS = LLVMBuildBitCast(
      B,
      LLVMBuildGEP2(B, g->i8, slots,
                    (LLVMValueRef[]){LLVMBuildShl(B, cbase, jit_c64(g, 3), "")},
                    1, ""),
      g->p64, "");
  if (l) {
    LLVMValueRef dst = ld_at(g, Fp, offsetof(cb_frame, ret_dst), g->i32);
    LLVMBasicBlockRef put = LLVMAppendBasicBlockInContext(g->C, g->F, "");
    LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
    LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntNE, dst, c32(g, CB_NONE), ""),
                    put, done);
    LLVMPositionBuilderAtEnd(B, put);
    LLVMValueRef d64 = LLVMBuildZExt(B, dst, g->i64, "");
    for (unsigned i = 0; i < l; i++) {
      LLVMValueRef at = LLVMBuildAdd(B, d64, jit_c64(g, i), "");
      jit_store(g, rv[i], LLVMBuildGEP2(B, g->i64, CS, &at, 1, ""), TB_SLOT);
    }
    LLVMBuildBr(B, done);
    LLVMPositionBuilderAtEnd(B, done);
  }
  st_at(g,
        LLVMBuildZExt(B, ld_at(g, Fp, offsetof(cb_frame, slot_base), g->i32),
                      g->i64, ""),
        st, offsetof(cb_kernel_stack, nslots));
  st_at(g, LLVMBuildSub(B, depth, c32(g, 1), ""), st,
        offsetof(cb_kernel_stack, depth));
  jit_save_locals(g);
  jit_store(g, CS, jit_io_field(g, IO_SLOTS), TB_IO);
  LLVMBuildRet(B, c32(g, CB_KERNEL_RETURNED));
}

void jit_ret_op(jit_gen *g, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  const cb_program *p = g->p;
  jit_slots_spill(g, ip); /* the engine's `ret` reads the value's slots */
  LLVMValueRef nest = jit_load(g, g->i32, jit_io_field(g, IO_NEST), TB_IO);
  LLVMBasicBlockRef back = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  /* entered by the interpreter: its loop makes the return */
  LLVMBuildCondBr(B, LLVMBuildICmp(B, LLVMIntEQ, nest, c32(g, 0), ""),
                  jit_exit_before(g, ip, gb), back);
  LLVMPositionBuilderAtEnd(B, back);
  uint32_t fi = (uint32_t)(g->fn - p->functions);
  uint32_t x = p->fn_mach ? p->fn_mach[fi].exit_site : CB_NONE;
  LLVMBasicBlockRef eng = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  if (x != CB_NONE)
    native_ret(g, ip, x, eng);
  else
    LLVMBuildBr(B, eng);
  LLVMPositionBuilderAtEnd(B, eng);
  jit_call_engine(g, ip, gb, IO_RET);
  LLVMBuildRet(B, c32(g, CB_KERNEL_RETURNED));
}

/* eng_run's CB_OP_ALLOCA. A fixed object's address is the frame's CFA
 * plus its offset in the engine's layout (cb_kernel_stack.fo_off); a
 * dynamic one (a count) lowers the top frame's sp by count x size,
 * aligned down to the object's alignment and at least 16 (the SysV ABI's
 * stack alignment), as the interpreter does. An alloca past the stack's
 * lowest address is the interpreter's to report: the kernel leaves
 * before it. */
bool jit_alloca_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  const cb_program *p = g->p;
  if (op->aux >= p->n_frame_objs)
    return false;
  LLVMBuilderRef B = g->B;
  LLVMValueRef st = jit_load(g, g->p8, jit_io_field(g, IO_STACK), TB_IO);
  if (op->a == CB_NONE) {
    LLVMValueRef tab = ld_at(g, st, offsetof(cb_kernel_stack, fo_off), g->p8);
    LLVMValueRef off = ld_at(g, tab, (uint64_t)op->aux * 8, g->i64);
    jit_set(g, op->dst, LLVMBuildAdd(B, jit_lv(g, LV_CFA), off, ""));
    return true;
  }
  const cb_frame_obj *o = &p->frame_objs[op->aux];
  uint64_t al = o->align < 16 ? 16 : o->align;
  LLVMValueRef depth = ld_at(g, st, offsetof(cb_kernel_stack, depth), g->i32);
  LLVMValueRef frames = ld_at(g, st, offsetof(cb_kernel_stack, frames), g->p8);
  LLVMValueRef Fp = frame_at(g, frames, LLVMBuildSub(B, depth, c32(g, 1), ""));
  LLVMValueRef sp = ld_at(g, Fp, offsetof(cb_frame, sp), g->i64);
  LLVMValueRef sz = LLVMBuildMul(B, jit_val(g, op->a), jit_c64(g, o->size), "");
  LLVMValueRef lo = ld_at(g, st, offsetof(cb_kernel_stack, stack_lo), g->i64);
  jit_guard(g,
            LLVMBuildICmp(B, LLVMIntUGT, sz, LLVMBuildSub(B, sp, lo, ""), ""),
            ip, gb);
  LLVMValueRef nsp =
      LLVMBuildAnd(B, LLVMBuildSub(B, sp, sz, ""), jit_c64(g, ~(al - 1)), "");
  st_at(g, nsp, Fp, offsetof(cb_frame, sp));
  jit_set(g, op->dst, nsp);
  return true;
}
