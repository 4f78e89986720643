/* machine.c: the accesses the machine code makes that the IR does not
 * show, read from the executable itself.
 *
 * Each function of the Program is disassembled by disasm.c (LLVM-C
 * disassembler, Intel syntax, memory operands parsed from the text); the
 * DWARF line table gives each instruction's file:line and the call-frame
 * information (libdw) the CFA rule at each instruction. Memory operands are
 * sorted into IR-visible accesses (loads and stores through other registers,
 * rip-relative accesses of the IR's globals, indexed stack accesses),
 * and hidden ones: rsp/frame-pointer-relative accesses without an index
 * (spills, reloads, scalars kept on the stack) and rip-relative accesses
 * of no IR global (constant pools, GOT slots).
 *
 * Matching: the machine code is cut into basic blocks at branch targets
 * and after branches. Each block's IR-visible accesses and calls form a
 * multiset of (file, line, kind) keys (with the line of the conditional
 * branch that ends it), as do each IR block's loads, stores, calls and
 * branch point. Anchors are paired greedily by the share of keys in
 * common when they share a memory access or call and stand in the same
 * dominance, post-dominance and loop relations to the anchors taken; the
 * other blocks by those relations alone, the rest of a split condition
 * with its IR block, and blocks of an IR edge (split edges, preheaders,
 * tail-duplicated copies) with the edge (mcfg.c; docs/program-model.md).
 * A paired block's hidden accesses become the IR block's cb_mach_access
 * list, minus the stack accesses that are the IR's own accesses of stack
 * objects on the same line. Unpaired blocks are counted in
 * program->mach_stats and their accesses left out (the IR alone).
 *
 * Also per function: the prologue's pushes (cb_function.n_saved_regs)
 * and the pushes the epilogue does not pop (n_unpopped), frame size, and the
 * sites of the entry and exit traffic; per call site: the site of the
 * return-address write. */
#include "machine_internal.h"
#include "mcfg.h"

#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct mblock {
  uint32_t first, n; /* instructions */
  uint32_t succ[2], n_succ;
  bool unknown_succ;
  uint32_t ir;   /* paired IR block within the function, or CB_NONE */
  uint32_t from; /* on the edge into ir from this IR block, or CB_NONE */
  uint32_t n_hidden;
  uint64_t *keys; /* sorted keys */
  uint32_t n_keys;
  FE_VEC(uint32_t) preds;
} mblock;

/* ---- one function ----------------------------------------------------------
 */

/* The IR op before which a hidden access at machine instruction k
 * happens: the IR's load or store that the next IR-visible access stands
 * for (the same line and direction, counted in order from the last call,
 * at instruction `from` in the machine code and before IR op `start` in
 * the IR block bl), when no call comes between. CB_NONE: none found
 * (then at `start`). */
static uint32_t mid_op(fe *f, const cb_block *bl, const minst *ins,
                       uint32_t from, uint32_t end, uint32_t k,
                       uint32_t start) {
  uint32_t q = k + 1;
  while (q < end && ins[q].kind != MK_MEM) {
    if (ins[q].kind == MK_CALL)
      return CB_NONE;
    q++;
  }
  if (q >= end)
    return CB_NONE;
  const minst *v = &ins[q];
  uint32_t rank = 0;
  for (uint32_t x = from; x < q; x++)
    if (ins[x].kind == MK_MEM && ins[x].file == v->file &&
        ins[x].line == v->line && ins[x].write == v->write)
      rank++;
  for (uint32_t o = start; o < bl->first_op + bl->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if (op->code == CB_OP_CALL)
      return CB_NONE;
    if (op->code != (v->write ? CB_OP_STORE : CB_OP_LOAD) ||
        op->aux >= f->sites.n)
      continue;
    const cb_site *s = &f->sites.v[op->aux];
    if (s->file != v->file || s->line != v->line)
      continue;
    if (rank-- == 0)
      return o > start ? o : CB_NONE;
  }
  return CB_NONE;
}

