/* One cache level: its geometry, its sets, its policy state, its
 * counters and (with classification) its fully associative LRU shadow.
 * Internal to cachemodel; the hierarchy owns the levels. */
#ifndef CBANA_CACHEMODEL_LEVEL_H
#define CBANA_CACHEMODEL_LEVEL_H

#include "cbana/cache.h"
#include "policy.h"
#include "shadow.h"
#include "wideset.h"

/* The host's cache line (x86-64, AArch64): the unit of false sharing
 * between threads that split a block by set (parallel.c). */
#define CB_HOST_LINE 64

typedef struct cb_level {
  /* Read on every access, kept together. */
  uint64_t last_line; /* line of the latest reference if still cached */
  uint64_t set_mask;  /* sets - 1 (sets are a power of two) */
  uint64_t *tags;     /* sets * assoc line numbers, set-major */
  uint32_t line_shift;
  uint32_t assoc;
  cb_policy policy;
  bool write_allocate;
  cb_shadow *shadow; /* NULL without classification */
  cb_wideset *wide;  /* sets of more than WIDE_ASSOC ways, else NULL */
  uint64_t n_lines;  /* capacity in lines, for the shadow's verdict */
  /* Counters; reads and read misses are derived. */
  uint64_t accesses, writes, misses, write_misses;
  uint64_t miss_class[CB_MISS_CLASSES];
  /* Policy state. */
  uint64_t *plru_bits; /* per set plru_words words */
  uint32_t plru_words;
  uint32_t log2_assoc;
  uint64_t rng;
  cb_level_config cfg;
} cb_level;

/* Sets up a level for a checked configuration; false if memory runs out. */
bool cb_level_init(cb_level *lv, const cb_level_config *cfg, cb_shadow *shadow);
void cb_level_free(cb_level *lv);
/* Empty sets, zero counters, the seed again. */
void cb_level_reset(cb_level *lv);

/* One line reference: true on a hit. A miss fills the line unless it is a
 * write to a no-write-allocate level. */
static inline __attribute__((always_inline)) bool
cb_level_ref(cb_level *lv, uint64_t line, bool is_write) {
  uint64_t set_index = line & lv->set_mask;
  uint64_t *set = lv->tags + set_index * lv->assoc;
  bool fill = !is_write || lv->write_allocate;
  if (lv->wide)
    return cb_wideset_ref(lv->wide, lv, set_index, line, fill);
  switch (lv->policy) {
  case CB_POLICY_LRU:
    /* The common geometries get their own copy with the loop bound a
     * constant, which the compiler unrolls. */
    if (lv->assoc == 8)
      return lru_touch(set, 8, line, fill);
    if (lv->assoc == 16)
      return lru_touch(set, 16, line, fill);
    return lru_touch(set, lv->assoc, line, fill);
  case CB_POLICY_FIFO:
    return fifo_touch(set, lv->assoc, line, fill);
  case CB_POLICY_MRU:
    return mru_touch(set, lv->assoc, line, fill);
  case CB_POLICY_PLRU:
    return plru_touch(set, lv->plru_bits + set_index * lv->plru_words,
                      lv->assoc, lv->log2_assoc, line, fill);
  case CB_POLICY_RANDOM:
    return random_touch(set, &lv->rng, lv->assoc, line, fill);
  }
  return false;
}

#endif
