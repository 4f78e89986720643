/* The exact fully associative LRU cache and the set of lines seen; see
 * falru.h. */
#include "falru.h"

#include <stdlib.h>
#include <string.h>

/* Fibonacci hashing: the multiply spreads consecutive lines and
 * power-of-two strides over the buckets. */
static inline uint64_t mix(uint64_t x) {
  return x * 0x9E3779B97F4A7C15ull;
}

static inline uint32_t bucket_of(const cb_falru *fa, uint64_t line) {
  return (uint32_t)(mix(line) >> (64 - fa->bucket_bits));
}

bool cb_falru_init(cb_falru *fa, uint32_t cap) {
  memset(fa, 0, sizeof *fa);
  fa->cap = cap ? cap : 1;
  fa->bucket_bits = 1;
  while ((1ull << fa->bucket_bits) < 2ull * fa->cap)
    fa->bucket_bits++;
  fa->bucket = malloc(sizeof *fa->bucket << fa->bucket_bits);
  fa->node = malloc((size_t)fa->cap * sizeof *fa->node);
  if (!fa->bucket || !fa->node) {
    cb_falru_free(fa);
    return false;
  }
  cb_falru_reset(fa);
  return true;
}

void cb_falru_free(cb_falru *fa) {
  free(fa->bucket);
  free(fa->node);
  memset(fa, 0, sizeof *fa);
}

void cb_falru_reset(cb_falru *fa) {
  memset(fa->bucket, 0xff, sizeof *fa->bucket << fa->bucket_bits);
  fa->used = 0;
  fa->head = fa->tail = FA_NIL;
}

static inline void list_unlink(cb_falru *fa, uint32_t i) {
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

static inline void list_push_front(cb_falru *fa, uint32_t i) {
  fa->node[i].prev = FA_NIL;
  fa->node[i].next = fa->head;
  if (fa->head != FA_NIL)
    fa->node[fa->head].prev = i;
  else
    fa->tail = i;
  fa->head = i;
}

bool cb_falru_ref(cb_falru *fa, uint64_t line) {
  uint32_t b = bucket_of(fa, line);
  for (uint32_t i = fa->bucket[b]; i != FA_NIL; i = fa->node[i].chain)
    if (fa->node[i].line == line) {
      if (i != fa->head) {
        list_unlink(fa, i);
        list_push_front(fa, i);
      }
      return true;
    }
  uint32_t i;
  if (fa->used < fa->cap) {
    i = fa->used++;
  } else {
    /* The least recent line leaves: out of its bucket's chain and the
     * list. */
    i = fa->tail;
    uint32_t *p = &fa->bucket[bucket_of(fa, fa->node[i].line)];
    while (*p != i)
      p = &fa->node[*p].chain;
    *p = fa->node[i].chain;
    list_unlink(fa, i);
  }
  fa->node[i].line = line;
  fa->node[i].chain = fa->bucket[b];
  fa->bucket[b] = i;
  list_push_front(fa, i);
  return false;
}

/* ---- The lines seen ---------------------------------------------------- */

#define SET_GROUP 64
#define SET_MIN_SLOTS 1024

static bool set_alloc(cb_lineset *s, size_t n) {
  s->keys = calloc(n, sizeof *s->keys);
  s->bits = malloc(n * sizeof *s->bits);
  s->n = n;
  return s->keys && s->bits;
}

bool cb_lineset_init(cb_lineset *s) {
  memset(s, 0, sizeof *s);
  if (!set_alloc(s, SET_MIN_SLOTS)) {
    cb_lineset_free(s);
    return false;
  }
  return true;
}

void cb_lineset_free(cb_lineset *s) {
  free(s->keys);
  free(s->bits);
  memset(s, 0, sizeof *s);
}

void cb_lineset_reset(cb_lineset *s) {
  memset(s->keys, 0, s->n * sizeof *s->keys);
  s->used = 0;
  s->last_key = 0;
}

static inline size_t set_slot(uint64_t key, size_t n) {
  return (size_t)(mix(key) >> 32) & (n - 1);
}

static void set_grow(cb_lineset *s) {
  cb_lineset old = *s;
  if (!set_alloc(s, old.n * 2))
    abort();
  for (size_t i = 0; i < old.n; i++) {
    if (!old.keys[i])
      continue;
    size_t j = set_slot(old.keys[i], s->n);
    while (s->keys[j])
      j = (j + 1) & (s->n - 1);
    s->keys[j] = old.keys[i];
    s->bits[j] = old.bits[i];
  }
  free(old.keys);
  free(old.bits);
  s->last_key = 0;
}

bool cb_lineset_add(cb_lineset *s, uint64_t line) {
  uint64_t key = line / SET_GROUP + 1, bit = 1ull << (line % SET_GROUP);
  size_t j;
  if (key == s->last_key) {
    j = s->last_slot;
  } else {
    j = set_slot(key, s->n);
    while (s->keys[j] && s->keys[j] != key)
      j = (j + 1) & (s->n - 1);
    if (!s->keys[j]) {
      if (2 * (s->used + 1) > s->n) {
        set_grow(s);
        j = set_slot(key, s->n);
        while (s->keys[j])
          j = (j + 1) & (s->n - 1);
      }
      s->keys[j] = key;
      s->bits[j] = 0;
      s->used++;
    }
    s->last_key = key;
    s->last_slot = j;
  }
  if (s->bits[j] & bit)
    return false;
  s->bits[j] |= bit;
  return true;
}
