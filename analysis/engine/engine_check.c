/* engine_check.c: what is computed from the Program before a run:
 * validate (every index the interpreter follows is inside the Program's
 * arrays), folded read-modify-write stores, vector selects, phi counts,
 * loop templates, functions by address and the frame layout
 * (precompute). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_frames.h"
#include "engine_internal.h"
#include "engine_kernel.h"
#include "template.h"

/* Orders function indexes by code address (e->fn_by_addr). */
static int cmp_fn_addr(const void *a, const void *b, void *ctx) {
  const cb_program *p = ctx;
  uint64_t x = p->functions[*(const uint32_t *)a].addr;
  uint64_t y = p->functions[*(const uint32_t *)b].addr;
  return x < y ? -1 : x > y;
}

/* Stores that the x86 backend folds with the load of the same address
 * into one read-modify-write instruction (`addl %eax, (mem)`), which
 * cachegrind counts as one read and no write: load L of p; v = L op x;
 * store v to p; in one block, L and v used once, no store or call in
 * between. */
static void count_use(uint32_t *uses, uint32_t nslots, cb_operand o) {
  if (o != CB_NONE && !(o & CB_OPND_CONST) && o < nslots)
    uses[o]++;
}

/* Slots a CB_OP_WIDE operand spans: its integer width's limbs, or a
 * long double's two (program.h). */
static unsigned wide_in_slots(const cb_op *op) {
  unsigned ob = CB_WIDE_OBITS(op->aux);
  if (ob)
    return (ob + 63) / 64;
  return op->ty2 == CB_TY_F80 ? 2 : 1;
}

static void find_rmw(cb_eng *e) {
  const cb_program *p = e->p;
  e->rmw = calloc(p->n_ops + 1, 1);
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    if (!fn->n_blocks || fn->optnone)
      continue; /* -O0: FastISel folds no store (program.h) */
    uint32_t ns = fn->n_slots + 1;
    uint32_t *uses = calloc(ns, sizeof *uses);
    uint32_t o0, o1;
    cb_function_ops(p, fn, &o0, &o1);
    for (uint32_t i = o0; i < o1; i++) {
      const cb_op *op = &p->ops[i];
      const int64_t *g = &p->extra[op->aux];
      switch (op->code) {
      case CB_OP_GEP:
        count_use(uses, ns, op->a);
        for (int64_t k = 0; k < g[1]; k++)
          count_use(uses, ns, (cb_operand)(g[2 + 2 * k] & 0xffffffff));
        break;
      case CB_OP_PHI:
        for (int64_t k = 0; k < g[0]; k++)
          count_use(uses, ns, (cb_operand)g[2 + 2 * k]);
        break;
      case CB_OP_CALL:
        if (g[0] == CB_CALL_INDIRECT)
          count_use(uses, ns, op->a);
        for (int64_t k = 0; k < g[3]; k++)
          count_use(uses, ns, CB_CALL_ARG_OPERAND(g[4 + k]));
        break;
      case CB_OP_ALLOCA:
      case CB_OP_BR:
      case CB_OP_SWITCH:
      case CB_OP_RET:
      case CB_OP_EXTRACTVAL:
        count_use(uses, ns, op->a);
        break;
      case CB_OP_UNREACHABLE:
        break;
      default:
        count_use(uses, ns, op->a);
        count_use(uses, ns, op->b);
        if (op->code == CB_OP_SELECT || op->code == CB_OP_INSERTELT)
          count_use(uses, ns, op->c);
        break;
      }
    }
    for (uint32_t bi = 0; bi < fn->n_blocks; bi++) {
      const cb_block *b = &p->blocks[fn->first_block + bi];
      for (uint32_t i = b->first_op; i < b->first_op + b->n_ops; i++) {
        const cb_op *st = &p->ops[i];
        /* the address may be a constant: a global's (`add [rip+x], edi`) */
        if (st->code != CB_OP_STORE || st->lanes > 1 || st->ty < CB_TY_I8 ||
            st->ty > CB_TY_I64 || (st->a & CB_OPND_CONST))
          continue;
        /* the value's definition */
        uint32_t j = i;
        while (j > b->first_op && p->ops[j - 1].dst != st->a)
          j--;
        if (j == b->first_op)
          continue;
        const cb_op *bin = &p->ops[--j];
        switch (bin->code) {
        case CB_OP_ADD:
        case CB_OP_SUB:
        case CB_OP_AND:
        case CB_OP_OR:
        case CB_OP_XOR:
        case CB_OP_SHL:
        case CB_OP_LSHR:
        case CB_OP_ASHR:
          break;
        default:
          continue;
        }
        if (bin->ty != st->ty || bin->lanes > 1 || st->a >= ns ||
            uses[st->a] != 1)
          continue;
        bool commutative = bin->code == CB_OP_ADD || bin->code == CB_OP_AND ||
                           bin->code == CB_OP_OR || bin->code == CB_OP_XOR;
        bool found = false;
        for (int side = 0; side < (commutative ? 2 : 1) && !found; side++) {
          cb_operand lv = side ? bin->b : bin->a;
          if ((lv & CB_OPND_CONST) || lv >= ns || uses[lv] != 1)
            continue;
          uint32_t k = j;
          while (k > b->first_op && p->ops[k - 1].dst != lv)
            k--;
          if (k == b->first_op)
            continue;
          const cb_op *ld = &p->ops[k - 1];
          if (ld->code != CB_OP_LOAD || ld->a != st->b || ld->ty != st->ty ||
              ld->lanes > 1)
            continue;
          bool clean = true;
          for (uint32_t m = k; m < i && clean; m++)
            if (p->ops[m].code == CB_OP_STORE || p->ops[m].code == CB_OP_CALL)
              clean = false;
          found = clean;
        }
        if (found)
          e->rmw[i] = 1;
      }
    }
    free(uses);
  }
}

