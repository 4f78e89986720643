/* compile.c: runs clang (no shell) to build one bitcode file per source
 * and the ELF executable, with the same flags, in a private temporary
 * directory; reads compile_commands.json for per-file flags. */
#include "fe_internal.h"
#include "process_probe.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dirent.h>

extern char **environ;

void fe_free_strv(char **v) {
  if (!v)
    return;
  for (char **p = v; *p; p++)
    free(*p);
  free(v);
}

static char *xstrdup(const char *s) {
  char *d = strdup(s);
  if (!d)
    abort();
  return d;
}

char **fe_split_flags(const char *s) {
  size_t n = 0, cap = 8;
  char **v = malloc(cap * sizeof *v);
  if (!v)
    abort();
  const char *p = s ? s : "";
  size_t len = strlen(p);
  char *word = malloc(len + 1);
  if (!word)
    abort();
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n')
      p++;
    if (!*p)
      break;
    size_t w = 0;
    char q = 0;
    while (*p && (q || (*p != ' ' && *p != '\t' && *p != '\n'))) {
      if (q) {
        if (*p == q)
          q = 0;
        else if (*p == '\\' && q == '"' && p[1])
          word[w++] = *++p;
        else
          word[w++] = *p;
      } else if (*p == '"' || *p == '\'') {
        q = *p;
      } else if (*p == '\\' && p[1]) {
        word[w++] = *++p;
      } else {
        word[w++] = *p;
      }
      p++;
    }
    word[w] = 0;
    if (n + 2 > cap) {
      cap *= 2;
      v = realloc(v, cap * sizeof *v);
      if (!v)
        abort();
    }
    v[n++] = xstrdup(word);
  }
  free(word);
  v[n] = NULL;
  return v;
}

/* ---- a small JSON reader for compile_commands.json ---- */

typedef struct jp {
  const char *s, *end;
  bool bad;
} jp;

static void j_ws(jp *j) {
  while (j->s < j->end &&
         (*j->s == ' ' || *j->s == '\n' || *j->s == '\t' || *j->s == '\r'))
    j->s++;
}

static char *j_string(jp *j) {
  j_ws(j);
  if (j->s >= j->end || *j->s != '"') {
    j->bad = true;
    return NULL;
  }
  j->s++;
  size_t cap = 64, n = 0;
  char *out = malloc(cap);
  if (!out)
    abort();
  while (j->s < j->end && *j->s != '"') {
    char c = *j->s++;
    if (c == '\\' && j->s < j->end) {
      char e = *j->s++;
      switch (e) {
      case 'n':
        c = '\n';
        break;
      case 't':
        c = '\t';
        break;
      case 'r':
        c = '\r';
        break;
      case 'b':
        c = '\b';
        break;
      case 'f':
        c = '\f';
        break;
      case 'u': {
        unsigned v = 0;
        for (int k = 0; k < 4 && j->s < j->end; k++) {
          char h = *j->s++;
          v = v * 16 + (unsigned)(h >= 'a'   ? h - 'a' + 10
                                  : h >= 'A' ? h - 'A' + 10
                                             : h - '0');
        }
        c = v < 128 ? (char)v : '?';
        break;
      }
      default:
        c = e;
      }
    }
    if (n + 2 > cap) {
      cap *= 2;
      out = realloc(out, cap);
      if (!out)
        abort();
    }
    out[n++] = c;
  }
  if (j->s >= j->end)
    j->bad = true;
  else
    j->s++;
  out[n] = 0;
  return out;
}

static void j_skip(jp *j);

static void j_skip_seq(jp *j, char close) {
  j->s++;
  j_ws(j);
  if (j->s < j->end && *j->s == close) {
    j->s++;
    return;
  }
  while (!j->bad && j->s < j->end) {
    if (close == '}') {
      free(j_string(j));
      j_ws(j);
      if (j->s >= j->end || *j->s != ':') {
        j->bad = true;
        return;
      }
      j->s++;
    }
    j_skip(j);
    j_ws(j);
    if (j->s < j->end && *j->s == ',') {
      j->s++;
      continue;
    }
    if (j->s < j->end && *j->s == close) {
      j->s++;
      return;
    }
    j->bad = true;
  }
  j->bad = true;
}

