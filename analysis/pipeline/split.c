/* The time split: two simulation threads on one stream, one holding the
 * truth and one guessing the next epoch (split.h says why the counts
 * are exact).
 *
 * The stream travels as in pipe.c (items: a batch of records or a block
 * with its accesses copied, here coded against the chunk's last ones:
 * item_delta.h) in chunks of SPLIT_CHUNK bytes, which the producer
 * (split_queue.c) publishes one at a time, so that the truth follows the
 * engine closely; an epoch is a list of chunks. An epoch is freed once the
 * truth has passed it and no guess reads it; the producer waits while
 * SPLIT_LIVE epochs are in memory, so memory stays flat.
 *
 * One mutex and one condition guard the hand-overs: they happen at chunk
 * boundaries and checkpoints, a few thousand times a run, never per
 * item. */
#include "split.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cbana/stream.h"
#include "collector.h"
#include "item_delta.h"
#include "split_internal.h"

/* -- snapshots of every hierarchy at once ------------------------------ */

static void snap_all(const sim *t, uint64_t *snap) {
  for (unsigned i = 0; i < t->s->n; i++)
    cb_hierarchy_snapshot(t->h[i], snap + t->s->off[i]);
}

static bool state_is_all(const sim *t, const uint64_t *snap) {
  for (unsigned i = 0; i < t->s->n; i++)
    if (!cb_hierarchy_state_is(t->h[i], snap + t->s->off[i]))
      return false;
  return true;
}

/* adj += to - from, for every hierarchy's counters. */
static void add_all(const sim *t, uint64_t *adj, const uint64_t *to,
                    const uint64_t *from) {
  for (unsigned i = 0; i < t->s->n; i++) {
    size_t o = t->s->off[i];
    cb_snapshot_add_counts(t->h[i], adj + o, to + o, from + o);
  }
}

/* -- the threads ---------------------------------------------------------- */

static double mono_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Waits on the split's condition (L), timing the wait: --stats reports
 * how long the threads stood idle. */
static void sim_wait(sim *t) {
  double t0 = mono_s();
  pthread_cond_wait(&t->s->cond, &t->s->lock);
  t->idle_s += mono_s() - t0;
}

/* Runs an item of a chunk; d: the chunk's last items (item_delta.h). */
static void run_item(const sim *t, item_delta *d, const item *it,
                     const void *payload) {
  if (item_is_records(it)) {
    const cb_access *rec = item_delta_read_records(d, it, payload);
    for (unsigned i = 0; i < t->s->n; i++)
      cb_hierarchy_run(t->h[i], rec, it->n);
    return;
  }
  cb_affine_block b = {it->n_iter, it->n,
                       item_delta_read_block(d, it, payload)};
  for (unsigned i = 0; i < t->s->n; i++)
    cb_hierarchy_run_affine(t->h[i], &b);
}

/* A guess thrown away, or met too late (L): the epochs double in
 * accesses (not in bytes: SPLIT_EPOCH_BYTES), and after SPLIT_FAILS in a
 * row the guessing stops. */
static void fail(cb_split *s) {
  uint64_t len = atomic_load(&s->epoch_acc);
  if (++s->fails >= SPLIT_FAILS)
    s->no_guess = true;
  else if (len < s->epoch_max)
    atomic_store(&s->epoch_acc, 2 * len);
}

/* A guess thrown away (L): all it counted is waste, and its state met
 * no truth. (A guess met at a checkpoint is counted by the truth, which
 * subtracts up to the checkpoint.) */
static void guess_thrown(sim *t, epoch *e) {
  snap_all(t, t->tmp);
  add_all(t, t->adj, t->mark, t->tmp);
  t->stale = true;
  e->guess = -1;
}

/* Runs epoch e from its start, holding the truth or guessing (L held on
 * entry and exit). Returns when the thread no longer reads e: it ran e
 * to its end holding the truth (true), or it passed the truth on, or its
 * guess was abandoned (false). */
