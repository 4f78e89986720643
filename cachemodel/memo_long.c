/* The long-period memo (memo.h): a run of segments that repeats, line
 * for line, the run of P segments before it, for P from MEMO_LONG_MIN to
 * MEMO_LONG_RING - 1, is counted without being run once the caches are
 * at its fixed point.
 *
 * cholesky's initialisation (B = A A^T, 8e9 iterations at LARGE) walks
 * a column of A for every row of B: for t, for r, a block over s. Each
 * (t, r) segment differs from the one before (B's row), so periods 1 and
 * 2 never apply; but the whole r loop of column t makes the same line
 * references as that of column t - 1 in 7 of every 8 columns (eight
 * doubles to a line). memo.c's argument holds for any sequence X, so for
 * X = one r loop: repetition k of X, k past the fixed point
 * (memo_steady_from, on the misses of whole repetitions), counts what
 * repetition k - 1 counted and changes nothing.
 *
 * How. Every segment is kept in a ring of the last MEMO_LONG_RING, as
 * long as the ring's arena (MEMO_LONG_ARENA bytes, each segment at its
 * size) still holds it, with a hash of its line references (equal
 * segments, as memo.c compares them, hash the same) in a table that gives
 * the latest segment with each hash. heat-3d's time step, 27848 segments
 * at LARGE, repeats from the third on: with a ring of 4096 fixed slots of
 * 1432 bytes none was found, and with this one 98 % of its segments are
 * counted (its simulation, one thread, 40 steps: 1.97 -> 0.31 s of CPU).
 * A segment equal to one P back, P >= MEMO_LONG_MIN, starts a candidate
 * period: each following segment must equal the one P back. Every
 * counter is read at each repetition's start and end (every P segments,
 * so reading all sites' counters costs little), which measures it. Once
 * a repetition ran steady (memo_steady_from on the misses of whole
 * repetitions, or the state at its end equal to the state at its start,
 * copied then), the segments of the next are owed: neither run
 * nor counted, the model left as it is, until the repetition is whole
 * and its counters are added; a segment that breaks the repetition first
 * makes the owed ones run for real, from the state the repetition began
 * in, which is where they would have run, unless it is the repetition's
 * last: then the state and counts the steady repetition had before its
 * last segment, copied as it ran, stand for them (pay). Whatever else the
 * periods 1 and 2 and the parts were doing starts over after a repetition
 * counted or paid (their segments before it are no longer the latest), and the
 * period-2 memo's owed segment is paid before each reading, so that a
 * repetition's counters are its own.
 *
 * Cut. Repetition 2 need not run whole to be known: where its state
 * meets repetition 1's at the same place, the rest of it runs the same
 * segments from the same state as repetition 1 did, so it counts what
 * they counted and ends where repetition 1 ended. Repetition 1 is not
 * known as one while it runs, so while no candidate runs the state and
 * counters are copied now and then (probes: 128 segments run apart or
 * more, and 8 first-level accesses per word copied, the last 32 kept); in
 * repetition 2 the state is compared with the probe one period back.
 * From a match on, the segments are owed; when the repetition is whole,
 * repetition 1's counts from the probe to its end are added and its end
 * state, copied when repetition 2 began, is put back. pay()'s tail is
 * the state before the last segment, which no repetition ran to now:
 * it is made from the latest probe of repetition 1 at or after the
 * match, by running the segments from there to the last one (at most
 * 127 at cachegrind's caches; their counts are taken out again).
 * cholesky's columns meet after about 100 of their 2000 segments, the
 * flood of B's rows having refilled every last-level set: a whole
 * simulation took 26.6 s of CPU, 20.7 with the cut (LARGE, one
 * thread). */
#include "hierarchy_internal.h"

#include <stdlib.h>
#include <string.h>

#define MEMO_LONG_TABLE (2 * MEMO_LONG_RING)
/* Probes: one every PROBE_EVERY segments or more (MEMO_LONG_PROBES of
 * them cover the ring), each copy at most PROBE_MAX_WORDS words (512 KiB:
 * cachegrind's caches take 132 KiB; 32 of them 4 MiB). */
