/* prep.c: the linked module before it is lowered.
 *
 * - The constant intrinsics (llvm.is.constant, llvm.objectsize) are folded
 *   as code generation folds them: LLVM's LowerConstantIntrinsics pass,
 *   which the x86 backend runs at every optimisation level (after it, a
 *   branch on the folded value is unconditional, as in the machine code).
 * - The runtime functions the program calls that the real executable takes
 *   from libgcc, complex multiplication and division (runtime/complex.c,
 *   compiled to bitcode when cbana is built and embedded here), are linked
 *   into the module as program code: the engine runs them as the compiled
 *   code they are, at the address the linker gave libgcc's copy. */
#include "fe_internal.h"

#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/Scalar.h>
#include <string.h>

extern const unsigned char cb_runtime_complex_bc[];
extern const size_t cb_runtime_complex_bc_size;

static const char *const complex_fns[] = {"__muldc3", "__mulsc3", "__mulxc3",
                                          "__divdc3", "__divsc3", "__divxc3"};

static bool declared_and_used(LLVMModuleRef m, const char *name) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, name);
  return fn && LLVMIsDeclaration(fn) && LLVMGetFirstUse(fn);
}

static bool has_intrinsic(LLVMModuleRef m, const char *prefix) {
  size_t pl = strlen(prefix);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn;
       fn = LLVMGetNextFunction(fn)) {
    size_t len;
    const char *nm = LLVMGetValueName2(fn, &len);
    if (len > pl && !strncmp(nm, prefix, pl) && nm[pl] == '.' &&
        LLVMGetFirstUse(fn))
      return true;
  }
  return false;
}

static bool link_runtime(fe *f) {
  bool need[sizeof complex_fns / sizeof *complex_fns], any = false;
  for (size_t i = 0; i < sizeof complex_fns / sizeof *complex_fns; i++)
    any |= need[i] = declared_and_used(f->mod, complex_fns[i]);
  if (!any)
    return true;
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRange(
      (const char *)cb_runtime_complex_bc, cb_runtime_complex_bc_size,
      "runtime_complex.bc", false);
  LLVMModuleRef rt = NULL;
  bool ok = !LLVMParseBitcodeInContext2(f->ctx, buf, &rt);
  LLVMDisposeMemoryBuffer(buf);
  if (!ok) {
    fe_errf(f->err, CB_FE_ERR_INTERNAL,
            "cbana: the complex-arithmetic runtime's bitcode is unreadable\n");
    return false;
  }
  /* only what the program calls: the others would be functions without
   * code in the executable */
  for (size_t i = 0; i < sizeof complex_fns / sizeof *complex_fns; i++) {
    LLVMValueRef fn = LLVMGetNamedFunction(rt, complex_fns[i]);
    if (fn && !need[i])
      LLVMDeleteFunction(fn);
  }
  LLVMSetTarget(rt, LLVMGetTarget(f->mod));
  LLVMSetDataLayout(rt, LLVMGetDataLayoutStr(f->mod));
  if (LLVMLinkModules2(f->mod, rt)) {
    fe_errf(f->err, CB_FE_ERR_INTERNAL,
            "cbana: the complex-arithmetic runtime does not link with the "
            "program\n");
    return false;
  }
  return true;
}

static void lower_constant_intrinsics(fe *f) {
  if (!has_intrinsic(f->mod, "llvm.is.constant") &&
      !has_intrinsic(f->mod, "llvm.objectsize"))
    return;
  LLVMPassManagerRef pm = LLVMCreatePassManager();
  /* basic alias analysis requires the target library information, which
   * the pass then finds: objectsize knows malloc's and calloc's objects
   * through it, as in code generation */
  LLVMAddBasicAliasAnalysisPass(pm);
  LLVMAddLowerConstantIntrinsicsPass(pm);
  LLVMRunPassManager(pm, f->mod);
  LLVMDisposePassManager(pm);
}

bool fe_prepare_module(fe *f) {
  if (!link_runtime(f))
    return false;
  lower_constant_intrinsics(f);
  return true;
}