static bool run_epoch(sim *t, epoch *e) {
  cb_split *s = t->s;
  bool truth = s->truth == t->id;
  if (!truth) {
    e->guess = t->id;
    e->tried = true;
    /* Each checkpoint settles the memos (their histories start over):
     * after a match, only the checkpoints around its place are taken. */
    e->cp_lo = 0;
    e->cp_hi = SPLIT_CP;
    if (s->last_cp >= 0) {
      e->cp_lo = s->last_cp > 0 ? (unsigned)s->last_cp - 1 : 0;
      e->cp_hi = (unsigned)s->last_cp + 3 < SPLIT_CP ? (unsigned)s->last_cp + 3
                                                     : SPLIT_CP;
    }
    snap_all(t, t->mark);
  }
  uint64_t at = 0;
  unsigned next_cp = 0, read = 0;
  chunk *c = NULL;
  item_delta delta, *d = &delta;
  for (;;) {
    while (read == e->published && !e->closed && !s->finished)
      sim_wait(t);
    if (!truth && s->truth == t->id)
      truth = true; /* matched: add_all was done by the matcher's rules */
    if (!truth && e->abandoned) {
      guess_thrown(t, e);
      return false;
    }
    if (truth && s->want_state) {
      pthread_mutex_unlock(&s->lock);
      snap_all(t, s->state);
      pthread_mutex_lock(&s->lock);
      s->want_state = false;
      s->state_ready = true;
      pthread_cond_broadcast(&s->cond);
    }
    /* The truth in an epoch no guess took is its only reader: a chunk it
     * has run goes back at once, and the next chunk the producer takes
     * is still in the host's caches, as pipe.c's ring is (heat-3d
     * MEDIUM, 115 MiB of blocks, ran 10 % slower through fresh
     * chunks). */
    const bool alone = truth && !e->tried;
    if (read == e->published) {
      if (c && alone) {
        e->first = NULL;
        split_chunk_back(s, c);
      }
      break; /* closed, all read */
    }
    chunk *next = c ? c->next : e->first;
    if (c && alone) {
      e->first = next;
      split_chunk_back(s, c);
    }
    c = next;
    read++;
    if (truth) {
      e->truth_read = read;
      pthread_cond_broadcast(&s->cond); /* a producer held at the ring */
    }
    pthread_mutex_unlock(&s->lock);
    const unsigned char *q = (const unsigned char *)c->buf;
    item_delta_reset(d); /* each chunk starts afresh */
    for (size_t pos = 0; pos < c->used;) {
      const item *it = (const item *)(const void *)(q + pos);
      run_item(t, d, it, q + pos + sizeof *it);
      pos += item_delta_bytes(it);
      at += item_delta_accesses(it);
      if (next_cp == SPLIT_CP || at < SPLIT_CP_FIRST << 2 * next_cp)
        continue;
      unsigned k = next_cp++;
      pthread_mutex_lock(&s->lock);
      const bool taken = k >= e->cp_lo && k < e->cp_hi;
      if (!truth && s->truth != t->id) {
        /* a guess: record the checkpoint */
        if (taken) {
          pthread_mutex_unlock(&s->lock);
          snap_all(t, e->cp + k * s->words);
          pthread_mutex_lock(&s->lock);
        }
        e->cp_at[k] = at;
        e->n_cp = k + 1;
        pthread_cond_broadcast(&s->cond);
      } else if (taken && e->guess >= 0 && e->guess != t->id && e->n_cp > k &&
                 e->cp_at[k] == at && !e->abandoned) {
        /* the truth at a checkpoint the guess recorded */
        pthread_mutex_unlock(&s->lock);
        bool same = state_is_all(t, e->cp + k * s->words);
        pthread_mutex_lock(&s->lock);
        if (same) {
          sim *g = &s->t[e->guess];
          /* the guess's waste: from its start to this checkpoint */
          add_all(g, g->adj, g->mark, e->cp + k * s->words);
          e->guess = -1;
          s->last_cp = (int)k;
          s->truth = g->id;
          s->st.handovers++;
          /* A match past an eighth of the epoch saved little: counted
           * as a failure all the same (doitgen LARGE: 51 M of 256 M).
           * The epoch's length is the producer's once it is closed. */
          uint64_t len = e->closed ? e->accesses : atomic_load(&s->epoch_acc);
          if (8 * at > len)
            fail(s);
          else
            s->fails = 0;
          s->st.rerun += at;
          pthread_cond_broadcast(&s->cond);
          return false;
        }
      }
      truth = truth || s->truth == t->id;
      pthread_mutex_unlock(&s->lock);
    }
    pthread_mutex_lock(&s->lock);
  }
  /* the end of e */
  while (!truth && s->truth != t->id && !e->abandoned && !s->finished)
    sim_wait(t);
  if (!truth && s->truth != t->id) {
    guess_thrown(t, e);
    return false;
  }
  if (e->guess >= 0 && e->guess != t->id) {
    e->abandoned = true; /* never matched: the guess's counts are waste */
    s->last_cp = -1;     /* the next guess takes every checkpoint */
    s->st.abandoned++;
    s->st.rerun += e->accesses;
    fail(s);
  }
  if (e->guess == t->id)
    e->guess = -1; /* promoted while at the end */
  e->passed = true;
  pthread_cond_broadcast(&s->cond);
  return true;
}

