/* jit_gen.h: the state of one kernel's code generation, shared by jit.c
 * (which functions get a kernel, the ORC JIT), jit_ops.c (the ops; more
 * forms in jit_ops_fp.c, jit_ops_vec.c, jit_ops_intr.c) and jit_mem.c
 * (the loads and stores).
 * Never installed. */
#ifndef CBANA_FE_JIT_GEN_H
#define CBANA_FE_JIT_GEN_H

#include <llvm-c/Core.h>

#include <stdbool.h>
#include <stdint.h>

#include "cbana/kernel.h"
#include "cbana/program.h"

/* Fields of cb_kernel_io, in order (kernel.h). */
enum {
  IO_SLOTS,
  IO_TLB,
  IO_STOP,
  IO_OP_FLAGS,
  IO_COUNTS,
  IO_BATCH,
  IO_NBATCH,
  IO_CAP,
  IO_STREAM,
  IO_BUDGET,
  IO_LOADS,
  IO_STORES,
  IO_BRANCHES,
  IO_SIG_V,
  IO_SIG_N,
  IO_PATH_SIG,
  IO_CFA,
  IO_ENGINE,
  IO_STACK,
  IO_KERNELS,
  IO_CALL,
  IO_RET,
  IO_FLUSH,
  IO_TPL,
  IO_CALLEE,
  IO_PAGE,
  IO_IP,
  IO_BLOCK,
  IO_PREV,
  IO_NEST,
  IO_ENTRIES,
  IO_NFIELDS
};

/* Memory the kernel touches, told apart for LLVM's alias analysis (type-
 * based metadata): a store to the program's memory never changes a slot,
 * so slot values stay in registers across it. */
enum { TB_SLOT, TB_MEM, TB_IO, TB_TLB, TB_TABLE, TB_BATCH, TB_COUNT };

/* The counters and registers a kernel keeps in locals (allocas, promoted
 * to registers), written back to io on every exit and before a call, and
 * read again after the call. The last three are only read: a call may
 * move the slot stack and hand the batch over. */
enum {
  LV_NBATCH,
  LV_BUDGET,
  LV_STORES,
  LV_BRANCHES,
  LV_SIG_V,
  LV_SIG_N,
  LV_PATH_SIG,
  LV_PREV,
  LV_LOADS,
  LV_CFA,
  LV_SLOTS,
  LV_BATCH,
  LV_CAP,
  LV_STREAM,
  LV_COUNT
};
/* The locals written back to io. */
#define LV_WRITTEN LV_CFA

typedef struct jit_gen {
  const cb_program *p;
  const cb_function *fn;
  const uint32_t *nphis; /* per global block */
  const uint8_t *only;   /* per local block: 1 to get code (the others
                            leave to the interpreter); NULL: every one */
  LLVMContextRef C;
  LLVMModuleRef M;
  LLVMBuilderRef B;
  LLVMValueRef F;
  LLVMTypeRef i1, i8, i16, i32, i64, f64, p8, p64, io_ty;
  LLVMTypeRef kernel_ty, call_ty; /* int (cb_kernel_io *) */
  LLVMTypeRef page_ty;            /* cb_kernel_io.page's */
  LLVMTypeRef thunk_ty;           /* jit_mem.c's call of it */
  LLVMTypeRef entry_ty;           /* cb_kernel_entry_fn's */
  /* jit_call.c's calls through pointers: the module's function that
   * finds the function at an address, and the kernel's argument words */
  LLVMValueRef icall_find, icall_args;
  LLVMValueRef page_out; /* the kernel's alloca it writes */
  bool quick; /* for LLVM's -O0 code generator (jit_compile.c's tier 0) */
  LLVMValueRef io;
  LLVMValueRef tlb, stop, op_flags, counts;
  unsigned nt_kind;     /* !nontemporal */
  LLVMValueRef nt_node; /* its operand, i32 1 */
  LLVMValueRef lv[LV_COUNT];
  unsigned tbaa_kind;
  LLVMValueRef tbaa[TB_COUNT];
  LLVMBasicBlockRef exit_bb;
  LLVMValueRef exit_ip, exit_block; /* phis of exit_bb */
  LLVMBasicBlockRef *body;          /* per local block, NULL: not entered */
  bool *head;                       /* per local block: checks room */
  uint64_t *need_ops, *need_acc;    /* the room it checks for */
  LLVMBasicBlockRef *exits;         /* per op of the function, lazily;
                                       then the same after mach_made_ip's
                                       machine-code accesses */
  uint32_t first_op, n_ops;         /* of the function */
  uint32_t mach_made_ip; /* the op whose machine-code accesses the code
                            being made has made, CB_NONE: none */
  LLVMValueRef fma;      /* llvm.fma.f64 */
  /* Making a loop template's iterations (jit_tpl.c) rather than the
   * kernel: loads and stores emit nothing and take a page the
   * translation cache misses through tpl_access, on tpl_buf; an exit
   * (which such code cannot take) is counted in tpl_exits, and the code
   * is then dropped. */
  bool tpl;
  uint32_t tpl_exits;
  LLVMBasicBlockRef tpl_bad;
  LLVMValueRef tpl_buf, tpl_engine, tpl_access;
  LLVMTypeRef tpl_access_ty;
  LLVMValueRef *tpl_fns; /* per local block: its iterations' code, or NULL */
  /* Block temporaries kept in registers (jit_slots.c): per slot of the
   * function, the local block it is a temporary of (CB_NONE: none) and
   * its last read there; the values set and not written to their slots
   * in the block being made (cur_lb), sl_list their slots. NULL: every
   * value is written at once. */
  uint32_t n_slots, cur_lb;
  uint32_t *sl_blk, *sl_last, *sl_list, sl_n;
  uint8_t *sl_set;            /* per slot: set in the block being made */
  uint32_t *sl_carry;         /* per slot: the self-loop block carrying it in
                                 a register from pass to pass, CB_NONE */
  LLVMBasicBlockRef *sl_loop; /* per local block: where its own edge goes
                                 (past its phis' loads), NULL: body */
  LLVMValueRef *sl_val;       /* per slot: its alloca (jit_slots_keep) */
  LLVMBasicBlockRef entry_bb; /* the kernel's entry, where allocas go */
} jit_gen;

