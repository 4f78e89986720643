/* condtext.c: the text of branch conditions as written. libclang finds
 * the control statements (if, while, for, do, switch, ?:, && and ||) of
 * each source file; a branch point takes the condition of the smallest
 * such construct whose header contains its debug location. The text is
 * cut from the source file itself, blanks collapsed. */
#include "fe_internal.h"

#include <clang-c/Index.h>

#include <stdio.h>
#include <string.h>

typedef struct cand {
  unsigned start, end;           /* region matched against locations */
  unsigned cond_start, cond_end; /* the condition's bytes */
  bool loop; /* a for, while or do condition: true means one more pass */
} cand;

typedef struct scan {
  const char *text;
  size_t len;
  FE_VEC(cand) cands;
} scan;

static bool cursor_range(CXCursor c, unsigned *s, unsigned *e) {
  CXSourceRange r = clang_getCursorExtent(c);
  CXSourceLocation a = clang_getRangeStart(r), b = clang_getRangeEnd(r);
  if (!clang_Location_isFromMainFile(a))
    return false;
  CXFile fa, fb;
  unsigned l, col;
  clang_getExpansionLocation(a, &fa, &l, &col, s);
  clang_getExpansionLocation(b, &fb, &l, &col, e);
  return *e > *s;
}

/* From `from`, skip blanks and comments. */
static size_t skip_blank(const scan *sc, size_t i, size_t end) {
  while (i < end) {
    char c = sc->text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
      i++;
    else if (c == '/' && i + 1 < end && sc->text[i + 1] == '*') {
      const char *e = strstr(sc->text + i + 2, "*/");
      i = e ? (size_t)(e - sc->text) + 2 : end;
    } else if (c == '/' && i + 1 < end && sc->text[i + 1] == '/') {
      while (i < end && sc->text[i] != '\n')
        i++;
    } else
      break;
  }
  return i;
}

/* The matching close of the bracket at `open`, or end. */
static size_t match_paren(const scan *sc, size_t open, size_t end) {
  int depth = 0;
  for (size_t i = open; i < end; i++) {
    char c = sc->text[i];
    if (c == '"' || c == '\'') {
      for (i++; i < end && sc->text[i] != c; i++)
        if (sc->text[i] == '\\')
          i++;
    } else if (c == '/' && i + 1 < end && sc->text[i + 1] == '*') {
      const char *e = strstr(sc->text + i + 2, "*/");
      i = e ? (size_t)(e - sc->text) + 1 : end;
    } else if (c == '(') {
      depth++;
    } else if (c == ')') {
      if (--depth == 0)
        return i;
    }
  }
  return end;
}

static void add(scan *sc, unsigned s, unsigned e, unsigned cs, unsigned ce,
                bool loop) {
  if (ce <= cs || e <= s)
    return;
  cand c = {s, e, cs, ce, loop};
  FE_PUSH(sc->cands, c);
}

typedef struct kids {
  CXCursor c[3];
  int n;
} kids;

static enum CXChildVisitResult collect(CXCursor c, CXCursor parent,
                                       CXClientData d) {
  (void)parent;
  kids *k = d;
  if (k->n < 3)
    k->c[k->n] = c;
  k->n++;
  return CXChildVisit_Continue;
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent,
                                     CXClientData d) {
  (void)parent;
  scan *sc = d;
  if (!clang_Location_isFromMainFile(clang_getCursorLocation(c)))
    return CXChildVisit_Continue;
  enum CXCursorKind k = clang_getCursorKind(c);
  unsigned s, e;
  if (k != CXCursor_IfStmt && k != CXCursor_WhileStmt &&
      k != CXCursor_ForStmt && k != CXCursor_DoStmt &&
      k != CXCursor_SwitchStmt && k != CXCursor_ConditionalOperator &&
      k != CXCursor_BinaryOperator)
    return CXChildVisit_Recurse;
  if (!cursor_range(c, &s, &e) || e > sc->len)
    return CXChildVisit_Recurse;
  if (k == CXCursor_IfStmt || k == CXCursor_WhileStmt ||
      k == CXCursor_SwitchStmt || k == CXCursor_ForStmt) {
    size_t open = s;
    while (open < e && sc->text[open] != '(')
      open++;
    size_t close = match_paren(sc, open, e);
    if (close >= e)
      return CXChildVisit_Recurse;
    if (k == CXCursor_ForStmt) {
      /* the part between the two semicolons at depth one */
      size_t semi[2];
      int ns = 0, depth = 0;
      for (size_t i = open + 1; i < close && ns < 2; i++) {
        char ch = sc->text[i];
        if (ch == '(')
          depth++;
        else if (ch == ')')
          depth--;
        else if (ch == ';' && depth == 0)
          semi[ns++] = i;
      }
      if (ns == 2)
        add(sc, s, (unsigned)close + 1, (unsigned)semi[0] + 1,
            (unsigned)semi[1], true);
    } else {
      add(sc, s, (unsigned)close + 1, (unsigned)open + 1, (unsigned)close,
          k == CXCursor_WhileStmt);
    }
  } else if (k == CXCursor_DoStmt) {
    /* do BODY while (COND); : the last parenthesis pair */
    size_t close = e;
    while (close > s && sc->text[close] != ')')
      close--;
    int depth = 0;
    size_t open = close;
    for (size_t i = close + 1; i-- > s;) {
      if (sc->text[i] == ')')
        depth++;
      else if (sc->text[i] == '(' && --depth == 0) {
        open = i;
        break;
      }
    }
    size_t w = open;
    while (w > s && sc->text[w] != 'w')
      w--;
    /* the body's closing brace belongs to the tail too: clang puts the
       back edge there */
    size_t br = w;
    while (br > s && (sc->text[br - 1] == ' ' || sc->text[br - 1] == '\t' ||
                      sc->text[br - 1] == '\n' || sc->text[br - 1] == '\r'))
      br--;
    if (br > s && sc->text[br - 1] == '}')
      w = br - 1;
    if (open < close)
      add(sc, (unsigned)w, e + 1, (unsigned)open + 1, (unsigned)close, true);
  } else {
    kids kd = {.n = 0};
    clang_visitChildren(c, collect, &kd);
    if (k == CXCursor_ConditionalOperator && kd.n >= 1) {
      unsigned cs, ce;
      if (cursor_range(kd.c[0], &cs, &ce))
        add(sc, s, e, cs, ce, false);
    } else if (k == CXCursor_BinaryOperator && kd.n == 2) {
      unsigned ls, le, rs, re;
      if (cursor_range(kd.c[0], &ls, &le) && cursor_range(kd.c[1], &rs, &re) &&
          rs > le) {
        size_t i = skip_blank(sc, le, rs);
        bool logical =
            i + 1 < rs && ((sc->text[i] == '&' && sc->text[i + 1] == '&') ||
                           (sc->text[i] == '|' && sc->text[i + 1] == '|'));
        if (logical) {
          add(sc, ls, le, ls, le, false);
          add(sc, rs, re, rs, re, false);
        }
      }
    }
  }
  return CXChildVisit_Recurse;
}

