/* engine_internal.h: the state of one engine run, shared by the
 * interpreter (engine*.c) and the C library model (libc*.c). Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_ENGINE_INTERNAL_H
#define CBANA_ANALYSIS_ENGINE_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>

#include "cbana/engine.h"
#include "cbana/kernel.h"
#include "cbana/program.h"
#include "fastops.h"
#include "heap.h"
#include "mem.h"
#include "rand.h"

/* cb_frame is kernel.h's: the native kernels push and pop frames. */

/* Why the interpreter loop stopped. */
typedef enum cb_stop {
  CB_GO = 0,   /* keep going */
  CB_RETURNED, /* the frame at the stop depth returned */
  CB_EXIT,     /* exit() or main returned */
  CB_FAIL,     /* error, budget, abort: see outcome */
  /* a longjmp dropped frames: the top frame goes on after its setjmp
   * call (libc_setjmp.c); a loop whose frames are gone returns it */
  CB_LONGJMP
} cb_stop;

typedef struct cb_textbuf {
  char *s;
  size_t n, cap;
} cb_textbuf;

#define CB_PF_SLOTS 4096u
/* glibc's static block of exit functions holds 32, one of them _dl_fini */
#define CB_EXIT_FNS 31u

typedef struct cb_kernel_tpl_use cb_kernel_tpl_use;

