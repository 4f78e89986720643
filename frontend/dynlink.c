/* dynlink.c: what ld.so reads of the ELF files when it binds a PLT
 * function lazily (glibc 2.36 elf/dl-runtime.c `_dl_fixup`,
 * elf/dl-lookup.c `_dl_lookup_symbol_x`, `do_lookup_x`, `check_match`).
 * For every R_X86_64_JUMP_SLOT of the executable it finds the relocation,
 * the symbol, its name and needed version, and walks the search scope
 * (the executable, valgrind's core preload, DT_NEEDED breadth-first, as
 * elf/dl-deps.c builds l_searchlist) through each object's GNU hash table
 * on the real files of this system: the bloom word, the bucket and chain
 * words read, and the definition's symbol, name, version index and
 * version name. Addresses are the ELF's vaddrs; the engine adds the load
 * bases. The files are read with <elf.h> only. */
#include "fe_internal.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VGPRELOAD "/usr/libexec/valgrind/vgpreload_core-amd64-linux.so"

typedef struct {
  unsigned char *b;
  size_t len;
  const Elf64_Phdr *ph;
  unsigned nph;
  uint64_t symtab, strtab, gnu_hash, versym, verdef, verneed, jmprel;
  uint64_t pltrelsz, verneednum, verdefnum, pltgot;
  bool bind_now; /* -z now: ld.so binds every slot before main */
  cb_dl_object info;
  char needed[8][48];
  int n_needed;
} dl_obj;

static unsigned char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  unsigned char *b = NULL;
  long n = -1;
  if (fseek(f, 0, SEEK_END) == 0)
    n = ftell(f);
  if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (b = malloc((size_t)n)) &&
      fread(b, 1, (size_t)n, f) != (size_t)n) {
    free(b);
    b = NULL;
  }
  fclose(f);
  *len = b ? (size_t)n : 0;
  return b;
}

/* A pointer to `size` bytes at vaddr `va`, or NULL outside the file. */
static const void *at(const dl_obj *o, uint64_t va, uint64_t size) {
  for (unsigned i = 0; i < o->nph; i++) {
    const Elf64_Phdr *p = &o->ph[i];
    if (p->p_type == PT_LOAD && va >= p->p_vaddr &&
        va + size <= p->p_vaddr + p->p_filesz) {
      uint64_t off = va - p->p_vaddr + p->p_offset;
      return off + size <= o->len ? o->b + off : NULL;
    }
  }
  return NULL;
}

static const char *str_at(const dl_obj *o, uint64_t va) {
  const char *s = at(o, va, 1);
  if (!s)
    return NULL;
  size_t room = (size_t)(o->b + o->len - (const unsigned char *)s);
  return memchr(s, 0, room) ? s : NULL;
}

/* The NT_GNU_BUILD_ID note of a PT_NOTE segment (ELF gABI notes: namesz,
 * descsz, type, then name and desc each padded to 4 bytes). */
static void read_build_id(dl_obj *o) {
  for (unsigned i = 0; i < o->nph; i++) {
    const Elf64_Phdr *p = &o->ph[i];
    if (p->p_type != PT_NOTE || p->p_offset > o->len ||
        p->p_filesz > o->len - p->p_offset)
      continue;
    const unsigned char *n = o->b + p->p_offset, *end = n + p->p_filesz;
    while (end - n >= 12) {
      uint32_t namesz, descsz, type;
      memcpy(&namesz, n, 4);
      memcpy(&descsz, n + 4, 4);
      memcpy(&type, n + 8, 4);
      size_t name_pad = ((size_t)namesz + 3) & ~(size_t)3;
      size_t desc_pad = ((size_t)descsz + 3) & ~(size_t)3;
      if (name_pad > (size_t)(end - n) - 12 ||
          desc_pad > (size_t)(end - n) - 12 - name_pad)
        break;
      if (type == NT_GNU_BUILD_ID && namesz == 4 &&
          memcmp(n + 12, "GNU", 4) == 0 && descsz <= sizeof o->info.build_id) {
        memcpy(o->info.build_id, n + 12 + name_pad, descsz);
        o->info.build_id_len = (uint8_t)descsz;
        return;
      }
      n += 12 + name_pad + desc_pad;
    }
  }
}

