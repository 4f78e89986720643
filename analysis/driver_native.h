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

/* While some native run is going, the simulation's threads (pipe.c,
 * split.c) give it their core. With no core to spare, the native run
 * that the analysis waits for at the end (a printf needs its text) got a
 * share beside the engine and two simulation threads, and then ran on
 * alone while the other core idled: correlation LARGE took 9.3 to 9.7 s,
 * 7.4 to 8.7 with the analysis reniced, its native run alone 7.75 s
 * (session 27). Called often by such a thread: while a native run is
 * going, its nice value is raised (Linux's nice is per thread); once none
 * is, it is set back where the thread may lower it (CAP_SYS_NICE or
 * RLIMIT_NICE), else kept to the thread's end, the input's. The engine's
 * thread keeps its own: it starts the next input's native run, which
 * would inherit it. */
typedef enum { DRV_GW_NORMAL, DRV_GW_GIVING, DRV_GW_DONE } drv_gw_state;
typedef struct drv_give_way {
  drv_gw_state state; /* DRV_GW_DONE: nothing more to change */
  int nice;           /* the thread's own, to go back to */
} drv_give_way;
void drv_native_give_way(drv_give_way *g);

/* Whether some native run of this process is going: the cores are all
 * busy then, and the time split guesses no epoch (split.c). */
bool drv_native_going(void);

#endif
