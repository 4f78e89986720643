/* The memos: repeated stretches of a stream counted without being run.
 * Internal to cachemodel (memo.c has the argument; memo_records.c's, for
 * streams without blocks, is its own).
 *
 * A segment is the records that arrive after an affine block, up to and
 * with the next block. Loop nests emit the same segment, line for line,
 * many times in a row (a column walk repeats its lines for every element
 * of a line along the row: 8 doubles in 64 bytes), or the same two in
 * turn (a loop body with two inner loops, as gramschmidt's); once enough
 * of them ran, the next ones change no cache state and add the same
 * counts. */
#ifndef CBANA_CACHEMODEL_MEMO_H
#define CBANA_CACHEMODEL_MEMO_H

#include "cbana/stream.h"

#include <stdbool.h>
#include <stdint.h>

/* The most records held back for a segment (fdtd-2d's time step stores
 * a row of ey as 40 records: with 32, every step settled the memo), and
 * accesses per block (the affine loop's own limit). */
#define MEMO_MAX_RECORDS 64
#define MEMO_MAX_ACC 16
#define MEMO_MAX_SITES (MEMO_MAX_RECORDS + MEMO_MAX_ACC)

/* What a segment changed: every counter the hierarchy keeps without
 * classification. */
typedef struct memo_delta {
  uint64_t accesses[CB_MAX_LEVELS], writes[CB_MAX_LEVELS];
  uint64_t misses[CB_MAX_LEVELS], write_misses[CB_MAX_LEVELS];
  uint32_t n_sites;
  uint32_t site[MEMO_MAX_SITES];
  uint64_t site_accesses[MEMO_MAX_SITES][CB_MAX_LEVELS];
  uint64_t site_misses[MEMO_MAX_SITES][CB_MAX_LEVELS];
  uint64_t slow_accesses;
  cb_affine_stats affine;
} memo_delta;

/* A segment as it ran (or was skipped): its records, its block, and
 * what running it changed. */
typedef struct memo_seg {
  bool valid;
  uint8_t delta_of; /* seg_memo.delta[delta_of]: what it changed, as
                       measured when it ran, else its equal's */
  uint32_t n_rec, n_acc;
  uint64_t n_iter;
  /* the block first: memo_same_block reads the header and acc[], which
   * are then a line or two, and the records only if they matched (the
   * long memo's ring of 4096 segments, 8 MiB, is out of the host's
   * caches) */
  cb_affine_access acc[MEMO_MAX_ACC];
  cb_access rec[MEMO_MAX_RECORDS];
} memo_seg;

/* The repeats of one period P (1 or 2): segment i equal to segment
 * i - P. `len` counts the segments of the current periodic stretch, the
 * P that first made up the repeated unit included; the unit's
 * repetition k is measured (run_misses[k], for k = 2 .. L + 1) and the
 * memo is steady once a whole repetition ran at the fixed point. */
typedef struct memo_track {
  uint32_t len;
  bool steady;
  uint64_t rep_misses[CB_MAX_LEVELS]; /* the repetition running */
  uint64_t run_misses[CB_MAX_LEVELS + 2][CB_MAX_LEVELS];
} memo_track;

/* The part memo (memo_parts.c): the cache's sets split into parts by
 * address bits that every level's set index holds, so that no reference
 * in one part ever touches another's sets; each part is a hierarchy of
 * its own, and the memo's argument holds for it alone. A segment whose
 * block repeats the one before but whose records moved (a store walking
 * a column beside a column walk that stays) changes the references of a
 * few parts only: the other parts, once steady, are counted; the few run.
 * Hierarchies of up to MEMO_PART_LEVELS levels, segments of up to
 * MEMO_PART_SITES sites. */
#define MEMO_MAX_PARTS 64
#define MEMO_PART_LEVELS 4
#define MEMO_PART_SITES 16
/* A part's counters for one segment, by slot: a slot is a site and a
 * direction (memo_parts.c), and holds its first-level accesses, then
 * its misses at each level ([slot * (1 + levels) + 1 + level]); every
 * other counter follows from these. */
#define MEMO_PART_COUNTERS (MEMO_PART_SITES * (1 + MEMO_PART_LEVELS))

typedef struct memo_part {
  uint64_t run_misses[CB_MAX_LEVELS + 2][CB_MAX_LEVELS]; /* as memo_track */
  uint64_t delta[MEMO_PART_COUNTERS]; /* what its last run counted */
} memo_part;

