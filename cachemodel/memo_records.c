/* The record memo (memo.h): a stretch of records that repeats an earlier
 * stretch, from the same cache state, is counted without being run.
 *
 * Why. Where addresses come from loaded data there are no affine blocks,
 * and the segment memo (memo.c), whose segments end at blocks, never
 * applies. Yet iterative programs walk the same data the same way again
 * and again: PageRank's iterations over a graph that does not change,
 * a solver's sparse matrix-vector products. Their record streams repeat
 * exactly, unit after unit, and each unit touches far more lines than the
 * cache holds.
 *
 * Why it is exact. The model is deterministic: the same records run from
 * the same state make the same counts and leave the same state. So if
 * the state at the end of a unit U of records equals the state at its
 * start, and the records that follow are U again, they count what U
 * counted and leave the state as it is, and so on for every further
 * repetition. Nothing here depends on the policy; the state compared is
 * every level's tag array and last line (the repeat fast path's), which
 * is all of it for the levels the memo runs on (memo_init: LRU,
 * write-allocate, no classification; and no wide sets here). Under LRU
 * the state does come back: a unit run twice leaves what it left once
 * (memo.c's argument), so from the third repetition on (with two levels)
 * the state at each point of the unit is the one a repetition before.
 *
 * Units are found by cutting the stream into chunks where its content
 * says so, not at fixed counts, so that equal stretches are cut alike
 * wherever batches begin (content-defined chunking, as backup tools
 * deduplicate: a gear hash over the last 64 records, a cut where its top
 * bits are zero, chunks of at least min_chunk records). Each chunk is
 * hashed; a chunk equal to one seen P chunks earlier makes P a candidate
 * period, and from then on the state and the counters are copied at
 * every cut (a ring of P copies). Once a whole unit of P chunks repeated
 * and the state at a cut equals the copy from P cuts before, the memo
 * skips: it hashes the chunks that come, without running them, and adds
 * the unit's counts for each whole repetition. A chunk that differs from
 * the unit's chunk at the same place ends the skip: the state becomes the
 * copy taken at that place, the counts of the unit up to there are
 * added, and the chunk, held back while it was hashed, runs.
 *
 * Chunks are compared by a 128-bit hash of their line references (at the
 * smallest line, the first and last line of each record, its site and
 * direction, and its place in the chunk): two different chunks agree on
 * it with a probability of about 2^-128, where comparing them record by
 * record would mean keeping every record of a unit (74 MB for PageRank
 * on 10^5 vertices). */
#include "hierarchy_internal.h"

#include <stdlib.h>
#include <string.h>

/* Chunks of 2^17 records at least, then a cut with probability 2^-12 a
 * record: about 132 Ki records (2 MiB) a chunk; a chunk ends at 4 times
 * the least whatever its content says. */
#define RM_MIN_CHUNK (1u << 17)
#define RM_CUT_BITS 12
/* Chunks of history (periods up to RM_RING - 1 chunks), the table that
 * finds a chunk's latest equal, and the most memory the copies of the
 * state may take. */
#define RM_RING 1024
#define RM_TABLE 4096
#define RM_MAX_COPIES ((size_t)64 << 20)

/* Odd multipliers (splitmix64's, murmur3's, and the golden ratio's). */
#define K_WEAK 0x9e3779b97f4a7c15ull
#define K_POS 0x94d049bb133111ebull
#define K_LINE2 0xbf58476d1ce4e5b9ull
#define K_REST2 0xc4ceb9fe1a85ec53ull
#define K_POS2 0xd6e8feb86659fd93ull
#define K_LINE3 0xff51afd7ed558ccdull
#define K_REST3 0x2545f4914f6cdd1dull

/* A chunk's hashes: h1 of its records' addresses, cheap, which finds
 * candidates; h2 and h3 of its line references, kept only while a
 * candidate period exists, which decide (with h1). */
typedef struct rm_chunk {
  uint64_t h1, h2, h3;
  bool strong;
} rm_chunk;

