/* jit_compile.c: native kernels (kernel.h) compiled with LLVM's ORC JIT
 * when the engine asks for them (cb_program.kernel_request): on a thread
 * of its own, beside the engine, which interprets a function until its
 * kernel appears. Each function is a module of its own, so that its
 * object can be kept in the cache directory and loaded again by the next
 * run of the same program (jit_cache.c). A function is asked for once it
 * is hot (the engine's rule), so a program pays for compiling only the
 * code it runs much: the compile takes 0.6 to 1 ms an op at -O1.
 *
 * Of a function, only the blocks that have run by then get code
 * (program.h's kernel_ran); the kernel leaves to the interpreter at the
 * others, and when those run much the engine asks again, and the
 * function is compiled again with every block run so far, a few times,
 * then whole. A kernel is first made by LLVM's quick code generator
 * (-O0: a fifth of the time, code half as fast), and made again at -O1
 * once it has run long enough to pay for that. With eager kernels (the
 * frontend's option, for the identity tests) the engine asks at a
 * function's first block and the whole function is compiled at -O1 in
 * its thread, waited for. */
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
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Kernels of more ops are not compiled (the time would grow past what
 * they could save on the inputs cbana is run on). */
#define JIT_MAX_OPS 20000
/* Compiles of a function again with more of the blocks run; the next
 * one is whole. */
#define JIT_PARTIAL_COMPILES 3
/* A kernel made at -O0 of c ops is made again at -O1 once it has run
 * JIT_UP_PER_OP * c ops (at least JIT_UP_MIN): -O1 takes about 1 ms more
 * an op, and its code saves 1 to 2 ns an op run (ReedSolomon: 3.6 s of
 * engine over 3.1e9 ops), so it pays off after some 500000; earlier,
 * since a kernel that has run that much mostly runs on (at 500000
 * ReedSolomon's engine took 1.7 s longer, huffbench's 1.3 s). */
#define JIT_UP_PER_OP 100000u
#define JIT_UP_MIN 10000000u
/* A function whose kernel has code for c ops is compiled again once its
 * blocks without code have run JIT_AGAIN_PER_OP * c ops at -O0, or
 * JIT_AGAIN_PER_OP_O1 * c at -O1 (at least JIT_AGAIN_MIN): what the
 * interpreter takes for as long as the compile would (about 25 ns an
 * op, with the kernel's exit and entry; 0.25 ms an op at -O0, 1.5 ms at
 * -O1 for a long function, whose register allocation takes longer). */
#define JIT_AGAIN_PER_OP 10000u
#define JIT_AGAIN_PER_OP_O1 60000u
#define JIT_AGAIN_MIN 100000u

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

/* The host's target machine, its code generator at `level`: the JIT's
 * and the ones that make the objects it loads. On pr (bench/workloads,
 * 10^8 accesses) -O0's fast instruction selection compiled in 0.02 s but
 * its code took the engine 2.06 s instead of 1.26; -O1 and -O2 both
 * compile in 0.15 s, to code equally fast. On Misc/ReedSolomon's 1323
 * ops -O1 took 2.3 s of CPU, -O0 0.43 s, for an engine of 4.6 s against
 * 10.0 s; two thirds of -O1's time is its register allocator's (greedy
 * allocation and coalescing, llc -time-passes). */
static LLVMTargetMachineRef host_machine(LLVMCodeGenOptLevel level,
                                         char **err) {
  char *triple = LLVMGetDefaultTargetTriple();
  char *cpu = LLVMGetHostCPUName();
  char *features = LLVMGetHostCPUFeatures();
  LLVMTargetRef target = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (!LLVMGetTargetFromTriple(triple, &target, err))
    tm = LLVMCreateTargetMachine(target, triple, cpu, features, level,
                                 LLVMRelocDefault, LLVMCodeModelJITDefault);
  LLVMDisposeMessage(triple);
  LLVMDisposeMessage(cpu);
  LLVMDisposeMessage(features);
  return tm;
}

