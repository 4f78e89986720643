/* repeat.c: outer-loop iterations that repeat their stream; see repeat.h.
 *
 * Which loops qualify (rep_qualifies). Call V the ops of loop L whose
 * value may differ from one iteration to the next: the header's phis, the
 * loads (memory may have changed), and every op of L that reads a value
 * of V, to a fixed point. Then L qualifies when:
 *  1. it makes no call but of intrinsics that compute a value, and no
 *     return, alloca or aggregate op (the frames, the C library's state
 *     and the heap stay as they are);
 *  2. of V, slicing needs (CB_SL_NEED) only the induction variable's phi,
 *     its next value and one integer compare of either with a value that
 *     is not in V, read by one conditional branch that leaves L from a
 *     block of L itself (not of an inner loop) dominating every latch: so
 *     each iteration runs the exit test once, and every address, branch
 *     and bound of an iteration is the same as in the one before, but the
 *     test's outcome;
 *  3. the header's other phis, and whatever of V is read after L, may be
 *     garbage (CB_SL_MAYBE) or are the variable, its next value or the
 *     test: the interpreter computes those again in the iteration that
 *     leaves; the rest are values no count depends on (slice.h);
 *  4. every store of a value of V stores one that may be garbage, which
 *     marks its bytes stale whatever the value (engine_interp.c): after
 *     an iteration memory holds the same bytes, stale or not, as after the
 *     one before. The stale shadow must then be on when the recording
 *     starts (mem.h, stale_any); a needed load of L would be in V (2).
 * Replaying iteration t + 1 as a copy of iteration t is then exact: the
 * same ops run, with the same values wherever a count depends on one.
 *
 * Replay (cb_repeat_at_header). The recording covers one iteration, from
 * a back edge into the header to the next; it starts only where the exit
 * test lets that iteration and the next one through, so the next back
 * edge comes (unless the run stops). While it lasts the engine's sink is
 * wrapped (rec_fn, rec_affine): what it receives is copied, then passed
 * on. Then the test is evaluated for each following value of the
 * variable, and every iteration that passes it is replayed: the copy to
 * the sink, the runs of branch outcomes to the path signature (sig_add,
 * in order, as the iteration made them), and the counters' differences
 * (operations, loads, stores, branches and branch counts) added. A
 * native kernel running inside the iteration would keep its own
 * accounts: then nothing is replayed. */
#include "repeat.h"

#include <stdlib.h>
#include <string.h>

#include "cbana/cfg.h"
#include "engine_scalar.h"
#include "slice.h"

/* A recording larger than this, stream or branch runs, is dropped (the
 * iterations then run). */
#define REP_MAX_BYTES (64u << 20)

/* What an operand of the exit test is. */
enum { REP_OTHER, REP_IV, REP_NEXT };

typedef struct rep_loop {
  uint32_t iv_slot;
  uint32_t cmp_op;      /* the exit test (global op index) */
  uint32_t first_latch; /* into latches: blocks within the function */
  uint32_t n_latches;
  int64_t step;
  uint8_t iv_ty;
  uint8_t cmp_a, cmp_b; /* REP_* of the test's operands a and b */
  bool exit_on;         /* the test's value that leaves the loop */
  bool maybe_stores;    /* stores values that may be garbage (rule 4) */
} rep_loop;

typedef struct rep_run {
  uint64_t v, n;
} rep_run;

/* One item of the recorded stream: n records, or an affine block of n
 * accesses and n_iter iterations; its accesses follow it. */
typedef struct rep_item {
  uint32_t is_block;
  uint32_t n;
  uint64_t n_iter;
} rep_item;

struct cb_repeat {
  uint32_t *hdr; /* per global block: its loop + 1; 0: none */
  rep_loop *loops;
  uint32_t n_loops;
  uint32_t *latches;
  uint32_t n_latches;
  /* the recording (going while the engine's rep_rec is set) */
  bool full;
  uint32_t loop, depth;
  const cb_access_sink *real;
  cb_access_sink rec;
  uint8_t *buf;
  size_t len, cap;
  rep_run *runs;
  size_t n_runs, cap_runs;
  uint64_t sig_v0, sig_n0, ops0; /* ops0: eng_ops_done at the start */
  cb_run_outcome at0;            /* the counters when it started */
  uint64_t *counts0;             /* the branch counts then */
  size_t n_counts;
};