static bool open_obj(dl_obj *o, const char *path, const char *soname) {
  memset(o, 0, sizeof *o);
  snprintf(o->info.soname, sizeof o->info.soname, "%s", soname);
  o->b = slurp(path, &o->len);
  const Elf64_Ehdr *eh = (const Elf64_Ehdr *)o->b;
  if (!o->b || o->len < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
      eh->e_ident[EI_CLASS] != ELFCLASS64 ||
      eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > o->len)
    return false;
  o->ph = (const Elf64_Phdr *)(o->b + eh->e_phoff);
  o->nph = eh->e_phnum;
  const Elf64_Phdr *dynph = NULL;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (unsigned i = 0; i < o->nph; i++) {
    const Elf64_Phdr *p = &o->ph[i];
    if (p->p_type == PT_DYNAMIC)
      dynph = p;
    if (p->p_type == PT_LOAD) {
      lo = p->p_vaddr < lo ? p->p_vaddr : lo;
      hi = p->p_vaddr + p->p_memsz > hi ? p->p_vaddr + p->p_memsz : hi;
    }
  }
  if (hi > lo)
    o->info.span = ((hi + 0xfff) & ~0xfffull) - (lo & ~0xfffull);
  read_build_id(o);
  if (!dynph || dynph->p_offset + dynph->p_filesz > o->len)
    return false;
  const Elf64_Dyn *d = (const Elf64_Dyn *)(o->b + dynph->p_offset);
  size_t nd = dynph->p_filesz / sizeof *d;
  uint64_t needed_off[8];
  for (size_t k = 0; k < nd && d[k].d_tag != DT_NULL; k++) {
    uint64_t v = d[k].d_un.d_val;
    /* the address of the entry's value: what ld.so's D_PTR reads */
    uint64_t va = dynph->p_vaddr + k * sizeof *d + 8;
    switch (d[k].d_tag) {
    case DT_SYMTAB:
      o->symtab = v;
      o->info.dyn_symtab = va;
      break;
    case DT_STRTAB:
      o->strtab = v;
      o->info.dyn_strtab = va;
      break;
    case DT_JMPREL:
      o->jmprel = v;
      o->info.dyn_jmprel = va;
      break;
    case DT_VERSYM:
      o->versym = v;
      o->info.dyn_versym = va;
      break;
    case DT_GNU_HASH:
      o->gnu_hash = v;
      break;
    case DT_VERDEF:
      o->verdef = v;
      break;
    case DT_VERDEFNUM:
      o->verdefnum = v;
      break;
    case DT_VERNEED:
      o->verneed = v;
      break;
    case DT_VERNEEDNUM:
      o->verneednum = v;
      break;
    case DT_BIND_NOW:
      o->bind_now = true;
      break;
    case DT_FLAGS:
      o->bind_now |= (v & DF_BIND_NOW) != 0;
      break;
    case DT_FLAGS_1:
      o->bind_now |= (v & DF_1_NOW) != 0;
      break;
    case DT_PLTGOT:
      o->pltgot = v;
      break;
    case DT_PLTRELSZ:
      o->pltrelsz = v;
      break;
    case DT_NEEDED:
      if (o->n_needed < 8)
        needed_off[o->n_needed++] = v;
      break;
    default:
      break;
    }
  }
  for (int i = 0; i < o->n_needed; i++) {
    const char *s = o->strtab ? str_at(o, o->strtab + needed_off[i]) : NULL;
    snprintf(o->needed[i], sizeof o->needed[i], "%s", s ? s : "");
  }
  o->info.has_gnu_hash = o->gnu_hash && o->symtab && o->strtab;
  return o->symtab && o->strtab;
}

