/* mcfg.c: dominators (Cooper, Harvey and Kennedy, "A Simple, Fast
 * Dominance Algorithm"), post-dominators (the same on the reverse graph
 * from a virtual exit), a loop nesting forest from strongly connected
 * components (Tarjan; a component's header is its first block in reverse
 * postorder, its inner loops are the components of the rest, so the
 * irreducible loops machine code has after block placement are loops too),
 * and the structural pairing of machine blocks with IR blocks built on
 * them. Code generation keeps the IR's control structure: a machine block
 * made from IR block B keeps B's dominance and post-dominance relations
 * with the other blocks and B's loop; blocks it adds (split edges, a
 * condition split in two branches) run as often as a control-equivalent
 * neighbour. */
#include "mcfg.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NONE UINT32_MAX

typedef struct graph {
  uint32_t n, *off, *adj;
} graph;

static void rpo(const graph *g, uint32_t root, uint32_t *order, uint32_t *no,
                uint32_t *num) {
  uint32_t *stk = malloc((g->n + 1) * sizeof *stk);
  uint32_t *it = calloc(g->n + 1, sizeof *it);
  uint8_t *seen = calloc(g->n + 1, 1);
  uint32_t *post = malloc((g->n + 1) * sizeof *post), np = 0, ns = 0;
  stk[ns++] = root;
  seen[root] = 1;
  while (ns) {
    uint32_t v = stk[ns - 1];
    if (g->off[v] + it[v] < g->off[v + 1]) {
      uint32_t w = g->adj[g->off[v] + it[v]++];
      if (!seen[w]) {
        seen[w] = 1;
        stk[ns++] = w;
      }
    } else {
      post[np++] = v;
      ns--;
    }
  }
  for (uint32_t v = 0; v < g->n; v++)
    num[v] = NONE;
  for (uint32_t k = 0; k < np; k++) {
    order[k] = post[np - 1 - k];
    num[order[k]] = k;
  }
  *no = np;
  free(stk);
  free(it);
  free(seen);
  free(post);
}

/* idom over g from root, with pr the reverse of g */
static void doms(const graph *g, const graph *pr, uint32_t root,
                 uint32_t *idom) {
  uint32_t *order = malloc((g->n + 1) * sizeof *order), no;
  uint32_t *num = malloc((g->n + 1) * sizeof *num);
  rpo(g, root, order, &no, num);
  for (uint32_t v = 0; v < g->n; v++)
    idom[v] = NONE;
  idom[root] = root;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t k = 1; k < no; k++) {
      uint32_t b = order[k], nd = NONE;
      for (uint32_t e = pr->off[b]; e < pr->off[b + 1]; e++) {
        uint32_t p = pr->adj[e];
        if (idom[p] == NONE)
          continue;
        if (nd == NONE) {
          nd = p;
          continue;
        }
        uint32_t x = p, y = nd;
        while (x != y) {
          while (num[x] > num[y])
            x = idom[x];
          while (num[y] > num[x])
            y = idom[y];
        }
        nd = x;
      }
      if (nd != idom[b]) {
        idom[b] = nd;
        changed = true;
      }
    }
  }
  idom[root] = NONE;
  free(order);
  free(num);
}

/* pre/post numbers of the tree given by parent links (roots: parent NONE
   and reached) */
