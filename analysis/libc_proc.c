/* libc_proc.c: the C library model's process calls outside stdio and
 * the heap: sleep and getrusage. cbana never waits and its clock stands
 * still (clock() is 1000 microseconds of CPU time, time() 1700000000
 * whenever they are called, libc.c), so sleep returns at once with
 * nothing left to sleep, and getrusage reports that same CPU time.
 *
 * Traffic: a lackey trace of each after its first call (Debian 12's
 * glibc 2.36, offsets from libc's base as libc_rand.c's), relative to
 * the caller's rsp C before its call: sleep (posix/sleep.c) saves errno,
 * builds its timespec and calls __nanosleep -> __clock_nanosleep, which
 * tests __libc_single_threaded before the system call; getrusage is the
 * system call alone (the kernel fills the struct: no access of the
 * program's). */
#include <errno.h>
#include <string.h>

#include "libc_internal.h"

#define LIBC_GOT_ERRNO 0x1d2de0ull  /* errno's TLS offset (.got + 0x80) */
#define SINGLE_THREADED 0x1db5d8ull /* __libc_single_threaded_internal */
#define TLS_ERRNO 0x80ull           /* errno, below the thread pointer */

#define R(a, n) cb_libc_acc(e, a, n, false)
#define W(a, n) cb_libc_acc(e, a, n, true)

static void sleep_traffic(cb_eng *e) {
  if (!e->libc_base)
    return;
  uint64_t L = e->libc_base, C = e->frames[e->depth - 1].sp;
  uint64_t fs28 = cb_libc_canary(e), err = fs28 - 0x28 - TLS_ERRNO;
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

/* struct rusage of x86-64 Linux: ru_utime and ru_stime (struct timeval),
 * then 14 longs (maxrss, ixrss, idrss, isrss, minflt, majflt, nswap,
 * inblock, oublock, msgsnd, msgrcv, nsignals, nvcsw, nivcsw). */
enum { RUSAGE_BYTES = 144 };

cb_stop cb_libc_proc_call(cb_eng *e, uint32_t fn, const cb_value *a,
                          cb_value *ret) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_SLEEP:
    sleep_traffic(e);
    ret[0].u = 0; /* no second left to sleep */
    return CB_GO;
  case CB_LIBC_GETRUSAGE: {
    int who = (int)(uint32_t)a[0].u;
    if (who != 0 && who != -1 && who != 1) { /* SELF, CHILDREN, THREAD */
      cb_libc_set_errno(e, EINVAL);
      ret[0].u = (uint32_t)-1;
      return CB_GO;
    }
    /* the fixed clock's CPU time, all of it user time; no child ever
     * ran; the kernel's counters (memory, faults, switches) are 0: the
     * model keeps no such accounting */
    uint8_t ru[RUSAGE_BYTES];
    memset(ru, 0, sizeof ru);
    int64_t usec = who == -1 ? 0 : 1000;
    memcpy(ru + 8, &usec, 8);
    if (!cb_eng_write(e, a[1].u, ru, sizeof ru))
      return CB_FAIL;
    ret[0].u = 0;
    return CB_GO;
  }
  default:
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "library function #%u is not modelled", fn);
  }
}
