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

#include <stdbool.h>
#include <stdint.h>

#define WIDE_ASSOC 32

struct cb_level;

/* The state a wide level adds; geometry, policy, tags, PLRU bits and the
 * random generator stay the level's. */
typedef struct cb_wideset {
  uint32_t *filled; /* per set: ways in use (ways 0..filled-1) */
  uint32_t *head;   /* per set: most recent (LRU, MRU) or newest fill */
  uint32_t *tail;   /* per set: the other end */
  uint32_t *prev;   /* per way (global index): list neighbours, */
  uint32_t *next;   /* UINT32_MAX at the ends */
  /* Hash table line -> global way index (set * assoc + way); linear
   * probing, backward-shift deletion, keys NO_LINE when empty. */
  uint64_t *keys;
  uint32_t *ways;
  uint64_t mask;
  uint64_t n_sets;
} cb_wideset;

/* For n_sets sets of assoc ways. False if memory runs out. */
bool cb_wideset_init(cb_wideset *ws, uint64_t n_sets, uint32_t assoc);
void cb_wideset_free(cb_wideset *ws);
/* Empties every set (the level resets its tags and bits). */
void cb_wideset_reset(cb_wideset *ws);

/* One line reference in set `set` of level lv: true on a hit; fills on
 * a miss if `fill`. */
bool cb_wideset_ref(cb_wideset *ws, struct cb_level *lv, uint64_t set,
                    uint64_t line, bool fill);

#endif
