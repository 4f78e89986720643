/* Sets of (tag, line) pairs as per-chunk bitmaps; see lineset.h. */
#include "lineset.h"

#include "cbana/mix64.h"

#include <stdlib.h>
#include <string.h>

static size_t slot_hash(uint32_t tag1, uint64_t chunk) {
  return (size_t)cb_mix64(chunk ^ (uint64_t)tag1 << 40);
}

static int grow_table(lineset *s) {
  size_t cap = s->cap ? s->cap * 2 : 1024;
  ls_slot *t = calloc(cap, sizeof *t);
  if (!t)
    return -1;
  for (size_t i = 0; i < s->cap; i++) {
    const ls_slot *e = &s->table[i];
    if (!e->tag1)
      continue;
    size_t k = slot_hash(e->tag1, e->chunk) & (cap - 1);
    while (t[k].tag1)
      k = (k + 1) & (cap - 1);
    t[k] = *e;
  }
  free(s->table);
  s->table = t;
  s->cap = cap;
  return 0;
}

/* The bitmap index of (tag1, chunk), made empty when new; -1 when memory
 * runs out. */
static int64_t find_chunk(lineset *s, uint32_t tag1, uint64_t chunk) {
  if ((s->n + 1) * 2 > s->cap && grow_table(s) < 0)
    return -1;
  size_t k = slot_hash(tag1, chunk) & (s->cap - 1);
  while (s->table[k].tag1) {
    if (s->table[k].tag1 == tag1 && s->table[k].chunk == chunk)
      return s->table[k].idx;
    k = (k + 1) & (s->cap - 1);
  }
  if (s->n_bits == s->cap_bits) {
    size_t cap = s->cap_bits ? s->cap_bits * 2 : 256;
    void *b =
        cap <= UINT32_MAX ? realloc(s->bits, cap * sizeof *s->bits) : NULL;
    if (!b)
      return -1;
    s->bits = b;
    s->cap_bits = cap;
  }
  uint32_t idx = (uint32_t)s->n_bits++;
  memset(s->bits[idx], 0, sizeof s->bits[idx]);
  s->table[k] = (ls_slot){.chunk = chunk, .tag1 = tag1, .idx = idx};
  s->n++;
  return idx;
}

int lineset_add_slow(lineset *s, uint32_t tag, uint64_t line) {
  uint32_t tag1 = tag + 1;
  uint64_t chunk = line / LS_CHUNK_LINES;
  int64_t i = find_chunk(s, tag1, chunk);
  if (i < 0)
    return -1;
  s->recent[lineset_recent_index(tag1, chunk)] =
      (ls_slot){.chunk = chunk, .tag1 = tag1, .idx = (uint32_t)i};
  uint64_t bit = line % LS_CHUNK_LINES;
  uint64_t *w = &s->bits[i][bit / 64], m = 1ull << (bit % 64);
  if (*w & m)
    return 0;
  *w |= m;
  return 1;
}

uint64_t *lineset_chunk(lineset *s, uint32_t tag, uint64_t chunk) {
  int64_t i = find_chunk(s, tag + 1, chunk);
  return i < 0 ? NULL : s->bits[i];
}

void lineset_clear(lineset *s) {
  if (s->table)
    memset(s->table, 0, s->cap * sizeof *s->table);
  s->n = 0;
  s->n_bits = 0;
  memset(s->recent, 0, sizeof s->recent);
}

void lineset_free(lineset *s) {
  free(s->table);
  free(s->bits);
  memset(s, 0, sizeof *s);
}
