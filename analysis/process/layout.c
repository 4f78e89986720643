/* layout.c: where valgrind puts the heap and the first mmapped block for
 * a given executable (docs/process-model.md, sections 1 and 3.3): the
 * break starts 0x35000 (ld.so's span) above max(0x4000000, the
 * executable's end); mappings start above the break's 8 MiB reservation,
 * ld.so's data, valgrind's core preload, /etc/ld.so.cache and every needed
 * library. The ELF files are read with <elf.h> only. */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "libc_internal.h"

#define PAGEUP(x) (((x) + 0xfffull) & ~0xfffull)

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  if (fseek(f, 0, SEEK_END) != 0) {
    fclose(f);
    return NULL;
  }
  long n = ftell(f);
  if (n <= 0 || fseek(f, 0, SEEK_SET) != 0) {
    fclose(f);
    return NULL;
  }
  unsigned char *b = malloc((size_t)n);
  *len = b ? fread(b, 1, (size_t)n, f) : 0;
  fclose(f);
  if (b && *len != (size_t)n) {
    free(b);
    return NULL;
  }
  return b;
}

static const Elf64_Phdr *phdrs(const unsigned char *b, size_t len,
                               unsigned *n) {
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > len)
    return NULL;
  *n = eh->e_phnum;
  return (const Elf64_Phdr *)(b + eh->e_phoff);
}

/* Page-rounded span of the PT_LOAD segments; 0 if not an ELF. */
static uint64_t load_span(const unsigned char *b, size_t len, uint64_t *end) {
  unsigned n;
  const Elf64_Phdr *ph = phdrs(b, len, &n);
  if (!ph)
    return 0;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned i = 0; i < n; i++)
    if (ph[i].p_type == PT_LOAD) {
      if (ph[i].p_vaddr < lo)
        lo = ph[i].p_vaddr;
      if (ph[i].p_vaddr + ph[i].p_memsz > hi)
        hi = ph[i].p_vaddr + ph[i].p_memsz;
    }
  if (hi <= lo)
    return 0;
  if (end)
    *end = hi;
  return PAGEUP(hi) - (lo & ~0xfffull);
}

static uint64_t vaddr_to_off(const Elf64_Phdr *ph, unsigned n, uint64_t va) {
  for (unsigned i = 0; i < n; i++)
    if (ph[i].p_type == PT_LOAD && va >= ph[i].p_vaddr &&
        va < ph[i].p_vaddr + ph[i].p_filesz)
      return va - ph[i].p_vaddr + ph[i].p_offset;
  return UINT64_MAX;
}

/* Calls fn for every DT_NEEDED name. */
static void needed(const unsigned char *b, size_t len,
                   void (*fn)(void *, const char *), void *ctx) {
  unsigned n;
  const Elf64_Phdr *ph = phdrs(b, len, &n);
  if (!ph)
    return;
  for (unsigned i = 0; i < n; i++) {
    if (ph[i].p_type != PT_DYNAMIC || ph[i].p_offset + ph[i].p_filesz > len)
      continue;
    const Elf64_Dyn *d = (const Elf64_Dyn *)(b + ph[i].p_offset);
    size_t nd = ph[i].p_filesz / sizeof *d;
    uint64_t strtab = 0;
    for (size_t k = 0; k < nd && d[k].d_tag != DT_NULL; k++)
      if (d[k].d_tag == DT_STRTAB)
        strtab = vaddr_to_off(ph, n, d[k].d_un.d_ptr);
    if (strtab == UINT64_MAX || !strtab)
      return;
    for (size_t k = 0; k < nd && d[k].d_tag != DT_NULL; k++)
      if (d[k].d_tag == DT_NEEDED && strtab + d[k].d_un.d_val < len)
        fn(ctx, (const char *)b + strtab + d[k].d_un.d_val);
  }
}

typedef struct libs {
  char names[32][256];
  int n;
  uint64_t span;
  uint64_t libc_off; /* span of the libraries mapped before libc */
  bool has_libc;
  bool ok;
} libs;

static void add_lib(void *ctx, const char *name) {
  libs *L = ctx;
  if (strstr(name, "ld-linux") || L->n >= 32)
    return;
  for (int i = 0; i < L->n; i++)
    if (!strcmp(L->names[i], name))
      return;
  snprintf(L->names[L->n++], sizeof L->names[0], "%s", name);
  static const char *dirs[] = {"/lib/x86_64-linux-gnu",
                               "/usr/lib/x86_64-linux-gnu", "/lib64",
                               "/usr/lib", "/lib"};
  for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dirs[d], name);
    size_t len;
    unsigned char *b = slurp(path, &len);
    if (!b)
      continue;
    uint64_t s = load_span(b, len, NULL);
    if (!strncmp(name, "libc.so", 7) && !L->has_libc) {
      L->libc_off = L->span;
      L->has_libc = true;
    }
    L->span += s;
    if (!s)
      L->ok = false;
    needed(b, len, add_lib, L);
    free(b);
    return;
  }
  L->ok = false;
}

