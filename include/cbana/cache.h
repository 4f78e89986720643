/* cbana's cache model: the description of a cache hierarchy (levels from
 * the core outward, each with its geometry, replacement policy and write
 * policy), how it is read (an INI-style file, a named preset, or
 * cachegrind-style --D1/--L2/--LL flags), and the hierarchy object that
 * access streams run through (see stream.h) together with what it counts:
 * per level and per site accesses, misses and the class of every miss
 * (compulsory, capacity, conflict), and an LRU stack-distance histogram
 * that gives the misses of every fully associative LRU capacity.
 * The semantics follow cachegrind's cg_sim.c unless a level asks for
 * something else; docs/cache-config.md is the user's description. */
#ifndef CBANA_CACHE_H
#define CBANA_CACHE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- Configuration ---------------------------------------------------- */

typedef enum cb_policy {
  CB_POLICY_LRU,
  CB_POLICY_FIFO,
  CB_POLICY_MRU,
  CB_POLICY_PLRU,
  CB_POLICY_RANDOM,
} cb_policy;

#define CB_MAX_LEVELS 8
#define CB_LEVEL_NAME_MAX 16 /* including the terminating NUL */
#define CB_ASSOC_FULL 0      /* assoc value meaning "fully associative" */
#define CB_ERR_MAX 256       /* enough for every error message below */

typedef struct cb_level_config {
  char name[CB_LEVEL_NAME_MAX]; /* the section name: L1D, L2, LL, ... */
  uint64_t size;                /* bytes */
  uint32_t assoc;               /* ways, or CB_ASSOC_FULL */
  uint32_t line;                /* bytes */
  cb_policy policy;
  bool write_allocate;
  uint64_t seed; /* for CB_POLICY_RANDOM: equal seeds repeat a run */
} cb_level_config;

typedef struct cb_cache_config {
  unsigned n_levels; /* levels[0] is next to the core */
  cb_level_config levels[CB_MAX_LEVELS];
} cb_cache_config;

/* The name of a policy as the configuration file spells it ("lru"). */
const char *cb_policy_name(cb_policy p);

/* Checks one level's geometry; on a broken rule writes the rule to err
 * (no location) and returns false. The parsers below call it. */
bool cb_level_config_check(const cb_level_config *lc, char *err, size_t n);

/* Parses a configuration file's text. `filename` only names the source
 * in errors. Returns true, or false with "FILE:LINE: rule broken" in err
 * (err may be NULL). */
bool cb_cache_config_parse_text(const char *text, const char *filename,
                                cb_cache_config *out, char *err, size_t n);
/* Reads and parses a file; errors as above (or "FILE: cannot read"). */
bool cb_cache_config_parse_file(const char *path, cb_cache_config *out,
                                char *err, size_t n);

/* Presets shipped with cbana: "cachegrind" (cachegrind's defaults
 * --D1=32768,8,64 --LL=1048576,16,64) and real CPUs, documented with
 * their sources in docs/cache-config.md. */
bool cb_cache_preset(const char *name, cb_cache_config *out);
/* The preset names, NULL-terminated. */
const char *const *cb_cache_preset_names(void);

/* Cachegrind-style flags --D1=size,assoc,line, --L2=..., --LL=... (LRU,
 * write-allocate), collected while a command parses its arguments. */
typedef struct cb_cache_flags {
  bool given[3]; /* D1 (level L1D), L2, LL */
  cb_level_config level[3];
} cb_cache_flags;

/* Returns 1 if `arg` is one of the flags (recorded in f), 0 if it is not
 * a cache flag, -1 on a malformed one (message in err). */
int cb_cache_flag_parse(cb_cache_flags *f, const char *arg, char *err,
                        size_t n);

/* The hierarchy a command runs: `cache_arg` (NULL if --cache was not
 * given) names a file if such a file exists, else a preset; the flags
 * then replace the level of the same name or add it in its place (L1D
 * first, L2 after it, LL last). Flags alone give a hierarchy of just the
 * flagged levels (--D1 alone: only L1D); nothing at all gives the
 * "cachegrind" preset. False with a one-line message on error. */
bool cb_cache_config_resolve(const char *cache_arg, const cb_cache_flags *f,
                             cb_cache_config *out, char *err, size_t n);

/* ---- The hierarchy and its counters ----------------------------------- */

typedef struct cb_hierarchy cb_hierarchy;

/* Site ids index per-site counters; this one is counted nowhere. */
#define CB_SITE_NONE UINT32_MAX

enum cb_hierarchy_flags {
  /* Keep a fully associative LRU shadow of every level: classifies
   * misses (3C) exactly and fills the stack-distance histograms, exact
   * while a level has seen at most 65536 distinct lines, sampled past
   * that (SHARDS; cachemodel/shadow.h). Costs memory proportional to the
   * distinct lines touched. */
  CB_CLASSIFY = 1u << 0,
  /* With CB_CLASSIFY: exact stack distances however many lines (every
   * line reference then costs O(log n)). */
  CB_EXACT_MRC = 1u << 1,
};

/* Builds a hierarchy for a configuration that passed the checks above.
 * n_sites: site ids 0..n_sites-1 get per-site counters (0 for none).
 * Returns NULL if memory runs out or the configuration is invalid
 * (reason in err). */
cb_hierarchy *cb_hierarchy_create(const cb_cache_config *cfg, uint32_t n_sites,
                                  unsigned flags, char *err, size_t n);
void cb_hierarchy_destroy(cb_hierarchy *h);
/* Empties every level and zeroes every counter (the random policies
 * restart from their seeds): the next stream starts a new run. */
void cb_hierarchy_reset(cb_hierarchy *h);

