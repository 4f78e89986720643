/* jit_mem.c: a kernel's loads and stores (jit_gen.h): the modelled
 * address translated through the engine's translation cache, the value
 * read or written, and the access's record emitted into the batch. */
#include "jit_gen.h"

#include <stdlib.h>
#include <string.h>

static LLVMValueRef c8(jit_gen *g, unsigned v) {
  return LLVMConstInt(g->i8, v & 0xff, 0);
}

static LLVMValueRef flag_set(jit_gen *g, LLVMValueRef flags, unsigned bit) {
  return LLVMBuildICmp(g->B, LLVMIntNE,
                       LLVMBuildAnd(g->B, flags, c8(g, bit), ""), c8(g, 0), "");
}

static LLVMValueRef op_flags(jit_gen *g, uint32_t ip) {
  LLVMValueRef ipv = jit_c64(g, ip);
  return jit_load(
      g, g->i8, LLVMBuildGEP2(g->B, g->i8, g->op_flags, &ipv, 1, ""), TB_TABLE);
}

/* The translation cache's look at an access of `size` bytes at addr:
 * true (i1) when its page is cached and it stays inside it; *off is its
 * offset in the page, *entry the cache entry (page number, host page). */
static LLVMValueRef tlb_probe(jit_gen *g, LLVMValueRef addr, unsigned size,
                              LLVMValueRef *off_out, LLVMValueRef *entry) {
  LLVMBuilderRef B = g->B;
  const uint64_t pg = CB_KERNEL_PAGE_SIZE;
  LLVMValueRef off = LLVMBuildAnd(B, addr, jit_c64(g, pg - 1), "");
  LLVMValueRef pno =
      LLVMBuildLShr(B, addr, jit_c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef i0 =
      LLVMBuildShl(B, LLVMBuildAnd(B, pno, jit_c64(g, CB_KERNEL_TLB_N - 1), ""),
                   jit_c64(g, 1), "");
  LLVMValueRef e0 = LLVMBuildGEP2(B, g->i64, g->tlb, &i0, 1, "");
  LLVMValueRef cross =
      size > 1 ? LLVMBuildICmp(B, LLVMIntUGT, off, jit_c64(g, pg - size), "")
               : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef hit = LLVMBuildAnd(
      B, LLVMBuildICmp(B, LLVMIntEQ, jit_load(g, g->i64, e0, TB_TLB), pno, ""),
      LLVMBuildNot(B, cross, ""), "");
  *off_out = off;
  *entry = e0;
  return hit;
}

/* The module's call of io->page, made once: the engine's C function,
 * called from a function that keeps every general register but r11
 * (LLVM's preserve_most convention), so that the kernel's values stay in
 * their registers across the rare look-up. Its arguments: io, the
 * address, the access's size, where to write the host address (NULL for
 * an access across two pages, which the interpreter makes); it returns
 * nothing, as preserve_most restores rax too, over a value returned
 * there. */
static LLVMValueRef page_thunk(jit_gen *g) {
  LLVMValueRef f = LLVMGetNamedFunction(g->M, "cbana.page");
  if (f)
    return f;
  LLVMTypeRef pio = LLVMPointerType(g->io_ty, 0);
  g->thunk_ty = LLVMFunctionType(
      LLVMVoidTypeInContext(g->C),
      (LLVMTypeRef[]){pio, g->i64, g->i64, LLVMPointerType(g->p8, 0)}, 4, 0);
  f = LLVMAddFunction(g->M, "cbana.page", g->thunk_ty);
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMSetFunctionCallConv(f, LLVMPreserveMostCallConv);
  static const char *const attrs[] = {"noinline", "cold", "nounwind"};
  for (unsigned k = 0; k < 3; k++)
    LLVMAddAttributeAtIndex(
        f, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            g->C, LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k])),
            0));
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B);
  LLVMBasicBlockRef top = LLVMAppendBasicBlockInContext(g->C, f, "");
  LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(g->C, f, "");
  LLVMBasicBlockRef cross = LLVMAppendBasicBlockInContext(g->C, f, "");
  LLVMValueRef addr = LLVMGetParam(f, 1), out = LLVMGetParam(f, 3);
  LLVMPositionBuilderAtEnd(g->B, top);
  LLVMValueRef end = LLVMBuildAdd(
      g->B, LLVMBuildAnd(g->B, addr, jit_c64(g, CB_KERNEL_PAGE_SIZE - 1), ""),
      LLVMGetParam(f, 2), "");
  LLVMBuildCondBr(
      g->B,
      LLVMBuildICmp(g->B, LLVMIntUGT, end, jit_c64(g, CB_KERNEL_PAGE_SIZE), ""),
      cross, body);
  LLVMPositionBuilderAtEnd(g->B, cross);
  LLVMBuildStore(g->B, LLVMConstNull(g->p8), out);
  LLVMBuildRetVoid(g->B);
  LLVMPositionBuilderAtEnd(g->B, body);
  LLVMValueRef io = LLVMGetParam(f, 0);
  LLVMValueRef fn =
      LLVMBuildLoad2(g->B, LLVMPointerType(g->page_ty, 0),
                     LLVMBuildStructGEP2(g->B, g->io_ty, io, IO_PAGE, ""), "");
  LLVMValueRef eng = LLVMBuildLoad2(
      g->B, g->p8, LLVMBuildStructGEP2(g->B, g->io_ty, io, IO_ENGINE, ""), "");
  LLVMValueRef r =
      LLVMBuildCall2(g->B, g->page_ty, fn, (LLVMValueRef[]){eng, addr}, 2, "");
  LLVMBuildStore(g->B, r, out);
  LLVMBuildRetVoid(g->B);
  LLVMPositionBuilderAtEnd(g->B, here);
  return f;
}

