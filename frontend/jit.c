/* jit.c: native kernels (program.h, "Native kernels"): which functions get
 * one, the kernel's frame (entry, exit, the counters it keeps), and the
 * compilation with LLVM's ORC JIT. The ops themselves are jit_ops.c's.
 *
 * Why. Where addresses come from loaded data no loop template applies,
 * and the interpreter runs every op: about 4.7 ns an op on pr and tc
 * (bench/results/fast.md), where cachegrind runs the program's own machine
 * code. A kernel is that machine code for the lowered ops, working on the
 * interpreter's state (its slots, its page translation cache, its access
 * batch), so what it computes and emits is what the interpreter would;
 * anything unusual it leaves to the interpreter by returning before the
 * op. The identity tests (tests/e2e/fast_identity.py) compare both
 * engines counter for counter.
 *
 * Which loops: jit_region.c's (addresses from loaded or scrambled data);
 * the rest run as loop templates, and compiling them would only cost
 * time. The compile runs on a thread beside the engine (below). */
#include "fe_internal.h"
#include "jit_gen.h"

#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/InstCombine.h>
#include <llvm-c/Transforms/Scalar.h>
#include <llvm-c/Transforms/Utils.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Functions of more ops are not compiled (the time would grow past what
 * they could save on the inputs cbana is run on). */
#define JIT_MAX_OPS 20000
/* Nor more ops in all regions together: a run that ends before the
 * compile waits for it, and the compile takes 0.6 to 1 ms an op (pr's
 * 249: 0.24 s; kernel_cases' 295: 0.18 s), so at most about a second. */
#define JIT_MAX_REGION_OPS 1000

LLVMValueRef jit_load(jit_gen *g, LLVMTypeRef ty, LLVMValueRef ptr, int tb) {
  LLVMValueRef v = LLVMBuildLoad2(g->B, ty, ptr, "");
  LLVMSetMetadata(v, g->tbaa_kind, g->tbaa[tb]);
  if (tb == TB_MEM)
    LLVMSetAlignment(v, 1);
  return v;
}

void jit_store(jit_gen *g, LLVMValueRef v, LLVMValueRef ptr, int tb) {
  LLVMValueRef s = LLVMBuildStore(g->B, v, ptr);
  LLVMSetMetadata(s, g->tbaa_kind, g->tbaa[tb]);
  if (tb == TB_MEM)
    LLVMSetAlignment(s, 1);
}

LLVMValueRef jit_lv(jit_gen *g, int which) {
  LLVMTypeRef t = which == LV_PREV ? g->i32 : g->i64;
  return LLVMBuildLoad2(g->B, t, g->lv[which], "");
}

void jit_set_lv(jit_gen *g, int which, LLVMValueRef v) {
  LLVMBuildStore(g->B, v, g->lv[which]);
}

LLVMBasicBlockRef jit_exit_before(jit_gen *g, uint32_t ip, uint32_t block) {
  uint32_t k = ip - g->first_op;
  if (g->exits[k])
    return g->exits[k];
  LLVMBasicBlockRef here = LLVMGetInsertBlock(g->B);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->C, g->F, "exit");
  LLVMPositionBuilderAtEnd(g->B, bb);
  LLVMBuildBr(g->B, g->exit_bb);
  LLVMValueRef ipv = LLVMConstInt(g->i32, ip, 0);
  LLVMValueRef bv = LLVMConstInt(g->i32, block, 0);
  LLVMAddIncoming(g->exit_ip, &ipv, &bb, 1);
  LLVMAddIncoming(g->exit_block, &bv, &bb, 1);
  LLVMPositionBuilderAtEnd(g->B, here);
  g->exits[k] = bb;
  return bb;
}

static LLVMValueRef io_field(jit_gen *g, unsigned f) {
  return LLVMBuildStructGEP2(g->B, g->io_ty, g->io, f, "");
}

