/* Affine blocks through the driver's plumbing (analysis/pipeline/pipe.c,
 * collector.c, driver_memo.h): a random stream of record batches, affine
 * blocks and allocation markers is fed to the fan-out sink directly, through
 * the pipe's thread, and through a pipe whose consumer takes no blocks;
 * every consumer must end with the counters of the same stream fed as
 * records only (the blocks expanded here, by a loop of this test): level
 * and site counters of a hierarchy with classification (whose collector
 * takes each access but warps where its views allow: collect_block) and
 * of one without (which runs blocks as blocks, warping), and everything
 * the collector gathers. Both must have warped.
 * The memo hash: equal for the same blocks whichever way they travel,
 * different from the expansion's, and counting the same accesses. */
#include "check.h"
#include "collector.h"
#include "pipe.h"

#include <stdlib.h>
#include <string.h>

static uint64_t rnd_state = 11;
static uint64_t rnd(uint64_t n) {
  return check_rand(&rnd_state) % n;
}

#define N_SITES 6
#define CALL_SITE 4
#define BASE 0x4000000ull
#define REGION 65536

/* One item of the stream. */
typedef struct item {
  enum { RECORDS, BLOCK, ALLOC } kind;
  cb_access rec[300];
  size_t n;
  cb_affine_access acc[20];
  cb_affine_block b;
  cb_alloc_event ev;
} item;

static void make_stream(item *it, size_t n) {
  uint64_t live[8] = {0};
  for (size_t i = 0; i < n; i++) {
    memset(&it[i], 0, sizeof it[i]);
    switch (rnd(5)) {
    case 0:
    case 1:
      it[i].kind = RECORDS;
      it[i].n = 1 + rnd(300);
      for (size_t k = 0; k < it[i].n; k++)
        it[i].rec[k] = (cb_access){.addr = BASE + rnd(REGION),
                                   .site = (uint32_t)rnd(N_SITES + 1),
                                   .size = (uint16_t)(1u << rnd(4)),
                                   .is_write = rnd(4) == 0};
      break;
    case 2:
    case 3: {
      it[i].kind = BLOCK;
      /* a few wide ones (expanded by the cache model) */
      uint32_t n_acc =
          rnd(15) == 0 ? 17 + (uint32_t)rnd(3) : 1 + (uint32_t)rnd(6);
      for (uint32_t j = 0; j < n_acc; j++) {
        int64_t s = rnd(3) ? (int64_t)(1u << rnd(4)) : (int64_t)rnd(2000);
        it[i].acc[j] = (cb_affine_access){.base = BASE + rnd(REGION / 2),
                                          .stride = rnd(4) ? s : -s,
                                          .site = (uint32_t)rnd(N_SITES + 1),
                                          .size = (uint16_t)(1 + rnd(16)),
                                          .is_write = rnd(4) == 0};
        if (it[i].acc[j].stride < 0)
          it[i].acc[j].base += REGION / 2;
      }
      it[i].b =
          (cb_affine_block){rnd(5) == 0 ? 0 : rnd(1500), n_acc, it[i].acc};
      break;
    }
    default: {
      it[i].kind = ALLOC;
      unsigned k = (unsigned)rnd(8);
      if (live[k]) {
        it[i].ev = (cb_alloc_event){.kind = CB_ALLOC_FREE,
                                    .site = CALL_SITE,
                                    .callee = 1,
                                    .addr = live[k]};
        live[k] = 0;
      } else {
        /* blocks k * REGION / 8 ... inside the region, so accesses hit them */
        uint64_t size = 16 + rnd(REGION / 8 - 16);
        live[k] = BASE + k * (REGION / 8);
        it[i].ev = (cb_alloc_event){.kind = CB_ALLOC_NEW,
                                    .site = CALL_SITE,
                                    .callee = 1,
                                    .addr = live[k],
                                    .size = size};
      }
      break;
    }
    }
  }
}

/* Feeds the stream to a sink: blocks as blocks if `blocks`, else expanded
 * here into batches of records. */
static void feed(const item *it, size_t n, const cb_access_sink *sink,
                 bool blocks) {
  for (size_t i = 0; i < n; i++)
    switch (it[i].kind) {
    case RECORDS:
      if (!sink->area) {
        sink->fn(sink->ctx, it[i].rec, it[i].n);
        break;
      }
      /* as the engine does: the records written into the sink's areas,
       * each handed back full or at the item's end */
      for (size_t done = 0; done < it[i].n;) {
        size_t cap = 0;
        cb_access *area = sink->area(sink->ctx, &cap);
        CHECK(area != NULL && cap >= 1 && cap <= CB_ENGINE_BATCH);
        size_t k = it[i].n - done < cap ? it[i].n - done : cap;
        memcpy(area, it[i].rec + done, k * sizeof *area);
        sink->fn(sink->ctx, area, k);
        done += k;
      }
      break;
    case BLOCK: {
      const cb_affine_block *b = &it[i].b;
      if (blocks) {
        sink->affine(sink->ctx, b);
        break;
      }
      cb_access buf[CB_ENGINE_BATCH];
      size_t k = 0;
      for (uint64_t t = 0; t < b->n_iter; t++)
        for (uint32_t j = 0; j < b->n_acc; j++) {
          const cb_affine_access *a = &b->acc[j];
          buf[k++] = (cb_access){.addr = a->base + t * (uint64_t)a->stride,
                                 .site = a->site,
                                 .size = a->size,
                                 .is_write = a->is_write};
          if (k == CB_ENGINE_BATCH) {
            sink->fn(sink->ctx, buf, k);
            k = 0;
          }
        }
      if (k)
        sink->fn(sink->ctx, buf, k);
      break;
    }
    case ALLOC:
      cb_alloc_to_stream((void *)sink, &it[i].ev);
      break;
    }
}

