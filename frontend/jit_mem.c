/* jit_mem.c: a kernel's loads and stores (jit_gen.h): the modelled
 * address translated through the engine's translation caches (the pages
 * with a stale shadow through a helper), the value read or written, and
 * the access's record emitted into the batch. */
#include "jit_gen.h"

#include <string.h>

static LLVMValueRef c8(jit_gen *g, unsigned v) {
  return LLVMConstInt(g->i8, v & 0xff, 0);
}

static LLVMValueRef flag_set(jit_gen *g, LLVMValueRef flags, unsigned bit) {
  return LLVMBuildICmp(g->B, LLVMIntNE,
                       LLVMBuildAnd(g->B, flags, c8(g, bit), ""), c8(g, 0), "");
}

/* The shadow of a page with one: reads whether any of bytes off ..
 * off + size - 1 is stale (mark < 0), or marks them stale (mark 1) or
 * exact (mark 0), as fastloop.c's fl_stale_bytes and the reference
 * case's cb_mem_stale_mark do. The bytes span one or two bitmap bytes
 * (size <= 8; no page crossing). */
static LLVMValueRef shadow(jit_gen *g, LLVMValueRef bits, LLVMValueRef off,
                           LLVMValueRef size, LLVMValueRef mark) {
  LLVMBuilderRef B = g->B;
  LLVMTypeRef i16 = g->i16;
  LLVMValueRef at = LLVMBuildLShr(B, off, jit_c64(g, 3), "");
  LLVMValueRef sh =
      LLVMBuildTrunc(B, LLVMBuildAnd(B, off, jit_c64(g, 7), ""), i16, "");
  LLVMValueRef sz = LLVMBuildTrunc(B, size, i16, "");
  LLVMValueRef full =
      LLVMBuildSub(B, LLVMBuildShl(B, LLVMConstInt(i16, 1, 0), sz, ""),
                   LLVMConstInt(i16, 1, 0), "");
  LLVMValueRef m = LLVMBuildShl(B, full, sh, "");
  LLVMValueRef lo = LLVMBuildTrunc(B, m, g->i8, "");
  LLVMValueRef hi = LLVMBuildTrunc(
      B, LLVMBuildLShr(B, m, LLVMConstInt(i16, 8, 0), ""), g->i8, "");
  /* the second byte only when the bytes reach it: the first byte of the
   * last eight is the bitmap's last */
  LLVMValueRef two = LLVMBuildICmp(B, LLVMIntNE, hi, c8(g, 0), "");
  LLVMValueRef p0 = LLVMBuildGEP2(B, g->i8, bits, &at, 1, "");
  LLVMValueRef one = jit_c64(g, 1);
  LLVMValueRef p1 =
      LLVMBuildSelect(B, two, LLVMBuildGEP2(B, g->i8, p0, &one, 1, ""), p0, "");
  LLVMValueRef b0 = jit_load(g, g->i8, p0, TB_TABLE);
  LLVMValueRef b1 = jit_load(g, g->i8, p1, TB_TABLE);
  if (!mark) {
    LLVMValueRef any = LLVMBuildOr(B, LLVMBuildAnd(B, b0, lo, ""),
                                   LLVMBuildAnd(B, b1, hi, ""), "");
    return LLVMBuildICmp(B, LLVMIntNE, any, c8(g, 0), "");
  }
  /* p1 first: when it is p0, it writes p0's old byte back */
  LLVMValueRef v = LLVMBuildSelect(B, mark, c8(g, 0xff), c8(g, 0), "");
  jit_store(g,
            LLVMBuildOr(B, LLVMBuildAnd(B, b1, LLVMBuildNot(B, hi, ""), ""),
                        LLVMBuildAnd(B, v, hi, ""), ""),
            p1, TB_TABLE);
  jit_store(g,
            LLVMBuildOr(B, LLVMBuildAnd(B, b0, LLVMBuildNot(B, lo, ""), ""),
                        LLVMBuildAnd(B, v, lo, ""), ""),
            p0, TB_TABLE);
  return NULL;
}

/* Page pno's entry in the stale cache (cb_kernel_stale_page: pno, data,
 * bits). */
static LLVMValueRef stlb_entry(jit_gen *g, LLVMValueRef stlb,
                               LLVMValueRef pno) {
  LLVMValueRef i = LLVMBuildMul(
      g->B, LLVMBuildAnd(g->B, pno, jit_c64(g, CB_KERNEL_STLB_N - 1), ""),
      jit_c64(g, 3), "");
  return LLVMBuildGEP2(g->B, g->i64, stlb, &i, 1, "");
}

