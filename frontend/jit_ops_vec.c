/* jit_ops_vec.c: a kernel's ops that move, pick or reinterpret lanes and
 * members (jit_gen.h): EXTRACTELT, INSERTELT, SHUFFLE, EXTRACTVAL,
 * INSERTVAL, BITCAST and a vector SELECT, as engine_interp.c's cases do
 * them on the slots (one slot per lane or member, program.h). Every lane
 * is read before any is written, which is the interpreter's order for the
 * ops it buffers and the same values for the others (a result never
 * shares a slot with an operand: each op has a slot of its own).
 *
 * Lane-wise vector arithmetic, compares and casts are not here: jit_ops.c
 * makes them lane by lane as their scalar forms. */
#include "jit_gen.h"

/* Lanes an op here may have: the interpreter's own buffers hold 256
 * (SHUFFLE's tmp, a call's results), and a select chain over a dynamic
 * index grows with the lanes. */
#define VEC_MAX_LANES 256
#define VEC_MAX_DYN_INDEX 64

static unsigned lanes_of(const cb_op *op) {
  return op->lanes ? op->lanes : 1;
}

/* lane i of operand o (a vector constant takes consecutive entries) */
static LLVMValueRef lane(jit_gen *g, cb_operand o, unsigned i) {
  return jit_val(g, (cb_operand)(o + i));
}

/* An operand read over n lanes stays within the constants. */
static bool lanes_ok(const cb_program *p, cb_operand o, uint64_t n) {
  if (o == CB_NONE)
    return false;
  if (o & CB_OPND_CONST)
    return (uint64_t)(o & ~CB_OPND_CONST) + n <= p->n_consts;
  return true;
}

static unsigned ty_bits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes((cb_ty)ty) * 8;
}

static bool bitcast_copies(const cb_op *op) {
  return op->ty == op->ty2 || (ty_bits(op->ty) == ty_bits(op->ty2) &&
                               op->ty != CB_TY_F32 && op->ty2 != CB_TY_F32);
}

static bool plain_ty(unsigned ty) {
  return ty >= CB_TY_I1 && ty < CB_TY_COUNT && ty != CB_TY_F80;
}

/* Whether the operands op reads stay within the constants and the sizes
 * in its record are within the bounds above. */
static bool operands_ok(const cb_program *p, const cb_op *op) {
  unsigned l = lanes_of(op);
  const int64_t *x = &p->extra[op->aux];
  switch ((cb_opcode)op->code) {
  case CB_OP_EXTRACTELT:
    return lanes_ok(p, op->a, l) && lanes_ok(p, op->b, 1);
  case CB_OP_INSERTELT:
    return lanes_ok(p, op->a, l) && lanes_ok(p, op->b, 1) &&
           lanes_ok(p, op->c, 1);
  case CB_OP_SHUFFLE:
    return x[0] >= 0 && x[0] <= VEC_MAX_LANES &&
           lanes_ok(p, op->a, (uint64_t)x[0]) &&
           lanes_ok(p, op->b, (uint64_t)x[0]);
  case CB_OP_EXTRACTVAL:
    return lanes_ok(p, op->a, (uint64_t)op->aux + l);
  case CB_OP_INSERTVAL:
    return x[0] >= 0 && x[0] <= VEC_MAX_LANES && x[1] >= 0 &&
           x[1] + l <= VEC_MAX_LANES && lanes_ok(p, op->a, (uint64_t)x[0]) &&
           lanes_ok(p, op->b, l);
  case CB_OP_BITCAST: {
    unsigned in = ty_bits(op->ty) * l / ty_bits(op->ty2);
    return lanes_ok(p, op->a, bitcast_copies(op) ? l : in);
  }
  case CB_OP_SELECT:
    return lanes_ok(p, op->a, l) && lanes_ok(p, op->b, l) &&
           lanes_ok(p, op->c, l);
  default:
    return false;
  }
}

bool jit_vec_covered(const cb_program *p, const cb_op *op) {
  unsigned l = lanes_of(op);
  if (l > VEC_MAX_LANES || op->dst == CB_NONE)
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_EXTRACTELT:
    return l <= VEC_MAX_DYN_INDEX && operands_ok(p, op);
  case CB_OP_INSERTELT:
  case CB_OP_SHUFFLE:
  case CB_OP_EXTRACTVAL:
  case CB_OP_INSERTVAL:
    return operands_ok(p, op);
  case CB_OP_BITCAST:
    /* at most as many source lanes as result lanes allowed (and within
     * the interpreter's 2048-byte buffer) */
    return plain_ty(op->ty) && plain_ty(op->ty2) &&
           (bitcast_copies(op) ||
            ty_bits(op->ty) * l / ty_bits(op->ty2) <= VEC_MAX_LANES) &&
           operands_ok(p, op);
  case CB_OP_SELECT:
    return l > 1 && operands_ok(p, op);
  default:
    return false;
  }
}