static void intervals(uint32_t n, const uint32_t *par, const uint8_t *in,
                      uint32_t *pre, uint32_t *post) {
  uint32_t *cnt = calloc(n + 1, sizeof *cnt), *kid = malloc(n * sizeof *kid);
  for (uint32_t v = 0; v < n; v++)
    if (par[v] != NONE)
      cnt[par[v] + 1]++;
  for (uint32_t v = 0; v < n; v++)
    cnt[v + 1] += cnt[v];
  uint32_t *fill = malloc((n + 1) * sizeof *fill);
  memcpy(fill, cnt, (n + 1) * sizeof *fill);
  for (uint32_t v = 0; v < n; v++)
    if (par[v] != NONE)
      kid[fill[par[v]]++] = v;
  uint32_t *stk = malloc((n + 1) * sizeof *stk), *it = calloc(n, sizeof *it);
  uint32_t clock = 0;
  for (uint32_t v = 0; v < n; v++)
    pre[v] = post[v] = NONE;
  for (uint32_t r = 0; r < n; r++) {
    if (par[r] != NONE || !in[r])
      continue;
    uint32_t ns = 0;
    stk[ns++] = r;
    pre[r] = clock++;
    while (ns) {
      uint32_t v = stk[ns - 1];
      if (cnt[v] + it[v] < cnt[v + 1]) {
        uint32_t w = kid[cnt[v] + it[v]++];
        pre[w] = clock++;
        stk[ns++] = w;
      } else {
        post[v] = clock++;
        ns--;
      }
    }
  }
  free(cnt);
  free(kid);
  free(fill);
  free(stk);
  free(it);
}

/* ---- loops ---------------------------------------------------------------
 */

typedef struct lctx {
  fe_cfg *g;
  const uint32_t *num; /* reverse postorder number */
  uint8_t *in, *on;
  uint32_t *idx, *low, *stk, nstk, clock;
  uint32_t *comp, ncomp, *cstart, ncs;
} lctx;

static void tarjan(lctx *c, uint32_t v) {
  c->idx[v] = c->low[v] = ++c->clock;
  c->stk[c->nstk++] = v;
  c->on[v] = 1;
  const fe_cfg *g = c->g;
  for (uint32_t e = g->soff[v]; e < g->soff[v + 1]; e++) {
    uint32_t w = g->succ[e];
    if (!c->in[w])
      continue;
    if (!c->idx[w]) {
      tarjan(c, w);
      if (c->low[w] < c->low[v])
        c->low[v] = c->low[w];
    } else if (c->on[w] && c->idx[w] < c->low[v]) {
      c->low[v] = c->idx[w];
    }
  }
  if (c->low[v] == c->idx[v]) {
    c->cstart[c->ncs++] = c->ncomp;
    uint32_t w;
    do {
      w = c->stk[--c->nstk];
      c->on[w] = 0;
      c->comp[c->ncomp++] = w;
    } while (w != v);
  }
}

static void nest(lctx *c, const uint32_t *nodes, uint32_t nn, uint32_t depth) {
  if (!nn)
    return;
  for (uint32_t k = 0; k < nn; k++) {
    c->in[nodes[k]] = 1;
    c->idx[nodes[k]] = 0;
  }
  c->ncomp = c->ncs = c->nstk = 0;
  for (uint32_t k = 0; k < nn; k++)
    if (!c->idx[nodes[k]])
      tarjan(c, nodes[k]);
  for (uint32_t k = 0; k < nn; k++)
    c->in[nodes[k]] = 0;
  /* the components, copied: the recursion reuses the buffers */
  uint32_t ncs = c->ncs;
  uint32_t *comp = malloc(nn * sizeof *comp);
  uint32_t *cs = malloc((ncs + 1) * sizeof *cs);
  memcpy(comp, c->comp, nn * sizeof *comp);
  memcpy(cs, c->cstart, ncs * sizeof *cs);
  cs[ncs] = nn;
  const fe_cfg *g = c->g;
  for (uint32_t s = 0; s < ncs; s++) {
    uint32_t *m = comp + cs[s], mn = cs[s + 1] - cs[s];
    bool loop = mn > 1;
    if (!loop)
      for (uint32_t e = g->soff[m[0]]; e < g->soff[m[0] + 1]; e++)
        loop |= g->succ[e] == m[0];
    if (!loop)
      continue;
    uint32_t h = 0;
    for (uint32_t k = 1; k < mn; k++)
      if (c->num[m[k]] < c->num[m[h]])
        h = k;
    uint32_t hd = m[h];
    for (uint32_t k = 0; k < mn; k++) {
      c->g->loop[m[k]] = hd;
      c->g->depth[m[k]] = depth + 1;
    }
    m[h] = m[mn - 1];
    nest(c, m, mn - 1, depth + 1);
  }
  free(comp);
  free(cs);
}