static LLVMErrorRef create_jit(LLVMOrcLLJITRef *jit) {
  char *msg = NULL;
  LLVMTargetMachineRef tm = host_machine(LLVMCodeGenLevelLess, &msg);
  LLVMErrorRef err = NULL;
  if (!tm) {
    err = LLVMCreateStringError(msg ? msg : "no target for the host");
  } else {
    LLVMOrcLLJITBuilderRef b = LLVMOrcCreateLLJITBuilder();
    LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
        b, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm));
    err = LLVMOrcCreateLLJIT(jit, b);
  }
  LLVMDisposeMessage(msg);
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

/* The compiler's state, owned by the Program (cb_program.jit). Requests
 * queue under `lock`; the thread takes all that wait, compiles them
 * together and publishes each kernel in p->kernels. Every thread is
 * joined before the Program is freed or the process exits (LLVM's own
 * statics are destroyed at exit). */
typedef struct jit_owned {
  cb_program *p;
  uint32_t *nphis;
  LLVMOrcLLJITRef jit;      /* owns the kernels' code */
  LLVMTargetMachineRef tm;  /* makes the objects jit loads, at -O1 */
  LLVMTargetMachineRef tm0; /* the same at -O0 */
  char *cpu, *features;     /* the host's, in the cache's keys */
  char *cache_dir;          /* NULL: nothing kept between runs */
  bool broken;              /* LLVM failed: no more requests taken */
  bool eager;               /* compile in the asking thread */
  pthread_mutex_t lock;
  pthread_cond_t wake, idle;
  uint32_t *queue, n_queued;
  uint8_t *state;   /* per function: JS_* */
  uint8_t *wanted;  /* per function: asked for by the engine */
  uint8_t *nth;     /* per function: its compiles so far */
  uint8_t *nmore;   /* per function: of those, with more blocks */
  uint8_t *ran;     /* per global block: p->kernel_ran */
  uint8_t *code;    /* per global block: p->kernel_code */
  uint64_t *more;   /* per function: p->kernel_more */
  uint64_t *up;     /* per function: p->kernel_up */
  uint64_t *interp; /* per function: p->kernel_interp */
  uint8_t *tier;    /* per function: its kernel's, 0 -O0, 1 -O1 */
  uint8_t *taken;   /* per function: jit_addr_taken's; NULL: every one */
  /* per function, NULL: none; to compile first with the blocks of
   * pin_blocks (the last run's): 1 at -O0, 2 at -O1 */
  uint8_t *pin;
  uint8_t *pin_blocks; /* per global block */
  /* ops in the latest kernel of each function (a recompile replaces
   * its function's count), and those functions' ops */
  uint64_t ops_compiled, ops_whole;
  uint64_t *ops_now; /* per function: its latest kernel's ops */
  uint32_t recompiles, tier_ups;
  uint64_t program_key;
  bool busy, quit;
  pthread_t thread;
  bool running; /* started and not yet joined */
  uint32_t n_kernels;
  double seconds;         /* the compiles' CPU time */
  struct jit_owned *next; /* the running compiles, for exit */
} jit_owned;

/* A function's state (jit_owned.state): not asked for; queued or being
 * compiled; with a kernel of the blocks run so far or at -O0, to be
 * asked for again; with its whole kernel at -O1, or never to have one. */
enum { JS_NEW, JS_QUEUED, JS_OPEN, JS_DONE };

static pthread_mutex_t running_lock = PTHREAD_MUTEX_INITIALIZER;
static jit_owned *running_list;
static pthread_once_t llvm_once = PTHREAD_ONCE_INIT;

static void llvm_init(void) {
  LLVMInitializeNativeTarget();
  LLVMInitializeNativeAsmPrinter();
}

static double thread_cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* What one compile made (compile_one). */
typedef struct jit_made {
  bool kernel;     /* a kernel published */
  bool partial;    /* of the blocks run so far, not all */
  uint8_t tier;    /* made at -O0 (0) or -O1 (1) */
  uint64_t ops;    /* its ops */
  uint64_t fn_ops; /* its function's */
} jit_made;

