/* frontend.c: the shared object's side of cb_frontend_load (module.c):
 * read and link the bitcode, read the executable, lower, and hand over
 * a Program; and the Program's freeing. */
#include "fe_internal.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

/* The Program's private storage: every array is malloc'ed separately and
 * strings and initial bytes live in one pool (program->owned). */

static void program_free(cb_program *p) {
  if (!p)
    return;
  fe_jit_free(p->jit); /* waits for a compile still reading the Program */
  free(p->kernels);
  free(p->tpl_kernels);
  free(p->kernel_entries);
  free(p->files);
  free(p->functions);
  free(p->blocks);
  free(p->succs);
  free(p->preds);
  free(p->ops);
  free(p->params);
  free(p->consts);
  free(p->extra);
  free(p->sites);
  free(p->src_funcs);
  free(p->vars);
  free(p->types);
  free(p->fields);
  free(p->globals);
  free(p->frame_objs);
  free(p->branches);
  free(p->mach);
  free(p->fn_mach);
  free(p->ra_site);
  free(p->op_access);
  if (p->process) {
    free((char *)p->process->startup.exe);
    free((char *)p->process->exit.exe);
    free(p->process->startup.map);
    free(p->process->exit.map);
    free(p->process);
  }
  free(p->dl);
  free(p->unmodelled);
  free(p->unmodelled_addr);
  free(p->unpaired);
  fe_pool_free((fe_pool *)p->owned);
  free(p);
}

static void diag_handler(LLVMDiagnosticInfoRef di, void *ctx) {
  fe *f = ctx;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
    return;
  char *s = LLVMGetDiagInfoDescription(di);
  fe_errf(f->err, CB_FE_ERR_INTERNAL, "llvm: %s\n", s);
  LLVMDisposeMessage(s);
}

static LLVMModuleRef read_bitcode(fe *f, const char *path) {
  LLVMMemoryBufferRef mb = NULL;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &mb, &msg)) {
    fe_errf(f->err, CB_FE_ERR_INTERNAL, "cbana: %s: %s\n", path,
            msg ? msg : "cannot read");
    LLVMDisposeMessage(msg);
    return NULL;
  }
  LLVMModuleRef m = NULL;
  if (LLVMParseBitcodeInContext2(f->ctx, mb, &m)) {
    fe_errf(f->err, CB_FE_ERR_INTERNAL, "cbana: %s: not valid LLVM bitcode\n",
            path);
    m = NULL;
  }
  LLVMDisposeMemoryBuffer(mb);
  return m;
}

#define MOVE(dst, vec)                                                         \
  do {                                                                         \
    (dst) = (vec).v;                                                           \
    (vec).v = NULL;                                                            \
    (vec).n = (vec).cap = 0;                                                   \
  } while (0)

static void fe_free(fe *f) {
  free(f->files.v);
  free(f->file_paths.v);
  free(f->src_real.v);
  free(f->functions.v);
  free(f->blocks.v);
  free(f->succs.v);
  free(f->preds.v);
  free(f->ops.v);
  free(f->params.v);
  free(f->consts.v);
  free(f->extra.v);
  free(f->sites.v);
  free(f->src_funcs.v);
  free(f->vars.v);
  free(f->types.v);
  free(f->fields.v);
  free(f->globals.v);
  free(f->frame_objs.v);
  free(f->branches.v);
  free(f->branch_sides.v);
  free(f->var_md.v);
  free(f->dbgvals.v);
  free(f->unknown.v);
  free(f->unmodelled.v);
  free(f->unmodelled_addr.v);
  free(f->copy_srcs.v);
  free(f->copy_grps.v);
  free(f->wide_grps.v);
  free(f->wide_ops.v);
  free(f->unpaired.v);
  free(f->mach.v);
  free(f->fn_mach_v);
  free(f->ra_site_v);
  free(f->op_access);
  fe_map *maps[] = {&f->func_index, &f->global_index, &f->const_index,
                    &f->file_index, &f->md_srcfunc,   &f->md_var,
                    &f->md_type,    &f->md_tag,       &f->md_file,
                    &f->vals,       &f->blockmap,     &f->dbgval,
                    &f->alloca_var, &f->block_addr,   &f->var_arg};
  for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
    fe_map_free(maps[i]);
  fe_elf_free(&f->elf);
  if (f->mod)
    LLVMDisposeModule(f->mod);
  if (f->ctx)
    LLVMContextDispose(f->ctx);
  fe_pool_free(f->pool);
}