void fe_cfg_build(fe_cfg *g) {
  uint32_t n = g->n, N = n + 1;
  /* forward graph with the exit node n, and its reverse */
  graph f = {N, calloc(N + 1, sizeof(uint32_t)), NULL};
  graph r = {N, calloc(N + 1, sizeof(uint32_t)), NULL};
  for (uint32_t v = 0; v < n; v++)
    f.off[v + 1] = g->soff[v + 1] - g->soff[v] + (g->exits[v] ? 1 : 0);
  for (uint32_t v = 0; v < N; v++)
    f.off[v + 1] += f.off[v];
  f.adj = malloc((f.off[N] + 1) * sizeof *f.adj);
  r.adj = malloc((f.off[N] + 1) * sizeof *r.adj);
  for (uint32_t v = 0; v < n; v++) {
    uint32_t k = f.off[v];
    for (uint32_t e = g->soff[v]; e < g->soff[v + 1]; e++)
      f.adj[k++] = g->succ[e];
    if (g->exits[v])
      f.adj[k++] = n;
  }
  for (uint32_t v = 0; v < N; v++)
    for (uint32_t e = f.off[v]; e < f.off[v + 1]; e++)
      r.off[f.adj[e] + 1]++;
  for (uint32_t v = 0; v < N; v++)
    r.off[v + 1] += r.off[v];
  uint32_t *fill = malloc((N + 1) * sizeof *fill);
  memcpy(fill, r.off, (N + 1) * sizeof *fill);
  for (uint32_t v = 0; v < N; v++)
    for (uint32_t e = f.off[v]; e < f.off[v + 1]; e++)
      r.adj[fill[f.adj[e]]++] = v;
  g->idom = malloc(N * sizeof *g->idom);
  g->ipdom = malloc(N * sizeof *g->ipdom);
  doms(&f, &r, 0, g->idom);
  doms(&r, &f, n, g->ipdom);
  g->reach = calloc(N, 1);
  uint32_t *order = malloc(N * sizeof *order), no;
  uint32_t *num = malloc(N * sizeof *num);
  rpo(&f, 0, order, &no, num);
  for (uint32_t k = 0; k < no; k++)
    g->reach[order[k]] = 1;
  g->dpre = malloc(N * sizeof *g->dpre);
  g->dpost = malloc(N * sizeof *g->dpost);
  g->ppre = malloc(N * sizeof *g->ppre);
  g->ppost = malloc(N * sizeof *g->ppost);
  intervals(N, g->idom, g->reach, g->dpre, g->dpost);
  uint8_t *all = malloc(N);
  memset(all, 1, N);
  for (uint32_t v = 0; v < n; v++)
    if (g->ipdom[v] == NONE)
      all[v] = 0; /* cannot reach the exit: no post-dominator */
  uint32_t *pp = malloc(N * sizeof *pp);
  memcpy(pp, g->ipdom, N * sizeof *pp);
  intervals(N, pp, all, g->ppre, g->ppost);
  /* loops over the reachable blocks */
  g->loop = malloc(N * sizeof *g->loop);
  g->depth = calloc(N, sizeof *g->depth);
  for (uint32_t v = 0; v < N; v++)
    g->loop[v] = NONE;
  lctx c = {g,
            num,
            calloc(N, 1),
            calloc(N, 1),
            calloc(N, sizeof(uint32_t)),
            calloc(N, sizeof(uint32_t)),
            malloc(N * sizeof(uint32_t)),
            0,
            0,
            malloc(N * sizeof(uint32_t)),
            0,
            malloc(N * sizeof(uint32_t)),
            0};
  uint32_t *nodes = malloc(N * sizeof *nodes), nn = 0;
  for (uint32_t v = 0; v < n; v++)
    if (g->reach[v])
      nodes[nn++] = v;
  nest(&c, nodes, nn, 0);
  free(nodes);
  free(c.in);
  free(c.on);
  free(c.idx);
  free(c.low);
  free(c.stk);
  free(c.comp);
  free(c.cstart);
  free(pp);
  free(all);
  free(order);
  free(num);
  free(fill);
  free(f.off);
  free(f.adj);
  free(r.off);
  free(r.adj);
}

