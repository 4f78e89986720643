/* engine_kernel.h: the engine's side of the native kernels (kernel.h):
 * when a function is hot enough to ask the frontend for its kernel, and
 * the calls a kernel hands back to the engine. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_ENGINE_KERNEL_H
#define CBANA_ANALYSIS_ENGINE_KERNEL_H

#include "engine_internal.h"

/* Sets up the kernels' tables for a run (e->kentry, kheat, kstop,
 * kflags); leaves e->kernels NULL when there are none. */
void eng_kernel_setup(cb_eng *e);
/* Frame F's function has no kernel yet: counts its block's ops towards
 * asking for one, and returns the kernel when it is there at once (the
 * eager compile), else NULL. */
cb_kernel_fn eng_kernel_cold(cb_eng *e, const cb_frame *F);
static inline cb_kernel_fn eng_kernel_warm(cb_eng *e, const cb_frame *F) {
  uint64_t *h = &e->kheat[F->func];
  uint32_t n = e->p->blocks[F->block].n_ops;
  if (*h > n) {
    *h -= n;
    return NULL;
  }
  return *h ? eng_kernel_cold(e, F) : NULL;
}
/* Frame F (the top frame) is at *ip, the start of its block after the
 * phis, in the interpreter's loop (eng_run): runs the loop template
 * when the block is one entered from outside, then the function's
 * native kernel when it has code for the block, which goes on as far as
 * it can and leaves *ip, the frame's block and prev, *budget, the batch
 * and the counters as the interpreter would have; the op at *ip is then
 * the interpreter's. A function without a kernel yet is asked for once
 * hot (eng_kernel_warm). The kernel's calls may move the frames and the
 * slots. True when a call it ran ended the run (e->kernel_stop). */
bool eng_kernel_enter(cb_eng *e, uint32_t *ip, uint64_t *budget);
/* cb_tpl_run (template.h) of template ti at frame F's block, when its
 * loop's native iterations are compiled (else nothing: the kernel or the
 * interpreter runs the loop), and what it ran counted: a header whose
 * template runs few iterations an entry on average is left to the
 * kernels from then on (e->kstop), which run a short loop faster than
 * the template's setup. Returns the iterations. */
uint64_t eng_tpl_run(cb_eng *e, cb_frame *F, cb_value *S, int32_t ti,
                     uint64_t *budget);
/* cb_kernel_io.call and ret */
int eng_kernel_call(cb_kernel_io *io);
int eng_kernel_ret(cb_kernel_io *io);
int eng_kernel_flush(cb_kernel_io *io);
int eng_kernel_tpl(cb_kernel_io *io);
/* cb_kernel_io.page */
uint8_t *eng_kernel_page(void *engine, uint64_t addr);

#endif