/* The second thread's hierarchies (outside the lock). */
static bool make_own(cb_split *s) {
  for (unsigned i = 0; i < s->n; i++) {
    char err[256];
    s->own[i] = cb_hierarchy_create(s->cfg[i], s->n_sites, 0, err, sizeof err);
    if (!s->own[i] || !cb_hierarchy_snapshots(s->own[i]))
      return false;
  }
  return true;
}

static void *sim_main(void *arg) {
  sim *t = arg;
  cb_split *s = t->s;
  double t0 = drv_thread_cpu_s();
  pthread_mutex_lock(&s->lock);
  while (!s->finished) {
    split_release(s);
    epoch *e = s->truth_epoch;
    if (s->truth == t->id) {
      if (!e) {
        if (s->done) {
          s->finished = true;
          pthread_cond_broadcast(&s->cond);
          break;
        }
        sim_wait(t);
        continue;
      }
      if (run_epoch(t, e)) {
        while (!e->next && !s->done)
          sim_wait(t);
        s->truth_epoch = e->next;
      }
      continue;
    }
    /* Not the truth: guess the first epoch after the truth's that no
     * thread has tried. Only while a core is free for it: not while the
     * engine produces, unless it waits for the truth. The engine and the
     * truth keep both cores busy then, and all that a guess adds is the
     * accesses the truth runs again to meet it, or its whole epoch when
     * it never meets (fdtd-2d and 2mm LARGE threw 270 M accesses away in
     * one run of three). */
    const bool core_free = s->guess_anytime || s->done || s->prod_waiting;
    epoch *g =
        e && !s->no_guess && !s->records_heavy && core_free ? e->next : NULL;
    while (g && g->tried)
      g = g->next;
    if (!g) {
      sim_wait(t);
      continue;
    }
    if (!s->own_made) {
      pthread_mutex_unlock(&s->lock);
      bool ok = make_own(s);
      pthread_mutex_lock(&s->lock);
      s->own_made = ok;
      s->no_guess = !ok;
      continue; /* the epochs moved on meanwhile */
    }
    if (t->stale) {
      /* the truth's state, as the guess: floyd-warshall MEDIUM's first
       * guess, from empty caches, never met the truth, and ran 0.94 s
       * against 0.65 unsplit */
      s->want_state = true;
      s->state_ready = false;
      while (!s->state_ready && !s->finished)
        sim_wait(t);
      if (s->finished)
        break;
      pthread_mutex_unlock(&s->lock);
      for (unsigned i = 0; i < s->n; i++)
        cb_hierarchy_state_load(t->h[i], s->state + s->off[i]);
      pthread_mutex_lock(&s->lock);
      t->stale = false;
      continue; /* the epochs moved on meanwhile */
    }
    if (!run_epoch(t, g) || s->truth != t->id)
      continue;
    /* matched at the end of g and ran it as the truth */
    while (!g->next && !s->done)
      sim_wait(t);
    s->truth_epoch = g->next;
  }
  pthread_mutex_unlock(&s->lock);
  t->cpu_s = drv_thread_cpu_s() - t0;
  return NULL;
}

/* -- start and finish ------------------------------------------------------ */

/* Whether the split can run these n hierarchies. */
static bool split_applies(cb_hierarchy *const *h, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    if (!cb_hierarchy_snapshots(h[i]))
      return false;
  return n > 0;
}

static bool sim_init(cb_split *s, sim *t, int id, cb_hierarchy **h) {
  t->s = s;
  t->id = id;
  t->h = h;
  t->mark = calloc(s->words, sizeof *t->mark);
  t->adj = calloc(s->words, sizeof *t->adj);
  t->tmp = calloc(s->words, sizeof *t->tmp);
  t->stale = id == 1; /* empty caches */
  return t->mark && t->adj && t->tmp;
}