/* The blocks function fi's kernel is to have code for (per local block,
 * 1 to have it), NULL for every one: the whole function when eager or
 * after JIT_PARTIAL_COMPILES more, else those run so far (at least the
 * first). m->ops: their ops; *fail when out of memory. */
static uint8_t *pick_blocks(jit_owned *o, uint32_t fi, jit_made *m,
                            bool *fail) {
  const cb_program *p = o->p;
  const cb_function *fn = &p->functions[fi];
  uint32_t n = fn->n_blocks, o0, o1, in = 0;
  cb_function_ops(p, fn, &o0, &o1);
  m->fn_ops = o1 - o0;
  m->ops = m->fn_ops;
  *fail = false;
  if (o->eager ||
      (o->nmore[fi] >= JIT_PARTIAL_COMPILES && m->fn_ops <= JIT_MAX_OPS))
    return NULL;
  uint8_t *only = calloc(n + 1, 1);
  if (!only) {
    *fail = true;
    return NULL;
  }
  m->ops = 0;
  /* the last run's blocks, as its index says, for the same module */
  const uint8_t *from =
      o->pin && o->pin[fi] && o->nth[fi] == 0 ? o->pin_blocks : o->ran;
  for (uint32_t lb = 0; lb < n; lb++) {
    uint32_t gb = fn->first_block + lb;
    only[lb] = lb == 0 || __atomic_load_n(&from[gb], __ATOMIC_RELAXED);
    if (only[lb]) {
      in++;
      m->ops += p->blocks[gb].n_ops;
    }
  } /* at -O1, a function most of whose blocks have run is compiled whole,
     * rather than again at -O1's cost when the rest runs */
  if (in == n ||
      (m->tier == 1 && 2 * m->ops >= m->fn_ops && m->fn_ops <= JIT_MAX_OPS)) {
    m->ops = m->fn_ops;
    free(only);
    return NULL;
  }
  m->partial = true;
  return only;
}

/* The kernel's non-temporal stores (the batch's records, for another
 * core) made plain, for -O0: its code spills between a record's two
 * words, and the write-combining buffers then flush part lines (Dhrystone
 * with the simulation on its own thread: 3.6 s of engine instead of
 * 0.1). The records are the same. */
static void plain_stores(jit_gen *g) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(g->F); bb;
       bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i;
         i = LLVMGetNextInstruction(i))
      if (LLVMGetInstructionOpcode(i) == LLVMStore &&
          LLVMGetMetadata(i, g->nt_kind))
        LLVMSetMetadata(i, g->nt_kind, NULL);
}

/* Function fi's kernel: its module made and optimised, its object taken
 * from the cache or made (and kept), loaded into the JIT and published
 * with the blocks it has code for; false if LLVM failed (the message
 * said why). */
