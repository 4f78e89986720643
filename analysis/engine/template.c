/* Loop templates: which loops have one, and how each op of the loop's
 * block is classified (template.h). cb_tpl_run (template_run.c) runs
 * them. A block qualifies when it is its own only latch and exit test
 * (a conditional branch to itself or out), has no machine-code accesses
 * (those are eng_run()'s) and no calls, and when every op that feeds an
 * address or the branch is integer or pointer arithmetic that is affine
 * in the induction variables (phis stepping by a loop-invariant amount)
 * and the loop's invariants. Whether a narrow value wraps is a run-time
 * question, which cb_tpl_run answers before it uses the template. */
#include "template.h"

#include <stdlib.h>
#include <string.h>

#include "engine_scalar.h"

/* Per candidate block while classifying. */
typedef struct cls {
  const cb_program *p;
  const cb_block *b;
  uint32_t self; /* local index of the block */
  uint8_t *slice;
} cls;

/* The op of the block that defines slot o (its first lane), or -1. */
static int32_t def_in_block(const cls *c, cb_operand o) {
  if (o == CB_NONE || (o & CB_OPND_CONST))
    return -1;
  for (uint32_t i = 0; i < c->b->n_ops; i++) {
    const cb_op *op = &c->p->ops[c->b->first_op + i];
    if (op->dst == o)
      return (int32_t)i;
  }
  return -1;
}

/* The operand of phi `op` for the back edge, CB_NONE when it has none. */
static cb_operand phi_back(const cls *c, const cb_op *op) {
  const int64_t *g = &c->p->extra[op->aux];
  for (int64_t j = 0; j < g[0]; j++)
    if ((uint32_t)g[1 + 2 * j] == c->self)
      return (cb_operand)g[2 + 2 * j];
  return CB_NONE;
}

static bool is_int(unsigned ty) {
  return ty >= CB_TY_I1 && ty <= CB_TY_I64;
}
static bool is_intptr(unsigned ty) {
  return is_int(ty) || ty == CB_TY_PTR;
}

/* The operands a control op reads, in cop ref order. */
static unsigned cop_operands(const cb_program *p, const cb_op *op,
                             cb_operand *o, unsigned max) {
  switch ((cb_opcode)op->code) {
  case CB_OP_GEP: {
    const int64_t *g = &p->extra[op->aux];
    unsigned n = 0;
    o[n++] = op->a;
    for (int64_t k = 0; k < g[1] && n < max; k++)
      o[n++] = (cb_operand)((uint64_t)g[2 + 2 * k] & 0xffffffffu);
    return n;
  }
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_SHL:
  case CB_OP_OR:
  case CB_OP_XOR:
  case CB_OP_ICMP:
    o[0] = op->a;
    o[1] = op->b;
    return 2;
  case CB_OP_PHI:
    return 0;
  default:
    o[0] = op->a;
    return 1;
  }
}

