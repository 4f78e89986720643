/* Cachegrind runner and output parser; see cachegrind.h.
 *
 * The output format (valgrind 3.19, cachegrind): header lines "desc: ...",
 * "cmd: ...", "events: NAME...", then blocks "fl=FILE", "fn=NAME" followed
 * by rows "LINE COUNT..." (one count per event, trailing ones may be
 * omitted), and a final "summary: COUNT...". Cachegrind 3.19 writes names
 * in full; callgrind's "(N) name" compression is accepted too. */
#include "cachegrind.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *const event_names[CB_CG_NEVENTS] = {
    "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw"};

const char *cb_cg_event_name(int ev) {
  return ev >= 0 && ev < CB_CG_NEVENTS ? event_names[ev] : NULL;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) {
  if (!err || errlen == 0)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err, errlen, fmt, ap);
  va_end(ap);
}

void cb_cg_result_free(cb_cg_result *r) {
  if (!r)
    return;
  free(r->cmd);
  for (size_t i = 0; i < r->nfiles; i++)
    free(r->files[i]);
  free(r->files);
  for (size_t i = 0; i < r->nfns; i++)
    free(r->fns[i]);
  free(r->fns);
  free(r->rows);
  memset(r, 0, sizeof *r);
}

/* ---- parser ---- */

/* Names seen with "(N) name" compression: id -> name index. */
typedef struct name_map {
  size_t *idx; /* by id; SIZE_MAX when unset */
  size_t cap;
} name_map;

typedef struct parser {
  cb_cg_result *r;
  const char *name;
  unsigned long lineno;
  char *err;
  size_t errlen;
  int ev_of_col[64]; /* column -> event index, -1 when not one of ours */
  int ncols;         /* -1 until "events:" */
  long cur_file, cur_fn;
  size_t rows_cap, files_cap, fns_cap;
  name_map fl_ids, fn_ids;
} parser;

static int perr(parser *p, const char *fmt, ...) {
  if (p->err && p->errlen) {
    int n = snprintf(p->err, p->errlen, "%s:%lu: ", p->name, p->lineno);
    if (n < 0)
      n = 0;
    if ((size_t)n < p->errlen) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + n, p->errlen - (size_t)n, fmt, ap);
      va_end(ap);
    }
  }
  return -1;
}

