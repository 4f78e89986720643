/* libc_files.c: the C library model's FILE streams other than the
 * standard three (libc_stdio.c has those): the streams' state, fopen,
 * fdopen, fclose, the bytes fgetc, fscanf, fputc, fputs, fwrite and
 * fprintf take and give, and exit's flush; the other calls (fgets, fread,
 * ungetc, fseek ..., perror) are libc_files_calls.c's.
 *
 * Each stream follows glibc 2.36's libio (fileops.c, genops.c): fopen
 * mallocs the FILE (472 bytes), the first input or output mallocs its
 * buffer (st_blksize bytes), ungetc of another byte than the one before
 * mallocs a 128-byte backup area, fclose frees the buffer, the backup area
 * and the FILE in that order: the heap model sees them in glibc's order,
 * so every later malloc lands where the real run's does. Reads fill the
 * buffer a block at a time (large freads go straight to the program's
 * memory), writes wait in the buffer until it is full or flushed, exit
 * flushes every stream. The traffic: the FILE's fields each function
 * touches (measured with lackey on heap FILEs: reads of the flags, the
 * read and write pointers, the lock's words), the buffer's bytes as the
 * copies between buffer and program read and write them; not modelled:
 * the functions' own stack frames. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_traffic.h"

/* ---- the FILE's fields each call touches ---- */

typedef struct facc {
  uint8_t off, size, w;
} facc;

#define FR(o, s)                                                               \
  { o, s, 0 }
#define FW(o, s)                                                               \
  { o, s, 1 }
/* _IO_acquire_lock / _IO_release_lock: the lock pointer, the lock's word,
 * count and owner (a read-modify-write counts as a read) */
#define LOCK                                                                   \
  FR(CB_F_LOCK, 8), FR(CB_F_LOCKWORD, 4), FR(CB_F_OWNER, 8),                   \
      FR(CB_F_LOCKWORD, 4), FW(CB_F_OWNER, 8), FR(CB_F_LOCKCNT, 4),            \
      FR(CB_F_LOCK, 8), FR(CB_F_LOCKCNT, 4), FW(CB_F_LOCKCNT, 4),              \
      FR(CB_F_LOCKWORD, 4), FR(CB_F_LOCK, 8), FW(CB_F_OWNER, 8)
static const facc acc_getc[] = {FR(CB_F_FLAGS2, 1), FR(CB_F_READ_PTR, 8),
                                FR(CB_F_READ_END, 8), FW(CB_F_READ_PTR, 8)};
static const facc acc_putc[] = {FR(CB_F_FLAGS2, 1), FR(CB_F_WRITE_PTR, 8),
                                FR(CB_F_WRITE_END, 8), FW(CB_F_WRITE_PTR, 8)};
static const facc acc_gets[] = {FR(CB_F_FLAGS, 4),    LOCK,
                                FR(CB_F_FLAGS, 4),    FR(CB_F_MODE, 4),
                                FR(CB_F_FLAGS, 4),    FR(CB_F_READ_PTR, 8),
                                FR(CB_F_READ_END, 8), FW(CB_F_READ_PTR, 8),
                                FR(CB_F_FLAGS, 4),    FW(CB_F_FLAGS, 4),
                                FW(CB_F_FLAGS, 4)};
static const facc acc_read[] = {FR(CB_F_FLAGS, 4),    LOCK,
                                FR(CB_F_BUF_BASE, 8), FR(CB_F_READ_PTR, 8),
                                FR(CB_F_READ_END, 8), FR(CB_F_VTABLE, 8),
                                FR(CB_F_FLAGS, 4)};
static const facc acc_scanf[] = {FR(CB_F_FLAGS, 4),     LOCK,
                                 FR(CB_F_FLAGS, 4),     FR(CB_F_MODE, 4),
                                 FR(CB_F_FLAGS, 1),     FR(CB_F_FLAGS, 4),
                                 FR(CB_F_READ_BASE, 8), FR(CB_F_READ_BASE, 8),
                                 FW(CB_F_FLAGS, 4),     FR(CB_F_FLAGS, 4),
                                 FW(CB_F_FLAGS, 4)};
