/* Affine blocks split by cache set over several threads
 * (cb_hierarchy_set_threads, cb_hierarchy_run_affine).
 *
 * Why a split is exact. The sets of a level never interact: an access
 * looks up and updates only its own set, under every policy but random
 * (whose generator is shared by the whole level, so it is never split).
 * Take address bits that lie inside every level's set index (above the
 * largest line offset, below the smallest set index's top): two lines
 * that share a set at any level share these bits. Partition the lines by
 * a function of these bits. An access inside one line of the smallest
 * size (the `aligned` blocks of affine.c) lies in one line at every
 * level, so it belongs to one partition, and every set it touches at
 * any level, whether the first level hits or sends it down, belongs to
 * that partition too. So the state of each partition's sets evolves by
 * the partition's accesses alone, in their order: running the block's
 * accesses partition by partition, each in order, gives every set the
 * sequence it would see in the whole block, hence the same hits and
 * misses, and counters are sums. The threads run the partitions at once
 * on the shared tag arrays, each touching only its own sets.
 *
 * What is not shared: each thread counts into a view of the hierarchy
 * (its own level and site counters, added to the hierarchy's after the
 * block) and keeps its own repeat line per level (the line of its last
 * reference at that level, in front of its set because no other thread
 * touches that set). After the block every level's repeat line is
 * dropped: the hierarchy's old one may have been evicted, and a lookup
 * does what the fast path would have. Warping (affine.c) runs per thread: an
 * iteration whose accesses in the partition all hit lets the partition
 * skip the iterations that reference the same lines, by the same
 * argument restricted to the partition's sets.
 *
 * The partition is made of parities of the shared set bits (par_key), so
 * that a column walk whose stride is a power of two times an odd number
 * of lines still spreads evenly over the threads. Blocks that reference fewer
 * than PAR_MIN_LINES new lines run on the caller alone: the hand-over costs
 * microseconds, and every thread runs the block's repeat fast paths
 * (worth_splitting). */
#include "hierarchy_internal.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define PAR_MAX_THREADS (1u << PAR_MAX_BITS)
#define PAR_MIN_LINES 1024
/* Spins (a pause each) before a helper sleeps until the next block. */
#define PAR_SPINS 20000

typedef struct par_thread {
  struct par_pool *pool;
  pthread_t thread;
  uint32_t part;
  cb_hierarchy view;
  affine_run run;
} par_thread;

struct par_pool {
  par_key key;
  uint32_t n; /* threads, the caller's included: a power of two */
  /* the block being run, published by bumping gen */
  const cb_affine_block *job;
  bool can_warp;
  _Atomic uint64_t gen;
  _Atomic uint32_t done;
  _Atomic uint32_t sleeping;
  _Atomic bool stop;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  par_thread t[]; /* t[0] is the caller's part */
};

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

static void *par_helper(void *arg) {
  par_thread *t = arg;
  par_pool *p = t->pool;
  uint64_t seen = 0;
  for (;;) {
    uint64_t g;
    unsigned spins = 0;
    while ((g = atomic_load(&p->gen)) == seen && !atomic_load(&p->stop)) {
      if (++spins < PAR_SPINS) {
        cpu_relax();
        continue;
      }
      /* Sleep; the publisher wakes sleepers after bumping gen (both
       * sequentially consistent: it sees `sleeping` or we see gen). */
      pthread_mutex_lock(&p->lock);
      atomic_fetch_add(&p->sleeping, 1);
      while (atomic_load(&p->gen) == seen && !atomic_load(&p->stop))
        pthread_cond_wait(&p->wake, &p->lock);
      atomic_fetch_sub(&p->sleeping, 1);
      pthread_mutex_unlock(&p->lock);
      spins = 0;
    }
    if (atomic_load(&p->stop))
      return NULL;
    seen = g;
    affine_run_part(&t->view, p->job, &p->key, t->part, p->can_warp, &t->run);
    atomic_fetch_add_explicit(&p->done, 1, memory_order_release);
  }
}

