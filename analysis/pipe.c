/* A bounded ring of access batches between two threads; see pipe.h. */
#include "pipe.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define PIPE_SLOTS 8

struct cb_pipe {
  void (*fn)(void *ctx, const cb_access *b, size_t n);
  void *ctx;
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t filled, freed;
  unsigned head, tail; /* produced, consumed (monotonic counters) */
  bool done;
  size_t n[PIPE_SLOTS];
  cb_access slot[PIPE_SLOTS][CB_ENGINE_BATCH];
};

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
    p->fn(p->ctx, p->slot[s], p->n[s]);
    pthread_mutex_lock(&p->lock);
    p->tail++;
    pthread_cond_signal(&p->freed);
  }
  pthread_mutex_unlock(&p->lock);
  return NULL;
}

cb_pipe *cb_pipe_start(void (*fn)(void *ctx, const cb_access *b, size_t n),
                       void *ctx) {
  cb_pipe *p = malloc(sizeof *p);
  if (!p)
    return NULL;
  p->fn = fn;
  p->ctx = ctx;
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

void cb_pipe_push(void *pipe, const cb_access *batch, size_t n) {
  cb_pipe *p = pipe;
  if (n == 0)
    return;
  pthread_mutex_lock(&p->lock);
  while (p->head - p->tail == PIPE_SLOTS)
    pthread_cond_wait(&p->freed, &p->lock);
  unsigned s = p->head % PIPE_SLOTS;
  pthread_mutex_unlock(&p->lock);
  /* the slot is the producer's until head moves past it */
  memcpy(p->slot[s], batch, n * sizeof *batch);
  p->n[s] = n;
  pthread_mutex_lock(&p->lock);
  p->head++;
  pthread_cond_signal(&p->filled);
  pthread_mutex_unlock(&p->lock);
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
