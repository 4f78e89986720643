/* jit_ops.c: a native kernel's code for one block (jit_gen.h): each op as
 * the interpreter's reference case computes it (analysis/engine/engine_interp.c
 * and engine_scalar.h): the scalar integer forms here, the floating-point,
 * vector and intrinsic forms in jit_ops_fp.c, jit_ops_vec.c and
 * jit_ops_intr.c, a lane-wise vector op lane by lane as its scalar form,
 * the loads and stores in jit_mem.c; and the branch or switch with its
 * path-signature run, branch counts and phi moves.
 * Values are the interpreter's 64-bit slot words: integers masked to
 * their type, doubles as their bits. */
#include "jit_gen.h"

#include <stdlib.h>

bool jit_op_covered(const cb_program *p, const cb_op *op) {
  if (jit_ext_covered(p, op))
    return true;
  if (jit_lanewise(p, op)) {
    cb_op one = *op;
    one.lanes = 1;
    return jit_op_covered(p, &one);
  }
  unsigned lanes = op->lanes ? op->lanes : 1;
  bool fp = op->ty == CB_TY_F32 || op->ty == CB_TY_F64;
  if (op->ty >= CB_TY_COUNT)
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
  case CB_OP_ICMP:
    return !fp && lanes == 1;
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR:
  case CB_OP_UDIV:
  case CB_OP_UREM:
  case CB_OP_SDIV:
  case CB_OP_SREM:
    return op->ty >= CB_TY_I1 && op->ty <= CB_TY_I64 && lanes == 1;
  case CB_OP_SEXT:
    return op->ty2 < CB_TY_COUNT && lanes == 1;
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
  case CB_OP_SELECT:
  case CB_OP_MOV:
  case CB_OP_GEP:
    return lanes == 1;
  case CB_OP_LOAD:
  case CB_OP_STORE:
    /* a vector's lanes are one access (engine_interp.c) */
    return op->ty >= CB_TY_I1 && op->ty != CB_TY_F80 &&
           (uint64_t)lanes * cb_ty_bytes((cb_ty)op->ty) <= 2048;
  default:
    return false;
  }
}

/* engine_scalar.h's sx and sxbits */
static LLVMValueRef sx(jit_gen *g, LLVMValueRef v, unsigned ty) {
  unsigned s = ty < CB_TY_COUNT ? cb_ty_sx_shift(ty) : 0;
  if (s == 0)
    return v;
  return LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, jit_c64(g, s), ""),
                       jit_c64(g, s), "");
}

static LLVMValueRef sxbits(jit_gen *g, LLVMValueRef v, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return v;
  unsigned s = 64 - bits;
  return LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, jit_c64(g, s), ""),
                       jit_c64(g, s), "");
}

static LLVMValueRef mask(jit_gen *g, LLVMValueRef v, unsigned ty) {
  uint64_t m = cb_ty_mask(ty);
  return m == ~0ull ? v : LLVMBuildAnd(g->B, v, jit_c64(g, m), "");
}

static void int_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMValueRef a = jit_val(g, op->a), b = jit_val(g, op->b), r;
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
    LLVMValueRef s = LLVMBuildAnd(B, b, jit_c64(g, bits - 1), "");
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
    jit_guard(g, LLVMBuildICmp(B, LLVMIntEQ, b, jit_c64(g, 0), ""), ip, gb);
    r = op->code == CB_OP_UDIV ? LLVMBuildUDiv(B, a, b, "")
                               : LLVMBuildURem(B, a, b, "");
    r = mask(g, r, ty);
    break;
  default: {
    /* SDIV, SREM: by -1 without the machine's overflow trap */
    LLVMValueRef x = sx(g, a, ty), y = sx(g, b, ty);
    jit_guard(g, LLVMBuildICmp(B, LLVMIntEQ, y, jit_c64(g, 0), ""), ip, gb);
    LLVMValueRef m1 = LLVMBuildICmp(B, LLVMIntEQ, y, jit_c64(g, ~0ull), "");
    LLVMValueRef y1 = LLVMBuildSelect(B, m1, jit_c64(g, 1), y, "");
    if (op->code == CB_OP_SDIV)
      r = LLVMBuildSelect(B, m1, LLVMBuildSub(B, jit_c64(g, 0), x, ""),
                          LLVMBuildSDiv(B, x, y1, ""), "");
    else
      r = LLVMBuildSelect(B, m1, jit_c64(g, 0), LLVMBuildSRem(B, x, y1, ""),
                          "");
    r = mask(g, r, ty);
    break;
  }
  }
  jit_set(g, op->dst, r);
}

