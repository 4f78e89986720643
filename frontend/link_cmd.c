/* link_cmd.c: the linker's command line as clang's driver would run it,
 * remembered between runs, so that linking the program is one ld process
 * instead of a clang driver that starts, works the line out and then runs
 * that ld.
 *
 * Why: each clang process pays about 0.08 s to start (libLLVM's and
 * libclang-cpp's relocations), and the link is on the frontend's critical
 * path, after the compiles: on the project's 2-vCPU machines the driver
 * took 0.16 s of wall where its ld took 0.06 (bench/results/fast_notes.md). The
 * line is what `clang FLAGS -### -o EXE OBJS -lm` prints (its one job), with
 * the executable and the objects put back in for placeholders; it depends on
 * the clang binary, the flags, the environment the driver reads (PATH,
 * LIBRARY_PATH, COMPILER_PATH, GCC_EXEC_PREFIX) and the working directory
 * (relative -L paths), which make its key. A line whose files are gone is not
 * used, and the caller falls back to the driver whenever the ld it ran fails
 * (for the driver's own messages). */
#include "fe_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define EXE_MARK "@CBANA_EXE@"
#define OBJ_MARK "@CBANA_OBJ@"
#define MAX_ARGS 512

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  return fe_fnv(h, &v, sizeof v);
}

/* The key: the driver's binary (path and identity), the flags, the
 * number of objects, the environment it reads, the working directory. */
static uint64_t line_key(const char *clang, char **flags, size_t n_objs) {
  uint64_t h = fe_fnv_str(FE_FNV_START, "cbana link line 1");
  h = fe_fnv_str(h, clang);
  char real[PATH_MAX];
  struct stat st;
  if (realpath(clang, real) && stat(real, &st) == 0) {
    h = fe_fnv_str(h, real);
    h = fnv_u64(h, (uint64_t)st.st_ino);
    h = fnv_u64(h, (uint64_t)st.st_size);
    h = fnv_u64(h, (uint64_t)st.st_mtime);
  }
  for (char **f = flags; f && *f; f++)
    h = fe_fnv_str(h, *f);
  h = fnv_u64(h, n_objs);
  static const char *const env[] = {"PATH", "LIBRARY_PATH", "COMPILER_PATH",
                                    "GCC_EXEC_PREFIX"};
  for (size_t i = 0; i < sizeof env / sizeof *env; i++)
    h = fe_fnv_str(fe_fnv_str(h, env[i]), getenv(env[i]));
  char cwd[PATH_MAX];
  h = fe_fnv_str(h, getcwd(cwd, sizeof cwd) ? cwd : "");
  return h;
}

static bool line_path(char *out, size_t n, const char *dir, uint64_t key) {
  return dir && (size_t)snprintf(out, n, "%s/link-%016llx", dir,
                                 (unsigned long long)key) < n;
}

/* An argument of the line with the run's paths put in. */
static char *fill_arg(const char *a, const char *exe, char **objs,
                      size_t n_objs) {
  if (strcmp(a, EXE_MARK) == 0)
    return strdup(exe);
  size_t ml = strlen(OBJ_MARK);
  if (strncmp(a, OBJ_MARK, ml) == 0) {
    char *end;
    unsigned long i = strtoul(a + ml, &end, 10);
    return *end || i >= n_objs ? NULL : strdup(objs[i]);
  }
  return strdup(a);
}

/* Whether an argument the line holds as is still names something: the
 * program, and every absolute path (crt files, the dynamic linker). */
static bool arg_exists(const char *a, bool program) {
  if (program)
    return access(a, X_OK) == 0;
  return a[0] != '/' || access(a, F_OK) == 0;
}

static char **read_line(const char *dir, uint64_t key, const char *exe,
                        char **objs, size_t n_objs) {
  char path[PATH_MAX];
  if (!line_path(path, sizeof path, dir, key))
    return NULL;
  FILE *f = fopen(path, "r");
  if (!f)
    return NULL;
  char **argv = calloc(MAX_ARGS + 1, sizeof *argv);
  size_t n = 0;
  bool ok = argv != NULL;
  char buf[PATH_MAX + 64];
  while (ok && fgets(buf, sizeof buf, f)) {
    size_t len = strlen(buf);
    if (len == 0 || buf[len - 1] != '\n' || n == MAX_ARGS) {
      ok = false;
      break;
    }
    buf[len - 1] = 0;
    ok = arg_exists(buf, n == 0) &&
         (argv[n] = fill_arg(buf, exe, objs, n_objs)) != NULL;
    n += ok;
  }
  fclose(f);
  if (!ok || n == 0) {
    fe_free_strv(argv);
    return NULL;
  }
  return argv;
}

/* Written whole to a temporary file, then renamed, so that runs at once
 * each leave a complete line. Arguments holding a newline are not kept. */