/* jit.c: the types every kernel of module g->M uses (g->C, g->M set);
 * function fi's kernel into g->M (g->nphis set), false if it has none. */
void jit_make_types(jit_gen *g);
bool jit_gen_kernel(jit_gen *g, uint32_t fi);
/* jit.c: the locals' allocas, at the builder's place (an entry block);
 * the locals into io (before a call, on exit), and back. */
void jit_alloc_locals(jit_gen *g);
void jit_save_locals(jit_gen *g);
void jit_load_locals(jit_gen *g);
void jit_load_local(jit_gen *g, int which);
/* The same after a call returned: the frame's own cfa and prev stay. */
void jit_load_locals_after_call(jit_gen *g);
/* jit.c: whether block gb's machine-code accesses are ones a kernel
 * makes (not a vararg prologue's vector spills nor an inline sqrt's
 * path); a block whose are not gets no code. */
bool jit_mach_compiled(const cb_program *p, uint32_t gb);

/* jit_ops.c: the code of local block lb, at g->body[lb] (already made),
 * and the check of room for the way ahead of it (leaving at its start). */
void jit_block(jit_gen *g, uint32_t lb);
void jit_check(jit_gen *g, uint32_t lb);
/* jit_ops.c: the code of op ip (of global block gb), a covered op that is
 * no branch, switch, ret nor call the engine runs. */
void jit_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb);
/* jit_tpl.c: the iterations of local block lb, a block that is its own
 * successor, for its loop template (kernel.h's cb_tpl_kernel_io), into
 * g->tpl_fns[lb]; none when an op of it is not compiled. */
void jit_gen_tpl(jit_gen *g, uint32_t lb);
/* jit_call.c: an alloca op's code (op ip of global block gb); false
 * when the kernel leaves before it instead. */
bool jit_alloca_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb);
/* Whether a kernel computes the op (jit_ops.c's forms, the forms of the
 * files below, a lane-wise vector op as its scalar form). */
bool jit_op_covered(const cb_program *p, const cb_op *op);

/* jit_checks.c: where a kernel checks its budget and batch room. Each
 * check covers the longest way the code can go before the next one, so
 * only blocks a cycle returns to (and the blocks ahead of a long way)
 * check: head[lb], with need_ops[lb] operations and need_acc[lb]
 * accesses to have room for. body: the blocks with code. A kernel
 * entered at another block checks there too. */
#define JIT_CHECK_MAX_ACCESSES 256
#define JIT_CHECK_MAX_OPS 65536
void jit_check_points(const cb_program *p, const cb_function *fn,
                      const uint32_t *nphis, const bool *body, bool *head,
                      uint64_t *need_ops, uint64_t *need_acc);
