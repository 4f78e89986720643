/* Which accelerations accel.c chooses, for hierarchies whose answer is
 * written out here from the predicates its opening states (not from its
 * code): cachegrind's caches with and without classification, other
 * ways and lines, write-no-allocate, three levels, PLRU, FIFO, random
 * and wide sets. That each chosen copy counts what the brute-force model
 * counts is test_cache_reference's and the others' to check. */
#include "cbana/stream.h"
#include "check.h"
#include "hierarchy_internal.h"
#include "lru2_regs.h"

#include <string.h>

static cb_level_config lvl(const char *name, uint64_t size, uint32_t assoc,
                           uint32_t line, cb_policy p, bool wa) {
  cb_level_config c = {.size = size,
                       .assoc = assoc,
                       .line = line,
                       .policy = p,
                       .write_allocate = wa,
                       .seed = 1};
  strncpy(c.name, name, sizeof c.name - 1);
  return c;
}

typedef struct want {
  const char *what;
  cb_cache_config cfg;
  bool classify;
  uint64_t lean_mask, cg_mask;
  uint32_t mru_max;
  /* avx: the AVX-512 copies, where the host has AVX-512F */
  bool lru2, lru2_cg_ways, avx, way0, memo, state_copies, split;
} want;

int main(void) {
  const cb_level_config l1 = lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, true),
                        ll = lvl("LL", 1 << 20, 16, 64, CB_POLICY_LRU, true);
  const want cases[] = {
      {"cachegrind's caches",
       {2, {l1, ll}},
       false,
       63,
       0,
       0,
       true,
       true,
       true,
       true,
       true,
       true,
       true},
      {"cachegrind's caches, classes",
       {2, {l1, ll}},
       true,
       0,
       63,
       8,
       false,
       false,
       false,
       false,
       false,
       true,
       false},
      {"4 and 8 ways, 32-byte first lines",
       {2,
        {lvl("L1D", 8192, 4, 32, CB_POLICY_LRU, true),
         lvl("LL", 262144, 8, 64, CB_POLICY_LRU, true)}},
       false,
       31,
       0,
       0,
       true,
       false,
       false,
       true,
       true,
       true,
       true},
      {"cachegrind's ways, 32-byte lines",
       {2,
        {lvl("L1D", 32768, 8, 32, CB_POLICY_LRU, true),
         lvl("LL", 1 << 20, 16, 32, CB_POLICY_LRU, true)}},
       false,
       31,
       0,
       0,
       true,
       true,
       false,
       true,
       true,
       true,
       true},
      {"a first level that does not allocate on writes",
       {2, {lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, false), ll}},
       false,
       63,
       0,
       0,
       true,
       true,
       false,
       true,
       false,
       true,
       true},
      {"the same, classes",
       {2, {lvl("L1D", 32768, 8, 64, CB_POLICY_LRU, false), ll}},
       true,
       0,
       63,
       0,
       false,
       false,
       false,
       false,
       false,
       true,
       false},
      {"three levels",
       {3,
        {l1, lvl("L2", 262144, 4, 64, CB_POLICY_LRU, true),
         lvl("L3", 8 << 20, 16, 64, CB_POLICY_LRU, true)}},
       false,
       63,
       0,
       0,
       false,
       false,
       false,
       true,
       true,
       true,
       true},
      {"three levels, classes, 4-way first level",
       {3,
        {lvl("L1D", 16384, 4, 64, CB_POLICY_LRU, true),
         lvl("L2", 262144, 4, 64, CB_POLICY_LRU, true),
         lvl("L3", 8 << 20, 16, 64, CB_POLICY_LRU, true)}},
       true,
       0,
       0,
       4,
       false,
       false,
       false,
       false,
       false,
       true,
       false},
      {"PLRU first level",
       {2, {lvl("L1D", 32768, 8, 64, CB_POLICY_PLRU, true), ll}},
       false,
       63,
       0,
       0,
       false,
       false,
       false,
       false,
       false,
       true,
       true},
      {"FIFO last level, classes",
       {2, {l1, lvl("LL", 1 << 20, 16, 64, CB_POLICY_FIFO, true)}},
       true,
       0,
       0,
       8,
       false,
       false,
       false,
       false,
       false,
       true,
       false},
      {"random last level",
       {2, {l1, lvl("LL", 1 << 20, 16, 64, CB_POLICY_RANDOM, true)}},
       false,
       63,
       0,
       0,
       false,
       false,
       false,
       true,
       false,
       true,
       false},
      {"a wide first level (64 ways)",
       {2, {lvl("L1D", 65536, 64, 64, CB_POLICY_LRU, true), ll}},
       false,
       0,
       0,
       0,
       false,
       false,
       false,
       false,
       true,
       false,
       false},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    const want *w = &cases[i];
    char err[256];
    cb_hierarchy *h = cb_hierarchy_create(
        &w->cfg, 4, w->classify ? CB_CLASSIFY : 0, err, sizeof err);
    CHECK(h != NULL);
    if (!h)
      continue;
    fprintf(stderr, "%s\n", w->what);
    CHECK_EQ_U64(h->lean_mask, w->lean_mask);
    CHECK_EQ_U64(h->cg_mask, w->cg_mask);
    CHECK_EQ_U64(h->mru_max, w->mru_max);
    CHECK_EQ_U64(h->lru2, w->lru2);
    CHECK_EQ_U64(h->lru2_cg_ways, w->lru2_cg_ways);
    CHECK_EQ_U64(h->avx512, w->avx && lru2_avx512_usable());
    CHECK_EQ_U64(h->way0, w->way0);
    CHECK_EQ_U64(h->memo_applies, w->memo);
    CHECK_EQ_U64(h->memo != NULL, w->memo);
    CHECK_EQ_U64(memo_state_copies(h), w->state_copies);
    CHECK_EQ_U64(accel_split_applies(h), w->split);
    cb_hierarchy_destroy(h);
  }
  return check_done();
}
