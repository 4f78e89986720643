/* The fast engine's op kinds; see fastops.h. */
#include "fastops.h"

#include <stdlib.h>

static int is8(unsigned ty) {
  return ty == CB_TY_I64 || ty == CB_TY_PTR || ty == CB_TY_F64;
}

static uint8_t kind(const cb_program *p, const cb_op *op, uint8_t rmw) {
  unsigned lanes = op->lanes ? op->lanes : 1;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
    if (lanes != 1 || op->ty == CB_TY_F32 || op->ty == CB_TY_F64)
      return FK_NONE;
    return op->code == CB_OP_ADD   ? FK_ADD
           : op->code == CB_OP_SUB ? FK_SUB
           : op->code == CB_OP_MUL ? FK_MUL
           : op->code == CB_OP_AND ? FK_AND
           : op->code == CB_OP_OR  ? FK_OR
                                   : FK_XOR;
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
    if (lanes != 1 || op->ty != CB_TY_F64)
      return FK_NONE;
    return op->code == CB_OP_FADD   ? FK_FADD_D
           : op->code == CB_OP_FSUB ? FK_FSUB_D
                                    : FK_FMUL_D;
  case CB_OP_ICMP:
    return lanes == 1 && op->ty < CB_TY_COUNT && op->ty != CB_TY_F32 &&
                   op->ty != CB_TY_F64
               ? FK_ICMP
               : FK_NONE;
  case CB_OP_GEP: {
    int64_t n = p->extra[op->aux + 1];
    return n == 0 ? FK_GEP0 : n == 1 ? FK_GEP1 : n == 2 ? FK_GEP2 : FK_NONE;
  }
  case CB_OP_LOAD:
    if (!is8(op->ty))
      return FK_NONE;
    return lanes == 1 ? FK_LOAD8 : lanes == 2 ? FK_LOAD16 : FK_NONE;
  case CB_OP_STORE:
    if (!is8(op->ty) || (rmw & 1))
      return FK_NONE;
    return lanes == 1 ? FK_STORE8 : lanes == 2 ? FK_STORE16 : FK_NONE;
  case CB_OP_CALL: {
    const int64_t *g = &p->extra[op->aux];
    if (g[0] == CB_CALL_INTRINSIC &&
        (g[1] == CB_INTR_FMULADD || g[1] == CB_INTR_FMA) && g[3] == 3 &&
        op->ty == CB_TY_F64 && op->dst != CB_NONE && lanes <= 64)
      return FK_FMA_D;
    return FK_NONE;
  }
  default:
    return FK_NONE;
  }
}

uint8_t *cb_fast_kinds(const cb_program *p, const uint8_t *rmw) {
  uint8_t *k = calloc(p->n_ops + 1, 1);
  if (!k)
    return NULL;
  for (uint32_t i = 0; i < p->n_ops; i++)
    k[i] = kind(p, &p->ops[i], rmw ? rmw[i] : 0);
  return k;
}