/* The io fields each local mirrors. */
static const unsigned lv_field[LV_COUNT] = {IO_NBATCH,   IO_BUDGET, IO_STORES,
                                            IO_BRANCHES, IO_SIG_V,  IO_SIG_N,
                                            IO_PATH_SIG, IO_PREV};

static void make_types(jit_gen *g) {
  g->i1 = LLVMInt1TypeInContext(g->C);
  g->i8 = LLVMInt8TypeInContext(g->C);
  g->i16 = LLVMInt16TypeInContext(g->C);
  g->i32 = LLVMInt32TypeInContext(g->C);
  g->i64 = LLVMInt64TypeInContext(g->C);
  g->f64 = LLVMDoubleTypeInContext(g->C);
  g->p8 = LLVMPointerType(g->i8, 0);
  g->p64 = LLVMPointerType(g->i64, 0);
  LLVMTypeRef f[IO_NFIELDS];
  for (unsigned i = 0; i < IO_NFIELDS; i++)
    f[i] = i >= IO_IP ? g->i32 : g->i64;
  f[IO_SLOTS] = g->p64;
  f[IO_TLB] = g->p64; /* pairs of words: pno, data */
  f[IO_STOP] = g->p8;
  f[IO_OP_FLAGS] = g->p8;
  f[IO_COUNTS] = g->p64;
  f[IO_BATCH] = g->p8;
  g->io_ty = LLVMStructTypeInContext(g->C, f, IO_NFIELDS, 0);
  /* scalar type-based alias metadata: a root and one type per kind */
  static const char *const names[TB_COUNT] = {"slot", "mem",   "io",
                                              "tlb",  "table", "batch"};
  g->tbaa_kind = LLVMGetMDKindIDInContext(g->C, "tbaa", 4);
  LLVMMetadataRef root_s = LLVMMDStringInContext2(g->C, "cbana kernel", 12);
  LLVMMetadataRef root = LLVMMDNodeInContext2(g->C, &root_s, 1);
  LLVMMetadataRef zero = LLVMValueAsMetadata(LLVMConstInt(g->i64, 0, 0));
  for (int t = 0; t < TB_COUNT; t++) {
    LLVMMetadataRef ty_ops[3] = {
        LLVMMDStringInContext2(g->C, names[t], strlen(names[t])), root, zero};
    LLVMMetadataRef ty = LLVMMDNodeInContext2(g->C, ty_ops, 3);
    LLVMMetadataRef tag_ops[3] = {ty, ty, zero};
    g->tbaa[t] =
        LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, tag_ops, 3));
  }
  g->nt_kind = LLVMGetMDKindIDInContext(g->C, "nontemporal", 11);
  LLVMMetadataRef one = LLVMValueAsMetadata(LLVMConstInt(g->i32, 1, 0));
  g->nt_node = LLVMMetadataAsValue(g->C, LLVMMDNodeInContext2(g->C, &one, 1));
  LLVMTypeRef fty =
      LLVMFunctionType(g->f64, (LLVMTypeRef[]){g->f64, g->f64, g->f64}, 3, 0);
  g->fma = LLVMAddFunction(g->M, "llvm.fma.f64", fty);
}

static void gen_free(jit_gen *g) {
  free(g->body);
  free(g->exits);
  free(g->head);
  free(g->need_ops);
  free(g->need_acc);
  g->body = NULL;
  g->exits = NULL;
  g->head = NULL;
  g->need_ops = g->need_acc = NULL;
}

/* Which blocks get code (those of the region without machine-code
 * accesses) and where they check their room; false when out of memory. */
static bool plan_blocks(jit_gen *g, const bool *region) {
  const cb_function *fn = g->fn;
  uint32_t n = fn->n_blocks;
  bool *has_body = calloc(n + 1, sizeof *has_body);
  g->head = calloc(n + 1, sizeof *g->head);
  g->need_ops = calloc(n + 1, sizeof *g->need_ops);
  g->need_acc = calloc(n + 1, sizeof *g->need_acc);
  if (!has_body || !g->head || !g->need_ops || !g->need_acc) {
    free(has_body);
    return false;
  }
  for (uint32_t lb = 0; lb < n; lb++) {
    const cb_block *b = &g->p->blocks[fn->first_block + lb];
    if (region[lb] && b->n_mach == 0) {
      g->body[lb] = LLVMAppendBasicBlockInContext(g->C, g->F, "b");
      has_body[lb] = true;
    }
  }
  jit_check_points(g->p, fn, g->nphis, has_body, g->head, g->need_ops,
                   g->need_acc);
  free(has_body);
  return true;
}

