/* The engine's state as the native kernels see it: the contract between
 * the frontend's JIT (frontend/jit*.c), which compiles the lowered ops
 * of a function to machine code, and the engine
 * (analysis/engine/engine_kernel.c, entered from the interpreter's loop), which
 * runs it. A kernel does what the reference interpreter does for the ops it
 * runs, bit for bit, on the interpreter's own state: the top frame's slots, the
 * memory's page translation cache, the access batch, the budget and the path
 * signature. It is entered at the start of a block (after its phis) and
 * runs blocks and branches of its function. A direct call of a function
 * of the program that has a kernel it makes itself (the frame pushed on
 * cb_kernel_stack, the callee's kernel called, the frame popped at its
 * `ret`), and so a call through a pointer to one (the push made by the
 * callee's io->entries); any other call it hands to the engine
 * (io->call), which runs
 * it in full, callee included, or pushes its frame. It leaves
 * before an op it does not compile, at a `ret`, at a jump to a block
 * marked in `stop`, at an access whose page the translation cache
 * misses and io->page does not find (a kernel made at -O0 does not ask)
 * or that crosses a page, at a zero divisor, or when the budget or
 * the batch has too little room for the way ahead; it then returns with
 * ip, block and prev where the interpreter goes on, the op at ip not
 * started. */
#ifndef CBANA_KERNEL_H
#define CBANA_KERNEL_H

#include <stdint.h>

#include "cbana/program.h"

#define CB_KERNEL_PAGE_BITS 12
#define CB_KERNEL_PAGE_SIZE (1ull << CB_KERNEL_PAGE_BITS)
/* Entries of the translation cache (a power of two). */
#define CB_KERNEL_TLB_N 4096u

typedef struct cb_kernel_page {
  uint64_t pno; /* page number (address >> CB_KERNEL_PAGE_BITS) */
  uint8_t *data;
} cb_kernel_page;

/* An engine frame (one active call of a Program function). Its layout is
 * here, not in the engine's own headers, because a kernel pushes and
 * pops frames itself for the calls it makes natively (kernel.h's
 * opening paragraph): it writes the records the interpreter reads when
 * it takes over, and reads the ones the interpreter wrote. */
typedef struct cb_frame {
  uint32_t func;
  uint32_t slot_base; /* into the slot stack (cb_kernel_stack.slots) */
  uint32_t ip;        /* next op (global index) while a callee runs */
  uint32_t block;     /* current block, global index */
  uint32_t prev;      /* block control came from, within the function */
  uint32_t call_op;   /* the caller's call op (global), CB_NONE for main */
  uint32_t call_site; /* site of the call that made this frame */
  uint32_t ret_dst;   /* the call op's dst in the caller's slots, which
                         the `ret` writes (CB_NONE: none) */
  uint64_t cfa;       /* the caller's rsp before the call */
  uint64_t sp;        /* lowest address in use by this frame */
  uint8_t va_al;      /* a vararg callee's %al: vector registers passed */
  /* a tail call left: the epilogue's pops are made, and the callee's
   * `ret` is this frame's (cb_site.is_tail) */
  uint8_t tail_done;
} cb_frame;

/* The engine's frame stack and slot stack, which a kernel's native call
 * grows and its native `ret` shrinks (only within the capacities: a
 * call that needs more leaves the growing to the engine, io->call). */
typedef struct cb_kernel_stack {
  cb_value *slots;           /* every frame's value slots */
  uint64_t nslots, capslots; /* in use (the top frame's end), allocated */
  cb_frame *frames;
  uint32_t depth, capframes;
  uint64_t stack_lo;          /* lowest modelled stack address allowed */
  const uint64_t *frame_size; /* per function: CFA - rsp in its body */
  /* a kernel calls a kernel only while its native stack pointer is above
   * this address (each nested call takes a native frame) */
  uintptr_t kstack_lo;
  /* per frame object (program.h's frame_objs): its offset from the CFA,
   * as the engine lays the frame out (a fixed alloca's address) */
  const int64_t *fo_off;
} cb_kernel_stack;

/* Frames at most: a deeper call is the engine's stack overflow. */
#define CB_KERNEL_MAX_DEPTH 1000000u
/* What a pushed return address holds in the modelled memory. */
#define CB_KERNEL_RET_ADDR 0x109000ull