static bool find_lib(const char *name, char *path, size_t n) {
  static const char *dirs[] = {"/lib/x86_64-linux-gnu",
                               "/usr/lib/x86_64-linux-gnu", "/lib64",
                               "/usr/lib", "/lib"};
  for (size_t d = 0; d < sizeof dirs / sizeof *dirs; d++) {
    snprintf(path, n, "%s/%s", dirs[d], name);
    FILE *f = fopen(path, "rb");
    if (f) {
      fclose(f);
      return true;
    }
  }
  return false;
}

/* elf/dl-lookup.c dl_new_hash: h = h * 33 + c from 5381. */
static uint32_t gnu_hash(const char *s) {
  uint32_t h = 5381;
  for (; *s; s++)
    h = h * 33 + (unsigned char)*s;
  return h;
}

/* The version name an object's .gnu.version_d gives index ndx, 0: none. */
static uint64_t verdef_name(const dl_obj *o, uint16_t ndx) {
  uint64_t va = o->verdef;
  for (uint64_t i = 0; va && i < o->verdefnum; i++) {
    const Elf64_Verdef *vd = at(o, va, sizeof *vd);
    if (!vd)
      return 0;
    if (vd->vd_ndx == ndx) {
      const Elf64_Verdaux *ax = at(o, va + vd->vd_aux, sizeof *ax);
      return ax ? o->strtab + ax->vda_name : 0;
    }
    if (!vd->vd_next)
      break;
    va += vd->vd_next;
  }
  return 0;
}

/* The name of the version the executable needs at index ndx. */
static uint64_t verneed_name(const dl_obj *o, uint16_t ndx) {
  uint64_t va = o->verneed;
  for (uint64_t i = 0; va && i < o->verneednum; i++) {
    const Elf64_Verneed *vn = at(o, va, sizeof *vn);
    if (!vn)
      return 0;
    uint64_t a = va + vn->vn_aux;
    for (unsigned k = 0; k < vn->vn_cnt; k++) {
      const Elf64_Vernaux *ax = at(o, a, sizeof *ax);
      if (!ax)
        return 0;
      if ((ax->vna_other & 0x7fff) == ndx)
        return o->strtab + ax->vna_name;
      if (!ax->vna_next)
        break;
      a += ax->vna_next;
    }
    if (!vn->vn_next)
      break;
    va += vn->vn_next;
  }
  return 0;
}

/* The highest version index the object needs or defines
 * (elf/dl-version.c _dl_check_map_versions' ndx_high). */
static uint16_t ver_high(const dl_obj *o) {
  uint16_t hi = 0;
  uint64_t va = o->verneed;
  for (uint64_t i = 0; va && i < o->verneednum; i++) {
    const Elf64_Verneed *vn = at(o, va, sizeof *vn);
    if (!vn)
      break;
    uint64_t a = va + vn->vn_aux;
    for (unsigned k = 0; k < vn->vn_cnt; k++) {
      const Elf64_Vernaux *ax = at(o, a, sizeof *ax);
      if (!ax)
        break;
      if ((ax->vna_other & 0x7fff) > hi)
        hi = ax->vna_other & 0x7fff;
      a += ax->vna_next;
      if (!ax->vna_next)
        break;
    }
    if (!vn->vn_next)
      break;
    va += vn->vn_next;
  }
  va = o->verdef;
  for (uint64_t i = 0; va && i < o->verdefnum; i++) {
    const Elf64_Verdef *vd = at(o, va, sizeof *vd);
    if (!vd)
      break;
    if ((vd->vd_ndx & 0x7fff) > hi)
      hi = vd->vd_ndx & 0x7fff;
    if (!vd->vd_next)
      break;
    va += vd->vd_next;
  }
  return hi;
}

/* do_lookup_x in one object: the words read and whether it defines the
 * symbol (check_match: defined, a function or object, same name, and the
 * needed version's name when the object has versions). */
