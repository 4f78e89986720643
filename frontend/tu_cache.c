/* tu_cache.c: each translation unit's bitcode and object kept in cbana's
 * cache directory, so that analysing an unchanged program again runs no
 * clang. The scheme is ccache's "direct mode" (ccache manual, "The direct
 * mode"): a compile is named by everything that decides its output but the
 * headers (the compiler's identity, its flags, the working directory and
 * source path, which the debug info records, the environment clang reads);
 * under that name a manifest lists the files clang's -MD output named on
 * the last miss; a lookup hashes those files again, and their contents
 * with the name make the key of the outputs. An edited header makes a
 * different key: a stale output is never found.
 *
 * Outputs are stored only when no listed file changed since the compile
 * started (its mtime and ctime are older: ccache's check), none names
 * __TIMESTAMP__ (a file's time), and, when one names __DATE__ or
 * __TIME__, the object holds none of the strings they expanded to while
 * it compiled (clang's "Mmm dd yyyy" and "hh:mm:ss" in local time,
 * PPMacroExpansion.cpp): headers often name them only to define them.
 * Files are written whole under a temporary name and renamed, so runs
 * at once each leave complete files. */
#include "fe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* A file's state, hashed once a run. */
typedef struct tu_file {
  char *path;
  bool present;
  bool clocked; /* names __DATE__ or __TIME__ */
  bool stamped; /* names __TIMESTAMP__ */
  uint64_t size, hash;
  struct timespec mtime, ctime;
} tu_file;

struct fe_tu_cache {
  char dir[PATH_MAX];
  struct timespec start; /* the kernel's clock for file times */
  tu_file *files;
  size_t n, cap;
  size_t hits;
};

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  return fe_fnv(h, &v, sizeof v);
}

fe_tu_cache *fe_tu_cache_open(const char *cache_dir) {
  if (!cache_dir)
    return NULL;
  fe_tu_cache *c = calloc(1, sizeof *c);
  if (!c)
    return NULL;
  if ((size_t)snprintf(c->dir, sizeof c->dir, "%s/tu", cache_dir) >=
          sizeof c->dir ||
      (mkdir(c->dir, 0755) != 0 && errno != EEXIST)) {
    free(c);
    return NULL;
  }
  /* the coarse clock is the one file times are taken from (Linux's
   * current_time()), so a file written after this has a time >= start */
  clock_gettime(CLOCK_REALTIME_COARSE, &c->start);
  return c;
}

size_t fe_tu_cache_hits(const fe_tu_cache *c) {
  return c ? c->hits : 0;
}

void fe_tu_cache_close(fe_tu_cache *c) {
  if (!c)
    return;
  for (size_t i = 0; i < c->n; i++)
    free(c->files[i].path);
  free(c->files);
  free(c);
}

/* The identity of a file the compiler runs or maps: path and inode,
 * size and modification time. */
static uint64_t hash_identity(uint64_t h, const char *path) {
  struct stat st;
  h = fe_fnv_str(h, path);
  if (stat(path, &st) == 0) {
    h = fnv_u64(h, (uint64_t)st.st_ino);
    h = fnv_u64(h, (uint64_t)st.st_size);
    h = fnv_u64(h, (uint64_t)st.st_mtim.tv_sec);
    h = fnv_u64(h, (uint64_t)st.st_mtim.tv_nsec);
  }
  return h;
}

/* The file a command name runs: itself when it holds a '/', else the
 * first executable of that name in PATH (as posix_spawnp searches). */
static bool command_path(const char *cmd, char *real) {
  if (strchr(cmd, '/'))
    return realpath(cmd, real) != NULL;
  const char *path = getenv("PATH");
  for (const char *p = path; p && *p;) {
    const char *e = strchr(p, ':');
    size_t n = e ? (size_t)(e - p) : strlen(p);
    char cand[PATH_MAX * 2];
    snprintf(cand, sizeof cand, "%.*s/%s", (int)n, n ? p : ".", cmd);
    if (access(cand, X_OK) == 0)
      return realpath(cand, real) != NULL;
    p = e ? e + 1 : p + n;
  }
  return false;
}

