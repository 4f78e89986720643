/* A bounded ring of slots between two threads, each slot a run of
 * items (record batches and affine blocks, in stream order); see
 * pipe.h. */
#include "pipe.h"

#include "collector.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PIPE_SLOTS 8
/* A side that found the ring empty (the consumer) or full (the producer)
 * sleeps until this many slots are ready for it, not one: each sleep and
 * wake-up is two context switches, and pr, whose engine fills slots more
 * slowly than the simulation drains them, made 32,000 of them for 24,000
 * slots. */
#define PIPE_WAKE 4
/* The counters are atomics and a slot changes hands without the lock:
 * taken on every slot by both threads, the lock was contended, and its
 * futex calls were 60% of huffbench's. A side takes the lock only to
 * sleep or to wake the other: a sleeper sets its flag, then reads the
 * other's counter; the other stores its counter, then reads the flag
 * (both sequentially consistent, so one of them sees the other's store),
 * and signals once per sleep, after the lock: the sleeper, which held
 * the lock from setting its flag until it waited, is waiting then, and
 * woken under the lock it would have blocked on it again. */

typedef stream_item item;

/* A slot holds a whole batch and its header, or several smaller items:
 * a loop too short to travel as its own block would cost a slot and a
 * wake-up of the consumer (lu MEDIUM runs 316k such loops), so short
 * blocks and the partial batches between them share slots. */
#define SLOT_BYTES (CB_ENGINE_BATCH * sizeof(cb_access) + 4 * sizeof(item))
/* The accesses of a block that fit in a slot; a block of more travels
 * expanded. */
#define PIPE_BLOCK_ACC ((SLOT_BYTES - sizeof(item)) / sizeof(cb_affine_access))

typedef struct pipe_slot {
  size_t used; /* bytes */
  uint64_t buf[SLOT_BYTES / sizeof(uint64_t)];
} pipe_slot;

struct cb_pipe {
  cb_access_sink consumer;
  double consumer_cpu_s; /* the consumer thread's CPU time, once done */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t filled, freed;
  _Atomic unsigned head, tail; /* produced, consumed (monotonic) */
  bool done;                   /* under the lock */
  atomic_bool consumer_sleeps, producer_sleeps; /* not yet signalled */
  pipe_slot *open; /* the producer's slot being filled, not yet published */
  cb_access *area; /* the engine's batch, written in place in `open` */
  pipe_slot slot[PIPE_SLOTS];
};

static void consume(const cb_pipe *p, const pipe_slot *s) {
  const unsigned char *q = (const unsigned char *)s->buf;
  for (size_t at = 0; at < s->used;) {
    const item *it = (const item *)(const void *)(q + at);
    at += sizeof *it;
    if (!it->is_block) {
      p->consumer.fn(p->consumer.ctx, (const cb_access *)(const void *)(q + at),
                     it->n);
      at += it->n * sizeof(cb_access);
    } else {
      cb_affine_block b = {it->n_iter, it->n,
                           (const cb_affine_access *)(const void *)(q + at)};
      p->consumer.affine(p->consumer.ctx, &b);
      at += it->n * sizeof(cb_affine_access);
    }
  }
}

static void *consumer(void *arg) {
  cb_pipe *p = arg;
  double t0 = drv_thread_cpu_s();
  unsigned tail = 0;
  for (;;) {
    unsigned head = atomic_load(&p->head);
    if (head == tail) {
      pthread_mutex_lock(&p->lock);
      for (;;) {
        atomic_store(&p->consumer_sleeps, true);
        head = atomic_load(&p->head);
        if (head - tail >= PIPE_WAKE || p->done)
          break;
        pthread_cond_wait(&p->filled, &p->lock);
      }
      atomic_store(&p->consumer_sleeps, false);
      pthread_mutex_unlock(&p->lock);
      head = atomic_load(&p->head);
      if (head == tail)
        break; /* done and drained */
    }
    consume(p, &p->slot[tail % PIPE_SLOTS]);
    atomic_store(&p->tail, ++tail);
    if (atomic_load(&p->producer_sleeps)) {
      pthread_mutex_lock(&p->lock);
      bool wake = atomic_load(&p->producer_sleeps) &&
                  PIPE_SLOTS - (atomic_load(&p->head) - tail) >= PIPE_WAKE;
      if (wake)
        atomic_store(&p->producer_sleeps, false);
      pthread_mutex_unlock(&p->lock);
      if (wake)
        pthread_cond_signal(&p->freed);
    }
  }
  p->consumer_cpu_s = drv_thread_cpu_s() - t0;
  return NULL;
}

cb_pipe *cb_pipe_start(const cb_access_sink *sink) {
  cb_pipe *p = malloc(sizeof *p);
  if (!p)
    return NULL;
  p->consumer = *sink;
  atomic_init(&p->head, 0);
  atomic_init(&p->tail, 0);
  p->done = false;
  atomic_init(&p->consumer_sleeps, false);
  atomic_init(&p->producer_sleeps, false);
  p->open = NULL;
  p->area = NULL;
  pthread_mutex_init(&p->lock, NULL);
  pthread_cond_init(&p->filled, NULL);
  pthread_cond_init(&p->freed, NULL);
  if (pthread_create(&p->thread, NULL, consumer, p) != 0) {
    pthread_cond_destroy(&p->filled);
    pthread_cond_destroy(&p->freed);
    pthread_mutex_destroy(&p->lock);
    free(p);
    return NULL;
  }
  return p;
}

