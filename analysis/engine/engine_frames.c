/* engine_frames.c: functions and frames of the interpreter: finding a
 * function by address, the frame layout, pushing a frame (return address,
 * saved registers), passing arguments, call ops (eng_do_call: a Program
 * function, a library function or an intrinsic) and the library's calls
 * back into the Program (qsort's comparator). */
#include <stdlib.h>
#include <string.h>

#include "engine_frames.h"
#include "engine_internal.h"

uint32_t cb_eng_function_at(const cb_eng *e, uint64_t addr) {
  uint32_t lo = 0, hi = e->n_fn_by_addr;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    uint64_t a = e->p->functions[e->fn_by_addr[mid]].addr;
    if (a == addr)
      return e->fn_by_addr[mid];
    if (a < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return CB_NONE;
}

void eng_layout_frames(cb_eng *e) {
  const cb_program *p = e->p;
  e->fo_off = calloc(p->n_frame_objs + 1, sizeof *e->fo_off);
  e->frame_size = calloc(p->n_functions + 1, sizeof *e->frame_size);
  int64_t *lowest = calloc(p->n_functions + 1, sizeof *lowest);
  for (uint32_t f = 0; f < p->n_functions; f++)
    lowest[f] = -8; /* the return address */
  /* a dynamic alloca (a count operand: alloca() or a VLA) takes its room
   * below rsp when it runs (engine_interp.c), not in the fixed frame */
  uint8_t *dynamic = calloc(p->n_frame_objs + 1, 1);
  e->fn_dyn_alloca = calloc(p->n_functions + 1, 1);
  for (uint32_t i = 0; i < p->n_ops; i++)
    if (p->ops[i].code == CB_OP_ALLOCA && p->ops[i].a != CB_NONE &&
        p->ops[i].aux < p->n_frame_objs) {
      dynamic[p->ops[i].aux] = 1;
      if (p->frame_objs[p->ops[i].aux].func < p->n_functions)
        e->fn_dyn_alloca[p->frame_objs[p->ops[i].aux].func] = 1;
    }
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *o = &p->frame_objs[i];
    if (o->func >= p->n_functions || o->frame_offset == CB_FRAME_OFFSET_UNKNOWN)
      continue;
    e->fo_off[i] = o->frame_offset;
    if (o->frame_offset < lowest[o->func])
      lowest[o->func] = o->frame_offset;
  }
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *o = &p->frame_objs[i];
    if (o->func >= p->n_functions ||
        o->frame_offset != CB_FRAME_OFFSET_UNKNOWN || dynamic[i])
      continue;
    uint64_t al = o->align ? o->align : 1;
    if (o->size >= 16 && al < 16)
      al = 16;
    int64_t off = lowest[o->func] - (int64_t)o->size;
    off = -(int64_t)((uint64_t)(-off + (int64_t)al - 1) & ~(al - 1));
    e->fo_off[i] = off;
    lowest[o->func] = off;
  }
  for (uint32_t f = 0; f < p->n_functions; f++) {
    uint64_t need = (uint64_t)(-lowest[f]);
    need = (need + 15) & ~15ull;
    if (need < 16)
      need = 16;
    uint64_t fs = p->functions[f].frame_size;
    e->frame_size[f] = fs > need ? fs : need;
  }
  free(lowest);
  free(dynamic);
}

bool eng_grow_slots(cb_eng *e, size_t need) {
  if (need <= e->capslots)
    return true;
  size_t c = e->capslots ? e->capslots : 4096;
  while (c < need)
    c *= 2;
  cb_value *s = realloc(e->slots, c * sizeof *s);
  if (!s)
    return false;
  e->slots = s;
  e->capslots = c;
  return true;
}

/* Pushes a frame for function f whose caller's rsp is `sp`; the caller
 * copies argument values in afterwards. */
