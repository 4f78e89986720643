/* Cachegrind's access rule, written once (cg_sim.c: cachesim_D1_doref,
 * cachesim_ref_is_miss; hierarchy.c's opening states it): at a level,
 * every line the access touches is looked up (all of them, even after
 * one missed, since each lookup updates its set); the level counts one
 * miss if any missed, and a missed access is presented whole to the
 * next level, where the line referenced last (last_line), still cached,
 * is a hit that changes nothing (the repeat fast path).
 *
 * A template, as Dinero IV generates its simulators' variants from one
 * source: each inclusion defines one copy, specialised by macros the
 * includer defines first and this file undefines. The copies differ in
 * where the state lives (the levels' fields, locals, a part's counters)
 * and in what they count beside the rule (miss classes, per-site
 * counters), never in the rule's steps. In scope for the macros: the
 * parameters RULE_PARAMS names, addr, end (the access's last byte),
 * is_write, and k (the level).
 *
 *   RULE_NAME            the function defined: unsigned RULE_NAME(
 *                        RULE_PARAMS, n_levels, addr, end, is_write,
 *                        one_line), how many levels missed (the first
 *                        ones); one_line: the caller knows the access lies
 *                        inside one line at every level (a constant)
 *   RULE_PARAMS          the state parameters, declared
 *   RULE_ARGS            the same, named (passed to the per-level step)
 *   RULE_UNROLLED        1: two levels, level 0 and 1 as constants
 *                        (n_levels must be 2); 0: a loop over n_levels
 *   RULE_LEVEL_LOCALS    declarations at each level's start (or nothing)
 *   RULE_SHIFT(k)        level k's line shift
 *   RULE_REF(k, line)    one line's lookup at level k: whether it hit
 *   RULE_REPEATS         1 where the levels keep last_line (then also
 *                        RULE_LAST(k), an lvalue, and RULE_ALLOCATES(k),
 *                        whether a write miss fills); 0 where no level
 *                        below the first takes the repeat fast path
 *   RULE_MISS(k, first, last)  a miss at level k (its lines first..last)
 *   RULE_PASS(k)         the access presented to level k >= 1
 *   RULE_REPEAT(k)       what a repeat hit at level k counts (or nothing)
 *   RULE_KEEP            defined: the macros above but RULE_NAME and
 *                        RULE_UNROLLED stay defined for the next copy
 *
 * Internal to cachemodel; test_cache_reference holds every copy to the
 * brute-force model. */
#ifndef CBANA_CACHEMODEL_ACCESS_RULE_ONCE
#define CBANA_CACHEMODEL_ACCESS_RULE_ONCE
/* A level's answer when the access goes on to the next level. */
#define RULE_NEXT UINT_MAX
#define RULE_CAT2_(a, b) a##b
#define RULE_CAT_(a, b) RULE_CAT2_(a, b)
#endif

#ifndef RULE_LEVEL_LOCALS
#define RULE_LEVEL_LOCALS
#endif

/* One level's steps: how many levels missed when the access stops at
 * this level (a hit, the last level, or the next level's repeat fast
 * path), else RULE_NEXT. */
static inline __attribute__((always_inline)) unsigned
RULE_CAT_(RULE_NAME, _level)(RULE_PARAMS, const unsigned k,
                             const unsigned n_levels, const uint64_t addr,
                             const uint64_t end, const bool is_write,
                             const bool one_line) {
  RULE_LEVEL_LOCALS
  const uint64_t first = addr >> RULE_SHIFT(k),
                 last = one_line ? first : end >> RULE_SHIFT(k);
  bool all_hit, hit;
  if (one_line) {
    all_hit = hit = RULE_REF(k, first);
  } else {
    all_hit = true;
    for (uint64_t line = first;; line++) {
      hit = RULE_REF(k, line);
      all_hit &= hit;
      if (line == last)
        break;
    }
  }
#if RULE_REPEATS
  /* The repeat fast path may trust last_line only while it is cached: a
   * write miss without allocation leaves it out. */
  RULE_LAST(k) = hit || !is_write || RULE_ALLOCATES(k) ? last : NO_LINE;
#else
  (void)hit;
#endif
  if (all_hit)
    return k;
  RULE_MISS(k, first, last);
  if (k + 1 == n_levels)
    return n_levels;
  RULE_PASS(k + 1);
#if RULE_REPEATS
  if (addr >> RULE_SHIFT(k + 1) == RULE_LAST(k + 1) &&
      (one_line || end >> RULE_SHIFT(k + 1) == RULE_LAST(k + 1))) {
    RULE_REPEAT(k + 1);
    return k + 1;
  }
#endif
  return RULE_NEXT;
}

static inline __attribute__((always_inline)) unsigned
RULE_NAME(RULE_PARAMS, const unsigned n_levels, const uint64_t addr,
          const uint64_t end, const bool is_write, const bool one_line) {
#if RULE_UNROLLED
  (void)n_levels;
  unsigned r = RULE_CAT_(RULE_NAME, _level)(RULE_ARGS, 0, 2, addr, end,
                                            is_write, one_line);
  if (r != RULE_NEXT)
    return r;
  return RULE_CAT_(RULE_NAME, _level)(RULE_ARGS, 1, 2, addr, end, is_write,
                                      one_line);
#else
  for (unsigned k = 0;; k++) {
    unsigned r = RULE_CAT_(RULE_NAME, _level)(RULE_ARGS, k, n_levels, addr, end,
                                              is_write, one_line);
    if (r != RULE_NEXT)
      return r;
  }
#endif
}

#undef RULE_NAME
#undef RULE_UNROLLED
#ifndef RULE_KEEP
#undef RULE_PARAMS
#undef RULE_ARGS
#undef RULE_LEVEL_LOCALS
#undef RULE_SHIFT
#undef RULE_REF
#undef RULE_REPEATS
#undef RULE_LAST
#undef RULE_ALLOCATES
#undef RULE_MISS
#undef RULE_PASS
#undef RULE_REPEAT
#endif
