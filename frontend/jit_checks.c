/* jit_checks.c: where a kernel checks that the budget and the batch
 * have room for the way ahead (jit_gen.h, jit_check_points), so that the
 * code between two checks runs without looking. */
#include "jit_gen.h"

#include <stdlib.h>

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
  /* the machine code's own, in the block and on entry to a successor
   * (made on the edge, before the successor's check) */
  n_acc += b->n_mach;
  uint64_t most_mach = 0;
  for (uint32_t k = 0; k < b->n_succ; k++) {
    uint32_t s = fn->first_block + p->succs[b->first_succ + k];
    if (nphis[s] > most_phis)
      most_phis = nphis[s];
    if (p->blocks[s].n_mach > most_mach)
      most_mach = p->blocks[s].n_mach;
  }
  n_acc += most_mach;
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

void jit_need_from(const jit_gen *g, uint32_t lb, uint32_t ip, uint64_t *ops,
                   uint64_t *acc) {
  const cb_program *p = g->p;
  const cb_function *fn = g->fn;
  uint32_t gb = fn->first_block + lb;
  const cb_block *b = &p->blocks[gb];
  uint64_t o = b->first_op + b->n_ops - ip, a = b->n_mach, more_o = 0,
           more_a = 0;
  for (uint32_t i = ip; i < b->first_op + b->n_ops; i++)
    a += p->ops[i].code == CB_OP_LOAD || p->ops[i].code == CB_OP_STORE;
  for (uint32_t k = 0; k < b->n_succ; k++) {
    uint32_t s = p->succs[b->first_succ + k];
    const cb_block *sb = &p->blocks[fn->first_block + s];
    uint64_t so = g->nphis[fn->first_block + s], sa = sb->n_mach;
    if (g->body[s] && !g->head[s]) {
      so += g->need_ops[s];
      sa += g->need_acc[s];
    }
    more_o = so > more_o ? so : more_o;
    more_a = sa > more_a ? sa : more_a;
  }
  *ops = o + more_o;
  *acc = a + more_a;
}
