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

/* The start-up probe of an executable and the exit probe of its link
 * line, built (or found in cache_dir/process) by a thread of their own
 * while the program compiles and lowers: fe_probes_start as the compile
 * starts (clang and flags as the program is linked; tmpdir: the build's
 * private directory), fe_probes_exe once the executable is linked (NULL:
 * none will be), fe_probes_finish attaches them to p (p->process, two
 * sites appended to p->sites; p NULL: only ends the thread). The link
 * line for one object is worked out first (link_cmd.c): the program's
 * link waits for it (fe_probes_wait_line) rather than running the driver
 * a second time. Never fails the load: when a probe cannot be built (no
 * cache_dir among others), p->process says why (its `why`) and the engine
 * models neither. Without a thread, fe_probes_finish builds them; the
 * calls accept NULL (no memory: p->process stays NULL). */
typedef struct fe_probes fe_probes;
fe_probes *fe_probes_start(const char *cache_dir, const char *clang,
                           char **flags, const char *tmpdir);
void fe_probes_wait_line(fe_probes *pr);
void fe_probes_exe(fe_probes *pr, const char *exe);
void fe_probes_finish(fe_probes *pr, cb_program *p);

#endif
