/* libc_dlfixup.c: ld.so's lazy binding, replayed on the first call of
 * each PLT function: the PLT's push of the relocation index and jump to
 * PLT0, `_dl_runtime_resolve_xsave` (sysdeps/x86_64/dl-trampoline.h:
 * register saves and the xsave area on a 64-byte aligned stack),
 * `_dl_fixup` (elf/dl-runtime.c: the relocation, the symbol, its version,
 * the GOT write), `_dl_lookup_symbol_x` (elf/dl-lookup.c: the name's
 * dl_new_hash byte by byte, _dl_num_relocations) and `do_lookup_x` over
 * the executable's search scope (each link map's fields, the object's
 * .dynamic entries, its GNU hash table's bloom word, bucket and chain),
 * `check_match` with its two strcmp calls (name, version). All of it is
 * library traffic of the calling site.
 *
 * Exact: the order and sizes of the accesses and the stack offsets (taken
 * from lackey traces, `valgrind --tool=lackey --trace-mem=yes`, of the
 * PolyBench kernels' and tests/unit/engine/progs/dl_bind.c's first calls;
 * Debian 12's ld.so, valgrind 3.19's emulated CPU), ld.so's strcmp (from
 * its disassembly), memset's IFUNC resolver, and every address the
 * frontend reads from the ELF files (cb_dl_info: relocation, symbols,
 * names, versions, hash tables, .dynamic entries, GOT); engine_dlfixup
 * checks them access by access against lackey. Measured constants (the
 * same in every trace with the scope [executable, vgpreload_core,
 * libm.so.6, libc.so.6] that cbana's executables have): the offsets of
 * ld.so's variables and of the link maps in its malloc'd pages, the
 * version arrays' places. Approximated: a chain entry whose hash matches
 * but check_match rejects (memcpy@GLIBC_2.2.5 before memcpy@@GLIBC_2.14)
 * is walked without check_match's accesses; other IFUNC resolvers are
 * replayed as memset's; the link maps of other scopes take the same
 * offsets by scope position, a libm definition libc's version array. */
#include <string.h>

#include "libc_internal.h"

/* ld.so's data (offsets from its base; Debian 12's ld-linux-x86-64.so.2) */
#define LD_XSAVE_SIZE 0x32c70ull     /* GLRO(dl_x86_cpu_features).xsave_size */
#define LD_DEBUG_MASK 0x32ac0ull     /* GLRO(dl_debug_mask) (1 B read) */
#define LD_BIND_NOT 0x32b10ull       /* GLRO(dl_bind_not) */
#define LD_CPU_FEATURE_A 0x32c64ull  /* words of cpu_features an IFUNC */
#define LD_CPU_FEATURE_B 0x32b78ull  /* resolver tests */
#define LIBC_GOT_RTLD_RO 0x1d2e98ull /* libc's GOT slot of _rtld_global_ro */
#define LD_DYNAMIC_WEAK 0x32b14ull   /* GLRO(dl_dynamic_weak) */
#define LD_STRCMP_TABLE 0x282b8ull   /* strcmp's LABEL(unaligned_table) */
#define LD_NUM_RELOC 0x33ab8ull      /* GL(dl_num_relocations), incremented */
#define LD_MAIN_MAP 0x342e0ull       /* the executable's link map */
/* the main map's fields _dl_fixup reads beyond do_lookup_x's */
#define LD_MAIN_JMPREL (LD_MAIN_MAP + 0xf8)  /* l_info[DT_JMPREL] */
#define LD_MAIN_VERSYM (LD_MAIN_MAP + 0x1e8) /* l_info[VERSYMIDX] */
#define LD_MAIN_VERSIONS (LD_MAIN_MAP + 0x300)
#define LD_MAIN_SCOPE (LD_MAIN_MAP + 0x3b0) /* l_scope */
#define LD_MAIN_RELOC (LD_MAIN_MAP + 0x358) /* l_reloc_result */
#define LD_MAIN_NLIST (LD_MAIN_MAP + 0x2e0) /* l_searchlist.r_nlist */
#define LD_MAIN_RLIST (LD_MAIN_MAP + 0x2d8) /* l_searchlist.r_list */
#define LD_MAIN_FLAGS (LD_MAIN_MAP + 0x388)

