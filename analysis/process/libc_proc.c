/* libc_proc.c: the C library model's process calls outside stdio and
 * the heap: sleep, getpid, difftime, getrusage, isatty, signal, uname and
 * getuid, geteuid, getgid, getegid (the host's: this machine's kernel and
 * name, cbana's user, as the real run's). cbana never
 * waits: sleep returns at once with nothing left to sleep, having moved the
 * virtual clock (cb_proc_clock_ns) on by its seconds, and getrusage reports the
 * clock's CPU time, as clock() does.
 *
 * Traffic: a lackey trace of each after its first call (Debian 12's
 * glibc 2.36, offsets from libc's base as libc_rand.c's), relative to
 * the caller's rsp C before its call: sleep (posix/sleep.c) saves errno,
 * builds its timespec and calls __nanosleep -> __clock_nanosleep, which
 * tests __libc_single_threaded before the system call; getrusage is the
 * system call alone (the kernel fills the struct: no access of the
 * program's); isatty is tcgetattr's ioctl, which fails: the model's
 * descriptors are never terminals (stdin is the input file or /dev/null,
 * stdout and stderr pipes or files, docs/process-model.md 3.4); signal
 * (signal/signal.c, __bsd_signal) builds a struct sigaction and calls
 * __libc_sigaction, which copies it into the kernel's layout and back.
 * No signal is ever delivered in the model: the handlers are only kept
 * for signal's return value. */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "libc_files.h"

#define LIBC_GOT_ERRNO 0x1d2de0ull  /* errno's TLS offset (.got + 0x80) */
#define SINGLE_THREADED 0x1db5d8ull /* __libc_single_threaded_internal */
#define TLS_ERRNO 0x80ull           /* errno, below the thread pointer */

#define R(a, n) cb_libc_acc(pr, a, n, false)
#define W(a, n) cb_libc_acc(pr, a, n, true)

static void sleep_traffic(cb_proc *pr) {
  if (!pr->libc_base)
    return;
  uint64_t L = pr->libc_base, C = cb_proc_top(pr)->sp;
  uint64_t fs28 = cb_libc_canary(pr), err = fs28 - 0x28 - TLS_ERRNO;
  W(C - 0x10, 8);
  W(C - 0x18, 8);
  R(L + LIBC_GOT_ERRNO, 8);
  R(fs28, 8);
  W(C - 0x28, 8); /* the canary's copy */
  R(err, 4);      /* save_errno */
  W(C - 0x40, 8); /* ts.tv_sec, tv_nsec */
  W(C - 0x38, 8);
  W(C - 0x48, 8); /* call __nanosleep */
  W(C - 0x58, 8); /* call __clock_nanosleep */
  R(L + SINGLE_THREADED, 1);
  R(C - 0x58, 8);
  R(C - 0x48, 8);
  W(err, 4); /* errno restored */
  R(C - 0x28, 8);
  R(fs28, 8);
  R(C - 0x18, 8);
  R(C - 0x10, 8);
}

/* isatty(fd) after its first call: isatty's frame and canary, tcgetattr's,
 * and errno's store (ENOTTY, or EBADF for a descriptor not open) */
static void isatty_call(cb_proc *pr, int err) {
  uint64_t L = pr->libc_base, C = cb_proc_top(pr)->sp;
  uint64_t fs28 = cb_libc_canary(pr);
  if (L) {
    R(fs28, 8);
    W(C - 0x18, 8);
    W(C - 0x68, 8); /* call __tcgetattr */
    R(fs28, 8);
    W(C - 0x78, 8);
    R(L + LIBC_GOT_ERRNO, 8);
  }
  cb_libc_set_errno(pr, err); /* the store */
  if (!L)
    return;
  R(C - 0x78, 8);
  R(fs28, 8);
  R(C - 0x68, 8);
  R(C - 0x18, 8);
  R(fs28, 8);
}

/* signal(sig, handler) for 1 <= sig <= 64, from a lackey trace (the same
 * for every such signal): the stack offset below C, or the thread
 * pointer's canary word (TP), or libc's _sigintr (the SA_RESTART choice,
 * its first word for these signals) */
