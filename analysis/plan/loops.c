/* loops.c: natural loops (one per header: the union of its back edges'
 * bodies), their nesting, exits, and induction variables. */
#include "cbana/cfg.h"

#include <stdlib.h>
#include <string.h>

void cb_loops_find(const cb_program *p, uint32_t func, cb_func_cfg *fc);

typedef struct vec32 {
  uint32_t *v;
  uint32_t n, cap;
} vec32;

static void push(vec32 *x, uint32_t val) {
  if (x->n == x->cap) {
    x->cap = x->cap ? x->cap * 2 : 16;
    x->v = realloc(x->v, x->cap * sizeof *x->v);
    if (!x->v)
      abort();
  }
  x->v[x->n++] = val;
}

typedef struct raw_loop {
  uint32_t header;
  uint8_t *in; /* per block */
  uint32_t size;
  vec32 latches;
} raw_loop;

static int by_size_desc(const void *a, const void *b) {
  const raw_loop *x = a, *y = b;
  if (x->size != y->size)
    return x->size > y->size ? -1 : 1;
  return x->header < y->header ? -1 : x->header > y->header;
}

bool cb_cfg_in_loop(const cb_func_cfg *fc, uint32_t l, uint32_t b) {
  if (b >= fc->n_blocks)
    return false;
  for (uint32_t k = fc->loop_of[b]; k != CB_NONE; k = fc->loops[k].parent)
    if (k == l)
      return true;
  return false;
}

static int64_t sext_ty(uint64_t u, uint8_t ty) {
  switch (ty) {
  case CB_TY_I8:
    return (int8_t)u;
  case CB_TY_I16:
    return (int16_t)u;
  case CB_TY_I32:
    return (int32_t)u;
  default:
    return (int64_t)u;
  }
}

/* Constant step of `def` relative to `slot`, if it is slot +/- constant. */
static bool step_of(const cb_program *p, const cb_op *def, uint32_t slot,
                    int64_t *step) {
  if (!def)
    return false;
  if (def->code == CB_OP_ADD && def->lanes == 1) {
    if (def->a == slot && (def->b & CB_OPND_CONST) && def->b != CB_NONE) {
      *step = sext_ty(cb_program_const(p, def->b)->u, def->ty);
      return true;
    }
    if (def->b == slot && (def->a & CB_OPND_CONST) && def->a != CB_NONE) {
      *step = sext_ty(cb_program_const(p, def->a)->u, def->ty);
      return true;
    }
  }
  if (def->code == CB_OP_SUB && def->lanes == 1 && def->a == slot &&
      (def->b & CB_OPND_CONST) && def->b != CB_NONE) {
    *step = -sext_ty(cb_program_const(p, def->b)->u, def->ty);
    return true;
  }
  if (def->code == CB_OP_GEP && def->a == slot && p->extra[def->aux + 1] == 0) {
    *step = p->extra[def->aux];
    return true;
  }
  return false;
}