/* The host pointer of an access of `size` bytes at addr by op ip. A page
 * the translation cache misses is looked up by the engine (io->page, the
 * interpreter's own look-up, which caches it) in a kernel made at -O1; the
 * kernel leaves before
 * the op for a page crossing or a page not mapped (the interpreter then
 * takes the access: its copy across pages, or the fault). One branch on
 * the way that hits. The look-up's blocks cost the -O1 compile some time
 * (nbench's kernels, --wait-kernels: 7.2 to 7.9 s against 6.7 to 7.1
 * without, on the shared machine). */
static LLVMValueRef translate(jit_gen *g, LLVMValueRef addr, unsigned size,
                              uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef off, e0, one = jit_c64(g, 1);
  LLVMValueRef hit = tlb_probe(g, addr, size, &off, &e0);
  if (g->quick) {
    /* -O0's kernel leaves instead: the look-up's blocks at every access
     * made nbench's first compiles half as long again (8.2 to 12.5 s of
     * the compile thread), while the interpreter ran on */
    jit_guard(g, LLVMBuildNot(B, hit, ""), ip, gb);
    LLVMValueRef d0 = LLVMBuildIntToPtr(
        B,
        jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
        g->p8, "");
    return LLVMBuildGEP2(B, g->i8, d0, &off, 1, "");
  }
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef miss = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, hit, fast, miss);
  LLVMPositionBuilderAtEnd(B, fast);
  LLVMValueRef d0 = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef pf = LLVMBuildGEP2(B, g->i8, d0, &off, 1, "");
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, miss);
  LLVMValueRef th = page_thunk(g);
  LLVMValueRef c = LLVMBuildCall2(
      B, g->thunk_ty, th,
      (LLVMValueRef[]){g->io, addr, jit_c64(g, size), g->page_out}, 4, "");
  LLVMSetInstructionCallConv(c, LLVMPreserveMostCallConv);
  LLVMValueRef ps = LLVMBuildLoad2(B, g->p8, g->page_out, "");
  jit_guard(g, LLVMBuildIsNull(B, ps, ""), ip, gb);
  LLVMBasicBlockRef miss_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef pp = LLVMBuildPhi(B, g->p8, "");
  LLVMAddIncoming(pp, (LLVMValueRef[]){pf, ps},
                  (LLVMBasicBlockRef[]){fast, miss_end}, 2);
  return pp;
}

/* translate's for a loop template's iterations (g->tpl), which never
 * leave: an access the translation cache misses, or that crosses a page,
 * goes through g->tpl_buf, read into it first for a load (is_load), and
 * *slow says so (a store then writes the buffer out: tpl_write_back). */
static LLVMValueRef translate_tpl(jit_gen *g, LLVMValueRef addr, unsigned size,
                                  bool is_load, LLVMValueRef *slow) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef off, e0, one = jit_c64(g, 1);
  LLVMValueRef hit = tlb_probe(g, addr, size, &off, &e0);
  LLVMBasicBlockRef fast = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef miss = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, hit, fast, miss);
  LLVMPositionBuilderAtEnd(B, fast);
  LLVMValueRef d0 = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef pf = LLVMBuildGEP2(B, g->i8, d0, &off, 1, "");
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, miss);
  if (is_load) {
    LLVMValueRef args[5] = {g->tpl_engine, addr, g->tpl_buf, jit_c64(g, size),
                            jit_c64(g, 0)};
    LLVMBuildCall2(B, g->tpl_access_ty, g->tpl_access, args, 5, "");
  }
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef pp = LLVMBuildPhi(B, g->p8, "");
  LLVMAddIncoming(pp, (LLVMValueRef[]){pf, g->tpl_buf},
                  (LLVMBasicBlockRef[]){fast, miss}, 2);
  *slow = LLVMBuildPhi(B, g->i1, "");
  LLVMAddIncoming(
      *slow,
      (LLVMValueRef[]){LLVMConstInt(g->i1, 0, 0), LLVMConstInt(g->i1, 1, 0)},
      (LLVMBasicBlockRef[]){fast, miss}, 2);
  return pp;
}

