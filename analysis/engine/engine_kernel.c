/* engine_kernel.c: the engine's side of the native kernels
 * (engine_kernel.h, kernel.h). */
#include "engine_kernel.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine_frames.h"
#include "engine_kblocks.h"
#include "template.h"

/* A function's kernel is asked for once the function has run, outside
 * any kernel, this many ops per op of its own (and at least
 * KERNEL_HOT_MIN): the compile takes 0.6 to 1 ms an op, about what the
 * interpreter takes for 20000 ops, so a function that never runs that
 * much more than its size never pays for its compile (the rule of
 * renting skis; the compile runs beside the engine, and the engine runs
 * on meanwhile). */
#define KERNEL_HOT_PER_OP 20000u
#define KERNEL_HOT_MIN 100000u
/* Calls run for kernels one inside another (each a few KiB of the native
 * stack) before the interpreter runs the next call itself. */
#define KERNEL_NEST_MAX 64u
/* Native stack kept free below a kernel that calls another kernel (a
 * native frame each, up to a few KiB for a long function): past it, the
 * call is left to the interpreter, whose frames are its own. */
#define KERNEL_STACK_MARGIN (512u << 10)

/* cb_eng's members are ks's (engine_internal.h's union). */
#define SAME_AS_KS(m)                                                          \
  _Static_assert(offsetof(cb_eng, m) == offsetof(cb_eng, ks) +                 \
                                            offsetof(cb_kernel_stack, m) &&    \
                     sizeof(((cb_eng *)0)->m) ==                               \
                         sizeof(((cb_kernel_stack *)0)->m),                    \
                 "cb_eng." #m)
SAME_AS_KS(slots);
SAME_AS_KS(nslots);
SAME_AS_KS(capslots);
SAME_AS_KS(frames);
SAME_AS_KS(depth);
SAME_AS_KS(capframes);
SAME_AS_KS(stack_lo);
SAME_AS_KS(frame_size);
SAME_AS_KS(kstack_lo);
SAME_AS_KS(fo_off);

static int leave_at_once(cb_kernel_io *io) {
  (void)io;
  return CB_KERNEL_LEFT;
}

/* The engine's state into io for the kernel of the top frame. The
 * engine's fields are read one by one (volatile), as io_to_state's below
 * says why. */
static void state_to_io(const volatile cb_eng *e, cb_kernel_io *io) {
  const volatile cb_frame *F = &e->frames[e->depth - 1];
  io->slots = e->slots + F->slot_base;
  io->batch = (uint8_t *)e->acc.batch;
  io->nbatch = e->acc.nbatch;
  io->cap = e->acc.cap;
  io->stream_records = e->acc.stream_records;
  io->budget = e->budget_left;
  io->sig_v = e->sig_v;
  io->sig_n = e->sig_n;
  io->path_signature = e->out->path_signature;
  io->cfa = F->cfa;
  io->prev = F->prev;
  io->loads = io->stores = io->branches = 0;
}

/* io's state into the engine's, the top frame at op ip of io->block.
 * Each field is read on its own (volatile): the kernel has just stored
 * them one by one, and a wider load over two of those stores would wait
 * for both to reach the cache (a failed store forwarding: a third of
 * methcall's engine time). */
static void io_to_state(cb_eng *e, const volatile cb_kernel_io *io,
                        uint32_t ip) {
  cb_frame *F = &e->frames[e->depth - 1];
  cb_run_outcome *out = e->out;
  e->acc.nbatch = io->nbatch;
  e->sig_v = io->sig_v;
  e->sig_n = io->sig_n;
  out->path_signature = io->path_signature;
  out->branches += io->branches;
  out->loads += io->loads;
  out->stores += io->stores;
  e->budget_left = io->budget;
  F->block = io->block;
  F->prev = io->prev;
  F->ip = ip;
}

/* A loop template's header stays a kernel's stop while its template runs
 * at least this many iterations an entry, on average, judged after the
 * first KERNEL_TPL_TRIAL entries. */
#define KERNEL_TPL_MIN_ITERS 16u
#define KERNEL_TPL_TRIAL 8u

void eng_kernel_setup(cb_eng *e) {
  const cb_program *p = e->p;
  if (e->opt.mode != CB_ENGINE_FAST || !p->kernels)
    return;
  e->kstop = calloc(p->n_blocks + 1, 1);
  e->kflags = calloc(p->n_ops + 1, 1);
  e->kentry = calloc(p->n_ops + 1, 1);
  e->kheat = calloc(p->n_functions + 1, sizeof *e->kheat);
  e->ktpl = calloc(p->n_blocks + 1, sizeof *e->ktpl);
  if (!e->kstop || !e->kflags || !e->kentry || !e->kheat || !e->ktpl)
    return; /* eng_destroy frees what was made */
  for (uint32_t b = 0; b < p->n_blocks; b++) {
    e->kstop[b] = e->tpl && cb_tpl_of(e->tpl, b) >= 0;
    if (e->nphis[b] < p->blocks[b].n_ops)
      e->kentry[p->blocks[b].first_op + e->nphis[b]] = 1;
  }
  for (uint32_t i = 0; i < p->n_ops; i++)
    e->kflags[i] = (uint8_t)(((e->rmw[i] & 1) ? CB_KERNEL_OP_FOLDED : 0) |
                             ((e->rmw[i] & 2) ? CB_KERNEL_OP_LANESEL : 0));
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    if (!p->kernel_request || fn->n_blocks == 0)
      continue;
    uint32_t o0, o1;
    cb_function_ops(p, fn, &o0, &o1);
    uint64_t hot = KERNEL_HOT_PER_OP * (uint64_t)(o1 - o0);
    e->kheat[f] = p->kernel_eager        ? 1
                  : hot > KERNEL_HOT_MIN ? hot
                                         : KERNEL_HOT_MIN;
  }
  /* this thread's stack, which kernels calling kernels grow */
  pthread_attr_t attr;
  void *lo = NULL;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) == 0) {
    if (pthread_attr_getstack(&attr, &lo, &size) != 0)
      lo = NULL;
    pthread_attr_destroy(&attr);
  }
  e->kstack_lo = lo && size > 2 * KERNEL_STACK_MARGIN
                     ? (uintptr_t)lo + KERNEL_STACK_MARGIN
                     : UINTPTR_MAX; /* unknown: no kernel calls a kernel */
  e->kernels = p->kernels;
}

