/* debuginfo.c: the IR's debug metadata -> source files, source functions
 * (inlining-aware), variables, C types and struct fields; and which
 * element and field an access touches. LLVM-C exposes few DI accessors,
 * so names and members come from the nodes' operands (their layout in
 * LLVM 14 is noted at each use) and DWARF tags from the node's text. */
#include "fe_internal.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define DW_TAG_array_type 0x01
#define DW_TAG_enumeration_type 0x04
#define DW_TAG_member 0x0d
#define DW_TAG_pointer_type 0x0f
#define DW_TAG_structure_type 0x13
#define DW_TAG_subroutine_type 0x15
#define DW_TAG_typedef 0x16
#define DW_TAG_union_type 0x17
#define DW_TAG_base_type 0x24
#define DW_TAG_const_type 0x26
#define DW_TAG_volatile_type 0x35
#define DW_TAG_restrict_type 0x37
#define DW_TAG_atomic_type 0x47

static bool is_node(LLVMMetadataRef md) {
  if (!md)
    return false;
  switch (LLVMGetMetadataKind(md)) {
  case LLVMMDStringMetadataKind:
  case LLVMConstantAsMetadataMetadataKind:
  case LLVMLocalAsMetadataMetadataKind:
  case LLVMDistinctMDOperandPlaceholderMetadataKind:
  case LLVMDIArgListMetadataKind:
    return false;
  default:
    return true;
  }
}

unsigned fe_md_nops(fe *f, LLVMMetadataRef md) {
  if (!is_node(md))
    return 0;
  return LLVMGetMDNodeNumOperands(LLVMMetadataAsValue(f->ctx, md));
}

LLVMValueRef fe_md_op_value(fe *f, LLVMMetadataRef md, unsigned i) {
  unsigned n = fe_md_nops(f, md);
  if (i >= n)
    return NULL;
  LLVMValueRef small[16];
  LLVMValueRef *ops = n <= 16 ? small : malloc(n * sizeof *ops);
  LLVMGetMDNodeOperands(LLVMMetadataAsValue(f->ctx, md), ops);
  LLVMValueRef r = ops[i];
  if (ops != small)
    free(ops);
  return r;
}

LLVMMetadataRef fe_md_op(fe *f, LLVMMetadataRef md, unsigned i) {
  LLVMValueRef v = fe_md_op_value(f, md, i);
  return v ? LLVMValueAsMetadata(v) : NULL;
}

const char *fe_md_op_str(fe *f, LLVMMetadataRef md, unsigned i, size_t *len) {
  LLVMValueRef v = fe_md_op_value(f, md, i);
  unsigned l = 0;
  const char *s = v ? LLVMGetMDString(v, &l) : NULL;
  *len = s ? l : 0;
  return s;
}

/* "field: value" from the node's printed form, as a number; -1 if absent. */
static const char *printed(fe *f, LLVMMetadataRef md, char **owned) {
  *owned = LLVMPrintValueToString(LLVMMetadataAsValue(f->ctx, md));
  return *owned;
}

long fe_md_print_field(fe *f, LLVMMetadataRef md, const char *field) {
  char *s;
  const char *t = printed(f, md, &s);
  char key[64];
  snprintf(key, sizeof key, "%s: ", field);
  const char *p = strstr(t, key);
  long r = -1;
  if (p)
    r = strtol(p + strlen(key), NULL, 10);
  LLVMDisposeMessage(s);
  return r;
}