static void j_skip(jp *j) {
  j_ws(j);
  if (j->s >= j->end) {
    j->bad = true;
    return;
  }
  if (*j->s == '"')
    free(j_string(j));
  else if (*j->s == '{')
    j_skip_seq(j, '}');
  else if (*j->s == '[')
    j_skip_seq(j, ']');
  else
    while (j->s < j->end && *j->s != ',' && *j->s != '}' && *j->s != ']')
      j->s++;
}

typedef struct cdb_entry {
  char *dir, *file, *command;
  char **args;
} cdb_entry;

static void cdb_free(cdb_entry *e, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(e[i].dir);
    free(e[i].file);
    free(e[i].command);
    fe_free_strv(e[i].args);
  }
  free(e);
}

static cdb_entry *cdb_read(const char *dir, size_t *n_out, fe_err *err) {
  char path[PATH_MAX];
  snprintf(path, sizeof path, "%s/compile_commands.json", dir);
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    fe_errf(err, CB_FE_ERR_USAGE, "cbana: cannot open %s: %s\n", path,
            strerror(errno));
    return NULL;
  }
  fseek(fp, 0, SEEK_END);
  long len = ftell(fp);
  fseek(fp, 0, SEEK_SET);
  char *text = malloc((size_t)len + 1);
  if (!text)
    abort();
  size_t got = fread(text, 1, (size_t)len, fp);
  fclose(fp);
  text[got] = 0;
  jp j = {text, text + got, false};
  size_t n = 0, cap = 8;
  cdb_entry *es = calloc(cap, sizeof *es);
  j_ws(&j);
  if (j.s >= j.end || *j.s != '[')
    j.bad = true;
  else
    j.s++;
  while (!j.bad) {
    j_ws(&j);
    if (j.s < j.end && *j.s == ']')
      break;
    if (j.s >= j.end || *j.s != '{') {
      j.bad = true;
      break;
    }
    j.s++;
    if (n == cap) {
      cap *= 2;
      es = realloc(es, cap * sizeof *es);
      if (!es)
        abort();
    }
    cdb_entry *e = &es[n++];
    memset(e, 0, sizeof *e);
    for (;;) {
      j_ws(&j);
      if (j.s < j.end && *j.s == '}') {
        j.s++;
        break;
      }
      char *key = j_string(&j);
      j_ws(&j);
      if (j.bad || j.s >= j.end || *j.s != ':') {
        free(key);
        j.bad = true;
        break;
      }
      j.s++;
      j_ws(&j);
      if (strcmp(key, "directory") == 0)
        e->dir = j_string(&j);
      else if (strcmp(key, "file") == 0)
        e->file = j_string(&j);
      else if (strcmp(key, "command") == 0)
        e->command = j_string(&j);
      else if (strcmp(key, "arguments") == 0 && j.s < j.end && *j.s == '[') {
        j.s++;
        size_t an = 0, acap = 8;
        char **a = malloc(acap * sizeof *a);
        for (;;) {
          j_ws(&j);
          if (j.s < j.end && *j.s == ']') {
            j.s++;
            break;
          }
          char *s = j_string(&j);
          if (j.bad) {
            free(s);
            break;
          }
          if (an + 2 > acap) {
            acap *= 2;
            a = realloc(a, acap * sizeof *a);
          }
          a[an++] = s;
          j_ws(&j);
          if (j.s < j.end && *j.s == ',')
            j.s++;
        }
        a[an] = NULL;
        e->args = a;
      } else
        j_skip(&j);
      free(key);
      j_ws(&j);
      if (j.s < j.end && *j.s == ',')
        j.s++;
      if (j.bad)
        break;
    }
    j_ws(&j);
    if (j.s < j.end && *j.s == ',')
      j.s++;
  }
  free(text);
  if (j.bad) {
    fe_errf(err, CB_FE_ERR_USAGE, "cbana: %s: malformed JSON\n", path);
    cdb_free(es, n);
    return NULL;
  }
  *n_out = n;
  return es;
}

/* The user's flags from an entry: without the compiler, the source, -c,
 * -o and dependency-file options. */
