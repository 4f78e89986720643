/* engine_varargs.c: a call of a variadic function the program defines
 * that calls va_start (cb_function.va_save1): the arguments' values where
 * the SysV x86-64 ABI puts them (3.2.3 classification, 3.5.7 the register
 * save area), so that va_arg and vfprintf read them from memory as the
 * real process does:
 *  - integers and pointers in the first six integer registers, spilled by
 *    the callee's prologue into its save area at 8 x k;
 *  - floating point values and vectors of up to 16 bytes in xmm0..7,
 *    spilled at 48 + 16 x k (only when %al, the count the caller passes,
 *    is not zero);
 *  - the rest, byval aggregates included, in order on the stack from the
 *    caller's rsp, each in 8-byte slots (16-byte vectors 16-aligned),
 *    which becomes the callee's overflow area above its return address
 *    (placed below the caller's frame, as byval copies are).
 * The values are written without accesses: the caller's stores of stack
 * arguments and the prologue's spills are machine code the frontend found
 * (cb_mach_access; the xmm spills marked va_xmm). */
#include <string.h>

#include "engine_frames.h"
#include "engine_internal.h"
#include "engine_scalar.h"

enum { GP, SSE, MEM };

static int arg_class(unsigned ty, unsigned lanes, uint32_t byval,
                     uint64_t *bytes) {
  unsigned l = lanes ? lanes : 1;
  uint64_t size = (uint64_t)cb_ty_bytes(ty) * l;
  if (byval) {
    *bytes = byval;
    return MEM;
  }
  *bytes = size;
  if (ty == CB_TY_F32 || ty == CB_TY_F64 || (l > 1 && size <= 16))
    return SSE;
  if (l == 1 && ty != CB_TY_VOID)
    return GP;
  return MEM;
}

cb_stop eng_call_vararg(cb_eng *e, const cb_op *op, uint32_t callee,
                        const cb_value *const *vals, const uint8_t *tys,
                        const uint8_t *lanes, const uint32_t *byval,
                        uint32_t nargs, uint32_t site) {
  enum { MAXA = 64 };
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[callee];
  cb_frame *F = &e->frames[e->depth - 1];
  int cls[MAXA];
  uint64_t bytes[MAXA], at[MAXA];
  unsigned ngp = 0, nfp = 0;
  uint64_t total = 0;
  for (uint32_t k = 0; k < nargs && k < MAXA; k++) {
    cls[k] = arg_class(tys[k], lanes[k], byval[k], &bytes[k]);
    if (cls[k] == GP && ngp < 6) {
      at[k] = 8 * ngp++;
    } else if (cls[k] == SSE && nfp < 8) {
      at[k] = 48 + 16 * nfp++;
    } else {
      /* a register class with no register left goes to memory too */
      cls[k] = MEM;
      uint64_t align = bytes[k] > 8 && !byval[k] ? 16 : 8;
      total = (total + align - 1) & ~(align - 1);
      at[k] = total;
      total += (bytes[k] + 7) & ~7ull;
    }
  }
  /* Optimized code pushes stack arguments below the caller's frame
     (X86CallFrameOptimization), 16-aligned, as eng_do_call places byval
     copies. Without optimization (optnone: X86PassConfig::addPreRegAlloc
     runs that pass only above -O0) the caller stores them at its rsp, the
     bottom of its reserved argument area (the frame's `sub rsp, N`),
     unless a dynamic alloca left it no reserved area
     (X86FrameLowering::hasReservedCallFrame): `sub rsp` before the call */
  const cb_function *cf = &e->p->functions[F->func];
  bool reserved = cf->optnone && !e->fn_dyn_alloca[F->func];
  uint64_t base =
      total && !reserved ? eng_align_down(F->sp - total, 16) : F->sp;
  cb_value argv_copy[MAXA * 4];
  const cb_value *argp[MAXA];
  uint32_t used = 0;
  for (uint32_t k = 0; k < nargs && k < MAXA; k++) {
    unsigned l = lanes[k] ? lanes[k] : 1;
    if (used + l > MAXA * 4)
      l = 1;
    argp[k] = &argv_copy[used];
    for (unsigned i = 0; i < l; i++)
      argv_copy[used + i] = vals[k][i];
    used += l;
    if (cls[k] != MEM)
      continue;
    uint64_t dst = base + at[k];
    if (byval[k]) {
      /* the caller copies the aggregate into the argument area */
      if (eng_copy_byval(e, vals[k][0].u, dst, byval[k], site) != CB_GO)
        return CB_FAIL;
      argv_copy[used - l].u = dst;
    } else {
      uint8_t buf[16] = {0};
      unsigned eb = cb_ty_bytes(tys[k]);
      for (unsigned i = 0; i < l && (i + 1) * eb <= sizeof buf; i++)
        store_lane(buf + i * eb, &vals[k][i], tys[k]);
      cb_mem_write(&e->pr.mem, dst, buf, (bytes[k] + 7) & ~7ull, NULL);
    }
  }
  /* %al: the vector registers used, which the prologue tests */
  e->va_al_next = nfp > 0;
  cb_stop st = eng_push_frame(e, callee, base, (uint32_t)(op - p->ops), site);
  e->va_al_next = 0;
  if (st != CB_GO)
    return st;
  cb_frame *C = &e->frames[e->depth - 1];
  uint64_t save = C->cfa + (uint64_t)e->fo_off[fn->va_save1 - 1];
  for (uint32_t k = 0; k < nargs && k < MAXA; k++) {
    if (cls[k] == MEM)
      continue;
    uint8_t buf[16] = {0};
    unsigned l = lanes[k] ? lanes[k] : 1, eb = cb_ty_bytes(tys[k]);
    /* the copies: the slot stack may have moved */
    for (unsigned i = 0; i < l && (i + 1) * eb <= sizeof buf; i++)
      store_lane(buf + i * eb, &argp[k][i], tys[k]);
    cb_mem_write(&e->pr.mem, save + at[k], buf, cls[k] == GP ? 8 : 16, NULL);
  }
  eng_set_params(e, callee, argp, lanes, nargs);
  return CB_GO;
}
