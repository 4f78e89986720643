/* engine.c: the exact interpreter of a Program for one input (see
 * engine.h): its entry point, cb_engine_run, which sets up the process
 * (process/proc.h), runs main and tears the run down. The interpreter
 * loop is in engine_interp.c, frames and calls in engine_frames.c, the
 * checks and passes before a run in engine_check.c, the initial stack in
 * engine_stack.c. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine_frames.h"
#include "engine_internal.h"
#include "engine_scalar.h"
#include "template.h"

/* ---- defaults ---- */

void cb_engine_options_default(cb_engine_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->budget = CB_ENGINE_DEFAULT_BUDGET;
  opt->stack_limit = CB_ENGINE_DEFAULT_STACK_LIMIT;
  opt->mode = CB_ENGINE_FAST;
}

static void eng_destroy(cb_eng *e) {
  cb_proc_free(&e->pr);
  free(e->nphis);
  free(e->rmw);
  free(e->mach_mid);
  free(e->mach_at);
  free(e->kstop);
  free(e->kflags);
  free(e->kentry);
  free(e->kheat);
  free(e->ktpl);
  cb_tpl_free(e->tpl);
  free(e->fo_off);
  free(e->frame_size);
  free(e->fn_dyn_alloca);
  free(e->fn_by_addr);
  free(e->slots);
  free(e->frames);
  free(e->phi_tmp);
}

static const char *signal_name(int sig, char *buf, size_t n) {
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  case SIGHUP:
    return "SIGHUP";
  default:
    snprintf(buf, n, "signal %d", sig);
    return buf;
  }
}

uint64_t eng_budget_refill(cb_eng *e, const char *fn) {
  const unsigned long long done = eng_ops_done(e, 0);
  const int sig = e->opt.interrupt ? atomic_load_explicit(e->opt.interrupt,
                                                          memory_order_relaxed)
                                   : 0;
  if (sig) {
    char buf[32];
    cb_eng_fail(e, CB_RUN_STOPPED, CB_NONE,
                "interrupted by %s after %llu operations in %s",
                signal_name(sig, buf, sizeof buf), done, fn);
    return 0;
  }
  if (e->opt.deadline > 0) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    if ((double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec >= e->opt.deadline) {
      cb_eng_fail(e, CB_RUN_STOPPED, CB_NONE,
                  "stopped after %llu operations in %s: the time limit "
                  "(%g s) ran out",
                  done, fn, e->opt.timeout_s);
      return 0;
    }
  }
  if (e->opt.progress.fn) {
    const cb_run_outcome *o = e->out;
    e->opt.progress.fn(e->opt.progress.ctx, done,
                       o->loads + o->stores + o->lib_reads + o->lib_writes);
  }
  if (e->budget_rest == 0) {
    cb_eng_fail(e, CB_RUN_BUDGET, CB_NONE,
                "stopped after %llu operations (the budget) in %s: the "
                "input does not finish in time",
                (unsigned long long)e->opt.budget, fn);
    return 0;
  }
  uint64_t g = e->budget_rest < CB_ENGINE_CHECK_OPS ? e->budget_rest
                                                    : CB_ENGINE_CHECK_OPS;
  e->budget_rest -= g;
  return g;
}