static void gep_op(jit_gen *g, const cb_op *op) {
  const int64_t *x = &g->p->extra[op->aux];
  LLVMValueRef addr =
      LLVMBuildAdd(g->B, jit_val(g, op->a), jit_c64(g, (uint64_t)x[0]), "");
  for (int64_t k = 0; k < x[1]; k++) {
    uint64_t w = (uint64_t)x[2 + 2 * k];
    LLVMValueRef iv = sxbits(g, jit_val(g, (cb_operand)(w & 0xffffffffu)),
                             (unsigned)(w >> 32));
    addr = LLVMBuildAdd(
        g->B, addr,
        LLVMBuildMul(g->B, iv, jit_c64(g, (uint64_t)x[3 + 2 * k]), ""), "");
  }
  jit_set(g, op->dst, addr);
}

static void gen_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  LLVMBuilderRef B = g->B;
  if (jit_ext_covered(g->p, op)) {
    jit_ext_op(g, op, ip);
    return;
  }
  if (jit_lanewise(g->p, op)) {
    /* lane by lane, in the interpreter's order */
    for (unsigned i = 0; i < op->lanes; i++) {
      cb_op one = *op;
      one.lanes = 1;
      one.dst = op->dst + i;
      one.a = op->a + i;
      if (op->b != CB_NONE)
        one.b = op->b + i;
      gen_op(g, &one, ip, gb);
    }
    return;
  }
  switch ((cb_opcode)op->code) {
  case CB_OP_ICMP: {
    unsigned pred = op->aux;
    LLVMValueRef a = mask(g, jit_val(g, op->a), op->ty);
    LLVMValueRef b = mask(g, jit_val(g, op->b), op->ty);
    if (pred >= CB_ICMP_SGT) {
      a = sx(g, a, op->ty);
      b = sx(g, b, op->ty);
    }
    LLVMValueRef c =
        LLVMBuildICmp(B, (LLVMIntPredicate)(LLVMIntEQ + (int)pred), a, b, "");
    jit_set(g, op->dst, LLVMBuildZExt(B, c, g->i64, ""));
    return;
  }
  case CB_OP_SELECT: {
    LLVMValueRef c = LLVMBuildTrunc(B, jit_val(g, op->a), g->i1, "");
    jit_set(g, op->dst,
            LLVMBuildSelect(B, c, jit_val(g, op->b), jit_val(g, op->c), ""));
    return;
  }
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    jit_set(g, op->dst, mask(g, jit_val(g, op->a), op->ty));
    return;
  case CB_OP_SEXT:
    jit_set(g, op->dst, mask(g, sx(g, jit_val(g, op->a), op->ty2), op->ty));
    return;
  case CB_OP_MOV:
    jit_set(g, op->dst, jit_val(g, op->a));
    return;
  case CB_OP_GEP:
    gep_op(g, op);
    return;
  case CB_OP_LOAD:
    jit_load_op(g, op, ip, gb);
    return;
  case CB_OP_STORE:
    jit_store_op(g, op, ip, gb);
    return;
  default:
    int_op(g, op, ip, gb);
    return;
  }
}

void jit_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb) {
  gen_op(g, op, ip, gb);
}

/* cb_path_sig_run (program.h): the run (v, n) mixed into h. */
static LLVMValueRef sig_run(jit_gen *g, LLVMValueRef h, LLVMValueRef v,
                            LLVMValueRef n) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef w = LLVMBuildAdd(
      B, LLVMBuildMul(B, v, jit_c64(g, CB_SIG_RUN_MUL), ""), n, "");
  LLVMValueRef x = LLVMBuildMul(B, LLVMBuildXor(B, h, w, ""),
                                jit_c64(g, CB_SIG_MIX_MUL), "");
  return LLVMBuildOr(B, LLVMBuildShl(B, x, jit_c64(g, CB_SIG_MIX_ROT), ""),
                     LLVMBuildLShr(B, x, jit_c64(g, 64 - CB_SIG_MIX_ROT), ""),
                     "");
}

/* The engine's sig_add(e, v, 1) (analysis/engine/engine_scalar.h): a run of
 * other outcomes that ends is mixed into the signature. */