#define SIGINTR 0x1d4de0ull
enum { P_STACK, P_TP, P_SIGINTR };
static const struct {
  uint8_t base;
  uint16_t off;
  uint8_t len, w;
} sig_rows[] = {
    {P_TP, 0x28, 8, 0},      {P_STACK, 0x18, 8, 1},   {P_STACK, 0x150, 8, 1},
    {P_STACK, 0x148, 8, 1},  {P_SIGINTR, 0, 8, 0},    {P_STACK, 0xc8, 4, 1},
    {P_STACK, 0x158, 8, 1},  {P_TP, 0x28, 8, 0},      {P_STACK, 0x168, 8, 1},
    {P_STACK, 0x150, 8, 0},  {P_STACK, 0x148, 16, 0}, {P_STACK, 0x138, 16, 0},
    {P_STACK, 0x128, 16, 0}, {P_STACK, 0x118, 16, 0}, {P_STACK, 0x108, 16, 0},
    {P_STACK, 0x2a0, 8, 1},  {P_STACK, 0xf8, 16, 0},  {P_STACK, 0xe8, 16, 0},
    {P_STACK, 0x288, 16, 1}, {P_STACK, 0xc8, 4, 0},   {P_STACK, 0xd8, 16, 0},
    {P_STACK, 0x278, 16, 1}, {P_STACK, 0x268, 16, 1}, {P_STACK, 0x258, 16, 1},
    {P_STACK, 0x298, 8, 1},  {P_STACK, 0x290, 8, 1},  {P_STACK, 0x248, 16, 1},
    {P_STACK, 0x238, 16, 1}, {P_STACK, 0x228, 16, 1}, {P_STACK, 0x218, 16, 1},
    {P_STACK, 0x200, 8, 0},  {P_STACK, 0x1e8, 16, 0}, {P_STACK, 0x1d8, 16, 0},
    {P_STACK, 0x1c8, 16, 0}, {P_STACK, 0x1b8, 16, 0}, {P_STACK, 0xb0, 8, 1},
    {P_STACK, 0x1f8, 8, 0},  {P_STACK, 0xa8, 16, 1},  {P_STACK, 0x1a8, 16, 0},
    {P_STACK, 0x198, 16, 0}, {P_STACK, 0x98, 16, 1},  {P_STACK, 0x188, 16, 0},
    {P_STACK, 0x178, 16, 0}, {P_STACK, 0x28, 4, 1},   {P_STACK, 0x1f0, 8, 0},
    {P_STACK, 0x88, 16, 1},  {P_STACK, 0x78, 16, 1},  {P_STACK, 0x20, 8, 1},
    {P_STACK, 0x68, 16, 1},  {P_STACK, 0x58, 16, 1},  {P_STACK, 0x48, 16, 1},
    {P_STACK, 0x38, 16, 1},  {P_STACK, 0x168, 8, 0},  {P_TP, 0x28, 8, 0},
    {P_STACK, 0x158, 8, 0},  {P_STACK, 0xb0, 8, 0},   {P_STACK, 0x18, 8, 0},
    {P_TP, 0x28, 8, 0},
};

static void signal_traffic(cb_proc *pr) {
  if (!pr->libc_base)
    return;
  uint64_t L = pr->libc_base, C = cb_proc_top(pr)->sp;
  uint64_t tp = cb_libc_canary(pr) - 0x28;
  for (size_t i = 0; i < sizeof sig_rows / sizeof sig_rows[0]; i++) {
    uint64_t at = sig_rows[i].base == P_STACK ? C - sig_rows[i].off
                  : sig_rows[i].base == P_TP  ? tp + sig_rows[i].off
                                              : L + SIGINTR;
    cb_libc_acc(pr, at, sig_rows[i].len, sig_rows[i].w);
  }
}

/* struct rusage of x86-64 Linux: ru_utime and ru_stime (struct timeval),
 * then 14 longs (maxrss, ixrss, idrss, isrss, minflt, majflt, nswap,
 * inblock, oublock, msgsnd, msgrcv, nsignals, nvcsw, nivcsw). */
enum { RUSAGE_BYTES = 144 };