/* A view: the hierarchy's tags, policy bits and geometry, its own
 * counters (zero) and repeat lines (none). */
static bool view_init(cb_hierarchy *v, const cb_hierarchy *h) {
  *v = *h;
  v->memo = NULL;
  v->pool = NULL;
  v->slow_accesses = 0;
  memset(&v->affine, 0, sizeof v->affine);
  v->sites = NULL;
  if (h->n_sites) {
    v->sites = calloc((size_t)h->n_sites * h->n_levels, sizeof *v->sites);
    if (!v->sites)
      return false;
  }
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_level *lv = &v->levels[l];
    lv->last_line = NO_LINE;
    lv->accesses = lv->writes = lv->misses = lv->write_misses = 0;
    memset(lv->miss_class, 0, sizeof lv->miss_class);
  }
  return true;
}

/* The bits every level's set index holds (par_key), or false if there are
 * none: a fully associative level, or lines larger than another level's
 * whole index. The lowest set bits are left out where several sets share
 * a host cache line (sets of few ways, PLRU's bits): threads writing the
 * same host line are correct but slow. */
static bool shared_set_bits(const cb_hierarchy *h, par_key *k) {
  uint32_t lo = 0, hi = 64;
  for (unsigned l = 0; l < h->n_levels; l++) {
    const cb_level *lv = &h->levels[l];
    uint32_t top =
        lv->line_shift + (uint32_t)__builtin_popcountll(lv->set_mask);
    uint64_t set_bytes = (uint64_t)lv->assoc * sizeof *lv->tags;
    if (lv->plru_bits && lv->plru_words * sizeof(uint64_t) < set_bytes)
      set_bytes = lv->plru_words * sizeof(uint64_t);
    uint32_t low = lv->line_shift;
    while ((set_bytes << (low - lv->line_shift)) < CB_HOST_LINE)
      low++;
    if (low > lo)
      lo = low;
    if (top < hi)
      hi = top;
  }
  if (hi <= lo)
    return false;
  k->shift = lo;
  k->mask = hi - lo >= 64 ? UINT64_MAX : (1ull << (hi - lo)) - 1;
  return true;
}

unsigned cb_hierarchy_set_threads(cb_hierarchy *h, unsigned n) {
  par_stop(h);
  if (n < 2 || !accel_split_applies(h))
    return 1;
  par_key key;
  if (!shared_set_bits(h, &key))
    return 1;
  /* A power of two, and no more parts than shared set bits can tell. */
  unsigned bits = 0;
  while ((2u << bits) <= n && (2u << bits) <= PAR_MAX_THREADS &&
         bits < (unsigned)__builtin_popcountll(key.mask))
    bits++;
  if (bits == 0)
    return 1;
  key.n_bits = bits;
  for (unsigned i = 0; i < bits; i++) {
    key.lanes[i] = 0;
    for (unsigned b = i; b < 64; b += bits)
      key.lanes[i] |= 1ull << b;
    key.lanes[i] &= key.mask;
  }
  unsigned parts = 1u << bits;
  par_pool *p = calloc(1, sizeof *p + parts * sizeof p->t[0]);
  if (!p)
    return 1;
  p->key = key;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->wake, NULL);
  atomic_init(&p->gen, 0);
  atomic_init(&p->done, 0);
  atomic_init(&p->sleeping, 0);
  atomic_init(&p->stop, false);
  h->pool = p;
  for (unsigned i = 0; i < parts; i++) {
    p->t[i].pool = p;
    p->t[i].part = i;
    if (!view_init(&p->t[i].view, h))
      break;
    if (i > 0 &&
        pthread_create(&p->t[i].thread, NULL, par_helper, &p->t[i]) != 0) {
      free(p->t[i].view.sites);
      break;
    }
    p->n = i + 1;
  }
  if (p->n < parts) {
    par_stop(h); /* all or nothing: the parts are fixed by the hash */
    return 1;
  }
  return parts;
}

