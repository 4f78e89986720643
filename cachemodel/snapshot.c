/* Snapshots of a hierarchy (cache.h, cb_hierarchy_snapshot): its state
 * and its counters, for a stream simulated in pieces at once
 * (analysis/pipeline/split.c).
 *
 * Why a snapshot is the whole state. Under LRU, FIFO and MRU a set's
 * tags, in order, are all the policy keeps (policy.h: the order is the
 * recency or the fill order, and an empty way holds no line); the repeat
 * line (last_line) is not state: it names a line that is in front of its
 * set, where the full path finds it and changes nothing on a hit (LRU
 * and MRU move it to where it is, FIFO moves nothing), so it decides no
 * hit or miss. It is left out of the comparison: the memos drop it
 * where a segment ran part by part, so two runs of one stream hold
 * different ones in the same state. PLRU's tree bits, the random policy's
 * generator, wide sets' own arrays and the classification's shadows are
 * state too, so those hierarchies take no snapshot. Held-back work (the
 * memo's pending records and owed segments, memo.c) is settled first: a
 * snapshot is of the stream's state up to the last item run, as a
 * hierarchy without the memo would hold it. */
#include "hierarchy_internal.h"

#include <string.h>

bool cb_hierarchy_snapshots(const cb_hierarchy *h) {
  if (h->classify || !memo_state_copies(h))
    return false;
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_policy p = h->levels[l].policy;
    if (p != CB_POLICY_LRU && p != CB_POLICY_FIFO && p != CB_POLICY_MRU)
      return false;
  }
  return true;
}

size_t cb_hierarchy_snapshot_words(const cb_hierarchy *h) {
  return memo_state_words(h) + memo_n_counters(h);
}

void cb_hierarchy_snapshot(cb_hierarchy *h, uint64_t *snap) {
  memo_settle(h);
  memo_copy_take(h, snap);
}

bool cb_hierarchy_state_is(cb_hierarchy *h, const uint64_t *snap) {
  memo_settle(h);
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    size_t n = (size_t)(lv->set_mask + 1) * lv->assoc;
    if (memcmp(snap, lv->tags, n * sizeof *snap) != 0)
      return false;
    snap += n + 1; /* and the repeat line, not compared */
  }
  return true;
}

void cb_hierarchy_state_load(cb_hierarchy *h, const uint64_t *snap) {
  memo_settle(h);
  memo_state_restore(h, snap);
}

void cb_hierarchy_add_counts(cb_hierarchy *h, const uint64_t *to,
                             const uint64_t *from) {
  memo_settle(h);
  const size_t words = memo_state_words(h);
  memo_add_counters(h, to + words, from ? from + words : NULL);
}

void cb_snapshot_add_counts(const cb_hierarchy *h, uint64_t *acc,
                            const uint64_t *to, const uint64_t *from) {
  const size_t words = memo_state_words(h), n = memo_n_counters(h);
  for (size_t i = words; i < words + n; i++)
    acc[i] += to[i] - from[i];
}