/* jit_checks.c: the room the way from op ip of local block lb on needs,
 * up to the next check (after a call, which used up budget and batch). */
void jit_need_from(const jit_gen *g, uint32_t lb, uint32_t ip, uint64_t *ops,
                   uint64_t *acc);

/* jit.c helpers for jit_ops.c: io's field f (IO_*), loads and stores
 * with their alias class (TB_*), the locals (LV_*). */
LLVMValueRef jit_io_field(jit_gen *g, unsigned f);
LLVMValueRef jit_load(jit_gen *g, LLVMTypeRef ty, LLVMValueRef ptr, int tb);
void jit_store(jit_gen *g, LLVMValueRef v, LLVMValueRef ptr, int tb);
LLVMValueRef jit_lv(jit_gen *g, int which);
void jit_set_lv(jit_gen *g, int which, LLVMValueRef v);
/* The block that leaves the kernel before op ip (global), ip's block
 * `block` (global). */
LLVMBasicBlockRef jit_exit_before(jit_gen *g, uint32_t ip, uint32_t block);

/* jit_mem.c: a load's or store's code (op ip of global block gb); one
 * record into the batch (room checked); the machine code's own accesses
 * of global block gb made before op `at` (its first op: on entry from
 * local block `from`, CB_NONE: any), which jit_check_points counted. */
void jit_load_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb);
void jit_store_op(jit_gen *g, const cb_op *op, uint32_t ip, uint32_t gb);
void jit_emit(jit_gen *g, LLVMValueRef addr, unsigned size, uint32_t site,
              bool is_write);
/* The same with the record's second word (site | size << 32 | is_write
 * << 48) a value. */
void jit_emit_word(jit_gen *g, LLVMValueRef addr, LLVMValueRef word);
void jit_mach(jit_gen *g, uint32_t gb, uint32_t at, uint32_t from);
/* The phi moves of global block tgb entered from local block lb (an edge
 * or a loop's back edge): parallel, every lane; a phi that does not name
 * the edge gets 0, as the interpreter's. */
void jit_phi_moves(jit_gen *g, uint32_t lb, uint32_t tgb);

/* jit_cache.c: the object kept for a kernel module's text on this CPU
 * (NULL: none, or another text), and keeping one. */
LLVMMemoryBufferRef jit_cache_get(const char *dir, const char *text,
                                  const char *cpu, const char *features);
void jit_cache_put(const char *dir, const char *text, const char *cpu,
                   const char *features, LLVMMemoryBufferRef obj);

/* jit_cache.c: a key for the Program's content; the functions whose
 * kernels the last run of a Program with that key asked for (want[fi]:
 * 1 made at -O0, 2 at -O1; tier[fi] 0 or 1 when written), with the
 * blocks their last kernels had code for (blocks[gb] set, per global
 * block), and keeping them for the next. */
uint64_t jit_cache_program_key(const cb_program *p);
void jit_cache_index_read(const char *dir, uint64_t key, const cb_program *p,
                          uint8_t *want, uint8_t *blocks);
void jit_cache_index_write(const char *dir, uint64_t key, const cb_program *p,
                           const uint8_t *want, const uint8_t *tier,
                           const uint8_t *blocks);

/* jit_call.c: a call op's code (op ip of global block gb): a direct
 * call of the program's own function made natively (the frame pushed on
 * io->stack, the callee's kernel called), else the engine runs it
 * (io->call). */
void jit_call_op(jit_gen *g, uint32_t ip, uint32_t gb);
/* jit_call.c: the engine's io->call, io->ret or io->tpl (field) for op
 * ip of global block gb, with the locals handed over and one op of the
 * budget spent (none for io->tpl: the ip's op has not run). */
LLVMValueRef jit_call_engine(jit_gen *g, uint32_t ip, uint32_t gb,
                             unsigned field);
/* jit_call.c: function fi's entry for calls through pointers (kernel.h's
 * cb_kernel_io.entries) into g->M, named `name`, beside its kernel (made
 * by jit_gen_kernel); NULL when such calls of it are the engine's. */
LLVMValueRef jit_gen_entry(jit_gen *g, uint32_t fi, const char *name);
/* jit_call.c: per function, 1 when its address is among the Program's
 * constants or in a global's initial bytes (a table of pointers), so that
 * a call through a pointer may reach it: only those get an entry, whose
 * code each compile would otherwise pay for. NULL when out of memory. */
