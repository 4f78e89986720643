/* fe_internal.h: shared between the frontend's files; never installed. */
#ifndef CBANA_FE_INTERNAL_H
#define CBANA_FE_INTERNAL_H

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cbana/frontend.h"
#include "cbana/program.h"

/* ---- growable arrays ---------------------------------------------------- */

#define FE_VEC(T)                                                              \
  struct {                                                                     \
    T *v;                                                                      \
    uint32_t n, cap;                                                           \
  }

void *fe_grow(void *v, uint32_t *cap, uint32_t need, size_t elem);

#define FE_RESERVE(vec, k)                                                     \
  ((vec).n + (k) > (vec).cap                                                   \
       ? (void)((vec).v = fe_grow((vec).v, &(vec).cap, (vec).n + (k),          \
                                  sizeof(*(vec).v)))                           \
       : (void)0)
#define FE_PUSH(vec, x)                                                        \
  do {                                                                         \
    FE_RESERVE(vec, 1);                                                        \
    (vec).v[(vec).n++] = (x);                                                  \
  } while (0)

/* ---- pointer-keyed hash map -------------------------------------------- */

typedef struct fe_map {
  const void **keys;
  uint64_t *vals;
  uint32_t n, cap; /* cap a power of two */
} fe_map;

bool fe_map_get(const fe_map *m, const void *key, uint64_t *val);
void fe_map_put(fe_map *m, const void *key, uint64_t val);
void fe_map_clear(fe_map *m);
void fe_map_free(fe_map *m);

/* ---- keys of what the cache directory keeps ------------------------------ */

/* FNV-1a over n bytes at p, from h (0xcbf29ce484222325 to start); a
 * string with its NUL, NULL as the empty string. */
#define FE_FNV_START 0xcbf29ce484222325ull
uint64_t fe_fnv(uint64_t h, const void *p, size_t n);
uint64_t fe_fnv_str(uint64_t h, const char *s);

/* ---- string pool owned by the Program ---------------------------------- */

typedef struct fe_pool fe_pool;
fe_pool *fe_pool_new(void);
void fe_pool_free(fe_pool *p);
void *fe_pool_alloc(fe_pool *p, size_t n); /* zeroed, 16-aligned */
const char *fe_pool_strn(fe_pool *p, const char *s, size_t n);
const char *fe_pool_str(fe_pool *p, const char *s);
/* Interned: the same text gives the same pointer. */
const char *fe_pool_intern(fe_pool *p, const char *s, size_t n);

/* ---- errors -------------------------------------------------------------- */

typedef struct fe_err {
  char *buf;
  size_t size, len;
  cb_fe_status status;
} fe_err;