#define PROBE_EVERY 128
/* A probe serves only a candidate that starts within the ring's reach of
 * it; while none starts, each probe doubles the spacing, up to this many
 * times PROBE_EVERY, and a candidate brings it back. gemm LARGE, whose
 * segments never repeat, copied 132 KiB every 128 segments: 1.2 GB a
 * hierarchy. cholesky's columns start a candidate every 2000 segments,
 * which keep the spacing at PROBE_EVERY. */
#define PROBE_GAP_MAX 32
#define PROBE_MAX_WORDS ((size_t)1 << 16)

bool memo_long_create(cb_hierarchy *h) {
  memo_long *L = calloc(1, sizeof *L);
  if (!L)
    return false;
  h->memo->lng = L;
  size_t n = memo_n_counters(h);
  L->arena = cb_huge_map(MEMO_LONG_ARENA);
  L->arena_bytes = MEMO_LONG_ARENA_FIRST;
  L->arena_max = MEMO_LONG_ARENA;
  L->slot = malloc(MEMO_LONG_RING * sizeof *L->slot);
  L->seg = malloc(sizeof *L->seg);
  L->table = cb_huge_map(MEMO_LONG_TABLE * sizeof *L->table); /* zeroed */
  L->start = malloc(n * sizeof *L->start);
  L->delta = malloc(n * sizeof *L->delta);
  if (!L->arena || !L->slot || !L->seg || !L->table || !L->start || !L->delta)
    return false;
  for (size_t i = 0; i < MEMO_LONG_RING; i++)
    L->slot[i].seq = UINT64_MAX;
  if (memo_state_copies(h)) {
    const size_t words = memo_state_words(h) + n;
    L->rep_state = malloc(words * sizeof *L->rep_state);
    L->tail = malloc(words * sizeof *L->tail);
    if (!L->rep_state || !L->tail)
      return false;
    if (words <= PROBE_MAX_WORDS) {
      L->probe_bytes = MEMO_LONG_PROBES * words * sizeof *L->probe;
      L->probe = cb_huge_map(L->probe_bytes);
      L->cut_counters = malloc(n * sizeof *L->cut_counters);
      L->cut_tmp = malloc(2 * n * sizeof *L->cut_tmp);
      if (!L->probe || !L->cut_counters || !L->cut_tmp)
        return false;
      L->probe_every = PROBE_EVERY;
      L->probe_acc = 8 * words;
    }
  }
  memo_long_reset(L);
  return true;
}

void memo_long_free(memo_long *L) {
  if (!L)
    return;
  cb_huge_unmap(L->arena, MEMO_LONG_ARENA);
  free(L->slot);
  free(L->seg);
  cb_huge_unmap(L->table, MEMO_LONG_TABLE * sizeof *L->table);
  free(L->start);
  free(L->delta);
  free(L->rep_state);
  free(L->tail);
  cb_huge_unmap(L->probe, L->probe_bytes);
  free(L->cut_counters);
  free(L->cut_tmp);
  free(L);
}

/* Segment numbers go on across resets, so that the table's and the
 * ring's entries from before are out of reach (below the floor, or of
 * numbers never asked again) without clearing 1 MiB of table for every
 * input (the Table V workload resets for each of its 1000). */
void memo_long_reset(memo_long *L) {
  L->floor = L->seq;
  L->period = L->len = L->owed = 0;
  L->skipped = L->tails = L->steady_by_state = 0;
  memset(L->probe_seq, 0, sizeof L->probe_seq);
  L->probe_next = 0;
  L->probe_last_seq = L->seq;
  L->probe_last_acc = L->probe_last_skipped = 0;
  L->probe_gap = L->probe_every;
  L->candidate_since_probe = false;
  L->cut = false;
  L->cuts = 0;
  L->head += L->arena_bytes; /* every segment put before is gone */
  L->ring_drops = 0;
}

/* One link of the hash chain: an xor and a multiply (its latency is the
 * loop's); each word is made off the chain, and the end avalanches. A
 * shift-add mix per field, three or four fields an element, all on the
 * chain, took most of memo_long_take's 8 % of doitgen LARGE's samples. */
static inline uint64_t link(uint64_t h, uint64_t w) {
  return (h ^ w) * 0x9E3779B97F4A7C15ull;
}

