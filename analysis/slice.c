/* Slicing's static half: which values are needed, which may be garbage
 * (slice.h). Works per function on the value slots: every SSA value owns
 * its slots (program.h), so the op that writes a slot is the value's
 * definition, and a slot no op writes is a parameter (exact: call
 * arguments are needed). */
#include "slice.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Is op a call of libm's sqrt or sqrtf? Its value is all that depends on
 * its argument but for one thing: the first call with a negative argument
 * binds the function (clang computes the rest inline), which a run that
 * skipped the argument learns from the native run (CB_SL_SIGN). */
static bool is_sqrt(const cb_program *p, const cb_op *op) {
  if (op->code != CB_OP_CALL)
    return false;
  const int64_t *g = &p->extra[op->aux];
  return g[0] == CB_CALL_LIBC &&
         (g[1] == CB_LIBC_SQRT || g[1] == CB_LIBC_SQRTF) && g[3] == 1;
}

bool cb_slice_value_intrinsic(const cb_program *p, const cb_op *op) {
  /* fabs to the vector reductions in libc_names.h: not memcpy, memset,
   * stacksave. The model gives them no traffic and no stop that depends
   * on the values (libc.c, cb_intrinsic_call). */
  return op->code == CB_OP_CALL && p->extra[op->aux] == CB_CALL_INTRINSIC &&
         p->extra[op->aux + 1] >= CB_INTR_FABS &&
         p->extra[op->aux + 1] <= CB_INTR_REDUCE_FMIN;
}

/* Is op a pure computation that can be skipped when nothing needs it?
 * Everything else is a root: its operands are needed. Loads and stores
 * are neither: they always run, and their addresses are needed. */
static bool is_pure(const cb_program *p, const cb_op *op) {
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
  case CB_OP_BITCAST:
  case CB_OP_MOV:
  case CB_OP_GEP:
  case CB_OP_EXTRACTELT:
  case CB_OP_INSERTELT:
  case CB_OP_SHUFFLE:
  case CB_OP_EXTRACTVAL:
  case CB_OP_INSERTVAL:
  case CB_OP_PHI:
    return true;
  case CB_OP_UDIV:
  case CB_OP_SDIV:
  case CB_OP_UREM:
  case CB_OP_SREM: {
    /* by a constant other than 0 and -1 (INT_MIN / -1 traps on x86):
     * nothing can stop the program (i % 100 in an initialisation) */
    if (!(op->b & CB_OPND_CONST) || op->ty >= CB_TY_COUNT)
      return false;
    unsigned l = op->lanes ? op->lanes : 1, bits = 8 * cb_ty_bytes(op->ty);
    uint64_t m = bits >= 64 ? ~0ull : (1ull << bits) - 1;
    for (unsigned i = 0; i < l; i++) {
      uint64_t d = p->consts[(op->b & ~CB_OPND_CONST) + i].u & m;
      if (d == 0 || d == m)
        return false;
    }
    return true;
  }
  case CB_OP_CALL:
    return is_sqrt(p, op) || cb_slice_value_intrinsic(p, op);
  default:
    return false;
  }
}

/* Is operand k of op a number printf only prints? Its text is all that
 * depends on it, and a run that skipped it takes the text from the
 * program's native output (libc_stdio.c, native_run.c). Pointers stay
 * needed: %s reads through them, %n writes. */
static bool print_only(const cb_program *p, const cb_op *op, unsigned k) {
  if (op->code != CB_OP_CALL)
    return false;
  const int64_t *g = &p->extra[op->aux];
  if (g[0] != CB_CALL_LIBC || g[1] != CB_LIBC_PRINTF || k < 1 ||
      (int64_t)k >= g[3])
    return false;
  cb_ty t = CB_CALL_ARG_TY((uint64_t)g[4 + k]);
  return t != CB_TY_PTR && t != CB_TY_VOID &&
         CB_CALL_ARG_LANES((uint64_t)g[4 + k]) <= 1;
}

