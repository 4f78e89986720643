/* jit_region.c: which blocks of a function get native code (jit_gen.h).
 *
 * A kernel pays off where the interpreter would run op by op: in loops
 * whose addresses no loop template covers (analysis/template.h handles
 * addresses affine in the induction variables, over bases fixed for the
 * loop). So the region is every cycle of the function's control-flow
 * graph (a strongly connected component of its blocks) in which some
 * load or store takes its address from a value the cycle itself loads
 * (a gather: contrib[col[k]]; a pointer chase) or scrambles (a remainder
 * or quotient by a variable, a product or an exclusive or of two
 * variables: load_loop's `lcg() % n`, a hash). Values from outside the
 * cycle are invariant in it, as a base pointer loaded once before a loop
 * is, and PolyBench's kernels, whose templates run them, get no code. */
#include "jit_gen.h"

#include <stdlib.h>
#include <string.h>

static bool scrambles(const cb_op *op) {
  bool a_var = !(op->a & CB_OPND_CONST), b_var = !(op->b & CB_OPND_CONST);
  switch ((cb_opcode)op->code) {
  case CB_OP_UDIV:
  case CB_OP_SDIV:
  case CB_OP_UREM:
  case CB_OP_SREM:
    return b_var;
  case CB_OP_MUL:
  case CB_OP_XOR:
    return a_var && b_var;
  default:
    return false;
  }
}

/* Breadth-first over successors (dir 0) or predecessors (dir 1) from lb,
 * marking `seen`; queue has room for every block. */
static void reach(const cb_program *p, const cb_function *fn, uint32_t lb,
                  int dir, bool *seen, uint32_t *queue) {
  uint32_t head = 0, tail = 0;
  queue[tail++] = lb;
  seen[lb] = true;
  while (head < tail) {
    const cb_block *b = &p->blocks[fn->first_block + queue[head++]];
    uint32_t n = dir ? b->n_pred : b->n_succ;
    const uint32_t *next =
        dir ? &p->preds[b->first_pred] : &p->succs[b->first_succ];
    for (uint32_t k = 0; k < n; k++)
      if (next[k] < fn->n_blocks && !seen[next[k]]) {
        seen[next[k]] = true;
        queue[tail++] = next[k];
      }
  }
}

/* Whether some access in the blocks of `in` takes its address from a
 * value loaded or scrambled there. varies: per slot, reset here. */
static bool has_irregular_access(const cb_program *p, const cb_function *fn,
                                 const bool *in, bool *varies) {
  memset(varies, 0, fn->n_slots * sizeof *varies);
#define VARIES(o) ((o) < fn->n_slots && varies[o])
  for (bool changed = true; changed;) {
    changed = false;
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
      if (!in[lb])
        continue;
      const cb_block *b = &p->blocks[fn->first_block + lb];
      for (uint32_t i = b->first_op; i < b->first_op + b->n_ops; i++) {
        const cb_op *op = &p->ops[i];
        if ((op->code == CB_OP_LOAD && VARIES(op->a)) ||
            (op->code == CB_OP_STORE && VARIES(op->b)))
          return true;
        if (op->dst >= fn->n_slots || varies[op->dst])
          continue;
        bool v = op->code == CB_OP_LOAD || scrambles(op) || VARIES(op->a) ||
                 VARIES(op->b) || VARIES(op->c);
        const int64_t *x = &p->extra[op->aux];
        if (!v && op->code == CB_OP_GEP)
          for (int64_t k = 0; k < x[1] && !v; k++)
            v = VARIES((uint32_t)((uint64_t)x[2 + 2 * k] & 0xffffffffu));
        if (!v && op->code == CB_OP_PHI)
          for (int64_t k = 0; k < x[0] && !v; k++)
            v = VARIES((uint32_t)x[2 + 2 * k]);
        if (v) {
          unsigned lanes = op->lanes ? op->lanes : 1;
          for (unsigned l = 0; l < lanes && op->dst + l < fn->n_slots; l++)
            varies[op->dst + l] = true;
          changed = true;
        }
      }
    }
  }
#undef VARIES
  return false;
}

bool *jit_region(const cb_program *p, const cb_function *fn) {
  uint32_t n = fn->n_blocks;
  bool *region = calloc(n + 1, sizeof *region);
  bool *done = calloc(n + 1, sizeof *done);
  bool *fwd = calloc(n + 1, sizeof *fwd);
  bool *back = calloc(n + 1, sizeof *back);
  bool *scc = calloc(n + 1, sizeof *scc);
  bool *varies = calloc(fn->n_slots + 1, sizeof *varies);
  uint32_t *queue = calloc(n + 1, sizeof *queue);
  bool any = false;
  for (uint32_t lb = 0;
       region && done && fwd && back && scc && varies && queue && lb < n;
       lb++) {
    if (done[lb])
      continue;
    memset(fwd, 0, n * sizeof *fwd);
    memset(back, 0, n * sizeof *back);
    reach(p, fn, lb, 0, fwd, queue);
    reach(p, fn, lb, 1, back, queue);
    /* lb's component; a cycle if it has another block or lb loops */
    uint32_t size = 0;
    bool self = false;
    const cb_block *b = &p->blocks[fn->first_block + lb];
    for (uint32_t k = 0; k < b->n_succ; k++)
      self |= p->succs[b->first_succ + k] == lb;
    for (uint32_t x = 0; x < n; x++) {
      scc[x] = fwd[x] && back[x];
      if (scc[x]) {
        done[x] = true;
        size++;
      }
    }
    if ((size > 1 || self) && has_irregular_access(p, fn, scc, varies)) {
      for (uint32_t x = 0; x < n; x++)
        region[x] |= scc[x];
      any = true;
    }
  }
  free(done);
  free(fwd);
  free(back);
  free(scc);
  free(varies);
  free(queue);
  if (any)
    return region;
  free(region);
  return NULL;
}
