/* The fast engine's inner loop; see fastloop.h.
 *
 * Why a second loop: the interpreter's main loop (engine_interp.c, eng_run) is
 * one large function with every opcode's reference case, and the compiler keeps
 * its op pointer, budget and kind table on the stack (perf annotate on lu,
 * MEDIUM: every dispatch reloaded them). Here only the fast kinds are handled,
 * so the state stays in registers, and a branch whose target block has no
 * machine-code accesses is taken here too, so an inner loop runs without
 * leaving this function.
 *
 * Every handler repeats, bit for bit, what eng_run() does for that kind
 * (fastops.h); the identity tests (tests/e2e/fast_identity.py and
 * tests/unit/engine/test_fast_stream.c) hold them to it. Anything else is
 * left to eng_run(): the loop returns with the op not started. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "engine_kblocks.h"
#include "engine_kernel.h"
#include "engine_scalar.h"
#include "fastloop.h"
#include "template.h"

/* The stride prefetch of load op ip (see FK_LOAD8 below). */
static inline void fl_prefetch(cb_eng *e, uint32_t ip, uint64_t addr) {
  uint64_t *last = &e->pf_last[ip & (CB_PF_SLOTS - 1)];
  uint64_t next = addr + (addr - *last);
  *last = addr;
  uint64_t pno = next >> CB_PG_BITS;
  unsigned slot = (unsigned)pno & (CB_TLB_N - 1);
  if (e->pr.mem.tlb[slot].pno == pno)
    __builtin_prefetch(e->pr.mem.tlb[slot].data + (next & (CB_PG_SIZE - 1)));
}

/* The kernel's view of the engine's state is this layout (program.h). */
_Static_assert(CB_PG_BITS == CB_KERNEL_PAGE_BITS, "page size");
_Static_assert(CB_TLB_N == CB_KERNEL_TLB_N, "translation cache's size");
_Static_assert(sizeof(cb_value) == 8, "slot words");
_Static_assert(sizeof(cb_access) == 16 && offsetof(cb_access, site) == 8 &&
                   offsetof(cb_access, size) == 12 &&
                   offsetof(cb_access, is_write) == 14,
               "batch records");
_Static_assert(sizeof(((cb_mem *)0)->tlb[0]) == sizeof(cb_kernel_page) &&
                   offsetof(cb_kernel_page, data) == 8,
               "translation cache");

/* Runs the function's native kernel (kernel.h) when frame *F is at the
 * start of its block, after the phis, and the block is not a template's;
 * it goes on as far as it can, and leaves ip, the frame's block and prev,
 * the budget, the batch and the counters as the interpreter would have.
 * A function without a kernel yet is asked for once hot (engine_kernel.h).
 * The kernel's calls may move the frames and the slots: *F and *S are the
 * top frame's again after. True when a call it ran ended the run. */
static inline bool fl_kernel(cb_eng *e, cb_frame **Fp, cb_value **Sp,
                             uint32_t *ip, uint64_t *budget, uint64_t *loads,
                             uint64_t *stores) {
  cb_frame *F = *Fp;
  if (!e->kentry[*ip])
    return false;
  /* the frontend's compile may still be filling the table */
  cb_kernel_fn k = __atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE);
  if ((!k || e->kstop[F->block] || !e->p->kernel_code[F->block]) &&
      !(k = eng_kernel_outside(e, F, k)))
    return false;
  cb_kernel_io io = {.slots = *Sp,
                     .tlb = (const cb_kernel_page *)(const void *)e->pr.mem.tlb,
                     .stop = e->kstop,
                     .op_flags = e->kflags,
                     .branch_counts = e->out->branch_counts,
                     .batch = (uint8_t *)e->acc.batch,
                     .nbatch = e->acc.nbatch,
                     .cap = e->acc.cap,
                     .stream_records = e->acc.stream_records,
                     .budget = *budget,
                     .sig_v = e->sig_v,
                     .sig_n = e->sig_n,
                     .path_signature = e->out->path_signature,
                     .cfa = F->cfa,
                     .engine = e,
                     .stack = &e->ks,
                     .kernels = e->kernels,
                     .call = eng_kernel_call,
                     .ret = eng_kernel_ret,
                     .flush = eng_kernel_flush,
                     .tpl = eng_kernel_tpl,
                     .page = eng_kernel_page,
                     .entries = e->p->kernel_entries,
                     .ip = *ip,
                     .block = F->block,
                     .prev = F->prev};
  uint64_t done0 = eng_ops_done(e, *budget), kops0 = e->out->kernel_ops;
  uint32_t func = F->func;
  k(&io);
  /* read field by field (engine_kernel.c, io_to_state, says why) */
  const volatile cb_kernel_io *vo = &io;
  e->out->kernel_ops += eng_ops_done(e, vo->budget) - done0;
  /* the kernels' own: without the calls and templates the engine ran */
  eng_kernel_ran(e, func, e->out->kernel_ops - kops0);
  F = *Fp = &e->frames[e->depth - 1];
  *Sp = e->slots + F->slot_base;
  e->acc.nbatch = vo->nbatch;
  e->sig_v = vo->sig_v;
  e->sig_n = vo->sig_n;
  e->out->path_signature = vo->path_signature;
  e->out->branches += vo->branches;
  *loads += vo->loads;
  *stores += vo->stores;
  *budget = vo->budget;
  if (e->kernel_stop != CB_GO)
    return true;
  *ip = vo->ip & ~CB_KERNEL_IP_MACH_MADE;
  if (vo->ip & CB_KERNEL_IP_MACH_MADE)
    e->mach_made_at = *ip;
  F->block = vo->block;
  F->prev = vo->prev;
  e->out->kernel_left[e->p->ops[*ip].code]++; /* --stats */
  return false;
}

