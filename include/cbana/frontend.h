/* frontend.h: from C sources to a Program.
 *
 * The frontend owns everything between the user's C files and the
 * Program of program.h: it runs clang (bitcode with debug info and the
 * real ELF executable, same flags), links the translation units into one
 * LLVM module, lowers it into the compact IR, places globals and
 * functions at the addresses of the executable's symbol table (libelf),
 * reads names and C types from the debug metadata, and takes the text of
 * branch conditions from the source with libclang. It is the only module
 * that includes LLVM or libclang headers; all of it but the compile lives
 * in cbana-frontend.so, loaded while clang runs (frontend/module.c), so
 * the executable links no LLVM library. It never prints and never exits:
 * errors come back as text in the caller's buffer, with a status. All its
 * temporary files live in one private directory removed on every path.
 */
#ifndef CBANA_FRONTEND_H
#define CBANA_FRONTEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cbana/program.h"

/* The directory named in the debug information of cbana's own runtime
 * functions (frontend/runtime/: complex multiplication and division,
 * which the executable takes from libgcc, where they have no line
 * information): `validate` leaves their accesses out of the program's own
 * code, as cachegrind leaves libgcc's. */
#define CB_RUNTIME_DIR "/cbana-runtime/"

/* Where a PIE is placed when the caller does not say (valgrind's choice). */
#define CB_DEFAULT_LOAD_BASE 0x108000u

typedef struct cb_frontend_options {
  const char *const *sources; /* C files, as the user named them */
  size_t n_sources;
  /* Compiler flags, split on blanks (single and double quotes group);
   * NULL means "-O2". `-g` is always added (-gdwarf-4 for the
   * executable). Ignored for a file that compile_commands.json lists. */
  const char *cflags;
  /* A directory holding compile_commands.json: each source takes its
   * flags (and working directory) from its entry there. NULL: none. */
  const char *compdb_dir;
  /* The compiler; NULL: /usr/bin/clang-14 when present, else `clang`. */
  const char *clang;
  /* Where the PIE is placed; used when has_load_base, else
   * CB_DEFAULT_LOAD_BASE. Ignored for a non-PIE executable. */
  uint64_t load_base;
  bool has_load_base;
  /* Keep the executable at this path (validate runs it); NULL: it is
   * built in the private temporary directory and removed. */
  const char *exe_out;
  /* Compile no native kernels (program.h): the engine interprets every
   * loop. */
  bool no_kernels;
  /* Compile a function's kernel when it first runs, and wait for it,
   * instead of once it is hot, beside the engine: every run then takes
   * the same kernels (the identity tests). */
  bool eager_kernels;
  /* cbana's cache directory, which the caller made (cli/cache_dir.c):
   * link lines and the process probes are kept there. NULL: nothing is
   * kept; the link line is asked of clang's driver each time and the
   * process's start-up and exit are not modelled. */
  const char *cache_dir;
  /* Where each shared object of program->dl is mapped (the engine's
   * cb_engine_object_bases): variables the libraries define (stdout,
   * optind) are placed there, before any kernel is compiled. NULL: they
   * keep addresses of their own past the executable. */
  bool (*object_bases)(const cb_program *p, uint64_t *base, uint32_t n);
  /* Compile every source again: no translation unit is taken from, or
   * kept in, cache_dir (frontend/tu_cache.c). */
  bool no_reuse;
} cb_frontend_options;

typedef enum cb_fe_status {
  CB_FE_OK = 0,
  CB_FE_ERR_USAGE,       /* bad options, missing file */
  CB_FE_ERR_COMPILE,     /* clang failed: its diagnostics are in err */
  CB_FE_ERR_UNDEFINED,   /* functions called but defined nowhere */
  CB_FE_ERR_UNSUPPORTED, /* a construct the Program cannot express */
  CB_FE_ERR_INTERNAL     /* I/O, bad bitcode, bad ELF */
} cb_fe_status;

/* Compiles, links and lowers the sources. On success *out is a Program
 * (free it with cb_program_free) and err is empty. On failure *out is NULL
 * and err holds the message (several lines: clang's diagnostics as
 * file:line:col, or one line per undefined function's call site), cut to
 * err_size bytes; every failure maps to the CLI's exit status 2. */
cb_fe_status cb_frontend_load(const cb_frontend_options *opts, cb_program **out,
                              char *err, size_t err_size);

/* Loads a Program from LLVM bitcode and an executable already built
 * (tests, and callers that compile themselves). exe may be NULL: then no
 * addresses come from ELF (globals are placed in the synthetic range). */
cb_fe_status cb_frontend_load_built(const char *const *bitcode, size_t n,
                                    const char *exe,
                                    const cb_frontend_options *opts,
                                    cb_program **out, char *err,
                                    size_t err_size);

/* Short names for the enums of program.h, for dumps and reports. */
const char *cb_opcode_name(cb_opcode op);
const char *cb_ty_name(cb_ty t);
const char *cb_libfn_name(cb_libfn f);
const char *cb_intrinsic_name(cb_intrinsic i);

/* The native kernels (program.h) compile on a thread of their own, and
 * the engine takes each when it is ready; this waits for the compile to
 * end, then sets the Program's n_kernels and kernel_compile_s. */
void cb_program_wait_kernels(cb_program *p);

#endif
