/* engine.h: the engine of analysis/, which runs a Program for one input.
 *
 * analysis/ owns everything between the Program (program.h, made by the
 * frontend) and the access stream (stream.h, consumed by the cache model):
 * the interpreter of the compact IR, the model of the process's address
 * space (globals at their ELF addresses, a glibc 2.36 malloc model for the
 * heap and mmapped blocks, stack frames under valgrind's stack top), the
 * C library model (libc_names.h: results and memory traffic), the inputs
 * file parser (inputs.h), and later the CFG/loop analyses (cfg.c and
 * loops.c, written by the frontend engineer) and the faster splicing
 * engine. It includes nothing but include/cbana headers and libc.
 *
 * One call to cb_engine_run runs main() with one input's argv and stdin,
 * in exact mode (every operation interpreted), sending every data access
 * of the real process (program loads and stores, return addresses pushed
 * and popped, the C library's own traffic attributed to its call site) to
 * a sink in batches, and fills an outcome: status, the program's exit
 * code and output, counts, and a path-class signature.
 */
#ifndef CBANA_ENGINE_H
#define CBANA_ENGINE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/program.h"
#include "cbana/results.h"

/* The access record (struct cb_access) is the cache model's, stream.h. */
#include "cbana/stream.h"

/* Receives the accesses in program order, in batches of at most
 * CB_ENGINE_BATCH records; the batch is only valid during the call.
 * affine, when not NULL, receives affine blocks (stream.h) in the same
 * order: the engine hands every access made before the block to fn first.
 * When it is NULL the engine expands blocks into records for fn. The block
 * and its accesses are only valid during the call. */
typedef struct cb_access_sink {
  void (*fn)(void *ctx, const cb_access *batch, size_t n);
  void *ctx;
  void (*affine)(void *ctx, const cb_affine_block *block);
  /* Optional: where the engine writes its next batch, of at most *cap
   * records (1 <= *cap <= CB_ENGINE_BATCH), which it then hands to fn as
   * is, before any other call of this sink. A sink that passes batches on
   * (the pipe) is spared copying them. NULL: the engine's own buffer. */
  cb_access *(*area)(void *ctx, size_t *cap);
} cb_access_sink;

#define CB_ENGINE_BATCH 4096

/* How many operations the engine runs between two looks at what may
 * stop it from outside and two progress reports (2^26: a fraction of a
 * second at the interpreter's pace, 3 to 10 ns an operation). */
#define CB_ENGINE_CHECK_OPS (1ull << 26)

/* Measured under `env -i valgrind --tool=cachegrind` (Debian 12,
 * valgrind 3.19) for a small PIE linked with libc only; the engine
 * computes the real values per program with cb_engine_layout. */
#define CB_ENGINE_DEFAULT_HEAP_BASE 0x4035000ull
#define CB_ENGINE_DEFAULT_MMAP_BASE 0x4a2c000ull
/* No limit: a program runs as long as it runs (--budget N sets one). */
#define CB_ENGINE_DEFAULT_BUDGET UINT64_MAX
#define CB_ENGINE_DEFAULT_STACK_LIMIT (8ull << 20)

/* An allocation or release of a heap block by the program: a call of
 * malloc, calloc, realloc, free, posix_memalign, aligned_alloc or
 * memalign at a call site of the Program. The library's own blocks (stdio
 * buffers, qsort's scratch) are not reported: they are no program data. */
typedef enum cb_alloc_kind {
  CB_ALLOC_NEW,    /* a block [addr, addr + size) came to life */
  CB_ALLOC_FREE,   /* the block at addr was released */
  CB_ALLOC_REALLOC /* the block at old became [addr, addr + size); addr
                      may equal old (grown or shrunk in place) */
} cb_alloc_kind;

typedef struct cb_alloc_event {
  cb_alloc_kind kind;
  uint32_t site;   /* program->sites: the call (is_call), its file:line */
  uint32_t callee; /* cb_libfn: CB_LIBC_MALLOC, ... */
  uint64_t addr;   /* the block's user pointer (never 0) */
  uint64_t old;    /* CB_ALLOC_REALLOC: the previous user pointer */
  uint64_t size;   /* bytes requested (calloc: n * size) */
} cb_alloc_event;

/* Receives allocation events in stream order: the engine hands every
 * access made before the event to the access sink (flushing its batch)
 * before it calls fn, so a consumer that tracks live blocks attributes
 * each access to the block live when it was made. */
