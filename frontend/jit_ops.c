/* jit_ops.c: a native kernel's code for one block (jit_gen.h): each op as
 * the interpreter's reference case computes it (analysis/engine_interp.c
 * and engine_scalar.h, the same forms as the fast kinds of
 * analysis/fastops.c), accesses emitted into the interpreter's batch, and
 * the branch with its path-signature run, branch counts and phi moves.
 * Values are the interpreter's 64-bit slot words: integers masked to
 * their type, doubles as their bits. */
#include "jit_gen.h"

#include <stdlib.h>
#include <string.h>

#include "cbana/libc_names.h"

bool jit_op_covered(const cb_program *p, const cb_op *op) {
  unsigned lanes = op->lanes ? op->lanes : 1;
  bool fp = op->ty == CB_TY_F32 || op->ty == CB_TY_F64;
  if (lanes != 1 || op->ty >= CB_TY_COUNT)
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
  case CB_OP_ICMP:
    return !fp;
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR:
  case CB_OP_UDIV:
  case CB_OP_UREM:
  case CB_OP_SDIV:
  case CB_OP_SREM:
    return op->ty >= CB_TY_I1 && op->ty <= CB_TY_I64;
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FCMP:
    return op->ty == CB_TY_F64;
  case CB_OP_SITOFP:
    return op->ty == CB_TY_F64 && op->ty2 < CB_TY_COUNT;
  case CB_OP_SEXT:
    return op->ty2 < CB_TY_COUNT;
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
  case CB_OP_SELECT:
  case CB_OP_MOV:
  case CB_OP_GEP:
    return true;
  case CB_OP_LOAD:
  case CB_OP_STORE:
    return op->ty >= CB_TY_I1 && op->ty != CB_TY_F32;
  case CB_OP_CALL: {
    const int64_t *x = &p->extra[op->aux];
    return x[0] == CB_CALL_INTRINSIC &&
           (x[1] == CB_INTR_FMULADD || x[1] == CB_INTR_FMA) && x[3] == 3 &&
           op->ty == CB_TY_F64 && op->dst != CB_NONE;
  }
  default:
    return false;
  }
}

static LLVMValueRef c64(jit_gen *g, uint64_t v) {
  return LLVMConstInt(g->i64, v, 0);
}

static LLVMValueRef slot_ptr(jit_gen *g, uint32_t slot) {
  LLVMValueRef idx = c64(g, slot);
  return LLVMBuildGEP2(g->B, g->i64, g->slots, &idx, 1, "");
}

static LLVMValueRef val(jit_gen *g, cb_operand o) {
  if (o & CB_OPND_CONST)
    return c64(g, g->p->consts[o & ~CB_OPND_CONST].u);
  return jit_load(g, g->i64, slot_ptr(g, o), TB_SLOT);
}

static void set(jit_gen *g, uint32_t dst, LLVMValueRef v) {
  jit_store(g, v, slot_ptr(g, dst), TB_SLOT);
}

static LLVMValueRef as_f(jit_gen *g, LLVMValueRef v) {
  return LLVMBuildBitCast(g->B, v, g->f64, "");
}

static LLVMValueRef as_u(jit_gen *g, LLVMValueRef v) {
  return LLVMBuildBitCast(g->B, v, g->i64, "");
}

/* engine_scalar.h's sx and sxbits */
static LLVMValueRef sx(jit_gen *g, LLVMValueRef v, unsigned ty) {
  unsigned s = ty < CB_TY_COUNT ? cb_ty_sx_shift(ty) : 0;
  if (s == 0)
    return v;
  return LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, c64(g, s), ""), c64(g, s),
                       "");
}

static LLVMValueRef sxbits(jit_gen *g, LLVMValueRef v, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return v;
  unsigned s = 64 - bits;
  return LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, c64(g, s), ""), c64(g, s),
                       "");
}

static LLVMValueRef mask(jit_gen *g, LLVMValueRef v, unsigned ty) {
  uint64_t m = cb_ty_mask(ty);
  return m == ~0ull ? v : LLVMBuildAnd(g->B, v, c64(g, m), "");
}