void cb_loops_find(const cb_program *p, uint32_t func, cb_func_cfg *fc) {
  const cb_function *f = &p->functions[func];
  uint32_t n = f->n_blocks;
  const cb_block *bl = &p->blocks[f->first_block];
  fc->loop_of = calloc(n ? n : 1, sizeof *fc->loop_of);
  for (uint32_t i = 0; i < n; i++)
    fc->loop_of[i] = CB_NONE;
  /* one raw loop per header with back edges */
  raw_loop *raw = NULL;
  uint32_t nraw = 0;
  uint32_t *hdr_loop = malloc((n ? n : 1) * sizeof *hdr_loop);
  for (uint32_t i = 0; i < n; i++)
    hdr_loop[i] = CB_NONE;
  uint32_t *work = malloc((n ? n : 1) * sizeof *work);
  for (uint32_t i = 0; i < fc->n_rpo; i++) {
    uint32_t b = fc->rpo[i];
    for (uint32_t k = 0; k < bl[b].n_succ; k++) {
      uint32_t h = p->succs[bl[b].first_succ + k];
      if (h >= n || !cb_cfg_dominates(fc, h, b))
        continue;
      if (hdr_loop[h] == CB_NONE) {
        raw = realloc(raw, (nraw + 1) * sizeof *raw);
        memset(&raw[nraw], 0, sizeof *raw);
        raw[nraw].header = h;
        raw[nraw].in = calloc(n, 1);
        raw[nraw].in[h] = 1;
        raw[nraw].size = 1;
        hdr_loop[h] = nraw++;
      }
      raw_loop *L = &raw[hdr_loop[h]];
      bool dup = false;
      for (uint32_t j = 0; j < L->latches.n; j++)
        dup |= L->latches.v[j] == b;
      if (!dup)
        push(&L->latches, b);
      /* walk predecessors back from the latch up to the header */
      uint32_t w = 0;
      if (!L->in[b]) {
        L->in[b] = 1;
        L->size++;
        work[w++] = b;
      }
      while (w) {
        uint32_t x = work[--w];
        for (uint32_t q = 0; q < bl[x].n_pred; q++) {
          uint32_t pr = p->preds[bl[x].first_pred + q];
          if (pr < n && !L->in[pr] && fc->rpo_index[pr] != CB_NONE) {
            L->in[pr] = 1;
            L->size++;
            work[w++] = pr;
          }
        }
      }
    }
  }
  free(work);
  free(hdr_loop);
  if (nraw)
    qsort(raw, nraw, sizeof *raw, by_size_desc);
  fc->n_loops = nraw;
  fc->loops = calloc(nraw ? nraw : 1, sizeof *fc->loops);
  vec32 blocks = {0}, latches = {0}, exits = {0};
  /* innermost loop per block: loops come larger first, so the last one
     containing a block is the innermost */
  for (uint32_t l = 0; l < nraw; l++)
    for (uint32_t b = 0; b < n; b++)
      if (raw[l].in[b])
        fc->loop_of[b] = l;
  /* slot -> defining op, for induction variables */
  uint32_t *def = malloc((f->n_slots ? f->n_slots : 1) * sizeof *def);
  for (uint32_t s = 0; s < f->n_slots; s++)
    def[s] = CB_NONE;
  for (uint32_t b = 0; b < n; b++)
    for (uint32_t k = 0; k < bl[b].n_ops; k++) {
      const cb_op *op = &p->ops[bl[b].first_op + k];
      if (op->dst != CB_NONE && op->dst < f->n_slots)
        def[op->dst] = bl[b].first_op + k;
    }
  vec32 ivbuf = {0};
  cb_indvar *ivs = NULL;
  uint32_t nivs = 0;
  for (uint32_t l = 0; l < nraw; l++) {
    cb_loop *L = &fc->loops[l];
    raw_loop *R = &raw[l];
    L->header = R->header;
    L->parent = CB_NONE;
    for (uint32_t o = l; o-- > 0;)
      if (raw[o].in[R->header] && raw[o].size > R->size) {
        L->parent = o;
        break;
      }
    L->depth = L->parent == CB_NONE ? 1 : fc->loops[L->parent].depth + 1;
    L->first_block = blocks.n;
    push(&blocks, R->header);
    for (uint32_t i = 0; i < fc->n_rpo; i++)
      if (R->in[fc->rpo[i]] && fc->rpo[i] != R->header)
        push(&blocks, fc->rpo[i]);
    L->n_blocks = blocks.n - L->first_block;
    L->first_latch = latches.n;
    for (uint32_t i = 0; i < R->latches.n; i++)
      push(&latches, R->latches.v[i]);
    L->n_latches = R->latches.n;
    L->first_exit = exits.n;
    for (uint32_t i = L->first_block; i < blocks.n; i++) {
      uint32_t b = blocks.v[i];
      for (uint32_t k = 0; k < bl[b].n_succ; k++) {
        uint32_t s = p->succs[bl[b].first_succ + k];
        if (s >= n || R->in[s])
          continue;
        bool dup = false;
        for (uint32_t j = L->first_exit; j < exits.n; j++)
          dup |= exits.v[j] == s;
        if (!dup)
          push(&exits, s);
      }
    }
    L->n_exits = exits.n - L->first_exit;
    /* location: the branch point ending the header, else a latch's */
    L->file = CB_NONE;
    uint32_t cand[2] = {R->header, R->latches.n ? R->latches.v[0] : CB_NONE};
    for (int c = 0; c < 2 && !L->line; c++) {
      if (cand[c] == CB_NONE || bl[cand[c]].n_ops == 0)
        continue;
      const cb_op *t = &p->ops[bl[cand[c]].first_op + bl[cand[c]].n_ops - 1];
      uint32_t br = CB_NONE;
      if (t->code == CB_OP_BR)
        br = t->aux;
      else if (t->code == CB_OP_SWITCH)
        br = (uint32_t)p->extra[t->aux + 1 + 2 * p->extra[t->aux]];
      if (br != CB_NONE && br < p->n_branches && p->branches[br].line) {
        L->file = p->branches[br].file;
        L->line = p->branches[br].line;
      }
    }
    /* induction variables: header phis */
    L->first_iv = nivs;
    const cb_block *hb = &bl[R->header];
    for (uint32_t k = 0; k < hb->n_ops; k++) {
      uint32_t oi = hb->first_op + k;
      const cb_op *phi = &p->ops[oi];
      if (phi->code != CB_OP_PHI)
        break;
      if (phi->lanes != 1)
        continue;
      int64_t np = p->extra[phi->aux];
      cb_operand init = CB_NONE;
      bool ok = true, have_step = false;
      int64_t step = 0;
      for (int64_t j = 0; j < np && ok; j++) {
        uint32_t pred = (uint32_t)p->extra[phi->aux + 1 + 2 * j];
        cb_operand v = (cb_operand)p->extra[phi->aux + 2 + 2 * j];
        if (pred < n && R->in[pred]) {
          int64_t s;
          const cb_op *d =
              !(v & CB_OPND_CONST) && v < f->n_slots && def[v] != CB_NONE
                  ? &p->ops[def[v]]
                  : NULL;
          if (!step_of(p, d, phi->dst, &s) || (have_step && s != step))
            ok = false;
          step = s;
          have_step = true;
        } else {
          if (init != CB_NONE && init != v)
            ok = false;
          init = v;
        }
      }
      if (!ok || !have_step || init == CB_NONE)
        continue;
      ivs = realloc(ivs, (nivs + 1) * sizeof *ivs);
      ivs[nivs].slot = phi->dst;
      ivs[nivs].op = oi;
      ivs[nivs].init = init;
      ivs[nivs].step = step;
      ivs[nivs].ty = phi->ty;
      nivs++;
    }
    L->n_ivs = nivs - L->first_iv;
  }
  free(ivbuf.v);
  free(def);
  fc->loop_blocks = blocks.v;
  fc->latches = latches.v;
  fc->exits = exits.v;
  fc->ivs = ivs;
  fc->n_ivs = nivs;
  for (uint32_t l = 0; l < nraw; l++) {
    free(raw[l].in);
    free(raw[l].latches.v);
  }
  free(raw);
}
