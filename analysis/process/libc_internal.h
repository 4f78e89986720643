/* libc_internal.h: what the C library model's files (libc*.c, proc*.c)
 * share beyond proc.h: the calls of each family, errno, descriptors and
 * streams, printf's and scanf's argument cursor. Internal to the process
 * stage. */
#ifndef CBANA_LIBC_INTERNAL_H
#define CBANA_LIBC_INTERNAL_H

#include "proc.h"

/* Strings are read to their NUL, however long: glibc has no limit, and a
 * cut string would be a silent wrong answer (a 64 MB strlen). An
 * unterminated one ends at the first unmapped byte, a fault. */
#define MAX_STR SIZE_MAX

/* libc_getopt.c: the address of libc's variable `name` of size bytes as
 * the Program declares it (copy-relocated into the executable's .bss),
 * 0 when the program does not refer to it or defines its own. */
uint64_t cb_libc_var(const cb_proc *pr, const char *name, uint32_t size);

/* libc_malloc_traffic.c: the allocator's traffic outside the heap for
 * the heap call fn (CB_LIBC_MALLOC ... POSIX_MEMALIGN) that just ran in
 * the heap model, called with the caller's rsp C; arg: free's, realloc's
 * pointer; mem: the block returned; consolidated: malloc_consolidate ran.
 * cb_libc_caller_sp: C for a call from the Program. */
void cb_libc_heap_traffic(cb_proc *pr, uint32_t fn, uint64_t C, uint64_t arg,
                          uint64_t mem, bool consolidated);
uint64_t cb_libc_caller_sp(const cb_proc *pr);

/* libc_stdio_traffic.c: printf, puts and putchar/putc on stdout. begin
 * (before cb_libc_stdio_call) notes where the output starts and mutes the
 * model's approximate traffic for the format and the buffer; false: not
 * modelled here (other streams, a terminal). end emits glibc's. */
typedef struct cb_stdio_mark {
  bool first;   /* stdout had no buffer yet */
  uint64_t pos; /* stdout's position before */
  uint64_t C;   /* the caller's rsp */
  uint8_t
      tail; /* getc(stdin): its rows after the byte (libc_stdin_traffic.c) */
} cb_stdio_mark;
bool cb_libc_stdio_traffic_begin(cb_proc *pr, uint32_t fn, const cb_value *a,
                                 cb_stdio_mark *mk);
/* libc_stdin_traffic.c: getc(stdin)'s, before and after the byte */
bool cb_libc_stdin_traffic_begin(cb_proc *pr, cb_stdio_mark *mk);
void cb_libc_stdin_traffic_end(cb_proc *pr, const cb_stdio_mark *mk,
                               cb_stop st);
void cb_libc_stdio_traffic_end(cb_proc *pr, uint32_t fn, const cb_value *a,
                               const uint8_t *ty, uint32_t n,
                               const cb_stdio_mark *mk, cb_stop st);

/* libm's long double functions, CB_LIBC_ACOSL to CB_LIBC_FMAL
 * (libc_ldouble.c) */
cb_stop cb_libc_ldouble_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                             const uint8_t *ty, uint32_t n, cb_value *ret);

/* libc_mem.c */
/* glibc's AVX2 string functions read whole aligned 32-byte vectors. */
void cb_libc_scan(cb_proc *pr, uint64_t addr, uint64_t len);
/* __strlen_avx2's loads over the len bytes at p and their NUL (and
 * __rawmemchr_avx2's for a NUL, the same steps) */
void cb_libc_strlen_traffic(cb_proc *pr, uint64_t p, uint64_t len);
/* memmove/memcpy and memset: the bytes and glibc's traffic. */
cb_stop cb_libc_memmove(cb_proc *pr, uint64_t dst, uint64_t src, uint64_t n);
/* qsort (libc_qsort.c): glibc's merge sort, the comparator called back. */
cb_stop cb_libc_qsort(cb_proc *pr, uint64_t base, uint64_t n, uint64_t size,
                      uint64_t fnaddr);