void cb_fast_loop(cb_eng *e, cb_frame *F, cb_value *S, uint32_t *ip_io,
                  uint64_t *budget_io) {
  const cb_program *p = e->p;
  const cb_op *ops = p->ops;
  const cb_value *K = p->consts;
  const int64_t *X = p->extra;
  const uint8_t *FK = e->fk;
  const cb_phi_edges *PE = e->pe.first ? &e->pe : NULL;
  cb_run_outcome *out = e->out;
  uint32_t ip = *ip_io;
  uint64_t budget = *budget_io;
  uint64_t loads = 0, stores = 0;

  /* eng_run() has just jumped into a loop header with a template (from a
   * block with machine-code accesses, which only it runs): the template
   * runs here as it does for the branches below */
  if (e->tpl && budget != 0) {
    int32_t ti = cb_tpl_of(e->tpl, F->block);
    const cb_function *fn = &p->functions[F->func];
    if (ti >= 0 && ip == p->blocks[F->block].first_op + e->nphis[F->block] &&
        F->prev + fn->first_block != F->block)
      eng_tpl_run(e, F, S, ti, &budget);
  }
  if (e->kernels && budget != 0 &&
      fl_kernel(e, &F, &S, &ip, &budget, &loads, &stores))
    goto leave;

#define V(o) ((o)&CB_OPND_CONST ? &K[(o) & ~CB_OPND_CONST] : &S[o])
  while (budget != 0) {
    const cb_op *op = &ops[ip];
    switch (FK[ip]) {
    case FK_ADD:
      S[op->dst].u = (V(op->a)->u + V(op->b)->u) & cb_ty_mask(op->ty);
      break;
    case FK_SUB:
      S[op->dst].u = (V(op->a)->u - V(op->b)->u) & cb_ty_mask(op->ty);
      break;
    case FK_MUL:
      S[op->dst].u = (V(op->a)->u * V(op->b)->u) & cb_ty_mask(op->ty);
      break;
    case FK_AND:
      S[op->dst].u = V(op->a)->u & V(op->b)->u;
      break;
    case FK_OR:
      S[op->dst].u = V(op->a)->u | V(op->b)->u;
      break;
    case FK_XOR:
      S[op->dst].u = V(op->a)->u ^ V(op->b)->u;
      break;
    case FK_FADD_D:
      S[op->dst].d = fadd_d(V(op->a)->d, V(op->b)->d);
      break;
    case FK_FSUB_D:
      S[op->dst].d = fsub_d(V(op->a)->d, V(op->b)->d);
      break;
    case FK_FMUL_D:
      S[op->dst].d = fmul_d(V(op->a)->d, V(op->b)->d);
      break;
    case FK_FDIV_D:
      S[op->dst].d = fdiv_d(V(op->a)->d, V(op->b)->d);
      break;
    case FK_FADD_V:
    case FK_FSUB_V:
    case FK_FMUL_V:
    case FK_FDIV_V: {
      const cb_value *a = V(op->a), *b = V(op->b);
      cb_value *r = &S[op->dst];
      unsigned l = op->lanes;
      switch (FK[ip]) {
      case FK_FADD_V:
        for (unsigned i = 0; i < l; i++)
          r[i].d = fadd_d(a[i].d, b[i].d);
        break;
      case FK_FSUB_V:
        for (unsigned i = 0; i < l; i++)
          r[i].d = fsub_d(a[i].d, b[i].d);
        break;
      case FK_FMUL_V:
        for (unsigned i = 0; i < l; i++)
          r[i].d = fmul_d(a[i].d, b[i].d);
        break;
      default:
        for (unsigned i = 0; i < l; i++)
          r[i].d = fdiv_d(a[i].d, b[i].d);
        break;
      }
      break;
    }
    case FK_ICMP: {
      uint64_t m = cb_ty_mask(op->ty);
      S[op->dst].u = icmp(op->aux, V(op->a)->u & m, V(op->b)->u & m, op->ty);
      break;
    }
    case FK_GEP0:
      S[op->dst].u = V(op->a)->u + (uint64_t)X[op->aux];
      break;
    case FK_GEP1: {
      const int64_t *g = &X[op->aux];
      uint64_t x = (uint64_t)g[2];
      const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
      S[op->dst].u =
          V(op->a)->u + (uint64_t)g[0] +
          (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) * (uint64_t)g[3];
      break;
    }
    case FK_GEP2: {
      const int64_t *g = &X[op->aux];
      uint64_t x = (uint64_t)g[2], y = (uint64_t)g[4];
      const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
      const cb_value *jv = V((cb_operand)(y & 0xffffffffu));
      uint64_t addr = V(op->a)->u + (uint64_t)g[0];
      addr += (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) * (uint64_t)g[3];
      addr += (uint64_t)sxbits(jv->u, (unsigned)(y >> 32)) * (uint64_t)g[5];
      S[op->dst].u = addr;
      break;
    }
    case FK_LOAD8:
    case FK_LOAD16: {
      uint64_t addr = V(op->a)->u;
      unsigned size = FK[ip] == FK_LOAD8 ? 8 : 16;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp, 0))
        goto leave; /* eng_run()'s reference case: faults */
      if (__builtin_expect((addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
        goto leave; /* and page crossings */
      /* The host's stride prefetchers key on the load instruction, and
       * here one instruction loads for every op: a strided column walk
       * (lu, cholesky) missed the host's caches on nearly every load.
       * So each op's stride is tracked here, and the next address is prefetched
       * when its page is in the translation cache. Prefetching changes no
       * value. */
      fl_prefetch(e, ip, addr);
      /* constant sizes: a variable one made memcpy a library call */
      if (size == 8)
        memcpy(&S[op->dst], pp, 8);
      else
        memcpy(&S[op->dst], pp, 16);
      cb_eng_emit(e, addr, size, op->aux, false);
      loads++;
      break;
    }
    case FK_STORE8:
    case FK_STORE16: {
      uint64_t addr = V(op->b)->u;
      unsigned size = FK[ip] == FK_STORE8 ? 8 : 16;
      if (__builtin_expect((addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
        goto leave;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp, 0))
        goto leave;
      if (size == 8)
        memcpy(pp, V(op->a), 8);
      else
        memcpy(pp, V(op->a), 16);
      cb_eng_emit(e, addr, size, op->aux, true);
      stores++;
      break;
    }
    case FK_LOAD_S: {
      uint64_t addr = V(op->a)->u;
      unsigned size = cb_ty_bytes(op->ty);
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp, 0))
        goto leave;
      if (__builtin_expect((addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
        goto leave;
      fl_prefetch(e, ip, addr);
      load_lane(&S[op->dst], pp, op->ty);
      cb_eng_emit(e, addr, size, op->aux, false);
      loads++;
      break;
    }
    case FK_STORE_S: {
      uint64_t addr = V(op->b)->u;
      unsigned size = cb_ty_bytes(op->ty);
      if (__builtin_expect((addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
        goto leave;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp, 0))
        goto leave;
      store_lane(pp, V(op->a), op->ty);
      /* a store folded into its load (x86 read-modify-write) is no
       * access of its own: eng_run() does the same */
      if (__builtin_expect(!(e->rmw[ip] & 1), 1)) {
        cb_eng_emit(e, addr, size, op->aux, true);
        stores++;
      }
      break;
    }
    case FK_FMA_D: {
      const int64_t *g = &X[op->aux];
      const cb_value *x = V(CB_CALL_ARG_OPERAND((uint64_t)g[4]));
      const cb_value *y = V(CB_CALL_ARG_OPERAND((uint64_t)g[5]));
      const cb_value *z = V(CB_CALL_ARG_OPERAND((uint64_t)g[6]));
      unsigned l = op->lanes ? op->lanes : 1;
      cb_value r[64];
      bool fused = g[1] == CB_INTR_FMA || p->fmuladd_fused;
      for (unsigned i = 0; i < l; i++)
        r[i].d = muladd_d(fused, x[i].d, y[i].d, z[i].d);
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = r[i];
      break;
    }
    case FK_ZEXT:
      S[op->dst].u = V(op->a)->u & cb_ty_mask(op->ty);
      break;
    case FK_SEXT:
      S[op->dst].u = (uint64_t)sx(V(op->a)->u, op->ty2) & cb_ty_mask(op->ty);
      break;
    case FK_SHL:
    case FK_LSHR:
    case FK_ASHR:
    case FK_UDIV:
    case FK_UREM:
    case FK_SDIV:
    case FK_SREM: {
      /* engine_scalar.h's ibin for one lane, the zero divisor left */
      uint64_t a = V(op->a)->u, b = V(op->b)->u, m = cb_ty_mask(op->ty);
      unsigned bits = op->ty == CB_TY_I1 ? 1 : cb_ty_bytes(op->ty) * 8;
      uint64_t r;
      switch (FK[ip]) {
      case FK_SHL:
        r = (a << (b & (bits - 1))) & m;
        break;
      case FK_LSHR:
        r = (a >> (b & (bits - 1))) & m;
        break;
      case FK_ASHR:
        r = (uint64_t)(sx(a, op->ty) >> (b & (bits - 1))) & m;
        break;
      case FK_UDIV:
        if (!b)
          goto leave; /* eng_run() reports the division by zero */
        r = (a / b) & m;
        break;
      case FK_UREM:
        if (!b)
          goto leave;
        r = (a % b) & m;
        break;
      case FK_SDIV: {
        int64_t x = sx(a, op->ty), y = sx(b, op->ty);
        if (!y)
          goto leave;
        r = (y == -1 ? (uint64_t)0 - (uint64_t)x : (uint64_t)(x / y)) & m;
        break;
      }
      default: {
        int64_t x = sx(a, op->ty), y = sx(b, op->ty);
        if (!y)
          goto leave;
        r = (y == -1 ? 0 : (uint64_t)(x % y)) & m;
        break;
      }
      }
      S[op->dst].u = r;
      break;
    }
    case FK_SITOFP_D:
      S[op->dst].d = (double)sx(V(op->a)->u, op->ty2);
      break;
    case FK_FCMP_D: {
      S[op->dst].u = fcmp(op->aux, V(op->a)->d, V(op->b)->d);
      break;
    }
    case FK_SELECT:
      S[op->dst] = (V(op->a)->u & 1) ? *V(op->b) : *V(op->c);
      break;
    case FK_MOV:
      S[op->dst] = *V(op->a);
      break;
    case FK_GEP1_LOAD8:
    case FK_GEP2_LOAD8:
    case FK_GEP1_STORE8:
    case FK_GEP2_STORE8:
    case FK_GEP1_LOAD_S:
    case FK_GEP2_LOAD_S: {
      /* FK_GEP1 or FK_GEP2, then, if the budget has room for both and the
       * access is fast, the next op as FK_LOAD8, FK_STORE8 or FK_LOAD_S
       * does it; otherwise the next op runs on its own */
      unsigned k = FK[ip];
      const int64_t *g = &X[op->aux];
      uint64_t x = (uint64_t)g[2];
      uint64_t addr = V(op->a)->u + (uint64_t)g[0] +
                      (uint64_t)sxbits(V((cb_operand)(x & 0xffffffffu))->u,
                                       (unsigned)(x >> 32)) *
                          (uint64_t)g[3];
      if (k == FK_GEP2_LOAD8 || k == FK_GEP2_STORE8 || k == FK_GEP2_LOAD_S) {
        uint64_t y = (uint64_t)g[4];
        addr += (uint64_t)sxbits(V((cb_operand)(y & 0xffffffffu))->u,
                                 (unsigned)(y >> 32)) *
                (uint64_t)g[5];
      }
      S[op->dst].u = addr;
      if (budget < 2)
        break;
      const cb_op *m = op + 1;
      const bool narrow = k == FK_GEP1_LOAD_S || k == FK_GEP2_LOAD_S;
      unsigned size = narrow ? cb_ty_bytes(m->ty) : 8;
      uint8_t *pp = cb_mem_ptr(&e->pr.mem, addr);
      if (__builtin_expect(!pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE,
                           0))
        break;
      if (narrow) {
        fl_prefetch(e, ip + 1, addr);
        load_lane(&S[m->dst], pp, m->ty);
        cb_eng_emit(e, addr, size, m->aux, false);
        loads++;
      } else if (k == FK_GEP1_LOAD8 || k == FK_GEP2_LOAD8) {
        fl_prefetch(e, ip + 1, addr);
        memcpy(&S[m->dst], pp, 8);
        cb_eng_emit(e, addr, 8, m->aux, false);
        loads++;
      } else {
        memcpy(pp, V(m->a), 8);
        cb_eng_emit(e, addr, 8, m->aux, true);
        stores++;
      }
      ip++;
      budget--;
      break;
    }
    case FK_GEPN: {
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
      break;
    }
    case FK_INSERTELT: {
      /* eng_run()'s order: the lanes of a, then b (which may be one of them) */
      const cb_value *a = V(op->a), *b = V(op->b);
      uint64_t idx = V(op->c)->u;
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[i];
      if (idx < l)
        S[op->dst + idx] = *b;
      break;
    }
    case FK_BR: {
      /* eng_run()'s CB_OP_BR and its jump, for a target without machine-code
       * accesses (those are eng_run()'s) and with the phi moves of fastops.h */
      unsigned c = 0;
      if (op->a != CB_NONE)
        c = V(op->a)->u & 1;
      /* the successor: 0 if unconditional or taken, else 1 */
      const cb_br_target *bt = NULL;
      uint32_t gb, np, from;
      if (PE) {
        bt = &PE->br[2 * (size_t)F->block + (op->a == CB_NONE || c ? 0 : 1)];
        if (bt->block == CB_NONE)
          goto leave;
        gb = bt->block;
        np = bt->np;
        from = bt->from;
      } else {
        const cb_block *blk = &p->blocks[F->block];
        const cb_function *fn = &p->functions[F->func];
        uint32_t target =
            p->succs[blk->first_succ + (op->a == CB_NONE || c ? 0 : 1)];
        gb = fn->first_block + target;
        np = e->nphis[gb];
        from = F->block - fn->first_block;
        if (p->blocks[gb].n_mach != 0 || np)
          goto leave;
      }
      if (op->a != CB_NONE && op->aux != CB_NONE) {
        sig_add(e, ((uint64_t)op->aux << 8) | c, 1);
        out->branches++;
        /* the exact outcomes of `cbana paths`, as eng_run() counts them */
        if (op->aux < p->n_branches && out->branch_counts)
          out->branch_counts[2 * (size_t)op->aux + (c ? 0 : 1)]++;
      }
      budget--;
      const uint32_t from_block = F->block;
      F->prev = from;
      F->block = gb;
      ip = bt ? bt->first_op : p->blocks[gb].first_op;
      if (np) {
        /* np != 0 only with PE (above) */
        const cb_phi_edge *ed =
            bt->edge == CB_NONE ? NULL : &PE->edges[bt->edge];
        uint64_t *tmp = e->phi_tmp;
        size_t t = 0;
        if (ed && ed->in_order) {
          const cb_phi_move *mv = &PE->moves[ed->first_move];
          for (uint32_t k = 0; k < ed->n_moves; k++)
            S[mv[k].dst].u =
                mv[k].src == CB_NONE ? 0 : V((cb_operand)mv[k].src)->u;
        } else if (ed) {
          const cb_phi_move *mv = &PE->moves[ed->first_move];
          for (uint32_t k = 0; k < ed->n_moves; k++) {
            const cb_value *src =
                mv[k].src == CB_NONE ? NULL : V((cb_operand)mv[k].src);
            for (unsigned i = 0; i < mv[k].lanes; i++)
              tmp[t++] = src ? src[i].u : 0;
          }
          t = 0;
          for (uint32_t k = 0; k < ed->n_moves; k++)
            for (unsigned i = 0; i < mv[k].lanes; i++)
              S[mv[k].dst + i].u = tmp[t++];
        } else {
          for (uint32_t k = 0; k < np; k++) {
            const cb_op *ph = &ops[ip + k];
            unsigned l = ph->lanes ? ph->lanes : 1;
            for (unsigned i = 0; i < l; i++)
              S[ph->dst + i].u = 0;
          }
        }
        eng_budget_spend_upto(e, &budget, np);
        ip += np;
        /* a single-block loop entered from outside: its template runs all
         * the iterations it can (template.h), then this loop goes on with
         * the next one */
        if (e->tpl && gb != from_block && budget != 0) {
          int32_t ti = cb_tpl_of(e->tpl, gb);
          if (ti >= 0) {
            out->loads += loads;
            out->stores += stores;
            loads = stores = 0;
            eng_tpl_run(e, F, S, ti, &budget);
          }
        }
      }
      if (e->kernels && fl_kernel(e, &F, &S, &ip, &budget, &loads, &stores))
        goto leave;
      continue; /* ip and budget are already the target's */
    }
    default:
      goto leave;
    }
    ip++;
    budget--;
  }
#undef V
leave:
  out->loads += loads;
  out->stores += stores;
  *ip_io = ip;
  *budget_io = budget;
}
