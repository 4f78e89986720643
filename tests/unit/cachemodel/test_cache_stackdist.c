/* Stack distances: every returned distance and the final order against a
 * naive move-to-front list (with a tree small enough to renumber hundreds
 * of times), and the histogram's miss-ratio curve against direct
 * simulation of fully associative LRU caches of several capacities. */
#include "cbana/stream.h"
#include "check.h"
#include "stackdist.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 7;
static uint64_t rnd(uint64_t n) {
  return check_rand(&rnd_state) % n;
}

/* Lines: a hot few, a wider pool, and sparse ones far apart (so the hash
 * table grows and blocks hold one line each). */
static uint64_t pick_line(void) {
  switch (rnd(4)) {
  case 0:
    return rnd(8);
  case 1:
    return 1000 + rnd(600);
  case 2:
    return rnd(300) * 4099 + (1ull << 40);
  default:
    return 5000 + rnd(40) * 16;
  }
}

/* Sweeps: passes over 700 lines in order (a stride of one or three),
 * now and then a line from elsewhere: removals come from one word at a
 * time, the case stackdist batches. */
static uint64_t sweep_line(int i) {
  if (rnd(50) == 0)
    return rnd(5000);
  return (uint64_t)(i % 700) * (i / 7000 % 2 ? 3 : 1);
}

/* The streams below aim at the front (SD_FRONT lines in recency order
 * before the bitmap and tree): references at depths around its size,
 * monotone runs that start and stop sweeps (which empty the front), and
 * hot lines kept in the front while new groups grow the hash table
 * (which moves the times the front points at). */
enum { S_MIXED, S_SWEEP, S_DEPTH, S_RUNS, S_GROW };

/* A line at a depth near the front's size, a line pushed out of it long
 * ago, or a new one; `stack` is the brute-force LRU stack. */
static uint64_t depth_line(const uint64_t *stack, size_t depth, int i) {
  uint64_t r = rnd(16);
  size_t d = r < 10   ? SD_FRONT - 3 + rnd(6) /* around the boundary */
             : r < 13 ? rnd(SD_FRONT)         /* inside the front */
             : r < 15 ? SD_FRONT + rnd(200)   /* behind it */
                      : (size_t)-1;           /* new */
  if (d < depth)
    return stack[d];
  return 100000 + (uint64_t)i * 7;
}

/* Runs of 1 to 2 SD_FRONT + 4 lines up or down by one line or a few,
 * from anywhere in 400 lines, now and then a recent line: sweeps that
 * start (a run reaches SD_FRONT - 1), go on and break. */
static uint64_t runs_line(const uint64_t *stack, size_t depth) {
  static uint64_t pos = 200, left;
  static int64_t step = 1;
  if (left == 0) {
    left = 1 + rnd(2 * SD_FRONT + 4);
    pos = rnd(400);
    step = (rnd(2) ? 1 : -1) * (int64_t)(rnd(3) ? 1 : 1 + rnd(5));
    if (rnd(4) == 0 && depth > 3)
      return stack[rnd(depth < 24 ? depth : 24)];
  }
  left--;
  pos += (uint64_t)step;
  return pos + 1000;
}

/* Six hot lines in turn, every fifth reference a line of a new group
 * far away (so the hash table grows under the front), now and then one
 * of those again. */
static uint64_t grow_line(int i) {
  if (i % 5 == 4)
    return ((uint64_t)i * 4099 + (rnd(8) == 0 ? rnd(i + 1) * 4099 : 0)) *
               SD_GROUP_LINES +
           (1ull << 36);
  return (uint64_t)(i % 6) * 3;
}