/* The exit: the locals back into io, io->loads as records minus stores,
 * and where the interpreter goes on (the phis every exit adds to). */
static void build_leave(jit_gen *g, LLVMValueRef *start, LLVMValueRef loads0) {
  LLVMBuilderRef B = g->B;
  LLVMPositionBuilderAtEnd(B, g->exit_bb);
  g->exit_ip = LLVMBuildPhi(B, g->i32, "ip");
  g->exit_block = LLVMBuildPhi(B, g->i32, "block");
  for (int k = 0; k < LV_COUNT; k++)
    jit_store(g, jit_lv(g, k), io_field(g, lv_field[k]), TB_IO);
  LLVMValueRef emitted =
      LLVMBuildSub(B, jit_lv(g, LV_NBATCH), start[LV_NBATCH], "");
  LLVMValueRef stored =
      LLVMBuildSub(B, jit_lv(g, LV_STORES), start[LV_STORES], "");
  jit_store(g,
            LLVMBuildAdd(B, loads0, LLVMBuildSub(B, emitted, stored, ""), ""),
            io_field(g, IO_LOADS), TB_IO);
  jit_store(g, g->exit_ip, io_field(g, IO_IP), TB_IO);
  jit_store(g, g->exit_block, io_field(g, IO_BLOCK), TB_IO);
  LLVMBuildRetVoid(B);
}

/* The entry: a switch on the block to start at; a block that does not
 * check its room (jit_check_points) is entered through a check. */
static void build_entries(jit_gen *g, LLVMValueRef blk) {
  const cb_function *fn = g->fn;
  uint32_t entries = 0;
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
    entries += g->body[lb] != NULL;
  LLVMBasicBlockRef none = LLVMAppendBasicBlockInContext(g->C, g->F, "none");
  LLVMValueRef sw = LLVMBuildSwitch(g->B, blk, none, entries);
  for (uint32_t lb = 0; lb < fn->n_blocks; lb++) {
    if (!g->body[lb])
      continue;
    LLVMBasicBlockRef in = g->body[lb];
    if (!g->head[lb]) {
      in = LLVMAppendBasicBlockInContext(g->C, g->F, "enter");
      LLVMPositionBuilderAtEnd(g->B, in);
      jit_check(g, lb);
      LLVMBuildBr(g->B, g->body[lb]);
    }
    LLVMAddCase(sw, LLVMConstInt(g->i32, fn->first_block + lb, 0), in);
  }
  LLVMPositionBuilderAtEnd(g->B, none);
  LLVMBuildRetVoid(g->B);
}

/* The kernel of function fi into g->M, with code for the blocks of
 * `region`; false if it has nothing to run. */