/* Can a control op of this form be affine? */
static bool cop_ok(const cls *c, const cb_op *op, uint32_t i, uint32_t cmp) {
  if (op->lanes > 1)
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_PHI: {
    if (!is_intptr(op->ty))
      return false;
    /* an induction variable: its back-edge value is the phi plus an
     * invariant */
    cb_operand bo = phi_back(c, op);
    int32_t bi = def_in_block(c, bo);
    if (bi < 0)
      return false;
    const cb_op *be = &c->p->ops[c->b->first_op + (uint32_t)bi];
    if (be->lanes > 1)
      return false;
    if (be->code == CB_OP_ADD)
      return (be->a == op->dst && def_in_block(c, be->b) < 0) ||
             (be->b == op->dst && def_in_block(c, be->a) < 0);
    if (be->code == CB_OP_SUB)
      return be->a == op->dst && def_in_block(c, be->b) < 0;
    if (be->code == CB_OP_GEP) {
      cb_operand o[64];
      unsigned n = cop_operands(c->p, be, o, 64);
      if (be->a != op->dst || n >= 64)
        return false;
      for (unsigned k = 1; k < n; k++)
        if (def_in_block(c, o[k]) >= 0)
          return false;
      return true;
    }
    return false;
  }
  case CB_OP_ADD:
  case CB_OP_SUB:
    return is_intptr(op->ty);
  case CB_OP_MUL:
    return is_int(op->ty) &&
           (def_in_block(c, op->a) < 0 || def_in_block(c, op->b) < 0);
  case CB_OP_XOR:
    /* x ^ -1 (reversed loops: n - 1 - i), -1 - x; other masks are not
     * affine, which cb_tpl_run finds */
    return is_int(op->ty) &&
           (def_in_block(c, op->a) < 0 || def_in_block(c, op->b) < 0);
  case CB_OP_SHL:
    return is_int(op->ty) && def_in_block(c, op->b) < 0;
  case CB_OP_OR:
    /* x | invariant, which LLVM writes for an add of bits it knows are
     * clear (unrolled loops: i | 1); cb_tpl_run checks that they are */
    return is_int(op->ty) &&
           (def_in_block(c, op->a) < 0 || def_in_block(c, op->b) < 0);
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_SEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    return is_intptr(op->ty) && is_intptr(op->ty2);
  case CB_OP_MOV:
    return is_intptr(op->ty);
  case CB_OP_GEP: {
    const int64_t *g = &c->p->extra[op->aux];
    return g[1] >= 0 && g[1] < 60;
  }
  case CB_OP_ICMP:
    /* only the exit test: it has no affine form */
    return i == cmp && is_intptr(op->ty);
  default:
    return false;
  }
}

/* Can this op be a template's value op: computed every iteration by
 * the loop's native code, with no fault, stop or access other than its
 * stream's (the interpreter's forms; a zero divisor stops the input)? */
static bool vop_ok(const cb_program *p, const cb_op *op, const uint8_t *rmw,
                   uint32_t gi) {
  unsigned l = op->lanes ? op->lanes : 1;
  (void)rmw;
  if (l > 64)
    return false;
  /* a load or store the machine code merged (program->op_access): the
     engine's loop runs it */
  if (p->op_access && p->op_access[gi])
    return false;
  switch ((cb_opcode)op->code) {
  case CB_OP_ADD:
  case CB_OP_SUB:
  case CB_OP_MUL:
  case CB_OP_SHL:
  case CB_OP_LSHR:
  case CB_OP_ASHR:
  case CB_OP_AND:
  case CB_OP_OR:
  case CB_OP_XOR:
    return op->ty < CB_TY_COUNT;
  case CB_OP_UDIV:
  case CB_OP_UREM:
  case CB_OP_SDIV:
  case CB_OP_SREM:
    /* a zero divisor stops the input: only constant divisors, which
     * cannot be zero on any iteration */
    if (!(op->b & CB_OPND_CONST) || op->ty >= CB_TY_COUNT)
      return false;
    for (unsigned i = 0; i < l; i++) {
      uint64_t d = p->consts[(op->b & ~CB_OPND_CONST) + i].u;
      if (op->code == CB_OP_UDIV || op->code == CB_OP_UREM ? d == 0
                                                           : sx(d, op->ty) == 0)
        return false;
    }
    return true;
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
  case CB_OP_FNEG:
  case CB_OP_ICMP:
  case CB_OP_FCMP:
  case CB_OP_SELECT:
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
  case CB_OP_EXTRACTELT:
  case CB_OP_INSERTELT:
    return op->ty < CB_TY_COUNT && op->ty2 < CB_TY_COUNT;
  case CB_OP_BITCAST:
    return op->ty < CB_TY_COUNT && op->ty2 < CB_TY_COUNT &&
           (op->ty == op->ty2 || (cb_ty_bytes(op->ty) == cb_ty_bytes(op->ty2) &&
                                  op->ty != CB_TY_F32 && op->ty2 != CB_TY_F32 &&
                                  op->ty != CB_TY_I1 && op->ty2 != CB_TY_I1));
  case CB_OP_SHUFFLE:
    return op->ty < CB_TY_COUNT;
  case CB_OP_LOAD:
  case CB_OP_STORE:
    return op->ty > CB_TY_VOID && op->ty < CB_TY_F80 &&
           cb_ty_bytes(op->ty) * l <= 64;
  case CB_OP_CALL: {
    /* fused multiply-adds, as cb_intrinsic_call (libc.c) computes them */
    const int64_t *g = &p->extra[op->aux];
    return g[0] == CB_CALL_INTRINSIC &&
           (g[1] == CB_INTR_FMULADD || g[1] == CB_INTR_FMA) && g[3] == 3 &&
           (op->ty == CB_TY_F64 || op->ty == CB_TY_F32) && op->dst != CB_NONE;
  }
  default:
    return false;
  }
}

