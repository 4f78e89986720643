/* lineset.h: sets of (tag, line) pairs, for the working sets of the
 * report's views (collector.c: distinct lines per variable, type and
 * field; alloc_track.c: per allocation site). The question asked on
 * nearly every access is "was this line already counted for this tag?",
 * and the lines of one tag cluster in address ranges. So each tag's lines
 * are kept as bitmaps of LS_CHUNK_LINES consecutive lines (one host cache
 * line of bits), found through a hash table of (tag, chunk) and a small
 * direct-mapped cache of the chunks used last: the usual answer is a bit
 * test in a bitmap the host already holds. One entry per distinct pair
 * (the table it replaces) put a host cache miss on every new line of a
 * column walk (cholesky, MEDIUM: a quarter of the run in two hash
 * probes). Internal to analysis/. */
#ifndef CBANA_ANALYSIS_LINESET_H
#define CBANA_ANALYSIS_LINESET_H

#include <stddef.h>
#include <stdint.h>

#define LS_CHUNK_LINES 512 /* lines per bitmap: 64 bytes of bits */
#define LS_RECENT 256      /* chunks cached directly */

typedef struct ls_slot {
  uint64_t chunk; /* line / LS_CHUNK_LINES */
  uint32_t tag1;  /* tag + 1; 0: empty */
  uint32_t idx;   /* the chunk's bitmap in `bits` */
} ls_slot;

typedef struct lineset {
  ls_slot *table; /* open addressing, linear probing, grown at half full */
  size_t cap, n;  /* cap: a power of two */
  uint64_t (*bits)[LS_CHUNK_LINES / 64];
  size_t n_bits, cap_bits;
  ls_slot recent[LS_RECENT];
} lineset;

/* The recent-cache index: cheap, and a walk over consecutive chunks of
 * one tag fills consecutive entries. The tag is hashed (Fibonacci, the
 * product's bits 40..47): the collector's tags put the kind at bit 30,
 * so with the tag itself a variable, a type and a field of the same
 * small id took one entry and evicted each other on every new line
 * (puzzle: a sixth of the simulation's time in lineset_add_slow). */
static inline size_t lineset_recent_index(uint32_t tag1, uint64_t chunk) {
  uint64_t t = ((uint64_t)tag1 * 0x9E3779B97F4A7C15ull) >> 40;
  return (size_t)(chunk + t) & (LS_RECENT - 1);
}

/* lineset_add where the recent cache lacks the chunk. */
int lineset_add_slow(lineset *s, uint32_t tag, uint64_t line);

/* Adds (tag, line), tag < UINT32_MAX: 1 when the pair is new, 0 when it
 * was there, -1 when memory ran out (nothing added). Inline: the views
 * ask on most accesses, and the answer is mostly a bit in a recent
 * chunk. */
static inline int lineset_add(lineset *s, uint32_t tag, uint64_t line) {
  uint32_t tag1 = tag + 1;
  uint64_t chunk = line / LS_CHUNK_LINES;
  const ls_slot *r = &s->recent[lineset_recent_index(tag1, chunk)];
  if (r->tag1 != tag1 || r->chunk != chunk)
    return lineset_add_slow(s, tag, line);
  uint64_t bit = line % LS_CHUNK_LINES;
  uint64_t *w = &s->bits[r->idx][bit / 64], m = 1ull << (bit % 64);
  if (*w & m)
    return 0;
  *w |= m;
  return 1;
}
/* The bitmap of (tag, chunk) (LS_CHUNK_LINES / 64 words, line
 * chunk * LS_CHUNK_LINES + i at bit i), added empty if new; NULL when
 * memory runs out. Valid until the next addition. */
uint64_t *lineset_chunk(lineset *s, uint32_t tag, uint64_t chunk);
/* Empties the set, keeping its memory for the next input. */
void lineset_clear(lineset *s);
void lineset_free(lineset *s);

#endif