typedef struct cb_eng {
  const cb_program *p;
  cb_engine_options opt;
  cb_run_outcome *out;
  const cb_access_sink *sink;
  /* The batch being filled: the sink's area (cb_access_sink.area) or
   * own_batch; cap 0 until the first access after a flush asks for one. */
  cb_access *batch;
  size_t nbatch, cap;
  /* the batch is the sink's area, which another thread reads (the
   * pipe's consumer): the native kernels write their records there with
   * non-temporal stores (frontend/jit_ops.c, emit). The interpreter's
   * stay plain: the same rule made no difference to its speed (load_loop
   * with --no-kernels, 1.13 to 1.15 s either way). */
  bool stream_records;
  cb_access own_batch[CB_ENGINE_BATCH];

  cb_mem mem;
  cb_heap *heap;
  cb_rand rng;

  /* per function / block / frame object, precomputed */
  uint32_t *nphis; /* per global block: leading phi ops */
  uint8_t *rmw;    /* per op: 1 for a store that x86 folds with its load into
                     one read-modify-write instruction (counted as a read) */
  /* per op: 1 when a block's machine-code accesses are made just before
   * it, in the middle of the block (cb_mach_access.op, not after a call);
   * the fast kinds leave those ops to the reference loop, which emits them.
   * NULL: none. */
  uint8_t *mach_mid;
  uint8_t *fk;     /* per op: the fast engine's kind (fastops.h); NULL in the
                      reference mode */
  cb_phi_edges pe; /* the fast engine's phi moves per edge (fastops.h) */
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
  bool sqrt_called;  /* the last sqrt or sqrtf called the library */
  uint64_t slept_ns; /* what sleep() added to the virtual clock */

  /* The operations left: budget_left is the interpreter's allowance (a
   * local of eng_run while it runs), at most CB_ENGINE_CHECK_OPS;
   * budget_rest, the rest of the budget held back past it, is granted
   * by eng_budget_refill. */
  uint64_t budget_left, budget_rest;
  /* the path signature's current run of equal branch outcomes (sig_add) */
  uint64_t sig_v, sig_n;
  uint64_t main_cfa;

  /* stdio */
  cb_textbuf out_text, err_text;
  uint64_t stdout_buf, stdin_buf; /* heap buffers, 0 until first use */
  uint64_t stdout_pos;
  bool stdout_flushed; /* nothing pending in stdout's buffer (fflush) */
  /* cb_eng_lib leaves out [lib_mute_lo, lib_mute_hi) and, with
   * lib_mute_stdout, stdout's buffer while libc_stdio_traffic.c replaces
   * that traffic with glibc's */
  uint64_t lib_mute_lo, lib_mute_hi;
  bool lib_mute_stdout;
  /* the library function the program called, before its unlocked or
   * __uflow/__overflow form was taken for the locked one (libc.c) */
  uint32_t lib_called;
  /* the process's start-up was replayed (engine_process.c): exit's
   * traffic is still to come (due), or came (done); main's own `call`
   * push is the start-up's last access */
  bool process_exit_due, process_exit_done, skip_main_push;
  size_t stdin_pos;
  const unsigned char *in_data;
  size_t in_len;
  uint64_t file_stdin, file_stdout, file_stderr; /* FILE * values */
  /* the FILEs' pointers as libc_stdio_sync.c last wrote them (pub: it
   * did), the input block stdin's buffer holds (+1; 0: none), and the
   * stdio state they were written for */
  bool stdin_pub, stdout_pub;
  uint64_t stdin_pub_ptr, stdout_pub_ptr, stdin_blk, stdio_sig;
  /* setvbuf on stdout: its buffer's size (0: glibc's default) and whether
   * it has none (_IONBF); how much of out_text has reached fd 1 (the rest
   * waits in stdout's buffer: a write(1, ...) goes before it) */
  uint64_t stdout_cap;
  bool stdout_unbuf;
  size_t stdout_sent;
  /* standard streams fclose closed: 1 stdin, 2 stdout, 4 stderr
   * (libc_stdstream.c) */
  uint8_t std_closed;
  struct cb_tz *tz;       /* glibc's time zone state (libc_time.c) */
  struct cb_files *files; /* streams and descriptors (libc_files.c,
                             libc_fd.c); NULL until the first use */

  uint64_t got[CB_LIBC_COUNT]; /* GOT slots the PLT stubs read, or 0 */
  uint64_t libc_base;          /* where libc.so.6 is mapped (its tunables) */
  uint64_t libm_base, libm_tp; /* libm.so.6's and the thread pointer, from
                                  the first libm call (libc_math_traffic.c) */
  /* ld.so's lazy binding (libc_dlfixup.c): the Program's tables, the PLT
   * slot of each library function (-1: none), the slots bound so far and
   * where the objects ld.so reads sit */
  const struct cb_dl_info *dl;
  int16_t dl_slot[CB_LIBC_COUNT];
  uint64_t dl_bound;
  uint64_t dl_ldso, dl_lmap, dl_tcb, dl_obj[CB_DL_MAX_OBJS];
  int exit_code;
  uint64_t tempname_calls; /* mktemp's so far (libc_tempname.c) */
  uint32_t cur_site;       /* call site of the library call running */
  uint32_t cur_op;         /* its call op (program->ops) */
  /* its arguments' slots, NULL outside a library call: a long double
   * argument (CB_TY_F80) spans two, where args[k] holds only the first */
  const cb_value *const *call_vals;
  /* exit's handlers (libc_exit.c) as glibc's list `initial` holds them
   * after _dl_fini's entry, and its count of registrations */
  struct cb_exitfn {
    uint64_t fn, arg;
    bool on; /* on_exit's: called (status, arg); else (arg, status) */
  } exitfns[CB_EXIT_FNS];
  uint32_t n_exitfns;
  uint64_t exitfn_called;
  /* the C library's own state (libc_ctype.c, libc_string.c, getenv) */
  bool ctype_ready;
  uint64_t strtok_next;
  uint64_t envp_at;
  uint64_t *phi_tmp;
  size_t phi_cap;
  /* cb_fast_loop's stride prefetcher: the latest address of each load op,
   * by op index modulo CB_PF_SLOTS (a collision costs only a useless
   * prefetch). */
  uint64_t pf_last[CB_PF_SLOTS];
} cb_eng;

/* Access emission (engine_libtraffic.c). cb_eng_flush hands the batch
 * to the sink; cb_eng_next_batch flushes a full one and takes the next. */
