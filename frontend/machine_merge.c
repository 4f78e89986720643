/* machine_merge.c: loads and stores the x86 backend merged into one wider
 * access, read from the machine code (program->op_access).
 *
 * LLVM's DAGCombiner (MergeConsecutiveStores, tryStoreMergeOfLoads) turns
 * consecutive stores of consecutive loads, or of constants (the copy or swap of
 * two adjacent doubles, of a complex number's parts, of two fields) into one
 * wider load and one wider store: a 16-byte movdqu or movupd where the IR
 * has two 8-byte accesses. Whether it does depends on its heuristics
 * (aliasing, the order of the chains, the types), so nothing here guesses
 * it: in a machine block paired with an IR block (machine.c) that is its
 * IR block's only one, the machine accesses that have an IR access of the
 * same line, direction and size are that access; a remaining machine
 * access k times as wide as an unmatched IR access A on its line is the
 * group of k unmatched IR accesses of A's direction, type and size at L,
 * L + size, ... (A among them; the addresses as the IR computes them:
 * the same base and index terms, constants apart), when exactly one such
 * L exists and no call comes between them. The one at L accesses the
 * group's bytes (it must come first among the block's accesses, but for
 * other members of the group), the others none. Anything else stays as
 * the IR has it and is counted in mach_stats.merges_unproven. */
#include "machine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct iracc {
  uint32_t op;
  uint32_t file, line;
  uint32_t bytes;
  bool write;
  bool done; /* matched with a machine access, or merged into one */
} iracc;

typedef struct term {
  cb_operand leaf; /* the index before constant additions and extensions */
  uint8_t ext;     /* CB_OP_SEXT or CB_OP_ZEXT around it, else 0 */
  uint32_t bits;   /* the GEP's index width */
  int64_t scale;
} term;

enum { MAX_TERMS = 4 };

typedef struct addr_form {
  cb_operand root;
  int64_t off;
  int64_t gaddr; /* a global root's placed address (included in off) */
  term t[MAX_TERMS];
  uint32_t n;
  bool ok;
} addr_form;

typedef struct mg_ctx {
  fe *f;
  const cb_function *fn;
  uint32_t *def;      /* slot -> defining op (global index), or CB_NONE */
  uint8_t *is_alloca; /* per slot: an address derived from an alloca */
  uint64_t base;      /* the executable's load base (mctx.base) */
} mg_ctx;

static bool const_int(fe *f, cb_operand o, cb_ty ty, int64_t *v) {
  if (!(o & CB_OPND_CONST) || (o & ~CB_OPND_CONST) >= f->consts.n)
    return false;
  if (ty == CB_TY_VOID || ty > CB_TY_I64)
    return false;
  unsigned sh = cb_ty_sx_shift(ty);
  uint64_t u = f->consts.v[o & ~CB_OPND_CONST].u;
  *v = (int64_t)(u << sh) >> sh;
  return true;
}

static const cb_op *def_of(const mg_ctx *m, cb_operand o) {
  if ((o & CB_OPND_CONST) || o >= m->fn->n_slots || m->def[o] == CB_NONE)
    return NULL;
  return &m->f->ops.v[m->def[o]];
}

/* An index as leaf + c, through integer additions of constants and one
   sign or zero extension (a C index `j + 1`: sext(add nsw j, 1) or
   add(sext j, 1)). */
static term norm_index(const mg_ctx *m, cb_operand o, uint32_t bits,
                       int64_t *c) {
  term t = {o, 0, bits, 0};
  for (int depth = 0; depth < 8; depth++) {
    const cb_op *d = def_of(m, t.leaf);
    if (!d || (d->lanes && d->lanes != 1))
      break;
    int64_t k;
    if (d->code == CB_OP_ADD && const_int(m->f, d->b, (cb_ty)d->ty, &k)) {
      *c += k;
      t.leaf = d->a;
    } else if (d->code == CB_OP_ADD &&
               const_int(m->f, d->a, (cb_ty)d->ty, &k)) {
      *c += k;
      t.leaf = d->b;
    } else if ((d->code == CB_OP_SEXT || d->code == CB_OP_ZEXT) && !t.ext) {
      t.ext = d->code;
      t.leaf = d->a;
    } else {
      break;
    }
  }
  return t;
}