unsigned fe_md_tag(fe *f, LLVMMetadataRef md) {
  uint64_t x;
  if (fe_map_get(&f->md_tag, md, &x))
    return (unsigned)x;
  static const struct {
    const char *name;
    unsigned tag;
  } tags[] = {{"DW_TAG_array_type", DW_TAG_array_type},
              {"DW_TAG_enumeration_type", DW_TAG_enumeration_type},
              {"DW_TAG_member", DW_TAG_member},
              {"DW_TAG_pointer_type", DW_TAG_pointer_type},
              {"DW_TAG_structure_type", DW_TAG_structure_type},
              {"DW_TAG_typedef", DW_TAG_typedef},
              {"DW_TAG_union_type", DW_TAG_union_type},
              {"DW_TAG_const_type", DW_TAG_const_type},
              {"DW_TAG_volatile_type", DW_TAG_volatile_type},
              {"DW_TAG_restrict_type", DW_TAG_restrict_type},
              {"DW_TAG_atomic_type", DW_TAG_atomic_type}};
  unsigned tag = 0;
  LLVMMetadataKind k = LLVMGetMetadataKind(md);
  if (k == LLVMDIBasicTypeMetadataKind)
    tag = DW_TAG_base_type;
  else if (k == LLVMDISubroutineTypeMetadataKind)
    tag = DW_TAG_subroutine_type;
  else if (k == LLVMDIDerivedTypeMetadataKind ||
           k == LLVMDICompositeTypeMetadataKind) {
    char *s;
    const char *t = printed(f, md, &s);
    const char *p = strstr(t, "tag: ");
    if (p) {
      p += 5;
      for (size_t i = 0; i < sizeof tags / sizeof *tags; i++) {
        size_t l = strlen(tags[i].name);
        if (strncmp(p, tags[i].name, l) == 0 && (p[l] == ',' || p[l] == ')')) {
          tag = tags[i].tag;
          break;
        }
      }
    }
    LLVMDisposeMessage(s);
  }
  fe_map_put(&f->md_tag, md, tag);
  return tag;
}

/* ---- files and functions ---- */

uint32_t fe_file_index(fe *f, const char *name, const char *dir) {
  const char *key = fe_pool_intern(f->pool, name, strlen(name));
  uint64_t x;
  if (fe_map_get(&f->file_index, key, &x))
    return (uint32_t)x;
  char path[4096];
  if (name[0] == '/' || !dir || !*dir)
    snprintf(path, sizeof path, "%s", name);
  else
    snprintf(path, sizeof path, "%s/%s", dir, name);
  FE_PUSH(f->files, key);
  FE_PUSH(f->file_paths, fe_pool_str(f->pool, path));
  fe_map_put(&f->file_index, key, f->files.n - 1);
  return f->files.n - 1;
}

uint32_t fe_file_of_scope(fe *f, LLVMMetadataRef scope) {
  if (!scope)
    return CB_NONE;
  LLVMMetadataRef file = NULL;
  if (LLVMGetMetadataKind(scope) == LLVMDIFileMetadataKind)
    file = scope;
  else if (is_node(scope))
    file = LLVMDIScopeGetFile(scope);
  if (!file)
    return CB_NONE;
  uint64_t x;
  if (fe_map_get(&f->md_file, file, &x))
    return (uint32_t)x;
  unsigned ln = 0, ld = 0;
  const char *name = LLVMDIFileGetFilename(file, &ln);
  const char *dir = LLVMDIFileGetDirectory(file, &ld);
  char nb[4096], db[4096], full[8200], real[PATH_MAX];
  snprintf(nb, sizeof nb, "%.*s", (int)ln, name ? name : "");
  snprintf(db, sizeof db, "%.*s", (int)ld, dir ? dir : "");
  uint32_t idx = CB_NONE;
  /* a source the user named: keep the name as given */
  if (nb[0] == '/' || !db[0])
    snprintf(full, sizeof full, "%s", nb);
  else
    snprintf(full, sizeof full, "%s/%s", db, nb);
  if (f->src_real.n && realpath(full, real))
    for (uint32_t i = 0; i < f->src_real.n && idx == CB_NONE; i++)
      if (f->src_real.v[i] && strcmp(f->src_real.v[i], real) == 0)
        idx = i;
  /* any other file by its directory and name together: clang splits them
   * by the working directory (from /work/main/build, a header of
   * /work/main/polybench is "polybench/medley/../polybench.h" in
   * "/work/main"; from /tmp, the whole path in ""), and a report must not
   * depend on where cbana was run */
  if (idx == CB_NONE)
    idx = fe_file_index(f, full, NULL);
  fe_map_put(&f->md_file, file, idx);
  return idx;
}

LLVMMetadataRef fe_subprogram_of(fe *f, LLVMMetadataRef scope) {
  for (int depth = 0; scope && depth < 64; depth++) {
    LLVMMetadataKind k = LLVMGetMetadataKind(scope);
    if (k == LLVMDISubprogramMetadataKind)
      return scope;
    if (k != LLVMDILexicalBlockMetadataKind &&
        k != LLVMDILexicalBlockFileMetadataKind)
      return NULL;
    scope = fe_md_op(f, scope, 1); /* DILexicalBlock(File): [1] scope */
  }
  return NULL;
}