int cb_engine_run(const cb_program *p, const cb_run_input *in,
                  const cb_engine_options *opt_in, const cb_access_sink *sink,
                  cb_run_outcome *out) {
  memset(out, 0, sizeof *out);
  cb_eng *e = calloc(1, sizeof *e);
  if (!e) {
    out->status = CB_RUN_ERROR;
    snprintf(out->message, sizeof out->message, "out of memory");
    return -1;
  }
  cb_engine_options_default(&e->opt);
  if (opt_in) {
    e->opt = *opt_in;
    cb_engine_options def;
    cb_engine_options_default(&def);
    if (!e->opt.budget)
      e->opt.budget = def.budget;
    if (!e->opt.stack_limit)
      e->opt.stack_limit = def.stack_limit;
  }
  /* glibc's thresholds: the zero fields take the values measured on the
   * Intel hosts of docs/process-model.md section 4 (engine.h) */
  cb_glibc_thresholds *g = &e->opt.glibc;
  if (!g->stosb)
    g->stosb = 2048;
  if (!g->movsb)
    g->movsb = 4096;
  if (!g->movsb_stop)
    g->movsb_stop = 3ull << 20;
  if (!g->nt)
    g->nt = 3ull << 20;
  e->p = p;
  e->out = out;
  e->acc.sink = sink;
  /* Per branch point, how often each side was taken: two counters each,
   * far cheaper than keeping the outcome sequence. */
  if (p->n_branches)
    out->branch_counts = calloc(2 * (size_t)p->n_branches, sizeof(uint64_t));
  /* the budget in allowances of CB_ENGINE_CHECK_OPS (eng_budget_refill) */
  e->budget_left =
      e->opt.budget < CB_ENGINE_CHECK_OPS ? e->opt.budget : CB_ENGINE_CHECK_OPS;
  e->budget_rest = e->opt.budget - e->budget_left;
  e->mach_made_at = CB_NONE;
  {
    uint64_t hb, mb;
    cb_engine_layout(p, &hb, &mb);
    if (!e->opt.heap_base)
      e->opt.heap_base = hb;
    if (!e->opt.mmap_base)
      e->opt.mmap_base = mb;
  }
  /* the process: memory, the heap, the C library's state */
  cb_proc_init(&e->pr, p, &e->opt, out, &e->acc, &e->ks, in);

  int rc = -1;
  if (p->main_function == CB_NONE || p->main_function >= p->n_functions) {
    cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "the program has no main");
    goto done;
  }
  {
    char vbuf[300];
    const char *bad = eng_validate(p, vbuf, sizeof vbuf);
    if (bad) {
      cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "malformed Program: %s", bad);
      goto done;
    }
  }
  eng_precompute(e);
  cb_engine_got_slots(p, e->pr.got);
  cb_dl_setup(&e->pr, p);
  /* libc where the scope maps it: layout.c's guess without the kept
   * executable leaves out libm, which cbana's link line always loads
   * before libc (docs/process-model.md 3.3), and libc's data is read by
   * start-up as well as by the library's traffic */
  if (p->dl && e->pr.dl_ldso)
    for (uint32_t i = 1; i < p->dl->n_objs && i < CB_DL_MAX_OBJS; i++)
      if (!strcmp(p->dl->objs[i].soname, "libc.so.6") && e->pr.dl_obj[i])
        e->pr.libc_base = e->pr.dl_obj[i];
  cb_proc_setup_image(&e->pr);
  e->main_cfa = e->opt.stack_top
                    ? e->opt.stack_top
                    : cb_engine_default_stack_top(in->argc, in->argv,
                                                  e->opt.cwd, e->opt.n_aux);
  uint64_t argv_at = eng_setup_stack(e, in);
  cb_libc_init(&e->pr);
  /* ld.so's and libc's start-up, up to `call main` (its push included) */
  e->pr.skip_main_push = cb_proc_startup(&e->pr);

  /* main(argc, argv) */
  cb_value args[2];
  args[0].u = (uint64_t)(uint32_t)in->argc;
  args[1].u = argv_at;
  uint32_t mf = p->main_function;
  if (!eng_grow_slots(e, 1024) ||
      !(e->frames = calloc(256, sizeof *e->frames))) {
    cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "out of memory");
    goto done;
  }
  e->capframes = 256;
  cb_stop st = eng_push_frame(e, mf, e->main_cfa, CB_NONE, CB_NONE);
  if (st == CB_GO) {
    const cb_value *argp[2] = {&args[0], &args[1]};
    eng_set_params(e, mf, argp, NULL, 2);
    cb_value ret[4] = {{0}};
    st = eng_run(e, 0, ret);
    if (st == CB_RETURNED) {
      /* the process's exit status: exit()'s (libc.c) */
      e->pr.exit_code = (int)(ret[0].u & 0xff);
      /* exit(main's value): atexit handlers, stdio, _dl_fini */
      st = cb_libc_exit(&e->pr, e->main_cfa, false, (int)(uint32_t)ret[0].u);
    }
  }
  if (st == CB_EXIT && out->status == CB_RUN_OK) {
    cb_files_at_exit(&e->pr);
    out->exit_code = e->pr.exit_code;
    rc = 0;
  }
done:
  sig_flush(e);
  out->ops = eng_ops_done(e, e->budget_left);
  cb_eng_flush(e);
  cb_proc_outcome(&e->pr, out);
  if (out->status != CB_RUN_OK)
    rc = -1;
  eng_destroy(e);
  free(e);
  return rc;
}

void cb_run_outcome_free(cb_run_outcome *out) {
  if (!out)
    return;
  free(out->out);
  free(out->err);
  free(out->branch_counts);
  for (unsigned i = 0; i < out->n_files; i++)
    free(out->files[i].path);
  free(out->files);
  out->out = out->err = NULL;
  out->branch_counts = NULL;
  out->files = NULL;
  out->n_files = 0;
}
