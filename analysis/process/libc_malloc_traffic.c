/* libc_malloc_traffic.c: what glibc 2.36's malloc, calloc, realloc, free
 * and posix_memalign read and write outside the heap: main_arena and mp_
 * in libc's data, the TLS words (tcache, thread_arena, errno, the stack
 * guard), the functions' frames below the caller's rsp, and the first
 * call's set-up (ptmalloc_init: main_arena's bins and the tunables read
 * through ld.so; tcache_init). The heap words themselves (chunk headers,
 * tcache entries, bin links) are heap.c's, which also says which path
 * each call took (cb_heap_path): the rules below follow glibc's code
 * (malloc/malloc.c, __libc_malloc, _int_malloc, sysmalloc, _int_free,
 * munmap_chunk, _int_realloc, _mid_memalign, _int_memalign) with the
 * offsets of Debian 12's libc.so.6 as lackey traced them
 * (tools/probe/libtrace.py; docs/process-model.md section 9). Each
 * function's frame is given by its base B, the rsp before its `call`
 * (the return address at B - 8, the pushes from B - 0x10). */
#include "heap.h"
#include "libc_internal.h"
#include "libc_traffic.h"

/* libc.so.6 (Debian 12, glibc 2.36): offsets from its load address */
#define L_ARENA 0x1d3c60ull   /* main_arena */
#define L_MP 0x1d3340ull      /* mp_ */
#define L_GMF 0x1da4a0ull     /* global_max_fast */
#define L_INITED 0x1da488ull  /* __malloc_initialized */
#define L_SINGLE 0x1db5d8ull  /* __libc_single_threaded */
#define L_PERTURB 0x1da49cull /* perturb_byte */
#define L_TCACHE_KEY 0x1da478ull
#define L_GOT 0x1d2d60ull    /* .got: TLS offsets, _rtld_global_ro */
#define L_GOTPLT 0x1d2fe8ull /* .got.plt: libc's own PLT (memset) */
/* the TLS page (cb_eng_dl_layout's tcb): tcache, tcache_shutting_down,
 * thread_arena, errno and the stack guard (tcbhead_t's) */
#define T_TCACHE 0x6f8u
#define T_SHUTDOWN 0x700u
#define T_ARENA 0x708u
#define T_ERRNO 0x6c0u
#define T_CANARY 0x768u
/* ld.so: GLRO(dl_pagesize) */
#define D_PAGESIZE 0x32ad8ull

/* main_arena's fields (struct malloc_state) */
#define A_MUTEX 0x0u
#define A_FLAGS 0x4u
#define A_HAVE_FAST 0x8u
#define A_FASTBINS 0x10u
#define A_TOP 0x60u
#define A_BINS 0x70u /* bin i's fd at A_BINS + 16 (i - 1), bk 8 further */
#define A_BINMAP 0x860u
#define A_SYSTEM_MEM 0x888u
#define A_MAX_SYSTEM_MEM 0x890u
/* mp_'s */
#define MP_TRIM 0x0u
#define MP_MMAP_THRESHOLD 0x10u
#define MP_NO_DYN 0x48u
#define MP_N_MMAPS 0x3cu
#define MP_MMAPPED_MEM 0x50u
#define MP_TCACHE_BINS 0x68u
#define MP_TCACHE_COUNT 0x78u

#include "libc_malloc_tables.h"

#define RD(a, n) cb_lt_acc(m, a, n, false)
#define WR(a, n) cb_lt_acc(m, a, n, true)
#define LIBC(o) (m->libc + (o))
#define ARENA(o) (m->libc + L_ARENA + (o))
#define MP(o) (m->libc + L_MP + (o))
#define TLS(o) (m->tcb + (o))
#define pushes cb_lt_pushes
#define pops cb_lt_pops

/* the tables' V and P bases; P 0: the initial top, main_arena's bin 1 */
static void table(cb_lt *m, const lt_acc *t, size_t n, uint64_t B, uint64_t V,
                  uint64_t P) {
  uint64_t base[LT_NBASES] = {0};
  base[LT_S] = B;
  base[LT_V] = V;
  base[LT_P] = P ? P : ARENA(A_TOP);
  cb_lt_table(m, t, n, base);
}