/* Hands the open slot to the consumer. The native kernels write their
 * records with non-temporal stores (frontend/jit_ops.c, emit), which x86
 * does not order with later stores: the fence makes them visible before
 * the slot is. */
static void publish(cb_pipe *p) {
  if (!p->open)
    return;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_sfence();
#endif
  unsigned head = atomic_load_explicit(&p->head, memory_order_relaxed) + 1;
  atomic_store(&p->head, head);
  p->open = NULL;
  if (!atomic_load(&p->consumer_sleeps))
    return;
  pthread_mutex_lock(&p->lock);
  bool wake = atomic_load(&p->consumer_sleeps) &&
              head - atomic_load(&p->tail) >= PIPE_WAKE;
  if (wake)
    atomic_store(&p->consumer_sleeps, false);
  pthread_mutex_unlock(&p->lock);
  if (wake)
    pthread_cond_signal(&p->filled);
}

/* An open slot with room for an item of `bytes` after its header
 * (publishing the open one when it has not), waiting for a free one. */
static unsigned char *room(cb_pipe *p, size_t bytes) {
  if (p->open && p->open->used + sizeof(item) + bytes > SLOT_BYTES)
    publish(p);
  if (!p->open) {
    unsigned head = atomic_load_explicit(&p->head, memory_order_relaxed);
    if (head - atomic_load(&p->tail) == PIPE_SLOTS) {
      pthread_mutex_lock(&p->lock);
      for (;;) {
        atomic_store(&p->producer_sleeps, true);
        if (PIPE_SLOTS - (head - atomic_load(&p->tail)) >= PIPE_WAKE)
          break;
        pthread_cond_wait(&p->freed, &p->lock);
      }
      atomic_store(&p->producer_sleeps, false);
      pthread_mutex_unlock(&p->lock);
    }
    p->open = &p->slot[head % PIPE_SLOTS];
    p->open->used = 0;
  }
  return (unsigned char *)p->open->buf + p->open->used;
}

/* The engine writes its batches straight into the open slot, after room
 * for their item's header: copying them there cost pr (10^8 records)
 * 17% of the engine thread's time. A batch starts a new slot when fewer
 * than a quarter of a batch's records fit in the open one. */
cb_access *cb_pipe_area(void *pipe, size_t *cap) {
  cb_pipe *p = pipe;
  unsigned char *q = room(p, CB_ENGINE_BATCH / 4 * sizeof(cb_access));
  size_t fit = (SLOT_BYTES - p->open->used - sizeof(item)) / sizeof(cb_access);
  *cap = fit < CB_ENGINE_BATCH ? fit : CB_ENGINE_BATCH;
  p->area = (cb_access *)(void *)(q + sizeof(item));
  return p->area;
}

void cb_pipe_push(void *pipe, const cb_access *batch, size_t n) {
  cb_pipe *p = pipe;
  if (batch == p->area) {
    /* written in place (cb_pipe_area): only the header is missing */
    item it = {0, (uint32_t)n, 0};
    memcpy((unsigned char *)p->area - sizeof it, &it, sizeof it);
    p->open->used += sizeof it + n * sizeof *batch;
    p->area = NULL;
    return;
  }
  while (n > 0) {
    /* the batch whole (a new slot when the open one lacks room), split
     * only when it is larger than a slot */
    size_t k = n < CB_ENGINE_BATCH ? n : CB_ENGINE_BATCH;
    unsigned char *q = room(p, k * sizeof(cb_access));
    item it = {0, (uint32_t)k, 0};
    memcpy(q, &it, sizeof it);
    memcpy(q + sizeof it, batch, k * sizeof *batch);
    p->open->used += sizeof it + k * sizeof *batch;
    batch += k;
    n -= k;
  }
}

void cb_pipe_push_affine(void *pipe, const cb_affine_block *b) {
  cb_pipe *p = pipe;
  if (b->n_iter == 0 || b->n_acc == 0)
    return; /* no access */
  if (!p->consumer.affine || b->n_acc > PIPE_BLOCK_ACC) {
    /* expanded into records, in order all the same */
    cb_access rec[256];
    uint64_t pos = 0;
    size_t k;
    while ((k = cb_affine_expand(b, &pos, rec, 256)) > 0)
      cb_pipe_push(p, rec, k);
    return;
  }
  size_t bytes = b->n_acc * sizeof *b->acc;
  unsigned char *q = room(p, bytes);
  item it = {1, b->n_acc, b->n_iter};
  memcpy(q, &it, sizeof it);
  memcpy(q + sizeof it, b->acc, bytes);
  p->open->used += sizeof it + bytes;
}

double cb_pipe_finish(cb_pipe *p) {
  publish(p);
  pthread_mutex_lock(&p->lock);
  p->done = true;
  pthread_cond_signal(&p->filled);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->filled);
  pthread_cond_destroy(&p->freed);
  pthread_mutex_destroy(&p->lock);
  double cpu = p->consumer_cpu_s;
  free(p);
  return cpu;
}
