/* condtext.c: the text of branch conditions as written. libclang finds
 * the control statements (if, while, for, do, switch, ?:, && and ||) of
 * each source file; a branch point takes the condition of the smallest
 * such construct whose header contains its debug location. The text is
 * cut from the source file itself, blanks collapsed. */
#include "fe_internal.h"

#include <clang-c/Index.h>

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* How the code after a construct (outside its bytes) relates to the
 * source's sense of its condition. */
enum { OUT_UNKNOWN, OUT_FALSE, OUT_TRUE };

typedef struct cand {
  unsigned start, end;           /* region matched against locations */
  unsigned cond_start, cond_end; /* the condition's bytes */
  bool loop; /* a for, while or do condition: true means one more pass */
  /* The parts that tell the sense: code in [t_start, t_end) runs only when
   * the condition is true (then, loop body, ?:'s second operand, the right
   * operand of &&), code in [f_start, f_end) only when false; code outside
   * [c_start, c_end) as `outside` says. Empty parts tell nothing. */
  unsigned t_start, t_end, f_start, f_end, c_start, c_end;
  int outside;
} cand;

typedef struct scan {
  const char *text;
  size_t len;
  FE_VEC(cand) cands;
  bool kept; /* read from, or written to, the cache directory */
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

static cand *add(scan *sc, unsigned s, unsigned e, unsigned cs, unsigned ce,
                 bool loop) {
  if (ce <= cs || e <= s)
    return NULL;
  cand c = {s, e, cs, ce, loop, 0, 0, 0, 0, 0, 0, OUT_UNKNOWN};
  FE_PUSH(sc->cands, c);
  return &sc->cands.v[sc->cands.n - 1];
}

static void set_parts(cand *c, unsigned ts, unsigned te, unsigned fs,
                      unsigned fend, unsigned cs, unsigned ce, int outside) {
  if (!c)
    return;
  c->t_start = ts;
  c->t_end = te;
  c->f_start = fs;
  c->f_end = fend;
  c->c_start = cs;
  c->c_end = ce;
  c->outside = outside;
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
      /* true: the increment and the body, after the condition */
      if (ns == 2)
        set_parts(add(sc, s, (unsigned)close + 1, (unsigned)semi[0] + 1,
                      (unsigned)semi[1], true),
                  (unsigned)semi[1] + 1, e, 0, 0, s, e, OUT_FALSE);
    } else {
      cand *cd = add(sc, s, (unsigned)close + 1, (unsigned)open + 1,
                     (unsigned)close, k == CXCursor_WhileStmt);
      kids kd = {.n = 0};
      clang_visitChildren(c, collect, &kd);
      unsigned ts = 0, te = 0, fs = 0, fend = 0;
      if (k == CXCursor_WhileStmt) {
        ts = (unsigned)close + 1; /* the body */
        te = e;
      } else if (k == CXCursor_IfStmt && (kd.n == 2 || kd.n == 3)) {
        if (!cursor_range(kd.c[1], &ts, &te))
          ts = te = 0;
        if (kd.n == 3 && !cursor_range(kd.c[2], &fs, &fend))
          ts = te = 0; /* an else we cannot place: tell nothing */
      }
      if (k != CXCursor_SwitchStmt)
        set_parts(cd, ts, te, fs, fend, s, e, OUT_FALSE);
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
    /* true: the body, from `do` to the tail */
    if (open < close)
      set_parts(add(sc, (unsigned)w, e + 1, (unsigned)open + 1, (unsigned)close,
                    true),
                s, (unsigned)w, 0, 0, s, e + 1, OUT_FALSE);
  } else {
    kids kd = {.n = 0};
    clang_visitChildren(c, collect, &kd);
    if (k == CXCursor_ConditionalOperator && kd.n >= 1) {
      unsigned cs, ce;
      unsigned ts, te, fs, fend;
      cand *cd = NULL;
      if (cursor_range(kd.c[0], &cs, &ce))
        cd = add(sc, s, e, cs, ce, false);
      if (kd.n == 3 && cursor_range(kd.c[1], &ts, &te) &&
          cursor_range(kd.c[2], &fs, &fend))
        set_parts(cd, ts, te, fs, fend, s, e, OUT_UNKNOWN);
    } else if (k == CXCursor_BinaryOperator && kd.n == 2) {
      unsigned ls, le, rs, re;
      if (cursor_range(kd.c[0], &ls, &le) && cursor_range(kd.c[1], &rs, &re) &&
          rs > le) {
        size_t i = skip_blank(sc, le, rs);
        bool logical =
            i + 1 < rs && ((sc->text[i] == '&' && sc->text[i + 1] == '&') ||
                           (sc->text[i] == '|' && sc->text[i + 1] == '|'));
        if (logical) {
          /* The left operand: && evaluates the right one when it is true
             and leaves the expression when false; || the other way. The
             right operand's sides are those of the enclosing construct,
             which this does not place (sense unknown). */
          cand *cd = add(sc, ls, le, ls, le, false);
          if (sc->text[i] == '&')
            set_parts(cd, rs, re, 0, 0, s, e, OUT_FALSE);
          else
            set_parts(cd, 0, 0, rs, re, s, e, OUT_TRUE);
          add(sc, rs, re, rs, re, false);
        }
      }
    }
  }
  return CXChildVisit_Recurse;
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

/* Byte offset of line:col, or UINT32_MAX. */
static unsigned offset_of(const unsigned *lines, uint32_t nlines, uint32_t line,
                          uint32_t col) {
  if (!line || line > nlines)
    return UINT32_MAX;
  return lines[line - 1] + (col ? col - 1 : 0);
}

/* What reaching `off` says about the source's condition of `c`: +1 true,
 * -1 false, 0 nothing. Strong when `off` is in a part of the construct
 * that runs only on that outcome; weak when it is after the construct
 * (where the code may also be reached by the other outcome, as an if
 * without else or a loop exit shows). */
static int part_of(const cand *c, unsigned off, bool *strong) {
  *strong = false;
  if (off == UINT32_MAX)
    return 0;
  *strong = true;
  if (off >= c->t_start && off < c->t_end)
    return 1;
  if (off >= c->f_start && off < c->f_end)
    return -1;
  *strong = false;
  if (off < c->c_start || off >= c->c_end)
    return c->outside == OUT_TRUE ? 1 : c->outside == OUT_FALSE ? -1 : 0;
  return 0; /* the condition itself, or a part that tells nothing */
}

/* The compiled branch's sense against the source's condition. At -O2
 * LLVM's InstCombine swaps a branch's successors to drop a negation
 * (`br (xor %c, true), T, F` -> `br %c, F, T`), and loop rotation makes
 * the in-loop branch test the exit, so successor 0 (the compiled true)
 * is not always the source's true. Where each successor first leads in
 * the source tells: the walk from a successor to its first located
 * instruction follows no choice, so a successor that leads into the then
 * part (body, ?:'s second operand, &&'s right operand) is taken only when
 * the condition holds, one that leads into the else part only when it
 * does not. Both sides must tell, and agree: +1 when successor 0 leads
 * to the source's true and successor 1 to its false, -1 the other way
 * round; code after the construct counts as the outcome that leaves it,
 * and at least one side must lead into a part of the construct itself.
 * 0 otherwise: a side without a location, one that leads back into the
 * condition (the vectorizer's trip-count checks lead into the loop on
 * both sides), both sides into one part. */
static int8_t branch_sense(const cand *c, const fe_branch_sides *sd,
                           uint32_t file, const unsigned *lines,
                           uint32_t nlines) {
  int v[2];
  bool strong[2];
  for (int s = 0; s < 2; s++) {
    const fe_side_loc *l = &sd->side[s];
    unsigned off = l->file == file ? offset_of(lines, nlines, l->line, l->col)
                                   : UINT32_MAX;
    v[s] = part_of(c, off, &strong[s]);
  }
  /* each side's claim on successor 0's meaning */
  int claim0 = v[0], claim1 = -v[1];
  if (!claim0 || claim0 != claim1 || (!strong[0] && !strong[1]))
    return 0;
  return (int8_t)claim0;
}

/* Source i's path as load_built indexes it (fe_file_index). */
static char *source_path(const char *name, const char *dir) {
  size_t n = strlen(name) + (dir ? strlen(dir) : 0) + 2;
  char *p = malloc(n);
  if (!p)
    return NULL;
  if (name[0] == '/' || !dir || !*dir)
    snprintf(p, n, "%s", name);
  else
    snprintf(p, n, "%s/%s", dir, name);
  return p;
}

/* One source file's constructs: read and parsed (libclang), then visited
 * into sc.cands. False if the file cannot be read or parsed. */
static bool scan_file(CXIndex index, const char *path, const char *const *args,
                      scan *sc) {
  memset(sc, 0, sizeof *sc);
  sc->text = fe_read_file(path, &sc->len, NULL);
  if (!sc->text)
    return false;
  int nargs = 0;
  while (args && args[nargs])
    nargs++;
  CXTranslationUnit tu = NULL;
  enum CXErrorCode ec = clang_parseTranslationUnit2(
      index, path, args, nargs, NULL, 0, CXTranslationUnit_KeepGoing, &tu);
  if (ec != CXError_Success || !tu)
    return false;
  clang_visitChildren(clang_getTranslationUnitCursor(tu), visit, sc);
  clang_disposeTranslationUnit(tu);
  return true;
}

/* ---- scans kept in the cache directory, beside their unit's outputs
 * (tu_cache.c): a unit's key names its source's and headers' contents and
 * its flags, which decide the scan; the file's header names this shared
 * object's build and libclang's version, which decide how it scans. ---- */

typedef struct scan_head {
  char magic[16];
  uint64_t build;
  uint32_t cand_size, n;
} scan_head;

static uint64_t scan_build(void) {
  /* computed by whichever thread asks first: the same value each time */
  static uint64_t build;
  Dl_info di;
  if (!__atomic_load_n(&build, __ATOMIC_RELAXED) &&
      dladdr((void *)scan_build, &di) && di.dli_fname) {
    struct stat st;
    uint64_t h = fe_fnv_str(FE_FNV_START, CINDEX_VERSION_STRING);
    h = fe_fnv_str(h, di.dli_fname);
    if (stat(di.dli_fname, &st) == 0) {
      uint64_t v[4] = {(uint64_t)st.st_ino, (uint64_t)st.st_size,
                       (uint64_t)st.st_mtim.tv_sec,
                       (uint64_t)st.st_mtim.tv_nsec};
      h = fe_fnv(h, v, sizeof v);
      __atomic_store_n(&build, h | 1, __ATOMIC_RELAXED);
    }
  }
  return __atomic_load_n(&build, __ATOMIC_RELAXED);
}

static bool scan_path(char *out, size_t n, const char *dir, uint64_t key) {
  return dir && key &&
         (size_t)snprintf(out, n, "%s/tu/%016llx.scan", dir,
                          (unsigned long long)key) < n;
}

/* The kept scan of the source at path, its text read again. */
static bool scan_read(const char *dir, uint64_t key, const char *path,
                      scan *sc) {
  char file[PATH_MAX];
  uint64_t build = scan_build();
  if (!build || !scan_path(file, sizeof file, dir, key))
    return false;
  FILE *f = fopen(file, "rb");
  if (!f)
    return false;
  scan_head h;
  bool ok = fread(&h, sizeof h, 1, f) == 1 &&
            strncmp(h.magic, "cbana scan 1", sizeof h.magic) == 0 &&
            h.build == build && h.cand_size == sizeof(cand) && h.n < (1u << 26);
  cand *v = ok && h.n ? malloc((size_t)h.n * sizeof *v) : NULL;
  ok = ok && (!h.n || (v && fread(v, sizeof *v, h.n, f) == h.n));
  fclose(f);
  memset(sc, 0, sizeof *sc);
  if (ok)
    sc->text = fe_read_file(path, &sc->len, NULL);
  if (!ok || !sc->text) {
    free(v);
    return false;
  }
  sc->cands.v = v;
  sc->cands.n = sc->cands.cap = h.n;
  sc->kept = true;
  return true;
}

/* Written whole under a temporary name, then renamed (runs at once). */
static void scan_write(const char *dir, uint64_t key, scan *sc) {
  char file[PATH_MAX], tmp[PATH_MAX + 32];
  uint64_t build = scan_build();
  if (!build || !scan_path(file, sizeof file, dir, key))
    return;
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return;
  scan_head h;
  memset(&h, 0, sizeof h);
  snprintf(h.magic, sizeof h.magic, "cbana scan 1");
  h.build = build;
  h.cand_size = sizeof(cand);
  h.n = (uint32_t)sc->cands.n;
  bool ok = fwrite(&h, sizeof h, 1, f) == 1 &&
            (!h.n || fwrite(sc->cands.v, sizeof(cand), h.n, f) == h.n);
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, file) != 0)
    unlink(tmp);
  sc->kept = true;
}