/* The kernel's view of the engine's state is this layout (program.h). */
_Static_assert(CB_PG_BITS == CB_KERNEL_PAGE_BITS, "page size");
_Static_assert(CB_TLB_N == CB_KERNEL_TLB_N, "translation cache's size");
_Static_assert(sizeof(cb_value) == 8, "slot words");
_Static_assert(sizeof(cb_access) == 16 && offsetof(cb_access, site) == 8 &&
                   offsetof(cb_access, size) == 12 &&
                   offsetof(cb_access, is_write) == 14,
               "batch records");
_Static_assert(sizeof(((cb_mem *)0)->tlb[0]) == sizeof(cb_kernel_page) &&
                   offsetof(cb_kernel_page, data) == 8,
               "translation cache");

/* The ops of block b from op ip to its end, which the interpreter is to
 * run: counted per function for --stats (program.h's kernel_interp).
 * Engines on other threads may count at once: a count lost between them
 * only makes the figure a little low, and a locked add at every block
 * the interpreter runs would cost more than the block. */
static inline void count_interp(cb_eng *e, uint32_t func, uint32_t b,
                                uint32_t ip) {
  const cb_program *p = e->p;
  const cb_block *bl = &p->blocks[b];
  if (p->kernel_interp && ip >= bl->first_op && ip < bl->first_op + bl->n_ops) {
    uint64_t *c = &p->kernel_interp[func];
    __atomic_store_n(
        c, __atomic_load_n(c, __ATOMIC_RELAXED) + bl->first_op + bl->n_ops - ip,
        __ATOMIC_RELAXED);
  }
}

