/* The time split: two simulation threads on one stream, one holding the
 * truth and one guessing the next epoch (split.h says why the counts
 * are exact).
 *
 * The stream travels as in pipe.c (items: a batch of records or a block
 * with its accesses copied) in chunks of SPLIT_CHUNK bytes, which the
 * producer publishes one at a time, so that the truth follows the engine
 * closely; an epoch is a list of chunks. An epoch is freed once the truth
 * has passed it and no guess reads it; the producer waits while
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
#include "driver_native.h"
#include "item_delta.h"
#include "pipe.h"

#define SPLIT_CHUNK ((size_t)256 << 10)
#define SPLIT_EPOCH ((uint64_t)256 << 20) /* accesses, by default */
/* An epoch's items take at most this much: a stream of records (16
 * bytes an access) ends its epochs by size; blocks are about 100 bytes
 * for 500 accesses (doitgen LARGE: 256 Mi accesses in 60 MiB, 2mm in
 * 9 MiB). Two epochs in memory, and their chunks kept for reuse: peak
 * RSS rose from 119 to 327 MiB on doitgen LARGE with 96 MiB here. The
 * bound stays when the epochs double (fail): doubled with them, it let
 * doitgen LARGE's epochs grow to 400 M accesses past its late matches,
 * 0.46 GiB peak, and on a host that hands freed memory back to its
 * hypervisor each fresh MiB costs 2.5 to 3.3 ms to fault in: 0.7 to 1.6
 * s of system time a run. Bounded here, its guessing stops after
 * SPLIT_FAILS, 0.31 GiB peak, 0.2 to 0.4 s of system time, and the same
 * wall time within this host's noise (bench/results/fast_notes.md,
 * session 31). */
#define SPLIT_EPOCH_BYTES ((size_t)64 << 20)
/* Epochs in memory: the truth's and the guess's. The producer, the
 * faster by far, fills the next while the truth meets the guess. */
#define SPLIT_LIVE 2
/* A guess thrown away, or met past an eighth of its epoch, doubles the
 * epochs, up to SPLIT_EPOCH_GROWTH times the first (doitgen LARGE's
 * states meet 51 M accesses in, its LL's sets refilled slowly by its walk
 * through A); SPLIT_FAILS in a row stop the guessing, so that a stream
 * whose guesses never meet the truth costs one thread's CPU, not two. */
#define SPLIT_EPOCH_GROWTH 4 /* times the first */
#define SPLIT_FAILS 3
/* Checkpoints per epoch: the k-th at the first item boundary past
 * SPLIT_CP_FIRST << 2k accesses into the epoch (64 Ki to 1 Gi). Each
 * one settles the memos (memo_settle: their histories start over), which
 * costs the repetitions they must see again: cholesky with N = 1000
 * counted 9 % fewer segments with a checkpoint at every power of two. */
#define SPLIT_CP 8
#define SPLIT_CP_FIRST ((uint64_t)64 << 10)
/* Chunks ahead of the truth while nothing is guessed (pipe.c: 8). */
#define SPLIT_RING 8
/* Chunks and snapshots live in mappings of transparent huge pages
 * (cb_huge_map): doitgen LARGE buffered 214 MiB of chunks, 55 K page
 * faults of 4 KiB, and each epoch's snapshots (16 MiB for cachegrind's
 * caches) were mapped anew and faulted in again; at about 10 us a fault
 * that was a fifth of its CPU (bench/results/fast_notes.md, session 28).
 * Slabs of chunks: */
#define SPLIT_SLAB ((size_t)16 << 20)

typedef stream_item item; /* pipe.h */

typedef struct chunk {
  struct chunk *next;
  size_t used;
  uint64_t buf[SPLIT_CHUNK / sizeof(uint64_t)];
} chunk;

