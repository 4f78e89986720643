/* libc_exit.c: the C library model's exit handlers: atexit, __cxa_atexit
 * and on_exit register the program's functions, and exit() (or main's
 * return) runs them in the reverse order of their registration before
 * stdio is flushed and _dl_fini runs (glibc 2.36 stdlib/cxa_atexit.c,
 * on_exit.c, exit.c `__run_exit_handlers`). The handlers are the
 * program's code: the engine runs them where glibc calls them, 0x70 below
 * the rsp of `call exit`, and their accesses are the program's own.
 *
 * glibc keeps them in `initial` (struct exit_function_list, libc's .bss):
 * entry 0 is _dl_fini's, which libc's start-up registered; each
 * registration takes the next entry, exit takes them from the top, and a
 * handler registered while the handlers run is run next. The traffic of
 * the registrations and of exit's loop (the list's lock and words, the
 * pointer guard that demangles the function) is emitted as lackey shows
 * it (tools/probe/libtrace.py, docs/process-model.md 9.5); exit's replay
 * (proc_replay.c) is cut where its loop calls _dl_fini, the handlers
 * run in between. */
#include "libc_internal.h"
#include "libc_traffic.h"
#include "process.h"

/* libc.so.6's objects (Debian 12's glibc 2.36, libc6-dbg's symbols) */
#define L_INITIAL 0x1d52e0ull    /* initial */
#define L_EXIT_FUNCS 0x1d3820ull /* __exit_funcs: the list's head */
#define L_EXIT_LOCK 0x1d52c8ull  /* __exit_funcs_lock */
#define L_EXIT_DONE 0x1d5708ull  /* __exit_funcs_done */
#define L_CALLED 0x1d52c0ull     /* __new_exitfn_called */
#define T_PTR_GUARD 0x770u       /* tcbhead_t's pointer_guard */
/* struct exit_function_list: next, idx, then 32-byte entries (flavor,
 * fn, arg, dso_handle) */
#define E_IDX 0x8u
#define FNS(i) (L_INITIAL + 0x10 + 32 * (uint64_t)(i))
/* glibc calls a handler 0x70 below the rsp of `call exit`: exit's frame
 * and __run_exit_handlers' (measured; the same from main's return) */
#define HANDLER_DEPTH 0x70u

#define RD(a, n) cb_lt_acc(m, a, n, false)
#define WR(a, n) cb_lt_acc(m, a, n, true)
#define LIBC(o) (m->libc + (o))

/* __new_exitfn (stdlib/cxa_atexit.c) with its frame at B: the entry k
 * taken, the one below it checked */
static void new_exitfn(cb_lt *m, uint64_t B, unsigned k) {
  RD(LIBC(L_EXIT_DONE), 1);
  WR(B - 0x10, 8);
  WR(B - 0x18, 8);
  RD(LIBC(L_EXIT_FUNCS), 8);
  RD(LIBC(L_INITIAL + E_IDX), 8);
  RD(LIBC(FNS(k - 1)), 8);
  WR(LIBC(L_INITIAL + E_IDX), 8);
  WR(LIBC(FNS(k)), 8);
  RD(LIBC(L_CALLED), 8); /* ++__new_exitfn_called */
  RD(B - 0x18, 8);
  RD(B - 0x10, 8);
  RD(B - 0x8, 8);
}

/* __cxa_atexit (__internal_atexit) or on_exit called with the caller's
 * rsp C, filling entry k */
static void register_traffic(cb_proc *pr, bool on, unsigned k) {
  cb_lt lt, *m = &lt;
  uint64_t C = cb_libc_caller_sp(pr);
  if (!C || !cb_lt_init(m, pr))
    return;
  unsigned np = on ? 3 : 4;
  cb_lt_pushes(m, C, np);
  RD(LIBC(L_EXIT_LOCK), 4); /* lock: a read-modify-write */
  /* __new_exitfn's call: __internal_atexit's frame is 0x18 deeper than
   * its pushes, on_exit's is not */
  uint64_t B = on ? C - 0x20 : C - 0x40;
  WR(B - 8, 8);
  new_exitfn(m, B, k);
  WR(LIBC(FNS(k) + 0x10), 8); /* arg */
  if (!on)
    WR(LIBC(FNS(k) + 0x18), 8); /* dso_handle */
  WR(LIBC(FNS(k)), 8);          /* flavor */
  RD(m->tcb + T_PTR_GUARD, 8);  /* PTR_MANGLE */
  WR(LIBC(FNS(k) + 0x8), 8);    /* fn */
  RD(LIBC(L_EXIT_LOCK), 4);
  RD(LIBC(L_EXIT_LOCK), 4); /* unlock */
  cb_lt_pops(m, C, np, false);
}

cb_stop cb_libc_exit_register(cb_proc *pr, uint32_t fn, const cb_value *a,
                              cb_value *ret) {
  uint64_t f = a[0].u;
  bool on = fn == CB_LIBC_ON_EXIT;
  const char *name = on                         ? "on_exit"
                     : fn == CB_LIBC_CXA_ATEXIT ? "__cxa_atexit"
                                                : "atexit";
  if (cb_host_function_at(pr, f) == CB_NONE)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "%s with a handler (0x%llx) that is no function of "
                        "the program",
                        name, (unsigned long long)f);
  if (pr->n_exitfns >= CB_EXIT_FNS)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "%s: more than %u exit handlers (glibc's next block "
                        "of them, a calloc, is not modelled)",
                        name, CB_EXIT_FNS);
  struct cb_exitfn *x = &pr->exitfns[pr->n_exitfns++];
  x->fn = f;
  x->arg = fn == CB_LIBC_ATEXIT ? 0 : a[1].u;
  x->on = on;
  pr->exitfn_called++;
  register_traffic(pr, on, pr->n_exitfns);
  ret[0].u = 0;
  return CB_GO;
}

