/* pipe.h: a bounded queue of access batches between the engine's thread
 * and a consumer thread (the cache simulation), so that stream generation
 * and simulation overlap on two cores. The queue holds a few batches, so
 * memory stays flat whatever the stream's length. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_PIPE_H
#define CBANA_ANALYSIS_PIPE_H

#include <stdbool.h>
#include <stddef.h>

#include "cbana/engine.h"

typedef struct cb_pipe cb_pipe;

/* Starts the consumer thread, which calls fn(ctx, batch, n) for every
 * batch in order. NULL when it cannot (run without a pipe then). */
cb_pipe *cb_pipe_start(void (*fn)(void *ctx, const cb_access *b, size_t n),
                       void *ctx);

/* The sink the engine feeds (ctx: the pipe). */
void cb_pipe_push(void *pipe, const cb_access *batch, size_t n);

/* Waits until every batch has been consumed, stops the thread, frees. */
void cb_pipe_finish(cb_pipe *p);

#endif
