/* Hand-worked sequences for every policy and for the hierarchy's rules,
 * on caches small enough to follow on paper. Lines are 16 bytes, so line
 * k is address 16k. */
#include "cbana/stream.h"
#include "check.h"

#include <string.h>

static cb_level_config level(const char *name, uint64_t size, uint32_t assoc,
                             cb_policy p, bool wa) {
  cb_level_config lc = {.size = size,
                        .assoc = assoc,
                        .line = 16,
                        .policy = p,
                        .write_allocate = wa,
                        .seed = 7};
  strcpy(lc.name, name);
  return lc;
}

static cb_hierarchy *one_level(cb_level_config lc, unsigned flags) {
  cb_cache_config cfg = {.n_levels = 1, .levels = {lc}};
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(&cfg, 4, flags, err, sizeof err);
  if (!h)
    fprintf(stderr, "create: %s\n", err);
  return h;
}

static uint64_t misses(const cb_hierarchy *h, unsigned level) {
  cb_level_stats s;
  cb_hierarchy_level_stats(h, level, &s);
  return s.misses;
}

/* Reads `lines` in order; returns "H"/"M" per reference in `out`. */
static void run_lines(cb_hierarchy *h, const int *lines, int n, char *out) {
  for (int i = 0; i < n; i++) {
    uint64_t before = misses(h, 0);
    cb_hierarchy_access(h, (uint64_t)lines[i] * 16, 8, false, CB_SITE_NONE);
    out[i] = misses(h, 0) > before ? 'M' : 'H';
  }
  out[n] = '\0';
}

static void check_pattern(cb_policy p, const int *seq, int n,
                          const char *want) {
  /* One set of four ways: a 64-byte fully associative cache. */
  cb_hierarchy *h = one_level(level("L1D", 64, 4, p, true), 0);
  char got[64];
  run_lines(h, seq, n, got);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "policy %s: got %s, want %s\n", cb_policy_name(p), got,
            want);
  CHECK(strcmp(got, want) == 0);
  cb_hierarchy_destroy(h);
}

static void test_policies(void) {
  static const int seq[] = {1, 2, 3, 4, 1, 5, 2, 3, 1, 3};
  int n = (int)(sizeof seq / sizeof seq[0]);
  /* LRU, most recent first:
   * 1 2 3 4 fill            [4 3 2 1]
   * 1 hit                   [1 4 3 2]
   * 5 miss, evicts 2        [5 1 4 3]
   * 2 miss, evicts 3        [2 5 1 4]
   * 3 miss, evicts 4        [3 2 5 1]
   * 1 hit, 3 hit. */
  check_pattern(CB_POLICY_LRU, seq, n, "MMMMHMMMHH");
  /* FIFO, oldest fill first: fills 1 2 3 4; 1 hit (no reorder);
   * 5 evicts 1 {2 3 4 5}; 2, 3 hit; 1 evicts 2 {3 4 5 1}; 3 hit. */
  check_pattern(CB_POLICY_FIFO, seq, n, "MMMMHMHHMH");
  /* MRU evicts the most recently used: fills 1 2 3 4 (MRU 4); 1 hit
   * (MRU 1); 5 evicts 1 {2 3 4 5}; 2 hit; 3 hit (MRU 3); 1 evicts 3
   * {2 4 5 1}; 3 misses. */
  check_pattern(CB_POLICY_MRU, seq, n, "MMMMHMHHMM");
  /* Tree-PLRU, 4 ways: root r (ways 0-1 | 2-3), n2 (0 | 1), n3 (2 | 3),
   * 0 pointing left; all start at 0.
   * 1 -> way 0: r=1 n2=1        2 -> way 1: r=1 n2=0
   * 3 -> way 2: r=0 n3=1        4 -> way 3: r=0 n3=0
   * 1 hit way 0: r=1 n2=1
   * 5 miss: r=1 -> n3=0 -> way 2 (holds 3); then r=0 n3=1  [1 2 5 4]
   * 2 hit way 1: r=1 n2=0
   * 3 miss: r=1 -> n3=1 -> way 3 (holds 4); then r=0 n3=0  [1 2 5 3]
   * 1 hit way 0: r=1 n2=1;  3 hit way 3: r=0 n3=0
   * 4 miss: r=0 -> n2=1 -> way 1 (holds 2); then r=1 n2=0  [1 4 5 3]
   * 1 hit; 5 hit; 2 miss. */
  static const int plru_seq[] = {1, 2, 3, 4, 1, 5, 2, 3, 1, 3, 4, 1, 5, 2};
  check_pattern(CB_POLICY_PLRU, plru_seq, 14, "MMMMHMHMHHMHHM");
}

