/* process_probe.c: the two probes whose traces stand for the process's
 * start-up and exit (program.h, cb_process_info; docs/process-model.md
 * section 8).
 *
 * What ld.so does before main depends on the executable: its .dynamic,
 * its relocations (one read of each R_X86_64_RELATIVE entry and one write
 * of its target, a symbol lookup in every library for each GLOB_DAT, a
 * GOT write per PLT slot), its version needs and the strings it names;
 * the rest (loading and relocating the libraries, libc's initialisation)
 * depends only on the libraries and on the initial stack. So the start-up
 * probe is a C file that imports the executable's symbols, in its order
 * and through the same kinds of relocations, carries as many RELATIVE
 * relocations, and is built with the program's compiler, flags and
 * libraries; its main reports where it returns to and its argv (a raw
 * write(2): no import of its own). The exit probe is built the same way
 * and leaves stdio as the engine's run may end (stdout written, flushed,
 * stdin read: its argv[1]). Both are kept in the user's cache directory,
 * keyed by their text, the compiler and the flags. */
#include "process_probe.h"

#include "fe_internal.h"

#include "cbana/engine.h"

#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct sbuf {
  char *s;
  size_t n, cap;
} sbuf;

static void sb_printf(sbuf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(sbuf *b, const char *fmt, ...) {
  for (;;) {
    va_list ap;
    va_start(ap, fmt);
    size_t room = b->cap - b->n;
    int k = vsnprintf(b->s ? b->s + b->n : NULL, room, fmt, ap);
    va_end(ap);
    if (k < 0)
      return;
    if ((size_t)k < room) {
      b->n += (size_t)k;
      return;
    }
    size_t cap = b->cap ? 2 * b->cap : 4096;
    while (cap - b->n <= (size_t)k)
      cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns)
      return;
    b->s = ns;
    b->cap = cap;
  }
}

/* The symbols crt1.o and crtbegin.o import themselves: every probe has
 * them already. */
static bool crt_symbol(const char *n) {
  static const char *const crt[] = {
      "__libc_start_main", "__cxa_finalize", "_ITM_deregisterTMCloneTable",
      "_ITM_registerTMCloneTable", "__gmon_start__"};
  for (size_t i = 0; i < sizeof crt / sizeof *crt; i++)
    if (strcmp(n, crt[i]) == 0)
      return true;
  return false;
}

static bool c_identifier(const char *n) {
  if (!*n || (*n >= '0' && *n <= '9'))
    return false;
  for (; *n; n++)
    if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') ||
          (*n >= '0' && *n <= '9') || *n == '_'))
      return false;
  return true;
}

/* main reports the address it returns to and argv as 16 bytes on fd 2,
 * by a raw system call (a libc call would be an import of its own). */
static const char probe_report[] =
    "static void cb_report(void *ret, char **argv) {\n"
    "  unsigned long v[2] = {(unsigned long)ret, (unsigned long)argv};\n"
    "  long r;\n"
    "  __asm__ volatile(\"syscall\" : \"=a\"(r) : \"a\"(1L), \"D\"(2L), "
    "\"S\"(v), \"d\"(16L) : \"rcx\", \"r11\", \"memory\");\n"
    "  (void)r;\n"
    "}\n";

/* The start-up probe's text for executable u, with n_rel RELATIVE
 * relocations of its own. */