void fe_cfg_free(fe_cfg *g) {
  free(g->soff);
  free(g->succ);
  free(g->exits);
  free(g->jcc);
  free(g->plain);
  free(g->reach);
  free(g->idom);
  free(g->ipdom);
  free(g->dpre);
  free(g->dpost);
  free(g->ppre);
  free(g->ppost);
  free(g->loop);
  free(g->depth);
}

bool fe_cfg_dom(const fe_cfg *g, uint32_t a, uint32_t b) {
  return g->dpre[a] != NONE && g->dpre[b] != NONE && g->dpre[a] <= g->dpre[b] &&
         g->dpost[b] <= g->dpost[a];
}

bool fe_cfg_pdom(const fe_cfg *g, uint32_t a, uint32_t b) {
  return g->ppre[a] != NONE && g->ppre[b] != NONE && g->ppre[a] <= g->ppre[b] &&
         g->ppost[b] <= g->ppost[a];
}

bool fe_cfg_equiv(const fe_cfg *g, uint32_t a, uint32_t b) {
  if (a == b)
    return true;
  if (g->loop[a] != g->loop[b])
    return false;
  return (fe_cfg_dom(g, a, b) && fe_cfg_pdom(g, b, a)) ||
         (fe_cfg_dom(g, b, a) && fe_cfg_pdom(g, a, b));
}

/* ---- pairing -------------------------------------------------------------
 */

/* Do machine block m and IR block i stand in the same relations to every
   anchor? */
bool fe_cfg_consistent(const fe_cfg *mg, const fe_cfg *ig, const uint32_t *pair,
                       const uint32_t *anchors, uint32_t na, uint32_t m,
                       uint32_t i) {
  if (mg->depth[m] != ig->depth[i])
    return false;
  for (uint32_t ai = 0; ai < na; ai++) {
    uint32_t x = anchors[ai];
    if (x == m || pair[x] == NONE)
      continue;
    uint32_t j = pair[x];
    if (j == i) {
      if (!fe_cfg_equiv(mg, x, m))
        return false;
      continue;
    }
    if (fe_cfg_dom(mg, x, m) != fe_cfg_dom(ig, j, i) ||
        fe_cfg_dom(mg, m, x) != fe_cfg_dom(ig, i, j) ||
        fe_cfg_pdom(mg, x, m) != fe_cfg_pdom(ig, j, i) ||
        fe_cfg_pdom(mg, m, x) != fe_cfg_pdom(ig, i, j) ||
        (mg->loop[x] == mg->loop[m]) != (ig->loop[j] == ig->loop[i]))
      return false;
  }
  return true;
}

static bool has_succ(const fe_cfg *g, uint32_t a, uint32_t b) {
  for (uint32_t k = g->soff[a]; k < g->soff[a + 1]; k++)
    if (g->succ[k] == b)
      return true;
  return false;
}

/* Does IR block a lead to b: b is a, a successor of a, or reached from
   one through blocks with a single successor? */
static bool leads(const fe_cfg *g, uint32_t a, uint32_t b) {
  if (a == b)
    return true;
  for (uint32_t k = g->soff[a]; k < g->soff[a + 1]; k++) {
    uint32_t s = g->succ[k];
    for (uint32_t hops = 0; hops < 4; hops++) {
      if (s == b)
        return true;
      if (g->soff[s + 1] - g->soff[s] != 1)
        break;
      s = g->succ[g->soff[s]];
    }
  }
  return false;
}

