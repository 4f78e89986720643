/* LRU stack distances: a bitmap of live last-reference times and a
 * Fenwick tree of its word counts; see stackdist.h for the method. */
#include "stackdist.h"

#include <stdlib.h>
#include <string.h>

#define NO_LINE UINT64_MAX
#define MIN_GROUPS 64 /* a multiple of RUN */

static inline unsigned popcount64(uint64_t x) {
  return (unsigned)__builtin_popcountll(x);
}

/* The per-reference work counts bits; x86-64 has had a popcnt
 * instruction since 2008 but not in its baseline, so the functions that
 * count get a copy built for it, chosen when the program loads (GCC's
 * target_clones, an ifunc). Elsewhere the compiler's own popcount. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define COUNTS_BITS __attribute__((target_clones("popcnt", "default")))
#else
#define COUNTS_BITS
#endif

static void tree_add(uint32_t *tree, uint32_t n, uint32_t i, uint32_t v) {
  for (; i <= n; i += i & -i)
    tree[i] += v; /* a negated count wraps around: a subtraction */
}

static uint32_t tree_prefix(const uint32_t *tree, uint32_t i) {
  uint32_t s = 0;
  for (; i > 0; i -= i & -i)
    s += tree[i];
  return s;
}

/* Linear-time Fenwick construction from plain values in tree[1..n]. */
static void tree_build(uint32_t *tree, uint32_t n) {
  for (uint32_t i = 1; i <= n; i++) {
    uint32_t j = i + (i & -i);
    if (j <= n && j > i)
      tree[j] += tree[i];
  }
}

/* Slots come in runs of 16 for 16 consecutive groups (256 lines), so a
 * walk through memory walks through the table too; the run is placed by
 * Fibonacci hashing, whose multiply spreads power-of-two strides. A
 * stride of 16 groups or more uses one slot per run, and the keys that
 * meet there spill into the run's free slots. */
#define RUN 16

static size_t group_slot(uint64_t key, size_t n_groups) {
  uint64_t h = (key / RUN) * 0x9E3779B97F4A7C15ull;
  size_t run = (size_t)(h >> 32) & (n_groups / RUN - 1);
  return run * RUN + (size_t)(key % RUN);
}

/* Zeroed, cache-line aligned times for n groups. */
static sd_times *times_alloc(size_t n) {
  sd_times *t = aligned_alloc(64, n * sizeof *t);
  if (t)
    memset(t, 0, n * sizeof *t);
  return t;
}

static bool groups_grow(cb_stackdist *sd) {
  size_t n = sd->n_groups * 2;
  uint64_t *nk = calloc(n, sizeof *nk);
  sd_times *nt = times_alloc(n);
  if (!nk || !nt) {
    free(nk);
    free(nt);
    return false;
  }
  for (size_t i = 0; i < sd->n_groups; i++) {
    if (!sd->keys[i])
      continue;
    size_t s = group_slot(sd->keys[i], n);
    while (nk[s])
      s = (s + 1) & (n - 1);
    nk[s] = sd->keys[i];
    nt[s] = sd->times[i];
  }
  free(sd->keys);
  free(sd->times);
  sd->keys = nk;
  sd->times = nt;
  sd->n_groups = n;
  memset(sd->recent_key, 0, sizeof sd->recent_key); /* the times moved */
  return true;
}

/* The times of the group holding `line`, inserted if new; NULL if memory
 * runs out. */
static sd_times *group_find(cb_stackdist *sd, uint64_t key) {
  size_t mask = sd->n_groups - 1, s = group_slot(key, sd->n_groups);
  for (; sd->keys[s]; s = (s + 1) & mask)
    if (sd->keys[s] == key)
      return &sd->times[s];
  if (2 * (sd->used_groups + 1) > sd->n_groups) {
    if (!groups_grow(sd))
      return NULL;
    mask = sd->n_groups - 1;
    s = group_slot(key, sd->n_groups);
    while (sd->keys[s])
      s = (s + 1) & mask;
  }
  sd->keys[s] = key;
  sd->used_groups++;
  return &sd->times[s];
}

/* A stream that walks through memory reaches the next group soon; its
 * slot may be anywhere in the table, so ask for it early. */
