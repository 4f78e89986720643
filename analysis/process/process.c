/* process.c: the start-up and exit traces of the process probes
 * (process.h; docs/process-model.md section 8). */
#include "process.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
/* valgrind's client stack is below 0x1fff001000 (process-model.md 2) */
#define STACK_LO 0x1000000000ull
#define STACK_HI 0x2000000000ull

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t fnv_str(uint64_t h, const char *s) {
  return fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  return fnv(h, &v, sizeof v);
}

static uint64_t hash_file_id(uint64_t h, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return fnv_str(h, "-");
  uint64_t id[3] = {(uint64_t)st.st_size, (uint64_t)st.st_mtime,
                    (uint64_t)st.st_ino};
  return fnv(h, id, sizeof id);
}

/* A probe by its bytes and its path's length (argv[0], on the initial
 * stack): builds of the same text with flags that make no difference to
 * it (-D, -I of a program's own) are one executable (frontend/
 * process_probe.c names its sources so), and share their traces. A file
 * that cannot be read is keyed by its path, as before. */
static uint64_t hash_probe(uint64_t h, const char *path) {
  FILE *f = fopen(path, "rb");
  bool ok = f != NULL;
  h = fnv_u64(h, strlen(path));
  char buf[1 << 14];
  size_t k;
  while (ok && (k = fread(buf, 1, sizeof buf, f)) > 0)
    h = fnv(h, buf, k);
  ok = ok && !ferror(f);
  if (f)
    fclose(f);
  return ok ? h : fnv_str(h, path);
}

static bool find_valgrind(char *out, size_t n) {
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *c = strchr(path, ':');
    size_t len = c ? (size_t)(c - path) : strlen(path);
    if (len > 0 &&
        (size_t)snprintf(out, n, "%.*s/valgrind", (int)len, path) < n &&
        access(out, X_OK) == 0)
      return true;
    path += len + (c != NULL);
  }
  return false;
}

/* root/process/KIND-KEY, the folder made when missing. */
static bool cache_file(char *out, size_t n, const char *root, const char *kind,
                       uint64_t key) {
  char base[PATH_MAX];
  if (!root ||
      (size_t)snprintf(base, sizeof base, "%s/process", root) >= sizeof base)
    return false;
  if (mkdir(base, 0755) != 0 && errno != EEXIST)
    return false;
  return (size_t)snprintf(out, n, "%s/%s-%016llx", base, kind,
                          (unsigned long long)key) < n;
}

/* ---- the traces' cache files: a header line, the probe's main CFA, the
 * count, then the records (cb_access, site 0) ---- */

#define TRACE_MAGIC "cbana process trace 1\n"

static bool trace_read(const char *path, cb_access **recs, size_t *n,
                       uint64_t *cfa) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return false;
  char magic[sizeof TRACE_MAGIC];
  uint64_t hdr[2];
  bool ok =
      fread(magic, 1, sizeof TRACE_MAGIC - 1, f) == sizeof TRACE_MAGIC - 1 &&
      memcmp(magic, TRACE_MAGIC, sizeof TRACE_MAGIC - 1) == 0 &&
      fread(hdr, sizeof hdr, 1, f) == 1 && hdr[1] < (1u << 26);
  cb_access *r = ok ? malloc((hdr[1] ? hdr[1] : 1) * sizeof *r) : NULL;
  ok = r && fread(r, sizeof *r, hdr[1], f) == hdr[1];
  fclose(f);
  if (!ok) {
    free(r);
    return false;
  }
  *recs = r;
  *n = hdr[1];
  *cfa = hdr[0];
  return true;
}

/* Keeps a trace in the cache, write-once: a lackey trace is one sample,
 * and samples differ (of glibc 2.36's 41,429 start-up accesses under
 * valgrind 3.19, one 1-byte stack read lands at an address that varies
 * over about 120 bytes from run to run), so every run must use the same
 * one. Processes that made theirs
 * concurrently (programs built with the same flags share the probes) all
 * end up with the first one kept: link(2) fails on an existing name where
 * rename(2) would replace it, and a run that lost takes the kept trace in
 * place of its own, as the runs after it read it. */
