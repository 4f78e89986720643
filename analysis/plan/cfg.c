/* cfg.c: reverse postorder and dominators (Cooper, Harvey, Kennedy: "A
 * Simple, Fast Dominance Algorithm") on the compact IR. */
#include "cbana/cfg.h"

#include <stdlib.h>
#include <string.h>

void cb_loops_find(const cb_program *p, uint32_t func, cb_func_cfg *fc);

static void *xcalloc(size_t n, size_t sz) {
  void *r = calloc(n ? n : 1, sz);
  if (!r)
    abort();
  return r;
}

static void compute_rpo(const cb_program *p, const cb_function *f,
                        cb_func_cfg *fc) {
  uint32_t n = f->n_blocks;
  const cb_block *bl = &p->blocks[f->first_block];
  uint32_t *post = xcalloc(n, sizeof *post);
  uint32_t np = 0;
  uint8_t *seen = xcalloc(n, 1);
  uint32_t *stack = xcalloc(n, sizeof *stack);
  uint32_t *next = xcalloc(n, sizeof *next);
  uint32_t sp = 0;
  if (n) {
    stack[sp++] = 0;
    seen[0] = 1;
  }
  while (sp) {
    uint32_t b = stack[sp - 1];
    if (next[b] < bl[b].n_succ) {
      uint32_t s = p->succs[bl[b].first_succ + next[b]++];
      if (s < n && !seen[s]) {
        seen[s] = 1;
        stack[sp++] = s;
      }
    } else {
      post[np++] = b;
      sp--;
    }
  }
  fc->rpo = xcalloc(np, sizeof *fc->rpo);
  fc->n_rpo = np;
  fc->rpo_index = xcalloc(n, sizeof *fc->rpo_index);
  for (uint32_t i = 0; i < n; i++)
    fc->rpo_index[i] = CB_NONE;
  for (uint32_t i = 0; i < np; i++) {
    fc->rpo[i] = post[np - 1 - i];
    fc->rpo_index[fc->rpo[i]] = i;
  }
  free(post);
  free(seen);
  free(stack);
  free(next);
}

static uint32_t intersect(const cb_func_cfg *fc, uint32_t a, uint32_t b) {
  while (a != b) {
    while (fc->rpo_index[a] > fc->rpo_index[b])
      a = fc->idom[a];
    while (fc->rpo_index[b] > fc->rpo_index[a])
      b = fc->idom[b];
  }
  return a;
}

static void compute_idom(const cb_program *p, const cb_function *f,
                         cb_func_cfg *fc) {
  uint32_t n = f->n_blocks;
  const cb_block *bl = &p->blocks[f->first_block];
  fc->idom = xcalloc(n, sizeof *fc->idom);
  for (uint32_t i = 0; i < n; i++)
    fc->idom[i] = CB_NONE;
  if (!fc->n_rpo)
    return;
  fc->idom[fc->rpo[0]] = fc->rpo[0];
  bool changed = true;
  while (changed) {
    changed = false;
    for (uint32_t i = 1; i < fc->n_rpo; i++) {
      uint32_t b = fc->rpo[i];
      uint32_t nd = CB_NONE;
      for (uint32_t k = 0; k < bl[b].n_pred; k++) {
        uint32_t q = p->preds[bl[b].first_pred + k];
        if (q >= n || fc->idom[q] == CB_NONE)
          continue;
        nd = nd == CB_NONE ? q : intersect(fc, q, nd);
      }
      if (nd != CB_NONE && fc->idom[b] != nd) {
        fc->idom[b] = nd;
        changed = true;
      }
    }
  }
}

bool cb_cfg_dominates(const cb_func_cfg *fc, uint32_t a, uint32_t b) {
  if (a >= fc->n_blocks || b >= fc->n_blocks || fc->idom[a] == CB_NONE ||
      fc->idom[b] == CB_NONE)
    return false;
  for (;;) {
    if (b == a)
      return true;
    uint32_t d = fc->idom[b];
    if (d == b)
      return false;
    b = d;
  }
}

void cb_cfg_function(const cb_program *p, uint32_t func, cb_func_cfg *fc) {
  memset(fc, 0, sizeof *fc);
  const cb_function *f = &p->functions[func];
  fc->n_blocks = f->n_blocks;
  compute_rpo(p, f, fc);
  compute_idom(p, f, fc);
  cb_loops_find(p, func, fc);
}

void cb_cfg_function_free(cb_func_cfg *fc) {
  free(fc->rpo);
  free(fc->rpo_index);
  free(fc->idom);
  free(fc->loops);
  free(fc->loop_of);
  free(fc->loop_blocks);
  free(fc->latches);
  free(fc->exits);
  free(fc->ivs);
  memset(fc, 0, sizeof *fc);
}

cb_cfg_info *cb_cfg_analyze(const cb_program *p) {
  cb_cfg_info *info = xcalloc(1, sizeof *info);
  info->n_funcs = p->n_functions;
  info->funcs = xcalloc(p->n_functions, sizeof *info->funcs);
  for (uint32_t i = 0; i < p->n_functions; i++)
    cb_cfg_function(p, i, &info->funcs[i]);
  return info;
}

void cb_cfg_free(cb_cfg_info *info) {
  if (!info)
    return;
  for (uint32_t i = 0; i < info->n_funcs; i++)
    cb_cfg_function_free(&info->funcs[i]);
  free(info->funcs);
  free(info);
}
