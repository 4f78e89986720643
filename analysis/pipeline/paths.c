/* paths.c: which path each run took: the outcome at each branch point
 * (from the engine's counts of each side; derived from the sites the run
 * executed for results without counts) and the path classes, runs with
 * the same path signature. */
#include <stdlib.h>
#include <string.h>

#include "cbana/cfg.h"
#include "paths.h"

/* Per site: the function and block of the operation that makes it. */
static void site_blocks(const cb_program *p, uint32_t *site_func,
                        uint32_t *site_block) {
  for (uint32_t s = 0; s < p->n_sites; s++)
    site_func[s] = site_block[s] = CB_NONE;
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &p->blocks[fn->first_block + b];
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &p->ops[bl->first_op + o];
        uint32_t site = CB_NONE;
        if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE)
          site = op->aux;
        else if (op->code == CB_OP_CALL && op->aux + 2 < p->n_extra)
          site = (uint32_t)p->extra[op->aux + 2];
        if (site < p->n_sites && site_func[site] == CB_NONE) {
          site_func[site] = f;
          site_block[site] = b;
        }
      }
    }
  }
}

/* Did the run execute this site (any access at the first level)? */
static bool site_ran(const cb_run_result *r, uint32_t s) {
  if (!r->n_caches || s >= r->caches[0].n_sites)
    return false;
  const cb_cache_result *c = &r->caches[0];
  return c->sites[(size_t)s * c->n_levels].accesses != 0;
}

/* cb_branch_seen bits of a run from the engine's counts: exact. */
static uint8_t seen_from_counts(const uint64_t *n) {
  uint8_t seen = 0;
  if (n[0] || n[1])
    seen |= CB_BRANCH_REACHED;
  seen |= n[0] ? CB_BRANCH_TRUE : CB_BRANCH_NOT_TRUE;
  seen |= n[1] ? CB_BRANCH_FALSE : CB_BRANCH_NOT_FALSE;
  return seen;
}

/* cb_branch_seen bits of every run: from the engine's counts when the run
 * has them (every run of cb_engine_run does), else (results made
 * otherwise) from which of its sites ran. A side
 * whose first block has the branch's block as its only predecessor is
 * taken when a site in a block it dominates ran; it was not taken when a
 * site in that first block itself did not run. */
void drv_derive_branches(const cb_program *p, cb_results *out) {
  if (!p->n_branches || !out->n_runs)
    return;
  uint32_t *site_func = malloc(sizeof(uint32_t) * (p->n_sites + 1));
  uint32_t *site_block = malloc(sizeof(uint32_t) * (p->n_sites + 1));
  cb_cfg_info *cfg = cb_cfg_analyze(p);
  for (unsigned i = 0; i < out->n_runs; i++) {
    cb_run_result *r = &out->runs[i];
    r->branches = calloc(p->n_branches, 1);
    for (uint32_t b = 0; r->branches && r->branch_counts && b < p->n_branches;
         b++) {
      uint64_t *c = &r->branch_counts[2 * (size_t)b];
      if (p->branches[b].sense < 0) {
        /* the frontend found the compiled branch inverted against the
           source (InstCombine's swapped successors, a rotated loop's exit
           test): report in the source's sense */
        uint64_t t = c[0];
        c[0] = c[1];
        c[1] = t;
      }
      r->branches[b] = seen_from_counts(c);
    }
  }
  if (!site_func || !site_block || !cfg)
    goto done;
  site_blocks(p, site_func, site_block);
  for (uint32_t b = 0; b < p->n_branches; b++) {
    const cb_branch *br = &p->branches[b];
    if (br->func >= p->n_functions || br->func >= cfg->n_funcs)
      continue;
    const cb_function *fn = &p->functions[br->func];
    const cb_func_cfg *fc = &cfg->funcs[br->func];
    if (br->block >= fn->n_blocks)
      continue;
    const cb_block *bl = &p->blocks[fn->first_block + br->block];
    if (bl->n_succ != 2)
      continue;
    uint32_t succ[2] = {p->succs[bl->first_succ], p->succs[bl->first_succ + 1]};
    bool own[2];
    /* A side is the branch's own when its first block is entered only
     * through it (other predecessors are back edges from inside). */
    for (int k = 0; k < 2; k++) {
      const cb_block *sb = &p->blocks[fn->first_block + succ[k]];
      own[k] = succ[0] != succ[1] && succ[k] != br->block;
      for (uint32_t q = 0; own[k] && q < sb->n_pred; q++) {
        uint32_t pred = p->preds[sb->first_pred + q];
        own[k] = pred == br->block || cb_cfg_dominates(fc, succ[k], pred);
      }
    }
    for (unsigned i = 0; i < out->n_runs; i++) {
      cb_run_result *r = &out->runs[i];
      if (!r->branches || r->branch_counts)
        continue;
      uint8_t seen = 0;
      bool first_site[2] = {false, false}, first_ran[2] = {false, false};
      for (uint32_t s = 0; s < p->n_sites; s++) {
        if (site_func[s] != br->func)
          continue;
        bool ran = site_ran(r, s);
        if (site_block[s] == br->block && ran)
          seen |= CB_BRANCH_REACHED;
        for (int k = 0; k < 2; k++) {
          if (!own[k])
            continue;
          if (site_block[s] == succ[k]) {
            first_site[k] = true;
            first_ran[k] |= ran;
          }
          if (ran && cb_cfg_dominates(fc, succ[k], site_block[s]))
            seen |= k == 0 ? CB_BRANCH_TRUE : CB_BRANCH_FALSE;
        }
      }
      for (int k = 0; k < 2; k++)
        if (first_site[k] && !first_ran[k])
          seen |= k == 0 ? CB_BRANCH_NOT_TRUE : CB_BRANCH_NOT_FALSE;
      if (seen & (CB_BRANCH_TRUE | CB_BRANCH_FALSE))
        seen |= CB_BRANCH_REACHED;
      /* Reached with one side excluded: the other side was taken. */
      if ((seen & CB_BRANCH_REACHED) && (seen & CB_BRANCH_NOT_TRUE))
        seen |= CB_BRANCH_FALSE;
      if ((seen & CB_BRANCH_REACHED) && (seen & CB_BRANCH_NOT_FALSE))
        seen |= CB_BRANCH_TRUE;
      if (br->sense < 0) /* in the source's sense, as the counts */
        seen = (uint8_t)((seen & CB_BRANCH_REACHED) |
                         (seen & CB_BRANCH_TRUE ? CB_BRANCH_FALSE : 0) |
                         (seen & CB_BRANCH_FALSE ? CB_BRANCH_TRUE : 0) |
                         (seen & CB_BRANCH_NOT_TRUE ? CB_BRANCH_NOT_FALSE : 0) |
                         (seen & CB_BRANCH_NOT_FALSE ? CB_BRANCH_NOT_TRUE : 0));
      r->branches[b] = seen;
    }
  }
done:
  if (cfg)
    cb_cfg_free(cfg);
  free(site_func);
  free(site_block);
}

/* Path classes numbered by first appearance in input order. */
void drv_assign_path_classes(cb_results *r) {
  unsigned n = 0;
  for (unsigned i = 0; i < r->n_runs; i++) {
    cb_run_result *run = &r->runs[i];
    run->path_class = 0;
    for (unsigned j = 0; j < i && !run->path_class; j++)
      if (r->runs[j].path_hash == run->path_hash && r->runs[j].path_class)
        run->path_class = r->runs[j].path_class;
    if (!run->path_class)
      run->path_class = ++n;
  }
  r->n_path_classes = n;
}