static void trace_keep(const char *path, cb_access **recs, size_t *n,
                       uint64_t *cfa) {
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return;
  uint64_t hdr[2] = {*cfa, *n};
  bool ok = fwrite(TRACE_MAGIC, 1, sizeof TRACE_MAGIC - 1, f) ==
                sizeof TRACE_MAGIC - 1 &&
            fwrite(hdr, sizeof hdr, 1, f) == 1 &&
            fwrite(*recs, sizeof **recs, *n, f) == *n;
  ok = fclose(f) == 0 && ok;
  bool lost = ok && link(tmp, path) != 0 && errno == EEXIST;
  unlink(tmp);
  cb_access *kept;
  size_t kn;
  uint64_t kcfa;
  if (lost && trace_read(path, &kept, &kn, &kcfa)) {
    free(*recs);
    *recs = kept;
    *n = kn;
    *cfa = kcfa;
  }
}

/* ---- running a probe under lackey ---- */

typedef struct lk_run {
  const char *probe;       /* the executable */
  const char *exe_arg;     /* the path valgrind is given */
  const char *const *args; /* argv[1..], NULL-ended */
  const char *cwd;         /* NULL: this process's */
  const char *stdin_path;  /* NULL: /dev/null */
  uint64_t main_addr;      /* the probe's main */
  bool after;              /* false: up to main; true: from main's return */
} lk_run;

/* Parses lackey's log: the data accesses before main's first instruction
 * (after false) or after main's return (after true). */
static bool lk_parse(const char *log, uint64_t main_addr, uint64_t ret,
                     bool after, cb_access **recs, size_t *n) {
  FILE *f = fopen(log, "r");
  if (!f)
    return false;
  size_t cap = 1 << 16, k = 0;
  cb_access *r = malloc(cap * sizeof *r);
  char line[256];
  int phase = 0; /* 0 before main, 1 in main, 2 after its return */
  bool ok = r != NULL;
  while (ok && fgets(line, sizeof line, f)) {
    if (line[0] == 'I') {
      uint64_t a = strtoull(line + 3, NULL, 16);
      if (phase == 0 && a == main_addr)
        phase = 1;
      else if (phase == 1 && a == ret)
        phase = 2;
      if (phase == 1 && !after)
        break;
      continue;
    }
    if (line[0] != ' ' || (line[1] != 'L' && line[1] != 'S' && line[1] != 'M'))
      continue;
    if (phase != (after ? 2 : 0))
      continue;
    char *comma;
    uint64_t a = strtoull(line + 3, &comma, 16);
    unsigned size = *comma == ',' ? (unsigned)strtoul(comma + 1, NULL, 10) : 0;
    if (k == cap) {
      cap *= 2;
      cb_access *nr = realloc(r, cap * sizeof *nr);
      if (!nr) {
        ok = false;
        break;
      }
      r = nr;
    }
    /* a modify is one read, as cachegrind counts it */
    r[k++] = (cb_access){a, 0, (uint16_t)size, line[1] == 'S', 0};
  }
  fclose(f);
  if (!ok || phase != (after ? 2 : 1)) {
    free(r);
    return false;
  }
  *recs = r;
  *n = k;
  return true;
}

