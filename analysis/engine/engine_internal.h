/* engine_internal.h: the state of one engine run (cb_eng), shared by the
 * interpreter's files (engine*.c, template*.c). The modelled
 * process it runs the program in is process/proc.h's cb_proc, embedded as
 * e->pr; the engine implements proc.h's host interface (cb_host_*).
 * Internal to the engine stage. */
#ifndef CBANA_ANALYSIS_ENGINE_INTERNAL_H
#define CBANA_ANALYSIS_ENGINE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/engine.h"
#include "cbana/kernel.h"
#include "cbana/program.h"
#include "proc.h"

/* cb_frame is kernel.h's: the native kernels push and pop frames. */

#define CB_MACH_AT_NONE 0xfffffffeu

typedef struct cb_kernel_tpl_use cb_kernel_tpl_use;

typedef struct cb_eng {
  const cb_program *p;
  cb_engine_options opt;
  cb_run_outcome *out;
  /* the access batch (proc.h), which the library appends to as well */
  cb_accbuf acc;
  /* the modelled process: memory, heap, the C library's state */
  cb_proc pr;

  /* per function / block / frame object, precomputed */
  uint32_t *nphis; /* per global block: leading phi ops */
  uint8_t *rmw;    /* per op: 1 for a store that x86 folds with its load into
                     one read-modify-write instruction (counted as a read) */
  /* per op: 1 when a block's machine-code accesses are made just before
   * it, in the middle of the block (cb_mach_access.op, not after a call);
   * NULL: none. */
  uint8_t *mach_mid;
  /* per op: where in program->mach the accesses made after a call just
   * before that op start (engine_frames.h's eng_emit_mach_at), when they
   * are contiguous; CB_MACH_AT_NONE: none; CB_NONE: look through the
   * block's list. NULL: look through it always. */
  uint32_t *mach_at;
  struct cb_tpl_set *tpl; /* the fast engine's loop templates (template.h);
                             NULL: none */
  /* the frontend's native kernels (kernel.h) the fast engine runs, and
   * per global block 1 at a loop template's header, whose template the
   * kernels have the engine run (io->tpl); NULL: none */
  const cb_kernel_fn *kernels;
  uint8_t *kstop;
  uint8_t *kflags; /* per op: CB_KERNEL_OP_* */
  uint8_t *kentry; /* per op: 1 where a kernel may be entered (a block's
                      first op after its phis) */
  /* per global block: a loop template's use from kernels
   * (engine_kernel.c, eng_tpl_run) */
  struct cb_kernel_tpl_use {
    uint32_t entries; /* from kernels, into the template's loop */
    uint64_t iters;   /* the template ran */
  } * ktpl;
  uint64_t *kheat;       /* per function: the ops it may still run outside a
                            kernel before its kernel is asked for; 0 once asked */
  uint32_t kernel_nest;  /* calls run for kernels, one inside another */
  cb_stop kernel_stop;   /* a call run for a kernel ended the run */
  uint32_t ret_lanes;    /* slots of the value the last `ret` returned */
  uint32_t mach_made_at; /* a kernel left before this op, having made the
                            machine-code accesses before it; CB_NONE */
  uint32_t *fn_by_addr;  /* function indexes sorted by addr */
  uint32_t n_fn_by_addr;

  /* The frame and slot stacks, which kernels' native calls push and pop
   * as ks (kernel.h's cb_kernel_stack, the same members in the same
   * order: engine_kernel.c checks the layouts agree) */
  union {
    cb_kernel_stack ks;
    struct {
      cb_value *slots;
      size_t nslots, capslots;
      cb_frame *frames;
      uint32_t depth, capframes;
      uint64_t stack_lo;    /* lowest stack address allowed */
      uint64_t *frame_size; /* per function: CFA - rsp in the body */
      uintptr_t kstack_lo;  /* a kernel calls a kernel above this stack
                               address */
      int64_t *fo_off;      /* per frame object: offset from the CFA */
    };
  };
  uint8_t va_al_next; /* the next frame's va_al (engine_varargs.c) */
  /* per function: it makes a dynamic alloca (alloca(), a VLA), so its
   * calls get no reserved argument area (engine_varargs.c) */
  uint8_t *fn_dyn_alloca;

  /* The operations left: budget_left is the interpreter's allowance (a
   * local of eng_run while it runs), at most CB_ENGINE_CHECK_OPS;
   * budget_rest, the rest of the budget held back past it, is granted
   * by eng_budget_refill. */
  uint64_t budget_left, budget_rest;
  /* the path signature's current run of equal branch outcomes (sig_add) */
  uint64_t sig_v, sig_n;
  uint64_t main_cfa;

  uint64_t *phi_tmp;
  size_t phi_cap;
} cb_eng;