static char *startup_source(const fe_pelf *u, long n_rel) {
  sbuf b = {0};
  sb_printf(&b, "/* cbana's start-up probe (frontend/process_probe.c) */\n");
  sb_printf(&b, "%s", probe_report);
  for (uint32_t i = 0; i < u->n_relocs; i++) {
    const fe_pelf_reloc *r = &u->relocs[i];
    const char *n = fe_pelf_reloc_sym(u, r);
    if (!r->sym || crt_symbol(n) || !c_identifier(n))
      continue;
    bool seen = false;
    for (uint32_t k = 0; k < i && !seen; k++)
      seen = u->relocs[k].sym == r->sym;
    if (seen)
      continue;
    if (u->syms[r->sym].func || r->type == R_X86_64_JUMP_SLOT)
      sb_printf(&b, "extern void %s(void);\n", n);
    else
      sb_printf(&b, "extern char %s[];\n", n);
  }
  if (n_rel > 0) {
    sb_printf(&b, "__attribute__((used)) static void *cb_rel[%ld] = {", n_rel);
    for (long i = 0; i < n_rel; i++)
      sb_printf(&b, "%s(void *)&cb_rel[%ld]", i ? ", " : "", i);
    sb_printf(&b, "};\n");
  }
  sb_printf(&b, "__attribute__((used, noinline)) void cb_never(void) {\n");
  for (uint32_t i = 0; i < u->n_relocs; i++) {
    const fe_pelf_reloc *r = &u->relocs[i];
    const char *n = fe_pelf_reloc_sym(u, r);
    if (!r->sym || crt_symbol(n) || !c_identifier(n))
      continue;
    if (r->type == R_X86_64_JUMP_SLOT)
      sb_printf(&b, "  %s();\n", n);
    else
      sb_printf(&b, "  __asm__ volatile(\"\" : : \"r\"(&%s));\n", n);
  }
  sb_printf(&b, "}\n");
  sb_printf(&b, "int main(int argc, char **argv) {\n"
                "  (void)argc;\n"
                "  cb_report(__builtin_return_address(0), argv);\n"
                "  return 0;\n"
                "}\n");
  return b.s;
}

/* The exit probe: argv[1] is the stdio state at exit, bits of
 * cb_process_exit_mode (1 stdout written, 2 then flushed, 4 stdin read). */
static char *exit_source(void) {
  sbuf b = {0};
  sb_printf(&b, "/* cbana's exit probe (frontend/process_probe.c) */\n"
                "#include <stdio.h>\n");
  sb_printf(&b, "%s", probe_report);
  sb_printf(&b, "int main(int argc, char **argv) {\n"
                "  cb_report(__builtin_return_address(0), argv);\n"
                "  int m = argc > 1 ? argv[1][0] - '0' : 0;\n"
                "  if (m & 1)\n"
                "    fputc('x', stdout);\n"
                "  if (m & 2)\n"
                "    fflush(stdout);\n"
                "  if (m & 4)\n"
                "    getchar();\n"
                "  return 0;\n"
                "}\n");
  return b.s;
}

/* The stdio state the run likely exits in (enum cb_process_exit_mode),
 * from the executable's imports: stdout written and left with bytes
 * pending when it imports a function that writes there or stdout itself
 * (imported, or defined by a copy relocation),
 * stdin read when one that reads it or stdin itself. Only which exit trace
 * the analysis makes before the engine asks (analysis/process/process.c):
 * a wrong guess costs time, never a count. */
static uint8_t exit_mode_guess(const fe_pelf *u) {
  static const char *const out[] = {
      "stdout",        "printf", "__printf_chk", "vprintf",
      "__vprintf_chk", "puts",   "putchar",      "putchar_unlocked"};
  static const char *const in[] = {
      "stdin",  "scanf",   "__isoc99_scanf",   "__isoc99_vscanf",
      "vscanf", "getchar", "getchar_unlocked", "gets"};
  uint8_t mode = 0;
  for (uint32_t i = 1; i < u->n_syms; i++) {
    const char *n = u->syms[i].name;
    if (!n)
      continue;
    for (size_t k = 0; k < sizeof out / sizeof *out; k++)
      if (strcmp(n, out[k]) == 0)
        mode |= CB_PROCESS_STDOUT_USED;
    for (size_t k = 0; k < sizeof in / sizeof *in; k++)
      if (strcmp(n, in[k]) == 0)
        mode |= CB_PROCESS_STDIN_USED;
  }
  return mode;
}

/* root/process, made when missing. */
static bool probe_dir(const char *root, char *out, size_t n) {
  if (!root || (size_t)snprintf(out, n, "%s/process", root) >= n)
    return false;
  return mkdir(out, 0755) == 0 || errno == EEXIST;
}

/* Runs clang FLAGS -w -fno-builtin MID... SRC [-lm]: MID is "-c -o OBJ"
 * or "-o EXE". */
static int run_clang(const char *clang, char **flags, const char *const *mid,
                     const char *src, bool lm, const char *log) {
  size_t nf = 0, nm = 0;
  while (flags && flags[nf])
    nf++;
  while (mid[nm])
    nm++;
  const char **argv = calloc(nf + nm + 6, sizeof *argv);
  if (!argv)
    return -1;
  size_t k = 0;
  argv[k++] = clang;
  for (size_t i = 0; i < nf; i++)
    argv[k++] = flags[i];
  argv[k++] = "-w";
  argv[k++] = "-fno-builtin";
  for (size_t i = 0; i < nm; i++)
    argv[k++] = mid[i];
  argv[k++] = src;
  if (lm)
    argv[k++] = "-lm";
  argv[k] = NULL;
  int rc = fe_run_to_file(argv, log);
  free(argv);
  return rc;
}