typedef struct cb_alloc_sink {
  void (*fn)(void *ctx, const cb_alloc_event *ev);
  void *ctx;
} cb_alloc_sink;

typedef enum cb_engine_mode {
  CB_ENGINE_EXACT, /* the reference: interpret every operation as written */
  CB_ENGINE_FAST   /* the default: same results, faster paths (fused
                      intrinsics, superoperations); --exact-engine selects
                      EXACT */
} cb_engine_mode;

/* The sizes at which glibc 2.36's memset and memcpy change strategy
 * (`rep stosb`, `rep movsb`, the end of rep movsb, non-temporal
 * stores), as the program meets them under valgrind on this machine; they
 * decide how much traffic a call makes (docs/process-model.md section 4).
 * Zero fields: the values measured on the Intel machines of that page. */
typedef struct cb_glibc_thresholds {
  uint64_t stosb, movsb, movsb_stop, nt;
} cb_glibc_thresholds;

/* The stdio state the process exits in, which decides exit's traffic
 * (glibc's _IO_cleanup): bits of a mode. */
enum cb_process_exit_mode {
  CB_PROCESS_STDOUT_USED = 1,    /* stdout has its buffer, bytes pending */
  CB_PROCESS_STDOUT_FLUSHED = 2, /* ... and nothing pending */
  CB_PROCESS_STDIN_USED = 4      /* stdin has its buffer */
};
#define CB_PROCESS_EXIT_MODES 8

/* The process's start-up and exit traffic (program.h, cb_process_info),
 * at the program's addresses: the engine sends the start-up accesses
 * before main's (the last is `call main`'s push, which it then does not
 * make itself) and exit's after main returns, or from exit() with the
 * stack moved to the call's. */
typedef struct cb_process_replay {
  const cb_access *startup; /* site: the Program's startup_site */
  size_t n_startup;
  /* exit's accesses from main's return for a mode (its first is the push
   * of `call exit`), sites set, and the rsp they assume at that `call`
   * (*cfa); NULL when there are none. */
  const cb_access *(*exit)(void *ctx, unsigned mode, size_t *n, uint64_t *cfa);
  void *ctx;
} cb_process_replay;

typedef struct cb_engine_options {
  uint64_t budget;           /* max executed operations; 0: default */
  uint64_t stack_top;        /* main's CFA (rsp before `call main`); 0: from
                                valgrind's initial stack for the given argv */
  uint64_t heap_base;        /* initial brk; 0: cb_engine_layout's */
  uint64_t mmap_base;        /* first mmapped block; 0: cb_engine_layout's */
  uint64_t stack_limit;      /* bytes of stack below main's CFA; 0: 8 MiB */
  cb_glibc_thresholds glibc; /* see above; the driver measures them */
  bool stdout_is_tty;        /* line buffered stdout with a 1024-byte buffer */
  const char *cwd;           /* the run's working directory (its length moves
                                the stack: PWD is in valgrind's environment);
                                NULL: this process's */
  unsigned n_aux;            /* auxv entries the kernel gives valgrind; 0: 22 */
  cb_engine_mode mode;
  cb_alloc_sink alloc; /* allocation events; fn NULL: none */
  /* Stops from outside, checked every CB_ENGINE_CHECK_OPS operations or
   * so, where the budget is: a signal number stored at *interrupt (by a
   * signal handler: a lock-free atomic, C11 7.14.1; NULL: none) stops
   * the run with
   * CB_RUN_STOPPED, "interrupted by SIGINT after N operations"; so does
   * the CLOCK_MONOTONIC time `deadline` (seconds; 0: none), its message
   * naming timeout_s, the limit it came from. */
  const atomic_int *interrupt;
  double deadline, timeout_s;
  /* Optional, called at the same points: the operations and the data
   * accesses (loads, stores and the library's traffic) so far, for a
   * progress line. */
  struct {
    void (*fn)(void *ctx, uint64_t ops, uint64_t accesses);
    void *ctx;
  } progress;
  /* The process's start-up and exit to replay around main; NULL: none. */
  const cb_process_replay *process;
} cb_engine_options;

/* One input set. */
typedef struct cb_run_input {
  int argc;
  const char *const *argv;         /* argv[0]: the executable path as given */
  const unsigned char *stdin_data; /* NULL: empty standard input */
  size_t stdin_len;
} cb_run_input;