/* Leaves before op ip when cond holds; code goes on after it. */
static void guard(jit_gen *g, LLVMValueRef cond, uint32_t ip, uint32_t gb) {
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(g->B, cond, jit_exit_before(g, ip, gb), ok);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

static LLVMValueRef add_lv(jit_gen *g, int which, uint64_t n) {
  LLVMValueRef v = LLVMBuildAdd(g->B, jit_lv(g, which), c64(g, n), "");
  jit_set_lv(g, which, v);
  return v;
}

static void int_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMValueRef a = val(g, op->a), b = val(g, op->b), r;
  unsigned ty = op->ty;
  unsigned bits = ty == CB_TY_I1 ? 1 : cb_ty_bytes((cb_ty)ty) * 8;
  LLVMBuilderRef B = g->B;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
    r = mask(g, LLVMBuildAdd(B, a, b, ""), ty);
    break;
  case CB_OP_SUB:
    r = mask(g, LLVMBuildSub(B, a, b, ""), ty);
    break;
  case CB_OP_MUL:
    r = mask(g, LLVMBuildMul(B, a, b, ""), ty);
    break;
  case CB_OP_AND:
    r = LLVMBuildAnd(B, a, b, "");
    break;
  case CB_OP_OR:
    r = LLVMBuildOr(B, a, b, "");
    break;
  case CB_OP_XOR:
    r = LLVMBuildXor(B, a, b, "");
    break;
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR: {
    LLVMValueRef s = LLVMBuildAnd(B, b, c64(g, bits - 1), "");
    if (op->code == CB_OP_SHL)
      r = LLVMBuildShl(B, a, s, "");
    else if (op->code == CB_OP_LSHR)
      r = LLVMBuildLShr(B, a, s, "");
    else
      r = LLVMBuildAShr(B, sx(g, a, ty), s, "");
    r = mask(g, r, ty);
    break;
  }
  case CB_OP_UDIV:
  case CB_OP_UREM:
    /* a zero divisor is the interpreter's to report */
    guard(g, LLVMBuildICmp(B, LLVMIntEQ, b, c64(g, 0), ""), ip, gb);
    r = op->code == CB_OP_UDIV ? LLVMBuildUDiv(B, a, b, "")
                               : LLVMBuildURem(B, a, b, "");
    r = mask(g, r, ty);
    break;
  default: {
    /* SDIV, SREM: by -1 without the machine's overflow trap */
    LLVMValueRef x = sx(g, a, ty), y = sx(g, b, ty);
    guard(g, LLVMBuildICmp(B, LLVMIntEQ, y, c64(g, 0), ""), ip, gb);
    LLVMValueRef m1 = LLVMBuildICmp(B, LLVMIntEQ, y, c64(g, ~0ull), "");
    LLVMValueRef y1 = LLVMBuildSelect(B, m1, c64(g, 1), y, "");
    if (op->code == CB_OP_SDIV)
      r = LLVMBuildSelect(B, m1, LLVMBuildSub(B, c64(g, 0), x, ""),
                          LLVMBuildSDiv(B, x, y1, ""), "");
    else
      r = LLVMBuildSelect(B, m1, c64(g, 0), LLVMBuildSRem(B, x, y1, ""), "");
    r = mask(g, r, ty);
    break;
  }
  }
  set(g, op->dst, r);
}

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
  LLVMValueRef at = LLVMBuildLShr(B, off, c64(g, 3), "");
  LLVMValueRef sh =
      LLVMBuildTrunc(B, LLVMBuildAnd(B, off, c64(g, 7), ""), i16, "");
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
  LLVMValueRef one = c64(g, 1);
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
  LLVMValueRef off = LLVMBuildAnd(B, addr, c64(g, CB_KERNEL_PAGE_SIZE - 1), "");
  LLVMValueRef pno = LLVMBuildLShr(B, addr, c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef i1 = LLVMBuildMul(
      B, LLVMBuildAnd(B, pno, c64(g, CB_KERNEL_STLB_N - 1), ""), c64(g, 3), "");
  LLVMValueRef s0 = LLVMBuildGEP2(B, g->i64, stlb, &i1, 1, "");
  LLVMValueRef one = c64(g, 1), two = c64(g, 2);
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
   * nothing (load_op), and the shadow's byte would be a cache miss of its
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
  LLVMValueRef ipv = c64(g, ip);
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
  LLVMValueRef off = LLVMBuildAnd(B, addr, c64(g, pg - 1), "");
  LLVMValueRef pno = LLVMBuildLShr(B, addr, c64(g, CB_KERNEL_PAGE_BITS), "");
  LLVMValueRef i0 = LLVMBuildShl(
      B, LLVMBuildAnd(B, pno, c64(g, CB_KERNEL_TLB_N - 1), ""), c64(g, 1), "");
  LLVMValueRef e0 = LLVMBuildGEP2(B, g->i64, g->tlb, &i0, 1, "");
  LLVMValueRef one = c64(g, 1);
  LLVMValueRef cross =
      size > 1 ? LLVMBuildICmp(B, LLVMIntUGT, off, c64(g, pg - size), "")
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
    guard(g, flag_set(g, flags, CB_KERNEL_OP_MAYBE), ip, gb);
  LLVMValueRef d0 = LLVMBuildIntToPtr(
      B, jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, e0, &one, 1, ""), TB_TLB),
      g->p8, "");
  LLVMValueRef pc = LLVMBuildGEP2(B, g->i8, d0, &off, 1, "");
  LLVMBasicBlockRef clean_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);

  LLVMPositionBuilderAtEnd(B, stale);
  if (size > 1)
    guard(g, cross, ip, gb);
  LLVMValueRef in[3];
  LLVMBasicBlockRef from[3];
  unsigned nin = 0;
  if (!is_store) {
    /* an unneeded load on a page of the stale cache: load_op reads
     * nothing, so nothing more to do (pr's gathers from its sliced
     * contrib[], load_loop's from a sliced fill: a helper call each) */
    flags = op_flags(g, ip);
    LLVMValueRef si = LLVMBuildMul(
        B, LLVMBuildAnd(B, pno, c64(g, CB_KERNEL_STLB_N - 1), ""), c64(g, 3),
        "");
    LLVMValueRef in_stlb = LLVMBuildICmp(
        B, LLVMIntEQ,
        jit_load(g, g->i64, LLVMBuildGEP2(B, g->i64, g->stlb, &si, 1, ""),
                 TB_TLB),
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
  LLVMValueRef args[5] = {g->stlb, addr, c64(g, size), flags,
                          LLVMConstInt(g->i1, is_store, 0)};
  LLVMValueRef ps = LLVMBuildCall2(B, fty, fn, args, 5, "");
  guard(g, LLVMBuildIsNull(B, ps, ""), ip, gb);
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
  LLVMValueRef one = c64(g, 1);
  LLVMValueRef w1 = LLVMBuildGEP2(g->B, g->i64, w0, &one, 1, "");
  LLVMValueRef st[2] = {LLVMBuildStore(g->B, addr, w0),
                        LLVMBuildStore(g->B, c64(g, word), w1)};
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
  LLVMValueRef at = LLVMBuildShl(B, n, c64(g, 4), "");
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
  jit_set_lv(g, LV_NBATCH, LLVMBuildAdd(B, n, c64(g, 1), ""));
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
static void load_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned size = cb_ty_bytes((cb_ty)op->ty);
  LLVMValueRef addr = val(g, op->a);
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
    v = LLVMBuildAnd(B, v, c64(g, 1), "");
  LLVMBasicBlockRef rd_end = LLVMGetInsertBlock(B);
  LLVMBuildBr(B, join);
  LLVMPositionBuilderAtEnd(B, join);
  LLVMValueRef phi = LLVMBuildPhi(B, g->i64, "");
  LLVMValueRef in[2] = {v, c64(g, 0)};
  LLVMBasicBlockRef bb[2] = {rd_end, from};
  LLVMAddIncoming(phi, in, bb, 2);
  set(g, op->dst, phi);
  emit(g, addr, size, op->aux, false);
}

static void store_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  unsigned size = cb_ty_bytes((cb_ty)op->ty);
  LLVMValueRef addr = val(g, op->b);
  LLVMValueRef v = val(g, op->a);
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
  add_lv(g, LV_STORES, 1);
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
}