static char **cdb_flags(const cdb_entry *e) {
  char **src = e->args ? e->args : NULL;
  char **split = NULL;
  if (!src)
    src = split = fe_split_flags(e->command ? e->command : "");
  size_t n = 0;
  while (src[n])
    n++;
  char **out = calloc(n + 1, sizeof *out);
  size_t k = 0;
  const char *base = e->file ? strrchr(e->file, '/') : NULL;
  base = base ? base + 1 : e->file;
  for (size_t i = 1; i < n; i++) {
    const char *a = src[i];
    if (strcmp(a, "-c") == 0 || strcmp(a, "-MD") == 0 || strcmp(a, "-MMD") == 0)
      continue;
    if (strcmp(a, "-o") == 0 || strcmp(a, "-MF") == 0 ||
        strcmp(a, "-MT") == 0 || strcmp(a, "-MQ") == 0) {
      i++;
      continue;
    }
    if (strncmp(a, "-o", 2) == 0)
      continue;
    if (e->file && (strcmp(a, e->file) == 0 ||
                    (a[0] != '-' && base && strstr(a, base) &&
                     strcmp(a + strlen(a) - strlen(base), base) == 0)))
      continue;
    out[k++] = xstrdup(a);
  }
  out[k] = NULL;
  fe_free_strv(split);
  return out;
}

/* ---- processes ---- */

typedef struct proc {
  pid_t pid;
  char *errfile;
  int status; /* 0 for a process not started (a unit from the cache) */
  bool waited;
} proc;

/* Starts argv[0] (searched in PATH) with its output and messages into
 * errfile, no input, in cwd (NULL: this process's). */
static bool spawn_argv(proc *p, char *const *argv, const char *cwd,
                       const char *errfile, fe_err *err) {
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, errfile,
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, errfile,
                                   O_WRONLY | O_CREAT | O_APPEND, 0600);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  if (cwd)
    posix_spawn_file_actions_addchdir_np(&fa, cwd);
  int rc = posix_spawnp(&p->pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  p->errfile = xstrdup(errfile);
  if (rc != 0) {
    if (err)
      fe_errf(err, CB_FE_ERR_COMPILE, "cbana: cannot run %s: %s\n", argv[0],
              strerror(rc));
    p->pid = 0;
    p->status = -1;
    return false;
  }
  return true;
}

static bool spawn(proc *p, const char *clang, char **flags,
                  const char *const *pre, const char *const *post,
                  const char *cwd, const char *errfile, fe_err *err) {
  size_t nf = 0, npre = 0, npost = 0;
  while (flags && flags[nf])
    nf++;
  while (pre && pre[npre])
    npre++;
  while (post && post[npost])
    npost++;
  char **argv = calloc(nf + npre + npost + 2, sizeof *argv);
  size_t k = 0;
  argv[k++] = (char *)clang;
  for (size_t i = 0; i < npre; i++)
    argv[k++] = (char *)pre[i];
  for (size_t i = 0; i < nf; i++)
    argv[k++] = flags[i];
  for (size_t i = 0; i < npost; i++)
    argv[k++] = (char *)post[i];
  argv[k] = NULL;
  bool ok = spawn_argv(p, argv, cwd, errfile, err);
  free(argv);
  return ok;
}

static void wait_proc(proc *p) {
  if (!p->pid) {
    p->status = -1;
    return;
  }
  int st;
  while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
    ;
  p->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  p->waited = true;
}

int fe_run_to_file(const char *const *argv, const char *out) {
  proc p = {0};
  bool ok = spawn_argv(&p, (char *const *)argv, NULL, out, NULL);
  wait_proc(&p);
  free(p.errfile);
  return ok ? p.status : -1;
}

/* Links with the ld line clang's driver runs, remembered or worked out
 * (link_cmd.c): true if that ld ran and succeeded, lp then waited for.
 * Otherwise lp is left unused for the driver's link, whose messages the
 * user then reads, and a remembered line that failed is dropped. */
static bool link_by_line(proc *lp, const char *cache_dir, const char *clang,
                         char **flags, const char *exe, char **objs,
                         size_t n_objs, const char *tmpdir,
                         const char *errfile) {
  bool cached = false, ok = false;
  char **line =
      fe_link_line(cache_dir, clang, flags, exe, objs, n_objs, tmpdir, &cached);
  if (line && spawn_argv(lp, line, NULL, errfile, NULL)) {
    wait_proc(lp);
    ok = lp->status == 0;
  }
  fe_free_strv(line);
  if (!ok) {
    if (cached)
      fe_link_line_forget(cache_dir, clang, flags, n_objs);
    free(lp->errfile);
    *lp = (proc){0};
    unlink(errfile);
  }
  return ok;
}

static void append_file(fe_err *err, const char *path) {
  FILE *fp = fopen(path, "r");
  if (!fp)
    return;
  char line[4096];
  while (fgets(line, sizeof line, fp))
    fe_errf(err, CB_FE_ERR_COMPILE, "%s", line);
  fclose(fp);
}