/* A loop template's store through the buffer (translate_tpl's slow)
 * written out to the model. */
static void tpl_write_back(jit_gen *g, LLVMValueRef slow, LLVMValueRef addr,
                           unsigned size) {
  LLVMBuilderRef B = g->B;
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, slow, yes, done);
  LLVMPositionBuilderAtEnd(B, yes);
  LLVMValueRef args[5] = {g->tpl_engine, addr, g->tpl_buf, jit_c64(g, size),
                          jit_c64(g, 1)};
  LLVMBuildCall2(B, g->tpl_access_ty, g->tpl_access, args, 5, "");
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
}

/* The record's two words at w0, with non-temporal stores or plain. */
static void store_record(jit_gen *g, LLVMValueRef w0, LLVMValueRef addr,
                         LLVMValueRef word, bool nt) {
  LLVMValueRef one = jit_c64(g, 1);
  LLVMValueRef w1 = LLVMBuildGEP2(g->B, g->i64, w0, &one, 1, "");
  LLVMValueRef st[2] = {LLVMBuildStore(g->B, addr, w0),
                        LLVMBuildStore(g->B, word, w1)};
  for (int k = 0; k < 2; k++) {
    LLVMSetMetadata(st[k], g->tbaa_kind, g->tbaa[TB_BATCH]);
    if (nt)
      LLVMSetMetadata(st[k], g->nt_kind, g->nt_node);
  }
}

/* One record into the batch (room was checked before):
 * cb_access's words, addr then site | size << 32 | is_write << 48.
 * Records another core reads (io->stream_records: the simulation's
 * thread) go with non-temporal stores: written plainly, each line of the
 * ring was fetched back from that core's cache before the write, and pr's
 * engine took 1.06 s instead of 0.82 (bench/results/fast_notes.md).
 * Records this thread simulates itself stay plain (in its cache: 0.72 s,
 * non-temporal 0.82). The branch goes the same way all through a run,
 * but for a batch handed over inside the kernel (io->flush). */
void jit_emit(jit_gen *g, LLVMValueRef addr, unsigned size, uint32_t site,
              bool is_write) {
  uint64_t word = (uint64_t)site | ((uint64_t)size << 32) |
                  ((uint64_t)(is_write ? 1 : 0) << 48);
  jit_emit_word(g, addr, jit_c64(g, word));
}

void jit_emit_word(jit_gen *g, LLVMValueRef addr, LLVMValueRef word) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef n = jit_lv(g, LV_NBATCH);
  LLVMValueRef at = LLVMBuildShl(B, n, jit_c64(g, 4), "");
  LLVMValueRef rec = LLVMBuildGEP2(B, g->i8, jit_lv(g, LV_BATCH), &at, 1, "");
  LLVMValueRef w0 = LLVMBuildBitCast(B, rec, g->p64, "");
  LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(
      B, LLVMBuildICmp(B, LLVMIntNE, jit_lv(g, LV_STREAM), jit_c64(g, 0), ""),
      nt, plain);
  LLVMPositionBuilderAtEnd(B, nt);
  store_record(g, w0, addr, word, true);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, plain);
  store_record(g, w0, addr, word, false);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
  jit_set_lv(g, LV_NBATCH, LLVMBuildAdd(B, n, jit_c64(g, 1), ""));
}

static LLVMTypeRef mem_type(jit_gen *g, unsigned ty) {
  switch (ty) {
  case CB_TY_I1:
  case CB_TY_I8:
    return g->i8;
  case CB_TY_I16:
    return g->i16;
  case CB_TY_I32:
  case CB_TY_F32: /* its bits: the low half of the slot word */
    return g->i32;
  default:
    return g->i64;
  }
}

/* Where the machine code's access of op ip starts (program->op_access). */
static LLVMValueRef access_at(jit_gen *g, LLVMValueRef addr, uint32_t ip) {
  int64_t off = cb_op_access_off(g->p, ip);
  return off ? LLVMBuildAdd(g->B, addr, jit_c64(g, (uint64_t)off), "") : addr;
}

/* A scalar, or a vector's lanes one after another, as one access of
 * lanes x bytes (engine_interp.c's CB_OP_LOAD and CB_OP_STORE). */
