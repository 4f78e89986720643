/* process_probe.h: the frontend's side of the process model's start-up
 * and exit (program.h, cb_process_info): reading an executable's dynamic
 * linking data with <elf.h> (process_elf.c), and building the two probes
 * whose traces the engine replays (process_probe.c). Internal to frontend/,
 * compiled into the executable's part (no libelf there). */
#ifndef CBANA_FRONTEND_PROCESS_PROBE_H
#define CBANA_FRONTEND_PROCESS_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "cbana/frontend.h"

typedef struct fe_pelf_sec {
  const char *name;
  uint64_t addr, size;
} fe_pelf_sec;

typedef struct fe_pelf_sym {
  const char *name;
  uint64_t value, size;
  bool undefined, func, weak;
} fe_pelf_sym;

typedef struct fe_pelf_reloc {
  uint64_t offset;
  uint32_t type, sym;
} fe_pelf_reloc;

typedef struct fe_pelf {
  bool pie;
  fe_pelf_sec *secs; /* allocated sections with an address */
  uint32_t n_secs;
  fe_pelf_sym *syms; /* .dynsym, index 0 included */
  uint32_t n_syms;
  fe_pelf_reloc *relocs; /* .rela.dyn then .rela.plt, in file order */
  uint32_t n_relocs;
  uint64_t main; /* main's value (0: none) */
  uint64_t end;  /* past the last allocated section */
  char *strtab;
} fe_pelf;

bool fe_pelf_read(const char *path, fe_pelf *e);
void fe_pelf_free(fe_pelf *e);
uint32_t fe_pelf_count(const fe_pelf *e, uint32_t type);
const fe_pelf_sec *fe_pelf_section(const fe_pelf *e, const char *name);
const char *fe_pelf_reloc_sym(const fe_pelf *e, const fe_pelf_reloc *r);

/* Builds (or finds in cache_dir/process) the start-up probe of the
 * executable exe and the exit probe of its link line, and attaches them
 * to p (p->process, two sites appended to p->sites). clang and flags as
 * the program was linked. Never fails the load: when a probe cannot be
 * built (no cache_dir among others), p->process says why (its `why`) and
 * the engine models neither. */
void fe_process_probes(cb_program *p, const char *cache_dir, const char *exe,
                       const char *clang, char **flags);

#endif
