/* Running a loop template (template.h): closed forms for the control and
 * address ops, the trip count, the memory checks, and the value ops'
 * evaluator over operands resolved once per loop entry.
 *
 * Closed forms. Every control op's value on iteration t is (A + t * B)
 * mod 2^w, w its type's width: induction phis step by an invariant B, and
 * add, sub, mul by an invariant, shl by an invariant and truncation
 * preserve that form modulo 2^w. Widening (sext, zext, a gep index
 * narrower than 64 bits) preserves it only while the narrow value does
 * not wrap: each widening is checked at the first and the last iteration
 * the template runs (the values are linear in t, so both ends bound every
 * iteration between). The trip count is found by evaluating the exit
 * compare on the closed forms, iteration by iteration (a few host
 * instructions each), which needs no case analysis of predicates, signs
 * and wraps. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "engine_scalar.h"
#include "template.h"

/* Forms the evaluator runs without the generic code: f64 lanes (one or
 * two), 8- and 16-byte loads and stores. */
enum {
  RK_GEN = 0,
  RK_LD8,
  RK_LD16,
  RK_ST8,
  RK_ST16,
  RK_FADD1,
  RK_FSUB1,
  RK_FMUL1,
  RK_FDIV1,
  RK_FADD2,
  RK_FSUB2,
  RK_FMUL2,
  RK_FDIV2,
  RK_FMA1,
  RK_FMA2,
  RK_LD4, /* one 4-byte lane: i32, f32 (zero-extended bits, as load_lane) */
  RK_ST4,
  RK_ADD1, /* one integer lane */
  RK_ICMP1,
  RK_SEL1 /* one lane */
};

/* A value op with its operands resolved for this frame. */
typedef struct rvop {
  const cb_op *op;
  cb_value *d;
  const cb_value *a, *b, *c;
  int32_t s;    /* stream of a load or store, else -1 */
  uint8_t vsel; /* a select on a lane vector (engine_check.c, rmw bit 1) */
  uint8_t kind; /* RK_ */
  uint8_t emit; /* a load, or a store not folded into its load */
} rvop;

static uint8_t rk_kind(const cb_op *op) {
  unsigned l = op->lanes ? op->lanes : 1;
  bool w8 = op->ty == CB_TY_F64 || op->ty == CB_TY_I64 || op->ty == CB_TY_PTR;
  bool w4 = op->ty == CB_TY_I32 || op->ty == CB_TY_F32;
  switch ((cb_opcode)op->code) {
  case CB_OP_LOAD:
    if (w4 && l == 1)
      return RK_LD4;
    return !w8 ? RK_GEN : l == 1 ? RK_LD8 : l == 2 ? RK_LD16 : RK_GEN;
  case CB_OP_STORE:
    if (w4 && l == 1)
      return RK_ST4;
    return !w8 ? RK_GEN : l == 1 ? RK_ST8 : l == 2 ? RK_ST16 : RK_GEN;
  case CB_OP_ADD:
    return l == 1 ? RK_ADD1 : RK_GEN;
  case CB_OP_ICMP:
    return l == 1 ? RK_ICMP1 : RK_GEN;
  case CB_OP_SELECT:
    return l == 1 ? RK_SEL1 : RK_GEN;
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
    if (op->ty != CB_TY_F64 || l > 2)
      return RK_GEN;
    return (uint8_t)((l == 1 ? RK_FADD1 : RK_FADD2) + (op->code - CB_OP_FADD));
  case CB_OP_CALL:
    return op->ty != CB_TY_F64 ? RK_GEN
           : l == 1            ? RK_FMA1
           : l == 2            ? RK_FMA2
                               : RK_GEN;
  default:
    return RK_GEN;
  }
}

/* An address stream while the template runs. */
typedef struct sstate {
  uint64_t addr; /* this iteration's */
  int64_t stride;
  /* a load walking more than a cache line per iteration (a column) misses
   * the host's caches unless its line is fetched ahead: the address
   * CB_TPL_AHEAD iterations on, for pf_n more iterations (those checked
   * to be mapped) */
  uint64_t pf_n;
  uint64_t pno; /* page of `page` (UINT64_MAX: none yet) */
  uint8_t *page;
} sstate;

/* A widening that must not wrap: a + t * b within [lo, hi]. */
typedef struct wcheck {
  int64_t a, b, lo, hi;
} wcheck;

typedef struct mat {
  uint64_t *slot;
  uint64_t cur, step, mask;
} mat;