cb_stop cb_libc_memset(cb_proc *pr, uint64_t dst, int c, uint64_t n);
/* cb_libc_call for mem* and str* functions. */
cb_stop cb_libc_mem_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                         const uint8_t *ty, uint32_t n, cb_value *ret);

/* libc_strcmp.c: glibc's strcmp loads for strings s and t whose first
 * difference or NUL is at index k; returns how many. */
uint64_t cb_libc_strcmp_traffic(cb_proc *pr, uint64_t s, uint64_t t,
                                uint64_t k);
/* The same for __strcasecmp_avx2 (k: the first index whose bytes differ
 * after the C locale's tolower, or whose byte of s is NUL). */
uint64_t cb_libc_strcasecmp_traffic(cb_proc *pr, uint64_t s, uint64_t t,
                                    uint64_t k);

/* libc_math.c: whether fn is one of <math.h>'s functions, and its call. */
bool cb_libc_is_libm(uint32_t fn);
cb_stop cb_libc_math_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          const uint8_t *ty, cb_value *ret);

/* libc.c: tells the allocation sink about a heap call (in stream order). */
void cb_libc_alloc_event(cb_proc *pr, cb_alloc_kind kind, uint32_t fn,
                         uint64_t addr, uint64_t old, uint64_t size);

/* libc_string.c, libc_stdlib.c, libc_ctype.c: cb_libc_call for their
 * functions. */
cb_stop cb_libc_string_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret);
cb_stop cb_libc_stdlib_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret);
cb_stop cb_libc_ctype_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           cb_value *ret);

/* libc_stdio_sync.c: stdin's and stdout's FILE fields, which glibc's
 * inline getc_unlocked and putc_unlocked use. pull takes back what the
 * program's code did since publish wrote them (false after failing the
 * run); publish writes them for the model's state after a call. */
bool cb_stdio_pull(cb_proc *pr);
void cb_stdio_publish(cb_proc *pr);
void cb_stdio_publish_streams(cb_proc *pr);
/* libc_stdio.c: bytes the program itself stored into stdout's buffer:
 * the output and stdout's position, no memory written, no traffic. */
void cb_libc_put_stdout_text(cb_proc *pr, const char *s, size_t n);
/* libc_getline.c: getline and getdelim. */
cb_stop cb_libc_getdelim(cb_proc *pr, uint64_t lineptr, uint64_t np, int delim,
                         uint64_t fp, cb_value *ret);

/* libc_exit.c: atexit, __cxa_atexit and on_exit (exit itself is
 * cb_libc_exit, proc.h). */
/* setjmp's and longjmp's (libc_setjmp.c); longjmp returns CB_LONGJMP
 * with the frames dropped, or fails */
cb_stop cb_libc_setjmp(cb_proc *pr, uint32_t fn, const cb_value *a, uint32_t n,
                       cb_value *ret);
cb_stop cb_libc_longjmp(cb_proc *pr, uint32_t fn, const cb_value *a);
cb_stop cb_libc_exit_register(cb_proc *pr, uint32_t fn, const cb_value *a,
                              cb_value *ret);

/* libc_getopt.c: getopt and getopt_long; the initial values of optind,
 * opterr, optopt. */
cb_stop cb_libc_getopt(cb_proc *pr, uint32_t fn, const cb_value *a,
                       cb_value *ret);
void cb_libc_getopt_init(cb_proc *pr);

/* libc_tempname.c: mktemp. */
cb_stop cb_libc_mktemp(cb_proc *pr, const cb_value *a, cb_value *ret);

/* libc_stdstream.c: fclose, rewind and ftell on stdin, stdout and
 * stderr; whether a call uses a standard stream fclose closed. */
cb_stop cb_libc_std_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                         cb_value *ret);
bool cb_libc_std_closed_use(cb_proc *pr, uint32_t fn, const cb_value *a,
                            uint32_t n);

