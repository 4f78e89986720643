/* Wide sets: the same policies as policy.h for levels whose sets have
 * more than WIDE_ASSOC ways (fully associative levels above all), where a
 * scan of the set on every reference would cost O(ways). A hash table
 * finds a line's way; LRU, FIFO and MRU keep their order as a doubly
 * linked list per set, most recent first; tree-PLRU and random work on
 * the way number as in policy.h. Every reference is O(1) (O(log ways)
 * for PLRU). Same observable behaviour as the narrow path, empty ways
 * filled lowest first included; the reference-model test runs both.
 * Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_WIDESET_H
#define CBANA_CACHEMODEL_WIDESET_H

#include "cbana/cache.h"

#define WIDE_ASSOC 32

typedef struct cb_wideset {
  uint32_t assoc;
  uint64_t n_sets;
  cb_policy policy;
  uint32_t log2_assoc;
  uint64_t *rng;       /* the level's generator (random) */
  uint64_t *tags;      /* the level's tags, n_sets * assoc, by way */
  uint32_t *filled;    /* per set: ways in use (ways 0..filled-1) */
  uint32_t *prev;      /* per way (global index): list neighbours, */
  uint32_t *next;      /* NONE at the ends */
  uint32_t *head;      /* per set: most recent (LRU, MRU) or newest fill */
  uint32_t *tail;      /* per set: the other end */
  uint64_t *plru_bits; /* the level's PLRU trees (policy plru) */
  uint32_t plru_words;
  /* Hash table line -> global way index; linear probing, backward-shift
   * deletion, keys NO_LINE when empty. */
  uint64_t *keys;
  uint32_t *ways;
  uint64_t mask;
} cb_wideset;

/* For a level of n_sets sets of assoc ways whose tags (and PLRU bits, rng)
 * the level owns. False if memory runs out. */
bool cb_wideset_init(cb_wideset *ws, uint64_t n_sets, uint32_t assoc,
                     cb_policy policy, uint64_t *tags, uint64_t *plru_bits,
                     uint32_t plru_words, uint64_t *rng);
void cb_wideset_free(cb_wideset *ws);
/* Empties every set (the level resets its tags and bits). */
void cb_wideset_reset(cb_wideset *ws);

/* One line reference in set `set`: true on a hit; fills on a miss if
 * `fill`. */
bool cb_wideset_ref(cb_wideset *ws, uint64_t set, uint64_t line, bool fill);

#endif
