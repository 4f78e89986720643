/* engine_process.c: the process's start-up and exit traffic around main
 * (engine.h, cb_process_replay; analysis/process/process.c makes it). */
#include "engine_internal.h"
#include "process.h"

static void emit_recs(cb_eng *e, const cb_access *r, size_t n, int64_t shift) {
  for (size_t i = 0; i < n; i++) {
    uint64_t a = r[i].addr;
    if (shift && cb_process_on_stack(a))
      a += (uint64_t)shift;
    cb_eng_emit(e, a, r[i].size, r[i].site, r[i].is_write);
    if (r[i].is_write)
      e->out->lib_writes++;
    else
      e->out->lib_reads++;
  }
}

bool eng_process_startup(cb_eng *e) {
  const cb_process_replay *pr = e->opt.process;
  /* a stack placed by hand is not the one the probe ran on */
  if (!pr || !pr->startup || e->opt.stack_top)
    return false;
  emit_recs(e, pr->startup, pr->n_startup, 0);
  e->process_exit_due = true;
  return true;
}

/* The stdio state exit runs in (enum cb_process_exit_mode). */
static unsigned exit_mode(const cb_eng *e) {
  unsigned mode = 0;
  if (e->stdout_buf)
    mode |= e->stdout_flushed
                ? CB_PROCESS_STDOUT_USED | CB_PROCESS_STDOUT_FLUSHED
                : CB_PROCESS_STDOUT_USED;
  if (e->stdin_buf)
    mode |= CB_PROCESS_STDIN_USED;
  return mode;
}

const cb_access *eng_process_exit_recs(cb_eng *e, uint64_t rsp, size_t *n,
                                       int64_t *shift) {
  const cb_process_replay *pr = e->opt.process;
  *n = 0;
  if (!e->process_exit_due || !pr || !pr->exit)
    return NULL;
  uint64_t cfa = 0;
  const cb_access *r = pr->exit(pr->ctx, exit_mode(e), n, &cfa);
  if (!r || !*n) {
    *n = 0;
    return NULL;
  }
  *shift = (int64_t)(rsp - cfa);
  return r;
}

void eng_process_emit(cb_eng *e, const cb_access *r, size_t lo, size_t hi,
                      int64_t shift) {
  if (lo < hi)
    emit_recs(e, r + lo, hi - lo, shift);
}

void eng_process_exit(cb_eng *e, uint64_t rsp, bool from_call) {
  size_t n;
  int64_t shift = 0;
  const cb_access *r = eng_process_exit_recs(e, rsp, &n, &shift);
  e->process_exit_due = false;
  if (!r)
    return;
  e->process_exit_done = true;
  /* from exit(), the call's push is the caller's own (engine_frames.c) */
  eng_process_emit(e, r, from_call ? 1 : 0, n, shift);
}