#define TABLE(m, t, B, V, P) table(m, t, sizeof t / sizeof t[0], B, V, P)

/* glibc's bin index of a chunk size (malloc.c, bin_index) */
static unsigned bin_index(uint64_t sz) {
  if (sz < 0x400)
    return (unsigned)(sz >> 4);
  if ((sz >> 6) <= 48)
    return 48 + (unsigned)(sz >> 6);
  if ((sz >> 9) <= 20)
    return 91 + (unsigned)(sz >> 9);
  if ((sz >> 12) <= 10)
    return 110 + (unsigned)(sz >> 12);
  if ((sz >> 15) <= 4)
    return 119 + (unsigned)(sz >> 15);
  if ((sz >> 18) <= 2)
    return 124 + (unsigned)(sz >> 18);
  return 126;
}

static uint64_t bin_fd(cb_lt *m, unsigned i) {
  return ARENA(A_BINS + 16 * (uint64_t)(i - 1));
}

/* sysmalloc(nb, av), its frame at B (the top grown with brk, the first
 * time with brk(0) and the alignment's second sbrk; or an mmapped chunk) */
static void sysmalloc(cb_lt *m, uint64_t B, const cb_heap_mstep *s) {
  if (s->mmapped)
    TABLE(m, t_sysmalloc_mmap, B, s->victim, s->top);
  else if (s->first_brk)
    TABLE(m, t_sysmalloc_first, B, s->victim, s->top);
  else
    TABLE(m, t_sysmalloc_brk, B, s->victim, s->top);
}

/* _int_malloc(av, bytes), its frame at B; tcache: the tcache exists */
static void int_malloc(cb_lt *m, uint64_t B, const cb_heap_mstep *s,
                       bool tcache) {
  uint64_t nb = s->nb;
  unsigned idx = bin_index(nb);
  pushes(m, B, 6);
  RD(LIBC(L_GMF), 8);
  if (nb <= 0x80) {
    uint64_t slot = ARENA(A_FASTBINS + 8 * ((nb >> 4) - 2));
    RD(slot, 8);
    if (s->route == CB_HEAP_M_FAST) {
      WR(slot, 8); /* REMOVE_FB */
      goto out;
    }
  }
  if (nb < 0x400) {
    RD(bin_fd(m, idx) + 8, 8); /* last (bin) */
    if (s->route == CB_HEAP_M_SMALL) {
      WR(bin_fd(m, idx) + 8, 8); /* bin->bk = bck */
      goto out;
    }
  } else {
    RD(ARENA(A_HAVE_FAST), 4);
  }
  RD(LIBC(L_GOT + 0x18), 8);
  WR(B - 0x50, 8);
  RD(TLS(T_TCACHE), 8);
  if (tcache)
    RD(LIBC(L_MP + MP_TCACHE_BINS), 8);
  WR(B - 0x58, 8);
  RD(ARENA(A_BINS + 8), 8); /* unsorted_chunks (av)->bk */
  for (uint32_t i = 0; i < s->unsorted; i++) {
    /* each chunk taken off: its size checked against system_mem, the
     * list's head relinked */
    RD(ARENA(A_SYSTEM_MEM), 8);
    WR(ARENA(A_BINS + 8), 8);
    RD(ARENA(A_BINS + 8), 8);
  }
  if (s->route == CB_HEAP_M_UNSORTED || s->route == CB_HEAP_M_CACHED)
    goto out;
  if (nb >= 0x400)
    RD(bin_fd(m, idx), 8); /* first (bin) */
  if (s->route == CB_HEAP_M_LARGE)
    goto out;
  /* the binmap, from the next bin's block on */
  for (unsigned blk = (idx + 1) >> 5; blk < 4; blk++) {
    RD(ARENA(A_BINMAP + 4 * blk), 4);
    if (s->route == CB_HEAP_M_BINMAP && s->victim)
      break;
  }
  if (s->route == CB_HEAP_M_BINMAP) {
    RD(bin_fd(m, idx) + 8, 8);
    goto out;
  }
  /* use_top */
  RD(ARENA(A_TOP), 8);
  RD((s->top ? s->top : ARENA(A_TOP)) + 8, 8);
  RD(ARENA(A_SYSTEM_MEM), 8);
  if (s->route == CB_HEAP_M_TOP) {
    WR(ARENA(A_TOP), 8);
  } else {
    WR(B - 0x48, 8);
    RD(ARENA(A_HAVE_FAST), 4);
    WR(B - 0x68, 8);
    sysmalloc(m, B - 0x60, s);
  }
out:
  /* alloc_perturb, the epilogue */
  WR(B - 0x58, 8);
  WR(B - 0x68, 8);
  RD(LIBC(L_PERTURB), 4);
  RD(B - 0x68, 8);
  RD(B - 0x58, 8);
  pops(m, B, 6, true);
}

