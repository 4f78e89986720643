/* libc_rows.c: the emitter of libc_rows.h's tables. */
#include "libc_rows.h"

void cb_rows_init(cb_rows *r, cb_proc *pr, uint64_t a0, uint64_t a1) {
  *r = (cb_rows){.pr = pr, .C = cb_libc_caller_sp(pr)};
  r->trace = r->C && cb_lt_init(&r->m, pr);
  r->arg[0] = a0;
  r->arg[1] = a1;
}

void cb_rows_run(cb_rows *r, const cb_row *t, size_t n) {
  cb_proc *pr = r->pr;
  for (size_t i = 0; i < n; i++) {
    uint64_t a;
    switch (t[i].base) {
    case ROW_OP:
      if (r->op)
        r->op(r, &t[i]);
      continue;
    case ROW_S:
      a = r->C - (uint64_t)(int64_t)t[i].off;
      break;
    case ROW_L:
      a = r->m.libc + (uint64_t)t[i].off;
      break;
    case ROW_T:
      a = r->m.tcb + (uint64_t)t[i].off;
      break;
    case ROW_D:
      a = r->m.ldso + (uint64_t)t[i].off;
      break;
    case ROW_A0:
    case ROW_A1:
      a = r->arg[t[i].base - ROW_A0] + (uint64_t)(int64_t)t[i].off;
      break;
    case ROW_E:
      a = pr->envp_at + 8 * (uint64_t)t[i].off;
      break;
    case ROW_ES: {
      uint64_t s = 0;
      cb_proc_read(pr, pr->envp_at + 8 * (uint64_t)(t[i].off >> 16), &s, 8);
      a = s + (uint64_t)(t[i].off & 0xffff);
      break;
    }
    default:
      if (!r->blk)
        continue;
      a = r->blk[t[i].base - ROW_B0] + (uint64_t)(int64_t)t[i].off;
      break;
    }
    if (r->trace)
      cb_lt_acc(&r->m, a, t[i].len, t[i].w);
  }
}