struct cb_kernel_io {
  cb_value *slots;           /* the top frame's value slots */
  const cb_kernel_page *tlb; /* CB_KERNEL_TLB_N, by pno modulo it */
  const uint8_t *stop;       /* per global block: 1 = a loop template's
                                header, whose template io->tpl runs when
                                the kernel enters the loop; only a block
                                that is its own successor is marked */
  const uint8_t *op_flags;   /* per op: CB_KERNEL_OP_* */
  uint64_t *branch_counts;   /* cb_run_outcome's, or NULL */
  uint8_t *batch;            /* 16-byte records laid out as cb_access
                                (stream.h): addr, site, size, is_write */
  uint64_t nbatch, cap;
  uint64_t stream_records; /* 1: write the records with
                              non-temporal stores (another core
                              reads them) */
  /* the budget left; the loads, stores and branches made since entry or
   * since the last call (which hands them to the engine) */
  uint64_t budget, loads, stores, branches;
  uint64_t sig_v, sig_n;       /* the path signature's run (sig_add) */
  uint64_t path_signature;     /* cb_run_outcome's, runs mixed in by
                                  cb_path_sig_run */
  uint64_t cfa;                /* the top frame's: machine-code accesses */
  void *engine;                /* the engine's, for call */
  cb_kernel_stack *stack;      /* the engine's frames, for native calls */
  const cb_kernel_fn *kernels; /* per function, NULL: none (yet) */
  /* Runs the call op at ip of block `block` (prev, the counters and the
   * batch are written to io first): CB_KCALL_DONE with slots, batch,
   * cap, nbatch, budget and the signature's run new in io, and the
   * counters handed over (0); CB_KCALL_LEAVE, not started (the kernel
   * leaves before it); CB_KCALL_STOP, the run ends (the kernel leaves,
   * the engine knows why). */
  int (*call)(cb_kernel_io *io);
  /* The `ret` op at ip of a kernel its caller's kernel called (nest > 0):
   * pops the frame, writes the value into the caller's slots (the frame's
   * ret_dst), and leaves io as the caller's (slots, cfa, prev);
   * CB_KCALL_DONE. The machine-code accesses after the call are the
   * caller's to make (a native `ret` does the same). */
  int (*ret)(cb_kernel_io *io);
  /* Hands the batch (nbatch records) to the cache model and takes the
   * next: batch, nbatch, cap and stream_records new in io. */
  int (*flush)(cb_kernel_io *io);
  /* The loop template of block `block` (marked in stop), just entered
   * from prev with its phis moved, at op ip: runs the iterations it can
   * (analysis/engine/template.h), the state new in io; CB_KCALL_DONE. */
  int (*tpl)(cb_kernel_io *io);
  cb_kernel_fn callee; /* after CB_KCALL_ENTERED: the callee's kernel */
  /* The host address of modelled address addr, its page put in the
   * translation cache as the interpreter's own look-up does (mem.h's
   * cb_mem_ptr); NULL when the page is not mapped. A load or store whose
   * page the cache misses asks this rather than leaving (in a kernel made
   * at -O1), and leaves only on NULL (the interpreter's fault). */
  uint8_t *(*page)(void *engine, uint64_t addr);
  uint32_t ip, block, prev; /* in: block (global) and prev; out: all */
  uint32_t nest;            /* kernels called by kernels, running */
  /* Per function (program.h's kernel_entries): for a call through a
   * pointer, what a direct call's native push does, made by the callee's
   * side, as its frame depends on the callee. Called with the caller's
   * counters in io (its locals saved, the call op's budget not yet
   * spent), the call's argument words (nargs, each one lane; a parameter
   * past them gets 0), the call op (global), its block, its site, the
   * op's dst and the return address's record (cb_access's second word).
   * CB_KCALL_ENTERED: the frame pushed, the records made, io the
   * callee's at its first block and io->callee its kernel;
   * CB_KCALL_LEAVE: nothing done but a full batch handed over (io has
   * the counters), and the engine makes the call (io->call). */
  const cb_kernel_entry_fn *entries;
};

/* What call returns. CB_KCALL_ENTERED: the callee's frame is pushed and
 * io is the callee's at its first block; the caller runs io->callee. */
enum { CB_KCALL_DONE, CB_KCALL_LEAVE, CB_KCALL_STOP, CB_KCALL_ENTERED };

/* What a kernel returns: it left (io says where the top frame goes on,
 * which may be a callee's), or it ran its `ret` for a calling kernel. */
enum { CB_KERNEL_LEFT, CB_KERNEL_RETURNED };

/* A loop template's iterations made natively (analysis/engine/template.h): for
 * a block that is its own successor, the frontend compiles beside the
 * function's kernel a loop that runs the block's ops after its phis, k
 * times, each iteration ending with the back edge's phi moves, as the
 * interpreter computes them, on the top frame's slots and the modelled
 * memory, and emits no access, counts nothing and spends no budget: the
 * template has emitted the iterations' accesses (their addresses are
 * affine), proved that the branch stays in the loop k times and that
 * every access is mapped, and accounts for the rest. An access whose
 * page is not in the translation cache, or that crosses a page, goes
 * through `access`, which copies between the model and buf as the
 * interpreter's copy does. Returns the iterations whose branch stayed in
 * the loop, k unless the template's proof was wrong (then the state is
 * that after the iteration that left). */
typedef struct cb_tpl_kernel_io {
  cb_value *slots;
  const cb_kernel_page *tlb;
  const uint8_t *op_flags; /* cb_kernel_io's */
  void *engine;
  void (*access)(void *engine, uint64_t addr, uint8_t *buf, uint64_t size,
                 uint64_t is_write);
  uint64_t k;
} cb_tpl_kernel_io;

/* In the ip a kernel leaves with: the machine-code accesses made just
 * before the op (in the middle of its block, engine_internal.h's
 * mach_mid) are made already. */
#define CB_KERNEL_IP_MACH_MADE 0x80000000u

/* op_flags: a store folded into its load (x86 read-modify-write), which
 * makes no access. */
#define CB_KERNEL_OP_FOLDED 1u
/* op_flags: a vector select that picks lane by lane by its condition's
 * lanes (else every lane by the condition's first lane). */
#define CB_KERNEL_OP_LANESEL 2u

#endif
