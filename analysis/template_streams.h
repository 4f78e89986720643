/* template_streams.h: the memory side of a loop template's address
 * streams (template_streams.c): the first iteration whose access would
 * fault, and slicing's shadow (stale bytes, slice.h) over what the
 * iterations load and store. The part of cb_tpl_run (template_run.c)
 * that touches the engine's memory rather than its values. Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_TEMPLATE_STREAMS_H
#define CBANA_ANALYSIS_TEMPLATE_STREAMS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine_internal.h"
#include "template.h"
#include "template_eval.h"

/* The first iteration t < k whose access of size bytes at base + t *
 * stride touches an unmapped byte (the interpreter's fault), else k. */
uint64_t cb_tpl_first_bad(cb_mem *mem, uint64_t base, int64_t stride,
                          unsigned size, uint64_t k);

/* With stale bytes about, may template t, which computes its values, run
 * iterations 0 .. k-1 of its streams ss? */
bool cb_tpl_streams_exact(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                          const sstate *ss, uint64_t k);

/* Fetches the marked streams' entries cb_tpl_streams_shadow will look up
 * for t's stores (a hint: a wrong guess costs a fetch). */
void cb_tpl_shadow_prefetch(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                            const sstate *ss, uint64_t k);

/* After iterations 0 .. k-1: each store's bytes marked as holding its
 * value, or as maybe garbage (a sliced store). */
void cb_tpl_streams_shadow(cb_eng *e, const cb_tpl_set *ts, const cb_tpl *t,
                           const sstate *ss, uint64_t k);

#endif