/* Two hierarchies (classified with the collector, and not), their
 * collectors and the fan-out over them. */
typedef struct consumer {
  cb_hierarchy *h[2];
  collector col[2];
  fanout f;
} consumer;

static cb_cache_config config(void) {
  cb_cache_config c = {2,
                       {{.size = 2048,
                         .assoc = 4,
                         .line = 64,
                         .policy = CB_POLICY_LRU,
                         .write_allocate = true},
                        {.size = 16384,
                         .assoc = 8,
                         .line = 64,
                         .policy = CB_POLICY_PLRU,
                         .write_allocate = true}}};
  strcpy(c.levels[0].name, "L1D");
  strcpy(c.levels[1].name, "LL");
  return c;
}

static void consumer_init(consumer *c, const cb_program *p) {
  memset(c, 0, sizeof *c);
  cb_cache_config cfg = config();
  char err[CB_ERR_MAX];
  for (int k = 0; k < 2; k++) {
    c->h[k] = cb_hierarchy_create(&cfg, p->n_sites, k == 0 ? CB_CLASSIFY : 0,
                                  err, sizeof err);
    CHECK(c->h[k] && drv_collector_init(&c->col[k], c->h[k], p));
  }
  c->f.c = c->col;
  c->f.n = 2;
  c->f.hash = true;
  c->f.sh = (stream_hash){1, 2, 0};
}

static void consumer_free(consumer *c) {
  for (int k = 0; k < 2; k++) {
    drv_collector_free(&c->col[k]);
    cb_hierarchy_destroy(c->h[k]);
  }
}

#define SAME_ARRAY(a, b, n)                                                    \
  CHECK(((a) == NULL) == ((b) == NULL) &&                                      \
        (!(a) || memcmp((a), (b), (n) * sizeof *(a)) == 0))

/* Every counter of got's hierarchies and collectors against want's. */
static void compare(const consumer *got, const consumer *want,
                    const cb_program *p) {
  for (int k = 0; k < 2; k++) {
    for (unsigned l = 0; l < 2; l++) {
      cb_level_stats a, b;
      cb_hierarchy_level_stats(got->h[k], l, &a);
      cb_hierarchy_level_stats(want->h[k], l, &b);
      CHECK(memcmp(&a, &b, sizeof a) == 0);
      for (uint32_t s = 0; s < p->n_sites; s++)
        CHECK(memcmp(cb_hierarchy_site_stats(got->h[k], s, l),
                     cb_hierarchy_site_stats(want->h[k], s, l),
                     sizeof(cb_site_stats)) == 0);
    }
    cb_cache_result ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    ra.n_levels = rb.n_levels = 2;
    CHECK(drv_collect_extras(&got->col[k], &ra));
    CHECK(drv_collect_extras(&want->col[k], &rb));
    for (unsigned l = 0; l < 2; l++) {
      CHECK_EQ_U64(ra.distance_len[l], rb.distance_len[l]);
      CHECK_EQ_U64(ra.distance_cold[l], rb.distance_cold[l]);
      if (ra.distance_len[l] == rb.distance_len[l])
        SAME_ARRAY(ra.distance_hist[l], rb.distance_hist[l],
                   ra.distance_len[l]);
      SAME_ARRAY(ra.set_misses[l], rb.set_misses[l], got->col[k].sets[l]);
      SAME_ARRAY(ra.set_conflicts[l], rb.set_conflicts[l], got->col[k].sets[l]);
      free(ra.distance_hist[l]);
      free(rb.distance_hist[l]);
      free(ra.set_misses[l]);
      free(rb.set_misses[l]);
      free(ra.set_conflicts[l]);
      free(rb.set_conflicts[l]);
    }
    SAME_ARRAY(ra.var_lines, rb.var_lines, p->n_vars);
    SAME_ARRAY(ra.type_lines, rb.type_lines, p->n_types);
    SAME_ARRAY(ra.field_lines, rb.field_lines, p->n_fields);
    SAME_ARRAY(ra.site_stride, rb.site_stride, p->n_sites);
    SAME_ARRAY(ra.site_stride_runs, rb.site_stride_runs, p->n_sites);
    CHECK_EQ_U64(ra.n_var_sets, rb.n_var_sets);
    if (ra.n_var_sets == rb.n_var_sets)
      SAME_ARRAY(ra.var_sets, rb.var_sets, ra.n_var_sets);
    CHECK_EQ_U64(ra.n_alloc_sites, rb.n_alloc_sites);
    if (ra.n_alloc_sites == rb.n_alloc_sites)
      SAME_ARRAY(ra.alloc_sites, rb.alloc_sites, ra.n_alloc_sites);
    if (k == 0)
      CHECK(ra.n_alloc_sites == 1 && ra.alloc_sites[0].level[0].accesses > 0);
    free(ra.var_lines);
    free(rb.var_lines);
    free(ra.type_lines);
    free(rb.type_lines);
    free(ra.field_lines);
    free(rb.field_lines);
    free(ra.site_stride);
    free(rb.site_stride);
    free(ra.site_stride_runs);
    free(rb.site_stride_runs);
    free(ra.var_sets);
    free(rb.var_sets);
    free(ra.alloc_sites);
    free(rb.alloc_sites);
  }
}