static void gep_op(jit_gen *g, const cb_op *op) {
  const int64_t *x = &g->p->extra[op->aux];
  LLVMValueRef addr =
      LLVMBuildAdd(g->B, val(g, op->a), c64(g, (uint64_t)x[0]), "");
  for (int64_t k = 0; k < x[1]; k++) {
    uint64_t w = (uint64_t)x[2 + 2 * k];
    LLVMValueRef iv =
        sxbits(g, val(g, (cb_operand)(w & 0xffffffffu)), (unsigned)(w >> 32));
    addr = LLVMBuildAdd(
        g->B, addr, LLVMBuildMul(g->B, iv, c64(g, (uint64_t)x[3 + 2 * k]), ""),
        "");
  }
  set(g, op->dst, addr);
}

static void fma_op(jit_gen *g, const cb_op *op) {
  const int64_t *x = &g->p->extra[op->aux];
  LLVMValueRef a[3];
  for (int k = 0; k < 3; k++)
    a[k] = as_f(g, val(g, CB_CALL_ARG_OPERAND((uint64_t)x[4 + k])));
  LLVMValueRef r;
  if (x[1] == CB_INTR_FMA || g->p->fmuladd_fused) {
    LLVMTypeRef fty =
        LLVMFunctionType(g->f64, (LLVMTypeRef[]){g->f64, g->f64, g->f64}, 3, 0);
    r = LLVMBuildCall2(g->B, fty, g->fma, a, 3, "");
  } else {
    /* two roundings, as x86-64's backend without FMA (no contraction:
     * the instructions carry no fast-math flags) */
    r = LLVMBuildFAdd(g->B, LLVMBuildFMul(g->B, a[0], a[1], ""), a[2], "");
  }
  set(g, op->dst, as_u(g, r));
}