typedef struct memo_parts {
  bool enabled; /* the hierarchy has parts (memo_parts_init) */
  bool valid;   /* the parts' lens describe the segment before */
  uint32_t shift, n_parts;
  uint64_t min_refs; /* the smallest block run part by part */
  /* Per part: segments in a row whose references there were equal (read
   * only while the part is not steady: a steady part's count matters no
   * more until its references change, which restarts it), and whether its
   * last run was at its fixed point (bit p). Apart from the parts'
   * counters, which a skipped segment does not touch: walking 64 parts
   * of 800 bytes for these took 3 % of doitgen LARGE's samples, and
   * walking the 64 counts 3 % again. */
  uint32_t len[MEMO_MAX_PARTS];
  /* Bit p: len[p] is 1 whatever it holds (set for many parts at once by
   * a run whole or a skip, each len written when its part next runs: the
   * loop over 64 parts took 4 % of doitgen LARGE's samples). */
  uint64_t len_one;
  uint64_t steady;
  memo_part part[MEMO_MAX_PARTS];
  uint64_t sum[MEMO_PART_COUNTERS]; /* the deltas of all parts */
  uint64_t out[MEMO_MAX_PARTS][MEMO_PART_COUNTERS]; /* a run's, by part */
  uint64_t segments;                                /* segments run in parts */
  uint64_t counted; /* parts counted without running them */
  /* The closed form (memo_closed.c) of the block of the last segment run
   * whole, by part, while cf_valid (the segments after it run in parts
   * repeat its block). */
  bool cf_valid;
  /* The segment run whole has not been looked at yet (the closed form
   * is computed when a segment after it runs in parts), and whether its
   * columns missed and its fixed lines hit. */
  bool cf_pending, cf_missed;
  uint64_t cf_fixed; /* the parts of its fixed lines */
  /* its columns' first lines (UINT64_MAX for a fixed access) and step in
   * lines, to tell a record on a column's line */
  uint64_t cf_line[MEMO_MAX_ACC];
  int64_t cf_k;
  /* The parts whose last level has seen, in the segment before, its
   * records' misses and then the block's columns (memo_closed.c). */
  uint64_t cf_est;
  uint64_t cf[MEMO_MAX_PARTS][MEMO_PART_COUNTERS];
  uint64_t closed; /* parts found steady by it after one run */
} memo_parts;

/* Bit p for every part p. */
static inline uint64_t memo_parts_mask(const memo_parts *P) {
  return P->n_parts == 64 ? UINT64_MAX : (1ull << P->n_parts) - 1;
}

static inline uint32_t memo_part_of(const memo_parts *P, uint64_t addr) {
  return (uint32_t)(addr >> P->shift) & (P->n_parts - 1);
}

/* The period of a column walk's sets: a step of K lines visits every
 * n / gcd(K, n)-th of n sets (a power of two), each once per that many
 * steps (the memos' closed forms, memo_closed.c and memo_closed_seg.c). */
static inline uint64_t memo_set_period(int64_t K, uint64_t n) {
  uint64_t x = (uint64_t)K & (n - 1);
  return n / (x ? x & (0 - x) : n); /* gcd with a power of two: low bit */
}

/* The segment's slots: each site with each direction it is used in,
 * once (a site past the hierarchy's n_sites has no per-site counters but
 * a slot all the same), and each record's and access's slot. At most
 * MEMO_PART_SITES. */
typedef struct memo_slots {
  uint32_t n, site[MEMO_PART_SITES];
  bool is_write[MEMO_PART_SITES];
  uint32_t rec_slot[MEMO_MAX_RECORDS], acc_slot[MEMO_MAX_ACC];
} memo_slots;

/* The segment's slots (the held-back records and block b): the records' and
 * accesses' (at most MEMO_PART_SITES), where the part runner can take them:
 * each record inside one line at every level, each access a power-of-two size,
 * aligned to it and no larger than the smallest line. *column: some
 * stride is a line or more (cb_affine_run would not warp the block). */
bool memo_segment_slots(const struct cb_hierarchy *h, const cb_affine_block *b,
                        memo_slots *s, bool *column);

/* The long-period memo (memo_long.c): a run of P segments, P from
 * MEMO_LONG_MIN to MEMO_LONG_RING - 1, equal to the P before it, while
 * the ring's arena of MEMO_LONG_ARENA bytes holds them (segments are
 * kept at their size: a block of eight accesses and two records takes
 * 240 bytes, where a fixed slot took 1432). heat-3d's time step at LARGE
 * is 27848 segments. */