cb_stop eng_push_frame(cb_eng *e, uint32_t f, uint64_t sp, uint32_t call_op,
                       uint32_t call_site) {
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[f];
  if (e->depth >= CB_KERNEL_MAX_DEPTH || sp - e->frame_size[f] < e->stack_lo)
    return cb_eng_fail(e, CB_RUN_ERROR, call_site,
                       "stack overflow calling %s (depth %u)", fn->name,
                       e->depth);
  if (e->depth == e->capframes) {
    e->capframes = e->capframes ? 2 * e->capframes : 256;
    e->frames = realloc(e->frames, e->capframes * sizeof *e->frames);
  }
  size_t base = e->nslots;
  if (!eng_grow_slots(e, base + fn->n_slots + 1))
    return cb_eng_fail(e, CB_RUN_ERROR, call_site, "out of memory");
  memset(e->slots + base, 0, (fn->n_slots + 1) * sizeof *e->slots);
  e->nslots = base + fn->n_slots;
  cb_frame *F = &e->frames[e->depth++];
  F->func = f;
  F->slot_base = (uint32_t)base;
  F->block = fn->first_block;
  F->prev = CB_NONE;
  F->ip = p->blocks[fn->first_block].first_op;
  F->call_op = call_op;
  F->call_site = call_site;
  F->ret_dst = call_op != CB_NONE ? p->ops[call_op].dst : CB_NONE;
  F->cfa = sp;
  F->sp = sp - e->frame_size[f];
  F->va_al = e->va_al_next;
  F->tail_done = 0;
  /* call pushes the return address: the caller's own access on the
   * call's line when the caller is the program's code; a tail call's
   * jump pushes none (the caller's own return address is the callee's) */
  uint64_t ra = CB_KERNEL_RET_ADDR;
  cb_mem_write(&e->pr.mem, sp - 8, &ra, 8, NULL);
  uint32_t ra_site = call_op != CB_NONE && p->ra_site && call_site < p->n_sites
                         ? p->ra_site[call_site]
                         : CB_NONE;
  bool tail =
      call_op != CB_NONE && e->depth > 1 && e->frames[e->depth - 2].tail_done;
  if (tail) {
    /* the jump after the caller's epilogue */
  } else if (call_op == CB_NONE && e->pr.skip_main_push) {
    e->pr.skip_main_push = false; /* the start-up's last access */
  } else if (ra_site != CB_NONE) {
    cb_eng_emit(e, sp - 8, 8, ra_site, true);
    e->out->stores++;
  } else {
    cb_eng_emit(e, sp - 8, 8, call_site, true);
    e->out->lib_writes++;
  }
  /* the prologue's pushes of callee-saved registers (the callee's own
   * accesses on its first line when the machine code told) */
  uint32_t in_site = p->fn_mach ? p->fn_mach[f].entry_site : CB_NONE;
  for (unsigned r = 0; r < fn->n_saved_regs; r++)
    cb_eng_emit(e, sp - 16 - 8 * (uint64_t)r, 8,
                in_site != CB_NONE ? in_site : call_site, true);
  if (in_site != CB_NONE)
    e->out->stores += fn->n_saved_regs;
  else
    e->out->lib_writes += fn->n_saved_regs;
  if (p->blocks[fn->first_block].n_mach)
    eng_emit_mach(e, &p->blocks[fn->first_block], sp);
  return CB_GO;
}

void eng_tail_epilogue(cb_eng *e) {
  cb_frame *F = &e->frames[e->depth - 1];
  const cb_program *p = e->p;
  unsigned nr = p->functions[F->func].n_saved_regs;
  nr -= p->functions[F->func].n_unpopped < nr ? p->functions[F->func].n_unpopped
                                              : nr;
  uint32_t x = p->fn_mach ? p->fn_mach[F->func].exit_site : CB_NONE;
  uint32_t site = x != CB_NONE ? x : F->call_site;
  for (unsigned r = nr; r-- > 0;)
    cb_eng_emit(e, F->cfa - 16 - 8 * (uint64_t)r, 8, site, false);
  if (x != CB_NONE)
    e->out->loads += nr;
  else
    e->out->lib_reads += nr;
  F->tail_done = 1;
}

/* Copies argument k's value (lanes slots) and handles byval copies. */
void eng_set_params(cb_eng *e, uint32_t f, const cb_value *const *vals,
                    const uint8_t *lanes, uint32_t nargs) {
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[f];
  cb_value *S = e->slots + e->frames[e->depth - 1].slot_base;
  uint32_t n = nargs < fn->n_params ? nargs : fn->n_params;
  for (uint32_t k = 0; k < n; k++) {
    const cb_param *pa = &p->params[fn->first_param + k];
    unsigned l = pa->lanes ? pa->lanes : 1;
    if (lanes && lanes[k] && lanes[k] < l)
      l = lanes[k];
    for (unsigned i = 0; i < l; i++)
      S[pa->slot + i] = vals[k][i];
  }
}