typedef struct scratch {
  uint64_t *A, *B;
  rvop *rv;
  sstate *ss;
  cb_affine_access *acc;
  wcheck *wc;
  mat *mt;
  uint64_t *ptmp;
  size_t cap_wc;
} scratch;

static bool get_scratch(cb_tpl_set *ts, scratch *sc) {
  size_t m = ts->max_ops + 1, nwc = m * 64;
  size_t sz = m * 2 * sizeof(uint64_t) + m * sizeof(rvop) + m * sizeof(sstate) +
              m * sizeof(cb_affine_access) + nwc * sizeof(wcheck) +
              m * sizeof(mat) + (ts->max_lanes + 1) * sizeof(uint64_t);
  if (!ts->scratch && !(ts->scratch = malloc(sz)))
    return false;
  /* every element type is 8-byte aligned */
  char *q = ts->scratch;
  sc->A = (uint64_t *)(void *)q;
  q += m * sizeof(uint64_t);
  sc->B = (uint64_t *)(void *)q;
  q += m * sizeof(uint64_t);
  sc->rv = (rvop *)(void *)q;
  q += m * sizeof(rvop);
  sc->ss = (sstate *)(void *)q;
  q += m * sizeof(sstate);
  sc->acc = (cb_affine_access *)(void *)q;
  q += m * sizeof(cb_affine_access);
  sc->wc = (wcheck *)(void *)q;
  q += nwc * sizeof(wcheck);
  sc->mt = (mat *)(void *)q;
  q += m * sizeof(mat);
  sc->ptmp = (uint64_t *)(void *)q;
  sc->cap_wc = nwc;
  return true;
}

static inline const cb_value *opnd(const cb_program *p, cb_value *S,
                                   cb_operand o) {
  return o & CB_OPND_CONST ? &p->consts[o & ~CB_OPND_CONST] : &S[o];
}

static inline void ref_val(const cb_program *p, cb_value *S, const scratch *sc,
                           const cb_tpl_ref *r, uint64_t *a, uint64_t *b) {
  if (r->cop >= 0) {
    *a = sc->A[r->cop];
    *b = sc->B[r->cop];
  } else {
    *a = opnd(p, S, r->o)->u;
    *b = 0;
  }
}

/* The w-bit value (a + t b) mod 2^w extended to 64 bits, signed or not:
 * its closed form when it does not wrap, with the check that says so. */
static void widen(scratch *sc, size_t *nwc, unsigned w, bool sgn, uint64_t a,
                  uint64_t b, uint64_t *ra, uint64_t *rb) {
  if (w >= 64 || w == 0) {
    *ra = a;
    *rb = b;
    return;
  }
  uint64_t m = (1ull << w) - 1;
  int64_t bs = sxbits(b & m, w);
  int64_t as = sgn ? sxbits(a & m, w) : (int64_t)(a & m);
  *ra = (uint64_t)as;
  *rb = (uint64_t)bs;
  if (bs == 0)
    return; /* invariant: its one value is exact */
  wcheck *c = &sc->wc[(*nwc)++];
  c->a = as;
  c->b = bs;
  c->lo = sgn ? -(int64_t)(1ull << (w - 1)) : 0;
  c->hi = sgn ? (int64_t)((1ull << (w - 1)) - 1) : (int64_t)m;
}

/* The step of induction phi cp: its back-edge value is the phi plus
 * invariants (template.c), whose sum this is. */
static uint64_t phi_step(const cb_tpl_set *ts, const cb_tpl *t, cb_value *S,
                         const cb_tpl_cop *cp) {
  const cb_program *p = ts->p;
  const cb_tpl_cop *bc = &ts->cops[t->first_cop + (uint32_t)cp->back];
  const cb_op *be = &p->ops[bc->op];
  const cb_tpl_ref *R = &ts->refs[bc->first_ref];
  switch ((cb_opcode)be->code) {
  case CB_OP_ADD:
    return opnd(p, S, R[R[0].cop >= 0 ? 1 : 0].o)->u;
  case CB_OP_SUB:
    return 0 - opnd(p, S, R[1].o)->u;
  default: { /* CB_OP_GEP */
    const int64_t *g = &p->extra[be->aux];
    uint64_t step = (uint64_t)g[0];
    for (int64_t k = 0; k < g[1]; k++) {
      uint64_t x = (uint64_t)g[2 + 2 * k];
      step += (uint64_t)sxbits(opnd(p, S, R[1 + k].o)->u, (unsigned)(x >> 32)) *
              (uint64_t)g[3 + 2 * k];
    }
    return step;
  }
  }
}

/* A and B of every control op; false when a widening has too many
 * checks for the scratch. */