void cb_eng_flush(cb_eng *e);
void cb_eng_next_batch(cb_eng *e);
static inline void cb_eng_emit(cb_eng *e, uint64_t addr, uint32_t size,
                               uint32_t site, bool is_write) {
  if (__builtin_expect(e->nbatch == e->cap, 0))
    cb_eng_next_batch(e);
  cb_access *a = &e->batch[e->nbatch++];
#if defined(__x86_64__)
  if (e->stream_records) {
    /* as the kernels write them (stream_records): a plain store into a
     * line with non-temporal stores pending waits for them to drain */
    uint64_t w = (uint64_t)site | (uint64_t)(uint16_t)size << 32 |
                 (uint64_t)is_write << 48;
    __builtin_ia32_movnti64((long long *)(void *)&a->addr, (long long)addr);
    __builtin_ia32_movnti64((long long *)(void *)&a->site, (long long)w);
    return;
  }
#endif
  a->addr = addr;
  a->size = (uint16_t)size;
  a->site = site;
  a->is_write = is_write;
  a->reserved = 0;
}
/* Library traffic attributed to the running call's site. */
void cb_eng_lib(cb_eng *e, uint64_t addr, uint64_t len, bool is_write);
/* The process's start-up (true: replayed) and exit (rsp: where `call exit`
 * pushes from; from_call: the program called exit(), whose push it made)
 * traffic, engine_process.c. */
bool eng_process_startup(cb_eng *e);
void eng_process_exit(cb_eng *e, uint64_t rsp, bool from_call);
/* Exit's replay for the stdio state now, NULL when none is due: its
 * records (*n) and the shift of their stack addresses for a `call exit`
 * from rsp; eng_process_emit sends records [lo, hi) of it. The caller
 * clears process_exit_due when it sent the last part. */
const cb_access *eng_process_exit_recs(cb_eng *e, uint64_t rsp, size_t *n,
                                       int64_t *shift);
void eng_process_emit(cb_eng *e, const cb_access *r, size_t lo, size_t hi,
                      int64_t shift);
/* exit(status) from `call exit` at rsp (from_call: the program called it;
 * else main returned): the atexit/on_exit handlers, then exit's replay
 * (libc_exit.c). CB_EXIT, or the stop of a handler that failed. */
cb_stop cb_libc_exit(cb_eng *e, uint64_t rsp, bool from_call, int status);
/* Runs Program function func as a call whose CFA is cfa (the rsp before
 * its `call`), from the library, the call's push at site. */
cb_stop
cb_eng_call_at(cb_eng *e, uint32_t func, uint64_t cfa, uint32_t site,
               const cb_value *args, uint32_t nargs,
               cb_value *ret); /* Library bulk traffic: memset/memcpy-like, as
                                * glibc's string functions generate it. */
void cb_eng_lib_bulk(cb_eng *e, uint64_t addr, uint64_t len, bool is_write);
/* glibc's memset and memcpy/memmove traffic, access by access. */
void cb_eng_memset_traffic(cb_eng *e, uint64_t d, uint64_t n);
void cb_eng_memcpy_traffic(cb_eng *e, uint64_t d, uint64_t s, uint64_t n);

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

/* The virtual clock the program reads (clock, time, gettimeofday,
 * clock_gettime, getrusage): nanoseconds since main began, one per
 * executed operation, plus what sleep() slept (CPU time: without it). It
 * runs with the program's
 * work, so a loop that waits for time to pass ends, and every engine
 * reads the same time at the same operation (the library is called with
 * the allowance in e->budget_left); docs/process-model.md. */
#define CB_CLOCK_EPOCH_S 1700000000u /* time() when main begins */
#define CB_CLOCK_CPU0_US 1000u       /* clock() when main begins */
#define CB_PROCESS_PID 4242u         /* what getpid() returns */
static inline uint64_t eng_cpu_ns(const cb_eng *e) {
  return eng_ops_done(e, e->budget_left);
}
static inline uint64_t eng_clock_ns(const cb_eng *e) {
  return eng_cpu_ns(e) + e->slept_ns;
}

/* The allowance ran out (at the interpreter's `budget` 0, in function fn):
 * looks at what may stop the run from outside, reports progress, and
 * grants the next allowance; returns 0 after stopping the run (the
 * budget spent, a signal, the time limit: cb_eng_fail). */
uint64_t eng_budget_refill(cb_eng *e, const char *fn);

/* Stops the input with an error; returns CB_FAIL (engine_fault.c). */
cb_stop cb_eng_fail(cb_eng *e, cb_run_status st, uint32_t site, const char *fmt,
                    ...) __attribute__((format(printf, 4, 5)));