/* The address in operand o as root + off + sum(terms). */
static addr_form resolve(const mg_ctx *m, cb_operand o) {
  addr_form a = {o, 0, 0, {{0}}, 0, true};
  for (int depth = 0; depth < 16; depth++) {
    const cb_op *d = def_of(m, a.root);
    if (!d)
      break;
    if (d->code == CB_OP_MOV || (d->code == CB_OP_BITCAST && d->ty == d->ty2)) {
      a.root = d->a;
      continue;
    }
    if (d->code != CB_OP_GEP)
      break;
    const int64_t *g = &m->f->extra.v[d->aux];
    a.off += g[0];
    for (int64_t k = 0; k < g[1]; k++) {
      uint64_t x = (uint64_t)g[2 + 2 * k];
      cb_operand io = (cb_operand)(x & 0xffffffffu);
      uint32_t bits = (uint32_t)(x >> 32);
      int64_t scale = g[3 + 2 * k];
      int64_t cv;
      if (io & CB_OPND_CONST) {
        if ((io & ~CB_OPND_CONST) >= m->f->consts.n) {
          a.ok = false;
          return a;
        }
        uint64_t u = m->f->consts.v[io & ~CB_OPND_CONST].u;
        unsigned sh = bits && bits < 64 ? 64 - bits : 0;
        cv = (int64_t)(u << sh) >> sh;
        a.off += cv * scale;
        continue;
      }
      int64_t c = 0;
      term t = norm_index(m, io, bits, &c);
      t.scale = scale;
      a.off += c * scale;
      if (a.n == MAX_TERMS) {
        a.ok = false;
        return a;
      }
      a.t[a.n++] = t;
    }
    a.root = d->a;
  }
  /* a global's placed address: absolute */
  if ((a.root & CB_OPND_CONST) && (a.root & ~CB_OPND_CONST) < m->f->consts.n) {
    a.gaddr = (int64_t)m->f->consts.v[a.root & ~CB_OPND_CONST].u;
    a.off += a.gaddr;
    a.root = CB_OPND_CONST;
  }
  return a;
}

static int term_cmp(const void *x, const void *y) {
  const term *a = x, *b = y;
  if (a->leaf != b->leaf)
    return a->leaf < b->leaf ? -1 : 1;
  if (a->ext != b->ext)
    return a->ext < b->ext ? -1 : 1;
  if (a->bits != b->bits)
    return a->bits < b->bits ? -1 : 1;
  return a->scale < b->scale ? -1 : a->scale > b->scale;
}

/* Is b's address a's plus d, as the IR computes them? */
static bool at_distance(addr_form *a, addr_form *b, int64_t d) {
  if (!a->ok || !b->ok || a->root != b->root || a->n != b->n ||
      b->off - a->off != d)
    return false;
  qsort(a->t, a->n, sizeof *a->t, term_cmp);
  qsort(b->t, b->n, sizeof *b->t, term_cmp);
  for (uint32_t k = 0; k < a->n; k++)
    if (term_cmp(&a->t[k], &b->t[k]) != 0)
      return false;
  return true;
}

static cb_operand addr_of(const cb_op *op) {
  return op->code == CB_OP_LOAD ? op->a : op->b;
}

/* The g unmatched IR accesses at L, L + size, ... L + (g - 1) size
 * (one of them ir[q], same direction, type and lanes), the one at L
 * first in members[]; exactly one such L. The access happens at L's op,
 * so when another member comes before it, no other access or call may
 * come between. */
static bool find_group(const mg_ctx *m, const iracc *ir, uint32_t n, uint32_t q,
                       uint32_t g, uint32_t *members) {
  fe *f = m->f;
  const iracc *a = &ir[q];
  const cb_op *aop = &f->ops.v[a->op];
  addr_form af = resolve(m, addr_of(aop));
  if (!af.ok)
    return false;
  /* the candidates' distances from a, in units of its size */
  int64_t dist[64];
  uint32_t cand[64], nc = 0;
  for (uint32_t r = 0; r < n && nc < 64; r++) {
    const iracc *b = &ir[r];
    const cb_op *bop = &f->ops.v[b->op];
    if (r == q || b->done || b->write != a->write || b->bytes != a->bytes ||
        bop->ty != aop->ty || bop->lanes != aop->lanes)
      continue;
    addr_form bf = resolve(m, addr_of(bop));
    int64_t d = bf.off - af.off;
    if (d % (int64_t)a->bytes || d == 0)
      continue;
    d /= (int64_t)a->bytes;
    if (d <= -(int64_t)g || d >= (int64_t)g)
      continue;
    addr_form a2 = af;
    if (!at_distance(&a2, &bf, bf.off - af.off))
      continue;
    dist[nc] = d;
    cand[nc++] = r;
  }
  uint32_t found = 0;
  for (int64_t lo = -(int64_t)g + 1; lo <= 0; lo++) {
    uint32_t got[16], ok = 1;
    for (int64_t j = 0; j < (int64_t)g && ok; j++) {
      int64_t d = lo + j;
      uint32_t hit = CB_NONE, hits = 0;
      if (d == 0) {
        hit = q;
        hits = 1;
      }
      for (uint32_t c = 0; c < nc; c++)
        if (dist[c] == d) {
          hit = cand[c];
          hits++;
        }
      ok = hits == 1;
      got[j] = hit;
    }
    if (!ok)
      continue;
    if (++found > 1)
      return false;
    memcpy(members, got, g * sizeof *got);
  }
  if (!found)
    return false;
  /* no call between the first and the last; no other access between the
     first and the one at L */
  uint32_t first = CB_NONE, last = 0;
  for (uint32_t j = 0; j < g; j++) {
    uint32_t o = ir[members[j]].op;
    first = o < first ? o : first;
    last = o > last ? o : last;
  }
  for (uint32_t o = first; o < last; o++)
    if (f->ops.v[o].code == CB_OP_CALL)
      return false;
  for (uint32_t o = first; o < ir[members[0]].op; o++) {
    const cb_op *op = &f->ops.v[o];
    if (op->code != CB_OP_LOAD && op->code != CB_OP_STORE)
      continue;
    bool member = false;
    for (uint32_t j = 0; j < g && !member; j++)
      member = ir[members[j]].op == o;
    if (!member)
      return false;
  }
  return true;
}