static void gen_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  switch ((cb_opcode)op->code) {
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV: {
    LLVMValueRef a = as_f(g, val(g, op->a)), b = as_f(g, val(g, op->b)), r;
    if (op->code == CB_OP_FADD)
      r = LLVMBuildFAdd(B, a, b, "");
    else if (op->code == CB_OP_FSUB)
      r = LLVMBuildFSub(B, a, b, "");
    else if (op->code == CB_OP_FMUL)
      r = LLVMBuildFMul(B, a, b, "");
    else
      r = LLVMBuildFDiv(B, a, b, "");
    set(g, op->dst, as_u(g, r));
    return;
  }
  case CB_OP_ICMP: {
    unsigned pred = op->aux;
    LLVMValueRef a = mask(g, val(g, op->a), op->ty);
    LLVMValueRef b = mask(g, val(g, op->b), op->ty);
    if (pred >= CB_ICMP_SGT) {
      a = sx(g, a, op->ty);
      b = sx(g, b, op->ty);
    }
    LLVMValueRef c =
        LLVMBuildICmp(B, (LLVMIntPredicate)(LLVMIntEQ + (int)pred), a, b, "");
    set(g, op->dst, LLVMBuildZExt(B, c, g->i64, ""));
    return;
  }
  case CB_OP_FCMP: {
    LLVMValueRef c =
        LLVMBuildFCmp(B, (LLVMRealPredicate)op->aux, as_f(g, val(g, op->a)),
                      as_f(g, val(g, op->b)), "");
    set(g, op->dst, LLVMBuildZExt(B, c, g->i64, ""));
    return;
  }
  case CB_OP_SELECT: {
    LLVMValueRef c = LLVMBuildTrunc(B, val(g, op->a), g->i1, "");
    set(g, op->dst, LLVMBuildSelect(B, c, val(g, op->b), val(g, op->c), ""));
    return;
  }
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    set(g, op->dst, mask(g, val(g, op->a), op->ty));
    return;
  case CB_OP_SEXT:
    set(g, op->dst, mask(g, sx(g, val(g, op->a), op->ty2), op->ty));
    return;
  case CB_OP_SITOFP:
    set(g, op->dst,
        as_u(g, LLVMBuildSIToFP(B, sx(g, val(g, op->a), op->ty2), g->f64, "")));
    return;
  case CB_OP_MOV:
    set(g, op->dst, val(g, op->a));
    return;
  case CB_OP_GEP:
    gep_op(g, op);
    return;
  case CB_OP_LOAD:
    load_op(g, op, ip, gb);
    return;
  case CB_OP_STORE:
    store_op(g, op, ip, gb);
    return;
  case CB_OP_CALL:
    fma_op(g, op);
    return;
  default:
    int_op(g, op, ip, gb);
    return;
  }
}