static bool eval_cops(const cb_tpl_set *ts, const cb_tpl *t, cb_value *S,
                      scratch *sc, size_t *nwc) {
  const cb_program *p = ts->p;
  *nwc = 0;
  for (uint32_t j = 0; j < t->n_cop; j++) {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + j];
    const cb_op *op = &p->ops[cp->op];
    const cb_tpl_ref *R = &ts->refs[cp->first_ref];
    uint64_t m = ty_mask[op->ty], aa = 0, ab = 0, ba = 0, bb = 0, A = 0, B = 0;
    if (*nwc + 64 > sc->cap_wc)
      return false;
    switch ((cb_opcode)op->code) {
    case CB_OP_PHI:
      A = S[op->dst].u & m;
      B = phi_step(ts, t, S, cp);
      break;
    case CB_OP_ADD:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      A = aa + ba;
      B = ab + bb;
      break;
    case CB_OP_SUB:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      A = aa - ba;
      B = ab - bb;
      break;
    case CB_OP_MUL:
      /* one side is invariant (template.c): no t^2 term */
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      A = aa * ba;
      B = ab * ba + aa * bb;
      break;
    case CB_OP_SHL: {
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      unsigned s = (unsigned)(ba & (ty_bits(op->ty) - 1));
      A = aa << s;
      B = ab << s;
      break;
    }
    case CB_OP_OR: {
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      if (bb != 0) { /* the invariant first */
        uint64_t x = aa, y = ab;
        aa = ba;
        ab = bb;
        ba = x;
        bb = y;
      }
      /* now ba | aa + t ab: an add when no bit of the invariant ba can
       * be set in the varying one, whose low bits ctz(aa | ab) are zero
       * on every iteration */
      if (ab == 0) {
        A = aa | ba;
        B = 0;
      } else {
        unsigned z = (unsigned)__builtin_ctzll((aa | ab) & m);
        if ((ba & m) >> z != 0)
          return false;
        A = aa + ba;
        B = ab;
      }
      break;
    }
    case CB_OP_XOR:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      if (bb != 0) { /* the invariant first */
        uint64_t x = aa, y = ab;
        aa = ba;
        ab = bb;
        ba = x;
        bb = y;
      }
      if (ab == 0) {
        A = aa ^ ba;
        B = 0;
      } else if ((ba & m) == m) {
        A = ~aa; /* -1 - x, modulo 2^w */
        B = 0 - ab;
      } else {
        return false;
      }
      break;
    case CB_OP_SEXT:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      widen(sc, nwc, ty_bits(op->ty2), true, aa, ab, &A, &B);
      break;
    case CB_OP_TRUNC:
    case CB_OP_ZEXT:
    case CB_OP_PTRTOINT:
    case CB_OP_INTTOPTR:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      if (ty_bits(op->ty) > ty_bits(op->ty2))
        widen(sc, nwc, ty_bits(op->ty2), false, aa, ab, &A, &B);
      else {
        A = aa;
        B = ab;
      }
      break;
    case CB_OP_MOV:
      ref_val(p, S, sc, &R[0], &A, &B);
      break;
    case CB_OP_GEP: {
      const int64_t *g = &p->extra[op->aux];
      ref_val(p, S, sc, &R[0], &A, &B);
      A += (uint64_t)g[0];
      for (int64_t k = 0; k < g[1]; k++) {
        uint64_t x = (uint64_t)g[2 + 2 * k], scale = (uint64_t)g[3 + 2 * k];
        unsigned bits = (unsigned)(x >> 32);
        const cb_tpl_ref *r = &R[1 + k];
        ref_val(p, S, sc, r, &aa, &ab);
        if (r->cop >= 0) {
          /* the index's own width w: zero-extended in its slot, then
           * sign-extended from the gep's bits */
          unsigned w =
              ty_bits(p->ops[ts->cops[t->first_cop + (uint32_t)r->cop].op].ty);
          if (bits != 0 && bits < 64 && bits <= w)
            widen(sc, nwc, bits, true, aa, ab, &aa, &ab);
          else
            widen(sc, nwc, w, false, aa, ab, &aa, &ab);
        } else {
          aa = (uint64_t)sxbits(aa, bits);
        }
        A += aa * scale;
        B += ab * scale;
      }
      break;
    }
    default: /* the exit compare: evaluated by the caller */
      break;
    }
    sc->A[j] = A & m;
    sc->B[j] = B & m;
  }
  return true;
}