static bool compile_one(jit_owned *o, uint32_t fi, jit_made *m) {
  bool fail;
  /* -O1 when eager, as the last run's was, once the -O0 kernel has run
   * enough (kernel_up counted down), and ever after */
  if (o->eager)
    m->tier = 1;
  else if (o->nth[fi] == 0)
    m->tier = o->pin && o->pin[fi] == 2;
  else
    m->tier = o->tier[fi] || __atomic_load_n(&o->up[fi], __ATOMIC_RELAXED) == 0;
  uint8_t *only = pick_blocks(o, fi, m, &fail);
  if (fail || m->ops > JIT_MAX_OPS) {
    m->partial = false;
    free(only);
    return true;
  }
  LLVMContextRef C = LLVMContextCreate();
  const cb_function *fn = &o->p->functions[fi];
  jit_gen g = {
      .p = o->p, .nphis = o->nphis, .only = only, .C = C, .quick = !m->tier};
  g.tpl_fns =
      o->p->tpl_kernels ? calloc(fn->n_blocks + 1, sizeof *g.tpl_fns) : NULL;
  g.M = LLVMModuleCreateWithNameInContext("cbana-kernel", C);
  LLVMSetTarget(g.M, LLVMOrcLLJITGetTripleString(o->jit));
  LLVMSetDataLayout(g.M, LLVMOrcLLJITGetDataLayoutStr(o->jit));
  g.B = LLVMCreateBuilderInContext(C);
  jit_make_types(&g);
  bool made = jit_gen_kernel(&g, fi);
  /* a kernel of some blocks is named for them, one at -O0 for that: each
   * compile of a function adds a symbol of its own to the JIT, and the
   * same blocks give the same module (the cache's key) in the next run */
  char name[64];
  int len = snprintf(name, sizeof name, "cbk%u", fi);
  if (made && only)
    len +=
        snprintf(name + len, sizeof name - (size_t)len, ".%016llx",
                 (unsigned long long)fe_fnv(FE_FNV_START, only, fn->n_blocks));
  if (made && m->tier == 0)
    len += snprintf(name + len, sizeof name - (size_t)len, ".O0");
  if (made && (only || m->tier == 0))
    LLVMSetValueName2(g.F, name, (size_t)len);
  /* its entry for calls through pointers, named for the kernel */
  char ename[72];
  snprintf(ename, sizeof ename, "%.*s.e", len, name);
  LLVMValueRef ef = made && o->p->kernel_entries && (!o->taken || o->taken[fi])
                        ? jit_gen_entry(&g, fi, ename)
                        : NULL;
  bool entry = ef != NULL;
  LLVMDisposeBuilder(g.B);
  /* a loop's iterations for its template: the kernel's name and the
   * block's */
  char(*tnames)[80] =
      made && g.tpl_fns ? calloc(fn->n_blocks + 1, sizeof *tnames) : NULL;
  for (uint32_t lb = 0; tnames && lb < fn->n_blocks; lb++)
    if (g.tpl_fns[lb]) {
      int tl = snprintf(tnames[lb], sizeof tnames[lb], "%.*s.t%u", len, name,
                        fn->first_block + lb);
      LLVMSetValueName2(g.tpl_fns[lb], tnames[lb], (size_t)tl);
    }
  LLVMMemoryBufferRef obj = NULL;
  bool ok = true;
  if (made && m->tier == 0) {
    plain_stores(&g);
    jit_gen ge = g;
    ge.F = ef;
    if (ef)
      plain_stores(&ge);
  }
  if (made) {
    optimise(g.M);
    char *text = LLVMPrintModuleToString(g.M);
    obj = o->cache_dir ? jit_cache_get(o->cache_dir, text, o->cpu, o->features)
                       : NULL;
    char *msg = NULL;
    if (!obj &&
        LLVMTargetMachineEmitToMemoryBuffer(m->tier ? o->tm : o->tm0, g.M,
                                            LLVMObjectFile, &msg, &obj)) {
      fprintf(stderr,
              "cbana: native kernels not compiled (the interpreter "
              "runs them): %s\n",
              msg ? msg : "no object");
      obj = NULL;
      ok = false;
    } else if (o->cache_dir && obj) {
      jit_cache_put(o->cache_dir, text, o->cpu, o->features, obj);
    }
    LLVMDisposeMessage(msg);
    LLVMDisposeMessage(text);
  }
  LLVMDisposeModule(g.M);
  LLVMContextDispose(C);
  LLVMErrorRef err = NULL;
  LLVMOrcExecutorAddress addr = 0;
  /* the object, before LLJIT takes it, for a profile's look at the code */
  const char *dump = getenv("CBANA_KERNEL_DUMP");
  char dpath[4200] = "";
  if (obj && dump && *dump) {
    snprintf(dpath, sizeof dpath, "%s/%d-%s-%u.o", dump, (int)getpid(), name,
             o->nth[fi]);
    FILE *df = fopen(dpath, "wb");
    if (df) {
      fwrite(LLVMGetBufferStart(obj), 1, LLVMGetBufferSize(obj), df);
      fclose(df);
    }
  }
  if (obj && !(err = LLVMOrcLLJITAddObjectFile(
                   o->jit, LLVMOrcLLJITGetMainJITDylib(o->jit), obj)))
    err = LLVMOrcLLJITLookup(o->jit, &addr, name);
  if (addr && dpath[0])
    fprintf(stderr, "cbana: kernel %s at %#llx: %s\n", name,
            (unsigned long long)addr, dpath);
  if (err) {
    jit_fail(err);
    ok = false;
  }
  for (uint32_t lb = 0; addr && tnames && lb < fn->n_blocks; lb++) {
    LLVMOrcExecutorAddress ta = 0;
    if (!g.tpl_fns[lb])
      continue;
    err = LLVMOrcLLJITLookup(o->jit, &ta, tnames[lb]);
    if (err) {
      jit_fail(err);
      ok = false;
      break;
    }
    /* the engines may be running: each reads its entry atomically */
    __atomic_store_n(&o->p->tpl_kernels[fn->first_block + lb],
                     (cb_tpl_kernel_fn)(uintptr_t)ta, __ATOMIC_RELEASE);
  }
  free(tnames);
  free(g.tpl_fns);
  LLVMOrcExecutorAddress ea = 0;
  if (addr && entry && (err = LLVMOrcLLJITLookup(o->jit, &ea, ename))) {
    jit_fail(err);
    ok = false;
    ea = 0;
  }
  if (ea) /* read atomically, as the kernels */
    __atomic_store_n(&o->p->kernel_entries[fi],
                     (cb_kernel_entry_fn)(uintptr_t)ea, __ATOMIC_RELEASE);
  if (addr) {
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
      __atomic_store_n(&o->code[fn->first_block + lb],
                       (uint8_t)(!only || only[lb]), __ATOMIC_RELAXED);
    /* the engine may be running: it reads each entry atomically */
    __atomic_store_n(&o->p->kernels[fi], (cb_kernel_fn)(uintptr_t)addr,
                     __ATOMIC_RELEASE);
    m->kernel = true;
  }
  m->partial = m->partial && m->kernel;
  free(only);
  return ok;
}

