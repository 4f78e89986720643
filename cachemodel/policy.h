/* Replacement policies: one set's lookup-and-update for each policy,
 * inlined into the hierarchy's access loop. Internal to cachemodel.
 *
 * A set is `assoc` line numbers (address >> line bits; the whole line
 * number is the tag, so sets need no separate tag arithmetic); NO_LINE
 * marks an empty way. Nothing is ever invalidated, so the empty ways of a
 * set are always its last ones.
 *
 * LRU, FIFO and MRU keep a set in order, most recent first, like
 * cachegrind's cg_sim.c: LRU orders by last use (a hit moves the line to
 * the front), FIFO by fill (hits do not reorder), MRU by last use and
 * evicts the front. Which physical way a line sits in cannot change what
 * hits under these three, so the order is all they keep; filling the
 * lowest empty way first is then the same as shifting into the front.
 *
 * Tree-PLRU and random need physical ways: ways are filled lowest index
 * first, and only a full set asks the policy for a victim. Every policy
 * returns whether the line was present, and fills it on a miss only if
 * `fill` (write-allocate, or a read). */
#ifndef CBANA_CACHEMODEL_POLICY_H
#define CBANA_CACHEMODEL_POLICY_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define NO_LINE UINT64_MAX

static inline void set_push_front(uint64_t *set, uint32_t n, uint64_t line) {
  memmove(set + 1, set, (size_t)n * sizeof *set);
  set[0] = line;
}

/* Search and move-to-front in one pass: each way takes the line of the
 * way before it until the line itself is met (a hit: it is now in front)
 * or the set ends (a miss: the last, least recently used line dropped
 * out). The same order as finding the way and then shifting the ways
 * before it, without a memmove call of a variable length, which cost
 * more than the search on 8- and 16-way sets (perf on lu, MEDIUM). A miss
 * that does not fill must leave the set alone, so it is searched first. */
static inline bool lru_touch(uint64_t *set, uint32_t assoc, uint64_t line,
                             bool fill) {
  if (set[0] == line)
    return true;
  if (!fill) {
    for (uint32_t i = 1; i < assoc; i++)
      if (set[i] == line)
        goto shift;
    return false;
  }
shift:;
  uint64_t carry = line;
#pragma GCC unroll 16
  for (uint32_t i = 0; i < assoc; i++) {
    uint64_t cur = set[i];
    set[i] = carry;
    if (cur == line)
      return true;
    carry = cur;
  }
  return false;
}

static inline bool fifo_touch(uint64_t *set, uint32_t assoc, uint64_t line,
                              bool fill) {
  for (uint32_t i = 0; i < assoc; i++)
    if (set[i] == line)
      return true;
  if (fill)
    set_push_front(set, assoc - 1, line); /* drops the oldest fill */
  return false;
}

static inline bool mru_touch(uint64_t *set, uint32_t assoc, uint64_t line,
                             bool fill) {
  for (uint32_t i = 0; i < assoc; i++)
    if (set[i] == line) {
      set_push_front(set, i, line);
      return true;
    }
  if (!fill)
    return false;
  if (set[assoc - 1] == NO_LINE)
    set_push_front(set, assoc - 1, line); /* an empty way is left */
  else
    set[0] = line; /* the most recently used line goes */
  return false;
}

/* Tree-PLRU over 2^log2_assoc ways: nodes 1..assoc-1 in heap order (the
 * children of node k are 2k and 2k+1), one bit each, 0 pointing to the
 * lower half. All bits start at 0, toward way 0. */
static inline bool plru_bit(const uint64_t *bits, uint32_t node) {
  return (bits[node >> 6] >> (node & 63)) & 1;
}

/* Every node on the path to `way` is made to point away from it. */
static inline void plru_touch_way(uint64_t *bits, uint32_t log2_assoc,
                                  uint32_t way) {
  uint32_t node = 1;
  for (uint32_t depth = log2_assoc; depth-- > 0;) {
    uint32_t upper = (way >> depth) & 1;
    uint64_t mask = 1ull << (node & 63);
    if (upper)
      bits[node >> 6] &= ~mask; /* accessed the upper half: point lower */
    else
      bits[node >> 6] |= mask;
    node = 2 * node + upper;
  }
}

/* The victim: follow the pointers from the root. */
static inline uint32_t plru_victim(const uint64_t *bits, uint32_t log2_assoc) {
  uint32_t node = 1;
  for (uint32_t depth = 0; depth < log2_assoc; depth++)
    node = 2 * node + plru_bit(bits, node);
  return node - (1u << log2_assoc);
}

/* Looks `line` up in a set whose ways are physical. Returns the way that
 * holds it, or assoc on a miss with *empty the first empty way (assoc if
 * the set is full). */
static inline uint32_t ways_find(const uint64_t *set, uint32_t assoc,
                                 uint64_t line, uint32_t *empty) {
  for (uint32_t w = 0; w < assoc; w++) {
    if (set[w] == line)
      return w;
    if (set[w] == NO_LINE) {
      *empty = w;
      return assoc;
    }
  }
  *empty = assoc;
  return assoc;
}

static inline bool plru_touch(uint64_t *set, uint64_t *bits, uint32_t assoc,
                              uint32_t log2_assoc, uint64_t line, bool fill) {
  uint32_t empty = assoc;
  uint32_t w = ways_find(set, assoc, line, &empty);
  bool hit = w < assoc;
  if (!hit) {
    if (!fill)
      return false;
    w = empty < assoc ? empty : plru_victim(bits, log2_assoc);
    set[w] = line;
  }
  plru_touch_way(bits, log2_assoc, w);
  return hit;
}

/* splitmix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
 * generators", OOPSLA 2014): any seed, 0 included, gives a full-period
 * stream, so a seed always repeats a run. */
static inline uint64_t splitmix64_next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Random: a full set draws one number; the victim is that number modulo
 * the associativity. Hits draw nothing. */
static inline bool random_touch(uint64_t *set, uint64_t *rng, uint32_t assoc,
                                uint64_t line, bool fill) {
  uint32_t empty = assoc;
  if (ways_find(set, assoc, line, &empty) < assoc)
    return true;
  if (fill)
    set[empty < assoc ? empty : splitmix64_next(rng) % assoc] = line;
  return false;
}

#endif
