/* A fully associative LRU cache of a fixed number of lines, exactly:
 * whether a line is among the last `cap` distinct lines referenced. A
 * hash table of the cached lines and an intrusive list of them in
 * recency order, so a reference costs O(1): a lookup, and on a hit a
 * move to the front, on a miss the eviction of the list's tail. This is
 * the membership question miss classification asks (a capacity miss is
 * a miss of such a cache of the level's capacity, Hill and Smith 1989),
 * without the stack distance that answers it for every capacity at once.
 * Also the set of all lines ever referenced, for compulsory misses.
 * Internal to cachemodel. */
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

/* Chained hashing: the buckets are 4 bytes each (a table of slots that
 * held the lines measured slower, sim_bench's random stream 13 -> 8 M
 * accesses/s: more memory, and deletions that shift slots). */
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
/* The slow path of cb_falru_ref: `line` is not cached; b its bucket. */
void cb_falru_insert(cb_falru *fa, uint64_t line, uint32_t b);

/* Fibonacci hashing: the multiply spreads consecutive lines and
 * power-of-two strides over the buckets. */
static inline uint32_t fa_bucket(const cb_falru *fa, uint64_t line) {
  return (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> (64 - fa->bucket_bits));
}

static inline void fa_unlink(cb_falru *fa, uint32_t i) {
  uint32_t p = fa->node[i].prev, n = fa->node[i].next;
  if (p != FA_NIL)
    fa->node[p].next = n;
  else
    fa->head = n;
  if (n != FA_NIL)
    fa->node[n].prev = p;
  else
    fa->tail = p;
}

static inline void fa_push_front(cb_falru *fa, uint32_t i) {
  fa->node[i].prev = FA_NIL;
  fa->node[i].next = fa->head;
  if (fa->head != FA_NIL)
    fa->node[fa->head].prev = i;
  else
    fa->tail = i;
  fa->head = i;
}

/* References `line`: true if it was cached (it becomes the most recent),
 * false if not (it is cached now, the least recent line evicted when the
 * cache was full). */
static inline bool cb_falru_ref(cb_falru *fa, uint64_t line) {
  uint32_t b = fa_bucket(fa, line);
  for (uint32_t i = fa->bucket[b]; i != FA_NIL; i = fa->node[i].chain)
    if (fa->node[i].line == line) {
      if (i != fa->head) {
        fa_unlink(fa, i);
        fa_push_front(fa, i);
      }
      return true;
    }
  cb_falru_insert(fa, line, b);
  return false;
}

/* The lines ever referenced: groups of 512 consecutive lines, a bit
 * each (one host cache line of bits), found through a table of group
 * keys small enough to stay cached; a walk through memory finds the
 * previous group without probing. */
#define SET_GROUP 512

typedef struct set_bits {
  uint64_t w[SET_GROUP / 64];
} set_bits;

typedef struct cb_lineset {
  uint64_t *keys;  /* group + 1, 0 = empty */
  uint32_t *index; /* the group's bits in `bits` */
  set_bits *bits;
  size_t n, used; /* slots (a power of two) and groups */
  uint64_t last_key;
  set_bits *last;
} cb_lineset;

bool cb_lineset_init(cb_lineset *s);
void cb_lineset_free(cb_lineset *s);
void cb_lineset_reset(cb_lineset *s);
/* The bits of line's group, added if new. Aborts if memory runs out (a
 * classification cannot skip a line without lying about later ones). */
set_bits *cb_lineset_group(cb_lineset *s, uint64_t key);

/* Adds `line`: true if it was not in the set. */
static inline bool cb_lineset_add(cb_lineset *s, uint64_t line) {
  uint64_t key = line / SET_GROUP + 1;
  set_bits *b = key == s->last_key ? s->last : cb_lineset_group(s, key);
  uint64_t *w = &b->w[line / 64 % (SET_GROUP / 64)], bit = 1ull << (line % 64);
  if (*w & bit)
    return false;
  *w |= bit;
  return true;
}

#endif