/* h mixed with w: cb_path_sig_mix (program.h) */
static LLVMValueRef sig_mix(jit_gen *g, LLVMValueRef h, LLVMValueRef w) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef t = LLVMBuildAdd(B, w, c64(g, CB_SIG_MIX_ADD), "");
  t = LLVMBuildAdd(B, t, LLVMBuildShl(B, h, c64(g, 6), ""), "");
  t = LLVMBuildAdd(B, t, LLVMBuildLShr(B, h, c64(g, 2), ""), "");
  return LLVMBuildMul(B, LLVMBuildXor(B, h, t, ""), c64(g, CB_SIG_MIX_MUL), "");
}

/* The engine's sig_add(e, v, 1) (analysis/engine_scalar.h): a run of
 * other outcomes that ends is mixed into the signature. */
static void sig_add(jit_gen *g, uint64_t v) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef n = jit_lv(g, LV_SIG_N), sv = jit_lv(g, LV_SIG_V);
  LLVMValueRef ends =
      LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, n, c64(g, 0), ""),
                   LLVMBuildICmp(B, LLVMIntNE, sv, c64(g, v), ""), "");
  LLVMBasicBlockRef flush = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, ends, flush, done);
  LLVMPositionBuilderAtEnd(B, flush);
  LLVMValueRef h = sig_mix(g, sig_mix(g, jit_lv(g, LV_PATH_SIG), sv), n);
  jit_set_lv(g, LV_PATH_SIG, h);
  jit_set_lv(g, LV_SIG_N, c64(g, 0));
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
  jit_set_lv(g, LV_SIG_V, c64(g, v));
  jit_set_lv(g, LV_SIG_N, LLVMBuildAdd(B, jit_lv(g, LV_SIG_N), c64(g, 1), ""));
}

/* The jump from local block lb to local block t over the branch at ip,
 * c its outcome (-1: unconditional), as eng_run()'s CB_OP_BR and jump:
 * the path signature's run, the branch counts, the phi moves (parallel),
 * one operation for the branch and one per phi. */
static void gen_edge(jit_gen *g, uint32_t ip, uint32_t lb, uint32_t t, int c) {
  const cb_program *p = g->p;
  const cb_op *op = &p->ops[ip];
  LLVMBuilderRef B = g->B;
  uint32_t gb = g->fn->first_block + lb, tgb = g->fn->first_block + t;
  uint32_t np = g->nphis[tgb], first = p->blocks[tgb].first_op;
  LLVMBasicBlockRef out = jit_exit_before(g, ip, gb);
  bool ok = g->body[t] != NULL;
  for (uint32_t k = 0; k < np && ok; k++)
    ok = p->ops[first + k].lanes <= 1;
  if (!ok) {
    LLVMBuildBr(B, out);
    return;
  }
  /* a loop template's header is a block that is its own latch
   * (analysis/template.h): only such a target can be marked in stop */
  const cb_block *tb = &p->blocks[tgb];
  bool self = false;
  for (uint32_t k = 0; k < tb->n_succ && !self; k++)
    self = p->succs[tb->first_succ + k] == t;
  if (self) {
    LLVMValueRef tv = c64(g, tgb);
    LLVMValueRef st = jit_load(
        g, g->i8, LLVMBuildGEP2(B, g->i8, g->stop, &tv, 1, ""), TB_TABLE);
    guard(g, LLVMBuildICmp(B, LLVMIntNE, st, LLVMConstInt(g->i8, 0, 0), ""), ip,
          gb);
  }
  if (c >= 0 && op->aux != CB_NONE) {
    uint64_t v = ((uint64_t)op->aux << 8) | (unsigned)c;
    sig_add(g, v);
    add_lv(g, LV_BRANCHES, 1);
    if (op->aux < p->n_branches) {
      LLVMValueRef have = LLVMBuildIsNotNull(B, g->counts, "");
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMBuildCondBr(B, have, yes, done);
      LLVMPositionBuilderAtEnd(B, yes);
      LLVMValueRef k = c64(g, 2 * (uint64_t)op->aux + (c ? 0 : 1));
      LLVMValueRef cp = LLVMBuildGEP2(B, g->i64, g->counts, &k, 1, "");
      jit_store(
          g, LLVMBuildAdd(B, jit_load(g, g->i64, cp, TB_TABLE), c64(g, 1), ""),
          cp, TB_TABLE);
      LLVMBuildBr(B, done);
      LLVMPositionBuilderAtEnd(B, done);
    }
  }
  LLVMValueRef *v = np ? malloc(np * sizeof *v) : NULL;
  for (uint32_t k = 0; k < np; k++) {
    const cb_op *ph = &p->ops[first + k];
    const int64_t *x = &p->extra[ph->aux];
    v[k] = c64(g, 0); /* an edge the phi does not name reads 0 */
    for (int64_t j = 0; j < x[0]; j++)
      if ((uint32_t)x[1 + 2 * j] == lb) {
        v[k] = val(g, (cb_operand)x[2 + 2 * j]);
        break;
      }
  }
  for (uint32_t k = 0; k < np; k++)
    set(g, p->ops[first + k].dst, v[k]);
  free(v);
  jit_set_lv(
      g, LV_BUDGET,
      LLVMBuildSub(B, jit_lv(g, LV_BUDGET), c64(g, 1 + (uint64_t)np), ""));
  jit_set_lv(g, LV_PREV, LLVMConstInt(g->i32, lb, 0));
  LLVMBuildBr(B, g->body[t]);
}

