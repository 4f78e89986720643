/* A fully associative LRU cache of lines and the set of lines ever
 * referenced; see fashadow.h. */
#include "fashadow.h"

#include <stdlib.h>
#include <string.h>

static inline uint32_t home(const fa_lru *f, uint64_t line) {
  return fa_home(f, line);
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
  uint32_t q = pow2_at_least(8 * lines, NULL);
  f->qmask = q - 1;
  f->t = calloc(slots, sizeof *f->t);
  f->queue = calloc(q, sizeof *f->queue);
  if (!f->t || !f->queue) {
    fa_lru_free(f);
    return false;
  }
  return true;
}

void fa_lru_free(fa_lru *f) {
  free(f->t);
  free(f->queue);
  memset(f, 0, sizeof *f);
}

void fa_lru_reset(fa_lru *f) {
  memset(f->t, 0, ((size_t)1 << f->tbits) * sizeof *f->t);
  f->n = 0;
  f->head = f->tail = 0;
}

/* The slot of a line in the table. */
static inline fa_slot *slot_of(fa_lru *f, uint64_t line) {
  const uint32_t mask = (1u << f->tbits) - 1;
  uint32_t s = home(f, line);
  while (f->t[s].key != line + 1)
    s = (s + 1) & mask;
  return &f->t[s];
}

/* Drops the stale entries, keeping the order of the others (each its
 * line's latest, the line in the table). */
static void queue_compact(fa_lru *f) {
  uint32_t w = f->head;
  for (uint32_t p = f->head; p != f->tail; p++) {
    uint64_t line = f->queue[p & f->qmask];
    if (line == FA_STALE)
      continue;
    f->queue[w & f->qmask] = line;
    slot_of(f, line)->qpos = w++;
  }
  f->tail = w;
}

static inline void queue_push(fa_lru *f, fa_slot *sl, uint64_t line) {
  if (f->tail - f->head == f->qmask + 1)
    queue_compact(f);
  sl->qpos = f->tail;
  f->queue[f->tail++ & f->qmask] = line;
}

void fa_lru_requeue(fa_lru *f, fa_slot *sl, uint64_t line) {
  f->queue[sl->qpos & f->qmask] = FA_STALE;
  queue_push(f, sl, line);
}

/* Empties slot i, moving back the entries of its probe run that may
 * take it (deletion without tombstones, Knuth 6.4 algorithm R). */
static void table_delete(fa_lru *f, uint32_t i) {
  const uint32_t mask = (1u << f->tbits) - 1;
  for (uint32_t j = i;;) {
    j = (j + 1) & mask;
    if (!f->t[j].key) {
      f->t[i].key = 0;
      return;
    }
    uint32_t k = home(f, f->t[j].key - 1);
    /* the entry at j stays if its home lies cyclically in (i, j] */
    if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
      continue;
    f->t[i] = f->t[j];
    i = j;
  }
}

/* Takes the least recent line out: the oldest entry not stale. */
static void evict_lru(fa_lru *f) {
  uint64_t line;
  while ((line = f->queue[f->head++ & f->qmask]) == FA_STALE)
    ;
  table_delete(f, (uint32_t)(slot_of(f, line) - f->t));
}

void fa_lru_insert(fa_lru *f, uint64_t line) {
  const uint32_t mask = (1u << f->tbits) - 1;
  if (f->n < f->cap)
    f->n++;
  else
    evict_lru(f);
  uint32_t s = home(f, line);
  while (f->t[s].key)
    s = (s + 1) & mask;
  f->t[s].key = line + 1;
  queue_push(f, &f->t[s], line);
  /* The next victim's slot, asked for now: it is anywhere in the table,
   * and a sweep or a random walk evicts on every new line (its probe
   * was 39% of a sweep's time in this function). */
  if (f->n == f->cap) {
    uint64_t next = f->queue[f->head & f->qmask];
    if (next != FA_STALE)
      __builtin_prefetch(&f->t[home(f, next)], 1);
  }
}

bool fa_lru_ref(fa_lru *f, uint64_t line) {
  if (fa_lru_hit(f, line))
    return true;
  fa_lru_insert(f, line);
  return false;
}

/* ---- Lines ever referenced ---------------------------------------------- */

#define SEEN_MIN 64
#define PAGE_WORDS (SEEN_PAGE_LINES / 64)

static inline size_t seen_slot(uint64_t page, size_t n_slots) {
  return (size_t)((page * 0x9E3779B97F4A7C15ull) >> 32) & (n_slots - 1);
}

bool seen_init(seen_set *s) {
  memset(s, 0, sizeof *s);
  s->n_slots = SEEN_MIN;
  s->key = calloc(s->n_slots, sizeof *s->key);
  s->bits = calloc(s->n_slots, sizeof *s->bits);
  if (!s->key || !s->bits) {
    seen_free(s);
    return false;
  }
  return true;
}

void seen_free(seen_set *s) {
  for (size_t i = 0; i < s->n_slots && s->bits; i++)
    free(s->bits[i]);
  free(s->key);
  free(s->bits);
  memset(s, 0, sizeof *s);
}

void seen_reset(seen_set *s) {
  for (size_t i = 0; i < s->n_slots; i++) {
    free(s->bits[i]);
    s->bits[i] = NULL;
  }
  memset(s->key, 0, s->n_slots * sizeof *s->key);
  s->used = 0;
  s->last_key = 0;
  s->last_bits = NULL;
}

static bool seen_grow(seen_set *s) {
  size_t n = s->n_slots * 2;
  uint64_t *nk = calloc(n, sizeof *nk);
  uint64_t **nb = calloc(n, sizeof *nb);
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

/* The bitmap of a page, added if new. */
static uint64_t *seen_page(seen_set *s, uint64_t key) {
  size_t mask = s->n_slots - 1, i = seen_slot(key - 1, s->n_slots);
  for (; s->key[i]; i = (i + 1) & mask)
    if (s->key[i] == key)
      return s->bits[i];
  if (2 * (s->used + 1) > s->n_slots) {
    if (!seen_grow(s))
      return NULL;
    mask = s->n_slots - 1;
    for (i = seen_slot(key - 1, s->n_slots); s->key[i]; i = (i + 1) & mask)
      ;
  }
  uint64_t *b = calloc(PAGE_WORDS, sizeof *b);
  if (!b)
    return NULL;
  s->key[i] = key;
  s->bits[i] = b;
  s->used++;
  return b;
}

bool seen_add(seen_set *s, uint64_t line) {
  uint64_t key = (line >> SEEN_PAGE_BITS) + 1;
  uint64_t *b = s->last_bits;
  if (key != s->last_key) {
    if (!(b = seen_page(s, key)))
      abort(); /* a class cannot be given without it (stackdist.c) */
    s->last_key = key;
    s->last_bits = b;
  }
  uint32_t w = (uint32_t)(line % SEEN_PAGE_LINES) / 64;
  uint64_t bit = 1ull << (line & 63);
  bool is_new = !(b[w] & bit);
  b[w] |= bit;
  return is_new;
}
