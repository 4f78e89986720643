/* sites.c: sites with source locations and the variable, type and field
 * they access: the variable behind an address (through debug intrinsics,
 * GEPs and loads) and the access as written in the source. */
#include "lower_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* ---- sites --------------------------------------------------------------- */

static LLVMMetadataRef dbgval_var(fe *f, LLVMValueRef v, LLVMMetadataRef sp) {
  uint64_t i;
  if (!fe_map_get(&f->dbgval, v, &i))
    return NULL;
  LLVMMetadataRef first = f->dbgvals.v[i].var;
  for (uint32_t k = (uint32_t)i; k != CB_NONE; k = f->dbgvals.v[k].next) {
    LLVMMetadataRef var = f->dbgvals.v[k].var;
    if (sp && fe_subprogram_of(f, fe_md_op(f, var, 0)) == sp)
      return var;
  }
  return first;
}

/* Walks an address back to what it points into. */
static bool resolve_base(fe *f, LLVMValueRef v, LLVMMetadataRef sp, int depth,
                         LLVMValueRef *phis, int nphis, uint32_t *var,
                         bool *object, int64_t *off) {
  if (depth > 24)
    return false;
  LLVMMetadataRef dv = dbgval_var(f, v, sp);
  if (dv && !LLVMIsAGlobalValue(v)) {
    *var = fe_var(f, dv);
    *object = false;
    return *var != CB_NONE;
  }
  if (LLVMIsAGlobalVariable(v)) {
    uint64_t gi;
    if (!fe_map_get(&f->global_index, v, &gi) ||
        f->globals.v[gi].var == CB_NONE)
      return false;
    *var = f->globals.v[gi].var;
    *object = true;
    return true;
  }
  if (LLVMIsAAllocaInst(v)) {
    uint64_t md;
    if (!fe_map_get(&f->alloca_var, v, &md))
      return false;
    *var = fe_var(f, (LLVMMetadataRef)(uintptr_t)md);
    *object = true;
    return *var != CB_NONE;
  }
  bool is_inst = LLVMIsAInstruction(v) != NULL;
  bool is_ce = LLVMIsAConstantExpr(v) != NULL;
  if (is_inst || is_ce) {
    LLVMOpcode op =
        is_inst ? LLVMGetInstructionOpcode(v) : LLVMGetConstOpcode(v);
    if (op == LLVMGetElementPtr) {
      LLVMTypeRef t = LLVMGetGEPSourceElementType(v);
      unsigned n = (unsigned)LLVMGetNumOperands(v);
      int64_t o = 0;
      for (unsigned i = 1; i < n; i++) {
        LLVMValueRef idx = LLVMGetOperand(v, i);
        int64_t k = 0;
        bool c = LLVMIsAConstantInt(idx) != NULL;
        if (c)
          k = fe_sext(LLVMConstIntGetZExtValue(idx),
                      LLVMGetIntTypeWidth(LLVMTypeOf(idx)));
        if (i == 1) {
          o += k * (int64_t)LLVMABISizeOfType(f->td, t);
        } else if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
          o += (int64_t)LLVMOffsetOfElement(f->td, t, (unsigned)k);
          t = LLVMStructGetTypeAtIndex(t, (unsigned)k);
        } else {
          t = LLVMGetElementType(t);
          o += k * (int64_t)LLVMABISizeOfType(f->td, t);
        }
      }
      *off += o;
      return resolve_base(f, LLVMGetOperand(v, 0), sp, depth + 1, phis, nphis,
                          var, object, off);
    }
    if (op == LLVMBitCast || op == LLVMAddrSpaceCast || op == LLVMFreeze)
      return resolve_base(f, LLVMGetOperand(v, 0), sp, depth + 1, phis, nphis,
                          var, object, off);
    if (op == LLVMPHI && nphis < 8) {
      for (int i = 0; i < nphis; i++)
        if (phis[i] == v)
          return false;
      phis[nphis] = v;
      unsigned n = LLVMCountIncoming(v);
      for (unsigned i = 0; i < n; i++) {
        int64_t o = *off;
        if (resolve_base(f, LLVMGetIncomingValue(v, i), sp, depth + 1, phis,
                         nphis + 1, var, object, &o)) {
          *off = o;
          return true;
        }
      }
      return false;
    }
    if (op == LLVMSelect) {
      int64_t o = *off;
      if (resolve_base(f, LLVMGetOperand(v, 1), sp, depth + 1, phis, nphis, var,
                       object, &o)) {
        *off = o;
        return true;
      }
      return resolve_base(f, LLVMGetOperand(v, 2), sp, depth + 1, phis, nphis,
                          var, object, off);
    }
  }
  return false;
}