static void test_distances(uint32_t initial_cap, int stream) {
  enum { N = 30000, MAX = 20000 };
  uint64_t *stack = malloc(MAX * sizeof *stack);
  uint64_t *hist = calloc(MAX, sizeof *hist);
  size_t depth = 0;
  uint64_t cold = 0, refs = 0;
  int wrong = 0;
  rnd_state = 7 + (uint64_t)stream;
  cb_stackdist sd;
  CHECK(cb_stackdist_init(&sd, initial_cap));
  /* the front's stamps renumbered every few dozen references */
  if (initial_cap == 17)
    sd.front_stamp_max = INT32_MIN + 40 + stream;
  for (int i = 0; i < N; i++) {
    uint64_t line = stream == S_MIXED   ? pick_line()
                    : stream == S_SWEEP ? sweep_line(i)
                    : stream == S_DEPTH ? depth_line(stack, depth, i)
                    : stream == S_RUNS  ? runs_line(stack, depth)
                                        : grow_line(i);
    size_t p = 0;
    while (p < depth && stack[p] != line)
      p++;
    uint64_t want = p < depth ? p : SD_COLD;
    if (p == depth)
      depth++;
    CHECK(depth <= MAX);
    memmove(stack + 1, stack, p * sizeof *stack);
    stack[0] = line;
    if (want == SD_COLD)
      cold++;
    else
      hist[want]++;
    uint64_t got = cb_stackdist_ref(&sd, line);
    if (got != want && wrong++ < 5)
      fprintf(stderr,
              "cap %u stream %d ref %d line %llu: distance %llu, want %llu\n",
              initial_cap, stream, i, (unsigned long long)line,
              (unsigned long long)got, (unsigned long long)want);
    /* affine.c's warps add to the histogram between references */
    if (i % 97 == 0) {
      uint64_t d = rnd(3) ? rnd(SD_FRONT + 2) : rnd(300), c = 1 + rnd(5);
      cb_stackdist_add_refs(&sd, d, c);
      hist[d] += c;
      refs += c;
    }
  }
  CHECK(wrong == 0);
  CHECK_EQ_U64(sd.cold, cold);
  CHECK_EQ_U64(sd.distinct, depth);
  bool same = sd.hist_len <= MAX;
  for (size_t d = 0; same && d < MAX; d++)
    same = (d < sd.hist_len ? sd.hist[d] : 0) == hist[d];
  CHECK(same);
  CHECK_EQ_U64(cb_stackdist_refs(&sd), N + refs);
  /* The order, bottom up, is the brute-force stack's, after references
   * that move lines inside the move-to-front list (which the front and
   * the structure have not seen then). */
  for (uint64_t d = 3; d > 0 && depth > 3; d--) {
    uint64_t line = stack[d];
    memmove(stack + 1, stack, d * sizeof *stack);
    stack[0] = line;
    CHECK_EQ_U64(cb_stackdist_ref(&sd, line), d);
  }
  /* (the list moves lines only while the front is on) */
  CHECK(sd.mru_dirty > 0 || sd.bypass);
  uint64_t *order = malloc(depth * sizeof *order);
  cb_stackdist_order(&sd, order);
  bool same_order = true;
  for (size_t k = 0; k < depth; k++)
    same_order &= order[depth - 1 - k] == stack[k];
  CHECK(same_order);
  free(order);
  /* After a reset the same stream gives the same distances. */
  cb_stackdist_reset(&sd);
  CHECK_EQ_U64(cb_stackdist_refs(&sd), 0);
  CHECK(cb_stackdist_ref(&sd, 3) == SD_COLD);
  CHECK(cb_stackdist_ref(&sd, 4) == SD_COLD);
  CHECK_EQ_U64(cb_stackdist_ref(&sd, 3), 1);
  CHECK_EQ_U64(cb_stackdist_ref(&sd, 3), 0);
  cb_stackdist_free(&sd);
  free(stack);
  free(hist);
}

/* Cycles over n lines of a few groups, in an order that changes every
 * few rounds, for n around the front's size: every reference of a round
 * is at depth n - 1 when the order stays, so n = SD_FRONT and n =
 * SD_FRONT + 1 sit on either side of the front's last depth. */