/* The probe linked as the program is: compiled alone (-c: the driver
 * runs the compiler in its own process), then the linker's line clang's
 * driver would run (link_cmd.c). The executable is byte for byte the
 * driver's `clang FLAGS -o EXE SRC -lm` (cmp), for about 0.1 s less CPU:
 * no second process for the compiler and no driver around ld. False when
 * a step fails, for the driver's build to be tried. */
static bool build_by_line(const char *root, const char *clang, char **flags,
                          const char *csrc, const char *tmp, const char *log,
                          const char *tmpdir) {
  char obj[PATH_MAX + 80];
  if ((size_t)snprintf(obj, sizeof obj, "%s.o", tmp) >= sizeof obj)
    return false;
  const char *mid[] = {"-c", "-o", obj, NULL};
  bool ok = run_clang(clang, flags, mid, csrc, false, log) == 0;
  bool cached = false;
  char *objs[] = {obj, NULL};
  char **line = ok && tmpdir ? fe_link_line(root, clang, flags, tmp, objs, 1,
                                            tmpdir, &cached)
                             : NULL;
  ok = line && fe_run_to_file((const char *const *)line, log) == 0;
  if (line && !ok && cached)
    fe_link_line_forget(root, clang, flags, 1);
  fe_free_strv(line);
  unlink(obj);
  return ok;
}

/* Builds the source into the cache (or finds it there): the path in out.
 * tmpdir: a private directory (for the driver's -### output), NULL: none. */
static bool build(const char *root, const char *kind, const char *src,
                  const char *clang, char **flags, const char *tmpdir,
                  char *out, size_t n, char *why, size_t nw) {
  char dir[PATH_MAX];
  if (!probe_dir(root, dir, sizeof dir)) {
    snprintf(why, nw, "no cache directory to keep its probes in");
    return false;
  }
  uint64_t h = fe_fnv_str(FE_FNV_START, "cbana process probe 1");
  h = fe_fnv_str(h, src);
  h = fe_fnv_str(h, clang);
  char real[PATH_MAX];
  struct stat st;
  if (realpath(clang, real) && stat(real, &st) == 0) {
    uint64_t id[3] = {(uint64_t)st.st_ino, (uint64_t)st.st_size,
                      (uint64_t)st.st_mtime};
    h = fe_fnv(h, id, sizeof id);
  }
  for (char **f = flags; f && *f; f++)
    h = fe_fnv_str(h, *f);
  if ((size_t)snprintf(out, n, "%s/%s-%016llx", dir, kind,
                       (unsigned long long)h) >= n) {
    snprintf(why, nw, "the cache directory's path is too long");
    return false;
  }
  if (access(out, X_OK) == 0)
    return true;
  /* The source in a directory of this process's, under a name of its
   * kind only: the object's file symbol (STT_FILE) is the source's base
   * name, and through ld's --build-id note (hashed over the whole file)
   * it reaches the loaded image. So the executable is the same for every
   * build of the text, compiler and flags, whichever process makes it,
   * and the traces kept by its contents (analysis/process/process.c)
   * serve each of them. */
  char tmp[PATH_MAX + 64], sdir[PATH_MAX + 64], csrc[PATH_MAX + 96],
      log[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s.%ld", out, (long)getpid());
  snprintf(sdir, sizeof sdir, "%s.%ld.d", out, (long)getpid());
  snprintf(csrc, sizeof csrc, "%s/%s.c", sdir, kind);
  snprintf(log, sizeof log, "%s.%ld.log", out, (long)getpid());
  FILE *f = mkdir(sdir, 0700) == 0 ? fopen(csrc, "w") : NULL;
  if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
    unlink(csrc);
    rmdir(sdir);
    snprintf(why, nw, "cannot write the %s probe's source", kind);
    return false;
  }
  int rc = 0;
  if (!build_by_line(root, clang, flags, csrc, tmp, log, tmpdir)) {
    const char *mid[] = {"-o", tmp, NULL};
    rc = run_clang(clang, flags, mid, csrc, true, log);
  }
  bool ok = rc == 0 && rename(tmp, out) == 0;
  if (!ok)
    snprintf(why, nw, "building the %s probe failed (%s %d)", kind,
             rc ? "clang exit" : "rename", rc ? rc : errno);
  unlink(tmp);
  unlink(csrc);
  rmdir(sdir);
  unlink(log);
  return ok;
}

