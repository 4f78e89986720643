/* The access stream: the contract between whatever produces data accesses
 * (the analysis engine, `cbana sim`'s trace reader) and the cache model.
 * A producer fills batches of cb_access and hands them to
 * cb_hierarchy_run, or calls cb_hierarchy_access one access at a time.
 * The cache model knows nothing of programs: an access is an address, a
 * size, a direction and a site id that the producer gives meaning to
 * (cb_hierarchy_site_stats counts per site). */
#ifndef CBANA_STREAM_H
#define CBANA_STREAM_H

#include "cbana/cache.h"

#include <stddef.h>
#include <stdint.h>

/* 16 bytes, so a batch of 4096 fits in 64 KiB. */
typedef struct cb_access {
  uint64_t addr;
  uint32_t site;    /* < the hierarchy's n_sites to be counted per site;
                       CB_SITE_NONE (or any larger id) is not */
  uint16_t size;    /* bytes; 0 counts as 1 */
  uint8_t is_write; /* 0 read, 1 write (a read-modify-write is a read, as
                       in cachegrind) */
  uint8_t reserved; /* zero */
} cb_access;

/* Runs a batch in order; the fast path (the per-access logic is inlined
 * into this loop). A short batch after an affine block may be held back
 * until the next block, to be counted with it if their segment repeats
 * (cachemodel/memo.c); reading any counter, cb_hierarchy_access and a
 * reset run it first, so the counters read are always the stream's. */
void cb_hierarchy_run(cb_hierarchy *h, const cb_access *batch, size_t n);

/* One access, same semantics as a batch of one. An access of any size:
 * it spans every line from addr to addr+size-1 (clamped at the top of the
 * address space). */
void cb_hierarchy_access(cb_hierarchy *h, uint64_t addr, uint32_t size,
                         bool is_write, uint32_t site);

/* cb_hierarchy_access, telling what the access did: returns how many
 * levels it missed (the first ones: a miss goes on to the next level, a
 * hit stops), and writes the class of each of those misses to cls[0 ..]
 * (enum cb_miss_class; CB_MISS_CLASSES without classification). For a
 * consumer that watches every outcome (the analysis's collector), in
 * place of reading every level's counters after each access. */
unsigned cb_hierarchy_access_outcome(cb_hierarchy *h, uint64_t addr,
                                     uint32_t size, bool is_write,
                                     uint32_t site, uint8_t cls[CB_MAX_LEVELS]);

/* cb_hierarchy_access_outcome for each access of a batch, in order:
 * missed[k] is what it returns for batch[k], and cls[k] what it writes
 * (only where missed[k] > 0). The same results; the per-access call and
 * the first level's access counters in memory are saved. */
void cb_hierarchy_run_outcomes(cb_hierarchy *h, const cb_access *batch,
                               size_t n, uint8_t *missed,
                               uint8_t (*cls)[CB_MAX_LEVELS]);

/* An affine block: the accesses of n_iter iterations of a loop body whose
 * addresses are affine in the iteration number. Iteration t (0 <= t <
 * n_iter) makes the n_acc accesses acc[0 .. n_acc) in that order, access j
 * at acc[j].base + t * acc[j].stride. It stands for exactly that expanded
 * sequence of cb_access records: every consumer of the stream must give the
 * same results for the block as for its expansion (the engine's loop
 * templates produce blocks; DESIGN.md, "dynamic splicing"). */
typedef struct cb_affine_access {
  uint64_t base;
  int64_t stride;
  uint32_t site;
  uint16_t size;
  uint8_t is_write;
  uint8_t reserved; /* zero */
} cb_affine_access;

typedef struct cb_affine_block {
  uint64_t n_iter;
  uint32_t n_acc;
  const cb_affine_access *acc;
} cb_affine_block;

/* Runs an affine block: the same results as expanding it (in order) and
 * running the records through cb_hierarchy_run, every counter included,
 * for every configuration. Faster: addresses by adding strides, no
 * records in memory, and "warping": once an iteration hit at the first
 * level on every access, the following iterations that touch the same
 * lines are all hits that change nothing but counters (with CB_CLASSIFY,
 * the shadow's distance histogram too, by the same distances each), so
 * they are counted at once (affine.c argues why). */
void cb_hierarchy_run_affine(cb_hierarchy *h, const cb_affine_block *b);

/* Warping for a consumer that runs a block's accesses itself (one by one,
 * with cb_hierarchy_access, to watch each outcome: the analysis's
 * collector) but skips what it can. cb_hierarchy_affine_span: how many
 * iterations from t on (at most n_iter - t) reference the same
 * first-level lines as iteration t - 1, access by access, as far as
 * warping can use them (0 when it cannot: t == 0, strides of a line or
 * more, more than 16 accesses, an iteration's lines too many for the
 * shadow). cb_hierarchy_affine_skip: counts m <= span such iterations at
 * once, exactly as running them would, provided iteration t - 1 was the
 * last thing run through h and hit at the first level on every access;
 * false (nothing done) if m exceeds the span. The skipped iterations
 * count as warped in cb_affine_stats. */
uint64_t cb_hierarchy_affine_span(const cb_hierarchy *h,
                                  const cb_affine_block *b, uint64_t t);
bool cb_hierarchy_affine_skip(cb_hierarchy *h, const cb_affine_block *b,
                              uint64_t t, uint64_t m);

/* What cb_hierarchy_run_affine did since the hierarchy was created or
 * reset: blocks and iterations run, iterations skipped by warping (in a
 * split block, those every thread skipped) and the number of warps; how
 * many blocks, with the records that came before them, repeated the line
 * references of the ones before so often that they were counted without
 * running them (segments: the hierarchy holds records back until the
 * next block for this, on LRU levels that allocate on every miss,
 * without classification; blocks and iterations include theirs); how
 * many blocks ran part by part, the parts whose references had not
 * changed counted without running them, and how many parts that counted
 * (memo_parts.c; the cache's sets in parts_each parts); and how many
 * blocks ran split by set over threads (cb_hierarchy_set_threads).
 * Diagnostics (tests, benchmarks); the cache counters never depend on
 * them. */
typedef struct cb_affine_stats {
  uint64_t blocks, iterations, warped_iterations, warps;
  uint64_t segments_skipped;
  uint64_t segments_in_parts, parts_counted;
  /* segments and parts found at their fixed point after one run, their
   * second run's counts in closed form (the memos' closed forms) */
  uint64_t segments_closed, parts_closed;
  uint32_t parts_each;
  uint64_t split_blocks; /* run split over threads (set_threads) */
  /* records counted without running them, as repeats of an earlier
   * stretch from the same state (the record memo, same conditions) */
  uint64_t records_skipped;
} cb_affine_stats;
void cb_hierarchy_affine_stats(const cb_hierarchy *h, cb_affine_stats *out);

/* The block's expansion, piece by piece: writes the records number *pos,
 * *pos + 1, ... (record k is access k % n_acc of iteration k / n_acc) into
 * out, at most cap of them and not past the end, advances *pos and
 * returns how many it wrote (0 once *pos reached n_iter * n_acc). For the
 * consumers that need every access. */
size_t cb_affine_expand(const cb_affine_block *b, uint64_t *pos, cb_access *out,
                        size_t cap);

#endif