static void gen_br(jit_gen *g, uint32_t ip, uint32_t lb) {
  const cb_program *p = g->p;
  const cb_op *op = &p->ops[ip];
  const cb_block *blk = &p->blocks[g->fn->first_block + lb];
  const uint32_t *su = &p->succs[blk->first_succ];
  if (op->a == CB_NONE) {
    gen_edge(g, ip, lb, su[0], -1);
    return;
  }
  LLVMValueRef c = LLVMBuildTrunc(g->B, val(g, op->a), g->i1, "");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(g->B, c, yes, no);
  LLVMPositionBuilderAtEnd(g->B, yes);
  gen_edge(g, ip, lb, su[0], 1);
  LLVMPositionBuilderAtEnd(g->B, no);
  gen_edge(g, ip, lb, su[1], 0);
}

void jit_check(jit_gen *g, uint32_t lb) {
  uint32_t gb = g->fn->first_block + lb;
  uint32_t start = g->p->blocks[gb].first_op + g->nphis[gb];
  LLVMBuilderRef B = g->B;
  LLVMValueRef room = LLVMBuildSub(B, g->cap, jit_lv(g, LV_NBATCH), "");
  guard(g,
        LLVMBuildOr(
            B,
            LLVMBuildICmp(B, LLVMIntULT, jit_lv(g, LV_BUDGET),
                          c64(g, g->need_ops[lb]), ""),
            LLVMBuildICmp(B, LLVMIntULT, room, c64(g, g->need_acc[lb]), ""),
            ""),
        start, gb);
}

void jit_block(jit_gen *g, uint32_t lb) {
  const cb_program *p = g->p;
  uint32_t gb = g->fn->first_block + lb;
  const cb_block *b = &p->blocks[gb];
  uint32_t start = b->first_op + g->nphis[gb], end = b->first_op + b->n_ops;
  LLVMBuilderRef B = g->B;
  /* room for the way ahead, up to the next check (jit_check_points) */
  if (g->head[lb])
    jit_check(g, lb);
  for (uint32_t ip = start; ip < end; ip++) {
    const cb_op *op = &p->ops[ip];
    if (op->code == CB_OP_BR) {
      gen_br(g, ip, lb);
      return;
    }
    if (!jit_op_covered(p, op)) {
      LLVMBuildBr(B, jit_exit_before(g, ip, gb));
      return;
    }
    gen_op(g, op, ip, gb);
    jit_set_lv(g, LV_BUDGET,
               LLVMBuildSub(B, jit_lv(g, LV_BUDGET), c64(g, 1), ""));
  }
  /* lowering ends every block with a terminator, and the loop above
   * returns at it */
  LLVMBuildUnreachable(B);
}