static void sig_add(jit_gen *g, uint64_t v) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef n = jit_lv(g, LV_SIG_N), sv = jit_lv(g, LV_SIG_V);
  LLVMValueRef ends =
      LLVMBuildAnd(B, LLVMBuildICmp(B, LLVMIntNE, n, jit_c64(g, 0), ""),
                   LLVMBuildICmp(B, LLVMIntNE, sv, jit_c64(g, v), ""), "");
  LLVMBasicBlockRef flush = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, ends, flush, done);
  LLVMPositionBuilderAtEnd(B, flush);
  LLVMValueRef h = sig_run(g, jit_lv(g, LV_PATH_SIG), sv, n);
  jit_set_lv(g, LV_PATH_SIG, h);
  jit_set_lv(g, LV_SIG_N, jit_c64(g, 0));
  LLVMBuildBr(B, done);
  LLVMPositionBuilderAtEnd(B, done);
  jit_set_lv(g, LV_SIG_V, jit_c64(g, v));
  jit_set_lv(g, LV_SIG_N,
             LLVMBuildAdd(B, jit_lv(g, LV_SIG_N), jit_c64(g, 1), ""));
}

void jit_phi_moves(jit_gen *g, uint32_t lb, uint32_t tgb) {
  const cb_program *p = g->p;
  uint32_t np = g->nphis[tgb], first = p->blocks[tgb].first_op, nl = 0;
  for (uint32_t k = 0; k < np; k++)
    nl += p->ops[first + k].lanes > 1 ? p->ops[first + k].lanes : 1;
  LLVMValueRef *val = malloc((nl + 1) * sizeof *val);
  if (!val)
    abort();
  uint32_t at = 0;
  for (uint32_t k = 0; k < np; k++) {
    const cb_op *ph = &p->ops[first + k];
    const int64_t *x = &p->extra[ph->aux];
    unsigned l = ph->lanes > 1 ? ph->lanes : 1;
    cb_operand src = CB_NONE; /* an edge the phi does not name reads 0 */
    for (int64_t j = 0; j < x[0]; j++)
      if ((uint32_t)x[1 + 2 * j] == lb) {
        src = (cb_operand)x[2 + 2 * j];
        break;
      }
    for (unsigned i = 0; i < l; i++)
      val[at++] =
          src == CB_NONE ? jit_c64(g, 0) : jit_val(g, (cb_operand)(src + i));
  }
  at = 0;
  for (uint32_t k = 0; k < np; k++) {
    const cb_op *ph = &p->ops[first + k];
    unsigned l = ph->lanes > 1 ? ph->lanes : 1;
    for (unsigned i = 0; i < l; i++)
      jit_set(g, ph->dst + i, val[at++]);
  }
  free(val);
}

/* The jump from local block lb to local block t over the branch or switch
 * at ip, as eng_run()'s CB_OP_BR, CB_OP_SWITCH and jump: the path
 * signature's run (outcome word v of branch point bp; CB_NONE: none),
 * the branch counts (taken: the true side or a case), the phi moves
 * (parallel, every lane), one operation for the branch and one per
 * phi. */