/* The module's helper for accesses to pages with a shadow (stale bytes):
 *   i8 *stale(i64 *stlb, i64 addr, i64 size, i8 flags,
 *             i1 is_store)
 * the host pointer, or null where the kernel must leave the access to the
 * interpreter: a page in no translation cache, a needed load of a stale
 * byte. A store marks its bytes stale (a maybe-garbage value) or exact.
 * Out of line, as it is rare (only sliced runs have such pages) and
 * copies of it in every access made pr's kernel take 0.27 s to compile
 * instead of 0.17; it touches only the memory its arguments point to, so
 * the kernel's slot values stay in registers across the call. */
static LLVMValueRef stale_helper(jit_gen *g, LLVMTypeRef *fty) {
  LLVMTypeRef args[5] = {g->p64, g->i64, g->i64, g->i8, g->i1};
  *fty = LLVMFunctionType(g->p8, args, 5, 0);
  if (g->stale_fn)
    return g->stale_fn;
  LLVMBuilderRef B = g->B;
  LLVMBasicBlockRef here = LLVMGetInsertBlock(B);
  LLVMValueRef fn = LLVMAddFunction(g->M, "cbk_stale", *fty);
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  static const char *const attrs[] = {"argmemonly", "nounwind", "noinline",
                                      "willreturn"};
  for (unsigned k = 0; k < 4; k++)
    LLVMAddAttributeAtIndex(
        fn, LLVMAttributeFunctionIndex,
        LLVMCreateEnumAttribute(
            g->C, LLVMGetEnumAttributeKindForName(attrs[k], strlen(attrs[k])),
            0));
  LLVMValueRef stlb = LLVMGetParam(fn, 0);
  LLVMValueRef addr = LLVMGetParam(fn, 1), size = LLVMGetParam(fn, 2);
  LLVMValueRef flags = LLVMGetParam(fn, 3), is_store = LLVMGetParam(fn, 4);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef found = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef store = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef load = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef check = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, fn, "");
  LLVMPositionBuilderAtEnd(B, none);
  LLVMBuildRet(B, LLVMConstNull(g->p8));

  LLVMPositionBuilderAtEnd(B, entry);
  LLVMValueRef off =
      LLVMBuildAnd(B, addr, jit_c64(g, CB_KERNEL_PAGE_SIZE - 1), "");
  LLVMValueRef pno =
      LLVMBuildLShr(B, addr, jit_c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef s0 = stlb_entry(g, stlb, pno);
  LLVMValueRef one = jit_c64(g, 1), two = jit_c64(g, 2);
  LLVMBuildCondBr(
      B, LLVMBuildICmp(B, LLVMIntEQ, jit_load(g, g->i64, s0, TB_TLB), pno, ""),
      found, none);

  LLVMPositionBuilderAtEnd(B, found);
  LLVMValueRef data = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, s0, &one, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef bits = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, s0, &two, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef pp = LLVMBuildGEP2(B, g->i8, data, &off, 1, "");
  LLVMBuildCondBr(B, is_store, store, load);

  LLVMPositionBuilderAtEnd(B, store);
  shadow(g, bits, off, size, flag_set(g, flags, CB_KERNEL_OP_MAYBE));
  LLVMBuildRet(B, pp);

  /* only a needed load looks at the shadow: an unneeded one reads
   * nothing (jit_load_op), and the shadow's byte would be a cache miss of its
   * own where the loads are random */
  LLVMPositionBuilderAtEnd(B, load);
  LLVMBuildCondBr(B, flag_set(g, flags, CB_KERNEL_OP_NEED), check, ok);
  LLVMPositionBuilderAtEnd(B, check);
  LLVMBuildCondBr(B, shadow(g, bits, off, size, NULL), none, ok);
  LLVMPositionBuilderAtEnd(B, ok);
  LLVMBuildRet(B, pp);

  LLVMPositionBuilderAtEnd(B, here);
  g->stale_fn = fn;
  return fn;
}

static LLVMValueRef op_flags(jit_gen *g, uint32_t ip) {
  LLVMValueRef ipv = jit_c64(g, ip);
  return jit_load(
      g, g->i8, LLVMBuildGEP2(g->B, g->i8, g->op_flags, &ipv, 1, ""), TB_TABLE);
}