/* fscanf per byte it takes: inchar, and ungetc of the byte after */
static const facc acc_scan_byte[] = {FR(CB_F_READ_PTR, 8), FR(CB_F_READ_END, 8),
                                     FW(CB_F_READ_PTR, 8)};
static const facc acc_ungetc[] = {FR(CB_F_FLAGS, 4), FR(CB_F_READ_PTR, 8),
                                  FR(CB_F_READ_BASE, 8), FW(CB_F_READ_PTR, 8),
                                  FW(CB_F_FLAGS, 4)};
static const facc acc_flag[] = {FR(CB_F_FLAGS2, 1), FR(CB_F_FLAGS, 4)};
static const facc acc_tell[] = {FR(CB_F_FLAGS, 4),     LOCK,
                                FR(CB_F_FLAGS, 4),     FR(CB_F_READ_PTR, 8),
                                FR(CB_F_READ_END, 8),  FR(CB_F_WRITE_BASE, 8),
                                FR(CB_F_WRITE_PTR, 8), FR(CB_F_BUF_BASE, 8),
                                FR(CB_F_FILENO, 4),    FR(CB_F_OFFSET, 8),
                                FR(CB_F_VTABLE, 8),    FR(CB_F_VTABLE, 8),
                                FR(CB_F_FLAGS, 4)};
static const facc acc_seek[] = {FR(CB_F_FLAGS, 4),       LOCK,
                                FR(CB_F_FLAGS, 4),       FR(CB_F_MODE, 4),
                                FR(CB_F_VTABLE, 8),      FR(CB_F_FLAGS, 4),
                                FR(CB_F_READ_END, 8),    FR(CB_F_READ_BASE, 8),
                                FR(CB_F_WRITE_BASE, 8),  FR(CB_F_WRITE_PTR, 8),
                                FR(CB_F_BUF_BASE, 8),    FR(CB_F_BUF_END, 8),
                                FR(CB_F_FILENO, 4),      FR(CB_F_OFFSET, 8),
                                FR(CB_F_VTABLE, 8),      FR(CB_F_READ_END, 8),
                                FR(CB_F_READ_BASE, 8),   FR(CB_F_BUF_BASE, 8),
                                FR(CB_F_FLAGS, 4),       FW(CB_F_FLAGS, 4),
                                FW(CB_F_READ_PTR, 8),    FW(CB_F_READ_BASE, 16),
                                FW(CB_F_WRITE_PTR, 16),  FW(CB_F_BUF_END, 16),
                                FW(CB_F_BUF_END + 24, 8)};
static const facc acc_puts[] = {FR(CB_F_FLAGS, 4),     LOCK,
                                FR(CB_F_MODE, 4),      FR(CB_F_FLAGS, 4),
                                FR(CB_F_VTABLE, 8),    FR(CB_F_WRITE_PTR, 8),
                                FR(CB_F_WRITE_END, 8), FW(CB_F_WRITE_PTR, 8),
                                FR(CB_F_FLAGS, 4)};
static const facc acc_printf[] = {FR(CB_F_FLAGS, 4),     LOCK,
                                  FR(CB_F_MODE, 4),      FR(CB_F_FLAGS, 4),
                                  FR(CB_F_FLAGS, 4),     FR(CB_F_VTABLE, 8),
                                  FR(CB_F_VTABLE, 8),    FR(CB_F_WRITE_PTR, 8),
                                  FR(CB_F_WRITE_END, 8), FW(CB_F_WRITE_PTR, 8),
                                  FR(CB_F_VTABLE, 8),    FR(CB_F_WRITE_PTR, 8),
                                  FR(CB_F_WRITE_END, 8), FW(CB_F_WRITE_PTR, 8),
                                  FR(CB_F_FLAGS, 4),     FR(CB_F_FLAGS, 4)};