uint8_t *jit_addr_taken(const cb_program *p);
/* jit_call.c: a `ret` (op ip of global block gb), which returns to the
 * calling kernel (the frame popped natively, or by io->ret) or leaves to
 * the interpreter. */
void jit_ret_op(jit_gen *g, uint32_t ip, uint32_t gb);
/* jit_call.c: room for `ops` operations and `acc` accesses, else leave
 * before op ip of global block gb; a full batch is handed over first
 * (io->flush), so only the budget makes the kernel leave. */
void jit_room(jit_gen *g, uint64_t ops, uint64_t acc, uint32_t ip, uint32_t gb);

/* Small builders jit_ops.c and jit_mem.c share: a 64-bit constant, an
 * operand's slot word (or constant), a slot's new value, an exit, a
 * counter kept in a local. */
static inline LLVMValueRef jit_c64(jit_gen *g, uint64_t v) {
  return LLVMConstInt(g->i64, v, 0);
}

static inline LLVMValueRef jit_slot_ptr(jit_gen *g, uint32_t slot) {
  LLVMValueRef idx = jit_c64(g, slot);
  return LLVMBuildGEP2(g->B, g->i64, jit_lv(g, LV_SLOTS), &idx, 1, "");
}

/* jit_slots.c: which slots are block temporaries (g->fn set; false
 * when out of memory), and the values kept: a block's code begins with
 * none; whether slot is one the block being made keeps; keeping v for
 * it; whether an exit before op ip must write some (one read at ip or
 * later), and writing those (jit_slots_store) or writing them and
 * keeping none after (jit_slots_spill: before a call or `ret` the engine
 * or a callee runs). */
bool jit_slots_plan(jit_gen *g);
void jit_slots_free(jit_gen *g);
void jit_slots_begin(jit_gen *g, uint32_t lb);
bool jit_slots_kept(const jit_gen *g, uint32_t slot);
void jit_slots_keep(jit_gen *g, uint32_t slot, LLVMValueRef v);
LLVMValueRef jit_slots_value(jit_gen *g, uint32_t slot);
/* jit_slots.c, for a block that is its own successor: its phis' values
 * read into their registers, and code going on in a block of its own,
 * where the block's edge to itself goes (jit_slots_target); before an
 * edge out of the block, the slots it carries written (jit_slots_leave). */
void jit_slots_loop(jit_gen *g, uint32_t lb);
LLVMBasicBlockRef jit_slots_target(const jit_gen *g, uint32_t lb, uint32_t t);
void jit_slots_leave(jit_gen *g);
bool jit_slots_needed(const jit_gen *g, uint32_t ip);
void jit_slots_store(jit_gen *g, uint32_t ip);
void jit_slots_spill(jit_gen *g, uint32_t ip);

static inline LLVMValueRef jit_val(jit_gen *g, cb_operand o) {
  if (o & CB_OPND_CONST)
    return jit_c64(g, g->p->consts[o & ~CB_OPND_CONST].u);
  if (g->sl_val && !g->tpl && o < g->n_slots && g->sl_set[o])
    return jit_slots_value(g, o);
  return jit_load(g, g->i64, jit_slot_ptr(g, o), TB_SLOT);
}

static inline void jit_set(jit_gen *g, uint32_t dst, LLVMValueRef v) {
  if (jit_slots_kept(g, dst)) {
    jit_slots_keep(g, dst, v);
    return;
  }
  jit_store(g, v, jit_slot_ptr(g, dst), TB_SLOT);
}

/* Leaves before op ip when cond holds; code goes on after it. */
static inline void jit_guard(jit_gen *g, LLVMValueRef cond, uint32_t ip,
                             uint32_t gb) {
  /* a guard on constants that never holds (a division by a constant) */
  if (LLVMIsAConstantInt(cond) && LLVMConstIntGetZExtValue(cond) == 0)
    return;
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(g->C, g->F, "");
  LLVMBuildCondBr(g->B, cond, jit_exit_before(g, ip, gb), ok);
  LLVMPositionBuilderAtEnd(g->B, ok);
}

static inline LLVMValueRef jit_add_lv(jit_gen *g, int which, uint64_t n) {
  LLVMValueRef v = LLVMBuildAdd(g->B, jit_lv(g, which), jit_c64(g, n), "");
  jit_set_lv(g, which, v);
  return v;
}