/* ---- the access as written ---------------------------------------------- */

typedef struct sbuf {
  char b[256];
  size_t n;
  bool bad;
} sbuf;

static void sb_add(sbuf *s, const char *t) {
  size_t l = strlen(t);
  if (s->n + l + 1 > sizeof s->b) {
    s->bad = true;
    return;
  }
  memcpy(s->b + s->n, t, l + 1);
  s->n += l;
}

/* An index as the source could have written it: a constant, a variable,
 * or a little arithmetic on them. */
static bool expr_text(fe *f, LLVMValueRef v, LLVMMetadataRef sp, int depth,
                      sbuf *out) {
  if (depth > 4)
    return false;
  if (LLVMIsAConstantInt(v)) {
    char t[32];
    snprintf(t, sizeof t, "%lld", LLVMConstIntGetSExtValue(v));
    sb_add(out, t);
    return !out->bad;
  }
  LLVMMetadataRef dv = dbgval_var(f, v, sp);
  if (dv) {
    size_t len;
    const char *nm = fe_md_op_str(f, dv, 1, &len);
    if (!nm)
      return false;
    char t[128];
    snprintf(t, sizeof t, "%.*s", (int)len, nm);
    sb_add(out, t);
    return !out->bad;
  }
  if (!LLVMIsAInstruction(v))
    return false;
  LLVMOpcode op = LLVMGetInstructionOpcode(v);
  if (op == LLVMSExt || op == LLVMZExt || op == LLVMTrunc)
    return expr_text(f, LLVMGetOperand(v, 0), sp, depth + 1, out);
  const char *sym = op == LLVMAdd   ? " + "
                    : op == LLVMSub ? " - "
                    : op == LLVMMul ? " * "
                    : op == LLVMShl ? " << "
                                    : NULL;
  if (!sym)
    return false;
  LLVMValueRef a = LLVMGetOperand(v, 0), b = LLVMGetOperand(v, 1);
  if (op == LLVMAdd && LLVMIsAConstantInt(b) &&
      LLVMConstIntGetSExtValue(b) < 0) {
    if (!expr_text(f, a, sp, depth + 1, out))
      return false;
    char t[40];
    snprintf(t, sizeof t, " - %lld", -LLVMConstIntGetSExtValue(b));
    sb_add(out, t);
    return !out->bad;
  }
  bool paren = depth > 0 && (op == LLVMAdd || op == LLVMSub);
  if (paren)
    sb_add(out, "(");
  if (!expr_text(f, a, sp, depth + 1, out))
    return false;
  sb_add(out, sym);
  if (!expr_text(f, b, sp, depth + 1, out))
    return false;
  if (paren)
    sb_add(out, ")");
  return !out->bad;
}

