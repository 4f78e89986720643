/* jit_slots.c: a kernel's block temporaries kept in registers (jit_gen.h).
 *
 * A kernel works on the interpreter's slots, so that the interpreter can
 * go on wherever the kernel leaves; written back at once, every value an
 * op computes cost a store, and values the loop's next block reloads
 * stayed out of registers. Most values are temporaries of one block,
 * though (an address, a compare, a loaded value used by the next op): a
 * slot that only its own block reads, each time after writing it, holds
 * nothing the rest of the function or a later pass through the block
 * needs once the block is left. Such a slot's value stays an SSA value
 * (sl_val), written to its slot only where the interpreter may need it:
 * on an exit before one of its reads (the exit's own block) and before a
 * call or `ret` the engine runs, which read the slots themselves.
 *
 * The reads counted (slot_reads) cover at least every slot an op reads
 * (wider spans for vectors, aggregates and wide values); a write counts
 * only for the op's first destination slot, so a slot is never taken for
 * a temporary on a write the analysis did not see. */
#include "jit_gen.h"

#include <stdlib.h>
#include <string.h>

#define SL_UNSEEN 0xfffffffeu

typedef struct sl_scan {
  uint32_t *blk, *last, n;
  /* the scan of one self-loop block (jit_slots_plan's second pass):
   * written so far in the block, read before that */
  uint8_t *w, *bad;
} sl_scan;

static void sl_read(sl_scan *s, uint32_t lb, uint32_t ip, cb_operand o,
                    uint64_t span) {
  if (o == CB_NONE || (o & CB_OPND_CONST))
    return;
  for (uint64_t i = 0; i < span && o + i < s->n; i++) {
    uint32_t x = (uint32_t)(o + i);
    if (s->w) {
      if (!s->w[x])
        s->bad[x] = 1;
    } else if (s->blk[x] == lb) {
      if (s->last[x] < ip || s->last[x] == CB_NONE)
        s->last[x] = ip;
    } else {
      s->blk[x] = CB_NONE;
    }
  }
}

static void sl_nonlocal(sl_scan *s, uint32_t from, uint64_t span) {
  for (uint64_t i = 0; i < span && from + i < s->n; i++)
    s->blk[from + i] = CB_NONE;
}

/* Slots an operand of op spans, at least (program.h's field use). */
static uint64_t op_span(const cb_program *p, const cb_op *op) {
  uint64_t l = op->lanes ? op->lanes : 1;
  if (op->ty == CB_TY_F80 || op->ty2 == CB_TY_F80)
    l *= 2;
  switch ((cb_opcode)op->code) {
  case CB_OP_WIDE: {
    uint64_t w = (CB_WIDE_OBITS(op->aux) + 63) / 64;
    uint64_t r = (CB_WIDE_RBITS(op->aux) + 63) / 64;
    l = l > w ? l : w;
    l = l > r ? l : r;
    return l > 2 ? l : 2;
  }
  case CB_OP_BITCAST: {
    unsigned a = cb_ty_bytes((cb_ty)op->ty), b = cb_ty_bytes((cb_ty)op->ty2);
    uint64_t src = b ? l * (a ? a : 1) / b + 1 : l;
    return src > l ? src : l;
  }
  case CB_OP_SHUFFLE: {
    uint64_t src = (uint64_t)p->extra[op->aux];
    return src > l ? src : l;
  }
  default:
    return l;
  }
}