/* One machine block mb of IR block bl. */
static void merge_block(mg_ctx *m, const cb_block *bl, const minst *ins,
                        uint32_t first, uint32_t n) {
  fe *f = m->f;
  FE_VEC(iracc) ir = {0};
  for (uint32_t o = bl->first_op; o < bl->first_op + bl->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if ((op->code != CB_OP_LOAD && op->code != CB_OP_STORE) ||
        op->aux >= f->sites.n || op->ty == CB_TY_VOID || op->ty >= CB_TY_COUNT)
      continue;
    const cb_site *s = &f->sites.v[op->aux];
    iracc a = {o,
               s->file,
               s->line,
               cb_ty_bytes((cb_ty)op->ty) * (op->lanes ? op->lanes : 1),
               op->code == CB_OP_STORE,
               false};
    FE_PUSH(ir, a);
  }
  uint8_t *used = calloc(n + 1, 1);
  FE_VEC(uint32_t) grp = {0}; /* pairs (op, access bytes) */
  uint32_t n_merged = 0, n_groups = 0, n_dead = 0;
  /* the accesses the machine code makes as the IR does (a global's own
     first, when the machine code names its address); a load VEX drops
     (fe_mc_dead_loads) makes none */
  for (int pass = 0; pass < 2; pass++)
    for (uint32_t k = 0; k < n; k++) {
      const minst *mi = &ins[first + k];
      if (mi->kind != MK_MEM || used[k] || (!pass && !mi->target))
        continue;
      for (uint32_t q = 0; q < ir.n; q++) {
        iracc *a = &ir.v[q];
        if (a->done || a->file != mi->file || a->line != mi->line ||
            a->write != (mi->write != 0) || a->bytes != mi->size)
          continue;
        if (!pass) {
          addr_form af = resolve(m, addr_of(&f->ops.v[a->op]));
          if (!af.ok || af.root != CB_OPND_CONST || af.n ||
              af.off != (int64_t)(mi->target + m->base))
            continue;
        }
        a->done = true;
        used[k] = 1;
        if (mi->dead) {
          FE_PUSH(grp, a->op);
          FE_PUSH(grp, CB_ACCESS_NONE);
          n_dead++;
        }
        break;
      }
    }
  /* the wider ones left */
  for (uint32_t k = 0; k < n; k++) {
    const minst *mi = &ins[first + k];
    if (mi->kind != MK_MEM || used[k])
      continue;
    bool wider = false, found = false;
    for (uint32_t q = 0; q < ir.n && !found; q++) {
      iracc *a = &ir.v[q];
      if (a->done || a->file != mi->file || a->line != mi->line ||
          a->write != (mi->write != 0) || !a->bytes || mi->size <= a->bytes ||
          mi->size % a->bytes)
        continue;
      wider = true;
      uint32_t g = mi->size / a->bytes;
      if (g > 16)
        continue;
      uint32_t members[16];
      if (!find_group(m, ir.v, ir.n, q, g, members))
        continue;
      found = true;
      used[k] = 1;
      for (uint32_t j = 0; j < g; j++) {
        ir.v[members[j]].done = true;
        uint32_t set[2] = {ir.v[members[j]].op,
                           j == 0 ? mi->size : CB_ACCESS_NONE};
        FE_PUSH(grp, set[0]);
        FE_PUSH(grp, set[1]);
      }
      n_merged += g - 1;
      n_groups++;
    }
    if (wider && !found) {
      f->mach_stats.merges_unproven++;
      if (getenv("CBANA_DEBUG_MACHINE"))
        fprintf(stderr, "merge unproven: %s:%u %s of %u bytes at 0x%llx\n",
                mi->file < f->files.n ? f->files.v[mi->file] : "?", mi->line,
                mi->write ? "store" : "load", mi->size,
                (unsigned long long)mi->pc);
    }
  }
  /* Only when nearly all of the block's accesses pair up so: a machine
     block paired with the wrong IR block (a vector body with its scalar
     remainder) would otherwise make groups of accesses the machine code
     never merged. A stray one or two (an IR access without a line, an
     access the backend folded otherwise) do not make the pairing wrong
     (test-suite's Dhrystone/dry.c: one such store beside a merged copy;
     demanding none left its own accesses +20% against cachegrind). The IR's
     accesses of stack objects may be hidden ones. */
  uint32_t n_used = 0, n_stray = 0;
  for (uint32_t k = 0; k < n; k++)
    if (ins[first + k].kind == MK_MEM) {
      n_used += used[k];
      n_stray += !used[k];
    }
  for (uint32_t q = 0; q < ir.n; q++) {
    cb_operand ad = addr_of(&f->ops.v[ir.v[q].op]);
    n_stray += !ir.v[q].done && ((ad & CB_OPND_CONST) || ad >= m->fn->n_slots ||
                                 !m->is_alloca[ad]);
  }
  bool balanced = n_stray * 4 <= n_used;
  if (getenv("CBANA_DEBUG_MACHINE") && n_dead)
    fprintf(stderr, "dead loads: %u in a block at 0x%llx%s\n", n_dead,
            (unsigned long long)ins[first].pc,
            balanced ? "" : " (left: the block's accesses do not all pair)");
  if (balanced && grp.n) {
    if (!f->op_access) {
      f->op_access = calloc(f->ops.n + 1, sizeof *f->op_access);
      f->n_op_access = f->ops.n;
    }
    for (uint32_t j = 0; j + 1 < grp.n; j += 2)
      f->op_access[grp.v[j]] = (uint16_t)grp.v[j + 1];
    f->mach_stats.accesses_merged += n_merged;
    f->mach_stats.loads_dropped += n_dead;
  } else if (n_groups) {
    f->mach_stats.merges_unproven += n_groups;
    if (getenv("CBANA_DEBUG_MACHINE")) {
      fprintf(stderr,
              "merges left: %u in a block at 0x%llx whose accesses "
              "do not all pair:",
              n_groups, (unsigned long long)ins[first].pc);
      for (uint32_t k = 0; k < n; k++)
        if (ins[first + k].kind == MK_MEM && !used[k])
          fprintf(stderr, " machine 0x%llx line %u size %u%s",
                  (unsigned long long)ins[first + k].pc, ins[first + k].line,
                  ins[first + k].size, ins[first + k].write ? " w" : "");
      for (uint32_t q = 0; q < ir.n; q++)
        if (!ir.v[q].done)
          fprintf(stderr, " ir op %u line %u size %u%s", ir.v[q].op,
                  ir.v[q].line, ir.v[q].bytes, ir.v[q].write ? " w" : "");
      fprintf(stderr, "\n");
    }
  }
  free(grp.v);
  free(used);
  free(ir.v);
}

