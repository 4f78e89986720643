/* libc_setjmp.c: the C library model's non-local jumps: _setjmp, setjmp
 * and __sigsetjmp save the caller's place in its jmp_buf, longjmp,
 * _longjmp, siglongjmp and __longjmp_chk go back to it (glibc 2.36
 * sysdeps/x86_64/setjmp.S, __longjmp.S, ____longjmp_chk.S,
 * setjmp/sigjmp.c, setjmp/longjmp.c, nptl/pthread_cleanup_upto.c).
 *
 * The place is the engine's: the jmp_buf holds, in the words glibc
 * stores, the caller's frame depth (rbx's word), its CFA (rbp's, mangled),
 * the setjmp call op (r12's), the function (r13's), the rsp after the call
 * (rsp's, mangled) and the return address the engine pushes (pc's,
 * mangled), so a copy of the buffer (gawk's shallow binding stack) jumps
 * as the original does. longjmp checks that the frame is still the one
 * that called setjmp, drops the frames above it (their allocas die, as in
 * the process), restores its stack pointer and goes on after the setjmp
 * call, whose value is longjmp's (0 becomes 1). What it cannot follow
 * (a frame that returned, a buffer no setjmp filled, a jump out of a
 * function the C library called, a saved signal mask) stops the input.
 *
 * Traffic, as the machine code of Debian 12's libc.so.6 makes it
 * (objdump -d; the pointer guard is read by each `xor %fs:0x30`): */
#include "libc_internal.h"
#include "libc_traffic.h"

#define TP_IN_TCB 0x740u  /* the thread pointer (%fs) in the TLS page */
#define FS_SELF 0x10u     /* tcbhead_t.self */
#define FS_GUARD 0x30u    /* tcbhead_t.pointer_guard */
#define FS_CLEANUP 0x2f8u /* struct pthread.cleanup */
/* struct pthread.stackblock and stackblock_size, which
 * __pthread_cleanup_upto reads to compare stack addresses */
#define FS_STACKBLOCK 0x690u
#define FS_STACKBLOCK_SIZE 0x698u

/* struct __jmp_buf_tag: __jmpbuf[8] (rbx, rbp, r12-r15, rsp, pc), then
 * __mask_was_saved (an int), then __saved_mask */
enum { JB_RBX, JB_RBP, JB_R12, JB_R13, JB_R14, JB_R15, JB_RSP, JB_PC };
#define JB_MASK_SAVED 0x40u
#define JB_SIZE 0x44u

#define RD(a, n) cb_lt_acc(m, a, n, false)
#define WR(a, n) cb_lt_acc(m, a, n, true)

/* PTR_MANGLE and PTR_DEMANGLE (sysdeps/unix/sysv/linux/x86_64/sysdep.h):
 * xor with the guard, rotate left by 17 */
static uint64_t guard_of(cb_proc *pr, uint64_t tp) {
  uint64_t g = 0;
  if (tp && cb_mem_mapped(&pr->mem, tp + FS_GUARD))
    cb_mem_read(&pr->mem, tp + FS_GUARD, &g, 8, NULL);
  return g;
}
static uint64_t mangle(uint64_t v, uint64_t g) {
  v ^= g;
  return v << 17 | v >> 47;
}
static uint64_t demangle(uint64_t v, uint64_t g) {
  return (v >> 17 | v << 47) ^ g;
}

static bool is_setjmp(uint64_t fn) {
  return fn == CB_LIBC_USETJMP || fn == CB_LIBC_SETJMP ||
         fn == CB_LIBC_SIGSETJMP;
}

cb_stop cb_libc_setjmp(cb_proc *pr, uint32_t fn, const cb_value *a, uint32_t n,
                       cb_value *ret) {
  uint64_t env = a[0].u;
  int savemask = fn == CB_LIBC_SETJMP      ? 1
                 : fn == CB_LIBC_SIGSETJMP ? (n > 1 ? (int)a[1].u : 0)
                                           : 0;
  if (savemask)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "%s saving the signal mask (sigprocmask) is not "
                        "modelled",
                        fn == CB_LIBC_SETJMP ? "setjmp" : "sigsetjmp");
  const cb_frame *F = cb_proc_top(pr);
  cb_lt lt, *m = &lt;
  bool traffic = cb_lt_init(m, pr);
  uint64_t tp = traffic ? m->tcb + TP_IN_TCB : 0;
  uint64_t g = guard_of(pr, tp);
  /* the caller's rsp before its `call`: the return address is below it */
  uint64_t C = F->sp;
  uint64_t w[8] = {pr->stack->depth,
                   mangle(F->cfa, g),
                   pr->cur_op,
                   F->func,
                   0,
                   0,
                   mangle(C, g),
                   mangle(CB_KERNEL_RET_ADDR, g)};
  uint32_t saved = 0;
  if (!cb_proc_write(pr, env, w, sizeof w) ||
      !cb_proc_write(pr, env + JB_MASK_SAVED, &saved, 4))
    return CB_FAIL;
  if (traffic) {
    /* _setjmp: xor %esi,%esi and a jump into __sigsetjmp */
    WR(env + 8 * JB_RBX, 8);
    RD(tp + FS_GUARD, 8);
    WR(env + 8 * JB_RBP, 8);
    for (unsigned r = JB_R12; r <= JB_R15; r++)
      WR(env + 8 * r, 8);
    RD(tp + FS_GUARD, 8);
    WR(env + 8 * JB_RSP, 8);
    RD(C - 8, 8); /* the return address */
    RD(tp + FS_GUARD, 8);
    WR(env + 8 * JB_PC, 8);
    /* __sigjmp_save: push %rbx, the mask's flag, pop %rbx */
    WR(C - 16, 8);
    WR(env + JB_MASK_SAVED, 4);
    RD(C - 16, 8);
  }
  ret[0].u = 0;
  return CB_GO;
}