/* Queues function c to be made at -O1 if its kernel is at -O0;
 * o->lock held. */
static void up_one(jit_owned *o, uint64_t c) {
  if (c >= o->p->n_functions || o->state[c] != JS_OPEN || o->tier[c] != 0)
    return;
  __atomic_store_n(&o->up[c], 0, __ATOMIC_RELAXED);
  o->state[c] = JS_QUEUED;
  o->queue[o->n_queued++] = (uint32_t)c;
}

/* Queues the functions with kernels at -O0 that function fi calls, to be
 * made at -O1: a callee its kernel calls natively runs inside the
 * caller's entry, and its own count towards -O1 never moves. Through a
 * pointer: the functions whose address is taken and that take as many
 * parameters. o->lock held. */
static void up_callees(jit_owned *o, uint32_t fi) {
  const cb_program *p = o->p;
  uint32_t o0, o1;
  cb_function_ops(p, &p->functions[fi], &o0, &o1);
  for (uint32_t ip = o0; ip < o1; ip++) {
    const cb_op *op = &p->ops[ip];
    if (op->code != CB_OP_CALL || op->aux + 3 >= p->n_extra)
      continue;
    if (p->extra[op->aux] == CB_CALL_DIRECT)
      up_one(o, (uint64_t)p->extra[op->aux + 1]);
    if (p->extra[op->aux] != CB_CALL_INDIRECT || !o->taken)
      continue;
    for (uint32_t c = 0; c < p->n_functions; c++)
      if (o->taken[c] && p->functions[c].n_params == p->extra[op->aux + 3])
        up_one(o, c);
  }
}