static void gen_edge(jit_gen *g, uint32_t ip, uint32_t lb, uint32_t t,
                     uint32_t bp, uint64_t v, bool taken) {
  const cb_program *p = g->p;
  LLVMBuilderRef B = g->B;
  uint32_t gb = g->fn->first_block + lb, tgb = g->fn->first_block + t;
  uint32_t np = g->nphis[tgb], first = p->blocks[tgb].first_op;
  LLVMBasicBlockRef out = jit_exit_before(g, ip, gb);
  if (g->body[t] == NULL) {
    LLVMBuildBr(B, out);
    return;
  }
  /* a loop template's header is a block that is its own latch
   * (analysis/engine/template.h): only such a target can be marked in stop */
  const cb_block *tb = &p->blocks[tgb];
  bool self = false;
  for (uint32_t k = 0; k < tb->n_succ && !self; k++)
    self = p->succs[tb->first_succ + k] == t;
  if (bp != CB_NONE) {
    sig_add(g, v);
    jit_add_lv(g, LV_BRANCHES, 1);
    if (bp < p->n_branches) {
      LLVMValueRef have = LLVMBuildIsNotNull(B, g->counts, "");
      LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
      LLVMBuildCondBr(B, have, yes, done);
      LLVMPositionBuilderAtEnd(B, yes);
      LLVMValueRef k = jit_c64(g, 2 * (uint64_t)bp + (taken ? 0 : 1));
      LLVMValueRef cp = LLVMBuildGEP2(B, g->i64, g->counts, &k, 1, "");
      jit_store(
          g,
          LLVMBuildAdd(B, jit_load(g, g->i64, cp, TB_TABLE), jit_c64(g, 1), ""),
          cp, TB_TABLE);
      LLVMBuildBr(B, done);
      LLVMPositionBuilderAtEnd(B, done);
    }
  }
  /* the machine code's accesses on entry to t, after the branch's
   * counts (the interpreter's jump) */
  if (tb->n_mach)
    jit_mach(g, tgb, tb->first_op, lb);
  jit_phi_moves(g, lb, tgb);
  jit_set_lv(
      g, LV_BUDGET,
      LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1 + (uint64_t)np), ""));
  jit_set_lv(g, LV_PREV, LLVMConstInt(g->i32, lb, 0));
  if (t != lb)
    jit_slots_leave(g); /* what the block carried, for the code after it */
  /* entering a loop whose template runs it (template.h): the engine runs
   * the template's iterations, and the kernel goes on with the rest */
  if (self && t != lb) {
    LLVMValueRef tv = jit_c64(g, tgb);
    LLVMValueRef st = jit_load(
        g, g->i8, LLVMBuildGEP2(B, g->i8, g->stop, &tv, 1, ""), TB_TABLE);
    LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(g->C, g->F, "");
    LLVMBuildCondBr(
        B, LLVMBuildICmp(B, LLVMIntNE, st, LLVMConstInt(g->i8, 0, 0), ""), run,
        g->body[t]);
    LLVMPositionBuilderAtEnd(B, run);
    jit_call_engine(g, first + np, tgb, IO_TPL);
    jit_load_locals(g);
  }
  LLVMBuildBr(B, jit_slots_target(g, lb, t));
}

static void gen_br(jit_gen *g, uint32_t ip, uint32_t lb) {
  const cb_program *p = g->p;
  const cb_op *op = &p->ops[ip];
  const cb_block *blk = &p->blocks[g->fn->first_block + lb];
  const uint32_t *su = &p->succs[blk->first_succ];
  if (op->a == CB_NONE) {
    gen_edge(g, ip, lb, su[0], CB_NONE, 0, false);
    return;
  }
  LLVMValueRef c = LLVMBuildTrunc(g->B, jit_val(g, op->a), g->i1, "");
  LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(g->B, c, yes, no);
  LLVMPositionBuilderAtEnd(g->B, yes);
  gen_edge(g, ip, lb, su[0], op->aux, ((uint64_t)op->aux << 8) | 1, true);
  LLVMPositionBuilderAtEnd(g->B, no);
  gen_edge(g, ip, lb, su[1], op->aux, (uint64_t)op->aux << 8, false);
}

/* eng_run()'s CB_OP_SWITCH: the value masked to its type, the first case
 * equal to it (else successor 0, the default), the outcome word
 * bp << 8 | (successor index & 0xff). One edge per successor index. */
static void gen_switch(jit_gen *g, uint32_t ip, uint32_t lb) {
  const cb_program *p = g->p;
  const cb_op *op = &p->ops[ip];
  const cb_block *blk = &p->blocks[g->fn->first_block + lb];
  const uint32_t *su = &p->succs[blk->first_succ];
  const int64_t *x = &p->extra[op->aux];
  uint64_t n = (uint64_t)x[0], m = cb_ty_mask((cb_ty)op->ty);
  uint32_t bp = (uint32_t)x[1 + 2 * n];
  LLVMBasicBlockRef *to = calloc(blk->n_succ + 1, sizeof *to);
  uint64_t *seen = malloc((n + 1) * sizeof *seen);
  /* an integer, or a pointer: an indirectbr, a switch over its labels'
   * addresses (frontend/lower_ops.c) */
  bool sane = blk->n_succ > 0 && ((op->ty >= CB_TY_I1 && op->ty <= CB_TY_I64) ||
                                  op->ty == CB_TY_PTR);
  for (uint64_t k = 0; k < n && sane; k++)
    sane = (uint64_t)x[2 + 2 * k] < blk->n_succ;
  if (!to || !seen || !sane) {
    free(to);
    free(seen);
    LLVMBuildBr(g->B, jit_exit_before(g, ip, g->fn->first_block + lb));
    return;
  }
  LLVMValueRef v = jit_mask(g, jit_val(g, op->a), op->ty);
  to[0] = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMValueRef sw = LLVMBuildSwitch(g->B, v, to[0], (unsigned)n);
  uint64_t n_seen = 0;
  for (uint64_t k = 0; k < n; k++) {
    uint64_t cv = (uint64_t)x[1 + 2 * k] & m, si = (uint64_t)x[2 + 2 * k];
    bool dup = false; /* a later equal case is never taken */
    for (uint64_t j = 0; j < n_seen && !dup; j++)
      dup = seen[j] == cv;
    if (dup)
      continue;
    seen[n_seen++] = cv;
    if (!to[si])
      to[si] = LLVMAppendBasicBlockInContext(g->C, g->F, "");
    LLVMAddCase(sw, jit_c64(g, cv), to[si]);
  }
  for (uint32_t si = 0; si < blk->n_succ; si++) {
    if (!to[si])
      continue;
    LLVMPositionBuilderAtEnd(g->B, to[si]);
    gen_edge(g, ip, lb, su[si], bp, ((uint64_t)bp << 8) | (si & 0xff), si != 0);
  }
  free(to);
  free(seen);
}