static void slot_reads(const cb_program *p, const cb_function *fn, sl_scan *s,
                       uint32_t lb, uint32_t ip) {
  const cb_op *op = &p->ops[ip];
  const int64_t *x = &p->extra[op->aux];
  uint64_t l = op_span(p, op);
  switch ((cb_opcode)op->code) {
  case CB_OP_GEP:
    sl_read(s, lb, ip, op->a, 1);
    for (int64_t k = 0; k < x[1]; k++)
      sl_read(s, lb, ip, (cb_operand)(x[2 + 2 * k] & 0xffffffff), 1);
    break;
  case CB_OP_PHI:
    for (int64_t k = 0; k < x[0]; k++)
      sl_read(s, lb, ip, (cb_operand)x[2 + 2 * k], l);
    break;
  case CB_OP_CALL:
    if (x[0] == CB_CALL_INDIRECT)
      sl_read(s, lb, ip, op->a, 1);
    for (int64_t k = 0; k < x[3]; k++) {
      uint64_t w = (uint64_t)x[4 + k];
      uint64_t al = CB_CALL_ARG_LANES(w) ? CB_CALL_ARG_LANES(w) : 1;
      if (CB_CALL_ARG_TY(w) == CB_TY_F80)
        al *= 2;
      sl_read(s, lb, ip, CB_CALL_ARG_OPERAND(w), al > l ? al : l);
    }
    break;
  case CB_OP_RET: {
    uint64_t rl = fn->ret_lanes ? fn->ret_lanes : 1;
    rl = (rl > l ? rl : l) * 2;
    sl_read(s, lb, ip, op->a, rl);
    break;
  }
  case CB_OP_ALLOCA:
  case CB_OP_BR:
  case CB_OP_SWITCH:
    sl_read(s, lb, ip, op->a, 1);
    break;
  case CB_OP_EXTRACTVAL:
    sl_read(s, lb, ip, op->a, (uint64_t)op->aux + l);
    break;
  case CB_OP_INSERTVAL:
    sl_read(s, lb, ip, op->a, (uint64_t)x[0] + l);
    sl_read(s, lb, ip, op->b, l);
    break;
  case CB_OP_UNREACHABLE:
    break;
  default:
    sl_read(s, lb, ip, op->a, l);
    sl_read(s, lb, ip, op->b, l);
    sl_read(s, lb, ip, op->c, l);
    break;
  }
}

