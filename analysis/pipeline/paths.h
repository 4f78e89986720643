/* paths.h: execution paths of the runs (paths.c). Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_PATHS_H
#define CBANA_ANALYSIS_PATHS_H

#include "cbana/analysis.h"

/* cb_branch_seen bits of every run, from which of its sites ran. */
void drv_derive_branches(const cb_program *p, cb_results *out);
/* Path classes numbered by first appearance in input order. */
void drv_assign_path_classes(cb_results *r);

#endif
