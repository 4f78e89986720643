/* LRU stack distances: a bitmap of live last-reference times and a
 * Fenwick tree of its word counts; see stackdist.h for the method. */
#include "stackdist.h"

#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define NO_LINE UINT64_MAX
#define FRONT_UNUSED INT32_MIN /* the stamp of an unused front position */
/* The front pays where nearly every reference is found in it: a miss
 * costs its work on top of the structure's, and a stream that finds
 * lines there now and then only (a random walk over 24 or 48 lines)
 * also mispredicts the branch between the two, which made it 25% slower
 * than without a front (sim_bench). So front_misses counts FRONT_MISS
 * per miss and -1 per hit, and from FRONT_MISSES_MAX on (a hit rate
 * under 8/9 for a while; a sweep's 16th reference) the front is off
 * until FRONT_BACK references in a row have distances below SD_FRONT. */
#define FRONT_MISS 8
#define FRONT_MISSES_MAX (FRONT_MISS * SD_FRONT)
#define FRONT_BACK 32
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
  /* and so did the front's lines' slots: their groups are in the table */
  for (uint32_t p = 0; p < sd->front_n; p++) {
    uint64_t line = sd->front_line[p], key = line / SD_GROUP_LINES + 1;
    size_t s = group_slot(key, n);
    while (nk[s] != key)
      s = (s + 1) & (n - 1);
    sd->front_slot[p] = &nt[s].time[line % SD_GROUP_LINES];
  }
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

/* Front positions as a bit mask, from 16 lanes of all ones or zeros. */
#if defined(__SSE2__) && SD_FRONT == 16
#define FRONT_SIMD 1
static inline uint32_t lanes_mask(__m128i a, __m128i b, __m128i c, __m128i d) {
  /* lanes of all ones stay all ones through the saturating packs */
  __m128i ab = _mm_packs_epi32(a, b), cd = _mm_packs_epi32(c, d);
  return (uint32_t)_mm_movemask_epi8(_mm_packs_epi16(ab, cd));
}
#endif

/* The positions whose tag is the line's low 32 bits (a used position
 * whose line differs may match too). */
static inline uint32_t front_match(const cb_stackdist *sd, uint64_t line) {
#ifdef FRONT_SIMD
  const __m128i k = _mm_set1_epi32((int)(uint32_t)line);
  const __m128i *t = (const __m128i *)sd->front_tag;
  return lanes_mask(_mm_cmpeq_epi32(_mm_load_si128(t), k),
                    _mm_cmpeq_epi32(_mm_load_si128(t + 1), k),
                    _mm_cmpeq_epi32(_mm_load_si128(t + 2), k),
                    _mm_cmpeq_epi32(_mm_load_si128(t + 3), k));
#else
  uint32_t m = 0;
  for (uint32_t p = 0; p < SD_FRONT; p++)
    m |= (uint32_t)(sd->front_tag[p] == (uint32_t)line) << p;
  return m;
#endif
}

/* The depth of the front line stamped `stamp`: the lines stamped later. */
static inline uint32_t front_depth(const cb_stackdist *sd, int32_t stamp) {
#ifdef FRONT_SIMD
  const __m128i k = _mm_set1_epi32(stamp);
  const __m128i *t = (const __m128i *)sd->front_stamp;
  return (uint32_t)__builtin_popcount(
      lanes_mask(_mm_cmpgt_epi32(_mm_load_si128(t), k),
                 _mm_cmpgt_epi32(_mm_load_si128(t + 1), k),
                 _mm_cmpgt_epi32(_mm_load_si128(t + 2), k),
                 _mm_cmpgt_epi32(_mm_load_si128(t + 3), k)));
#else
  uint32_t d = 0;
  for (uint32_t p = 0; p < SD_FRONT; p++)
    d += sd->front_stamp[p] > stamp;
  return d;
#endif
}

#ifdef FRONT_SIMD
static inline __m128i min_epi32(__m128i a, __m128i b) { /* SSE2 has none */
  return _mm_xor_si128(
      a, _mm_and_si128(_mm_xor_si128(a, b), _mm_cmpgt_epi32(a, b)));
}
#endif