/* link_map fields (glibc 2.36 include/link.h, x86-64) */
#define LM_ADDR 0x0
#define LM_REAL 0x28
#define LM_STRTAB 0x68 /* l_info[DT_STRTAB] */
#define LM_SYMTAB 0x70 /* l_info[DT_SYMTAB] */
#define LM_VERSIONS 0x300
#define LM_NBUCKETS 0x30c
#define LM_GNU_SHIFT 0x310
#define LM_GNU_IDXBITS 0x314
#define LM_GNU_BITMASK 0x318
#define LM_GNU_BUCKETS 0x320
#define LM_GNU_CHAIN 0x328
#define LM_TYPE 0x334    /* l_type and flags (1 B) */
#define LM_REMOVED 0x336 /* bitfield byte holding l_removed */
#define LM_VERSYMS 0x360
#define LM_USED 0x404

/* ld.so's malloc'd pages (offsets from their start): the link maps of the
 * scope's objects after the executable, the scope's r_list, the version
 * arrays (struct r_found_version, 24 B) of the executable and libc */
static const uint64_t lm_map[] = {0, 0x560, 0xa80};
#define LM_RLIST 0x1040
#define LM_EXE_VERSIONS 0x1070
/* libc's array follows the executable's (16-byte aligned, 24 bytes per
 * index up to ver_high) and vgpreload's and libm's (0x200 bytes) */
#define LM_LIB_VERSIONS(hi)                                                    \
  (LM_EXE_VERSIONS + ((24 * ((uint64_t)(hi) + 1) + 15) & ~15ull) + 0x200)
#define TCB_SINGLE 0x758 /* read before and after the lookup */
#define XSAVE 0x380      /* valgrind's xsave_state_size (rax..r9 below) */

static inline void acc(cb_proc *pr, uint64_t a, uint32_t n, bool w) {
  cb_proc_emit(pr, a, n, pr->cur_site, w);
  if (w)
    pr->out->lib_writes++;
  else
    pr->out->lib_reads++;
}
#define R(a, n) acc(pr, a, n, false)
#define W(a, n) acc(pr, a, n, true)

void cb_dl_setup(cb_proc *pr, const cb_program *p) {
  static const char *names[CB_LIBC_COUNT] = {
#define CB_LIBFN_NAME(id, name) name,
      CB_LIBC_FUNCTIONS(CB_LIBFN_NAME)
#undef CB_LIBFN_NAME
  };
  pr->dl = NULL;
  pr->dl_bound = 0;

  for (int f = 0; f < CB_LIBC_COUNT; f++)
    pr->dl_slot[f] = -1;
  if (!p->dl ||
      !cb_eng_dl_layout(p, &pr->dl_ldso, &pr->dl_lmap, &pr->dl_tcb, pr->dl_obj))
    return;
  const cb_dl_info *dl = p->dl;
  for (uint32_t s = 0; s < dl->n_slots && s < 64; s++)
    for (int f = 0; f < CB_LIBC_COUNT; f++)
      if (!strcmp(dl->slots[s].name, cb_libc_plt_name((uint32_t)f, names[f])) &&
          dl->slots[s].n_probes &&
          dl->slots[s].probes[dl->slots[s].n_probes - 1].found)
        pr->dl_slot[f] = (int16_t)s;
  pr->dl = dl;
}

static uint64_t map_of(const cb_proc *pr, uint32_t i) {
  if (i == 0)
    return pr->dl_ldso + LD_MAIN_MAP;
  uint32_t k = i - 1;
  if (k < 3)
    return pr->dl_lmap + lm_map[k];
  return pr->dl_lmap + lm_map[2] + 0x520 * (uint64_t)(k - 2);
}