/* The operands op reads (slots or constants), at most max; *addr: how
 * many of the first ones are addresses (loads, stores: needed whatever
 * the op's own value). */
unsigned cb_slice_op_reads(const cb_program *p, const cb_op *op, cb_operand *o,
                           unsigned max, unsigned *addr) {
  unsigned n = 0;
  *addr = 0;
#define PUT(x)                                                                 \
  do {                                                                         \
    if (n < max)                                                               \
      o[n++] = (x);                                                            \
  } while (0)
  switch ((cb_opcode)op->code) {
  case CB_OP_LOAD:
    *addr = 1;
    PUT(op->a);
    break;
  case CB_OP_STORE:
    *addr = 1;
    PUT(op->b);
    PUT(op->a);
    break;
  case CB_OP_GEP: {
    const int64_t *g = &p->extra[op->aux];
    PUT(op->a);
    for (int64_t k = 0; k < g[1]; k++)
      PUT((cb_operand)((uint64_t)g[2 + 2 * k] & 0xffffffffu));
    break;
  }
  case CB_OP_PHI: {
    const int64_t *g = &p->extra[op->aux];
    for (int64_t k = 0; k < g[0]; k++)
      PUT((cb_operand)g[2 + 2 * k]);
    break;
  }
  case CB_OP_CALL: {
    const int64_t *g = &p->extra[op->aux];
    if (g[0] == CB_CALL_INDIRECT)
      PUT(op->a);
    for (int64_t k = 0; k < g[3]; k++)
      PUT(CB_CALL_ARG_OPERAND((uint64_t)g[4 + k]));
    break;
  }
  default:
    PUT(op->a);
    PUT(op->b);
    PUT(op->c);
    break;
  }
#undef PUT
  return n;
}

/* Slots op writes from op->dst. An extractelement's lanes are its
 * vector operand's (program.h): it writes one. */
uint32_t cb_slice_op_span(const cb_program *p, const cb_op *op) {
  if (op->code == CB_OP_INSERTVAL)
    return (uint32_t)p->extra[op->aux];
  if (op->code == CB_OP_EXTRACTELT)
    return 1;
  return op->lanes ? op->lanes : 1;
}

/* The defining op (global index) of each slot of function f, -1 for a
 * parameter's; false when some operand names a slot with neither (then
 * the function is not sliced). */
bool cb_slice_def_map(const cb_program *p, const cb_function *f, int32_t *def,
                      cb_operand *o) {
  for (uint32_t s = 0; s < f->n_slots; s++)
    def[s] = -2;
  for (uint32_t k = 0; k < f->n_params; k++) {
    const cb_param *pa = &p->params[f->first_param + k];
    for (uint32_t l = 0; l < (pa->lanes ? pa->lanes : 1u); l++)
      if (pa->slot + l < f->n_slots)
        def[pa->slot + l] = -1;
  }
  const cb_block *b0 = &p->blocks[f->first_block];
  const cb_block *bl = &p->blocks[f->first_block + f->n_blocks - 1];
  for (uint32_t i = b0->first_op; i < bl->first_op + bl->n_ops; i++) {
    const cb_op *op = &p->ops[i];
    if (op->dst == CB_NONE)
      continue;
    uint32_t span = cb_slice_op_span(p, op);
    for (uint32_t l = 0; l < span; l++) {
      if (op->dst + l >= f->n_slots || def[op->dst + l] != -2)
        return false;
      def[op->dst + l] = (int32_t)i;
    }
  }
  for (uint32_t i = b0->first_op; i < bl->first_op + bl->n_ops; i++) {
    unsigned na,
        n = cb_slice_op_reads(p, &p->ops[i], o, CB_SLICE_MAX_READS, &na);
    if (n == CB_SLICE_MAX_READS)
      return false;
    for (unsigned k = 0; k < n; k++)
      if (o[k] != CB_NONE && !(o[k] & CB_OPND_CONST) &&
          (o[k] >= f->n_slots || def[o[k]] == -2))
        return false;
  }
  return true;
}