struct rec_memo {
  uint32_t shift; /* the smallest line's */
  uint64_t min_chunk, max_chunk, cut_mask;
  /* The chunk being hashed. */
  bool active; /* records came since the last settle */
  bool strong; /* h2 and h3 are kept (a candidate period exists) */
  uint64_t gear, h1, h2, h3, pos;
  /* History: chunk s at ring[s % RM_RING]; table: a chunk's first hash
   * to the latest chunk's number + 1 (0: none). */
  uint64_t seq;
  rm_chunk ring[RM_RING];
  uint64_t table[RM_TABLE];
  /* The candidate period (0: none), the chunks in a row equal to the
   * one a period back, and the cuts copied since it became one. */
  uint64_t period, len, copies;
  /* The copies: copy of cut c at slot c % period, each copy_words long:
   * every level's tags and last line, then every counter. */
  uint64_t *slots;
  size_t slots_cap; /* words */
  size_t state_words, copy_words;
  /* Skipping: the unit's chunks, the slot of its first cut, the chunks
   * of the current repetition already matched, the counters at its end
   * (from its first cut's copy to these: what a repetition counts), and
   * the current chunk's records, held back. */
  bool skipping;
  rm_chunk *unit;
  uint64_t unit_slot, unit_at;
  uint64_t *unit_end; /* the counters at the unit's end (a copy) */
  cb_access *held;
  size_t n_held, held_cap;
  uint64_t skipped; /* records counted without running them */
};

/* One round of a 64-bit finaliser: what is hashed is mixed before it is
 * summed, so that stretches that differ by a pattern do not cancel. */
static inline uint64_t mix(uint64_t x) {
  x ^= x >> 32;
  x *= 0xd6e8feb86659fd93ull;
  x ^= x >> 32;
  return x;
}

/* Two words mixed into one by their full 128-bit product, folded (the
 * multiply-and-fold of wyhash, Wang Yi's hash): each output bit depends
 * on every input bit, for one multiply. */
static inline uint64_t mix2(uint64_t a, uint64_t b) {
  unsigned __int128 p = (unsigned __int128)a * b;
  return (uint64_t)p ^ (uint64_t)(p >> 64);
}

rec_memo *rmemo_create(const cb_hierarchy *h) {
  if (!memo_state_copies(h))
    return NULL;
  rec_memo *r = calloc(1, sizeof *r);
  if (!r)
    return NULL;
  r->shift = h->memo->shift;
  rmemo_set_chunks(r, RM_MIN_CHUNK, RM_CUT_BITS);
  r->state_words = memo_state_words(h);
  r->copy_words = r->state_words + memo_n_counters(h);
  return r;
}

void rmemo_set_chunks(rec_memo *r, uint64_t min_chunk, unsigned cut_bits) {
  r->min_chunk = min_chunk;
  r->max_chunk = 4 * min_chunk;
  r->cut_mask = ~0ull << (64 - cut_bits);
}

void rmemo_free(rec_memo *r) {
  if (!r)
    return;
  free(r->slots);
  free(r->unit);
  free(r->unit_end);
  free(r->held);
  free(r);
}

uint64_t rmemo_skipped(const rec_memo *r) {
  return r ? r->skipped : 0;
}

static uint64_t *slot(rec_memo *r, uint64_t cut) {
  return r->slots + (size_t)(cut % r->period) * r->copy_words;
}

/* A record's line references but the first line, as one word: its
 * site and direction above its span in lines (no real access spans more
 * than 2^15). */
static inline uint64_t rest_of(const cb_access *a, uint64_t first,
                               uint32_t shift) {
  uint64_t span = (access_end(a->addr, a->size) >> shift) - first;
  return (uint64_t)a->site << 16 | (uint64_t)(a->is_write != 0) << 15 |
         (span < 0x7fff ? span : 0x7fff);
}

/* One record into the gear and h1 (its address, one multiply: this runs
 * on every record of every stream), and, if strong, into h2 and h3 (two
 * independent hashes of its line references and place, each one 128-bit
 * multiply of the first line and the rest, the place and a different
 * pair of odd constants mixed into its words first: two multiplies a
 * record where four each cost pr 0.11 s more CPU time (mean of 5 runs),
 * for the same report). Where the chunk is cut depends on the content
 * alone, the hashes on the place too. */
static inline __attribute__((always_inline)) void
hash_record(const cb_access *a, uint64_t pos, uint32_t shift, bool strong,
            uint64_t *g, uint64_t *h1, uint64_t *h2, uint64_t *h3) {
  uint64_t t = a->addr * K_WEAK;
  *g = (*g << 1) + (t >> 32);
  *h1 += t;
  if (strong) {
    uint64_t first = a->addr >> shift, rest = rest_of(a, first, shift);
    uint64_t place = pos * K_POS2;
    *h2 += mix2(first ^ place ^ K_LINE2, rest ^ K_REST2);
    *h3 += mix2(first ^ K_LINE3, rest ^ place ^ K_REST3);
  }
}

