/* glibc's libm traffic (analysis/process/libc_math_traffic.c) against live
 * lackey traces: tools/probe/libm_probe.c calls each function on a few thousand
 * arguments (random over its ranges, and edge cases) under `valgrind
 * --tool=lackey --trace-mem=yes`; every call the model says it models
 * must show exactly the model's accesses (address relative to the
 * caller's rsp, libm's base or the thread pointer, size, direction), in
 * order, and most calls must be modelled. `--paths FN` prints each
 * argument line's path and table offsets (for tools/probe/libm_tables.py). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "libc_internal.h"
#include "libc_math_traffic.h"

typedef struct lmfn {
  const char *name;
  uint32_t id;
  int arity;
  double (*f1)(double);
  double (*f2)(double, double);
  void (*gen)(double *a); /* a random argument pair over the paths */
} lmfn;

static double unit(void);
static double one(double lo, double hi);
static double uni(double lo, double hi) {
  return lo + unit() * (hi - lo);
}

static void g_sincos(double *a) {
  static const double r[][2] = {{1e-9, 1e-7}, {1e-7, 0.126}, {0.126, 0.86},
                                {0.85, 2.43}, {2.4, 1e3},    {1e3, 1e8}};
  unsigned k = (unsigned)(unit() * 6);
  a[0] = one(r[k][0], r[k][1]);
}

static void g_exp(double *a) {
  double c = unit();
  a[0] = c < 0.6   ? uni(-760, 760)
         : c < 0.8 ? one(1e-20, 1.0)
                   : uni(-1500, 1500);
}

static void g_exp2(double *a) {
  double c = unit();
  a[0] = c < 0.6   ? uni(-1100, 1100)
         : c < 0.8 ? one(1e-20, 1.0)
                   : uni(-2000, 2000);
}

static void g_log(double *a) {
  double c = unit();
  a[0] = c < 0.2    ? uni(0.9, 1.1)
         : c < 0.25 ? fabs(one(1e-320, 1e-300))
                    : fabs(one(1e-300, 1e300));
}

static void g_pow(double *a) {
  double c = unit();
  if (c < 0.4) {
    a[0] = fabs(one(1e-3, 1e3));
    a[1] = one(1e-3, 1e4);
  } else if (c < 0.7) { /* partialsums' (2/3)^k */
    a[0] = 2.0 / 3.0;
    a[1] = floor(uni(0, 2500000));
  } else if (c < 0.8) {
    a[0] = -fabs(one(1e-3, 1e3));
    a[1] = floor(uni(-400, 400));
  } else if (c < 0.9) {
    a[0] = fabs(one(1e-310, 1e300));
    a[1] = one(1e-30, 1e30);
  } else {
    a[0] = one(1e-3, 1e3);
    a[1] = one(1e-3, 1e3);
  }
}

static void g_atan(double *a) {
  static const double r[][2] = {{1e-10, 1e-7}, {1e-7, 0.0625}, {0.0625, 1.0},
                                {1.0, 16.0},   {16.0, 1e17},   {1e15, 1e300}};
  unsigned k = (unsigned)(unit() * 6);
  a[0] = one(r[k][0], r[k][1]);
}

static void g_asin(double *a) {
  double c = unit();
  a[0] = c < 0.15  ? one(1e-10, 0.125)
         : c < 0.3 ? one(0.96875, 1.0)
                   : one(0.125, 1.0);
}

static void g_atan2(double *a) {
  double c = unit();
  if (c < 0.8) {
    a[0] = one(1e-3, 1e3);
    a[1] = one(1e-3, 1e3);
  } else if (c < 0.9) {
    a[0] = one(1e-300, 1e300);
    a[1] = one(1e-300, 1e300);
  } else {
    a[0] = one(1e-3, 1e3);
    a[1] = one(1e-30, 1e30);
  }
}

static void g_fmod(double *a) {
  double c = unit();
  if (c < 0.6) {
    a[0] = one(1e-3, 1e6);
    a[1] = one(1e-3, 1e3);
  } else if (c < 0.8) { /* exact multiples: a zero result */
    a[1] = one(1e-3, 1e3);
    a[0] = a[1] * floor(uni(-50, 50));
  } else {
    a[0] = one(1e-300, 1e300);
    a[1] = one(1e-300, 1e300);
  }
}

static void g_hypot(double *a) {
  double c = unit();
  if (c < 0.8) {
    a[0] = one(1e-3, 1e3);
    a[1] = one(1e-3, 1e3);
  } else if (c < 0.95) { /* one part negligible */
    a[0] = one(1e-3, 1e3);
    a[1] = a[0] * one(1e-20, 1e-15);
  } else {
    a[0] = one(1e-300, 1e300);
    a[1] = one(1e-300, 1e300);
  }
}

