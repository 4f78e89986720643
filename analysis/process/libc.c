/* libc.c: the C library model: what each function of libc_names.h
 * returns, what it does to the modelled memory and to standard input and
 * output, and the memory traffic glibc generates for it (attributed to
 * the call site). Number conversion, formatting and libm come from the
 * host's glibc, which is the same library the real run uses.
 *
 * This file: the dispatcher, allocation, conversion, process and time,
 * qsort and the LLVM intrinsics; the mem* and str* functions are in
 * libc_mem.c, stdio in libc_stdio.c, libm in libc_math.c, FILE streams in
 * libc_files.c, files and descriptors in libc_fd.c. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"
#include "sse_fp.h"

void cb_libc_init(cb_proc *pr) {
  cb_libc_getopt_init(pr);
  /* environ and its aliases hold envp from the start (csu/libc-start.c's
   * __libc_init_first); unset, a program walking environ (MallocBench/gawk)
   * read through a null pointer */
  static const char *const env_names[] = {"environ", "__environ", "_environ"};
  for (size_t i = 0; pr->envp_at && i < 3; i++) {
    uint64_t a = cb_libc_var(pr, env_names[i], 8);
    if (a)
      cb_mem_write(&pr->mem, a, &pr->envp_at, 8, NULL);
  }
}

/* ---- the dispatcher ---- */

static void ret_f(cb_value *r, float f) {
  r->u = 0;
  r->f = f;
}

/* Tells the allocation sink about a program's heap call, in stream
 * order: the accesses before it (the allocator's own traffic included)
 * reach the access sink first. A failed allocation (0) is no event. */
void cb_libc_alloc_event(cb_proc *pr, cb_alloc_kind kind, uint32_t fn,
                         uint64_t addr, uint64_t old, uint64_t size) {
  const cb_alloc_sink *s = &pr->opt->alloc;
  if (!s->fn || !addr)
    return;
  cb_acc_flush(pr->acc);
  cb_alloc_event ev = {kind, pr->cur_site, fn, addr, old, size};
  s->fn(s->ctx, &ev);
}

static cb_stop libc_dispatch(cb_proc *pr, uint32_t fn, const cb_value *a,
                             const uint8_t *ty, uint32_t n, cb_value *ret);

/* glibc's unlocked stdio functions: the locked ones' values and the
 * model's traffic (the lock's words are not modelled for std streams) */
static uint32_t locked_form(uint32_t fn) {
  switch ((cb_libfn)fn) {
  /* libc.so.6 exports index and rindex at strchr's and strrchr's IFUNC
   * resolvers (string/strchr.c: weak_alias): the same code; only their
   * PLT slots, bound under their own names, are theirs */
  case CB_LIBC_INDEX:
    return CB_LIBC_STRCHR;
  case CB_LIBC_RINDEX:
    return CB_LIBC_STRRCHR;
  case CB_LIBC_GETC_UNLOCKED:
  case CB_LIBC_FGETC_UNLOCKED:
  case CB_LIBC_UFLOW: /* __uflow(fp): the next byte, the buffer refilled */
    return CB_LIBC_GETC;
  case CB_LIBC_GETCHAR_UNLOCKED:
    return CB_LIBC_GETCHAR;
  case CB_LIBC_PUTC_UNLOCKED:
  case CB_LIBC_FPUTC_UNLOCKED:
    return CB_LIBC_PUTC;
  case CB_LIBC_PUTCHAR_UNLOCKED:
    return CB_LIBC_PUTCHAR;
  case CB_LIBC_FPUTS_UNLOCKED:
    return CB_LIBC_FPUTS;
  case CB_LIBC_FWRITE_UNLOCKED:
    return CB_LIBC_FWRITE;
  case CB_LIBC_FREAD_UNLOCKED:
    return CB_LIBC_FREAD;
  case CB_LIBC_FGETS_UNLOCKED:
    return CB_LIBC_FGETS;
  case CB_LIBC_FFLUSH_UNLOCKED:
    return CB_LIBC_FFLUSH;
  case CB_LIBC_FEOF_UNLOCKED:
    return CB_LIBC_FEOF;
  case CB_LIBC_FERROR_UNLOCKED:
    return CB_LIBC_FERROR;
  case CB_LIBC_CLEARERR_UNLOCKED:
    return CB_LIBC_CLEARERR;
  default:
    return fn;
  }
}