/* ---- the address maps --------------------------------------------------- */

typedef struct mapv {
  cb_addr_map *m;
  uint32_t n, cap;
} mapv;

static void map_add(mapv *v, uint64_t lo, uint64_t hi, uint64_t to) {
  if (hi <= lo)
    return;
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 64;
    cb_addr_map *nm = realloc(v->m, v->cap * sizeof *nm);
    if (!nm)
      return;
    v->m = nm;
  }
  v->m[v->n++] = (cb_addr_map){lo, hi, to};
}

/* Probe address -> program address: a relocation's target to the
 * program's relocation of the same symbol and type (RELATIVE ones by
 * rank), a section to the section of the same name. */
static void map_build(const fe_pelf *pr, const fe_pelf *u, uint64_t base,
                      cb_process_probe *out) {
  mapv v = {0};
  uint32_t rel_u = 0;
  for (uint32_t i = 0; i < pr->n_relocs; i++) {
    const fe_pelf_reloc *r = &pr->relocs[i];
    if (r->type == R_X86_64_RELATIVE) {
      while (rel_u < u->n_relocs && u->relocs[rel_u].type != R_X86_64_RELATIVE)
        rel_u++;
      if (rel_u < u->n_relocs) {
        map_add(&v, base + r->offset, base + r->offset + 8,
                base + u->relocs[rel_u].offset);
        rel_u++;
      }
      continue;
    }
    if (!r->sym)
      continue;
    const char *n = fe_pelf_reloc_sym(pr, r);
    for (uint32_t k = 0; k < u->n_relocs; k++) {
      const fe_pelf_reloc *x = &u->relocs[k];
      if (x->type == r->type && x->sym &&
          strcmp(fe_pelf_reloc_sym(u, x), n) == 0) {
        uint64_t size = r->type == R_X86_64_COPY ? pr->syms[r->sym].size : 8;
        map_add(&v, base + r->offset, base + r->offset + (size ? size : 8),
                base + x->offset);
        break;
      }
    }
  }
  for (uint32_t i = 0; i < pr->n_secs; i++) {
    const fe_pelf_sec *s = fe_pelf_section(u, pr->secs[i].name);
    if (s)
      map_add(&v, base + pr->secs[i].addr,
              base + pr->secs[i].addr + pr->secs[i].size, base + s->addr);
  }
  out->map = v.m;
  out->n_map = v.n;
}

static bool probe_fill(cb_process_probe *pp, const char *path,
                       const fe_pelf *pr, const fe_pelf *u, uint64_t base) {
  pp->exe = strdup(path);
  if (!pp->exe || !pr->main)
    return false;
  pp->main_addr = base + pr->main;
  pp->lo = base;
  pp->hi = base + ((pr->end + 0xfff) & ~0xfffull);
  map_build(pr, u, base, pp);
  return true;
}

static void add_sites(cb_program *p, cb_process_info *pi) {
  uint32_t func = CB_NONE;
  for (uint32_t i = 0; i < p->n_src_funcs; i++)
    if (p->src_funcs[i].name && strcmp(p->src_funcs[i].name, "main") == 0)
      func = i;
  uint32_t file = 0;
  if (p->main_function < p->n_functions)
    file = p->functions[p->main_function].file;
  cb_site *ns = realloc(p->sites, (p->n_sites + 2) * sizeof *ns);
  if (!ns)
    return;
  p->sites = ns;
  if (p->ra_site) {
    uint32_t *nr = realloc(p->ra_site, (p->n_sites + 2) * sizeof *nr);
    if (!nr)
      return;
    p->ra_site = nr;
    nr[p->n_sites] = nr[p->n_sites + 1] = CB_NONE;
  }
  static const char *const text[2] = {"(process start-up)", "(process exit)"};
  for (unsigned k = 0; k < 2; k++) {
    cb_site *s = &ns[p->n_sites + k];
    memset(s, 0, sizeof *s);
    s->file = file;
    s->func = func;
    s->var = s->type = s->field = CB_NONE;
    s->is_call = 1;
    s->is_process = 1;
    s->text = text[k];
  }
  pi->startup_site = p->n_sites;
  pi->exit_site = p->n_sites + 1;
  p->n_sites += 2;
}