static bool calls_libm(const cb_program *p) {
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const cb_op *op = &p->ops[i];
    if (op->code != CB_OP_CALL)
      continue;
    const int64_t *g = &p->extra[op->aux];
    if (g[0] == CB_CALL_LIBC && g[1] >= 0 && cb_libc_is_libm((uint32_t)g[1]) &&
        g[1] != CB_LIBC_FABS && g[1] != CB_LIBC_FABSF)
      return true;
  }
  return false;
}

static void layout_libs(const cb_program *p, uint64_t *heap_base,
                        uint64_t *mmap_base, uint64_t *libc_base,
                        uint64_t *libs_base);

static void layout(const cb_program *p, uint64_t *heap_base,
                   uint64_t *mmap_base, uint64_t *libc_base) {
  layout_libs(p, heap_base, mmap_base, libc_base, NULL);
}

static void layout_libs(const cb_program *p, uint64_t *heap_base,
                        uint64_t *mmap_base, uint64_t *libc_base,
                        uint64_t *libs_base) {
  uint64_t exe_end = p->image_end;
  size_t len = 0;
  unsigned char *b = p->exe_path ? slurp(p->exe_path, &len) : NULL;
  libs L;
  memset(&L, 0, sizeof L);
  L.ok = b != NULL;
  if (b) {
    uint64_t end = 0;
    if (load_span(b, len, &end) && p->load_base)
      exe_end = p->load_base + end;
    needed(b, len, add_lib, &L);
    free(b);
  } else if (p->dl && p->dl->n_objs > 1 && p->dl->n_objs < CB_DL_MAX_OBJS) {
    /* the executable is not kept (analyze): the frontend's reading of it
     * has the libraries in mapping order with their spans, libm among
     * them whenever the link line names it, called or not */
    L.ok = true;
    for (uint32_t i = 1; i < p->dl->n_objs; i++) {
      const cb_dl_object *o = &p->dl->objs[i];
      if ((i == 1 && p->dl->preload) || strstr(o->soname, "ld-linux"))
        continue;
      if (!strncmp(o->soname, "libc.so", 7) && !L.has_libc) {
        L.libc_off = L.span;
        L.has_libc = true;
      }
      L.span += o->span;
      L.n++;
      if (!o->span)
        L.ok = false;
    }
  }
  uint64_t ldso = PAGEUP(exe_end) > 0x4000000 ? PAGEUP(exe_end) : 0x4000000;
  uint64_t brk0 = ldso + 0x35000;
  uint64_t base;
  struct stat st;
  uint64_t cache = stat("/etc/ld.so.cache", &st) == 0
                       ? PAGEUP((uint64_t)st.st_size)
                       : 0xb000;
  uint64_t libs0 = brk0 + 0x800000 + 0x2000 + 0x5000 + cache;
  uint64_t libc;
  if (L.ok && L.n) {
    base = libs0 + L.span + 0x3000;
    libc = libs0 + (L.has_libc ? L.libc_off : 0);
  } else { /* libc only, after libm when the program calls it */
    uint64_t m = calls_libm(p) ? 0xe0000 : 0;
    base = libs0 + 0x1e2000 + 0x3000 + m;
    libc = libs0 + m;
  }
  if (heap_base)
    *heap_base = brk0;
  if (mmap_base)
    *mmap_base = base;
  if (libc_base)
    *libc_base = libc;
  if (libs_base)
    *libs_base = libs0;
}

void cb_engine_layout(const cb_program *p, uint64_t *heap_base,
                      uint64_t *mmap_base) {
  layout(p, heap_base, mmap_base, NULL);
}

uint64_t cb_eng_libc_base(const cb_program *p) {
  /* the frontend's reading of the libraries (p->dl) knows where libc.so
   * comes in the mapping order, also when the executable is not kept
   * (layout() then guesses libm's place from the calls) */
  uint64_t ldso, lmap, tcb, obj[CB_DL_MAX_OBJS];
  if (p->dl && cb_eng_dl_layout(p, &ldso, &lmap, &tcb, obj))
    for (uint32_t i = 1; i < p->dl->n_objs && i < CB_DL_MAX_OBJS; i++)
      if (!strncmp(p->dl->objs[i].soname, "libc.so", 7))
        return obj[i];
  uint64_t libc = 0;
  layout(p, NULL, NULL, &libc);
  return libc;
}