/* _int_free(av, p, have_lock), its frame at B */
static void int_free(cb_lt *m, uint64_t B, const cb_heap_fstep *f,
                     bool tcache) {
  pushes(m, B, 6);
  RD(f->chunk + 8, 8);
  RD(TLS(T_CANARY), 8);
  WR(B - 0x48, 8);
  RD(LIBC(L_GOT + 0x18), 8);
  RD(TLS(T_TCACHE), 8);
  if (tcache) {
    RD(LIBC(L_MP + MP_TCACHE_BINS), 8);
    if (((f->size - 0x20 + 15) >> 4) < 64) {
      RD(LIBC(L_TCACHE_KEY), 8);
      RD(LIBC(L_MP + MP_TCACHE_COUNT), 8);
    }
  }
  if (f->route == CB_HEAP_F_FAST) {
    /* _int_free's fastbin path: the next chunk's size against
     * CHUNK_HDR_SZ and av->system_mem ("invalid next size (fast)"),
     * free_perturb, have_fastchunks, SINGLE_THREAD_P, the bin's head */
    uint64_t slot = ARENA(A_FASTBINS + 8 * ((f->size >> 4) - 2));
    RD(LIBC(L_GMF), 8);
    RD(f->chunk + f->size + 8, 8);
    RD(ARENA(A_SYSTEM_MEM), 8);
    RD(LIBC(L_PERTURB), 4);
    WR(ARENA(A_HAVE_FAST), 4);
    RD(LIBC(L_SINGLE), 1);
    RD(slot, 8);
    WR(slot, 8);
  } else if (f->route != CB_HEAP_F_TCACHE) {
    RD(LIBC(L_GMF), 8);
    RD(LIBC(L_SINGLE), 1);
    WR(B - 0x5c, 4);
    RD(ARENA(A_TOP), 8);
    RD(ARENA(A_FLAGS), 1);
    RD(f->chunk + f->size + 8, 8); /* nextchunk's size */
    RD(ARENA(A_SYSTEM_MEM), 8);
    RD(LIBC(L_PERTURB), 4);
    RD(f->chunk + 8, 1);
    RD(ARENA(A_TOP), 8);
    if (f->route == CB_HEAP_F_BIN) {
      RD(ARENA(A_BINS), 8);
      RD(ARENA(A_BINS + 8), 8);
      WR(ARENA(A_BINS), 8);
      WR(ARENA(A_BINS + 8), 8);
    } else {
      WR(ARENA(A_TOP), 8);
    }
    if (f->consolidated || f->trimmed || f->route == CB_HEAP_F_TOP) {
      /* FASTBIN_CONSOLIDATION_THRESHOLD: have_fastchunks, the top
       * against mp_.trim_threshold */
      RD(ARENA(A_HAVE_FAST), 4);
      RD(ARENA(A_TOP), 8);
      RD(MP(MP_TRIM), 8);
    }
    RD(B - 0x5c, 4);
  }
  RD(B - 0x48, 8);
  RD(TLS(T_CANARY), 8);
  pops(m, B, 6, true);
}