/* The IR block of machine block b, through plain blocks (no accesses, no
   keys: jumps and register moves) with one successor (fwd) or one
   predecessor (back). */
static uint32_t through(const fe_cfg *mg, const uint32_t *pair, uint32_t b,
                        bool fwd) {
  for (uint32_t hops = 0; hops < 8; hops++) {
    if (pair[b] != NONE)
      return pair[b];
    if (!mg->plain || !mg->plain[b])
      return NONE;
    uint32_t nx = NONE, cnt = 0;
    if (fwd) {
      cnt = mg->soff[b + 1] - mg->soff[b];
      if (cnt == 1)
        nx = mg->succ[mg->soff[b]];
    } else {
      for (uint32_t e = 0; e < mg->n && cnt < 2; e++)
        for (uint32_t k = mg->soff[e]; k < mg->soff[e + 1]; k++)
          if (mg->succ[k] == b && mg->reach[e]) {
            nx = e;
            cnt++;
          }
    }
    if (cnt != 1)
      return NONE;
    b = nx;
  }
  return NONE;
}

void fe_cfg_pair(const fe_cfg *mg, const fe_cfg *ig, uint32_t *pair,
                 uint32_t *from, uint8_t *anchor, const uint8_t *need,
                 bool (*keyed)(uint32_t m, uint32_t i, void *ctx), void *ctx) {
  uint32_t *cand = malloc((ig->n + 1) * sizeof *cand);
  uint8_t *used = calloc(ig->n + 1, 1);
  uint32_t *al = malloc((mg->n + 1) * sizeof *al), na = 0;
  for (uint32_t m = 0; m < mg->n; m++)
    if (anchor[m] && pair[m] != NONE)
      al[na++] = m;
  for (uint32_t m = 0; m < mg->n; m++)
    if (pair[m] != NONE)
      used[pair[m]] = 1;
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t m = 0; m < mg->n; m++) {
      if (!mg->reach[m] || pair[m] != NONE)
        continue;
      uint32_t nc = 0;
      for (uint32_t i = 0; i < ig->n; i++)
        if (ig->reach[i] && fe_cfg_consistent(mg, ig, pair, al, na, m, i))
          cand[nc++] = i;
      bool one = nc > 0;
      for (uint32_t k = 1; k < nc && one; k++)
        one = fe_cfg_equiv(ig, cand[0], cand[k]);
      if (!one && keyed) {
        /* blocks the structure cannot tell apart (the labels of a computed
           goto: all after its jump, all before it again): the one
           candidate with a key in common */
        uint32_t nk = 0, ki = 0;
        for (uint32_t k = 0; k < nc && nk < 2; k++)
          if (!used[cand[k]] && keyed(m, cand[k], ctx)) {
            ki = cand[k];
            nk++;
          }
        if (nk == 1) {
          cand[0] = ki;
          nc = 1;
          one = true;
        }
      }
      if (!one)
        continue;
      /* within the class: a block with a key in common, else an unpaired
         one, else the first in dominance order */
      uint32_t pick = NONE;
      bool key = false;
      for (uint32_t k = 0; k < nc && !key; k++)
        if (keyed && keyed(m, cand[k], ctx)) {
          pick = cand[k];
          key = true;
        }
      if (!key && !need[m])
        continue;
      for (uint32_t k = 0; k < nc && !key; k++)
        if (!used[cand[k]] &&
            (pick == NONE || ig->dpre[cand[k]] < ig->dpre[pick]))
          pick = cand[k];
      for (uint32_t k = 0; k < nc && pick == NONE; k++)
        if (pick == NONE || ig->dpre[cand[k]] < ig->dpre[pick])
          pick = cand[k];
      if (pick >= ig->n)
        continue;
      pair[m] = pick;
      used[pick] = 1;
      anchor[m] = key;
      if (key)
        al[na++] = m;
      if (getenv("CBANA_DEBUG_MACHINE"))
        fprintf(stderr, "  stage C: m%u -> bb%u (%u candidates, key %d)\n", m,
                pick, nc, key);
      changed = true;
    }
  }
  /* the rest of a condition the machine code evaluates in several blocks
     (`a && b` of one IR branch, a vectorizer's runtime checks): a block
     ending in a branch on the line of IR block i's branch whose
     predecessors all belong to i belongs to i. It runs as often as i
     when the earlier parts of the condition let it (the checks pass). */
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t m = 0; m < mg->n; m++) {
      if (!mg->jcc || !mg->reach[m] || pair[m] != NONE || !mg->jcc[m])
        continue;
      uint32_t p = NONE;
      bool ok = true;
      for (uint32_t e = 0; e < mg->n && ok; e++)
        for (uint32_t k = mg->soff[e]; k < mg->soff[e + 1] && ok; k++)
          if (mg->succ[k] == m && mg->reach[e]) {
            if (pair[e] == NONE || (p != NONE && pair[e] != p) ||
                mg->loop[e] != mg->loop[m])
              ok = false;
            p = pair[e];
          }
      /* and where it leads is where i leads (not a copy of another block
         that branches on the same line) */
      for (uint32_t k = mg->soff[m]; k < mg->soff[m + 1] && ok && p != NONE;
           k++) {
        uint32_t t = through(mg, pair, mg->succ[k], true);
        ok = t == NONE || leads(ig, p, t);
      }
      if (ok && p != NONE && ig->depth[p] == mg->depth[m] && keyed &&
          keyed(m, p, ctx)) {
        pair[m] = p;
        changed = true;
      }
    }
  }
  /* blocks of one edge of the IR: M's predecessors (through plain
     blocks) all belong to IR block a, and either M's successors lead to
     IR block x alone, a successor of a (a split edge, a loop preheader),
     or x is the one unpaired successor of a whose successors include all
     those M leads to (a copy tail duplication made of x for a) */
  for (uint32_t m = 0; m < mg->n; m++) {
    if (!mg->reach[m] || pair[m] != NONE || !need[m])
      continue;
    uint32_t a = NONE, x = NONE;
    bool ok = true;
    for (uint32_t e = 0; e < mg->n && ok; e++)
      for (uint32_t k = mg->soff[e]; k < mg->soff[e + 1] && ok; k++)
        if (mg->succ[k] == m && mg->reach[e]) {
          uint32_t q = through(mg, pair, e, false);
          ok = q != NONE && (a == NONE || a == q);
          a = q;
        }
    uint32_t ts[8], nt = 0;
    for (uint32_t k = mg->soff[m]; k < mg->soff[m + 1] && ok; k++) {
      uint32_t t = through(mg, pair, mg->succ[k], true);
      ok = t != NONE && nt < 8;
      if (ok)
        ts[nt++] = t;
    }
    if (!ok || a == NONE || !nt || mg->exits[m])
      continue;
    bool single = true;
    for (uint32_t k = 1; k < nt; k++)
      single &= ts[k] == ts[0];
    if (single && has_succ(ig, a, ts[0])) {
      x = ts[0];
    } else {
      for (uint32_t k = ig->soff[a]; k < ig->soff[a + 1]; k++) {
        uint32_t c = ig->succ[k], all = 1;
        if (used[c])
          continue;
        for (uint32_t q = 0; q < nt; q++)
          all &= has_succ(ig, c, ts[q]);
        if (all) {
          x = x == NONE || x == c ? c : NONE - 1;
        }
      }
      if (x == NONE - 1)
        x = NONE;
    }
    if (x != NONE) {
      pair[m] = x;
      from[m] = a;
    }
  }
  for (uint32_t m = 0; m < mg->n; m++) {
    if (!mg->reach[m] || pair[m] != NONE || !need[m])
      continue;
    for (uint32_t x = 0; x < mg->n; x++)
      if (pair[x] != NONE && fe_cfg_equiv(mg, m, x)) {
        pair[m] = pair[x];
        break;
      }
  }
  free(cand);
  free(used);
  free(al);
}