uint32_t fe_src_func(fe *f, LLVMMetadataRef scope) {
  LLVMMetadataRef sp = fe_subprogram_of(f, scope);
  if (!sp)
    return CB_NONE;
  uint64_t x;
  if (fe_map_get(&f->md_srcfunc, sp, &x))
    return (uint32_t)x;
  cb_src_func sf;
  size_t len;
  const char *nm = fe_md_op_str(f, sp, 2, &len); /* DISubprogram: [2] name */
  sf.name = nm ? fe_pool_intern(f->pool, nm, len) : "?";
  sf.file = fe_file_of_scope(f, sp);
  sf.line = LLVMDISubprogramGetLine(sp);
  FE_PUSH(f->src_funcs, sf);
  fe_map_put(&f->md_srcfunc, sp, f->src_funcs.n - 1);
  return f->src_funcs.n - 1;
}

/* ---- types ---- */

static uint32_t new_type(fe *f, LLVMMetadataRef md, cb_ctype_kind kind,
                         const char *name, uint64_t size) {
  cb_ctype t;
  memset(&t, 0, sizeof t);
  t.kind = kind;
  t.name = name;
  t.size = size;
  t.elem = CB_NONE;
  FE_PUSH(f->types, t);
  if (md)
    fe_map_put(&f->md_type, md, f->types.n - 1);
  return f->types.n - 1;
}

static const char *type_name_of(fe *f, uint32_t t) {
  return t == CB_NONE ? "void" : f->types.v[t].name;
}