/* munmap_chunk(p), tail-called from free with the frame at B */
static void munmap_chunk(cb_lt *m, uint64_t B, const cb_heap_fstep *f) {
  RD(f->chunk + 8, 8);
  RD(LIBC(L_GOT + 0x138), 8);
  RD(m->ldso + D_PAGESIZE, 8);
  RD(f->chunk, 8);
  RD(MP(MP_N_MMAPS), 4);
  RD(MP(MP_N_MMAPS), 4); /* atomic decrement: a modify */
  RD(MP(MP_MMAPPED_MEM), 8);
  RD(MP(MP_MMAPPED_MEM), 8);
  RD(B - 8, 8);
}

/* ptmalloc_init with its frame at B; tcache_init at B, its _int_malloc
 * and the set-up around it (the tcache's zeroing is heap.c's) */
static void tcache_init(cb_lt *m, uint64_t B, const cb_heap_path *p) {
  pushes(m, B, 2);
  RD(LIBC(L_GOT + 0x10), 8);
  RD(TLS(T_ARENA), 8);
  RD(ARENA(A_MUTEX), 4); /* arena_get's lock: a modify */
  WR(B - 0x28, 8);
  if (p->n_malloc)
    int_malloc(m, B - 0x20, &p->m[0], false);
  RD(ARENA(A_MUTEX), 4);
  RD(ARENA(A_MUTEX), 4);
  RD(LIBC(L_GOT + 0x18), 8);
  WR(TLS(T_TCACHE), 8);
  pops(m, B, 2, true);
}

/* the start of __libc_malloc and __libc_calloc: ptmalloc_init on the
 * first call, the tcache pointer, tcache_init on the first allocation
 * (its steps: the path's first _int_malloc); k: the first step left */
static unsigned alloc_entry(cb_lt *m, uint64_t call_at, const cb_heap_path *p) {
  RD(LIBC(L_INITED), 1);
  if (p->init) {
    WR(call_at, 8);
    TABLE(m, t_ptmalloc_init, call_at + 8, 0, 0);
  }
  RD(LIBC(L_GOT + 0x18), 8);
  RD(TLS(T_TCACHE), 8);
  if (p->tcache_made) {
    RD(LIBC(L_GOT + 0x20), 8);
    RD(TLS(T_SHUTDOWN), 1);
    WR(call_at, 8);
    tcache_init(m, call_at + 8, p);
    return 1;
  }
  return 0;
}

static void do_malloc(cb_lt *m, uint64_t C, const cb_heap_path *p,
                      uint64_t mem) {
  pushes(m, C, 3);
  unsigned k = alloc_entry(m, C - 0x38, p);
  if (p->tcache_made)
    RD(TLS(T_TCACHE), 8);
  RD(MP(MP_TCACHE_BINS), 8);
  if (!p->tc_hit) {
    RD(LIBC(L_SINGLE), 1);
    for (; k < p->n_malloc; k++) {
      WR(C - 0x38, 8);
      int_malloc(m, C - 0x30, &p->m[k], true);
    }
    if (mem)
      RD(mem - 8, 8); /* the chunk's size: mmapped or of the arena */
  }
  pops(m, C, 3, false);
}

static void do_calloc(cb_lt *m, uint64_t C, const cb_heap_path *p,
                      uint64_t mem) {
  pushes(m, C, 4);
  unsigned k = alloc_entry(m, C - 0x48, p);
  RD(LIBC(L_SINGLE), 1);
  RD(ARENA(A_TOP), 8);
  for (; k < p->n_malloc; k++) {
    RD((p->m[k].top ? p->m[k].top : ARENA(A_TOP)) + 8, 8);
    WR(C - 0x48, 8);
    int_malloc(m, C - 0x40, &p->m[k], true);
  }
  if (mem) {
    RD(mem - 8, 8);
    RD(LIBC(L_SINGLE), 1);
    RD(LIBC(L_PERTURB), 4);
  }
  pops(m, C, 4, false);
  /* memset through libc's PLT (the clearing itself is heap.c's) */
  if (mem)
    RD(LIBC(L_GOTPLT + 0x180), 8);
}