bool jit_slots_plan(jit_gen *g) {
  const cb_program *p = g->p;
  const cb_function *fn = g->fn;
  uint32_t n = fn->n_slots;
  g->n_slots = n;
  g->cur_lb = CB_NONE;
  g->sl_blk = malloc((n + 1) * sizeof *g->sl_blk);
  g->sl_last = malloc((n + 1) * sizeof *g->sl_last);
  g->sl_val = calloc(n + 1, sizeof *g->sl_val);
  g->sl_list = malloc((n + 1) * sizeof *g->sl_list);
  g->sl_set = calloc(n + 1, 1);
  g->sl_carry = malloc((n + 1) * sizeof *g->sl_carry);
  g->sl_loop = calloc(fn->n_blocks + 1, sizeof *g->sl_loop);
  g->sl_n = 0;
  uint8_t *w = calloc(n + 1, 1), *bad = calloc(n + 1, 1);
  if (!g->sl_blk || !g->sl_last || !g->sl_val || !g->sl_list || !g->sl_set ||
      !g->sl_carry || !g->sl_loop || !w || !bad) {
    free(w);
    free(bad);
    jit_slots_free(g);
    return false;
  }
  sl_scan s = {g->sl_blk, g->sl_last, n, NULL, NULL};
  for (uint32_t x = 0; x < n; x++) {
    s.blk[x] = SL_UNSEEN;
    s.last[x] = CB_NONE;
  }
  /* parameters are written by the call, not by an op */
  for (uint32_t k = 0; k < fn->n_params; k++) {
    const cb_param *pa = &p->params[fn->first_param + k];
    sl_nonlocal(&s, pa->slot,
                (pa->lanes ? pa->lanes : 1) * (pa->ty == CB_TY_F80 ? 2u : 1u));
  }
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
    const cb_block *b = &p->blocks[fn->first_block + lb];
    for (uint32_t ip = b->first_op; ip < b->first_op + b->n_ops; ip++) {
      const cb_op *op = &p->ops[ip];
      slot_reads(p, fn, &s, lb, ip);
      if (op->dst == CB_NONE || op->dst >= n)
        continue;
      if (op->code == CB_OP_PHI) {
        /* written by the edges into the block, in other blocks' code */
        sl_nonlocal(&s, op->dst, op_span(p, op));
        continue;
      }
      if (s.blk[op->dst] == SL_UNSEEN)
        s.blk[op->dst] = lb;
      else if (s.blk[op->dst] != lb)
        s.blk[op->dst] = CB_NONE;
    }
  }
  for (uint32_t x = 0; x < n; x++) {
    if (s.blk[x] == SL_UNSEEN || s.last[x] == CB_NONE)
      s.blk[x] = CB_NONE; /* never read: nothing to keep */
    g->sl_carry[x] = CB_NONE;
  }
  /* A block that is its own successor (a loop of one block) carries the
   * values of its phis, and the slots it writes before reading them,
   * from one pass to the next: read in other blocks too, they go to
   * their slots when the block is left (an edge out, an exit, a call),
   * not on each pass. */
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
    const cb_block *b = &p->blocks[fn->first_block + lb];
    bool self = false;
    for (uint32_t k = 0; k < b->n_succ && !self; k++)
      self = p->succs[b->first_succ + k] == lb;
    if (!self)
      continue;
    memset(w, 0, n);
    memset(bad, 0, n);
    sl_scan c = {g->sl_blk, g->sl_last, n, w, bad};
    for (uint32_t ip = b->first_op; ip < b->first_op + b->n_ops; ip++) {
      const cb_op *op = &p->ops[ip];
      if (op->code == CB_OP_PHI) {
        for (uint64_t i = 0; i < op_span(p, op) && op->dst + i < n; i++)
          if (g->sl_carry[op->dst + i] == CB_NONE)
            g->sl_carry[op->dst + i] = lb;
        continue;
      }
      slot_reads(p, fn, &c, lb, ip);
      if (op->dst != CB_NONE && op->dst < n)
        w[op->dst] = 1;
    }
    for (uint32_t x = 0; x < n; x++)
      if (w[x] && !bad[x] && g->sl_blk[x] == CB_NONE &&
          g->sl_carry[x] == CB_NONE)
        g->sl_carry[x] = lb;
  }
  free(w);
  free(bad);
  return true;
}

void jit_slots_free(jit_gen *g) {
  free(g->sl_blk);
  free(g->sl_last);
  free(g->sl_val);
  free(g->sl_list);
  free(g->sl_set);
  free(g->sl_carry);
  free(g->sl_loop);
  g->sl_carry = NULL;
  g->sl_loop = NULL;
  g->sl_blk = g->sl_last = g->sl_list = NULL;
  g->sl_val = NULL;
  g->sl_set = NULL;
  g->sl_n = 0;
}

void jit_slots_begin(jit_gen *g, uint32_t lb) {
  for (uint32_t i = 0; i < g->sl_n; i++)
    g->sl_set[g->sl_list[i]] = 0;
  g->sl_n = 0;
  g->cur_lb = lb;
}

bool jit_slots_kept(const jit_gen *g, uint32_t slot) {
  return g->sl_val && !g->tpl && slot < g->n_slots &&
         (g->sl_blk[slot] == g->cur_lb || g->sl_carry[slot] == g->cur_lb);
}

/* A slot's value lives in an alloca of its own, which LLVM's mem2reg
 * turns into registers: values set on two paths inside one op's code
 * (a select's lane-wise and whole-vector forms) meet in a phi. */
static void make_alloca(jit_gen *g, uint32_t slot) {
  if (!g->sl_val[slot]) {
    LLVMBuilderRef ab = LLVMCreateBuilderInContext(g->C);
    LLVMValueRef first = LLVMGetFirstInstruction(g->entry_bb);
    if (first)
      LLVMPositionBuilderBefore(ab, first);
    else
      LLVMPositionBuilderAtEnd(ab, g->entry_bb);
    g->sl_val[slot] = LLVMBuildAlloca(ab, g->i64, "");
    LLVMDisposeBuilder(ab);
  }
}

