/* engine_stack.c: the process's initial stack as valgrind builds it:
 * where main's CFA is (cb_engine_default_stack_top) and argc, argv[] and
 * the strings above it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"

#define STACK_TOP_VALGRIND 0x1fff001000ull

/* valgrind 3.19 builds the initial stack below 0x1fff001000 (see
 * docs/process-model.md, section 2): the strings (argv, the environment
 * Debian's valgrind wrapper exports even under `env -i`, 16 random bytes,
 * AT_EXECFN = argv[0], "x86_64"), then argc, argv, envp and auxv; glibc's
 * start code puts main's return address 0x108 below argc. The model
 * writes argv, envp and their strings. */
#define VG_NENV 5
static void vg_env(const char *cwd, char env[VG_NENV][4200]) {
  char real[4096];
  char here[4096];
  if (!cwd)
    cwd = getcwd(here, sizeof here) ? here : "/";
  if (!realpath(cwd, real))
    snprintf(real, sizeof real, "%s", cwd);
  snprintf(env[0], 4200, "LD_LIBRARY_PATH=/usr/lib/debug");
  snprintf(env[1], 4200, "GLIBCPP_FORCE_NEW=1");
  snprintf(env[2], 4200, "PWD=%s", real);
  snprintf(env[3], 4200, "GLIBCXX_FORCE_NEW=1");
  snprintf(env[4], 4200,
           "LD_PRELOAD=/usr/libexec/valgrind/vgpreload_core-amd64-linux.so");
}

typedef struct vg_stack {
  uint64_t argc_slot, strtab;
} vg_stack;

static vg_stack vg_stack_layout(int argc, const char *const *argv,
                                const char *cwd, unsigned n_aux) {
  char env[VG_NENV][4200];
  vg_env(cwd, env);
  if (!n_aux)
    n_aux = 22;
  const char *exe = argc > 0 ? argv[0] : "";
  uint64_t s = 0;
  for (int i = 0; i < argc; i++)
    s += strlen(argv[i]) + 1;
  if (argc == 0)
    s += 1;
  for (int i = 0; i < VG_NENV; i++)
    s += strlen(env[i]) + 1;
  s += 16 + strlen(exe) + 1 + strlen("x86_64") + 1;
  uint64_t nargs = argc > 0 ? (uint64_t)argc - 1 : 0;
  uint64_t size = 8 + 8 * (1 + nargs) + 8 + 8 * VG_NENV + 8 +
                  16 * ((uint64_t)n_aux + 1) + ((s + 7) & ~7ull);
  vg_stack v;
  v.argc_slot = (STACK_TOP_VALGRIND - 1 - size) & ~15ull;
  v.strtab = STACK_TOP_VALGRIND - 1 - ((s + 3) & ~3ull);
  return v;
}

uint64_t cb_engine_default_stack_top(int argc, const char *const *argv,
                                     const char *cwd, unsigned n_aux) {
  /* main's entry rsp (its return address) is argc slot - 0x108 */
  return vg_stack_layout(argc, argv, cwd, n_aux).argc_slot - 0x108 + 8;
}

/* argc, argv[] and the strings above main's CFA, as the process sees
 * them. Returns argv's address. */
uint64_t eng_setup_stack(cb_eng *e, const cb_run_input *in) {
  uint64_t cfa = e->main_cfa;
  uint64_t argc_slot = cfa + 0x100;
  uint64_t argv_at = argc_slot + 8;
  uint64_t strings, top;
  char env[VG_NENV][4200];
  vg_env(e->opt.cwd, env);
  if (!e->opt.stack_top) {
    vg_stack v = vg_stack_layout(in->argc, in->argv, e->opt.cwd, e->opt.n_aux);
    strings = v.strtab;
    top = STACK_TOP_VALGRIND;
  } else {
    strings = argv_at + 8 * ((uint64_t)in->argc + 2 + VG_NENV) + 0x180;
    uint64_t end = strings;
    for (int i = 0; i < in->argc; i++)
      end += strlen(in->argv[i]) + 1;
    for (int i = 0; i < VG_NENV; i++)
      end += strlen(env[i]) + 1;
    top = (end + 256 + CB_PG_SIZE - 1) & ~(uint64_t)(CB_PG_SIZE - 1);
  }
  e->stack_lo = cfa - e->opt.stack_limit;
  cb_mem_map(&e->pr.mem, e->stack_lo & ~(uint64_t)(CB_PG_SIZE - 1), top);
  uint64_t argc = (uint64_t)in->argc;
  cb_mem_write(&e->pr.mem, argc_slot, &argc, 8, NULL);
  uint64_t s = strings;
  for (int i = 0; i < in->argc; i++) {
    size_t n = strlen(in->argv[i]) + 1;
    cb_mem_write(&e->pr.mem, s, in->argv[i], n, NULL);
    cb_mem_write(&e->pr.mem, argv_at + 8 * (uint64_t)i, &s, 8, NULL);
    s += n;
  }
  /* envp[] after argv's NULL, the strings after argv's (getenv reads
   * them: libc_stdlib.c) */
  e->pr.envp_at = argv_at + 8 * ((uint64_t)in->argc + 1);
  for (int i = 0; i < VG_NENV; i++) {
    size_t n = strlen(env[i]) + 1;
    cb_mem_write(&e->pr.mem, s, env[i], n, NULL);
    cb_mem_write(&e->pr.mem, e->pr.envp_at + 8 * (uint64_t)i, &s, 8, NULL);
    s += n;
  }
  return argv_at;
}