static inline bool wc_ok(const wcheck *c, uint64_t t) {
  __int128 v = (__int128)c->a + (__int128)t * c->b;
  return v >= c->lo && v <= c->hi;
}

/* Is every byte of [addr, addr + size) mapped? (size <= a page) The
 * pages are touched where eng_run() touches them (cb_mem_read: addr, then
 * the next page's start), as whether a page is valid may depend on the
 * address of its first touch (mem.c). */
static bool mapped(cb_mem *mem, uint64_t addr, unsigned size) {
  if (!cb_mem_ptr(mem, addr))
    return false;
  uint64_t end = addr + size - 1;
  return (end >> CB_PG_BITS) == (addr >> CB_PG_BITS) ||
         cb_mem_ptr(mem, end & ~(uint64_t)(CB_PG_SIZE - 1));
}

/* Is [lo, hi) inside one mapped region whose ends are page boundaries?
 * Then every page of it is valid whatever touches it first. */
static bool in_region(const cb_mem *mem, uint64_t lo, uint64_t hi) {
  for (size_t i = 0; i < mem->nregs; i++) {
    const cb_mem_region *r = &mem->regs[i];
    if (lo >= r->lo && hi <= r->hi)
      return ((r->lo | r->hi) & (CB_PG_SIZE - 1)) == 0;
  }
  return false;
}

/* The first iteration t < k whose access of the stream touches an
 * unmapped byte (the interpreter's fault), else k. An access that crosses
 * into a mapped page is no stop: the template takes it as the interpreter
 * does, through a copy. */
static uint64_t first_bad(cb_mem *mem, uint64_t base, int64_t stride,
                          unsigned size, uint64_t k) {
  if (stride > (int64_t)1 << 40 || stride < -((int64_t)1 << 40))
    return 0; /* no array is that large: leave it to the interpreter */
  if (stride == 0)
    return mapped(mem, base, size) ? k : 0;
  /* the whole range at once (column walks would check a page per
   * iteration) */
  uint64_t last = base + (k - 1) * (uint64_t)stride;
  if (stride > 0 && last >= base && last + size > last &&
      in_region(mem, base, last + size))
    return k;
  if (stride < 0 && last <= base && base + size > base &&
      in_region(mem, last, base + size))
    return k;
  uint64_t t = 0;
  while (t < k) {
    uint64_t addr = base + t * (uint64_t)stride;
    if (!mapped(mem, addr, size))
      return t;
    uint64_t off = addr & (CB_PG_SIZE - 1), run;
    if (stride > 0) {
      /* iterations left in this page; only the last can cross its end */
      run = (CB_PG_SIZE - 1 - off) / (uint64_t)stride + 1;
      if (run > k - t)
        run = k - t;
      uint64_t last = addr + (run - 1) * (uint64_t)stride;
      if (!mapped(mem, last, size))
        return t + run - 1;
    } else {
      /* the first of the run has the highest address, checked above */
      run = off / (uint64_t)(-stride) + 1;
      if (run > k - t)
        run = k - t;
    }
    t += run;
  }
  return k;
}

/* The host address of the stream's access (then the next iteration's),
 * NULL when it crosses a page (the caller copies, as eng_run() does). */
#define CB_TPL_AHEAD 6