/* ---- Forms beyond the scalar integer set: floating point, vectors,
 * aggregates, value intrinsics (jit_ops_fp.c, jit_ops_vec.c,
 * jit_ops_intr.c). Each computes what the interpreter's reference case
 * computes (analysis/engine/engine_interp.c, engine_scalar.h, libc.c's
 * cb_intrinsic_call), bit for bit. ---- */

/* Whether one of those files makes op's code (jit_ext_op); a vector op
 * of a lane-wise form (jit_lanewise) is instead made lane by lane as its
 * scalar form, in the interpreter's order. */
bool jit_ext_covered(const cb_program *p, const cb_op *op);
void jit_ext_op(jit_gen *g, const cb_op *op, uint32_t ip);
bool jit_lanewise(const cb_program *p, const cb_op *op);

/* jit_ops_fp.c: scalar floating-point arithmetic, negation, comparison
 * and the casts to and from floating point, on slot words. */
bool jit_fp_covered(const cb_op *op);
void jit_fp_op(jit_gen *g, const cb_op *op);
/* jit_ops_vec.c: lanes moved, picked or reinterpreted. */
bool jit_vec_covered(const cb_program *p, const cb_op *op);
void jit_vec_op(jit_gen *g, const cb_op *op, uint32_t ip);
/* jit_ops_intr.c: calls of value intrinsics. */
bool jit_intr_covered(const cb_program *p, const cb_op *op);
void jit_intr_op(jit_gen *g, const cb_op *op);

/* Slot words of f32 (a float in the low half, the rest zero) and f64. */
static inline LLVMValueRef jit_f32_of(jit_gen *g, LLVMValueRef w) {
  return LLVMBuildBitCast(g->B, LLVMBuildTrunc(g->B, w, g->i32, ""),
                          LLVMFloatTypeInContext(g->C), "");
}
static inline LLVMValueRef jit_word_f32(jit_gen *g, LLVMValueRef f) {
  return LLVMBuildZExt(g->B, LLVMBuildBitCast(g->B, f, g->i32, ""), g->i64, "");
}
static inline LLVMValueRef jit_f64_of(jit_gen *g, LLVMValueRef w) {
  return LLVMBuildBitCast(g->B, w, g->f64, "");
}
static inline LLVMValueRef jit_word_f64(jit_gen *g, LLVMValueRef d) {
  return LLVMBuildBitCast(g->B, d, g->i64, "");
}
/* An integer of type ty masked to its width, and sign-extended from it
 * (engine_scalar.h's cb_ty_mask and sx). */
static inline LLVMValueRef jit_mask(jit_gen *g, LLVMValueRef v, unsigned ty) {
  uint64_t m = cb_ty_mask((cb_ty)ty);
  return m == ~0ull ? v : LLVMBuildAnd(g->B, v, jit_c64(g, m), "");
}
static inline LLVMValueRef jit_sx(jit_gen *g, LLVMValueRef v, unsigned ty) {
  unsigned s = ty < CB_TY_COUNT ? cb_ty_sx_shift((cb_ty)ty) : 0;
  if (s == 0)
    return v;
  return LLVMBuildAShr(g->B, LLVMBuildShl(g->B, v, jit_c64(g, s), ""),
                       jit_c64(g, s), "");
}
/* A call of the host's C library function at addr (the same glibc whose
 * values the interpreter takes), of type ret(args). */
LLVMValueRef jit_host_call(jit_gen *g, const void *addr, LLVMTypeRef ret,
                           LLVMValueRef *args, unsigned n);
/* A slot word of type ty (f32 or f64) from a double, as the interpreter's
 * put_d ((float)d for f32), and a lane read as a double (lane_d). */
LLVMValueRef jit_put_d(jit_gen *g, LLVMValueRef d, unsigned ty);
LLVMValueRef jit_lane_d(jit_gen *g, LLVMValueRef w, unsigned ty);
/* x with the quiet bit set if it is a NaN (engine_scalar.h's
 * fp_quiet_d/f), on slot words of type ty. */
LLVMValueRef jit_quiet(jit_gen *g, LLVMValueRef w, unsigned ty);
/* engine_scalar.h's fbin on slot words, for f32 or f64. */
LLVMValueRef jit_fbin(jit_gen *g, unsigned code, unsigned ty, LLVMValueRef a,
                      LLVMValueRef b);
/* ---- end of the forms beyond the scalar integer set ---- */

#endif