/* The host pointer of an access of `size` bytes at addr by op ip, leaving
 * before the op for a page crossing, a page in neither translation
 * cache, a needed load of a stale byte, a store of a maybe-garbage value
 * to a page without a shadow (marking it makes one). A store's flags
 * (CB_KERNEL_OP_*) are `flags`; a load reads its own on the slow path.
 * The common case, a page in the translation cache and no crossing, is
 * one branch. */
static LLVMValueRef translate(jit_gen *g, LLVMValueRef addr, unsigned size,
                              uint32_t ip, uint32_t gb, LLVMValueRef flags,
                              bool is_store) {
  LLVMBuilderRef B = g->B;
  const uint64_t pg = CB_KERNEL_PAGE_SIZE;
  LLVMValueRef off = LLVMBuildAnd(B, addr, jit_c64(g, pg - 1), "");
  LLVMValueRef pno =
      LLVMBuildLShr(B, addr, jit_c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef i0 =
      LLVMBuildShl(B, LLVMBuildAnd(B, pno, jit_c64(g, CB_KERNEL_TLB_N - 1), ""),
                   jit_c64(g, 1), "");
  LLVMValueRef e0 = LLVMBuildGEP2(B, g->i64, g->tlb, &i0, 1, "");
  LLVMValueRef one = jit_c64(g, 1);
  LLVMValueRef cross =
      size > 1 ? LLVMBuildICmp(B, LLVMIntUGT, off, jit_c64(g, pg - size), "")
               : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef hit = LLVMBuildAnd(
      B, LLVMBuildICmp(B, LLVMIntEQ, jit_load(g, g->i64, e0, TB_TLB), pno, ""),
      LLVMBuildNot(B, cross, ""), "");
  LLVMBasicBlockRef clean = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef stale = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, hit, clean, stale);

  LLVMPositionBuilderAtEnd(B, clean);
  if (is_store)
    jit_guard(g, flag_set(g, flags, CB_KERNEL_OP_MAYBE), ip, gb);
  LLVMValueRef d0 = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef pc = LLVMBuildGEP2(B, g->i8, d0, &off, 1, "");
  LLVMBasicBlockRef clean_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);

  LLVMPositionBuilderAtEnd(B, stale);
  if (size > 1)
    jit_guard(g, cross, ip, gb);
  LLVMValueRef in[3];
  LLVMBasicBlockRef from[3];
  unsigned nin = 0;
  if (!is_store) {
    /* an unneeded load on a page of the stale cache: jit_load_op reads
     * nothing, so nothing more to do (pr's gathers from its sliced
     * contrib[], load_loop's from a sliced fill: a helper call each) */
    flags = op_flags(g, ip);
    LLVMValueRef in_stlb = LLVMBuildICmp(
        B, LLVMIntEQ, jit_load(g, g->i64, stlb_entry(g, g->stlb, pno), TB_TLB),
        pno, "");
    LLVMBasicBlockRef call = LLVMAppendBasicBlockInContext(g->C, g->F, "");
    in[nin] = LLVMConstNull(g->p8);
    from[nin++] = LLVMGetInsertBlock(B);
    LLVMBuildCondBr(
        B,
        LLVMBuildAnd(B, in_stlb,
                     LLVMBuildNot(B, flag_set(g, flags, CB_KERNEL_OP_NEED), ""),
                     ""),
        join, call);
    LLVMPositionBuilderAtEnd(B, call);
  }
  LLVMTypeRef fty;
  LLVMValueRef fn = stale_helper(g, &fty);
  LLVMValueRef args[5] = {g->stlb, addr, jit_c64(g, size), flags,
                          LLVMConstInt(g->i1, is_store, 0)};
  LLVMValueRef ps = LLVMBuildCall2(B, fty, fn, args, 5, "");
  jit_guard(g, LLVMBuildIsNull(B, ps, ""), ip, gb);
  in[nin] = ps;
  from[nin++] = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);

  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef pp = LLVMBuildPhi(B, g->p8, "");
  in[nin] = pc;
  from[nin++] = clean_end;
  LLVMAddIncoming(pp, in, from, nin);
  return pp;
}

/* The record's two words at w0, with non-temporal stores or plain. */
static void store_record(jit_gen *g, LLVMValueRef w0, LLVMValueRef addr,
                         uint64_t word, bool nt) {
  LLVMValueRef one = jit_c64(g, 1);
  LLVMValueRef w1 = LLVMBuildGEP2(g->B, g->i64, w0, &one, 1, "");
  LLVMValueRef st[2] = {LLVMBuildStore(g->B, addr, w0),
                        LLVMBuildStore(g->B, jit_c64(g, word), w1)};
  for (int k = 0; k < 2; k++) {
    LLVMSetMetadata(st[k], g->tbaa_kind, g->tbaa[TB_BATCH]);
    if (nt)
      LLVMSetMetadata(st[k], g->nt_kind, g->nt_node);
  }
}