/* libc_time.c: localtime, localtime_r, gmtime, gmtime_r, asctime and
 * ctime; its state freed with the engine. */
cb_stop cb_libc_time_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          cb_value *ret);
void cb_libc_time_free(cb_proc *pr);

/* libc_locale.c: setlocale (the C locale's); catopen, catgets and
 * catclose without a catalog. */
cb_stop cb_libc_setlocale(cb_proc *pr, const cb_value *a, cb_value *ret);
cb_stop cb_libc_catalog_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                             cb_value *ret);

/* libc_proc.c: sleep, getrusage, isatty, signal. */
cb_stop cb_libc_proc_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          cb_value *ret);

/* libc_rand.c */
/* One library access of exactly n bytes. */
void cb_libc_acc(cb_proc *pr, uint64_t a, uint32_t n, bool w);
/* libm's own traffic inside fn's call on the arguments a, its result ret
 * (libc_math_traffic.c) */
void cb_libm_traffic(cb_proc *pr, uint32_t fn, const double *a, double ret);
/* Where the stack protector's canary (%fs:0x28) is. */
uint64_t cb_libc_canary(const cb_proc *pr);
/* random()'s traffic (via_rand: called by rand()), pos as in rand.h. */
void cb_libc_random_traffic(cb_proc *pr, bool via_rand, unsigned pos);
/* srand()/srandom()'s traffic. */
void cb_libc_srand_traffic(cb_proc *pr);
/* cb_libc_call for the rand48 family. */
cb_stop cb_libc_rand48_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            cb_value *ret);

/* libc_stdio.c */
/* cb_libc_call for the printf and scanf families and the other stdio
 * functions. */
cb_stop cb_libc_stdio_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);

/* An integer type's width in bits, and a value of it sign-extended. */
static inline unsigned ibits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
}

static inline int64_t isx(uint64_t v, unsigned ty) {
  unsigned b = ibits(ty);
  if (b >= 64)
    return (int64_t)v;
  return (int64_t)(v << (64 - b)) >> (64 - b);
}

/* The variable arguments of a printf or scanf: the call's own values
 * from a[i], or, when va is set, the `va_list` at va. Under the SysV
 * x86-64 ABI that is {u32 gp_offset; u32 fp_offset; void
 * *overflow_arg_area; void *reg_save_area} in memory, read as glibc's
 * vfprintf reads it (va_arg: integers at reg_save_area + gp_offset while
 * gp_offset < 48, doubles at reg_save_area + fp_offset while fp_offset <
 * 176, else the next 8 bytes of overflow_arg_area; the offsets and the
 * pointer are written back, as the callee's va_arg does through the
 * caller's va_list). bad: a read faulted (the failure is recorded). */
typedef struct cb_argcur {
  const cb_value *a;
  const uint8_t *ty;
  uint32_t n, i;
  uint64_t va;
  long double ld; /* the last CB_TY_F80 argument read from va */
  bool bad;
} cb_argcur;
/* The argument class a conversion takes. */
enum { CB_ARG_INT, CB_ARG_DOUBLE, CB_ARG_LDOUBLE };
cb_value cb_libc_next_arg(cb_proc *pr, cb_argcur *c, int cls, uint8_t *ty);
/* the scanf family (libc_scan.c) */
cb_stop cb_libc_scanf_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);
/* printf's formatting of fmt_addr's format into *b; false after a fault. */
bool cb_libc_format(cb_proc *pr, uint64_t fmt_addr, cb_argcur *ac,
                    cb_textbuf *b);
/* scanf's conversions over d[*pos .. len): returns the assignments, EOF,
 * or -2 after a fault; *pos moves past what was consumed, *at_end tells
 * whether it looked for a byte past len (the stream's end). tr (or NULL):
 * glibc's own traffic, step by step (libc_traffic.h). */