/* Checks that every index the interpreter follows stays inside the
 * Program's arrays, so that a malformed Program is an error, never a
 * crash. Returns NULL or a message. */
const char *eng_validate(const cb_program *p, char *buf, size_t n) {
  if (!p->functions || !p->blocks || !p->ops)
    return "no functions, blocks or operations";
  for (uint32_t f = 0; p->fn_mach && f < p->n_functions; f++)
    if ((p->fn_mach[f].entry_site != CB_NONE &&
         p->fn_mach[f].entry_site >= p->n_sites) ||
        (p->fn_mach[f].exit_site != CB_NONE &&
         p->fn_mach[f].exit_site >= p->n_sites))
      return "function entry/exit sites out of range";
  for (uint32_t s = 0; p->ra_site && s < p->n_sites; s++)
    if (p->ra_site[s] != CB_NONE && p->ra_site[s] >= p->n_sites)
      return "return-address sites out of range";
  for (uint32_t i = 0; p->mach && i < p->n_mach; i++)
    if (p->mach[i].site >= p->n_sites)
      return "machine access sites out of range";
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    const char *nm = fn->name ? fn->name : "?";
    uint32_t ns = fn->n_slots;
    if (!fn->n_blocks)
      continue;
    if ((uint64_t)fn->first_block + fn->n_blocks > p->n_blocks) {
      snprintf(buf, n, "function %s: blocks out of range", nm);
      return buf;
    }
    for (uint32_t k = 0; k < fn->n_params; k++) {
      const cb_param *pa = &p->params[fn->first_param + k];
      if ((uint64_t)pa->slot + (pa->lanes ? pa->lanes : 1) > ns) {
        snprintf(buf, n, "function %s: parameter %u slot out of range", nm, k);
        return buf;
      }
    }
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &p->blocks[fn->first_block + b];
      if (!bl->n_ops || (uint64_t)bl->first_op + bl->n_ops > p->n_ops) {
        snprintf(buf, n, "function %s block %u: operations out of range", nm,
                 b);
        return buf;
      }
      for (uint32_t k = 0; k < bl->n_succ; k++)
        if (p->succs[bl->first_succ + k] >= fn->n_blocks) {
          snprintf(buf, n, "function %s block %u: successor out of range", nm,
                   b);
          return buf;
        }
      if (bl->n_mach &&
          (!p->mach || (uint64_t)bl->first_mach + bl->n_mach > p->n_mach)) {
        snprintf(buf, n, "function %s block %u: machine accesses out of range",
                 nm, b);
        return buf;
      }
      for (uint32_t i = bl->first_op; i < bl->first_op + bl->n_ops; i++) {
        const cb_op *op = &p->ops[i];
        unsigned l = op->lanes ? op->lanes : 1;
        const char *why = NULL;
#define OPND_OK(o, ln)                                                         \
  ((o) == CB_NONE ||                                                           \
   (((o)&CB_OPND_CONST)                                                        \
        ? ((uint64_t)((o) & ~CB_OPND_CONST) + (ln) <= p->n_consts)             \
        : ((uint64_t)(o) + (ln) <= ns)))
        bool last = i + 1 == bl->first_op + bl->n_ops;
        bool term = op->code == CB_OP_BR || op->code == CB_OP_SWITCH ||
                    op->code == CB_OP_RET || op->code == CB_OP_UNREACHABLE;
        if (op->code >= CB_OP_COUNT || op->ty >= CB_TY_COUNT ||
            op->ty2 >= CB_TY_COUNT)
          why = "unknown opcode or type";
        else if (last != term)
          why = last ? "the block does not end with a terminator"
                     : "a terminator inside the block";
        /* extractelement's lanes are its vector's: it writes one slot */
        else if (op->dst != CB_NONE &&
                 (uint64_t)op->dst +
                         (l < 2 || op->code == CB_OP_EXTRACTELT ? 2 : l) >
                     ns + 1)
          why = "destination slot out of range";
        else if (!OPND_OK(op->a, 1) || !OPND_OK(op->b, 1) || !OPND_OK(op->c, 1))
          why = "operand out of range";
        else if (op->code == CB_OP_WIDE &&
                 (op->a == CB_NONE || op->dst == CB_NONE ||
                  !OPND_OK(op->a, wide_in_slots(op)) ||
                  !OPND_OK(op->b, wide_in_slots(op))))
          why = "wide operation's operand out of range";
        else if ((op->code == CB_OP_LOAD || op->code == CB_OP_STORE) &&
                 op->aux != CB_NONE && op->aux >= p->n_sites)
          why = "site out of range";
        else if (op->code == CB_OP_ALLOCA && op->aux >= p->n_frame_objs)
          why = "frame object out of range";
        else if (op->code == CB_OP_BR && op->a != CB_NONE && bl->n_succ < 2)
          why = "conditional branch with fewer than two successors";
        else if (op->code == CB_OP_BR && bl->n_succ < 1)
          why = "branch without a successor";
        else if (op->code == CB_OP_GEP || op->code == CB_OP_PHI ||
                 op->code == CB_OP_CALL || op->code == CB_OP_SWITCH ||
                 op->code == CB_OP_SHUFFLE || op->code == CB_OP_INSERTVAL) {
          uint64_t need = 2;
          if (op->aux >= p->n_extra)
            why = "extra record out of range";
          else {
            const int64_t *g = &p->extra[op->aux];
            switch (op->code) {
            case CB_OP_GEP:
              need = 2 + 2 * (uint64_t)g[1];
              break;
            case CB_OP_PHI:
              need = 1 + 2 * (uint64_t)g[0];
              break;
            case CB_OP_CALL:
              need = op->aux + 3 < p->n_extra ? 4 + (uint64_t)g[3] : 4;
              break;
            case CB_OP_SWITCH:
              need = 2 + 2 * (uint64_t)g[0];
              break;
            case CB_OP_SHUFFLE:
              need = 1 + (uint64_t)l;
              break;
            default:
              need = 2;
              break;
            }
            if ((uint64_t)op->aux + need > p->n_extra)
              why = "extra record out of range";
            else if (op->code == CB_OP_CALL &&
                     ((g[0] == CB_CALL_DIRECT &&
                       (uint64_t)g[1] >= p->n_functions) ||
                      (g[0] == CB_CALL_LIBC && g[1] >= CB_LIBC_COUNT) ||
                      (g[0] == CB_CALL_INTRINSIC && g[1] >= CB_INTR_COUNT) ||
                      (g[0] == CB_CALL_UNMODELLED &&
                       (uint64_t)g[1] >= p->n_unmodelled) ||
                      g[0] > CB_CALL_UNMODELLED || g[3] > 64))
              why = "call record out of range";
            else if (op->code == CB_OP_SWITCH)
              for (int64_t k = 0; k < g[0] && !why; k++)
                if ((uint64_t)g[2 + 2 * k] >= bl->n_succ)
                  why = "switch successor out of range";
            if (!why && op->code == CB_OP_PHI)
              for (int64_t k = 0; k < g[0] && !why; k++)
                if (!OPND_OK((cb_operand)g[2 + 2 * k], l))
                  why = "phi operand out of range";
            if (!why && op->code == CB_OP_GEP)
              for (int64_t k = 0; k < g[1] && !why; k++)
                if (!OPND_OK((cb_operand)(g[2 + 2 * k] & 0xffffffff), 1))
                  why = "index operand out of range";
            if (!why && op->code == CB_OP_CALL)
              for (int64_t k = 0; k < g[3] && !why; k++) {
                uint64_t x = (uint64_t)g[4 + k];
                unsigned al = CB_CALL_ARG_LANES(x) ? CB_CALL_ARG_LANES(x) : 1;
                if (!OPND_OK(CB_CALL_ARG_OPERAND(x), al))
                  why = "argument out of range";
              }
          }
        }
        if (why) {
          snprintf(buf, n, "function %s block %u operation %u: %s", nm, b,
                   i - bl->first_op, why);
          return buf;
        }
#undef OPND_OK
      }
    }
  }
  return NULL;
}