uint64_t fe_tu_key(const char *clang, char **flags, const char *const *post,
                   const char *cwd, const char *src, unsigned mode) {
  uint64_t h = fe_fnv_str(FE_FNV_START, "cbana translation unit 1");
  h = fe_fnv_str(h, clang);
  char real[PATH_MAX];
  /* a compiler that cannot be identified: nothing is kept */
  if (!command_path(clang, real))
    return 0;
  h = hash_identity(h, real);
  /* clang-14 is a small driver over libclang-cpp and libLLVM, which
   * Debian ships (and upgrades) in packages of their own */
  char *slash = strrchr(real, '/');
  static const char *const libs[] = {"libclang-cpp.so.14", "libLLVM-14.so"};
  for (size_t i = 0; slash && i < sizeof libs / sizeof *libs; i++) {
    char lib[PATH_MAX * 2], rlib[PATH_MAX];
    snprintf(lib, sizeof lib, "%.*s/../lib/%s", (int)(slash - real), real,
             libs[i]);
    if (realpath(lib, rlib))
      h = hash_identity(h, rlib);
  }
  for (char **f = flags; f && *f; f++)
    h = fe_fnv_str(h, *f);
  for (const char *const *f = post; f && *f; f++)
    h = fe_fnv_str(h, *f);
  h = fe_fnv_str(h, cwd);
  h = fe_fnv_str(h, src);
  h = fnv_u64(h, mode);
  /* the variables clang's driver and preprocessor read (clang's
   * Driver.cpp, InitHeaderSearch.cpp) */
  static const char *const env[] = {"CPATH",
                                    "C_INCLUDE_PATH",
                                    "COMPILER_PATH",
                                    "GCC_EXEC_PREFIX",
                                    "CCC_OVERRIDE_OPTIONS",
                                    "SOURCE_DATE_EPOCH",
                                    "CLANG_CONFIG_FILE_SYSTEM_DIR",
                                    "CLANG_CONFIG_FILE_USER_DIR"};
  for (size_t i = 0; i < sizeof env / sizeof *env; i++)
    h = fe_fnv_str(fe_fnv_str(h, env[i]), getenv(env[i]));
  return h ? h : 1;
}