/* Fails with a message about an access outside every object. */
cb_stop cb_eng_fault(cb_eng *e, uint64_t addr, uint64_t size, bool is_write,
                     uint32_t site);

/* Memory helpers for the library: false after reporting a fault. */
bool cb_eng_read(cb_eng *e, uint64_t addr, void *dst, size_t n);
bool cb_eng_write(cb_eng *e, uint64_t addr, const void *src, size_t n);
/* Reads a NUL-terminated string (at most max bytes), malloc'ed. */
char *cb_eng_read_str(cb_eng *e, uint64_t addr, size_t max, size_t *len);

/* CB_OP_WIDE (engine_wide.c): dst = op(a, b, c) on wide values
 * (program.h); b and c NULL when absent. False on a zero divisor. */
bool cb_wide_exec(const cb_op *op, const cb_value *a, const cb_value *b,
                  const cb_value *c, cb_value *d);
/* A long double's value from its two slots, and back. */
long double cb_wide_f80(const cb_value *v);
void cb_wide_put_f80(cb_value *d, long double x);

/* Runs a Program function from the library (qsort's comparator). */
cb_stop cb_eng_call_function(cb_eng *e, uint32_t func, const cb_value *args,
                             uint32_t nargs, cb_value *ret);
/* The function whose code address is addr, or CB_NONE. */
uint32_t cb_eng_function_at(const cb_eng *e, uint64_t addr);

/* The C library (libc.c): runs call op `op` of libfn fn with its argument
 * values; writes the result into ret (ret_lanes slots). */
cb_stop cb_libc_call(cb_eng *e, uint32_t fn, const cb_value *args,
                     const uint8_t *arg_ty, uint32_t nargs, cb_value *ret);
cb_stop cb_intrinsic_call(cb_eng *e, uint32_t id, const cb_op *op,
                          const cb_value *const *argv, const uint8_t *arg_ty,
                          const uint8_t *arg_lanes, uint32_t nargs,
                          cb_value *ret);
void cb_libc_init(cb_eng *e);
/* libm's long double functions, CB_LIBC_ACOSL to CB_LIBC_FMAL
 * (libc_ldouble.c) */
cb_stop cb_libc_ldouble_call(cb_eng *e, uint32_t fn, const cb_value *a,
                             const uint8_t *ty, uint32_t n, cb_value *ret);

void cb_engine_got_slots(const cb_program *p, uint64_t got[CB_LIBC_COUNT]);
/* The symbol of library function fn's PLT slot (name: its own): atexit
 * is libc_nonshared.a's, linked into the executable, and jumps to
 * __cxa_atexit's slot. */
static inline const char *cb_libc_plt_name(uint32_t fn, const char *name) {
  return fn == CB_LIBC_ATEXIT ? "__cxa_atexit" : name;
}
/* Where ld.so, its link maps (its first mmapped pages), the static TLS
 * block and each object of p->dl's scope are mapped; false when unknown
 * (layout.c). */
bool cb_eng_dl_layout(const cb_program *p, uint64_t *ldso, uint64_t *lmap,
                      uint64_t *tcb, uint64_t obj[CB_DL_MAX_OBJS]);
/* libc_dlfixup.c: sets up the engine's lazy-binding state, and replays
 * the first call's binding of a library function (C: the caller's rsp
 * before its `call`). */
void cb_dl_setup(cb_eng *e, const cb_program *p);
void cb_dl_first_call(cb_eng *e, uint32_t libc_fn, uint64_t C);
/* Where libc.so.6 is mapped under valgrind (layout.c). */
uint64_t cb_eng_libc_base(const cb_program *p);

void cb_textbuf_put(cb_textbuf *b, const char *s, size_t n);

/* Before a run (engine_check.c): NULL when every index the interpreter
 * follows is inside the Program's arrays, else a message (in buf or
 * static); the per-op and per-block tables a run uses. */
const char *eng_validate(const cb_program *p, char *buf, size_t n);
void eng_precompute(cb_eng *e);
/* argc, argv[] and the strings above main's CFA (engine_stack.c).
 * Returns argv's address. */
uint64_t eng_setup_stack(cb_eng *e, const cb_run_input *in);

#endif
