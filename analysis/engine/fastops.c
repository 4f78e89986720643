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
  case CB_OP_FDIV:
    if (op->ty != CB_TY_F64 || lanes > 8)
      return FK_NONE;
    if (lanes > 1)
      return op->code == CB_OP_FADD   ? FK_FADD_V
             : op->code == CB_OP_FSUB ? FK_FSUB_V
             : op->code == CB_OP_FMUL ? FK_FMUL_V
                                      : FK_FDIV_V;
    return op->code == CB_OP_FADD   ? FK_FADD_D
           : op->code == CB_OP_FSUB ? FK_FSUB_D
           : op->code == CB_OP_FMUL ? FK_FMUL_D
                                    : FK_FDIV_D;
  case CB_OP_ICMP:
    return lanes == 1 && op->ty < CB_TY_COUNT && op->ty != CB_TY_F32 &&
                   op->ty != CB_TY_F64
               ? FK_ICMP
               : FK_NONE;
  case CB_OP_GEP: {
    int64_t n = p->extra[op->aux + 1];
    return n == 0 ? FK_GEP0 : n == 1 ? FK_GEP1 : n == 2 ? FK_GEP2 : FK_GEPN;
  }
  case CB_OP_LOAD:
    if (!is8(op->ty))
      return lanes == 1 && op->ty >= CB_TY_I1 && op->ty <= CB_TY_F32 ? FK_LOAD_S
                                                                     : FK_NONE;
    return lanes == 1 ? FK_LOAD8 : lanes == 2 ? FK_LOAD16 : FK_NONE;
  case CB_OP_STORE:
    if (!is8(op->ty) || (rmw & 1))
      return lanes == 1 && op->ty >= CB_TY_I1 && op->ty <= CB_TY_PTR
                 ? FK_STORE_S
                 : FK_NONE;
    return lanes == 1 ? FK_STORE8 : lanes == 2 ? FK_STORE16 : FK_NONE;
  case CB_OP_CALL: {
    const int64_t *g = &p->extra[op->aux];
    if (g[0] == CB_CALL_INTRINSIC &&
        (g[1] == CB_INTR_FMULADD || g[1] == CB_INTR_FMA) && g[3] == 3 &&
        op->ty == CB_TY_F64 && op->dst != CB_NONE && lanes <= 64)
      return FK_FMA_D;
    return FK_NONE;
  }
  case CB_OP_BR:
    return FK_BR;
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    return lanes == 1 && op->ty < CB_TY_COUNT ? FK_ZEXT : FK_NONE;
  case CB_OP_SEXT:
    return lanes == 1 && op->ty < CB_TY_COUNT && op->ty2 < CB_TY_COUNT
               ? FK_SEXT
               : FK_NONE;
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR:
  case CB_OP_UDIV:
  case CB_OP_UREM:
  case CB_OP_SDIV:
  case CB_OP_SREM:
    if (lanes != 1 || op->ty < CB_TY_I1 || op->ty > CB_TY_I64)
      return FK_NONE;
    return op->code == CB_OP_SHL    ? FK_SHL
           : op->code == CB_OP_LSHR ? FK_LSHR
           : op->code == CB_OP_ASHR ? FK_ASHR
           : op->code == CB_OP_UDIV ? FK_UDIV
           : op->code == CB_OP_UREM ? FK_UREM
           : op->code == CB_OP_SDIV ? FK_SDIV
                                    : FK_SREM;
  case CB_OP_SITOFP:
    return lanes == 1 && op->ty == CB_TY_F64 && op->ty2 < CB_TY_COUNT
               ? FK_SITOFP_D
               : FK_NONE;
  case CB_OP_FCMP:
    return lanes == 1 && op->ty == CB_TY_F64 ? FK_FCMP_D : FK_NONE;
  case CB_OP_SELECT:
    return lanes == 1 ? FK_SELECT : FK_NONE;
  case CB_OP_MOV:
    return lanes == 1 ? FK_MOV : FK_NONE;
  case CB_OP_INSERTELT:
    return lanes <= 8 ? FK_INSERTELT : FK_NONE;
  default:
    return FK_NONE;
  }
}

uint8_t *cb_fast_kinds(const cb_program *p, const uint8_t *rmw) {
  uint8_t *k = calloc(p->n_ops + 1, 1);
  if (!k)
    return NULL;
  for (uint32_t i = 0; i < p->n_ops; i++)
    /* a load or store the machine code merged (program->op_access):
       the reference handler's */
    k[i] = p->op_access && p->op_access[i]
               ? FK_NONE
               : kind(p, &p->ops[i], rmw ? rmw[i] : 0);
  /* gep + load/store pairs; a gep is never a block's last op, so the
   * next op is in the same block */
  for (uint32_t i = 0; i + 1 < p->n_ops; i++) {
    if (k[i] != FK_GEP1 && k[i] != FK_GEP2)
      continue;
    const cb_op *g = &p->ops[i], *m = &p->ops[i + 1];
    bool two = k[i] == FK_GEP2;
    if (k[i + 1] == FK_LOAD8 && m->a == g->dst)
      k[i] = two ? FK_GEP2_LOAD8 : FK_GEP1_LOAD8;
    else if (k[i + 1] == FK_LOAD_S && m->a == g->dst)
      k[i] = two ? FK_GEP2_LOAD_S : FK_GEP1_LOAD_S;
    else if (k[i + 1] == FK_STORE8 && m->b == g->dst && m->a != g->dst)
      k[i] = two ? FK_GEP2_STORE8 : FK_GEP1_STORE8;
  }
  return k;
}

