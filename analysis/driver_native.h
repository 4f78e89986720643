/* driver_native.h: the native run of one input, as the driver hands it to
 * the engine (engine.h, native_stdout). A sliced run asks for the
 * program's own output when a printf prints a number it skipped
 * (native_run.h); the run is made once per input and shared by the
 * input's passes (the stream-hash pass and the simulation).
 *
 * Why ahead of need: the engine asks at the printf, usually the
 * program's last act, and would then wait for the whole native run (tc
 * at 10^8 accesses: 0.14 s of its 1.5). So the engine announces the need
 * when its run starts, if some template runs sliced (without one no
 * value is ever garbage) and some printf may print a skipped number; the
 * native run starts then, as a process beside the analysis, and one
 * nobody asked for in the end is killed.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_DRIVER_NATIVE_H
#define CBANA_ANALYSIS_DRIVER_NATIVE_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "cbana/engine.h"
#include "cbana/program.h"

typedef struct drv_native {
  const cb_program *p;
  const cb_run_input *in;
  double timeout_s;
  bool tried, traced;
  char *text;
  size_t len;
  int exit_status; /* the run's, when text is not NULL */
  char *bindings;  /* ld.so's log of the same run */
  pthread_t ahead; /* the run started ahead of need, while `started` */
  bool started;
  atomic_bool ahead_done; /* that run has ended (joining will not wait) */
  atomic_bool cancel;
} drv_native;

/* Sets nc up for input `in` and hooks it into eo->native_stdout. */
void drv_native_init(drv_native *nc, const cb_program *p,
                     const cb_run_input *in, double timeout_s,
                     cb_engine_options *eo);

/* Kills a run started ahead that is still going, frees the output. */
void drv_native_free(drv_native *nc);

#endif