typedef enum cb_run_status {
  CB_RUN_OK,     /* main returned or exit() was called */
  CB_RUN_ERROR,  /* the model stopped the input: see message */
  CB_RUN_BUDGET, /* the operation budget ran out */
  CB_RUN_ABORT,  /* the program called abort() or failed an assert */
  CB_RUN_STOPPED /* stopped from outside: a signal or the time limit
                    (cb_engine_options.interrupt, deadline) */
} cb_run_status;

typedef struct cb_run_outcome {
  cb_run_status status;
  char message[512]; /* what stopped the input (its location: file, line) */
  const char *file;  /* where (program->files entry or NULL) */
  uint32_t line;
  int exit_code;
  char *out; /* captured standard output (malloc'ed, NUL ended) */
  size_t out_len;
  char *err; /* captured standard error */
  size_t err_len;
  /* The files the program wrote (kept in memory: cbana never writes the
   * program's files), malloc'ed, n_files entries. */
  cb_file_out *files;
  unsigned n_files;
  uint64_t ops; /* executed operations */
  /* Accesses of the program's own operations (a store that x86 folds
   * into a read-modify-write instruction counts as its load only, as in
   * cachegrind; the frontend's machine-code accesses count here too). */
  uint64_t loads, stores;
  /* The C library's traffic, return addresses pushed and popped, saved
   * registers, PLT reads of the GOT; attributed to call sites. */
  uint64_t lib_reads, lib_writes;
  uint64_t path_signature; /* hash of the branch outcomes in order */
  uint64_t branches;       /* branch points executed */
  /* How often each branch point (program->branches) sent control each
   * way: branch_counts[2 * b] to the true side (successor 0; a switch: to
   * one of its cases), [2 * b + 1] to the false side (a switch: to its
   * default). n_branches * 2 entries, NULL when there are none. */
  uint64_t *branch_counts;
  /* The fast engine's loop templates (analysis/engine/template.h): loops
   * entered through one, the iterations run from templates, and the accesses
   * they emitted. Always 0 with --exact-engine. */
  uint64_t tpl_loops, tpl_iters, tpl_accesses;
  /* of tpl_iters, those whose values the loop's native code computed
   * (cbana/kernel.h's cb_tpl_kernel_io); their operations are counted in
   * kernel_ops */
  uint64_t tpl_native_iters;
  /* Operations the frontend's native kernels ran (kernel.h), and per
   * opcode the times a kernel left before such an op to the interpreter
   * (the op not compiled; or a loop template's header, a page not yet
   * translated, too little budget or batch room); always 0 with
   * --exact-engine. */
  uint64_t kernel_ops;
  uint64_t kernel_left[CB_OP_COUNT];
  /* calls of the program's own functions that kernels handed to the
   * engine (io->call) rather than making them natively; --stats */
  uint64_t kernel_engine_calls;
} cb_run_outcome;

void cb_engine_options_default(cb_engine_options *opt);

/* Main's CFA (rsp before `call main`) under `env -i valgrind` for these
 * arguments (argv[0]: the program path as given to valgrind), working
 * directory (NULL: this process's) and auxv count (0: 22); the formula of
 * docs/process-model.md section 2. */
uint64_t cb_engine_default_stack_top(int argc, const char *const *argv,
                                     const char *cwd, unsigned n_aux);

/* The initial break and the first mmapped block's address under
 * valgrind for this program (docs/process-model.md 1 and 3.3): from the
 * executable's end and the libraries it needs (read from exe_path when it
 * is there). */
/* Where each shared object of p->dl (the executable first) is mapped in
 * the modelled process, base[0..n); false without that information. */
bool cb_engine_object_bases(const cb_program *p, uint64_t *base, uint32_t n);

void cb_engine_layout(const cb_program *p, uint64_t *heap_base,
                      uint64_t *mmap_base);

/* Runs main for one input. Returns 0 when the run completed (status OK),
 * -1 otherwise; *out is filled in both cases (free it with
 * cb_run_outcome_free). sink may be NULL (counts only). */
int cb_engine_run(const cb_program *p, const cb_run_input *in,
                  const cb_engine_options *opt, const cb_access_sink *sink,
                  cb_run_outcome *out);

void cb_run_outcome_free(cb_run_outcome *out);

#endif
