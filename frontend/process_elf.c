/* process_elf.c: what the process probes need of an executable's ELF
 * (process_probe.c): its allocated sections, its dynamic relocations with
 * their symbols, the imported symbols and main's address. Plain <elf.h>
 * over the file's bytes: this side of the frontend links no libelf. */
#include "process_probe.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char *buf = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 1 << 16;
      unsigned char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return NULL;
      }
      buf = nb;
    }
    size_t k = fread(buf + n, 1, cap - n, f);
    if (k == 0)
      break;
    n += k;
  }
  fclose(f);
  *len = n;
  return buf;
}

static bool in_file(size_t len, uint64_t off, uint64_t size) {
  return off <= len && size <= len - off;
}

void fe_pelf_free(fe_pelf *e) {
  if (!e)
    return;
  free(e->secs);
  free(e->syms);
  free(e->relocs);
  free(e->strtab);
  memset(e, 0, sizeof *e);
}

static const char *sym_name(const fe_pelf *e, uint32_t i) {
  return i < e->n_syms ? e->syms[i].name : "";
}

const char *fe_pelf_reloc_sym(const fe_pelf *e, const fe_pelf_reloc *r) {
  return sym_name(e, r->sym);
}

bool fe_pelf_read(const char *path, fe_pelf *e) {
  memset(e, 0, sizeof *e);
  size_t len = 0;
  unsigned char *b = slurp(path, &len);
  if (!b)
    return false;
  bool ok = false;
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)b;
  if (len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_shentsize != sizeof(Elf64_Shdr) ||
      !in_file(len, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) ||
      eh->e_shstrndx >= eh->e_shnum)
    goto out;
  e->pie = eh->e_type == ET_DYN;
  const Elf64_Shdr *sh = (const Elf64_Shdr *)(b + eh->e_shoff);
  const Elf64_Shdr *shs = &sh[eh->e_shstrndx];
  if (!in_file(len, shs->sh_offset, shs->sh_size))
    goto out;
  /* one copy of every string the caller keeps: section and symbol names */
  size_t strcap = shs->sh_size + 1;
  const Elf64_Shdr *dynsym = NULL, *symtab = NULL;
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (sh[i].sh_type == SHT_DYNSYM)
      dynsym = &sh[i];
    else if (sh[i].sh_type == SHT_SYMTAB)
      symtab = &sh[i];
  }
  const Elf64_Shdr *dynstr =
      dynsym && dynsym->sh_link < eh->e_shnum ? &sh[dynsym->sh_link] : NULL;
  if (dynstr && in_file(len, dynstr->sh_offset, dynstr->sh_size))
    strcap += dynstr->sh_size + 1;
  e->strtab = malloc(strcap);
  e->secs = calloc(eh->e_shnum, sizeof *e->secs);
  if (!e->strtab || !e->secs)
    goto out;
  memcpy(e->strtab, b + shs->sh_offset, shs->sh_size);
  e->strtab[shs->sh_size] = 0;
  char *dstr = NULL;
  if (dynstr && in_file(len, dynstr->sh_offset, dynstr->sh_size)) {
    dstr = e->strtab + shs->sh_size + 1;
    memcpy(dstr, b + dynstr->sh_offset, dynstr->sh_size);
    dstr[dynstr->sh_size] = 0;
  }
  for (unsigned i = 0; i < eh->e_shnum; i++) {
    if (!(sh[i].sh_flags & SHF_ALLOC) || !sh[i].sh_addr)
      continue;
    if (sh[i].sh_name >= shs->sh_size)
      goto out;
    fe_pelf_sec *s = &e->secs[e->n_secs++];
    s->name = e->strtab + sh[i].sh_name;
    s->addr = sh[i].sh_addr;
    s->size = sh[i].sh_size;
    if (s->addr + s->size > e->end)
      e->end = s->addr + s->size;
  }
  /* the imported and defined dynamic symbols */
  if (dynsym && dstr && in_file(len, dynsym->sh_offset, dynsym->sh_size)) {
    size_t n = dynsym->sh_size / sizeof(Elf64_Sym);
    const Elf64_Sym *ds = (const Elf64_Sym *)(b + dynsym->sh_offset);
    e->syms = calloc(n ? n : 1, sizeof *e->syms);
    if (!e->syms)
      goto out;
    for (size_t i = 0; i < n; i++) {
      fe_pelf_sym *s = &e->syms[i];
      s->name = ds[i].st_name < dynstr->sh_size ? dstr + ds[i].st_name : "";
      s->value = ds[i].st_value;
      s->size = ds[i].st_size;
      s->undefined = ds[i].st_shndx == SHN_UNDEF && i > 0;
      s->func = ELF64_ST_TYPE(ds[i].st_info) == STT_FUNC;
      s->weak = ELF64_ST_BIND(ds[i].st_info) == STB_WEAK;
    }
    e->n_syms = (uint32_t)n;
  }
  /* main's address, from the static symbol table */
  if (symtab && symtab->sh_link < eh->e_shnum &&
      in_file(len, symtab->sh_offset, symtab->sh_size)) {
    const Elf64_Shdr *st = &sh[symtab->sh_link];
    const Elf64_Sym *ss = (const Elf64_Sym *)(b + symtab->sh_offset);
    size_t n = symtab->sh_size / sizeof(Elf64_Sym);
    for (size_t i = 0; i < n && in_file(len, st->sh_offset, st->sh_size); i++)
      if (ss[i].st_name < st->sh_size &&
          ELF64_ST_TYPE(ss[i].st_info) == STT_FUNC &&
          strcmp((const char *)b + st->sh_offset + ss[i].st_name, "main") == 0)
        e->main = ss[i].st_value;
  }
  /* the dynamic relocations, .rela.dyn then .rela.plt (ld.so's order) */
  size_t nrel = 0;
  for (unsigned i = 0; i < eh->e_shnum; i++)
    if (sh[i].sh_type == SHT_RELA && (sh[i].sh_flags & SHF_ALLOC))
      nrel += sh[i].sh_size / sizeof(Elf64_Rela);
  e->relocs = calloc(nrel ? nrel : 1, sizeof *e->relocs);
  if (!e->relocs)
    goto out;
  for (int plt = 0; plt < 2; plt++)
    for (unsigned i = 0; i < eh->e_shnum; i++) {
      if (sh[i].sh_type != SHT_RELA || !(sh[i].sh_flags & SHF_ALLOC) ||
          !in_file(len, sh[i].sh_offset, sh[i].sh_size))
        continue;
      bool is_plt = strcmp(e->strtab + sh[i].sh_name, ".rela.plt") == 0;
      if (is_plt != (plt == 1))
        continue;
      const Elf64_Rela *r = (const Elf64_Rela *)(b + sh[i].sh_offset);
      for (size_t k = 0; k < sh[i].sh_size / sizeof *r; k++) {
        fe_pelf_reloc *x = &e->relocs[e->n_relocs++];
        x->offset = r[k].r_offset;
        x->type = (uint32_t)ELF64_R_TYPE(r[k].r_info);
        x->sym = (uint32_t)ELF64_R_SYM(r[k].r_info);
      }
    }
  ok = true;
out:
  free(b);
  if (!ok)
    fe_pelf_free(e);
  return ok;
}

uint32_t fe_pelf_count(const fe_pelf *e, uint32_t type) {
  uint32_t n = 0;
  for (uint32_t i = 0; i < e->n_relocs; i++)
    n += e->relocs[i].type == type;
  return n;
}

const fe_pelf_sec *fe_pelf_section(const fe_pelf *e, const char *name) {
  for (uint32_t i = 0; i < e->n_secs; i++)
    if (strcmp(e->secs[i].name, name) == 0)
      return &e->secs[i];
  return NULL;
}
