/* mcfg.h: dominators, post-dominators and loop nesting of a small CFG, for
 * pairing machine blocks with IR blocks (machine.c, mcfg.c); never
 * installed. */
#ifndef CBANA_MCFG_H
#define CBANA_MCFG_H

#include <stdbool.h>
#include <stdint.h>

typedef struct fe_cfg {
  uint32_t n;     /* blocks, entry 0 */
  uint32_t *soff; /* successors of b: succ[soff[b] .. soff[b+1]) */
  uint32_t *succ;
  uint8_t *exits; /* b may leave the function (no or unknown successors) */
  uint8_t *jcc;   /* b ends in a conditional branch (or NULL) */
  uint8_t *plain; /* b has no accesses and no keys (or NULL) */
  /* computed by fe_cfg_build */
  uint8_t *reach;         /* reachable from the entry */
  uint32_t *idom, *ipdom; /* UINT32_MAX: none; ipdom n: the exit */
  uint32_t *dpre, *dpost; /* dominator tree intervals */
  uint32_t *ppre, *ppost; /* post-dominator tree intervals */
  uint32_t *loop, *depth; /* innermost loop (its header) or
                             UINT32_MAX, and the nesting depth */
} fe_cfg;

/* g->n, soff, succ, exits set by the caller (malloc'd; freed with g). */
void fe_cfg_build(fe_cfg *g);
void fe_cfg_free(fe_cfg *g);
bool fe_cfg_dom(const fe_cfg *g, uint32_t a, uint32_t b);  /* a dom b */
bool fe_cfg_pdom(const fe_cfg *g, uint32_t a, uint32_t b); /* a pdom b */
/* Control equivalent: one dominates the other, which post-dominates it,
   in the same innermost loop: they run equally often. */
bool fe_cfg_equiv(const fe_cfg *g, uint32_t a, uint32_t b);

/* Do machine block m and IR block i stand in the same relations to every
   anchor (machine blocks anchors[0..na), paired with pair[x])? */
bool fe_cfg_consistent(const fe_cfg *mg, const fe_cfg *ig, const uint32_t *pair,
                       const uint32_t *anchors, uint32_t na, uint32_t m,
                       uint32_t i);

/* Pairs machine blocks with IR blocks by structure. pair[m] holds the IR
   block of machine block m or UINT32_MAX; anchor[m] says which pairs are
   trusted (from shared memory/call keys). Pairs every other reachable
   machine block whose relations (dominance both ways, post-dominance both
   ways, same innermost loop, loop depth) to every anchor single out one
   control-equivalence class of IR blocks, iterating as new pairs become
   anchors. Within that class the IR block sharing a key with m
   (keyed(m, i, ctx)) is taken, and the pair becomes an anchor; without
   one, only blocks with need[m] (hidden accesses) are paired, not as
   anchors. A block on an edge of the IR gets from[m], the edge's source
   (else from[m] stays UINT32_MAX). Blocks still unpaired with need[m] take the
   IR block of a control-equivalent paired machine block. */
void fe_cfg_pair(const fe_cfg *mg, const fe_cfg *ig, uint32_t *pair,
                 uint32_t *from, uint8_t *anchor, const uint8_t *need,
                 bool (*keyed)(uint32_t m, uint32_t i, void *ctx), void *ctx);

#endif
