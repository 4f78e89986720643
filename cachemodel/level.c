/* A cache level's storage and geometry. */
#include "level.h"

#include <stdlib.h>

static uint32_t log2_exact(uint64_t v) {
  uint32_t k = 0;
  while ((1ull << k) < v)
    k++;
  return k;
}

/* Storage aligned to host cache lines (CB_HOST_LINE), so that a set
 * never shares a host line with a set of another partition
 * (parallel.c). */
static void *host_line_alloc(size_t bytes) {
  size_t rounded = (bytes + CB_HOST_LINE - 1) / CB_HOST_LINE * CB_HOST_LINE;
  return aligned_alloc(CB_HOST_LINE, rounded ? rounded : CB_HOST_LINE);
}

bool cb_level_init(cb_level *lv, const cb_level_config *cfg,
                   cb_shadow *shadow) {
  memset(lv, 0, sizeof *lv);
  lv->cfg = *cfg;
  lv->n_lines = cfg->size / cfg->line;
  lv->assoc = cfg->assoc == CB_ASSOC_FULL ? (uint32_t)lv->n_lines : cfg->assoc;
  lv->set_mask = lv->n_lines / lv->assoc - 1;
  lv->line_shift = log2_exact(cfg->line);
  lv->log2_assoc = log2_exact(lv->assoc);
  lv->policy = cfg->policy;
  lv->write_allocate = cfg->write_allocate;
  lv->shadow = shadow;
  lv->tags = host_line_alloc(lv->n_lines * sizeof *lv->tags);
  if (lv->policy == CB_POLICY_PLRU) {
    /* Bits 1..assoc-1 of each set's tree. */
    lv->plru_words = (lv->assoc + 63) / 64;
    lv->plru_bits =
        host_line_alloc((lv->set_mask + 1) * lv->plru_words * sizeof(uint64_t));
  }
  if (!lv->tags || (lv->policy == CB_POLICY_PLRU && !lv->plru_bits)) {
    cb_level_free(lv);
    return false;
  }
  if (lv->assoc > WIDE_ASSOC) {
    lv->wide = malloc(sizeof *lv->wide);
    if (!lv->wide || !cb_wideset_init(lv->wide, lv->set_mask + 1, lv->assoc)) {
      free(lv->wide);
      lv->wide = NULL;
      cb_level_free(lv);
      return false;
    }
  }
  cb_level_reset(lv);
  return true;
}

void cb_level_free(cb_level *lv) {
  if (lv->wide) {
    cb_wideset_free(lv->wide);
    free(lv->wide);
    lv->wide = NULL;
  }
  free(lv->tags);
  free(lv->plru_bits);
  lv->tags = NULL;
  lv->plru_bits = NULL;
}

void cb_level_reset(cb_level *lv) {
  for (uint64_t i = 0; i < lv->n_lines; i++)
    lv->tags[i] = NO_LINE;
  if (lv->plru_bits)
    memset(lv->plru_bits, 0,
           (lv->set_mask + 1) * lv->plru_words * sizeof(uint64_t));
  if (lv->wide)
    cb_wideset_reset(lv->wide);
  lv->last_line = NO_LINE;
  lv->rng = lv->cfg.seed;
  lv->accesses = lv->writes = lv->misses = lv->write_misses = 0;
  memset(lv->miss_class, 0, sizeof lv->miss_class);
}
