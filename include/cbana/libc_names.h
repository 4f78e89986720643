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

/* <math.h>'s double and float functions beyond the ones listed in
 * CB_LIBC_FUNCTIONS by hand, with their C prototypes, from which
 * analysis/process/libc_math.c makes its calls of the host's libm:
 * M(X, id, function, signature). A signature names the result, then the
 * arguments: D double, F float, I int, L long, LL long long, PI int *,
 * PD double *, PF float *, S const char *. */
#define CB_LIBM_FUNCTIONS(M, X)                                                \
  M(X, ACOS, acos, D_D)                                                        \
  M(X, ASIN, asin, D_D)                                                        \
  M(X, COSH, cosh, D_D)                                                        \
  M(X, SINH, sinh, D_D)                                                        \
  M(X, ACOSH, acosh, D_D)                                                      \
  M(X, ASINH, asinh, D_D)                                                      \
  M(X, ATANH, atanh, D_D)                                                      \
  M(X, EXP2, exp2, D_D)                                                        \
  M(X, EXPM1, expm1, D_D)                                                      \
  M(X, LOG1P, log1p, D_D)                                                      \
  M(X, LOGB, logb, D_D)                                                        \
  M(X, ILOGB, ilogb, I_D)                                                      \
  M(X, FREXP, frexp, D_D_PI)                                                   \
  M(X, LDEXP, ldexp, D_D_I)                                                    \
  M(X, MODF, modf, D_D_PD)                                                     \
  M(X, SCALBN, scalbn, D_D_I)                                                  \
  M(X, SCALBLN, scalbln, D_D_L)                                                \
  M(X, CBRT, cbrt, D_D)                                                        \
  M(X, HYPOT, hypot, D_D_D)                                                    \
  M(X, ERF, erf, D_D)                                                          \
  M(X, ERFC, erfc, D_D)                                                        \
  M(X, TGAMMA, tgamma, D_D)                                                    \
  M(X, LGAMMA, lgamma, D_D)                                                    \
  M(X, NEARBYINT, nearbyint, D_D)                                              \
  M(X, RINT, rint, D_D)                                                        \
  M(X, LRINT, lrint, L_D)                                                      \
  M(X, LLRINT, llrint, LL_D)                                                   \
  M(X, LROUND, lround, L_D)                                                    \
  M(X, LLROUND, llround, LL_D)                                                 \
  M(X, TRUNC, trunc, D_D)                                                      \
  M(X, REMAINDER, remainder, D_D_D)                                            \
  M(X, REMQUO, remquo, D_D_D_PI)                                               \
  M(X, COPYSIGN, copysign, D_D_D)                                              \
  M(X, NAND, nan, D_S) /* not NAN: <math.h> defines that */                    \
  M(X, NEXTAFTER, nextafter, D_D_D)                                            \
  M(X, FDIM, fdim, D_D_D)                                                      \
  M(X, FMA, fma, D_D_D_D)                                                      \
  M(X, ACOSF, acosf, F_F)                                                      \
  M(X, ASINF, asinf, F_F)                                                      \
  M(X, ATANF, atanf, F_F)                                                      \
  M(X, ATAN2F, atan2f, F_F_F)                                                  \
  M(X, COSF, cosf, F_F)                                                        \
  M(X, SINF, sinf, F_F)                                                        \
  M(X, TANF, tanf, F_F)                                                        \
  M(X, COSHF, coshf, F_F)                                                      \
  M(X, SINHF, sinhf, F_F)                                                      \
  M(X, TANHF, tanhf, F_F)                                                      \
  M(X, ACOSHF, acoshf, F_F)                                                    \
  M(X, ASINHF, asinhf, F_F)                                                    \
  M(X, ATANHF, atanhf, F_F)                                                    \
  M(X, EXP2F, exp2f, F_F)                                                      \
  M(X, EXPM1F, expm1f, F_F)                                                    \
  M(X, LOG10F, log10f, F_F)                                                    \
  M(X, LOG1PF, log1pf, F_F)                                                    \
  M(X, LOG2F, log2f, F_F)                                                      \
  M(X, LOGBF, logbf, F_F)                                                      \
  M(X, ILOGBF, ilogbf, I_F)                                                    \
  M(X, FREXPF, frexpf, F_F_PI)                                                 \
  M(X, LDEXPF, ldexpf, F_F_I)                                                  \
  M(X, MODFF, modff, F_F_PF)                                                   \
  M(X, SCALBNF, scalbnf, F_F_I)                                                \
  M(X, SCALBLNF, scalblnf, F_F_L)                                              \
  M(X, CBRTF, cbrtf, F_F)                                                      \
  M(X, HYPOTF, hypotf, F_F_F)                                                  \
  M(X, ERFF, erff, F_F)                                                        \
  M(X, ERFCF, erfcf, F_F)                                                      \
  M(X, TGAMMAF, tgammaf, F_F)                                                  \
  M(X, LGAMMAF, lgammaf, F_F)                                                  \
  M(X, CEILF, ceilf, F_F)                                                      \
  M(X, FLOORF, floorf, F_F)                                                    \
  M(X, NEARBYINTF, nearbyintf, F_F)                                            \
  M(X, RINTF, rintf, F_F)                                                      \
  M(X, LRINTF, lrintf, L_F)                                                    \
  M(X, LLRINTF, llrintf, LL_F)                                                 \
  M(X, ROUNDF, roundf, F_F)                                                    \
  M(X, LROUNDF, lroundf, L_F)                                                  \
  M(X, LLROUNDF, llroundf, LL_F)                                               \
  M(X, TRUNCF, truncf, F_F)                                                    \
  M(X, FMODF, fmodf, F_F_F)                                                    \
  M(X, REMAINDERF, remainderf, F_F_F)                                          \
  M(X, REMQUOF, remquof, F_F_F_PI)                                             \
  M(X, COPYSIGNF, copysignf, F_F_F)                                            \
  M(X, NANF, nanf, F_S)                                                        \
  M(X, NEXTAFTERF, nextafterf, F_F_F)                                          \
  M(X, FDIMF, fdimf, F_F_F)                                                    \
  M(X, FMAXF, fmaxf, F_F_F)                                                    \
  M(X, FMINF, fminf, F_F_F)                                                    \
  M(X, FMAF, fmaf, F_F_F_F)