/* Marks the op that defines operand x needed (and its value read: a
 * call's result), and queues it. */
static void need_def(uint8_t *fl, const int32_t *def, cb_operand x,
                     uint32_t *work, uint32_t *nw) {
  if (x == CB_NONE || (x & CB_OPND_CONST) || def[x] < 0)
    return;
  uint32_t d = (uint32_t)def[x];
  fl[d] |= CB_SL_USED;
  if (!(fl[d] & CB_SL_NEED)) {
    fl[d] |= CB_SL_NEED;
    work[(*nw)++] = d;
  }
}

/* need_types: the element types some needed load reads (a bit per
 * cb_ty): a store of such a type is a root too (below). */
static void slice_function(const cb_program *p, const cb_function *f,
                           uint8_t *fl, int32_t *def, cb_operand *o,
                           uint32_t *work, uint32_t need_types,
                           bool ret_needed) {
  const cb_block *b0 = &p->blocks[f->first_block];
  const cb_block *bl = &p->blocks[f->first_block + f->n_blocks - 1];
  uint32_t lo = b0->first_op, hi = bl->first_op + bl->n_ops;
  if (!cb_slice_def_map(p, f, def, o)) {
    for (uint32_t i = lo; i < hi; i++)
      fl[i] = CB_SL_NEED;
    return;
  }
  uint32_t nw = 0;
  /* roots, and the addresses of loads and stores */
  for (uint32_t i = lo; i < hi; i++) {
    const cb_op *op = &p->ops[i];
    /* Values travel through memory too, and which load reads what a
     * store wrote is a run-time question. Where some needed load reads
     * the store's type, the store's value is needed; elsewhere (a double
     * where no needed load reads doubles) it may be skipped, and the
     * stale shadow catches the rare needed read of it (a union, a
     * memcpy'd struct), which then costs a run again without slicing. */
    bool root =
        (!is_pure(p, op) && op->code != CB_OP_LOAD && op->code != CB_OP_STORE &&
         (op->code != CB_OP_RET || ret_needed)) ||
        (op->code == CB_OP_STORE && op->ty < 32 && (need_types >> op->ty) & 1);
    if (root)
      fl[i] |= CB_SL_NEED;
    unsigned na, n = cb_slice_op_reads(p, op, o, CB_SLICE_MAX_READS, &na);
    for (unsigned k = 0; k < n; k++) {
      if (!root && k >= na)
        break;
      if (root && print_only(p, op, k))
        continue;
      need_def(fl, def, o[k], work, &nw);
    }
  }
  /* what the needed values read is needed */
  while (nw) {
    const cb_op *op = &p->ops[work[--nw]];
    unsigned na, n = cb_slice_op_reads(p, op, o, CB_SLICE_MAX_READS, &na);
    for (unsigned k = 0; k < n; k++) {
      need_def(fl, def, o[k], work, &nw);
    }
  }
  /* a store's own flag: is its stored value needed (never, by the store;
   * kept for the reader: CB_SL_NEED on a store means its value is) */
  for (uint32_t i = lo; i < hi; i++) {
    const cb_op *op = &p->ops[i];
    if (op->code != CB_OP_STORE)
      continue;
    cb_operand v = op->a;
    bool need = v == CB_NONE || (v & CB_OPND_CONST) || def[v] < 0 ||
                (fl[(uint32_t)def[v]] & CB_SL_NEED);
    fl[i] = (uint8_t)((fl[i] & ~CB_SL_NEED) | (need ? CB_SL_NEED : 0));
  }
}

