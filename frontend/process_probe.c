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

#include <elf.h>
#include <errno.h>
#include <limits.h>
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

/* root/process, made when missing. */
static bool probe_dir(const char *root, char *out, size_t n) {
  if (!root || (size_t)snprintf(out, n, "%s/process", root) >= n)
    return false;
  return mkdir(out, 0755) == 0 || errno == EEXIST;
}

/* Builds the source into the cache (or finds it there): the path in out. */
static bool build(const char *root, const char *kind, const char *src,
                  const char *clang, char **flags, char *out, size_t n,
                  char *why, size_t nw) {
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
  char tmp[PATH_MAX + 64], csrc[PATH_MAX + 64], log[PATH_MAX + 64];
  snprintf(tmp, sizeof tmp, "%s.%ld", out, (long)getpid());
  snprintf(csrc, sizeof csrc, "%s.%ld.c", out, (long)getpid());
  snprintf(log, sizeof log, "%s.%ld.log", out, (long)getpid());
  FILE *f = fopen(csrc, "w");
  if (!f || fputs(src, f) < 0 || fclose(f) != 0) {
    snprintf(why, nw, "cannot write the %s probe's source", kind);
    return false;
  }
  size_t nf = 0;
  while (flags && flags[nf])
    nf++;
  const char **argv = calloc(nf + 10, sizeof *argv);
  size_t k = 0;
  argv[k++] = clang;
  for (size_t i = 0; i < nf; i++)
    argv[k++] = flags[i];
  argv[k++] = "-w";
  argv[k++] = "-fno-builtin";
  argv[k++] = "-o";
  argv[k++] = tmp;
  argv[k++] = csrc;
  argv[k++] = "-lm";
  argv[k] = NULL;
  int rc = fe_run_to_file(argv, log);
  free(argv);
  bool ok = rc == 0 && rename(tmp, out) == 0;
  if (!ok)
    snprintf(why, nw, "building the %s probe failed (%s %d)", kind,
             rc ? "clang exit" : "rename", rc ? rc : errno);
  unlink(tmp);
  unlink(csrc);
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

void fe_process_probes(cb_program *p, const char *cache_dir, const char *exe,
                       const char *clang, char **flags) {
  cb_process_info *pi = calloc(1, sizeof *pi);
  if (!pi)
    return;
  p->process = pi;
  pi->startup_site = pi->exit_site = CB_NONE;
  fe_pelf u, ps, pe;
  memset(&ps, 0, sizeof ps);
  memset(&pe, 0, sizeof pe);
  if (!fe_pelf_read(exe, &u)) {
    snprintf(pi->why, sizeof pi->why, "cannot read the executable");
    return;
  }
  uint64_t base = u.pie ? p->load_base : 0;
  char spath[PATH_MAX], epath[PATH_MAX];
  char *src = NULL;
  /* as many RELATIVE relocations as the executable: the crt files' own
   * are counted once, by building, and the array sized again when the
   * first guess missed */
  long want = (long)fe_pelf_count(&u, R_X86_64_RELATIVE), n_rel = want - 3;
  for (int round = 0; round < 2; round++) {
    free(src);
    src = startup_source(&u, n_rel);
    fe_pelf_free(&ps);
    if (!src || !build(cache_dir, "startup", src, clang, flags, spath,
                       sizeof spath, pi->why, sizeof pi->why))
      goto out;
    if (!fe_pelf_read(spath, &ps)) {
      snprintf(pi->why, sizeof pi->why, "cannot read the start-up probe");
      goto out;
    }
    long got = (long)fe_pelf_count(&ps, R_X86_64_RELATIVE);
    if (got == want || n_rel + (want - got) < 0)
      break;
    n_rel += want - got;
  }
  free(src);
  src = exit_source();
  if (!src || !build(cache_dir, "exit", src, clang, flags, epath, sizeof epath,
                     pi->why, sizeof pi->why))
    goto out;
  if (!fe_pelf_read(epath, &pe)) {
    snprintf(pi->why, sizeof pi->why, "cannot read the exit probe");
    goto out;
  }
  if (!probe_fill(&pi->startup, spath, &ps, &u, base) ||
      !probe_fill(&pi->exit, epath, &pe, &u, base)) {
    snprintf(pi->why, sizeof pi->why, "a probe has no main");
    goto out;
  }
  add_sites(p, pi);
  pi->ok = pi->startup_site != CB_NONE;
out:
  free(src);
  fe_pelf_free(&u);
  fe_pelf_free(&ps);
  fe_pelf_free(&pe);
}