/* Random: a full set draws a victim, so four lines fit and hit forever;
 * a seed repeats a run and another seed (here) gives another. */
static void test_random(void) {
  static const int fit[] = {1, 2, 3, 4, 4, 3, 2, 1, 1, 2, 3, 4};
  check_pattern(CB_POLICY_RANDOM, fit, 12, "MMMMHHHHHHHH");
  char a[80], b[80], c[80];
  int seq[60];
  for (int i = 0; i < 60; i++)
    seq[i] = (i * 7) % 9;
  cb_level_config lc = level("L1D", 64, 4, CB_POLICY_RANDOM, true);
  cb_hierarchy *h = one_level(lc, 0);
  run_lines(h, seq, 60, a);
  cb_hierarchy_reset(h);
  run_lines(h, seq, 60, b);
  cb_hierarchy_destroy(h);
  lc.seed = 12345;
  h = one_level(lc, 0);
  run_lines(h, seq, 60, c);
  cb_hierarchy_destroy(h);
  CHECK(strcmp(a, b) == 0);
  CHECK(strcmp(a, c) != 0);
}

/* No-write-allocate: a write miss leaves the line out. */
static void test_write_allocate(void) {
  cb_hierarchy *h = one_level(level("L1D", 32, 2, CB_POLICY_LRU, false), 0);
  cb_hierarchy_access(h, 0, 4, true, CB_SITE_NONE);  /* write: miss */
  cb_hierarchy_access(h, 0, 4, true, CB_SITE_NONE);  /* write: miss again */
  cb_hierarchy_access(h, 0, 4, false, CB_SITE_NONE); /* read: miss, fills */
  cb_hierarchy_access(h, 0, 4, true, CB_SITE_NONE);  /* write: hit */
  cb_level_stats s;
  cb_hierarchy_level_stats(h, 0, &s);
  CHECK_EQ_U64(s.accesses, 4);
  CHECK_EQ_U64(s.writes, 3);
  CHECK_EQ_U64(s.misses, 3);
  CHECK_EQ_U64(s.write_misses, 2);
  CHECK_EQ_U64(s.read_misses, 1);
  cb_hierarchy_destroy(h);
  /* With allocation the second write hits. */
  h = one_level(level("L1D", 32, 2, CB_POLICY_LRU, true), 0);
  cb_hierarchy_access(h, 0, 4, true, CB_SITE_NONE);
  cb_hierarchy_access(h, 0, 4, true, CB_SITE_NONE);
  CHECK_EQ_U64(misses(h, 0), 1);
  cb_hierarchy_destroy(h);
}

/* Cachegrind's rules: L2 sees only L1 misses; a straddling access is one
 * access and one miss, presented whole below. L1: direct-mapped, 2 sets
 * (32 bytes); L2: 4 lines fully associative. */
static void test_hierarchy_rules(void) {
  cb_cache_config cfg = {
      .n_levels = 2,
      .levels = {level("L1D", 32, 1, CB_POLICY_LRU, true),
                 level("L2", 64, CB_ASSOC_FULL, CB_POLICY_LRU, true)}};
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(&cfg, 2, 0, err, sizeof err);
  cb_level_stats l1, l2;
  /* Bytes 12..19: lines 0 and 1, both cold: 1 access, 1 miss at each. */
  cb_hierarchy_access(h, 12, 8, false, 0);
  /* Bytes 14..17 again: both lines cached in L1: a hit, L2 not asked. */
  cb_hierarchy_access(h, 14, 4, false, 1);
  /* Line 3 (set 1) evicts line 1 from L1; L2 now holds 0, 1, 3. */
  cb_hierarchy_access(h, 48, 1, false, CB_SITE_NONE);
  /* Bytes 12..19 again: line 0 hits, line 1 misses: one miss in L1;
   * L2 is given the whole access and both lines hit there. */
  cb_hierarchy_access(h, 12, 8, true, 0);
  cb_hierarchy_level_stats(h, 0, &l1);
  cb_hierarchy_level_stats(h, 1, &l2);
  CHECK_EQ_U64(l1.accesses, 4);
  CHECK_EQ_U64(l1.misses, 3);
  CHECK_EQ_U64(l1.write_misses, 1);
  CHECK_EQ_U64(l2.accesses, 3);
  CHECK_EQ_U64(l2.misses, 2);
  CHECK_EQ_U64(l2.writes, 1);
  CHECK_EQ_U64(l2.write_misses, 0);
  /* Per site: site 0 made accesses 1 and 4, site 1 access 2. */
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 0, 0)->accesses, 2);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 0, 0)->misses, 2);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 0, 1)->accesses, 2);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 0, 1)->misses, 1);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 1, 0)->accesses, 1);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 1, 0)->misses, 0);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 1, 1)->accesses, 0);
  CHECK(cb_hierarchy_site_stats(h, 2, 0) == NULL);
  /* An access spanning four lines (bytes 64..127) is still one access. */
  cb_hierarchy_access(h, 64, 64, false, CB_SITE_NONE);
  cb_hierarchy_level_stats(h, 0, &l1);
  CHECK_EQ_U64(l1.accesses, 5);
  CHECK_EQ_U64(l1.misses, 4);
  /* Reset: counters and contents gone. */
  cb_hierarchy_reset(h);
  cb_hierarchy_level_stats(h, 1, &l2);
  CHECK_EQ_U64(l2.accesses, 0);
  CHECK_EQ_U64(cb_hierarchy_site_stats(h, 0, 0)->accesses, 0);
  cb_hierarchy_access(h, 14, 4, false, CB_SITE_NONE);
  CHECK_EQ_U64(misses(h, 0), 1);
  cb_hierarchy_destroy(h);
}