static bool gen_kernel(jit_gen *g, uint32_t fi, const bool *region) {
  const cb_program *p = g->p;
  const cb_function *fn = &p->functions[fi];
  g->fn = fn;
  g->first_op = p->blocks[fn->first_block].first_op;
  const cb_block *bl = &p->blocks[fn->first_block + fn->n_blocks - 1];
  uint32_t n_ops = bl->first_op + bl->n_ops - g->first_op;
  g->body = calloc(fn->n_blocks, sizeof *g->body);
  g->exits = calloc(n_ops + 1, sizeof *g->exits);
  if (!g->body || !g->exits) {
    gen_free(g);
    return false;
  }
  char name[32];
  snprintf(name, sizeof name, "cbk%u", fi);
  LLVMTypeRef pio = LLVMPointerType(g->io_ty, 0);
  g->F = LLVMAddFunction(
      g->M, name, LLVMFunctionType(LLVMVoidTypeInContext(g->C), &pio, 1, 0));
  g->io = LLVMGetParam(g->F, 0);
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMAddAttributeAtIndex(g->F, 1, LLVMCreateEnumAttribute(g->C, noalias, 0));
  unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
  LLVMAddAttributeAtIndex(g->F, LLVMAttributeFunctionIndex,
                          LLVMCreateEnumAttribute(g->C, nounwind, 0));

  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->C, g->F, "entry");
  g->exit_bb = LLVMAppendBasicBlockInContext(g->C, g->F, "leave");
  LLVMPositionBuilderAtEnd(g->B, entry);
  g->slots = jit_load(g, g->p64, io_field(g, IO_SLOTS), TB_IO);
  g->tlb = jit_load(g, g->p64, io_field(g, IO_TLB), TB_IO);
  g->stop = jit_load(g, g->p8, io_field(g, IO_STOP), TB_IO);
  g->op_flags = jit_load(g, g->p8, io_field(g, IO_OP_FLAGS), TB_IO);
  g->counts = jit_load(g, g->p64, io_field(g, IO_COUNTS), TB_IO);
  g->batch = jit_load(g, g->p8, io_field(g, IO_BATCH), TB_IO);
  g->cap = jit_load(g, g->i64, io_field(g, IO_CAP), TB_IO);
  g->stream = LLVMBuildICmp(g->B, LLVMIntNE,
                            jit_load(g, g->i64, io_field(g, IO_STREAM), TB_IO),
                            LLVMConstInt(g->i64, 0, 0), "");
  LLVMValueRef start[LV_COUNT];
  for (int k = 0; k < LV_COUNT; k++) {
    LLVMTypeRef t = k == LV_PREV ? g->i32 : g->i64;
    g->lv[k] = LLVMBuildAlloca(g->B, t, "");
    start[k] = jit_load(g, t, io_field(g, lv_field[k]), TB_IO);
    LLVMBuildStore(g->B, start[k], g->lv[k]);
  }
  LLVMValueRef loads0 = jit_load(g, g->i64, io_field(g, IO_LOADS), TB_IO);
  LLVMValueRef blk = jit_load(g, g->i32, io_field(g, IO_BLOCK), TB_IO);

  bool ok = plan_blocks(g, region);
  if (ok) {
    build_leave(g, start, loads0);
    LLVMPositionBuilderAtEnd(g->B, entry);
    build_entries(g, blk);
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
      if (g->body[lb]) {
        LLVMPositionBuilderAtEnd(g->B, g->body[lb]);
        jit_block(g, lb);
      }
  } else {
    LLVMDeleteFunction(g->F); /* half made */
  }
  gen_free(g);
  return ok;
}

static uint32_t *count_phis(const cb_program *p) {
  uint32_t *np = calloc(p->n_blocks + 1, sizeof *np);
  if (!np)
    return NULL;
  for (uint32_t b = 0; b < p->n_blocks; b++) {
    const cb_block *bl = &p->blocks[b];
    while (np[b] < bl->n_ops && p->ops[bl->first_op + np[b]].code == CB_OP_PHI)
      np[b]++;
  }
  return np;
}

static void jit_fail(LLVMErrorRef err) {
  char *m = LLVMGetErrorMessage(err);
  fprintf(stderr,
          "cbana: native kernels not compiled (the interpreter "
          "runs them): %s\n",
          m);
  LLVMDisposeErrorMessage(m);
}

/* LLJIT for the host's CPU, its code generator at -O1. On pr (bench/
 * workloads, 10^8 accesses) -O0's fast instruction selection compiled in
 * 0.02 s but its code took the engine 2.06 s instead of 1.26; -O1 and -O2
 * both compile in 0.15 s, to code equally fast. */