bool eng_kernel_enter(cb_eng *e, uint32_t *ip, uint64_t *budget) {
  const cb_program *p = e->p;
  cb_frame *F = &e->frames[e->depth - 1];
  /* a loop entered from outside whose template has native iterations
   * (template.h): the template runs them, the kernel or the interpreter
   * the rest */
  if (e->tpl && *ip == p->blocks[F->block].first_op + e->nphis[F->block] &&
      F->prev + p->functions[F->func].first_block != F->block) {
    int32_t ti = cb_tpl_of(e->tpl, F->block);
    if (ti >= 0) {
      eng_tpl_run(e, F, e->slots + F->slot_base, ti, budget);
      if (*budget == 0)
        return false;
    }
  }
  /* the frontend's compile may still be filling the table */
  cb_kernel_fn k = __atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE);
  if ((!k || !p->kernel_code[F->block]) && !(k = eng_kernel_outside(e, F, k))) {
    count_interp(e, F->func, F->block, *ip);
    return false;
  }
  cb_kernel_io io = {.slots = e->slots + F->slot_base,
                     .tlb = (const cb_kernel_page *)(const void *)e->pr.mem.tlb,
                     .stop = e->kstop,
                     .op_flags = e->kflags,
                     .branch_counts = e->out->branch_counts,
                     .batch = (uint8_t *)e->acc.batch,
                     .nbatch = e->acc.nbatch,
                     .cap = e->acc.cap,
                     .stream_records = e->acc.stream_records,
                     .budget = *budget,
                     .sig_v = e->sig_v,
                     .sig_n = e->sig_n,
                     .path_signature = e->out->path_signature,
                     .cfa = F->cfa,
                     .engine = e,
                     .stack = &e->ks,
                     .kernels = e->kernels,
                     .call = eng_kernel_call,
                     .ret = eng_kernel_ret,
                     .flush = eng_kernel_flush,
                     .tpl = eng_kernel_tpl,
                     .page = eng_kernel_page,
                     .entries = p->kernel_entries,
                     .ip = *ip,
                     .block = F->block,
                     .prev = F->prev};
  uint64_t done0 = eng_ops_done(e, *budget), kops0 = e->out->kernel_ops;
  uint32_t func = F->func;
  k(&io);
  /* read field by field (io_to_state says why) */
  const volatile cb_kernel_io *vo = &io;
  e->out->kernel_ops += eng_ops_done(e, vo->budget) - done0;
  /* the kernels' own: without the calls and templates the engine ran */
  eng_kernel_ran(e, func, e->out->kernel_ops - kops0);
  F = &e->frames[e->depth - 1];
  e->acc.nbatch = vo->nbatch;
  e->sig_v = vo->sig_v;
  e->sig_n = vo->sig_n;
  e->out->path_signature = vo->path_signature;
  e->out->branches += vo->branches;
  e->out->loads += vo->loads;
  e->out->stores += vo->stores;
  *budget = vo->budget;
  if (e->kernel_stop != CB_GO)
    return true;
  *ip = vo->ip & ~CB_KERNEL_IP_MACH_MADE;
  if (vo->ip & CB_KERNEL_IP_MACH_MADE)
    e->mach_made_at = *ip;
  F->block = vo->block;
  F->prev = vo->prev;
  e->out->kernel_left[p->ops[*ip].code]++; /* --stats */
  count_interp(e, F->func, F->block, *ip);
  return false;
}

uint64_t eng_tpl_run(cb_eng *e, cb_frame *F, cb_value *S, int32_t ti,
                     uint64_t *budget) {
  const cb_tpl_kernel_fn nk =
      e->p->tpl_kernels
          ? __atomic_load_n(&e->p->tpl_kernels[F->block], __ATOMIC_ACQUIRE)
          : NULL;
  if (!nk)
    return 0;
  uint64_t iters = cb_tpl_run(e, F, S, ti, nk, budget);
  /* a function that runs mostly in its loops' templates is as hot as
   * their operations say: its kernel makes their iterations natively,
   * once compiled with the header among the blocks that ran
   * (engine_kblocks.h) */
  if (e->kheat && iters) {
    const cb_program *p = e->p;
    uint64_t *h = &e->kheat[F->func];
    uint64_t n = iters * e->tpl->t[ti].n_ops;
    uint8_t *ran = &p->kernel_ran[F->block];
    if (!__atomic_load_n(ran, __ATOMIC_RELAXED))
      __atomic_store_n(ran, 1, __ATOMIC_RELAXED);
    if (*h > n)
      *h -= n;
    else if (*h)
      eng_kernel_cold(e, F);
    else if (__atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE) &&
             !__atomic_load_n(&p->kernel_code[F->block], __ATOMIC_RELAXED))
      eng_kernel_missed_ops(e, F, n);
  }
  if (e->ktpl) {
    cb_kernel_tpl_use *u = &e->ktpl[F->block];
    u->entries++;
    u->iters += iters;
    if (u->entries >= KERNEL_TPL_TRIAL &&
        u->iters < KERNEL_TPL_MIN_ITERS * u->entries)
      e->kstop[F->block] = 0;
  }
  return iters;
}

cb_kernel_fn eng_kernel_cold(cb_eng *e, const cb_frame *F) {
  e->kheat[F->func] = 0;
  e->p->kernel_request(e->p, F->func);
  return __atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE);
}

/* The call op at io->ip, as eng_run's CB_OP_CALL and, for the program's
 * own callee, its run to the `ret` and the value written back (eng_run's
 * CB_OP_RET), on the engine's state the kernel hands over and takes back.
 * Its ops, the callee's included, are not the calling kernel's: the
 * callee's kernel counts its own. */
