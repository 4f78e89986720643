/* LRU stack distances with a Fenwick tree over last-reference times; see
 * stackdist.h for the method. */
#include "stackdist.h"

#include <stdlib.h>
#include <string.h>

#define NO_LINE UINT64_MAX
#define MIN_BLOCKS 64

static void tree_add(uint32_t *tree, uint32_t cap, uint32_t i, uint32_t v) {
  for (; i <= cap; i += i & -i)
    tree[i] += v; /* v is 1 or (uint32_t)-1: wraps to a subtraction */
}

static uint32_t tree_prefix(const uint32_t *tree, uint32_t i) {
  uint32_t s = 0;
  for (; i > 0; i -= i & -i)
    s += tree[i];
  return s;
}

/* Linear-time Fenwick construction from plain values in tree[1..cap]. */
static void tree_build(uint32_t *tree, uint32_t cap) {
  for (uint32_t i = 1; i <= cap; i++) {
    uint32_t j = i + (i & -i);
    if (j <= cap && j > i)
      tree[j] += tree[i];
  }
}

/* The inverse of tree_build: back to plain values, in place. */
static void tree_unbuild(uint32_t *tree, uint32_t cap) {
  for (uint32_t i = cap; i >= 1; i--) {
    uint32_t j = i + (i & -i);
    if (j <= cap && j > i)
      tree[j] -= tree[i];
  }
}

static size_t block_slot(uint64_t key, size_t n_blocks) {
  /* Fibonacci hashing: the multiply spreads power-of-two strides. */
  uint64_t h = key * 0x9E3779B97F4A7C15ull;
  return (size_t)(h >> 32) & (n_blocks - 1);
}

static bool blocks_grow(cb_stackdist *sd) {
  size_t n = sd->n_blocks * 2;
  sd_block *nb = calloc(n, sizeof *nb);
  if (!nb)
    return false;
  for (size_t i = 0; i < sd->n_blocks; i++) {
    sd_block *b = &sd->blocks[i];
    if (!b->key)
      continue;
    size_t s = block_slot(b->key, n);
    while (nb[s].key)
      s = (s + 1) & (n - 1);
    nb[s] = *b;
  }
  free(sd->blocks);
  sd->blocks = nb;
  sd->n_blocks = n;
  sd->recent = NULL;
  return true;
}

/* The block holding `line`, inserted if new; NULL if memory runs out. */
static sd_block *block_find(cb_stackdist *sd, uint64_t line) {
  uint64_t key = line / SD_BLOCK_LINES + 1;
  if (sd->recent && sd->recent->key == key)
    return sd->recent;
  size_t s = block_slot(key, sd->n_blocks);
  for (;;) {
    sd_block *b = &sd->blocks[s];
    if (b->key == key)
      return sd->recent = b;
    if (!b->key)
      break;
    s = (s + 1) & (sd->n_blocks - 1);
  }
  if (2 * (sd->used_blocks + 1) > sd->n_blocks) {
    if (!blocks_grow(sd))
      return NULL;
    s = block_slot(key, sd->n_blocks);
    while (sd->blocks[s].key)
      s = (s + 1) & (sd->n_blocks - 1);
  }
  sd_block *b = &sd->blocks[s];
  b->key = key;
  sd->used_blocks++;
  return sd->recent = b;
}

/* Renumbers the live times 1..distinct, keeping their order, and makes
 * room for at least as many new times as there are lines. */
static bool renumber(cb_stackdist *sd) {
  uint32_t *t = sd->tree;
  tree_unbuild(t, sd->cap);
  /* Each live time's new number is its rank among live times. */
  uint32_t rank = 0;
  for (uint32_t i = 1; i <= sd->now; i++)
    t[i] = t[i] ? ++rank : 0;
  for (size_t b = 0; b < sd->n_blocks; b++) {
    if (!sd->blocks[b].key)
      continue;
    for (int k = 0; k < SD_BLOCK_LINES; k++) {
      uint32_t old = sd->blocks[b].time[k];
      if (old)
        sd->blocks[b].time[k] = t[old];
    }
  }
  uint64_t want = 2 * sd->distinct;
  if (want < sd->initial_cap)
    want = sd->initial_cap;
  if (want > (1u << 31))
    return false; /* over 2^30 distinct lines: times would overflow */
  uint32_t cap = want > sd->cap ? (uint32_t)want : sd->cap;
  if (cap != sd->cap) {
    uint32_t *nt = realloc(t, ((size_t)cap + 1) * sizeof *nt);
    if (!nt)
      return false;
    sd->tree = t = nt;
    sd->cap = cap;
  }
  memset(t, 0, ((size_t)cap + 1) * sizeof *t);
  for (uint32_t i = 1; i <= rank; i++)
    t[i] = 1;
  tree_build(t, cap);
  sd->now = rank;
  return true;
}