static const char *site_text(fe *f, LLVMValueRef addr, uint32_t var,
                             bool object, LLVMMetadataRef sp) {
  LLVMValueRef geps[16];
  int n = 0;
  LLVMValueRef v = addr;
  for (int depth = 0;; depth++) {
    if (depth > 24)
      return NULL;
    if (object && (LLVMIsAGlobalVariable(v) || LLVMIsAAllocaInst(v)))
      break;
    if (!object) {
      LLVMMetadataRef dv = dbgval_var(f, v, sp);
      if (dv && fe_var(f, dv) == var)
        break;
    }
    bool ce = LLVMIsAConstantExpr(v) != NULL;
    if (!ce && !LLVMIsAInstruction(v))
      return NULL;
    LLVMOpcode op = ce ? LLVMGetConstOpcode(v) : LLVMGetInstructionOpcode(v);
    if (op == LLVMGetElementPtr) {
      if (n == 16)
        return NULL;
      geps[n++] = v;
    } else if (op != LLVMBitCast) {
      return NULL;
    }
    v = LLVMGetOperand(v, 0);
  }
  sbuf out = {.n = 0, .bad = false};
  out.b[0] = 0;
  sb_add(&out, f->vars.v[var].name);
  uint32_t cur = fe_type_strip(f, f->vars.v[var].type);
  if (!object) {
    if (cur == CB_NONE || f->types.v[cur].kind != CB_CT_POINTER)
      return NULL;
    cur = fe_type_strip(f, f->types.v[cur].elem);
  }
  size_t last_index = 0; /* where the last [..] starts, 0: none */
  bool deref = object;   /* a pointer not yet dereferenced */
  for (int k = n - 1; k >= 0; k--) {
    LLVMValueRef g = geps[k];
    LLVMTypeRef t = LLVMGetGEPSourceElementType(g);
    unsigned nops = (unsigned)LLVMGetNumOperands(g);
    for (unsigned i = 1; i < nops; i++) {
      LLVMValueRef idx = LLVMGetOperand(g, i);
      bool zero = LLVMIsAConstantInt(idx) && LLVMConstIntGetZExtValue(idx) == 0;
      if (i == 1) {
        if (zero)
          continue;
        if (!deref && last_index == 0) {
          /* p[i] */
          last_index = out.n;
          sb_add(&out, "[");
          if (!expr_text(f, idx, sp, 0, &out))
            return NULL;
          sb_add(&out, "]");
          deref = true;
          continue;
        }
        if (last_index == 0)
          return NULL;
        /* a further offset on the last index: [a] + b -> [a + b] */
        out.n--; /* drop ']' */
        out.b[out.n] = 0;
        if (LLVMIsAConstantInt(idx) && LLVMConstIntGetSExtValue(idx) < 0) {
          char tt[40];
          snprintf(tt, sizeof tt, " - %lld", -LLVMConstIntGetSExtValue(idx));
          sb_add(&out, tt);
        } else {
          sb_add(&out, " + ");
          if (!expr_text(f, idx, sp, 1, &out))
            return NULL;
        }
        sb_add(&out, "]");
        continue;
      }
      if (cur == CB_NONE)
        return NULL;
      const cb_ctype *ct = &f->types.v[cur];
      if (LLVMGetTypeKind(t) == LLVMStructTypeKind) {
        unsigned fi = (unsigned)LLVMConstIntGetZExtValue(idx);
        uint64_t off = LLVMOffsetOfElement(f->td, t, fi);
        t = LLVMStructGetTypeAtIndex(t, fi);
        if (ct->kind != CB_CT_STRUCT && ct->kind != CB_CT_UNION)
          return NULL;
        uint32_t hit = CB_NONE;
        for (uint32_t m = 0; m < ct->n_fields && hit == CB_NONE; m++)
          if (f->fields.v[ct->first_field + m].offset == off)
            hit = ct->first_field + m;
        if (hit == CB_NONE)
          return NULL;
        sb_add(&out, deref ? "." : "->");
        sb_add(&out, f->fields.v[hit].name);
        cur = fe_type_strip(f, f->fields.v[hit].type);
        deref = true;
        last_index = 0;
      } else {
        t = LLVMGetElementType(t);
        if (ct->kind != CB_CT_ARRAY)
          return NULL;
        last_index = out.n;
        sb_add(&out, "[");
        if (!expr_text(f, idx, sp, 0, &out))
          return NULL;
        sb_add(&out, "]");
        cur = fe_type_strip(f, ct->elem);
      }
    }
  }
  if (!deref)
    return NULL; /* *p: say nothing rather than guess */
  if (out.bad)
    return NULL;
  return fe_pool_intern(f->pool, out.b, out.n);
}

uint32_t fe_new_site(fe *f, LLVMValueRef I, LLVMValueRef addr, uint32_t size,
                     bool write, bool call) {
  return fe_new_site_at(f, I, addr, 0, size, write, call);
}

uint32_t fe_new_site_at(fe *f, LLVMValueRef I, LLVMValueRef addr, int64_t at,
                        uint32_t size, bool write, bool call) {
  cb_site s;
  memset(&s, 0, sizeof s);
  LLVMMetadataRef scope = NULL;
  fe_loc_of(f, I, &s.file, &s.line, &s.col, &scope);
  s.func = fe_src_func(f, scope ? scope : f->cur_sp);
  s.var = s.type = s.field = CB_NONE;
  s.size = size;
  s.is_write = write;
  s.is_call = call;
  if (addr) {
    LLVMMetadataRef sp = scope ? fe_subprogram_of(f, scope) : f->cur_sp;
    LLVMValueRef phis[8];
    uint32_t var;
    bool object = false;
    int64_t off = 0;
    if (resolve_base(f, addr, sp, 0, phis, 0, &var, &object, &off)) {
      s.var = var;
      off += at;
      if (!call) {
        fe_resolve_access(f, var, object, off, size, &s.type, &s.field);
        s.text = site_text(f, addr, var, object, sp);
      }
    }
  }
  FE_PUSH(f->sites, s);
  return f->sites.n - 1;
}
