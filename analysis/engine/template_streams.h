/* template_streams.h: the memory side of a loop template's address
 * streams (template_streams.c): the first iteration whose access would
 * fault. The part of cb_tpl_run (template_run.c) that checks the
 * engine's memory rather than its values. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_TEMPLATE_STREAMS_H
#define CBANA_ANALYSIS_TEMPLATE_STREAMS_H

#include <stdint.h>

#include "mem.h"

/* The first iteration t < k whose access of size bytes at base + t *
 * stride touches an unmapped byte (the interpreter's fault), else k. */
uint64_t cb_tpl_first_bad(cb_mem *mem, uint64_t base, int64_t stride,
                          unsigned size, uint64_t k);

#endif