/* The engine's bitcast (engine_scalar.h): the low ib bits of each source
 * lane laid end to end, lane 0 lowest, cut into ob-bit lanes, each kept
 * zero-extended (an f32's bits are its float's: the low half of the
 * word). */
static void bitcast(jit_gen *g, const cb_op *op, unsigned l) {
  LLVMBuilderRef B = g->B;
  unsigned ob = ty_bits(op->ty), ib = ty_bits(op->ty2);
  unsigned total = ob * l, in_lanes = total / ib;
  LLVMValueRef in[VEC_MAX_LANES], out[VEC_MAX_LANES];
  for (unsigned i = 0; i < in_lanes; i++) {
    LLVMValueRef v = lane(g, op->a, i);
    in[i] = ib >= 64 ? v : LLVMBuildAnd(B, v, jit_c64(g, (1ull << ib) - 1), "");
  }
  for (unsigned j = 0; j < l; j++) {
    LLVMValueRef r = jit_c64(g, 0);
    uint64_t lo_j = (uint64_t)j * ob, hi_j = lo_j + ob;
    for (unsigned i = (unsigned)(lo_j / ib); i < in_lanes; i++) {
      uint64_t lo_i = (uint64_t)i * ib, hi_i = lo_i + ib;
      if (lo_i >= hi_j)
        break;
      uint64_t lo = lo_i > lo_j ? lo_i : lo_j, hi = hi_i < hi_j ? hi_i : hi_j;
      if (lo >= hi)
        continue;
      /* bits [lo, hi) of the stream: of source lane i from lo - lo_i, of
       * result lane j at lo - lo_j */
      unsigned n = (unsigned)(hi - lo);
      LLVMValueRef piece = LLVMBuildLShr(B, in[i], jit_c64(g, lo - lo_i), "");
      if (n < 64)
        piece = LLVMBuildAnd(B, piece, jit_c64(g, (1ull << n) - 1), "");
      r = LLVMBuildOr(B, r, LLVMBuildShl(B, piece, jit_c64(g, lo - lo_j), ""),
                      "");
    }
    out[j] = r;
  }
  for (unsigned j = 0; j < l; j++)
    jit_set(g, op->dst + j, out[j]);
}

/* A vector select: lane by lane on the condition's lanes, or every lane
 * from one side by the condition's first lane, as the engine decided for
 * the op (CB_KERNEL_OP_LANESEL). The lanes of a one-lane condition are
 * never read. */
static void select_op(jit_gen *g, const cb_op *op, uint32_t ip, unsigned l) {
  LLVMBuilderRef B = g->B;
  LLVMValueRef ipv = jit_c64(g, ip);
  LLVMValueRef f = jit_load(
      g, g->i8, LLVMBuildGEP2(B, g->i8, g->op_flags, &ipv, 1, ""), TB_TABLE);
  LLVMValueRef per_lane = LLVMBuildICmp(
      B, LLVMIntNE,
      LLVMBuildAnd(B, f, LLVMConstInt(g->i8, CB_KERNEL_OP_LANESEL, 0), ""),
      LLVMConstInt(g->i8, 0, 0), "");
  LLVMBasicBlockRef each = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef one = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(B, per_lane, each, one);
  LLVMValueRef v[VEC_MAX_LANES];
  for (int pass = 0; pass < 2; pass++) {
    LLVMPositionBuilderAtEnd(B, pass == 0 ? each : one);
    LLVMValueRef c0 =
        pass == 0 ? NULL : LLVMBuildTrunc(B, jit_val(g, op->a), g->i1, "");
    for (unsigned i = 0; i < l; i++) {
      LLVMValueRef c =
          pass == 0 ? LLVMBuildTrunc(B, lane(g, op->a, i), g->i1, "") : c0;
      v[i] = LLVMBuildSelect(B, c, lane(g, op->b, i), lane(g, op->c, i), "");
    }
    for (unsigned i = 0; i < l; i++)
      jit_set(g, op->dst + i, v[i]);
    LLVMBuildBr(B, done);
  }
  LLVMPositionBuilderAtEnd(B, done);
}

