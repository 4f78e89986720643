/* pipe.h: a bounded queue of access batches between the engine's thread
 * and a consumer thread (the cache simulation), so that stream generation
 * and simulation overlap on two cores. The queue holds a few batches, so
 * memory stays flat whatever the stream's length. Affine blocks
 * (stream.h) travel in order with the batches: a slot holds a run of
 * items, each a batch of records or a block (its header and accesses
 * copied), so short blocks and the records between them share a slot
 * and one hand-over. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_PIPE_H
#define CBANA_ANALYSIS_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "cbana/engine.h"
#include "cbana/stream.h"

typedef struct cb_pipe cb_pipe;

/* An item of a queued stream, here and in the time split (split.c): a
 * batch of records, or an affine block with its accesses copied; the
 * header, then its records or accesses. */
typedef struct stream_item {
  uint32_t is_block;
  uint32_t n;      /* records, or the block's accesses */
  uint64_t n_iter; /* a block's iterations */
} stream_item;

/* The item's bytes, its header included, and its accesses. */
static inline size_t stream_item_bytes(const stream_item *it) {
  return sizeof *it +
         it->n * (it->is_block ? sizeof(cb_affine_access) : sizeof(cb_access));
}
static inline uint64_t stream_item_accesses(const stream_item *it) {
  return it->is_block ? it->n_iter * it->n : it->n;
}

/* Starts the consumer thread, which calls consumer->fn for every batch
 * and consumer->affine for every block, in the order they were pushed
 * (the sink is copied). A consumer without `affine` gets blocks expanded
 * into batches, and so does any consumer for a block of more accesses
 * than a slot holds (about 3000: no loop body has that many; its memo
 * hash is then the expansion's, a miss at worst). NULL when it cannot (run
 * without a pipe then). */
cb_pipe *cb_pipe_start(const cb_access_sink *consumer);

/* The sink the engine feeds (ctx: the pipe): fn, affine and area (the
 * engine's batch written in place in the ring). */
void cb_pipe_push(void *pipe, const cb_access *batch, size_t n);
void cb_pipe_push_affine(void *pipe, const cb_affine_block *b);
cb_access *cb_pipe_area(void *pipe, size_t *cap);

/* Waits until every batch has been consumed, stops the thread, frees;
 * returns the CPU time the consumer thread used, in seconds (two reads
 * of its CPU clock in all, where timing each call cost 26 ns a block:
 * doitgen LARGE makes 3.4 M of them). */
double cb_pipe_finish(cb_pipe *p);

#endif
