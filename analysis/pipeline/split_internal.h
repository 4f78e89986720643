/* split_internal.h: the time split's shared state (split.c: the
 * simulation threads, start and finish; split_queue.c: the producer's
 * chunks and items, and the epochs' memory). Fields marked (L) are read
 * and written under the split's lock. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_SPLIT_INTERNAL_H
#define CBANA_ANALYSIS_SPLIT_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "item_delta.h"
#include "pipe.h"
#include "split.h"

#define SPLIT_CHUNK ((size_t)256 << 10)
#define SPLIT_EPOCH ((uint64_t)256 << 20) /* accesses, by default */
/* An epoch's items take at most this much: a stream of records (16
 * bytes an access, unless they repeat: item_delta.h) ends its epochs by
 * size; a loop nest's blocks take 16 bytes to a few hundred for hundreds
 * of accesses (doitgen LARGE: 256 Mi accesses in 60 MiB whole, 20 MiB
 * coded against the chunk's last items). Two epochs in memory, and their chunks
 * kept for reuse: peak RSS rose from 119 to 327 MiB on doitgen LARGE with 96
 * MiB here. The bound stays when the epochs double (fail): doubled with them,
 * it let doitgen LARGE's epochs grow to 400 M accesses past its late matches,
 * 0.46 GiB peak, and on a host that hands freed memory back to its
 * hypervisor each fresh MiB costs 2.5 to 3.3 ms to fault in: 0.7 to 1.6
 * s of system time a run. Bounded here, its guessing stops after
 * SPLIT_FAILS, 0.31 GiB peak, 0.2 to 0.4 s of system time, and the same
 * wall time within this host's noise (bench/results/fast_notes.md). */
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
 * that was a fifth of its CPU (bench/results/fast_notes.md).
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
  bool stale; /* (L) its state is no good as a guess */
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
  /* The epochs were asked for (--split-epoch, the tests' small ones):
   * guess whenever an epoch waits, beside a producer too, so that
   * whether guesses are made does not hang on how long the engine
   * takes. */
  bool guess_anytime;
  /* (L) The producer waits for an epoch to go (SPLIT_LIVE): a core is
   * free for a guess. */
  bool prod_waiting;
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

/* -- split_queue.c ---------------------------------------------------- */

/* A chunk back to the free list (L). */
void split_chunk_back(cb_split *s, chunk *c);
/* An epoch's chunks and snapshots back for reuse, the epoch freed (L). */
void split_epoch_free(cb_split *s, epoch *e);
/* Makes the open epoch's last chunk readable (and the epoch closed). */
void split_publish(cb_split *s, bool close);
/* Frees the epochs at the front that nobody will read again (L). */
void split_release(cb_split *s);

#endif