/* Does machine access mi stand for IR access op (its line, direction and
   size; its address, when both name a global's)? */
static bool same_access(const mg_ctx *m, const minst *mi, uint32_t opi) {
  const cb_op *op = &m->f->ops.v[opi];
  const cb_site *s = &m->f->sites.v[op->aux];
  if (mi->kind != MK_MEM || mi->file != s->file || mi->line != s->line ||
      (mi->write != 0) != (op->code == CB_OP_STORE) ||
      mi->size != cb_ty_bytes((cb_ty)op->ty) * (op->lanes ? op->lanes : 1))
    return false;
  addr_form a = resolve(m, addr_of(op));
  if (!a.ok || a.root != CB_OPND_CONST || a.n || !mi->target)
    return true;
  return a.off == (int64_t)(mi->target + m->base);
}

/* An IR block that several machine blocks stand for (paths the backend
 * laid out apart): an IR load makes no access when every machine load
 * that may be it, in all of them, is one VEX drops, and there is one
 * such IR load (else which is which is not known). */
static void dead_in_copies(mg_ctx *m, uint32_t b, const minst *ins,
                           uint32_t n_mb, const uint32_t *mir,
                           const uint32_t *mfirst, const uint32_t *mcount) {
  fe *f = m->f;
  const cb_block *bl = &f->blocks.v[m->fn->first_block + b];
  for (uint32_t o = bl->first_op; o < bl->first_op + bl->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if (op->code != CB_OP_LOAD || op->aux >= f->sites.n ||
        op->ty == CB_TY_VOID || op->ty >= CB_TY_COUNT ||
        (f->op_access && o < f->n_op_access && f->op_access[o]))
      continue;
    uint32_t n_dead = 0, n_live = 0, n_ir = 0;
    for (uint32_t i = 0; i < n_mb && !n_live; i++) {
      if (mir[i] != b)
        continue;
      for (uint32_t k = mfirst[i]; k < mfirst[i] + mcount[i]; k++)
        if (same_access(m, &ins[k], o)) {
          n_dead += ins[k].dead;
          n_live += !ins[k].dead;
        }
    }
    if (!n_dead || n_live)
      continue;
    /* the other IR loads these machine loads may be */
    for (uint32_t p = bl->first_op; p < bl->first_op + bl->n_ops; p++) {
      const cb_op *q = &f->ops.v[p];
      if (q->code != CB_OP_LOAD || q->aux >= f->sites.n ||
          q->ty == CB_TY_VOID || q->ty >= CB_TY_COUNT)
        continue;
      bool any = false;
      for (uint32_t i = 0; i < n_mb && !any; i++)
        for (uint32_t k = mfirst[i]; mir[i] == b && k < mfirst[i] + mcount[i];
             k++)
          any |= ins[k].dead && same_access(m, &ins[k], o) &&
                 same_access(m, &ins[k], p);
      n_ir += any;
    }
    if (n_ir != 1)
      continue;
    if (!f->op_access) {
      f->op_access = calloc(f->ops.n + 1, sizeof *f->op_access);
      if (!f->op_access)
        return;
      f->n_op_access = f->ops.n;
    }
    if (o < f->n_op_access) {
      f->op_access[o] = CB_ACCESS_NONE;
      f->mach_stats.loads_dropped++;
    }
  }
}