/* Waits for one stage of the compiles (procs[2 * i + stage]: 0 the
 * bitcode, 1 the object, for source i); if ok, reports the first that
 * failed, with its messages. Returns ok and-ed with their success. */
static bool wait_stage(proc *procs, size_t n, unsigned stage,
                       const char *const *sources, bool ok, fe_err *err) {
  for (size_t i = 0; i < n; i++)
    if (procs[2 * i + stage].pid && !procs[2 * i + stage].waited)
      wait_proc(&procs[2 * i + stage]);
  for (size_t i = 0; i < n && ok; i++)
    if (procs[2 * i + stage].status != 0) {
      append_file(err, procs[2 * i + stage].errfile);
      fe_errf(err, CB_FE_ERR_COMPILE, "cbana: %s does not compile\n",
              sources[i]);
      ok = false;
    }
  return ok;
}

const char *fe_default_clang(void) {
  return access("/usr/bin/clang-14", X_OK) == 0 ? "/usr/bin/clang-14" : "clang";
}

void fe_build_cleanup(fe_build *b) {
  fe_probes_finish(b->probes, NULL); /* its files are in tmpdir */
  b->probes = NULL;
  if (b->tmpdir) {
    DIR *d = opendir(b->tmpdir);
    if (d) {
      struct dirent *de;
      while ((de = readdir(d))) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
          continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", b->tmpdir, de->d_name);
        unlink(path);
      }
      closedir(d);
    }
    rmdir(b->tmpdir);
    free(b->tmpdir);
  }
  for (size_t i = 0; i < b->n; i++) {
    if (b->bitcode)
      free(b->bitcode[i]);
    if (b->src_dirs)
      free(b->src_dirs[i]);
    if (b->src_args)
      fe_free_strv(b->src_args[i]);
  }
  free(b->bitcode);
  free(b->src_dirs);
  free(b->src_args);
  free(b->unit_keys);
  free(b->new_keys);
  free(b->exe);
  free(b->link_err);
  memset(b, 0, sizeof *b);
}

