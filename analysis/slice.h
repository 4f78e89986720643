/* slice.h: slicing, the fast engine's static half (issue 7, DESIGN.md
 * "Input-aware paths and dynamic splicing"). Once per run it finds, for
 * every op of the Program, whether its value is *needed*: whether it
 * feeds, through any chain of ops, an address, a branch or switch, a call
 * (every argument of a user or library call), a return value that some
 * caller needs (to a fixed point over the calls; all of them where a
 * function may be called through a pointer), an alloca's size or a
 * division (a zero divisor stops the input). main's return value is the
 * exit status only: where it may be garbage, the native run gives it
 * (CB_SL_EXIT). The numbers printf prints are the exception:
 * only their text depends on them, and where one may be garbage the
 * text comes from the program's own output, run natively (native_run.h,
 * libc_stdio.c). So is sqrt's argument: clang computes sqrt inline and
 * calls the library only for a negative argument, whose first call binds
 * libm's sqrt (ld.so's lazy binding, traffic the model replays); where
 * the argument may be garbage, the native run's ld.so log says whether
 * that ever happened (native_run.h, engine_frames.c), and a run that
 * finds it did stops to run again unsliced. A loop template whose value
 * ops are all unneeded runs without computing them (template_run.c); it
 * still writes its stores of a value the same every iteration (a
 * constant, a value from before the loop), and its other stores are
 * garbage.
 *
 * What is skipped is then missing from memory: the dynamic half is the
 * stale shadow of mem.h. Values that *may be garbage* are the results of
 * unneeded ops in sliced templates, of unneeded loads (the interpreter
 * reads them without a check, the native kernels not at all), of calls
 * whose callee's return value nothing needs, and what unneeded ops
 * compute from them; a store of
 * such a value marks its bytes stale, a store of any other value makes
 * them exact, and every needed load (and every read of the C library
 * model) checks them. Reading a stale byte where it matters stops the run
 * with CB_RUN_STALE, and the driver runs the input again without slicing,
 * so no count ever depends on a skipped value. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_SLICE_H
#define CBANA_ANALYSIS_SLICE_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"

/* Per-op flags. */
enum {
  CB_SL_NEED = 1,  /* the op's value is needed (a store: its stored value) */
  CB_SL_MAYBE = 2, /* its value may be garbage (a store: the stored one) */
  CB_SL_TPL = 4,   /* set by the caller: in the block of a sliced template */
  CB_SL_PRINT = 8, /* a printf call that may print a garbage number */
  CB_SL_SIGN = 16, /* a sqrt call whose argument may be garbage */
  CB_SL_EXIT = 32, /* a return of main whose value (the exit status) may be
                      garbage */
  CB_SL_USED = 64  /* cb_slice_need's own, cleared on return: the op's value
                      is read by a needed op (a call's result) */
};

/* The CB_SL_NEED flags of every op (p->n_ops bytes, malloc'ed; NULL when
 * out of memory: then nothing is sliced). */
uint8_t *cb_slice_need(const cb_program *p);

/* Adds CB_SL_MAYBE, once the caller has set CB_SL_TPL on the ops of the
 * blocks whose templates run sliced. */
void cb_slice_maybe(const cb_program *p, uint8_t *fl);

/* The def-use helpers slicing is built on, shared with repeat.c.
 * cb_slice_op_reads: the operands op reads (slots or constants), at most
 * max, into o; *addr: how many of the first ones are addresses (loads,
 * stores). cb_slice_op_span: the slots op writes from op->dst.
 * cb_slice_def_map: the defining op (global index) of each slot of
 * function f into def (cb_slice_max_slots entries), -1 for a parameter's;
 * false when some operand names a slot with neither. o: scratch of
 * CB_SLICE_MAX_READS operands. */
#define CB_SLICE_MAX_READS 4096
unsigned cb_slice_op_reads(const cb_program *p, const cb_op *op, cb_operand *o,
                           unsigned max, unsigned *addr);
uint32_t cb_slice_op_span(const cb_program *p, const cb_op *op);
bool cb_slice_def_map(const cb_program *p, const cb_function *f, int32_t *def,
                      cb_operand *o);
uint32_t cb_slice_max_slots(const cb_program *p);
/* Whether op is a call of an intrinsic that only computes a value. */
bool cb_slice_value_intrinsic(const cb_program *p, const cb_op *op);

#endif
