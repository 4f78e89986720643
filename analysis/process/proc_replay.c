/* proc_replay.c: the process's start-up and exit traffic around main
 * (engine.h, cb_process_replay; process.c makes it), replayed into the
 * run's access batch. */
#include "libc_internal.h"
#include "process.h"

static void emit_recs(cb_proc *pr, const cb_access *r, size_t n,
                      int64_t shift) {
  for (size_t i = 0; i < n; i++) {
    uint64_t a = r[i].addr;
    if (shift && cb_process_on_stack(a))
      a += (uint64_t)shift;
    cb_proc_emit(pr, a, r[i].size, r[i].site, r[i].is_write);
    if (r[i].is_write)
      pr->out->lib_writes++;
    else
      pr->out->lib_reads++;
  }
}

bool cb_proc_startup(cb_proc *pr) {
  const cb_process_replay *rp = pr->opt->process;
  /* a stack placed by hand is not the one the probe ran on */
  if (!rp || !rp->startup || pr->opt->stack_top)
    return false;
  emit_recs(pr, rp->startup, rp->n_startup, 0);
  pr->process_exit_due = true;
  return true;
}

/* The stdio state exit runs in (enum cb_process_exit_mode). */
static unsigned exit_mode(const cb_proc *pr) {
  unsigned mode = 0;
  if (pr->stdout_buf)
    mode |= pr->stdout_flushed
                ? CB_PROCESS_STDOUT_USED | CB_PROCESS_STDOUT_FLUSHED
                : CB_PROCESS_STDOUT_USED;
  if (pr->stdin_buf)
    mode |= CB_PROCESS_STDIN_USED;
  return mode;
}

const cb_access *cb_proc_exit_recs(cb_proc *pr, uint64_t rsp, size_t *n,
                                   int64_t *shift) {
  const cb_process_replay *rp = pr->opt->process;
  *n = 0;
  if (!pr->process_exit_due || !rp || !rp->exit)
    return NULL;
  uint64_t cfa = 0;
  const cb_access *r = rp->exit(rp->ctx, exit_mode(pr), n, &cfa);
  if (!r || !*n) {
    *n = 0;
    return NULL;
  }
  *shift = (int64_t)(rsp - cfa);
  return r;
}

void cb_proc_replay_emit(cb_proc *pr, const cb_access *r, size_t lo, size_t hi,
                         int64_t shift) {
  if (lo < hi)
    emit_recs(pr, r + lo, hi - lo, shift);
}

void cb_proc_exit_replay(cb_proc *pr, uint64_t rsp, bool from_call) {
  size_t n;
  int64_t shift = 0;
  const cb_access *r = cb_proc_exit_recs(pr, rsp, &n, &shift);
  pr->process_exit_due = false;
  if (!r)
    return;
  pr->process_exit_done = true;
  /* from exit(), the call's push is the caller's own (engine_frames.c) */
  cb_proc_replay_emit(pr, r, from_call ? 1 : 0, n, shift);
}