/* ---- which loops qualify ---- */

static bool int_ty(uint8_t ty) {
  return ty == CB_TY_I8 || ty == CB_TY_I16 || ty == CB_TY_I32 ||
         ty == CB_TY_I64;
}

/* Scratch for one function: per op (offset from its first), bit 0 in
 * the loop, bit 1 in V. */
typedef struct rep_scan {
  const cb_program *p;
  const uint8_t *sl;
  const cb_function *f;
  const cb_func_cfg *fc;
  const int32_t *def;
  cb_operand *o;
  uint8_t *mark;
  uint32_t lo, hi; /* the function's ops */
} rep_scan;

enum { IN_L = 1, IN_V = 2 };

/* The op (global) that defines operand x if it is in V, else -1. */
static int64_t v_def(const rep_scan *s, cb_operand x) {
  if (x == CB_NONE || (x & CB_OPND_CONST) || s->def[x] < 0)
    return -1;
  uint32_t d = (uint32_t)s->def[x];
  return (s->mark[d - s->lo] & IN_V) ? (int64_t)d : -1;
}

/* Whether some operand op reads is in V. */
static bool reads_v(const rep_scan *s, const cb_op *op) {
  unsigned na, n = cb_slice_op_reads(s->p, op, s->o, CB_SLICE_MAX_READS, &na);
  for (unsigned k = 0; k < n; k++)
    if (v_def(s, s->o[k]) >= 0)
      return true;
  return false;
}