/* Compiles fis[0..n); o->lock not held. */
static void compile_batch(jit_owned *o, const uint32_t *fis, uint32_t n) {
  double t0 = thread_cpu_s();
  pthread_once(&llvm_once, llvm_init);
  if (!o->jit && !o->broken) {
    char *msg = NULL;
    LLVMErrorRef err = create_jit(&o->jit);
    if (err) {
      jit_fail(err);
      o->broken = true;
    } else if (!(o->tm = host_machine(LLVMCodeGenLevelLess, &msg)) ||
               !(o->tm0 = host_machine(LLVMCodeGenLevelNone, &msg))) {
      fprintf(stderr, "cbana: native kernels not compiled: %s\n",
              msg ? msg : "no target for the host");
      o->broken = true;
    } else {
      o->cpu = LLVMGetHostCPUName();
      o->features = LLVMGetHostCPUFeatures();
    }
    LLVMDisposeMessage(msg);
  }
  for (uint32_t i = 0; i < n; i++) {
    uint32_t fi = fis[i];
    jit_made m = {0};
    if (!o->broken)
      o->broken = !compile_one(o, fi, &m);
    pthread_mutex_lock(&o->lock);
    bool up = m.kernel && m.tier > o->tier[fi] && o->nth[fi] > 0;
    if (m.kernel) {
      o->n_kernels += o->nth[fi] == 0;
      o->recompiles += o->nth[fi] != 0 && !up;
      o->nmore[fi] += o->nth[fi] != 0 && !up;
      o->tier_ups += up;
      o->ops_whole += o->nth[fi] == 0 ? m.fn_ops : 0;
      o->ops_compiled += m.ops - o->ops_now[fi];
      o->ops_now[fi] = m.ops;
      o->nth[fi]++;
      o->tier[fi] = m.tier;
    }
    /* a kernel of some blocks is asked for again once the others have
     * run enough, one at -O0 once it has run enough itself
     * (analysis/engine/engine_kblocks.h counts both down) */
    bool low = m.kernel && m.tier == 0;
    o->state[fi] = m.partial || low ? JS_OPEN : JS_DONE;
    uint64_t again = (m.tier ? JIT_AGAIN_PER_OP_O1 : JIT_AGAIN_PER_OP) * m.ops,
             more = JIT_UP_PER_OP * m.ops;
    __atomic_store_n(&o->more[fi],
                     !m.partial              ? 0
                     : again > JIT_AGAIN_MIN ? again
                                             : JIT_AGAIN_MIN,
                     __ATOMIC_RELAXED);
    __atomic_store_n(&o->up[fi],
                     !low                ? 0
                     : more > JIT_UP_MIN ? more
                                         : JIT_UP_MIN,
                     __ATOMIC_RELAXED);
    /* the -O0 kernels a kernel now at -O1 calls: their ops counted as
     * its own (a kernel's calls of kernels), they are as hot */
    if (up)
      up_callees(o, fi);
    pthread_mutex_unlock(&o->lock);
  }
  double t1 = thread_cpu_s();
  pthread_mutex_lock(&o->lock);
  o->seconds += t1 - t0;
  pthread_mutex_unlock(&o->lock);
}

static void *compile_thread(void *arg) {
  jit_owned *o = arg;
  uint32_t cap = 0, *batch = NULL;
  pthread_mutex_lock(&o->lock);
  for (;;) {
    while (!o->quit && o->n_queued == 0)
      pthread_cond_wait(&o->wake, &o->lock);
    if (o->quit)
      break;
    uint32_t n = o->n_queued;
    if (n > cap) {
      uint32_t *nb = realloc(batch, n * sizeof *nb);
      if (!nb)
        break;
      batch = nb;
      cap = n;
    }
    memcpy(batch, o->queue, n * sizeof *batch);
    o->n_queued = 0;
    o->busy = true;
    pthread_mutex_unlock(&o->lock);
    compile_batch(o, batch, n);
    pthread_mutex_lock(&o->lock);
    o->busy = false;
    pthread_cond_broadcast(&o->idle);
  }
  o->busy = false;
  pthread_cond_broadcast(&o->idle);
  pthread_mutex_unlock(&o->lock);
  free(batch);
  return NULL;
}