void jit_vec_op(jit_gen *g, const cb_op *op, uint32_t ip) {
  LLVMBuilderRef B = g->B;
  const int64_t *x = &g->p->extra[op->aux];
  unsigned l = lanes_of(op);
  switch ((cb_opcode)op->code) {
  case CB_OP_EXTRACTELT: {
    /* a[b], or 0 past the lanes (op->lanes itself: none when 0) */
    LLVMValueRef idx = jit_val(g, op->b), r = jit_c64(g, 0);
    for (unsigned i = 0; i < op->lanes; i++)
      r = LLVMBuildSelect(B,
                          LLVMBuildICmp(B, LLVMIntEQ, idx, jit_c64(g, i), ""),
                          lane(g, op->a, i), r, "");
    jit_set(g, op->dst, r);
    return;
  }
  case CB_OP_INSERTELT: {
    LLVMValueRef idx = jit_val(g, op->c), b = jit_val(g, op->b);
    LLVMValueRef v[VEC_MAX_LANES];
    for (unsigned i = 0; i < l; i++)
      v[i] = LLVMBuildSelect(
          B, LLVMBuildICmp(B, LLVMIntEQ, idx, jit_c64(g, i), ""), b,
          lane(g, op->a, i), "");
    for (unsigned i = 0; i < l; i++)
      jit_set(g, op->dst + i, v[i]);
    return;
  }
  case CB_OP_SHUFFLE: {
    /* concat(a, b)[mask[i]]; an undefined (-1) or out-of-range mask
     * lane is 0 */
    uint64_t src = (uint64_t)x[0];
    LLVMValueRef v[VEC_MAX_LANES];
    for (unsigned i = 0; i < l; i++) {
      int64_t m = x[1 + i];
      v[i] = m < 0                   ? jit_c64(g, 0)
             : (uint64_t)m < src     ? lane(g, op->a, (unsigned)m)
             : (uint64_t)m < 2 * src ? lane(g, op->b, (unsigned)(m - src))
                                     : jit_c64(g, 0);
    }
    for (unsigned i = 0; i < l; i++)
      jit_set(g, op->dst + i, v[i]);
    return;
  }
  case CB_OP_EXTRACTVAL:
    for (unsigned i = 0; i < l; i++)
      jit_set(g, op->dst + i, lane(g, op->a, op->aux + i));
    return;
  case CB_OP_INSERTVAL: {
    uint64_t n = (uint64_t)x[0], at = (uint64_t)x[1];
    LLVMValueRef v[2 * VEC_MAX_LANES];
    for (uint64_t i = 0; i < n; i++)
      v[i] = lane(g, op->a, (unsigned)i);
    for (unsigned i = 0; i < l; i++)
      v[n + i] = lane(g, op->b, i);
    for (uint64_t i = 0; i < n; i++)
      jit_set(g, op->dst + (uint32_t)i, v[i]);
    for (unsigned i = 0; i < l; i++)
      jit_set(g, op->dst + (uint32_t)(at + i), v[n + i]);
    return;
  }
  case CB_OP_BITCAST:
    if (bitcast_copies(op)) {
      for (unsigned i = 0; i < l; i++)
        jit_set(g, op->dst + i, lane(g, op->a, i));
    } else {
      bitcast(g, op, l);
    }
    return;
  default: /* SELECT */
    select_op(g, op, ip, l);
    return;
  }
}

bool jit_lanewise(const cb_program *p, const cb_op *op) {
  if (op->lanes <= 1 || !lanes_ok(p, op->a, op->lanes) ||
      (op->b != CB_NONE && !lanes_ok(p, op->b, op->lanes)))
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_UDIV:
  case CB_OP_SDIV:
  case CB_OP_UREM:
  case CB_OP_SREM:
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR:
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
  case CB_OP_FNEG:
  case CB_OP_ICMP:
  case CB_OP_FCMP:
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_SEXT:
  case CB_OP_FPTRUNC:
  case CB_OP_FPEXT:
  case CB_OP_FPTOUI:
  case CB_OP_FPTOSI:
  case CB_OP_UITOFP:
  case CB_OP_SITOFP:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
  case CB_OP_MOV:
    return true;
  default:
    return false;
  }
}

bool jit_ext_covered(const cb_program *p, const cb_op *op) {
  return jit_fp_covered(op) || jit_vec_covered(p, op) ||
         jit_intr_covered(p, op);
}

void jit_ext_op(jit_gen *g, const cb_op *op, uint32_t ip) {
  if (jit_fp_covered(op))
    jit_fp_op(g, op);
  else if (op->code == CB_OP_CALL)
    jit_intr_op(g, op);
  else
    jit_vec_op(g, op, ip);
}