static void touch(cb_proc *pr, uint64_t fp, const facc *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cb_proc_emit(pr, fp + a[i].off, a[i].size, pr->cur_site, a[i].w);
    if (a[i].w)
      pr->out->lib_writes++;
    else
      pr->out->lib_reads++;
  }
}
static const struct {
  const facc *a;
  size_t n;
} acc_kinds[] = {
    [CB_ACC_GETC] = {acc_getc, sizeof acc_getc / sizeof *acc_getc},
    [CB_ACC_PUTC] = {acc_putc, sizeof acc_putc / sizeof *acc_putc},
    [CB_ACC_GETS] = {acc_gets, sizeof acc_gets / sizeof *acc_gets},
    [CB_ACC_READ] = {acc_read, sizeof acc_read / sizeof *acc_read},
    [CB_ACC_SCANF] = {acc_scanf, sizeof acc_scanf / sizeof *acc_scanf},
    [CB_ACC_SCAN_BYTE] = {acc_scan_byte,
                          sizeof acc_scan_byte / sizeof *acc_scan_byte},
    [CB_ACC_UNGETC] = {acc_ungetc, sizeof acc_ungetc / sizeof *acc_ungetc},
    [CB_ACC_FLAG] = {acc_flag, sizeof acc_flag / sizeof *acc_flag},
    [CB_ACC_TELL] = {acc_tell, sizeof acc_tell / sizeof *acc_tell},
    [CB_ACC_SEEK] = {acc_seek, sizeof acc_seek / sizeof *acc_seek},
    [CB_ACC_PUTS] = {acc_puts, sizeof acc_puts / sizeof *acc_puts},
    [CB_ACC_PRINTF] = {acc_printf, sizeof acc_printf / sizeof *acc_printf},
};

void cb_st_touch(cb_proc *pr, const cb_stream *s, int kind) {
  touch(pr, s->fp, acc_kinds[kind].a, acc_kinds[kind].n);
}

/* ---- streams ---- */

cb_stream *cb_st_find(cb_proc *pr, uint64_t fp) {
  cb_files *f = pr->files;
  if (!f)
    return NULL;
  for (uint32_t i = f->nst; i-- > 0;)
    if (f->st[i].fp == fp && !f->st[i].closed)
      return &f->st[i];
  return NULL;
}

/* The stream of fp, or NULL after failing the run: fp is no open FILE. */
cb_stream *cb_st_get(cb_proc *pr, uint64_t fp, const char *what) {
  cb_stream *s = cb_st_find(pr, fp);
  if (!s)
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                 "%s on a FILE * (0x%llx) that is not open", what,
                 (unsigned long long)fp);
  return s;
}

bool cb_st_is_std(const cb_proc *pr, uint64_t fp) {
  return fp == pr->file_stdin || fp == pr->file_stdout || fp == pr->file_stderr;
}

/* _flags in the FILE's memory: feof_unlocked and ferror_unlocked are
 * inline and read them there. */
void cb_st_sync_flags(cb_proc *pr, const cb_stream *s) {
  uint32_t fl = CB_IO_MAGIC | (s->eof ? CB_IO_EOF_SEEN : 0) |
                (s->err ? CB_IO_ERR_SEEN : 0) | (s->rd ? 0 : 0x8) |
                (s->wr ? 0 : 0x4);
  cb_mem_write(&pr->mem, s->fp + CB_F_FLAGS, &fl, 4, NULL);
}

void cb_st_set_err(cb_proc *pr, cb_stream *s, int err) {
  s->err = true;
  cb_st_sync_flags(pr, s);
  cb_libc_set_errno(pr, err);
}

/* ---- glibc's mallocs and frees for a stream, with malloc's traffic ---- */

/* How far below the program's call (its rsp before the call) glibc calls
 * malloc in _IO_file_doallocate, by the function the program called
 * (gdb on glibc 2.36: the entry's rsp less malloc's); the others (setvbuf,
 * ungetc, ...) take fgetc's. */
