/* engine_frames.h: frames of the interpreter (engine_frames.c): the
 * layout of each function's frame, pushing and popping frames, calls; and
 * the machine code's own accesses, inline since the interpreter loop
 * emits them on every block entry. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_ENGINE_FRAMES_H
#define CBANA_ANALYSIS_ENGINE_FRAMES_H

#include "engine_internal.h"

static inline uint64_t eng_align_down(uint64_t x, uint64_t a) {
  return x & ~(a - 1);
}

/* Computes each frame object's offset from the CFA and each function's
 * frame size (e->fo_off, e->frame_size). */
void eng_layout_frames(cb_eng *e);
/* Makes room for `need` slots; false when out of memory. */
bool eng_grow_slots(cb_eng *e, size_t need);
/* Pushes a frame for function f whose caller's rsp is `sp`; the caller
 * copies argument values in afterwards. */
cb_stop eng_push_frame(cb_eng *e, uint32_t f, uint64_t sp, uint32_t call_op,
                       uint32_t call_site);
/* The caller's side of a tail call (cb_site.is_tail): its epilogue's
 * pops, before the jump; its `ret` is then the callee's. */
void eng_tail_epilogue(cb_eng *e);
/* Copies argument k's value (lanes slots) and handles byval copies. */
void eng_set_params(cb_eng *e, uint32_t f, const cb_value *const *vals,
                    const uint8_t *lanes, uint32_t nargs);
/* A call op: pushes a frame (CB_GO with the new frame on top), or runs
 * the library function and writes the result. */
cb_stop eng_do_call(cb_eng *e, const cb_op *op, uint32_t ip);
/* A byval argument's copy by the caller (its traffic at site). */
cb_stop eng_copy_byval(cb_eng *e, uint64_t src, uint64_t dst, uint64_t n,
                       uint32_t site);
/* engine_varargs.c: the call of a variadic function that calls va_start
 * (cb_function.va_save1): pushes its frame with the arguments in its
 * register save area and the overflow area. */
cb_stop eng_call_vararg(cb_eng *e, const cb_op *op, uint32_t callee,
                        const cb_value *const *vals, const uint8_t *tys,
                        const uint8_t *lanes, const uint32_t *byval,
                        uint32_t nargs, uint32_t site);
/* The interpreter loop (engine_interp.c): runs the top frame until the
 * frame at stop_depth returns (its value in ret_out), the program exits
 * or the run fails. */
cb_stop eng_run(cb_eng *e, uint32_t stop_depth, cb_value *ret_out);

/* The machine code's own accesses of a block (spills, reloads, constant
 * loads) when the frontend found them. */
static inline void eng_emit_mach_at(cb_eng *e, const cb_block *b, uint64_t cfa,
                                    uint32_t at) {
  const cb_program *p = e->p;
  uint32_t i = 0;
  bool run = false; /* from the first of a contiguous run of at's accesses */
  if (at != b->first_op && e->mach_at && at < p->n_ops) {
    /* after a call: the accesses of op `at` alone, found at once rather
     * than by a walk over the block's list (a long block calling libm in
     * a loop walked it at every call) */
    uint32_t k = e->mach_at[at];
    if (k == CB_MACH_AT_NONE)
      return;
    if (k != CB_NONE && k >= b->first_mach && k - b->first_mach < b->n_mach) {
      i = k - b->first_mach;
      run = true;
    }
  }
  for (; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    if (run && m->op != at)
      break;
    if (m->op > b->first_op ? m->op != at : at != b->first_op)
      continue;
    if (m->from1 && m->from1 - 1 != e->frames[e->depth - 1].prev)
      continue; /* an access of another edge into b */
    if (m->va_xmm && !e->frames[e->depth - 1].va_al)
      continue; /* the prologue skipped the xmm spills (%al == 0) */
    if (m->sqrt_path && (m->sqrt_path == 1) != e->pr.sqrt_called)
      continue; /* the other path of an inline sqrt */
    uint64_t a = m->cfa_offset ? cfa + (uint64_t)m->cfa_offset : m->addr;
    cb_eng_emit(e, a, m->size ? m->size : 8, m->site, m->is_write != 0);
    if (m->is_write)
      e->out->stores++;
    else
      e->out->loads++;
  }
}

/* On entry to a block: the accesses before its own. */
static inline void eng_emit_mach(cb_eng *e, const cb_block *b, uint64_t cfa) {
  eng_emit_mach_at(e, b, cfa, b->first_op);
}

/* The value `ret` op `op` of frame F returns, into rv (256 slots at
 * most); the slots it takes, 0 for none. */
static inline unsigned eng_ret_value(const cb_eng *e, const cb_frame *F,
                                     const cb_op *op, cb_value *rv) {
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[F->func];
  if (op->a == CB_NONE || fn->ret_ty == CB_TY_VOID)
    return 0;
  unsigned l = fn->ret_lanes ? fn->ret_lanes : 1;
  const cb_value *a = (op->a & CB_OPND_CONST)
                          ? &p->consts[op->a & ~CB_OPND_CONST]
                          : &e->slots[F->slot_base + op->a];
  for (unsigned i = 0; i < l && i < 256; i++)
    rv[i] = a[i];
  return l;
}

static inline void eng_pop_frame(cb_eng *e) {
  cb_frame *F = &e->frames[e->depth - 1];
  const cb_program *p = e->p;
  if (F->tail_done) { /* left by a tail call: popped, and the callee's
                         `ret` was this one */
    e->nslots = F->slot_base;
    e->depth--;
    return;
  }
  unsigned nr = p->functions[F->func].n_saved_regs;
  nr -= p->functions[F->func].n_unpopped < nr ? p->functions[F->func].n_unpopped
                                              : nr; /* dropped by `add rsp` */
  /* the epilogue's pops and ret: the callee's own reads on its exit line
   * when the machine code told */
  uint32_t x = p->fn_mach ? p->fn_mach[F->func].exit_site : CB_NONE;
  uint32_t site = x != CB_NONE ? x : F->call_site;
  for (unsigned r = nr; r-- > 0;)
    cb_eng_emit(e, F->cfa - 16 - 8 * (uint64_t)r, 8, site, false);
  cb_eng_emit(e, F->cfa - 8, 8, site, false);
  if (x != CB_NONE)
    e->out->loads += nr + 1;
  else
    e->out->lib_reads += nr + 1;
  e->nslots = F->slot_base;
  e->depth--;
}

#endif
