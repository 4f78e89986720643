/* split.h: the time split. One input's access stream simulated by two
 * threads at once, each with its own hierarchies, so that a long run
 * uses both cores of a two-core machine where one simulation thread
 * was the whole wall time.
 *
 * The stream is cut into epochs of a fixed number of accesses. One thread
 * holds the truth: it runs the stream in order from the true state. The
 * other runs the next epoch from a guess of the state at its start (its
 * own state, from where it last held the truth, or the truth's when its
 * own is no good), snapshotting its state and counters at checkpoints
 * (the first item boundaries past 64 Ki, 256 Ki, 1 Mi, ... accesses into
 * the epoch). When the truth reaches the epoch, it compares its state
 * with each checkpoint's as it passes it; at the first that is equal,
 * both threads are in the same state at the same point of the same
 * stream, so the guessing thread counts from there exactly as the truth
 * would: the truth passes to it, and the thread that held it goes on to
 * guess the epoch after. What a guess counted before its checkpoint is
 * subtracted at the end; a guess never met is thrown away whole. So the
 * counters are those of one run in order, to the last one
 * (tests/e2e/time_split.py compares the reports with one thread's), and
 * the simulation's wall time nearly halves where it was the whole run:
 * the states of PolyBench LARGE's kernels meet 0.2 to 0.8 M accesses
 * into epochs of 256 M (doitgen: 51 M, and it stops guessing;
 * bench/results/fast_notes.md).
 *
 * Only for hierarchies whose state a snapshot holds whole
 * (cb_hierarchy_snapshots) and without collection. Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_SPLIT_H
#define CBANA_ANALYSIS_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/cache.h"
#include "cbana/engine.h"
#include "cbana/stream.h"

typedef struct cb_split cb_split;

typedef struct cb_split_stats {
  uint64_t epochs;    /* epochs the stream was cut into */
  uint64_t handovers; /* times the truth passed to a guess */
  uint64_t abandoned; /* guesses the truth never met, thrown away */
  uint64_t rerun;     /* accesses run twice: guesses before their match */
  double idle_s;      /* the two threads' waits, wall clock */
} cb_split_stats;

/* Starts the two threads. h: the n hierarchies the results are read
 * from, which the first thread runs (the second runs hierarchies of its
 * own, built from cfg[i] with n_sites); tap: called on the producer's
 * thread for every batch and block before it is queued (the stream's
 * hash); epoch: accesses per epoch (0: the default, 256 Mi). NULL when
 * it cannot start, or the hierarchies' state is not all in a snapshot
 * (cb_hierarchy_snapshots): run without the split then. */
cb_split *cb_split_start(cb_hierarchy *const *h,
                         const cb_cache_config *const *cfg, unsigned n,
                         uint32_t n_sites, const cb_access_sink *tap,
                         uint64_t epoch);

/* The sink the engine feeds (ctx: the split). */
void cb_split_push(void *split, const cb_access *batch, size_t n);
void cb_split_push_affine(void *split, const cb_affine_block *b);
cb_access *cb_split_area(void *split, size_t *cap);

/* Waits until the stream has been run, leaves the stream's counters in
 * the hierarchies given to cb_split_start, frees. Returns the CPU time
 * of both threads, in seconds; fills st when not NULL, and own (n of
 * them) with the second thread's memo figures (cb_affine_stats: those
 * past the counters, which the hierarchies given hold for the first). */
double cb_split_finish(cb_split *s, cb_split_stats *st, cb_affine_stats *own);

#endif