int main(void) {
  cb_site sites[N_SITES];
  memset(sites, 0, sizeof sites);
  for (uint32_t s = 0; s < N_SITES; s++) {
    sites[s].file = 0;
    sites[s].line = 10 + s;
    sites[s].var = s < 4 ? s % 2 : CB_NONE;
    sites[s].type = s < 3 ? 0 : CB_NONE;
    sites[s].field = s == 1 ? 0 : CB_NONE;
    sites[s].size = 8;
    sites[s].is_call = s == CALL_SITE;
  }
  cb_program p;
  memset(&p, 0, sizeof p);
  p.sites = sites;
  p.n_sites = N_SITES;
  p.n_vars = 2;
  p.n_types = 1;
  p.n_fields = 1;

  enum { N_ITEMS = 120 };
  item *it = malloc(N_ITEMS * sizeof *it);
  for (int round = 0; round < 4; round++) {
    make_stream(it, N_ITEMS);
    /* The reference: records only. */
    consumer want;
    consumer_init(&want, &p);
    cb_access_sink ws = {drv_fanout_batch, &want.f, drv_fanout_affine, NULL};
    feed(it, N_ITEMS, &ws, false);

    /* Blocks straight into the fan-out. */
    consumer direct;
    consumer_init(&direct, &p);
    cb_access_sink ds = {drv_fanout_batch, &direct.f, drv_fanout_affine, NULL};
    feed(it, N_ITEMS, &ds, true);
    compare(&direct, &want, &p);

    /* Through the pipe's thread, blocks as blocks. */
    consumer piped;
    consumer_init(&piped, &p);
    cb_access_sink ps = {drv_fanout_batch, &piped.f, drv_fanout_affine, NULL};
    cb_pipe *pipe = cb_pipe_start(&ps);
    CHECK(pipe != NULL);
    cb_access_sink push = {cb_pipe_push, pipe, cb_pipe_push_affine,
                           cb_pipe_area};
    feed(it, N_ITEMS, &push, true);
    cb_pipe_finish(pipe);
    compare(&piped, &want, &p);

    /* Through a pipe whose consumer takes records only. */
    consumer rec;
    consumer_init(&rec, &p);
    cb_access_sink rs = {drv_fanout_batch, &rec.f, NULL, NULL};
    pipe = cb_pipe_start(&rs);
    CHECK(pipe != NULL);
    push =
        (cb_access_sink){cb_pipe_push, pipe, cb_pipe_push_affine, cb_pipe_area};
    feed(it, N_ITEMS, &push, true);
    cb_pipe_finish(pipe);
    compare(&rec, &want, &p);

    /* The hash-only sink. */
    stream_hash hs = {1, 2, 0};
    cb_access_sink hsink = {drv_hash_only_batch, &hs, drv_hash_only_affine,
                            NULL};
    feed(it, N_ITEMS, &hsink, true);

    CHECK(same_stream(&direct.f.sh, &piped.f.sh));
    CHECK(same_stream(&direct.f.sh, &hs));
    CHECK(same_stream(&rec.f.sh, &want.f.sh)); /* expanded in the pipe */
    CHECK(!same_stream(&direct.f.sh, &want.f.sh));
    CHECK_EQ_U64(direct.f.sh.n, want.f.sh.n);

    /* Warping ran on both hierarchies: without classification in the
     * cache model, with it through the collector (collect_block), whose
     * views compare equal above. */
    cb_affine_stats st;
    for (int k = 0; k < 2; k++) {
      cb_hierarchy_affine_stats(direct.h[k], &st);
      CHECK(st.warped_iterations > 0);
      cb_hierarchy_affine_stats(piped.h[k], &st);
      CHECK(st.warped_iterations > 0);
    }

    /* One stride changed: another hash. */
    for (size_t i = 0; i < N_ITEMS; i++)
      if (it[i].kind == BLOCK && it[i].b.n_iter > 1) {
        it[i].acc[0].stride++;
        break;
      }
    stream_hash hs2 = {1, 2, 0};
    hsink.ctx = &hs2;
    feed(it, N_ITEMS, &hsink, true);
    CHECK(!same_stream(&hs, &hs2));

    consumer_free(&want);
    consumer_free(&direct);
    consumer_free(&piped);
    consumer_free(&rec);
  }
  free(it);
  return check_done();
}