/* cb_program.kernel_request: the first time, or again (JS_OPEN) */
static void request(const cb_program *cp, uint32_t fi) {
  jit_owned *o = cp->jit;
  if (!o || fi >= cp->n_functions)
    return;
  pthread_mutex_lock(&o->lock);
  bool take = (o->state[fi] == JS_NEW || o->state[fi] == JS_OPEN) &&
              !o->broken && !o->quit;
  if (take)
    o->state[fi] = JS_QUEUED;
  o->wanted[fi] |= take;
  if (take && o->eager) {
    /* one compile at a time: LLJIT's module adds are serialised here */
    while (o->busy)
      pthread_cond_wait(&o->idle, &o->lock);
    o->busy = true;
    pthread_mutex_unlock(&o->lock);
    compile_batch(o, &fi, 1);
    pthread_mutex_lock(&o->lock);
    o->busy = false;
    pthread_cond_broadcast(&o->idle);
  } else if (take) {
    o->queue[o->n_queued++] = fi;
    if (!o->running) {
      pthread_mutex_lock(&running_lock);
      o->running = pthread_create(&o->thread, NULL, compile_thread, o) == 0;
      if (o->running) {
        o->next = running_list;
        running_list = o;
      }
      pthread_mutex_unlock(&running_lock);
    }
    if (o->running) {
      pthread_cond_signal(&o->wake);
    } else {
      o->n_queued = 0; /* no thread: the interpreter runs it */
    }
  }
  pthread_mutex_unlock(&o->lock);
}

/* Waits for the queue to empty and the compile to finish; the counts go
 * to the Program. */
void fe_jit_wait(cb_program *p) {
  jit_owned *o = p ? p->jit : NULL;
  if (!o)
    return;
  pthread_mutex_lock(&o->lock);
  while (o->running && (o->n_queued || o->busy))
    pthread_cond_wait(&o->idle, &o->lock);
  p->n_kernels = o->n_kernels;
  p->kernel_compile_s = o->seconds;
  p->kernel_ops_compiled = o->ops_compiled;
  p->kernel_ops_whole = o->ops_whole;
  p->kernel_recompiles = o->recompiles;
  p->kernel_tier_ups = o->tier_ups;
  pthread_mutex_unlock(&o->lock);
}

static void stop_thread(jit_owned *o) {
  pthread_mutex_lock(&running_lock);
  bool was = o->running;
  o->running = false;
  for (jit_owned **q = &running_list; *q; q = &(*q)->next)
    if (*q == o) {
      *q = o->next;
      break;
    }
  pthread_mutex_unlock(&running_lock);
  if (!was)
    return;
  pthread_mutex_lock(&o->lock);
  o->quit = true;
  pthread_cond_signal(&o->wake);
  pthread_mutex_unlock(&o->lock);
  pthread_join(o->thread, NULL);
}

static void join_all_at_exit(void) {
  for (;;) {
    pthread_mutex_lock(&running_lock);
    jit_owned *o = running_list;
    pthread_mutex_unlock(&running_lock);
    if (!o)
      return;
    stop_thread(o);
  }
}

void fe_jit_free(void *owned) {
  jit_owned *o = owned;
  if (!o)
    return;
  stop_thread(o);
  if (o->cache_dir && !o->eager)
    jit_cache_index_write(o->cache_dir, o->program_key, o->p, o->wanted,
                          o->tier, o->code);
  if (o->jit)
    LLVMOrcDisposeLLJIT(o->jit);
  if (o->tm)
    LLVMDisposeTargetMachine(o->tm);
  if (o->tm0)
    LLVMDisposeTargetMachine(o->tm0);
  LLVMDisposeMessage(o->cpu);
  LLVMDisposeMessage(o->features);
  free(o->cache_dir);
  pthread_mutex_destroy(&o->lock);
  pthread_cond_destroy(&o->wake);
  pthread_cond_destroy(&o->idle);
  free(o->nphis);
  free(o->queue);
  free(o->state);
  free(o->wanted);
  free(o->nth);
  free(o->nmore);
  free(o->ops_now);
  free(o->ran);
  free(o->code);
  free(o->more);
  free(o->up);
  free(o->interp);
  free(o->tier);
  free(o->taken);
  free(o->pin);
  free(o->pin_blocks);
  free(o);
}