static inline void group_prefetch(const cb_stackdist *sd, uint64_t key) {
  size_t s = group_slot(key, sd->n_groups);
  __builtin_prefetch(&sd->keys[s]);
  __builtin_prefetch(&sd->times[s]);
}

/* Times 1..now as the first `now` bits, the tree holding every full word
 * before the word of `now`. */
static void times_fill(cb_stackdist *sd, uint32_t now) {
  uint32_t words = sd->cap / 64;
  memset(sd->live, 0, words * sizeof *sd->live);
  memset(sd->tree, 0, ((size_t)words + 1) * sizeof *sd->tree);
  sd->now = now;
  sd->cur_word = now ? (now - 1) / 64 : 0;
  sd->pend_count = 0;
  sd->finger_valid = false;
  for (uint32_t w = 0; w < now / 64; w++)
    sd->live[w] = UINT64_MAX;
  if (now % 64)
    sd->live[now / 64] = (1ull << (now % 64)) - 1;
  for (uint32_t w = 0; w < sd->cur_word; w++)
    sd->tree[w + 1] = 64;
  tree_build(sd->tree, words);
}

static uint32_t round_cap(uint64_t want) {
  return (uint32_t)((want + 63) / 64 * 64);
}

/* Renumbers the live times 1..distinct, keeping their order, and makes
 * room for (at least) three times as many new times as there are lines,
 * so renumbering costs O(1) per reference amortized. */