static inline uint8_t *stream_ptr(cb_mem *mem, sstate *s, unsigned size) {
  uint64_t addr = s->addr;
  if (s->pf_n) {
    s->pf_n--;
    const uint8_t *h =
        cb_mem_ptr(mem, addr + (uint64_t)(s->stride * CB_TPL_AHEAD));
    __builtin_prefetch(h);
  }
  if (__builtin_expect((addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0)) {
    s->addr = addr + (uint64_t)s->stride;
    return NULL;
  }
  if (__builtin_expect((addr >> CB_PG_BITS) != s->pno, 0)) {
    s->pno = addr >> CB_PG_BITS;
    s->page = cb_mem_ptr(mem, addr & ~(uint64_t)(CB_PG_SIZE - 1));
  }
  s->addr = addr + (uint64_t)s->stride;
  return s->page + (addr & (CB_PG_SIZE - 1));
}

/* One value op, as eng_run() computes it (engine_interp.c). */
static inline void run_vop(cb_eng *e, const rvop *r, sstate *ss, int emit) {
  const cb_op *op = r->op;
  unsigned l = op->lanes ? op->lanes : 1;
  cb_value *d = r->d;
  const cb_value *a = r->a, *b = r->b, *c = r->c;
  switch ((cb_opcode)op->code) {
  case CB_OP_LOAD: {
    sstate *s = &ss[r->s];
    uint64_t addr = s->addr;
    unsigned bytes = cb_ty_bytes(op->ty);
    const uint8_t *pp = stream_ptr(&e->mem, s, bytes * l);
    uint8_t tmp[64]; /* loads and stores of at most 64 bytes (template.c) */
    if (!pp) {
      cb_mem_read(&e->mem, addr, tmp, bytes * l, NULL); /* mapped: checked */
      pp = tmp;
    }
    if (l == 1)
      load_lane(d, pp, op->ty);
    else
      for (unsigned i = 0; i < l; i++)
        load_lane(&d[i], pp + i * bytes, op->ty);
    if (emit)
      cb_eng_emit(e, addr, bytes * l, op->aux, false);
    return;
  }
  case CB_OP_STORE: {
    sstate *s = &ss[r->s];
    uint64_t addr = s->addr;
    unsigned bytes = cb_ty_bytes(op->ty);
    uint8_t *pp = stream_ptr(&e->mem, s, bytes * l), tmp[64];
    uint8_t *q = pp ? pp : tmp;
    if (l == 1)
      store_lane(q, a, op->ty);
    else
      for (unsigned i = 0; i < l; i++)
        store_lane(q + i * bytes, &a[i], op->ty);
    if (!pp)
      cb_mem_write(&e->mem, addr, tmp, bytes * l, NULL);
    if (emit && !(e->rmw[op - e->p->ops] & 1))
      cb_eng_emit(e, addr, bytes * l, op->aux, true);
    return;
  }
  case CB_OP_FADD:
  case CB_OP_FSUB:
  case CB_OP_FMUL:
  case CB_OP_FDIV:
  case CB_OP_FREM:
    if (op->ty == CB_TY_F64 && op->code != CB_OP_FREM) {
      switch (op->code) {
      case CB_OP_FADD:
        for (unsigned i = 0; i < l; i++)
          d[i].d = a[i].d + b[i].d;
        return;
      case CB_OP_FSUB:
        for (unsigned i = 0; i < l; i++)
          d[i].d = a[i].d - b[i].d;
        return;
      case CB_OP_FMUL:
        for (unsigned i = 0; i < l; i++)
          d[i].d = a[i].d * b[i].d;
        return;
      default:
        for (unsigned i = 0; i < l; i++)
          d[i].d = a[i].d / b[i].d;
        return;
      }
    }
    for (unsigned i = 0; i < l; i++)
      fbin(op->code, op->ty, &a[i], &b[i], &d[i]);
    return;
  case CB_OP_CALL: {
    cb_value t[64];
    if (op->ty == CB_TY_F32)
      for (unsigned i = 0; i < l; i++)
        fp_put_f(&t[i], fmaf(a[i].f, b[i].f, c[i].f));
    else
      for (unsigned i = 0; i < l; i++)
        t[i].d = fma(a[i].d, b[i].d, c[i].d);
    for (unsigned i = 0; i < l; i++)
      d[i] = t[i];
    return;
  }
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
    /* divisors are non-zero constants (template.c) */
    for (unsigned i = 0; i < l; i++)
      (void)ibin(op->code, op->ty, a[i].u, b[i].u, &d[i].u);
    return;
  case CB_OP_FNEG:
    for (unsigned i = 0; i < l; i++) {
      if (op->ty == CB_TY_F32)
        fp_put_f(&d[i], -a[i].f);
      else
        d[i].d = -a[i].d;
    }
    return;
  case CB_OP_ICMP:
    for (unsigned i = 0; i < l; i++)
      d[i].u = icmp(op->aux, a[i].u & ty_mask[op->ty], b[i].u & ty_mask[op->ty],
                    op->ty);
    return;
  case CB_OP_FCMP:
    for (unsigned i = 0; i < l; i++) {
      double x = op->ty == CB_TY_F32 ? a[i].f : a[i].d;
      double y = op->ty == CB_TY_F32 ? b[i].f : b[i].d;
      d[i].u = fcmp(op->aux, x, y);
    }
    return;
  case CB_OP_SELECT:
    if (r->vsel)
      for (unsigned i = 0; i < l; i++)
        d[i] = (a[i].u & 1) ? b[i] : c[i];
    else {
      const cb_value *src = (a->u & 1) ? b : c;
      for (unsigned i = 0; i < l; i++)
        d[i] = src[i];
    }
    return;
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
    for (unsigned i = 0; i < l; i++)
      cast1(op->code, op->ty, op->ty2, &a[i], &d[i]);
    return;
  case CB_OP_BITCAST:
    if (op->ty == op->ty2 || (ty_bits(op->ty) == ty_bits(op->ty2) &&
                              op->ty != CB_TY_F32 && op->ty2 != CB_TY_F32)) {
      for (unsigned i = 0; i < l; i++)
        d[i] = a[i];
    } else {
      bitcast(op->ty, l, op->ty2, a, d);
    }
    return;
  case CB_OP_MOV:
    for (unsigned i = 0; i < l; i++)
      d[i] = a[i];
    return;
  case CB_OP_EXTRACTELT: {
    uint64_t i = b->u;
    d[0] = i < op->lanes ? a[i] : (cb_value){0};
    return;
  }
  case CB_OP_INSERTELT: {
    uint64_t idx = c->u;
    for (unsigned i = 0; i < l; i++)
      d[i] = a[i];
    if (idx < l)
      d[idx] = *b;
    return;
  }
  case CB_OP_SHUFFLE: {
    const int64_t *g = &e->p->extra[op->aux];
    unsigned src = (unsigned)g[0];
    cb_value tmp[64];
    for (unsigned i = 0; i < l; i++) {
      int64_t m = g[1 + i];
      tmp[i] = m < 0                   ? (cb_value){0}
               : (uint64_t)m < src     ? a[m]
               : (uint64_t)m < 2 * src ? b[m - src]
                                       : (cb_value){0};
    }
    for (unsigned i = 0; i < l; i++)
      d[i] = tmp[i];
    return;
  }
  default:
    return; /* not classified as a value op (template.c) */
  }
}

uint64_t cb_tpl_run(cb_eng *e, cb_frame *F, cb_value *S, int32_t ti,
                    uint64_t *budget) {
  cb_tpl_set *ts = e->tpl;
  const cb_tpl *t = &ts->t[ti];
  const cb_program *p = e->p;
  scratch sc;
  if (*budget <= t->n_ops || !get_scratch(ts, &sc))
    return 0;
  /* closed forms */
  size_t nwc;
  if (!eval_cops(ts, t, S, &sc, &nwc))
    return 0;

  /* the iterations that stay in the loop, within the budget (at least one
   * operation left after them, so the interpreter stops where it would) */
  uint64_t cap = (*budget - 1) / t->n_ops, k = 0;
  {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + t->cmp];
    const cb_op *op = &p->ops[cp->op];
    const cb_tpl_ref *R = &ts->refs[cp->first_ref];
    uint64_t xa, xb, ya, yb, m = ty_mask[op->ty];
    ref_val(p, S, &sc, &R[0], &xa, &xb);
    ref_val(p, S, &sc, &R[1], &ya, &yb);
    unsigned pred = op->aux, ty = op->ty;
    bool cont = t->cont;
    while (k < cap && icmp(pred, xa & m, ya & m, ty) == cont) {
      k++;
      xa += xb;
      ya += yb;
    }
  }
  if (k < 2)
    return 0;
  for (size_t i = 0; i < nwc; i++)
    if (!wc_ok(&sc.wc[i], 0) || !wc_ok(&sc.wc[i], k - 1))
      return 0;
  /* every access of iterations 0 .. k-1 on a mapped page, none crossing */
  for (uint32_t i = 0; i < t->n_stream; i++) {
    const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
    uint64_t a, b;
    ref_val(p, S, &sc, &st->addr, &a, &b);
    k = first_bad(&e->mem, a, (int64_t)b, st->size, k);
    sstate *s = &sc.ss[i];
    s->addr = a;
    s->stride = (int64_t)b;
    s->pno = UINT64_MAX;
    s->page = NULL;
    s->pf_n = 0;
    cb_affine_access *ac = &sc.acc[i];
    ac->base = a;
    ac->stride = (int64_t)b;
    ac->site = st->site;
    ac->size = st->size;
    ac->is_write = st->is_write;
    ac->reserved = 0;
  }
  if (k < 2)
    return 0;
  for (uint32_t i = 0; i < t->n_stream; i++) {
    const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
    sstate *s = &sc.ss[i];
    if (!st->is_write && (s->stride >= 64 || s->stride <= -64) &&
        k > CB_TPL_AHEAD)
      s->pf_n = k - CB_TPL_AHEAD; /* every address before k is mapped */
  }

  /* operands resolved once */
  uint32_t nmat = 0;
  for (uint32_t j = 0; j < t->n_cop; j++) {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + j];
    if (!cp->mat)
      continue;
    const cb_op *op = &p->ops[cp->op];
    mat *mt = &sc.mt[nmat++];
    mt->slot = &S[op->dst].u;
    mt->cur = sc.A[j];
    mt->step = sc.B[j];
    mt->mask = ty_mask[op->ty];
  }
  for (uint32_t i = 0, ns = 0; i < t->n_vop; i++) {
    uint32_t gi = ts->vops[t->first_vop + i];
    const cb_op *op = &p->ops[gi];
    rvop *r = &sc.rv[i];
    cb_operand o[3] = {op->a, op->b, op->c};
    r->op = op;
    r->d = op->dst != CB_NONE ? &S[op->dst] : NULL;
    r->s = -1;
    r->vsel = (e->rmw[gi] & 2) != 0;
    r->kind = rk_kind(op);
    r->emit = op->code == CB_OP_LOAD ||
              (op->code == CB_OP_STORE && !(e->rmw[gi] & 1));
    if (op->code == CB_OP_CALL) {
      const int64_t *g = &p->extra[op->aux];
      for (int k2 = 0; k2 < 3; k2++)
        o[k2] = CB_CALL_ARG_OPERAND((uint64_t)g[4 + k2]);
    }
    if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE)
      r->s = (int32_t)ns++;
    r->a = o[0] != CB_NONE ? opnd(p, S, o[0]) : NULL;
    r->b = o[1] != CB_NONE ? opnd(p, S, o[1]) : NULL;
    r->c = o[2] != CB_NONE ? opnd(p, S, o[2]) : NULL;
  }
  const cb_tpl_vphi *vp = &ts->vphis[t->first_vphi];
  const cb_value *vsrc[64];
  uint32_t nvphi = t->n_vphi;
  if (nvphi > 64)
    return 0;
  /* the moves are parallel; when no phi reads another's slots, they are
   * done one after the other without a temporary */
  bool direct = true;
  for (uint32_t i = 0; i < nvphi; i++) {
    vsrc[i] = vp[i].src != CB_NONE ? opnd(p, S, vp[i].src) : NULL;
    direct &= vsrc[i] != NULL;
    for (uint32_t j = 0; j < nvphi && vsrc[i]; j++)
      direct &= j == i || vsrc[i] + vp[i].lanes <= &S[vp[j].dst] ||
                vsrc[i] >= &S[vp[j].dst] + vp[j].lanes;
  }

  /* the accesses: one affine block, or records in the batch */
  int emit = 0;
  if (e->sink && e->sink->affine && t->n_rec) {
    cb_affine_access *acc = sc.acc;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->n_stream; i++)
      if (ts->streams[t->first_stream + i].emits)
        acc[n++] = sc.acc[i];
    cb_eng_flush(e);
    cb_affine_block blk = {k, n, acc};
    e->sink->affine(e->sink->ctx, &blk);
  } else if (e->sink && e->sink->fn) {
    emit = 1;
  }

  /* the iterations */
  const rvop *rv = sc.rv;
  uint32_t nvop = t->n_vop;
  sstate *ss = sc.ss;
  mat *mt = sc.mt;
  uint64_t *ptmp = sc.ptmp;
  for (uint64_t it = 0; it < k; it++) {
    for (uint32_t j = 0; j < nmat; j++) {
      *mt[j].slot = mt[j].cur & mt[j].mask;
      mt[j].cur += mt[j].step;
    }
    for (uint32_t i = 0; i < nvop; i++) {
      const rvop *r = &rv[i];
      switch (r->kind) {
      case RK_LD8:
      case RK_LD16:
      case RK_ST8:
      case RK_ST16: {
        sstate *s = &ss[r->s];
        uint64_t addr = s->addr;
        unsigned size = r->kind == RK_LD8 || r->kind == RK_ST8 ? 8 : 16;
        bool w = r->kind == RK_ST8 || r->kind == RK_ST16;
        uint8_t *pp = stream_ptr(&e->mem, s, size);
        if (__builtin_expect(!pp, 0)) {
          /* across a page: eng_run()'s copy */
          if (w)
            cb_mem_write(&e->mem, addr, r->a, size, NULL);
          else
            cb_mem_read(&e->mem, addr, r->d, size, NULL);
        } else if (w) {
          if (size == 8)
            memcpy(pp, r->a, 8);
          else
            memcpy(pp, r->a, 16);
        } else {
          if (size == 8)
            memcpy(r->d, pp, 8);
          else
            memcpy(r->d, pp, 16);
        }
        if (emit && r->emit)
          cb_eng_emit(e, addr, size, r->op->aux, w);
        break;
      }
      case RK_LD4:
      case RK_ST4: {
        sstate *s = &ss[r->s];
        uint64_t addr = s->addr;
        bool w = r->kind == RK_ST4;
        uint8_t *pp = stream_ptr(&e->mem, s, 4);
        uint32_t v;
        if (w) {
          v = (uint32_t)r->a->u;
          if (__builtin_expect(!pp, 0))
            cb_mem_write(&e->mem, addr, &v, 4, NULL);
          else
            memcpy(pp, &v, 4);
        } else {
          if (__builtin_expect(!pp, 0))
            cb_mem_read(&e->mem, addr, &v, 4, NULL);
          else
            memcpy(&v, pp, 4);
          r->d->u = v;
        }
        if (emit && r->emit)
          cb_eng_emit(e, addr, 4, r->op->aux, w);
        break;
      }
      case RK_ADD1:
        r->d->u = (r->a->u + r->b->u) & ty_mask[r->op->ty];
        break;
      case RK_ICMP1: {
        uint64_t m = ty_mask[r->op->ty];
        r->d->u = icmp(r->op->aux, r->a->u & m, r->b->u & m, r->op->ty);
        break;
      }
      case RK_SEL1:
        *r->d = (r->a->u & 1) ? *r->b : *r->c;
        break;
      case RK_FADD1:
        r->d->d = r->a->d + r->b->d;
        break;
      case RK_FSUB1:
        r->d->d = r->a->d - r->b->d;
        break;
      case RK_FMUL1:
        r->d->d = r->a->d * r->b->d;
        break;
      case RK_FDIV1:
        r->d->d = r->a->d / r->b->d;
        break;
      case RK_FADD2: {
        double x0 = r->a[0].d + r->b[0].d, x1 = r->a[1].d + r->b[1].d;
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FSUB2: {
        double x0 = r->a[0].d - r->b[0].d, x1 = r->a[1].d - r->b[1].d;
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FMUL2: {
        double x0 = r->a[0].d * r->b[0].d, x1 = r->a[1].d * r->b[1].d;
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FDIV2: {
        double x0 = r->a[0].d / r->b[0].d, x1 = r->a[1].d / r->b[1].d;
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FMA1:
        r->d->d = fma(r->a->d, r->b->d, r->c->d);
        break;
      case RK_FMA2: {
        double x0 = fma(r->a[0].d, r->b[0].d, r->c[0].d);
        double x1 = fma(r->a[1].d, r->b[1].d, r->c[1].d);
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      default:
        run_vop(e, r, ss, emit);
        break;
      }
    }
    /* the back edge's reduction phis, read before any is written */
    if (direct) {
      for (uint32_t i = 0; i < nvphi; i++) {
        cb_value *d = &S[vp[i].dst];
        const cb_value *s = vsrc[i];
        if (vp[i].lanes == 1)
          *d = *s;
        else if (d != s)
          memmove(d, s, vp[i].lanes * sizeof *d);
      }
    } else if (nvphi) {
      size_t q = 0;
      for (uint32_t i = 0; i < nvphi; i++)
        for (unsigned l = 0; l < vp[i].lanes; l++)
          ptmp[q++] = vsrc[i] ? vsrc[i][l].u : 0;
      q = 0;
      for (uint32_t i = 0; i < nvphi; i++)
        for (unsigned l = 0; l < vp[i].lanes; l++)
          S[vp[i].dst + l].u = ptmp[q++];
    }
  }

  /* the state after iteration k-1's back edge, as the interpreter leaves
   * it: the induction phis, the branch's outcomes, the counts */
  for (uint32_t j = 0; j < t->n_cop; j++) {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + j];
    const cb_op *op = &p->ops[cp->op];
    if (op->code == CB_OP_PHI)
      S[op->dst].u = (sc.A[j] + k * sc.B[j]) & ty_mask[op->ty];
  }
  cb_run_outcome *out = e->out;
  if (t->br_aux != CB_NONE) {
    uint64_t v = ((uint64_t)t->br_aux << 8) | t->cont, h = out->path_signature;
    for (uint64_t it = 0; it < k; it++)
      h = sig_mix(h, v);
    out->path_signature = h;
    out->branches += k;
    if (t->br_aux < p->n_branches && out->branch_counts)
      out->branch_counts[2 * (size_t)t->br_aux + (t->cont ? 0 : 1)] += k;
  }
  out->loads += k * t->n_loads;
  out->stores += k * t->n_stores;
  out->tpl_loops++;
  out->tpl_iters += k;
  out->tpl_accesses += k * t->n_rec;
  *budget -= k * t->n_ops;
  F->prev = t->block - p->functions[F->func].first_block;
  return k;
}
