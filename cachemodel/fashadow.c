/* A fully associative LRU cache of lines and the set of lines ever
 * referenced; see fashadow.h. */
#include "fashadow.h"

#include <stdlib.h>
#include <string.h>

#define FIB 0x9E3779B97F4A7C15ull /* Fibonacci hashing (Knuth 6.4) */

static inline uint32_t home(const fa_lru *f, uint64_t line) {
  return (uint32_t)((line * FIB) >> (64 - f->tbits));
}

static uint32_t pow2_at_least(uint64_t n, uint32_t *bits) {
  uint32_t b = 1;
  while ((1ull << b) < n)
    b++;
  if (bits)
    *bits = b;
  return 1u << b;
}

bool fa_lru_init(fa_lru *f, uint64_t lines) {
  memset(f, 0, sizeof *f);
  if (lines == 0 || lines > (1u << 28))
    return false;
  f->cap = (uint32_t)lines;
  uint32_t slots = pow2_at_least(2 * lines, &f->tbits);
  uint32_t q = pow2_at_least(4 * lines, NULL);
  f->qmask = q - 1;
  f->tkey = calloc(slots, sizeof *f->tkey);
  f->tnode = calloc(slots, sizeof *f->tnode);
  f->line = calloc(lines, sizeof *f->line);
  f->qpos = calloc(lines, sizeof *f->qpos);
  f->queue = calloc(q, sizeof *f->queue);
  if (!f->tkey || !f->tnode || !f->line || !f->qpos || !f->queue) {
    fa_lru_free(f);
    return false;
  }
  return true;
}

void fa_lru_free(fa_lru *f) {
  free(f->tkey);
  free(f->tnode);
  free(f->line);
  free(f->qpos);
  free(f->queue);
  memset(f, 0, sizeof *f);
}

void fa_lru_reset(fa_lru *f) {
  memset(f->tkey, 0, ((size_t)1 << f->tbits) * sizeof *f->tkey);
  f->n = 0;
  f->head = f->tail = 0;
}

/* Drops the stale entries (not their line's latest), keeping the order. */
static void queue_compact(fa_lru *f) {
  uint32_t w = f->head;
  for (uint32_t p = f->head; p != f->tail; p++) {
    uint32_t node = f->queue[p & f->qmask];
    if (f->qpos[node] == p) {
      f->queue[w & f->qmask] = node;
      f->qpos[node] = w++;
    }
  }
  f->tail = w;
}

static inline void queue_push(fa_lru *f, uint32_t node) {
  if (f->tail - f->head == f->qmask + 1)
    queue_compact(f);
  f->qpos[node] = f->tail;
  f->queue[f->tail++ & f->qmask] = node;
}

/* The least recent line's node, out of the queue. */
static uint32_t queue_pop_lru(fa_lru *f) {
  for (;;) {
    uint32_t node = f->queue[f->head & f->qmask];
    if (f->qpos[node] == f->head++)
      return node;
  }
}

/* Empties slot i, moving back the entries of its probe run that may
 * take it (deletion without tombstones, Knuth 6.4 algorithm R). */
static void table_delete(fa_lru *f, uint32_t i) {
  const uint32_t mask = (1u << f->tbits) - 1;
  for (uint32_t j = i;;) {
    j = (j + 1) & mask;
    if (!f->tkey[j]) {
      f->tkey[i] = 0;
      return;
    }
    uint32_t k = home(f, f->tkey[j] - 1);
    /* the entry at j stays if its home lies cyclically in (i, j] */
    if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
      continue;
    f->tkey[i] = f->tkey[j];
    f->tnode[i] = f->tnode[j];
    i = j;
  }
}

bool fa_lru_ref(fa_lru *f, uint64_t line) {
  const uint32_t mask = (1u << f->tbits) - 1;
  const uint64_t key = line + 1;
  uint32_t s = home(f, line);
  for (; f->tkey[s]; s = (s + 1) & mask)
    if (f->tkey[s] == key) {
      uint32_t node = f->tnode[s];
      if (f->qpos[node] != f->tail - 1) /* not already the latest */
        queue_push(f, node);
      return true;
    }
  uint32_t node;
  if (f->n < f->cap) {
    node = f->n++;
  } else {
    node = queue_pop_lru(f);
    uint64_t old = f->line[node] + 1;
    uint32_t o = home(f, f->line[node]);
    while (f->tkey[o] != old)
      o = (o + 1) & mask;
    table_delete(f, o);
    /* the deletion may have moved entries into the probe run */
    for (s = home(f, line); f->tkey[s]; s = (s + 1) & mask)
      ;
  }
  f->tkey[s] = key;
  f->tnode[s] = node;
  f->line[node] = line;
  queue_push(f, node);
  return false;
}

/* ---- Lines ever referenced ---------------------------------------------- */

#define SEEN_MIN 1024

static inline size_t seen_slot(uint64_t block, size_t n_slots) {
  return (size_t)((block * FIB) >> 32) & (n_slots - 1);
}

bool seen_init(seen_set *s) {
  s->n_slots = SEEN_MIN;
  s->used = 0;
  s->key = calloc(s->n_slots, sizeof *s->key);
  s->bits = calloc(s->n_slots, sizeof *s->bits);
  if (!s->key || !s->bits) {
    seen_free(s);
    return false;
  }
  return true;
}

void seen_free(seen_set *s) {
  free(s->key);
  free(s->bits);
  memset(s, 0, sizeof *s);
}

void seen_reset(seen_set *s) {
  memset(s->key, 0, s->n_slots * sizeof *s->key);
  memset(s->bits, 0, s->n_slots * sizeof *s->bits);
  s->used = 0;
}

static bool seen_grow(seen_set *s) {
  size_t n = s->n_slots * 2;
  uint64_t *nk = calloc(n, sizeof *nk), *nb = calloc(n, sizeof *nb);
  if (!nk || !nb) {
    free(nk);
    free(nb);
    return false;
  }
  for (size_t i = 0; i < s->n_slots; i++) {
    if (!s->key[i])
      continue;
    size_t j = seen_slot(s->key[i] - 1, n);
    while (nk[j])
      j = (j + 1) & (n - 1);
    nk[j] = s->key[i];
    nb[j] = s->bits[i];
  }
  free(s->key);
  free(s->bits);
  s->key = nk;
  s->bits = nb;
  s->n_slots = n;
  return true;
}

bool seen_add(seen_set *s, uint64_t line) {
  uint64_t block = line >> 6, key = block + 1, bit = 1ull << (line & 63);
  size_t mask = s->n_slots - 1, i = seen_slot(block, s->n_slots);
  for (; s->key[i]; i = (i + 1) & mask)
    if (s->key[i] == key) {
      bool is_new = !(s->bits[i] & bit);
      s->bits[i] |= bit;
      return is_new;
    }
  if (2 * (s->used + 1) > s->n_slots) {
    if (!seen_grow(s))
      abort(); /* a class cannot be given without it (stackdist.c) */
    mask = s->n_slots - 1;
    for (i = seen_slot(block, s->n_slots); s->key[i]; i = (i + 1) & mask)
      ;
  }
  s->key[i] = key;
  s->bits[i] = bit;
  s->used++;
  return true;
}