uint32_t fe_type(fe *f, LLVMMetadataRef md) {
  if (!md || !is_node(md))
    return CB_NONE;
  uint64_t x;
  if (fe_map_get(&f->md_type, md, &x))
    return (uint32_t)x;
  LLVMMetadataKind k = LLVMGetMetadataKind(md);
  size_t len;
  const char *nm;
  char buf[512];
  uint64_t size = 0;
  if (k == LLVMDIBasicTypeMetadataKind || k == LLVMDIDerivedTypeMetadataKind ||
      k == LLVMDICompositeTypeMetadataKind)
    size = LLVMDITypeGetSizeInBits(md) / 8;
  unsigned tag = fe_md_tag(f, md);
  switch (tag) {
  case DW_TAG_base_type:
    nm = fe_md_op_str(f, md, 2, &len);
    return new_type(f, md, CB_CT_BASE,
                    nm ? fe_pool_intern(f->pool, nm, len) : "?", size);
  case DW_TAG_subroutine_type:
    return new_type(f, md, CB_CT_FUNCTION, "function", 0);
  case DW_TAG_const_type:
  case DW_TAG_volatile_type:
  case DW_TAG_restrict_type:
  case DW_TAG_atomic_type: {
    uint32_t b = fe_type(f, fe_md_op(f, md, 3)); /* [3] baseType */
    fe_map_put(&f->md_type, md, b);
    return b;
  }
  case DW_TAG_pointer_type: {
    uint32_t t = new_type(f, md, CB_CT_POINTER, "pointer", size ? size : 8);
    uint32_t e = fe_type(f, fe_md_op(f, md, 3));
    const char *en = type_name_of(f, e);
    snprintf(buf, sizeof buf, "%s%s*", en,
             en[strlen(en) - 1] == '*' ? "" : " ");
    f->types.v[t].elem = e;
    f->types.v[t].name = fe_pool_intern(f->pool, buf, strlen(buf));
    return t;
  }
  case DW_TAG_typedef: {
    nm = fe_md_op_str(f, md, 2, &len);
    uint32_t t = new_type(f, md, CB_CT_TYPEDEF,
                          nm ? fe_pool_intern(f->pool, nm, len) : "?", 0);
    uint32_t e = fe_type(f, fe_md_op(f, md, 3));
    f->types.v[t].elem = e;
    f->types.v[t].size = e != CB_NONE ? f->types.v[e].size : 0;
    return t;
  }
  case DW_TAG_enumeration_type:
  case DW_TAG_structure_type:
  case DW_TAG_union_type: {
    nm = fe_md_op_str(f, md, 2, &len);
    const char *kw = tag == DW_TAG_structure_type ? "struct"
                     : tag == DW_TAG_union_type   ? "union"
                                                  : "enum";
    if (nm && len)
      snprintf(buf, sizeof buf, "%s %.*s", kw, (int)len, nm);
    else
      snprintf(buf, sizeof buf, "%s <anonymous>", kw);
    uint32_t t = new_type(f, md,
                          tag == DW_TAG_structure_type ? CB_CT_STRUCT
                          : tag == DW_TAG_union_type   ? CB_CT_UNION
                                                       : CB_CT_ENUM,
                          fe_pool_intern(f->pool, buf, strlen(buf)), size);
    if (tag == DW_TAG_enumeration_type)
      return t;
    LLVMMetadataRef elems = fe_md_op(f, md, 4); /* [4] elements */
    unsigned n = fe_md_nops(f, elems);
    uint32_t nm_count = 0;
    for (unsigned i = 0; i < n; i++) {
      LLVMMetadataRef m = fe_md_op(f, elems, i);
      if (m && LLVMGetMetadataKind(m) == LLVMDIDerivedTypeMetadataKind &&
          fe_md_tag(f, m) == DW_TAG_member)
        nm_count++;
    }
    uint32_t first = f->fields.n;
    FE_RESERVE(f->fields, nm_count);
    f->fields.n += nm_count;
    f->types.v[t].first_field = first;
    f->types.v[t].n_fields = nm_count;
    uint32_t j = 0;
    for (unsigned i = 0; i < n; i++) {
      LLVMMetadataRef m = fe_md_op(f, elems, i);
      if (!m || LLVMGetMetadataKind(m) != LLVMDIDerivedTypeMetadataKind ||
          fe_md_tag(f, m) != DW_TAG_member)
        continue;
      cb_field fl;
      const char *mn = fe_md_op_str(f, m, 2, &len);
      fl.name = mn && len ? fe_pool_intern(f->pool, mn, len) : "<anonymous>";
      fl.offset = LLVMDITypeGetOffsetInBits(m) / 8;
      fl.size = LLVMDITypeGetSizeInBits(m) / 8;
      fl.type = fe_type(f, fe_md_op(f, m, 3));
      f->fields.v[first + j++] = fl;
    }
    return t;
  }
  case DW_TAG_array_type: {
    uint32_t e = fe_type(f, fe_md_op(f, md, 3));
    LLVMMetadataRef elems = fe_md_op(f, md, 4);
    unsigned n = fe_md_nops(f, elems);
    uint64_t counts[16];
    unsigned nd = 0;
    for (unsigned i = 0; i < n && nd < 16; i++) {
      LLVMMetadataRef sr = fe_md_op(f, elems, i);
      if (!sr || LLVMGetMetadataKind(sr) != LLVMDISubrangeMetadataKind)
        continue;
      LLVMValueRef c = fe_md_op_value(f, sr, 0); /* DISubrange: [0] count */
      long long v =
          c && LLVMIsAConstantInt(c) ? LLVMConstIntGetSExtValue(c) : 0;
      counts[nd++] = v > 0 ? (uint64_t)v : 0;
    }
    if (nd == 0)
      counts[nd++] = 0;
    /* innermost dimension first */
    uint32_t cur = e;
    char dims[256] = "";
    for (int d = (int)nd - 1; d >= 0; d--) {
      char one[40];
      if (counts[d])
        snprintf(one, sizeof one, "[%llu]", (unsigned long long)counts[d]);
      else
        snprintf(one, sizeof one, "[]");
      size_t lo = strlen(one), ld = strlen(dims);
      if (lo + ld < sizeof dims) {
        memmove(dims + lo, dims, ld + 1);
        memcpy(dims, one, lo);
      }
      snprintf(buf, sizeof buf, "%s%s", type_name_of(f, e), dims);
      uint64_t es = cur != CB_NONE ? f->types.v[cur].size : 0;
      uint32_t t =
          new_type(f, d == 0 ? md : NULL, CB_CT_ARRAY,
                   fe_pool_intern(f->pool, buf, strlen(buf)), es * counts[d]);
      f->types.v[t].elem = cur;
      f->types.v[t].count = counts[d];
      cur = t;
    }
    return cur;
  }
  default: {
    nm = is_node(md) ? fe_md_op_str(f, md, 2, &len) : NULL;
    return new_type(f, md, CB_CT_BASE,
                    nm && len ? fe_pool_intern(f->pool, nm, len) : "?", size);
  }
  }
}