/* The operands whose values a value op reads (a load's or store's
 * address comes from its stream instead). */
static void vop_operands(const cb_program *p, const cb_op *op,
                         cb_operand o[3]) {
  o[0] = o[1] = o[2] = CB_NONE;
  switch ((cb_opcode)op->code) {
  case CB_OP_LOAD:
    return;
  case CB_OP_STORE:
  case CB_OP_FNEG:
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
  case CB_OP_BITCAST:
  case CB_OP_MOV:
    o[0] = op->a;
    return;
  case CB_OP_SELECT:
  case CB_OP_INSERTELT:
    o[0] = op->a;
    o[1] = op->b;
    o[2] = op->c;
    return;
  case CB_OP_CALL: {
    const int64_t *g = &p->extra[op->aux];
    for (int k = 0; k < 3; k++)
      o[k] = CB_CALL_ARG_OPERAND((uint64_t)g[4 + k]);
    return;
  }
  default: /* binary arithmetic, compares, extractelt, shuffle */
    o[0] = op->a;
    o[1] = op->b;
    return;
  }
}

/* Growable arrays of the set. */
typedef struct bufs {
  size_t ncop, capcop, nref, capref, nvop, capvop, nvphi, capvphi, nstr, capstr,
      nt, capt;
} bufs;

#define GROW(arr, n, cap, extra)                                               \
  do {                                                                         \
    if ((n) + (extra) > (cap)) {                                               \
      size_t nc = ((n) + (extra)) * 2 + 16;                                    \
      void *np_ = realloc((arr), nc * sizeof *(arr));                          \
      if (!np_)                                                                \
        return false;                                                          \
      (arr) = np_;                                                             \
      (cap) = nc;                                                              \
    }                                                                          \
  } while (0)

/* Classifies global block gb of function fn; appends a template when it
 * qualifies (true also when it does not: false only when out of memory). */