static void do_free(cb_lt *m, uint64_t C, const cb_heap_path *p, uint64_t mem) {
  pushes(m, C, 2);
  RD(LIBC(L_GOT + 0x80), 8);
  if (!mem || !p->n_free) {
    pops(m, C, 2, false);
    return;
  }
  const cb_heap_fstep *f = &p->f[p->n_free - 1];
  RD(f->chunk + 8, 8);
  RD(TLS(T_ERRNO), 4);
  if (f->route == CB_HEAP_F_MUNMAP) {
    RD(MP(MP_NO_DYN), 4);
    RD(MP(MP_MMAP_THRESHOLD), 8);
    if (f->size > 0x20000) { /* the dynamic threshold moves */
      WR(MP(MP_MMAP_THRESHOLD), 8);
      WR(MP(MP_TRIM), 8);
    }
    WR(C - 0x38, 8);
    munmap_chunk(m, C - 0x30, f);
  } else {
    RD(LIBC(L_GOT + 0x18), 8);
    RD(TLS(T_TCACHE), 8);
    WR(C - 0x38, 8);
    int_free(m, C - 0x30, f, true);
  }
  WR(TLS(T_ERRNO), 4);
  pops(m, C, 2, false);
}

static void do_realloc(cb_lt *m, uint64_t C, const cb_heap_path *p,
                       uint64_t old) {
  pushes(m, C, 6);
  RD(LIBC(L_INITED), 1);
  RD(old - 8, 8);
  RD(LIBC(L_GOT + 0x18), 8);
  RD(TLS(T_TCACHE), 8);
  RD(LIBC(L_SINGLE), 1);
  WR(C - 0x60, 8);
  /* _int_realloc: the next chunk (the top, or a free one) looked at,
   * else _int_malloc, the copy and _int_free */
  uint64_t B = C - 0x60;
  WR(B - 0x8, 8);
  pushes(m, B, 6);
  RD(old - 8, 8);
  RD(ARENA(A_SYSTEM_MEM), 8);
  RD(ARENA(A_TOP), 8);
  for (unsigned k = 0; k < p->n_malloc; k++) {
    WR(B - 0x48, 8);
    int_malloc(m, B - 0x40, &p->m[k], true);
  }
  if (!p->n_malloc && !p->n_free)
    WR(ARENA(A_TOP), 8); /* grown into the top */
  for (unsigned k = 0; k < p->n_free; k++) {
    WR(B - 0x48, 8);
    int_free(m, B - 0x40, &p->f[k], true);
  }
  pops(m, B, 6, true);
  RD(old - 8, 8);
  RD(C - 0x60, 8);
  pops(m, C, 6, false);
}

/* malloc_consolidate's frame (called from _int_malloc at B): a local
 * re-read once per fastbin (NFASTBINS = 10) while it walks
 * av->fastbinsY, which it clears */
static void consolidate(cb_lt *m, uint64_t B) {
  WR(B - 0x58, 8);
  pushes(m, B - 0x50, 6);
  WR(B - 0xb8, 8);
  WR(ARENA(A_HAVE_FAST), 4);
  for (unsigned i = 0; i < 10; i++) {
    RD(B - 0xb8, 8);
    RD(ARENA(A_FASTBINS + 8 * (uint64_t)i), 8);
    WR(ARENA(A_FASTBINS + 8 * (uint64_t)i), 8);
  }
  pops(m, B - 0x50, 6, true);
}

static void do_memalign(cb_lt *m, uint64_t C, const cb_heap_path *p,
                        uint64_t mem, bool consolidated) {
  RD(LIBC(L_INITED), 1);
  pushes(m, C, 4); /* __posix_memalign, its call of _mid_memalign */
  uint64_t M = C - 0x20;
  if (p->init) {
    WR(M - 0x8, 8);
    TABLE(m, t_ptmalloc_init, M, 0, 0);
  }
  pushes(m, M, 3);
  RD(LIBC(L_SINGLE), 1);
  WR(M - 0x38, 8);
  uint64_t B = M - 0x30; /* _int_memalign */
  pushes(m, B, 6);
  WR(B - 0x48, 8);
  for (unsigned k = 0; k < p->n_malloc; k++) {
    if (consolidated)
      consolidate(m, B - 0x40);
    int_malloc(m, B - 0x40, &p->m[k], p->tcache_made);
  }
  for (unsigned k = 0; k < p->n_free; k++) {
    WR(B - 0x48, 8);
    int_free(m, B - 0x40, &p->f[k], true);
  }
  pops(m, B, 6, true);
  if (mem)
    RD(mem - 8, 8);
  pops(m, M, 3, true);
  pops(m, C, 3, false);
}

