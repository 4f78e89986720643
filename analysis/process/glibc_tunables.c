/* Measuring glibc's string-function thresholds under valgrind, once per
 * machine (glibc_tunables.h). */
#include "glibc_tunables.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIBC_PATH "/lib/x86_64-linux-gnu/libc.so.6"
#define PROBE_NAME "cbana-glibc-probe"

static uint64_t fnv1a(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

static uint64_t hash_file_id(uint64_t h, const char *path) {
  struct stat st;
  if (stat(path, &st) != 0)
    return fnv1a(h, "-", 1);
  uint64_t id[3] = {(uint64_t)st.st_size, (uint64_t)st.st_mtime,
                    (uint64_t)st.st_ino};
  return fnv1a(h, id, sizeof id);
}

/* The first processor's model name and flags. */
static uint64_t hash_cpu(uint64_t h) {
  FILE *f = fopen("/proc/cpuinfo", "r");
  if (!f)
    return h;
  char line[8192];
  int seen = 0;
  while (seen < 2 && fgets(line, sizeof line, f)) {
    if (strncmp(line, "model name", 10) == 0 ||
        strncmp(line, "flags", 5) == 0) {
      h = fnv1a(h, line, strlen(line));
      seen++;
    }
  }
  fclose(f);
  return h;
}

/* An executable named name in PATH (into out), or false. */
static bool find_in_path(const char *name, char *out, size_t n) {
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/local/bin:/usr/bin:/bin";
  while (*path) {
    const char *c = strchr(path, ':');
    size_t len = c ? (size_t)(c - path) : strlen(path);
    if (len > 0 &&
        (size_t)snprintf(out, n, "%.*s/%s", (int)len, path, name) < n &&
        access(out, X_OK) == 0)
      return true;
    path += len + (c != NULL);
  }
  return false;
}

/* The probe beside this executable. */
static bool find_probe(char *out, size_t n) {
  char self[PATH_MAX];
  ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
  if (k <= 0)
    return false;
  self[k] = 0;
  char *slash = strrchr(self, '/');
  if (!slash)
    return false;
  *slash = 0;
  return (size_t)snprintf(out, n, "%s/%s", self, PROBE_NAME) < n &&
         access(out, X_OK) == 0;
}

/* Runs argv[0] at exe with argv, an empty environment and no input;
 * its standard output (at most max bytes, NUL ended, malloc'ed), or NULL
 * when it could not run, was killed by a signal or ran past timeout_s
 * seconds (then it is killed). The output goes to an unlinked
 * temporary file, read once the probe has exited. */
static char *run_for_stdout(const char *exe, const char *const *argv,
                            double timeout_s, size_t max) {
  FILE *out = tmpfile();
  if (!out)
    return NULL;
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&fa, fileno(out), 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  char *envp[] = {NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    fclose(out);
    return NULL;
  }
  int status = 0;
  struct timespec tick = {0, 10 * 1000 * 1000};
  for (double waited = 0;; waited += 0.01) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if ((w < 0 && errno != EINTR) || waited > timeout_s) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
      fclose(out);
      return NULL;
    }
    nanosleep(&tick, NULL);
  }
  char *buf = malloc(max + 1);
  size_t n = 0;
  if (buf && WIFEXITED(status)) {
    rewind(out);
    n = fread(buf, 1, max, out);
    buf[n] = 0;
  } else {
    free(buf);
    buf = NULL;
  }
  fclose(out);
  return buf;
}

static bool cache_path(char *out, size_t n, const char *dir) {
  return dir && (size_t)snprintf(out, n, "%s/glibc-thresholds", dir) < n;
}

static bool plausible(const cb_glibc_thresholds *t) {
  return t->stosb >= 64 && t->stosb <= (1u << 24) && t->movsb >= 64 &&
         t->movsb <= (1u << 24) && t->movsb_stop >= t->movsb &&
         t->nt >= t->movsb && t->movsb_stop <= (1ull << 40) &&
         t->nt <= (1ull << 40);
}

static bool parse(const char *s, cb_glibc_thresholds *t) {
  unsigned long long a, b, c, d;
  if (sscanf(s, "stosb %llu movsb %llu movsb_stop %llu nt %llu", &a, &b, &c,
             &d) != 4)
    return false;
  *t = (cb_glibc_thresholds){a, b, c, d};
  return plausible(t);
}

static bool read_cache(const char *dir, uint64_t key, cb_glibc_thresholds *t) {
  char path[PATH_MAX], line[256];
  if (!cache_path(path, sizeof path, dir))
    return false;
  FILE *f = fopen(path, "r");
  if (!f)
    return false;
  unsigned long long k = 0;
  bool ok = fscanf(f, "key %llx\n", &k) == 1 && k == key &&
            fgets(line, sizeof line, f) && parse(line, t);
  fclose(f);
  return ok;
}

/* Written whole to a temporary file, then renamed: processes that
 * measure at once each leave a complete file. */
static void write_cache(const char *dir, uint64_t key,
                        const cb_glibc_thresholds *t) {
  char path[PATH_MAX], tmp[PATH_MAX + 32];
  if (!cache_path(path, sizeof path, dir))
    return;
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return;
  bool ok =
      fprintf(f, "key %llx\nstosb %llu movsb %llu movsb_stop %llu nt %llu\n",
              (unsigned long long)key, (unsigned long long)t->stosb,
              (unsigned long long)t->movsb, (unsigned long long)t->movsb_stop,
              (unsigned long long)t->nt) > 0;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}

void cb_glibc_thresholds_load(cb_glibc_thresholds *t, const char *cache_dir) {
  *t = (cb_glibc_thresholds){0, 0, 0, 0};
  char valgrind[PATH_MAX], probe[PATH_MAX];
  if (!find_in_path("valgrind", valgrind, sizeof valgrind) ||
      !find_probe(probe, sizeof probe))
    return;
  uint64_t key = 0xcbf29ce484222325ull;
  key = hash_file_id(key, valgrind);
  key = hash_file_id(key, LIBC_PATH);
  key = hash_cpu(key);
  if (read_cache(cache_dir, key, t))
    return;
  const char *argv[] = {"valgrind", "--tool=none", "-q", probe, NULL};
  char *out = run_for_stdout(valgrind, argv, 60, 4096);
  cb_glibc_thresholds m;
  if (out && parse(out, &m)) {
    *t = m;
    write_cache(cache_dir, key, t);
  }
  free(out);
}