/* The largest frame, in slots (the def map's size). */
uint32_t cb_slice_max_slots(const cb_program *p) {
  uint32_t m = 1;
  for (uint32_t f = 0; f < p->n_functions; f++)
    if (p->functions[f].n_slots > m)
      m = p->functions[f].n_slots;
  return m;
}

/* May some function be called other than by a direct call: through a
 * pointer, or back from qsort? Then every return value is needed. */
static bool calls_through_pointers(const cb_program *p) {
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const cb_op *op = &p->ops[i];
    if (op->code != CB_OP_CALL)
      continue;
    const int64_t *g = &p->extra[op->aux];
    if (g[0] == CB_CALL_INDIRECT ||
        (g[0] == CB_CALL_LIBC && g[1] == CB_LIBC_QSORT))
      return true;
  }
  return false;
}

/* The callee of a direct call op, or CB_NONE. */
static uint32_t direct_callee(const cb_program *p, const cb_op *op) {
  if (op->code != CB_OP_CALL)
    return CB_NONE;
  const int64_t *g = &p->extra[op->aux];
  if (g[0] != CB_CALL_DIRECT || g[1] < 0 || (uint64_t)g[1] >= p->n_functions)
    return CB_NONE;
  return (uint32_t)g[1];
}

uint8_t *cb_slice_need(const cb_program *p) {
  uint8_t *fl = calloc(p->n_ops + 1, 1);
  int32_t *def = malloc(cb_slice_max_slots(p) * sizeof *def);
  cb_operand *o = malloc(CB_SLICE_MAX_READS * sizeof *o);
  uint32_t *work = malloc((p->n_ops + 1) * sizeof *work);
  bool *ret_needed = malloc((p->n_functions + 1) * sizeof *ret_needed);
  if (!fl || !def || !o || !work || !ret_needed) {
    free(fl);
    free(def);
    free(o);
    free(work);
    free(ret_needed);
    return NULL;
  }
  /* A function's return value is needed where a caller needs a call's
   * result. main's goes to the exit status only, which a run that
   * skipped it takes from the native run (CB_SL_EXIT), as printf's
   * numbers. */
  bool all = calls_through_pointers(p);
  for (uint32_t f = 0; f < p->n_functions; f++)
    ret_needed[f] = all;
  /* to a fixed point over the types needed loads read and the return
   * values callers need (both only grow) */
  for (uint32_t need_types = 0;;) {
    memset(fl, 0, p->n_ops + 1);
    for (uint32_t f = 0; f < p->n_functions; f++)
      if (p->functions[f].n_blocks)
        slice_function(p, &p->functions[f], fl, def, o, work, need_types,
                       ret_needed[f]);
    uint32_t nt = need_types;
    bool more = false;
    for (uint32_t i = 0; i < p->n_ops; i++) {
      const cb_op *op = &p->ops[i];
      if (op->code == CB_OP_LOAD && (fl[i] & CB_SL_NEED) && op->ty < 32)
        nt |= 1u << op->ty;
      uint32_t c = direct_callee(p, op);
      if (c != CB_NONE && (fl[i] & CB_SL_USED) && !ret_needed[c])
        more = ret_needed[c] = true;
    }
    if (nt == need_types && !more)
      break;
    need_types = nt;
  }
  /* what a call returns whose callee's return value nothing needs may be
   * garbage (the callee's return skipped) */
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const cb_op *op = &p->ops[i];
    uint32_t c = direct_callee(p, op);
    if (c != CB_NONE && !ret_needed[c] && op->dst != CB_NONE)
      fl[i] |= CB_SL_MAYBE;
    fl[i] &= (uint8_t)~CB_SL_USED;
  }
  free(def);
  free(o);
  free(work);
  free(ret_needed);
  return fl;
}

