/* repeat.h: outer-loop iterations that repeat their stream, the fast
 * engine's loop-level memo (issue 7). A loop qualifies when slicing
 * (slice.h) shows that nothing an iteration needs (an address, a branch,
 * a bound) depends on which iteration it is but the loop's own exit test
 * on its induction variable, and nothing it stores differs between
 * iterations but values that may be garbage: heat-3d's and jacobi-2d's
 * time steps, whose arrays swap roles inside the body, not between
 * iterations. Every iteration then makes the same accesses, takes the
 * same branches and leaves memory's stale shadow as the one before did.
 *
 * At run time, on a back edge into such a loop's header, the engine
 * records one iteration (its stream as the sink received it, its runs of
 * branch outcomes, its counters) and, for every following iteration whose
 * exit test says continue, hands the recording to the sink again and adds
 * the counters, instead of interpreting the iteration; the interpreter
 * runs the iteration that leaves. The sink receives the stream the
 * interpreter would have made, access for access (the identity tests hold
 * it to that). Internal to analysis/. */
#ifndef CBANA_ANALYSIS_REPEAT_H
#define CBANA_ANALYSIS_REPEAT_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/program.h"
#include "fastops.h"

struct cb_eng;
struct cb_frame;
typedef struct cb_repeat cb_repeat;

/* The qualifying loops of p, given slicing's flags sl (with CB_SL_MAYBE);
 * NULL when there are none (or out of memory). The back edges into their
 * headers are marked in pe (cb_br_target.block CB_NONE), so that
 * cb_fast_loop leaves them to eng_run(), which calls cb_repeat_at_header. */
cb_repeat *cb_repeat_build(const cb_program *p, const uint8_t *sl,
                           cb_phi_edges *pe);
void cb_repeat_free(cb_repeat *r);

/* Whether the fast engine, slicing, finds such a loop in p (engine.c:
 * its precomputation alone, no run). */
bool cb_repeat_in_program(const cb_program *p);

/* Whether global block gb is a qualifying loop's header. */
bool cb_repeat_is_header(const cb_repeat *r, uint32_t gb);

/* Control has just entered header gb (its phis moved) of frame F, whose
 * slots are S, from block `from` (within the function): on a back edge,
 * starts recording the iteration that begins, or ends the one recorded
 * and replays the iterations after it (*budget: the ops they cost). */
void cb_repeat_at_header(struct cb_eng *e, struct cb_frame *F, cb_value *S,
                         uint32_t gb, uint32_t from, uint64_t *budget);

/* sig_flush's note, while an iteration is recorded: the run of branch
 * outcomes (e->sig_v, e->sig_n) is about to be mixed into the signature. */
void cb_repeat_note_run(struct cb_eng *e);

#endif