static void probe(const dl_obj *o, const char *name, uint32_t h,
                  const char *vername, cb_dl_probe *pr) {
  memset(pr, 0, sizeof *pr);
  if (!o->info.has_gnu_hash)
    return;
  const uint32_t *hd = at(o, o->gnu_hash, 16);
  if (!hd || !hd[0] || !hd[2] || (hd[2] & (hd[2] - 1)) || hd[3] >= 32)
    return; /* no table, or not one ld.so would accept */
  uint32_t nbuckets = hd[0], symbias = hd[1], nwords = hd[2], shift = hd[3];
  uint64_t bloom = o->gnu_hash + 16 + 8ull * ((h / 64) & (nwords - 1));
  const uint64_t *bw = at(o, bloom, 8);
  if (!bw)
    return;
  pr->bloom = bloom;
  if (!((*bw >> (h & 63)) & (*bw >> ((h >> shift) & 63)) & 1))
    return;
  uint64_t buckets = o->gnu_hash + 16 + 8ull * nwords;
  pr->bucket = buckets + 4ull * (h % nbuckets);
  const uint32_t *bk = at(o, pr->bucket, 4);
  if (!bk || !*bk || *bk < symbias)
    return;
  uint64_t chain0 = buckets + 4ull * nbuckets;
  uint32_t idx = *bk;
  pr->chain = chain0 + 4ull * (idx - symbias);
  for (;; idx++) {
    const uint32_t *cw = at(o, chain0 + 4ull * (idx - symbias), 4);
    if (!cw)
      return;
    pr->n_chain++;
    if (((*cw ^ h) >> 1) == 0) {
      const Elf64_Sym *s = at(o, o->symtab + 24ull * idx, sizeof *s);
      const char *sn = s ? str_at(o, o->strtab + s->st_name) : NULL;
      unsigned t = s ? ELF64_ST_TYPE(s->st_info) : 0;
      if (sn && !strcmp(sn, name) && s->st_shndx != SHN_UNDEF && s->st_value &&
          (t == STT_FUNC || t == STT_OBJECT || t == STT_GNU_IFUNC ||
           t == STT_NOTYPE)) {
        uint16_t ndx = 0;
        const uint16_t *vs =
            o->versym ? at(o, o->versym + 2ull * idx, 2) : NULL;
        if (vs)
          ndx = *vs & 0x7fff;
        uint64_t vn = vs ? verdef_name(o, ndx) : 0;
        const char *vs_name = vn ? str_at(o, vn) : NULL;
        /* a versioned reference takes only its version (or, without
         * versions in the object, any definition) */
        if (!vername || !vs || (vs_name && !strcmp(vs_name, vername))) {
          pr->found = true;
          pr->ifunc = t == STT_GNU_IFUNC;
          pr->weak = ELF64_ST_BIND(s->st_info) == STB_WEAK;
          pr->sym = o->symtab + 24ull * idx;
          pr->name = o->strtab + s->st_name;
          pr->versym = vs ? o->versym + 2ull * idx : 0;
          pr->vername = vn;
          pr->ver_ndx = ndx;
          return;
        }
      }
    }
    if (*cw & 1)
      return;
  }
}