void jit_load_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned l = op->lanes ? op->lanes : 1;
  unsigned bytes = cb_ty_bytes((cb_ty)op->ty), size = bytes * l;
  LLVMValueRef addr = jit_val(g, op->a), slow = NULL;
  LLVMValueRef pp = g->tpl ? translate_tpl(g, addr, size, true, &slow)
                           : translate(g, addr, size, ip, gb);
  LLVMTypeRef mt = mem_type(g, op->ty);
  for (unsigned i = 0; i < l; i++) {
    LLVMValueRef off = jit_c64(g, (uint64_t)i * bytes);
    LLVMValueRef ptr =
        LLVMBuildBitCast(B, LLVMBuildGEP2(B, g->i8, pp, &off, 1, ""),
                         LLVMPointerType(mt, 0), "");
    LLVMValueRef v = jit_load(g, mt, ptr, TB_MEM);
    if (mt != g->i64)
      v = LLVMBuildZExt(B, v, g->i64, "");
    if (op->ty == CB_TY_I1)
      v = LLVMBuildAnd(B, v, jit_c64(g, 1), "");
    jit_set(g, op->dst + i, v);
  }
  if (g->tpl)
    return; /* the template emitted its accesses */
  /* merged with its neighbours by the backend (program->op_access) */
  unsigned acc = cb_op_access_bytes(g->p, ip, size);
  if (acc) {
    jit_emit(g, access_at(g, addr, ip), acc, op->aux, false);
    jit_add_lv(g, LV_LOADS, 1);
  }
}

void jit_store_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned l = op->lanes ? op->lanes : 1;
  unsigned bytes = cb_ty_bytes((cb_ty)op->ty), size = bytes * l;
  LLVMValueRef addr = jit_val(g, op->b), slow = NULL;
  LLVMValueRef pp = g->tpl ? translate_tpl(g, addr, size, false, &slow)
                           : translate(g, addr, size, ip, gb);
  LLVMValueRef f = g->tpl ? NULL : op_flags(g, ip);
  LLVMTypeRef mt = mem_type(g, op->ty);
  for (unsigned i = 0; i < l; i++) {
    LLVMValueRef v = jit_val(g, (cb_operand)(op->a + i));
    LLVMValueRef off = jit_c64(g, (uint64_t)i * bytes);
    LLVMValueRef ptr =
        LLVMBuildBitCast(B, LLVMBuildGEP2(B, g->i8, pp, &off, 1, ""),
                         LLVMPointerType(mt, 0), "");
    jit_store(g, mt == g->i64 ? v : LLVMBuildTrunc(B, v, mt, ""), ptr, TB_MEM);
  }
  if (g->tpl) {
    tpl_write_back(g, slow, addr, size);
    return; /* the template emitted its accesses */
  }
  unsigned acc = cb_op_access_bytes(g->p, ip, size);
  if (!acc)
    return; /* merged into a neighbour's access (program->op_access) */
  /* a store folded into its load (x86 read-modify-write) is no access of
   * its own (the interpreter's rule; the flags are the run's) */
  LLVMValueRef folded = flag_set(g, f, CB_KERNEL_OP_FOLDED);
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, folded, done, yes);
  LLVMPositionBuilderAtEnd(B, yes);
  jit_emit(g, access_at(g, addr, ip), acc, op->aux, true);
  jit_add_lv(g, LV_STORES, 1);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
}

/* engine_frames.h's eng_emit_mach_at: an access on entry or before op
 * `at`; one of an edge (from1) only when control came over that edge. */
void jit_mach(jit_gen *g, uint32_t gb, uint32_t at, uint32_t from) {
  const cb_program *p = g->p;
  const cb_block *b = &p->blocks[gb];
  LLVMBuilderRef B = g->B;
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    if (m->op > b->first_op ? m->op != at : at != b->first_op)
      continue;
    if (m->from1 && from != CB_NONE && m->from1 - 1 != from)
      continue;
    LLVMBasicBlockRef done = NULL;
    if (m->from1 && from == CB_NONE) {
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMValueRef on =
          LLVMBuildICmp(B, LLVMIntEQ, jit_lv(g, LV_PREV),
                        LLVMConstInt(g->i32, m->from1 - 1, 0), "");
      LLVMBuildCondBr(B, on, yes, done);
      LLVMPositionBuilderAtEnd(B, yes);
    }
    LLVMValueRef a = m->cfa_offset
                         ? LLVMBuildAdd(B, jit_lv(g, LV_CFA),
                                        jit_c64(g, (uint64_t)m->cfa_offset), "")
                         : jit_c64(g, m->addr);
    jit_emit(g, a, m->size ? m->size : 8, m->site, m->is_write != 0);
    jit_add_lv(g, m->is_write ? LV_STORES : LV_LOADS, 1);
    if (done) {
      LLVMBuildBr(B, done);
      LLVMPositionBuilderAtEnd(B, done);
    }
  }
}