/* A hash of the held-back records and block b that equal segments
 * (memo_same_records, memo_same_block) share: lines where they compare
 * lines, the values themselves elsewhere. */
static uint64_t segment_hash(const seg_memo *m, const cb_affine_block *b) {
  uint64_t h = link(b->n_iter, b->n_acc * 1000003ull + m->n_pend);
  for (uint32_t i = 0; i < m->n_pend; i++) {
    const cb_access *x = &m->pend[i];
    uint64_t line = x->addr >> m->shift;
    uint64_t span = (access_end(x->addr, x->size) >> m->shift) - line;
    h = link(h, line ^ span << 58 ^
                    ((uint64_t)x->site << 1 | x->is_write) *
                        0xC2B2AE3D27D4EB4Full);
  }
  const uint64_t line_mask = (1ull << m->shift) - 1;
  for (uint32_t j = 0; j < b->n_acc; j++) {
    const cb_affine_access *a = &b->acc[j];
    uint64_t at = a->base;
    if (((uint64_t)a->stride & line_mask) == 0) {
      uint64_t line = a->base >> m->shift;
      at = line ^ ((access_end(a->base, a->size) >> m->shift) - line) << 58;
    }
    h = link(h, (uint64_t)a->stride * 0x165667B19E3779F9ull ^
                    ((uint64_t)a->site << 17 | (uint64_t)a->size << 1 |
                     a->is_write));
    h = link(h, at);
  }
  h ^= h >> 32;
  h *= 0xFF51AFD7ED558CCDull;
  return h ^ h >> 29;
}

/* The ring's layout of a segment: its iterations, record and access
 * counts, then its records and its block's accesses (8-byte words). */
typedef struct ring_head {
  uint64_t n_iter;
  uint32_t n_rec, n_acc;
} ring_head;

static uint64_t ring_bytes(uint32_t n_rec, uint32_t n_acc) {
  return sizeof(ring_head) + n_rec * sizeof(cb_access) +
         n_acc * sizeof(cb_affine_access);
}

/* Where the next segment of `bytes` goes (a segment never wraps: the
 * arena's end is skipped), as a position in head's count. */
static uint64_t ring_next_pos(const memo_long *L, uint64_t bytes) {
  const uint64_t off = L->head % L->arena_bytes;
  return off + bytes > L->arena_bytes ? L->head + (L->arena_bytes - off)
                                      : L->head;
}

/* Segment s, unpacked (into L->seg, valid until the next call), or NULL
 * if the ring no longer holds it. */
static const memo_seg *ring_at(memo_long *L, uint64_t s) {
  const struct memo_ring_slot *x = &L->slot[s % MEMO_LONG_RING];
  if (x->seq != s || L->head > x->pos + L->arena_bytes)
    return NULL;
  const uint8_t *p = L->arena + x->pos % L->arena_bytes;
  ring_head rh;
  memcpy(&rh, p, sizeof rh);
  memo_seg *g = L->seg;
  g->valid = true;
  g->n_iter = rh.n_iter;
  g->n_rec = rh.n_rec;
  g->n_acc = rh.n_acc;
  p += sizeof rh;
  memcpy(g->rec, p, rh.n_rec * sizeof *g->rec);
  memcpy(g->acc, p + rh.n_rec * sizeof *g->rec, rh.n_acc * sizeof *g->acc);
  return g;
}

/* Whether segment s is in the ring's slots but its bytes were written
 * over: a candidate lost to the arena's reach. */
static bool ring_lost(const memo_long *L, uint64_t s) {
  const struct memo_ring_slot *x = &L->slot[s % MEMO_LONG_RING];
  return x->seq == s && L->head > x->pos + L->arena_bytes;
}

/* Doubles the arena, when it may (no candidate runs, nothing is owed).
 * Each segment's place is its position modulo the arena's size, so every
 * segment put before is given up, as memo_long_reset does, and with them
 * the probes and the candidates they could start: the next repetition,
 * now within reach, is found one period later. */
static void ring_grow(memo_long *L) {
  if (L->arena_bytes >= L->arena_max || L->period || L->owed)
    return;
  L->arena_bytes =
      2 * L->arena_bytes < L->arena_max ? 2 * L->arena_bytes : L->arena_max;
  L->head += L->arena_bytes; /* out of reach: pos + arena_bytes < head */
  L->floor = L->seq;
  memset(L->probe_seq, 0, sizeof L->probe_seq);
  L->probe_next = 0;
  L->probe_last_seq = L->seq;
  L->candidate_since_probe = false;
  L->cut = false;
  L->ring_grown++;
}

