/* The native run of one input (driver_native.h). */
#include "driver_native.h"

#include "libc_internal.h"
#include "native_run.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Native runs going, in this process. */
static atomic_uint native_going;
/* Added to a simulation thread's nice value while one is (a weight of
 * 110 against 1024 under Linux's CFS: the native run gets nine tenths
 * of a core beside two such threads and the engine). */
#define GIVE_WAY_NICE 10

bool drv_native_going(void) {
  return atomic_load_explicit(&native_going, memory_order_relaxed) != 0;
}

void drv_native_give_way(drv_give_way *g) {
  if (g->state == DRV_GW_DONE)
    return;
  bool going = drv_native_going();
  if (going == (g->state == DRV_GW_GIVING))
    return;
  id_t tid = (id_t)syscall(SYS_gettid);
  if (going) {
    errno = 0;
    g->nice = getpriority(PRIO_PROCESS, tid);
    int to = g->nice + GIVE_WAY_NICE > 19 ? 19 : g->nice + GIVE_WAY_NICE;
    g->state = errno == 0 && setpriority(PRIO_PROCESS, tid, to) == 0
                   ? DRV_GW_GIVING
                   : DRV_GW_DONE;
  } else {
    /* back, where the thread may lower its nice value (CAP_SYS_NICE or
     * RLIMIT_NICE); else it gives way to the end of its input */
    g->state = setpriority(PRIO_PROCESS, tid, g->nice) == 0 ? DRV_GW_NORMAL
                                                            : DRV_GW_DONE;
  }
}

/* The native run, once; with ld.so's log when trace (a run without it
 * is made again with it if the log is asked for later: ld.so's logging
 * costs about 0.8 ms a run, which Table V's 1000 inputs would pay). */
static void native_once(drv_native *nc, bool trace) {
  if (nc->tried && (nc->traced || !trace))
    return;
  if (!nc->p->run_path) {
    nc->tried = nc->traced = true;
    return;
  }
  size_t len = 0;
  int status = 0;
  atomic_fetch_add(&native_going, 1);
  char *text = cb_native_stdout(
      nc->p->run_path, nc->in->argv, nc->in->stdin_data, nc->in->stdin_len,
      nc->timeout_s, (size_t)1 << 28, &len, &status,
      trace ? &nc->bindings : NULL, true, &nc->cancel);
  atomic_fetch_sub(&native_going, 1);
  if (nc->tried) {
    free(text); /* the engine holds the first run's text */
  } else {
    nc->text = text;
    nc->len = len;
    nc->exit_status = status;
  }
  nc->tried = true;
  nc->traced = trace;
}

typedef struct ahead_arg {
  drv_native *nc;
  bool trace;
} ahead_arg;

static void *ahead_main(void *arg) {
  ahead_arg a = *(ahead_arg *)arg;
  free(arg);
  native_once(a.nc, a.trace);
  atomic_store(&a.nc->ahead_done, true);
  return NULL;
}

/* The run started ahead, finished (its results are nc's from here on). */
static void join_ahead(drv_native *nc) {
  if (nc->started) {
    pthread_join(nc->ahead, NULL);
    nc->started = false;
  }
}

static void native_start(void *ctx, bool trace) {
  drv_native *nc = ctx;
  if (nc->started || (nc->tried && (nc->traced || !trace)) || !nc->p->run_path)
    return;
  atomic_store(&nc->ahead_done, false);
  ahead_arg *a = malloc(sizeof *a);
  if (!a)
    return; /* then it runs when asked for */
  *a = (ahead_arg){nc, trace};
  nc->started = pthread_create(&nc->ahead, NULL, ahead_main, a) == 0;
  if (!nc->started)
    free(a);
}

static const char *native_text(void *ctx, bool trace, size_t *len) {
  drv_native *nc = ctx;
  join_ahead(nc);
  native_once(nc, trace);
  *len = nc->len;
  return nc->text;
}

static bool native_exit_status(void *ctx, bool trace, int *status) {
  size_t len;
  drv_native *nc = ctx;
  if (!native_text(ctx, trace, &len))
    return false;
  *status = nc->exit_status;
  return true;
}

static const char *native_bindings(void *ctx) {
  drv_native *nc = ctx;
  join_ahead(nc);
  native_once(nc, true);
  return nc->bindings;
}

static const char *native_bindings_soon(void *ctx, bool *pending) {
  drv_native *nc = ctx;
  native_start(ctx, true); /* if none was, with ld.so's log */
  *pending = nc->started && !atomic_load(&nc->ahead_done);
  return *pending ? NULL : native_bindings(ctx);
}

void drv_native_init(drv_native *nc, const cb_program *p,
                     const cb_run_input *in, double timeout_s,
                     cb_engine_options *eo) {
  *nc = (drv_native){.p = p, .in = in, .timeout_s = timeout_s};
  atomic_init(&nc->cancel, false);
  atomic_init(&nc->ahead_done, false);
  /* cbana never runs a program that may create, change or remove a file
   * (its native run would): its runs go unsliced when they need what the
   * native output would have given */
  if (cb_libc_program_uses_files(p))
    return;
  eo->native_stdout.fn = native_text;
  eo->native_stdout.exit_status = native_exit_status;
  eo->native_stdout.bindings = native_bindings;
  eo->native_stdout.bindings_soon = native_bindings_soon;
  eo->native_stdout.start = native_start;
  eo->native_stdout.ctx = nc;
}

void drv_native_free(drv_native *nc) {
  atomic_store(&nc->cancel, true);
  join_ahead(nc);
  free(nc->text);
  free(nc->bindings);
}
