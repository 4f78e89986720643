/* collector.h: the per-access collector beside each hierarchy (what the
 * report's views need beyond per-site counters: misses per set, working
 * sets, strides, misses per variable and set) and the fan-out sink that
 * sends the engine's batches to every hierarchy (collector.c). Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_COLLECTOR_H
#define CBANA_ANALYSIS_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "alloc_track.h"
#include "cbana/cache.h"
#include "cbana/program.h"
#include "cbana/results.h"
#include "driver_memo.h"
#include "lineset.h"

/* CPU time of the calling thread, in seconds: a system call (no vDSO
 * path for CPU clocks), 1.3 us on these VMs. Per input only. */
static inline double drv_thread_cpu_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The clock that times each batch and block the simulation takes when
 * it runs on the engine's thread (the --stats split between stream
 * generation and simulation; piped, the consumer thread's CPU time is
 * read once instead, pipe.h): monotonic,
 * read in the vDSO (26 ns here). The thread's CPU clock, read twice per
 * block, was 38% of gemm LARGE's run (3 M blocks and batches). The
 * simulation never waits inside a call, so its wall time there is its
 * CPU time but for preemption. */
static inline double drv_sim_clock_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

enum { WS_VAR, WS_TYPE, WS_FIELD };

/* Per program site, what an access of it reads and writes: the site's
 * ids, its stride state, its last line and the heap block it found last,
 * together in 96 bytes (a site's fields in six arrays and the
 * cb_site put each access on eight). */
typedef struct site_state {
  uint64_t last_addr;   /* of its latest access */
  int64_t last_delta;   /* the latest step */
  int64_t stride;       /* the step seen twice in a row, latest */
  uint64_t stride_runs; /* how often in the current run of it */
  uint64_t last_line;   /* the line of its latest access + 1 */
  uint32_t wsk;         /* its (var, type, field) triple, or CB_NONE */
  uint32_t var_set;     /* its variable when counted per set, else CB_NONE */
  uint8_t prog;         /* a program access, not a call's */
  cb_alloc_hint hint;   /* alloc_track.h */
  /* First-level accesses to allocation row pend_row not yet added to
   * it (collector.c, collect_views). */
  uint32_t pend_row;
  uint64_t pend;
} site_state;

/* Beside one hierarchy: what the views need beyond per-site counters
 * (misses per set, working sets, misses per variable and set). */
typedef struct collector {
  cb_hierarchy *h;
  const cb_program *p;
  bool on; /* classification on: collect */
  unsigned nl;
  uint32_t shift[CB_RESULT_LEVELS];
  uint64_t mask[CB_RESULT_LEVELS];
  uint32_t sets[CB_RESULT_LEVELS];
  uint64_t *set_misses[CB_RESULT_LEVELS], *set_conflicts[CB_RESULT_LEVELS];
  /* The working sets: the lines of each distinct (var, type, field)
   * triple of the sites (ws_ids[k]: CB_NONE or the id), (triple, line)
   * pairs in ws; each variable's, type's and field's is the union of its
   * triples', made at the end (drv_collect_extras). One set per triple
   * rather than one per variable, type and field: one lookup where a
   * site starts a new line, not three. */
  lineset ws;
  uint32_t (*ws_ids)[3];
  uint32_t *site_wsk;    /* per site (and the one past), the triple */
  site_state *site;      /* per site */
  uint64_t *var_set;     /* n_vars * sets[0] * 2: misses, conflicts */
  cb_alloc_track *alloc; /* heap blocks by allocation site */
} collector;

typedef struct fanout {
  collector *c;
  unsigned n;
  stream_hash sh;
  bool hash; /* memoizing: hash the stream on its way */
  bool timed;
  double sim_s;
} fanout;

bool drv_collector_init(collector *c, cb_hierarchy *h, const cb_program *p);
/* Between inputs: counters back to zero, the hierarchy too. */
void drv_collector_reset(collector *c);
void drv_collector_free(collector *c);
/* The sinks: every hierarchy (fanout), or only the stream hash. Both
 * take allocation events as marker batches (alloc_track.h). */
void drv_fanout_batch(void *ctx, const cb_access *batch, size_t n);
void drv_hash_only_batch(void *ctx, const cb_access *batch, size_t n);
/* Their affine callbacks (stream.h): the hierarchies without collection
 * run a block as a block (cb_hierarchy_run_affine, warping); a collector
 * takes the block's accesses one by one but skips the iterations whose
 * effect on every view it can count at once (collector.c, collect_block:
 * all-hit iterations on unchanged lines, cb_hierarchy_affine_skip), so
 * the per-access views and the allocation-site attribution stay exact. */
void drv_fanout_affine(void *ctx, const cb_affine_block *b);
void drv_hash_only_affine(void *ctx, const cb_affine_block *b);
/* The fanout's stream hash (or access count) alone, for a consumer that
 * runs the hierarchies itself (the time split, split.h): called on the
 * producer's thread, in stream order. */
void drv_fanout_tap_batch(void *ctx, const cb_access *batch, size_t n);
void drv_fanout_tap_affine(void *ctx, const cb_affine_block *b);
/* The working sets' sizes in lines, per variable, type and field, added
 * to out[WS_VAR], out[WS_TYPE], out[WS_FIELD] (the caller's, n_vars,
 * n_types and n_fields long, zeroed). False if memory runs out. */
bool drv_collector_ws_lines(const collector *c, uint64_t *out[3]);
/* Copies what the collector gathered into a cache result. */
bool drv_collect_extras(const collector *col, cb_cache_result *c);

#endif