/* The stdio state stdin's and stdout's FILE fields are written for. */
static uint64_t stdio_sig(const cb_proc *pr) {
  const cb_files *f = pr->files;
  uint64_t h = pr->stdin_pos * 0x9e3779b97f4a7c15ull ^ pr->stdout_pos;
  h = h * 31 + pr->stdin_buf + 7 * pr->stdout_buf + pr->stdout_cap;
  if (f)
    h = h * 31 + f->stdin_npb + 2 * f->stdin_eof + 4 * f->stdin_err +
        8 * f->stdout_err;
  return h * 2 + pr->stdout_unbuf;
}

cb_stop cb_libc_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                     const uint8_t *ty, uint32_t n, cb_value *ret) {
  /* what the program's inline getc/putc did meanwhile */
  if ((pr->stdin_pub || pr->stdout_pub || (pr->files && pr->files->nst)) &&
      !cb_stdio_pull(pr))
    return CB_FAIL;
  pr->lib_called = fn;
  cb_value ov[2];
  if (fn == CB_LIBC_OVERFLOW) {
    /* __overflow(fp, c): putc(c, fp), or with EOF only the flush */
    int c = (int)(uint32_t)a[1].u;
    ov[0].u = c == EOF ? 0 : a[1].u;
    ov[1].u = a[0].u;
    if (c == EOF) {
      fn = CB_LIBC_FFLUSH;
      ov[0].u = a[0].u;
    } else {
      fn = CB_LIBC_PUTC;
    }
    a = ov;
    n = 2;
  } else {
    fn = locked_form(fn);
  }
  if (pr->std_closed && cb_libc_std_closed_use(pr, fn, a, n))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "use of a standard stream after its fclose is not "
                        "modelled");
  cb_stop st = libc_dispatch(pr, fn, a, ty, n, ret);
  /* the FILEs as glibc leaves them after the call */
  if (st == CB_GO || st == CB_LONGJMP) {
    uint64_t sig = stdio_sig(pr);
    if (sig != pr->stdio_sig) {
      pr->stdio_sig = sig;
      cb_stdio_publish(pr);
    }
    if (pr->files && pr->files->nst)
      cb_stdio_publish_streams(pr);
  }
  return st;
}