/* The position of the least recent line of a full front. */
static inline uint32_t front_oldest(const cb_stackdist *sd) {
#ifdef FRONT_SIMD
  const __m128i *t = (const __m128i *)sd->front_stamp;
  const __m128i a = _mm_load_si128(t), b = _mm_load_si128(t + 1),
                c = _mm_load_si128(t + 2), d = _mm_load_si128(t + 3);
  __m128i m = min_epi32(min_epi32(a, b), min_epi32(c, d));
  m = min_epi32(m, _mm_shuffle_epi32(m, 0x4E));
  m = min_epi32(m, _mm_shuffle_epi32(m, 0xB1)); /* in every lane */
  return (uint32_t)__builtin_ctz(
      lanes_mask(_mm_cmpeq_epi32(a, m), _mm_cmpeq_epi32(b, m),
                 _mm_cmpeq_epi32(c, m), _mm_cmpeq_epi32(d, m)));
#else
  uint32_t o = 0;
  for (uint32_t p = 1; p < SD_FRONT; p++)
    if (sd->front_stamp[p] < sd->front_stamp[o])
      o = p;
  return o;
#endif
}

/* Stamps again from the lowest on, in the same order, when the clock
 * reaches front_stamp_max; returns the next stamp. */
static int32_t front_restamp(cb_stackdist *sd) {
  int32_t st[SD_FRONT];
  for (uint32_t p = 0; p < sd->front_n; p++)
    st[p] = FRONT_UNUSED + 1 + (int32_t)(sd->front_n - 1) -
            (int32_t)front_depth(sd, sd->front_stamp[p]);
  memcpy(sd->front_stamp, st, sd->front_n * sizeof *st);
  return sd->front_clock = FRONT_UNUSED + 1 + (int32_t)sd->front_n;
}

/* The stamp of a line referenced now: later than every other. */
static inline int32_t front_tick(cb_stackdist *sd) {
  if (sd->front_clock == sd->front_stamp_max)
    return front_restamp(sd);
  return ++sd->front_clock;
}

static inline void hist_count(cb_stackdist *sd, uint64_t d) {
  if (d >= sd->hist_len) {
    if (d >= sd->hist_cap && !hist_grow(sd, (size_t)d + 1))
      out_of_memory();
    sd->hist_len = (size_t)d + 1;
  }
  sd->hist[d]++;
}

/* The time of `line` in the structure behind the front (0: none), by its
 * group, and that group's slot for it as an index into `times`. */
static inline __attribute__((always_inline)) uint32_t *
group_time(cb_stackdist *sd, uint64_t line) {
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
    /* to the front; unrolled, as GCC would call memmove for the loop */
    _Static_assert(SD_RECENT == 4, "the moves below");
    if (r == 3) {
      sd->recent_key[3] = sd->recent_key[2];
      sd->recent[3] = sd->recent[2];
    }
    if (r >= 2) {
      sd->recent_key[2] = sd->recent_key[1];
      sd->recent[2] = sd->recent[1];
    }
    sd->recent_key[1] = sd->recent_key[0];
    sd->recent[1] = sd->recent[0];
    sd->recent_key[0] = key;
    sd->recent[0] = t;
  }
  return &sd->recent[0]->time[line % SD_GROUP_LINES];
}

/* The next time, live; renumbering first if the times ran out. */
static inline __attribute__((always_inline)) uint32_t
time_new(cb_stackdist *sd) {
  if (sd->now == sd->cap && !renumber(sd))
    out_of_memory();
  uint32_t t = ++sd->now;
  uint32_t w = (t - 1) / 64;
  if (w != sd->cur_word) { /* the newest word is full: into the tree */
    tree_add(sd->tree, sd->cap / 64, sd->cur_word + 1,
             popcount64(sd->live[sd->cur_word]));
    sd->cur_word = w;
  }
  sd->live[w] |= 1ull << ((t - 1) % 64);
  return t;
}

/* Takes the time `old` out of the structure; returns how many of its
 * lines have later times, given how many it holds (`lines`, the one of
 * `old` among them). */
static inline __attribute__((always_inline)) uint64_t
time_pop(cb_stackdist *sd, uint32_t old, uint64_t lines) {
  /* Those with later times: the ones above `old` in its word, and all in
   * later words (all of them minus the words up to old's). */
  uint32_t ow = (old - 1) / 64, ob = (old - 1) % 64;
  uint64_t w = sd->live[ow];
  uint64_t after = popcount64((w >> ob) >> 1);
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
    after += lines - (sd->finger_prefix - sd->pend_count);
    sd->pend_count++;
  }
  sd->live[ow] = w & ~(1ull << ob);
  return after;
}