/* ---- building the probes beside the program's compile and lowering ---- */

struct fe_probes {
  pthread_t thread;
  bool usable;  /* its strings copied */
  bool running; /* the thread started (else fe_probes_finish works) */
  pthread_mutex_t lock;
  pthread_cond_t cv;
  bool line_done; /* the link line was worked out (or could not be) */
  bool exe_given; /* exe set, or NULL: none will be */
  char *exe;
  char *cache_dir, *clang, *tmpdir;
  char **flags;
  /* results: the executable and the probes read, each one's why */
  bool have_u, have_s, have_e;
  fe_pelf u, ps, pe;
  char spath[PATH_MAX], epath[PATH_MAX];
  char why_u[200], why_s[200], why_e[200];
};

/* The start-up probe of executable u: as many RELATIVE relocations as the
 * executable, the crt files' own counted once by building, and the array
 * sized again when the first guess missed. */
static bool build_startup(fe_probes *pr) {
  const fe_pelf *u = &pr->u;
  long want = (long)fe_pelf_count(u, R_X86_64_RELATIVE), n_rel = want - 3;
  for (int round = 0; round < 2; round++) {
    char *src = startup_source(u, n_rel);
    fe_pelf_free(&pr->ps);
    memset(&pr->ps, 0, sizeof pr->ps);
    bool ok = src && build(pr->cache_dir, "startup", src, pr->clang, pr->flags,
                           pr->tmpdir, pr->spath, sizeof pr->spath, pr->why_s,
                           sizeof pr->why_s);
    free(src);
    if (!ok)
      return false;
    if (!fe_pelf_read(pr->spath, &pr->ps)) {
      snprintf(pr->why_s, sizeof pr->why_s, "cannot read the start-up probe");
      return false;
    }
    long got = (long)fe_pelf_count(&pr->ps, R_X86_64_RELATIVE);
    if (got == want || n_rel + (want - got) < 0)
      break;
    n_rel += want - got;
  }
  return true;
}

/* The thread: the link line first (the program's link waits for it), the
 * exit probe (the same for every program built with these flags), then,
 * once the program is linked, the start-up probe, while the program's
 * bitcode is lowered. The steps share nothing with the compile but the
 * cache directory (the link line is written whole, then renamed), so each
 * makes what it would make in turn. */
static void *probes_main(void *arg) {
  fe_probes *pr = arg;
  if (pr->cache_dir && pr->tmpdir) {
    char exe[PATH_MAX], obj[PATH_MAX];
    snprintf(exe, sizeof exe, "%s/probe", pr->tmpdir);
    snprintf(obj, sizeof obj, "%s/probe.o", pr->tmpdir);
    char *objs[] = {obj, NULL};
    bool cached;
    /* the driver checks that its inputs exist */
    FILE *f = fopen(obj, "w");
    if (f)
      fclose(f);
    fe_free_strv(fe_link_line(pr->cache_dir, pr->clang, pr->flags, exe, objs, 1,
                              pr->tmpdir, &cached));
    unlink(obj);
  }
  pthread_mutex_lock(&pr->lock);
  pr->line_done = true;
  pthread_cond_broadcast(&pr->cv);
  pthread_mutex_unlock(&pr->lock);

  char *src = exit_source();
  if (src && build(pr->cache_dir, "exit", src, pr->clang, pr->flags, pr->tmpdir,
                   pr->epath, sizeof pr->epath, pr->why_e, sizeof pr->why_e)) {
    pr->have_e = fe_pelf_read(pr->epath, &pr->pe);
    if (!pr->have_e)
      snprintf(pr->why_e, sizeof pr->why_e, "cannot read the exit probe");
  }
  free(src);

  pthread_mutex_lock(&pr->lock);
  while (!pr->exe_given)
    pthread_cond_wait(&pr->cv, &pr->lock);
  pthread_mutex_unlock(&pr->lock);
  if (!pr->exe)
    return NULL;
  pr->have_u = fe_pelf_read(pr->exe, &pr->u);
  if (!pr->have_u)
    snprintf(pr->why_u, sizeof pr->why_u, "cannot read the executable");
  else
    pr->have_s = build_startup(pr);
  return NULL;
}

