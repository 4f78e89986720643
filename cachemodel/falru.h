/* A fully associative LRU cache of a fixed number of lines, exactly:
 * whether a line is among the last `cap` distinct lines referenced. A
 * hash table of the cached lines (chained through the nodes) and an
 * intrusive list in recency order, so a reference costs O(1): a lookup,
 * and on a hit a move to the front, on a miss the eviction of the list's
 * tail. This is the membership question miss classification asks (a
 * capacity miss is a miss of such a cache of the level's capacity, Hill
 * and Smith 1989), without the stack distance that answers it for every
 * capacity at once. Also the set of all lines ever referenced, for
 * compulsory misses. Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_FALRU_H
#define CBANA_CACHEMODEL_FALRU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FA_NIL UINT32_MAX

typedef struct fa_node {
  uint64_t line;
  uint32_t prev, next; /* towards the most / least recent line */
  uint32_t chain;      /* the next node of the same hash bucket */
  uint32_t unused;
} fa_node;

typedef struct cb_falru {
  uint32_t cap, used;
  uint32_t head, tail; /* most and least recent line */
  uint32_t bucket_bits;
  uint32_t *bucket; /* 1 << bucket_bits node indices, at least 2 cap */
  fa_node *node;    /* cap nodes */
} cb_falru;

bool cb_falru_init(cb_falru *fa, uint32_t cap);
void cb_falru_free(cb_falru *fa);
void cb_falru_reset(cb_falru *fa);
/* References `line`: true if it was cached (it becomes the most recent),
 * false if not (it is cached now, the least recent line evicted when the
 * cache was full). */
bool cb_falru_ref(cb_falru *fa, uint64_t line);

/* The lines ever referenced: groups of 64 consecutive lines, a bit each,
 * in an open-addressing table (a walk through memory adds one entry per
 * 64 lines and finds the previous group without hashing). */
typedef struct cb_lineset {
  uint64_t *keys; /* group + 1, 0 = empty */
  uint64_t *bits;
  size_t n, used; /* slots (a power of two) and those in use */
  uint64_t last_key;
  size_t last_slot;
} cb_lineset;

bool cb_lineset_init(cb_lineset *s);
void cb_lineset_free(cb_lineset *s);
void cb_lineset_reset(cb_lineset *s);
/* Adds `line`: true if it was not in the set. Aborts if memory runs out
 * (a classification cannot skip a line without lying about later ones). */
bool cb_lineset_add(cb_lineset *s, uint64_t line);

#endif