static bool lk_trace(const lk_run *lr, cb_access **recs, size_t *n,
                     uint64_t *cfa, char *why, size_t nw) {
  char valgrind[PATH_MAX];
  if (!find_valgrind(valgrind, sizeof valgrind)) {
    snprintf(why, nw, "valgrind is not installed");
    return false;
  }
  char dir[] = "/tmp/cbana-lackey-XXXXXX";
  if (!mkdtemp(dir)) {
    snprintf(why, nw, "cannot make a temporary directory");
    return false;
  }
  char log[sizeof dir + 16], rep[sizeof dir + 16];
  snprintf(log, sizeof log, "%s/log", dir);
  snprintf(rep, sizeof rep, "%s/report", dir);
  char logopt[sizeof log + 16];
  snprintf(logopt, sizeof logopt, "--log-file=%s", log);
  size_t na = 0;
  while (lr->args && lr->args[na])
    na++;
  const char **argv = calloc(na + 6, sizeof *argv);
  if (!argv) {
    rmdir(dir);
    return false;
  }
  size_t k = 0;
  argv[k++] = valgrind;
  argv[k++] = "--tool=lackey";
  argv[k++] = "--trace-mem=yes";
  argv[k++] = logopt;
  argv[k++] = lr->exe_arg;
  for (size_t i = 0; i < na; i++)
    argv[k++] = lr->args[i];
  argv[k] = NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(
      &fa, 0, lr->stdin_path ? lr->stdin_path : "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 2, rep, O_WRONLY | O_CREAT | O_TRUNC,
                                   0600);
  if (lr->cwd)
    posix_spawn_file_actions_addchdir_np(&fa, lr->cwd);
  /* an empty environment, as `env -i valgrind` (cachegrind's runs) */
  char *envp[] = {NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, valgrind, &fa, NULL, (char *const *)argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  free(argv);
  bool ok = false;
  if (rc == 0) {
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
      ;
    uint64_t v[2] = {0, 0};
    FILE *f = fopen(rep, "rb");
    bool got = f && fread(v, sizeof v, 1, f) == 1;
    if (f)
      fclose(f);
    if (!got || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
      snprintf(why, nw, "the probe did not run under valgrind");
    else if (!lk_parse(log, lr->main_addr, v[0], lr->after, recs, n))
      snprintf(why, nw, "the probe's lackey trace has no main");
    else {
      /* argv's address: argc is below it, main's CFA 0x100 below argc
       * (glibc 2.36's _start frames, process-model.md section 2) */
      *cfa = v[1] - 8 - 0x100;
      ok = true;
    }
  } else {
    snprintf(why, nw, "cannot run valgrind: %s", strerror(rc));
  }
  unlink(log);
  unlink(rep);
  rmdir(dir);
  return ok;
}

/* ---- directories and paths of given lengths ---- */

/* A new directory /tmp/NAME of len characters (into out). */
static bool tmp_dir_named(size_t len, char *out, size_t n) {
  static const char al[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  if (len < 6 || len + 1 > n)
    return false;
  uint64_t r = fnv_u64(fnv_u64(0xcbf29ce484222325ull, (uint64_t)getpid()),
                       (uint64_t)(uintptr_t)out);
  for (int tries = 0; tries < 200; tries++) {
    memcpy(out, "/tmp/", 5);
    for (size_t i = 5; i < len; i++) {
      r = r * 6364136223846793005ull + 1442695040888963407ull;
      out[i] = al[(r >> 33) % (sizeof al - 1)];
    }
    out[len] = 0;
    if (mkdir(out, 0700) == 0)
      return true;
    if (errno != EEXIST)
      return false;
  }
  return false;
}

/* A new directory whose real path has len characters (into out; made:
 * the one to remove after it, when it is not out itself). */
static bool dir_of_length(size_t len, char *out, size_t n, char *made,
                          size_t nm) {
  made[0] = 0;
  if (len + 1 > n || len + 1 > nm)
    return false;
  if (len <= 45) {
    if (!tmp_dir_named(len, out, n))
      return false;
    snprintf(made, nm, "%s", out);
  } else {
    /* /tmp/ and 20 characters, then a subdirectory for the rest */
    if (!tmp_dir_named(25, made, nm))
      return false;
    memcpy(out, made, 25);
    out[25] = '/';
    memset(out + 26, 'd', len - 26);
    out[len] = 0;
    if (mkdir(out, 0700) != 0) {
      rmdir(made);
      made[0] = 0;
      return false;
    }
  }
  char real[PATH_MAX];
  return realpath(out, real) && strlen(real) == len;
}

static void remove_dirs(const char *dir, const char *made) {
  if (dir[0])
    rmdir(dir);
  if (made[0] && strcmp(made, dir) != 0)
    rmdir(made);
}

/* ---- the start-up trace ---- */

static bool startup_trace(const cb_program *p, const char *root, int argc,
                          const char *const *argv, const char *cwd,
                          cb_access **recs, size_t *n, char *why, size_t nw) {
  const cb_process_info *pi = p->process;
  char real_cwd[PATH_MAX], here[PATH_MAX];
  if (!cwd)
    cwd = getcwd(here, sizeof here) ? here : "/";
  if (!realpath(cwd, real_cwd))
    snprintf(real_cwd, sizeof real_cwd, "%s", cwd);
  const char *exe = argc > 0 ? argv[0] : "";
  char valgrind[PATH_MAX];
  uint64_t key = fnv_str(0xcbf29ce484222325ull, "cbana startup trace 2");
  key = hash_probe(key, pi->startup.exe);
  key = fnv_u64(key, strlen(exe));
  key = fnv_u64(key, exe[0] == '/');
  key = fnv_u64(key, strlen(real_cwd));
  for (int i = 1; i < argc; i++)
    key = fnv_str(key, argv[i]);
  key = fnv_u64(key, (uint64_t)argc);
  if (find_valgrind(valgrind, sizeof valgrind))
    key = hash_file_id(key, valgrind);
  key = hash_file_id(key, LIBC_PATH);
  char path[PATH_MAX];
  uint64_t cfa;
  if (!cache_file(path, sizeof path, root, "startup-trace", key)) {
    snprintf(why, nw, "no cache directory to keep its traces in");
    return false;
  }
  if (trace_read(path, recs, n, &cfa))
    return true;
  /* The probe runs from a directory as long as the program's, under a
   * path as long as the one the program is given: its initial stack is
   * then the program's, byte for byte but for the strings' text. */
  char dir[PATH_MAX], made[PATH_MAX];
  if (!dir_of_length(strlen(real_cwd), dir, sizeof dir, made, sizeof made)) {
    remove_dirs("", made);
    snprintf(why, nw,
             "no directory as long as the working directory (%zu "
             "characters; 6 at least) could be made under /tmp",
             strlen(real_cwd));
    return false;
  }
  size_t el = strlen(exe);
  char link[PATH_MAX], arg[PATH_MAX];
  link[0] = 0;
  bool ok = false;
  if (exe[0] == '/' && el > strlen(dir) + 1 && el < sizeof link) {
    size_t dl = strlen(dir);
    memcpy(link, dir, dl);
    link[dl] = '/';
    memset(link + dl + 1, 'p', el - dl - 1);
    link[el] = 0;
    memcpy(arg, link, el + 1);
    ok = true;
  } else if (exe[0] != '/' && strncmp(exe, "./", 2) == 0 && el > 2 &&
             el < sizeof arg) {
    memcpy(arg, "./", 2);
    memset(arg + 2, 'p', el - 2);
    arg[el] = 0;
    size_t dl = strlen(dir);
    if (dl + el > sizeof link) {
      remove_dirs(dir, made);
      snprintf(why, nw, "the paths are too long");
      return false;
    }
    memcpy(link, dir, dl);
    memcpy(link + dl, arg + 1, el); /* "/ppp" and its NUL */
    ok = true;
  }
  if (!ok) {
    remove_dirs(dir, made);
    snprintf(why, nw,
             "the program's path '%s' is neither absolute (longer than a "
             "temporary directory's) nor ./NAME",
             exe);
    return false;
  }
  if (symlink(pi->startup.exe, link) != 0) {
    remove_dirs(dir, made);
    snprintf(why, nw, "cannot link the probe into %s", dir);
    return false;
  }
  lk_run lr = {
      pi->startup.exe,       arg,  argc > 1 ? argv + 1 : NULL, dir, NULL,
      pi->startup.main_addr, false};
  ok = lk_trace(&lr, recs, n, &cfa, why, nw);
  unlink(link);
  remove_dirs(dir, made);
  if (ok)
    trace_keep(path, recs, n, &cfa);
  return ok;
}

/* The exit traces this process is making, by key: inputs run at once
 * (--jobs) each make the exit trace of their mode ahead (exit_ahead), and
 * a second lackey run of the same key would be thrown away (trace_keep
 * keeps the first); the second waits for the first and reads its trace. */
#define MAX_MAKING 16
static pthread_mutex_t making_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t making_cv = PTHREAD_COND_INITIALIZER;
static uint64_t making[MAX_MAKING];
static unsigned n_making;

static bool making_has(uint64_t key) {
  for (unsigned i = 0; i < n_making; i++)
    if (making[i] == key)
      return true;
  return false;
}

/* Waits while another thread makes key's trace; then true if this thread
 * is to make it (registered), false when no room was left (made anyway). */
static bool making_begin(uint64_t key) {
  pthread_mutex_lock(&making_lock);
  while (making_has(key))
    pthread_cond_wait(&making_cv, &making_lock);
  bool reg = n_making < MAX_MAKING;
  if (reg)
    making[n_making++] = key;
  pthread_mutex_unlock(&making_lock);
  return reg;
}

static void making_end(uint64_t key) {
  pthread_mutex_lock(&making_lock);
  for (unsigned i = 0; i < n_making; i++)
    if (making[i] == key) {
      making[i] = making[--n_making];
      break;
    }
  pthread_cond_broadcast(&making_cv);
  pthread_mutex_unlock(&making_lock);
}

static bool exit_trace_run(const cb_process_info *pi, const char *path,
                           unsigned mode, cb_access **recs, size_t *n,
                           uint64_t *cfa, char *why, size_t nw);

static bool exit_trace(const cb_program *p, const char *root, unsigned mode,
                       cb_access **recs, size_t *n, uint64_t *cfa, char *why,
                       size_t nw) {
  const cb_process_info *pi = p->process;
  char valgrind[PATH_MAX];
  uint64_t key = fnv_str(0xcbf29ce484222325ull, "cbana exit trace 2");
  key = hash_probe(key, pi->exit.exe);
  key = fnv_u64(key, mode);
  if (find_valgrind(valgrind, sizeof valgrind))
    key = hash_file_id(key, valgrind);
  key = hash_file_id(key, LIBC_PATH);
  char path[PATH_MAX];
  if (!cache_file(path, sizeof path, root, "exit-trace", key)) {
    snprintf(why, nw, "no cache directory to keep its traces in");
    return false;
  }
  if (trace_read(path, recs, n, cfa))
    return true;
  bool reg = making_begin(key);
  bool ok = trace_read(path, recs, n, cfa) ||
            exit_trace_run(pi, path, mode, recs, n, cfa, why, nw);
  if (reg)
    making_end(key);
  return ok;
}

static bool exit_trace_run(const cb_process_info *pi, const char *path,
                           unsigned mode, cb_access **recs, size_t *n,
                           uint64_t *cfa, char *why, size_t nw) {
  char arg[2] = {(char)('0' + mode), 0};
  const char *args[] = {arg, NULL};
  /* stdin, when read, from a file with more than it reads */
  char in[] = "/tmp/cbana-stdin-XXXXXX";
  int fd = mkstemp(in);
  if (fd < 0) {
    snprintf(why, nw, "cannot make a temporary file");
    return false;
  }
  bool wrote = write(fd, "cbana\n", 6) == 6;
  close(fd);
  lk_run lr = {pi->exit.exe,      pi->exit.exe,       args, NULL,
               wrote ? in : NULL, pi->exit.main_addr, true};
  bool ok = lk_trace(&lr, recs, n, cfa, why, nw);
  unlink(in);
  if (ok)
    trace_keep(path, recs, n, cfa);
  return ok;
}

/* ---- mapping onto the program ---- */

static uint64_t map_addr(const cb_process_probe *pp, uint64_t a) {
  if (a < pp->lo || a >= pp->hi)
    return a;
  const cb_addr_map *best = NULL;
  for (uint32_t i = 0; i < pp->n_map; i++) {
    const cb_addr_map *m = &pp->map[i];
    if (a >= m->lo && a < m->hi &&
        (!best || m->hi - m->lo < best->hi - best->lo))
      best = m;
  }
  return best ? best->to + (a - best->lo) : a;
}

static void map_trace(const cb_process_probe *pp, cb_access *r, size_t n,
                      uint32_t site) {
  for (size_t i = 0; i < n; i++) {
    r[i].addr = map_addr(pp, r[i].addr);
    r[i].site = site;
  }
}

/* The exit trace of a mode, made once per state: a lackey run, unlocked
 * while it runs so that the engine asking for another mode does not wait
 * for it; a caller that finds its mode being made waits for that. */
static const cb_access *exit_for(void *ctx, unsigned mode, size_t *n,
                                 uint64_t *cfa) {
  cb_process_state *st = ctx;
  *n = 0;
  if (mode >= CB_PROCESS_EXIT_MODES)
    return NULL;
  pthread_mutex_lock(&st->lock);
  if (st->exit_state[mode] == 0) {
    st->exit_state[mode] = 1;
    pthread_mutex_unlock(&st->lock);
    char why[256];
    cb_access *r = NULL;
    size_t k = 0;
    uint64_t c = 0;
    bool ok =
        exit_trace(st->p, st->cache_dir, mode, &r, &k, &c, why, sizeof why);
    if (ok)
      map_trace(&st->p->process->exit, r, k, st->p->process->exit_site);
    pthread_mutex_lock(&st->lock);
    if (ok) {
      st->exit[mode] = r;
      st->n_exit[mode] = k;
      st->exit_cfa[mode] = c;
    }
    st->exit_state[mode] = 2;
    pthread_cond_broadcast(&st->made);
  }
  while (st->exit_state[mode] != 2)
    pthread_cond_wait(&st->made, &st->lock);
  const cb_access *r = st->exit[mode];
  *n = st->n_exit[mode];
  *cfa = st->exit_cfa[mode];
  pthread_mutex_unlock(&st->lock);
  return r;
}

/* The exit trace of the mode the frontend expects (program.h,
 * exit_mode_guess), made while this thread's start-up trace is: on a
 * program not seen before each is a valgrind run of about 0.5 s of CPU,
 * and the engine asks for the exit's only when its run ends. A wrong
 * guess costs that CPU and nothing else: the engine's mode is made when
 * asked for, as without it. */
static void *exit_ahead(void *arg) {
  cb_process_state *st = arg;
  size_t n;
  uint64_t cfa;
  exit_for(st, st->p->process->exit_mode_guess, &n, &cfa);
  return NULL;
}

bool cb_process_prepare(cb_process_state *st, const cb_program *p,
                        const char *cache_dir, int argc,
                        const char *const *argv, const char *cwd) {
  memset(st, 0, sizeof *st);
  pthread_mutex_init(&st->lock, NULL);
  pthread_cond_init(&st->made, NULL);
  st->p = p;
  st->cache_dir = cache_dir;
  if (!p->process) {
    snprintf(st->why, sizeof st->why, "no executable to link probes like");
    return false;
  }
  if (!p->process->ok) {
    snprintf(st->why, sizeof st->why, "%s", p->process->why);
    return false;
  }
  st->ahead_running = p->process->exit_mode_guess < CB_PROCESS_EXIT_MODES &&
                      pthread_create(&st->ahead, NULL, exit_ahead, st) == 0;
  size_t n;
  if (!startup_trace(p, cache_dir, argc, argv, cwd, &st->startup, &n, st->why,
                     sizeof st->why))
    return false;
  map_trace(&p->process->startup, st->startup, n, p->process->startup_site);
  st->replay = (cb_process_replay){st->startup, n, exit_for, st};
  return true;
}

void cb_process_release(cb_process_state *st) {
  if (st->ahead_running)
    pthread_join(st->ahead, NULL);
  free(st->startup);
  for (unsigned m = 0; m < CB_PROCESS_EXIT_MODES; m++)
    free(st->exit[m]);
  pthread_mutex_destroy(&st->lock);
  pthread_cond_destroy(&st->made); /* zeroed: the static initialiser's */
  memset(st, 0, sizeof *st);
}

/* the stack bounds the exit trace is moved within (engine.c) */
bool cb_process_on_stack(uint64_t a) {
  return a >= STACK_LO && a < STACK_HI;
}