/* The held-back records and block b into the ring as segment s. */
static void ring_put(memo_long *L, const seg_memo *m, uint64_t s,
                     const cb_affine_block *b) {
  const uint64_t bytes = ring_bytes(m->n_pend, b->n_acc);
  const uint64_t pos = ring_next_pos(L, bytes);
  uint8_t *p = L->arena + pos % L->arena_bytes;
  const ring_head rh = {b->n_iter, m->n_pend, b->n_acc};
  memcpy(p, &rh, sizeof rh);
  p += sizeof rh;
  memcpy(p, m->pend, m->n_pend * sizeof *m->pend);
  memcpy(p + m->n_pend * sizeof *m->pend, b->acc, b->n_acc * sizeof *b->acc);
  L->head = pos + bytes;
  L->slot[s % MEMO_LONG_RING] = (struct memo_ring_slot){s, pos};
}

/* Whether putting the segment at hand would write over an owed one (the
 * oldest owed is the first to go). */
static bool ring_overwrites_owed(const memo_long *L, const seg_memo *m,
                                 const cb_affine_block *b) {
  if (!L->owed)
    return false;
  const uint64_t bytes = ring_bytes(m->n_pend, b->n_acc);
  const uint64_t oldest = L->slot[(L->seq - L->owed) % MEMO_LONG_RING].pos;
  return ring_next_pos(L, bytes) + bytes > oldest + L->arena_bytes;
}

/* Whether the held-back records and block b equal segment s (NULL: one
 * the ring no longer holds). */
static bool same_as(const seg_memo *m, const memo_seg *s,
                    const cb_affine_block *b) {
  return s && memo_same_block(m, s, b) && memo_same_records(m, s);
}

/* Runs segments from to to - 1 of the ring, as they were: the owed
 * segments of the repetition at hand, which the ring still holds
 * (memo_long_take makes sure of it). */
static void run_ring(cb_hierarchy *h, uint64_t from, uint64_t to) {
  for (uint64_t s = from; s < to; s++) {
    const memo_seg *x = ring_at(h->memo->lng, s);
    if (!x)
      abort(); /* ring_overwrites_owed failed its promise */
    cb_records_run(h, x->rec, x->n_rec);
    cb_affine_run(h, &(cb_affine_block){x->n_iter, x->n_acc, x->acc});
  }
}

/* Runs the owed segments, the last `owed` ones, as they were; or, when
 * they are all of a repetition but its last segment, takes the state and
 * counts the steady repetition had at that point (its tail, copied as it
 * ran; segments are owed only once one ran steady): the owed segments are that
 * repetition's, line for line, from the state it started from (every repetition
 * past the fixed point starts from the same one), so they would count what it
 * counted up to there and leave the state it had there. cholesky's
 * initialisation needs this: each of its segments holds the records before its
 * block, so the repetitions run from (t, 1) to (t + 1, 0), and the last of
 * every eight columns ends in the next column's lines. */
static void pay(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  if (L->tail && !L->cut && L->owed == L->period - 1) {
    const size_t words = memo_state_words(h);
    memo_state_restore(h, L->tail);
    memo_add_counters(h, L->tail + words, L->rep_state + words);
    L->skipped += L->owed;
    L->tails++;
    L->owed = 0;
    return;
  }
  run_ring(h, L->seq - L->owed, L->seq);
  L->owed = 0;
  L->cut = false; /* repetition 2's owed segments ran from its cut */
}

static uint64_t *probe_at(memo_long *L, uint32_t slot, size_t words) {
  return L->probe + (size_t)slot * words;
}

/* A probe of the state before segment L->seq, when the last is far
 * enough back (while no candidate runs: repetition 1 of the next one
 * may be under way). */
