/* libc_qsort.c: qsort as glibc 2.36 runs it (stdlib/msort.c): qsort_r's
 * merge sort, msort_with_tmp, calling the program's comparator, with its
 * own traffic: qsort_r's frame and its `struct msort_param` (the element
 * size, the work area, the variant, the comparator and its argument), the
 * work area on qsort_r's stack below 1024 bytes (alloca) or from malloc,
 * each msort_with_tmp level's frame (six pushes, its locals, 0x70 bytes a
 * level), the parameter block's reads, the merge loop's word copies for
 * 4- and 8-byte elements (p->var 0 and 1) and memcpy (libc's PLT slot,
 * memmove's loads and stores, section 4) for the rest and the copy back.
 * Rows measured with lackey (docs/process-model.md section 9.13). Not
 * modelled: qsort_r's __sysconf of the physical pages on its first heap
 * work area, the indirect sort of elements over 32 bytes (p->var 3; its
 * copies are __mempcpy's here), p->var 2's word loop (elements of 16 or
 * 24 bytes move by __mempcpy's rows here). */
#include "libc_internal.h"
#include "libc_traffic.h"

#define L_MEMCPY_GOT 0x1d3140ull  /* libc's PLT slot of memcpy */
#define L_MEMPCPY_GOT 0x1d3028ull /* and of __mempcpy */

typedef struct msort_ctx {
  cb_proc *pr;
  cb_lt m;
  bool traffic;
  uint32_t cmp;
  uint64_t size, tmp, C;
  int var; /* msort.c's p->var: 0 uint32_t, 1 uint64_t, else copies */
  cb_stop st;
} msort_ctx;

#define RD(a, n) (c->traffic ? cb_lt_acc(&c->m, a, n, false) : (void)0)
#define WR(a, n) (c->traffic ? cb_lt_acc(&c->m, a, n, true) : (void)0)
/* struct msort_param on qsort_r's stack */
#define P_T (c->C - 0x70)
#define P_ARG (c->C - 0x68)
#define P_CMP (c->C - 0x60)
#define P_VAR (c->C - 0x58)
#define P_S (c->C - 0x50)

/* the comparator, its frame where msort_with_tmp's call puts it (CFA B -
 * 0x70; without the traffic model, below the caller's frame) */
static int ms_cmp(msort_ctx *c, uint64_t B, uint64_t a, uint64_t b) {
  cb_value args[2], r[4] = {{0}};
  args[0].u = a;
  args[1].u = b;
  uint32_t keep = c->pr->cur_site;
  cb_stop st = c->traffic
                   ? cb_host_call_at(c->pr, c->cmp, B - 0x70, keep, args, 2, r)
                   : cb_host_call(c->pr, c->cmp, args, 2, r);
  c->pr->cur_site = keep;
  if (st != CB_GO)
    c->st = st;
  return (int32_t)(uint32_t)r[0].u;
}

static void ms_copy(msort_ctx *c, uint64_t dst, uint64_t src, uint64_t n) {
  if (c->st == CB_GO && cb_libc_memmove(c->pr, dst, src, n) != CB_GO)
    c->st = CB_FAIL;
}

/* memcpy called from msort_with_tmp: its PLT slot, the copy, its `ret`
 * (a call: push at B - 0x78; the last one is a tail jump to B - 8) */
static void ms_memcpy(msort_ctx *c, uint64_t ret_at, uint64_t dst, uint64_t src,
                      uint64_t n) {
  RD(c->m.libc + L_MEMCPY_GOT, 8);
  ms_copy(c, dst, src, n);
  RD(ret_at, 8);
}

/* one element moved by the merge loop: a word for p->var 0 and 1,
 * __mempcpy (tmp, b, s) for the others (its call from B - 0x78) */
static void ms_elem(msort_ctx *c, uint64_t B, uint64_t dst, uint64_t src) {
  if (c->var > 1 || !c->traffic) {
    WR(B - 0x78, 8);
    RD(c->m.libc + L_MEMPCPY_GOT, 8);
    ms_copy(c, dst, src, c->size);
    RD(B - 0x78, 8);
    return;
  }
  uint64_t v = 0;
  if (!cb_proc_read(c->pr, src, &v, (size_t)c->size) ||
      !cb_proc_write(c->pr, dst, &v, (size_t)c->size)) {
    c->st = CB_FAIL;
    return;
  }
  RD(src, (unsigned)c->size);
  WR(dst, (unsigned)c->size);
}