static char *read_file(const char *path, size_t *len) {
  FILE *fp = fopen(path, "rb");
  if (!fp)
    return NULL;
  fseek(fp, 0, SEEK_END);
  long n = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *t = malloc((size_t)n + 1);
  size_t got = t ? fread(t, 1, (size_t)n, fp) : 0;
  fclose(fp);
  if (!t)
    return NULL;
  t[got] = 0;
  *len = got;
  return t;
}

static const char *cond_text(fe *f, const scan *sc, const cand *c) {
  char *buf = malloc(c->cond_end - c->cond_start + 1);
  size_t n = 0;
  bool blank = false;
  size_t i = skip_blank(sc, c->cond_start, c->cond_end);
  for (; i < c->cond_end; i++) {
    char ch = sc->text[i];
    if (ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r') {
      blank = true;
      continue;
    }
    if (blank && n)
      buf[n++] = ' ';
    blank = false;
    buf[n++] = ch;
  }
  const char *r = n ? fe_pool_intern(f->pool, buf, n) : NULL;
  free(buf);
  return r;
}

void fe_branch_texts(fe *f, fe_build *b) {
  size_t nsrc = f->opts ? f->opts->n_sources : 0;
  if (!nsrc || !f->branches.n)
    return;
  CXIndex index = clang_createIndex(0, 0);
  for (size_t i = 0; i < nsrc && i < f->files.n; i++) {
    bool used = false;
    for (uint32_t k = 0; k < f->branches.n && !used; k++)
      used = f->branches.v[k].file == i && f->branches.v[k].line;
    if (!used)
      continue;
    const char *path = f->file_paths.v[i];
    scan sc;
    memset(&sc, 0, sizeof sc);
    sc.text = read_file(path, &sc.len);
    if (!sc.text)
      continue;
    const char *const *args = NULL;
    int nargs = 0;
    if (b && b->src_args && b->src_args[i]) {
      args = (const char *const *)b->src_args[i];
      while (args[nargs])
        nargs++;
    }
    CXTranslationUnit tu = NULL;
    enum CXErrorCode ec = clang_parseTranslationUnit2(
        index, path, args, nargs, NULL, 0,
        CXTranslationUnit_KeepGoing | CXTranslationUnit_SkipFunctionBodies * 0,
        &tu);
    if (ec == CXError_Success && tu) {
      clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, &sc);
      /* line starts */
      FE_VEC(unsigned) lines = {0};
      FE_PUSH(lines, 0);
      for (size_t k = 0; k < sc.len; k++)
        if (sc.text[k] == '\n')
          FE_PUSH(lines, (unsigned)k + 1);
      for (uint32_t k = 0; k < f->branches.n; k++) {
        cb_branch *br = &f->branches.v[k];
        if (br->file != i || br->line == 0 || br->line > lines.n)
          continue;
        unsigned off = lines.v[br->line - 1] + (br->col ? br->col - 1 : 0);
        const cand *best = NULL;
        for (uint32_t c = 0; c < sc.cands.n; c++) {
          const cand *cd = &sc.cands.v[c];
          if (off >= cd->start && off < cd->end &&
              (!best || cd->end - cd->start <= best->end - best->start))
            best = cd;
        }
        if (best) {
          br->text = cond_text(f, &sc, best);
          br->loop_cond = best->loop;
        }
      }
      free(lines.v);
      clang_disposeTranslationUnit(tu);
    }
    free(sc.cands.v);
    free((char *)sc.text);
  }
  clang_disposeIndex(index);
}