/* The block (within the function) of op i. */
static uint32_t block_of(const rep_scan *s, uint32_t i) {
  uint32_t lo = 0, hi = s->f->n_blocks;
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    if (s->p->blocks[s->f->first_block + mid].first_op <= i)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

/* Rules 1 to 4 of the comment at the top for loop l; fills *out. */
static bool rep_qualifies(const rep_scan *s, uint32_t l, rep_loop *out) {
  const cb_program *p = s->p;
  const cb_func_cfg *fc = s->fc;
  const cb_loop *lp = &fc->loops[l];
  const uint8_t *sl = s->sl;
  memset(s->mark, 0, s->hi - s->lo);
  const cb_block *hb = &p->blocks[s->f->first_block + lp->header];
  for (uint32_t k = 0; k < lp->n_blocks; k++) {
    const cb_block *b =
        &p->blocks[s->f->first_block + fc->loop_blocks[lp->first_block + k]];
    for (uint32_t i = b->first_op; i < b->first_op + b->n_ops; i++) {
      const cb_op *op = &p->ops[i];
      switch ((cb_opcode)op->code) {
      case CB_OP_CALL:
        if (cb_slice_value_intrinsic(p, op))
          break;
        /* fall through */
      case CB_OP_RET:
      case CB_OP_ALLOCA:
      case CB_OP_UNREACHABLE:
      case CB_OP_EXTRACTVAL:
      case CB_OP_INSERTVAL:
        return false; /* rule 1 */
      default:
        break;
      }
      s->mark[i - s->lo] = IN_L;
      if (op->code == CB_OP_LOAD ||
          (b == hb && op->code == CB_OP_PHI && op->dst != CB_NONE))
        s->mark[i - s->lo] |= IN_V;
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t i = s->lo; i < s->hi; i++)
      if (s->mark[i - s->lo] == IN_L && reads_v(s, &p->ops[i])) {
        s->mark[i - s->lo] |= IN_V;
        changed = true;
      }
  }
  /* the induction variable: the header's one needed phi, an integer that
   * cfg.h finds stepping by a constant */
  const cb_indvar *iv = NULL;
  for (uint32_t i = hb->first_op;
       i < hb->first_op + hb->n_ops && p->ops[i].code == CB_OP_PHI; i++) {
    if (!(sl[i] & CB_SL_NEED)) {
      if (!(sl[i] & CB_SL_MAYBE))
        return false; /* rule 3 */
      continue;
    }
    if (iv)
      return false;
    for (uint32_t k = 0; k < lp->n_ivs && !iv; k++)
      if (fc->ivs[lp->first_iv + k].op == i)
        iv = &fc->ivs[lp->first_iv + k];
    if (!iv || !int_ty(iv->ty) || p->ops[i].lanes > 1)
      return false;
  }
  if (!iv)
    return false;
  /* its next value: what every latch gives the phi */
  const cb_op *phi = &p->ops[iv->op];
  const int64_t *g = &p->extra[phi->aux];
  cb_operand next = CB_NONE;
  for (int64_t k = 0; k < g[0]; k++) {
    uint32_t pred = (uint32_t)g[1 + 2 * k];
    bool latch = false;
    for (uint32_t j = 0; j < lp->n_latches && !latch; j++)
      latch = fc->latches[lp->first_latch + j] == pred;
    if (!latch)
      continue;
    cb_operand x = (cb_operand)g[2 + 2 * k];
    if (next != CB_NONE && x != next)
      return false;
    next = x;
  }
  int64_t next_op = v_def(s, next);
  if (next_op < 0)
    return false;
  /* rule 2: the needed ops of V, and its branches */
  int64_t cmp = -1, br = -1;
  for (uint32_t i = s->lo; i < s->hi; i++) {
    const cb_op *op = &p->ops[i];
    if (!(s->mark[i - s->lo] & IN_V) || i == iv->op || i == (uint32_t)next_op)
      continue;
    if (op->code == CB_OP_BR || op->code == CB_OP_SWITCH) {
      if (br >= 0 || op->code == CB_OP_SWITCH)
        return false;
      br = i;
    } else if (op->code == CB_OP_STORE) {
      /* rule 4 (a value of V; its address is needed, so not of V) */
      if (!(sl[i] & CB_SL_MAYBE) || (sl[i] & CB_SL_NEED))
        return false;
    } else if (sl[i] & CB_SL_NEED) {
      if (cmp >= 0 || op->code != CB_OP_ICMP || op->lanes > 1)
        return false;
      cmp = i;
    }
  }
  if (cmp < 0 || br < 0 || p->ops[br].a != p->ops[cmp].dst)
    return false;
  const cb_op *c = &p->ops[cmp];
  uint8_t kind[2];
  cb_operand ab[2] = {c->a, c->b};
  for (int k = 0; k < 2; k++) {
    kind[k] = ab[k] == iv->slot ? REP_IV : ab[k] == next ? REP_NEXT : REP_OTHER;
    if (kind[k] == REP_OTHER && v_def(s, ab[k]) >= 0)
      return false;
  }
  /* the exit branch: once an iteration, one side out of L */
  uint32_t xb = block_of(s, (uint32_t)br);
  if (fc->loop_of[xb] != l)
    return false;
  for (uint32_t j = 0; j < lp->n_latches; j++)
    if (!cb_cfg_dominates(fc, xb, fc->latches[lp->first_latch + j]))
      return false;
  const cb_block *xbl = &p->blocks[s->f->first_block + xb];
  if (xbl->n_succ != 2)
    return false;
  bool in0 = cb_cfg_in_loop(fc, l, p->succs[xbl->first_succ]);
  bool in1 = cb_cfg_in_loop(fc, l, p->succs[xbl->first_succ + 1]);
  if (in0 == in1)
    return false;
  /* rule 3: what is read after L */
  bool maybe_stores = false;
  for (uint32_t i = s->lo; i < s->hi; i++) {
    const cb_op *op = &p->ops[i];
    if (s->mark[i - s->lo] & IN_L) {
      maybe_stores |= op->code == CB_OP_STORE && (sl[i] & CB_SL_MAYBE);
      continue;
    }
    unsigned na, n = cb_slice_op_reads(p, op, s->o, CB_SLICE_MAX_READS, &na);
    for (unsigned k = 0; k < n; k++) {
      int64_t d = v_def(s, s->o[k]);
      if (d >= 0 && d != iv->op && d != next_op && d != cmp &&
          !(sl[d] & CB_SL_MAYBE))
        return false;
    }
  }
  *out = (rep_loop){.iv_slot = iv->slot,
                    .cmp_op = (uint32_t)cmp,
                    .step = iv->step,
                    .iv_ty = iv->ty,
                    .cmp_a = kind[0],
                    .cmp_b = kind[1],
                    .exit_on = !in0,
                    .maybe_stores = maybe_stores};
  return true;
}

static bool rep_add(cb_repeat *r, const cb_program *p, uint32_t fi,
                    const cb_func_cfg *fc, uint32_t l, rep_loop *L,
                    cb_phi_edges *pe) {
  const cb_loop *lp = &fc->loops[l];
  const cb_function *f = &p->functions[fi];
  rep_loop *nl = realloc(r->loops, (r->n_loops + 1) * sizeof *nl);
  uint32_t *lt =
      realloc(r->latches, (r->n_latches + lp->n_latches) * sizeof *lt);
  if (nl)
    r->loops = nl;
  if (lt)
    r->latches = lt;
  if (!nl || !lt)
    return false;
  L->first_latch = r->n_latches;
  L->n_latches = lp->n_latches;
  uint32_t gh = f->first_block + lp->header;
  for (uint32_t j = 0; j < lp->n_latches; j++) {
    uint32_t lb = fc->latches[lp->first_latch + j];
    r->latches[r->n_latches++] = lb;
    /* cb_fast_loop leaves this back edge to eng_run() */
    for (int side = 0; side < 2 && pe->br; side++) {
      cb_br_target *bt = &pe->br[2 * (size_t)(f->first_block + lb) + side];
      if (bt->block == gh)
        bt->block = CB_NONE;
    }
  }
  r->loops[r->n_loops++] = *L;
  r->hdr[gh] = r->n_loops;
  return true;
}

cb_repeat *cb_repeat_build(const cb_program *p, const uint8_t *sl,
                           cb_phi_edges *pe) {
  if (!sl)
    return NULL;
  cb_cfg_info *ci = cb_cfg_analyze(p);
  cb_repeat *r = calloc(1, sizeof *r);
  int32_t *def = malloc(cb_slice_max_slots(p) * sizeof *def);
  cb_operand *o = malloc(CB_SLICE_MAX_READS * sizeof *o);
  uint8_t *mark = NULL;
  if (r)
    r->hdr = calloc(p->n_blocks + 1, sizeof *r->hdr);
  bool ok = ci && r && r->hdr && def && o;
  for (uint32_t fi = 0; ok && fi < p->n_functions; fi++) {
    const cb_function *f = &p->functions[fi];
    const cb_func_cfg *fc = &ci->funcs[fi];
    if (!f->n_blocks || !fc->n_loops || !cb_slice_def_map(p, f, def, o))
      continue;
    const cb_block *bl = &p->blocks[f->first_block + f->n_blocks - 1];
    rep_scan s = {p,
                  sl,
                  f,
                  fc,
                  def,
                  o,
                  NULL,
                  p->blocks[f->first_block].first_op,
                  bl->first_op + bl->n_ops};
    uint8_t *m = realloc(mark, s.hi - s.lo + 1);
    if (!m) {
      ok = false;
      break;
    }
    mark = m;
    s.mark = mark;
    for (uint32_t l = 0; l < fc->n_loops && ok; l++) {
      rep_loop L;
      if (rep_qualifies(&s, l, &L))
        ok = rep_add(r, p, fi, fc, l, &L, pe);
    }
  }
  free(mark);
  free(def);
  free(o);
  cb_cfg_free(ci);
  if (ok && r->n_loops && p->n_branches) {
    r->n_counts = 2 * (size_t)p->n_branches;
    r->counts0 = malloc(r->n_counts * sizeof *r->counts0);
    ok = r->counts0 != NULL;
  }
  if (!ok || !r->n_loops) {
    /* the marks in pe stay: eng_run() then takes those edges itself */
    cb_repeat_free(r);
    return NULL;
  }
  return r;
}

void cb_repeat_free(cb_repeat *r) {
  if (!r)
    return;
  free(r->hdr);
  free(r->loops);
  free(r->latches);
  free(r->buf);
  free(r->runs);
  free(r->counts0);
  free(r);
}

bool cb_repeat_is_header(const cb_repeat *r, uint32_t gb) {
  return r->hdr[gb] != 0;
}

/* ---- the recording ---- */

static void rec_put(cb_repeat *r, const rep_item *it, const void *data,
                    size_t bytes) {
  if (r->full)
    return;
  size_t need = r->len + sizeof *it + bytes;
  if (need > REP_MAX_BYTES) {
    r->full = true;
    return;
  }
  if (need > r->cap) {
    size_t cap = r->cap ? r->cap : 1u << 16;
    while (cap < need)
      cap *= 2;
    uint8_t *b = realloc(r->buf, cap);
    if (!b) {
      r->full = true;
      return;
    }
    r->buf = b;
    r->cap = cap;
  }
  memcpy(r->buf + r->len, it, sizeof *it);
  memcpy(r->buf + r->len + sizeof *it, data, bytes);
  r->len = need;
}

/* The wrapped sink: copies, then passes on (before: the batch may be the
 * pipe's area, which the consumer owns once it has it). */
static void rec_fn(void *ctx, const cb_access *b, size_t n) {
  cb_repeat *r = ctx;
  rep_item it = {0, (uint32_t)n, 0};
  rec_put(r, &it, b, n * sizeof *b);
  r->real->fn(r->real->ctx, b, n);
}

static void rec_affine(void *ctx, const cb_affine_block *blk) {
  cb_repeat *r = ctx;
  rep_item it = {1, blk->n_acc, blk->n_iter};
  rec_put(r, &it, blk->acc, blk->n_acc * sizeof *blk->acc);
  r->real->affine(r->real->ctx, blk);
}

static cb_access *rec_area(void *ctx, size_t *cap) {
  cb_repeat *r = ctx;
  return r->real->area(r->real->ctx, cap);
}

/* Appends a run of branch outcomes to the recording's. */
static bool runs_push(cb_repeat *r, uint64_t v, uint64_t n) {
  if (r->full)
    return false;
  if (r->n_runs == r->cap_runs) {
    size_t cap = r->cap_runs ? 2 * r->cap_runs : 256;
    if (cap * sizeof *r->runs > REP_MAX_BYTES) {
      r->full = true;
      return false;
    }
    rep_run *nr = realloc(r->runs, cap * sizeof *nr);
    if (!nr) {
      r->full = true;
      return false;
    }
    r->runs = nr;
    r->cap_runs = cap;
  }
  r->runs[r->n_runs++] = (rep_run){v, n};
  return true;
}

void cb_repeat_note_run(cb_eng *e) {
  runs_push(e->rep, e->sig_v, e->sig_n);
}

static void rep_start(cb_eng *e, cb_repeat *r, uint32_t li, uint64_t budget) {
  cb_eng_flush(e); /* what came before is not the iteration's */
  r->full = false;
  r->loop = li;
  r->depth = e->depth;
  r->len = r->n_runs = 0;
  r->sig_v0 = e->sig_v;
  r->sig_n0 = e->sig_n;
  r->ops0 = eng_ops_done(e, budget);
  r->at0 = *e->out;
  if (r->n_counts && e->out->branch_counts)
    memcpy(r->counts0, e->out->branch_counts, r->n_counts * sizeof *r->counts0);
  r->real = e->sink;
  if (e->sink) {
    r->rec = (cb_access_sink){e->sink->fn ? rec_fn : NULL, r,
                              e->sink->affine ? rec_affine : NULL,
                              e->sink->area ? rec_area : NULL};
    e->sink = &r->rec;
  }
  e->rep_rec = true;
}

/* Hands the recorded stream to the sink once more. */
static void replay_stream(const cb_repeat *r) {
  const cb_access_sink *s = r->real;
  for (size_t off = 0; s && off < r->len;) {
    rep_item it;
    memcpy(&it, r->buf + off, sizeof it);
    off += sizeof it;
    if (it.is_block) {
      cb_affine_block b = {it.n_iter, it.n,
                           (const cb_affine_access *)(r->buf + off)};
      off += it.n * sizeof *b.acc;
      s->affine(s->ctx, &b);
      continue;
    }
    const cb_access *a = (const cb_access *)(r->buf + off);
    size_t n = it.n;
    off += n * sizeof *a;
    while (n && s->area) {
      size_t cap;
      cb_access *dst = s->area(s->ctx, &cap);
      size_t m = n < cap ? n : cap;
      memcpy(dst, a, m * sizeof *a);
      s->fn(s->ctx, dst, m);
      a += m;
      n -= m;
    }
    if (n)
      s->fn(s->ctx, a, n);
  }
}

/* Whether the iteration with variable value y passes the exit test. */
static bool continues(const cb_eng *e, const rep_loop *L, const cb_value *S,
                      uint64_t y) {
  const cb_program *p = e->p;
  const cb_op *c = &p->ops[L->cmp_op];
  const uint64_t m = cb_ty_mask(L->iv_ty);
  const uint64_t iv = y & m, next = (y + (uint64_t)L->step) & m;
  const uint8_t kind[2] = {L->cmp_a, L->cmp_b};
  const cb_operand ab[2] = {c->a, c->b};
  uint64_t v[2];
  for (int k = 0; k < 2; k++)
    v[k] = kind[k] == REP_IV         ? iv
           : kind[k] == REP_NEXT     ? next
           : (ab[k] & CB_OPND_CONST) ? p->consts[ab[k] & ~CB_OPND_CONST].u
                                     : S[ab[k]].u;
  const uint64_t cm = cb_ty_mask(c->ty);
  return icmp(c->aux, v[0] & cm, v[1] & cm, c->ty) != L->exit_on;
}

/* Ends the recording at the header and replays the iterations after it
 * that pass the exit test. */
static void rep_finish(cb_eng *e, cb_repeat *r, const rep_loop *L, cb_value *S,
                       uint64_t *budget) {
  cb_eng_flush(e); /* the iteration's last records, to the copy */
  e->sink = r->real;
  e->rep_rec = false;
  cb_run_outcome *o = e->out;
  const cb_run_outcome *a = &r->at0;
  uint64_t dops = eng_ops_done(e, *budget) - r->ops0;
  if (r->full || o->kernel_ops != a->kernel_ops || dops == 0 ||
      eng_budget_avail(e, *budget) == 0)
    return;
  /* the iteration's runs of outcomes: the ones mixed during it and the
   * one still open, less the part of the first that was open before */
  if (!runs_push(r, e->sig_v, e->sig_n) ||
      (r->sig_n0 && r->runs[0].v != r->sig_v0))
    return;
  r->runs[0].n -= r->sig_n0;
  uint64_t k = 0, y = S[L->iv_slot].u;
  const uint64_t kmax = (eng_budget_avail(e, *budget) - 1) / dops;
  while (k < kmax && continues(e, L, S, y)) {
    y += (uint64_t)L->step;
    k++;
  }
  if (!k)
    return;
  const uint64_t d_loads = o->loads - a->loads,
                 d_stores = o->stores - a->stores,
                 d_lr = o->lib_reads - a->lib_reads,
                 d_lw = o->lib_writes - a->lib_writes,
                 d_br = o->branches - a->branches;
  for (uint64_t i = 0; i < k; i++) {
    replay_stream(r);
    for (size_t j = 0; j < r->n_runs; j++)
      if (r->runs[j].n)
        sig_add(e, r->runs[j].v, r->runs[j].n);
  }
  o->loads += k * d_loads;
  o->stores += k * d_stores;
  o->lib_reads += k * d_lr;
  o->lib_writes += k * d_lw;
  o->branches += k * d_br;
  if (r->n_counts && o->branch_counts)
    for (size_t j = 0; j < r->n_counts; j++)
      o->branch_counts[j] += k * (o->branch_counts[j] - r->counts0[j]);
  o->rep_iters += k;
  eng_budget_spend(e, budget, k * dops);
  S[L->iv_slot].u = y & cb_ty_mask(L->iv_ty);
}

void cb_repeat_at_header(cb_eng *e, cb_frame *F, cb_value *S, uint32_t gb,
                         uint32_t from, uint64_t *budget) {
  cb_repeat *r = e->rep;
  const uint32_t li = r->hdr[gb] - 1;
  const rep_loop *L = &r->loops[li];
  bool back = false;
  for (uint32_t j = 0; j < L->n_latches && !back; j++)
    back = r->latches[L->first_latch + j] == from;
  if (!back)
    return;
  if (e->rep_rec) {
    if (r->loop == li && r->depth == e->depth)
      rep_finish(e, r, L, S, budget);
    return; /* another loop's iteration is being recorded */
  }
  if (eng_budget_avail(e, *budget) == 0 ||
      (L->maybe_stores && !e->mem.stale_any) ||
      (e->kernels && __atomic_load_n(&e->kernels[F->func], __ATOMIC_ACQUIRE)))
    return;
  /* this iteration and the next one must pass the test */
  uint64_t y = S[L->iv_slot].u;
  if (continues(e, L, S, y) && continues(e, L, S, y + (uint64_t)L->step))
    rep_start(e, r, li, *budget);
}