/* msort_with_tmp (p, b, n) for n > 1, its frame base at B */
static void msort(msort_ctx *c, uint64_t B, uint64_t b, uint64_t n) {
  if (c->st != CB_GO)
    return;
  uint64_t n1 = n / 2, n2 = n - n1, s = c->size;
  uint64_t b1 = b, b2 = b + n1 * s;
  for (unsigned k = 0; k < 6; k++)
    WR(B - 0x10 - 8 * k, 8);
  RD(P_T, 8), WR(B - 0x58, 8), WR(B - 0x50, 8), WR(B - 0x48, 8);
  if (n1 > 1) {
    WR(B - 0x78, 8);
    msort(c, B - 0x70, b1, n1);
    RD(B - 0x58, 8);
  }
  if (n2 > 1) {
    WR(B - 0x78, 8);
    msort(c, B - 0x70, b2, n2);
  }
  /* the merge: tmp, the comparator, its argument, the variant */
  RD(B - 0x58, 8), RD(P_CMP, 8), RD(P_S, 8), RD(P_T, 8), WR(B - 0x68, 8);
  RD(P_VAR, 8), RD(P_ARG, 8), WR(B - 0x70, 8);
  RD(B - 0x50, 8), RD(B - 0x70, 8), RD(B - 0x68, 8);
  uint64_t t = c->tmp;
  while (n1 > 0 && n2 > 0 && c->st == CB_GO) {
    /* the call's return address at B - 0x78: cb_eng_call_at's push */
    if (ms_cmp(c, B, b1, b2) <= 0) {
      ms_elem(c, B, t, b1);
      b1 += s;
      n1--;
    } else {
      ms_elem(c, B, t, b2);
      b2 += s;
      n2--;
    }
    t += s;
    if (n1 > 0 && n2 > 0)
      RD(B - 0x70, 8), RD(B - 0x68, 8);
  }
  RD(B - 0x48, 8);
  if (n1 > 0) {
    WR(B - 0x78, 8);
    ms_memcpy(c, B - 0x78, t, b1, n1 * s);
  }
  RD(B - 0x48, 8), RD(B - 0x58, 8), RD(B - 0x50, 8), RD(P_S, 8);
  for (unsigned k = 6; k-- > 0;)
    RD(B - 0x10 - 8 * k, 8);
  ms_memcpy(c, B - 8, b, c->tmp, (n - n2) * s);
}

cb_stop cb_libc_qsort(cb_proc *pr, uint64_t base, uint64_t n, uint64_t size,
                      uint64_t fnaddr) {
  uint32_t f = cb_host_function_at(pr, fnaddr);
  if (f == CB_NONE)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "qsort with a comparator (0x%llx) that is no "
                        "function of the program",
                        (unsigned long long)fnaddr);
  if (n <= 1)
    return CB_GO;
  msort_ctx c = {pr, {0}, false, f, size, 0, 0, 4, CB_GO};
  uint64_t total = n * size;
  bool heap = total >= 1024;
  cb_frame *F = cb_proc_top(pr);
  uint64_t keep_sp = F->sp, C = keep_sp;
  c.C = C;
  c.traffic = C && cb_lt_init(&c.m, pr);
  /* msort.c's variants: aligned 4- and 8-byte elements move as words */
  if (size == 4 && !(base & 3))
    c.var = 0;
  else if (size == 8 && !(base & 7))
    c.var = 1;
  else if (!(size & 7) && !(base & 7))
    c.var = 2;
  /* qsort_r: its pushes, locals, canary and the msort_param block */
  if (c.traffic) {
    cb_lt *m = &c.m;
    for (unsigned k = 0; k < 6; k++)
      cb_lt_acc(m, C - 0x10 - 8 * k, 8, true);
    cb_lt_acc(m, C - 0x80, 8, true), cb_lt_acc(m, C - 0x88, 8, true);
    cb_lt_acc(m, m->tcb + 0x768, 8, false);
    cb_lt_acc(m, C - 0x48, 8, true), cb_lt_acc(m, C - 0x98, 8, true);
    cb_lt_acc(m, C - 0x50, 8, true);
  }
  uint64_t B1;
  if (heap) {
    c.tmp = cb_heap_malloc(pr->heap, total);
    /* qsort_r's malloc, called with its frame 0xa0 deep (lackey) */
    cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, keep_sp - 0xa0, 0, c.tmp, false);
    if (!c.tmp)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "qsort: no memory for %llu bytes",
                          (unsigned long long)total);
    B1 = C - 0xb0;
  } else {
    /* __alloca (total_size) below qsort_r's frame: gcc's rounding,
     * (total + 23) & -16 (lackey: 16 bytes at C - 0xc0, 32 at C - 0xd0,
     * 360 at C - 0x210) */
    F->sp = C - 0xa0 - ((total + 23) & ~15ull);
    c.tmp = F->sp;
    B1 = c.tmp;
  }
  if (c.traffic) {
    cb_lt *m = &c.m;
    cb_lt_acc(m, C - 0x70, 8, true), cb_lt_acc(m, C - 0x68, 8, true);
    cb_lt_acc(m, C - 0x60, 8, true), cb_lt_acc(m, C - 0x58, 8, true);
    cb_lt_acc(m, C - 0x80, 8, false), cb_lt_acc(m, C - 0x68, 8, true);
    cb_lt_acc(m, C - 0x88, 8, false), cb_lt_acc(m, C - 0x80, 8, false);
    cb_lt_acc(m, B1 - 8, 8, true); /* the call of msort_with_tmp */
  }
  msort(&c, B1, base, n);
  if (c.traffic) {
    cb_lt *m = &c.m;
    cb_lt_acc(m, B1 - 8, 8, false);
    cb_lt_acc(m, C - 0x98, 8, false);
    if (!heap) { /* free (NULL): its PLT slot in libc, its `ret` */
      cb_lt_acc(m, B1 - 8, 8, true);
      cb_lt_acc(m, m->libc + 0x1d2df0, 8, false);
      cb_lt_acc(m, B1 - 8, 8, false);
    }
    cb_lt_acc(m, C - 0x48, 8, false), cb_lt_acc(m, m->tcb + 0x768, 8, false);
    for (unsigned k = 6; k-- > 0;)
      cb_lt_acc(m, C - 0x10 - 8 * k, 8, false);
  }
  if (heap) {
    cb_heap_free(pr->heap, c.tmp);
    cb_libc_heap_traffic(pr, CB_LIBC_FREE, keep_sp - 0xa0, c.tmp, 0, false);
  }
  cb_proc_top(pr)->sp = keep_sp;
  return c.st;
}
