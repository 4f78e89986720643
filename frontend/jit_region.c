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

/* The most operations (phi moves of the successor included) and accesses
 * block lb may run before its branch. */
static void block_cost(const cb_program *p, const cb_function *fn,
                       const uint32_t *nphis, uint32_t lb, uint64_t *ops,
                       uint64_t *acc) {
  uint32_t gb = fn->first_block + lb;
  const cb_block *b = &p->blocks[gb];
  uint64_t most_phis = 0, n_acc = 0;
  for (uint32_t i = b->first_op + nphis[gb]; i < b->first_op + b->n_ops; i++)
    n_acc += p->ops[i].code == CB_OP_LOAD || p->ops[i].code == CB_OP_STORE;
  for (uint32_t k = 0; k < b->n_succ; k++) {
    uint32_t s = fn->first_block + p->succs[b->first_succ + k];
    if (nphis[s] > most_phis)
      most_phis = nphis[s];
  }
  *ops = b->n_ops - nphis[gb] + most_phis;
  *acc = n_acc;
}

void jit_check_points(const cb_program *p, const cb_function *fn,
                      const uint32_t *nphis, const bool *body, bool *head,
                      uint64_t *need_ops, uint64_t *need_acc) {
  uint32_t n = fn->n_blocks;
  uint8_t *state = calloc(n + 1, 1); /* 0 new, 1 on the stack, 2 done */
  uint32_t *stack = calloc(n + 1, sizeof *stack);
  uint32_t *next = calloc(n + 1, sizeof *next); /* successor to visit */
  uint32_t *post = calloc(n + 1, sizeof *post), n_post = 0;
  bool whole = state && stack && next && post;
  /* depth first over the blocks with code: an edge to a block on the
   * stack closes a cycle, and its target checks */
  for (uint32_t root = 0; whole && root < n; root++) {
    if (!body[root] || state[root])
      continue;
    uint32_t sp = 0;
    stack[sp++] = root;
    state[root] = 1;
    while (sp) {
      uint32_t lb = stack[sp - 1];
      const cb_block *b = &p->blocks[fn->first_block + lb];
      if (next[lb] < b->n_succ) {
        uint32_t s = p->succs[b->first_succ + next[lb]++];
        if (s < n && body[s] && state[s] == 1)
          head[s] = true;
        else if (s < n && body[s] && state[s] == 0) {
          state[s] = 1;
          stack[sp++] = s;
        }
        continue;
      }
      state[lb] = 2;
      post[n_post++] = lb;
      sp--;
    }
  }
  /* in postorder every successor but a check point comes first; without
   * the memory for it, every block checks for itself */
  for (uint32_t k = 0; k < (whole ? n_post : n); k++) {
    uint32_t lb = whole ? post[k] : k;
    uint64_t ops, acc, more_ops = 0, more_acc = 0;
    block_cost(p, fn, nphis, lb, &ops, &acc);
    const cb_block *b = &p->blocks[fn->first_block + lb];
    for (uint32_t j = 0; whole && j < b->n_succ; j++) {
      uint32_t s = p->succs[b->first_succ + j];
      if (s >= n || !body[s] || head[s])
        continue;
      if (need_ops[s] > more_ops)
        more_ops = need_ops[s];
      if (need_acc[s] > more_acc)
        more_acc = need_acc[s];
    }
    need_ops[lb] = ops + more_ops;
    need_acc[lb] = acc + more_acc;
    /* a long way ahead checks here again, so that a nearly full batch
     * or budget still lets the kernel run up to it */
    if (!whole || need_acc[lb] > JIT_CHECK_MAX_ACCESSES ||
        need_ops[lb] > JIT_CHECK_MAX_OPS)
      head[lb] = true;
  }
  free(state);
  free(stack);
  free(next);
  free(post);
}
