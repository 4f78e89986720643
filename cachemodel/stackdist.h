/* LRU stack distances of a stream of line references, one pass, in
 * O(log n) per reference (Bennett and Kruskal, "LRU stack processing",
 * IBM J. R&D 1975): every line remembers the time of its last reference;
 * a bitmap over times has a 1 at each time that is still some line's last
 * reference, so the distinct lines referenced since a line's previous
 * reference are the 1s after that time. Counting them: a popcount inside
 * the time's 64-bit word plus a Fenwick tree of per-word counts. The tree
 * leaves out the newest word (all new times land there), which is folded
 * in once full: so a new time costs O(1) (and a sweep's reference, see
 * the finger below, O(1) amortized), and the bitmap (1 bit per time)
 * and the tree (4 bytes per 64 times) stay small enough for the caches.
 * Times are renumbered densely when the bitmap fills, so memory follows
 * the distinct lines, not the length of the stream.
 *
 * In front of that structure, Mattson's stack itself for its top: the
 * SD_FRONT most recently referenced distinct lines (Mattson et al.
 * 1970), each with the stamp of its last reference, so that a line's
 * depth is the number of later stamps, counted with one compare of all
 * of them. A reference found there has that distance, with no hashing
 * and no counting in the bitmap. Lines leave the front in the order of
 * their last references, so the structure above learns of a line when
 * the front pushes it out (it takes its time then) and when a line not
 * in the front is referenced (its distance is the front's lines plus
 * the lines the structure holds that are newer); a line in the front has
 * no time there. Programs whose working set fits the front (an object
 * or two and the stack) almost never reach the structure. A stream that
 * misses the front often (a sweep, lines spread wide) turns it off: its
 * lines go back to the structure in order, which then takes every
 * reference alone, until many in a row have distances below SD_FRONT.
 *
 * In front of the front, the SD_MRU most recent distinct lines in order
 * (an exact move-to-front list): a reference to one of them is its
 * position, counted with a shift of a few words and nothing else. The
 * front and the structure behind it are told of those moves only when a
 * reference goes past the list (or the order is asked for): until then
 * they hold the same SD_MRU lines on top, in a stale order, and every
 * other line where it is, so replaying the moved lines, deepest first,
 * without counting, brings them up to date (cb_stackdist_ref_new).
 * Streams that go back and forth between a few lines (fannkuch's arrays
 * of 44 bytes) then almost never reach the front. With the front off
 * (below) the list holds the latest line only: every other reference
 * goes to the structure, as a replay there would cost as much as the
 * reference (jacobi-2d's simulation took 25% longer).
 *
 * The distance is also the fully associative LRU shadow used for miss
 * classification: a cache of C lines misses on a reference exactly when
 * its distance is >= C or the line is cold (the inclusion property of
 * LRU, Mattson et al. 1970). Internal to cachemodel. */
#ifndef CBANA_CACHEMODEL_STACKDIST_H
#define CBANA_CACHEMODEL_STACKDIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SD_COLD UINT64_MAX /* distance of a first reference */
#define SD_GROUP_LINES 16  /* consecutive lines sharing one hash entry */
#define SD_RECENT 4        /* groups remembered without hashing */
#define SD_FRONT 16        /* lines of the front, a power of two <= 64 */
#define SD_MRU 8           /* lines of the move-to-front list, <= SD_FRONT */

/* The last reference times of a group of lines, 0 = never: one cache
 * line, apart from the keys so that probing stays dense. */
typedef struct sd_times {
  _Alignas(64) uint32_t time[SD_GROUP_LINES];
} sd_times;