static int grow(void **arr, size_t *cap, size_t need, size_t elem) {
  if (need <= *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 16;
  while (nc < need)
    nc *= 2;
  void *n = realloc(*arr, nc * elem);
  if (!n)
    return -1;
  *arr = n;
  *cap = nc;
  return 0;
}

static long intern(parser *p, char ***names, size_t *n, size_t *cap,
                   const char *s, size_t len) {
  for (size_t i = *n; i-- > 0;)
    if (strlen((*names)[i]) == len && memcmp((*names)[i], s, len) == 0)
      return (long)i;
  if (grow((void **)names, cap, *n + 1, sizeof **names))
    return perr(p, "out of memory");
  char *c = malloc(len + 1);
  if (!c)
    return perr(p, "out of memory");
  memcpy(c, s, len);
  c[len] = 0;
  (*names)[*n] = c;
  return (long)(*n)++;
}

/* "NAME", "(N) NAME" or "(N)": returns the name's index. */
static long parse_name(parser *p, const char *s, char ***names, size_t *n,
                       size_t *cap, name_map *ids) {
  size_t len = strlen(s);
  /* "(N)" or "(N) name"; other names may start with '(' too, e.g.
   * "(below main)". */
  size_t d = 1;
  while (s[0] == '(' && s[d] >= '0' && s[d] <= '9')
    d++;
  if (s[0] == '(' && d > 1 && s[d] == ')' &&
      (s[d + 1] == 0 || s[d + 1] == ' ')) {
    char *end;
    errno = 0;
    unsigned long id = strtoul(s + 1, &end, 10);
    if (errno || id > 1000000)
      return perr(p, "bad compressed name '%s'", s);
    const char *rest = end + 1;
    while (*rest == ' ')
      rest++;
    if (id >= ids->cap) {
      size_t old = ids->cap;
      if (grow((void **)&ids->idx, &ids->cap, id + 1, sizeof *ids->idx))
        return perr(p, "out of memory");
      for (size_t i = old; i < ids->cap; i++)
        ids->idx[i] = SIZE_MAX;
    }
    if (*rest == 0) {
      if (ids->idx[id] == SIZE_MAX)
        return perr(p, "name id (%lu) used before it was defined", id);
      return (long)ids->idx[id];
    }
    long i = intern(p, names, n, cap, rest, strlen(rest));
    if (i >= 0)
      ids->idx[id] = (size_t)i;
    return i;
  }
  if (len == 0)
    return perr(p, "empty name");
  return intern(p, names, n, cap, s, len);
}

/* "32768 B, 64 B, 8-way associative" */
static void parse_geometry(const char *s, cb_cg_cache *c) {
  unsigned long long size;
  unsigned line, assoc;
  if (sscanf(s, "%llu B, %u B, %u-way", &size, &line, &assoc) == 3) {
    c->size = size;
    c->line = line;
    c->assoc = assoc;
  } else if (sscanf(s, "%llu B, %u B, direct-mapped", &size, &line) == 2) {
    c->size = size;
    c->line = line;
    c->assoc = 1;
  } else if (sscanf(s, "%llu B, %u B, fully associative", &size, &line) == 2) {
    c->size = size;
    c->line = line;
    c->assoc = line ? (unsigned)(size / line) : 0;
  }
}

static int parse_desc(parser *p, const char *s) {
  while (*s == ' ')
    s++;
  static const char *const keys[] = {"I1 cache:", "D1 cache:", "LL cache:"};
  cb_cg_cache *dst[] = {&p->r->i1, &p->r->d1, &p->r->ll};
  for (int i = 0; i < 3; i++) {
    size_t k = strlen(keys[i]);
    if (strncmp(s, keys[i], k) == 0) {
      const char *v = s + k;
      while (*v == ' ')
        v++;
      parse_geometry(v, dst[i]);
    }
  }
  return 0;
}

static int parse_events(parser *p, const char *s) {
  if (p->ncols >= 0)
    return perr(p, "second 'events:' line");
  p->ncols = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s)
      break;
    const char *e = s;
    while (*e && *e != ' ' && *e != '\t')
      e++;
    if (p->ncols == 64)
      return perr(p, "too many events");
    int ev = -1;
    for (int i = 0; i < CB_CG_NEVENTS; i++)
      if (strlen(event_names[i]) == (size_t)(e - s) &&
          memcmp(event_names[i], s, (size_t)(e - s)) == 0)
        ev = i;
    if (ev >= 0)
      p->r->event_mask |= 1u << ev;
    p->ev_of_col[p->ncols++] = ev;
    s = e;
  }
  if (p->ncols == 0)
    return perr(p, "'events:' line names no event");
  return 0;
}

/* Reads up to ncols unsigned counts from s into c. */
static int parse_counts(parser *p, const char *s, cb_cg_counts *c) {
  memset(c, 0, sizeof *c);
  int col = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t')
      s++;
    if (!*s)
      break;
    if (*s < '0' || *s > '9')
      return perr(p, "bad count '%.20s'", s);
    if (col >= p->ncols)
      return perr(p, "more counts than events (%d)", p->ncols);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno)
      return perr(p, "count out of range");
    if (*end && *end != ' ' && *end != '\t')
      return perr(p, "bad count '%.20s'", s);
    if (p->ev_of_col[col] >= 0)
      c->v[p->ev_of_col[col]] = v;
    col++;
    s = end;
  }
  return col;
}