/* Hashes n records into the current chunk, and, with `cuts`, stops
 * after the first that ends it (returns how many it took; *cut whether
 * it ended the chunk). */
static inline __attribute__((always_inline)) size_t
scan_as(rec_memo *r, const cb_access *a, size_t n, bool cuts, bool *cut,
        bool strong) {
  uint64_t g = r->gear, h1 = r->h1, h2 = r->h2, h3 = r->h3, pos = r->pos;
  const uint64_t mask = r->cut_mask, max = r->max_chunk;
  const uint32_t shift = r->shift;
  size_t i = 0;
  *cut = false;
  while (i < n) {
    hash_record(&a[i], pos, shift, strong, &g, &h1, &h2, &h3);
    i++;
    pos++;
    if (cuts && ((g & mask) == 0 || pos >= max)) {
      *cut = true;
      break;
    }
  }
  r->gear = g;
  r->h1 = h1;
  r->h2 = h2;
  r->h3 = h3;
  r->pos = pos;
  return i;
}

static __attribute__((noinline)) size_t
scan_weak(rec_memo *r, const cb_access *a, size_t n, bool cuts, bool *cut) {
  return cuts ? scan_as(r, a, n, true, cut, false)
              : scan_as(r, a, n, false, cut, false);
}

static size_t scan(rec_memo *r, const cb_access *a, size_t n, bool cuts,
                   bool *cut) {
  return r->strong ? scan_as(r, a, n, cuts, cut, true)
                   : scan_weak(r, a, n, cuts, cut);
}

/* Equal as far as both chunks' hashes tell (candidates). */
static bool chunk_equal(const rm_chunk *x, const rm_chunk *y) {
  return x->h1 == y->h1 &&
         (!x->strong || !y->strong || (x->h2 == y->h2 && x->h3 == y->h3));
}

static void forget_period(rec_memo *r) {
  r->period = r->len = r->copies = 0;
  r->strong = false;
}

/* Ends the skip: the state and counters are those of the unit's cut
 * reached (unit_at chunks matched), and the held records run. */
static void leave_skip(cb_hierarchy *h, rec_memo *r) {
  if (r->unit_at) {
    const uint64_t *to = slot(r, r->unit_slot + r->unit_at);
    const uint64_t *from = slot(r, r->unit_slot);
    memo_state_restore(h, to);
    memo_add_counters(h, to + r->state_words, from + r->state_words);
  }
  r->skipping = false;
  r->unit_at = 0;
  cb_records_run(h, r->held, r->n_held);
  r->n_held = 0;
  forget_period(r);
}

/* Starts skipping at cut `cut`, whose state equals the copy of the cut a
 * period before: the unit is the period's chunks since then. */
static bool enter_skip(cb_hierarchy *h, rec_memo *r, uint64_t cut) {
  uint64_t P = r->period;
  rm_chunk *u = realloc(r->unit, P * sizeof *u);
  uint64_t *e = u ? realloc(r->unit_end, r->copy_words * sizeof *e) : NULL;
  if (u)
    r->unit = u;
  if (!e)
    return false;
  r->unit_end = e;
  for (uint64_t k = 0; k < P; k++)
    u[k] = r->ring[(cut - P + k) % RM_RING];
  memo_copy_take(h, e);
  r->unit_slot = cut % P;
  r->unit_at = 0;
  r->n_held = 0;
  r->skipping = true;
  return true;
}

/* A new candidate period for chunk i: the latest earlier chunk equal to
 * it, if the copies of a period fit. */
static uint64_t find_period(const rec_memo *r, uint64_t i, const rm_chunk *c) {
  uint64_t j = r->table[c->h1 % RM_TABLE];
  if (!j-- || i - j >= RM_RING || !chunk_equal(&r->ring[j % RM_RING], c))
    return 0;
  uint64_t P = i - j;
  return P * r->copy_words * sizeof(uint64_t) <= RM_MAX_COPIES ? P : 0;
}

/* The chunk just hashed has ended (its records ran, or are held while
 * skipping). */
