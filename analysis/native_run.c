/* Running the program natively for its output (native_run.h). */
#include "native_run.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* stdin as an unlinked temporary file (a pipe would need a writer
 * beside the reader) */
static int stdin_file(const unsigned char *d, size_t n) {
  FILE *f = tmpfile();
  if (!f)
    return -1;
  if (n && fwrite(d, 1, n, f) != n) {
    fclose(f);
    return -1;
  }
  fflush(f);
  int fd = dup(fileno(f));
  fclose(f);
  if (fd >= 0)
    lseek(fd, 0, SEEK_SET);
  return fd;
}

/* cb_native_stdout's run, in the environment envp. */
static char *run_native(const char *exe, const char *const *argv,
                        const unsigned char *stdin_data, size_t stdin_len,
                        double timeout_s, size_t max_out, size_t *len,
                        int *exit_status, char *const *envp,
                        atomic_bool *cancel) {
  int in = stdin_file(stdin_data, stdin_len), out[2];
  if (in < 0)
    return NULL;
  if (pipe2(out, O_CLOEXEC) != 0) {
    close(in);
    return NULL;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, in, 0);
  posix_spawn_file_actions_adddup2(&fa, out[1], 1);
  posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  int rc = posix_spawn(&pid, exe, &fa, NULL, (char *const *)argv, envp);
  posix_spawn_file_actions_destroy(&fa);
  close(in);
  close(out[1]);
  if (rc != 0) {
    close(out[0]);
    return NULL;
  }
  size_t n = 0, cap = 4096;
  char *buf = malloc(cap + 1);
  bool ok = buf != NULL;
  double end = now_s() + timeout_s;
  while (ok) {
    double left = end - now_s();
    if (left <= 0 || (cancel && atomic_load(cancel))) {
      ok = false;
      break;
    }
    int wait_ms = left > 1.0 ? 1000 : (int)(left * 1000) + 1;
    if (cancel && wait_ms > 20)
      wait_ms = 20;
    struct pollfd pf = {out[0], POLLIN, 0};
    int pr = poll(&pf, 1, wait_ms);
    if (pr < 0 && errno == EINTR)
      continue;
    if (pr <= 0)
      continue;
    if (n == cap) {
      if (cap >= max_out) {
        ok = false;
        break;
      }
      cap *= 2;
      char *nb = realloc(buf, cap + 1);
      if (!nb) {
        ok = false;
        break;
      }
      buf = nb;
    }
    ssize_t r = read(out[0], buf + n, cap - n);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      break; /* end of output */
    n += (size_t)r;
  }
  close(out[0]);
  if (!ok)
    kill(pid, SIGKILL);
  /* it may run on with its output closed: the deadline holds here too */
  int status = 0;
  for (;;) {
    pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid)
      break;
    if (w < 0 && errno != EINTR) {
      ok = false;
      break;
    }
    if (now_s() > end || (cancel && atomic_load(cancel))) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
      ok = false;
      break;
    }
    usleep(1000);
  }
  if (!ok || !WIFEXITED(status)) {
    free(buf);
    return NULL;
  }
  buf[n] = 0;
  *len = n;
  if (exit_status)
    *exit_status = WEXITSTATUS(status);
  return buf;
}

/* The whole of ld.so's log files in dir (one per process: ld.PID), then
 * the directory removed. */
static char *read_ld_log(const char *dir) {
  DIR *d = opendir(dir);
  if (!d)
    return NULL;
  char *all = NULL;
  size_t n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    FILE *f = fopen(path, "r");
    if (f) {
      char buf[4096];
      size_t r;
      while ((r = fread(buf, 1, sizeof buf, f)) > 0) {
        char *na = realloc(all, n + r + 1);
        if (!na)
          break;
        all = na;
        memcpy(all + n, buf, r);
        n += r;
        all[n] = 0;
      }
      fclose(f);
    }
    unlink(path);
  }
  closedir(d);
  rmdir(dir);
  return all;
}

bool cb_native_bound(const char *bindings, const char *symbol) {
  char pat[128];
  snprintf(pat, sizeof pat, "normal symbol `%s'", symbol);
  return bindings && strstr(bindings, pat) != NULL;
}

char *cb_native_stdout(const char *exe, const char *const *argv,
                       const unsigned char *stdin_data, size_t stdin_len,
                       double timeout_s, size_t max_out, size_t *len,
                       int *exit_status, char **bindings, bool huge,
                       atomic_bool *cancel) {
  char logdir[PATH_MAX] = "", env_out[PATH_MAX + 32];
  char env_debug[] = "LD_DEBUG=bindings";
  char env_huge[] = "GLIBC_TUNABLES=glibc.malloc.hugetlb=1";
  char *envp[4] = {NULL, NULL, NULL, NULL};
  unsigned n_env = 0;
  if (bindings) {
    *bindings = NULL;
    const char *tmp = getenv("TMPDIR");
    snprintf(logdir, sizeof logdir, "%s/cbana-ld.XXXXXX",
             tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(logdir))
      return NULL;
    snprintf(env_out, sizeof env_out, "LD_DEBUG_OUTPUT=%s/ld", logdir);
    envp[n_env++] = env_debug;
    envp[n_env++] = env_out;
  }
  if (huge)
    envp[n_env++] = env_huge;
  char *text = run_native(exe, argv, stdin_data, stdin_len, timeout_s, max_out,
                          len, exit_status, envp, cancel);
  if (bindings) {
    *bindings = read_ld_log(logdir);
    if (!text) {
      free(*bindings);
      *bindings = NULL;
    }
  }
  return text;
}