#define MEMO_LONG_MIN 64
#define MEMO_LONG_RING 65536
#define MEMO_LONG_ARENA ((uint64_t)16 << 20)
/* The arena's first size: it doubles, up to MEMO_LONG_ARENA, when a
 * candidate is lost to its reach. Each MiB of it costs about 3 ms of
 * page faults the first time round on a host that hands freed memory
 * back to its hypervisor, and gemm LARGE, whose segments never repeat,
 * wrote all 16 MiB of both hierarchies' rings for nothing. */
#define MEMO_LONG_ARENA_FIRST ((uint64_t)2 << 20)
/* Probes kept: with one every 128 segments or more, all of a ring's. */
#define MEMO_LONG_PROBES 32
typedef struct memo_long {
  uint64_t seq;   /* segments seen */
  uint64_t floor; /* the first segment since the last settle */
  /* The ring: segment s's bytes at arena[pos % arena_bytes], where
   * slot[s % MEMO_LONG_RING] = {s, pos}, while no later segment wrote
   * over them (head, the bytes the arena ever took, at most pos +
   * arena_bytes); a segment read back is unpacked into `seg`. */
  uint8_t *arena;
  /* MEMO_LONG_ARENA_FIRST, doubled up to arena_max (MEMO_LONG_ARENA,
   * the mapping's size); less in the tests (twice the largest segment's
   * bytes at least: one never wraps) */
  uint64_t arena_bytes, arena_max;
  uint64_t head;
  uint64_t ring_drops; /* candidates dropped not to write over owed ones */
  uint64_t ring_grown; /* times the arena doubled */
  struct memo_ring_slot {
    uint64_t seq, pos;
  } * slot;
  memo_seg *seg;
  uint64_t *table; /* by hash: the latest segment's number + 1, or 0 */
  /* The candidate period (0: none), the segments in a row equal to the
   * one period back, the repetition running, whether the last one ran
   * steady, and the segments of the current one owed. */
  uint64_t period, len, owed;
  uint32_t rep;
  bool steady;
  uint64_t run_misses[CB_MAX_LEVELS + 2][CB_MAX_LEVELS];
  uint64_t *start, *delta; /* every counter (memo_long.c) */
  uint64_t skipped;        /* segments counted without running them */
  /* Copies (memo_copy_take: the state, then every counter) of the
   * repetition running, or of the steady one once a repetition is: at its
   * start, and before its last segment (both NULL where the state is not
   * all in tags, memo_state_copies); the repetitions found steady because
   * they ended in their start's state, and the breaks resumed from the
   * tail. */
  uint64_t *rep_state, *tail;
  uint64_t steady_by_state, tails;
  /* Probes (memo_long.c, "Cut"): copies as rep_state's, taken while no
   * candidate runs, at least probe_every segments run and probe_acc
   * first-level accesses apart, the latest MEMO_LONG_PROBES of them; the
   * segment number + 1 each was taken before (0: none), and the slot the
   * next one takes. NULL where copies are not made or too large. */
  uint64_t *probe;
  size_t probe_bytes; /* its mapping's (cb_huge_map) */
  uint64_t probe_seq[MEMO_LONG_PROBES];
  uint32_t probe_next;
  uint64_t probe_every, probe_acc, probe_last_seq, probe_last_acc;
  uint64_t probe_last_skipped; /* seg_memo's skipped then */
  /* The spacing now: probe_every, doubled by each probe taken with no
   * candidate started since the one before (memo_long.c, probe_take). */
  uint64_t probe_gap;
  bool candidate_since_probe;
  /* Repetition 2 cut short: the probe its state met, the counters then,
   * and two spare counter copies; cuts made. */
  bool cut;
  uint32_t cut_probe;
  uint64_t *cut_counters, *cut_tmp;
  uint64_t cuts;
} memo_long;

/* The record memo (memo_records.c): stretches of records that repeat,
 * found by cutting the stream where its content says so, counted without
 * running them once the state they start from repeats too. */
typedef struct rec_memo rec_memo;

