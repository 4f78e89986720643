/* The two sets a miss's class needs once stack distances are sampled
 * (shadow.c): a fully associative LRU cache of C lines (a miss is a
 * capacity miss exactly when it misses too; Hill and Smith, "Evaluating
 * associativity in CPU caches", IEEE ToC 1989) and the set of every line
 * ever referenced (a compulsory miss is a first reference).
 *
 * The LRU cache is a hash table of its lines and a queue of references
 * instead of a recency list: a hit marks the line's entry in the queue
 * stale, appends the line and writes its new position into its slot (no
 * neighbours to unlink), and the least recent line is the oldest entry
 * not stale. A slot holds the line and its position, so a reference
 * reads one host cache line of the table, a miss two (its own and the
 * evicted line's). The queue holds eight entries per line; when full, the
 * stale ones are dropped in one pass that looks up only the C live ones,
 * so a reference costs O(1) amortized (1/7 of a lookup). Internal to
 * cachemodel. */
#ifndef CBANA_CACHEMODEL_FASHADOW_H
#define CBANA_CACHEMODEL_FASHADOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FA_STALE UINT64_MAX

typedef struct fa_slot {
  uint64_t key;  /* line + 1, 0: empty */
  uint32_t qpos; /* the queue position of its latest reference */
} fa_slot;

typedef struct fa_lru {
  fa_slot *t;     /* linear probing */
  uint32_t tbits; /* log2 of the table's slots */
  uint32_t n, cap;
  /* The queue: positions head .. tail - 1 (counters, modulo 2^32), the
   * line at queue[pos & qmask], or FA_STALE. */
  uint64_t *queue;
  uint32_t qmask, head, tail;
} fa_lru;

bool fa_lru_init(fa_lru *f, uint64_t lines);
void fa_lru_free(fa_lru *f);
void fa_lru_reset(fa_lru *f);

/* References `line`: true if it was among the last `cap` distinct lines
 * referenced (it is the most recent one after). */
bool fa_lru_ref(fa_lru *f, uint64_t line);

/* A line's first slot to probe: Fibonacci hashing (Knuth 6.4). Placing
 * four consecutive lines in one host cache line made a sweep slower
 * (longer probe runs to shift on deletion; sim_bench 141 against 162 M
 * accesses/s). */
static inline uint32_t fa_home(const fa_lru *f, uint64_t line) {
  return (uint32_t)((line * 0x9E3779B97F4A7C15ull) >> (64 - f->tbits));
}

/* fa_lru_ref's hit, inline: false (nothing done) if the line is not in
 * the cache; fa_lru_insert then. */
void fa_lru_requeue(fa_lru *f, fa_slot *sl, uint64_t line);
static inline __attribute__((always_inline)) bool fa_lru_hit(fa_lru *f,
                                                             uint64_t line) {
  const uint32_t mask = (1u << f->tbits) - 1;
  uint32_t s = fa_home(f, line);
  for (; f->t[s].key; s = (s + 1) & mask)
    if (f->t[s].key == line + 1) {
      if (f->t[s].qpos != f->tail - 1) /* not already the latest */
        fa_lru_requeue(f, &f->t[s], line);
      return true;
    }
  return false;
}
/* A line not in the cache (fa_lru_hit said so) becomes its latest. */
void fa_lru_insert(fa_lru *f, uint64_t line);

/* Lines ever referenced: a bitmap per page of SEEN_PAGE_LINES lines (a
 * bit a line, 512 bytes for 256 KiB of 64-byte lines), the pages in a
 * hash table; the page of the last lookup is kept. Dense data costs an
 * eighth of a byte a line, so that a random walk over it reads a small
 * bitmap rather than a large table. */
#define SEEN_PAGE_BITS 12
#define SEEN_PAGE_LINES (1u << SEEN_PAGE_BITS)
typedef struct seen_set {
  uint64_t *key;   /* page + 1, 0: empty */
  uint64_t **bits; /* its bitmap */
  size_t n_slots, used;
  uint64_t last_key;
  uint64_t *last_bits;
} seen_set;

bool seen_init(seen_set *s);
void seen_free(seen_set *s);
void seen_reset(seen_set *s);
/* Adds `line`: true if it was not in the set. */
bool seen_add(seen_set *s, uint64_t line);

#endif