/* A line found in the front at position p: its depth is the lines
 * stamped after it (d >= 1, depth 0 is the latest line); stamped now, it
 * is on top. */
static inline __attribute__((always_inline)) uint64_t
front_hit(cb_stackdist *sd, uint32_t p) {
  const uint32_t d = front_depth(sd, sd->front_stamp[p]);
  sd->front_stamp[p] = front_tick(sd);
  hist_count(sd, d);
  return d;
}

/* Every line of the front to the structure, the deepest first (the
 * order of their last references): the front is empty after. */
static void front_clear(cb_stackdist *sd);

static void front_flush(cb_stackdist *sd) {
  uint32_t *by_depth[SD_FRONT];
  for (uint32_t p = 0; p < sd->front_n; p++)
    by_depth[front_depth(sd, sd->front_stamp[p])] = sd->front_slot[p];
  for (uint32_t i = sd->front_n; i-- > 0;)
    *by_depth[i] = time_new(sd);
  front_clear(sd);
}

/* A reference with the front off (empty): the structure alone. Not
 * `count`ed: a replay (ref_below's meaning; mru_sync replays only with
 * the front on), which moves a line seen before and counts nothing. */
static COUNTS_BITS __attribute__((noinline)) uint64_t
ref_bypass(cb_stackdist *sd, uint64_t line, bool count) {
  uint32_t *const tp = group_time(sd, line);
  const uint32_t t = time_new(sd); /* may renumber: then read *tp */
  const uint32_t old = *tp;
  *tp = t;
  if (!count) {
    time_pop(sd, old, sd->distinct + 1);
    return 0;
  }
  if (!old) {
    sd->distinct++;
    sd->cold++;
    return SD_COLD;
  }
  /* its new time is one of the lines' later times */
  uint64_t d = time_pop(sd, old, sd->distinct + 1) - 1;
  hist_count(sd, d);
  /* lines the front would have held: the front again, from empty */
  if (d < SD_FRONT) {
    if (++sd->front_misses == FRONT_BACK) {
      sd->front_misses = 0;
      sd->bypass = false;
    }
  } else {
    sd->front_misses = 0;
  }
  return d;
}

/* A line not in the front. Out of line, as ref_bypass, so that a line
 * found in the front (most calls, where the front helps) costs few
 * registers. */
static COUNTS_BITS __attribute__((noinline)) uint64_t
ref_behind(cb_stackdist *sd, uint64_t line, bool count) {
  if (count && (sd->front_misses += FRONT_MISS) >= FRONT_MISSES_MAX) {
    /* A sweep, or references spread too wide for the front, which only
     * adds work then: without it, the structure takes each reference
     * itself (FRONT_MISS). */
    front_flush(sd);
    sd->bypass = true;
    return ref_bypass(sd, line, true);
  }
  /* Not in the front: every front line is newer, and so are the lines
   * behind it with later times. */
  uint32_t *const tp = group_time(sd, line);
  const uint32_t old = *tp;
  uint64_t d = SD_COLD;
  if (old) {
    d = sd->front_n + time_pop(sd, old, sd->distinct - sd->front_n);
    *tp = 0;
    if (count)
      hist_count(sd, d);
  } else {
    sd->distinct++;
    sd->cold++;
  }
  /* A free position, or the least recent line's, which leaves the
   * front then. */
  uint32_t p;
  if (sd->front_n < SD_FRONT) {
    p = sd->front_n++;
  } else {
    p = front_oldest(sd);
    *sd->front_slot[p] = time_new(sd);
  }
  sd->front_line[p] = line;
  sd->front_tag[p] = (uint32_t)line;
  sd->front_slot[p] = tp;
  sd->front_stamp[p] = front_tick(sd);
  return d;
}

/* A line moved to the top of the front and the structure, counted or
 * not (`count`: the steps of a reference, a replay's otherwise). */
static inline __attribute__((always_inline)) uint64_t
ref_below(cb_stackdist *sd, uint64_t line, bool count) {
  if (sd->bypass)
    return ref_bypass(sd, line, count);
  for (uint32_t m = front_match(sd, line); m; m &= m - 1) {
    uint32_t p = (uint32_t)__builtin_ctz(m);
    if (sd->front_line[p] == line) {
      if (!count) {
        sd->front_stamp[p] = front_tick(sd);
        return 0;
      }
      sd->front_misses -= sd->front_misses != 0;
      return front_hit(sd, p);
    }
  }
  return ref_behind(sd, line, count);
}