/* Selects whose condition is a vector of i1 (one per lane): marked by
 * the frontend with ty2 = CB_TY_I1, or found here from the lanes of the
 * condition's definition. Sets bit 2 of e->rmw. */
static void find_vector_selects(cb_eng *e) {
  const cb_program *p = e->p;
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    if (!fn->n_blocks)
      continue;
    uint8_t *lanes = calloc(fn->n_slots + 2, 1);
    for (uint32_t k = 0; k < fn->n_params; k++) {
      const cb_param *pa = &p->params[fn->first_param + k];
      if (pa->slot < fn->n_slots)
        lanes[pa->slot] = pa->lanes;
    }
    uint32_t o0, o1;
    cb_function_ops(p, fn, &o0, &o1);
    for (uint32_t i = o0; i < o1; i++)
      if (p->ops[i].dst < fn->n_slots)
        lanes[p->ops[i].dst] = p->ops[i].lanes;
    for (uint32_t i = o0; i < o1; i++) {
      const cb_op *op = &p->ops[i];
      if (op->code != CB_OP_SELECT || op->lanes <= 1)
        continue;
      if (op->ty2 == CB_TY_I1 || (op->a & CB_OPND_CONST) ||
          (op->a < fn->n_slots && lanes[op->a] > 1))
        e->rmw[i] |= 2;
    }
    free(lanes);
  }
}