static int parse_line(parser *p, char *s) {
  cb_cg_result *r = p->r;
  if (*s == 0 || *s == '#')
    return 0;
  if (s[0] >= '0' && s[0] <= '9') {
    if (p->ncols < 0)
      return perr(p, "count line before 'events:'");
    if (p->cur_file < 0)
      return perr(p, "count line before 'fl='");
    if (p->cur_fn < 0)
      return perr(p, "count line before 'fn='");
    char *end;
    errno = 0;
    unsigned long ln = strtoul(s, &end, 10);
    if (errno || ln > UINT32_MAX || (*end != ' ' && *end != '\t'))
      return perr(p, "bad line number in '%.40s'", s);
    cb_cg_row row;
    int n = parse_counts(p, end, &row.c);
    if (n < 0)
      return -1;
    if (n == 0)
      return perr(p, "line %lu has no counts", ln);
    row.file = (uint32_t)p->cur_file;
    row.fn = (uint32_t)p->cur_fn;
    row.line = (uint32_t)ln;
    if (grow((void **)&r->rows, &p->rows_cap, r->nrows + 1, sizeof *r->rows))
      return perr(p, "out of memory");
    r->rows[r->nrows++] = row;
    for (int i = 0; i < CB_CG_NEVENTS; i++)
      r->total.v[i] += row.c.v[i];
    return 0;
  }
  if (!strncmp(s, "fl=", 3) || !strncmp(s, "fi=", 3) || !strncmp(s, "fe=", 3)) {
    long i =
        parse_name(p, s + 3, &r->files, &r->nfiles, &p->files_cap, &p->fl_ids);
    if (i < 0)
      return -1;
    p->cur_file = i;
    if (s[1] == 'l')
      p->cur_fn = -1; /* a new file starts a new function block */
    return 0;
  }
  if (!strncmp(s, "fn=", 3)) {
    long i = parse_name(p, s + 3, &r->fns, &r->nfns, &p->fns_cap, &p->fn_ids);
    if (i < 0)
      return -1;
    p->cur_fn = i;
    return 0;
  }
  if (!strncmp(s, "events:", 7))
    return parse_events(p, s + 7);
  if (!strncmp(s, "summary:", 8)) {
    if (p->ncols < 0)
      return perr(p, "'summary:' before 'events:'");
    if (r->has_summary)
      return perr(p, "second 'summary:' line");
    int n = parse_counts(p, s + 8, &r->summary);
    if (n < 0)
      return -1;
    r->has_summary = 1;
    return 0;
  }
  if (!strncmp(s, "desc:", 5))
    return parse_desc(p, s + 5);
  if (!strncmp(s, "cmd:", 4)) {
    const char *v = s + 4;
    while (*v == ' ')
      v++;
    free(r->cmd);
    r->cmd = strdup(v);
    return r->cmd ? 0 : perr(p, "out of memory");
  }
  /* Other "key: value" header lines (version:, creator:, positions: ...)
   * are accepted and ignored; anything else is an error. */
  const char *c = s;
  while ((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_')
    c++;
  if (c > s && *c == ':')
    return 0;
  return perr(p, "unrecognised line '%.40s'", s);
}

int cb_cg_parse_stream(FILE *f, const char *name, cb_cg_result *out, char *err,
                       size_t errlen) {
  memset(out, 0, sizeof *out);
  parser p;
  memset(&p, 0, sizeof p);
  p.r = out;
  p.name = name ? name : "cachegrind.out";
  p.err = err;
  p.errlen = errlen;
  p.ncols = -1;
  p.cur_file = p.cur_fn = -1;
  char *buf = NULL;
  size_t cap = 0;
  ssize_t len;
  int rc = 0;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    p.lineno++;
    while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
      buf[--len] = 0;
    if ((size_t)len != strlen(buf)) {
      rc = perr(&p, "NUL byte in line");
      break;
    }
    if (parse_line(&p, buf) < 0) {
      rc = -1;
      break;
    }
  }
  if (rc == 0 && ferror(f))
    rc = perr(&p, "read error: %s", strerror(errno));
  if (rc == 0 && p.ncols < 0) {
    p.lineno++;
    rc = perr(&p, "no 'events:' line (not a cachegrind output file?)");
  }
  free(buf);
  free(p.fl_ids.idx);
  free(p.fn_ids.idx);
  return rc;
}

int cb_cg_parse_file(const char *path, cb_cg_result *out, char *err,
                     size_t errlen) {
  memset(out, 0, sizeof *out);
  FILE *f = fopen(path, "r");
  if (!f) {
    set_err(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  int rc = cb_cg_parse_stream(f, path, out, err, errlen);
  fclose(f);
  return rc;
}

/* ---- paths ---- */

/* Lexical normalisation into out (size >= strlen(in)+2): collapses "//",
 * "." and "dir/.."; keeps leading ".." of relative paths. */
static void normalize(const char *in, char *out) {
  int abs = in[0] == '/';
  size_t n = 0;
  size_t keep = 0; /* length of the leading "../.." part not to pop */
  const char *s = in;
  if (abs)
    out[n++] = '/';
  while (*s) {
    while (*s == '/')
      s++;
    if (!*s)
      break;
    const char *e = s;
    while (*e && *e != '/')
      e++;
    size_t len = (size_t)(e - s);
    if (len == 1 && s[0] == '.') {
      /* skip */
    } else if (len == 2 && s[0] == '.' && s[1] == '.') {
      size_t base = abs ? 1 : 0;
      if (n > base + keep) {
        /* pop the last component */
        while (n > base && out[n - 1] != '/')
          n--;
        if (n > base)
          n--;
      } else if (!abs) {
        if (n > 0)
          out[n++] = '/';
        out[n++] = '.';
        out[n++] = '.';
        keep = n;
      }
    } else {
      if (n > (abs ? 1u : 0u))
        out[n++] = '/';
      memcpy(out + n, s, len);
      n += len;
    }
    s = e;
  }
  out[n] = 0;
}

static char *join(const char *dir, const char *name) {
  size_t a = strlen(dir), b = strlen(name);
  char *s = malloc(a + b + 2);
  if (!s)
    return NULL;
  memcpy(s, dir, a);
  s[a] = '/';
  memcpy(s + a + 1, name, b + 1);
  return s;
}

/* Whether rel's components are a trailing run of whole components of p. */
static int suffix_match(const char *p, const char *rel) {
  size_t lp = strlen(p), lr = strlen(rel);
  if (lr == 0 || lr > lp)
    return 0;
  if (strcmp(p + lp - lr, rel) != 0)
    return 0;
  return lr == lp || p[lp - lr - 1] == '/';
}

int cb_cg_path_matches(const char *cg_name, const char *src,
                       const char *compdir) {
  char cwd[4096];
  const char *base = compdir;
  if (!base && src[0] != '/')
    base = getcwd(cwd, sizeof cwd) ? cwd : NULL;
  char *anch = (src[0] == '/' || !base) ? strdup(src) : join(base, src);
  char *a = malloc(strlen(cg_name) + 2);
  char *b = anch ? malloc(strlen(anch) + 2) : NULL;
  int m = 0;
  if (a && b) {
    normalize(cg_name, a);
    normalize(anch, b);
    if (strcmp(a, b) == 0)
      m = 1;
    else if (a[0] != '/' && strncmp(a, "..", 2) != 0)
      m = suffix_match(b, a);
    else if (b[0] != '/' && strncmp(b, "..", 2) != 0)
      m = suffix_match(a, b);
  }
  free(a);
  free(b);
  free(anch);
  return m;
}

void cb_cg_sum_files(const cb_cg_result *r, const char *const *files,
                     size_t nfiles, const char *compdir, cb_cg_counts *out) {
  memset(out, 0, sizeof *out);
  if (r->nfiles == 0)
    return;
  char *own = calloc(r->nfiles, 1);
  if (!own)
    return;
  for (size_t i = 0; i < r->nfiles; i++)
    for (size_t j = 0; j < nfiles && !own[i]; j++)
      own[i] = (char)cb_cg_path_matches(r->files[i], files[j], compdir);
  for (size_t k = 0; k < r->nrows; k++)
    if (own[r->rows[k].file])
      for (int e = 0; e < CB_CG_NEVENTS; e++)
        out->v[e] += r->rows[k].c.v[e];
  free(own);
}

/* ---- runner ---- */

static char *find_in_path(const char *prog) {
  if (strchr(prog, '/'))
    return strdup(prog);
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *e = strchr(path, ':');
    size_t len = e ? (size_t)(e - path) : strlen(path);
    char *cand = malloc(len + strlen(prog) + 2);
    if (!cand)
      return NULL;
    memcpy(cand, len ? path : ".", len ? len : 1);
    size_t n = len ? len : 1;
    cand[n] = '/';
    strcpy(cand + n + 1, prog);
    if (access(cand, X_OK) == 0)
      return cand;
    free(cand);
    if (!e)
      break;
    path = e + 1;
  }
  return NULL;
}

static int cache_ok(const cb_cg_cache *c) {
  return c->size > 0 && c->assoc > 0 && c->line > 0;
}

static void fmt_cache(char *buf, size_t len, const char *opt,
                      const cb_cg_cache *c) {
  snprintf(buf, len, "--%s=%llu,%u,%u", opt, (unsigned long long)c->size,
           c->assoc, c->line);
}

/* The last lines of valgrind's log, for error messages. */
static void log_tail(const char *path, char *buf, size_t len) {
  buf[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char tmp[4096];
  size_t n = 0;
  if (fseek(f, 0, SEEK_END) == 0) {
    long sz = ftell(f);
    if (sz > (long)sizeof tmp - 1)
      fseek(f, sz - (long)sizeof tmp + 1, SEEK_SET);
    else
      fseek(f, 0, SEEK_SET);
    n = fread(tmp, 1, sizeof tmp - 1, f);
  }
  fclose(f);
  tmp[n] = 0;
  /* keep the last ~3 lines */
  const char *s = tmp + n;
  int lines = 0;
  while (s > tmp && lines < 4)
    if (*--s == '\n')
      lines++;
  if (*s == '\n')
    s++;
  snprintf(buf, len, "%s", s);
  size_t l = strlen(buf);
  while (l > 0 && buf[l - 1] == '\n')
    buf[--l] = 0;
  for (char *c = buf; *c; c++)
    if (*c == '\n')
      *c = '|';
}

static int redirect(int fd, const char *path, int flags) {
  int f = open(path, flags, 0644);
  if (f < 0)
    return -1;
  if (f != fd) {
    if (dup2(f, fd) < 0)
      return -1;
    close(f);
  }
  return 0;
}

int cb_cg_run(const cb_cg_request *req, cb_cg_result *out, char *err,
              size_t errlen) {
  memset(out, 0, sizeof *out);
  if (!req || !req->program || !*req->program) {
    set_err(err, errlen, "cachegrind: no program given");
    return -1;
  }
  if (!cache_ok(&req->d1)) {
    set_err(err, errlen, "cachegrind: D1 geometry missing or zero");
    return -1;
  }
  cb_cg_cache ll = req->ll, i1 = req->i1;
  if (ll.size == 0)
    ll = (cb_cg_cache){CB_CG_NEUTRAL_LL_SIZE, 16, req->d1.line};
  if (i1.size == 0)
    i1 = (cb_cg_cache){32768, 8, req->d1.line};
  if (!cache_ok(&ll) || !cache_ok(&i1)) {
    set_err(err, errlen, "cachegrind: LL or I1 geometry has a zero field");
    return -1;
  }
  char *vg = find_in_path(req->valgrind ? req->valgrind : "valgrind");
  if (!vg) {
    set_err(err, errlen, "cachegrind: '%s' not found in PATH",
            req->valgrind ? req->valgrind : "valgrind");
    return -1;
  }
  const char *tdir = req->tmpdir;
  if (!tdir)
    tdir = getenv("TMPDIR");
  if (!tdir || !*tdir)
    tdir = "/tmp";
  char *dir = join(tdir, "cbana-cg-XXXXXX");
  if (!dir || !mkdtemp(dir)) {
    set_err(err, errlen,
            "cachegrind: cannot make a temporary directory in "
            "%s: %s",
            tdir, strerror(errno));
    free(dir);
    free(vg);
    return -1;
  }
  char *outfile = join(dir, "cachegrind.out");
  char *logfile = join(dir, "valgrind.log");
  char o_d1[96], o_ll[96], o_i1[96];
  fmt_cache(o_d1, sizeof o_d1, "D1", &req->d1);
  fmt_cache(o_ll, sizeof o_ll, "LL", &ll);
  fmt_cache(o_i1, sizeof o_i1, "I1", &i1);
  size_t nargs = 0;
  while (req->args && req->args[nargs])
    nargs++;
  char *o_out = outfile ? malloc(strlen(outfile) + 32) : NULL;
  char *o_log = logfile ? malloc(strlen(logfile) + 32) : NULL;
  const char **argv = calloc(nargs + 12, sizeof *argv);
  int rc = -1;
  pid_t pid = -1;
  if (!o_out || !o_log || !argv) {
    set_err(err, errlen, "cachegrind: out of memory");
    goto done;
  }
  sprintf(o_out, "--cachegrind-out-file=%s", outfile);
  /* valgrind's messages on the program's stderr (a file): --log-file
   * would take the client's descriptor 3 (valgrind 3.19), and the
   * program's first open() would return 4 where a real run gets 3 */
  sprintf(o_log, "--log-fd=2");
  size_t k = 0;
  argv[k++] = vg;
  argv[k++] = "--tool=cachegrind";
  argv[k++] = "--cache-sim=yes";
  argv[k++] = o_i1;
  argv[k++] = o_d1;
  argv[k++] = o_ll;
  argv[k++] = o_out;
  argv[k++] = o_log;
  argv[k++] = req->program;
  for (size_t i = 0; i < nargs; i++)
    argv[k++] = req->args[i];
  argv[k] = NULL;

  int pfd[2]; /* reports a failed exec to the parent */
  if (pipe2(pfd, O_CLOEXEC) < 0) {
    set_err(err, errlen, "cachegrind: pipe: %s", strerror(errno));
    goto done;
  }
  fflush(NULL);
  pid = fork();
  if (pid < 0) {
    set_err(err, errlen, "cachegrind: fork: %s", strerror(errno));
    close(pfd[0]);
    close(pfd[1]);
    goto done;
  }
  if (pid == 0) {
    int e = 0;
    const char *what = "";
    /* The program starts with stdin, stdout and stderr only, as from a
     * shell: a descriptor of cbana's left open would take the number its
     * first open() gets (the analysis models 3). */
    if (close_range(3, (unsigned)pfd[1] - 1, 0) < 0 ||
        close_range((unsigned)pfd[1] + 1, ~0u, 0) < 0)
      for (int fd = 3; fd < 65536; fd++)
        if (fd != pfd[1])
          close(fd);
    if (req->cwd && chdir(req->cwd) < 0) {
      e = errno;
      what = req->cwd;
    } else if (redirect(0, req->stdin_path ? req->stdin_path : "/dev/null",
                        O_RDONLY) < 0) {
      e = errno;
      what = req->stdin_path ? req->stdin_path : "/dev/null";
    } else if (redirect(1, req->stdout_path ? req->stdout_path : "/dev/null",
                        O_WRONLY | O_CREAT | O_TRUNC) < 0) {
      e = errno;
      what = req->stdout_path ? req->stdout_path : "/dev/null";
    } else if (redirect(2, req->stderr_path ? req->stderr_path : logfile,
                        O_WRONLY | O_CREAT | O_TRUNC) < 0) {
      e = errno;
      what = req->stderr_path ? req->stderr_path : logfile;
    } else {
      char *const envp[] = {NULL};
      execve(vg, (char *const *)argv, envp);
      e = errno;
      what = vg;
    }
    char msg[600];
    int n = snprintf(msg, sizeof msg, "%s: %s", what, strerror(e));
    if (n > 0)
      (void)!write(pfd[1], msg,
                   (size_t)n < sizeof msg ? (size_t)n : sizeof msg - 1);
    _exit(127);
  }
  close(pfd[1]);
  char cmsg[600];
  ssize_t cn = read(pfd[0], cmsg, sizeof cmsg - 1);
  close(pfd[0]);

  int status = 0;
  time_t start = time(NULL);
  int timed_out = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, req->timeout_sec ? WNOHANG : 0);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      set_err(err, errlen, "cachegrind: waitpid: %s", strerror(errno));
      goto done;
    }
    if (w == 0) {
      if (!timed_out &&
          (unsigned long)(time(NULL) - start) >= req->timeout_sec) {
        kill(pid, SIGKILL);
        timed_out = 1;
      }
      struct timespec ts = {0, 20 * 1000 * 1000};
      nanosleep(&ts, NULL);
    }
  }
  pid = -1;
  if (cn > 0) {
    cmsg[cn] = 0;
    set_err(err, errlen, "cachegrind: cannot run: %s", cmsg);
    goto done;
  }
  if (timed_out) {
    set_err(err, errlen, "cachegrind: %s did not finish within %u s",
            req->program, req->timeout_sec);
    goto done;
  }
  struct stat st;
  if (stat(outfile, &st) < 0) {
    char tail[1024];
    log_tail(req->stderr_path ? req->stderr_path : logfile, tail, sizeof tail);
    set_err(err, errlen, "cachegrind wrote no output for %s (%s): %s",
            req->program,
            WIFEXITED(status) ? "valgrind exited" : "valgrind was killed",
            tail[0] ? tail : "no log");
    goto done;
  }
  if (cb_cg_parse_file(outfile, out, err, errlen) < 0)
    goto done;
  if (WIFEXITED(status)) {
    out->exited = 1;
    out->exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    out->term_signal = WTERMSIG(status);
  }
  rc = 0;
done:
  if (outfile)
    unlink(outfile);
  if (logfile)
    unlink(logfile);
  rmdir(dir);
  free(o_out);
  free(o_log);
  free(argv);
  free(outfile);
  free(logfile);
  free(dir);
  free(vg);
  return rc;
}