/* The list's moves to the front and the structure: they hold its lines
 * on top in a stale order (their set is right: stackdist.h), so the
 * lines the list moved, mru[0 .. mru_dirty - 1], referenced again
 * deepest first without counting, come out on top in the list's order,
 * the rest as they were. The list moves lines only while the front is
 * on (cb_stackdist_ref), whose heuristic counts them as the front hits
 * they stand for: each takes one off front_misses. */
static COUNTS_BITS __attribute__((noinline)) void mru_sync(cb_stackdist *sd) {
  for (uint32_t i = sd->mru_dirty; i-- > 0;)
    ref_below(sd, sd->mru[i], false);
  sd->front_misses =
      sd->front_misses > sd->mru_moves ? sd->front_misses - sd->mru_moves : 0;
  sd->mru_dirty = sd->mru_moves = 0;
}

COUNTS_BITS uint64_t cb_stackdist_ref_new(cb_stackdist *sd, uint64_t line) {
  if (sd->mru_dirty)
    mru_sync(sd);
  uint64_t d = ref_below(sd, line, true);
  if (sd->bypass) {
    /* The front is off: the structure takes every reference, and the
     * list holds the latest line only (the repeats' compare). */
    if (sd->mru[1] != NO_LINE)
      for (uint32_t i = 1; i < SD_MRU; i++)
        sd->mru[i] = NO_LINE;
    sd->mru[0] = line;
    return d;
  }
  /* on top now, the list's lines below it (unrolled: GCC called memmove
   * for the loop, 2.5% of nsieve-bits' simulation) */
#pragma GCC unroll 8
  for (uint32_t i = SD_MRU - 1; i > 0; i--)
    sd->mru[i] = sd->mru[i - 1];
  sd->mru[0] = line;
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

/* An empty front: no tag matters then, its lines NO_LINE match none. */
static void front_clear(cb_stackdist *sd) {
  memset(sd->front_tag, 0, sizeof sd->front_tag);
  memset(sd->front_slot, 0, sizeof sd->front_slot);
  for (uint32_t p = 0; p < SD_FRONT; p++) {
    sd->front_line[p] = NO_LINE;
    sd->front_stamp[p] = FRONT_UNUSED;
  }
  sd->front_n = 0;
  sd->front_clock = FRONT_UNUSED;
  sd->front_misses = 0;
  sd->bypass = false;
}

static void mru_clear(cb_stackdist *sd) {
  for (uint32_t i = 0; i < SD_MRU; i++)
    sd->mru[i] = NO_LINE;
  sd->mru_dirty = sd->mru_moves = 0;
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
  mru_clear(sd);
  sd->front_stamp_max = INT32_MAX;
  front_clear(sd);
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
  mru_clear(sd);
  front_clear(sd);
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

typedef struct {
  uint64_t when, line;
} sd_last;

static int by_when(const void *a, const void *b) {
  uint64_t x = ((const sd_last *)a)->when, y = ((const sd_last *)b)->when;
  return (x > y) - (x < y);
}

void cb_stackdist_order(const cb_stackdist *sd, uint64_t *lines) {
  sd_last *v = malloc((sd->distinct ? sd->distinct : 1) * sizeof *v);
  if (!v)
    out_of_memory();
  size_t n = 0;
  /* Behind the front: by time. The front's lines (time 0 there) are
   * all newer, in the order of their stamps. */
  for (size_t g = 0; g < sd->n_groups; g++)
    if (sd->keys[g])
      for (uint32_t k = 0; k < SD_GROUP_LINES; k++)
        if (sd->times[g].time[k])
          v[n++] = (sd_last){sd->times[g].time[k],
                             (sd->keys[g] - 1) * SD_GROUP_LINES + k};
  for (uint32_t p = 0; p < sd->front_n; p++)
    v[n++] = (sd_last){(uint64_t)UINT32_MAX + 1 +
                           (uint64_t)((int64_t)sd->front_stamp[p] - INT32_MIN),
                       sd->front_line[p]};
  if (n != sd->distinct)
    abort(); /* every line has exactly one last reference */
  qsort(v, n, sizeof *v, by_when);
  for (size_t i = 0; i < n; i++)
    lines[i] = v[i].line;
  /* The list's lines are the top ones, in its order (stackdist.h). */
  for (size_t i = 0; i < SD_MRU && i < n && sd->mru[i] != NO_LINE; i++)
    lines[n - 1 - i] = sd->mru[i];
  free(v);
}