/* The ops before which a block's machine-code accesses are made in the
 * middle of the block (engine_internal.h, mach_mid). */
static void find_mach_mid(cb_eng *e) {
  const cb_program *p = e->p;
  for (uint32_t b = 0; p->mach && b < p->n_blocks; b++) {
    const cb_block *bl = &p->blocks[b];
    for (uint32_t i = 0; i < bl->n_mach && bl->first_mach + i < p->n_mach;
         i++) {
      uint32_t x = p->mach[bl->first_mach + i].op;
      if (x <= bl->first_op || x >= bl->first_op + bl->n_ops ||
          p->ops[x - 1].code == CB_OP_CALL)
        continue; /* on entry, or after a call (emitted there) */
      if (!e->mach_mid && !(e->mach_mid = calloc(p->n_ops, 1)))
        return;
      e->mach_mid[x] = 1;
    }
  }
}

/* engine_internal.h's mach_at: per op, the first of the accesses made
 * after the call before it, when that op's are contiguous in its
 * block's list. */
static void find_mach_at(cb_eng *e) {
  const cb_program *p = e->p;
  if (!p->n_mach || !(e->mach_at = malloc((p->n_ops + 1) * sizeof(uint32_t))))
    return;
  for (uint32_t i = 0; i <= p->n_ops; i++)
    e->mach_at[i] = CB_MACH_AT_NONE;
  for (uint32_t bi = 0; bi < p->n_blocks; bi++) {
    const cb_block *b = &p->blocks[bi];
    for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
      uint32_t k = b->first_mach + i;
      uint32_t op = p->mach[k].op;
      if (op <= b->first_op || op >= p->n_ops)
        continue; /* on entry to the block */
      if (e->mach_at[op] == CB_MACH_AT_NONE)
        e->mach_at[op] = k;
      else if (i == 0 || p->mach[k - 1].op != op)
        e->mach_at[op] = CB_NONE; /* not contiguous: walk the list */
    }
  }
}

void eng_precompute(cb_eng *e) {
  find_rmw(e);
  find_vector_selects(e);
  const cb_program *p = e->p;
  find_mach_mid(e);
  find_mach_at(e);
  e->nphis = calloc(p->n_blocks + 1, sizeof *e->nphis);
  size_t maxl = 16;
  for (uint32_t b = 0; b < p->n_blocks; b++) {
    const cb_block *bl = &p->blocks[b];
    uint32_t n = 0;
    size_t l = 0;
    while (n < bl->n_ops && p->ops[bl->first_op + n].code == CB_OP_PHI) {
      unsigned ln = p->ops[bl->first_op + n].lanes;
      l += ln ? ln : 1;
      n++;
    }
    e->nphis[b] = n;
    if (l > maxl)
      maxl = l;
  }
  e->phi_cap = maxl;
  /* loop templates run only the iterations the kernels' native code
   * computes (template.h) */
  if (e->opt.mode == CB_ENGINE_FAST && p->kernels && p->tpl_kernels)
    e->tpl = cb_tpl_build(p, e->rmw, e->nphis); /* template.h */
  eng_kernel_setup(e);
  e->phi_tmp = malloc(maxl * sizeof *e->phi_tmp);
  e->fn_by_addr = malloc((p->n_functions + 1) * sizeof *e->fn_by_addr);
  for (uint32_t f = 0; f < p->n_functions; f++)
    if (p->functions[f].addr)
      e->fn_by_addr[e->n_fn_by_addr++] = f;
  qsort_r(e->fn_by_addr, e->n_fn_by_addr, sizeof *e->fn_by_addr, cmp_fn_addr,
          (void *)p);
  eng_layout_frames(e);
}