static bool before(struct timespec a, struct timespec b) {
  return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* The file's state, read now or earlier in this run. */
static const tu_file *file_state(fe_tu_cache *c, const char *path) {
  for (size_t i = 0; i < c->n; i++)
    if (strcmp(c->files[i].path, path) == 0)
      return &c->files[i];
  if (c->n == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 64;
    tu_file *nf = realloc(c->files, cap * sizeof *nf);
    if (!nf)
      return NULL;
    c->files = nf;
    c->cap = cap;
  }
  tu_file *f = &c->files[c->n];
  memset(f, 0, sizeof *f);
  f->path = strdup(path);
  if (!f->path)
    return NULL;
  c->n++;
  struct stat st;
  size_t got;
  char *buf = fe_read_file(path, &got, &st);
  if (buf) {
    f->present = true;
    f->size = got;
    f->hash = fe_fnv(FE_FNV_START, buf, got);
    f->clocked =
        memmem(buf, got, "__DATE__", 8) || memmem(buf, got, "__TIME__", 8);
    f->stamped = memmem(buf, got, "__TIMESTAMP__", 13) != NULL;
    f->mtime = st.st_mtim;
    f->ctime = st.st_ctim;
  }
  free(buf);
  return f;
}

static bool entry_path(char *out, size_t n, const fe_tu_cache *c, uint64_t key,
                       const char *ext) {
  return (size_t)snprintf(out, n, "%s/%016llx.%s", c->dir,
                          (unsigned long long)key, ext) < n;
}

/* The outputs' key: the compile's, then each listed file's path and
 * contents. false when a file is gone. */
static bool outputs_key(fe_tu_cache *c, uint64_t key, char **paths, size_t n,
                        bool for_store, bool *clocked, uint64_t *out) {
  uint64_t h = fnv_u64(fe_fnv_str(FE_FNV_START, "outputs"), key);
  for (size_t i = 0; i < n; i++) {
    const tu_file *f = file_state(c, paths[i]);
    if (!f || !f->present)
      return false;
    /* changed since the compile began: what clang read is unknown */
    if (for_store && (f->stamped || !before(f->mtime, c->start) ||
                      !before(f->ctime, c->start)))
      return false;
    *clocked = *clocked || f->clocked;
    h = fe_fnv_str(h, paths[i]);
    h = fnv_u64(fnv_u64(h, f->size), f->hash);
  }
  *out = h;
  return true;
}

/* src copied to dst (a hard link when they share a file system) */
static bool place(const char *src, const char *dst) {
  if (link(src, dst) == 0)
    return true;
  int in = open(src, O_RDONLY | O_CLOEXEC);
  if (in < 0)
    return false;
  int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  bool ok = out >= 0;
  char buf[65536];
  ssize_t r;
  while (ok && (r = read(in, buf, sizeof buf)) != 0) {
    if (r < 0 || write(out, buf, (size_t)r) != r)
      ok = false;
  }
  close(in);
  if (out >= 0 && close(out) != 0)
    ok = false;
  if (!ok)
    unlink(dst);
  return ok;
}

/* src copied into the cache as dst: whole under a temporary name, then
 * renamed */
static bool store(const char *src, const char *dst) {
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.%ld.tmp", dst, (long)getpid());
  unlink(tmp);
  if (!place(src, tmp))
    return false;
  if (rename(tmp, dst) != 0) {
    unlink(tmp);
    return false;
  }
  return true;
}

/* The manifest's paths, one a line. */
static char **read_manifest(const char *path, size_t *n) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  size_t cap = 16, k = 0;
  char **v = malloc(cap * sizeof *v);
  char *line = NULL;
  size_t lcap = 0;
  ssize_t len;
  while (v && (len = getline(&line, &lcap, f)) > 0) {
    if (line[len - 1] == '\n')
      line[--len] = 0;
    if (k + 2 > cap) {
      cap *= 2;
      char **nv = realloc(v, cap * sizeof *v);
      if (!nv)
        break;
      v = nv;
    }
    v[k++] = strdup(line);
  }
  free(line);
  fclose(f);
  if (v)
    v[k] = NULL;
  *n = k;
  return v;
}

bool fe_tu_get(fe_tu_cache *c, uint64_t key, const char *bc, const char *obj,
               uint64_t *outputs) {
  char path[PATH_MAX];
  size_t n = 0;
  uint64_t okey;
  if (!c || !entry_path(path, sizeof path, c, key, "deps"))
    return false;
  char **paths = read_manifest(path, &n);
  bool clocked = false;
  bool hit = paths && n > 0 &&
             outputs_key(c, key, paths, n, false, &clocked, &okey) &&
             entry_path(path, sizeof path, c, okey, "o") && place(path, obj);
  if (hit) {
    hit = entry_path(path, sizeof path, c, okey, "bc") && place(path, bc);
    if (!hit)
      unlink(obj);
  }
  fe_free_strv(paths);
  c->hits += hit;
  if (hit)
    *outputs = okey;
  return hit;
}

/* The prerequisites of a make rule written by clang's -MD (clang's
 * DependencyFile.cpp): after the first unescaped ':', words split at
 * blanks, a backslash before a newline joins lines, "\ " and "\#" are
 * the characters, "$$" is '$'. Relative paths are from cwd. */