/* A call op: pushes a frame (CB_GO with the new frame on top), or runs
 * the library function and writes the result. */
/* A byval argument: the caller copies n bytes of the aggregate at src
 * into the argument area at dst, reads and writes attributed to site. */
/* The loads (and, in `rep movsq`, stores) of a by-value copy that the
 * machine code's own accesses (cb_mach_access) do not already make. */
typedef struct byval_copy {
  cb_eng *e;
  uint64_t src, dst;
  uint32_t site; /* the call's own site on its line (ra_site) */
  bool loads;    /* the source is no stack slot of the caller */
} byval_copy;

/* The C library's functions that create a process or run a program
 * (unistd.h, stdio.h, stdlib.h, spawn.h): their result is another
 * program's work, which the model never runs. */
static bool starts_process(const char *name) {
  static const char *const names[] = {
      "fork",   "vfork",       "popen",        "pclose",  "system",
      "execl",  "execlp",      "execle",       "execv",   "execvp",
      "execve", "execvpe",     "wait",         "waitpid", "wait3",
      "wait4",  "posix_spawn", "posix_spawnp", "clone",   "daemon"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (!strcmp(name, names[i]))
      return true;
  return false;
}

static void byval_access(byval_copy *c, uint64_t off, uint32_t n, bool st) {
  if (!st && !c->loads)
    return;
  cb_eng_emit(c->e, (st ? c->dst : c->src) + off, n, c->site, st);
  *(st ? &c->e->out->stores : &c->e->out->loads) += 1;
}

/* the bytes from `from` to n in 8-, 4-, 2- and 1-byte loads, from the top
 * down (their stores go to the stack: machine-code accesses) */
static void byval_tail(byval_copy *c, uint64_t from, uint64_t n) {
  uint64_t off = n;
  for (uint32_t w = 8; w; w /= 2)
    if ((n - from) & w) {
      off -= w;
      byval_access(c, off, w, false);
    }
}

cb_stop eng_copy_byval(cb_eng *e, uint64_t src, uint64_t dst, uint64_t n,
                       uint32_t site) {
  uint8_t buf[4096];
  for (uint64_t off = 0; off < n; off += sizeof buf) {
    size_t c = n - off > sizeof buf ? sizeof buf : (size_t)(n - off);
    uint64_t bad;
    if (!cb_mem_read(&e->pr.mem, src + off, buf, c, &bad))
      return cb_eng_fault(e, bad, 1, false, site);
    cb_mem_write(&e->pr.mem, dst + off, buf, c, NULL);
  }
  const cb_program *p = e->p;
  uint32_t own = p->ra_site && site < p->n_sites ? p->ra_site[site] : CB_NONE;
  if (own == CB_NONE) {
    /* no machine code for the call: the bytes, as library traffic */
    uint32_t keep = e->pr.cur_site;
    e->pr.cur_site = site;
    cb_eng_lib(e, src, n, false);
    cb_eng_lib(e, dst, n, true);
    e->pr.cur_site = keep;
    return CB_GO;
  }
  /* The x86 backend copies a by-value argument with a memcpy it must
   * inline (X86SelectionDAGInfo): up to 128 bytes in 16-byte moves and
   * 8-, 4-, 2- and 1-byte ones for the rest, beyond in `rep movsq` and
   * moves for the rest. Its stores into the argument area are stack
   * accesses of the machine code (cb_mach_access, made with the block),
   * and so are its loads when the source is on the caller's stack (a
   * temporary copy); the loads of any other source, and `rep movsq`'s
   * implicit operands (an 8-byte load and store per iteration, as
   * valgrind counts them), are made here, on the call's line. Order as
   * clang 14 -O2 schedules them: the rest first, the 16-byte pieces past
   * the fourth from the top down, then the first four up. */
  const cb_frame *F = &e->frames[e->depth - 1];
  byval_copy c = {e, src, dst, own, !(src >= F->sp && src < F->cfa)};
  if (n > 128) {
    uint64_t q = n / 8 * 8;
    for (uint64_t off = 0; off < q; off += 8) {
      cb_eng_emit(e, src + off, 8, own, false);
      cb_eng_emit(e, dst + off, 8, own, true);
    }
    e->out->loads += q / 8;
    e->out->stores += q / 8;
    byval_tail(&c, q, n);
    return CB_GO;
  }
  uint64_t q = n / 16 * 16;
  byval_tail(&c, q, n);
  uint64_t group = q > 64 ? 64 : q;
  for (uint64_t off = q; off > group; off -= 16)
    byval_access(&c, off - 16, 16, false);
  for (uint64_t off = 0; off < group; off += 16)
    byval_access(&c, off, 16, false);
  return CB_GO;
}

cb_stop eng_do_call(cb_eng *e, const cb_op *op, uint32_t ip) {
  const cb_program *p = e->p;
  const int64_t *g = &p->extra[op->aux];
  uint32_t kind = (uint32_t)g[0], callee = (uint32_t)g[1];
  uint32_t site = (uint32_t)g[2], nargs = (uint32_t)g[3];
  cb_frame *F = &e->frames[e->depth - 1];
  cb_value *S = e->slots + F->slot_base;
  const cb_value *K = p->consts;
  enum { MAXA = 64 };
  const cb_value *vals[MAXA];
  uint8_t tys[MAXA], lanes[MAXA];
  uint32_t byval[MAXA];
  if (nargs > MAXA)
    return cb_eng_fail(e, CB_RUN_ERROR, site, "call with %u arguments", nargs);
  for (uint32_t k = 0; k < nargs; k++) {
    uint64_t x = (uint64_t)g[4 + k];
    cb_operand o = CB_CALL_ARG_OPERAND(x);
    vals[k] = (o & CB_OPND_CONST) ? &K[o & ~CB_OPND_CONST] : &S[o];
    tys[k] = (uint8_t)CB_CALL_ARG_TY(x);
    lanes[k] = (uint8_t)CB_CALL_ARG_LANES(x);
    byval[k] = CB_CALL_ARG_BYVAL(x);
  }
  if (kind == CB_CALL_INDIRECT) {
    uint64_t addr =
        ((op->a & CB_OPND_CONST) ? &K[op->a & ~CB_OPND_CONST] : &S[op->a])->u;
    callee = cb_eng_function_at(e, addr);
    for (uint32_t u = 0; callee == CB_NONE && addr && u < p->n_unmodelled; u++)
      if (p->unmodelled_addr[u] == addr)
        return cb_eng_fail(e, CB_RUN_ERROR, site,
                           "call through a pointer to the C library function "
                           "`%s`, which is not modelled",
                           p->unmodelled[u]);
    if (callee == CB_NONE)
      return cb_eng_fail(e, CB_RUN_ERROR, site,
                         "call through a pointer to 0x%llx, which is no "
                         "function of the program",
                         (unsigned long long)addr);
    kind = CB_CALL_DIRECT;
  }
  if (kind == CB_CALL_UNMODELLED) {
    /* the program links against it (the executable imports it), so it
     * ran natively; its result and traffic are unknown here */
    const char *nm = callee < p->n_unmodelled ? p->unmodelled[callee] : "?";
    if (starts_process(nm))
      return cb_eng_fail(e, CB_RUN_ERROR, site,
                         "call of the C library function `%s`, which starts "
                         "another program: cbana never runs one, so this "
                         "is not modelled",
                         nm);
    return cb_eng_fail(e, CB_RUN_ERROR, site,
                       "call of the C library function `%s`, which is not "
                       "modelled",
                       nm);
  }
  if (kind == CB_CALL_DIRECT) {
    if (callee >= p->n_functions)
      return cb_eng_fail(e, CB_RUN_ERROR, site, "call of function #%u", callee);
    const cb_function *fn = &p->functions[callee];
    if (fn->n_blocks == 0)
      return cb_eng_fail(e, CB_RUN_ERROR, site, "call of %s, which has no body",
                         fn->name);
    if (fn->is_vararg && fn->va_save1)
      return eng_call_vararg(e, op, callee, vals, tys, lanes, byval, nargs,
                             site);
    /* copy argument values before the slot stack may move */
    cb_value argv_copy[MAXA * 4];
    const cb_value *argp[MAXA];
    uint32_t used = 0;
    uint64_t sp = F->sp;
    uint64_t total_byval = 0;
    for (uint32_t k = 0; k < nargs; k++)
      if (byval[k])
        total_byval += (byval[k] + 7) & ~7u;
    if (total_byval)
      sp = eng_align_down(sp - total_byval, 16);
    uint64_t at = sp;
    for (uint32_t k = 0; k < nargs; k++) {
      unsigned l = lanes[k] ? lanes[k] : 1;
      if (used + l > MAXA * 4)
        l = 1;
      argp[k] = &argv_copy[used];
      for (unsigned i = 0; i < l; i++)
        argv_copy[used + i] = vals[k][i];
      if (byval[k]) {
        /* the caller copies the aggregate into the argument area */
        uint64_t n = byval[k];
        if (eng_copy_byval(e, vals[k][0].u, at, n, site) != CB_GO)
          return CB_FAIL;
        argv_copy[used].u = at;
        at += (n + 7) & ~7ull;
      }
      used += l;
    }
    uint32_t call_op = (uint32_t)(op - p->ops);
    (void)ip;
    if (site < p->n_sites && p->sites[site].is_tail && !total_byval &&
        !F->tail_done) {
      /* a tail call: the callee's frame where the caller's was */
      eng_tail_epilogue(e);
      sp = F->cfa;
    }
    cb_stop st = eng_push_frame(e, callee, sp, call_op, site);
    if (st != CB_GO)
      return st;
    eng_set_params(e, callee, argp, lanes, nargs);
    return CB_GO;
  }
  cb_value ret[256];
  memset(ret, 0, sizeof ret[0] * 4);
  uint32_t keep = e->pr.cur_site;
  e->pr.cur_site = site;
  cb_stop st;
  /* a call into the library pushes its return address (the caller's
   * line) and the library's `ret` pops it */
  bool real_call = kind == CB_CALL_LIBC;
  if (kind == CB_CALL_INTRINSIC &&
      (callee == CB_INTR_MEMCPY || callee == CB_INTR_MEMMOVE ||
       callee == CB_INTR_MEMSET))
    real_call = !(nargs > 2 && (((uint64_t)g[4 + 2]) & CB_OPND_CONST) &&
                  vals[2][0].u <= 128);
  /* sqrt and sqrtf with errno (clang's default): outside optnone (-O0)
   * functions the code generator computes them inline (sqrtsd/sqrtss;
   * LLVM's PartiallyInlineLibCalls) and calls the library only when the
   * argument fails `x >= 0` (negative or NaN), to set errno; that call is
   * the only one, and the first binds the slot (ld.so's lazy binding) */
  bool is_sqrt = kind == CB_CALL_LIBC && nargs >= 1 &&
                 (callee == CB_LIBC_SQRT || callee == CB_LIBC_SQRTF);
  bool sqrt_inline = false;
  if (is_sqrt && !p->functions[F->func].optnone) {
    sqrt_inline =
        callee == CB_LIBC_SQRT ? vals[0][0].d >= 0 : vals[0][0].f >= 0;
    /* the machine code's accesses on the path taken (cb_mach_access's
     * sqrt_path) */
    e->pr.sqrt_called = !sqrt_inline;
  }
  if (sqrt_inline)
    real_call = false;
  /* a tail call into the library: the caller's epilogue, then a jump;
   * the library runs where the caller's frame was, and its `ret` reads
   * the caller's return address */
  uint64_t keep_sp = F->sp;
  bool tail =
      real_call && site < p->n_sites && p->sites[site].is_tail && !F->tail_done;
  if (tail) {
    eng_tail_epilogue(e);
    F->sp = F->cfa;
  }
  uint64_t ra_at = F->sp - 8;
  if (real_call) {
    /* the caller's `call` writes the return address on the call's line */
    uint32_t ras = p->ra_site && site < p->n_sites ? p->ra_site[site] : CB_NONE;
    if (!tail) {
      cb_eng_emit(e, ra_at, 8, ras != CB_NONE ? ras : site, true);
      if (ras != CB_NONE)
        e->out->stores++;
      else
        e->out->lib_writes++;
    }
    /* the PLT stub reads the function's GOT slot */
    uint32_t lf = callee;
    if (kind == CB_CALL_INTRINSIC)
      lf = callee == CB_INTR_MEMSET    ? CB_LIBC_MEMSET
           : callee == CB_INTR_MEMMOVE ? CB_LIBC_MEMMOVE
                                       : CB_LIBC_MEMCPY;
    if (lf < CB_LIBC_COUNT && e->pr.got[lf]) {
      cb_eng_emit(e, e->pr.got[lf], 8, site, false);
      e->out->lib_reads++;
    }
    /* the first call binds the slot (ld.so's lazy binding) */
    cb_dl_first_call(&e->pr, lf, F->sp);
  }
  if (kind == CB_CALL_LIBC) {
    cb_value a[MAXA];
    for (uint32_t k = 0; k < nargs; k++)
      a[k] = vals[k][0];
    e->pr.cur_op = (uint32_t)(op - p->ops);
    e->pr.call_vals = vals;
    st = cb_libc_call(&e->pr, callee, a, tys, nargs, ret);
    e->pr.call_vals = NULL;
  } else {
    st = cb_intrinsic_call(&e->pr, callee, op, vals, tys, lanes, nargs, ret);
  }
  e->pr.cur_site = keep;
  if (tail && st != CB_LONGJMP)
    e->frames[e->depth - 1].sp = keep_sp;
  if (st != CB_GO)
    return st;
  if (real_call) {
    cb_eng_emit(e, ra_at, 8, site, false);
    e->out->lib_reads++;
  }
  /* the slot stack may have moved (qsort ran a comparator) */
  F = &e->frames[e->depth - 1];
  S = e->slots + F->slot_base;
  if (op->dst != CB_NONE && op->ty != CB_TY_VOID) {
    unsigned l = op->lanes ? op->lanes : 1;
    if (kind == CB_CALL_INTRINSIC && callee >= CB_INTR_SADD_OVF &&
        callee <= CB_INTR_UMUL_OVF && l < 2)
      l = 2; /* {iN, i1}: value and overflow flag */
    for (unsigned i = 0; i < l && i < 256; i++)
      S[op->dst + i] = ret[i];
  }
  return CB_GO;
}

cb_stop cb_eng_call_at(cb_eng *e, uint32_t func, uint64_t cfa, uint32_t site,
                       const cb_value *args, uint32_t nargs, cb_value *ret) {
  const cb_program *p = e->p;
  if (func >= p->n_functions || !p->functions[func].n_blocks)
    return cb_eng_fail(e, CB_RUN_ERROR, e->pr.cur_site,
                       "callback to a function without a body");
  uint32_t d0 = e->depth;
  cb_stop st = eng_push_frame(e, func, cfa, CB_NONE, site);
  if (st != CB_GO)
    return st;
  const cb_value *argp[64];
  uint32_t n = nargs > 64 ? 64 : nargs;
  for (uint32_t k = 0; k < n; k++)
    argp[k] = &args[k];
  eng_set_params(e, func, argp, NULL, n);
  st = eng_run(e, d0, ret);
  if (st == CB_RETURNED)
    return CB_GO;
  if (st == CB_LONGJMP) /* libc_setjmp.c stops such a jump before */
    return cb_eng_fail(e, CB_RUN_ERROR, site,
                       "longjmp out of a function the C library called");
  return st;
}

/* ---- proc.h's host interface ---- */

cb_stop cb_host_call_at(cb_proc *pr, uint32_t func, uint64_t cfa, uint32_t site,
                        const cb_value *args, uint32_t nargs, cb_value *ret) {
  return cb_eng_call_at(eng_of(pr), func, cfa, site, args, nargs, ret);
}

cb_stop cb_host_call(cb_proc *pr, uint32_t func, const cb_value *args,
                     uint32_t nargs, cb_value *ret) {
  cb_eng *e = eng_of(pr);
  /* library frames sit between: leave room for them */
  uint64_t sp = eng_align_down(e->frames[e->depth - 1].sp - 256, 16);
  return cb_eng_call_at(e, func, sp, e->pr.cur_site, args, nargs, ret);
}

uint32_t cb_host_function_at(const cb_proc *pr, uint64_t addr) {
  return cb_eng_function_at(eng_of_const(pr), addr);
}

uint64_t cb_host_cpu_ns(const cb_proc *pr) {
  return eng_cpu_ns(eng_of_const(pr));
}

void cb_host_emit_mach_at(cb_proc *pr, const cb_block *b, uint64_t cfa,
                          uint32_t at) {
  eng_emit_mach_at(eng_of(pr), b, cfa, at);
}
