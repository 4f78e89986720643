/* process.h: the process's start-up and exit traffic for one input
 * (program.h, cb_process_info): the frontend's two probes run under
 * `valgrind --tool=lackey --trace-mem=yes` with the input's argv and a
 * working directory of the same length (the initial stack is then the
 * program's, docs/process-model.md section 2), their traces cut at main's
 * first instruction and at main's return, kept in cbana's cache
 * directory, and mapped onto the program's addresses. The engine replays
 * them (engine.h, cb_process_replay). Internal to analysis/. */
#ifndef CBANA_ANALYSIS_PROCESS_H
#define CBANA_ANALYSIS_PROCESS_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/engine.h"
#include "cbana/program.h"

typedef struct cb_process_state {
  const cb_program *p;
  const char *cache_dir; /* where the traces are kept (analysis.h) */
  cb_process_replay replay;
  cb_access *startup;
  pthread_mutex_t lock; /* the exit traces, loaded on demand */
  pthread_cond_t made;  /* an exit trace's making ended */
  cb_access *exit[CB_PROCESS_EXIT_MODES];
  size_t n_exit[CB_PROCESS_EXIT_MODES];
  uint64_t exit_cfa[CB_PROCESS_EXIT_MODES];
  /* 0 not asked for, 1 being made (unlocked), 2 made or failed */
  uint8_t exit_state[CB_PROCESS_EXIT_MODES];
  /* the exit trace of the likely mode, made beside the start-up's */
  pthread_t ahead;
  bool ahead_running;
  char why[256]; /* why not, when replay.startup is NULL */
} cb_process_state;

/* Prepares the replay for one input (argv[0] as the program is started,
 * cwd NULL: this process's), its traces kept in cache_dir/process. False,
 * with st->why, when start-up and exit cannot be modelled for it (no
 * cache_dir among others); st must be released by cb_process_release
 * either way. */
bool cb_process_prepare(cb_process_state *st, const cb_program *p,
                        const char *cache_dir, int argc,
                        const char *const *argv, const char *cwd);
void cb_process_release(cb_process_state *st);
/* An address of valgrind's client stack (the exit trace moves those). */
bool cb_process_on_stack(uint64_t a);

#endif