static void probe_take(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  const uint64_t acc = h->levels[0].accesses;
  /* segments run since the last probe: where the short memos skip most,
   * a cut would save little, and the copies cost (doitgen LARGE: 3.3 M
   * of its 3.4 M segments skipped, a copy every 280 segments took 6 %
   * of its simulation) */
  const uint64_t ran =
      L->seq - L->probe_last_seq - (h->memo->skipped - L->probe_last_skipped);
  if (!L->probe || ran < L->probe_gap || acc - L->probe_last_acc < L->probe_acc)
    return;
  memo_pay_pair(h); /* the state the stream's */
  const size_t words = memo_state_words(h) + memo_n_counters(h);
  memo_copy_take(h, probe_at(L, L->probe_next, words));
  L->probe_seq[L->probe_next] = L->seq + 1;
  L->probe_next = (L->probe_next + 1) % MEMO_LONG_PROBES;
  L->probe_last_seq = L->seq;
  L->probe_last_acc = acc;
  L->probe_last_skipped = h->memo->skipped;
  if (!L->candidate_since_probe && L->probe_gap < PROBE_GAP_MAX * PROBE_EVERY)
    L->probe_gap *= 2;
  L->candidate_since_probe = false;
}

/* In repetition 2, before its segment at L->seq: the probe taken one
 * period back, in repetition 1, if any; if the state is the probe's,
 * the cut. L->delta becomes the whole repetition's counts: repetition
 * 2's up to here and repetition 1's from the probe on. */
static void probe_compare(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  const uint64_t want = L->seq - L->period + 1;
  uint32_t slot = MEMO_LONG_PROBES;
  for (uint32_t i = 0; i < MEMO_LONG_PROBES; i++)
    slot = L->probe_seq[i] == want ? i : slot;
  if (slot == MEMO_LONG_PROBES)
    return;
  memo_pay_pair(h);
  const size_t n = memo_n_counters(h), words = memo_state_words(h) + n;
  const uint64_t *p = probe_at(L, slot, words);
  if (!memo_state_equal(h, p))
    return;
  memo_read_counters(h, L->cut_counters);
  p += words - n;
  for (size_t k = 0; k < n; k++)
    L->delta[k] = L->cut_counters[k] - p[k];
  L->steady = true;
  L->cut = true;
  L->cut_probe = slot;
  L->cuts++;
}

/* Repetition 2, cut, is whole: the counts of repetition 1 from the cut's
 * probe on added, the state where repetition 1 ended (rep_state), and
 * the tail pay() takes, which no repetition ran to: the state before the
 * last segment, from the latest probe of repetition 1 at or after the
 * cut's, the segments from there to the last run (and their counts taken
 * out again). */
static void finish_cut(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  const size_t n = memo_n_counters(h), words = memo_state_words(h) + n;
  const uint64_t rep2 = L->seq - L->period, rep1 = rep2 - L->period;
  const uint64_t *pc = probe_at(L, L->cut_probe, words) + words - n;
  memo_add_counters(h, L->start, pc);
  uint32_t q = L->cut_probe;
  for (uint32_t i = 0; i < MEMO_LONG_PROBES; i++)
    if (L->probe_seq[i] > L->probe_seq[q] && L->probe_seq[i] <= rep2)
      q = i;
  uint64_t *cur = L->cut_tmp, *after = L->cut_tmp + n;
  memo_read_counters(h, cur);
  memo_state_restore(h, probe_at(L, q, words));
  run_ring(h, rep2 + (L->probe_seq[q] - 1 - rep1), L->seq - 1);
  memo_read_counters(h, after);
  memo_copy_take(h, L->tail);
  const uint64_t *pq = probe_at(L, q, words) + words - n;
  for (size_t k = 0; k < n; k++)
    L->tail[words - n + k] =
        L->cut_counters[k] + pq[k] - pc[k] + after[k] - cur[k];
  memo_add_counters(h, cur, after);
  memo_state_restore(h, L->rep_state);
  L->cut = false;
}

void memo_long_settle(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  if (!L)
    return;
  if (L->owed)
    pay(h);
  L->period = 0;
  L->cut = false;
  /* What comes now reaches the model outside the segments (a lone
   * access, records past the hold, a block too wide for the memo): a
   * run of segments from before it is not the stream's any more, and no
   * candidate may start from one. */
  L->floor = L->seq;
}

