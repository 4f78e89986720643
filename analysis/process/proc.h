/* proc.h: the process stage's public header. It owns the modelled
 * process of one run (cb_proc): its memory and glibc's heap, the C
 * library's state (stdio and its streams, files and descriptors, exit's
 * handlers, the time zone, rand's generator, errno's and the like), ld.so's
 * lazy binding, and the library call running. The engine embeds one
 * cb_proc per run and calls the library through the functions below.
 *
 * What the process needs from the engine is its host interface, all of it
 * here: the access batch both append to (cb_accbuf, emitted inline, the hot
 * path), the frame and slot stacks (kernel.h's cb_kernel_stack, a contract:
 * the caller's rsp, setjmp's frames), and the cb_host_* functions the
 * engine implements (calling back into the program, the clock, a block's
 * machine-code accesses). Process files include only process headers and
 * include/cbana/; nothing here includes the engine's. */
#ifndef CBANA_ANALYSIS_PROC_H
#define CBANA_ANALYSIS_PROC_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/engine.h"
#include "cbana/kernel.h"
#include "cbana/program.h"
#include "heap.h"
#include "mem.h"
#include "rand.h"

/* Why the interpreter loop stopped, and how a library call ended. */
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
void cb_textbuf_put(cb_textbuf *b, const char *s, size_t n);

/* ---- the access batch (accbuf.c) ----
 * The run's accesses in stream order, the engine's and the library's,
 * filled in place and handed to the sink (engine.h) when full. The
 * engine owns it (cb_eng.acc); the process appends through cb_proc.acc. */
typedef struct cb_accbuf {
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
} cb_accbuf;

/* cb_acc_flush hands the batch to the sink; cb_acc_next flushes a full
 * one and takes the next. */