cb_dl_info *fe_dynlink(const char *exe_path, fe_dl_data *data,
                       uint32_t n_data) {
  dl_obj *objs = calloc(CB_DL_MAX_OBJS, sizeof *objs);
  cb_dl_info *dl = NULL;
  int n = 0;
  if (!objs || !open_obj(&objs[n++], exe_path, "") || !objs[0].jmprel ||
      !objs[0].pltgot || objs[0].bind_now)
    goto done;
  bool preload = open_obj(&objs[n], VGPRELOAD, "vgpreload_core");
  if (preload)
    n++;
  else {
    free(objs[n].b);
    objs[n].b = NULL;
  }
  /* breadth-first over DT_NEEDED (elf/dl-deps.c), ld.so itself last */
  for (int q = 0; q < n; q++) {
    for (int k = 0; k < objs[q].n_needed && n < CB_DL_MAX_OBJS; k++) {
      const char *nm = objs[q].needed[k];
      bool seen = false;
      for (int j = 1; j < n; j++)
        seen |= !strcmp(objs[j].info.soname, nm);
      char path[512];
      if (seen || strstr(nm, "ld-linux"))
        continue;
      if (!find_lib(nm, path, sizeof path) || !open_obj(&objs[n], path, nm)) {
        n++; /* freed below */
        goto done;
      }
      n++;
    }
  }
  const dl_obj *x = &objs[0];
  uint32_t nrel = (uint32_t)(x->pltrelsz / sizeof(Elf64_Rela));
  dl = calloc(1, sizeof *dl + nrel * sizeof(cb_plt_slot));
  if (!dl)
    goto done;
  dl->slots = (cb_plt_slot *)(dl + 1);
  dl->n_objs = (uint32_t)n;
  dl->preload = preload;
  dl->pltgot = x->pltgot;
  dl->ver_high = ver_high(x);
  for (int i = 0; i < n; i++)
    dl->objs[i] = objs[i].info;
  for (uint32_t k = 0; k < nrel; k++) {
    uint64_t rva = x->jmprel + k * sizeof(Elf64_Rela);
    const Elf64_Rela *r = at(x, rva, sizeof *r);
    if (!r || ELF64_R_TYPE(r->r_info) != R_X86_64_JUMP_SLOT)
      continue;
    uint32_t si = (uint32_t)ELF64_R_SYM(r->r_info);
    const Elf64_Sym *s = at(x, x->symtab + 24ull * si, sizeof *s);
    const char *nm = s ? str_at(x, x->strtab + s->st_name) : NULL;
    if (!nm || strlen(nm) >= sizeof dl->slots[0].name)
      continue;
    cb_plt_slot *sl = &dl->slots[dl->n_slots++];
    snprintf(sl->name, sizeof sl->name, "%s", nm);
    sl->got = r->r_offset;
    sl->rela = rva;
    sl->sym = x->symtab + 24ull * si;
    sl->str = x->strtab + s->st_name;
    sl->len = (uint32_t)strlen(nm);
    sl->hash = gnu_hash(nm);
    const uint16_t *vs = x->versym ? at(x, x->versym + 2ull * si, 2) : NULL;
    const char *vername = NULL;
    if (vs) {
      sl->versym = x->versym + 2ull * si;
      sl->ver_ndx = *vs & 0x7fff;
      sl->vername = sl->ver_ndx > 1 ? verneed_name(x, sl->ver_ndx) : 0;
      vername = sl->vername ? str_at(x, sl->vername) : NULL;
      sl->vername_len = vername ? (uint32_t)strlen(vername) : 0;
    }
    for (int i = 0; i < n; i++) {
      probe(&objs[i], nm, sl->hash, vername, &sl->probes[sl->n_probes++]);
      if (sl->probes[sl->n_probes - 1].found)
        break;
    }
  }
  /* the variables: the first definition (an object) in the scope past
   * the executable, as ld.so binds a GLOB_DAT relocation */
  for (uint32_t k = 0; k < n_data; k++) {
    data[k].obj = 0;
    for (int i = 1; i < n && !data[k].obj; i++) {
      cb_dl_probe pr;
      probe(&objs[i], data[k].name, gnu_hash(data[k].name), NULL, &pr);
      const Elf64_Sym *s = pr.found ? at(&objs[i], pr.sym, sizeof *s) : NULL;
      if (s && ELF64_ST_TYPE(s->st_info) == STT_OBJECT) {
        data[k].obj = (uint32_t)i;
        data[k].value = s->st_value;
      }
    }
  }
done:
  for (int i = 0; i < CB_DL_MAX_OBJS && objs; i++)
    free(objs[i].b);
  free(objs);
  return dl;
}