bool cb_engine_object_bases(const cb_program *p, uint64_t *base, uint32_t n) {
  uint64_t ldso, lmap, tcb, obj[CB_DL_MAX_OBJS];
  if (!p->dl || !cb_eng_dl_layout(p, &ldso, &lmap, &tcb, obj))
    return false;
  for (uint32_t i = 0; i < n; i++)
    base[i] = i < CB_DL_MAX_OBJS && i < p->dl->n_objs ? obj[i] : 0;
  return true;
}

/* The GOT slot that each library function's PLT stub reads (the
 * executable's R_X86_64_JUMP_SLOT relocations), 0 when unknown. */
void cb_engine_got_slots(const cb_program *p, uint64_t got[CB_LIBC_COUNT]) {
  static const char *names[CB_LIBC_COUNT] = {
#define CB_LIBFN_NAME(id, name) name,
      CB_LIBC_FUNCTIONS(CB_LIBFN_NAME)
#undef CB_LIBFN_NAME
  };
  memset(got, 0, sizeof(uint64_t) * CB_LIBC_COUNT);
  size_t len = 0;
  unsigned char *b = p->exe_path ? slurp(p->exe_path, &len) : NULL;
  if (!b && p->dl) {
    /* the executable is not kept (analyze): the frontend's PLT slots */
    for (uint32_t s = 0; s < p->dl->n_slots; s++)
      for (int f = 0; f < CB_LIBC_COUNT; f++)
        if (!strcmp(p->dl->slots[s].name,
                    cb_libc_plt_name((uint32_t)f, names[f])))
          got[f] = p->load_base + p->dl->slots[s].got;
    return;
  }
  if (!b)
    return;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len) {
    free(b);
    return;
  }
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type != SHT_RELA || sh[i].sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *sym = &sh[sh[i].sh_link];
    if (sym->sh_link >= eh->e_shnum)
      continue;
    const Elf64_Shdr *str = &sh[sym->sh_link];
    if (sh[i].sh_offset + sh[i].sh_size > len ||
        sym->sh_offset + sym->sh_size > len ||
        str->sh_offset + str->sh_size > len)
      continue;
    const Elf64_Rela *r = (const Elf64_Rela *)(b + sh[i].sh_offset);
    size_t nr = sh[i].sh_size / sizeof *r;
    const Elf64_Sym *sy = (const Elf64_Sym *)(b + sym->sh_offset);
    size_t nsy = sym->sh_size / sizeof *sy;
    for (size_t k = 0; k < nr; k++) {
      if (ELF64_R_TYPE(r[k].r_info) != R_X86_64_JUMP_SLOT)
        continue;
      size_t si = ELF64_R_SYM(r[k].r_info);
      if (si >= nsy || sy[si].st_name >= str->sh_size)
        continue;
      const char *nm = (const char *)b + str->sh_offset + sy[si].st_name;
      for (int f = 0; f < CB_LIBC_COUNT; f++)
        if (!strcmp(nm, cb_libc_plt_name((uint32_t)f, names[f])))
          got[f] = p->load_base + r[k].r_offset;
    }
  }
  free(b);
}

/* ld.so's objects under valgrind (docs/process-model.md sections 1, 3.3
 * and 7, measured with lackey): ld.so at its base; its minimal malloc's
 * first pages (the link maps, the search lists, the version arrays) at
 * the break's 8 MiB reservation's end, just below valgrind's core
 * preload; the libraries in mapping order; the static TLS block and
 * thread pointer in the page after the last library. */
bool cb_eng_dl_layout(const cb_program *p, uint64_t *ldso, uint64_t *lmap,
                      uint64_t *tcb, uint64_t obj[CB_DL_MAX_OBJS]) {
  const cb_dl_info *dl = p->dl;
  if (!dl || !dl->n_objs || !p->load_base)
    return false;
  uint64_t heap = 0, libs0 = 0;
  layout_libs(p, &heap, NULL, NULL, &libs0);
  *ldso = heap - 0x35000;
  *lmap = heap + 0x800000;
  memset(obj, 0, sizeof(uint64_t) * CB_DL_MAX_OBJS);
  obj[0] = p->load_base;
  /* the libraries in the scope's (breadth-first) order, as mapped */
  uint64_t at = libs0;
  for (uint32_t i = 1; i < dl->n_objs; i++) {
    if (i == 1 && dl->preload) {
      obj[i] = heap + 0x800000 + 0x2000;
      continue;
    }
    if (!dl->objs[i].span)
      return false;
    obj[i] = at;
    at += dl->objs[i].span;
  }
  *tcb = at;
  return true;
}