static const lmfn fns[] = {
    {"sin", CB_LIBC_SIN, 1, sin, NULL, g_sincos},
    {"cos", CB_LIBC_COS, 1, cos, NULL, g_sincos},
    {"exp", CB_LIBC_EXP, 1, exp, NULL, g_exp},
    {"log", CB_LIBC_LOG, 1, log, NULL, g_log},
    {"exp2", CB_LIBC_EXP2, 1, exp2, NULL, g_exp2},
    {"pow", CB_LIBC_POW, 2, NULL, pow, g_pow},
    {"atan", CB_LIBC_ATAN, 1, atan, NULL, g_atan},
    {"asin", CB_LIBC_ASIN, 1, asin, NULL, g_asin},
    {"atan2", CB_LIBC_ATAN2, 2, NULL, atan2, g_atan2},
    {"fmod", CB_LIBC_FMOD, 2, NULL, fmod, g_fmod},
    {"hypot", CB_LIBC_HYPOT, 2, NULL, hypot, g_hypot},
    {"acos", CB_LIBC_ACOS, 1, acos, NULL, g_asin},
};
#define NFNS (sizeof fns / sizeof fns[0])

static const lmfn *find(const char *name) {
  for (size_t i = 0; i < NFNS; i++)
    if (!strcmp(fns[i].name, name))
      return &fns[i];
  return NULL;
}