static bool hist_grow(cb_stackdist *sd, size_t need) {
  size_t cap = sd->hist_cap;
  while (cap < need)
    cap *= 2;
  uint64_t *nh = realloc(sd->hist, cap * sizeof *nh);
  if (!nh)
    return false;
  memset(nh + sd->hist_cap, 0, (cap - sd->hist_cap) * sizeof *nh);
  sd->hist = nh;
  sd->hist_cap = cap;
  return true;
}

static void out_of_memory(void) {
  /* The shadow cannot drop a reference without lying about every later
   * distance; there is no partial answer to give. */
  abort();
}

uint64_t cb_stackdist_ref_new(cb_stackdist *sd, uint64_t line) {
  if (sd->now == sd->cap && !renumber(sd))
    out_of_memory();
  sd_block *b = block_find(sd, line);
  if (!b)
    out_of_memory();
  uint32_t *slot = &b->time[line % SD_BLOCK_LINES];
  uint32_t t = ++sd->now;
  sd->last_line = line;
  tree_add(sd->tree, sd->cap, t, 1);
  uint32_t old = *slot;
  *slot = t;
  if (!old) {
    sd->distinct++;
    sd->cold++;
    return SD_COLD;
  }
  /* Live times before t: all lines but this one's new time; those up to
   * and including `old` were last referenced before this line was. */
  uint64_t d = sd->distinct - tree_prefix(sd->tree, old);
  tree_add(sd->tree, sd->cap, old, (uint32_t)-1);
  if (d >= sd->hist_len) {
    if (d >= sd->hist_cap && !hist_grow(sd, (size_t)d + 1))
      out_of_memory();
    sd->hist_len = (size_t)d + 1;
  }
  sd->hist[d]++;
  return d;
}

bool cb_stackdist_init(cb_stackdist *sd, uint32_t initial_cap) {
  memset(sd, 0, sizeof *sd);
  if (initial_cap < 2)
    initial_cap = 2;
  sd->initial_cap = initial_cap;
  sd->cap = initial_cap;
  sd->tree = calloc((size_t)initial_cap + 1, sizeof *sd->tree);
  sd->n_blocks = MIN_BLOCKS;
  sd->blocks = calloc(sd->n_blocks, sizeof *sd->blocks);
  sd->hist_cap = 64;
  sd->hist = calloc(sd->hist_cap, sizeof *sd->hist);
  sd->hist_len = 1;
  sd->last_line = NO_LINE;
  if (!sd->tree || !sd->blocks || !sd->hist) {
    cb_stackdist_free(sd);
    return false;
  }
  return true;
}

void cb_stackdist_free(cb_stackdist *sd) {
  free(sd->tree);
  free(sd->blocks);
  free(sd->hist);
  memset(sd, 0, sizeof *sd);
}

void cb_stackdist_reset(cb_stackdist *sd) {
  memset(sd->tree, 0, ((size_t)sd->cap + 1) * sizeof *sd->tree);
  memset(sd->blocks, 0, sd->n_blocks * sizeof *sd->blocks);
  memset(sd->hist, 0, sd->hist_cap * sizeof *sd->hist);
  sd->hist_len = 1;
  sd->used_blocks = 0;
  sd->recent = NULL;
  sd->cold = sd->distinct = 0;
  sd->now = 0;
  sd->last_line = NO_LINE;
}

uint64_t cb_stackdist_fa_misses(const cb_stackdist *sd, uint64_t lines) {
  uint64_t m = sd->cold;
  for (size_t d = lines; d < sd->hist_len; d++)
    m += sd->hist[d];
  return m;
}

uint64_t cb_stackdist_refs(const cb_stackdist *sd) {
  uint64_t r = sd->cold;
  for (size_t d = 0; d < sd->hist_len; d++)
    r += sd->hist[d];
  return r;
}