void cb_acc_flush(cb_accbuf *b);
void cb_acc_next(cb_accbuf *b);
static inline void cb_acc_emit(cb_accbuf *b, uint64_t addr, uint32_t size,
                               uint32_t site, bool is_write) {
  if (__builtin_expect(b->nbatch == b->cap, 0))
    cb_acc_next(b);
  cb_access *a = &b->batch[b->nbatch++];
#if defined(__x86_64__)
  if (b->stream_records) {
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

/* glibc's static block of exit functions holds 32, one of them _dl_fini */
#define CB_EXIT_FNS 31u

/* The modelled process of one run. */
typedef struct cb_proc {
  /* set by the engine before the library runs, fixed for the run */
  const cb_program *p;
  const cb_engine_options *opt;
  cb_run_outcome *out;
  cb_accbuf *acc;         /* the engine's batch */
  cb_kernel_stack *stack; /* the engine's frames and slots */

  cb_mem mem;
  cb_heap *heap;
  cb_rand rng;

  /* the library call running: its call site, its call op
   * (program->ops), its arguments' slots (NULL outside a library call: a
   * long double argument, CB_TY_F80, spans two, where args[k] holds only
   * the first), the library function the program called before its
   * unlocked or __uflow/__overflow form was taken for the locked one
   * (libc.c) */
  uint32_t cur_site;
  uint32_t cur_op;
  const cb_value *const *call_vals;
  uint32_t lib_called;
  bool sqrt_called;  /* the last sqrt or sqrtf called the library */
  uint64_t slept_ns; /* what sleep() added to the virtual clock */

  /* stdio */
  cb_textbuf out_text, err_text;
  uint64_t stdout_buf, stdin_buf; /* heap buffers, 0 until first use */
  uint64_t stdout_pos;
  bool stdout_flushed; /* nothing pending in stdout's buffer (fflush) */
  /* cb_proc_lib leaves out [lib_mute_lo, lib_mute_hi) and, with
   * lib_mute_stdout, stdout's buffer while libc_stdio_traffic.c replaces
   * that traffic with glibc's */
  uint64_t lib_mute_lo, lib_mute_hi;
  bool lib_mute_stdout;
  /* the process's start-up was replayed (proc_replay.c): exit's
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
} cb_proc;

/* ---- the host interface: what the engine provides ---- */

/* Runs Program function func as a call whose CFA is cfa (the rsp before
 * its `call`), from the library, the call's push at site; and from the
 * running call's site and rsp (qsort's comparator). */
cb_stop cb_host_call_at(cb_proc *pr, uint32_t func, uint64_t cfa, uint32_t site,
                        const cb_value *args, uint32_t nargs, cb_value *ret);
cb_stop cb_host_call(cb_proc *pr, uint32_t func, const cb_value *args,
                     uint32_t nargs, cb_value *ret);
/* The function whose code address is addr, or CB_NONE. */
uint32_t cb_host_function_at(const cb_proc *pr, uint64_t addr);
/* The operations executed so far (the virtual CPU clock, docs/
 * process-model.md). */
uint64_t cb_host_cpu_ns(const cb_proc *pr);
/* Block b's machine-code accesses before op `at` in a frame whose CFA is
 * cfa (a longjmp's return into its setjmp's block). */
void cb_host_emit_mach_at(cb_proc *pr, const cb_block *b, uint64_t cfa,
                          uint32_t at);

/* The top frame: the library's caller (its sp is the rsp before its
 * `call`). */
static inline cb_frame *cb_proc_top(const cb_proc *pr) {
  return &pr->stack->frames[pr->stack->depth - 1];
}

/* The virtual clock the program reads (clock, time, gettimeofday,
 * clock_gettime, getrusage): nanoseconds since main began, one per
 * executed operation, plus what sleep() slept (CPU time: without it). It
 * runs with the program's work, so a loop that waits for time to pass
 * ends, and every engine reads the same time at the same operation;
 * docs/process-model.md. */
#define CB_CLOCK_EPOCH_S 1700000000u /* time() when main begins */
#define CB_CLOCK_CPU0_US 1000u       /* clock() when main begins */
#define CB_PROCESS_PID 4242u         /* what getpid() returns */
static inline uint64_t cb_proc_clock_ns(const cb_proc *pr) {
  return cb_host_cpu_ns(pr) + pr->slept_ns;
}

/* ---- the process's own services, which the engine uses too ---- */

/* One access of the program's or the library's (the caller counts it). */
static inline void cb_proc_emit(cb_proc *pr, uint64_t addr, uint32_t size,
                                uint32_t site, bool is_write) {
  cb_acc_emit(pr->acc, addr, size, site, is_write);
}

/* Stops the input with an error; returns CB_FAIL (proc_fault.c). */
cb_stop cb_proc_fail(cb_proc *pr, cb_run_status st, uint32_t site,
                     const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Fails with a message about an access outside every object. */
cb_stop cb_proc_fault(cb_proc *pr, uint64_t addr, uint64_t size, bool is_write,
                      uint32_t site);
/* Memory helpers for the library: false after reporting a fault. */
bool cb_proc_read(cb_proc *pr, uint64_t addr, void *dst, size_t n);
bool cb_proc_write(cb_proc *pr, uint64_t addr, const void *src, size_t n);
/* Reads a NUL-terminated string (at most max bytes), malloc'ed. */
char *cb_proc_read_str(cb_proc *pr, uint64_t addr, size_t max, size_t *len);

/* Library traffic attributed to the running call's site (proc_traffic.c):
 * word by word, bulk (memset/memcpy-like, as glibc's string functions
 * generate it), and glibc's memset and memcpy/memmove access by access. */
void cb_proc_lib(cb_proc *pr, uint64_t addr, uint64_t len, bool is_write);
void cb_proc_lib_bulk(cb_proc *pr, uint64_t addr, uint64_t len, bool is_write);
void cb_proc_memset_traffic(cb_proc *pr, uint64_t d, uint64_t n);
void cb_proc_memcpy_traffic(cb_proc *pr, uint64_t d, uint64_t s, uint64_t n);

/* The process image before main (proc.c): memory, the heap and its hooks,
 * the executable's data and the standard FILEs; after the run, the
 * outcome's output and files, and the state freed. */
void cb_proc_init(cb_proc *pr, const cb_program *p,
                  const cb_engine_options *opt, cb_run_outcome *out,
                  cb_accbuf *acc, cb_kernel_stack *stack,
                  const cb_run_input *in);
void cb_proc_setup_image(cb_proc *pr);
void cb_proc_outcome(cb_proc *pr, cb_run_outcome *out);
void cb_proc_free(cb_proc *pr);

/* The process's start-up (true: replayed) and exit (rsp: where `call exit`
 * pushes from; from_call: the program called exit(), whose push it made)
 * traffic (proc_replay.c). */
bool cb_proc_startup(cb_proc *pr);
void cb_proc_exit_replay(cb_proc *pr, uint64_t rsp, bool from_call);
/* Exit's replay for the stdio state now, NULL when none is due: its
 * records (*n) and the shift of their stack addresses for a `call exit`
 * from rsp; cb_proc_replay_emit sends records [lo, hi) of it. The caller
 * clears process_exit_due when it sent the last part. */
const cb_access *cb_proc_exit_recs(cb_proc *pr, uint64_t rsp, size_t *n,
                                   int64_t *shift);
void cb_proc_replay_emit(cb_proc *pr, const cb_access *r, size_t lo, size_t hi,
                         int64_t shift);

/* exit(status) from `call exit` at rsp (from_call: the program called it;
 * else main returned): the atexit/on_exit handlers, then exit's replay
 * (libc_exit.c). CB_EXIT, or the stop of a handler that failed. */
cb_stop cb_libc_exit(cb_proc *pr, uint64_t rsp, bool from_call, int status);
/* exit() and main's return flush every stream (glibc's _IO_cleanup). */
void cb_files_at_exit(cb_proc *pr);

/* The C library (libc.c): runs call op `op` of libfn fn with its argument
 * values; writes the result into ret (ret_lanes slots). */
cb_stop cb_libc_call(cb_proc *pr, uint32_t fn, const cb_value *args,
                     const uint8_t *arg_ty, uint32_t nargs, cb_value *ret);
cb_stop cb_intrinsic_call(cb_proc *pr, uint32_t id, const cb_op *op,
                          const cb_value *const *argv, const uint8_t *arg_ty,
                          const uint8_t *arg_lanes, uint32_t nargs,
                          cb_value *ret);
void cb_libc_init(cb_proc *pr);
/* libc_stdio_sync.c: stdin's and stdout's FILE fields, which glibc's
 * inline getc_unlocked and putc_unlocked use. pull takes back what the
 * program's code did since publish wrote them (false after failing the
 * run); publish writes them for the model's state after a call. */
bool cb_stdio_pull(cb_proc *pr);
void cb_stdio_publish(cb_proc *pr);
void cb_stdio_publish_streams(cb_proc *pr);

/* A long double's value from its two slots, and back (libc_ldouble.c). */
long double cb_wide_f80(const cb_value *v);
void cb_wide_put_f80(cb_value *d, long double x);

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
/* libc_dlfixup.c: sets up the process's lazy-binding state, and replays
 * the first call's binding of a library function (C: the caller's rsp
 * before its `call`). */
void cb_dl_setup(cb_proc *pr, const cb_program *p);
void cb_dl_first_call(cb_proc *pr, uint32_t libc_fn, uint64_t C);
/* Where libc.so.6 is mapped under valgrind (layout.c). */
uint64_t cb_eng_libc_base(const cb_program *p);

#endif