static void split_free(cb_split *s) {
  for (int i = 0; i < 2; i++) {
    free(s->t[i].mark);
    free(s->t[i].adj);
    free(s->t[i].tmp);
  }
  if (s->own)
    for (unsigned i = 0; i < s->n; i++)
      if (s->own[i])
        cb_hierarchy_destroy(s->own[i]);
  while (s->head) {
    epoch *e = s->head;
    s->head = e->next;
    split_epoch_free(s, e);
  }
  for (size_t i = 0; i < s->n_slabs; i++)
    if (s->slabs[i].mapped)
      cb_huge_unmap(s->slabs[i].p, SPLIT_SLAB);
    else
      free(s->slabs[i].p);
  free(s->slabs);
  while (s->free_cp) {
    uint64_t *cp = s->free_cp;
    s->free_cp = (uint64_t *)(uintptr_t)cp[0];
    cb_huge_unmap(cp, s->cp_bytes);
  }
  free(s->own);
  free(s->cfg);
  free(s->state);
  free(s->off);
  pthread_cond_destroy(&s->cond);
  pthread_mutex_destroy(&s->lock);
  free(s);
}

cb_split *cb_split_start(cb_hierarchy *const *h,
                         const cb_cache_config *const *cfg, unsigned n,
                         uint32_t n_sites, const cb_access_sink *tap,
                         uint64_t epoch_acc) {
  if (!split_applies(h, n))
    return NULL;
  cb_split *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  pthread_mutex_init(&s->lock, NULL);
  pthread_cond_init(&s->cond, NULL);
  s->n = n;
  s->tap = *tap;
  atomic_init(&s->epoch_acc, epoch_acc ? epoch_acc : SPLIT_EPOCH);
  s->guess_anytime = epoch_acc != 0;
  s->last_cp = -1;
  s->epoch_max = SPLIT_EPOCH_GROWTH * atomic_load(&s->epoch_acc);
  s->off = calloc(n, sizeof *s->off);
  s->own = calloc(n, sizeof *s->own);
  s->cfg = calloc(n, sizeof *s->cfg);
  s->n_sites = n_sites;
  bool ok = s->off && s->own && s->cfg;
  for (unsigned i = 0; ok && i < n; i++) {
    s->off[i] = s->words;
    s->words += cb_hierarchy_snapshot_words(h[i]);
    s->cfg[i] = cfg[i];
  }
  s->cp_bytes = SPLIT_CP * s->words * sizeof(uint64_t);
  s->state = calloc(s->words, sizeof *s->state);
  ok = ok && s->state && sim_init(s, &s->t[0], 0, (cb_hierarchy **)h) &&
       sim_init(s, &s->t[1], 1, s->own);
  if (!ok) {
    split_free(s);
    return NULL;
  }
  int started = 0;
  for (; started < 2; started++)
    if (pthread_create(&s->t[started].thread, NULL, sim_main, &s->t[started]) !=
        0)
      break;
  if (started < 2) {
    pthread_mutex_lock(&s->lock);
    s->done = s->finished = true;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    for (int i = 0; i < started; i++)
      pthread_join(s->t[i].thread, NULL);
    split_free(s);
    return NULL;
  }
  return s;
}

double cb_split_finish(cb_split *s, cb_split_stats *st, cb_affine_stats *own) {
  if (s->open)
    split_publish(s, true);
  pthread_mutex_lock(&s->lock);
  s->done = true;
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
  for (int i = 0; i < 2; i++)
    pthread_join(s->t[i].thread, NULL);
  /* The stream's counters: both threads' own, less their guesses' waste
   * (adj holds it negated). */
  sim *t0 = &s->t[0], *t1 = &s->t[1];
  if (s->own_made)
    snap_all(t1, t1->tmp);
  for (unsigned i = 0; s->own_made && i < s->n; i++) {
    size_t o = s->off[i];
    cb_hierarchy_add_counts(t0->h[i], t1->tmp + o, NULL);
    cb_hierarchy_add_counts(t0->h[i], t0->adj + o, NULL);
    cb_hierarchy_add_counts(t0->h[i], t1->adj + o, NULL);
  }
  for (unsigned i = 0; own && i < s->n; i++) {
    memset(&own[i], 0, sizeof own[i]);
    if (s->own_made)
      cb_hierarchy_affine_stats(s->own[i], &own[i]);
  }
  double cpu = t0->cpu_s + t1->cpu_s;
  s->st.idle_s = t0->idle_s + t1->idle_s;
  if (st)
    *st = s->st;
  split_free(s);
  return cpu;
}