cb_stop cb_libc_proc_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          cb_value *ret) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_SLEEP:
    sleep_traffic(pr);
    pr->slept_ns += (uint64_t)(uint32_t)a[0].u * 1000000000u;
    ret[0].u = 0; /* no second left to sleep */
    return CB_GO;
  case CB_LIBC_GETPID:
    /* the system call alone (posix/getpid.c: no access but its ret); a
     * real run's number is the kernel's choice, the model's fixed */
    ret[0].u = CB_PROCESS_PID;
    return CB_GO;
  case CB_LIBC_DIFFTIME: {
    /* time/difftime.c on x86-64: both times loaded into x87 through one
     * stack slot below the return address, subtracted in extended
     * precision, rounded to double through the same slot */
    long double d = (long double)a[0].s - (long double)a[1].s;
    ret[0].d = (double)d;
    if (pr->libc_base) {
      uint64_t slot = cb_proc_top(pr)->sp - 0x18;
      for (int k = 0; k < 3; k++) {
        W(slot, 8);
        R(slot, 8);
      }
    }
    return CB_GO;
  }
  case CB_LIBC_GETRUSAGE: {
    int who = (int)(uint32_t)a[0].u;
    if (who != 0 && who != -1 && who != 1) { /* SELF, CHILDREN, THREAD */
      cb_libc_set_errno(pr, EINVAL);
      ret[0].u = (uint32_t)-1;
      return CB_GO;
    }
    /* the virtual clock's CPU time (clock()'s), all of it user time; no
     * child ever ran; the kernel's counters (memory, faults, switches)
     * are 0: the model keeps no such accounting */
    uint8_t ru[RUSAGE_BYTES];
    memset(ru, 0, sizeof ru);
    uint64_t us = who == -1 ? 0 : CB_CLOCK_CPU0_US + cb_host_cpu_ns(pr) / 1000;
    int64_t tv[2] = {(int64_t)(us / 1000000), (int64_t)(us % 1000000)};
    memcpy(ru, tv, sizeof tv);
    if (!cb_proc_write(pr, a[1].u, ru, sizeof ru))
      return CB_FAIL;
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_ISATTY: {
    int fd = (int)(uint32_t)a[0].u;
    isatty_call(pr, cb_fd_accmode(pr, fd) < 0 ? EBADF : ENOTTY);
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_SIGNAL: {
    int sig = (int)(uint32_t)a[0].u;
    cb_files *f = cb_files_get(pr);
    if (!f)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
    /* SIG_ERR for what __bsd_signal and sigaction refuse: numbers outside
     * 1..64, glibc's internal SIGCANCEL and SIGSETXID (32, 33), and
     * SIGKILL and SIGSTOP (the kernel's EINVAL); their traffic is not
     * modelled */
    if (sig < 1 || sig > 64 || sig == 32 || sig == 33 || sig == SIGKILL ||
        sig == SIGSTOP || a[1].u == (uint64_t)(intptr_t)SIG_ERR) {
      cb_libc_set_errno(pr, EINVAL);
      ret[0].u = (uint64_t)(intptr_t)SIG_ERR;
      return CB_GO;
    }
    signal_traffic(pr);
    ret[0].u = f->sig_handler[sig];
    f->sig_handler[sig] = a[1].u;
    return CB_GO;
  }
  case CB_LIBC_GETUID:
  case CB_LIBC_GETEUID:
  case CB_LIBC_GETGID:
  case CB_LIBC_GETEGID:
    /* the system call alone; the analysed process is cbana's user's, as
     * its real run is */
    ret[0].u = fn == CB_LIBC_GETUID    ? getuid()
               : fn == CB_LIBC_GETEUID ? geteuid()
               : fn == CB_LIBC_GETGID  ? getgid()
                                       : getegid();
    return CB_GO;
  case CB_LIBC_UNAME: {
    /* the system call alone (lackey: no access but the call's own): the
     * kernel fills struct utsname, this machine's, as the real run's */
    struct utsname u;
    if (uname(&u) != 0)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "uname: the host's uname failed");
    if (!cb_proc_write(pr, a[0].u, &u, sizeof u))
      return CB_FAIL;
    ret[0].u = 0;
    return CB_GO;
  }
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