int eng_kernel_call(cb_kernel_io *io) {
  cb_eng *e = io->engine;
  const cb_program *p = e->p;
  cb_run_outcome *out = e->out;
  uint32_t ip = io->ip;
  io_to_state(e, io, ip + 1);
  uint64_t done0 = eng_ops_done(e, e->budget_left);
  uint32_t d0 = e->depth;
  const cb_op *op = &p->ops[ip];
  cb_stop st = eng_do_call(e, op, ip + 1);
  cb_frame *F = &e->frames[e->depth - 1];
  if (st == CB_GO && e->depth != d0) {
    out->kernel_engine_calls++;
    /* the native stack's room for another kernel, or for the
     * interpreter's frames run inside this call */
    bool room = (uintptr_t)__builtin_frame_address(0) > e->kstack_lo;
    cb_kernel_fn k =
        room && e->kentry[F->ip] && !e->kstop[F->block]
            ? __atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE)
            : NULL;
    if (k || !room || e->kernel_nest >= KERNEL_NEST_MAX) {
      /* the callee's kernel, which the calling kernel runs; or none,
       * and the kernels leave to the interpreter at the callee's start
       * (its frames are its own, off the native stack) */
      state_to_io(e, io);
      io->ip = F->ip;
      io->block = F->block;
      io->callee = k ? k : leave_at_once;
      return CB_KCALL_ENTERED;
    }
  }
  e->kernel_nest++;
  if (st == CB_GO && e->depth != d0) {
    cb_value rv[256];
    st = eng_run(e, d0, rv);
    if (st == CB_RETURNED) {
      st = CB_GO;
      F = &e->frames[e->depth - 1];
      if (op->dst != CB_NONE)
        for (uint32_t i = 0; i < e->ret_lanes && i < 256; i++)
          e->slots[F->slot_base + op->dst + i] = rv[i];
    }
  }
  e->kernel_nest--;
  F = &e->frames[e->depth - 1];
  if (st == CB_GO && p->blocks[F->block].n_mach)
    eng_emit_mach_at(e, &p->blocks[F->block], F->cfa, ip + 1);
  out->kernel_ops -= eng_ops_done(e, e->budget_left) - done0;
  state_to_io(e, io);
  if (st != CB_GO) {
    e->kernel_stop = st;
    return CB_KCALL_STOP;
  }
  return CB_KCALL_DONE;
}

int eng_kernel_tpl(cb_kernel_io *io) {
  cb_eng *e = io->engine;
  io_to_state(e, io, io->ip);
  cb_frame *F = &e->frames[e->depth - 1];
  int32_t ti = e->tpl ? cb_tpl_of(e->tpl, F->block) : -1;
  if (ti >= 0 && e->p->tpl_kernels &&
      !__atomic_load_n(&e->p->tpl_kernels[F->block], __ATOMIC_ACQUIRE)) {
    /* the running kernel has code for the loop, and its compile made no
     * native iterations for it (an op the kernels leave before): the
     * kernel runs the loop from now on without asking */
    e->kstop[F->block] = 0;
    ti = -1;
  }
  if (ti >= 0 && e->budget_left != 0) {
    uint64_t done0 = eng_ops_done(e, e->budget_left);
    uint64_t budget = e->budget_left;
    eng_tpl_run(e, F, e->slots + F->slot_base, ti, &budget);
    e->budget_left = budget;
    /* the template's operations are not the kernel's (cb_tpl_run counts
     * those its loop's native code ran) */
    e->out->kernel_ops -= eng_ops_done(e, e->budget_left) - done0;
  }
  state_to_io(e, io);
  return CB_KCALL_DONE;
}

int eng_kernel_flush(cb_kernel_io *io) {
  cb_eng *e = io->engine;
  e->acc.nbatch = io->nbatch;
  cb_eng_next_batch(e);
  io->batch = (uint8_t *)e->acc.batch;
  io->nbatch = e->acc.nbatch;
  io->cap = e->acc.cap;
  io->stream_records = e->acc.stream_records;
  return CB_KCALL_DONE;
}

/* eng_run's CB_OP_RET for a frame whose caller is a kernel: the callee's
 * value into the call's slots, the frame popped; the caller's kernel
 * makes its block's machine-code accesses after the call. */
int eng_kernel_ret(cb_kernel_io *io) {
  cb_eng *e = io->engine;
  const cb_program *p = e->p;
  uint32_t ip = io->ip;
  io_to_state(e, io, ip + 1);
  cb_frame *F = &e->frames[e->depth - 1];
  cb_value rv[256];
  unsigned l = eng_ret_value(e, F, &p->ops[ip], rv);
  uint32_t call_op = F->call_op;
  e->ret_lanes = l;
  eng_pop_frame(e);
  F = &e->frames[e->depth - 1];
  if (call_op != CB_NONE && p->ops[call_op].dst != CB_NONE)
    for (unsigned i = 0; i < l && i < 256; i++)
      e->slots[F->slot_base + p->ops[call_op].dst + i] = rv[i];
  state_to_io(e, io);
  return CB_KCALL_DONE;
}

uint8_t *eng_kernel_page(void *engine, uint64_t addr) {
  cb_eng *e = engine;
  return cb_mem_ptr(&e->pr.mem, addr);
}