static char **read_depfile(const char *path, const char *cwd, size_t *n) {
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long len = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *text = len > 0 ? malloc((size_t)len + 1) : NULL;
  size_t got = text ? fread(text, 1, (size_t)len, f) : 0;
  fclose(f);
  if (!text)
    return NULL;
  text[got] = 0;
  char *s = text;
  while (*s && !(*s == ':' && (s[1] == ' ' || s[1] == '\n' || !s[1])))
    s++;
  size_t cap = 16, k = 0;
  char **v = malloc(cap * sizeof *v);
  char *word = malloc(got + 1);
  while (v && word && *s) {
    s++;
    while (*s == ' ' || *s == '\t' || *s == '\n' ||
           (*s == '\\' && s[1] == '\n'))
      s += *s == '\\' ? 2 : 1;
    size_t w = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
      if (*s == '\\' && (s[1] == ' ' || s[1] == '#'))
        s++;
      else if (*s == '$' && s[1] == '$')
        s++;
      else if (*s == '\\' && s[1] == '\n')
        break;
      word[w++] = *s++;
    }
    if (!w)
      continue;
    word[w] = 0;
    if (k + 2 > cap) {
      cap *= 2;
      char **nv = realloc(v, cap * sizeof *v);
      if (!nv)
        break;
      v = nv;
    }
    char full[PATH_MAX * 2];
    if (word[0] == '/')
      snprintf(full, sizeof full, "%s", word);
    else
      snprintf(full, sizeof full, "%s/%s", cwd, word);
    v[k++] = strdup(full);
    if (!*s)
      break;
  }
  free(word);
  free(text);
  if (v)
    v[k] = NULL;
  *n = k;
  return v;
}

/* Whether the object holds what __DATE__ or __TIME__ expanded to at some
 * second from the cache's opening until now. */
static bool holds_clock(const fe_tu_cache *c, const char *obj) {
  size_t got = 0;
  char *buf = fe_read_file(obj, &got, NULL);
  bool found = !buf;
  static const char *const months[] = {"Jan", "Feb", "Mar", "Apr",
                                       "May", "Jun", "Jul", "Aug",
                                       "Sep", "Oct", "Nov", "Dec"};
  for (time_t t = c->start.tv_sec - 1, end = time(NULL); !found && t <= end;
       t++) {
    struct tm tm;
    char date[32], hms[32];
    if (!localtime_r(&t, &tm)) {
      found = true;
      break;
    }
    snprintf(date, sizeof date, "%s %2d %4d", months[tm.tm_mon], tm.tm_mday,
             tm.tm_year + 1900);
    snprintf(hms, sizeof hms, "%02d:%02d:%02d", tm.tm_hour, tm.tm_min,
             tm.tm_sec);
    found = memmem(buf, got, hms, strlen(hms)) ||
            memmem(buf, got, date, strlen(date));
  }
  free(buf);
  return found;
}

void fe_tu_put(fe_tu_cache *c, uint64_t key, const char *depfile,
               const char *cwd, const char *bc, const char *obj,
               uint64_t *outputs) {
  size_t n = 0;
  uint64_t okey;
  char path[PATH_MAX];
  if (!c)
    return;
  char **paths = read_depfile(depfile, cwd, &n);
  /* the outputs first, the manifest that finds them last */
  bool clocked = false;
  if (paths && n > 0 && outputs_key(c, key, paths, n, true, &clocked, &okey) &&
      !(clocked && holds_clock(c, obj)) &&
      entry_path(path, sizeof path, c, okey, "o") && store(obj, path) &&
      entry_path(path, sizeof path, c, okey, "bc") && store(bc, path) &&
      entry_path(path, sizeof path, c, key, "deps")) {
    char tmp[PATH_MAX + 32];
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    bool ok = f != NULL;
    for (size_t i = 0; ok && i < n; i++)
      ok = fprintf(f, "%s\n", paths[i]) > 0;
    if (f)
      ok = fclose(f) == 0 && ok;
    if (!ok || rename(tmp, path) != 0)
      unlink(tmp);
    else
      *outputs = okey;
  }
  fe_free_strv(paths);
}
