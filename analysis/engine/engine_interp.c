/* engine_interp.c: the interpreter loop. One flat loop switches on the
 * opcode of a flat op array; values live in one contiguous slot stack;
 * memory is the sparse page model of mem.h; every load and store goes to
 * the sink as one access. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_frames.h"
#include "engine_internal.h"
#include "engine_kernel.h"
#include "engine_scalar.h"

cb_stop eng_run(cb_eng *e, uint32_t stop_depth, cb_value *ret_out) {
  const cb_program *p = e->p;
  const cb_op *ops = p->ops;
  const cb_value *K = p->consts;
  const int64_t *X = p->extra;
  const cb_block *B = p->blocks;
  const uint32_t *SU = p->succs;
  cb_frame *F = &e->frames[e->depth - 1];
  cb_value *S = e->slots + F->slot_base;
  uint32_t ip = F->ip;
  uint64_t budget = e->budget_left;
  cb_run_outcome *out = e->out;
  cb_stop st = CB_GO;
  uint32_t target = 0;
  const uint8_t *MM = e->mach_mid;
  const uint8_t *KE = e->kentry; /* where a native kernel may start */

#define V(o) ((o)&CB_OPND_CONST ? &K[(o) & ~CB_OPND_CONST] : &S[o])
#define RELOAD()                                                               \
  do {                                                                         \
    F = &e->frames[e->depth - 1];                                              \
    S = e->slots + F->slot_base;                                               \
  } while (0)

  for (;;) {
    /* At a block's start, its function's native kernel (kernel.h) runs
     * as far as it can; the op it leaves before is run below. */
    if (KE && KE[ip] && budget != 0) {
      bool stopped = eng_kernel_enter(e, &ip, &budget); /* engine_kernel.h */
      RELOAD(); /* a kernel's calls may move frames and slots */
      if (__builtin_expect(stopped, 0)) {
        st = e->kernel_stop; /* a call a kernel ran ended the run */
        e->kernel_stop = CB_GO;
        if (st == CB_LONGJMP) {
          if (e->depth > stop_depth) {
            ip = F->ip; /* after the setjmp call, in a frame of this loop */
            continue;
          }
          e->budget_left = budget; /* F is a frame of an outer loop's, */
          return st;               /* its ip the setjmp's */
        }
        F->ip = ip;
        e->budget_left = budget;
        return st;
      }
    }
    if (__builtin_expect(budget == 0, 0)) {
      e->budget_left = 0;
      F->ip = ip;
      if ((budget = eng_budget_refill(e, p->functions[F->func].name)) == 0)
        return CB_FAIL;
      e->budget_left = budget;
      continue; /* a kernel may take the op at ip */
    }
    budget--;
    const cb_op *op = &ops[ip++];
    if (__builtin_expect(MM != NULL, 0) && MM[ip - 1]) {
      if (e->mach_made_at == ip - 1)
        e->mach_made_at = CB_NONE; /* a kernel made them, then left */
      else
        eng_emit_mach_at(e, &B[F->block], F->cfa, ip - 1);
    }
    switch ((cb_opcode)op->code) {
    case CB_OP_ADD:
    case CB_OP_SUB:
    case CB_OP_MUL:
    case CB_OP_AND:
    case CB_OP_OR:
    case CB_OP_XOR:
    case CB_OP_SHL:
    case CB_OP_LSHR:
    case CB_OP_ASHR:
    case CB_OP_UDIV:
    case CB_OP_SDIV:
    case CB_OP_UREM:
    case CB_OP_SREM: {
      const cb_value *a = V(op->a), *b = V(op->b);
      if (op->lanes <= 1) {
        uint64_t m = cb_ty_mask(op->ty);
        switch (op->code) {
        case CB_OP_ADD:
          S[op->dst].u = (a->u + b->u) & m;
          continue;
        case CB_OP_SUB:
          S[op->dst].u = (a->u - b->u) & m;
          continue;
        case CB_OP_MUL:
          S[op->dst].u = (a->u * b->u) & m;
          continue;
        case CB_OP_AND:
          S[op->dst].u = a->u & b->u;
          continue;
        case CB_OP_OR:
          S[op->dst].u = a->u | b->u;
          continue;
        case CB_OP_XOR:
          S[op->dst].u = a->u ^ b->u;
          continue;
        default:
          break;
        }
      }
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        if (!ibin(op->code, op->ty, a[i].u, b[i].u, &S[op->dst + i].u)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "division by zero in %s",
                             p->functions[F->func].name);
        }
      continue;
    }
    case CB_OP_FADD:
    case CB_OP_FSUB:
    case CB_OP_FMUL:
    case CB_OP_FDIV:
    case CB_OP_FREM: {
      const cb_value *a = V(op->a), *b = V(op->b);
      if (op->lanes <= 1 && op->ty == CB_TY_F64) {
        switch (op->code) {
        case CB_OP_FADD:
          S[op->dst].d = fadd_d(a->d, b->d);
          continue;
        case CB_OP_FSUB:
          S[op->dst].d = fsub_d(a->d, b->d);
          continue;
        case CB_OP_FMUL:
          S[op->dst].d = fmul_d(a->d, b->d);
          continue;
        default:
          break;
        }
      }
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        fbin(op->code, op->ty, &a[i], &b[i], &S[op->dst + i]);
      continue;
    }
    case CB_OP_FNEG: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++) {
        if (op->ty == CB_TY_F32)
          fp_put_f(&S[op->dst + i], -a[i].f);
        else
          S[op->dst + i].d = -a[i].d;
      }
      continue;
    }
    case CB_OP_ICMP: {
      const cb_value *a = V(op->a), *b = V(op->b);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i].u = icmp(op->aux, a[i].u & cb_ty_mask(op->ty),
                                b[i].u & cb_ty_mask(op->ty), op->ty);
      continue;
    }
    case CB_OP_FCMP: {
      const cb_value *a = V(op->a), *b = V(op->b);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++) {
        double x = op->ty == CB_TY_F32 ? a[i].f : a[i].d;
        double y = op->ty == CB_TY_F32 ? b[i].f : b[i].d;
        S[op->dst + i].u = fcmp(op->aux, x, y);
      }
      continue;
    }
    case CB_OP_SELECT: {
      const cb_value *c = V(op->a), *x = V(op->b), *y = V(op->c);
      unsigned l = op->lanes ? op->lanes : 1;
      if (e->rmw[ip - 1] & 2)
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = (c[i].u & 1) ? x[i] : y[i];
      else {
        const cb_value *src = (c->u & 1) ? x : y;
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = src[i];
      }
      continue;
    }
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
    case CB_OP_INTTOPTR: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        cast1(op->code, op->ty, op->ty2, &a[i], &S[op->dst + i]);
      continue;
    }
    case CB_OP_BITCAST: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      if (op->ty == op->ty2 || (ty_bits(op->ty) == ty_bits(op->ty2) &&
                                op->ty != CB_TY_F32 && op->ty2 != CB_TY_F32)) {
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = a[i];
      } else {
        bitcast(op->ty, l, op->ty2, a, &S[op->dst]);
      }
      continue;
    }
    case CB_OP_MOV: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[i];
      continue;
    }
    case CB_OP_GEP: {
      const int64_t *g = &X[op->aux];
      uint64_t addr = V(op->a)->u + (uint64_t)g[0];
      int64_t n = g[1];
      for (int64_t k = 0; k < n; k++) {
        uint64_t x = (uint64_t)g[2 + 2 * k];
        const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
        addr += (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) *
                (uint64_t)g[3 + 2 * k];
      }
      S[op->dst].u = addr;
      continue;
    }
    case CB_OP_LOAD: {
      uint64_t addr = V(op->a)->u;
      unsigned l = op->lanes ? op->lanes : 1;
      unsigned bytes = cb_ty_bytes(op->ty), size = bytes * l;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      uint8_t tmp[2048];
      if (__builtin_expect(!pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE,
                           0)) {
        uint64_t bad;
        if (size > sizeof tmp ||
            !cb_mem_read(&e->pr.mem, addr, tmp, size, &bad)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, false, op->aux);
        }
        pp = tmp;
      }
      if (l == 1)
        load_lane(&S[op->dst], pp, op->ty);
      else
        for (unsigned i = 0; i < l; i++)
          load_lane(&S[op->dst + i], pp + i * bytes, op->ty);
      /* the machine code may have merged it with its neighbours
       * (program->op_access) */
      unsigned acc = cb_op_access_bytes(e->p, ip - 1, size);
      if (__builtin_expect(acc != 0, 1)) {
        cb_eng_emit(e, addr + (uint64_t)cb_op_access_off(e->p, ip - 1), acc,
                    op->aux, false);
        out->loads++;
      }
      continue;
    }
    case CB_OP_STORE: {
      uint64_t addr = V(op->b)->u;
      const cb_value *v = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      unsigned bytes = cb_ty_bytes(op->ty), size = bytes * l;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE,
                           0)) {
        uint8_t tmp[2048];
        uint64_t bad;
        if (size > sizeof tmp) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, true, op->aux);
        }
        for (unsigned i = 0; i < l; i++)
          store_lane(tmp + i * bytes, &v[i], op->ty);
        if (!cb_mem_write(&e->pr.mem, addr, tmp, size, &bad)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, true, op->aux);
        }
      } else if (l == 1) {
        store_lane(pp, v, op->ty);
      } else {
        for (unsigned i = 0; i < l; i++)
          store_lane(pp + i * bytes, &v[i], op->ty);
      }
      unsigned acc = cb_op_access_bytes(e->p, ip - 1, size);
      if (__builtin_expect(!(e->rmw[ip - 1] & 1) && acc != 0, 1)) {
        cb_eng_emit(e, addr + (uint64_t)cb_op_access_off(e->p, ip - 1), acc,
                    op->aux, true);
        out->stores++;
      }
      continue;
    }
    case CB_OP_ALLOCA: {
      if (op->a == CB_NONE) {
        S[op->dst].u = F->cfa + (uint64_t)e->fo_off[op->aux];
      } else {
        uint64_t cnt = V(op->a)->u;
        uint64_t sz = p->frame_objs[op->aux].size * cnt;
        uint64_t al = p->frame_objs[op->aux].align;
        if (al < 16)
          al = 16;
        if (sz > F->sp - e->stack_lo) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE,
                             "stack overflow: alloca of %llu bytes in %s",
                             (unsigned long long)sz,
                             p->functions[F->func].name);
        }
        F->sp = eng_align_down(F->sp - sz, al);
        S[op->dst].u = F->sp;
      }
      continue;
    }
    case CB_OP_EXTRACTELT: {
      const cb_value *a = V(op->a);
      uint64_t i = V(op->b)->u;
      S[op->dst] = i < op->lanes ? a[i] : (cb_value){0};
      continue;
    }
    case CB_OP_INSERTELT: {
      const cb_value *a = V(op->a), *b = V(op->b);
      uint64_t idx = V(op->c)->u;
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[i];
      if (idx < l)
        S[op->dst + idx] = *b;
      continue;
    }
    case CB_OP_SHUFFLE: {
      const int64_t *g = &X[op->aux];
      unsigned src = (unsigned)g[0];
      const cb_value *a = V(op->a), *b = V(op->b);
      cb_value tmp[256];
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l && i < 256; i++) {
        int64_t m = g[1 + i];
        tmp[i] = m < 0                   ? (cb_value){0}
                 : (uint64_t)m < src     ? a[m]
                 : (uint64_t)m < 2 * src ? b[m - src]
                                         : (cb_value){0};
      }
      for (unsigned i = 0; i < l && i < 256; i++)
        S[op->dst + i] = tmp[i];
      continue;
    }
    case CB_OP_EXTRACTVAL: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[op->aux + i];
      continue;
    }
    case CB_OP_INSERTVAL: {
      const int64_t *g = &X[op->aux];
      const cb_value *a = V(op->a), *b = V(op->b);
      uint64_t n = (uint64_t)g[0], at = (uint64_t)g[1];
      unsigned l = op->lanes ? op->lanes : 1;
      for (uint64_t i = 0; i < n; i++)
        S[op->dst + i] = a[i];
      for (unsigned i = 0; i < l; i++)
        S[op->dst + at + i] = b[i];
      continue;
    }
    case CB_OP_PHI:
      /* phis run at block entry; reaching one here is a malformed block */
      continue;
    case CB_OP_CALL: {
      F->ip = ip;
      F->sp = F->sp; /* keep */
      e->budget_left = budget;
      uint32_t d0 = e->depth;
      st = eng_do_call(e, op, ip);
      budget = e->budget_left;
      if (__builtin_expect(st == CB_LONGJMP, 0) && e->depth > stop_depth) {
        RELOAD(); /* after the setjmp call, in a frame of this loop */
        ip = F->ip;
        continue;
      }
      if (st != CB_GO)
        return st;
      RELOAD();
      if (e->depth != d0)
        ip = F->ip; /* entered the callee */
      else if (__builtin_expect(B[F->block].n_mach != 0, 0))
        eng_emit_mach_at(e, &B[F->block], F->cfa, ip); /* after the call */
      continue;
    }
    case CB_OP_BR: {
      const cb_block *blk = &B[F->block];
      if (op->a == CB_NONE) {
        target = SU[blk->first_succ];
      } else {
        unsigned c = V(op->a)->u & 1;
        target = SU[blk->first_succ + (c ? 0 : 1)];
        if (op->aux != CB_NONE) {
          sig_add(e, ((uint64_t)op->aux << 8) | c, 1);
          out->branches++;
          if (op->aux < p->n_branches && out->branch_counts)
            out->branch_counts[2 * (size_t)op->aux + (c ? 0 : 1)]++;
        }
      }
      goto jump;
    }
    case CB_OP_SWITCH: {
      const cb_block *blk = &B[F->block];
      const int64_t *g = &X[op->aux];
      uint64_t v = V(op->a)->u & cb_ty_mask(op->ty);
      int64_t n = g[0];
      uint64_t si = 0;
      for (int64_t k = 0; k < n; k++)
        if (((uint64_t)g[1 + 2 * k] & cb_ty_mask(op->ty)) == v) {
          si = (uint64_t)g[2 + 2 * k];
          break;
        }
      uint32_t bp = (uint32_t)g[1 + 2 * n];
      if (bp != CB_NONE) {
        sig_add(e, ((uint64_t)bp << 8) | (si & 0xff), 1);
        out->branches++;
        /* a case (true) or the default (false, successor 0) */
        if (bp < p->n_branches && out->branch_counts)
          out->branch_counts[2 * (size_t)bp + (si ? 0 : 1)]++;
      }
      target = SU[blk->first_succ + si];
      goto jump;
    }
    case CB_OP_RET: {
      cb_value rv[256];
      unsigned l = eng_ret_value(e, F, op, rv);
      uint32_t call_op = F->call_op;
      e->ret_lanes = l;
      eng_pop_frame(e);
      e->budget_left = budget;
      if (e->depth == stop_depth) {
        if (ret_out)
          for (unsigned i = 0; i < l; i++)
            ret_out[i] = rv[i];
        return CB_RETURNED;
      }
      RELOAD();
      if (call_op != CB_NONE) {
        const cb_op *cop = &ops[call_op];
        if (cop->dst != CB_NONE)
          for (unsigned i = 0; i < l; i++)
            S[cop->dst + i] = rv[i];
      }
      ip = F->ip;
      if (__builtin_expect(B[F->block].n_mach != 0, 0))
        eng_emit_mach_at(e, &B[F->block], F->cfa, ip); /* after the call */
      continue;
    }
    case CB_OP_WIDE:
      if (!cb_wide_exec(op, V(op->a), op->b == CB_NONE ? NULL : V(op->b),
                        op->c == CB_NONE ? NULL : V(op->c), &S[op->dst])) {
        F->ip = ip;
        e->budget_left = budget;
        return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "division by zero in %s",
                           p->functions[F->func].name);
      }
      continue;
    case CB_OP_UNREACHABLE:
      F->ip = ip;
      e->budget_left = budget;
      return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE,
                         "reached `unreachable` in %s (undefined behaviour "
                         "or a path the compiler ruled out)",
                         p->functions[F->func].name);
    default:
      F->ip = ip;
      e->budget_left = budget;
      return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "unknown opcode %u",
                         op->code);
    }
  jump : {
    const cb_function *fn = &p->functions[F->func];
    uint32_t from = F->block - fn->first_block;
    uint32_t gb = fn->first_block + target;
    const cb_block *nb = &B[gb];
    uint32_t np = e->nphis[gb];
    F->prev = from;
    F->block = gb;
    ip = nb->first_op;
    if (__builtin_expect(nb->n_mach != 0, 0))
      eng_emit_mach(e, nb, F->cfa);
    if (np) {
      /* parallel: read every incoming value, then write */
      uint64_t *tmp = e->phi_tmp;
      size_t t = 0;
      for (uint32_t k = 0; k < np; k++) {
        const cb_op *ph = &ops[ip + k];
        const int64_t *g = &X[ph->aux];
        int64_t n = g[0];
        const cb_value *src = NULL;
        for (int64_t j = 0; j < n; j++)
          if ((uint32_t)g[1 + 2 * j] == from) {
            src = V((cb_operand)g[2 + 2 * j]);
            break;
          }
        unsigned l = ph->lanes ? ph->lanes : 1;
        for (unsigned i = 0; i < l; i++)
          tmp[t++] = src ? src[i].u : 0;
      }
      t = 0;
      for (uint32_t k = 0; k < np; k++) {
        const cb_op *ph = &ops[ip + k];
        unsigned l = ph->lanes ? ph->lanes : 1;
        for (unsigned i = 0; i < l; i++)
          S[ph->dst + i].u = tmp[t++];
      }
      eng_budget_spend_upto(e, &budget, np);
      ip += np;
    }
  }
  }
#undef V
#undef RELOAD
}