static LLVMErrorRef create_jit(LLVMOrcLLJITRef *jit) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target = NULL;
  char *msg = NULL;
  LLVMErrorRef err = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &msg)) {
    err = LLVMCreateStringError(msg ? msg : "no target for the host");
  } else {
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, cpu, features, LLVMCodeGenLevelLess, LLVMRelocDefault,
        LLVMCodeModelJITDefault);
    LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        b, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    err = LLVMOrcCreateLLJIT(jit, b);
  }
  LLVMDisposeMessage(msg);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return err;
}

/* Optimises the kernels' module: the counters kept in locals to
 * registers, common loads and expressions once (the type-based alias
 * metadata lets slot values live across stores to the program's memory),
 * the guards' blocks merged. LLVM's whole -O2 module pipeline took 0.17 s
 * on pr for code no faster than these passes' (0.02 s). */
static void optimise(LLVMModuleRef m) {
  LLVMPassManagerRef pm = LLVMCreatePassManager();
  LLVMAddTypeBasedAliasAnalysisPass(pm);
  LLVMAddBasicAliasAnalysisPass(pm);
  LLVMAddPromoteMemoryToRegisterPass(pm);
  LLVMAddEarlyCSEMemSSAPass(pm);
  LLVMAddInstructionCombiningPass(pm);
  LLVMAddCFGSimplificationPass(pm);
  LLVMRunPassManager(pm, m);
  LLVMDisposePassManager(pm);
}

/* Compiles the kernels of the functions with a region into jit; false
 * (and a message) if LLVM failed. */
static bool compile(cb_program *p, bool **region, LLVMOrcLLJITRef jit,
                    cb_kernel_fn *k) {
  LLVMOrcThreadSafeContextRef tsc = LLVMOrcCreateNewThreadSafeContext();
  jit_gen g = {.p = p};
  g.C = LLVMOrcThreadSafeContextGetContext(tsc);
  g.M = LLVMModuleCreateWithNameInContext("cbana-kernels", g.C);
  LLVMSetTarget(g.M, LLVMOrcLLJITGetTripleString(jit));
  LLVMSetDataLayout(g.M, LLVMOrcLLJITGetDataLayoutStr(jit));
  g.B = LLVMCreateBuilderInContext(g.C);
  uint32_t *nphis = count_phis(p);
  g.nphis = nphis;
  make_types(&g);
  for (uint32_t fi = 0; nphis && fi < p->n_functions; fi++)
    if (region[fi] && !gen_kernel(&g, fi, region[fi])) {
      free(region[fi]);
      region[fi] = NULL;
    }
  free(nphis);
  LLVMDisposeBuilder(g.B);
  optimise(g.M);
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(g.M, tsc);
  LLVMOrcDisposeThreadSafeContext(tsc);
  LLVMErrorRef err =
      LLVMOrcLLJITAddLLVMIRModule(jit, LLVMOrcLLJITGetMainJITDylib(jit), tsm);
  if (err) {
    LLVMOrcDisposeThreadSafeModule(tsm);
    jit_fail(err);
    return false;
  }
  for (uint32_t fi = 0; fi < p->n_functions; fi++) {
    if (!region[fi])
      continue;
    char name[32];
    snprintf(name, sizeof name, "cbk%u", fi);
    LLVMOrcExecutorAddress addr = 0;
    err = LLVMOrcLLJITLookup(jit, &addr, name);
    if (err) {
      jit_fail(err);
      return false;
    }
    /* the engine may be running: it reads each entry atomically */
    __atomic_store_n(&k[fi], (cb_kernel_fn)(uintptr_t)addr, __ATOMIC_RELEASE);
  }
  return true;
}

/* The compile runs on a thread of its own while the engine starts
 * (interpreting until a kernel appears), and every thread is joined
 * before the Program is freed or the process exits (LLVM's own statics
 * are destroyed at exit). On pr and tc (bench/workloads) it takes 0.2 s,
 * which in line was an eighth of cachegrind's whole run. */
