/* fastloop.h: the fast engine's inner loop (fastloop.c). From op *ip of
 * frame F (slots S), it runs the ops whose pre-decoded kind (fastops.h)
 * it handles, and the branches between blocks without machine-code
 * accesses, until an op needs the interpreter's main loop (any other
 * kind, a fault or page-crossing access, a call, a return, a branch to a
 * block with machine-code accesses) or the budget is spent. *ip and
 * *budget are then where eng_run() goes on: the op at *ip has not started.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_FASTLOOP_H
#define CBANA_ANALYSIS_FASTLOOP_H

#include "engine_internal.h"

void cb_fast_loop(cb_eng *e, cb_frame *F, cb_value *S, uint32_t *ip,
                  uint64_t *budget);

#endif