/* ld.so's strcmp (sysdeps/x86_64/strcmp.S, disassembled in Debian 12's
 * ld.so) of the definition's string s1 (%rdi) with the reference's s2
 * (%rsi), equal over len bytes and the NUL. When neither 16-byte load
 * can cross a cache line (offset in the line <= 0x30) it first compares
 * 8 + 8 bytes of each (movlpd/movhpd), and goes on 16 bytes further
 * when the NUL is not among them. LABEL(crosscache) aligns both down to
 * 16: with equal offsets it loads s2's chunk, then s1's, then pairs
 * 16 bytes on; with different ones the string with the smaller offset
 * becomes %rdi, it reads its jump table at index 15 - (the offsets'
 * difference), loads %rdi's, %rsi's and %rdi's chunk, then pairs
 * (%rsi's first) 16 bytes on until the NUL's chunk. The tail compares the
 * bytes at the NUL. Measured against lackey for names of 4 to 14 bytes
 * and "GLIBC_2.2.5"; the loop counts of longer strings follow the code. */
static void cmp_strings(cb_proc *pr, uint64_t s1, uint64_t s2, uint32_t len) {
  uint64_t p1 = s1, p2 = s2;
  uint32_t left = len; /* bytes before the NUL from p1/p2 */
  if ((s1 & 63) <= 0x30 && (s2 & 63) <= 0x30) {
    R(p1, 8);
    R(p2, 8);
    R(p1 + 8, 8);
    R(p2 + 8, 8);
    if (left < 16) {
      R(s2 + len, 1);
      R(s1 + len, 1);
      return;
    }
    p1 += 16;
    p2 += 16;
    left -= 16;
  }
  uint64_t a1 = p1 & ~15ull, a2 = p2 & ~15ull;
  uint64_t o1 = p1 & 15, o2 = p2 & 15;
  if (o1 == o2) {
    R(a2, 16);
    R(a1, 16);
    for (uint64_t k = 16; k <= o1 + left; k += 16) {
      R(a2 + k, 16);
      R(a1 + k, 16);
    }
  } else {
    bool swap = o2 < o1;
    uint64_t D = swap ? a2 : a1, S = swap ? a1 : a2;
    uint64_t big = swap ? o1 : o2, small = swap ? o2 : o1;
    R(pr->dl_ldso + LD_STRCMP_TABLE + 4 * (15 - (big - small)), 4);
    R(D, 16);
    R(S, 16);
    R(D, 16);
    for (uint64_t k = 16; k <= big + left; k += 16) {
      R(S + k, 16);
      R(D + k, 16);
    }
  }
  R(s2 + len, 1);
  R(s1 + len, 1);
}