typedef struct jit_owned {
  cb_program *p;
  bool **region;       /* per function, freed by the thread */
  LLVMOrcLLJITRef jit; /* owns the kernels' code */
  pthread_t thread;
  bool running; /* started and not yet joined */
  uint32_t n_kernels;
  double seconds;         /* the thread's CPU time */
  struct jit_owned *next; /* the running compiles, for exit */
} jit_owned;

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static jit_owned *running_list;

static void *compile_thread(void *arg) {
  jit_owned *o = arg;
  cb_program *p = o->p;
  struct timespec t0, t1;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
  LLVMErrorRef err = create_jit(&o->jit);
  if (err)
    jit_fail(err);
  else
    compile(p, o->region, o->jit, p->kernels);
  for (uint32_t fi = 0; fi < p->n_functions; fi++) {
    o->n_kernels += __atomic_load_n(&p->kernels[fi], __ATOMIC_ACQUIRE) != NULL;
    free(o->region[fi]);
  }
  free(o->region);
  o->region = NULL;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
  o->seconds = (double)(t1.tv_sec - t0.tv_sec) +
               1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  return NULL;
}

static void join(jit_owned *o) {
  pthread_mutex_lock(&running_lock);
  bool was = o->running;
  o->running = false;
  for (jit_owned **q = &running_list; *q; q = &(*q)->next)
    if (*q == o) {
      *q = o->next;
      break;
    }
  pthread_mutex_unlock(&running_lock);
  if (was)
    pthread_join(o->thread, NULL);
  o->p->n_kernels = o->n_kernels;
  o->p->kernel_compile_s = o->seconds;
}

static void join_all_at_exit(void) {
  for (;;) {
    pthread_mutex_lock(&running_lock);
    jit_owned *o = running_list;
    pthread_mutex_unlock(&running_lock);
    if (!o)
      return;
    join(o);
  }
}

void fe_jit_free(void *owned) {
  jit_owned *o = owned;
  if (!o)
    return;
  join(o);
  if (o->jit)
    LLVMOrcDisposeLLJIT(o->jit);
  free(o);
}

void fe_jit_wait(cb_program *p) {
  if (p && p->jit)
    join(p->jit);
}

void fe_jit_compile(cb_program *p) {
  bool **region = calloc(p->n_functions + 1, sizeof *region);
  uint32_t n = 0, total = 0;
  for (uint32_t fi = 0; region && fi < p->n_functions; fi++) {
    const cb_function *fn = &p->functions[fi];
    if (fn->n_blocks == 0)
      continue;
    const cb_block *bl = &p->blocks[fn->first_block + fn->n_blocks - 1];
    uint32_t n_ops =
        bl->first_op + bl->n_ops - p->blocks[fn->first_block].first_op;
    if (n_ops > JIT_MAX_OPS || !(region[fi] = jit_region(p, fn)))
      continue;
    uint32_t r_ops = 0;
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
      if (region[fi][lb])
        r_ops += p->blocks[fn->first_block + lb].n_ops;
    if (total + r_ops > JIT_MAX_REGION_OPS) {
      free(region[fi]);
      region[fi] = NULL;
      continue;
    }
    total += r_ops;
    n++;
  }
  cb_kernel_fn *k = n ? calloc(p->n_functions, sizeof *k) : NULL;
  jit_owned *o = n ? calloc(1, sizeof *o) : NULL;
  if (!k || !o) {
    for (uint32_t fi = 0; region && fi < p->n_functions; fi++)
      free(region[fi]);
    free(region);
    free(k);
    free(o);
    return;
  }
  o->p = p;
  o->region = region;
  p->kernels = k; /* NULL entries until the thread fills them */
  p->jit = o;
  pthread_mutex_lock(&running_lock);
  static bool registered;
  if (!registered)
    registered = atexit(join_all_at_exit) == 0;
  o->running = pthread_create(&o->thread, NULL, compile_thread, o) == 0;
  if (o->running) {
    o->next = running_list;
    running_list = o;
  }
  pthread_mutex_unlock(&running_lock);
  if (!o->running)
    compile_thread(o); /* no thread: in line */
}