void cb_phi_edges_free(cb_phi_edges *pe) {
  free(pe->first);
  free(pe->edges);
  free(pe->moves);
  free(pe->br);
  pe->br = NULL;
  pe->first = NULL;
  pe->edges = NULL;
  pe->moves = NULL;
}

bool cb_phi_edges_build(const cb_program *p, const uint32_t *nphis,
                        cb_phi_edges *pe) {
  pe->br = NULL;
  pe->first = calloc(p->n_blocks + 1, sizeof *pe->first);
  /* upper bounds: one edge per incoming pair, one move per phi and edge */
  size_t max_edges = 0, max_moves = 0;
  for (uint32_t b = 0; b < p->n_blocks; b++)
    for (uint32_t k = 0; k < nphis[b]; k++) {
      int64_t n = p->extra[p->ops[p->blocks[b].first_op + k].aux];
      max_edges += (size_t)n;
      max_moves += (size_t)n * nphis[b];
    }
  pe->edges = malloc((max_edges + 1) * sizeof *pe->edges);
  pe->moves = malloc((max_moves + 1) * sizeof *pe->moves);
  if (!pe->first || !pe->edges || !pe->moves) {
    cb_phi_edges_free(pe);
    return false;
  }
  uint32_t ne = 0, nm = 0;
  for (uint32_t b = 0; b < p->n_blocks; b++) {
    pe->first[b] = ne;
    uint32_t np = nphis[b], op0 = p->blocks[b].first_op;
    /* every predecessor named by some phi, in first-seen order */
    for (uint32_t k = 0; k < np; k++) {
      const int64_t *g = &p->extra[p->ops[op0 + k].aux];
      for (int64_t j = 0; j < g[0]; j++) {
        uint32_t pred = (uint32_t)g[1 + 2 * j];
        bool seen = false;
        for (uint32_t x = pe->first[b]; x < ne && !seen; x++)
          seen = pe->edges[x].pred == pred;
        if (seen)
          continue;
        cb_phi_edge *ed = &pe->edges[ne++];
        ed->pred = pred;
        ed->first_move = nm;
        ed->n_moves = np;
        ed->in_order = 1;
        for (uint32_t q = 0; q < np; q++) {
          const cb_op *ph = &p->ops[op0 + q];
          const int64_t *h = &p->extra[ph->aux];
          cb_phi_move *mv = &pe->moves[nm++];
          mv->dst = ph->dst;
          mv->lanes = ph->lanes ? ph->lanes : 1;
          mv->src = CB_NONE;
          for (int64_t i = 0; i < h[0]; i++)
            if ((uint32_t)h[1 + 2 * i] == pred) {
              mv->src = (uint32_t)h[2 + 2 * i];
              break;
            }
          if (mv->lanes != 1)
            ed->in_order = 0;
          /* a slot read here that an earlier move wrote (constants are
           * no slots) */
          if (mv->src != CB_NONE && !(mv->src & CB_OPND_CONST))
            for (uint32_t r = ed->first_move; r + 1 < nm; r++)
              if (pe->moves[r].dst == mv->src)
                ed->in_order = 0;
        }
      }
    }
  }
  pe->first[p->n_blocks] = ne;
  pe->br = malloc(((size_t)p->n_blocks * 2 + 1) * sizeof *pe->br);
  if (!pe->br) {
    cb_phi_edges_free(pe);
    return false;
  }
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
      uint32_t b = fn->first_block + lb;
      const cb_block *bl = &p->blocks[b];
      for (uint32_t s = 0; s < 2; s++) {
        cb_br_target *bt = &pe->br[2 * (size_t)b + s];
        *bt = (cb_br_target){CB_NONE, 0, 0, CB_NONE, lb};
        if (s >= bl->n_succ)
          continue;
        uint32_t gb = fn->first_block + p->succs[bl->first_succ + s];
        if (p->blocks[gb].n_mach != 0)
          continue;
        bt->block = gb;
        bt->first_op = p->blocks[gb].first_op;
        bt->np = nphis[gb];
        for (uint32_t x = pe->first[gb]; x < pe->first[gb + 1]; x++)
          if (pe->edges[x].pred == lb) {
            bt->edge = x;
            break;
          }
      }
    }
  }
  return true;
}
