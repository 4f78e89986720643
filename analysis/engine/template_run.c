/* Running a loop template (template.h): closed forms for the control and
 * address ops, the trip count, the accesses, and the iterations' values
 * by the loop's native code; the streams' memory checks are
 * template_streams.c's.
 *
 * Closed forms. Every control op's value on iteration t is (A + t * B)
 * mod 2^w, w its type's width: induction phis step by an invariant B, and
 * add, sub, mul by an invariant, shl by an invariant and truncation
 * preserve that form modulo 2^w. Widening (sext, zext, a gep index
 * narrower than 64 bits) preserves it only while the narrow value does
 * not wrap: each widening is checked at the first and the last iteration
 * the template runs (the values are linear in t, so both ends bound every
 * iteration between). The trip count comes from the exit compare on the
 * closed forms: solved when neither side wraps (trip_closed), else
 * evaluated iteration by iteration (a few host instructions each). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"
#include "engine_scalar.h"
#include "template.h"
#include "template_streams.h"

/* The fewest accesses a loop leaves as an affine block; shorter ones go
 * as records (a block's set-up costs the simulator about as much as a few
 * hundred records). */
#ifndef CB_TPL_MIN_BLOCK
#define CB_TPL_MIN_BLOCK 64
#endif

/* A widening that must not wrap: a + t * b within [lo, hi]. */
typedef struct wcheck {
  int64_t a, b, lo, hi;
} wcheck;

typedef struct scratch {
  uint64_t *A, *B;
  cb_affine_access *acc; /* the streams */
  wcheck *wc;
  size_t cap_wc;
} scratch;