/* The three classes. Direct-mapped, 2 sets of one line (set = line & 1);
 * the shadow is a fully associative LRU cache of 2 lines. Distances are
 * the distinct lines referenced since the line's previous reference. */
static void test_classes(void) {
  cb_hierarchy *h =
      one_level(level("L1D", 32, 1, CB_POLICY_LRU, true), CB_CLASSIFY);
  cb_level_stats s;
  char got[8];
  /* 0 compulsory; 2 compulsory, evicts 0; 0: distance 1 < 2, conflict. */
  static const int conflict[] = {0, 2, 0};
  run_lines(h, conflict, 3, got);
  cb_hierarchy_level_stats(h, 0, &s);
  CHECK_EQ_U64(s.miss_class[CB_MISS_COMPULSORY], 2);
  CHECK_EQ_U64(s.miss_class[CB_MISS_CONFLICT], 1);
  CHECK_EQ_U64(s.miss_class[CB_MISS_CAPACITY], 0);
  /* 1, 3 compulsory; 2: since its last reference 0, 1, 3: distance 3,
   * capacity. Now set 0 = 2, set 1 = 3; recency 2 3 1 0. */
  static const int capacity[] = {1, 3, 2};
  run_lines(h, capacity, 3, got);
  CHECK(strcmp(got, "MMM") == 0);
  /* 4 alone: cold, compulsory. Set 0 = 4; recency 4 2 3 1 0. */
  cb_hierarchy_access(h, 4 * 16, 1, false, CB_SITE_NONE);
  /* Bytes 44..51, lines 2 and 3: 2 misses at distance 1 (conflict), 3
   * hits: a conflict miss. Set 0 = 2; recency 3 2 4 1 0. */
  cb_hierarchy_access(h, 44, 8, false, CB_SITE_NONE);
  /* Bytes 76..83, lines 4 and 5: 4 misses at distance 2 (capacity), 5
   * is cold (compulsory): the worst line, compulsory. */
  cb_hierarchy_access(h, 76, 8, false, 3);
  /* Bytes 60..67, lines 3 and 4: 3 misses at distance 2 (capacity), 4
   * hits: capacity. */
  cb_hierarchy_access(h, 60, 8, false, 3);
  cb_hierarchy_level_stats(h, 0, &s);
  CHECK_EQ_U64(s.misses, 10);
  CHECK_EQ_U64(s.miss_class[CB_MISS_COMPULSORY], 6);
  CHECK_EQ_U64(s.miss_class[CB_MISS_CAPACITY], 2);
  CHECK_EQ_U64(s.miss_class[CB_MISS_CONFLICT], 2);
  const cb_site_stats *site = cb_hierarchy_site_stats(h, 3, 0);
  CHECK_EQ_U64(site->accesses, 2);
  CHECK_EQ_U64(site->misses, 2);
  CHECK_EQ_U64(site->miss_class[CB_MISS_COMPULSORY], 1);
  CHECK_EQ_U64(site->miss_class[CB_MISS_CAPACITY], 1);
  CHECK_EQ_U64(site->miss_class[CB_MISS_CONFLICT], 0);
  cb_hierarchy_destroy(h);
}

int main(void) {
  test_policies();
  test_random();
  test_write_allocate();
  test_hierarchy_rules();
  test_classes();
  return check_done();
}
