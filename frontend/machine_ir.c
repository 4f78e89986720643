/* machine_ir.c: the IR side of pairing machine blocks with IR blocks
 * (machine.c): which slots hold stack objects' addresses, which calls the
 * machine code makes as calls, and the frame offsets of stack objects read
 * from the machine accesses matched with the IR's accesses of them. */
#include "machine_internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Stack objects' slots of function fi: per slot, FE_MC_ALLOCA for an
 * address derived from an alloca, FE_MC_BYVAL from a by-value parameter
 * (through GEPs, casts, phis and selects; both when it may be either). A
 * by-value aggregate lies in the caller's argument area (SysV ABI 3.2.3:
 * passed in memory, on the stack), above the return address: the callee's
 * machine code reads it relative to %rsp at non-negative CFA offsets (or
 * through a register holding its address), and those reads are the IR's
 * loads, not accesses beside them. */
uint8_t *fe_mc_alloca_slots(fe *f, uint32_t fi) {
  const cb_function *fn = &f->functions.v[fi];
  uint8_t *is = calloc(fn->n_slots + 1, 1);
  if (!is)
    return NULL;
  for (uint32_t k = 0; k < fn->n_params; k++) {
    const cb_param *pa = &f->params.v[fn->first_param + k];
    if (pa->byval && pa->slot < fn->n_slots)
      is[pa->slot] = FE_MC_BYVAL;
  }
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &f->blocks.v[fn->first_block + b];
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &f->ops.v[bl->first_op + o];
        if (op->dst == CB_NONE || op->dst >= fn->n_slots)
          continue;
#define FROM(x) (!((x)&CB_OPND_CONST) && (x) < fn->n_slots ? is[x] : 0)
        uint8_t a = 0;
        switch (op->code) {
        case CB_OP_ALLOCA:
          a = FE_MC_ALLOCA;
          break;
        case CB_OP_GEP:
        case CB_OP_BITCAST:
        case CB_OP_MOV:
          a = FROM(op->a);
          break;
        case CB_OP_SELECT:
          a = FROM(op->b) | FROM(op->c);
          break;
        case CB_OP_PHI: {
          const int64_t *g = &f->extra.v[op->aux];
          for (int64_t j = 0; j < g[0]; j++)
            a |= FROM((cb_operand)g[2 + 2 * j]);
          break;
        }
        default:
          break;
        }
#undef FROM
        if ((a | is[op->dst]) != is[op->dst]) {
          is[op->dst] |= a;
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

/* One access of an inline copy: direction, bytes, and where it lies from
   the lowest of its direction's (the machine code's displacements; the
   IR's piece offsets). */
typedef struct cp_acc {
  bool write;
  uint32_t size;
  int64_t rel;
} cp_acc;

/* The offset an access's address operand adds to the copy's pointer: the
   GEP among the copy's n address ops (just before `first`) that defines
   it, else 0 (the pointer itself). */
static int64_t piece_offset(fe *f, uint32_t first, uint32_t n,
                            cb_operand addr) {
  for (uint32_t k = first > n ? first - n : 0; k < first; k++) {
    const cb_op *g = &f->ops.v[k];
    if (g->code == CB_OP_GEP && g->dst == addr)
      return f->extra.v[g->aux];
  }
  return 0;
}

/* Rebases each direction's offsets on its lowest; false when a direction's
   machine accesses go through different registers. */
static bool rebase(cp_acc *a, const int32_t *key, uint32_t n) {
  for (int w = 0; w < 2; w++) {
    int64_t lo = INT64_MAX;
    int32_t k0 = 0;
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
      if (a[i].write != w)
        continue;
      if (key && !first && key[i] != k0)
        return false;
      if (first && key)
        k0 = key[i];
      first = false;
      if (a[i].rel < lo)
        lo = a[i].rel;
    }
    for (uint32_t i = 0; i < n; i++)
      if (a[i].write == w)
        a[i].rel -= lo;
  }
  return true;
}

/* The code generator's scheduler orders a copy's loads and stores (the
   last piece's first, the stores in reverse...), and cachegrind counts
   an access that straddles two missing lines as one miss: the order the
   machine code has is the one counted. A copy is reordered only when the
   machine instructions on its line in the paired block are exactly its
   accesses (same directions, sizes and relative offsets). */
void fe_mc_order_copies(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                        const uint32_t *mir, const uint32_t *mfirst,
                        const uint32_t *mcount) {
  fe *f = c->f;
  const cb_function *fn = &f->functions.v[fi];
  for (uint32_t gi = 0; gi < f->copy_grps.n; gi++) {
    const fe_copy_grp *g = &f->copy_grps.v[gi];
    if (g->func != fi || g->n > 64)
      continue;
    uint32_t b = CB_NONE;
    for (uint32_t j = 0; j < fn->n_blocks && b == CB_NONE; j++) {
      const cb_block *bl = &f->blocks.v[fn->first_block + j];
      if (g->first >= bl->first_op && g->first < bl->first_op + bl->n_ops)
        b = j;
    }
    if (b == CB_NONE)
      continue;
    /* other copies on this line in the block (an unrolled loop's): the
       machine accesses on the line are taken as theirs in turn, the
       rank-th chunk this copy's */
    uint32_t rank = 0, total = 0;
    const cb_block *bl = &f->blocks.v[fn->first_block + b];
    for (uint32_t gj = 0; gj < f->copy_grps.n; gj++) {
      const fe_copy_grp *h = &f->copy_grps.v[gj];
      if (h->func != fi || h->line != g->line || h->file != g->file ||
          h->first < bl->first_op || h->first >= bl->first_op + bl->n_ops)
        continue;
      total += h->n;
      if (h->first < g->first)
        rank += h->n;
    }
    cp_acc m[64], r[64];
    int32_t key[64];
    uint32_t nm = 0;
    /* the accesses on its line, in one machine block paired with b;
       without the frame's when those are more (-O0 reloads the
       variables an address is computed from on the copy's line) */
    uint32_t seen = 0;
    for (int pass = 0; pass < 2; pass++) {
      uint32_t from_blk = CB_NONE;
      nm = seen = 0;
      for (uint32_t mbi = 0; mbi < n_mb && nm <= 64; mbi++) {
        if (mir[mbi] != b)
          continue;
        for (uint32_t k = mfirst[mbi]; k < mfirst[mbi] + mcount[mbi]; k++) {
          const minst *x = &ins[k];
          if (x->file != g->file || x->line != g->line ||
              (x->kind != MK_MEM && (x->kind != MK_STACK || pass)))
            continue;
          if (from_blk != CB_NONE && from_blk != mbi) {
            nm = 65;
            break;
          }
          from_blk = mbi;
          if (seen++ < rank || nm >= g->n)
            continue;
          m[nm] = (cp_acc){x->write != 0, x->size,
                           x->kind == MK_STACK ? x->cfa_off : x->disp};
          key[nm++] = x->kind == MK_STACK ? -1 : x->areg;
        }
      }
      if (seen == total && nm == g->n)
        break;
    }
    if (seen != total || nm != g->n)
      continue;
    uint32_t span = g->n_addr;
    for (uint32_t j = 0; j < g->n; j++) {
      const cb_op *op = &f->ops.v[g->first + j];
      bool w = op->code == CB_OP_STORE;
      unsigned lanes = op->lanes ? op->lanes : 1;
      r[j] = (cp_acc){w, cb_ty_bytes(op->ty) * lanes,
                      piece_offset(f, g->first, span, w ? op->b : op->a)};
    }
    if (!rebase(m, key, nm) || !rebase(r, NULL, g->n))
      continue;
    uint32_t order[64];
    bool used[64] = {0}, ok = true;
    for (uint32_t i = 0; i < nm && ok; i++) {
      ok = false;
      for (uint32_t j = 0; j < g->n && !ok; j++)
        if (!used[j] && r[j].write == m[i].write && r[j].size == m[i].size &&
            r[j].rel == m[i].rel) {
          used[j] = true;
          order[i] = j;
          ok = true;
        }
    }
    /* a store after the load of its value */
    for (uint32_t i = 0; i < nm && ok; i++) {
      const cb_op *st = &f->ops.v[g->first + order[i]];
      if (st->code != CB_OP_STORE || (st->a & CB_OPND_CONST))
        continue;
      for (uint32_t k = i + 1; k < nm; k++)
        if (f->ops.v[g->first + order[k]].dst == st->a)
          ok = false;
    }
    if (!ok)
      continue;
    cb_op tmp[64];
    for (uint32_t i = 0; i < nm; i++)
      tmp[i] = f->ops.v[g->first + order[i]];
    memcpy(&f->ops.v[g->first], tmp, nm * sizeof *tmp);
  }
}