/* Fields marked (L) are read and written under the split's lock. */
typedef struct epoch {
  struct epoch *next; /* (L) */
  chunk *first, *last;
  unsigned published;    /* (L) chunks the threads may read */
  unsigned truth_read;   /* (L) of those, the chunks the truth took */
  bool closed;           /* (L) no chunk will follow */
  uint64_t accesses;     /* the producer's */
  uint64_t records;      /* the producer's: accesses that came as records */
  size_t bytes;          /* the producer's */
  int guess;             /* (L) the thread guessing it, or -1 */
  bool tried;            /* (L) some thread guessed it */
  bool abandoned;        /* (L) the truth passed its end before a match */
  bool passed;           /* (L) the truth ran it to its end */
  unsigned n_cp;         /* (L) checkpoints the guess has passed */
  unsigned cp_lo, cp_hi; /* the ones it records: [cp_lo, cp_hi) */
  uint64_t cp_at[SPLIT_CP];
  uint64_t *cp; /* SPLIT_CP snapshots of every hierarchy */
} epoch;

typedef struct sim {
  struct cb_split *s;
  int id;
  pthread_t thread;
  cb_hierarchy **h;
  uint64_t *mark; /* the counters where its current guess began */
  uint64_t *adj;  /* counters added at the end: its guesses' waste, negated */
  uint64_t *tmp;
  double cpu_s, idle_s;
  bool stale;            /* (L) its state is no good as a guess */
  drv_give_way gave_way; /* to the native run (driver_native.h) */
} sim;

struct cb_split {
  unsigned n;
  size_t *off, words; /* each hierarchy's snapshot within a joint one */
  cb_access_sink tap;
  _Atomic uint64_t epoch_acc; /* the truth doubles it, the producer reads */
  uint64_t epoch_max;
  unsigned fails; /* (L) guesses thrown away in a row */
  int last_cp;    /* (L) the checkpoint of the last match, or -1 */
  bool no_guess;  /* (L) SPLIT_FAILS of them: guess no more */
  /* (L) The last epoch closed came mostly as records: the next is not
   * guessed. Such streams (CSR gathers, hashing) are the engine's to
   * bound, and the record memo counts their repeated stretches only
   * while its history lasts, which each checkpoint ends: PageRank's
   * sweeps (tests/e2e/record_memo.sh) were counted by none. */
  bool records_heavy;
  /* A thread about to guess from a state that is no good (its first
   * guess: empty caches; after a guess thrown away: that guess's) asks the
   * truth for its own, which the truth copies at its next chunk. */
  bool want_state, state_ready; /* (L) */
  uint64_t *state;
  pthread_mutex_t lock;
  pthread_cond_t cond;
  epoch *open;         /* the producer's, or NULL */
  epoch *head;         /* (L) the oldest in memory */
  cb_access *area;     /* the engine's batch, written in place */
  epoch *truth_epoch;  /* (L) the epoch the truth is in or enters next */
  int truth;           /* (L) the thread holding it */
  unsigned live;       /* (L) epochs in memory */
  bool done, finished; /* (L) the producer's end; the truth's */
  chunk *free_chunks;  /* (L) */
  /* The producer's: the slabs chunks are cut from (mapped, or one chunk
   * from malloc where no mapping could be had), freed with the split. */
  struct slab {
    void *p;
    bool mapped;
  } * slabs;
  size_t n_slabs, cap_slabs;
  unsigned char *slab_next; /* the next chunk of the last slab */
  size_t slab_left;         /* chunks left there */
  /* The producer's: chunks taken so far, and the last items of the
   * current one (item_delta.h), as of the chunk numbered delta_chunk. */
  uint64_t n_chunks, delta_chunk;
  item_delta delta;
  uint64_t *free_cp; /* (L) snapshot buffers for reuse, linked by
                        their first word */
  size_t cp_bytes;
  cb_split_stats st; /* (L) */
  /* The second thread's hierarchies, made when it first guesses (most
   * streams are one epoch: a MEDIUM PolyBench run would pay their
   * allocation for nothing). */
  cb_hierarchy **own;
  const cb_cache_config **cfg;
  uint32_t n_sites;
  bool own_made; /* (L) */
  sim t[2];
};

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