static void write_line(const char *dir, uint64_t key, char **argv,
                       const char *exe, char **objs, size_t n_objs) {
  char path[PATH_MAX], tmp[PATH_MAX + 32];
  if (!line_path(path, sizeof path, dir, key))
    return;
  size_t n_exe = 0, n_obj = 0;
  for (char **a = argv; *a; a++) {
    if (strchr(*a, '\n'))
      return;
    n_exe += strcmp(*a, exe) == 0;
    for (size_t i = 0; i < n_objs; i++)
      n_obj += strcmp(*a, objs[i]) == 0;
  }
  if (n_exe != 1 || n_obj != n_objs)
    return; /* the paths are not plain arguments of their own */
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f)
    return;
  bool ok = true;
  for (char **a = argv; *a && ok; a++) {
    size_t i = 0;
    while (i < n_objs && strcmp(*a, objs[i]) != 0)
      i++;
    if (strcmp(*a, exe) == 0)
      ok = fprintf(f, "%s\n", EXE_MARK) > 0;
    else if (i < n_objs)
      ok = fprintf(f, "%s%zu\n", OBJ_MARK, i) > 0;
    else
      ok = fprintf(f, "%s\n", *a) > 0;
  }
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0)
    unlink(tmp);
}

/* One job line of `-###`: arguments in double quotes, in which `"`, `\`
 * and `$` are escaped by a backslash (llvm::sys::printArg). */
static char **parse_job(const char *s) {
  char **argv = calloc(MAX_ARGS + 1, sizeof *argv);
  size_t n = 0, cap = strlen(s) + 1;
  if (!argv)
    return NULL;
  for (;;) {
    while (*s == ' ')
      s++;
    if (*s == 0 || *s == '\n')
      break;
    if (*s != '"' || n == MAX_ARGS)
      goto bad;
    char *a = malloc(cap), *d = a;
    if (!a)
      goto bad;
    argv[n++] = a;
    for (s++; *s != '"'; s++) {
      if (*s == 0)
        goto bad;
      if (*s == '\\' && s[1])
        s++;
      *d++ = *s;
    }
    *d = 0;
    s++;
  }
  if (n > 0)
    return argv;
bad:
  fe_free_strv(argv);
  return NULL;
}

/* The driver's job for the link, from `-###` (it writes to stderr), or
 * NULL unless it is exactly one job. */
static char **ask_driver(const char *clang, char **flags, const char *exe,
                         char **objs, size_t n_objs, const char *tmpdir) {
  size_t nf = 0;
  while (flags && flags[nf])
    nf++;
  const char **argv = calloc(nf + n_objs + 6, sizeof *argv);
  if (!argv)
    return NULL;
  size_t k = 0;
  argv[k++] = clang;
  for (size_t i = 0; i < nf; i++)
    argv[k++] = flags[i];
  argv[k++] = "-###";
  argv[k++] = "-o";
  argv[k++] = exe;
  for (size_t i = 0; i < n_objs; i++)
    argv[k++] = objs[i];
  argv[k++] = "-lm";
  argv[k] = NULL;
  char out[PATH_MAX];
  snprintf(out, sizeof out, "%s/link.jobs", tmpdir);
  int status = fe_run_to_file(argv, out);
  free(argv);
  if (status != 0)
    return NULL;
  FILE *f = fopen(out, "r");
  if (!f)
    return NULL;
  char **job = NULL;
  unsigned jobs = 0;
  size_t cap = 0;
  char *line = NULL;
  while (getline(&line, &cap, f) > 0)
    if (line[0] == ' ' && line[1] == '"') {
      jobs++;
      fe_free_strv(job);
      job = parse_job(line);
    }
  free(line);
  fclose(f);
  unlink(out);
  if (jobs != 1) {
    fe_free_strv(job);
    return NULL;
  }
  return job;
}

char **fe_link_line(const char *cache_dir, const char *clang, char **flags,
                    const char *exe, char **objs, size_t n_objs,
                    const char *tmpdir, bool *cached) {
  uint64_t key = line_key(clang, flags, n_objs);
  char **argv = read_line(cache_dir, key, exe, objs, n_objs);
  *cached = argv != NULL;
  if (argv)
    return argv;
  argv = ask_driver(clang, flags, exe, objs, n_objs, tmpdir);
  if (argv && arg_exists(argv[0], true))
    write_line(cache_dir, key, argv, exe, objs, n_objs);
  return argv;
}

void fe_link_line_forget(const char *cache_dir, const char *clang, char **flags,
                         size_t n_objs) {
  char path[PATH_MAX];
  if (line_path(path, sizeof path, cache_dir, line_key(clang, flags, n_objs)))
    unlink(path);
}
