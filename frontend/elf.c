/* elf.c: the executable's symbol table and sections (libelf): where the
 * linker put every global and function, and the image's extent. */
#include "fe_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

bool fe_elf_read(fe_elf *elf, const char *path, uint64_t load_base,
                 fe_err *err) {
  memset(elf, 0, sizeof *elf);
  elf->strings = fe_pool_new();
  if (elf_version(EV_CURRENT) == EV_NONE) {
    fe_errf(err, CB_FE_ERR_INTERNAL, "cbana: libelf is unusable\n");
    return false;
  }
  int fd = open(path, O_RDONLY);
  if (fd < 0) {
    fe_errf(err, CB_FE_ERR_INTERNAL, "cbana: %s: %s\n", path, strerror(errno));
    return false;
  }
  Elf *e = elf_begin(fd, ELF_C_READ, NULL);
  GElf_Ehdr eh;
  if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
    fe_errf(err, CB_FE_ERR_INTERNAL, "cbana: %s: not an ELF file\n", path);
    if (e)
      elf_end(e);
    close(fd);
    return false;
  }
  elf->pie = eh.e_type == ET_DYN;
  elf->base = elf->pie ? load_base : 0;
  size_t nph = 0;
  elf_getphdrnum(e, &nph);
  uint64_t end = 0;
  for (size_t i = 0; i < nph; i++) {
    GElf_Phdr ph;
    if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD &&
        ph.p_vaddr + ph.p_memsz > end)
      end = ph.p_vaddr + ph.p_memsz;
  }
  elf->image_end = elf->base + end;
  size_t shstrndx = 0;
  elf_getshdrstrndx(e, &shstrndx);
  size_t nsec = 0;
  elf_getshdrnum(e, &nsec);
  const char **secnames = calloc(nsec + 1, sizeof *secnames);
  for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh))
      continue;
    size_t idx = elf_ndxscn(s);
    const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
    secnames[idx] = fe_pool_str(elf->strings, nm ? nm : "?");
    if (sh.sh_flags & SHF_ALLOC) {
      fe_elf_section sec = {secnames[idx],
                            elf->base + sh.sh_addr,
                            sh.sh_size,
                            NULL,
                            (sh.sh_flags & SHF_WRITE) != 0,
                            (sh.sh_flags & SHF_EXECINSTR) != 0};
      if (sh.sh_type != SHT_NOBITS && !sec.exec) {
        Elf_Data *d = elf_getdata(s, NULL);
        if (d && d->d_buf && d->d_size == sh.sh_size) {
          sec.data = fe_pool_alloc(elf->strings, d->d_size);
          memcpy(sec.data, d->d_buf, d->d_size);
        }
      }
      FE_PUSH(elf->secs, sec);
    }
  }
  for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
    GElf_Shdr sh;
    if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB)
      continue;
    Elf_Data *d = elf_getdata(s, NULL);
    if (!d)
      continue;
    size_t n = sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
    const char *file = NULL;
    for (size_t i = 0; i < n; i++) {
      GElf_Sym sym;
      if (!gelf_getsym(d, (int)i, &sym))
        continue;
      const char *nm = elf_strptr(e, sh.sh_link, sym.st_name);
      int type = GELF_ST_TYPE(sym.st_info);
      if (type == STT_FILE) {
        file = nm ? fe_pool_str(elf->strings, nm) : NULL;
        continue;
      }
      if (sym.st_shndx == SHN_UNDEF && nm && *nm &&
          (type == STT_FUNC || type == STT_NOTYPE)) {
        /* .symtab names an import with its version: sendto@GLIBC_2.2.5 */
        size_t l = strcspn(nm, "@");
        FE_PUSH(elf->imports, fe_pool_strn(elf->strings, nm, l));
        continue;
      }
      if ((type != STT_OBJECT && type != STT_FUNC) || !nm || !*nm ||
          sym.st_shndx == SHN_UNDEF || sym.st_shndx >= nsec)
        continue;
      bool local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
      fe_sym fs = {fe_pool_str(elf->strings, nm),
                   local ? file : NULL,
                   elf->base + sym.st_value,
                   sym.st_size,
                   secnames[sym.st_shndx],
                   type == STT_FUNC,
                   local};
      FE_PUSH(elf->syms, fs);
    }
  }
  free(secnames);
  elf_end(e);
  close(fd);
  elf->loaded = true;
  return true;
}

void fe_elf_free(fe_elf *elf) {
  free(elf->syms.v);
  free(elf->imports.v);
  free(elf->secs.v);
  fe_pool_free(elf->strings);
  memset(elf, 0, sizeof *elf);
}

static const char *base_name(const char *p) {
  const char *s = p ? strrchr(p, '/') : NULL;
  return s ? s + 1 : p;
}

const fe_sym *fe_elf_find(const fe_elf *elf, const char *name, bool func,
                          const char *file) {
  const fe_sym *best = NULL;
  for (uint32_t i = 0; i < elf->syms.n; i++) {
    const fe_sym *s = &elf->syms.v[i];
    if (s->is_func != func || strcmp(s->name, name) != 0)
      continue;
    if (!best)
      best = s;
    if (file && s->file && strcmp(base_name(s->file), base_name(file)) == 0)
      return s;
    if (!s->is_local && !file)
      return s;
  }
  return best;
}

bool fe_elf_links(const fe_elf *elf, const char *name) {
  if (!elf->loaded)
    return false;
  for (uint32_t i = 0; i < elf->imports.n; i++)
    if (strcmp(elf->imports.v[i], name) == 0)
      return true;
  return fe_elf_find(elf, name, true, NULL) != NULL;
}

const fe_sym *fe_elf_find_linked(const fe_elf *elf, const char *name, bool func,
                                 const char *file) {
  const fe_sym *s = fe_elf_find(elf, name, func, file);
  const char *dot = strrchr(name, '.');
  if (s || !dot || dot[1] < '0' || dot[1] > '9')
    return s;
  /* LLVMLinkModules2 renames a static that clashes with another module's
   * symbol to name.N; the object file kept the C name, beside its file's
   * STT_FILE symbol */
  char buf[512];
  snprintf(buf, sizeof buf, "%.*s", (int)(dot - name), name);
  return fe_elf_find(elf, buf, func, file);
}

uint64_t fe_elf_find_bytes(const fe_elf *elf, const uint8_t *bytes, size_t n,
                           uint32_t align) {
  if (n == 0)
    return 0;
  if (align == 0)
    align = 1;
  for (uint32_t i = 0; i < elf->secs.n; i++) {
    const fe_elf_section *s = &elf->secs.v[i];
    if (!s->data || s->writable || s->exec || s->size < n)
      continue;
    if (strncmp(s->name, ".rodata", 7) != 0)
      continue;
    const uint8_t *p = s->data, *end = s->data + s->size;
    while (p + n <= end) {
      const uint8_t *hit = memmem(p, (size_t)(end - p), bytes, n);
      if (!hit)
        break;
      uint64_t addr = s->addr + (uint64_t)(hit - s->data);
      if (addr % align == 0)
        return addr;
      p = hit + 1;
    }
  }
  return 0;
}

const fe_elf_section *fe_elf_section_at(const fe_elf *elf, uint64_t addr) {
  for (uint32_t i = 0; i < elf->secs.n; i++) {
    const fe_elf_section *s = &elf->secs.v[i];
    if (addr >= s->addr && addr < s->addr + s->size)
      return s;
  }
  return NULL;
}