/* -- epochs -------------------------------------------------------------- */

/* A chunk back to the free list (L). */
static void chunk_back(cb_split *s, chunk *c) {
  c->next = s->free_chunks;
  s->free_chunks = c;
}

static void epoch_free(cb_split *s, epoch *e) {
  for (chunk *c = e->first, *nx; c; c = nx) {
    nx = c->next;
    chunk_back(s, c);
  }
  if (e->cp) {
    e->cp[0] = (uint64_t)(uintptr_t)s->free_cp;
    s->free_cp = e->cp;
  }
  free(e);
}

/* Frees the epochs at the front that nobody will read again (L): passed
 * by the truth, no guess in them, and not the truth's epoch, which the
 * truth reads the next one's link from; the last stays, for the
 * producer's link. */
static void release(cb_split *s) {
  while (s->head && s->head->passed && s->head->guess < 0 && s->head->next &&
         s->head != s->truth_epoch) {
    epoch *e = s->head;
    s->head = e->next;
    epoch_free(s, e);
    s->live--;
    pthread_cond_broadcast(&s->cond);
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
    drv_native_give_way(&t->gave_way);
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
        chunk_back(s, c);
      }
      break; /* closed, all read */
    }
    chunk *next = c ? c->next : e->first;
    if (c && alone) {
      e->first = next;
      chunk_back(s, c);
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
    release(s);
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
     * thread has tried. */
    epoch *g = e && !s->no_guess && !s->records_heavy ? e->next : NULL;
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

/* -- the producer ---------------------------------------------------------- */

/* A slab kept for split_free; false when out of memory. */
static bool slab_keep(cb_split *s, void *p, bool mapped) {
  if (s->n_slabs == s->cap_slabs) {
    size_t cap = s->cap_slabs ? 2 * s->cap_slabs : 16;
    struct slab *v = realloc(s->slabs, cap * sizeof *v);
    if (!v)
      return false;
    s->slabs = v;
    s->cap_slabs = cap;
  }
  s->slabs[s->n_slabs++] = (struct slab){p, mapped};
  return true;
}

/* A chunk nobody used yet: cut from the last slab, or from a new one. */
static chunk *chunk_cut(cb_split *s) {
  if (s->slab_left == 0) {
    void *p = cb_huge_map(SPLIT_SLAB);
    bool mapped = p != NULL;
    if (!p)
      p = malloc(sizeof(chunk));
    if (!p || !slab_keep(s, p, mapped)) {
      if (mapped)
        cb_huge_unmap(p, SPLIT_SLAB);
      else
        free(p);
      return NULL;
    }
    s->slab_next = p;
    s->slab_left = mapped ? SPLIT_SLAB / sizeof(chunk) : 1;
  }
  chunk *c = (chunk *)s->slab_next;
  s->slab_next += sizeof(chunk);
  s->slab_left--;
  return c;
}

static chunk *chunk_new(cb_split *s) {
  pthread_mutex_lock(&s->lock);
  chunk *c = s->free_chunks;
  if (c)
    s->free_chunks = c->next;
  pthread_mutex_unlock(&s->lock);
  if (!c)
    c = chunk_cut(s);
  if (c) {
    c->next = NULL;
    c->used = 0;
  }
  return c;
}

/* Makes the open epoch's last chunk readable (and the epoch closed). */
static void publish(cb_split *s, bool close) {
  epoch *e = s->open;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence(); /* memcpy's non-temporal stores, as in pipe.c */
#endif
  pthread_mutex_lock(&s->lock);
  e->published++;
  if (close) {
    e->closed = true;
    s->open = NULL;
    s->records_heavy = 2 * e->records > e->accesses;
  }
  pthread_cond_broadcast(&s->cond);
  pthread_mutex_unlock(&s->lock);
}

/* Room for an item of `bytes` (header included) in the open epoch's
 * last chunk, opening an epoch or a chunk as needed. NULL: out of
 * memory. */
static unsigned char *room(cb_split *s, size_t bytes) {
  epoch *e = s->open;
  bool fresh = false; /* a chunk was taken */
  if (e && (e->accesses >=
                atomic_load_explicit(&s->epoch_acc, memory_order_relaxed) ||
            e->bytes >= SPLIT_EPOCH_BYTES)) {
    publish(s, true);
    e = NULL;
  }
  if (!e) {
    e = calloc(1, sizeof *e);
    chunk *c = e ? chunk_new(s) : NULL;
    if (e) {
      pthread_mutex_lock(&s->lock);
      e->cp = s->free_cp;
      if (e->cp)
        s->free_cp = (uint64_t *)(uintptr_t)e->cp[0];
      pthread_mutex_unlock(&s->lock);
      if (!e->cp)
        e->cp = cb_huge_map(s->cp_bytes);
    }
    if (!e || !c || !e->cp) {
      pthread_mutex_lock(&s->lock);
      if (c)
        chunk_back(s, c);
      if (e)
        epoch_free(s, e);
      pthread_mutex_unlock(&s->lock);
      return NULL;
    }
    e->first = e->last = c;
    e->guess = -1;
    fresh = true;
    s->n_chunks++;
    pthread_mutex_lock(&s->lock);
    while (s->live >= SPLIT_LIVE)
      pthread_cond_wait(&s->cond, &s->lock);
    s->live++;
    s->st.epochs++;
    if (!s->head)
      s->head = e;
    for (epoch *x = s->head; x; x = x->next)
      if (!x->next && x != e) {
        x->next = e;
        break;
      }
    if (!s->truth_epoch)
      s->truth_epoch = e;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->lock);
    s->open = e;
  }
  if (e->last->used + bytes > SPLIT_CHUNK) {
    chunk *c = chunk_new(s);
    if (!c)
      return NULL;
    /* linked before it is published: once read, the full chunk may be
     * freed, and nothing here touches it again */
    pthread_mutex_lock(&s->lock);
    e->last->next = c;
    pthread_mutex_unlock(&s->lock);
    publish(s, false);
    e->last = c;
    fresh = true;
    s->n_chunks++;
  }
  /* With nothing to guess, the producer keeps as few chunks ahead of
   * the truth as pipe.c's ring does: it ran up to two epochs ahead, 128
   * MiB of records for pr and load_loop (peak RSS 233 and 217 MiB, 131
   * and 104 through the pipe). Only chunks published in an epoch no
   * guess reads count, which the truth takes without waiting for the
   * producer: counting every chunk not given back, the producer waited
   * on the truth while the truth waited for its next chunk (a guess had
   * taken the epoch, so its chunks stayed; converge.c in
   * time_split.py). */
  if (fresh) {
    pthread_mutex_lock(&s->lock);
    while ((s->records_heavy || s->no_guess) && !e->tried &&
           e->published - e->truth_read >= SPLIT_RING && !s->finished)
      pthread_cond_wait(&s->cond, &s->lock);
    pthread_mutex_unlock(&s->lock);
  }
  return (unsigned char *)e->last->buf + e->last->used;
}

