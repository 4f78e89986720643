/* The loop templates' value evaluator; see template_eval.h. Every form
 * computes what eng_run() computes for the op (engine_interp.c), bit for
 * bit, and emits the same records; the identity tests hold it to that. */
#include <math.h>
#include <string.h>

#include "engine_scalar.h"
#include "template_eval.h"

/* llvm.fmuladd, unfused where the target has no FMA (program.h) */
static bool muladd_split(const cb_program *p, const cb_op *op) {
  return !p->fmuladd_fused && op->code == CB_OP_CALL &&
         p->extra[op->aux + 1] == CB_INTR_FMULADD;
}

uint8_t cb_tpl_rk_kind(const cb_program *p, const cb_op *op) {
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
    if (op->ty != CB_TY_F64 || l > 2)
      return RK_GEN;
    if (muladd_split(p, op))
      return l == 1 ? RK_MULADD1 : RK_MULADD2;
    return l == 1 ? RK_FMA1 : RK_FMA2;
  default:
    return RK_GEN;
  }
}

/* The host address of the stream's access (then the next iteration's),
 * NULL when it crosses a page (the caller copies, as eng_run() does). */

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
    const uint8_t *pp = stream_ptr(&e->pr.mem, s, bytes * l);
    uint8_t tmp[64]; /* loads and stores of at most 64 bytes (template.c) */
    if (!pp) {
      cb_mem_read(&e->pr.mem, addr, tmp, bytes * l, NULL); /* mapped: checked */
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
    uint8_t *pp = stream_ptr(&e->pr.mem, s, bytes * l), tmp[64];
    uint8_t *q = pp ? pp : tmp;
    if (l == 1)
      store_lane(q, a, op->ty);
    else
      for (unsigned i = 0; i < l; i++)
        store_lane(q + i * bytes, &a[i], op->ty);
    if (!pp)
      cb_mem_write(&e->pr.mem, addr, tmp, bytes * l, NULL);
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
          d[i].d = fadd_d(a[i].d, b[i].d);
        return;
      case CB_OP_FSUB:
        for (unsigned i = 0; i < l; i++)
          d[i].d = fsub_d(a[i].d, b[i].d);
        return;
      case CB_OP_FMUL:
        for (unsigned i = 0; i < l; i++)
          d[i].d = fmul_d(a[i].d, b[i].d);
        return;
      default:
        for (unsigned i = 0; i < l; i++)
          d[i].d = fdiv_d(a[i].d, b[i].d);
        return;
      }
    }
    for (unsigned i = 0; i < l; i++)
      fbin(op->code, op->ty, &a[i], &b[i], &d[i]);
    return;
  case CB_OP_CALL: {
    cb_value t[64];
    bool fused = !muladd_split(e->p, op);
    if (op->ty == CB_TY_F32)
      for (unsigned i = 0; i < l; i++)
        fp_put_f(&t[i], muladd_f(fused, a[i].f, b[i].f, c[i].f));
    else
      for (unsigned i = 0; i < l; i++)
        t[i].d = muladd_d(fused, a[i].d, b[i].d, c[i].d);
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
      d[i].u = icmp(op->aux, a[i].u & cb_ty_mask(op->ty),
                    b[i].u & cb_ty_mask(op->ty), op->ty);
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

void cb_tpl_iterate(cb_eng *e, const cb_tpl_iter *itr) {
  const rvop *rv = itr->rv;
  uint32_t nvop = itr->nvop, nmat = itr->nmat, nvphi = itr->nvphi;
  sstate *ss = itr->ss;
  mat *mt = itr->mt;
  uint64_t *ptmp = itr->ptmp, k = itr->k;
  const cb_tpl_vphi *vp = itr->vp;
  const cb_value *const *vsrc = itr->vsrc;
  cb_value *S = itr->S;
  bool direct = itr->direct;
  int emit = itr->emit;
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
        uint8_t *pp = stream_ptr(&e->pr.mem, s, size);
        if (__builtin_expect(!pp, 0)) {
          /* across a page: eng_run()'s copy */
          if (w)
            cb_mem_write(&e->pr.mem, addr, r->a, size, NULL);
          else
            cb_mem_read(&e->pr.mem, addr, r->d, size, NULL);
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
        uint8_t *pp = stream_ptr(&e->pr.mem, s, 4);
        uint32_t v;
        if (w) {
          v = (uint32_t)r->a->u;
          if (__builtin_expect(!pp, 0))
            cb_mem_write(&e->pr.mem, addr, &v, 4, NULL);
          else
            memcpy(pp, &v, 4);
        } else {
          if (__builtin_expect(!pp, 0))
            cb_mem_read(&e->pr.mem, addr, &v, 4, NULL);
          else
            memcpy(&v, pp, 4);
          r->d->u = v;
        }
        if (emit && r->emit)
          cb_eng_emit(e, addr, 4, r->op->aux, w);
        break;
      }
      case RK_ADD1:
        r->d->u = (r->a->u + r->b->u) & cb_ty_mask(r->op->ty);
        break;
      case RK_ICMP1: {
        uint64_t m = cb_ty_mask(r->op->ty);
        r->d->u = icmp(r->op->aux, r->a->u & m, r->b->u & m, r->op->ty);
        break;
      }
      case RK_SEL1:
        *r->d = (r->a->u & 1) ? *r->b : *r->c;
        break;
      case RK_FADD1:
        r->d->d = fadd_d(r->a->d, r->b->d);
        break;
      case RK_FSUB1:
        r->d->d = fsub_d(r->a->d, r->b->d);
        break;
      case RK_FMUL1:
        r->d->d = fmul_d(r->a->d, r->b->d);
        break;
      case RK_FDIV1:
        r->d->d = fdiv_d(r->a->d, r->b->d);
        break;
      case RK_FADD2: {
        double x0 = fadd_d(r->a[0].d, r->b[0].d),
               x1 = fadd_d(r->a[1].d, r->b[1].d);
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FSUB2: {
        double x0 = fsub_d(r->a[0].d, r->b[0].d),
               x1 = fsub_d(r->a[1].d, r->b[1].d);
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FMUL2: {
        double x0 = fmul_d(r->a[0].d, r->b[0].d),
               x1 = fmul_d(r->a[1].d, r->b[1].d);
        r->d[0].d = x0;
        r->d[1].d = x1;
        break;
      }
      case RK_FDIV2: {
        double x0 = fdiv_d(r->a[0].d, r->b[0].d),
               x1 = fdiv_d(r->a[1].d, r->b[1].d);
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
      case RK_MULADD1:
        r->d->d = fadd_d(fmul_d(r->a->d, r->b->d), r->c->d);
        break;
      case RK_MULADD2: {
        double x0 = fadd_d(fmul_d(r->a[0].d, r->b[0].d), r->c[0].d);
        double x1 = fadd_d(fmul_d(r->a[1].d, r->b[1].d), r->c[1].d);
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
}