static void scan_free(scan *sc) {
  free(sc->cands.v);
  free((char *)sc->text);
  memset(sc, 0, sizeof *sc);
}

/* Sources scanned ahead, on a thread of their own (fe_scans_start). */
struct fe_scans {
  pthread_t thread;
  size_t n;
  char **paths;
  char ***args; /* the compile's (fe_build.src_args), not owned */
  const char *cache_dir;
  uint64_t *keys; /* the units found in the cache (fe_build.unit_keys) */
  scan *sc;
  bool *ok;
  bool joined;
};

static void scans_join(fe_scans *s) {
  if (s->n && !s->joined)
    pthread_join(s->thread, NULL);
  s->joined = true;
}

static void *scans_main(void *arg) {
  fe_scans *s = arg;
  CXIndex index = clang_createIndex(0, 0);
  for (size_t i = 0; i < s->n; i++)
    s->ok[i] = s->paths[i] &&
               ((s->keys &&
                 scan_read(s->cache_dir, s->keys[i], s->paths[i], &s->sc[i])) ||
                scan_file(index, s->paths[i],
                          s->args ? (const char *const *)s->args[i] : NULL,
                          &s->sc[i]));
  clang_disposeIndex(index);
  return NULL;
}

fe_scans *fe_scans_start(const cb_frontend_options *o, fe_build *b) {
  fe_scans *s = calloc(1, sizeof *s);
  if (!s)
    return NULL;
  s->n = o->n_sources;
  s->paths = calloc(s->n, sizeof *s->paths);
  s->sc = calloc(s->n, sizeof *s->sc);
  s->ok = calloc(s->n, sizeof *s->ok);
  s->args = b->src_args;
  s->cache_dir = o->no_reuse ? NULL : o->cache_dir;
  s->keys = b->unit_keys;
  bool ok = s->paths && s->sc && s->ok;
  for (size_t i = 0; ok && i < s->n; i++)
    s->paths[i] =
        source_path(o->sources[i], b->src_dirs ? b->src_dirs[i] : NULL);
  if (ok && pthread_create(&s->thread, NULL, scans_main, s) == 0)
    return s;
  s->joined = true; /* no thread */
  fe_scans_free(s);
  return NULL;
}