void fe_mc_merged(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                  const uint32_t *mir, const uint32_t *mfirst,
                  const uint32_t *mcount) {
  fe *f = c->f;
  const cb_function *fn = &f->functions.v[fi];
  if (!fn->n_blocks)
    return;
  uint32_t *nmb = calloc(fn->n_blocks + 1, sizeof *nmb);
  for (uint32_t i = 0; i < n_mb; i++)
    if (mir[i] != CB_NONE && mir[i] < fn->n_blocks)
      nmb[mir[i]]++;
  mg_ctx m = {f, fn, malloc((fn->n_slots + 1) * sizeof(uint32_t)),
              fe_mc_alloca_slots(f, fi), c->base};
  for (uint32_t s = 0; s <= fn->n_slots; s++)
    m.def[s] = CB_NONE;
  const cb_block *b0 = &f->blocks.v[fn->first_block];
  const cb_block *bn = &f->blocks.v[fn->first_block + fn->n_blocks - 1];
  for (uint32_t o = b0->first_op; o < bn->first_op + bn->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if (op->dst < fn->n_slots)
      m.def[op->dst] = m.def[op->dst] == CB_NONE ? o : CB_NONE - 1;
  }
  /* a slot written twice (a phi's copies) has no one definition */
  for (uint32_t s = 0; s < fn->n_slots; s++)
    if (m.def[s] == CB_NONE - 1)
      m.def[s] = CB_NONE;
  for (uint32_t i = 0; i < n_mb; i++)
    if (mir[i] != CB_NONE && mir[i] < fn->n_blocks && nmb[mir[i]] == 1)
      merge_block(&m, &f->blocks.v[fn->first_block + mir[i]], ins, mfirst[i],
                  mcount[i]);
  for (uint32_t b = 0; b < fn->n_blocks; b++)
    if (nmb[b] > 1)
      dead_in_copies(&m, b, ins, n_mb, mir, mfirst, mcount);
  free(m.def);
  free(m.is_alloca);
  free(nmb);
}

/* ---- odd-width integers ------------------------------------------------ */

void fe_mc_unpaired(fe *f, uint32_t file, uint32_t line) {
  char buf[600];
  snprintf(buf, sizeof buf, "%s:%u", file < f->files.n ? f->files.v[file] : "?",
           line);
  const char *k = fe_pool_intern(f->pool, buf, strlen(buf));
  for (uint32_t i = 0; i < f->unpaired.n; i++)
    if (f->unpaired.v[i] == k)
      return;
  FE_PUSH(f->unpaired, k);
}

/* A machine access of one odd-width integer: where it lies in it. */
typedef struct wacc {
  uint32_t k; /* instruction */
  int64_t off;
} wacc;

/* The accesses of one object's odd-width loads and stores on one line
 * (the groups gs[0..ng), their pieces lowest first) are the machine
 * accesses ma[0..na) found in it, in the machine code's order: the k-th
 * read is the k-th load piece's access, the k-th write the k-th store
 * piece's, each where the machine code makes it; the pieces left make
 * none (DAGCombiner read fewer bytes, or folded the store into a
 * read-modify-write, which cachegrind counts as a read; or the load's
 * value is dropped unread, fe_mc_dead_loads). False, and nothing changed,
 * when there are more than pieces for them. */