uint32_t fe_type_strip(fe *f, uint32_t t) {
  for (int i = 0; i < 32 && t != CB_NONE && f->types.v[t].kind == CB_CT_TYPEDEF;
       i++)
    t = f->types.v[t].elem;
  return t;
}

/* ---- variables ---- */

uint32_t fe_var(fe *f, LLVMMetadataRef md) {
  if (!md)
    return CB_NONE;
  uint64_t x;
  if (fe_map_get(&f->md_var, md, &x))
    return (uint32_t)x;
  LLVMMetadataKind k = LLVMGetMetadataKind(md);
  if (k != LLVMDIGlobalVariableMetadataKind &&
      k != LLVMDILocalVariableMetadataKind)
    return CB_NONE;
  cb_var v;
  memset(&v, 0, sizeof v);
  size_t len;
  const char *nm = fe_md_op_str(f, md, 1, &len); /* DIVariable: [1] name */
  v.name = nm ? fe_pool_intern(f->pool, nm, len) : "?";
  v.src_func = CB_NONE;
  if (k == LLVMDIGlobalVariableMetadataKind) {
    v.kind = CB_VAR_GLOBAL;
  } else {
    v.kind = fe_md_var_arg(f, md) > 0 ? CB_VAR_PARAM : CB_VAR_LOCAL;
    v.src_func = fe_src_func(f, fe_md_op(f, md, 0)); /* [0] scope */
  }
  LLVMMetadataRef file = LLVMDIVariableGetFile(md);
  v.file = file ? fe_file_of_scope(f, file) : CB_NONE;
  v.line = LLVMDIVariableGetLine(md);
  /* reserve the index before the type (types never refer to vars) */
  v.type = fe_type(f, fe_md_op(f, md, 3)); /* [3] type */
  FE_PUSH(f->vars, v);
  FE_PUSH(f->var_md, md);
  fe_map_put(&f->md_var, md, f->vars.n - 1);
  return f->vars.n - 1;
}

void fe_resolve_access(fe *f, uint32_t var, bool object, int64_t off,
                       uint32_t size, uint32_t *type, uint32_t *field) {
  *type = CB_NONE;
  *field = CB_NONE;
  if (var == CB_NONE)
    return;
  uint32_t t = f->vars.v[var].type;
  if (!object) {
    uint32_t s = fe_type_strip(f, t);
    if (s == CB_NONE || (f->types.v[s].kind != CB_CT_POINTER &&
                         f->types.v[s].kind != CB_CT_ARRAY))
      return;
    uint32_t e = f->types.v[s].elem;
    uint32_t es = fe_type_strip(f, e);
    if (e == CB_NONE || es == CB_NONE || f->types.v[es].size == 0)
      return;
    int64_t sz = (int64_t)f->types.v[es].size;
    off = ((off % sz) + sz) % sz;
    t = e;
  }
  for (int depth = 0; depth < 32 && t != CB_NONE; depth++) {
    uint32_t s = fe_type_strip(f, t);
    if (s == CB_NONE)
      break;
    const cb_ctype *ct = &f->types.v[s];
    if (ct->kind == CB_CT_ARRAY) {
      uint32_t es = fe_type_strip(f, ct->elem);
      if (ct->elem == CB_NONE || es == CB_NONE || f->types.v[es].size == 0)
        break;
      int64_t sz = (int64_t)f->types.v[es].size;
      off = ((off % sz) + sz) % sz;
      t = ct->elem;
      continue;
    }
    if ((ct->kind == CB_CT_STRUCT || ct->kind == CB_CT_UNION) && off >= 0 &&
        (uint64_t)off < ct->size) {
      uint32_t hit = CB_NONE;
      for (uint32_t i = 0; i < ct->n_fields; i++) {
        const cb_field *fl = &f->fields.v[ct->first_field + i];
        if ((uint64_t)off >= fl->offset &&
            (uint64_t)off < fl->offset + (fl->size ? fl->size : 1)) {
          hit = ct->first_field + i;
          break;
        }
      }
      if (hit == CB_NONE)
        break;
      *field = hit;
      off -= (int64_t)f->fields.v[hit].offset;
      t = f->fields.v[hit].type;
      continue;
    }
    break;
  }
  (void)size;
  *type = t;
}