void fe_scans_free(fe_scans *s) {
  if (!s)
    return;
  scans_join(s);
  for (size_t i = 0; i < s->n; i++) {
    if (s->paths)
      free(s->paths[i]);
    if (s->sc)
      scan_free(&s->sc[i]);
  }
  free(s->paths);
  free(s->sc);
  free(s->ok);
  free(s);
}

/* Source i's scan: the one made ahead when it is of the same path (taken
 * out of `ahead`), else made now. */
static bool take_scan(fe_scans *ahead, size_t i, const char *path,
                      const char *const *args, CXIndex *index, scan *sc) {
  if (ahead && i < ahead->n && ahead->paths[i] &&
      strcmp(ahead->paths[i], path) == 0) {
    *sc = ahead->sc[i];
    memset(&ahead->sc[i], 0, sizeof ahead->sc[i]);
    return ahead->ok[i];
  }
  if (!*index)
    *index = clang_createIndex(0, 0);
  return scan_file(*index, path, args, sc);
}

void fe_branch_texts(fe *f, fe_build *b) {
  size_t nsrc = f->opts ? f->opts->n_sources : 0;
  fe_scans *ahead = b ? b->scans : NULL;
  if (ahead)
    scans_join(ahead);
  /* the scans made ahead of units in the cache, kept beside them */
  for (size_t i = 0; ahead && b->new_keys && i < ahead->n && i < b->n; i++) {
    uint64_t key = b->unit_keys[i] ? b->unit_keys[i] : b->new_keys[i];
    if (ahead->ok[i] && !ahead->sc[i].kept && key)
      scan_write(ahead->cache_dir, key, &ahead->sc[i]);
  }
  CXIndex index = NULL;
  for (size_t i = 0; f->branches.n && i < nsrc && i < f->files.n; i++) {
    bool used = false;
    for (uint32_t k = 0; k < f->branches.n && !used; k++)
      used = f->branches.v[k].file == i && f->branches.v[k].line;
    if (!used)
      continue;
    const char *const *args =
        b && b->src_args ? (const char *const *)b->src_args[i] : NULL;
    scan sc;
    if (take_scan(ahead, i, f->file_paths.v[i], args, &index, &sc)) {
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
          if (k < f->branch_sides.n)
            br->sense = branch_sense(best, &f->branch_sides.v[k], (uint32_t)i,
                                     lines.v, lines.n);
        }
      }
      free(lines.v);
    }
    scan_free(&sc);
  }
  if (index)
    clang_disposeIndex(index);
}