static void chunk_end(cb_hierarchy *h, rec_memo *r) {
  rm_chunk c = {r->h1 + mix(r->pos), r->h2 + mix(~r->pos),
                r->h3 + mix(r->pos * K_POS), r->strong};
  uint64_t n = r->pos;
  r->h1 = r->h2 = r->h3 = r->pos = 0;
  uint64_t i = r->seq++;
  r->ring[i % RM_RING] = c;
  if (r->skipping) {
    const rm_chunk *u = &r->unit[r->unit_at];
    if (u->h1 != c.h1 || u->h2 != c.h2 || u->h3 != c.h3) {
      leave_skip(h, r);
    } else {
      r->skipped += n;
      r->n_held = 0;
      r->table[c.h1 % RM_TABLE] = i + 1;
      if (++r->unit_at == r->period) {
        memo_add_counters(h, r->unit_end + r->state_words,
                          slot(r, r->unit_slot) + r->state_words);
        r->unit_at = 0;
      }
      return;
    }
  }
  if (r->period && i >= r->period &&
      chunk_equal(&r->ring[(i - r->period) % RM_RING], &c)) {
    r->len++;
  } else {
    forget_period(r);
    r->period = find_period(r, i, &c);
    r->len = r->period != 0;
    size_t need = (size_t)r->period * r->copy_words;
    if (need > r->slots_cap) {
      uint64_t *s = realloc(r->slots, need * sizeof *s);
      if (s) {
        r->slots = s;
        r->slots_cap = need;
      } else {
        r->period = r->len = 0;
      }
    }
  }
  r->table[c.h1 % RM_TABLE] = i + 1;
  if (!r->period)
    return;
  r->strong = true;
  uint64_t cut = i + 1;
  if (r->copies >= r->period && r->len >= r->period &&
      memo_state_equal(h, slot(r, cut)) && enter_skip(h, r, cut))
    return;
  memo_copy_take(h, slot(r, cut));
  r->copies++;
}

/* Records held back while skipping (false: no room, the skip ended and
 * the caller runs them). */
static bool hold(cb_hierarchy *h, rec_memo *r, const cb_access *a, size_t n) {
  if (r->n_held + n > r->held_cap) {
    cb_access *p = realloc(r->held, r->max_chunk * sizeof *p);
    if (!p) {
      leave_skip(h, r); /* runs what is held */
      return false;
    }
    r->held = p;
    r->held_cap = r->max_chunk;
  }
  memcpy(r->held + r->n_held, a, n * sizeof *a);
  r->n_held += n;
  return true;
}

/* Where a chunk cannot end yet (its first min_chunk records) the records
 * run (or are held) first and are hashed after, from the host's cache
 * (the engine writes them past it, with non-temporal stores). Past
 * min_chunk they are hashed first, up to the cut; with cut_bits small
 * that is a few thousand records a chunk. The hashing costs load_loop's
 * 10^8 records that never repeat 0.05 to 0.15 s of its 1.2 s of
 * simulation (four runs each, alternated). */
void rmemo_run(cb_hierarchy *h, rec_memo *r, const cb_access *batch, size_t n) {
  r->active = true;
  while (n) {
    bool cut = false;
    size_t k;
    if (r->pos < r->min_chunk) {
      k = r->min_chunk - r->pos < n ? (size_t)(r->min_chunk - r->pos) : n;
      if (!r->skipping || !hold(h, r, batch, k))
        cb_records_run(h, batch, k);
      scan(r, batch, k, false, &cut);
    } else {
      k = scan(r, batch, n, true, &cut);
      if (!r->skipping || !hold(h, r, batch, k))
        cb_records_run(h, batch, k);
    }
    if (cut)
      chunk_end(h, r);
    batch += k;
    n -= k;
  }
}

void rmemo_settle(cb_hierarchy *h, rec_memo *r) {
  if (!r || !r->active)
    return;
  if (r->skipping)
    leave_skip(h, r);
  forget_period(r);
  r->gear = r->h1 = r->h2 = r->h3 = r->pos = 0;
  r->active = false;
}

void rmemo_reset(rec_memo *r) {
  if (!r)
    return;
  r->skipping = false;
  r->n_held = 0;
  r->unit_at = 0;
  forget_period(r);
  r->gear = r->h1 = r->h2 = r->h3 = r->pos = 0;
  r->active = false;
  r->seq = 0;
  r->skipped = 0;
  memset(r->table, 0, sizeof r->table);
}