void fe_jit_compile(cb_program *p, bool eager, const char *cache_dir) {
  jit_owned *o = calloc(1, sizeof *o);
  cb_kernel_fn *k = calloc(p->n_functions + 1, sizeof *k);
  uint32_t nf = p->n_functions + 1, nb = p->n_blocks + 1;
  if (o) {
    o->queue = calloc(nf, sizeof *o->queue);
    o->state = calloc(nf, 1);
    o->wanted = calloc(nf, 1);
    o->nth = calloc(nf, 1);
    o->nmore = calloc(nf, 1);
    o->ops_now = calloc(nf, sizeof *o->ops_now);
    o->more = calloc(nf, sizeof *o->more);
    o->up = calloc(nf, sizeof *o->up);
    o->interp = calloc(nf, sizeof *o->interp);
    o->tier = calloc(nf, 1);
    o->ran = calloc(nb, 1);
    o->code = calloc(nb, 1);
    o->nphis = count_phis(p);
  }
  if (!o || !k || !o->queue || !o->state || !o->wanted || !o->nth ||
      !o->nmore || !o->ops_now || !o->more || !o->up || !o->interp ||
      !o->tier || !o->ran || !o->code || !o->nphis) {
    if (o) {
      free(o->queue);
      free(o->state);
      free(o->wanted);
      free(o->nth);
      free(o->nmore);
      free(o->ops_now);
      free(o->more);
      free(o->up);
      free(o->interp);
      free(o->tier);
      free(o->ran);
      free(o->code);
      free(o->nphis);
    }
    free(o);
    free(k);
    return;
  }
  /* functions without a body are never asked for; one too long to pay
   * off is found so when its blocks run are counted (compile_one). A
   * function that calls setjmp has its kernel too: the setjmp is a call
   * the engine makes (io->call); a longjmp, from a kernel or a callee of
   * one, makes every kernel leave at once (CB_KCALL_STOP, as exit()
   * does), and setjmp's second return, in the middle of its block, is
   * the interpreter's (kernels start at block starts). */
  for (uint32_t fi = 0; fi < p->n_functions; fi++)
    if (p->functions[fi].n_blocks == 0)
      o->state[fi] = JS_DONE;
  o->p = p;
  o->eager = eager;
  o->cache_dir = cache_dir ? strdup(cache_dir) : NULL;
  pthread_mutex_init(&o->lock, NULL);
  pthread_cond_init(&o->wake, NULL);
  pthread_cond_init(&o->idle, NULL);
  p->kernels = k; /* NULL entries until compiled */
  p->tpl_kernels = calloc(p->n_blocks + 1, sizeof *p->tpl_kernels);
  p->kernel_entries = calloc(p->n_functions + 1, sizeof *p->kernel_entries);
  o->taken = jit_addr_taken(p);
  p->kernel_ran = o->ran;
  p->kernel_code = o->code;
  p->kernel_more = o->more;
  p->kernel_interp = o->interp;
  p->kernel_up = o->up;
  p->jit = o;
  p->kernel_request = request;
  p->kernel_eager = eager;
  pthread_mutex_lock(&running_lock);
  static bool registered;
  if (!registered)
    registered = atexit(join_all_at_exit) == 0;
  pthread_mutex_unlock(&running_lock);
  /* the functions the last run of this program asked for are asked for
   * at once, each with the blocks of its last compile (taken as run):
   * their objects are in the cache, and the run has its kernels from
   * the start */
  if (o->cache_dir && !eager) {
    o->pin = calloc(nf, 1);
    o->pin_blocks = calloc(nb, 1);
    o->program_key = jit_cache_program_key(p);
    if (o->pin && o->pin_blocks)
      jit_cache_index_read(o->cache_dir, o->program_key, p, o->pin,
                           o->pin_blocks);
    for (uint32_t fi = 0; o->pin && o->pin_blocks && fi < p->n_functions; fi++)
      if (o->pin[fi])
        request(p, fi);
  }
}