static bool wide_assign(fe *f, const fe_wide_grp *const *gs, uint32_t ng,
                        const minst *ins, const wacc *ma, uint32_t na) {
  FE_VEC(uint32_t) set = {0};           /* pairs (op, op_access) */
  uint32_t relabel[256], n_relabel = 0; /* ops whose access has no line */
  bool ok = true;
  for (int w = 0; w < 2 && ok; w++) {
    uint32_t next = 0; /* the next machine access of this direction */
    for (uint32_t j = 0; j < ng; j++) {
      if (gs[j]->write != w)
        continue;
      int64_t poff = 0;
      for (uint32_t q = 0; q < gs[j]->n; q++) {
        uint32_t op = f->wide_ops.v[gs[j]->first + q];
        while (next < na && ins[ma[next].k].write != w)
          next++;
        uint32_t a = CB_ACCESS_NONE;
        if (next < na) {
          const minst *mi = &ins[ma[next].k];
          int64_t rel = ma[next].off - poff;
          if (!mi->line && gs[j]->line && n_relabel < 256)
            relabel[n_relabel++] = op;
          ok &= rel >= -128 && rel <= 127 && mi->size && mi->size < 0xff;
          a = ((uint32_t)(uint8_t)(int8_t)rel << 8) | mi->size;
          next++;
        }
        FE_PUSH(set, op);
        FE_PUSH(set, a);
        poff += cb_ty_bytes((cb_ty)f->ops.v[op].ty);
      }
    }
    while (next < na && ins[ma[next].k].write != w)
      next++;
    ok &= next == na; /* more than pieces */
  }
  if (ok && !f->op_access) {
    f->op_access = calloc(f->ops.n + 1, sizeof *f->op_access);
    f->n_op_access = f->ops.n;
    ok = f->op_access != NULL;
  }
  for (uint32_t i = 0; ok && i + 1 < set.n; i += 2)
    if (set.v[i] < f->n_op_access)
      f->op_access[set.v[i]] = (uint16_t)set.v[i + 1];
  /* an access the machine code makes on line 0 is counted there, as
     cachegrind does: the piece's site, without its line */
  for (uint32_t i = 0; ok && i < n_relabel; i++) {
    cb_op *op = &f->ops.v[relabel[i]];
    cb_site st = f->sites.v[op->aux];
    st.line = 0;
    st.col = 0;
    op->aux = f->sites.n;
    FE_PUSH(f->sites, st);
  }
  if (getenv("CBANA_DEBUG_MACHINE")) {
    fprintf(stderr, "odd-width %s line %u:", ok ? "paired" : "unpaired",
            gs[0]->line);
    for (uint32_t i = 0; i + 1 < set.n; i += 2)
      fprintf(stderr, " op %u %s %u@%d", set.v[i],
              f->ops.v[set.v[i]].code == CB_OP_STORE ? "w" : "r",
              set.v[i + 1] & 0xff, (int8_t)(set.v[i + 1] >> 8));
    fprintf(stderr, "\n");
  }
  free(set.v);
  return ok;
}

static uint32_t block_of(const fe *f, const cb_function *fn, uint32_t op) {
  for (uint32_t j = 0; j < fn->n_blocks; j++) {
    const cb_block *bl = &f->blocks.v[fn->first_block + j];
    if (op >= bl->first_op && op < bl->first_op + bl->n_ops)
      return j;
  }
  return CB_NONE;
}

static bool same_object(addr_form *a, addr_form *b) {
  return at_distance(a, b, 0);
}

/* The odd-width loads and stores of one IR block on one source line,
 * cl[0..n), in the machine block k0 .. k0 + kn paired with it alone. */
