/* The time split's producer (split.h, split_internal.h): the engine's
 * records and blocks made items (item_delta.h) in chunks, chunks
 * published one at a time and gathered in epochs, and the epochs' memory
 * kept for reuse. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cbana/stream.h"
#include "item_delta.h"
#include "split_internal.h"

/* -- epochs -------------------------------------------------------------- */

/* A chunk back to the free list (L). */
void split_chunk_back(cb_split *s, chunk *c) {
  c->next = s->free_chunks;
  s->free_chunks = c;
}

void split_epoch_free(cb_split *s, epoch *e) {
  for (chunk *c = e->first, *nx; c; c = nx) {
    nx = c->next;
    split_chunk_back(s, c);
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
void split_release(cb_split *s) {
  while (s->head && s->head->passed && s->head->guess < 0 && s->head->next &&
         s->head != s->truth_epoch) {
    epoch *e = s->head;
    s->head = e->next;
    split_epoch_free(s, e);
    s->live--;
    pthread_cond_broadcast(&s->cond);
  }
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
void split_publish(cb_split *s, bool close) {
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
    split_publish(s, true);
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
        split_chunk_back(s, c);
      if (e)
        split_epoch_free(s, e);
      pthread_mutex_unlock(&s->lock);
      return NULL;
    }
    e->first = e->last = c;
    e->guess = -1;
    fresh = true;
    s->n_chunks++;
    pthread_mutex_lock(&s->lock);
    while (s->live >= SPLIT_LIVE) {
      if (!s->prod_waiting) {
        s->prod_waiting = true; /* a guess may start meanwhile */
        pthread_cond_broadcast(&s->cond);
      }
      pthread_cond_wait(&s->cond, &s->lock);
    }
    s->prod_waiting = false;
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
    split_publish(s, false);
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