/* room(), or a clean stop: the items cannot be run from here, and the
 * truth's hierarchies are another thread's. */
static unsigned char *room_or_stop(cb_split *s, size_t bytes) {
  unsigned char *q = room(s, bytes);
  if (!q) {
    fputs("cbana: out of memory for the simulation's queue\n", stderr);
    exit(1);
  }
  return q;
}

/* An item written at q (its payload already there) becomes part of the
 * open epoch. */
static void item_added(cb_split *s, unsigned char *q, const item *it,
                       size_t payload_bytes) {
  memcpy(q, it, sizeof *it);
  s->open->last->used += sizeof *it + payload_bytes;
  s->open->accesses += item_delta_accesses(it);
  s->open->records += item_is_records(it) ? it->n : 0;
  s->open->bytes += sizeof *it + payload_bytes;
}

/* The producer's last items, made the open chunk's (item_delta.h): each
 * chunk starts afresh. */
static item_delta *delta_of_chunk(cb_split *s) {
  if (s->delta_chunk != s->n_chunks) {
    item_delta_reset(&s->delta);
    s->delta_chunk = s->n_chunks;
  }
  return &s->delta;
}

/* n records, written at q + a header, become an item, as compact as the
 * chunk's last records allow. */
static void records_added(cb_split *s, unsigned char *q, size_t n) {
  size_t bytes;
  unsigned kind = item_delta_pack_records(
      delta_of_chunk(s), (cb_access *)(void *)(q + sizeof(item)), (uint32_t)n,
      &bytes);
  item it = {kind, (uint32_t)n, 0};
  item_added(s, q, &it, bytes);
}