static bool wide_line(mg_ctx *m, uint64_t base, const fe_wide_grp **cl,
                      uint32_t n, uint32_t b, const minst *ins, uint32_t k0,
                      uint32_t kn) {
  fe *f = m->f;
  uint32_t file = cl[0]->file, line = cl[0]->line;
  const cb_block *bl = &f->blocks.v[m->fn->first_block + b];
  uint8_t *taken = calloc(kn + 1, 1);
  addr_form *af = malloc(n * sizeof *af);
  const fe_wide_grp **gs = malloc(n * sizeof *gs);
  wacc *ma = malloc((kn + 1) * sizeof *ma);
  bool ok = taken && af && gs && ma;
  for (uint32_t j = 0; ok && j < n; j++) {
    af[j] = resolve(m, addr_of(&f->ops.v[f->wide_ops.v[cl[j]->first]]));
    ok = af[j].ok;
  }
  /* the line's other IR accesses take machine accesses of their size and
     direction (of their own global, when they name one) */
  for (uint32_t o = bl->first_op; ok && o < bl->first_op + bl->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if ((op->code != CB_OP_LOAD && op->code != CB_OP_STORE) ||
        op->aux >= f->sites.n || op->ty >= CB_TY_COUNT)
      continue;
    /* on the line, or on none (a line-0 access may be the object's) */
    uint32_t sline = f->sites.v[op->aux].line;
    if (sline ? sline != line || f->sites.v[op->aux].file != file : !line)
      continue;
    bool piece = false;
    for (uint32_t j = 0; j < n && !piece; j++)
      for (uint32_t q = 0; q < cl[j]->n && !piece; q++)
        piece = f->wide_ops.v[cl[j]->first + q] == o;
    if (piece)
      continue;
    unsigned bytes = cb_ty_bytes((cb_ty)op->ty) * (op->lanes ? op->lanes : 1);
    if (f->op_access && o < f->n_op_access && f->op_access[o])
      bytes = f->op_access[o] == CB_ACCESS_NONE ? 0 : f->op_access[o] & 0xff;
    if (!bytes)
      continue;
    addr_form a = resolve(m, addr_of(op));
    bool glob = a.ok && a.root == CB_OPND_CONST && !a.n;
    /* a stack object's: the machine code's frame accesses, or an
       indexed one through the frame */
    cb_operand ad = addr_of(op);
    bool stack = !(ad & CB_OPND_CONST) && ad < m->fn->n_slots && m->is_alloca &&
                 m->is_alloca[ad];
    uint32_t hit = CB_NONE;
    for (uint32_t k = 0; k < kn && hit == CB_NONE; k++) {
      const minst *mi = &ins[k0 + k];
      if (taken[k] || mi->kind != MK_MEM || mi->line != sline ||
          (sline && mi->file != file) || mi->size != bytes ||
          (mi->write != 0) != (op->code == CB_OP_STORE))
        continue;
      if (glob ? !mi->target || (int64_t)(mi->target + base) != a.off
               : mi->target != 0 || (stack && !mi->stack_indexed))
        continue;
      hit = k;
    }
    if (hit != CB_NONE)
      taken[hit] = 1;
  }
  /* the objects: groups at one address of one width */
  uint32_t *obj = malloc((n + 1) * sizeof *obj), n_obj = 0;
  uint32_t *rep = malloc((n + 1) * sizeof *rep);
  uint32_t *own = malloc((kn + 1) * sizeof *own);
  int64_t *at = malloc((kn + 1) * sizeof *at);
  ok = ok && obj && rep && own && at;
  for (uint32_t j = 0; ok && j < n; j++) {
    obj[j] = CB_NONE;
    for (uint32_t o = 0; o < n_obj && obj[j] == CB_NONE; o++)
      if (cl[rep[o]]->bytes == cl[j]->bytes && same_object(&af[rep[o]], &af[j]))
        obj[j] = o;
    if (obj[j] == CB_NONE) {
      rep[n_obj] = j;
      obj[j] = n_obj++;
    }
  }
  for (uint32_t k = 0; ok && k < kn; k++)
    own[k] = CB_NONE;
  /* a global's: rip-relative accesses starting inside it (a widened one
     may go past its end) */
  bool regs = false;
  for (uint32_t o = 0; ok && o < n_obj; o++) {
    const addr_form *a = &af[rep[o]];
    int64_t bytes = cl[rep[o]]->bytes;
    if (!(a->root == CB_OPND_CONST && !a->n)) {
      regs = true;
      continue;
    }
    for (uint32_t k = 0; k < kn; k++) {
      const minst *mi = &ins[k0 + k];
      int64_t x = (int64_t)(mi->target + base) - a->off;
      /* on the line, or on none: the backend may leave a load without
         a line (a volatile one scheduled apart), which cachegrind
         counts on line 0 */
      if (taken[k] || mi->kind != MK_MEM ||
          (mi->line && (mi->file != file || mi->line != line)) || !mi->target ||
          x < 0 || x >= bytes)
        continue;
      taken[k] = 1;
      own[k] = o;
      at[k] = x;
    }
  }
  /* the others': through one register, all at constant distances from
     one address as the IR computes them (an unrolled loop's elements).
     The register holds that address or what contains it (the root, past
     constant offsets): a displacement less an object's offset from it
     falls inside the object. Or it is a pointer the IR does not name
     (LSR's, running through an array: -19(%r12)): the displacements
     still place the accesses relative to each other, and the lowest is
     taken as the lowest object's first byte. */
  if (ok && regs) {
    int64_t lo = INT64_MAX, first = INT64_MAX;
    int32_t areg = -1;
    uint32_t r0 = CB_NONE;
    for (uint32_t o = 0; ok && o < n_obj; o++) {
      const addr_form *a = &af[rep[o]];
      if (a->root == CB_OPND_CONST && !a->n)
        continue;
      if (r0 == CB_NONE)
        r0 = rep[o];
      addr_form x = af[r0], y = *a;
      ok = at_distance(&x, &y, a->off - af[r0].off);
      if (a->off - a->gaddr < first)
        first = a->off - a->gaddr;
    }
    for (uint32_t k = 0; ok && k < kn; k++) {
      const minst *mi = &ins[k0 + k];
      if (taken[k] || mi->kind != MK_MEM || mi->file != file ||
          mi->line != line || mi->target)
        continue;
      ok = areg < 0 || mi->areg == areg;
      areg = mi->areg;
      lo = mi->disp < lo ? mi->disp : lo;
    }
    for (int pass = 0; ok && areg >= 0 && pass < 2; pass++) {
      int64_t shift = pass ? first - lo : 0;
      bool all = true;
      for (uint32_t k = 0; all && k < kn; k++) {
        const minst *mi = &ins[k0 + k];
        if (taken[k] || mi->kind != MK_MEM || mi->file != file ||
            mi->line != line || mi->target)
          continue;
        own[k] = CB_NONE;
        for (uint32_t o = 0; o < n_obj && own[k] == CB_NONE; o++) {
          const addr_form *a = &af[rep[o]];
          int64_t x = mi->disp + shift - (a->off - a->gaddr);
          if (!(a->root == CB_OPND_CONST && !a->n) && x >= 0 &&
              x < (int64_t)cl[rep[o]]->bytes) {
            own[k] = o;
            at[k] = x;
          }
        }
        all = own[k] != CB_NONE;
      }
      if (all)
        break;
      ok = !pass;
    }
  }
  /* each object's loads and stores, its accesses in the machine code's
     order; one the machine code does not access on this line stays */
  for (uint32_t o = 0; ok && o < n_obj; o++) {
    uint32_t ng = 0, na = 0;
    bool any = false;
    for (uint32_t j = 0; j < n; j++)
      if (obj[j] == o)
        gs[ng++] = cl[j];
    for (uint32_t k = 0; k < kn; k++)
      if (own[k] == o) {
        any = true;
        if (!ins[k0 + k].dead)
          ma[na++] = (wacc){k0 + k, at[k]};
      }
    ok = any && wide_assign(f, gs, ng, ins, ma, na);
  }
  free(obj);
  free(rep);
  free(own);
  free(at);
  free(taken);
  free(af);
  free(gs);
  free(ma);
  return ok;
}