void cb_slice_maybe(const cb_program *p, uint8_t *fl) {
  int32_t *def = malloc(cb_slice_max_slots(p) * sizeof *def);
  cb_operand *o = malloc(CB_SLICE_MAX_READS * sizeof *o);
  if (!def || !o) {
    /* everything unneeded may be garbage */
    for (uint32_t i = 0; i < p->n_ops; i++)
      if (!(fl[i] & CB_SL_NEED))
        fl[i] |= CB_SL_MAYBE;
    free(def);
    free(o);
    return;
  }
  for (uint32_t fi = 0; fi < p->n_functions; fi++) {
    const cb_function *f = &p->functions[fi];
    if (!f->n_blocks)
      continue;
    const cb_block *b0 = &p->blocks[f->first_block];
    const cb_block *bl = &p->blocks[f->first_block + f->n_blocks - 1];
    uint32_t lo = b0->first_op, hi = bl->first_op + bl->n_ops;
    if (!cb_slice_def_map(p, f, def, o))
      continue; /* all needed (cb_slice_need): nothing is garbage */
    /* forward, to a fixed point (phis close cycles) */
    for (bool changed = true; changed;) {
      changed = false;
      for (uint32_t i = lo, b = 0; i < hi; i++) {
        while (i >= p->blocks[f->first_block + b].first_op +
                        p->blocks[f->first_block + b].n_ops)
          b++;
        const cb_op *op = &p->ops[i];
        if ((fl[i] & CB_SL_MAYBE) ||
            ((fl[i] & CB_SL_NEED) && op->code != CB_OP_STORE))
          continue;
        bool maybe = false;
        if (op->code == CB_OP_STORE) {
          cb_operand v = op->a;
          maybe = v != CB_NONE && !(v & CB_OPND_CONST) && def[v] >= 0 &&
                  (fl[(uint32_t)def[v]] & CB_SL_MAYBE);
          /* a sliced template writes what it stores only when that is
           * the same every iteration: a constant, or a value from
           * outside its block (template_run.c); the rest of its stores
           * leave their bytes as they were, which are then garbage */
          const cb_block *sb = &p->blocks[f->first_block + b];
          if ((fl[i] & CB_SL_TPL) && v != CB_NONE && !(v & CB_OPND_CONST) &&
              def[v] >= 0 && (uint32_t)def[v] >= sb->first_op &&
              (uint32_t)def[v] < sb->first_op + sb->n_ops)
            maybe = true;
        } else if (op->code == CB_OP_LOAD || (fl[i] & CB_SL_TPL)) {
          maybe = true;
        } else if (is_pure(p, op)) {
          unsigned na, n = cb_slice_op_reads(p, op, o, CB_SLICE_MAX_READS, &na);
          for (unsigned k = 0; k < n && !maybe; k++)
            maybe = o[k] != CB_NONE && !(o[k] & CB_OPND_CONST) &&
                    def[o[k]] >= 0 && (fl[(uint32_t)def[o[k]]] & CB_SL_MAYBE);
        }
        if (maybe) {
          fl[i] |= CB_SL_MAYBE;
          changed = true;
        }
      }
    }
    /* printf calls that may print a garbage number, sqrt calls whose
     * argument's sign may be, main's returns of a garbage exit status */
    for (uint32_t i = lo; i < hi; i++) {
      const cb_op *op = &p->ops[i];
      unsigned na, n = cb_slice_op_reads(p, op, o, CB_SLICE_MAX_READS, &na);
      bool sqrt_call = is_sqrt(p, op);
      bool exit_ret = op->code == CB_OP_RET && fi == p->main_function;
      for (unsigned k = 0; k < n; k++)
        if ((sqrt_call || exit_ret || print_only(p, op, k)) &&
            o[k] != CB_NONE && !(o[k] & CB_OPND_CONST) && def[o[k]] >= 0 &&
            (fl[(uint32_t)def[o[k]]] & CB_SL_MAYBE))
          fl[i] |= sqrt_call ? CB_SL_SIGN : exit_ret ? CB_SL_EXIT : CB_SL_PRINT;
    }
  }
  free(def);
  free(o);
}