static uint64_t doallocate_depth(uint32_t fn) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF:
  case CB_LIBC_VFSCANF:
  case CB_LIBC_ISOC99_VFSCANF:
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF:
    return 2352;
  case CB_LIBC_GETCHAR:
  case CB_LIBC_GETCHAR_UNLOCKED:
    return 344;
  case CB_LIBC_FPRINTF:
  case CB_LIBC_VFPRINTF:
    return 1888;
  case CB_LIBC_FGETS:
  case CB_LIBC_FGETS_UNLOCKED:
    return 480;
  case CB_LIBC_FWRITE:
  case CB_LIBC_FWRITE_UNLOCKED:
  case CB_LIBC_FPUTS:
  case CB_LIBC_FPUTS_UNLOCKED:
  case CB_LIBC_GETLINE:
  case CB_LIBC_GETDELIM:
    return 400;
  case CB_LIBC_FREAD:
  case CB_LIBC_FREAD_UNLOCKED:
    return 384;
  case CB_LIBC_FPUTC:
  case CB_LIBC_FPUTC_UNLOCKED:
  case CB_LIBC_PUTC:
  case CB_LIBC_PUTC_UNLOCKED:
  case CB_LIBC_OVERFLOW:
    return 256;
  default:
    return 336;
  }
}

/* malloc and free as glibc's stdio calls them, depth bytes below the
 * program's call: the heap model's block and malloc's own traffic
 * (libc_malloc_traffic.c), as for the program's malloc; without it the
 * first fopen of a program that had not called malloc lacked
 * ptmalloc_init's and the tcache's set-up (about 55 L1D misses) */
static uint64_t st_malloc(cb_proc *pr, uint64_t n, uint64_t depth) {
  uint64_t p = cb_heap_malloc(pr->heap, n);
  uint64_t C = cb_libc_caller_sp(pr);
  if (p && C)
    cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, C - depth, 0, p, false);
  return p;
}

static void st_free(cb_proc *pr, uint64_t p, uint64_t depth) {
  cb_heap_free(pr->heap, p);
  uint64_t C = cb_libc_caller_sp(pr);
  if (C)
    cb_libc_heap_traffic(pr, CB_LIBC_FREE, C - depth, p, 0, false);
}

/* stdin's buffer at its first read by scanf, fscanf(stdin) or getchar
 * (getc(stdin)'s is libc_stdin_traffic.c's): 4096 bytes (stdin a file, a
 * pipe or /dev/null), with malloc's traffic */
void cb_libc_stdin_buf(cb_proc *pr) {
  if (!pr->stdin_buf)
    pr->stdin_buf = st_malloc(pr, 4096, doallocate_depth(pr->lib_called));
}

/* _IO_file_doallocate: st_blksize bytes from malloc */
bool cb_st_ensure_buf(cb_proc *pr, cb_stream *s) {
  if (s->buf)
    return true;
  if (s->bmode == _IONBF) {
    s->buf = s->fp + 131; /* _shortbuf: one byte inside the FILE */
    s->bufsz = 1;
  } else {
    s->bufsz = cb_fd_blksize(pr, s->fd);
    s->buf = st_malloc(pr, s->bufsz, doallocate_depth(pr->lib_called));
    if (!s->buf) {
      cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                   "no memory for a FILE's %llu-byte buffer",
                   (unsigned long long)s->bufsz);
      return false;
    }
  }
  free(s->rcopy);
  free(s->wcopy);
  s->rcopy = malloc(s->bufsz);
  s->wcopy = malloc(s->bufsz);
  if (!s->rcopy || !s->wcopy) {
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
    return false;
  }
  return true;
}

void cb_st_drop_backup(cb_proc *pr, cb_stream *s) {
  if (s->backup)
    cb_heap_free(pr->heap, s->backup);
  s->backup = 0;
  s->npb = 0;
}

/* Writes what waits in the buffer (no traffic: the kernel reads it).
 * false: the write failed (the error flag is set). */
