/* The exact fully associative LRU cache and the set of lines seen; see
 * falru.h. */
#include "falru.h"

#include <stdlib.h>
#include <string.h>

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

void cb_falru_insert(cb_falru *fa, uint64_t line, uint32_t b) {
  uint32_t i;
  if (fa->used < fa->cap) {
    i = fa->used++;
  } else {
    /* The least recent line leaves: out of its bucket's chain and the
     * list. */
    i = fa->tail;
    uint32_t *p = &fa->bucket[fa_bucket(fa, fa->node[i].line)];
    while (*p != i)
      p = &fa->node[*p].chain;
    *p = fa->node[i].chain;
    fa_unlink(fa, i);
  }
  fa->node[i].line = line;
  fa->node[i].chain = fa->bucket[b];
  fa->bucket[b] = i;
  fa_push_front(fa, i);
}

/* ---- The lines seen ---------------------------------------------------- */

#define SET_MIN_SLOTS 256

static bool set_alloc(cb_lineset *s, size_t n) {
  s->keys = calloc(n, sizeof *s->keys);
  s->index = malloc(n * sizeof *s->index);
  s->n = n;
  return s->keys && s->index;
}

bool cb_lineset_init(cb_lineset *s) {
  memset(s, 0, sizeof *s);
  /* half the slots at most hold a group */
  s->bits = aligned_alloc(64, SET_MIN_SLOTS / 2 * sizeof *s->bits);
  if (!set_alloc(s, SET_MIN_SLOTS) || !s->bits) {
    cb_lineset_free(s);
    return false;
  }
  return true;
}

void cb_lineset_free(cb_lineset *s) {
  free(s->keys);
  free(s->index);
  free(s->bits);
  memset(s, 0, sizeof *s);
}

void cb_lineset_reset(cb_lineset *s) {
  memset(s->keys, 0, s->n * sizeof *s->keys);
  s->used = 0;
  s->last_key = 0;
}

static inline size_t set_slot(uint64_t key, size_t n) {
  return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (n - 1);
}

static void set_grow(cb_lineset *s) {
  cb_lineset old = *s;
  set_bits *nb = aligned_alloc(64, old.n * sizeof *nb);
  if (!nb || !set_alloc(s, old.n * 2))
    abort();
  memcpy(nb, old.bits, old.used * sizeof *nb);
  s->bits = nb;
  for (size_t i = 0; i < old.n; i++) {
    if (!old.keys[i])
      continue;
    size_t j = set_slot(old.keys[i], s->n);
    while (s->keys[j])
      j = (j + 1) & (s->n - 1);
    s->keys[j] = old.keys[i];
    s->index[j] = old.index[i];
  }
  free(old.keys);
  free(old.index);
  free(old.bits);
  s->last_key = 0;
}

set_bits *cb_lineset_group(cb_lineset *s, uint64_t key) {
  size_t j = set_slot(key, s->n);
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
    s->index[j] = (uint32_t)s->used;
    memset(&s->bits[s->used], 0, sizeof s->bits[s->used]);
    s->used++;
  }
  s->last_key = key;
  s->last = &s->bits[s->index[j]];
  return s->last;
}