cb_fe_status fe_compile(const cb_frontend_options *o, fe_build *b,
                        fe_err *err) {
  memset(b, 0, sizeof *b);
  if (o->n_sources == 0) {
    fe_errf(err, CB_FE_ERR_USAGE, "cbana: no source files\n");
    return err->status;
  }
  for (size_t i = 0; i < o->n_sources; i++)
    if (access(o->sources[i], R_OK) != 0) {
      fe_errf(err, CB_FE_ERR_USAGE, "cbana: %s: %s\n", o->sources[i],
              strerror(errno));
      return err->status;
    }
  const char *clang = o->clang ? o->clang : fe_default_clang();
  const char *tmp = getenv("TMPDIR");
  if (!tmp || !*tmp)
    tmp = "/tmp";
  char tpl[PATH_MAX];
  snprintf(tpl, sizeof tpl, "%s/cbana-XXXXXX", tmp);
  if (!mkdtemp(tpl)) {
    fe_errf(err, CB_FE_ERR_INTERNAL,
            "cbana: cannot create a directory in %s: %s\n", tmp,
            strerror(errno));
    return err->status;
  }
  b->tmpdir = xstrdup(tpl);
  b->n = o->n_sources;
  b->bitcode = calloc(b->n, sizeof *b->bitcode);
  b->src_dirs = calloc(b->n, sizeof *b->src_dirs);
  b->src_args = calloc(b->n, sizeof *b->src_args);
  b->unit_keys = calloc(b->n, sizeof *b->unit_keys);
  b->new_keys = calloc(b->n, sizeof *b->new_keys);

  cdb_entry *cdb = NULL;
  size_t n_cdb = 0;
  if (o->compdb_dir) {
    cdb = cdb_read(o->compdb_dir, &n_cdb, err);
    if (!cdb)
      return err->status;
  }
  char cwd[PATH_MAX];
  if (!getcwd(cwd, sizeof cwd))
    snprintf(cwd, sizeof cwd, ".");
  char **common = fe_split_flags(o->cflags ? o->cflags : "-O2");
  /* Link flags: the common ones (compile_commands.json has none). */
  char **lf = o->compdb_dir ? NULL : common;
  /* the process probes, linked as the program is, while it compiles */
  b->probes = fe_probes_start(o->cache_dir, clang, lf, b->tmpdir);
  proc *procs = calloc(2 * b->n + 1, sizeof *procs);
  /* the object from the bitcode when the sources keep the cores busy */
  long cores = sysconf(_SC_NPROCESSORS_ONLN);
  unsigned from_bc = (long)b->n >= (cores > 0 ? cores : 1);
  fe_tu_cache *tus = o->no_reuse ? NULL : fe_tu_cache_open(o->cache_dir);
  uint64_t *keys = calloc(b->n, sizeof *keys);
  bool *reused = calloc(b->n, sizeof *reused);
  char **objs = calloc(b->n, sizeof *objs);
  char **srcpaths = calloc(b->n, sizeof *srcpaths);
  bool ok = true;
  for (size_t i = 0; i < b->n && ok; i++) {
    const char *src = o->sources[i];
    char rsrc[PATH_MAX];
    const cdb_entry *ent = NULL;
    if (cdb && realpath(src, rsrc)) {
      for (size_t k = 0; k < n_cdb && !ent; k++) {
        char f[PATH_MAX * 2], rf[PATH_MAX];
        if (!cdb[k].file)
          continue;
        if (cdb[k].file[0] == '/' || !cdb[k].dir)
          snprintf(f, sizeof f, "%s", cdb[k].file);
        else
          snprintf(f, sizeof f, "%s/%s", cdb[k].dir, cdb[k].file);
        if (realpath(f, rf) && strcmp(rf, rsrc) == 0)
          ent = &cdb[k];
      }
    }
    if (ent) {
      b->src_args[i] = cdb_flags(ent);
      b->src_dirs[i] = xstrdup(ent->dir ? ent->dir : cwd);
      srcpaths[i] = xstrdup(rsrc);
    } else {
      size_t nc = 0;
      while (common[nc])
        nc++;
      char **a = calloc(nc + 1, sizeof *a);
      for (size_t k = 0; k < nc; k++)
        a[k] = xstrdup(common[k]);
      b->src_args[i] = a;
      b->src_dirs[i] = xstrdup(cwd);
      srcpaths[i] = xstrdup(src);
    }
    char bc[PATH_MAX], obj[PATH_MAX], ef[PATH_MAX], dep[PATH_MAX];
    snprintf(bc, sizeof bc, "%s/%zu.bc", b->tmpdir, i);
    snprintf(obj, sizeof obj, "%s/%zu.o", b->tmpdir, i);
    snprintf(dep, sizeof dep, "%s/%zu.d", b->tmpdir, i);
    b->bitcode[i] = xstrdup(bc);
    objs[i] = xstrdup(obj);
    /* DWARF 4: valgrind 3.19 cannot always read clang 14's DWARF 5
     * (DESIGN.md); the object below is built with the same flags. The
     * headers' list (-MD) finds the unit in the cache next time. */
    const char *post_bc[] = {
        "-gdwarf-4", "-c",  "-emit-llvm", "-o", bc,  "-fno-color-diagnostics",
        srcpaths[i], "-MD", "-MF",        dep,  NULL};
    if (tus) {
      const char *tags[] = {"-gdwarf-4", "-c", "-emit-llvm", "-MD", NULL};
      keys[i] = fe_tu_key(clang, b->src_args[i], tags, b->src_dirs[i],
                          srcpaths[i], from_bc);
      if (keys[i] && fe_tu_get(tus, keys[i], bc, obj, &b->unit_keys[i])) {
        reused[i] = true;
        continue;
      }
    } else {
      post_bc[7] = NULL; /* no -MD */
    }
    snprintf(ef, sizeof ef, "%s/%zu.bc.err", b->tmpdir, i);
    ok = spawn(&procs[2 * i], clang, b->src_args[i], NULL, post_bc,
               b->src_dirs[i], ef, err);
    /* The object, from the source, beside the bitcode, when there are
     * fewer sources than cores: the frontend's wall time is what users
     * wait for before any analysis starts, and the second compile takes
     * an idle core (a single source: 0.04 s less wall time, for 0.09 s
     * more CPU). With more, the cores are busy with the other sources,
     * and the object is made from the bitcode (below). */
    snprintf(ef, sizeof ef, "%s/%zu.o.err", b->tmpdir, i);
    const char *post_o[] = {
        "-gdwarf-4", "-c", "-o", objs[i], "-fno-color-diagnostics",
        srcpaths[i], NULL};
    if (ok && !from_bc)
      ok = spawn(&procs[2 * i + 1], clang, b->src_args[i], NULL, post_o,
                 b->src_dirs[i], ef, err);
  }
  /* LLVM's libraries load while clang compiles (module.c) */
  if (ok)
    fe_module_preload(o, b);
  /* The object from each bitcode as it is made, with the IR passes off:
   * clang's own split for -fembed-bitcode (its second job gets
   * -disable-llvm-passes). clang's -O2 pipeline is deterministic, and
   * the object is byte for byte the one compiled from the source (cmp
   * on the corpus, bench/workloads, PolyBench, and the 162 objects of
   * the test-suite's TimberWolfMC and SMG2000); it saves a second parse
   * and optimisation of each source. */
  for (size_t i = 0; i < b->n && from_bc; i++) {
    if (!procs[2 * i].pid)
      continue;
    wait_proc(&procs[2 * i]);
    if (procs[2 * i].status != 0 || !ok)
      continue;
    char ef[PATH_MAX];
    snprintf(ef, sizeof ef, "%s/%zu.o.err", b->tmpdir, i);
    const char *post_o[] = {"-gdwarf-4",
                            "-c",
                            "-Xclang",
                            "-disable-llvm-passes",
                            "-Wno-unused-command-line-argument",
                            "-o",
                            objs[i],
                            "-fno-color-diagnostics",
                            b->bitcode[i],
                            NULL};
    ok = spawn(&procs[2 * i + 1], clang, b->src_args[i], NULL, post_o,
               b->src_dirs[i], ef, err);
  }
  /* the bitcode's diagnostics first; the object's compile makes the same */
  ok = wait_stage(procs, b->n, 0, o->sources, ok, err);
  fe_module_core_free(ok);
  ok = wait_stage(procs, b->n, 1, o->sources, ok, err);
  for (size_t i = 0; i < b->n && ok && tus; i++) {
    char dep[PATH_MAX];
    snprintf(dep, sizeof dep, "%s/%zu.d", b->tmpdir, i);
    if (!reused[i] && keys[i])
      fe_tu_put(tus, keys[i], dep, b->src_dirs[i], b->bitcode[i], objs[i],
                &b->new_keys[i]);
  }
  b->n_reused = fe_tu_cache_hits(tus);
  fe_tu_cache_close(tus);
  free(keys);
  free(reused);
  if (ok) {
    char exe[PATH_MAX];
    if (o->exe_out)
      snprintf(exe, sizeof exe, "%s", o->exe_out);
    else
      snprintf(exe, sizeof exe, "%s/a.out", b->tmpdir);
    b->exe = xstrdup(exe);
    size_t nl = b->n + 4;
    const char **post = calloc(nl, sizeof *post);
    size_t k = 0;
    post[k++] = "-o";
    post[k++] = exe;
    for (size_t i = 0; i < b->n; i++)
      post[k++] = objs[i];
    post[k++] = "-lm";
    post[k] = NULL;
    char ef[PATH_MAX];
    snprintf(ef, sizeof ef, "%s/link.err", b->tmpdir);
    proc *lp = &procs[2 * b->n];
    /* the probes' thread works out the line first: not twice at once */
    fe_probes_wait_line(b->probes);
    if (!link_by_line(lp, o->cache_dir, clang, lf, exe, objs, b->n, b->tmpdir,
                      ef)) {
      ok = spawn(lp, clang, lf, NULL, post, NULL, ef, err);
      if (ok)
        wait_proc(lp);
    }
    free(post);
    if (ok) {
      if (lp->status != 0) {
        /* kept apart: the caller first looks for undefined functions */
        char buf[16384];
        fe_err le = {buf, sizeof buf, 0, CB_FE_OK};
        buf[0] = 0;
        append_file(&le, lp->errfile);
        fe_errf(&le, CB_FE_ERR_COMPILE, "cbana: linking failed\n");
        b->link_err = xstrdup(buf);
        free(b->exe);
        b->exe = NULL;
      }
    }
  }
  /* the start-up probe is built from the executable (none: stops) */
  fe_probes_exe(b->probes, ok ? b->exe : NULL);
  for (size_t i = 0; i < 2 * b->n + 1; i++)
    free(procs[i].errfile);
  free(procs);
  for (size_t i = 0; i < b->n; i++) {
    free(objs[i]);
    free(srcpaths[i]);
  }
  free(objs);
  free(srcpaths);
  fe_free_strv(common);
  cdb_free(cdb, n_cdb);
  if (!ok && err->status == CB_FE_OK)
    err->status = CB_FE_ERR_COMPILE;
  return ok ? CB_FE_OK : err->status;
}
