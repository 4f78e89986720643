/* frame.c: where the machine code put each stack object, from the
 * executable's DWARF (libdw): a variable at DW_OP_fbreg N of a frame base
 * register that is CFA - K in the function's body (CFI) sits at CFA + N - K.
 * Sets cb_frame_obj.frame_offset; unknown stays CB_FRAME_OFFSET_UNKNOWN. */
#include "fe_internal.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

typedef struct dvar {
  const char *func, *name;
  uint64_t line;
  int64_t offset;
  bool used;
} dvar;

typedef struct fctx {
  fe *f;
  Dwarf_CFI *cfi;
  FE_VEC(dvar) vars;
} fctx;

static const char *die_name(Dwarf_Die *d) {
  Dwarf_Attribute a;
  if (!dwarf_attr_integrate(d, DW_AT_name, &a))
    return NULL;
  return dwarf_formstring(&a);
}

static uint64_t die_line(Dwarf_Die *d) {
  Dwarf_Attribute a;
  Dwarf_Word w = 0;
  if (dwarf_attr_integrate(d, DW_AT_decl_line, &a))
    dwarf_formudata(&a, &w);
  return w;
}

/* The CFA rule reg + off at pc, or false. */
static bool cfa_at(fctx *c, uint64_t pc, unsigned *reg, int64_t *off) {
  Dwarf_Frame *fr = NULL;
  if (dwarf_cfi_addrframe(c->cfi, pc, &fr) != 0 || !fr)
    return false;
  Dwarf_Op *cops;
  size_t cn;
  bool ok = false;
  if (dwarf_frame_cfa(fr, &cops, &cn) == 0 && cn == 1) {
    if (cops[0].atom == DW_OP_bregx) {
      *reg = (unsigned)cops[0].number;
      *off = (int64_t)cops[0].number2;
      ok = true;
    } else if (cops[0].atom >= DW_OP_breg0 && cops[0].atom <= DW_OP_breg31) {
      *reg = cops[0].atom - DW_OP_breg0;
      *off = (int64_t)cops[0].number;
      ok = true;
    }
  }
  free(fr);
  return ok;
}

/* The first address in [lo, hi) the line table marks prologue_end. */
static bool prologue_end(Dwarf_Die *cu, uint64_t lo, uint64_t hi,
                         uint64_t *at) {
  Dwarf_Lines *lines;
  size_t n;
  bool found = false;
  if (!cu || dwarf_getsrclines(cu, &lines, &n) != 0)
    return false;
  for (size_t i = 0; i < n; i++) {
    Dwarf_Line *l = dwarf_onesrcline(lines, i);
    Dwarf_Addr a;
    bool pe;
    if (!l || dwarf_lineaddr(l, &a) != 0 || a < lo || a >= hi ||
        dwarf_lineprologueend(l, &pe) != 0 || !pe)
      continue;
    if (!found || a < *at)
      *at = a;
    found = true;
  }
  return found;
}

/* K such that the frame base is CFA - K, or false. The rule in effect
 * where the prologue ends (the line table's prologue_end) holds in the
 * body; later rules may hold a call's pushed stack arguments
 * (X86CallFrameOptimization), which are no part of the frame. Without
 * that mark, the largest K of the register. */
static bool frame_base_k(fctx *c, Dwarf_Die *cu, Dwarf_Die *sub, int64_t *k) {
  Dwarf_Attribute a;
  Dwarf_Op *ops;
  size_t n;
  if (!dwarf_attr(sub, DW_AT_frame_base, &a) ||
      dwarf_getlocation(&a, &ops, &n) != 0 || n != 1)
    return false;
  if (ops[0].atom == DW_OP_call_frame_cfa) {
    *k = 0;
    return true;
  }
  if (ops[0].atom < DW_OP_reg0 || ops[0].atom > DW_OP_reg31 || !c->cfi)
    return false;
  unsigned reg = ops[0].atom - DW_OP_reg0;
  Dwarf_Addr lo, hi;
  if (dwarf_lowpc(sub, &lo) != 0 || dwarf_highpc(sub, &hi) != 0 || hi <= lo)
    return false;
  uint64_t pe;
  unsigned preg;
  int64_t poff;
  if (prologue_end(cu, lo, hi, &pe) && cfa_at(c, pe, &preg, &poff) &&
      preg == reg) {
    *k = poff;
    return true;
  }
  bool found = false;
  int64_t best = 0;
  uint64_t span = hi - lo > 65536 ? 65536 : hi - lo;
  for (uint64_t pc = lo; pc < lo + span; pc++) {
    Dwarf_Frame *fr = NULL;
    if (dwarf_cfi_addrframe(c->cfi, pc, &fr) != 0 || !fr)
      continue;
    Dwarf_Op *cops;
    size_t cn;
    if (dwarf_frame_cfa(fr, &cops, &cn) == 0 && cn == 1) {
      int64_t off;
      unsigned r;
      bool ok = true;
      if (cops[0].atom == DW_OP_bregx) {
        r = (unsigned)cops[0].number;
        off = (int64_t)cops[0].number2;
      } else if (cops[0].atom >= DW_OP_breg0 && cops[0].atom <= DW_OP_breg31) {
        r = cops[0].atom - DW_OP_breg0;
        off = (int64_t)cops[0].number;
      } else {
        ok = false;
        r = 0;
        off = 0;
      }
      if (ok && r == reg && (!found || off > best)) {
        best = off;
        found = true;
      }
    }
    free(fr);
  }
  *k = best;
  return found;
}