/* A libm entry as an entry of CB_LIBC_FUNCTIONS. */
#define CB_LIBM_AS_LIBC(X, id, fn, sig) X(id, #fn)

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
  X(SLEEP, "sleep")                                                            \
  X(GETPID, "getpid")                                                          \
  X(DIFFTIME, "difftime")                                                      \
  X(GETRUSAGE, "getrusage")                                                    \
  X(ISATTY, "isatty")                                                          \
  X(SIGNAL, "signal")                                                          \
  X(GETOPT, "getopt")                                                          \
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
  X(CABS, "cabs")                                                              \
  X(CEXP, "cexp")                                                              \
  X(PUTC, "putc")                                                              \
  X(GETC, "getc")                                                              \
  X(FGETC, "fgetc")                                                            \
  X(BCMP, "bcmp")                                                              \
  X(MEMCHR, "memchr")                                                          \
  X(MEMRCHR, "memrchr")                                                        \
  X(STRCAT, "strcat")                                                          \
  X(STRNCAT, "strncat")                                                        \
  X(STRRCHR, "strrchr")                                                        \
  X(STRSTR, "strstr")                                                          \
  X(STRSPN, "strspn")                                                          \
  X(STRCSPN, "strcspn")                                                        \
  X(STRPBRK, "strpbrk")                                                        \
  X(STRDUP, "strdup")                                                          \
  X(STRNDUP, "strndup")                                                        \
  X(STRTOK, "strtok")                                                          \
  X(STRCOLL, "strcoll")                                                        \
  X(STRERROR, "strerror")                                                      \
  X(STPCPY, "stpcpy")                                                          \
  X(STRNLEN, "strnlen")                                                        \
  X(STRCASECMP, "strcasecmp")                                                  \
  X(DRAND48, "drand48")                                                        \
  X(ERAND48, "erand48")                                                        \
  X(LRAND48, "lrand48")                                                        \
  X(NRAND48, "nrand48")                                                        \
  X(MRAND48, "mrand48")                                                        \
  X(JRAND48, "jrand48")                                                        \
  X(SRAND48, "srand48")                                                        \
  X(SEED48, "seed48")                                                          \
  X(LCONG48, "lcong48")                                                        \
  X(BSEARCH, "bsearch")                                                        \
  X(LLABS, "llabs")                                                            \
  X(DIV, "div")                                                                \
  X(LDIV, "ldiv")                                                              \
  X(LLDIV, "lldiv")                                                            \
  X(GETENV, "getenv")                                                          \
  X(STRTOIMAX, "strtoimax")                                                    \
  X(STRTOUMAX, "strtoumax")                                                    \
  X(CTYPE_B_LOC, "__ctype_b_loc")                                              \
  X(CTYPE_TOUPPER_LOC, "__ctype_toupper_loc")                                  \
  X(CTYPE_TOLOWER_LOC, "__ctype_tolower_loc")                                  \
  X(ISALPHA, "isalpha")                                                        \
  X(ISDIGIT, "isdigit")                                                        \
  X(ISSPACE, "isspace")                                                        \
  X(ISUPPER, "isupper")                                                        \
  X(ISLOWER, "islower")                                                        \
  X(ISALNUM, "isalnum")                                                        \
  X(ISPUNCT, "ispunct")                                                        \
  X(ISXDIGIT, "isxdigit")                                                      \
  X(ISPRINT, "isprint")                                                        \
  X(ISCNTRL, "iscntrl")                                                        \
  X(ISGRAPH, "isgraph")                                                        \
  X(ISBLANK, "isblank")                                                        \
  X(TOUPPER, "toupper")                                                        \
  X(TOLOWER, "tolower")                                                        \
  CB_LIBM_FUNCTIONS(CB_LIBM_AS_LIBC, X)                                        \
  /* C11 <math.h>'s long double functions (analysis/process/libc_ldouble.c),   \
   * from ACOSL to FMAL */                                                     \
  X(ACOSL, "acosl")                                                            \
  X(ASINL, "asinl")                                                            \
  X(ATANL, "atanl")                                                            \
  X(ATAN2L, "atan2l")                                                          \
  X(COSL, "cosl")                                                              \
  X(SINL, "sinl")                                                              \
  X(TANL, "tanl")                                                              \
  X(ACOSHL, "acoshl")                                                          \
  X(ASINHL, "asinhl")                                                          \
  X(ATANHL, "atanhl")                                                          \
  X(COSHL, "coshl")                                                            \
  X(SINHL, "sinhl")                                                            \
  X(TANHL, "tanhl")                                                            \
  X(EXPL, "expl")                                                              \
  X(EXP2L, "exp2l")                                                            \
  X(EXPM1L, "expm1l")                                                          \
  X(FREXPL, "frexpl")                                                          \
  X(ILOGBL, "ilogbl")                                                          \
  X(LDEXPL, "ldexpl")                                                          \
  X(LOGL, "logl")                                                              \
  X(LOG10L, "log10l")                                                          \
  X(LOG1PL, "log1pl")                                                          \
  X(LOG2L, "log2l")                                                            \
  X(LOGBL, "logbl")                                                            \
  X(MODFL, "modfl")                                                            \
  X(SCALBNL, "scalbnl")                                                        \
  X(SCALBLNL, "scalblnl")                                                      \
  X(CBRTL, "cbrtl")                                                            \
  X(FABSL, "fabsl")                                                            \
  X(HYPOTL, "hypotl")                                                          \
  X(POWL, "powl")                                                              \
  X(SQRTL, "sqrtl")                                                            \
  X(ERFL, "erfl")                                                              \
  X(ERFCL, "erfcl")                                                            \
  X(LGAMMAL, "lgammal")                                                        \
  X(TGAMMAL, "tgammal")                                                        \
  X(CEILL, "ceill")                                                            \
  X(FLOORL, "floorl")                                                          \
  X(NEARBYINTL, "nearbyintl")                                                  \
  X(RINTL, "rintl")                                                            \
  X(LRINTL, "lrintl")                                                          \
  X(LLRINTL, "llrintl")                                                        \
  X(ROUNDL, "roundl")                                                          \
  X(LROUNDL, "lroundl")                                                        \
  X(LLROUNDL, "llroundl")                                                      \
  X(TRUNCL, "truncl")                                                          \
  X(FMODL, "fmodl")                                                            \
  X(REMAINDERL, "remainderl")                                                  \
  X(REMQUOL, "remquol")                                                        \
  X(COPYSIGNL, "copysignl")                                                    \
  X(NANL, "nanl")                                                              \
  X(NEXTAFTERL, "nextafterl")                                                  \
  X(NEXTTOWARDL, "nexttowardl")                                                \
  X(FDIML, "fdiml")                                                            \
  X(FMAXL, "fmaxl")                                                            \
  X(FMINL, "fminl")                                                            \
  X(FMAL, "fmal")                                                              \
  /* files and the rest of stdio: analysis/process/libc_files.c, libc_fd.c */  \
  X(PERROR, "perror")                                                          \
  X(ERRNO_LOCATION, "__errno_location")                                        \
  X(UNGETC, "ungetc")                                                          \
  X(FGETS, "fgets")                                                            \
  X(FREAD, "fread")                                                            \
  X(VPRINTF, "vprintf")                                                        \
  X(VFPRINTF, "vfprintf")                                                      \
  X(VSPRINTF, "vsprintf")                                                      \
  X(VSNPRINTF, "vsnprintf")                                                    \
  X(VSCANF, "vscanf")                                                          \
  X(ISOC99_VSCANF, "__isoc99_vscanf")                                          \
  X(VFSCANF, "vfscanf")                                                        \
  X(ISOC99_VFSCANF, "__isoc99_vfscanf")                                        \
  X(VSSCANF, "vsscanf")                                                        \
  X(ISOC99_VSSCANF, "__isoc99_vsscanf")                                        \
  X(SETVBUF, "setvbuf")                                                        \
  X(SETBUF, "setbuf")                                                          \
  X(FOPEN, "fopen")                                                            \
  X(FOPEN64, "fopen64")                                                        \
  X(FDOPEN, "fdopen")                                                          \
  X(FCLOSE, "fclose")                                                          \
  X(FSEEK, "fseek")                                                            \
  X(FSEEKO, "fseeko")                                                          \
  X(FTELL, "ftell")                                                            \
  X(FTELLO, "ftello")                                                          \
  X(REWIND, "rewind")                                                          \
  X(FGETPOS, "fgetpos")                                                        \
  X(FSETPOS, "fsetpos")                                                        \
  X(FEOF, "feof")                                                              \
  X(FERROR, "ferror")                                                          \
  X(CLEARERR, "clearerr")                                                      \
  X(FILENO, "fileno")                                                          \
  X(OPEN, "open")                                                              \
  X(OPEN64, "open64")                                                          \
  X(CREAT, "creat")                                                            \
  X(READ, "read")                                                              \
  X(WRITE, "write")                                                            \
  X(LSEEK, "lseek")                                                            \
  X(CLOSE, "close")                                                            \
  X(FSTAT, "fstat")                                                            \
  X(STAT, "stat")                                                              \
  X(REMOVE, "remove")                                                          \
  X(UNLINK, "unlink")                                                          \
  /* exit's handlers: analysis/process/libc_exit.c (atexit is                  \
   * libc_nonshared.a's, linked into the executable: a jump to __cxa_atexit's  \
   * PLT slot) */                                                              \
  X(ATEXIT, "atexit")                                                          \
  X(CXA_ATEXIT, "__cxa_atexit")                                                \
  X(ON_EXIT, "on_exit")                                                        \
  /* glibc's unlocked stdio and what its inline forms call when the buffer     \
   * is empty or full (analysis/process/libc_stdio_sync.c), getline and        \
   * getdelim (analysis/process/libc_getline.c) */                             \
  X(GETC_UNLOCKED, "getc_unlocked")                                            \
  X(GETCHAR_UNLOCKED, "getchar_unlocked")                                      \
  X(FGETC_UNLOCKED, "fgetc_unlocked")                                          \
  X(PUTC_UNLOCKED, "putc_unlocked")                                            \
  X(PUTCHAR_UNLOCKED, "putchar_unlocked")                                      \
  X(FPUTC_UNLOCKED, "fputc_unlocked")                                          \
  X(FPUTS_UNLOCKED, "fputs_unlocked")                                          \
  X(FWRITE_UNLOCKED, "fwrite_unlocked")                                        \
  X(FREAD_UNLOCKED, "fread_unlocked")                                          \
  X(FGETS_UNLOCKED, "fgets_unlocked")                                          \
  X(FFLUSH_UNLOCKED, "fflush_unlocked")                                        \
  X(FEOF_UNLOCKED, "feof_unlocked")                                            \
  X(FERROR_UNLOCKED, "ferror_unlocked")                                        \
  X(CLEARERR_UNLOCKED, "clearerr_unlocked")                                    \
  X(UFLOW, "__uflow")                                                          \
  X(OVERFLOW, "__overflow")                                                    \
  X(GETLINE, "getline")                                                        \
  X(GETDELIM, "getdelim")                                                      \
  X(GETDELIM2, "__getdelim") /* bits/stdio.h's inline getline */               \
  /* non-local jumps (analysis/process/libc_setjmp.c): <setjmp.h>'s setjmp is  \
   * _setjmp, sigsetjmp is __sigsetjmp; -D_FORTIFY_SOURCE makes longjmp        \
   * __longjmp_chk */                                                          \
  X(USETJMP, "_setjmp")                                                        \
  X(SETJMP, "setjmp")                                                          \
  X(SIGSETJMP, "__sigsetjmp")                                                  \
  X(LONGJMP, "longjmp")                                                        \
  X(ULONGJMP, "_longjmp")                                                      \
  X(SIGLONGJMP, "siglongjmp")                                                  \
  X(LONGJMP_CHK, "__longjmp_chk")                                              \
  X(MKTEMP, "mktemp")                                                          \
  X(INDEX, "index")   /* strchr's alias (BSD) */                               \
  X(RINDEX, "rindex") /* strrchr's */                                          \
  /* <time.h>'s conversions (analysis/process/libc_time.c) */                  \
  X(LOCALTIME, "localtime")                                                    \
  X(LOCALTIME_R, "localtime_r")                                                \
  X(GMTIME, "gmtime")                                                          \
  X(GMTIME_R, "gmtime_r")                                                      \
  X(ASCTIME, "asctime")                                                        \
  X(CTIME, "ctime")                                                            \
  X(RENAME, "rename") /* analysis/process/libc_fd.c */                         \
  X(UNAME, "uname")   /* analysis/process/libc_proc.c */                       \
  X(GETOPT_LONG, "getopt_long")                                                \
  X(GETUID, "getuid") /* analysis/process/libc_proc.c */                       \
  X(GETEUID, "geteuid")                                                        \
  X(GETGID, "getgid")                                                          \
  X(GETEGID, "getegid")                                                        \
  X(SETLOCALE, "setlocale") /* analysis/process/libc_locale.c */               \
  X(CATOPEN, "catopen")                                                        \
  X(CATGETS, "catgets")                                                        \
  X(CATCLOSE, "catclose")                                                      \
  X(MKTIME, "mktime") /* analysis/process/libc_time.c */

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
