/* machine_ir.c: the IR side of pairing machine blocks with IR blocks
 * (machine.c): which slots hold stack objects' addresses, which calls the
 * machine code makes as calls, and the frame offsets of stack objects read
 * from the machine accesses matched with the IR's accesses of them. */
#include "machine_internal.h"

#include <stdlib.h>

/* Stack objects' slots of function fi: true for slots holding an address
 * derived from an alloca (through GEPs, casts, phis and selects). */
uint8_t *fe_mc_alloca_slots(fe *f, uint32_t fi) {
  const cb_function *fn = &f->functions.v[fi];
  uint8_t *is = calloc(fn->n_slots + 1, 1);
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &f->blocks.v[fn->first_block + b];
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &f->ops.v[bl->first_op + o];
        if (op->dst == CB_NONE || op->dst >= fn->n_slots || is[op->dst])
          continue;
        bool a = false;
        switch (op->code) {
        case CB_OP_ALLOCA:
          a = true;
          break;
        case CB_OP_GEP:
        case CB_OP_BITCAST:
        case CB_OP_MOV:
          a = !(op->a & CB_OPND_CONST) && op->a < fn->n_slots && is[op->a];
          break;
        case CB_OP_SELECT:
          a = (!(op->b & CB_OPND_CONST) && op->b < fn->n_slots && is[op->b]) ||
              (!(op->c & CB_OPND_CONST) && op->c < fn->n_slots && is[op->c]);
          break;
        case CB_OP_PHI: {
          const int64_t *g = &f->extra.v[op->aux];
          for (int64_t j = 0; j < g[0]; j++) {
            cb_operand v = (cb_operand)g[2 + 2 * j];
            if (!(v & CB_OPND_CONST) && v < fn->n_slots && is[v])
              a = true;
          }
          break;
        }
        default:
          break;
        }
        if (a) {
          is[op->dst] = 1;
          changed = true;
        }
      }
    }
  }
  return is;
}

bool fe_mc_real_call(fe *f, const cb_op *op) {
  const int64_t *g = &f->extra.v[op->aux];
  cb_call_kind kind = (cb_call_kind)g[0];
  if (kind != CB_CALL_INTRINSIC)
    return true;
  uint32_t callee = (uint32_t)g[1];
  if (callee != CB_INTR_MEMCPY && callee != CB_INTR_MEMMOVE &&
      callee != CB_INTR_MEMSET)
    return false;
  if (g[3] < 3)
    return true;
  cb_operand len = CB_CALL_ARG_OPERAND(g[4 + 2]);
  return !((len & CB_OPND_CONST) && f->consts.v[len & ~CB_OPND_CONST].u <= 128);
}

/* For each slot holding a stack object's address plus a constant
   (alloca, constant GEPs, casts): the frame object (else CB_NONE) and the
   offset. */
void fe_mc_alloca_bases(fe *f, uint32_t fi, uint32_t *fo_of, int64_t *off) {
  const cb_function *fn = &f->functions.v[fi];
  for (uint32_t i = 0; i < fn->n_slots; i++)
    fo_of[i] = CB_NONE;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &f->blocks.v[fn->first_block + b];
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &f->ops.v[bl->first_op + o];
        if (op->dst >= fn->n_slots || fo_of[op->dst] != CB_NONE)
          continue;
        bool src = !(op->a & CB_OPND_CONST) && op->a < fn->n_slots &&
                   fo_of[op->a] != CB_NONE;
        if (op->code == CB_OP_ALLOCA && op->a == CB_NONE) {
          fo_of[op->dst] = op->aux;
          off[op->dst] = 0;
        } else if (op->code == CB_OP_GEP && src && !f->extra.v[op->aux + 1]) {
          fo_of[op->dst] = fo_of[op->a];
          off[op->dst] = off[op->a] + f->extra.v[op->aux];
        } else if ((op->code == CB_OP_BITCAST || op->code == CB_OP_MOV) &&
                   src) {
          fo_of[op->dst] = fo_of[op->a];
          off[op->dst] = off[op->a];
        } else {
          continue;
        }
        changed = true;
      }
    }
  }
}

/* The machine access m is the IR's access op of a stack object: where
   the machine code put that object, when DWARF did not say (locals
   without a location at -O2: pb_alloc's `p` inlined into main). */
void fe_mc_derive_offset(mctx *c, uint32_t opi, const minst *m,
                         const uint32_t *fo_of, const int64_t *off,
                         uint32_t n_slots) {
  fe *f = c->f;
  const cb_op *op = &f->ops.v[opi];
  cb_operand addr = op->code == CB_OP_LOAD ? op->a : op->b;
  if ((addr & CB_OPND_CONST) || addr >= n_slots || fo_of[addr] == CB_NONE ||
      !m->has_cfa)
    return;
  uint32_t fo = fo_of[addr];
  if (fo >= f->frame_objs.n ||
      f->frame_objs.v[fo].frame_offset != CB_FRAME_OFFSET_UNKNOWN ||
      f->sites.v[op->aux].size != m->size ||
      (op->code == CB_OP_STORE) != (m->write != 0))
    return;
  int64_t at = m->cfa_off - off[addr];
  if (c->fo_new[fo] == CB_FRAME_OFFSET_UNKNOWN)
    c->fo_new[fo] = at;
  else if (c->fo_new[fo] != at)
    c->fo_bad[fo] = 1;
}