static void walk(fctx *c, Dwarf_Die *die, const char *func, int64_t k) {
  Dwarf_Die child;
  if (dwarf_child(die, &child) != 0)
    return;
  do {
    int tag = dwarf_tag(&child);
    if (tag == DW_TAG_variable || tag == DW_TAG_formal_parameter) {
      Dwarf_Attribute a;
      Dwarf_Op *ops;
      size_t n;
      if (dwarf_attr(&child, DW_AT_location, &a) &&
          dwarf_whatform(&a) == DW_FORM_exprloc &&
          dwarf_getlocation(&a, &ops, &n) == 0 && n == 1 &&
          ops[0].atom == DW_OP_fbreg) {
        const char *nm = die_name(&child);
        if (nm) {
          dvar v = {func, nm, die_line(&child), (int64_t)ops[0].number - k,
                    false};
          FE_PUSH(c->vars, v);
        }
      }
    } else if (tag == DW_TAG_lexical_block ||
               tag == DW_TAG_inlined_subroutine) {
      walk(c, &child, func, k);
    }
  } while (dwarf_siblingof(&child, &child) == 0);
}

void fe_frame_offsets(fe *f, const char *exe) {
  if (!exe || !f->frame_objs.n)
    return;
  int fd = open(exe, O_RDONLY);
  if (fd < 0)
    return;
  Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);
  if (!dw) {
    close(fd);
    return;
  }
  fctx c;
  memset(&c, 0, sizeof c);
  c.f = f;
  Elf *elf = dwarf_getelf(dw);
  c.cfi = elf ? dwarf_getcfi_elf(elf) : NULL;
  Dwarf_Off off = 0, next;
  size_t hsize;
  while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
    Dwarf_Die cu;
    if (dwarf_offdie(dw, off + hsize, &cu)) {
      Dwarf_Die d;
      if (dwarf_child(&cu, &d) == 0) {
        do {
          Dwarf_Addr lo;
          if (dwarf_tag(&d) != DW_TAG_subprogram || dwarf_lowpc(&d, &lo) != 0)
            continue;
          const char *fn = die_name(&d);
          int64_t k;
          if (fn && frame_base_k(&c, &cu, &d, &k))
            walk(&c, &d, fn, k);
        } while (dwarf_siblingof(&d, &d) == 0);
      }
    }
    off = next;
  }
  /* k-th frame object of a (function, name, line) takes the k-th DWARF
     variable with that key */
  for (uint32_t i = 0; i < f->frame_objs.n; i++) {
    cb_frame_obj *fo = &f->frame_objs.v[i];
    if (fo->var == CB_NONE)
      continue;
    const cb_var *v = &f->vars.v[fo->var];
    const char *fn = f->functions.v[fo->func].name;
    for (uint32_t k = 0; k < c.vars.n; k++) {
      dvar *d = &c.vars.v[k];
      if (!d->used && strcmp(d->func, fn) == 0 &&
          strcmp(d->name, v->name) == 0 && d->line == v->line) {
        d->used = true;
        fo->frame_offset = d->offset;
        break;
      }
    }
  }
  free(c.vars.v);
  if (c.cfi)
    dwarf_cfi_end(c.cfi); /* a CFI from the ELF is not the Dwarf's */
  dwarf_end(dw);
  close(fd);
}