void fe_mc_wide(mctx *c, uint32_t fi, const minst *ins, uint32_t n_mb,
                const uint32_t *mir, const uint32_t *mfirst,
                const uint32_t *mcount) {
  fe *f = c->f;
  const cb_function *fn = &f->functions.v[fi];
  uint32_t n = 0;
  for (uint32_t i = 0; i < f->wide_grps.n; i++)
    n += f->wide_grps.v[i].func == fi;
  if (!n || !fn->n_blocks)
    return;
  uint32_t *nmb = calloc(fn->n_blocks + 1, sizeof *nmb);
  uint32_t *mbof = malloc((fn->n_blocks + 1) * sizeof *mbof);
  const fe_wide_grp **g = malloc(n * sizeof *g);
  uint32_t *blk = malloc(n * sizeof *blk);
  const fe_wide_grp **cl = malloc(n * sizeof *cl);
  uint8_t *done = calloc(n + 1, 1);
  mg_ctx m = {f, fn, malloc((fn->n_slots + 1) * sizeof(uint32_t)),
              fe_mc_alloca_slots(f, fi), c->base};
  if (!nmb || !mbof || !g || !blk || !cl || !done || !m.def || !m.is_alloca)
    goto out;
  for (uint32_t i = 0; i < n_mb; i++)
    if (mir[i] != CB_NONE && mir[i] < fn->n_blocks) {
      nmb[mir[i]]++;
      mbof[mir[i]] = i;
    }
  for (uint32_t s = 0; s <= fn->n_slots; s++)
    m.def[s] = CB_NONE;
  const cb_block *b0 = &f->blocks.v[fn->first_block];
  const cb_block *bn = &f->blocks.v[fn->first_block + fn->n_blocks - 1];
  for (uint32_t o = b0->first_op; o < bn->first_op + bn->n_ops; o++) {
    const cb_op *op = &f->ops.v[o];
    if (op->dst < fn->n_slots)
      m.def[op->dst] = m.def[op->dst] == CB_NONE ? o : CB_NONE - 1;
  }
  for (uint32_t s = 0; s < fn->n_slots; s++)
    if (m.def[s] == CB_NONE - 1)
      m.def[s] = CB_NONE;
  n = 0;
  for (uint32_t i = 0; i < f->wide_grps.n; i++)
    if (f->wide_grps.v[i].func == fi) {
      g[n] = &f->wide_grps.v[i];
      blk[n++] = block_of(f, fn, f->wide_ops.v[f->wide_grps.v[i].first]);
    }
  for (uint32_t i = 0; i < n; i++) {
    if (done[i])
      continue;
    uint32_t nc = 0;
    for (uint32_t j = i; j < n; j++)
      if (!done[j] && blk[j] == blk[i] && g[j]->file == g[i]->file &&
          g[j]->line == g[i]->line) {
        done[j] = 1;
        cl[nc++] = g[j];
      }
    uint32_t b = blk[i];
    bool ok = b != CB_NONE && nmb[b] == 1 &&
              wide_line(&m, c->base, cl, nc, b, ins, mfirst[mbof[b]],
                        mcount[mbof[b]]);
    if (ok) {
      f->mach_stats.wide_paired += nc;
    } else {
      if (getenv("CBANA_DEBUG_MACHINE"))
        fprintf(stderr,
                "odd-width unpaired line %u: IR block %u, %u machine "
                "blocks\n",
                g[i]->line, b, b == CB_NONE ? 0 : nmb[b]);
      f->mach_stats.wide_unpaired += nc;
      fe_mc_unpaired(f, g[i]->file, g[i]->line);
    }
  }
out:
  free(m.def);
  free(m.is_alloca);
  free(nmb);
  free(mbof);
  free(g);
  free(blk);
  free(cl);
  free(done);
}
