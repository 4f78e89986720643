/* libc_names.h: the C library functions and LLVM intrinsics that a
 * Program may call without defining them, part of the Program contract.
 *
 * The frontend resolves a call to an undefined function by name through
 * this list (a function missing here and from the sources is an error it
 * reports with every call site); the engine in analysis/ implements each
 * one (its result, and its memory traffic as glibc 2.36 generates it).
 * One X-macro list keeps the two sides in step.
 */
#ifndef CBANA_LIBC_NAMES_H
#define CBANA_LIBC_NAMES_H

/* X(id, "name") */
#define CB_LIBC_FUNCTIONS(X)                                                   \
  X(MALLOC, "malloc")                                                          \
  X(CALLOC, "calloc")                                                          \
  X(REALLOC, "realloc")                                                        \
  X(FREE, "free")                                                              \
  X(POSIX_MEMALIGN, "posix_memalign")                                          \
  X(ALIGNED_ALLOC, "aligned_alloc")                                            \
  X(MEMALIGN, "memalign")                                                      \
  X(MEMSET, "memset")                                                          \
  X(MEMCPY, "memcpy")                                                          \
  X(MEMMOVE, "memmove")                                                        \
  X(MEMCMP, "memcmp")                                                          \
  X(STRLEN, "strlen")                                                          \
  X(STRCPY, "strcpy")                                                          \
  X(STRNCPY, "strncpy")                                                        \
  X(STRCMP, "strcmp")                                                          \
  X(STRNCMP, "strncmp")                                                        \
  X(STRCHR, "strchr")                                                          \
  X(RAND, "rand")                                                              \
  X(SRAND, "srand")                                                            \
  X(RANDOM, "random")                                                          \
  X(SRANDOM, "srandom")                                                        \
  X(ATOI, "atoi")                                                              \
  X(ATOL, "atol")                                                              \
  X(ATOLL, "atoll")                                                            \
  X(ATOF, "atof")                                                              \
  X(STRTOL, "strtol")                                                          \
  X(STRTOUL, "strtoul")                                                        \
  X(STRTOLL, "strtoll")                                                        \
  X(STRTOULL, "strtoull")                                                      \
  X(STRTOD, "strtod")                                                          \
  X(STRTOF, "strtof")                                                          \
  X(PRINTF, "printf")                                                          \
  X(FPRINTF, "fprintf")                                                        \
  X(SPRINTF, "sprintf")                                                        \
  X(SNPRINTF, "snprintf")                                                      \
  X(PUTS, "puts")                                                              \
  X(PUTCHAR, "putchar")                                                        \
  X(FPUTS, "fputs")                                                            \
  X(FPUTC, "fputc")                                                            \
  X(FWRITE, "fwrite")                                                          \
  X(FFLUSH, "fflush")                                                          \
  X(SCANF, "scanf")                                                            \
  X(ISOC99_SCANF, "__isoc99_scanf")                                            \
  X(FSCANF, "fscanf")                                                          \
  X(ISOC99_FSCANF, "__isoc99_fscanf")                                          \
  X(SSCANF, "sscanf")                                                          \
  X(ISOC99_SSCANF, "__isoc99_sscanf")                                          \
  X(GETCHAR, "getchar")                                                        \
  X(EXIT, "exit")                                                              \
  X(ABORT, "abort")                                                            \
  X(ASSERT_FAIL, "__assert_fail")                                              \
  X(CLOCK, "clock")                                                            \
  X(TIME, "time")                                                              \
  X(GETTIMEOFDAY, "gettimeofday")                                              \
  X(CLOCK_GETTIME, "clock_gettime")                                            \
  X(QSORT, "qsort")                                                            \
  X(ABS, "abs")                                                                \
  X(LABS, "labs")                                                              \
  X(SQRT, "sqrt")                                                              \
  X(SQRTF, "sqrtf")                                                            \
  X(EXP, "exp")                                                                \
  X(EXPF, "expf")                                                              \
  X(LOG, "log")                                                                \
  X(LOGF, "logf")                                                              \
  X(LOG2, "log2")                                                              \
  X(LOG10, "log10")                                                            \
  X(POW, "pow")                                                                \
  X(POWF, "powf")                                                              \
  X(SIN, "sin")                                                                \
  X(COS, "cos")                                                                \
  X(TAN, "tan")                                                                \
  X(ATAN, "atan")                                                              \
  X(ATAN2, "atan2")                                                            \
  X(TANH, "tanh")                                                              \
  X(FABS, "fabs")                                                              \
  X(FABSF, "fabsf")                                                            \
  X(FLOOR, "floor")                                                            \
  X(CEIL, "ceil")                                                              \
  X(ROUND, "round")                                                            \
  X(FMOD, "fmod")                                                              \
  X(FMAX, "fmax")                                                              \
  X(FMIN, "fmin")                                                              \
  X(PUTC, "putc")                                                              \
  X(GETC, "getc")                                                              \
  X(FGETC, "fgetc")