bool cb_st_flush(cb_proc *pr, cb_stream *s) {
  if (!s->wlen)
    return true;
  int err = 0;
  int64_t r = cb_fd_write(pr, s->fd, 0, s->wcopy, s->wlen, &err);
  s->wlen = 0;
  if (r < 0) {
    if (r == -1)
      cb_st_set_err(pr, s, err);
    return false;
  }
  return true;
}

cb_ofd *cb_st_ofd(cb_proc *pr, cb_stream *s) {
  return cb_fd_ofd(pr, s->fd);
}

/* The stream's position as ftell tells it. */
uint64_t cb_st_tell(cb_proc *pr, cb_stream *s) {
  cb_ofd *o = cb_st_ofd(pr, s);
  uint64_t k = o ? o->pos : 0;
  if (s->wlen)
    return (o && o->append ? pr->files->vf[o->vf].len : k) + s->wlen;
  uint64_t left = s->rlen - s->rpos + s->npb;
  return k >= left ? k - left : 0;
}

/* Leaves reading: the kernel's offset goes back to the stream's. */
void cb_st_leave_read(cb_proc *pr, cb_stream *s) {
  if (s->rlen == s->rpos && !s->npb)
    return;
  cb_ofd *o = cb_st_ofd(pr, s);
  if (o)
    o->pos = cb_st_tell(pr, s);
  s->rlen = s->rpos = 0;
  s->npb = 0;
}

/* __underflow: refills the buffer; the bytes now there (0: end of file
 * or error, flags set). -1 after a failure of the run. */
int64_t cb_st_fill(cb_proc *pr, cb_stream *s) {
  if (!cb_st_flush(pr, s))
    return 0;
  if (s->backup && !s->npb)
    cb_st_drop_backup(pr, s); /* _IO_free_backup_area, genops.c */
  if (!cb_st_ensure_buf(pr, s))
    return -1;
  cb_ofd *o = cb_st_ofd(pr, s);
  if (!o) {
    cb_st_set_err(pr, s, EBADF);
    return 0;
  }
  int err = 0;
  int64_t r = cb_fd_read(pr, s->fd, s->buf, s->bufsz, &err);
  if (r == -2)
    return -1;
  s->rpos = 0;
  if (r <= 0) {
    s->rlen = 0;
    if (r < 0)
      cb_st_set_err(pr, s, err);
    else
      s->eof = true;
    cb_st_sync_flags(pr, s);
    return 0;
  }
  s->roff = o->pos - (uint64_t)r;
  s->rlen = (uint64_t)r;
  memcpy(s->rcopy, pr->files->vf[o->vf].data + s->roff, (size_t)r);
  /* read(2) filled the buffer (no traffic: the kernel's) */
  cb_mem_write(&pr->mem, s->buf, s->rcopy, (size_t)r, NULL);
  return r;
}

bool cb_st_can_read(cb_proc *pr, cb_stream *s) {
  if (s->rd) {
    if (s->wlen)
      cb_st_flush(pr, s);
    return true;
  }
  cb_st_set_err(pr, s, EBADF);
  return false;
}

/* The next byte, EOF, or -2 after a failure of the run. */
int cb_st_getc(cb_proc *pr, cb_stream *s) {
  if (s->npb) {
    cb_proc_emit(pr, s->backup + 128 - s->npb, 1, pr->cur_site, false);
    pr->out->lib_reads++;
    return s->pb[--s->npb];
  }
  if (s->rpos == s->rlen) {
    int64_t r = cb_st_fill(pr, s);
    if (r < 0)
      return -2;
    if (!r)
      return EOF;
  }
  cb_proc_emit(pr, s->buf + s->rpos, 1, pr->cur_site, false);
  pr->out->lib_reads++;
  return s->rcopy[s->rpos++];
}

/* Copies k buffered bytes to the program's dst (memcpy's traffic). */
bool cb_st_copy_out(cb_proc *pr, cb_stream *s, uint64_t dst, uint64_t k) {
  if (!cb_proc_write(pr, dst, s->rcopy + s->rpos, k))
    return false;
  cb_proc_memcpy_traffic(pr, dst, s->buf + s->rpos, k);
  s->rpos += k;
  return true;
}