/* The engine whose process pr is (proc.h's host functions). */
static inline cb_eng *eng_of(cb_proc *pr) {
  return (cb_eng *)(void *)((char *)pr - offsetof(cb_eng, pr));
}
static inline const cb_eng *eng_of_const(const cb_proc *pr) {
  return (const cb_eng *)(const void *)((const char *)pr -
                                        offsetof(cb_eng, pr));
}

/* Access emission into the run's batch (proc.h's cb_accbuf). */
static inline void cb_eng_flush(cb_eng *e) {
  cb_acc_flush(&e->acc);
}
static inline void cb_eng_next_batch(cb_eng *e) {
  cb_acc_next(&e->acc);
}
static inline void cb_eng_emit(cb_eng *e, uint64_t addr, uint32_t size,
                               uint32_t site, bool is_write) {
  cb_acc_emit(&e->acc, addr, size, site, is_write);
}
/* Library traffic attributed to the running call's site (proc.h). */
static inline void cb_eng_lib(cb_eng *e, uint64_t addr, uint64_t len,
                              bool is_write) {
  cb_proc_lib(&e->pr, addr, len, is_write);
}
/* Runs Program function func as a call whose CFA is cfa (the rsp before
 * its `call`), from the library, the call's push at site (engine_frames.c,
 * proc.h's cb_host_call_at). */
cb_stop cb_eng_call_at(cb_eng *e, uint32_t func, uint64_t cfa, uint32_t site,
                       const cb_value *args, uint32_t nargs, cb_value *ret);

/* The operations the run may still execute, with the interpreter's
 * allowance at `budget`: bulk steps (a template's iterations) may spend
 * past the allowance, into what is held back. */
static inline uint64_t eng_budget_avail(const cb_eng *e, uint64_t budget) {
  return budget + e->budget_rest;
}

/* Spends n <= eng_budget_avail operations: the allowance first; past it,
 * the allowance is 0, so the interpreter's next look grants more. */
static inline void eng_budget_spend(cb_eng *e, uint64_t *budget, uint64_t n) {
  if (n <= *budget) {
    *budget -= n;
  } else {
    e->budget_rest -= n - *budget;
    *budget = 0;
  }
}

/* Spends n operations, or all that are left when fewer are (the moves of
 * a block's phis at the budget's end: the run then stops). */
static inline void eng_budget_spend_upto(cb_eng *e, uint64_t *budget,
                                         uint64_t n) {
  if (__builtin_expect(n <= *budget, 1)) {
    *budget -= n;
    return;
  }
  uint64_t more = n - *budget;
  e->budget_rest -= more < e->budget_rest ? more : e->budget_rest;
  *budget = 0;
}

/* Operations executed so far, the allowance being `budget`. */
static inline uint64_t eng_ops_done(const cb_eng *e, uint64_t budget) {
  return e->opt.budget - budget - e->budget_rest;
}

/* The virtual clock (proc.h, cb_proc_clock_ns): the CPU part. */
static inline uint64_t eng_cpu_ns(const cb_eng *e) {
  return eng_ops_done(e, e->budget_left);
}

/* The allowance ran out (at the interpreter's `budget` 0, in function fn):
 * looks at what may stop the run from outside, reports progress, and
 * grants the next allowance; returns 0 after stopping the run (the
 * budget spent, a signal, the time limit: cb_eng_fail). */
uint64_t eng_budget_refill(cb_eng *e, const char *fn);

/* Failures (proc.h, cb_proc_fail and cb_proc_fault): a macro, as the
 * message is printf's. */
#define cb_eng_fail(e, ...) cb_proc_fail(&(e)->pr, __VA_ARGS__)
static inline cb_stop cb_eng_fault(cb_eng *e, uint64_t addr, uint64_t size,
                                   bool is_write, uint32_t site) {
  return cb_proc_fault(&e->pr, addr, size, is_write, site);
}

/* CB_OP_WIDE (engine_wide.c): dst = op(a, b, c) on wide values
 * (program.h); b and c NULL when absent. False on a zero divisor. */
bool cb_wide_exec(const cb_op *op, const cb_value *a, const cb_value *b,
                  const cb_value *c, cb_value *d);

/* The function whose code address is addr, or CB_NONE. */
uint32_t cb_eng_function_at(const cb_eng *e, uint64_t addr);

/* Before a run (engine_check.c): NULL when every index the interpreter
 * follows is inside the Program's arrays, else a message (in buf or
 * static); the per-op and per-block tables a run uses. */
const char *eng_validate(const cb_program *p, char *buf, size_t n);
void eng_precompute(cb_eng *e);
/* argc, argv[] and the strings above main's CFA (engine_stack.c).
 * Returns argv's address. */
uint64_t eng_setup_stack(cb_eng *e, const cb_run_input *in);

#endif