COUNTS_BITS static bool renumber(cb_stackdist *sd) {
  uint32_t words = sd->cap / 64;
  /* before[w]: live times in the words before w (in the tree's array,
   * rebuilt below). */
  uint32_t *before = sd->tree, sum = 0;
  for (uint32_t w = 0; w < words; w++) {
    before[w] = sum;
    sum += popcount64(sd->live[w]);
  }
  for (size_t g = 0; g < sd->n_groups; g++) {
    if (!sd->keys[g])
      continue;
    for (int k = 0; k < SD_GROUP_LINES; k++) {
      uint32_t t = sd->times[g].time[k];
      if (!t)
        continue;
      uint32_t w = (t - 1) / 64, b = (t - 1) % 64;
      uint64_t below = sd->live[w] & ((1ull << b) - 1);
      sd->times[g].time[k] = before[w] + popcount64(below) + 1;
    }
  }
  uint64_t want = 4 * sd->distinct; /* a renumbering every 3n times */
  if (want < sd->initial_cap)
    want = sd->initial_cap;
  if (want > (1u << 31))
    return false; /* over 2^29 distinct lines: times would overflow */
  uint32_t cap = round_cap(want);
  if (cap > sd->cap) {
    uint64_t *nl = realloc(sd->live, cap / 64 * sizeof *nl);
    if (!nl)
      return false;
    sd->live = nl;
    uint32_t *nt = realloc(sd->tree, ((size_t)cap / 64 + 1) * sizeof *nt);
    if (!nt)
      return false;
    sd->tree = nt;
    sd->cap = cap;
  }
  times_fill(sd, sum);
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

COUNTS_BITS uint64_t cb_stackdist_ref_new(cb_stackdist *sd, uint64_t line) {
  if (sd->now == sd->cap && !renumber(sd))
    out_of_memory();
  uint64_t key = line / SD_GROUP_LINES + 1;
  if (key != sd->recent_key[0]) {
    unsigned r = 1;
    while (r < SD_RECENT && sd->recent_key[r] != key)
      r++;
    sd_times *t;
    if (r < SD_RECENT) {
      t = sd->recent[r];
    } else {
      if (key == sd->recent_key[0] + 1) /* walking forward: the next soon */
        group_prefetch(sd, key + 1);
      /* group_find may grow the table, which forgets the recent groups */
      if (!(t = group_find(sd, key)))
        out_of_memory();
      r = SD_RECENT - 1;
    }
    for (; r > 0; r--) { /* to the front */
      sd->recent_key[r] = sd->recent_key[r - 1];
      sd->recent[r] = sd->recent[r - 1];
    }
    sd->recent_key[0] = key;
    sd->recent[0] = t;
  }
  uint32_t *slot = &sd->recent[0]->time[line % SD_GROUP_LINES];
  uint32_t t = ++sd->now;
  uint32_t w = (t - 1) / 64;
  if (w != sd->cur_word) { /* the newest word is full: into the tree */
    tree_add(sd->tree, sd->cap / 64, sd->cur_word + 1,
             popcount64(sd->live[sd->cur_word]));
    sd->cur_word = w;
  }
  sd->live[w] |= 1ull << ((t - 1) % 64);
  sd->last_line = line;
  uint32_t old = *slot;
  *slot = t;
  if (!old) {
    sd->distinct++;
    sd->cold++;
    return SD_COLD;
  }
  /* Live times now: one per line, and t. Those after `old` are the lines
   * referenced since, and t: the ones above it in its word, and all in
   * later words (every live time minus the words up to old's). */
  uint32_t ow = (old - 1) / 64, ob = (old - 1) % 64;
  uint64_t after = popcount64((sd->live[ow] >> ob) >> 1);
  if (ow != sd->cur_word) {
    if (!sd->finger_valid || sd->finger_word != ow) {
      if (sd->pend_count)
        tree_add(sd->tree, sd->cap / 64, sd->finger_word + 1, -sd->pend_count);
      sd->pend_count = 0;
      sd->finger_word = ow;
      sd->finger_prefix = tree_prefix(sd->tree, ow + 1);
      sd->finger_valid = true;
    }
    /* The tree still counts the pending removals, all from word ow. */
    after += sd->distinct + 1 - (sd->finger_prefix - sd->pend_count);
    sd->pend_count++;
  }
  sd->live[ow] &= ~(1ull << ob);
  uint64_t d = after - 1;
  if (d >= sd->hist_len) {
    if (d >= sd->hist_cap && !hist_grow(sd, (size_t)d + 1))
      out_of_memory();
    sd->hist_len = (size_t)d + 1;
  }
  sd->hist[d]++;
  return d;
}

void cb_stackdist_add_refs(cb_stackdist *sd, uint64_t d, uint64_t count) {
  if (d >= sd->hist_len) {
    if (d >= sd->hist_cap && !hist_grow(sd, (size_t)d + 1))
      out_of_memory();
    sd->hist_len = (size_t)d + 1;
  }
  sd->hist[d] += count;
}

bool cb_stackdist_init(cb_stackdist *sd, uint32_t initial_cap) {
  memset(sd, 0, sizeof *sd);
  sd->initial_cap = round_cap(initial_cap ? initial_cap : 1);
  sd->cap = sd->initial_cap;
  sd->live = malloc(sd->cap / 64 * sizeof *sd->live);
  sd->tree = malloc(((size_t)sd->cap / 64 + 1) * sizeof *sd->tree);
  sd->n_groups = MIN_GROUPS;
  sd->keys = calloc(sd->n_groups, sizeof *sd->keys);
  sd->times = times_alloc(sd->n_groups);
  sd->hist_cap = 64;
  sd->hist = calloc(sd->hist_cap, sizeof *sd->hist);
  sd->hist_len = 1;
  sd->last_line = NO_LINE;
  if (!sd->live || !sd->tree || !sd->keys || !sd->times || !sd->hist) {
    cb_stackdist_free(sd);
    return false;
  }
  times_fill(sd, 0);
  return true;
}

void cb_stackdist_free(cb_stackdist *sd) {
  free(sd->live);
  free(sd->tree);
  free(sd->keys);
  free(sd->times);
  free(sd->hist);
  memset(sd, 0, sizeof *sd);
}

void cb_stackdist_reset(cb_stackdist *sd) {
  times_fill(sd, 0);
  memset(sd->keys, 0, sd->n_groups * sizeof *sd->keys);
  memset(sd->times, 0, sd->n_groups * sizeof *sd->times);
  memset(sd->hist, 0, sd->hist_cap * sizeof *sd->hist);
  sd->hist_len = 1;
  sd->used_groups = 0;
  memset(sd->recent_key, 0, sizeof sd->recent_key);
  sd->cold = sd->distinct = 0;
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