/* Output of n bytes into the stream (_IO_new_file_xsputn): into the
 * buffer, which is written out when full; whole blocks past it go
 * straight to the file. CB_RETURNED: the write failed. */
static cb_stop st_put(cb_proc *pr, cb_stream *s, const char *p, uint64_t src,
                      uint64_t n) {
  if (!s->wr) {
    cb_st_set_err(pr, s, EBADF);
    return CB_RETURNED;
  }
  cb_st_leave_read(pr, s);
  bool fresh = !s->buf;
  if (!cb_st_ensure_buf(pr, s))
    return CB_FAIL;
  int err = 0;
  if (s->bmode == _IONBF) {
    int64_t r = cb_fd_write(pr, s->fd, 0, p, n, &err);
    if (r == -2)
      return CB_FAIL;
    if (r < 0) {
      cb_st_set_err(pr, s, err);
      return CB_RETURNED;
    }
    return CB_GO;
  }
  /* the first output finds no room (the buffer is made by the overflow
   * that follows) */
  uint64_t k = fresh ? 0 : s->bufsz - s->wlen;
  if (k > n)
    k = n;
  for (int pass = 0; pass < 2; pass++) {
    if (k) {
      memcpy(s->wcopy + s->wlen, p, k);
      cb_mem_write(&pr->mem, s->buf + s->wlen, p, k, NULL);
      if (src)
        cb_proc_memcpy_traffic(pr, s->buf + s->wlen, src, k);
      else
        cb_proc_lib(pr, s->buf + s->wlen, k, true);
      s->wlen += k;
      p += k;
      src = src ? src + k : 0;
      n -= k;
    }
    if (!n || pass)
      break;
    if (!cb_st_flush(pr, s))
      return CB_RETURNED;
    uint64_t direct = s->bufsz >= 128 ? n - n % s->bufsz : n;
    if (direct) {
      int64_t r = cb_fd_write(pr, s->fd, 0, p, direct, &err);
      if (r == -2)
        return CB_FAIL;
      if (r < 0) {
        cb_st_set_err(pr, s, err);
        return CB_RETURNED;
      }
      p += direct;
      src = src ? src + direct : 0;
      n -= direct;
    }
    k = n;
  }
  if (s->bmode == _IOLBF && memchr(s->wcopy, '\n', s->wlen) &&
      !cb_st_flush(pr, s))
    return CB_RETURNED;
  return CB_GO;
}

static cb_stream *st_new(cb_proc *pr, uint64_t fp, int fd, int acc,
                         bool append) {
  cb_files *f = pr->files;
  if (f->nst == f->capst) {
    uint32_t cap = f->capst ? 2 * f->capst : 8;
    cb_stream *v = realloc(f->st, cap * sizeof *v);
    if (!v)
      return NULL;
    f->st = v;
    f->capst = cap;
  }
  cb_stream *s = &f->st[f->nst++];
  memset(s, 0, sizeof *s);
  s->fp = fp;
  s->fd = fd;
  s->rd = acc != O_WRONLY;
  s->wr = acc != O_RDONLY;
  s->append = append;
  /* _IO_no_init, _IO_new_file_init_internal: the FILE's fields and its
   * lock are written */
  cb_proc_lib(pr, fp, CB_F_OWNER + 8, true);
  /* the buffer's pointers: zero until libc_stdio_sync.c writes them */
  cb_mem_fill(&pr->mem, fp + CB_F_READ_PTR, 0, CB_F_FILENO - CB_F_READ_PTR,
              NULL);
  cb_st_sync_flags(pr, s);
  int32_t fdv = fd;
  cb_mem_write(&pr->mem, fp + CB_F_FILENO, &fdv, 4, NULL);
  return s;
}

