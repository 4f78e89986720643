/* A bounded ring of access batches and affine blocks between two
 * threads; see pipe.h. */
#include "pipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_SLOTS 8
/* The accesses of a block that fit in a slot's storage; a block of more
 * travels expanded. */
#define PIPE_BLOCK_ACC                                                         \
  (CB_ENGINE_BATCH * sizeof(cb_access) / sizeof(cb_affine_access))

typedef struct pipe_slot {
  size_t n;        /* records, or the block's accesses */
  uint64_t n_iter; /* a block's iterations */
  bool is_block;
  union {
    cb_access rec[CB_ENGINE_BATCH];
    cb_affine_access acc[PIPE_BLOCK_ACC];
  } u;
} pipe_slot;

struct cb_pipe {
  cb_access_sink consumer;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t filled, freed;
  unsigned head, tail; /* produced, consumed (monotonic counters) */
  bool done;
  pipe_slot slot[PIPE_SLOTS];
};

static void consume(const cb_pipe *p, const pipe_slot *s) {
  if (!s->is_block) {
    p->consumer.fn(p->consumer.ctx, s->u.rec, s->n);
    return;
  }
  cb_affine_block b = {s->n_iter, (uint32_t)s->n, s->u.acc};
  p->consumer.affine(p->consumer.ctx, &b);
}

static void *consumer(void *arg) {
  cb_pipe *p = arg;
  pthread_mutex_lock(&p->lock);
  for (;;) {
    while (p->tail == p->head && !p->done)
      pthread_cond_wait(&p->filled, &p->lock);
    if (p->tail == p->head)
      break; /* done and drained */
    unsigned s = p->tail % PIPE_SLOTS;
    pthread_mutex_unlock(&p->lock);
    consume(p, &p->slot[s]);
    pthread_mutex_lock(&p->lock);
    p->tail++;
    pthread_cond_signal(&p->freed);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

cb_pipe *cb_pipe_start(const cb_access_sink *sink) {
  cb_pipe *p = malloc(sizeof *p);
  if (!p)
    return NULL;
  p->consumer = *sink;
  p->head = p->tail = 0;
  p->done = false;
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

/* The next free slot, waiting for one; it is the producer's until
 * publish moves head past it. */
static pipe_slot *reserve(cb_pipe *p) {
  pthread_mutex_lock(&p->lock);
  while (p->head - p->tail == PIPE_SLOTS)
    pthread_cond_wait(&p->freed, &p->lock);
  unsigned s = p->head % PIPE_SLOTS;
  pthread_mutex_unlock(&p->lock);
  return &p->slot[s];
}

static void publish(cb_pipe *p) {
  pthread_mutex_lock(&p->lock);
  p->head++;
  pthread_cond_signal(&p->filled);
  pthread_mutex_unlock(&p->lock);
}

void cb_pipe_push(void *pipe, const cb_access *batch, size_t n) {
  cb_pipe *p = pipe;
  while (n > 0) {
    size_t k = n < CB_ENGINE_BATCH ? n : CB_ENGINE_BATCH;
    pipe_slot *s = reserve(p);
    memcpy(s->u.rec, batch, k * sizeof *batch);
    s->n = k;
    s->is_block = false;
    publish(p);
    batch += k;
    n -= k;
  }
}

void cb_pipe_push_affine(void *pipe, const cb_affine_block *b) {
  cb_pipe *p = pipe;
  if (b->n_iter == 0 || b->n_acc == 0)
    return; /* no access */
  if (!p->consumer.affine || b->n_acc > PIPE_BLOCK_ACC) {
    /* Expanded straight into the slots, in order all the same. */
    uint64_t pos = 0;
    for (;;) {
      pipe_slot *s = reserve(p);
      size_t k = cb_affine_expand(b, &pos, s->u.rec, CB_ENGINE_BATCH);
      if (k == 0)
        return; /* the slot stays free */
      s->n = k;
      s->is_block = false;
      publish(p);
    }
  }
  pipe_slot *s = reserve(p);
  memcpy(s->u.acc, b->acc, b->n_acc * sizeof *b->acc);
  s->n = b->n_acc;
  s->n_iter = b->n_iter;
  s->is_block = true;
  publish(p);
}

void cb_pipe_finish(cb_pipe *p) {
  pthread_mutex_lock(&p->lock);
  p->done = true;
  pthread_cond_signal(&p->filled);
  pthread_mutex_unlock(&p->lock);
  pthread_join(p->thread, NULL);
  pthread_cond_destroy(&p->filled);
  pthread_cond_destroy(&p->freed);
  pthread_mutex_destroy(&p->lock);
  free(p);
}