static double dbl(uint64_t u) {
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static uint64_t bits(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  return u;
}

static double call(const lmfn *f, const double *a) {
  return f->arity == 2 ? f->f2(a[0], a[1]) : f->f1(a[0]);
}

static int print_paths(const lmfn *f) {
  uint64_t x, y;
  while (scanf("%" SCNx64 " %" SCNx64, &x, &y) == 2) {
    double a[2] = {dbl(x), dbl(y)};
    uint32_t idx[CB_LM_NIDX];
    int p = cb_libm_path(f->id, a, call(f, a), idx);
    printf("%d %u %u %u %u\n", p, idx[0], idx[1], idx[2], idx[3]);
  }
  return 0;
}

/* ---- arguments ---- */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static double unit(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (double)(rng_state >> 11) / 9007199254740992.0;
}

static double one(double lo, double hi) {
  double v = exp(log(lo) + unit() * (log(hi) - log(lo)));
  return unit() < 0.5 ? -v : v;
}

static const double special[] = {0.0,
                                 -0.0,
                                 INFINITY,
                                 -INFINITY,
                                 NAN,
                                 5e-324,
                                 2.2250738585072014e-308,
                                 1e-310,
                                 1.0,
                                 -1.0,
                                 0.5,
                                 2.0,
                                 1e300,
                                 -1e300,
                                 1e-300,
                                 0.126,
                                 -0.126,
                                 0.85546875,
                                 2.4262657,
                                 105414350.0};
#define NSPECIAL (sizeof special / sizeof special[0])

/* ---- lackey's trace, cut into calls ---- */
typedef struct acc {
  int base; /* CB_LM_S, M, T, or -1: elsewhere */
  int64_t off;
  unsigned len, write;
} acc;

typedef struct calltrace {
  acc *v;
  size_t n;
} calltrace;

/* One lackey run: its folder, its process. Two run at a time (the test's
 * PROCESSORS in CMakeLists.txt), and the checking of one function's calls
 * overlaps the next run. */
typedef struct lackey_job {
  char dir[32];
  pid_t pid;
} lackey_job;

static int lackey_start(const char *probe, const lmfn *f,
                        const double (*args)[2], size_t n, lackey_job *j) {
  snprintf(j->dir, sizeof j->dir, "/tmp/cb_libm_XXXXXX");
  j->pid = -1;
  if (!mkdtemp(j->dir))
    return -1;
  char in[300], log[300], err[300], cmd[1400];
  snprintf(in, sizeof in, "%s/in", j->dir);
  snprintf(log, sizeof log, "%s/lackey", j->dir);
  snprintf(err, sizeof err, "%s/err", j->dir);
  FILE *fi = fopen(in, "w");
  if (!fi)
    return -1;
  for (size_t i = 0; i < n; i++)
    fprintf(fi, "%" PRIx64 " %" PRIx64 "\n", bits(args[i][0]),
            bits(args[i][1]));
  fclose(fi);
  snprintf(cmd, sizeof cmd,
           "valgrind --tool=lackey --trace-mem=yes --log-file=%s %s %s %d "
           "< %s > /dev/null 2> %s",
           log, probe, f->name, f->arity, in, err);
  fflush(NULL);
  j->pid = fork();
  if (j->pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return j->pid > 0 ? 0 : -1;
}

static int run_lackey(lackey_job *j, size_t n, calltrace *calls) {
  int st;
  if (j->pid <= 0 || waitpid(j->pid, &st, 0) != j->pid || !WIFEXITED(st) ||
      WEXITSTATUS(st) != 0)
    return -1;
  char log[64], err[64], cmd[64];
  snprintf(log, sizeof log, "%.31s/lackey", j->dir);
  snprintf(err, sizeof err, "%.31s/err", j->dir);
  uint64_t base = 0, tp = 0, mark = 0;
  FILE *fe = fopen(err, "r");
  if (!fe)
    return -1;
  char line[256];
  while (fgets(line, sizeof line, fe))
    if (sscanf(line, "base %" SCNx64 " tp %" SCNx64 " mark %" SCNx64, &base,
               &tp, &mark) == 3)
      break;
  fclose(fe);
  FILE *fl = fopen(log, "r");
  if (!fl || !base)
    return -1;
  size_t k = 0, cap = 0;
  bool in_call = false, in_libm = false;
  uint64_t rsp = 0;
  acc *cur = NULL;
  size_t ncur = 0;
  while (fgets(line, sizeof line, fl)) {
    /* "I  ADDR,LEN" and " K ADDR,LEN", by strtoull: a quarter of sscanf's
     * time on lackey's millions of lines */
    char *end;
    if (line[0] == 'I') {
      uint64_t a = strtoull(line + 1, &end, 16);
      if (end != line + 1)
        in_libm = a >= base && a < base + 0x100000;
      continue;
    }
    if (line[0] != ' ')
      continue;
    uint64_t a = strtoull(line + 3, &end, 16);
    if (end == line + 3 || *end != ',')
      continue;
    unsigned len = (unsigned)strtoul(end + 1, NULL, 10);
    char kind = line[1];
    if (a == mark && kind == 'S') {
      if (!in_call) {
        in_call = true;
        rsp = 0;
        ncur = 0;
      } else {
        in_call = false;
        if (ncur && cur[ncur - 1].base == CB_LM_S && cur[ncur - 1].off == 8 &&
            !cur[ncur - 1].write)
          ncur--; /* the ret: the engine's */
        if (k < n) {
          calls[k].v = malloc((ncur + 1) * sizeof *cur);
          memcpy(calls[k].v, cur, ncur * sizeof *cur);
          calls[k].n = ncur;
        }
        k++;
      }
      continue;
    }
    if (!in_call)
      continue;
    if (!rsp && kind == 'S' && !in_libm) {
      rsp = a + 8;
      continue;
    }
    if (!in_libm)
      continue;
    if (ncur == cap) {
      cap = cap ? 2 * cap : 256;
      cur = realloc(cur, cap * sizeof *cur);
    }
    acc *r = &cur[ncur++];
    r->len = len;
    r->write = kind == 'S';
    if (a > rsp - 0x10000 && a < rsp + 0x100) {
      r->base = CB_LM_S;
      r->off = (int64_t)(rsp - a);
    } else if (a >= base && a < base + 0x100000) {
      r->base = CB_LM_M;
      r->off = (int64_t)(a - base);
    } else if (a >= tp - 0x1000 && a < tp + 0x1000) {
      r->base = CB_LM_T;
      r->off = (int64_t)(a - tp);
    } else {
      r->base = -1;
      r->off = (int64_t)a;
    }
  }
  fclose(fl);
  free(cur);
  snprintf(cmd, sizeof cmd, "rm -rf %.31s", j->dir);
  if (system(cmd) != 0)
    return -1;
  return k == n ? 0 : -1;
}

/* the model's rows of one call as accesses */
static size_t model(const lmfn *f, const double *a, acc *out, size_t cap,
                    int *path) {
  uint32_t idx[CB_LM_NIDX];
  *path = cb_libm_path(f->id, a, call(f, a), idx);
  if (*path < 0)
    return 0;
  size_t n;
  const cb_lm_row *r = cb_libm_rows(f->id, *path, &n);
  if (!r) {
    *path = -2;
    return 0;
  }
  for (size_t i = 0; i < n && i < cap; i++) {
    acc *o = &out[i];
    o->len = r[i].len;
    o->write = r[i].write;
    if (r[i].base >= CB_LM_X0) {
      o->base = CB_LM_M;
      o->off = (int64_t)idx[r[i].base - CB_LM_X0] + r[i].off;
    } else if (r[i].base == CB_LM_Z) {
      o->base = CB_LM_S;
      o->off = r[i].off - (int64_t)idx[3];
    } else {
      o->base = r[i].base;
      o->off = r[i].off;
    }
  }
  return n;
}

static double (*make_args(const lmfn *f, size_t n))[2] {
  double(*args)[2] = calloc(n, sizeof *args);
  for (size_t i = 0; i < n; i++) {
    if (i < NSPECIAL * (f->arity == 2 ? NSPECIAL : 1) && i < n / 5) {
      args[i][0] = special[i % NSPECIAL];
      args[i][1] = special[i / NSPECIAL % NSPECIAL];
    } else {
      args[i][1] = 0;
      f->gen(args[i]);
    }
  }
  return args;
}

static void check_fn(const lmfn *f, const double (*args)[2], size_t n,
                     lackey_job *job) {
  calltrace *calls = calloc(n, sizeof *calls);
  if (run_lackey(job, n, calls)) {
    fprintf(stderr, "%s: the lackey run failed\n", f->name);
    CHECK(0);
    free(calls);
    return;
  }
  size_t modelled = 0, bad = 0;
  acc m[512];
  for (size_t i = 0; i < n; i++) {
    int path;
    size_t k = model(f, args[i], m, 512, &path);
    if (path < 0) /* not modelled, or a path no trace has shown */
      continue;
    modelled++;
    const calltrace *c = &calls[i];
    bool ok = k == c->n;
    for (size_t j = 0; ok && j < k; j++)
      ok = m[j].base == c->v[j].base && m[j].off == c->v[j].off &&
           m[j].len == c->v[j].len && m[j].write == c->v[j].write;
    if (!ok && bad++ < 5) {
      fprintf(stderr, "%s(%a, %a) path %d: model %zu accesses, lackey %zu\n",
              f->name, args[i][0], args[i][1], path, k, c->n);
      for (size_t j = 0; j < k || j < c->n; j++) {
        char x[40] = "", y[40] = "";
        if (j < k)
          snprintf(x, sizeof x, "%d %#" PRIx64 " %u %u", m[j].base,
                   (uint64_t)m[j].off, m[j].len, m[j].write);
        if (j < c->n)
          snprintf(y, sizeof y, "%d %#" PRIx64 " %u %u", c->v[j].base,
                   (uint64_t)c->v[j].off, c->v[j].len, c->v[j].write);
        fprintf(stderr, "  %-24s %s\n", x, y);
      }
    }
  }
  printf("%s: %zu calls, %zu modelled, %zu wrong\n", f->name, n, modelled, bad);
  CHECK_EQ_U64(bad, 0);
  CHECK(modelled * 10 >= n * 9);
  for (size_t i = 0; i < n; i++)
    free(calls[i].v);
  free(calls);
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--paths")) {
    const lmfn *f = find(argv[2]);
    return f ? print_paths(f) : 2;
  }
  if (system("valgrind --version > /dev/null 2>&1") != 0) {
    printf("valgrind is not there: skipped\n");
    return 77;
  }
  char probe[] = "/tmp/cb_libm_probe_XXXXXX";
  int fd = mkstemp(probe);
  if (fd < 0)
    return 1;
  close(fd);
  char cmd[1000];
  snprintf(cmd, sizeof cmd, "%s -O1 -o %s %s -ldl", CB_TEST_CLANG, probe,
           CB_TEST_PROBE);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot build %s\n", CB_TEST_PROBE);
    return 1;
  }
  size_t n = argc > 1 ? (size_t)atoi(argv[1]) : 3000;
  /* the arguments in the functions' order, from one generator */
  double(*args[NFNS])[2];
  for (size_t i = 0; i < NFNS; i++)
    args[i] = make_args(&fns[i], n);
  lackey_job jobs[NFNS];
  for (size_t i = 0; i < NFNS && i < 2; i++)
    lackey_start(probe, &fns[i], (const double(*)[2])args[i], n, &jobs[i]);
  for (size_t i = 0; i < NFNS; i++) {
    check_fn(&fns[i], (const double(*)[2])args[i], n, &jobs[i]);
    if (i + 2 < NFNS)
      lackey_start(probe, &fns[i + 2], (const double(*)[2])args[i + 2], n,
                   &jobs[i + 2]);
  }
  for (size_t i = 0; i < NFNS; i++)
    free(args[i]);
  unlink(probe);
  return check_done();
}