static bool classify(cb_tpl_set *ts, bufs *bu, uint32_t gb,
                     const cb_function *fn, const uint32_t *nphis) {
  const cb_program *p = ts->p;
  const cb_block *b = &p->blocks[gb];
  uint32_t self = gb - fn->first_block;
  if (b->n_mach != 0 || b->n_succ != 2 || b->n_ops < 2 || b->n_ops > 512 ||
      nphis[gb] == 0)
    return true;
  uint32_t s0 = p->succs[b->first_succ], s1 = p->succs[b->first_succ + 1];
  if ((s0 == self) == (s1 == self))
    return true;
  const cb_op *br = &p->ops[b->first_op + b->n_ops - 1];
  if (br->code != CB_OP_BR || br->a == CB_NONE)
    return true;
  cls c = {p, b, self, NULL};
  int32_t cmp = def_in_block(&c, br->a);
  if (cmp < 0 || p->ops[b->first_op + (uint32_t)cmp].code != CB_OP_ICMP)
    return true;
  uint32_t n = b->n_ops, np = nphis[gb];
  uint8_t *slice = calloc(n, 1), *reads = calloc(n, 1);
  if (!slice || !reads) {
    free(slice);
    free(reads);
    return false;
  }
  c.slice = slice;
  bool ok = true;
  /* the slice: what addresses and the branch need, to a fixed point */
  slice[cmp] = 1;
  for (uint32_t i = np; i < n - 1; i++) {
    const cb_op *op = &p->ops[b->first_op + i];
    cb_operand a = op->code == CB_OP_LOAD    ? op->a
                   : op->code == CB_OP_STORE ? op->b
                                             : CB_NONE;
    int32_t d = def_in_block(&c, a);
    if (d >= 0)
      slice[d] = 1;
  }
  for (bool changed = true; changed && ok;) {
    changed = false;
    for (uint32_t i = 0; i < n - 1 && ok; i++) {
      if (!slice[i])
        continue;
      const cb_op *op = &p->ops[b->first_op + i];
      if (!cop_ok(&c, op, i, (uint32_t)cmp)) {
        ok = false;
        break;
      }
      cb_operand o[64];
      unsigned no = cop_operands(p, op, o, 64);
      if (op->code == CB_OP_PHI) {
        o[0] = phi_back(&c, op);
        no = 1;
      }
      for (unsigned k = 0; k < no; k++) {
        int32_t d = def_in_block(&c, o[k]);
        if (d >= 0 && !slice[d]) {
          slice[d] = 1;
          changed = true;
        }
      }
    }
  }
  /* value ops and reduction phis: what they read of the slice is
   * materialized */
  uint32_t nvop = 0, nvphi = 0, nstr = 0;
  for (uint32_t i = 0; i < n - 1 && ok; i++) {
    if (slice[i])
      continue;
    const cb_op *op = &p->ops[b->first_op + i];
    cb_operand o[3] = {CB_NONE, CB_NONE, CB_NONE};
    if (op->code == CB_OP_PHI) {
      o[0] = phi_back(&c, op);
      if (o[0] == CB_NONE)
        ok = false;
      nvphi++;
    } else if (!vop_ok(p, op, ts->rmw, b->first_op + i)) {
      ok = false;
    } else {
      nvop++;
      if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE)
        nstr++;
      vop_operands(p, op, o);
    }
    for (int k = 0; k < 3; k++) {
      int32_t d = def_in_block(&c, o[k]);
      if (d >= 0 && slice[d]) {
        if (d == cmp)
          ok = false; /* the compare has no affine form to materialize */
        reads[d] = 1;
      }
    }
  }
  if (!ok) {
    free(slice);
    free(reads);
    return true;
  }
  /* append */
  uint32_t ncop = 0;
  for (uint32_t i = 0; i < n - 1; i++)
    ncop += slice[i];
  GROW(ts->t, bu->nt, bu->capt, 1);
  GROW(ts->cops, bu->ncop, bu->capcop, ncop);
  GROW(ts->refs, bu->nref, bu->capref, ncop * 64);
  GROW(ts->vops, bu->nvop, bu->capvop, nvop);
  GROW(ts->vphis, bu->nvphi, bu->capvphi, nvphi);
  GROW(ts->streams, bu->nstr, bu->capstr, nstr);
  cb_tpl *t = &ts->t[bu->nt];
  memset(t, 0, sizeof *t);
  t->block = gb;
  t->n_ops = n;
  t->np = np;
  t->br_aux = br->aux;
  t->cont = s0 == self ? 1 : 0;
  t->first_cop = (uint32_t)bu->ncop;
  t->first_vop = (uint32_t)bu->nvop;
  t->first_vphi = (uint32_t)bu->nvphi;
  t->first_stream = (uint32_t)bu->nstr;
  /* cop index of each slice op */
  int32_t *ci = malloc(n * sizeof *ci);
  if (!ci) {
    free(slice);
    free(reads);
    return false;
  }
  size_t lanes = 0;
  for (uint32_t i = 0; i < n - 1; i++) {
    ci[i] = slice[i] ? (int32_t)t->n_cop++ : -1;
    if (slice[i])
      continue;
    const cb_op *op = &p->ops[b->first_op + i];
    lanes += op->lanes ? op->lanes : 1;
  }
  for (uint32_t i = 0; i < n - 1; i++) {
    const cb_op *op = &p->ops[b->first_op + i];
    uint32_t gi = b->first_op + i;
    if (slice[i]) {
      cb_tpl_cop *cp = &ts->cops[bu->ncop++];
      cp->op = gi;
      cp->code = op->code;
      cp->ty = op->ty;
      cp->ty2 = op->ty2;
      cp->mat = reads[i];
      cp->back = -1;
      cp->first_ref = (uint32_t)bu->nref;
      cb_operand o[64];
      unsigned no = cop_operands(p, op, o, 64);
      for (unsigned k = 0; k < no; k++) {
        int32_t d = def_in_block(&c, o[k]);
        cb_tpl_ref *r = &ts->refs[bu->nref++];
        r->cop = d >= 0 ? ci[d] : -1;
        r->o = o[k];
      }
      if (op->code == CB_OP_PHI)
        cp->back = ci[def_in_block(&c, phi_back(&c, op))];
      if ((int32_t)i == cmp)
        t->cmp = (uint32_t)ci[i];
      continue;
    }
    if (op->code == CB_OP_PHI) {
      cb_tpl_vphi *vp = &ts->vphis[bu->nvphi++];
      vp->dst = op->dst;
      vp->src = phi_back(&c, op);
      vp->lanes = op->lanes ? op->lanes : 1;
      t->n_vphi++;
      continue;
    }
    ts->vops[bu->nvop++] = gi;
    t->n_vop++;
    if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE) {
      cb_tpl_stream *s = &ts->streams[bu->nstr++];
      bool w = op->code == CB_OP_STORE;
      int32_t d = def_in_block(&c, w ? op->b : op->a);
      s->op = gi;
      s->addr.cop = d >= 0 ? ci[d] : -1;
      s->addr.o = w ? op->b : op->a;
      s->site = op->aux;
      s->size = (uint16_t)(cb_ty_bytes(op->ty) * (op->lanes ? op->lanes : 1));
      s->is_write = w;
      s->emits = !(w && ts->rmw && (ts->rmw[gi] & 1));
      t->n_stream++;
      t->n_rec += s->emits;
      t->n_loads += !w;
      t->n_stores += w && s->emits;
    }
  }
  free(ci);
  free(slice);
  free(reads);
  if (n > ts->max_ops)
    ts->max_ops = n;
  if (lanes > ts->max_lanes)
    ts->max_lanes = lanes;
  ts->of_block[gb] = (int32_t)bu->nt++;
  ts->n = (uint32_t)bu->nt;
  return true;
}