/* The candidate period ends (the segment at hand does not repeat). */
static void drop(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  if (L->owed) {
    pay(h);
    memo_restart(h);
  }
  L->period = 0;
  L->cut = false;
}

bool memo_long_take(cb_hierarchy *h, const cb_affine_block *b) {
  seg_memo *m = h->memo;
  memo_long *L = m->lng;
  if (!L)
    return false;
  uint64_t hash = segment_hash(m, b);
  /* the owed segments must stay in the ring until paid or counted */
  if (ring_overwrites_owed(L, m, b)) {
    drop(h);
    L->ring_drops++;
    ring_grow(L);
  }
  if (L->period) {
    if (same_as(m, ring_at(L, L->seq - L->period), b))
      L->len++;
    else
      drop(h);
  }
  if (!L->period) {
    /* a new candidate: the latest segment with this hash, if equal */
    uint64_t *slot = &L->table[hash % MEMO_LONG_TABLE];
    uint64_t j = *slot; /* its number + 1, or 0 */
    if (j && j - 1 >= L->floor && L->seq - (j - 1) >= MEMO_LONG_MIN &&
        L->seq - (j - 1) < MEMO_LONG_RING) {
      if (ring_lost(L, j - 1))
        ring_grow(L);
      else if (same_as(m, ring_at(L, j - 1), b)) {
        memo_pay_pair(h); /* the repetition's counters its own */
        L->period = L->seq - (j - 1);
        L->len = 1;
        L->probe_gap = L->probe_every;
        L->candidate_since_probe = true;
        L->rep = 2;
        L->steady = false;
        memo_read_counters(h, L->start);
        if (L->rep_state)
          memo_copy_take(h, L->rep_state);
      }
    }
    if (!L->period)
      probe_take(h);
  }
  if (L->period && L->rep == 2 && !L->steady && L->probe)
    probe_compare(h);
  L->table[hash % MEMO_LONG_TABLE] = L->seq + 1;
  /* Into the ring; the held-back records are this segment's. */
  ring_put(L, m, L->seq, b);
  L->seq++;
  if (L->period && !L->steady && L->tail && L->len % L->period == 0) {
    /* the last segment of a repetition that runs: pay()'s tail */
    memo_pay_pair(h);
    memo_copy_take(h, L->tail);
  }
  if (!L->period || !L->steady)
    return false;
  /* Owed: the repetition is counted when whole. */
  m->n_pend = 0;
  L->owed++;
  if (L->len % L->period == 0) {
    if (L->cut)
      finish_cut(h);
    else
      memo_add_counters(h, L->delta, NULL);
    L->skipped += L->owed;
    L->owed = 0;
    memo_restart(h);
  }
  return true;
}

void memo_long_done(cb_hierarchy *h) {
  memo_long *L = h->memo->lng;
  if (!L || !L->period || L->len % L->period != 0)
    return;
  /* A repetition ran whole: its counters, and whether it was steady. */
  memo_pay_pair(h);
  size_t n = memo_n_counters(h);
  uint64_t *now = L->delta; /* reused: delta = now - start */
  uint64_t *start = L->start;
  memo_read_counters(h, now);
  for (size_t k = 0; k < n; k++) {
    uint64_t v = now[k];
    now[k] = v - start[k];
    start[k] = v;
  }
  uint32_t r = L->rep;
  if (r <= h->n_levels + 1)
    for (unsigned l = 0; l < h->n_levels; l++)
      L->run_misses[r][l] = now[4 * l + 2];
  L->steady = r >= memo_steady_from(L->run_misses, h->n_levels, r);
  /* A repetition that ended in the state it began in is steady whatever
   * it missed: the next one runs the same segments from the same state,
   * so it counts the same and ends there too. cholesky's initialisation
   * misses B's rows at the LL in every repetition, which memo_steady_from
   * must take as the LL not steady yet, but its repetitions end with the
   * same lines of A's column and B's last rows in every set. */
  if (!L->steady && L->rep_state && memo_state_equal(h, L->rep_state)) {
    L->steady = true;
    L->steady_by_state++;
  }
  /* kept from a steady repetition's start: pay()'s counts from there */
  if (L->rep_state && !L->steady)
    memo_copy_take(h, L->rep_state);
  if (r < CB_MAX_LEVELS + 1)
    L->rep++;
}