/* Lets the hierarchy run long affine blocks (stream.h) split by cache
 * set over n threads, the caller's included (n - 1 started here): the
 * sets of a level are independent, so each thread runs the accesses of
 * its own sets, in order, and the counters are the same as one thread's
 * (cachemodel/parallel.c says why). Only without classification, with no
 * random level and no wide sets, and for blocks whose every access lies
 * inside one line; others run on the caller. Returns the number of
 * threads that will run (a power of two up to n; 1: none started, n < 2
 * or not applicable); 1 stops them. The hierarchy's functions must still
 * be called from one thread at a time. */
unsigned cb_hierarchy_set_threads(cb_hierarchy *h, unsigned n);

/* Snapshots, for a stream simulated in pieces at once (analysis's time
 * split): two hierarchies in the same state at the same point of a stream
 * count the same from there on, so a piece run from a guessed state counts
 * right from the first point where its state equals the true one.
 * cb_hierarchy_snapshots: whether a snapshot holds the whole state (every
 * level LRU, FIFO or MRU, no wide sets, no classification; snapshot.c says
 * why). A snapshot is the state and every counter, snapshot_words long;
 * taking one, or comparing the state with one's, first runs what the
 * hierarchy held back. cb_hierarchy_add_counts adds the counters of `to`
 * minus those of `from` (NULL: zeros) to h's; cb_snapshot_add_counts adds
 * them to those of the snapshot-shaped acc (its state part unused). The
 * arithmetic is modulo 2^64, so a difference taken the other way round
 * subtracts. */
bool cb_hierarchy_snapshots(const cb_hierarchy *h);
size_t cb_hierarchy_snapshot_words(const cb_hierarchy *h);
void cb_hierarchy_snapshot(cb_hierarchy *h, uint64_t *snap);
bool cb_hierarchy_state_is(cb_hierarchy *h, const uint64_t *snap);
/* The state made the snapshot's (its counters untouched): what a piece
 * run from a guess starts from. */
void cb_hierarchy_state_load(cb_hierarchy *h, const uint64_t *snap);
void cb_hierarchy_add_counts(cb_hierarchy *h, const uint64_t *to,
                             const uint64_t *from);
void cb_snapshot_add_counts(const cb_hierarchy *h, uint64_t *acc,
                            const uint64_t *to, const uint64_t *from);

unsigned cb_hierarchy_n_levels(const cb_hierarchy *h);
const cb_level_config *cb_hierarchy_level_config(const cb_hierarchy *h,
                                                 unsigned level);
bool cb_hierarchy_classifies(const cb_hierarchy *h);

/* The classes of a miss. A straddling access that misses is classified
 * by its worst line: compulsory if any line was compulsory, else
 * capacity if the fully associative LRU shadow missed any, else
 * conflict. */
enum cb_miss_class {
  CB_MISS_COMPULSORY, /* first reference to the line at this level */
  CB_MISS_CAPACITY,   /* a fully associative LRU cache of the level's
                         capacity would also have missed */
  CB_MISS_CONFLICT,   /* the rest */
  CB_MISS_CLASSES
};

typedef struct cb_level_stats {
  uint64_t accesses, reads, writes;
  uint64_t misses, read_misses, write_misses;
  uint64_t miss_class[CB_MISS_CLASSES]; /* zero without CB_CLASSIFY */
} cb_level_stats;

typedef struct cb_site_stats {
  uint64_t accesses, misses;
  uint64_t miss_class[CB_MISS_CLASSES];
} cb_site_stats;

void cb_hierarchy_level_stats(const cb_hierarchy *h, unsigned level,
                              cb_level_stats *out);
/* Counters of one site at one level; NULL if site >= n_sites. */
const cb_site_stats *cb_hierarchy_site_stats(const cb_hierarchy *h,
                                             uint32_t site, unsigned level);

/* The LRU stack-distance histogram of a level (CB_CLASSIFY only): the
 * level's line references (a straddling access makes one per line)
 * counted by the number of distinct other lines referenced at that level
 * since the line's previous reference. hist[d] for d < *len; *cold counts
 * first references. Returns false without CB_CLASSIFY. The array is the
 * hierarchy's, valid until the next call or access. Sampled (see
 * cb_hierarchy_distance_scale_log2), hist[0], *cold and the total are
 * still exact; the other buckets are the sample's estimate. */
bool cb_hierarchy_distance_histogram(const cb_hierarchy *h, unsigned level,
                                     const uint64_t **hist, size_t *len,
                                     uint64_t *cold);
/* The rate at which the histogram's distances were sampled: 2^-result
 * (0: exact, every line). */
uint32_t cb_hierarchy_distance_scale_log2(const cb_hierarchy *h,
                                          unsigned level);
/* Line-reference misses of a fully associative LRU cache of `lines`
 * lines fed this level's references: cold + sum of hist[d], d >= lines.
 * UINT64_MAX without CB_CLASSIFY. */
uint64_t cb_hierarchy_fa_lru_misses(const cb_hierarchy *h, unsigned level,
                                    uint64_t lines);
/* Line references seen by a level's shadow (the histogram's total). */
uint64_t cb_hierarchy_line_refs(const cb_hierarchy *h, unsigned level);

/* ---- Large buffers ------------------------------------------------------ */

/* len bytes (rounded up to 2 MiB), 2 MiB aligned, zeroed, reserved but
 * committed only as touched, and advised to be transparent huge pages:
 * one page fault per 2 MiB instead of 512, where a fault costs the
 * project's virtual machines about 10 us (bench/results/fast_notes.md).
 * For the memos' arenas, and lent to analysis/ for the
 * modelled memory and the time split's buffers. NULL when the address
 * space is short. */
void *cb_huge_map(size_t len);
/* Unmaps what cb_huge_map(len) gave (NULL: nothing). */
void cb_huge_unmap(void *p, size_t len);

#endif