typedef enum cb_libfn {
#define CB_LIBFN_ENUM(id, name) CB_LIBC_##id,
  CB_LIBC_FUNCTIONS(CB_LIBFN_ENUM)
#undef CB_LIBFN_ENUM
      CB_LIBC_COUNT
} cb_libfn;

/* LLVM intrinsics a Program may call (llvm.NAME.*, overloads folded). */
#define CB_INTRINSICS(X)                                                       \
  X(MEMCPY, "memcpy")                                                          \
  X(MEMMOVE, "memmove")                                                        \
  X(MEMSET, "memset")                                                          \
  X(FABS, "fabs")                                                              \
  X(SQRT, "sqrt")                                                              \
  X(EXP, "exp")                                                                \
  X(LOG, "log")                                                                \
  X(POW, "pow")                                                                \
  X(SIN, "sin")                                                                \
  X(COS, "cos")                                                                \
  X(FLOOR, "floor")                                                            \
  X(CEIL, "ceil")                                                              \
  X(ROUND, "round")                                                            \
  X(TRUNC, "trunc")                                                            \
  X(RINT, "rint")                                                              \
  X(FMA, "fma")                                                                \
  X(FMULADD, "fmuladd")                                                        \
  X(MAXNUM, "maxnum")                                                          \
  X(MINNUM, "minnum")                                                          \
  X(COPYSIGN, "copysign")                                                      \
  X(SMAX, "smax")                                                              \
  X(SMIN, "smin")                                                              \
  X(UMAX, "umax")                                                              \
  X(UMIN, "umin")                                                              \
  X(ABS, "abs")                                                                \
  X(CTPOP, "ctpop")                                                            \
  X(CTLZ, "ctlz")                                                              \
  X(CTTZ, "cttz")                                                              \
  X(BSWAP, "bswap")                                                            \
  X(FSHL, "fshl")                                                              \
  X(FSHR, "fshr")                                                              \
  X(UADD_SAT, "uadd.sat")                                                      \
  X(USUB_SAT, "usub.sat")                                                      \
  X(SADD_SAT, "sadd.sat")                                                      \
  X(SSUB_SAT, "ssub.sat")                                                      \
  X(BITREVERSE, "bitreverse")                                                  \
  X(NEARBYINT, "nearbyint")                                                    \
  X(ROUNDEVEN, "roundeven")                                                    \
  X(MINIMUM, "minimum")                                                        \
  X(MAXIMUM, "maximum")                                                        \
  X(EXP2, "exp2")                                                              \
  X(LOG2, "log2")                                                              \
  X(LOG10, "log10")                                                            \
  X(LROUND, "lround")                                                          \
  X(LLROUND, "llround")                                                        \
  X(LRINT, "lrint")                                                            \
  X(LLRINT, "llrint")                                                          \
  X(SADD_OVF, "sadd.with.overflow")                                            \
  X(UADD_OVF, "uadd.with.overflow")                                            \
  X(SSUB_OVF, "ssub.with.overflow")                                            \
  X(USUB_OVF, "usub.with.overflow")                                            \
  X(SMUL_OVF, "smul.with.overflow")                                            \
  X(UMUL_OVF, "umul.with.overflow")                                            \
  X(REDUCE_ADD, "vector.reduce.add")                                           \
  X(REDUCE_MUL, "vector.reduce.mul")                                           \
  X(REDUCE_AND, "vector.reduce.and")                                           \
  X(REDUCE_OR, "vector.reduce.or")                                             \
  X(REDUCE_XOR, "vector.reduce.xor")                                           \
  X(REDUCE_SMAX, "vector.reduce.smax")                                         \
  X(REDUCE_SMIN, "vector.reduce.smin")                                         \
  X(REDUCE_UMAX, "vector.reduce.umax")                                         \
  X(REDUCE_UMIN, "vector.reduce.umin")                                         \
  X(REDUCE_FADD, "vector.reduce.fadd")                                         \
  X(REDUCE_FMUL, "vector.reduce.fmul")                                         \
  X(REDUCE_FMAX, "vector.reduce.fmax")                                         \
  X(REDUCE_FMIN, "vector.reduce.fmin")                                         \
  X(STACKSAVE, "stacksave")                                                    \
  X(STACKRESTORE, "stackrestore")                                              \
  X(TRAP, "trap")

typedef enum cb_intrinsic {
#define CB_INTRINSIC_ENUM(id, name) CB_INTR_##id,
  CB_INTRINSICS(CB_INTRINSIC_ENUM)
#undef CB_INTRINSIC_ENUM
      CB_INTR_COUNT
} cb_intrinsic;

/* Intrinsics with no effect on values or memory (llvm.dbg.*,
 * llvm.lifetime.*, llvm.assume, llvm.experimental.noalias.scope.decl, ...)
 * are dropped by the frontend; llvm.expect becomes a CB_OP_MOV. */

#endif