void jit_check(jit_gen *g, uint32_t lb) {
  uint32_t gb = g->fn->first_block + lb;
  uint32_t start = g->p->blocks[gb].first_op + g->nphis[gb];
  jit_room(g, g->need_ops[lb], g->need_acc[lb], start, gb);
}

/* Whether block b has machine-code accesses before op ip that the
 * kernel makes: in the middle of the block, not after a call (the
 * engine makes those when the call returns). */
static bool mach_before(const cb_program *p, const cb_block *b, uint32_t ip) {
  if (ip <= b->first_op || p->ops[ip - 1].code == CB_OP_CALL)
    return false;
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++)
    if (p->mach[b->first_mach + i].op == ip)
      return true;
  return false;
}

void jit_block(jit_gen *g, uint32_t lb) {
  const cb_program *p = g->p;
  uint32_t gb = g->fn->first_block + lb;
  const cb_block *b = &p->blocks[gb];
  uint32_t start = b->first_op + g->nphis[gb], end = b->first_op + b->n_ops;
  LLVMBuilderRef B = g->B;
  jit_slots_begin(g, lb);
  jit_slots_loop(g, lb);
  /* room for the way ahead, up to the next check (jit_check_points) */
  if (g->head[lb])
    jit_check(g, lb);
  for (uint32_t ip = start; ip < end; ip++) {
    const cb_op *op = &p->ops[ip];
    g->mach_made_ip = CB_NONE;
    if (mach_before(p, b, ip)) {
      jit_mach(g, gb, ip, CB_NONE);
      g->mach_made_ip = ip;
    }
    if (op->code == CB_OP_BR) {
      gen_br(g, ip, lb);
      return;
    }
    if (op->code == CB_OP_SWITCH) {
      gen_switch(g, ip, lb);
      return;
    }
    if (op->code == CB_OP_RET) {
      jit_ret_op(g, ip, gb);
      return;
    }
    if (op->code == CB_OP_CALL && p->extra[op->aux] == CB_CALL_UNMODELLED) {
      /* the engine stops the input there, with its message */
      LLVMBuildBr(B, jit_exit_before(g, ip, gb));
      return;
    }
    if (op->code == CB_OP_CALL && !jit_op_covered(p, op)) {
      jit_call_op(g, ip, gb);
      continue;
    }
    if (op->code == CB_OP_ALLOCA) {
      /* the frame's layout, not a value op: never in a loop template's
       * iterations (jit_tpl.c takes only jit_op_covered's) */
      if (!jit_alloca_op(g, op, ip, gb)) {
        LLVMBuildBr(B, jit_exit_before(g, ip, gb));
        return;
      }
      jit_set_lv(g, LV_BUDGET,
                 LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1), ""));
      continue;
    }
    if (!jit_op_covered(p, op)) {
      LLVMBuildBr(B, jit_exit_before(g, ip, gb));
      return;
    }
    gen_op(g, op, ip, gb);
    jit_set_lv(g, LV_BUDGET,
               LLVMBuildSub(B, jit_lv(g, LV_BUDGET), jit_c64(g, 1), ""));
  }
  /* lowering ends every block with a terminator, and the loop above
   * returns at it */
  LLVMBuildUnreachable(B);
}