/* fopen's mode: open(2)'s flags, false for a mode glibc refuses. */
static bool parse_mode(const char *m, int *flags) {
  int acc, fl;
  switch (*m++) {
  case 'r':
    acc = O_RDONLY;
    fl = 0;
    break;
  case 'w':
    acc = O_WRONLY;
    fl = O_CREAT | O_TRUNC;
    break;
  case 'a':
    acc = O_WRONLY;
    fl = O_CREAT | O_APPEND;
    break;
  default:
    return false;
  }
  /* libio/fileops.c reads up to six more characters */
  for (int i = 0; i < 6 && *m; i++, m++) {
    if (*m == '+')
      acc = O_RDWR;
    else if (*m == 'x')
      fl |= O_EXCL;
    else if (*m == 'e')
      fl |= O_CLOEXEC;
    else if (*m == ',')
      break;
  }
  *flags = acc | fl;
  return true;
}

cb_stop cb_st_fopen(cb_proc *pr, const cb_value *a, bool by_fd, cb_value *ret) {
  char *mode = cb_proc_read_str(pr, a[1].u, 64, NULL);
  if (!mode)
    return CB_FAIL;
  int flags = 0;
  bool ok = parse_mode(mode, &flags);
  free(mode);
  ret[0].u = 0;
  int err = EINVAL, fd = -1;
  if (by_fd) {
    /* _IO_new_fdopen checks the descriptor before it mallocs */
    fd = (int)a[0].u;
    int acc = cb_fd_accmode(pr, fd);
    int want = flags & O_ACCMODE;
    if (acc < 0)
      err = EBADF;
    if (acc < 0 || !ok || (acc == O_RDONLY && want != O_RDONLY) ||
        (acc == O_WRONLY && want != O_WRONLY)) {
      cb_libc_set_errno(pr, err);
      return CB_GO;
    }
    if (fd <= 2)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "fdopen of standard descriptor %d is not modelled",
                          fd);
  }
  /* __fopen_internal: the FILE first, freed again when the open fails
   * (malloc and free 48 bytes below fopen's caller) */
  uint64_t fp = st_malloc(pr, CB_FILE_SIZE, 48);
  if (!fp)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "no memory for a FILE");
  if (!by_fd && ok) {
    char *name = cb_proc_read_str(pr, a[0].u, PATH_MAX, NULL);
    if (!name)
      return CB_FAIL;
    fd = cb_fd_open(pr, name, flags, 0666, &err);
    free(name);
    if (fd == -2)
      return CB_FAIL;
  }
  if (fd < 0) {
    st_free(pr, fp, 48);
    cb_libc_set_errno(pr, err);
    return CB_GO;
  }
  cb_ofd *o = cb_fd_ofd(pr, fd);
  bool append = (flags & O_APPEND) != 0;
  if (append && o) {
    o->append = true;
    o->pos = pr->files->vf[o->vf].len; /* fileops.c seeks to the end */
  }
  if (!st_new(pr, fp, fd, flags & O_ACCMODE, append))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  ret[0].u = fp;
  return CB_GO;
}

/* fclose: flush, close, free the buffer (_IO_setb's free, 112 bytes
 * below fclose's caller), the backup area, the FILE (32 bytes below) */
cb_stop cb_st_fclose(cb_proc *pr, cb_stream *s, cb_value *ret) {
  cb_st_touch(pr, s, CB_ACC_TELL);
  bool ok = cb_st_flush(pr, s);
  ok = cb_fd_close(pr, s->fd) == 0 && ok;
  if (s->buf && !s->user_buf && s->bmode != _IONBF)
    st_free(pr, s->buf, 112);
  cb_st_drop_backup(pr, s);
  st_free(pr, s->fp, 32);
  s->closed = true;
  ret[0].u = ok ? 0 : (uint64_t)(uint32_t)EOF;
  return CB_GO;
}

/* ---- the standard streams' share ---- */