/* One record into the batch (room was checked at the block's start):
 * cb_access's words, addr then site | size << 32 | is_write << 48.
 * Records another core reads (io->stream_records: the simulation's
 * thread) go with non-temporal stores: written plainly, each line of the
 * ring was fetched back from that core's cache before the write, and pr's
 * engine took 1.06 s instead of 0.82 (bench/results/fast_notes.md,
 * session 14). Records this thread simulates itself stay plain (in its
 * cache: 0.72 s, non-temporal 0.82). The branch goes the same way all
 * through a run. */
static void emit(jit_gen *g, LLVMValueRef addr, unsigned size, uint32_t site,
                 bool is_write) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef n = jit_lv(g, LV_NBATCH);
  LLVMValueRef at = LLVMBuildShl(B, n, jit_c64(g, 4), "");
  LLVMValueRef rec = LLVMBuildGEP2(B, g->i8, g->batch, &at, 1, "");
  LLVMValueRef w0 = LLVMBuildBitCast(B, rec, g->p64, "");
  uint64_t word = (uint64_t)site | ((uint64_t)size << 32) |
                  ((uint64_t)(is_write ? 1 : 0) << 48);
  LLVMBasicBlockRef nt = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef plain = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, g->stream, nt, plain);
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
    return g->i32;
  default:
    return g->i64;
  }
}

/* A load whose value nothing needs (slicing: the op's flags lack
 * CB_KERNEL_OP_NEED) reads nothing, its value garbage (0), which slicing
 * counts on (slice.h: unneeded loads may be garbage): the read was all
 * the time of load_loop's random gathers, a host cache miss each. The
 * translation stays, for the faults and the stale pages it finds. */
void jit_load_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned size = cb_ty_bytes((cb_ty)op->ty);
  LLVMValueRef addr = jit_val(g, op->a);
  LLVMValueRef pp = translate(g, addr, size, ip, gb, NULL, false);
  LLVMTypeRef mt = mem_type(g, op->ty);
  LLVMBasicBlockRef rd = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef join = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef from = LLVMGetInsertBlock(B);
  LLVMBuildCondBr(B, flag_set(g, op_flags(g, ip), CB_KERNEL_OP_NEED), rd, join);
  LLVMPositionBuilderAtEnd(B, rd);
  LLVMValueRef ptr = LLVMBuildBitCast(B, pp, LLVMPointerType(mt, 0), "");
  LLVMValueRef v = jit_load(g, mt, ptr, TB_MEM);
  if (mt != g->i64)
    v = LLVMBuildZExt(B, v, g->i64, "");
  if (op->ty == CB_TY_I1)
    v = LLVMBuildAnd(B, v, jit_c64(g, 1), "");
  LLVMBasicBlockRef rd_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, g->i64, "");
  LLVMValueRef in[2] = {v, jit_c64(g, 0)};
  LLVMBasicBlockRef bb[2] = {rd_end, from};
  LLVMAddIncoming(phi, in, bb, 2);
  jit_set(g, op->dst, phi);
  emit(g, addr, size, op->aux, false);
}

void jit_store_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned size = cb_ty_bytes((cb_ty)op->ty);
  LLVMValueRef addr = jit_val(g, op->b);
  LLVMValueRef v = jit_val(g, op->a);
  LLVMValueRef f = op_flags(g, ip);
  LLVMValueRef pp = translate(g, addr, size, ip, gb, f, true);
  LLVMTypeRef mt = mem_type(g, op->ty);
  LLVMValueRef ptr = LLVMBuildBitCast(B, pp, LLVMPointerType(mt, 0), "");
  jit_store(g, mt == g->i64 ? v : LLVMBuildTrunc(B, v, mt, ""), ptr, TB_MEM);
  /* a store folded into its load (x86 read-modify-write) is no access of
   * its own (the interpreter's rule; the flags are the run's) */
  LLVMValueRef folded = flag_set(g, f, CB_KERNEL_OP_FOLDED);
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, folded, done, yes);
  LLVMPositionBuilderAtEnd(B, yes);
  emit(g, addr, size, op->aux, true);
  jit_add_lv(g, LV_STORES, 1);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
}