cb_tpl_set *cb_tpl_build(const cb_program *p, const uint8_t *rmw,
                         const uint32_t *nphis) {
  cb_tpl_set *ts = calloc(1, sizeof *ts);
  if (!ts)
    return NULL;
  ts->p = p;
  ts->rmw = rmw;
  ts->of_block = malloc((p->n_blocks + 1) * sizeof *ts->of_block);
  if (!ts->of_block) {
    free(ts);
    return NULL;
  }
  for (uint32_t b = 0; b < p->n_blocks; b++)
    ts->of_block[b] = -1;
  bufs bu = {0};
  bool ok = true;
  for (uint32_t f = 0; f < p->n_functions && ok; f++) {
    const cb_function *fn = &p->functions[f];
    for (uint32_t b = 0; b < fn->n_blocks && ok; b++)
      ok = classify(ts, &bu, fn->first_block + b, fn, nphis);
  }
  if (!ok || !ts->n) {
    cb_tpl_free(ts);
    return NULL;
  }
  return ts;
}

void cb_tpl_free(cb_tpl_set *ts) {
  if (!ts)
    return;
  free(ts->of_block);
  free(ts->t);
  free(ts->cops);
  free(ts->refs);
  free(ts->vops);
  free(ts->vphis);
  free(ts->streams);
  free(ts->scratch);
  free(ts);
}

int32_t cb_tpl_of(const cb_tpl_set *ts, uint32_t gb) {
  return ts->of_block[gb];
}