cb_stop cb_stream_put(cb_proc *pr, uint64_t fp, const char *s, uint64_t src,
                      size_t n) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  if (fp == pr->file_stderr) {
    /* unbuffered: straight to fd 2 */
    cb_textbuf_put(&pr->err_text, s, n);
    f->stderr_oriented = true;
    return CB_GO;
  }
  if (fp == pr->file_stdin) {
    cb_libc_set_errno(pr, EBADF);
    return CB_RETURNED;
  }
  cb_stream *st = cb_st_get(pr, fp, "output");
  if (!st)
    return CB_FAIL;
  if (n == 1 && !src)
    cb_st_touch(pr, st, CB_ACC_PUTC);
  else if (src)
    cb_st_touch(pr, st, CB_ACC_PUTS);
  else
    cb_st_touch(pr, st, CB_ACC_PRINTF);
  return st_put(pr, st, s, src, n);
}

int cb_stream_getc(cb_proc *pr, uint64_t fp) {
  if (!cb_files_get(pr)) {
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
    return -2;
  }
  cb_stream *s = cb_st_get(pr, fp, "input");
  if (!s)
    return -2;
  cb_st_touch(pr, s, CB_ACC_GETC);
  if (!cb_st_can_read(pr, s))
    return EOF;
  return cb_st_getc(pr, s);
}

cb_stop cb_stream_scanf(cb_proc *pr, uint64_t fp, uint64_t fmt, cb_argcur *ac,
                        cb_value *ret, bool traced) {
  if (!cb_files_get(pr))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  cb_stream *s = cb_st_get(pr, fp, "fscanf");
  if (!s)
    return CB_FAIL;
  /* with glibc's traffic (libc_scanf_traffic.c) the FILE's fields are
   * its rows */
  if (!traced)
    cb_st_touch(pr, s, CB_ACC_SCANF);
  if (!cb_st_can_read(pr, s)) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  if (!cb_st_ensure_buf(pr, s))
    return CB_FAIL;
  /* what the stream will give: the pushed-back bytes, the buffer's, then
   * the file's from the kernel's offset */
  cb_ofd *o = cb_st_ofd(pr, s);
  const cb_vfile *v = o ? &pr->files->vf[o->vf] : NULL;
  uint64_t kpos = o ? o->pos : 0, flen = v ? v->len : 0;
  uint64_t inbuf = s->rlen - s->rpos;
  uint64_t rest = kpos < flen ? flen - kpos : 0;
  size_t len = s->npb + inbuf + rest;
  unsigned char *d = malloc(len + 1);
  if (!d)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  for (uint32_t i = 0; i < s->npb; i++)
    d[i] = s->pb[s->npb - 1 - i];
  memcpy(d + s->npb, s->rcopy + s->rpos, inbuf);
  if (rest)
    memcpy(d + s->npb + inbuf, v->data + kpos, rest);
  size_t pos = 0;
  bool at_end = false;
  cb_sct tr;
  bool on = traced && cb_sct_begin(pr, &tr, CB_SCT_STREAM, fp, fmt);
  int r =
      cb_libc_scan_bytes(pr, d, len, &pos, &at_end, fmt, ac, on ? &tr : NULL);
  free(d);
  if (r == -2)
    return CB_FAIL;
  /* take the bytes through the buffer, as inchar does */
  for (size_t i = 0; i < pos; i++) {
    if (!on)
      cb_st_touch(pr, s, CB_ACC_SCAN_BYTE);
    if (cb_st_getc(pr, s) == -2)
      return CB_FAIL;
  }
  if (at_end) {
    /* inchar met the end: a read that returned nothing */
    if (s->rpos == s->rlen && !s->npb && cb_st_fill(pr, s) < 0)
      return CB_FAIL;
    s->eof = true;
    cb_st_sync_flags(pr, s);
  }
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

void cb_files_at_exit(cb_proc *pr) {
  cb_files *f = pr->files;
  if (!f)
    return;
  /* _IO_cleanup: _IO_flush_all; the buffers are not freed */
  for (uint32_t i = 0; i < f->nst; i++)
    if (!f->st[i].closed)
      cb_st_flush(pr, &f->st[i]);
}