static cb_stop libc_dispatch(cb_proc *pr, uint32_t fn, const cb_value *a,
                             const uint8_t *ty, uint32_t n, cb_value *ret) {
  cb_value pad[8];
  uint8_t padty[8];
  if (n < 8) {
    /* missing arguments read as zeros */
    memcpy(pad, a, n * sizeof *a);
    memset(pad + n, 0, (8 - n) * sizeof *pad);
    memcpy(padty, ty, n);
    memset(padty + n, CB_TY_I64, 8 - n);
    a = pad;
    ty = padty;
  }
  if (fn >= CB_LIBC_ACOSL && fn <= CB_LIBC_FMAL)
    return cb_libc_ldouble_call(pr, fn, a, ty, n, ret);
  if (cb_libc_is_libm(fn))
    return cb_libc_math_call(pr, fn, a, ty, ret);
  cb_heap *h = pr->heap;
  switch ((cb_libfn)fn) {
  case CB_LIBC_MALLOC:
    ret[0].u = cb_heap_malloc(h, a[0].u);
    cb_libc_heap_traffic(pr, fn, cb_libc_caller_sp(pr), 0, ret[0].u, false);
    cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, ret[0].u, 0, a[0].u);
    return CB_GO;
  case CB_LIBC_CALLOC:
    ret[0].u = cb_heap_calloc(h, a[0].u, a[1].u);
    cb_libc_heap_traffic(pr, fn, cb_libc_caller_sp(pr), 0, ret[0].u, false);
    cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, ret[0].u, 0, a[0].u * a[1].u);
    return CB_GO;
  case CB_LIBC_REALLOC:
    if (a[0].u && !cb_heap_is_block(h, a[0].u))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "realloc of 0x%llx, which is no live heap block",
                          (unsigned long long)a[0].u);
    ret[0].u = cb_heap_realloc(h, a[0].u, a[1].u);
    cb_libc_heap_traffic(pr, fn, cb_libc_caller_sp(pr), a[0].u, ret[0].u,
                         false);
    if (!a[0].u)
      cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, ret[0].u, 0, a[1].u);
    else if (ret[0].u)
      cb_libc_alloc_event(pr, CB_ALLOC_REALLOC, fn, ret[0].u, a[0].u, a[1].u);
    else if (!a[1].u)
      cb_libc_alloc_event(pr, CB_ALLOC_FREE, fn, a[0].u, 0,
                          0); /* realloc(p, 0) */
    return CB_GO;
  case CB_LIBC_FREE:
    if (a[0].u && !cb_heap_is_block(h, a[0].u))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "free of 0x%llx, which is no live heap block "
                          "(double free or a pointer inside a block)",
                          (unsigned long long)a[0].u);
    cb_heap_free(h, a[0].u);
    cb_libc_heap_traffic(pr, fn, cb_libc_caller_sp(pr), a[0].u, 0, false);
    cb_libc_alloc_event(pr, CB_ALLOC_FREE, fn, a[0].u, 0, 0);
    return CB_GO;
  case CB_LIBC_POSIX_MEMALIGN: {
    uint64_t al = a[1].u;
    if (al % 8 || !al || ((al / 8) & (al / 8 - 1))) {
      ret[0].u = 22; /* EINVAL */
      return CB_GO;
    }
    uint64_t nc = cb_heap_consolidations(h);
    uint64_t m = cb_heap_memalign(h, al, a[2].u);
    /* _mid_memalign relays alignments up to MALLOC_ALIGNMENT (16) to
     * __libc_malloc; larger ones go down _int_memalign */
    cb_libc_heap_traffic(pr, al > 16 ? fn : (uint32_t)CB_LIBC_MALLOC,
                         cb_libc_caller_sp(pr), 0, m,
                         cb_heap_consolidations(h) != nc);
    if (!m) {
      ret[0].u = 12; /* ENOMEM */
      return CB_GO;
    }
    if (!cb_proc_write(pr, a[0].u, &m, 8))
      return CB_FAIL;
    cb_proc_lib(pr, a[0].u, 8, true);
    cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, m, 0, a[2].u);
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_ALIGNED_ALLOC:
  case CB_LIBC_MEMALIGN:
    ret[0].u = cb_heap_memalign(h, a[0].u, a[1].u);
    cb_libc_heap_traffic(pr, a[0].u > 16 ? fn : (uint32_t)CB_LIBC_MALLOC,
                         cb_libc_caller_sp(pr), 0, ret[0].u, false);
    cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, ret[0].u, 0, a[1].u);
    return CB_GO;
  case CB_LIBC_MEMSET:
  case CB_LIBC_MEMCPY:
  case CB_LIBC_MEMMOVE:
  case CB_LIBC_MEMCMP:
  case CB_LIBC_STRLEN:
  case CB_LIBC_STRCPY:
  case CB_LIBC_STRNCPY:
  case CB_LIBC_STRCMP:
  case CB_LIBC_STRNCMP:
  case CB_LIBC_STRCHR:
    return cb_libc_mem_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_RAND:
  case CB_LIBC_RANDOM:
    cb_libc_random_traffic(pr, fn == CB_LIBC_RAND, pr->rng.pos);
    ret[0].u = (uint64_t)(uint32_t)cb_rand_next(&pr->rng);
    if (fn == CB_LIBC_RANDOM)
      ret[0].u = (uint64_t)(int64_t)(int32_t)ret[0].u;
    return CB_GO;
  case CB_LIBC_SRAND:
  case CB_LIBC_SRANDOM:
    cb_libc_srand_traffic(pr);
    cb_rand_seed(&pr->rng, (uint32_t)a[0].u);
    return CB_GO;
  case CB_LIBC_BCMP:
  case CB_LIBC_MEMCHR:
  case CB_LIBC_MEMRCHR:
  case CB_LIBC_STRCAT:
  case CB_LIBC_STRNCAT:
  case CB_LIBC_STRRCHR:
  case CB_LIBC_STRSTR:
  case CB_LIBC_STRSPN:
  case CB_LIBC_STRCSPN:
  case CB_LIBC_STRPBRK:
  case CB_LIBC_STRDUP:
  case CB_LIBC_STRNDUP:
  case CB_LIBC_STRTOK:
  case CB_LIBC_STRCOLL:
  case CB_LIBC_STRERROR:
  case CB_LIBC_STPCPY:
  case CB_LIBC_STRNLEN:
  case CB_LIBC_STRCASECMP:
    return cb_libc_string_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_BSEARCH:
  case CB_LIBC_LLABS:
  case CB_LIBC_DIV:
  case CB_LIBC_LDIV:
  case CB_LIBC_LLDIV:
  case CB_LIBC_GETENV:
  case CB_LIBC_STRTOIMAX:
  case CB_LIBC_STRTOUMAX:
    return cb_libc_stdlib_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_CTYPE_B_LOC:
  case CB_LIBC_CTYPE_TOUPPER_LOC:
  case CB_LIBC_CTYPE_TOLOWER_LOC:
  case CB_LIBC_ISALPHA:
  case CB_LIBC_ISDIGIT:
  case CB_LIBC_ISSPACE:
  case CB_LIBC_ISUPPER:
  case CB_LIBC_ISLOWER:
  case CB_LIBC_ISALNUM:
  case CB_LIBC_ISPUNCT:
  case CB_LIBC_ISXDIGIT:
  case CB_LIBC_ISPRINT:
  case CB_LIBC_ISCNTRL:
  case CB_LIBC_ISGRAPH:
  case CB_LIBC_ISBLANK:
  case CB_LIBC_TOUPPER:
  case CB_LIBC_TOLOWER:
    return cb_libc_ctype_call(pr, fn, a, ret);
  case CB_LIBC_DRAND48:
  case CB_LIBC_ERAND48:
  case CB_LIBC_LRAND48:
  case CB_LIBC_NRAND48:
  case CB_LIBC_MRAND48:
  case CB_LIBC_JRAND48:
  case CB_LIBC_SRAND48:
  case CB_LIBC_SEED48:
  case CB_LIBC_LCONG48:
    return cb_libc_rand48_call(pr, fn, a, ret);
  case CB_LIBC_ATOI:
  case CB_LIBC_ATOL:
  case CB_LIBC_ATOLL:
  case CB_LIBC_ATOF:
  case CB_LIBC_STRTOL:
  case CB_LIBC_STRTOUL:
  case CB_LIBC_STRTOLL:
  case CB_LIBC_STRTOULL:
  case CB_LIBC_STRTOD:
  case CB_LIBC_STRTOF: {
    size_t len;
    char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    char *end = s;
    switch (fn) {
    case CB_LIBC_ATOI:
      ret[0].u = (uint64_t)(uint32_t)(int)strtol(s, &end, 10);
      break;
    case CB_LIBC_ATOL:
    case CB_LIBC_ATOLL:
      ret[0].s = strtoll(s, &end, 10);
      break;
    case CB_LIBC_ATOF:
    case CB_LIBC_STRTOD:
      ret[0].d = strtod(s, &end);
      break;
    case CB_LIBC_STRTOF:
      ret_f(&ret[0], strtof(s, &end));
      break;
    case CB_LIBC_STRTOL:
    case CB_LIBC_STRTOLL:
      ret[0].s = strtoll(s, &end, (int)a[2].u);
      break;
    default:
      ret[0].u = strtoull(s, &end, (int)a[2].u);
      break;
    }
    cb_proc_lib(pr, a[0].u, (uint64_t)(end - s) + 1, false);
    if (fn >= CB_LIBC_STRTOL && fn <= CB_LIBC_STRTOF && a[1].u) {
      uint64_t ep = a[0].u + (uint64_t)(end - s);
      bool ok = cb_proc_write(pr, a[1].u, &ep, 8);
      cb_proc_lib(pr, a[1].u, 8, true);
      if (!ok) {
        free(s);
        return CB_FAIL;
      }
    }
    free(s);
    return CB_GO;
  }
  case CB_LIBC_PRINTF:
  case CB_LIBC_FPRINTF:
  case CB_LIBC_SPRINTF:
  case CB_LIBC_SNPRINTF:
  case CB_LIBC_PUTS:
  case CB_LIBC_FPUTS:
  case CB_LIBC_PUTCHAR:
  case CB_LIBC_PUTC:
  case CB_LIBC_FPUTC:
  case CB_LIBC_FWRITE:
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF:
  case CB_LIBC_SSCANF:
  case CB_LIBC_ISOC99_SSCANF:
  case CB_LIBC_GETC:
  case CB_LIBC_FGETC:
  case CB_LIBC_GETCHAR:
  case CB_LIBC_VPRINTF:
  case CB_LIBC_VFPRINTF:
  case CB_LIBC_VSPRINTF:
  case CB_LIBC_VSNPRINTF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF:
  case CB_LIBC_VFSCANF:
  case CB_LIBC_ISOC99_VFSCANF:
  case CB_LIBC_VSSCANF:
  case CB_LIBC_ISOC99_VSSCANF: {
    /* glibc's own traffic for output on stdout (libc_stdio_traffic.c) */
    cb_stdio_mark mk;
    bool traced = cb_libc_stdio_traffic_begin(pr, fn, a, &mk);
    cb_stop st = cb_libc_stdio_call(pr, fn, a, ty, n, ret);
    if (traced)
      cb_libc_stdio_traffic_end(pr, fn, a, ty, n, &mk, st);
    return st;
  }
  case CB_LIBC_FFLUSH:
  case CB_LIBC_PERROR:
  case CB_LIBC_UNGETC:
  case CB_LIBC_FGETS:
  case CB_LIBC_FREAD:
  case CB_LIBC_SETVBUF:
  case CB_LIBC_SETBUF:
  case CB_LIBC_FOPEN:
  case CB_LIBC_FOPEN64:
  case CB_LIBC_FDOPEN:
  case CB_LIBC_FCLOSE:
  case CB_LIBC_FSEEK:
  case CB_LIBC_FSEEKO:
  case CB_LIBC_FTELL:
  case CB_LIBC_FTELLO:
  case CB_LIBC_REWIND:
  case CB_LIBC_FGETPOS:
  case CB_LIBC_FSETPOS:
  case CB_LIBC_FEOF:
  case CB_LIBC_FERROR:
  case CB_LIBC_CLEARERR:
  case CB_LIBC_FILENO:
    return cb_libc_files_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_ERRNO_LOCATION:
  case CB_LIBC_OPEN:
  case CB_LIBC_OPEN64:
  case CB_LIBC_CREAT:
  case CB_LIBC_READ:
  case CB_LIBC_WRITE:
  case CB_LIBC_LSEEK:
  case CB_LIBC_CLOSE:
  case CB_LIBC_FSTAT:
  case CB_LIBC_STAT:
  case CB_LIBC_REMOVE:
  case CB_LIBC_UNLINK:
  case CB_LIBC_RENAME:
    return cb_libc_fd_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_EXIT:
    pr->exit_code = (int)(a[0].u & 0xff); /* status & 0377 (POSIX exit) */
    return cb_libc_exit(pr, cb_proc_top(pr)->sp, true, (int)a[0].u);
  case CB_LIBC_GETLINE:
    return cb_libc_getdelim(pr, a[0].u, a[1].u, '\n', a[2].u, ret);
  case CB_LIBC_GETDELIM:
  case CB_LIBC_GETDELIM2:
    return cb_libc_getdelim(pr, a[0].u, a[1].u, (int)(uint32_t)a[2].u, a[3].u,
                            ret);
  case CB_LIBC_ATEXIT:
  case CB_LIBC_CXA_ATEXIT:
  case CB_LIBC_ON_EXIT:
    return cb_libc_exit_register(pr, fn, a, ret);
  case CB_LIBC_USETJMP:
  case CB_LIBC_SETJMP:
  case CB_LIBC_SIGSETJMP:
    return cb_libc_setjmp(pr, fn, a, n, ret);
  case CB_LIBC_LONGJMP:
  case CB_LIBC_ULONGJMP:
  case CB_LIBC_SIGLONGJMP:
  case CB_LIBC_LONGJMP_CHK:
    return cb_libc_longjmp(pr, fn, a);
  case CB_LIBC_ABORT:
    return cb_proc_fail(pr, CB_RUN_ABORT, pr->cur_site,
                        "the program called abort()");
  case CB_LIBC_ASSERT_FAIL: {
    char *ex = cb_proc_read_str(pr, a[0].u, 4096, NULL);
    cb_stop st = cb_proc_fail(pr, CB_RUN_ABORT, pr->cur_site,
                              "assertion failed: %s", ex ? ex : "?");
    free(ex);
    return st;
  }
  case CB_LIBC_CLOCK: /* CLOCKS_PER_SEC is 1000000 (POSIX) */
    ret[0].u = CB_CLOCK_CPU0_US + cb_host_cpu_ns(pr) / 1000;
    return CB_GO;
  case CB_LIBC_TIME: {
    uint64_t t = CB_CLOCK_EPOCH_S + cb_proc_clock_ns(pr) / 1000000000;
    if (a[0].u) {
      if (!cb_proc_write(pr, a[0].u, &t, 8))
        return CB_FAIL;
      cb_proc_lib(pr, a[0].u, 8, true);
    }
    ret[0].u = t;
    return CB_GO;
  }
  case CB_LIBC_GETTIMEOFDAY:
  case CB_LIBC_CLOCK_GETTIME: {
    uint64_t ns = cb_proc_clock_ns(pr);
    uint64_t tv[2] = {CB_CLOCK_EPOCH_S + ns / 1000000000,
                      ns % 1000000000 /
                          (fn == CB_LIBC_GETTIMEOFDAY ? 1000 : 1)};
    uint64_t p = fn == CB_LIBC_GETTIMEOFDAY ? a[0].u : a[1].u;
    if (p) {
      if (!cb_proc_write(pr, p, tv, 16))
        return CB_FAIL;
      cb_proc_lib(pr, p, 16, true);
    }
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_SETLOCALE:
    return cb_libc_setlocale(pr, a, ret);
  case CB_LIBC_CATOPEN:
  case CB_LIBC_CATGETS:
  case CB_LIBC_CATCLOSE:
    return cb_libc_catalog_call(pr, fn, a, ret);
  case CB_LIBC_GETOPT:
  case CB_LIBC_GETOPT_LONG:
    return cb_libc_getopt(pr, fn, a, ret);
  case CB_LIBC_MKTEMP:
    return cb_libc_mktemp(pr, a, ret);
  case CB_LIBC_LOCALTIME:
  case CB_LIBC_LOCALTIME_R:
  case CB_LIBC_GMTIME:
  case CB_LIBC_GMTIME_R:
  case CB_LIBC_ASCTIME:
  case CB_LIBC_CTIME:
  case CB_LIBC_MKTIME:
    return cb_libc_time_call(pr, fn, a, ret);
  case CB_LIBC_SLEEP:
  case CB_LIBC_GETPID:
  case CB_LIBC_DIFFTIME:
  case CB_LIBC_GETRUSAGE:
  case CB_LIBC_ISATTY:
  case CB_LIBC_SIGNAL:
  case CB_LIBC_UNAME:
  case CB_LIBC_GETUID:
  case CB_LIBC_GETEUID:
  case CB_LIBC_GETGID:
  case CB_LIBC_GETEGID:
    return cb_libc_proc_call(pr, fn, a, ret);
  case CB_LIBC_QSORT:
    return cb_libc_qsort(pr, a[0].u, a[1].u, a[2].u, a[3].u);
  case CB_LIBC_ABS: {
    int32_t v = (int32_t)(uint32_t)a[0].u;
    ret[0].u = (uint32_t)(v < 0 ? -(uint32_t)v : (uint32_t)v);
    return CB_GO;
  }
  case CB_LIBC_LABS:
    ret[0].u = a[0].s < 0 ? 0 - a[0].u : a[0].u;
    return CB_GO;
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}