static bool get_scratch(cb_tpl_set *ts, scratch *sc) {
  size_t m = ts->max_ops + 1, nwc = m * 64;
  size_t sz = m * 2 * sizeof(uint64_t) + m * sizeof(cb_affine_access) +
              nwc * sizeof(wcheck);
  if (!ts->scratch && !(ts->scratch = malloc(sz)))
    return false;
  /* every element type is 8-byte aligned */
  char *q = ts->scratch;
  sc->A = (uint64_t *)(void *)q;
  q += m * sizeof(uint64_t);
  sc->B = (uint64_t *)(void *)q;
  q += m * sizeof(uint64_t);
  sc->acc = (cb_affine_access *)(void *)q;
  q += m * sizeof(cb_affine_access);
  sc->wc = (wcheck *)(void *)q;
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

/* Orders the operands of a commutative op (x | c, x ^ c) so that the
 * second, (ba, bb), is the invariant one (bb == 0) whenever either is. */
static void invariant_second(uint64_t *aa, uint64_t *ab, uint64_t *ba,
                             uint64_t *bb) {
  if (*bb == 0)
    return;
  uint64_t x = *aa, y = *ab;
  *aa = *ba;
  *ab = *bb;
  *ba = x;
  *bb = y;
}

/* A and B of every control op; false when a widening has too many
 * checks for the scratch. */
static bool eval_cops(const cb_tpl_set *ts, const cb_tpl *t, cb_value *S,
                      scratch *sc, size_t *nwc) {
  const cb_program *p = ts->p;
  *nwc = 0;
  for (uint32_t j = 0; j < t->n_cop; j++) {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + j];
    const cb_tpl_ref *R = &ts->refs[cp->first_ref];
    uint64_t m = cb_ty_mask(cp->ty), aa = 0, ab = 0, ba = 0, bb = 0, A = 0,
             B = 0;
    if (*nwc + 64 > sc->cap_wc)
      return false;
    switch ((cb_opcode)cp->code) {
    case CB_OP_PHI:
      A = S[p->ops[cp->op].dst].u & m;
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
      unsigned s = (unsigned)(ba & (ty_bits(cp->ty) - 1));
      A = aa << s;
      B = ab << s;
      break;
    }
    case CB_OP_OR: {
      ref_val(p, S, sc, &R[0], &aa, &ab);
      ref_val(p, S, sc, &R[1], &ba, &bb);
      invariant_second(&aa, &ab, &ba, &bb);
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
      invariant_second(&aa, &ab, &ba, &bb);
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
      widen(sc, nwc, ty_bits(cp->ty2), true, aa, ab, &A, &B);
      break;
    case CB_OP_TRUNC:
    case CB_OP_ZEXT:
    case CB_OP_PTRTOINT:
    case CB_OP_INTTOPTR:
      ref_val(p, S, sc, &R[0], &aa, &ab);
      if (ty_bits(cp->ty) > ty_bits(cp->ty2))
        widen(sc, nwc, ty_bits(cp->ty2), false, aa, ab, &A, &B);
      else {
        A = aa;
        B = ab;
      }
      break;
    case CB_OP_MOV:
      ref_val(p, S, sc, &R[0], &A, &B);
      break;
    case CB_OP_GEP: {
      const int64_t *g = &p->extra[p->ops[cp->op].aux];
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
          unsigned w = ty_bits(ts->cops[t->first_cop + (uint32_t)r->cop].ty);
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

/* The trip count without walking every iteration (a loop of k
 * iterations used to cost k compares here): when neither side of the
 * exit compare wraps over [0, cap] in the compare's signedness, both are
 * linear in t, so an ordering compare changes its value at most once (a
 * binary search finds where) and an equality holds at one t at most, or
 * at all. false when that does not hold (the caller walks). */
static bool trip_closed(unsigned pred, bool cont, uint64_t xa, uint64_t xb,
                        uint64_t ya, uint64_t yb, unsigned ty, uint64_t cap,
                        uint64_t *k) {
  unsigned w = ty_bits(ty);
  if (w == 0 || w > 64 || cap > ((uint64_t)1 << 40))
    return false;
  uint64_t m = cb_ty_mask(ty);
  bool sgn = pred >= CB_ICMP_SGT && pred <= CB_ICMP_SLE;
  __int128 lo = sgn ? -((__int128)1 << (w - 1)) : 0;
  __int128 hi = sgn ? ((__int128)1 << (w - 1)) - 1 : ((__int128)1 << w) - 1;
  __int128 X0 = sgn ? (__int128)sxbits(xa & m, w) : (__int128)(xa & m);
  __int128 Y0 = sgn ? (__int128)sxbits(ya & m, w) : (__int128)(ya & m);
  __int128 DX = (__int128)sxbits(xb & m, w), DY = (__int128)sxbits(yb & m, w);
  __int128 T = (__int128)cap;
  __int128 XT = X0 + T * DX, YT = Y0 + T * DY;
  if (XT < lo || XT > hi || YT < lo || YT > hi)
    return false; /* may wrap (also checks t = 0: X0, Y0 are in range) */
#define AT(t) icmp(pred, (xa + (t)*xb) & m, (ya + (t)*yb) & m, ty)
  if (pred == CB_ICMP_EQ || pred == CB_ICMP_NE) {
    __int128 D0 = Y0 - X0, DD = DY - DX;
    uint64_t first_eq = UINT64_MAX; /* the t where x == y, if one */
    if (DD == 0)
      first_eq = D0 == 0 ? 0 : UINT64_MAX;
    else if (D0 % DD == 0 && -D0 / DD >= 0 && -D0 / DD <= T)
      first_eq = (uint64_t)(-D0 / DD);
    bool stay_when_eq = (pred == CB_ICMP_EQ) == cont;
    if (stay_when_eq) {
      /* stays only while x == y: all of [0, cap] when always equal,
       * else at most t = 0 */
      *k = D0 != 0 ? 0 : DD == 0 ? cap : cap < 1 ? cap : 1;
    } else {
      *k = first_eq < cap ? first_eq : cap;
    }
  } else {
    /* monotone: the first t in [0, cap] whose compare leaves */
    if (AT(0) != cont) {
      *k = 0;
    } else if (AT(cap) == cont) {
      *k = cap;
    } else {
      uint64_t l = 0, h = cap; /* AT(l) stays, AT(h) leaves */
      while (h - l > 1) {
        uint64_t mid = l + (h - l) / 2;
        if (AT(mid) == cont)
          l = mid;
        else
          h = mid;
      }
      *k = h;
    }
  }
#undef AT
  return true;
}

/* cb_tpl_kernel_io.access: an access of the native iterations that the
 * translation cache misses or that crosses a page, as the interpreter's
 * copy makes it (every byte mapped: the streams were checked). */
static void native_access(void *engine, uint64_t addr, uint8_t *buf,
                          uint64_t size, uint64_t is_write) {
  cb_eng *e = engine;
  if (is_write)
    cb_mem_write(&e->pr.mem, addr, buf, size, NULL);
  else
    cb_mem_read(&e->pr.mem, addr, buf, size, NULL);
}

/* Iterations 0 .. k-1's values by the loop's native code (kernel.h's
 * cb_tpl_kernel_io), then their records into the batch when emit is set:
 * the same records in the same order as the interpreter's, every
 * stream's in op order each iteration, since no address depends on a
 * value. */
static void run_native(cb_eng *e, const cb_tpl *t, cb_value *S,
                       const scratch *sc, cb_tpl_kernel_fn nk, uint64_t k,
                       int emit) {
  const cb_tpl_set *ts = e->tpl;
  cb_tpl_kernel_io io = {S,
                         (const cb_kernel_page *)(const void *)e->pr.mem.tlb,
                         e->kflags,
                         e,
                         native_access,
                         k};
  uint64_t stayed = nk(&io);
  if (stayed != k) {
    /* the template's proof and the loop's own code disagree: nothing is
     * reported from a state known to be wrong */
    fprintf(stderr,
            "cbana: internal error: the loop at block %u left after %llu "
            "iterations, its template proved %llu\n",
            t->block, (unsigned long long)stayed, (unsigned long long)k);
    abort();
  }
  for (uint64_t it = 0; emit && it < k; it++)
    for (uint32_t i = 0; i < t->n_stream; i++) {
      const cb_tpl_stream *st = &ts->streams[t->first_stream + i];
      if (st->emits)
        cb_eng_emit(e, sc->acc[i].base + it * (uint64_t)sc->acc[i].stride,
                    st->size, st->site, st->is_write != 0);
    }
  e->out->kernel_ops += k * t->n_ops;
  e->out->tpl_native_iters += k;
}

uint64_t cb_tpl_run(cb_eng *e, cb_frame *F, cb_value *S, int32_t ti,
                    cb_tpl_kernel_fn nk, uint64_t *budget) {
  cb_tpl_set *ts = e->tpl;
  const cb_tpl *t = &ts->t[ti];
  const cb_program *p = e->p;
  scratch sc;
  /* the budget held back past the interpreter's allowance counts too
   * (engine_internal.h): a loop is not cut at an allowance's end */
  const uint64_t avail = eng_budget_avail(e, *budget);
  if (avail <= t->n_ops || !get_scratch(ts, &sc))
    return 0;
  /* closed forms */
  size_t nwc;
  if (!eval_cops(ts, t, S, &sc, &nwc))
    return 0;

  /* the iterations that stay in the loop, within the budget (at least one
   * operation left after them, so the interpreter stops where it would) */
  uint64_t cap = (avail - 1) / t->n_ops, k = 0;
  {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + t->cmp];
    const cb_op *op = &p->ops[cp->op];
    const cb_tpl_ref *R = &ts->refs[cp->first_ref];
    uint64_t xa, xb, ya, yb, m = cb_ty_mask(op->ty);
    ref_val(p, S, &sc, &R[0], &xa, &xb);
    ref_val(p, S, &sc, &R[1], &ya, &yb);
    unsigned pred = op->aux, ty = op->ty;
    bool cont = t->cont;
    if (!trip_closed(pred, cont, xa, xb, ya, yb, ty, cap, &k)) {
      k = 0;
      while (k < cap && icmp(pred, xa & m, ya & m, ty) == cont) {
        k++;
        xa += xb;
        ya += yb;
      }
    }
  }
  /* two iterations at least */
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
    uint64_t good = cb_tpl_first_bad(&e->pr.mem, a, (int64_t)b, st->size, k);
    if (good < k)
      k = good;
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

  /* the accesses: one affine block, or records in the batch for loops
   * too short to be worth a block's set-up (CB_TPL_MIN_BLOCK) */
  int emit = 0;
  if (e->acc.sink && e->acc.sink->affine && t->n_rec &&
      k * t->n_rec >= CB_TPL_MIN_BLOCK) {
    cb_affine_access *acc = sc.acc;
    uint32_t na = 0;
    for (uint32_t i = 0; i < t->n_stream; i++)
      if (ts->streams[t->first_stream + i].emits)
        acc[na++] = sc.acc[i];
    cb_eng_flush(e);
    cb_affine_block blk = {k, na, acc};
    e->acc.sink->affine(e->acc.sink->ctx, &blk);
  } else if (e->acc.sink && e->acc.sink->fn) {
    emit = 1;
  }

  /* the iterations: their values */
  run_native(e, t, S, &sc, nk, k, emit);

  /* the state after iteration k-1's back edge, as the interpreter leaves
   * it: the induction phis, the branch's outcomes, the counts */
  for (uint32_t j = 0; j < t->n_cop; j++) {
    const cb_tpl_cop *cp = &ts->cops[t->first_cop + j];
    const cb_op *op = &p->ops[cp->op];
    if (op->code == CB_OP_PHI)
      S[op->dst].u = (sc.A[j] + k * sc.B[j]) & cb_ty_mask(op->ty);
  }
  cb_run_outcome *out = e->out;
  if (t->br_aux != CB_NONE) {
    sig_add(e, ((uint64_t)t->br_aux << 8) | t->cont, k);
    out->branches += k;
    if (t->br_aux < p->n_branches && out->branch_counts)
      out->branch_counts[2 * (size_t)t->br_aux + (t->cont ? 0 : 1)] += k;
  }
  out->loads += k * t->n_loads;
  out->stores += k * t->n_stores;
  out->tpl_loops++;
  out->tpl_iters += k;
  out->tpl_accesses += k * t->n_rec;
  eng_budget_spend(e, budget, k * t->n_ops);
  F->prev = t->block - p->functions[F->func].first_block;
  return k;
}