static void push_records(cb_split *s, const cb_access *rec, size_t n) {
  unsigned char *q = room_or_stop(s, sizeof(item) + n * sizeof *rec);
  memcpy(q + sizeof(item), rec, n * sizeof *rec);
  records_added(s, q, n);
}

/* The engine writes its batches straight into the open chunk, after room
 * for their item's header, as into pipe.c's slots (a copy cost pr 17 %
 * of the engine's time there; tc ran 0.97 of cachegrind's time through
 * the split without it, 0.85 through the pipe). */
cb_access *cb_split_area(void *split, size_t *cap) {
  cb_split *s = split;
  unsigned char *q =
      room_or_stop(s, sizeof(item) + CB_ENGINE_BATCH / 4 * sizeof(cb_access));
  size_t fit =
      (SPLIT_CHUNK - s->open->last->used - sizeof(item)) / sizeof(cb_access);
  *cap = fit < CB_ENGINE_BATCH ? fit : CB_ENGINE_BATCH;
  s->area = (cb_access *)(void *)(q + sizeof(item));
  return s->area;
}

void cb_split_push(void *split, const cb_access *batch, size_t n) {
  cb_split *s = split;
  if (s->tap.fn)
    s->tap.fn(s->tap.ctx, batch, n);
  if (batch == s->area) {
    /* written in place: only the header is missing */
    records_added(s, (unsigned char *)s->area - sizeof(item), n);
    s->area = NULL;
    return;
  }
  while (n > 0) {
    size_t k = n < CB_ENGINE_BATCH ? n : CB_ENGINE_BATCH;
    push_records(s, batch, k);
    batch += k;
    n -= k;
  }
}

void cb_split_push_affine(void *split, const cb_affine_block *b) {
  cb_split *s = split;
  if (b->n_iter == 0 || b->n_acc == 0)
    return; /* no access */
  if (s->tap.affine)
    s->tap.affine(s->tap.ctx, b);
  if (b->n_acc > ITEM_DELTA_BLOCK_MAX) {
    cb_access rec[256];
    uint64_t pos = 0;
    size_t k;
    while ((k = cb_affine_expand(b, &pos, rec, 256)) > 0)
      push_records(s, rec, k);
    return;
  }
  /* As the chunk's last block, if it can be (item_delta.h). */
  size_t bytes;
  unsigned kind = item_delta_block_kind(delta_of_chunk(s), b, &bytes);
  const uint64_t chunk_before = s->n_chunks;
  unsigned char *q = room_or_stop(s, sizeof(item) + bytes);
  if (s->n_chunks != chunk_before)
    kind = item_delta_block_kind(delta_of_chunk(s), b, &bytes); /* whole */
  item_delta_write_block(&s->delta, kind, b, q + sizeof(item));
  item it = {kind, b->n_acc, b->n_iter};
  item_added(s, q, &it, bytes);
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
    epoch_free(s, e);
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
    publish(s, true);
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