/* The block of function fn holding op index op, or CB_NONE. */
static uint32_t block_of(const cb_program *p, uint32_t fn, uint32_t op) {
  const cb_function *f = &p->functions[fn];
  for (uint32_t b = f->first_block; b < f->first_block + f->n_blocks; b++)
    if (op >= p->blocks[b].first_op &&
        op < p->blocks[b].first_op + p->blocks[b].n_ops)
      return b;
  return CB_NONE;
}

cb_stop cb_libc_longjmp(cb_proc *pr, uint32_t fn, const cb_value *a) {
  const cb_program *p = pr->p;
  uint64_t env = a[0].u;
  int val = (int)(uint32_t)a[1].u;
  const char *name = fn == CB_LIBC_LONGJMP_CHK  ? "__longjmp_chk"
                     : fn == CB_LIBC_ULONGJMP   ? "_longjmp"
                     : fn == CB_LIBC_SIGLONGJMP ? "siglongjmp"
                                                : "longjmp";
  uint64_t w[8];
  uint32_t saved;
  if (!cb_proc_read(pr, env, w, sizeof w) ||
      !cb_proc_read(pr, env + JB_MASK_SAVED, &saved, 4))
    return CB_FAIL;
  cb_lt lt, *m = &lt;
  bool traffic = cb_lt_init(m, pr);
  uint64_t tp = traffic ? m->tcb + TP_IN_TCB : 0;
  uint64_t g = guard_of(pr, tp);
  if (traffic) {
    uint64_t C = cb_proc_top(pr)->sp; /* the `call`'s rsp */
    /* push %rbp; push %rbx; sub $8,%rsp; call _longjmp_unwind, which
     * jumps to __pthread_cleanup_upto (no cleanup buffers: the list is
     * empty, and NULL is stored back) */
    WR(C - 16, 8);
    WR(C - 24, 8);
    WR(C - 40, 8);
    cb_lt_pushes(m, C - 32, 4);
    RD(tp + FS_SELF, 8);
    RD(tp + FS_STACKBLOCK_SIZE, 8);
    RD(tp + FS_STACKBLOCK, 8);
    RD(tp + FS_CLEANUP, 8);
    WR(tp + FS_CLEANUP, 8);
    cb_lt_pops(m, C - 32, 4, true);
    RD(env + JB_MASK_SAVED, 4);
    /* call __longjmp (____longjmp_chk: the same reads; the new rsp is
     * above the old one, so no sigaltstack) */
    WR(C - 40, 8);
    RD(env + 8 * JB_RSP, 8);
    RD(env + 8 * JB_RBP, 8);
    RD(env + 8 * JB_PC, 8);
    RD(tp + FS_GUARD, 8);
    RD(tp + FS_GUARD, 8);
    RD(tp + FS_GUARD, 8);
    RD(env + 8 * JB_RBX, 8);
    for (unsigned r = JB_R12; r <= JB_R15; r++)
      RD(env + 8 * r, 8);
  }
  uint64_t depth = w[JB_RBX], op = w[JB_R12], func = w[JB_R13];
  uint64_t cfa = demangle(w[JB_RBP], g), sp = demangle(w[JB_RSP], g);
  const cb_frame *T = depth >= 1 && depth <= pr->stack->depth
                          ? &pr->stack->frames[depth - 1]
                          : NULL;
  uint32_t blk = CB_NONE;
  const int64_t *x = NULL;
  if (T && func < p->n_functions && T->func == func && T->cfa == cfa &&
      !T->tail_done && op < p->n_ops && p->ops[op].code == CB_OP_CALL &&
      (blk = block_of(p, (uint32_t)func, (uint32_t)op)) != CB_NONE)
    x = &p->extra[p->ops[op].aux];
  if (!x || x[0] != CB_CALL_LIBC || !is_setjmp((uint64_t)x[1]) || sp > cfa ||
      sp < pr->stack->stack_lo || saved != 0)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "%s to a jmp_buf (0x%llx) whose setjmp's function has "
                        "returned, or that no setjmp filled: not modelled",
                        name, (unsigned long long)env);
  for (uint32_t d = (uint32_t)depth; d < pr->stack->depth; d++)
    if (pr->stack->frames[d].call_op == CB_NONE)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "%s out of %s, which the C library called (a "
                          "callback's frames are the library's): not modelled",
                          name, p->functions[pr->stack->frames[d].func].name);
  /* the frames above the setjmp's are dropped, with their slots */
  pr->stack->depth = (uint32_t)depth;
  cb_frame *F = &pr->stack->frames[depth - 1];
  pr->stack->nslots = F->slot_base + p->functions[func].n_slots;
  F->sp = sp;
  F->block = blk;
  F->ip = (uint32_t)op + 1;
  const cb_op *cop = &p->ops[op];
  if (cop->dst != CB_NONE)
    pr->stack->slots[F->slot_base + cop->dst].u = (uint32_t)(val ? val : 1);
  /* the machine code after the call runs again */
  if (p->blocks[blk].n_mach)
    cb_host_emit_mach_at(pr, &p->blocks[blk], F->cfa, F->ip);
  return CB_LONGJMP;
}