void par_stop(cb_hierarchy *h) {
  par_pool *p = h->pool;
  if (!p)
    return;
  pthread_mutex_lock(&p->lock);
  atomic_store(&p->stop, true);
  pthread_cond_broadcast(&p->wake);
  pthread_mutex_unlock(&p->lock);
  for (unsigned i = 1; i < p->n; i++)
    pthread_join(p->t[i].thread, NULL);
  for (unsigned i = 0; i < p->n; i++)
    free(p->t[i].view.sites);
  pthread_mutex_destroy(&p->lock);
  pthread_cond_destroy(&p->wake);
  free(p);
  h->pool = NULL;
}

/* A view's counters into the hierarchy's, and the view's back to zero. */
static void merge_view(cb_hierarchy *h, cb_hierarchy *v,
                       const cb_affine_block *b) {
  for (unsigned l = 0; l < h->n_levels; l++) {
    cb_level *dst = &h->levels[l], *src = &v->levels[l];
    dst->accesses += src->accesses;
    dst->writes += src->writes;
    dst->misses += src->misses;
    dst->write_misses += src->write_misses;
    src->accesses = src->writes = src->misses = src->write_misses = 0;
    src->last_line = NO_LINE;
  }
  /* Only the block's sites moved (a site met twice adds zero the second
   * time). */
  for (uint32_t j = 0; j < b->n_acc; j++) {
    uint32_t s = b->acc[j].site;
    if (s >= h->n_sites)
      continue;
    cb_site_stats *dst = &h->sites[(size_t)s * h->n_levels];
    cb_site_stats *src = &v->sites[(size_t)s * h->n_levels];
    for (unsigned l = 0; l < h->n_levels; l++) {
      dst[l].accesses += src[l].accesses;
      dst[l].misses += src[l].misses;
      src[l].accesses = src[l].misses = 0;
    }
  }
}

/* Whether the block's work is worth a hand-over: the first level's new
 * lines it will reference, at least PAR_MIN_LINES (an access whose
 * stride is a line or more enters a new line on every iteration, one of
 * stride s on s / line of them; the rest take the repeat fast path, a
 * few instructions each, which the threads would all run). */
static bool worth_splitting(const cb_hierarchy *h, const cb_affine_block *b) {
  const uint64_t line = 1ull << h->levels[0].line_shift;
  uint64_t per_iter = 0; /* in 1/line of a line */
  for (uint32_t j = 0; j < b->n_acc; j++) {
    int64_t st = b->acc[j].stride;
    uint64_t mag = st < 0 ? 0 - (uint64_t)st : (uint64_t)st;
    per_iter += mag < line ? mag : line;
  }
  return b->n_iter * per_iter >= PAR_MIN_LINES * line;
}

bool par_run_affine(cb_hierarchy *h, const cb_affine_block *b, bool can_warp,
                    affine_run *out) {
  par_pool *p = h->pool;
  if (!p || !worth_splitting(h, b))
    return false;
  p->job = b;
  p->can_warp = can_warp;
  atomic_store(&p->done, 0);
  atomic_fetch_add(&p->gen, 1);
  if (atomic_load(&p->sleeping)) {
    pthread_mutex_lock(&p->lock);
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->lock);
  }
  affine_run_part(&p->t[0].view, b, &p->key, 0, can_warp, &p->t[0].run);
  unsigned spins = 0;
  while (atomic_load_explicit(&p->done, memory_order_acquire) != p->n - 1)
    if (++spins < PAR_SPINS)
      cpu_relax();
    else
      sched_yield();
  /* Iterations warped: those every part skipped, at least (each part
   * warps on its own). */
  *out = (affine_run){0, UINT64_MAX, 0};
  for (unsigned i = 0; i < p->n; i++) {
    merge_view(h, &p->t[i].view, b);
    out->slow += p->t[i].run.slow;
    if (p->t[i].run.warped < out->warped)
      out->warped = p->t[i].run.warped;
    out->warps += p->t[i].run.warps;
  }
  for (unsigned l = 0; l < h->n_levels; l++)
    h->levels[l].last_line = NO_LINE;
  h->affine.split_blocks++;
  return true;
}