typedef struct seg_memo {
  uint32_t shift; /* the smallest line's: equal lines there are equal
                     lines at every level */
  /* The current segment's records, not run yet. */
  uint32_t n_pend;
  cb_access pend[MEMO_MAX_RECORDS];
  /* The last two segments: segment i - 1 in hist[(seq - 1) & 1], i - 2
   * in hist[seq & 1], for the current segment i = seq. */
  uint64_t seq;
  memo_seg hist[2];
  /* Deltas, referred to by the segments (a period-1 skip shares its
   * equal's, not copied: 3 KiB a skip): a run measures into the one
   * segment i - 1 does not use. */
  memo_delta delta[2];
  memo_track period[2]; /* periods 1 and 2 */
  /* A period-2 skip has skipped the first segment of a repetition and
   * not counted it yet (memo.c: skips go by whole repetitions). */
  bool owed;
  /* The last segment skipped was skipped by period 2. */
  bool pairs_last;
  memo_parts parts;
  memo_long *lng;        /* NULL if it could not be allocated */
  rec_memo *rec;         /* NULL: records run as they come */
  uint64_t skipped;      /* segments counted without running them */
  uint64_t skipped_pair; /* of which by period 2 */
  uint64_t closed;       /* segments steady after one run (closed form) */
  uint64_t closed_fit;   /* of which within the first level's ways */
  uint64_t closed_by_ll; /* of which checked by the last level's state */
  /* The segment number a closed form was taken just before (0: none),
   * and how many were followed by their equal (skipped) or not. */
  uint64_t closed_seq, closed_used, closed_wasted;
  uint64_t closed_slack; /* wasted ones allowed beyond twice the used */
  /* memo_closed_seg.c's check of the last level (made when first used):
   * run 2's last-level references in order, and per last-level set a
   * mark (a generation in the high word, a count and a flag below). */
  uint64_t *ll_refs, *ll_mark;
  uint32_t ll_gen;
  /* Run 2's last-level change, owed to segment closed_seq if the memo
   * skips it as equal (memo_closed_run2): ll_n references, reordering
   * the sets marked. */
  bool ll_owed, ll_reorder;
  uint32_t ll_n;
} seg_memo;

struct cb_hierarchy;
/* Sets the memo up for a hierarchy it applies to (accel.c: every level
 * LRU and write-allocate, no classification). */
void memo_init(seg_memo *m, const struct cb_hierarchy *h);
/* Runs what is held back, and forgets the previous segment: before
 * anything that is not a record batch or a block reaches the hierarchy,
 * and before its counters are read. */
void memo_settle(struct cb_hierarchy *h);

/* The repetition from which every level is at its fixed point, as far
 * as the misses of repetitions 2 .. r (run_misses[2 .. r]) tell. */
uint32_t memo_steady_from(const uint64_t run_misses[][CB_MAX_LEVELS],
                          unsigned n_levels, uint32_t r);

/* memo.c, for memo_long.c and memo_parts.c: whether the held-back
 * records, and block b, make the same line references as segment s's;
 * runs the period-2 memo's owed segment; forgets the segments before
 * (their successors were counted or paid by the long memo). */
bool memo_same_records(const seg_memo *m, const memo_seg *s);
bool memo_same_block(const seg_memo *m, const memo_seg *s,
                     const cb_affine_block *b);
void memo_pay_pair(struct cb_hierarchy *h);
void memo_restart(struct cb_hierarchy *h);
/* The held-back records and block b into s (valid). */
void memo_copy_segment(const seg_memo *m, memo_seg *s,
                       const cb_affine_block *b);
/* Adds what a segment changed (d) to the hierarchy's counters. */
void memo_add_delta(struct cb_hierarchy *h, const memo_delta *d);
/* Every counter the memos keep, for every site, as one flat array of
 * memo_n_counters words (memo_long.c and memo_records.c copy them):
 * read, and added back as the difference to - from (from NULL: to). */
size_t memo_n_counters(const struct cb_hierarchy *h);
void memo_read_counters(const struct cb_hierarchy *h, uint64_t *c);
void memo_add_counters(struct cb_hierarchy *h, const uint64_t *to,
                       const uint64_t *from);
/* The model's state (every level's tags and last line), which is all of
 * it for levels without wide sets (memo_records.c, memo_long.c): whether
 * that holds, its size in words, a copy of it followed by every counter
 * (memo_read_counters), whether the state equals a copy's, and the state made a
 * copy's (memo_state_copies: accel.c). */
bool memo_state_copies(const struct cb_hierarchy *h);
size_t memo_state_words(const struct cb_hierarchy *h);
void memo_copy_take(const struct cb_hierarchy *h, uint64_t *c);
bool memo_state_equal(const struct cb_hierarchy *h, const uint64_t *c);
void memo_state_restore(struct cb_hierarchy *h, const uint64_t *c);

/* memo_long.c. Allocates it into h->memo->lng (false: out of memory,
 * what was allocated stays for memo_long_free); empties it; frees it. */