static void mark_set(jit_gen *g, uint32_t slot) {
  if (!g->sl_set[slot]) {
    g->sl_set[slot] = 1;
    g->sl_list[g->sl_n++] = slot;
  }
}

void jit_slots_keep(jit_gen *g, uint32_t slot, LLVMValueRef v) {
  make_alloca(g, slot);
  mark_set(g, slot);
  LLVMBuildStore(g->B, v, g->sl_val[slot]);
}

/* An exit before op ip writes a slot kept: one the block carries, or
 * one of its temporaries read at ip or later. */
static bool exit_writes(const jit_gen *g, uint32_t x, uint32_t ip) {
  return g->sl_carry[x] == g->cur_lb || g->sl_last[x] >= ip;
}

void jit_slots_loop(jit_gen *g, uint32_t lb) {
  if (!g->sl_val || g->tpl)
    return;
  const cb_program *p = g->p;
  uint32_t gb = g->fn->first_block + lb;
  const cb_block *b = &p->blocks[gb];
  bool any = false;
  for (uint32_t k = 0; k < g->nphis[gb]; k++) {
    const cb_op *ph = &p->ops[b->first_op + k];
    for (uint64_t i = 0; i < op_span(p, ph) && ph->dst + i < g->n_slots; i++) {
      uint32_t x = (uint32_t)(ph->dst + i);
      if (g->sl_carry[x] != lb)
        continue;
      make_alloca(g, x);
      LLVMBuildStore(g->B, jit_load(g, g->i64, jit_slot_ptr(g, x), TB_SLOT),
                     g->sl_val[x]);
      any = true;
    }
  }
  if (!any)
    return;
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->C, g->F, "loop");
  LLVMBuildBr(g->B, loop);
  LLVMPositionBuilderAtEnd(g->B, loop);
  g->sl_loop[lb] = loop;
  for (uint32_t k = 0; k < g->nphis[gb]; k++) {
    const cb_op *ph = &p->ops[b->first_op + k];
    for (uint64_t i = 0; i < op_span(p, ph) && ph->dst + i < g->n_slots; i++)
      if (g->sl_carry[ph->dst + i] == lb)
        mark_set(g, (uint32_t)(ph->dst + i));
  }
}

LLVMBasicBlockRef jit_slots_target(const jit_gen *g, uint32_t lb, uint32_t t) {
  if (t == lb && g->sl_loop && g->sl_loop[lb])
    return g->sl_loop[lb];
  return g->body[t];
}

void jit_slots_leave(jit_gen *g) {
  if (!g->sl_val || g->tpl)
    return;
  for (uint32_t i = 0; i < g->sl_n; i++) {
    uint32_t x = g->sl_list[i];
    if (g->sl_carry[x] == g->cur_lb)
      jit_store(g, jit_slots_value(g, x), jit_slot_ptr(g, x), TB_SLOT);
  }
}

LLVMValueRef jit_slots_value(jit_gen *g, uint32_t slot) {
  return LLVMBuildLoad2(g->B, g->i64, g->sl_val[slot], "");
}

bool jit_slots_needed(const jit_gen *g, uint32_t ip) {
  if (!g->sl_val || g->tpl)
    return false;
  for (uint32_t i = 0; i < g->sl_n; i++)
    if (exit_writes(g, g->sl_list[i], ip))
      return true;
  return false;
}

void jit_slots_store(jit_gen *g, uint32_t ip) {
  if (!g->sl_val || g->tpl)
    return;
  for (uint32_t i = 0; i < g->sl_n; i++) {
    uint32_t x = g->sl_list[i];
    if (exit_writes(g, x, ip))
      jit_store(g, jit_slots_value(g, x), jit_slot_ptr(g, x), TB_SLOT);
  }
}

void jit_slots_spill(jit_gen *g, uint32_t ip) {
  if (!g->sl_val || g->tpl)
    return;
  jit_slots_store(g, ip);
  jit_slots_begin(g, g->cur_lb);
}