static char **strv_dup(char **v) {
  size_t n = 0;
  while (v && v[n])
    n++;
  if (!v)
    return NULL;
  char **d = calloc(n + 1, sizeof *d);
  for (size_t i = 0; d && i < n; i++)
    if (!(d[i] = strdup(v[i]))) {
      fe_free_strv(d);
      return NULL;
    }
  return d;
}

fe_probes *fe_probes_start(const char *cache_dir, const char *clang,
                           char **flags, const char *tmpdir) {
  fe_probes *pr = calloc(1, sizeof *pr);
  if (!pr)
    return NULL;
  pthread_mutex_init(&pr->lock, NULL);
  pthread_cond_init(&pr->cv, NULL);
  pr->cache_dir = cache_dir ? strdup(cache_dir) : NULL;
  pr->clang = strdup(clang);
  /* a directory of its own for the driver's -### output (link_cmd.c),
   * which the program's link writes in tmpdir */
  char own[PATH_MAX];
  if (tmpdir &&
      (size_t)snprintf(own, sizeof own, "%s/probes", tmpdir) < sizeof own &&
      mkdir(own, 0700) == 0)
    pr->tmpdir = strdup(own);
  pr->flags = strv_dup(flags);
  pr->usable =
      pr->clang && (!cache_dir || pr->cache_dir) && (!flags || pr->flags);
  pr->running =
      pr->usable && pthread_create(&pr->thread, NULL, probes_main, pr) == 0;
  return pr;
}

void fe_probes_wait_line(fe_probes *pr) {
  if (!pr || !pr->running)
    return;
  pthread_mutex_lock(&pr->lock);
  while (!pr->line_done)
    pthread_cond_wait(&pr->cv, &pr->lock);
  pthread_mutex_unlock(&pr->lock);
}

void fe_probes_exe(fe_probes *pr, const char *exe) {
  if (!pr)
    return;
  pthread_mutex_lock(&pr->lock);
  if (!pr->exe_given) {
    pr->exe = exe ? strdup(exe) : NULL;
    pr->exe_given = true;
    pthread_cond_broadcast(&pr->cv);
  }
  pthread_mutex_unlock(&pr->lock);
}

void fe_probes_finish(fe_probes *pr, cb_program *p) {
  if (!pr)
    return;
  fe_probes_exe(pr, NULL); /* none, unless given */
  if (pr->running)
    pthread_join(pr->thread, NULL);
  else if (pr->usable && p)
    probes_main(pr); /* no thread: here, in turn */
  cb_process_info *pi = p ? calloc(1, sizeof *pi) : NULL;
  if (pi) {
    p->process = pi;
    pi->startup_site = pi->exit_site = CB_NONE;
    /* the first failure in the order the steps had when sequential */
    if (!pr->usable)
      snprintf(pi->why, sizeof pi->why, "out of memory");
    else if (!pr->have_u)
      snprintf(pi->why, sizeof pi->why, "%s", pr->why_u);
    else if (!pr->have_s)
      snprintf(pi->why, sizeof pi->why, "%s", pr->why_s);
    else if (!pr->have_e)
      snprintf(pi->why, sizeof pi->why, "%s", pr->why_e);
    else {
      uint64_t base = pr->u.pie ? p->load_base : 0;
      if (!probe_fill(&pi->startup, pr->spath, &pr->ps, &pr->u, base) ||
          !probe_fill(&pi->exit, pr->epath, &pr->pe, &pr->u, base)) {
        snprintf(pi->why, sizeof pi->why, "a probe has no main");
      } else {
        add_sites(p, pi);
        pi->exit_mode_guess = exit_mode_guess(&pr->u);
        pi->ok = pi->startup_site != CB_NONE;
      }
    }
  }
  fe_pelf_free(&pr->u);
  fe_pelf_free(&pr->ps);
  fe_pelf_free(&pr->pe);
  free(pr->exe);
  free(pr->cache_dir);
  free(pr->clang);
  if (pr->tmpdir) {
    char jobs[PATH_MAX + 16];
    snprintf(jobs, sizeof jobs, "%s/link.jobs", pr->tmpdir);
    unlink(jobs);
    rmdir(pr->tmpdir);
  }
  free(pr->tmpdir);
  fe_free_strv(pr->flags);
  pthread_mutex_destroy(&pr->lock);
  pthread_cond_destroy(&pr->cv);
  free(pr);
}
