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
 * into this loop). */
void cb_hierarchy_run(cb_hierarchy *h, const cb_access *batch, size_t n);

/* One access, same semantics as a batch of one. An access of any size:
 * it spans every line from addr to addr+size-1 (clamped at the top of the
 * address space). */
void cb_hierarchy_access(cb_hierarchy *h, uint64_t addr, uint32_t size,
                         bool is_write, uint32_t site);

#endif