typedef struct cb_stackdist {
  /* The SD_MRU most recent distinct lines, most recent first (mru[0],
   * distance 0 again), NO_LINE past the ones it holds (fewer were seen,
   * or the front was off: it holds the latest line only then, and fills
   * again once the front is back). */
  uint64_t mru[SD_MRU];
  /* 1 + the deepest position the list moved to its front since the
   * structure below last learned its order (0: it knows), and how many
   * such moves there were (for the front's on/off heuristic). */
  uint32_t mru_dirty, mru_moves;
  uint64_t *hist;  /* hist[d]: references at distance d */
  size_t hist_len; /* 1 + the largest distance seen */
  size_t hist_cap;
  uint64_t cold;     /* first references */
  uint64_t distinct; /* lines seen */
  /* Times 1..cap; time t is bit t-1 of `live`, in word (t-1)/64. */
  uint32_t now; /* the last time handed out */
  uint32_t cap; /* a multiple of 64 */
  uint32_t initial_cap;
  uint32_t cur_word; /* the word of `now`: its count is not in the tree */
  /* A finger on one older word: the removals from it wait to enter the
   * tree together, and the tree's prefix sum through it is kept. A stream
   * that revisits lines in the order it last saw them (a sweep) removes
   * 64 times in a row from one word and asks the same prefix each time.
   * Adding the newest word to the tree leaves that prefix alone (it is
   * further on). */
  uint32_t finger_word;
  uint32_t finger_prefix; /* tree prefix through finger_word */
  uint32_t pend_count;    /* times gone from finger_word, not in the tree */
  bool finger_valid;
  uint64_t *live; /* cap / 64 words */
  uint32_t *tree; /* Fenwick tree of word counts, tree[1..cap/64] */
  /* Hash table of groups, open addressing with linear probing: slot s
   * holds key (line / SD_GROUP_LINES) + 1 (0 = empty) and its times. */
  uint64_t *keys;
  sd_times *times;
  size_t n_groups; /* a power of two */
  size_t used_groups;
  /* The groups referenced last, most recent first (key 0: none): a
   * stream that goes back and forth between a few groups (the stack, an
   * object, a global) finds its group here without hashing. */
  uint64_t recent_key[SD_RECENT];
  sd_times *recent[SD_RECENT];
  /* The front: positions 0 .. front_n - 1 hold its lines, unordered;
   * a line's stamp says when it was referenced last (later, higher), so
   * its depth is the number of higher stamps. front_tag holds each line's
   * low 32 bits; tags and stamps are compared all at once. front_slot
   * points at the line's entry in `times` (0 while it is in the front),
   * where it takes a time when pushed out. */
  _Alignas(64) uint32_t front_tag[SD_FRONT];
  _Alignas(64) int32_t front_stamp[SD_FRONT]; /* INT32_MIN: unused */
  uint32_t *front_slot[SD_FRONT];
  uint64_t front_line[SD_FRONT];
  uint32_t front_n;
  int32_t front_clock; /* the latest stamp */
  /* The stamps are renumbered when the clock gets there: INT32_MAX
   * (tests lower it). */
  int32_t front_stamp_max;
  /* With the front on, misses weighed against hits; off, references in
   * a row the front would have found (stackdist.c, FRONT_MISS). */
  uint32_t front_misses;
  /* The front is empty and off: every reference goes to the structure
   * (a sweep, or lines spread wide), until one has a distance the front
   * would have found. */
  bool bypass;
} cb_stackdist;

/* initial_cap: the first number of times (tests make it tiny to exercise
 * renumbering). False if memory runs out. */
bool cb_stackdist_init(cb_stackdist *sd, uint32_t initial_cap);
void cb_stackdist_free(cb_stackdist *sd);
void cb_stackdist_reset(cb_stackdist *sd);

/* The slow path of cb_stackdist_ref: a line not in the list. */
uint64_t cb_stackdist_ref_new(cb_stackdist *sd, uint64_t line);

/* The position of `line` in the move-to-front list past its first
 * (1 .. SD_MRU - 1: its distance), 0 if it is not there. Branch-free:
 * the position is as unpredictable as the stream. */
static inline uint32_t cb_stackdist_mru_find(const cb_stackdist *sd,
                                             uint64_t line) {
  uint32_t d = 0;
#pragma GCC unroll 8
  for (uint32_t i = 1; i < SD_MRU; i++)
    d |= (uint32_t)(sd->mru[i] == line) * i; /* the lines are distinct */
  return d;
}

/* A reference to the list's line at position d (cb_stackdist_mru_find,
 * d >= 1) while the front is on (!sd->bypass): its distance counted, the
 * line moved to the front. */
static inline __attribute__((always_inline)) void
cb_stackdist_mru_hit(cb_stackdist *sd, uint64_t line, uint32_t d) {
#pragma GCC unroll 8
  for (uint32_t i = SD_MRU - 1; i > 0; i--)
    if (i <= d)
      sd->mru[i] = sd->mru[i - 1];
  sd->mru[0] = line;
  if (d >= sd->mru_dirty)
    sd->mru_dirty = d + 1;
  sd->mru_moves++;
  if (d >= sd->hist_len) /* hist_cap is 64 at least */
    sd->hist_len = (size_t)d + 1;
  sd->hist[d]++;
}

/* Records a reference to `line`; returns its distance or SD_COLD. A
 * repeated reference to the most recent line costs a compare, one to the
 * list's other lines a few more: they change no order below. */
static inline uint64_t cb_stackdist_ref(cb_stackdist *sd, uint64_t line) {
  if (line == sd->mru[0]) {
    sd->hist[0]++;
    return 0;
  }
  /* (with the front off the list holds no other line) */
  uint32_t d = sd->bypass ? 0 : cb_stackdist_mru_find(sd, line);
  if (d) {
    cb_stackdist_mru_hit(sd, line, d);
    return d;
  }
  return cb_stackdist_ref_new(sd, line);
}

/* Adds `count` references at distance d to the histogram without
 * touching the last-reference order: for callers that know the order
 * would come out the same (affine.c's warps). */
void cb_stackdist_add_refs(cb_stackdist *sd, uint64_t d, uint64_t count);

/* Misses of a fully associative LRU cache of `lines` lines. */
uint64_t cb_stackdist_fa_misses(const cb_stackdist *sd, uint64_t lines);
/* All references recorded. */
uint64_t cb_stackdist_refs(const cb_stackdist *sd);

/* The distinct lines seen, least recently referenced first, into
 * lines[0 .. sd->distinct - 1] (the caller's); their LRU stack bottom up. */
void cb_stackdist_order(const cb_stackdist *sd, uint64_t *lines);

#endif