bool memo_long_create(struct cb_hierarchy *h);
void memo_long_reset(memo_long *L);
void memo_long_free(memo_long *L);
/* For each segment, before memo.c looks at it: true if the long memo
 * took it (owed, or counted with its repetition). */
bool memo_long_take(struct cb_hierarchy *h, const cb_affine_block *b);
/* After memo.c ran or counted a segment the long memo did not take. */
void memo_long_done(struct cb_hierarchy *h);
/* Runs the owed segments and ends the candidate period. */
void memo_long_settle(struct cb_hierarchy *h);

/* memo_parts.c. Sets the parts up (none where a part would not be a
 * hierarchy of its own). */
void memo_parts_init(memo_parts *P, const struct cb_hierarchy *h);
/* The segment was run whole (1), skipped as equal to the one before (2),
 * or something else happened to the model (3): what the parts know of
 * the segment before. */
void memo_parts_ran(memo_parts *P);
void memo_parts_skipped(memo_parts *P);
void memo_parts_forget(memo_parts *P);
/* Runs the held-back records and block b, the segment after prev, part
 * by part: the steady parts whose references did not change are counted
 * from their last run, the others run. Puts what the segment counted in
 * d. False, nothing done, where that does not apply. */
bool memo_parts_segment(struct cb_hierarchy *h, const memo_seg *prev,
                        const cb_affine_block *b, memo_delta *d);

/* memo_closed.c: parts steady after one run, their counts in closed
 * form. Before the held-back records and block b run whole: the
 * first-level misses of each access's site (UINT64_MAX where the
 * hierarchy counts none); after (memo_parts_ran first), with those: what
 * the closed form needs of that run. When the segment after it (prev)
 * runs in parts, before anything else: the block's closed form is
 * computed, and the parts it covers are steady from prev's run. Before
 * a segment runs in parts (the slots s): the parts without records or
 * fixed lines that it covers are counted by it, steady. After (the parts
 * `run`): those that ran without records are steady from this run. */
void memo_parts_site_misses(const struct cb_hierarchy *h,
                            const cb_affine_block *b, uint64_t *misses);
void memo_parts_closed(struct cb_hierarchy *h, const cb_affine_block *b,
                       const uint64_t *before);
void memo_parts_closed_start(struct cb_hierarchy *h, const memo_seg *prev,
                             const cb_affine_block *b);
void memo_parts_closed_count(struct cb_hierarchy *h, const memo_slots *s);
void memo_parts_closed_ran(struct cb_hierarchy *h, const memo_slots *s,
                           const cb_affine_block *b, uint64_t run);

/* memo_closed_seg.c: d holds what a segment run whole for the first
 * time (the held-back records and block b) changed, and
 * memo_closed_possible said yes; if its second run is known in closed
 * form, d becomes that run's, the model is left in the state run 2
 * would leave (from which on the segment is at its fixed point) and true
 * is returned. */
bool memo_closed_segment(struct cb_hierarchy *h, const cb_affine_block *b,
                         memo_delta *d);
/* Run 2's change to the last level that memo_closed_segment found and
 * owes: made when the equal segment after it is skipped. */
void memo_closed_run2(struct cb_hierarchy *h);
/* Whether block b may have a closed form: two levels of one line size,
 * no more accesses than first-level ways, a column among them (before
 * running it: run 1 is then measured). */
bool memo_closed_possible(const struct cb_hierarchy *h,
                          const cb_affine_block *b);

/* memo_records.c. NULL where it does not apply (wide sets) or memory
 * runs out; rmemo_reset empties it (the hierarchy was reset). */
rec_memo *rmemo_create(const struct cb_hierarchy *h);
void rmemo_free(rec_memo *r);
void rmemo_reset(rec_memo *r);
/* Chunks of at least min_chunk records, cut where cut_bits bits of the
 * content's hash are zero (tests use small ones). */
void rmemo_set_chunks(rec_memo *r, uint64_t min_chunk, unsigned cut_bits);
/* Runs a batch of records, or counts it as a repeat. */
void rmemo_run(struct cb_hierarchy *h, rec_memo *r, const cb_access *batch,
               size_t n);
/* Runs what is held back and forgets the period: before anything else
 * reaches the hierarchy or its counters are read (r may be NULL). */
void rmemo_settle(struct cb_hierarchy *h, rec_memo *r);
/* Records counted without running them. */
uint64_t rmemo_skipped(const rec_memo *r);
/* memo.c's settle without the record memo's (cb_hierarchy_run: the
 * batch goes on to it). */
void memo_settle_segments(struct cb_hierarchy *h);

#endif