struct cb_sct;
int cb_libc_scan_bytes(cb_proc *pr, const unsigned char *d, size_t len,
                       size_t *pos, bool *at_end, uint64_t fmt_addr,
                       cb_argcur *ac, struct cb_sct *tr);
/* stdout's text and its buffer's traffic (libc_stdio.c). */
void cb_libc_put_stdout(cb_proc *pr, const char *s, size_t n);

/* libc_fd.c: files and file descriptors, errno. */
/* cb_libc_call for open, read, write, lseek, close, fstat, stat, remove,
 * unlink, rename, creat and __errno_location. */
cb_stop cb_libc_fd_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                        const uint8_t *ty, uint32_t n, cb_value *ret);
/* Sets the program's errno (a store of the library's). */
void cb_libc_set_errno(cb_proc *pr, int err);
/* errno's value without its store's access (a table has it). */
void cb_libc_put_errno(cb_proc *pr, int err);
/* The program's errno as it is in memory now. */
int cb_libc_errno(cb_proc *pr);
/* Opens path with open(2)'s flags and mode: the new descriptor, or -1
 * with *err set (errno's value); -2 after a failure of the run. */
int cb_fd_open(cb_proc *pr, const char *path, int flags, unsigned mode,
               int *err);
/* read(2)/write(2) of n bytes at addr through descriptor fd (the kernel
 * reads and writes the program's memory: no traffic): bytes moved, or -1
 * with *err set; -2 after a failure of the run. */
int64_t cb_fd_read(cb_proc *pr, int fd, uint64_t addr, uint64_t n, int *err);
int64_t cb_fd_write(cb_proc *pr, int fd, uint64_t addr, const void *host,
                    uint64_t n, int *err);
/* lseek(2); -1 with *err set. */
int64_t cb_fd_seek(cb_proc *pr, int fd, int64_t off, int whence, int *err);
int cb_fd_close(cb_proc *pr, int fd);
/* st_blksize of the file behind fd (glibc's stdio buffer size). */
uint64_t cb_fd_blksize(cb_proc *pr, int fd);
/* open(2)'s access mode of fd (O_RDONLY ...), -1 when fd is not open. */
int cb_fd_accmode(cb_proc *pr, int fd);
/* The files the run wrote, for the outcome (engine.h). */
void cb_files_outcome(cb_proc *pr, cb_run_outcome *out);
void cb_files_free(cb_proc *pr);

/* libc_files.c: FILE streams. */
/* cb_libc_call for fopen, fclose, fgets, fread, ungetc, fseek ... and
 * perror; the printf/scanf/put/get functions of libc_stdio.c hand their
 * non-standard FILEs here. */
cb_stop cb_libc_files_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret);
/* Output of n bytes (a host copy at s; src the program's address they
 * came from, 0 for formatted text) to FILE fp, other than stdout. */
cb_stop cb_stream_put(cb_proc *pr, uint64_t fp, const char *s, uint64_t src,
                      size_t n);
/* fgetc on a FILE other than stdin: the byte or EOF (-1); -2 after a
 * failure of the run. */
int cb_stream_getc(cb_proc *pr, uint64_t fp);
/* fscanf on a FILE other than stdin; traced: with glibc's own traffic
 * (fscanf itself, libc_scanf_traffic.c). */
cb_stop cb_stream_scanf(cb_proc *pr, uint64_t fp, uint64_t fmt, cb_argcur *ac,
                        cb_value *ret, bool traced);
/* exit() and main's return flush every stream (glibc's _IO_cleanup). */
void cb_files_at_exit(cb_proc *pr);
/* libc_intr_ext.c: cb_intrinsic_call for CB_INTR_SADD_SAT to
 * CB_INTR_LLRINT. */
cb_stop cb_intrinsic_ext(cb_proc *pr, uint32_t id, const cb_op *op,
                         const cb_value *const *v, const uint8_t *aty,
                         const uint8_t *alanes, uint32_t n, cb_value *r);

#endif
