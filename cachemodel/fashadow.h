/* The two sets a miss's class needs once stack distances are sampled
 * (shadow.c): a fully associative LRU cache of C lines (a miss is a
 * capacity miss exactly when it misses too; Hill and Smith, "Evaluating
 * associativity in CPU caches", IEEE ToC 1989) and the set of every line
 * ever referenced (a compulsory miss is a first reference).
 *
 * The LRU cache is a hash table of its lines and a queue of references
 * instead of a recency list: a hit writes the line's new position in the
 * queue and appends it there (no neighbours to unlink), and the least
 * recent line is the oldest queue entry that is still its line's latest.
 * The queue holds four entries per line; when full, the stale entries
 * are dropped in one pass, so a reference costs O(1) amortized. Internal
 * to cachemodel. */
#ifndef CBANA_CACHEMODEL_FASHADOW_H
#define CBANA_CACHEMODEL_FASHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct fa_lru {
  /* Hash table, linear probing: tkey[s] = line + 1 (0: empty), tnode[s]
   * its node. */
  uint64_t *tkey;
  uint32_t *tnode;
  uint32_t tbits; /* log2 of the table's slots */
  /* Nodes 0 .. n - 1: line[i] and qpos[i], the queue position of its
   * latest reference. */
  uint64_t *line;
  uint32_t *qpos;
  uint32_t n, cap;
  /* The queue: positions head .. tail - 1 (counters, modulo 2^32), entry
   * at queue[pos & qmask]. */
  uint32_t *queue;
  uint32_t qmask, head, tail;
} fa_lru;

bool fa_lru_init(fa_lru *f, uint64_t lines);
void fa_lru_free(fa_lru *f);
void fa_lru_reset(fa_lru *f);

/* References `line`: true if it was among the last `cap` distinct lines
 * referenced (it is the most recent one after). */
bool fa_lru_ref(fa_lru *f, uint64_t line);

/* Lines ever referenced, as 64-line blocks with a bit per line. */
typedef struct seen_set {
  uint64_t *key; /* block + 1, 0: empty */
  uint64_t *bits;
  size_t n_slots, used;
} seen_set;

bool seen_init(seen_set *s);
void seen_free(seen_set *s);
void seen_reset(seen_set *s);
/* Adds `line`: true if it was not in the set. */
bool seen_add(seen_set *s, uint64_t line);

#endif