/* do_lookup_x's visit of one object of the scope (elf/dl-lookup.c) */
static void visit(cb_proc *pr, uint64_t A, const cb_plt_slot *sl, uint32_t i) {
  const cb_dl_probe *pb = &sl->probes[i];
  const cb_dl_object *ob = &pr->dl->objs[i];
  uint64_t o = pr->dl_obj[i], M = map_of(pr, i), L = pr->dl_ldso;
  R(pr->dl_lmap + LM_RLIST + 8 * (uint64_t)i, 8);
  R(M + LM_REAL, 8);
  R(M + LM_REMOVED, 1);
  R(L + LD_DEBUG_MASK, 1);
  R(M + LM_NBUCKETS, 4);
  R(M + LM_SYMTAB, 8);
  W(A - 0x50c, 4);
  W(A - 0x508, 8);
  R(o + ob->dyn_symtab, 8);
  R(M + LM_REMOVED, 1);
  R(M + LM_STRTAB, 8);
  R(o + ob->dyn_strtab, 8);
  if (!pb->bloom)
    return;
  R(M + LM_GNU_BITMASK, 8);
  R(M + LM_GNU_IDXBITS, 4);
  R(M + LM_GNU_SHIFT, 4);
  R(o + pb->bloom, 8);
  if (!pb->bucket)
    return;
  R(M + LM_GNU_BUCKETS, 8);
  R(o + pb->bucket, 4);
  if (!pb->chain)
    return;
  R(M + LM_GNU_CHAIN, 8);
  W(A - 0x550, 8);
  W(A - 0x4c0, 8);
  W(A - 0x558, 4);
  W(A - 0x4a8, 8);
  W(A - 0x548, 8);
  W(A - 0x540, 4);
  for (uint32_t k = 0; k < pb->n_chain; k++)
    R(o + pb->chain + 4 * (uint64_t)k, 4);
  if (!pb->found)
    return;
  R(M + LM_GNU_CHAIN, 8);
  /* check_match (arguments spilled, then its frame) */
  for (uint64_t k = 0x590; k <= 0x5b0; k += 8)
    W(A - k, 8);
  R(A - 0x4a0, 4);
  R(A - 0x4b0, 4);
  R(A - 0x4b8, 8);
  R(A - 0x570, 8);
  R(A - 0x578, 8);
  W(A - 0x5b8, 8);
  W(A - 0x5c0, 8);
  R(o + pb->sym + 6, 2); /* st_shndx */
  W(A - 0x5c8, 8);
  W(A - 0x5d0, 8);
  W(A - 0x5d8, 8);
  R(o + pb->sym + 4, 1); /* st_info */
  W(A - 0x5e0, 8);
  R(A - 0x5a0, 8);
  R(o + pb->sym + 8, 8); /* st_value */
  R(o + pb->sym, 4);     /* st_name */
  R(A - 0x5a8, 8);
  W(A - 0x5e8, 8);
  cmp_strings(pr, o + pb->name, pr->dl_obj[0] + sl->str, sl->len);
  R(A - 0x5e8, 8);
  if (pb->versym && sl->vername) {
    uint64_t xv = pr->dl_lmap + LM_EXE_VERSIONS + 24 * (uint64_t)sl->ver_ndx;
    uint64_t lv = pr->dl_lmap + LM_LIB_VERSIONS(pr->dl->ver_high) +
                  24 * (uint64_t)pb->ver_ndx;
    R(M + LM_VERSYMS, 8);
    R(A - 0x5b0, 4);
    R(o + pb->versym, 2);
    R(M + LM_VERSIONS, 8);
    R(lv + 8, 4); /* hash */
    R(xv + 8, 4);
    R(xv, 8); /* name */
    R(lv, 8);
    W(A - 0x5e8, 8);
    if (pb->vername)
      cmp_strings(pr, o + pb->vername, pr->dl_obj[0] + sl->vername,
                  sl->vername_len);
    R(A - 0x5e8, 8);
  }
  for (uint64_t k = 0x5e0; k >= 0x5b8; k -= 8)
    R(A - k, 8);
  /* found_it */
  R(A - 0x558, 4);
  R(A - 0x550, 8);
  R(A - 0x4c0, 8);
  R(A - 0x4a8, 8);
  R(A - 0x548, 8);
  R(A - 0x540, 4);
  R(o + pb->sym + 5, 1);
  R(A - 0x498, 8);
  R(o + pb->sym + 4, 1);
  if (pb->weak)
    R(L + LD_DYNAMIC_WEAK, 4);
  R(A - 0x568, 8);
  W(A - 0x440, 8);
  W(A - 0x438, 8);
}

/* xsave's stores (and xrstor's loads) as valgrind performs them: the
 * header, MXCSR, XMM0-15 (16 B each), the YMM upper halves */
static void xsave_area(cb_proc *pr, uint64_t A, bool w) {
  for (uint64_t k = 0x140; k >= (w ? 0x108 : 0x130); k -= 8)
    acc(pr, A - k, 8, w);
  acc(pr, A - 0x328, 8, w);
  for (uint64_t k = 0x2a0; k >= 0x1b0; k -= 16)
    acc(pr, A - k, 16, w);
  for (uint64_t k = 0x100; k >= 0x10; k -= 16)
    acc(pr, A - k, 16, w);
}

