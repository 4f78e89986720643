/* sse_fp.h: floating-point arithmetic as the program's x86-64 machine
 * code does it (SSE's NaN rule, fused or unfused multiply-add), on host
 * doubles and floats. Shared by the engine's interpreter
 * (engine_scalar.h) and the C library model's intrinsics (libc.c), which
 * must round alike. */
#ifndef CBANA_ANALYSIS_SSE_FP_H
#define CBANA_ANALYSIS_SSE_FP_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* x86-64's SSE arithmetic (addsd, mulss, ...) returns its first operand
 * when that is a NaN, quieted, whatever the second (Intel SDM vol. 1,
 * 4.8.3.5, table 4-7), and LLVM's x86-64 backend emits fadd a, b as
 * addsd with a first. C's x + y and x * y leave that order to the compiler
 * that built cbana (both commute, and an unoptimised build swaps them
 * where an optimised one does not), so a NaN first operand is returned
 * explicitly: a NaN's sign and payload do not depend on how cbana was
 * compiled. A NaN second operand alone, and the default NaN of an invalid
 * operation, come out of the hardware the same in either order. */
static inline double fp_quiet_d(double x) {
  uint64_t u;
  memcpy(&u, &x, 8);
  u |= 1ull << 51;
  memcpy(&x, &u, 8);
  return x;
}
static inline float fp_quiet_f(float x) {
  uint32_t u;
  memcpy(&u, &x, 4);
  u |= 1u << 22;
  memcpy(&x, &u, 4);
  return x;
}
/* fadd_d, fsub_d, fmul_d, fdiv_d and their float forms (_f), from one
 * definition: the first operand's NaN, quieted, else the operation. */
#define SSE_FP_OP(name, op, T, sfx)                                            \
  static inline T name##_##sfx(T x, T y) {                                     \
    return isnan(x) ? fp_quiet_##sfx(x) : x op y;                              \
  }
#define SSE_FP_OPS(T, sfx)                                                     \
  SSE_FP_OP(fadd, +, T, sfx)                                                   \
  SSE_FP_OP(fsub, -, T, sfx)                                                   \
  SSE_FP_OP(fmul, *, T, sfx)                                                   \
  SSE_FP_OP(fdiv, /, T, sfx)
SSE_FP_OPS(double, d)
SSE_FP_OPS(float, f)
#undef SSE_FP_OPS
#undef SSE_FP_OP

/* llvm.fma, and llvm.fmuladd where the target fuses it: one rounding;
 * llvm.fmuladd elsewhere: a multiply and an add, as x86-64's backend
 * emits it without FMA (program.h, fmuladd_fused). */
static inline double muladd_d(bool fused, double a, double b, double c) {
  return fused ? fma(a, b, c) : fadd_d(fmul_d(a, b), c);
}
static inline float muladd_f(bool fused, float a, float b, float c) {
  return fused ? fmaf(a, b, c) : fadd_f(fmul_f(a, b), c);
}

#endif