void fe_errf(fe_err *e, cb_fe_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- ELF ------------------------------------------------------------------
 */

typedef struct fe_sym {
  const char *name;
  const char *file; /* STT_FILE before a local symbol, or NULL */
  uint64_t value, size;
  const char *section;
  bool is_func, is_local;
} fe_sym;

typedef struct fe_elf_section {
  const char *name;
  uint64_t addr, size; /* addr already includes the load base */
  uint8_t *data;       /* NULL for NOBITS */
  bool writable, exec;
} fe_elf_section;

typedef struct fe_elf {
  bool loaded, pie;
  uint64_t base, image_end;
  FE_VEC(fe_sym) syms;
  FE_VEC(fe_elf_section) secs;
  /* the functions it imports (undefined in its symbol table, bound by
   * ld.so), without their version suffix */
  FE_VEC(const char *) imports;
  fe_pool *strings;
} fe_elf;

/* ld.so's lazy-binding tables of the executable's PLT slots (dynlink.c);
 * NULL when a file cannot be read or the executable binds at load (-z now). */
/* A variable the executable uses and a library defines: found by name in
 * the search scope after the executable (fe_dynlink); obj 0: not found. */
typedef struct {
  const char *name;
  uint32_t obj;
  uint64_t value;
} fe_dl_data;
cb_dl_info *fe_dynlink(const char *exe_path, fe_dl_data *data, uint32_t n_data);
bool fe_elf_read(fe_elf *elf, const char *path, uint64_t load_base,
                 fe_err *err);
void fe_elf_free(fe_elf *elf);
/* The symbol for a name (a local one from `file` preferred when given). */
const fe_sym *fe_elf_find(const fe_elf *elf, const char *name, bool func,
                          const char *file);
/* The same for a name of the linked module: a static renamed name.N
 * there is found under its C name. */
const fe_sym *fe_elf_find_linked(const fe_elf *elf, const char *name, bool func,
                                 const char *file);
/* Whether the executable imports or defines function `name`. */
bool fe_elf_links(const fe_elf *elf, const char *name);
/* An address in a read-only allocated section holding these bytes at the
 * alignment, or 0. */
uint64_t fe_elf_find_bytes(const fe_elf *elf, const uint8_t *bytes, size_t n,
                           uint32_t align);
const fe_elf_section *fe_elf_section_at(const fe_elf *elf, uint64_t addr);

/* ---- compile ------------------------------------------------------------- */

typedef struct fe_scans fe_scans;
typedef struct fe_build {
  char *tmpdir;
  char **bitcode; /* one per source */
  size_t n;
  char *exe;
  char **src_dirs;  /* working directory each source compiled in */
  char ***src_args; /* the user's flags per source (NULL-terminated) */
  char *link_err;   /* the linker's messages when only linking failed */
  fe_scans *scans;  /* the sources' constructs, scanned ahead (condtext.c) */
  size_t n_reused;  /* units taken from the cache (tu_cache.c) */
  /* per source, the key of its contents (tu_cache.c), 0: none: found in
   * the cache (set before the scan ahead starts, which reads them), and
   * kept there by this compile */
  uint64_t *unit_keys, *new_keys;
  /* the process probes, built beside the compile (process_probe.h) */
  struct fe_probes *probes;
} fe_build;

cb_fe_status fe_compile(const cb_frontend_options *o, fe_build *b, fe_err *err);

/* ---- translation units kept between runs (tu_cache.c) ---------------- */

typedef struct fe_tu_cache fe_tu_cache;
/* The cache in cache_dir/tu; NULL without cache_dir (nothing kept). */
fe_tu_cache *fe_tu_cache_open(const char *cache_dir);
void fe_tu_cache_close(fe_tu_cache *c);
/* Units found by fe_tu_get so far. */
size_t fe_tu_cache_hits(const fe_tu_cache *c);
/* A compile's name: clang's identity, its flags (flags, then post minus
 * the file names that change from run to run), the working directory,
 * the source path, how the object is made (mode); 0 when clang's binary
 * cannot be found (nothing is kept). */
uint64_t fe_tu_key(const char *clang, char **flags, const char *const *post,
                   const char *cwd, const char *src, unsigned mode);
/* Places the kept bitcode and object at bc and obj: true when the
 * headers the last compile of key read are unchanged and both were
 * kept. */
bool fe_tu_get(fe_tu_cache *c, uint64_t key, const char *bc, const char *obj,
               uint64_t *outputs);
/* Keeps bc and obj, found again through the files listed in depfile
 * (clang's -MD output, relative paths from cwd). *outputs, on a hit or
 * once kept, is the key of the unit's contents: what else is derived from
 * them alone (the branch scan, condtext.c) is kept under it. */
void fe_tu_put(fe_tu_cache *c, uint64_t key, const char *depfile,
               const char *cwd, const char *bc, const char *obj,
               uint64_t *outputs);
/* The compiler when the options name none: clang-14, else `clang`. */
const char *fe_default_clang(void);

/* ---- the shared object (module.c) ---------------------------------------
 * Everything that calls LLVM, libclang, libelf or libdw lives in
 * cbana-frontend.so, which the executable loads while clang compiles
 * (module.c says why); this table, the one symbol it exports, is how the
 * executable calls it. */
typedef struct fe_module_api {
  size_t size; /* sizeof(fe_module_api): the two sides were built together */
  /* Reads, links and lowers the bitcode (b: the compile's, or NULL). */
  cb_fe_status (*load_built)(const char *const *bitcode, size_t n,
                             const char *exe, const cb_frontend_options *o,
                             fe_build *b, cb_program **out, fe_err *err);
  void (*program_free)(cb_program *p);
  void (*wait_kernels)(cb_program *p);
  fe_scans *(*scans_start)(const cb_frontend_options *o, fe_build *b);
  void (*scans_free)(fe_scans *s);
} fe_module_api;
#define FE_MODULE_FILE "cbana-frontend.so"
#define FE_MODULE_SYMBOL "cb_frontend_module"
/* Starts loading the shared object on a thread of its own (once); once
 * it is loaded and fe_module_core_free(true) is called, the thread starts
 * the scan of o's sources (fe_scans_start) into b->scans. */
void fe_module_preload(const cb_frontend_options *o, fe_build *b);
/* A compile has ended: a core is free for the scan (go), or the compile
 * failed and nothing should be scanned (!go). */
void fe_module_core_free(bool go);
void fe_build_cleanup(fe_build *b);
/* Splits a flag string; NULL-terminated array of strdup'ed words. */
char **fe_split_flags(const char *s);
/* A regular file's bytes, NUL-ended (malloc'ed, *len of them), and its
 * stat when st is not NULL; NULL when it cannot be read whole. */
char *fe_read_file(const char *path, size_t *len, struct stat *st);
void fe_free_strv(char **v);
/* Runs argv (argv[0] searched in PATH), its output and messages into the
 * file out; its exit status, -1 if it could not start. */
int fe_run_to_file(const char *const *argv, const char *out);

/* ---- link line (link_cmd.c) ---------------------------------------------- */

/* The ld command line clang's driver runs for `clang FLAGS -o EXE OBJS -lm`
 * (NULL-terminated, the caller frees it with fe_free_strv), remembered in
 * cache_dir (NULL: not remembered); *cached says it came from there. NULL
 * when the driver did not give one job. */
char **fe_link_line(const char *cache_dir, const char *clang, char **flags,
                    const char *exe, char **objs, size_t n_objs,
                    const char *tmpdir, bool *cached);
/* Drops the remembered line (its ld failed). */
void fe_link_line_forget(const char *cache_dir, const char *clang, char **flags,
                         size_t n_objs);

/* ---- lowering state ------------------------------------------------------ */

typedef struct fe_unknown_call {
  const char *name;
  uint32_t file, line;
} fe_unknown_call;

/* A constant global that a function's inline copies read (lower_memop.c):
 * the machine code's loads of it may sit outside the copy's block
 * (MachineLICM hoists them out of loops), so machine.c takes them where
 * the machine code has them. [lo, hi): modelled addresses. */
typedef struct fe_copy_src {
  uint32_t func;
  uint64_t lo, hi;
} fe_copy_src;

/* The loads and stores of one inline copy (lower_memop.c): ops [first,
 * first + n) of function func, all on file:line, their addresses the
 * copy's pointers or computed by the n_addr GEPs just before them;
 * machine.c orders them as the machine code does. */
typedef struct fe_copy_grp {
  uint32_t func, first, n, file, line, n_addr;
} fe_copy_grp;

/* The pieces of one odd-width integer load or store (lower_wide.c): their
 * ops are wide_ops[first .. first + n), lowest address first. */
typedef struct fe_wide_grp {
  uint32_t func, file, line, first, n, bytes;
  bool write;
} fe_wide_grp;

typedef struct fe_dbgval {
  LLVMMetadataRef var;
  uint32_t next; /* index of the next for the same value, or CB_NONE */
} fe_dbgval;

/* Where one side of a conditional branch first leads in the source: the
 * debug location of the first located instruction reached from that
 * successor (line 0: none found). condtext.c places it in the parts of
 * the branch's construct to tell the compiled sense from the source's. */
typedef struct fe_side_loc {
  uint32_t file, line, col;
} fe_side_loc;

typedef struct fe_branch_sides {
  fe_side_loc side[2]; /* [0]: successor 0 (compiled true), [1]: false */
} fe_branch_sides;

typedef struct fe {
  const cb_frontend_options *opts;
  fe_err *err;
  fe_pool *pool;
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetDataRef td;
  fe_elf elf;
  uint64_t synth_next; /* next address in the synthetic range */
  /* Labels' addresses (blockaddress, computed goto): LLVMValueRef
   * blockaddress constant -> address; and where the initializer being
   * written sits (0: none), whose bytes in the executable tell the real
   * address of a label it holds (lower_const.c). */
  fe_map block_addr;
  uint64_t init_base, init_at;
  bool init_probe; /* initializers written only to be looked for */
  /* The function being lowered: its LLVM blocks, and whether an indirectbr
   * wants the block after them, which stops the input (an address that is
   * none of its labels). */
  uint32_t cur_nblocks;
  bool want_trap_block;

  FE_VEC(const char *) files;
  FE_VEC(const char *) file_paths; /* resolved for reading the source */
  FE_VEC(const char *) src_real;   /* realpath of each source, or NULL */
  FE_VEC(cb_function) functions;
  FE_VEC(cb_block) blocks;
  FE_VEC(uint32_t) succs;
  FE_VEC(uint32_t) preds;
  FE_VEC(cb_op) ops;
  FE_VEC(cb_param) params;
  FE_VEC(cb_value) consts;
  FE_VEC(int64_t) extra;
  FE_VEC(cb_site) sites;
  FE_VEC(cb_src_func) src_funcs;
  FE_VEC(cb_var) vars;
  FE_VEC(cb_ctype) types;
  FE_VEC(cb_field) fields;
  FE_VEC(cb_global) globals;
  FE_VEC(cb_frame_obj) frame_objs;
  FE_VEC(cb_branch) branches;
  FE_VEC(fe_branch_sides) branch_sides; /* parallel to branches */
  FE_VEC(LLVMMetadataRef) var_md;       /* parallel to vars */

  fe_map func_index;   /* LLVMValueRef function -> index */
  fe_map global_index; /* LLVMValueRef global -> index in globals */
  fe_map const_index;  /* LLVMValueRef constant -> consts index */
  fe_map file_index;   /* interned file name -> files index */
  fe_map md_srcfunc;   /* DISubprogram -> src_funcs */
  fe_map md_var;       /* DIVariable -> vars */
  fe_map md_type;      /* DIType -> types */
  fe_map md_tag;       /* DINode -> DWARF tag (cache) */
  fe_map md_file;      /* DIFile -> files */
  fe_map var_arg;      /* interned variable key -> arg + 1 (debuginfo_args.c) */
  bool var_arg_read;

  /* per function */
  fe_map vals;       /* LLVMValueRef -> operand */
  fe_map blockmap;   /* LLVMBasicBlockRef -> block index in function */
  fe_map dbgval;     /* LLVMValueRef -> first fe_dbgval index */
  fe_map alloca_var; /* alloca -> DILocalVariable */
  FE_VEC(fe_dbgval) dbgvals;
  uint32_t n_slots;
  uint32_t cur_func;
  unsigned vec_bytes; /* the function's widest vector register (lower.c) */
  LLVMMetadataRef cur_sp;

  FE_VEC(fe_unknown_call) unknown;
  /* the library functions linked but not modelled (program.h's
   * unmodelled), interned names, and their synthetic addresses */
  FE_VEC(const char *) unmodelled;
  FE_VEC(uint64_t) unmodelled_addr;
  FE_VEC(fe_copy_src) copy_srcs;
  FE_VEC(fe_copy_grp) copy_grps;
  FE_VEC(fe_wide_grp) wide_grps;
  FE_VEC(uint32_t) wide_ops;
  /* "file:line" of accesses the machine code makes otherwise than the
   * Program and that machine.c could not pair (cb_program's unpaired) */
  FE_VEC(const char *) unpaired;

  /* machine.c */
  FE_VEC(cb_mach_access) mach;
  cb_fn_mach *fn_mach_v; /* per function */
  uint32_t *ra_site_v;   /* per site */
  cb_mach_stats mach_stats;
  uint16_t *op_access;  /* cb_program's; NULL: no merged access */
  uint32_t n_op_access; /* ops when it was made */
  bool fmuladd_fused;   /* cb_program's */
} fe;

/* fe_dynlink for the program, which it also sets as p->dl; with
 * o->object_bases, the variables the libraries define (stdout, optind)
 * move to their places there: their addresses in p->globals and
 * p->consts (lower_const.c). */
cb_dl_info *fe_bind_lib_data(fe *f, cb_program *p, const char *exe,
                             const cb_frontend_options *o);

/* lower.c */
/* prep.c: constant intrinsics folded and the runtime functions the
 * program calls linked in, before lowering. */
bool fe_prepare_module(fe *f);
bool fe_lower_module(fe *f);
/* debuginfo.c */
uint32_t fe_file_of_scope(fe *f, LLVMMetadataRef scope);
uint32_t fe_file_index(fe *f, const char *name, const char *dir);
uint32_t fe_src_func(fe *f, LLVMMetadataRef scope);
LLVMMetadataRef fe_subprogram_of(fe *f, LLVMMetadataRef scope);
uint32_t fe_var(fe *f, LLVMMetadataRef divar);
uint32_t fe_type(fe *f, LLVMMetadataRef ditype);
/* The type with typedefs and qualifiers stripped (program types). */
uint32_t fe_type_strip(fe *f, uint32_t t);
void fe_resolve_access(fe *f, uint32_t var, bool var_is_object, int64_t off,
                       uint32_t size, uint32_t *type, uint32_t *field);
/* Metadata operand helpers. */
unsigned fe_md_nops(fe *f, LLVMMetadataRef md);
LLVMMetadataRef fe_md_op(fe *f, LLVMMetadataRef md, unsigned i);
LLVMValueRef fe_md_op_value(fe *f, LLVMMetadataRef md, unsigned i);
const char *fe_md_op_str(fe *f, LLVMMetadataRef md, unsigned i, size_t *len);
unsigned fe_md_tag(fe *f, LLVMMetadataRef md);
long fe_md_print_field(fe *f, LLVMMetadataRef md, const char *field);
/* debuginfo_args.c: a DILocalVariable's `arg:` (0 for a local). */
long fe_md_var_arg(fe *f, LLVMMetadataRef md);
/* frame.c */
void fe_frame_offsets(fe *f, const char *exe);
/* machine.c: hidden accesses, prologues, entry/exit and return-address
 * sites from the executable's machine code */
void fe_machine(fe *f, const char *exe);
/* condtext.c */
void fe_branch_texts(fe *f, fe_build *b);
/* The scan of every source's control statements (libclang), started on
 * a thread of its own; fe_branch_texts takes b->scans when its paths are
 * the Program's. */
fe_scans *fe_scans_start(const cb_frontend_options *o, fe_build *b);
void fe_scans_free(fe_scans *s);
/* jit.c: the native kernels of a finished Program (p->kernels, p->jit;
 * left NULL when no function wants one or LLVM's JIT fails) and their
 * release */
void fe_jit_compile(cb_program *p, bool eager, const char *cache_dir);
void fe_jit_free(void *jit);
/* Waits for the kernels' compile (cb_program_wait_kernels). */
void fe_jit_wait(cb_program *p);

#endif