/* ---- LLVM intrinsics ---- */

static double lane_d(const cb_value *v, unsigned ty) {
  return ty == CB_TY_F32 ? (double)v->f : v->d;
}

static void put_d(cb_value *r, unsigned ty, double d) {
  if (ty == CB_TY_F32)
    ret_f(r, (float)d);
  else
    r->d = d;
}

static const uint64_t imask[CB_TY_COUNT] = {
    0, 1, 0xff, 0xffff, 0xffffffffu, ~0ull, 0xffffffffu, ~0ull, ~0ull, ~0ull};

cb_stop cb_intrinsic_call(cb_proc *pr, uint32_t id, const cb_op *op,
                          const cb_value *const *v, const uint8_t *aty,
                          const uint8_t *alanes, uint32_t n, cb_value *r) {
  unsigned ty = op->ty, l = op->lanes ? op->lanes : 1;
  unsigned t0 = n ? aty[0] : ty;
  unsigned l0 = n && alanes[0] ? alanes[0] : 1;
  switch ((cb_intrinsic)id) {
  case CB_INTR_MEMCPY:
  case CB_INTR_MEMMOVE:
    return cb_libc_memmove(pr, v[0][0].u, v[1][0].u, v[2][0].u);
  case CB_INTR_MEMSET:
    return cb_libc_memset(pr, v[0][0].u, (int)(v[1][0].u & 0xff), v[2][0].u);
  case CB_INTR_STACKSAVE:
    r[0].u = cb_proc_top(pr)->sp;
    return CB_GO;
  case CB_INTR_STACKRESTORE:
    cb_proc_top(pr)->sp = v[0][0].u;
    return CB_GO;
  case CB_INTR_TRAP:
    return cb_proc_fail(pr, CB_RUN_ABORT, pr->cur_site,
                        "the program trapped (__builtin_trap or a "
                        "sanitizer's check: ud2 or int3, SIGILL or SIGTRAP)");
  default:
    break;
  }
  if (id >= CB_INTR_SADD_SAT && id <= CB_INTR_LLRINT)
    return cb_intrinsic_ext(pr, id, op, v, aty, alanes, n, r);
  if (id >= CB_INTR_REDUCE_ADD && id <= CB_INTR_REDUCE_FMIN) {
    bool fstart = id == CB_INTR_REDUCE_FADD || id == CB_INTR_REDUCE_FMUL;
    const cb_value *x = fstart ? v[1] : v[0];
    unsigned et = fstart ? aty[1] : t0;
    unsigned ln = fstart ? (alanes[1] ? alanes[1] : 1) : l0;
    if (id >= CB_INTR_REDUCE_FADD) {
      double acc = fstart ? lane_d(v[0], ty) : lane_d(&x[0], et);
      for (unsigned i = fstart ? 0 : 1; i < ln; i++) {
        double d = lane_d(&x[i], et);
        if (ty == CB_TY_F32) {
          float fa = (float)acc, fd = (float)d;
          acc = id == CB_INTR_REDUCE_FADD   ? (double)fadd_f(fa, fd)
                : id == CB_INTR_REDUCE_FMUL ? (double)fmul_f(fa, fd)
                : id == CB_INTR_REDUCE_FMAX ? fmax(acc, d)
                                            : fmin(acc, d);
        } else {
          acc = id == CB_INTR_REDUCE_FADD   ? fadd_d(acc, d)
                : id == CB_INTR_REDUCE_FMUL ? fmul_d(acc, d)
                : id == CB_INTR_REDUCE_FMAX ? fmax(acc, d)
                                            : fmin(acc, d);
        }
      }
      put_d(r, ty, acc);
      return CB_GO;
    }
    uint64_t acc = x[0].u;
    for (unsigned i = 1; i < ln; i++) {
      uint64_t y = x[i].u;
      switch (id) {
      case CB_INTR_REDUCE_ADD:
        acc += y;
        break;
      case CB_INTR_REDUCE_MUL:
        acc *= y;
        break;
      case CB_INTR_REDUCE_AND:
        acc &= y;
        break;
      case CB_INTR_REDUCE_OR:
        acc |= y;
        break;
      case CB_INTR_REDUCE_XOR:
        acc ^= y;
        break;
      case CB_INTR_REDUCE_SMAX:
        acc = isx(y, et) > isx(acc, et) ? y : acc;
        break;
      case CB_INTR_REDUCE_SMIN:
        acc = isx(y, et) < isx(acc, et) ? y : acc;
        break;
      case CB_INTR_REDUCE_UMAX:
        acc = y > acc ? y : acc;
        break;
      default:
        acc = y < acc ? y : acc;
        break;
      }
    }
    r[0].u = acc & imask[ty];
    return CB_GO;
  }
  if (id >= CB_INTR_SADD_OVF && id <= CB_INTR_UMUL_OVF) {
    unsigned t = t0, b = ibits(t);
    uint64_t x = v[0][0].u & imask[t], y = v[1][0].u & imask[t], res;
    bool ovf;
    if (id == CB_INTR_UADD_OVF || id == CB_INTR_USUB_OVF ||
        id == CB_INTR_UMUL_OVF) {
      unsigned __int128 wide = id == CB_INTR_UADD_OVF ? (unsigned __int128)x + y
                               : id == CB_INTR_USUB_OVF
                                   ? (unsigned __int128)x - y
                                   : (unsigned __int128)x * y;
      res = (uint64_t)wide & imask[t];
      ovf = id == CB_INTR_USUB_OVF
                ? x < y
                : (wide >> b) != 0 || (b == 64 && (wide >> 64));
    } else {
      __int128 sxv = isx(x, t), syv = isx(y, t);
      __int128 wide = id == CB_INTR_SADD_OVF   ? sxv + syv
                      : id == CB_INTR_SSUB_OVF ? sxv - syv
                                               : sxv * syv;
      res = (uint64_t)wide & imask[t];
      ovf = wide != (__int128)isx(res, t);
    }
    r[0].u = res;
    r[1].u = ovf;
    return CB_GO;
  }
  for (unsigned i = 0; i < l; i++) {
    const cb_value *x = &v[0][i];
    /* a scalar operand of a vector intrinsic (ctlz's and abs's flag) is
     * one slot that every lane reads */
    const cb_value *y = n > 1 ? &v[1][alanes[1] > 1 ? i : 0] : x;
    const cb_value *z = n > 2 ? &v[2][alanes[2] > 1 ? i : 0] : x;
    double dx = lane_d(x, ty);
    uint64_t ux = x->u & imask[ty], uy = y->u & imask[ty];
    unsigned b = ibits(ty);
    switch ((cb_intrinsic)id) {
    case CB_INTR_FABS:
      /* andps/andpd with the sign mask: a NaN keeps its bits, a
       * signalling one too (a round trip through double would quiet it) */
      if (ty == CB_TY_F32)
        r[i].u = x->u & 0x7fffffffu;
      else
        r[i].d = fabs(dx);
      break;
    case CB_INTR_SQRT:
      if (ty == CB_TY_F32)
        ret_f(&r[i], sqrtf(x->f));
      else
        r[i].d = sqrt(dx);
      break;
    case CB_INTR_EXP:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)expf(x->f) : exp(dx));
      break;
    case CB_INTR_LOG:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)logf(x->f) : log(dx));
      break;
    case CB_INTR_POW:
      put_d(&r[i], ty,
            ty == CB_TY_F32 ? (double)powf(x->f, y->f)
                            : pow(dx, lane_d(y, ty)));
      break;
    case CB_INTR_SIN:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)sinf(x->f) : sin(dx));
      break;
    case CB_INTR_COS:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)cosf(x->f) : cos(dx));
      break;
    /* A NaN comes back quiet, as from roundsd and from glibc's
     * functions, explicitly: GCC expands floor, ceil, trunc and rint
     * inline, and its expansion returns a NaN as it is. */
    case CB_INTR_FLOOR:
      put_d(&r[i], ty, isnan(dx) ? fp_quiet_d(dx) : floor(dx));
      break;
    case CB_INTR_CEIL:
      put_d(&r[i], ty, isnan(dx) ? fp_quiet_d(dx) : ceil(dx));
      break;
    case CB_INTR_ROUND:
      put_d(&r[i], ty, isnan(dx) ? fp_quiet_d(dx) : round(dx));
      break;
    case CB_INTR_TRUNC:
      put_d(&r[i], ty, isnan(dx) ? fp_quiet_d(dx) : trunc(dx));
      break;
    case CB_INTR_RINT:
      put_d(&r[i], ty, isnan(dx) ? fp_quiet_d(dx) : rint(dx));
      break;
    case CB_INTR_FMA:
    case CB_INTR_FMULADD: {
      bool fused = id == CB_INTR_FMA || pr->p->fmuladd_fused;
      if (ty == CB_TY_F32)
        ret_f(&r[i], muladd_f(fused, x->f, y->f, z->f));
      else
        r[i].d = muladd_d(fused, x->d, y->d, z->d);
      break;
    }
    case CB_INTR_MAXNUM:
    case CB_INTR_MINNUM: {
      /* x86-64's lowering (LLVM's combineFMinNumFMaxNum): maxss/minss
       * with x as the operand passed through, y picked when x is a NaN;
       * so a NaN y gives x, equal zeros give x, both NaNs y, and the
       * chosen value's bits are kept (no conversion through double) */
      double dy = lane_d(y, ty);
      bool pick_y = isnan(dx) || (id == CB_INTR_MAXNUM ? dy > dx : dy < dx);
      r[i].u = (pick_y ? y->u : x->u) & imask[ty];
      break;
    }
    case CB_INTR_COPYSIGN:
      /* bit operations, as FABS */
      if (ty == CB_TY_F32)
        r[i].u = (x->u & 0x7fffffffu) | (y->u & 0x80000000u);
      else
        r[i].d = copysign(dx, lane_d(y, ty));
      break;
    case CB_INTR_SMAX:
      r[i].u = isx(ux, ty) > isx(uy, ty) ? ux : uy;
      break;
    case CB_INTR_SMIN:
      r[i].u = isx(ux, ty) < isx(uy, ty) ? ux : uy;
      break;
    case CB_INTR_UMAX:
      r[i].u = ux > uy ? ux : uy;
      break;
    case CB_INTR_UMIN:
      r[i].u = ux < uy ? ux : uy;
      break;
    case CB_INTR_ABS:
      r[i].u = (isx(ux, ty) < 0 ? 0 - ux : ux) & imask[ty];
      break;
    case CB_INTR_CTPOP:
      r[i].u = (uint64_t)__builtin_popcountll(ux);
      break;
    case CB_INTR_CTLZ:
      r[i].u = ux ? (uint64_t)(__builtin_clzll(ux) - (64 - (int)b)) : b;
      break;
    case CB_INTR_CTTZ:
      r[i].u = ux ? (uint64_t)__builtin_ctzll(ux) : b;
      break;
    case CB_INTR_BSWAP:
      r[i].u = __builtin_bswap64(ux) >> (64 - b);
      break;
    case CB_INTR_FSHL:
    case CB_INTR_FSHR: {
      unsigned s = (unsigned)(z->u % b);
      unsigned __int128 cat = ((unsigned __int128)ux << b) | uy;
      uint64_t res;
      if (id == CB_INTR_FSHL)
        res = (uint64_t)((cat << s) >> b);
      else
        res = (uint64_t)(cat >> s);
      r[i].u = res & imask[ty];
      break;
    }
    case CB_INTR_UADD_SAT: {
      uint64_t s = (ux + uy) & imask[ty];
      r[i].u = s < ux ? imask[ty] : s;
      break;
    }
    case CB_INTR_USUB_SAT:
      r[i].u = ux > uy ? ux - uy : 0;
      break;
    default:
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "intrinsic #%u is not modelled", id);
    }
  }
  return CB_GO;
}