void cb_dl_first_call(cb_proc *pr, uint32_t libc_fn, uint64_t C) {
  if (!pr->dl || libc_fn >= CB_LIBC_COUNT || pr->dl_slot[libc_fn] < 0)
    return;
  uint32_t s = (uint32_t)pr->dl_slot[libc_fn];
  if (pr->dl_bound & (1ull << s))
    return;

  pr->dl_bound |= 1ull << s;
  const cb_plt_slot *sl = &pr->dl->slots[s];
  const cb_dl_object *X = &pr->dl->objs[0];
  uint64_t x = pr->dl_obj[0], L = pr->dl_ldso;
  uint64_t gotplt = pr->dl->pltgot;
  /* the PLT entry pushes the relocation index; PLT0 pushes GOT[1] (the
   * link map) and jumps to GOT[2] */
  W(C - 0x10, 8);
  R(x + gotplt + 8, 8);
  W(C - 0x18, 8);
  R(x + gotplt + 16, 8);
  /* _dl_runtime_resolve_xsave: push %rbx, align to 64, save rax..r9 */
  uint64_t A = (C - 0x20) & ~63ull;
  W(C - 0x20, 8);
  R(L + LD_XSAVE_SIZE, 8);
  for (uint64_t k = XSAVE; k >= 0x350; k -= 8)
    W(A - k, 8);
  xsave_area(pr, A, true);
  R(A - 0x140, 1); /* xstate_bv's update (a read-modify-write) */
  R(C - 0x10, 8);
  R(C - 0x18, 8);
  W(A - 0x388, 8); /* call _dl_fixup */
  /* _dl_fixup */
  for (uint64_t k = 0x390; k <= 0x3a8; k += 8)
    W(A - k, 8);
  R(L + LD_MAIN_MAP + LM_SYMTAB, 8);
  R(L + LD_MAIN_MAP, 8);
  R(x + X->dyn_symtab, 8);
  R(L + LD_MAIN_MAP + LM_REMOVED, 1);
  R(L + LD_MAIN_MAP + LM_STRTAB, 8);
  R(x + X->dyn_strtab, 8);
  R(L + LD_MAIN_JMPREL, 8);
  R(x + X->dyn_jmprel, 8);
  R(x + sl->rela + 8, 8);
  R(x + sl->rela, 8);
  W(A - 0x3c0, 8);
  R(x + sl->sym + 5, 1);
  R(L + LD_MAIN_VERSYM, 8);
  R(x + X->dyn_versym, 8);
  if (sl->versym)
    R(x + sl->versym, 2);
  R(L + LD_MAIN_VERSIONS, 8);
  R(pr->dl_lmap + LM_EXE_VERSIONS + 24 * (uint64_t)sl->ver_ndx + 8, 4);
  R(pr->dl_tcb + TCB_SINGLE, 4);
  R(L + LD_MAIN_SCOPE, 8);
  R(x + sl->sym, 4);
  W(A - 0x3c8, 8);
  W(A - 0x3d0, 8);
  W(A - 0x3d8, 8);
  /* _dl_lookup_symbol_x */
  for (uint64_t k = 0x3e0; k <= 0x408; k += 8)
    W(A - k, 8);
  W(A - 0x480, 8);
  W(A - 0x458, 4);
  for (uint32_t k = 0; k <= sl->len; k++)
    R(x + sl->str + k, 1);
  R(L + LD_NUM_RELOC, 8);
  W(A - 0x448, 8);
  W(A - 0x440, 16);
  R(A - 0x3d0, 1);
  R(A - 0x3c8, 8);
  R(A - 0x480, 8);
  R(L + LD_MAIN_FLAGS, 8);
  R(A - 0x480, 8);
  W(A - 0x488, 8);
  W(A - 0x490, 8);
  W(A - 0x478, 8);
  R(A - 0x3c0, 8);
  W(A - 0x498, 8);
  R(A - 0x458, 4);
  W(A - 0x4a0, 8);
  R(A - 0x3c8, 8);
  W(A - 0x4a8, 8);
  R(A - 0x3d0, 4);
  W(A - 0x4b0, 8);
  W(A - 0x4b8, 8);
  W(A - 0x4c0, 8);
  R(A - 0x488, 8);
  R(A - 0x490, 8);
  W(A - 0x4c8, 8); /* call do_lookup_x */
  /* do_lookup_x */
  for (uint64_t k = 0x4d0; k <= 0x4f8; k += 8)
    W(A - k, 8);
  R(L + LD_MAIN_NLIST, 4);
  W(A - 0x568, 8);
  R(A - 0x4c0, 8);
  W(A - 0x578, 8);
  R(A - 0x4a8, 8);
  W(A - 0x560, 8);
  W(A - 0x570, 8);
  R(L + LD_MAIN_RLIST, 8);
  R(A - 0x4a0, 4);
  for (uint32_t i = 0; i < sl->n_probes; i++)
    visit(pr, A, sl, i);
  uint32_t def = sl->n_probes - 1;
  uint64_t M = map_of(pr, def), o = pr->dl_obj[def];
  const cb_dl_probe *pb = &sl->probes[def];
  for (uint64_t k = 0x4f8; k >= 0x4d0; k -= 8)
    R(A - k, 8);
  R(A - 0x4c8, 8);
  /* back in _dl_lookup_symbol_x */
  R(A - 0x3c0, 8);
  R(A - 0x440, 8);
  R(A - 0x478, 8);
  R(x + sl->sym + 5, 1);
  R(A - 0x438, 8);
  R(M + LM_TYPE, 1);
  R(A - 0x440, 8);
  R(M + LM_USED, 4);
  R(L + LD_DEBUG_MASK, 1);
  W(A - 0x3c0, 8);
  for (uint64_t k = 0x408; k >= 0x3e0; k -= 8)
    R(A - k, 8);
  R(A - 0x3d8, 8);
  /* back in _dl_fixup: the value, then the GOT write */
  R(pr->dl_tcb + TCB_SINGLE, 4);
  R(A - 0x3d0, 8);
  R(A - 0x3c8, 8);
  R(A - 0x3c0, 8);
  R(o + pb->sym + 6, 2);
  R(M + LM_ADDR, 8);
  R(o + pb->sym + 8, 8);
  W(A - 0x3b8, 8);
  R(o + pb->sym + 4, 1);
  if (pb->ifunc && !strncmp(pr->dl->objs[def].soname, "libc.so", 7)) {
    /* elf_ifunc_invoke: the resolver reads GLRO(dl_x86_cpu_features)
     * through libc's GOT and tests two feature words (measured on
     * memset's resolver, sysdeps/x86_64/multiarch/ifunc-memset.h; other
     * resolvers test other words of the same lines) */
    W(A - 0x3c8, 8);
    R(o + LIBC_GOT_RTLD_RO, 8);
    R(L + LD_CPU_FEATURE_A, 4);
    R(L + LD_CPU_FEATURE_B, 4);
    R(A - 0x3c8, 8);
    W(A - 0x3b8, 8);
  }
  R(L + LD_MAIN_RELOC, 8);
  R(A - 0x3b8, 8);
  R(L + LD_BIND_NOT, 4);
  W(x + sl->got, 8);
  for (uint64_t k = 0x3a8; k >= 0x388; k -= 8)
    R(A - k, 8);
  /* the trampoline restores and jumps to the function */
  xsave_area(pr, A, false);
  for (uint64_t k = 0x350; k <= XSAVE; k += 8)
    R(A - k, 8);
  R(C - 0x20, 8);
}
