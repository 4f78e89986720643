/* debuginfo_args.c: whether a DILocalVariable is a parameter (its `arg:`
 * field), for all of a module's variables from one print of the module.
 *
 * Why: LLVM-C has no getter for that field, and printing one variable
 * (LLVMPrintValueToString) first numbers the whole module's metadata
 * (llvm::SlotTracker, because the dbg intrinsics use the variable): once
 * per variable, that was half of the frontend's CPU on LLVM test-suite's
 * SMG2000 (22,000 lines; 9.5 of 20 s). The printed variables are matched
 * to the handles by name, line, file and function; a key that a
 * parameter and a local share, or one not found, falls back to printing
 * that variable alone. */
#include "fe_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ARG_CLASH UINT64_MAX

/* The value of `key` (", name: " ...) in one printed line, up to its end
 * (the line ends at '\n'). */
static const char *field(const char *line, const char *key) {
  const char *end = strchr(line, '\n');
  const char *p = strstr(line, key);
  return p && (!end || p < end) ? p + strlen(key) : NULL;
}

static long field_num(const char *line, const char *key) {
  const char *p = field(line, key);
  return p ? strtol(p, NULL, 10) : -1;
}

/* a quoted string, LLVM's escapes (\XX) undone, into buf */
static bool field_str(const char *line, const char *key, char *buf, size_t n) {
  const char *p = field(line, key);
  if (!p || *p != '"')
    return false;
  size_t k = 0;
  for (p++; *p && *p != '"' && *p != '\n'; p++) {
    char c = *p;
    if (c == '\\' && p[1] && p[2]) {
      char hex[3] = {p[1], p[2], 0};
      c = (char)strtol(hex, NULL, 16);
      p += 2;
    }
    if (k + 1 >= n)
      return false;
    buf[k++] = c;
  }
  buf[k] = 0;
  return *p == '"';
}

typedef struct lines {
  const char **at; /* at[N]: the text after "!N = " */
  size_t n;
} lines;

static const char *node(const lines *L, long id) {
  return id >= 0 && (size_t)id < L->n ? L->at[id] : NULL;
}

static void index_lines(lines *L, const char *text) {
  for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
    if (p[0] != '!' || p[1] < '0' || p[1] > '9')
      continue;
    char *eq;
    long id = strtol(p + 1, &eq, 10);
    if (strncmp(eq, " = ", 3) != 0)
      continue;
    if ((size_t)id >= L->n) {
      size_t n = L->n ? L->n : 1024;
      while (n <= (size_t)id)
        n *= 2;
      const char **a = realloc(L->at, n * sizeof *a);
      if (!a)
        return;
      memset(a + L->n, 0, (n - L->n) * sizeof *a);
      L->at = a;
      L->n = n;
    }
    L->at[id] = eq + 3;
  }
}

static const char *key_of(fe *f, const char *name, long line, const char *file,
                          const char *func) {
  char buf[1024];
  int n = snprintf(buf, sizeof buf, "%s\x1f%ld\x1f%s\x1f%s", name, line, file,
                   func);
  if (n < 0 || (size_t)n >= sizeof buf)
    return NULL;
  return fe_pool_intern(f->pool, buf, (size_t)n);
}

/* The function of a printed scope: DISubprogram's name, through lexical
 * blocks. */
static bool scope_func(const lines *L, long id, char *buf, size_t n) {
  for (int depth = 0; depth < 256; depth++) {
    const char *s = node(L, id);
    if (!s)
      return false;
    if (strstr(s, "!DISubprogram(") &&
        (!strchr(s, '\n') || strstr(s, "!DISubprogram(") < strchr(s, '\n')))
      return field_str(s, "(name: ", buf, n) ||
             field_str(s, ", name: ", buf, n);
    const char *sc = field(s, "(scope: !");
    if (!sc)
      return false;
    id = strtol(sc, NULL, 10);
  }
  return false;
}

static void read_module(fe *f) {
  f->var_arg_read = true;
  char *text = LLVMPrintModuleToString(f->mod);
  if (!text)
    return;
  lines L = {NULL, 0};
  index_lines(&L, text);
  for (size_t id = 0; id < L.n; id++) {
    const char *s = L.at[id];
    if (!s || strncmp(s, "!DILocalVariable(", 17) != 0)
      continue;
    char name[256], file[512] = "", func[256];
    long arg = field_num(s, ", arg: ");
    long line = field_num(s, ", line: ");
    const char *sc = field(s, ", scope: !");
    const char *fl = field(s, ", file: !");
    if (!field_str(s, "(name: ", name, sizeof name) || !sc ||
        !scope_func(&L, strtol(sc, NULL, 10), func, sizeof func))
      continue;
    if (fl) {
      const char *fs = node(&L, strtol(fl, NULL, 10));
      if (!fs || !field_str(fs, "(filename: ", file, sizeof file))
        continue;
    }
    const char *k = key_of(f, name, line < 0 ? 0 : line, file, func);
    if (!k)
      continue;
    uint64_t v = arg > 0 ? (uint64_t)arg + 1 : 1, old;
    if (fe_map_get(&f->var_arg, k, &old) && (old > 1) != (v > 1))
      v = ARG_CLASH;
    fe_map_put(&f->var_arg, k, v);
  }
  free(L.at);
  LLVMDisposeMessage(text);
}

long fe_md_var_arg(fe *f, LLVMMetadataRef md) {
  if (!f->var_arg_read)
    read_module(f);
  size_t nlen = 0, flen = 0;
  const char *nm = fe_md_op_str(f, md, 1, &nlen); /* DIVariable: [1] name */
  LLVMMetadataRef sp = fe_subprogram_of(f, fe_md_op(f, md, 0));
  const char *fn = sp ? fe_md_op_str(f, sp, 2, &flen) : NULL;
  char name[256], func[256], file[512] = "";
  LLVMMetadataRef fmd = LLVMDIVariableGetFile(md);
  unsigned fl = 0;
  const char *fs = fmd ? LLVMDIFileGetFilename(fmd, &fl) : NULL;
  uint64_t v;
  if (nm && fn) {
    snprintf(name, sizeof name, "%.*s", (int)nlen, nm);
    snprintf(func, sizeof func, "%.*s", (int)flen, fn);
    if (fs)
      snprintf(file, sizeof file, "%.*s", (int)fl, fs);
    const char *k = key_of(f, name, LLVMDIVariableGetLine(md), file, func);
    if (k && fe_map_get(&f->var_arg, k, &v) && v != ARG_CLASH)
      return (long)v - 1;
  }
  return fe_md_print_field(f, md, "arg");
}