static cb_fe_status load_built(const char *const *bitcode, size_t n,
                               const char *exe, const cb_frontend_options *o,
                               fe_build *b, cb_program **out, fe_err *err) {
  fe f;
  memset(&f, 0, sizeof f);
  f.opts = o;
  f.err = err;
  f.pool = fe_pool_new();
  f.ctx = LLVMContextCreate();
  LLVMContextSetDiagnosticHandler(f.ctx, diag_handler, &f);
  cb_fe_status st = CB_FE_OK;
  /* the sources first, in the order given */
  for (size_t i = 0; o && i < o->n_sources; i++) {
    const char *dir = b && b->src_dirs ? b->src_dirs[i] : NULL;
    fe_file_index(&f, o->sources[i], dir);
    char real[PATH_MAX];
    FE_PUSH(f.src_real, realpath(f.file_paths.v[f.file_paths.n - 1], real)
                            ? fe_pool_str(f.pool, real)
                            : NULL);
  }
  for (size_t i = 0; i < n && st == CB_FE_OK; i++) {
    LLVMModuleRef m = read_bitcode(&f, bitcode[i]);
    if (!m) {
      st = err->status ? err->status : CB_FE_ERR_INTERNAL;
      break;
    }
    if (!f.mod) {
      f.mod = m;
    } else if (LLVMLinkModules2(f.mod, m)) {
      fe_errf(err, CB_FE_ERR_COMPILE,
              "cbana: the translation units do not link together\n");
      st = err->status;
    }
  }
  if (st == CB_FE_OK && !f.mod) {
    fe_errf(err, CB_FE_ERR_USAGE, "cbana: nothing to load\n");
    st = err->status;
  }
  uint64_t base = o && o->has_load_base ? o->load_base : CB_DEFAULT_LOAD_BASE;
  if (st == CB_FE_OK && exe && !fe_elf_read(&f.elf, exe, base, err))
    st = err->status;
  if (st == CB_FE_OK) {
    f.td = LLVMGetModuleDataLayout(f.mod);
    if (!fe_prepare_module(&f) || !fe_lower_module(&f))
      st = err->status ? err->status : CB_FE_ERR_INTERNAL;
  }
  if (st == CB_FE_OK) {
    fe_frame_offsets(&f, exe);
    fe_machine(&f, exe);
    fe_branch_texts(&f, b);
  }
  if (st == CB_FE_OK && err->status != CB_FE_OK)
    st = err->status;
  if (st != CB_FE_OK) {
    fe_free(&f);
    return st;
  }
  cb_program *p = calloc(1, sizeof *p);
  p->n_files = f.files.n;
  p->n_functions = f.functions.n;
  p->n_blocks = f.blocks.n;
  p->n_ops = f.ops.n;
  p->n_consts = f.consts.n;
  p->n_extra = f.extra.n;
  p->n_sites = f.sites.n;
  p->n_src_funcs = f.src_funcs.n;
  p->n_vars = f.vars.n;
  p->n_types = f.types.n;
  p->n_fields = f.fields.n;
  p->n_globals = f.globals.n;
  p->n_frame_objs = f.frame_objs.n;
  p->n_branches = f.branches.n;
  p->n_mach = f.mach.n;
  p->mach_stats = f.mach_stats;
  if (f.op_access && f.n_op_access < f.ops.n) { /* ops added since */
    uint16_t *a = realloc(f.op_access, (f.ops.n + 1) * sizeof *a);
    if (a)
      memset(a + f.n_op_access, 0, (f.ops.n - f.n_op_access) * sizeof *a);
    else
      free(f.op_access);
    f.op_access = a;
  }
  p->op_access = f.op_access; /* machine_merge.c */
  f.op_access = NULL;
  MOVE(p->files, f.files);
  MOVE(p->functions, f.functions);
  MOVE(p->blocks, f.blocks);
  MOVE(p->succs, f.succs);
  MOVE(p->preds, f.preds);
  MOVE(p->ops, f.ops);
  MOVE(p->params, f.params);
  MOVE(p->consts, f.consts);
  MOVE(p->extra, f.extra);
  MOVE(p->sites, f.sites);
  MOVE(p->src_funcs, f.src_funcs);
  MOVE(p->vars, f.vars);
  MOVE(p->types, f.types);
  MOVE(p->fields, f.fields);
  MOVE(p->globals, f.globals);
  MOVE(p->frame_objs, f.frame_objs);
  MOVE(p->branches, f.branches);
  MOVE(p->mach, f.mach);
  p->n_unmodelled = f.unmodelled.n;
  MOVE(p->unmodelled, f.unmodelled);
  MOVE(p->unmodelled_addr, f.unmodelled_addr);
  p->n_unpaired = f.unpaired.n;
  MOVE(p->unpaired, f.unpaired);
  p->fn_mach = f.fn_mach_v;
  f.fn_mach_v = NULL;
  p->ra_site = f.ra_site_v;
  f.ra_site_v = NULL;
  p->main_function = CB_NONE;
  for (uint32_t i = 0; i < p->n_functions; i++)
    if (strcmp(p->functions[i].name, "main") == 0)
      p->main_function = i;
  p->load_base = f.elf.loaded ? f.elf.base : 0;
  p->image_end = f.elf.image_end;
  p->synth_end = f.synth_next;
  p->exe_path = o && o->exe_out && exe ? fe_pool_str(f.pool, exe) : NULL;
  p->dl = exe && f.elf.loaded ? fe_bind_lib_data(&f, p, exe, o) : NULL;
  p->fmuladd_fused = f.fmuladd_fused;
  p->units_reused = b ? (uint32_t)b->n_reused : 0;
  if (!o || !o->no_kernels)
    fe_jit_compile(p, o && o->eager_kernels, o ? o->cache_dir : NULL);
  p->owned = f.pool;
  f.pool = NULL;
  fe_free(&f);
  *out = p;
  return CB_FE_OK;
}

/* What the cbana executable calls, once it has loaded this shared
 * object (module.c). */
__attribute__((visibility("default")))
const fe_module_api cb_frontend_module = {
    .size = sizeof(fe_module_api),
    .load_built = load_built,
    .program_free = program_free,
    .wait_kernels = fe_jit_wait,
    .scans_start = fe_scans_start,
    .scans_free = fe_scans_free,
};