/* __run_exit_handlers' loop taking entry j: the lock, the list's head on
 * the first pass and after a handler registered another, the entry's
 * words, the ef_free mark of a __cxa_atexit entry, the pointer guard,
 * the unlock. The call's push is the callee's frame's. */
static void loop_traffic(cb_lt *m, unsigned j, bool first, bool changed,
                         bool on) {
  RD(LIBC(L_EXIT_LOCK), 4);
  if (!first)
    RD(LIBC(L_CALLED), 8);
  if (first || changed)
    RD(LIBC(L_EXIT_FUNCS), 8);
  RD(LIBC(L_INITIAL + E_IDX), 8);
  RD(LIBC(L_CALLED), 8);
  WR(LIBC(L_INITIAL + E_IDX), 8);
  RD(LIBC(FNS(j)), 8);
  RD(LIBC(FNS(j) + 0x8), 8);
  RD(LIBC(FNS(j) + 0x10), 8);
  if (!on)
    WR(LIBC(FNS(j)), 8);
  RD(m->tcb + T_PTR_GUARD, 8);
  RD(LIBC(L_EXIT_LOCK), 4);
  RD(LIBC(L_EXIT_LOCK), 4);
}

/* Where exit's replay reaches the first pass of __run_exit_handlers'
 * loop (the lock before _dl_fini's entry is read: *h) and where it calls
 * _dl_fini (its push: *q); false when the records do not show it. */
static bool replay_loop(const cb_proc *pr, const cb_access *r, size_t n,
                        size_t *h, size_t *q) {
  uint64_t libc = pr->libc_base;
  if (!libc)
    return false;
  for (size_t i = 5; i < n; i++) {
    if (r[i].is_write || r[i].addr != libc + FNS(0))
      continue;
    if (r[i - 5].addr != libc + L_EXIT_LOCK ||
        r[i - 4].addr != libc + L_EXIT_FUNCS)
      return false;
    for (size_t k = i + 1; k < n; k++)
      if (r[k].is_write && cb_process_on_stack(r[k].addr)) {
        *h = i - 5;
        *q = k;
        return true;
      }
    return false;
  }
  return false;
}

cb_stop cb_libc_exit(cb_proc *pr, uint64_t rsp, bool from_call, int status) {
  /* what the program's inline putc_unlocked left in the buffers */
  if (!cb_stdio_pull(pr))
    return CB_FAIL;
  if (!pr->n_exitfns) {
    cb_proc_exit_replay(pr, rsp, from_call);
    return CB_EXIT;
  }
  const cb_program *p = pr->p;
  uint32_t keep = pr->cur_site;
  if (p->process && p->process->exit_site != CB_NONE)
    pr->cur_site = p->process->exit_site;
  uint32_t site = pr->cur_site;
  size_t n, h = 0, q = 0, skip = from_call ? 1 : 0;
  int64_t shift = 0;
  const cb_access *r = cb_proc_exit_recs(pr, rsp, &n, &shift);
  bool cut = r && replay_loop(pr, r, n, &h, &q) && h >= skip;
  /* exit's prologue up to its loop */
  if (cut)
    cb_proc_replay_emit(pr, r, skip, h, shift);
  cb_lt lt;
  bool traffic = cb_lt_init(&lt, pr);
  bool first = true, changed = false;
  while (pr->n_exitfns) {
    struct cb_exitfn x = pr->exitfns[--pr->n_exitfns];
    uint64_t called = pr->exitfn_called;
    if (traffic)
      loop_traffic(&lt, pr->n_exitfns + 1, first, changed, x.on);
    first = false;
    cb_value args[2], ret[4] = {{0}};
    args[0].u = x.on ? (uint64_t)(uint32_t)status : x.arg;
    args[1].u = x.on ? x.arg : (uint64_t)(uint32_t)status;
    cb_stop st = cb_host_call_at(pr, cb_host_function_at(pr, x.fn),
                                 rsp - HANDLER_DEPTH, site, args, 2, ret);
    pr->cur_site = site;
    if (st != CB_GO)
      return st; /* a failure, or exit() called by the handler */
    changed = pr->exitfn_called != called;
  }
  /* _dl_fini's entry, then the rest of exit as the replay has it, for
   * the stdio state the handlers left */
  if (cut) {
    r = cb_proc_exit_recs(pr, rsp, &n, &shift);
    if (r && replay_loop(pr, r, n, &h, &q)) {
      if (traffic)
        loop_traffic(&lt, 0, false, changed, false);
      pr->process_exit_due = false;
      pr->process_exit_done = true;
      cb_proc_replay_emit(pr, r, q, n, shift);
    }
  }
  cb_proc_exit_replay(pr, rsp, from_call); /* when not cut: all of it */
  pr->cur_site = keep;
  return CB_EXIT;
}