static int key_cmp(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* kind: 0 memory access, 1 call, 2 conditional branch */
static uint64_t mkkey(uint32_t file, uint32_t line, unsigned kind) {
  return ((uint64_t)file << 34) | ((uint64_t)line << 2) | kind;
}

/* Size of the multiset intersection of two sorted key arrays. */
static uint32_t common(const uint64_t *a, uint32_t na, const uint64_t *b,
                       uint32_t nb) {
  uint32_t i = 0, j = 0, n = 0;
  while (i < na && j < nb) {
    if (a[i] == b[j]) {
      n++;
      i++;
      j++;
    } else if (a[i] < b[j]) {
      i++;
    } else {
      j++;
    }
  }
  return n;
}

/* Any memory-access or call key in common (kinds 0 and 1)? */
static bool common_access(const uint64_t *a, uint32_t na, const uint64_t *b,
                          uint32_t nb) {
  uint32_t i = 0, j = 0;
  while (i < na && j < nb) {
    if (a[i] == b[j] && (a[i] & 3) != 2)
      return true;
    if (a[i] <= b[j])
      i++;
    else
      j++;
  }
  return false;
}

/* The same call keys (kind 1), at least one: memory keys aside (at -O0
   the IR's accesses of its stack slots are no keys of the machine
   code's), branches too (a branch's line may be 0 in the line table). */
static bool same_call_keys(const uint64_t *a, uint32_t na, const uint64_t *b,
                           uint32_t nb) {
  uint32_t i = 0, j = 0, n = 0;
  for (;;) {
    while (i < na && (a[i] & 3) != 1)
      i++;
    while (j < nb && (b[j] & 3) != 1)
      j++;
    if (i == na || j == nb)
      return i == na && j == nb && n;
    if (a[i++] != b[j++])
      return false;
    n++;
  }
}

typedef struct irblk {
  uint64_t *keys;
  uint32_t n_keys;
  uint32_t m; /* paired machine block or CB_NONE */
} irblk;

typedef struct keyctx {
  const mblock *mb;
  const irblk *ib;
} keyctx;

static bool share_key(uint32_t m, uint32_t i, void *ctx) {
  const keyctx *k = ctx;
  return common(k->mb[m].keys, k->mb[m].n_keys, k->ib[i].keys,
                k->ib[i].n_keys) > 0;
}

typedef struct cand {
  double score, dist;
  uint32_t mb, ib;
} cand;

static int cand_cmp(const void *a, const void *b) {
  const cand *x = a, *y = b;
  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  if (x->dist != y->dist)
    return x->dist < y->dist ? -1 : 1;
  if (x->mb != y->mb)
    return x->mb < y->mb ? -1 : 1;
  return x->ib < y->ib ? -1 : x->ib > y->ib;
}

typedef struct owed_t {
  uint64_t key;
  uint32_t op;  /* the IR load or store (program->ops) */
  uint8_t kind; /* FE_MC_ALLOCA, FE_MC_BYVAL or both */
} owed_t;

typedef FE_VEC(cb_mach_access) machvec;

/* A call the IR follows with `unreachable` (exit, longjmp, abort, a
 * function of the program that never returns) on the line of machine
 * call m: the code generator emits nothing after such a call, and the
 * block the next instruction starts is no successor of m's (at -O0 it
 * is the IR's next block: counted as reached, its spills and reloads
 * were made before a longjmp or exit that never came back). */
static bool noreturn_call_at(fe *f, const cb_function *fn, const minst *m) {
  for (uint32_t b = fn->first_block; b < fn->first_block + fn->n_blocks; b++) {
    const cb_block *bl = &f->blocks.v[b];
    if (bl->n_ops < 2)
      continue;
    const cb_op *t = &f->ops.v[bl->first_op + bl->n_ops - 1];
    const cb_op *op = t - 1;
    if (t->code != CB_OP_UNREACHABLE || op->code != CB_OP_CALL ||
        !fe_mc_real_call(f, op))
      continue;
    uint32_t site = (uint32_t)f->extra.v[op->aux + 2];
    if (site < f->sites.n && f->sites.v[site].line == m->line &&
        f->sites.v[site].file == m->file)
      return true;
  }
  return false;
}

/* rsp's distance below the CFA in the function's body. The prologue is
 * its leading pushes and the instructions that each move the CFA
 * (`sub rsp, N`, `mov rbp, rsp`): the rule after them holds in the body,
 * except around a call whose stack arguments the backend pushes
 * (X86CallFrameOptimization), which moves the CFA rule further down until
 * `add rsp` after the call: those are no part of the frame. A function
 * without a prologue at its entry (LLVM's ShrinkWrap, or no frame) takes
 * the largest rsp-based rule, as its pushes come later. */
static uint64_t fe_mc_body_frame(mctx *c, const minst *ins, uint32_t n) {
  uint32_t i = 0;
  int reg, nreg;
  int64_t off, noff;
  while (i + 1 < n) {
    if (ins[i].kind == MK_PUSH) {
      i++;
      continue;
    }
    if (ins[i].kind != MK_NONE || !fe_mc_cfa_rule(c, ins[i].pc, &reg, &off) ||
        !fe_mc_cfa_rule(c, ins[i + 1].pc, &nreg, &noff) ||
        (reg == nreg && off == noff))
      break;
    i++;
  }
  if (i > 0 && i < n && fe_mc_cfa_rule(c, ins[i].pc, &reg, &off)) {
    if (reg == 7 && off > 0)
      return (uint64_t)off;
    /* a frame pointer (CFA = rbp + 16): its CFI says nothing of rsp past
       `mov rbp, rsp`; rsp is below the pushes after it and the prologue's
       `sub rsp, N`, which holds the locals, spills and the outgoing
       argument area (X86FrameLowering::emitPrologue). A realigned frame
       (`and rsp, -A`) has no fixed size: the largest rsp-based rule. */
    if (reg == 6 && off == 16 && ins[i].sp_op != 2) {
      uint64_t frame = 16;
      for (uint32_t k = 1; k < i; k++)
        if (ins[k].kind == MK_PUSH)
          frame += 8;
      if (ins[i].sp_op == 1 && ins[i].sp_imm > 0)
        frame += (uint64_t)ins[i].sp_imm;
      return frame;
    }
    uint64_t frame = 0;
    for (uint32_t k = 0; k < i; k++)
      if (fe_mc_cfa_rule(c, ins[k + 1].pc, &reg, &off) && reg == 7 && off > 0 &&
          (uint64_t)off > frame)
        frame = (uint64_t)off;
    return frame;
  }
  uint64_t frame = 0;
  for (uint32_t k = 0; k < n; k++)
    if (fe_mc_cfa_rule(c, ins[k].pc, &reg, &off) && reg == 7 && off > 0 &&
        (uint64_t)off > frame)
      frame = (uint64_t)off;
  return frame;
}

static void do_function(mctx *c, uint32_t fi, const uint8_t *code,
                        uint64_t code_lo, uint64_t lo, uint64_t size,
                        machvec *per_block, uint32_t *n_hidden_in_block) {
  fe *f = c->f;
  cb_function *fn = &f->functions.v[fi];
  FE_VEC(minst) ins = {0};
  /* decode */
  for (uint64_t at = lo; at < lo + size;) {
    char text[256];
    size_t l = LLVMDisasmInstruction(c->dc, (uint8_t *)code + (at - code_lo),
                                     lo + size - at, at, text, sizeof text);
    minst m;
    memset(&m, 0, sizeof m);
    m.src_arg = -1;
    m.pc = at;
    if (!l) {
      m.len = 1;
      m.kind = MK_UNKNOWN;
    } else {
      m.len = (uint8_t)l;
    }
    const lrow *r = fe_mc_line_at(&c->rows, at);
    m.file = r ? fe_mc_file_index(c, r->file) : fn->file;
    m.line = r ? r->line : 0;
    if (m.file == CB_NONE)
      m.file = fn->file;
    if (l)
      fe_mc_classify(c, &m, text, 0);
    /* a load of a constant global that an inline copy reads
       (lower_memop.c): no IR load stands for it, and it may have been
       hoisted out of the copy's block; taken where it is */
    if (m.kind == MK_MEM && !m.write && m.target)
      for (uint32_t k = 0; k < f->copy_srcs.n; k++) {
        const fe_copy_src *cs = &f->copy_srcs.v[k];
        if (cs->func == fi && m.target + c->base >= cs->lo &&
            m.target + c->base < cs->hi)
          m.kind = MK_CONST;
      }
    FE_PUSH(ins, m);
    at += m.len;
    /* valgrind runs bt/bts/btr/btc of a register on a copy at rsp - 288:
       the copy's store and the tested byte's load, for bts and the like
       the byte's store (one modify, which cachegrind counts as a read)
       and the copy's load back (VEX, dis_bt_G_E); accesses of the
       instruction that cachegrind counts on its line */
    int reg;
    int64_t off;
    if (m.vex_bt && fe_mc_cfa_rule(c, m.pc, &reg, &off) && reg == 7) {
      uint8_t sz = m.size;
      struct {
        uint8_t size, write;
      } seq[3] = {{sz, 1}, {1, 0}, {sz, 0}};
      unsigned nseq = m.vex_bt == 1 ? 2 : 3;
      for (unsigned k = 0; k < nseq; k++) {
        minst x = m;
        x.len = 0;
        x.kind = MK_STACK;
        x.size = seq[k].size;
        x.write = seq[k].write;
        x.cfa_off = -288 - off;
        x.has_cfa = true;
        FE_PUSH(ins, x);
      }
    }
  }
  fe_mc_dead_loads(ins.v, ins.n);
  /* a vararg function's register save area: where the prologue stores
     the first unnamed argument register (ABI 3.5.7: rdi..r9 at 0..47,
     xmm0..7 at 48..175; the named ones go elsewhere, or nowhere) */
  bool have_save = false;
  int64_t save_off = 0;
  for (uint32_t i = 0; fn->va_save1 && i < ins.n && !have_save; i++) {
    const minst *m = &ins.v[i];
    if (m->kind != MK_STACK || !m->write || m->src_arg < 0)
      continue;
    int k = m->src_arg;
    if (k < 8 ? k < fn->va_gp : k - 8 < fn->va_fp)
      continue;
    save_off = m->cfa_off - (k < 8 ? 8 * k : 48 + 16 * (k - 8));
    have_save = true;
    uint32_t obj = fn->va_save1 - 1;
    if (obj < f->frame_objs.n &&
        f->frame_objs.v[obj].frame_offset == CB_FRAME_OFFSET_UNKNOWN)
      c->fo_new[obj] = save_off;
  }
  /* the prologue: pushes, then `sub rsp, N` (or its CFA) */
  uint32_t npush = 0;
  for (uint32_t i = 0; i < ins.n; i++) {
    if (ins.v[i].kind == MK_PUSH) {
      npush++;
      continue;
    }
    if (ins.v[i].kind == MK_NONE && i < 3)
      continue; /* mov rbp, rsp and the like */
    break;
  }
  uint64_t frame = fe_mc_body_frame(c, ins.v, ins.n);
  fn->n_saved_regs = (uint8_t)(npush > 255 ? 255 : npush);
  /* no pushes at the entry: a shrink-wrapped prologue (LLVM's
     ShrinkWrap) saves registers after an early exit's test, on the paths
     that need them, and restores them before those paths' `ret`. Its
     pushes and pops are accesses of their blocks, at the addresses the
     call-frame rules give (CFA = rsp + off before each) */
  for (uint32_t i = 0; npush == 0 && i < ins.n; i++) {
    minst *m = &ins.v[i];
    int reg;
    int64_t off;
    if ((m->kind != MK_PUSH && m->kind != MK_POP) ||
        !fe_mc_cfa_rule(c, m->pc, &reg, &off) || reg != 7)
      continue;
    m->write = m->kind == MK_PUSH;
    m->cfa_off = m->write ? -off - 8 : -off;
    m->size = 8;
    m->kind = MK_STACK;
    m->has_cfa = true;
    m->wrapped = true;
  }
  /* pushes past the prologue: a call's stack arguments, which the x86
     backend pushes instead of storing into a reserved area
     (X86CallFrameOptimization; printf with more than six arguments),
     each a store at the CFA offset the call-frame rules give; their IR
     is the call's arguments, no access of its own */
  for (uint32_t i = npush; npush && i < ins.n; i++) {
    minst *m = &ins.v[i];
    int reg;
    int64_t off;
    if (m->kind != MK_PUSH || !fe_mc_cfa_rule(c, m->pc, &reg, &off) || reg != 7)
      continue;
    m->write = true;
    m->cfa_off = -off - 8;
    m->size = 8;
    m->kind = MK_STACK;
    m->has_cfa = true;
    m->arg_push = true;
  }
  /* the pops right before the first ret: pushes beyond them were dropped
     with `add rsp` (an alignment push of a scratch register) */
  for (uint32_t i = 0; i < ins.n; i++)
    if (ins.v[i].kind == MK_RET ||
        (ins.v[i].kind == MK_JMP && i && ins.v[i - 1].kind == MK_POP &&
         (ins.v[i].target < lo || ins.v[i].target >= lo + size))) {
      /* (or a tail call's jump) */
      uint32_t npop = 0;
      while (npop < i && ins.v[i - 1 - npop].kind == MK_POP)
        npop++;
      if (npop < npush && npop)
        fn->n_unpopped = (uint8_t)(npush - npop > 255 ? 255 : npush - npop);
      break;
    }
  if (frame)
    fn->frame_size = (uint32_t)frame;
  /* frame-pointer functions: reclassify rsp-based accesses with the frame */
  /* entry and exit sites */
  uint32_t sf = fe_mc_src_func(f, fi);
  {
    uint32_t efile = ins.n ? ins.v[0].file : fn->file;
    uint32_t eline = ins.n ? ins.v[0].line : fn->line;
    uint32_t xfile = efile, xline = eline;
    bool have_ret = false;
    for (uint32_t i = 0; i < ins.n; i++)
      if (ins.v[i].kind == MK_RET) {
        xfile = ins.v[i].file;
        xline = ins.v[i].line;
        have_ret = true;
        break;
      }
    /* none (every exit a tail call): the pops before the jump */
    for (uint32_t i = 0; !have_ret && i + 1 < ins.n; i++)
      if (ins.v[i].kind == MK_POP &&
          (ins.v[i + 1].kind == MK_JMP || ins.v[i + 1].kind == MK_IJMP)) {
        xfile = ins.v[i].file;
        xline = ins.v[i].line;
        break;
      }
    cb_fn_mach fm = {
        fe_mc_site(c, efile, eline, sf, 8, true, "saved registers"),
        fe_mc_site(c, xfile, xline, sf, 8, false, "return")};
    f->fn_mach_v[fi] = fm;
  }
  /* blocks */
  uint8_t *leader = calloc(ins.n + 1, 1);
  if (ins.n)
    leader[0] = 1;
  for (uint32_t i = 0; i < ins.n; i++) {
    const minst *m = &ins.v[i];
    if (m->kind == MK_JMP || m->kind == MK_JCC || m->kind == MK_RET ||
        m->kind == MK_IJMP)
      leader[i + 1] = 1;
    if (m->kind == MK_JMP || m->kind == MK_JCC) {
      /* binary search the target */
      uint32_t a = 0, b = ins.n;
      while (a < b) {
        uint32_t mid = (a + b) / 2;
        if (ins.v[mid].pc < m->target)
          a = mid + 1;
        else
          b = mid;
      }
      if (a < ins.n && ins.v[a].pc == m->target)
        leader[a] = 1;
    }
  }
  FE_VEC(mblock) mb = {0};
  uint32_t *blk_of = calloc(ins.n + 1, sizeof *blk_of);
  for (uint32_t i = 0; i < ins.n; i++) {
    if (leader[i]) {
      mblock b;
      memset(&b, 0, sizeof b);
      b.first = i;
      b.ir = CB_NONE;
      FE_PUSH(mb, b);
    }
    mb.v[mb.n - 1].n++;
    blk_of[i] = mb.n - 1;
  }
  uint32_t prologue_end = npush;
  for (uint32_t bi = 0; bi < mb.n; bi++) {
    mblock *b = &mb.v[bi];
    const minst *last = &ins.v[b->first + b->n - 1];
    if (last->kind == MK_JMP || last->kind == MK_JCC) {
      if (last->target >= lo && last->target < lo + size) {
        uint32_t a = 0, e = ins.n;
        while (a < e) {
          uint32_t mid = (a + e) / 2;
          if (ins.v[mid].pc < last->target)
            a = mid + 1;
          else
            e = mid;
        }
        if (a < ins.n && ins.v[a].pc == last->target)
          b->succ[b->n_succ++] = blk_of[a];
        else
          b->unknown_succ = true;
      }
    }
    if (last->kind == MK_IJMP)
      b->unknown_succ = true;
    if (last->kind != MK_JMP && last->kind != MK_RET && last->kind != MK_IJMP &&
        !(last->kind == MK_CALL && noreturn_call_at(f, fn, last)) &&
        bi + 1 < mb.n)
      b->succ[b->n_succ++] = bi + 1;
    /* keys and hidden accesses */
    FE_VEC(uint64_t) keys = {0};
    for (uint32_t i = b->first; i < b->first + b->n; i++) {
      const minst *m = &ins.v[i];
      if (m->kind == MK_MEM)
        FE_PUSH(keys, mkkey(m->file, m->line, 0));
      else if (m->kind == MK_CALL)
        FE_PUSH(keys, mkkey(m->file, m->line, 1));
      else if (m->kind == MK_JCC && i == b->first + b->n - 1)
        FE_PUSH(keys, mkkey(m->file, m->line, 2));
      else if ((m->kind == MK_STACK || m->kind == MK_CONST) &&
               i >= prologue_end)
        b->n_hidden++;
    }
    if (keys.n)
      qsort(keys.v, keys.n, sizeof *keys.v, key_cmp);
    b->keys = keys.v;
    b->n_keys = keys.n;
  }
  for (uint32_t bi = 0; bi < mb.n; bi++)
    for (uint32_t s = 0; s < mb.v[bi].n_succ; s++)
      FE_PUSH(mb.v[mb.v[bi].succ[s]].preds, bi);
  /* An indirect jump (a computed goto, a switch's jump table) goes to the
     blocks nothing else reaches: no branch, no fall-through. Without them
     as its successors, the labels of a computed goto were unreachable
     and no IR block took their spills (a -O0 interpreter's every op). */
  FE_VEC(uint32_t) orphans = {0};
  bool any_ijmp = false;
  for (uint32_t bi = 0; bi < mb.n; bi++)
    any_ijmp |= ins.v[mb.v[bi].first + mb.v[bi].n - 1].kind == MK_IJMP;
  for (uint32_t bi = 1; any_ijmp && bi < mb.n; bi++)
    if (!mb.v[bi].preds.n)
      FE_PUSH(orphans, bi);
  for (uint32_t bi = 0; orphans.n && bi < mb.n; bi++)
    if (ins.v[mb.v[bi].first + mb.v[bi].n - 1].kind == MK_IJMP)
      for (uint32_t k = 0; k < orphans.n; k++)
        FE_PUSH(mb.v[orphans.v[k]].preds, bi);
  /* IR blocks' keys */
  uint8_t *is_alloca = fe_mc_alloca_slots(f, fi);
  uint32_t *fo_of = malloc((fn->n_slots + 1) * sizeof *fo_of);
  int64_t *fo_off = malloc((fn->n_slots + 1) * sizeof *fo_off);
  fe_mc_alloca_bases(f, fi, fo_of, fo_off);
  irblk *ib = calloc(fn->n_blocks + 1, sizeof *ib);
  for (uint32_t b = 0; b < fn->n_blocks; b++) {
    const cb_block *bl = &f->blocks.v[fn->first_block + b];
    FE_VEC(uint64_t) keys = {0};
    for (uint32_t o = 0; o < bl->n_ops; o++) {
      const cb_op *op = &f->ops.v[bl->first_op + o];
      uint32_t site = CB_NONE;
      bool call = false;
      if (op->code == CB_OP_LOAD || op->code == CB_OP_STORE) {
        site = op->aux;
      } else if (op->code == CB_OP_CALL && fe_mc_real_call(f, op)) {
        site = (uint32_t)f->extra.v[op->aux + 2];
        call = true;
      }
      if (site >= f->sites.n)
        continue;
      const cb_site *s = &f->sites.v[site];
      FE_PUSH(keys, mkkey(s->file, s->line, call));
    }
    if (bl->n_ops) {
      const cb_op *t = &f->ops.v[bl->first_op + bl->n_ops - 1];
      uint32_t bp = CB_NONE;
      if (t->code == CB_OP_BR && t->a != CB_NONE)
        bp = t->aux;
      else if (t->code == CB_OP_SWITCH)
        bp = (uint32_t)f->extra.v[t->aux + 1 + 2 * f->extra.v[t->aux]];
      if (bp < f->branches.n)
        FE_PUSH(keys, mkkey(f->branches.v[bp].file, f->branches.v[bp].line, 2));
    }
    if (keys.n)
      qsort(keys.v, keys.n, sizeof *keys.v, key_cmp);
    ib[b].keys = keys.v;
    ib[b].n_keys = keys.n;
    ib[b].m = CB_NONE;
  }
  /* the two CFGs, their dominators, post-dominators and loops */
  fe_cfg mg = {.n = mb.n,
               .soff = calloc(mb.n + 1, sizeof(uint32_t)),
               .exits = calloc(mb.n + 1, 1),
               .jcc = calloc(mb.n + 1, 1),
               .plain = calloc(mb.n + 1, 1)};
  uint8_t *ijmp = calloc(mb.n + 1, 1);
  for (uint32_t i = 0; i < mb.n; i++)
    ijmp[i] = orphans.n && ins.v[mb.v[i].first + mb.v[i].n - 1].kind == MK_IJMP;
  for (uint32_t i = 0; i < mb.n; i++)
    mg.soff[i + 1] = mg.soff[i] + mb.v[i].n_succ + (ijmp[i] ? orphans.n : 0);
  mg.succ = malloc((mg.soff[mb.n] + 1) * sizeof *mg.succ);
  for (uint32_t i = 0; i < mb.n; i++) {
    for (uint32_t k = 0; k < mb.v[i].n_succ; k++)
      mg.succ[mg.soff[i] + k] = mb.v[i].succ[k];
    for (uint32_t k = 0; ijmp[i] && k < orphans.n; k++)
      mg.succ[mg.soff[i] + mb.v[i].n_succ + k] = orphans.v[k];
    mg.exits[i] = ijmp[i] ? false : mb.v[i].unknown_succ || !mb.v[i].n_succ;
    mg.jcc[i] = ins.v[mb.v[i].first + mb.v[i].n - 1].kind == MK_JCC;
    mg.plain[i] = !mb.v[i].n_keys && !mb.v[i].n_hidden;
  }
  fe_cfg ig = {.n = fn->n_blocks,
               .soff = calloc(fn->n_blocks + 1, sizeof(uint32_t)),
               .exits = calloc(fn->n_blocks + 1, 1)};
  for (uint32_t j = 0; j < fn->n_blocks; j++)
    ig.soff[j + 1] = ig.soff[j] + f->blocks.v[fn->first_block + j].n_succ;
  ig.succ = malloc((ig.soff[fn->n_blocks] + 1) * sizeof *ig.succ);
  for (uint32_t j = 0; j < fn->n_blocks; j++) {
    const cb_block *bl = &f->blocks.v[fn->first_block + j];
    for (uint32_t q = 0; q < bl->n_succ; q++)
      ig.succ[ig.soff[j] + q] = f->succs.v[bl->first_succ + q];
    ig.exits[j] = !bl->n_succ;
  }
  fe_cfg_build(&mg);
  fe_cfg_build(&ig);
  uint32_t *pair = malloc((mb.n + 1) * sizeof *pair);
  uint32_t *from = malloc((mb.n + 1) * sizeof *from);
  uint8_t *anchor = calloc(mb.n + 1, 1), *need = calloc(mb.n + 1, 1);
  for (uint32_t i = 0; i < mb.n; i++) {
    pair[i] = from[i] = CB_NONE;
    need[i] = mb.v[i].n_hidden > 0;
  }
  /* anchors: the entry blocks, then greedy pairing by the share of keys
     in common, for pairs with a memory access or call in common (a
     branch's line alone is too weak: a loop nest has several on one
     line) that stand in the same relations to the anchors taken */
  uint32_t *al = malloc((mb.n + 1) * sizeof *al), na = 0;
  if (mb.n && fn->n_blocks) {
    pair[0] = 0;
    anchor[0] = 1;
    ib[0].m = 0;
    al[na++] = 0;
  }
  /* Blocks with the same access and call keys (an unrolled loop's
     copies: the same calls on the same lines) are told apart by their order in
     the dominator tree: when both sides have as many of them, the k-th
     machine block stands for the k-th IR block. rank: the place among
     the blocks of equal keys, in dominator preorder; group: how many. */
  uint32_t *m_rank = calloc(mb.n + 1, sizeof *m_rank);
  uint32_t *m_group = calloc(mb.n + 1, sizeof *m_group);
  uint32_t *i_rank = calloc(fn->n_blocks + 1, sizeof *i_rank);
  uint32_t *i_group = calloc(fn->n_blocks + 1, sizeof *i_group);
  /* (only for a chain of three copies or more, each dominating the
     next; group 0 when the equal blocks are not one: two blocks of equal
     keys are as often a loop's rotated test as copies) */
  for (uint32_t i = 0; i < mb.n; i++) {
    bool chain = true;
    for (uint32_t q = 0; q < mb.n && mg.reach[i]; q++)
      if (mg.reach[q] && same_call_keys(mb.v[q].keys, mb.v[q].n_keys,
                                        mb.v[i].keys, mb.v[i].n_keys)) {
        m_group[i]++;
        m_rank[i] += mg.dpre[q] < mg.dpre[i];
        chain &= fe_cfg_dom(&mg, q, i) || fe_cfg_dom(&mg, i, q);
      }
    if (!chain)
      m_group[i] = 0;
  }
  for (uint32_t j = 0; j < fn->n_blocks; j++) {
    bool chain = true;
    for (uint32_t q = 0; q < fn->n_blocks && ig.reach[j]; q++)
      if (ig.reach[q] &&
          same_call_keys(ib[q].keys, ib[q].n_keys, ib[j].keys, ib[j].n_keys)) {
        i_group[j]++;
        i_rank[j] += ig.dpre[q] < ig.dpre[j];
        chain &= fe_cfg_dom(&ig, q, j) || fe_cfg_dom(&ig, j, q);
      }
    if (!chain)
      i_group[j] = 0;
  }
  FE_VEC(cand) cs = {0};
  for (uint32_t i = 1; i < mb.n; i++) {
    if (!mb.v[i].n_keys || !mg.reach[i])
      continue;
    for (uint32_t j = 0; j < fn->n_blocks; j++) {
      if (!ib[j].n_keys)
        continue;
      uint32_t k =
          common(mb.v[i].keys, mb.v[i].n_keys, ib[j].keys, ib[j].n_keys);
      if (!k || !common_access(mb.v[i].keys, mb.v[i].n_keys, ib[j].keys,
                               ib[j].n_keys))
        continue;
      uint32_t mx =
          mb.v[i].n_keys > ib[j].n_keys ? mb.v[i].n_keys : ib[j].n_keys;
      double pi = (double)i / mb.n, pj = (double)j / fn->n_blocks;
      double dist = pi > pj ? pi - pj : pj - pi;
      double score = (double)k / mx;
      if (m_group[i] > 2 && m_group[i] == i_group[j] &&
          same_call_keys(mb.v[i].keys, mb.v[i].n_keys, ib[j].keys,
                         ib[j].n_keys)) {
        if (m_rank[i] != i_rank[j])
          continue; /* another copy's */
        score = score > 0.5 ? score : 0.5;
        dist = -1; /* the copy's place */
      }
      cand cd = {score, dist, i, j};
      FE_PUSH(cs, cd);
    }
  }
  free(m_rank);
  free(m_group);
  free(i_rank);
  free(i_group);
  if (cs.n)
    qsort(cs.v, cs.n, sizeof *cs.v, cand_cmp);
  for (uint32_t k = 0; k < cs.n; k++) {
    cand *cd = &cs.v[k];
    if (cd->score < 0.5)
      break;
    if (pair[cd->mb] != CB_NONE || ib[cd->ib].m != CB_NONE ||
        !fe_cfg_consistent(&mg, &ig, pair, al, na, cd->mb, cd->ib))
      continue;
    pair[cd->mb] = cd->ib;
    anchor[cd->mb] = 1;
    al[na++] = cd->mb;
    ib[cd->ib].m = cd->mb;
  }
  /* the other blocks by their relations to the anchors */
  keyctx kc = {mb.v, ib};
  fe_cfg_pair(&mg, &ig, pair, from, anchor, need, share_key, &kc);
  for (uint32_t i = 0; i < mb.n; i++) {
    mb.v[i].ir = pair[i];
    mb.v[i].from = from[i];
  }
  /* a vararg prologue's xmm spills, a block of their own that %al skips:
     the entry's (their accesses carry va_xmm) */
  for (uint32_t i = 1; have_save && i < mb.n; i++) {
    mblock *b = &mb.v[i];
    bool spills = b->ir == CB_NONE && b->n_hidden > 0;
    for (uint32_t k = b->first; spills && k < b->first + b->n; k++) {
      const minst *m = &ins.v[k];
      if (m->kind == MK_STACK || m->kind == MK_CONST || m->kind == MK_MEM)
        spills = m->kind == MK_STACK && m->write && m->src_arg >= 8 &&
                 m->cfa_off >= save_off + 48 && m->cfa_off < save_off + 176;
    }
    if (spills)
      b->ir = 0;
  }
  /* a return the code generator copied into a predecessor (tail
     duplication; CodeGenPrepare's dupRetToEnableTailCallOpts): an
     unpaired block ending in `ret`, entered from one block paired with
     IR block A, stands for A's successor that returns, on A's edge */
  for (uint32_t i = 0; i < mb.n; i++) {
    mblock *b = &mb.v[i];
    if (b->ir != CB_NONE || !b->n_hidden || !mg.reach[i] ||
        ins.v[b->first + b->n - 1].kind != MK_RET)
      continue;
    uint32_t pi = CB_NONE, npred = 0;
    for (uint32_t k = 0; k < b->preds.n; k++)
      if (mg.reach[b->preds.v[k]]) {
        pi = b->preds.v[k];
        npred++;
      }
    if (npred != 1 || mb.v[pi].ir == CB_NONE)
      continue;
    uint32_t a = mb.v[pi].ir, x = CB_NONE, nx = 0;
    const cb_block *ab = &f->blocks.v[fn->first_block + a];
    for (uint32_t q = 0; q < ab->n_succ; q++) {
      uint32_t y = f->succs.v[ab->first_succ + q];
      const cb_block *yb = &f->blocks.v[fn->first_block + y];
      if (y != a && yb->n_ops &&
          f->ops.v[yb->first_op + yb->n_ops - 1].code == CB_OP_RET) {
        x = y;
        nx++;
      }
    }
    if (nx == 1) {
      b->ir = x;
      b->from = a;
    }
  }
  /* sqrt and sqrtf with errno (clang's default): the code generator
     computes them inline and calls libm only when `x >= 0` fails (LLVM's
     PartiallyInlineLibCalls): a block ends in that test and leads to a
     block with the call (the slow path, with the register allocator's
     spills around it) and to one with the sqrt instruction, which meet
     again. The IR has the call alone: both paths' accesses belong to its
     block, made after the call, on the path the call took
     (cb_mach_access.sqrt_path). */
  uint8_t *sq_path = calloc(mb.n + 1, 1);
  uint32_t *sq_op = calloc(mb.n + 1, sizeof *sq_op);
  typedef struct diamond {
    uint32_t slow, fast, test, call; /* blocks, the call instruction */
    uint32_t ir;                     /* the IR block of the call */
  } diamond;
  FE_VEC(diamond) dia = {0};
  /* a slow path: one call, entered from the tests (several when tail
     duplication copied the test into the paths before it), leading to
     one join; the fast path: the sqrt instruction, leading to the same
     join, entered from the same tests or through a jump of its own */
  uint8_t *is_test = calloc(mb.n + 1, 1);
  for (uint32_t i = 0; i < mb.n; i++) {
    const mblock *b = &mb.v[i];
    uint32_t call = CB_NONE, ncall = 0, test = CB_NONE, ir = b->ir;
    for (uint32_t k = b->first; k < b->first + b->n; k++)
      if (ins.v[k].kind == MK_CALL) {
        call = k;
        ncall++;
      }
    if (ncall != 1 || b->n_succ != 1 || !mg.reach[i])
      continue;
    bool ok = true;
    for (uint32_t k = 0; k < b->preds.n && ok; k++) {
      uint32_t q = b->preds.v[k];
      if (!mg.reach[q])
        continue;
      const mblock *pb = &mb.v[q];
      ok = pb->n_succ == 2 && ins.v[pb->first + pb->n - 1].kind == MK_JCC;
      is_test[q] = 1;
      if (test == CB_NONE || mg.dpre[q] < mg.dpre[test])
        test = q;
      if (ir == CB_NONE)
        ir = pb->ir;
    }
    uint32_t fast = CB_NONE, nfast = 0;
    for (uint32_t q = 0; ok && test != CB_NONE && q < mb.n; q++) {
      const mblock *fb = &mb.v[q];
      bool has_sqrt = false;
      for (uint32_t k = fb->first; k < fb->first + fb->n; k++)
        has_sqrt |= ins.v[k].is_sqrt;
      if (!has_sqrt || fb->n_succ != 1 || fb->succ[0] != b->succ[0] ||
          !mg.reach[q])
        continue;
      bool from_tests = true;
      for (uint32_t k = 0; k < fb->preds.n && from_tests; k++) {
        uint32_t r = fb->preds.v[k];
        if (!mg.reach[r] || is_test[r])
          continue;
        const mblock *jb = &mb.v[r];
        from_tests = jb->n_succ == 1 && !jb->n_keys && !jb->n_hidden;
        for (uint32_t t = 0; t < jb->preds.n && from_tests; t++)
          from_tests = !mg.reach[jb->preds.v[t]] || is_test[jb->preds.v[t]];
      }
      if (from_tests) {
        fast = q;
        nfast++;
      }
    }
    for (uint32_t k = 0; k < b->preds.n; k++)
      is_test[b->preds.v[k]] = 0;
    if (ok && nfast == 1 && ir != CB_NONE) {
      diamond d = {i, fast, test, call, ir};
      FE_PUSH(dia, d);
    }
  }
  free(is_test);
  /* the IR's sqrt calls of a block on one line, in order, against the
     diamonds of that block and line in dominance order (an unrolled
     loop's copies; a rotated loop places the last one first) */
  for (uint32_t a = 0; a < dia.n; a++) {
    const diamond *d = &dia.v[a];
    if (sq_path[d->slow])
      continue;
    uint32_t ir = d->ir;
    uint32_t file = ins.v[d->call].file, line = ins.v[d->call].line;
    FE_VEC(uint32_t) grp = {0};
    for (uint32_t q = a; q < dia.n; q++) {
      const diamond *e2 = &dia.v[q];
      if (e2->ir == ir && ins.v[e2->call].file == file &&
          ins.v[e2->call].line == line) {
        /* insertion by the test block's place in the dominator tree */
        uint32_t at = grp.n;
        FE_PUSH(grp, q);
        while (at > 0 &&
               mg.dpre[dia.v[grp.v[at - 1]].test] > mg.dpre[e2->test]) {
          grp.v[at] = grp.v[at - 1];
          at--;
        }
        grp.v[at] = q;
      }
    }
    const cb_block *bl = &f->blocks.v[fn->first_block + ir];
    FE_VEC(uint32_t) calls = {0};
    for (uint32_t o = 0; o < bl->n_ops; o++) {
      const cb_op *op = &f->ops.v[bl->first_op + o];
      if (op->code != CB_OP_CALL)
        continue;
      const int64_t *g = &f->extra.v[op->aux];
      uint32_t cs = (uint32_t)g[2];
      if (g[0] == CB_CALL_LIBC &&
          (g[1] == CB_LIBC_SQRT || g[1] == CB_LIBC_SQRTF) && cs < f->sites.n &&
          f->sites.v[cs].line == line && f->sites.v[cs].file == file)
        FE_PUSH(calls, bl->first_op + o);
    }
    /* tail duplication may merge a slow path with the next copy's test
       (-O3), and such a diamond is not found: the ones found are then
       taken as the last calls (an unrolled loop's last copy keeps its
       shape), which decides only where their accesses go when that call
       does call the library */
    for (uint32_t q = 0; calls.n >= grp.n && q < grp.n; q++) {
      const diamond *e2 = &dia.v[grp.v[q]];
      sq_path[e2->slow] = 1;
      sq_path[e2->fast] = 2;
      sq_op[e2->slow] = sq_op[e2->fast] = calls.v[calls.n - grp.n + q];
      mb.v[e2->slow].ir = mb.v[e2->fast].ir = ir;
      mb.v[e2->slow].from = mb.v[e2->fast].from = CB_NONE;
    }
    for (uint32_t q = 0; q < grp.n; q++)
      sq_path[dia.v[grp.v[q]].slow] |= 4; /* seen */
    free(grp.v);
    free(calls.v);
  }
  for (uint32_t i = 0; i < mb.n; i++)
    if (sq_path[i] == 4)
      sq_path[i] = 0;
    else
      sq_path[i] &= 3;
  free(dia.v);
  /* tail calls: a block that leaves the function by a jump (to another
     function or its PLT entry) or an indirect jump, standing for an IR
     block that ends in a call and `ret`: that call is a jump after the
     epilogue (cb_site.is_tail) */
  for (uint32_t i = 0; i < mb.n; i++) {
    const mblock *b = &mb.v[i];
    const minst *last = &ins.v[b->first + b->n - 1];
    bool leaves = (last->kind == MK_JMP &&
                   (last->target < lo || last->target >= lo + size)) ||
                  last->kind == MK_IJMP;
    if (!leaves || !mg.reach[i])
      continue;
    uint32_t site = CB_NONE, nfound = 0;
    for (uint32_t j = 0; j < fn->n_blocks; j++) {
      if (b->ir != CB_NONE && j != b->ir)
        continue;
      const cb_block *bl = &f->blocks.v[fn->first_block + j];
      if (bl->n_ops < 2)
        continue;
      const cb_op *rt = &f->ops.v[bl->first_op + bl->n_ops - 1];
      const cb_op *cl = rt - 1;
      if (cl->code != CB_OP_CALL || !fe_mc_real_call(f, cl))
        continue;
      /* `ret`, or a branch to a block of phis and `ret`, of the call's
         value (the code generator copies such a return into the
         predecessors: CodeGenPrepare's dupRetToEnableTailCallOpts) */
      cb_operand rv = rt->a;
      if (rt->code == CB_OP_BR && rt->a == CB_NONE && bl->n_succ == 1) {
        uint32_t k = f->succs.v[bl->first_succ];
        const cb_block *kb = &f->blocks.v[fn->first_block + k];
        const cb_op *kr = &f->ops.v[kb->first_op + kb->n_ops - 1];
        bool phis = kb->n_ops >= 1 && kr->code == CB_OP_RET;
        rv = kr->a;
        for (uint32_t o = 0; phis && o + 1 < kb->n_ops; o++) {
          const cb_op *ph = &f->ops.v[kb->first_op + o];
          phis = ph->code == CB_OP_PHI;
          if (!phis || ph->dst != kr->a)
            continue;
          const int64_t *g = &f->extra.v[ph->aux];
          for (int64_t q = 0; q < g[0]; q++)
            if ((uint32_t)g[1 + 2 * q] == j)
              rv = (cb_operand)g[2 + 2 * q];
        }
        if (!phis)
          continue;
      } else if (rt->code != CB_OP_RET) {
        continue;
      }
      if (rv != CB_NONE && rv != cl->dst)
        continue; /* returns something else than the call's value */
      uint32_t cs = (uint32_t)f->extra.v[cl->aux + 2];
      if (cs >= f->sites.n ||
          (b->ir == CB_NONE && (f->sites.v[cs].line != last->line ||
                                f->sites.v[cs].file != last->file)))
        continue;
      site = cs;
      nfound++;
    }
    if (nfound == 1)
      f->sites.v[site].is_tail = 1;
  }
  free(pair);
  free(from);
  free(al);
  free(anchor);
  free(need);
  fe_cfg_free(&mg);
  fe_cfg_free(&ig);
  if (getenv("CBANA_DEBUG_MACHINE")) {
    fprintf(stderr, "function %s\n", fn->name);
    for (uint32_t i = 0; i < mb.n; i++) {
      const mblock *b = &mb.v[i];
      fprintf(stderr, "  m%u %#lx+%u hidden %u ir %d from %d keys", i,
              (unsigned long)ins.v[b->first].pc, b->n, b->n_hidden,
              b->ir == CB_NONE ? -1 : (int)b->ir,
              b->from == CB_NONE ? -1 : (int)b->from);
      for (uint32_t k = 0; k < b->n_keys; k++)
        fprintf(stderr, " %u:%u", (unsigned)((b->keys[k] >> 2) & 0xffffffff),
                (unsigned)(b->keys[k] & 3));
      fprintf(stderr, " preds");
      for (uint32_t k = 0; k < b->preds.n; k++)
        fprintf(stderr, " m%u", b->preds.v[k]);
      fprintf(stderr, " succs");
      for (uint32_t k = 0; k < b->n_succ; k++)
        fprintf(stderr, " m%u", b->succ[k]);
      fprintf(stderr, "\n");
    }
  }
  /* IR accesses of stack objects per line, to take from the hidden ones.
     A straight run of IR blocks (each the only successor of the one
     before, which is its only predecessor) that no other machine block
     stands for is one machine block: FastISel (-O0) lays them out in a
     row and only branch targets cut the machine code, so a loop's body
     and its increment come as one, and the increment's loads and stores
     of its counter are the IR's own too. */
  {
    uint32_t *mir = malloc((mb.n + 1) * sizeof *mir);
    uint32_t *mfirst = malloc((mb.n + 1) * sizeof *mfirst);
    uint32_t *mcount = malloc((mb.n + 1) * sizeof *mcount);
    for (uint32_t i = 0; i < mb.n; i++) {
      mir[i] = mb.v[i].from == CB_NONE ? mb.v[i].ir : CB_NONE;
      mfirst[i] = mb.v[i].first;
      mcount[i] = mb.v[i].n;
    }
    /* inline copies in the machine code's order */
    if (f->copy_grps.n)
      fe_mc_order_copies(c, fi, ins.v, mb.n, mir, mfirst, mcount);
    /* adjacent loads and stores made one wider access */
    fe_mc_merged(c, fi, ins.v, mb.n, mir, mfirst, mcount);
    /* odd-width integers as the machine code reads and writes them */
    fe_mc_wide(c, fi, ins.v, mb.n, mir, mfirst, mcount);
    free(mir);
    free(mfirst);
    free(mcount);
  }
  uint8_t *ir_paired = calloc(fn->n_blocks + 1, 1);
  for (uint32_t i = 0; i < mb.n; i++)
    if (mb.v[i].ir != CB_NONE)
      ir_paired[mb.v[i].ir] = 1;
  for (uint32_t i = 0; i < mb.n; i++) {
    mblock *b = &mb.v[i];
    if (!b->n_hidden)
      continue;
    c->f->mach_stats.blocks++;
    if (b->ir == CB_NONE) {
      c->f->mach_stats.blocks_unmatched++;
      c->f->mach_stats.accesses_dropped += b->n_hidden;
      continue;
    }
    const cb_block *bl = &f->blocks.v[fn->first_block + b->ir];
    /* (file, line) of the IR's stack-object accesses not already seen as
       indexed stack accesses */
    FE_VEC(owed_t) owed = {0};
    uint32_t run_lo = b->ir, run_hi = b->ir;
    for (;;) { /* back: the only predecessor, whose only successor */
      const cb_block *x = &f->blocks.v[fn->first_block + run_lo];
      if (x->n_pred != 1)
        break;
      uint32_t w = f->preds.v[x->first_pred];
      const cb_block *wb = &f->blocks.v[fn->first_block + w];
      if (wb->n_succ != 1 || ir_paired[w] || w == run_hi || w == b->ir)
        break;
      run_lo = w;
    }
    for (;;) { /* on: the only successor, whose only predecessor */
      const cb_block *x = &f->blocks.v[fn->first_block + run_hi];
      if (x->n_succ != 1)
        break;
      uint32_t y = f->succs.v[x->first_succ];
      const cb_block *yb = &f->blocks.v[fn->first_block + y];
      if (yb->n_pred != 1 || ir_paired[y] || y == run_lo || y == 0)
        break;
      run_hi = y;
    }
    for (uint32_t j = run_lo;;) {
      const cb_block *rb = &f->blocks.v[fn->first_block + j];
      for (uint32_t o = 0; o < rb->n_ops; o++) {
        const cb_op *op = &f->ops.v[rb->first_op + o];
        cb_operand addr = op->code == CB_OP_LOAD    ? op->a
                          : op->code == CB_OP_STORE ? op->b
                                                    : CB_OPND_CONST;
        if ((addr & CB_OPND_CONST) || addr >= fn->n_slots || !is_alloca[addr])
          continue;
        const cb_site *s = &f->sites.v[op->aux];
        owed_t ow = {mkkey(s->file, s->line, 0), rb->first_op + o,
                     is_alloca[addr]};
        FE_PUSH(owed, ow);
      }
      if (j == run_hi)
        break;
      j = f->succs.v[rb->first_succ];
    }
    for (uint32_t k = b->first; k < b->first + b->n; k++) {
      const minst *m = &ins.v[k];
      if (m->kind != MK_MEM || !m->stack_indexed)
        continue;
      uint64_t key = mkkey(m->file, m->line, 0);
      for (uint32_t q = 0; q < owed.n; q++)
        if (owed.v[q].key == key) {
          owed.v[q] = owed.v[--owed.n];
          break;
        }
    }
    machvec *out = &per_block[b->ir];
    /* the IR block's real calls, and the machine calls before this block
       among the machine blocks that share its IR block */
    FE_VEC(uint32_t) ircalls = {0};
    for (uint32_t o = 0; o < bl->n_ops; o++) {
      const cb_op *op = &f->ops.v[bl->first_op + o];
      if (op->code == CB_OP_CALL && fe_mc_real_call(f, op))
        FE_PUSH(ircalls, bl->first_op + o);
    }
    uint32_t mcalls_total = 0, mcalls_before = 0, n_mblocks_of_ir = 0;
    for (uint32_t j = 0; j < mb.n; j++) {
      if (mb.v[j].ir != b->ir)
        continue;
      n_mblocks_of_ir++;
      for (uint32_t k = mb.v[j].first; k < mb.v[j].first + mb.v[j].n; k++)
        if (ins.v[k].kind == MK_CALL) {
          mcalls_total++;
          if (j < i)
            mcalls_before++;
        }
    }
    uint32_t ncalls = mcalls_before;
    for (uint32_t k = b->first; k < b->first + b->n; k++) {
      const minst *m = &ins.v[k];
      if (m->kind == MK_CALL)
        ncalls++;
      if ((m->kind != MK_STACK && m->kind != MK_CONST) || k < prologue_end)
        continue;
      if (m->kind == MK_STACK && !m->vex_bt && !m->wrapped && !m->arg_push) {
        uint64_t key = mkkey(m->file, m->line, 0);
        bool ir_own = false;
        /* the IR's access on this line in the same direction; else one
           without a line (-O0's stores of the parameters into their
           stack slots), of the same direction and size; else any on
           this line */
        for (int pass = 0; pass < 3 && !ir_own; pass++)
          for (uint32_t q = 0; q < owed.n; q++) {
            const cb_op *op = &f->ops.v[owed.v[q].op];
            const cb_site *os = &f->sites.v[op->aux];
            bool same_dir = (op->code == CB_OP_STORE) == m->write;
            /* a by-value parameter lies above the return address: the
               stores of an outgoing argument area below it are others */
            if (owed.v[q].kind == FE_MC_BYVAL &&
                !(m->has_cfa && m->cfa_off >= 0))
              continue;
            bool ok = pass == 0   ? owed.v[q].key == key && same_dir
                      : pass == 1 ? owed.v[q].key == mkkey(m->file, 0, 0) &&
                                        same_dir && os->size == m->size
                                  : owed.v[q].key == key;
            if (!ok)
              continue;
            fe_mc_derive_offset(c, owed.v[q].op, m, fo_of, fo_off, fn->n_slots);
            if (pass == 1) /* its line is the instruction's, as cachegrind
                              counts it */
              f->sites.v[op->aux].line = m->line;
            owed.v[q] = owed.v[--owed.n];
            ir_own = true;
            break;
          }
        if (ir_own || m->cfa_off == 0)
          continue;
      }
      /* the source function: an IR site of this line in the block */
      uint32_t func = sf;
      for (uint32_t o = 0; o < bl->n_ops; o++) {
        const cb_op *op = &f->ops.v[bl->first_op + o];
        if ((op->code == CB_OP_LOAD || op->code == CB_OP_STORE) &&
            op->aux < f->sites.n && f->sites.v[op->aux].line == m->line &&
            f->sites.v[op->aux].file == m->file) {
          func = f->sites.v[op->aux].func;
          break;
        }
      }
      const char *what = m->kind == MK_CONST      ? "constant"
                         : m->vex_bt              ? "bt's register (valgrind)"
                         : m->arg_push            ? "call arguments"
                         : m->wrapped && m->write ? "saved registers"
                         : m->wrapped             ? "restored registers"
                         : m->write               ? "spill"
                                                  : "reload";
      cb_mach_access ma;
      memset(&ma, 0, sizeof ma);
      ma.cfa_offset = m->kind == MK_STACK ? m->cfa_off : 0;
      ma.addr = m->kind == MK_CONST ? m->target + c->base : 0;
      ma.size = m->size;
      ma.is_write = m->write;
      ma.va_xmm = have_save && m->kind == MK_STACK && m->write &&
                  m->src_arg >= 8 && m->cfa_off >= save_off + 48 &&
                  m->cfa_off < save_off + 176;
      ma.from1 = b->from == CB_NONE ? 0 : b->from + 1;
      ma.site = fe_mc_site(c, m->file, m->line, func, m->size, m->write, what);
      /* after the ncalls-th call of the block: the same call of the IR
         when both have as many, else the last IR call on a line of a
         machine call before it */
      ma.op = bl->first_op;
      if (sq_path[i]) {
        /* either path of an inline sqrt: after its call, when taken */
        ma.op = sq_op[i] + 1;
        ma.sqrt_path = sq_path[i];
        FE_PUSH(*out, ma);
        n_hidden_in_block[b->ir]++;
        c->f->mach_stats.accesses++;
        continue;
      }
      if (ncalls && ircalls.n == mcalls_total) {
        ma.op = ircalls.v[ncalls - 1] + 1;
      } else if (ncalls) {
        uint32_t seen = 0;
        for (uint32_t q = b->first; q < k; q++) {
          if (ins.v[q].kind != MK_CALL)
            continue;
          for (uint32_t r = seen; r < ircalls.n; r++) {
            const cb_op *op = &f->ops.v[ircalls.v[r]];
            const cb_site *cs = &f->sites.v[f->extra.v[op->aux + 2]];
            if (cs->line == ins.v[q].line && cs->file == ins.v[q].file) {
              ma.op = ircalls.v[r] + 1;
              seen = r + 1;
              break;
            }
          }
        }
      }
      /* where it stands among the block's own accesses since the call
         before it (a constant loaded just before the store that uses
         it), when this is the IR block's only machine block and its calls
         are the IR's */
      if (ircalls.n == mcalls_total && b->from == CB_NONE &&
          n_mblocks_of_ir == 1) {
        uint32_t from = b->first;
        for (uint32_t q = b->first; q < k; q++)
          if (ins.v[q].kind == MK_CALL)
            from = q + 1;
        uint32_t at = mid_op(f, bl, ins.v, from, b->first + b->n, k, ma.op);
        if (at != CB_NONE)
          ma.op = at;
      }
      FE_PUSH(*out, ma);
      n_hidden_in_block[b->ir]++;
      c->f->mach_stats.accesses++;
    }
    free(ircalls.v);
    free(owed.v);
  }
  for (uint32_t i = 0; i < mb.n; i++) {
    free(mb.v[i].keys);
    free(mb.v[i].preds.v);
  }
  for (uint32_t j = 0; j < fn->n_blocks; j++)
    free(ib[j].keys);
  free(ib);
  free(cs.v);
  free(is_alloca);
  free(fo_of);
  free(fo_off);
  free(mb.v);
  free(blk_of);
  free(leader);
  free(orphans.v);
  free(ijmp);
  free(sq_path);
  free(sq_op);
  free(ir_paired);
  free(ins.v);
  c->f->mach_stats.functions++;
}

/* ---- the executable --------------------------------------------------------
 */

typedef struct xsec {
  uint64_t addr, size; /* file addresses */
  uint8_t *data;
} xsec;

void fe_machine(fe *f, const char *exe) {
  f->fn_mach_v = calloc(f->functions.n + 1, sizeof *f->fn_mach_v);
  for (uint32_t i = 0; i < f->functions.n; i++)
    f->fn_mach_v[i].entry_site = f->fn_mach_v[i].exit_site = CB_NONE;
  if (!exe || !f->elf.loaded)
    return;
  int fd = open(exe, O_RDONLY);
  if (fd < 0)
    return;
  Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
  Elf *elf = dw ? dwarf_getelf(dw) : NULL;
  if (!elf) {
    if (dw)
      dwarf_end(dw);
    close(fd);
    return;
  }
  static bool inited;
  if (!inited) {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86Disassembler();
    inited = true;
  }
  mctx c;
  memset(&c, 0, sizeof c);
  c.f = f;
  c.base = f->elf.base;
  c.dc = LLVMCreateDisasm("x86_64-pc-linux-gnu", NULL, 0, NULL, NULL);
  if (!c.dc) {
    dwarf_end(dw);
    close(fd);
    return;
  }
  LLVMSetDisasmOptions(c.dc, LLVMDisassembler_Option_AsmPrinterVariant);
  c.fo_new = malloc((f->frame_objs.n + 1) * sizeof *c.fo_new);
  c.fo_bad = calloc(f->frame_objs.n + 1, 1);
  for (uint32_t i = 0; i < f->frame_objs.n; i++)
    c.fo_new[i] = CB_FRAME_OFFSET_UNKNOWN;
  c.cfi = dwarf_getcfi_elf(elf);
  fe_mc_read_lines(f, dw, &c.rows);
  /* executable sections */
  FE_VEC(xsec) xs = {0};
  for (Elf_Scn *s = NULL; (s = elf_nextscn(elf, s));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh) || !(sh.sh_flags & SHF_EXECINSTR) ||
        sh.sh_type == SHT_NOBITS)
      continue;
    Elf_Data *d = elf_getdata(s, NULL);
    if (!d || !d->d_buf || d->d_size != sh.sh_size)
      continue;
    xsec x = {sh.sh_addr, sh.sh_size, d->d_buf};
    FE_PUSH(xs, x);
  }
  /* per-block hidden accesses, gathered per function then laid out */
  for (uint32_t fi = 0; fi < f->functions.n; fi++) {
    cb_function *fn = &f->functions.v[fi];
    if (!fn->n_blocks || !fn->addr)
      continue;
    const fe_sym *sym = NULL;
    for (uint32_t k = 0; k < f->elf.syms.n; k++)
      if (f->elf.syms.v[k].is_func && f->elf.syms.v[k].value == fn->addr &&
          f->elf.syms.v[k].size) {
        sym = &f->elf.syms.v[k];
        break;
      }
    if (!sym)
      continue;
    uint64_t lo = sym->value - c.base;
    const xsec *x = NULL;
    for (uint32_t k = 0; k < xs.n; k++)
      if (lo >= xs.v[k].addr && lo + sym->size <= xs.v[k].addr + xs.v[k].size)
        x = &xs.v[k];
    if (!x)
      continue;
    machvec *per = calloc(fn->n_blocks + 1, sizeof *per);
    uint32_t *nh = calloc(fn->n_blocks + 1, sizeof *nh);
    do_function(&c, fi, x->data, x->addr, lo, sym->size, per, nh);
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      cb_block *bl = &f->blocks.v[fn->first_block + b];
      bl->first_mach = f->mach.n;
      bl->n_mach = per[b].n;
      for (uint32_t k = 0; k < per[b].n; k++)
        FE_PUSH(f->mach, per[b].v[k]);
      free(per[b].v);
    }
    free(per);
    free(nh);
  }
  for (uint32_t i = 0; i < f->frame_objs.n; i++)
    if (f->frame_objs.v[i].frame_offset == CB_FRAME_OFFSET_UNKNOWN &&
        !c.fo_bad[i])
      f->frame_objs.v[i].frame_offset = c.fo_new[i];
  free(c.fo_new);
  free(c.fo_bad);
  /* the return-address write of every call site, on the call's line */
  uint32_t nsites = f->sites.n;
  f->ra_site_v = malloc((nsites + 1) * sizeof *f->ra_site_v);
  for (uint32_t s = 0; s < nsites; s++) {
    f->ra_site_v[s] = CB_NONE;
    cb_site cs = f->sites.v[s];
    if (cs.is_call)
      f->ra_site_v[s] =
          fe_mc_site(&c, cs.file, cs.line, cs.func, 8, true, "return address");
  }
  /* sites made for return addresses have none */
  f->ra_site_v = realloc(f->ra_site_v, (f->sites.n + 1) * sizeof *f->ra_site_v);
  for (uint32_t s = nsites; s < f->sites.n; s++)
    f->ra_site_v[s] = CB_NONE;
  free(xs.v);
  free(c.rows.v);
  free(c.real_srcs);
  fe_map_free(&c.file_of);
  fe_map_free(&c.site_map);
  free(c.mach_sites_keys.v);
  LLVMDisasmDispose(c.dc);
  if (c.cfi)
    dwarf_cfi_end(c.cfi);
  dwarf_end(dw);
  close(fd);
}