void cb_libc_heap_traffic(cb_proc *pr, uint32_t fn, uint64_t C, uint64_t arg,
                          uint64_t mem, bool consolidated) {
  if (!pr->libc_base || !C)
    return;
  cb_lt m;
  if (!cb_lt_init(&m, pr))
    return;
  const cb_heap_path *p = cb_heap_last_path(pr->heap);
  switch ((cb_libfn)fn) {
  case CB_LIBC_MALLOC:
    do_malloc(&m, C, p, mem);
    break;
  case CB_LIBC_CALLOC:
    do_calloc(&m, C, p, mem);
    break;
  case CB_LIBC_FREE:
    do_free(&m, C, p, arg);
    break;
  case CB_LIBC_REALLOC:
    if (!arg)
      do_malloc(&m, C, p, mem);
    else if (!mem && p->n_free && !p->n_malloc)
      do_free(&m, C, p, arg);
    else
      do_realloc(&m, C, p, arg);
    break;
  case CB_LIBC_POSIX_MEMALIGN:
  case CB_LIBC_MEMALIGN:
  case CB_LIBC_ALIGNED_ALLOC:
    do_memalign(&m, C, p, mem, consolidated);
    break;
  default:
    break;
  }
}

uint64_t cb_libc_caller_sp(const cb_proc *pr) {
  return pr->stack->depth ? cb_proc_top(pr)->sp : 0;
}

/* ---- the emitter the traffic tables share (libc_traffic.h) ---- */

bool cb_lt_init(cb_lt *m, cb_proc *pr) {
  *m = (cb_lt){pr, pr->libc_base, pr->dl_tcb, pr->dl_ldso};
  if (!m->libc)
    return false;
  if (!m->tcb || !m->ldso) {
    /* no dynamic-link tables: the layout's own guess (layout.c) */
    uint64_t lmap, obj[CB_DL_MAX_OBJS];
    if (!cb_eng_dl_layout(pr->p, &m->ldso, &lmap, &m->tcb, obj))
      return false;
  }
  return true;
}

void cb_lt_acc(cb_lt *m, uint64_t a, unsigned n, bool w) {
  cb_proc *pr = m->pr;
  cb_proc_emit(pr, a, n, pr->cur_site, w);
  if (w)
    pr->out->lib_writes++;
  else
    pr->out->lib_reads++;
}

void cb_lt_pushes(cb_lt *m, uint64_t B, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    cb_lt_acc(m, B - 0x10 - 8 * (uint64_t)i, 8, true);
}

void cb_lt_pops(cb_lt *m, uint64_t B, unsigned n, bool ret) {
  for (unsigned i = n; i-- > 0;)
    cb_lt_acc(m, B - 0x10 - 8 * (uint64_t)i, 8, false);
  if (ret)
    cb_lt_acc(m, B - 8, 8, false);
}

void cb_lt_table(cb_lt *m, const lt_acc *t, size_t n,
                 const uint64_t base[LT_NBASES]) {
  for (size_t i = 0; i < n; i++) {
    uint64_t a;
    switch (t[i].base) {
    case LT_S:
      a = base[LT_S] - t[i].off;
      break;
    case LT_L:
      a = m->libc + t[i].off;
      break;
    case LT_D:
      a = m->ldso + t[i].off;
      break;
    case LT_T:
      a = m->tcb + t[i].off;
      break;
    default:
      a = base[t[i].base] + t[i].off;
      break;
    }
    cb_lt_acc(m, a, t[i].len, t[i].write);
  }
}