static void test_cycles(void) {
  for (uint32_t n = 2; n <= 2 * SD_FRONT + 2; n++) {
    uint64_t lines[2 * SD_FRONT + 2], stack[2 * SD_FRONT + 2];
    for (uint32_t k = 0; k < n; k++)
      lines[k] = (k % 3) * 1000 + k; /* three groups, like objects */
    cb_stackdist sd;
    CHECK(cb_stackdist_init(&sd, n < 10 ? 3 : 1u << 16));
    if (n % 3 == 0)
      sd.front_stamp_max = INT32_MIN + 3 * (int32_t)n;
    size_t depth = 0;
    int wrong = 0;
    for (int round = 0; round < 200; round++) {
      if (round % 7 == 6) /* a new order: a Fisher-Yates shuffle */
        for (uint32_t k = n - 1; k > 0; k--) {
          uint32_t j = (uint32_t)rnd(k + 1);
          uint64_t t = lines[k];
          lines[k] = lines[j];
          lines[j] = t;
        }
      for (uint32_t k = 0; k < n; k++) {
        size_t p = 0;
        while (p < depth && stack[p] != lines[k])
          p++;
        uint64_t want = p < depth ? p : SD_COLD;
        if (p == depth)
          depth++;
        memmove(stack + 1, stack, p * sizeof *stack);
        stack[0] = lines[k];
        wrong += cb_stackdist_ref(&sd, lines[k]) != want;
      }
    }
    if (wrong)
      fprintf(stderr, "cycle of %u lines: %d distances wrong\n", n, wrong);
    CHECK(wrong == 0);
    CHECK_EQ_U64(sd.cold, n);
    CHECK_EQ_U64(cb_stackdist_refs(&sd), 200 * (uint64_t)n);
    cb_stackdist_free(&sd);
  }
}

/* Misses of a fully associative LRU cache of `cap` lines, simulated. */
static uint64_t fa_lru_misses(const uint64_t *lines, size_t n, size_t cap) {
  uint64_t *c = malloc(cap * sizeof *c);
  size_t used = 0;
  uint64_t misses = 0;
  for (size_t i = 0; i < n; i++) {
    size_t p = 0;
    while (p < used && c[p] != lines[i])
      p++;
    if (p == used) {
      misses++;
      if (used < cap)
        used++;
      p = used - 1; /* the LRU line's slot, or the new one */
    }
    memmove(c + 1, c, p * sizeof *c);
    c[0] = lines[i];
  }
  free(c);
  return misses;
}

/* Through the hierarchy: accesses of 1 to 64 bytes with 32-byte lines,
 * so straddles make two line references. */
static void test_mrc(void) {
  enum { N = 20000 };
  cb_cache_config cfg = {1,
                         {{.name = "L1D",
                           .size = 1024,
                           .assoc = 2,
                           .line = 32,
                           .policy = CB_POLICY_LRU,
                           .write_allocate = true}}};
  char err[CB_ERR_MAX];
  cb_hierarchy *h = cb_hierarchy_create(&cfg, 0, CB_CLASSIFY, err, sizeof err);
  uint64_t *lines = malloc(2 * N * sizeof *lines);
  size_t n_lines = 0;
  for (int i = 0; i < N; i++) {
    uint64_t addr = pick_line() * 8 + rnd(8);
    uint32_t size = (uint32_t)(1 + rnd(40));
    cb_hierarchy_access(h, addr, size, rnd(3) == 0, CB_SITE_NONE);
    for (uint64_t l = addr / 32; l <= (addr + size - 1) / 32; l++)
      lines[n_lines++] = l;
  }
  CHECK_EQ_U64(cb_hierarchy_line_refs(h, 0), n_lines);
  static const size_t caps[] = {1, 2, 3, 4, 7, 8, 16, 33, 64, 100, 512, 3000};
  for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++)
    CHECK_EQ_U64(cb_hierarchy_fa_lru_misses(h, 0, caps[k]),
                 fa_lru_misses(lines, n_lines, caps[k]));
  cb_hierarchy_destroy(h);
  /* Without classification there is no histogram. */
  h = cb_hierarchy_create(&cfg, 0, 0, err, sizeof err);
  const uint64_t *hist;
  size_t len;
  uint64_t cold;
  CHECK(!cb_hierarchy_distance_histogram(h, 0, &hist, &len, &cold));
  CHECK(cb_hierarchy_fa_lru_misses(h, 0, 4) == UINT64_MAX);
  cb_hierarchy_destroy(h);
  free(lines);
}

int main(void) {
  static const uint32_t caps[] = {2, 3, 17, 64, 1u << 16};
  for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++)
    for (int stream = S_MIXED; stream <= S_GROW; stream++)
      test_distances(caps[c], stream);
  test_cycles();
  test_mrc();
  return check_done();
}
