/* The working sets of the report's views (collector.c): the distinct
 * first-level lines of the accesses of each variable's, type's and
 * field's sites, against a naive reference (a bitmap per id over the
 * region). Sites share variables, types and fields in crossing ways (two
 * with the same triple, one with none, one a call's), and the accesses
 * lie within one line each, spread over more lines than one chunk of the
 * collector's sets holds, so that every set spans several chunks and the
 * union of triples meets lines counted in more than one of them. */
#include "check.h"
#include "collector.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 7;
static uint64_t rnd(uint64_t n) {
  return check_rand(&rnd_state) % n;
}

#define BASE 0x10000000ull
#define LINES 4096 /* 8 chunks of LS_CHUNK_LINES */
#define N_SITES 8

/* var, type, field per site (CB_NONE: none); site 6 is a call's */
static const uint32_t ids[N_SITES][3] = {{0, 0, CB_NONE},
                                         {0, 1, 0},
                                         {1, 0, 0},
                                         {1, 0, 0},
                                         {CB_NONE, 1, CB_NONE},
                                         {2, CB_NONE, 1},
                                         {2, 1, 1},
                                         {CB_NONE, CB_NONE, CB_NONE}};
enum { CALL = 6, N_VARS = 3, N_TYPES = 2, N_FIELDS = 2 };

int main(void) {
  cb_site sites[N_SITES];
  memset(sites, 0, sizeof sites);
  for (uint32_t s = 0; s < N_SITES; s++) {
    sites[s].line = 10 + s;
    sites[s].var = ids[s][0];
    sites[s].type = ids[s][1];
    sites[s].field = ids[s][2];
    sites[s].size = 8;
    sites[s].is_call = s == CALL;
  }
  cb_program p;
  memset(&p, 0, sizeof p);
  p.sites = sites;
  p.n_sites = N_SITES;
  p.n_vars = N_VARS;
  p.n_types = N_TYPES;
  p.n_fields = N_FIELDS;
  const uint32_t n_ids[3] = {N_VARS, N_TYPES, N_FIELDS};

  cb_cache_config cfg = {2,
                         {{.size = 4096,
                           .assoc = 4,
                           .line = 64,
                           .policy = CB_POLICY_LRU,
                           .write_allocate = true},
                          {.size = 65536,
                           .assoc = 8,
                           .line = 64,
                           .policy = CB_POLICY_LRU,
                           .write_allocate = true}}};
  strcpy(cfg.levels[0].name, "L1D");
  strcpy(cfg.levels[1].name, "LL");

  for (int round = 0; round < 3; round++) {
    char err[CB_ERR_MAX];
    cb_hierarchy *h =
        cb_hierarchy_create(&cfg, p.n_sites, CB_CLASSIFY, err, sizeof err);
    collector col;
    CHECK(h && drv_collector_init(&col, h, &p));
    fanout f = {.c = &col, .n = 1};
    /* the reference: a line bit per (kind, id) */
    static uint8_t seen[3][3][LINES];
    memset(seen, 0, sizeof seen);
    /* a few hot lines per round so that sites come back to them, and
     * the rest anywhere in the region */
    static cb_access batch[1000];
    for (int b = 0; b < 200; b++) {
      size_t n = 1 + rnd(1000);
      for (size_t k = 0; k < n; k++) {
        uint64_t line = rnd(3) ? rnd(LINES) : rnd(8) * (LINES / 8);
        uint32_t size = 1u << rnd(4);
        uint64_t addr = BASE + line * 64 + rnd(64 / size) * size;
        uint32_t site = (uint32_t)rnd(N_SITES + 1); /* N_SITES: none */
        batch[k] = (cb_access){
            .addr = addr, .site = site, .size = size, .is_write = rnd(3) == 0};
        if (site < N_SITES && site != CALL)
          for (int kind = 0; kind < 3; kind++)
            if (ids[site][kind] != CB_NONE)
              seen[kind][ids[site][kind]][line] = 1;
      }
      drv_fanout_batch(&f, batch, n);
    }
    cb_cache_result r;
    memset(&r, 0, sizeof r);
    r.n_levels = 2;
    CHECK(drv_collect_extras(&col, &r));
    uint64_t *got[3] = {r.var_lines, r.type_lines, r.field_lines};
    for (int kind = 0; kind < 3; kind++)
      for (uint32_t id = 0; id < n_ids[kind]; id++) {
        uint64_t want = 0;
        for (uint32_t l = 0; l < LINES; l++)
          want += seen[kind][id][l];
        CHECK(want > LINES / 4); /* spread over every chunk */
        CHECK_EQ_U64(got[kind][id], want);
      }
    for (unsigned l = 0; l < 2; l++) {
      free(r.distance_hist[l]);
      free(r.set_misses[l]);
      free(r.set_conflicts[l]);
    }
    free(r.var_lines);
    free(r.type_lines);
    free(r.field_lines);
    free(r.site_stride);
    free(r.site_stride_runs);
    free(r.alloc_sites);
    free(r.var_sets);
    drv_collector_free(&col);
    cb_hierarchy_destroy(h);
  }
  return check_done();
}
