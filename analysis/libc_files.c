/* libc_files.c: the C library model's FILE streams other than the
 * standard three (libc_stdio.c has those): fopen, fdopen, fclose, fgetc,
 * fgets, fread, fscanf, ungetc, fputc, fputs, fwrite, fprintf, fflush,
 * fseek, ftell, rewind, feof, ferror, clearerr, fileno, setvbuf and
 * setbuf, and the calls of these on stdin, stdout and stderr; perror.
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

static void touch(cb_eng *e, uint64_t fp, const facc *a, size_t n) {
  for (size_t i = 0; i < n; i++) {
    cb_eng_emit(e, fp + a[i].off, a[i].size, e->cur_site, a[i].w);
    if (a[i].w)
      e->out->lib_writes++;
    else
      e->out->lib_reads++;
  }
}
#define TOUCH(e, s, list) touch(e, (s)->fp, list, sizeof list / sizeof *list)

/* ---- streams ---- */

static cb_stream *st_find(cb_eng *e, uint64_t fp) {
  cb_files *f = e->files;
  if (!f)
    return NULL;
  for (uint32_t i = f->nst; i-- > 0;)
    if (f->st[i].fp == fp && !f->st[i].closed)
      return &f->st[i];
  return NULL;
}

/* The stream of fp, or NULL after failing the run: fp is no open FILE. */
static cb_stream *st_get(cb_eng *e, uint64_t fp, const char *what) {
  cb_stream *s = st_find(e, fp);
  if (!s)
    cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                "%s on a FILE * (0x%llx) that is not open", what,
                (unsigned long long)fp);
  return s;
}

static bool is_std(const cb_eng *e, uint64_t fp) {
  return fp == e->file_stdin || fp == e->file_stdout || fp == e->file_stderr;
}

/* _flags in the FILE's memory: feof_unlocked and ferror_unlocked are
 * inline and read them there. */
static void sync_flags(cb_eng *e, const cb_stream *s) {
  uint32_t fl = CB_IO_MAGIC | (s->eof ? CB_IO_EOF_SEEN : 0) |
                (s->err ? CB_IO_ERR_SEEN : 0) | (s->rd ? 0 : 0x8) |
                (s->wr ? 0 : 0x4);
  cb_mem_write(&e->mem, s->fp + CB_F_FLAGS, &fl, 4, NULL);
}

static void set_err(cb_eng *e, cb_stream *s, int err) {
  s->err = true;
  sync_flags(e, s);
  cb_libc_set_errno(e, err);
}

/* _IO_file_doallocate: st_blksize bytes from malloc */
static bool ensure_buf(cb_eng *e, cb_stream *s) {
  if (s->buf)
    return true;
  if (s->bmode == _IONBF) {
    s->buf = s->fp + 131; /* _shortbuf: one byte inside the FILE */
    s->bufsz = 1;
  } else {
    s->bufsz = cb_fd_blksize(e, s->fd);
    s->buf = cb_heap_malloc(e->heap, s->bufsz);
    if (!s->buf) {
      cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
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
    cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
    return false;
  }
  return true;
}

static void drop_backup(cb_eng *e, cb_stream *s) {
  if (s->backup)
    cb_heap_free(e->heap, s->backup);
  s->backup = 0;
  s->npb = 0;
}

/* Writes what waits in the buffer (no traffic: the kernel reads it).
 * false: the write failed (the error flag is set). */
static bool st_flush(cb_eng *e, cb_stream *s) {
  if (!s->wlen)
    return true;
  int err = 0;
  int64_t r = cb_fd_write(e, s->fd, 0, s->wcopy, s->wlen, &err);
  s->wlen = 0;
  if (r < 0) {
    if (r == -1)
      set_err(e, s, err);
    return false;
  }
  return true;
}

static cb_ofd *st_ofd(cb_eng *e, cb_stream *s) {
  return cb_fd_ofd(e, s->fd);
}

/* The stream's position as ftell tells it. */
static uint64_t st_tell(cb_eng *e, cb_stream *s) {
  cb_ofd *o = st_ofd(e, s);
  uint64_t k = o ? o->pos : 0;
  if (s->wlen)
    return (o && o->append ? e->files->vf[o->vf].len : k) + s->wlen;
  uint64_t left = s->rlen - s->rpos + s->npb;
  return k >= left ? k - left : 0;
}

/* Leaves reading: the kernel's offset goes back to the stream's. */
static void leave_read(cb_eng *e, cb_stream *s) {
  if (s->rlen == s->rpos && !s->npb)
    return;
  cb_ofd *o = st_ofd(e, s);
  if (o)
    o->pos = st_tell(e, s);
  s->rlen = s->rpos = 0;
  s->npb = 0;
}

/* __underflow: refills the buffer; the bytes now there (0: end of file
 * or error, flags set). -1 after a failure of the run. */
static int64_t st_fill(cb_eng *e, cb_stream *s) {
  if (!st_flush(e, s))
    return 0;
  if (s->backup && !s->npb)
    drop_backup(e, s); /* _IO_free_backup_area, genops.c */
  if (!ensure_buf(e, s))
    return -1;
  cb_ofd *o = st_ofd(e, s);
  if (!o) {
    set_err(e, s, EBADF);
    return 0;
  }
  int err = 0;
  int64_t r = cb_fd_read(e, s->fd, s->buf, s->bufsz, &err);
  if (r == -2)
    return -1;
  s->rpos = 0;
  if (r <= 0) {
    s->rlen = 0;
    if (r < 0)
      set_err(e, s, err);
    else
      s->eof = true;
    sync_flags(e, s);
    return 0;
  }
  s->roff = o->pos - (uint64_t)r;
  s->rlen = (uint64_t)r;
  memcpy(s->rcopy, e->files->vf[o->vf].data + s->roff, (size_t)r);
  return r;
}

static bool can_read(cb_eng *e, cb_stream *s) {
  if (s->rd) {
    if (s->wlen)
      st_flush(e, s);
    return true;
  }
  set_err(e, s, EBADF);
  return false;
}

/* The next byte, EOF, or -2 after a failure of the run. */
static int st_getc(cb_eng *e, cb_stream *s) {
  if (s->npb) {
    cb_eng_emit(e, s->backup + 128 - s->npb, 1, e->cur_site, false);
    e->out->lib_reads++;
    return s->pb[--s->npb];
  }
  if (s->rpos == s->rlen) {
    int64_t r = st_fill(e, s);
    if (r < 0)
      return -2;
    if (!r)
      return EOF;
  }
  cb_eng_emit(e, s->buf + s->rpos, 1, e->cur_site, false);
  e->out->lib_reads++;
  return s->rcopy[s->rpos++];
}

/* Copies k buffered bytes to the program's dst (memcpy's traffic). */
static bool copy_out(cb_eng *e, cb_stream *s, uint64_t dst, uint64_t k) {
  if (!cb_eng_write(e, dst, s->rcopy + s->rpos, k))
    return false;
  cb_eng_memcpy_traffic(e, dst, s->buf + s->rpos, k);
  s->rpos += k;
  return true;
}

/* Output of n bytes into the stream (_IO_new_file_xsputn): into the
 * buffer, which is written out when full; whole blocks past it go
 * straight to the file. CB_RETURNED: the write failed. */
static cb_stop st_put(cb_eng *e, cb_stream *s, const char *p, uint64_t src,
                      uint64_t n) {
  if (!s->wr) {
    set_err(e, s, EBADF);
    return CB_RETURNED;
  }
  leave_read(e, s);
  bool fresh = !s->buf;
  if (!ensure_buf(e, s))
    return CB_FAIL;
  int err = 0;
  if (s->bmode == _IONBF) {
    int64_t r = cb_fd_write(e, s->fd, 0, p, n, &err);
    if (r == -2)
      return CB_FAIL;
    if (r < 0) {
      set_err(e, s, err);
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
      cb_mem_write(&e->mem, s->buf + s->wlen, p, k, NULL);
      if (src)
        cb_eng_memcpy_traffic(e, s->buf + s->wlen, src, k);
      else
        cb_eng_lib(e, s->buf + s->wlen, k, true);
      s->wlen += k;
      p += k;
      src = src ? src + k : 0;
      n -= k;
    }
    if (!n || pass)
      break;
    if (!st_flush(e, s))
      return CB_RETURNED;
    uint64_t direct = s->bufsz >= 128 ? n - n % s->bufsz : n;
    if (direct) {
      int64_t r = cb_fd_write(e, s->fd, 0, p, direct, &err);
      if (r == -2)
        return CB_FAIL;
      if (r < 0) {
        set_err(e, s, err);
        return CB_RETURNED;
      }
      p += direct;
      src = src ? src + direct : 0;
      n -= direct;
    }
    k = n;
  }
  if (s->bmode == _IOLBF && memchr(s->wcopy, '\n', s->wlen) && !st_flush(e, s))
    return CB_RETURNED;
  return CB_GO;
}

static cb_stream *st_new(cb_eng *e, uint64_t fp, int fd, int acc, bool append) {
  cb_files *f = e->files;
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
  cb_eng_lib(e, fp, CB_F_OWNER + 8, true);
  sync_flags(e, s);
  int32_t fdv = fd;
  cb_mem_write(&e->mem, fp + CB_F_FILENO, &fdv, 4, NULL);
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

static cb_stop do_fopen(cb_eng *e, const cb_value *a, bool by_fd,
                        cb_value *ret) {
  char *mode = cb_eng_read_str(e, a[1].u, 64, NULL);
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
    int acc = cb_fd_accmode(e, fd);
    int want = flags & O_ACCMODE;
    if (acc < 0)
      err = EBADF;
    if (acc < 0 || !ok || (acc == O_RDONLY && want != O_RDONLY) ||
        (acc == O_WRONLY && want != O_WRONLY)) {
      cb_libc_set_errno(e, err);
      return CB_GO;
    }
    if (fd <= 2)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "fdopen of standard descriptor %d is not modelled",
                         fd);
  }
  /* __fopen_internal: the FILE first, freed again when the open fails */
  uint64_t fp = cb_heap_malloc(e->heap, CB_FILE_SIZE);
  if (!fp)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "no memory for a FILE");
  if (!by_fd && ok) {
    char *name = cb_eng_read_str(e, a[0].u, PATH_MAX, NULL);
    if (!name)
      return CB_FAIL;
    fd = cb_fd_open(e, name, flags, 0666, &err);
    free(name);
    if (fd == -2)
      return CB_FAIL;
  }
  if (fd < 0) {
    cb_heap_free(e->heap, fp);
    cb_libc_set_errno(e, err);
    return CB_GO;
  }
  cb_ofd *o = cb_fd_ofd(e, fd);
  bool append = (flags & O_APPEND) != 0;
  if (append && o) {
    o->append = true;
    o->pos = e->files->vf[o->vf].len; /* fileops.c seeks to the end */
  }
  if (!st_new(e, fp, fd, flags & O_ACCMODE, append))
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  ret[0].u = fp;
  return CB_GO;
}

/* fclose: flush, close, free the buffer, the backup area, the FILE */
static cb_stop do_fclose(cb_eng *e, cb_stream *s, cb_value *ret) {
  TOUCH(e, s, acc_tell);
  bool ok = st_flush(e, s);
  ok = cb_fd_close(e, s->fd) == 0 && ok;
  if (s->buf && !s->user_buf && s->bmode != _IONBF)
    cb_heap_free(e->heap, s->buf);
  drop_backup(e, s);
  cb_heap_free(e->heap, s->fp);
  s->closed = true;
  ret[0].u = ok ? 0 : (uint64_t)(uint32_t)EOF;
  return CB_GO;
}

/* ---- the standard streams' share ---- */

cb_stop cb_stream_put(cb_eng *e, uint64_t fp, const char *s, uint64_t src,
                      size_t n) {
  cb_files *f = cb_files_get(e);
  if (!f)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  if (fp == e->file_stderr) {
    /* unbuffered: straight to fd 2 */
    cb_textbuf_put(&e->err_text, s, n);
    f->stderr_oriented = true;
    return CB_GO;
  }
  if (fp == e->file_stdin) {
    cb_libc_set_errno(e, EBADF);
    return CB_RETURNED;
  }
  cb_stream *st = st_get(e, fp, "output");
  if (!st)
    return CB_FAIL;
  if (n == 1 && !src)
    TOUCH(e, st, acc_putc);
  else if (src)
    TOUCH(e, st, acc_puts);
  else
    TOUCH(e, st, acc_printf);
  return st_put(e, st, s, src, n);
}

int cb_stream_getc(cb_eng *e, uint64_t fp) {
  if (!cb_files_get(e)) {
    cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
    return -2;
  }
  cb_stream *s = st_get(e, fp, "input");
  if (!s)
    return -2;
  TOUCH(e, s, acc_getc);
  if (!can_read(e, s))
    return EOF;
  return st_getc(e, s);
}

cb_stop cb_stream_scanf(cb_eng *e, uint64_t fp, uint64_t fmt, cb_argcur *ac,
                        cb_value *ret) {
  if (!cb_files_get(e))
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  cb_stream *s = st_get(e, fp, "fscanf");
  if (!s)
    return CB_FAIL;
  TOUCH(e, s, acc_scanf);
  if (!can_read(e, s)) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  if (!ensure_buf(e, s))
    return CB_FAIL;
  /* what the stream will give: the pushed-back bytes, the buffer's, then
   * the file's from the kernel's offset */
  cb_ofd *o = st_ofd(e, s);
  const cb_vfile *v = o ? &e->files->vf[o->vf] : NULL;
  uint64_t kpos = o ? o->pos : 0, flen = v ? v->len : 0;
  uint64_t inbuf = s->rlen - s->rpos;
  uint64_t rest = kpos < flen ? flen - kpos : 0;
  size_t len = s->npb + inbuf + rest;
  unsigned char *d = malloc(len + 1);
  if (!d)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  for (uint32_t i = 0; i < s->npb; i++)
    d[i] = s->pb[s->npb - 1 - i];
  memcpy(d + s->npb, s->rcopy + s->rpos, inbuf);
  if (rest)
    memcpy(d + s->npb + inbuf, v->data + kpos, rest);
  size_t pos = 0;
  bool at_end = false;
  int r = cb_libc_scan_bytes(e, d, len, &pos, &at_end, fmt, ac);
  free(d);
  if (r == -2)
    return CB_FAIL;
  /* take the bytes through the buffer, as inchar does */
  for (size_t i = 0; i < pos; i++) {
    TOUCH(e, s, acc_scan_byte);
    if (st_getc(e, s) == -2)
      return CB_FAIL;
  }
  if (at_end) {
    /* inchar met the end: a read that returned nothing */
    if (s->rpos == s->rlen && !s->npb && st_fill(e, s) < 0)
      return CB_FAIL;
    s->eof = true;
    sync_flags(e, s);
  }
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

void cb_files_at_exit(cb_eng *e) {
  cb_files *f = e->files;
  if (!f)
    return;
  /* _IO_cleanup: _IO_flush_all; the buffers are not freed */
  for (uint32_t i = 0; i < f->nst; i++)
    if (!f->st[i].closed)
      st_flush(e, &f->st[i]);
}

/* ---- the calls ---- */

static cb_stop ret_int(cb_value *ret, int v) {
  ret[0].u = (uint64_t)(uint32_t)v;
  return CB_GO;
}

/* setvbuf on a standard stream: stdout's buffer (libc_stdio.c); input
 * and stderr buffers other than glibc's are not modelled */
static cb_stop std_setvbuf(cb_eng *e, uint64_t fp, uint64_t buf, int mode,
                           uint64_t size, cb_value *ret) {
  if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
    return ret_int(ret, EOF);
  if (fp == e->file_stderr) {
    if (mode == _IONBF)
      return ret_int(ret, 0);
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "a buffer for stderr (setvbuf) is not modelled");
  }
  if (fp == e->file_stdin) {
    if (e->stdin_buf || (buf && mode != _IONBF) || mode == _IONBF)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "setvbuf on stdin with a buffer of its own, "
                         "unbuffered or after input, is not modelled");
    return ret_int(ret, 0);
  }
  /* stdout: glibc's setvbuf (libio/iosetvbuf.c) */
  if (e->stdout_pos % (e->stdout_cap ? e->stdout_cap : 4096) ||
      (e->out_text.n && e->stdout_unbuf))
    e->stdout_flushed = e->out_text.n; /* _IO_SYNC */
  if (mode == _IOLBF && !buf)
    return ret_int(ret, 0);
  if (mode == _IOFBF && !buf) {
    if (!e->stdout_buf && !e->stdout_unbuf) /* allocated now */
      cb_libc_put_stdout(e, "", 0);
    return ret_int(ret, 0);
  }
  /* _IO_setb frees a buffer glibc malloc'ed */
  if (e->stdout_buf && !e->stdout_cap)
    cb_heap_free(e->heap, e->stdout_buf);
  e->stdout_pos = 0;
  if (mode == _IONBF || !size) {
    e->stdout_buf = 0;
    e->stdout_unbuf = true;
    e->stdout_cap = 0;
  } else {
    e->stdout_buf = buf;
    e->stdout_cap = size;
    e->stdout_unbuf = false;
  }
  return ret_int(ret, 0);
}

static cb_stop do_setvbuf(cb_eng *e, uint64_t fp, uint64_t buf, int mode,
                          uint64_t size, cb_value *ret) {
  if (is_std(e, fp))
    return std_setvbuf(e, fp, buf, mode, size, ret);
  cb_stream *s = st_get(e, fp, "setvbuf");
  if (!s)
    return CB_FAIL;
  TOUCH(e, s, acc_tell);
  if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
    return ret_int(ret, EOF);
  if (!buf && mode != _IONBF) {
    s->bmode = mode;
    /* full buffering allocates now (iosetvbuf.c) */
    if (mode == _IOFBF && !s->buf && !ensure_buf(e, s))
      return CB_FAIL;
    return ret_int(ret, 0);
  }
  /* _IO_SYNC, then _IO_setb */
  st_flush(e, s);
  leave_read(e, s);
  if (s->buf && !s->user_buf && s->bmode != _IONBF)
    cb_heap_free(e->heap, s->buf);
  s->buf = 0;
  s->user_buf = false;
  s->bmode = mode;
  if (mode == _IONBF || !size)
    s->bmode = _IONBF;
  else {
    s->buf = buf;
    s->bufsz = size;
    s->user_buf = true;
    free(s->rcopy);
    free(s->wcopy);
    s->rcopy = malloc(size);
    s->wcopy = malloc(size);
    if (!s->rcopy || !s->wcopy)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  }
  return ret_int(ret, 0);
}

/* fgets on stdin: libc_stdio.c's stdin model, a byte at a time */
static int stdin_getc(cb_eng *e) {
  cb_files *f = e->files;
  if (f->stdin_npb) {
    cb_eng_emit(e, f->stdin_backup + 128 - f->stdin_npb, 1, e->cur_site, false);
    e->out->lib_reads++;
    return f->stdin_pb[--f->stdin_npb];
  }
  if (!e->stdin_buf)
    e->stdin_buf = cb_heap_malloc(e->heap, 4096);
  if (e->stdin_pos >= e->in_len) {
    f->stdin_eof = true;
    return EOF;
  }
  cb_eng_emit(e, e->stdin_buf + e->stdin_pos % 4096, 1, e->cur_site, false);
  e->out->lib_reads++;
  return e->in_data[e->stdin_pos++];
}

static cb_stop do_fgets(cb_eng *e, uint64_t dst, int n, uint64_t fp,
                        cb_value *ret) {
  ret[0].u = 0;
  bool in = fp == e->file_stdin;
  cb_stream *s = NULL;
  if (!in) {
    if (is_std(e, fp)) {
      cb_libc_set_errno(e, EBADF);
      return CB_GO;
    }
    if (!(s = st_get(e, fp, "fgets")))
      return CB_FAIL;
    TOUCH(e, s, acc_gets);
    if (!can_read(e, s))
      return CB_GO;
  }
  if (n <= 0)
    return CB_GO;
  int count = 0;
  char nul = 0;
  while (count < n - 1) {
    /* a run of buffered bytes goes by memchr and memcpy */
    if (s && !s->npb && s->rpos < s->rlen) {
      uint64_t len = s->rlen - s->rpos;
      if (len > (uint64_t)(n - 1 - count))
        len = (uint64_t)(n - 1 - count);
      const unsigned char *nl = memchr(s->rcopy + s->rpos, '\n', len);
      uint64_t k = nl ? (uint64_t)(nl - (s->rcopy + s->rpos)) + 1 : len;
      cb_libc_scan(e, s->buf + s->rpos, k);
      if (!copy_out(e, s, dst + (uint64_t)count, k))
        return CB_FAIL;
      count += (int)k;
      if (nl)
        break;
      continue;
    }
    int c = s ? st_getc(e, s) : stdin_getc(e);
    if (c == -2)
      return CB_FAIL;
    if (c == EOF)
      break;
    char ch = (char)c;
    if (!cb_eng_write(e, dst + (uint64_t)count, &ch, 1))
      return CB_FAIL;
    cb_eng_lib(e, dst + (uint64_t)count, 1, true);
    count++;
    if (c == '\n')
      break;
  }
  if (s && s->err)
    return CB_GO;
  if (count == 0 && n > 1)
    return CB_GO;
  if (!cb_eng_write(e, dst + (uint64_t)count, &nul, 1))
    return CB_FAIL;
  cb_eng_lib(e, dst + (uint64_t)count, 1, true);
  ret[0].u = dst;
  return CB_GO;
}

/* fread (_IO_file_xsgetn) */
static cb_stop do_fread(cb_eng *e, uint64_t dst, uint64_t size, uint64_t count,
                        uint64_t fp, cb_value *ret) {
  uint64_t want = size * count, got = 0;
  ret[0].u = 0;
  if (!want)
    return CB_GO;
  if (fp == e->file_stdin) {
    /* byte by byte through libc_stdio.c's stdin model */
    while (got < want) {
      int c = stdin_getc(e);
      if (c == EOF)
        break;
      uint8_t b = (uint8_t)c;
      if (!cb_eng_write(e, dst + got, &b, 1))
        return CB_FAIL;
      cb_eng_lib(e, dst + got, 1, true);
      got++;
    }
    ret[0].u = got / size;
    return CB_GO;
  }
  if (is_std(e, fp)) {
    cb_libc_set_errno(e, EBADF);
    return CB_GO;
  }
  cb_stream *s = st_get(e, fp, "fread");
  if (!s)
    return CB_FAIL;
  TOUCH(e, s, acc_read);
  if (!can_read(e, s))
    return CB_GO;
  if (!s->buf) {
    if (s->backup)
      drop_backup(e, s);
    if (!ensure_buf(e, s))
      return CB_FAIL;
  }
  while (got < want) {
    if (s->npb) {
      int c = st_getc(e, s);
      uint8_t b = (uint8_t)c;
      if (!cb_eng_write(e, dst + got, &b, 1))
        return CB_FAIL;
      cb_eng_lib(e, dst + got, 1, true);
      got++;
      continue;
    }
    uint64_t have = s->rlen - s->rpos, need = want - got;
    if (have) {
      uint64_t k = have < need ? have : need;
      if (!copy_out(e, s, dst + got, k))
        return CB_FAIL;
      got += k;
      continue;
    }
    if (need < s->bufsz) {
      int64_t r = st_fill(e, s);
      if (r < 0)
        return CB_FAIL;
      if (!r)
        break;
      continue;
    }
    /* whole blocks straight into the program's memory */
    uint64_t direct = s->bufsz >= 128 ? need - need % s->bufsz : need;
    int err = 0;
    int64_t r = cb_fd_read(e, s->fd, dst + got, direct, &err);
    if (r == -2)
      return CB_FAIL;
    if (r <= 0) {
      if (r < 0)
        set_err(e, s, err);
      else
        s->eof = true;
      sync_flags(e, s);
      break;
    }
    got += (uint64_t)r;
  }
  ret[0].u = got / size;
  return CB_GO;
}

static cb_stop do_ungetc(cb_eng *e, int c, uint64_t fp, cb_value *ret) {
  cb_files *f = e->files;
  ret[0].u = (uint64_t)(uint32_t)EOF;
  if (c == EOF)
    return CB_GO;
  unsigned char ch = (unsigned char)c;
  ret[0].u = ch;
  if (fp == e->file_stdin) {
    f->stdin_eof = false;
    if (!f->stdin_npb && e->stdin_pos > 0 &&
        e->in_data[e->stdin_pos - 1] == ch) {
      cb_eng_emit(e, e->stdin_buf + (e->stdin_pos - 1) % 4096, 1, e->cur_site,
                  false);
      e->out->lib_reads++;
      e->stdin_pos--;
      return CB_GO;
    }
    if (f->stdin_npb == sizeof f->stdin_pb)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "more than 128 bytes pushed back by ungetc");
    if (!f->stdin_backup)
      f->stdin_backup = cb_heap_malloc(e->heap, 128);
    f->stdin_pb[f->stdin_npb++] = ch;
    cb_eng_lib(e, f->stdin_backup + 128 - f->stdin_npb, 1, true);
    return CB_GO;
  }
  if (is_std(e, fp)) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  cb_stream *s = st_get(e, fp, "ungetc");
  if (!s)
    return CB_FAIL;
  TOUCH(e, s, acc_ungetc);
  if (!s->rd) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  if (s->wlen && !st_flush(e, s))
    return CB_GO;
  s->eof = false;
  sync_flags(e, s);
  /* _IO_sputbackc: the byte before, in the buffer, steps back */
  if (!s->npb && s->rpos > 0 && s->rcopy[s->rpos - 1] == ch) {
    cb_eng_emit(e, s->buf + s->rpos - 1, 1, e->cur_site, false);
    e->out->lib_reads++;
    s->rpos--;
    return CB_GO;
  }
  if (s->npb == sizeof s->pb)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "more than 128 bytes pushed back by ungetc");
  if (!s->backup)
    s->backup = cb_heap_malloc(e->heap, 128);
  s->pb[s->npb++] = ch;
  cb_eng_lib(e, s->backup + 128 - s->npb, 1, true);
  return CB_GO;
}

static cb_stop do_seek(cb_eng *e, uint64_t fp, int64_t off, int whence,
                       cb_value *ret, bool rewind) {
  cb_stream *s = st_get(e, fp, rewind ? "rewind" : "fseek");
  if (!s)
    return CB_FAIL;
  TOUCH(e, s, acc_seek);
  cb_ofd *o = st_ofd(e, s);
  int64_t base = whence == SEEK_SET   ? 0
                 : whence == SEEK_CUR ? (int64_t)st_tell(e, s)
                 : whence == SEEK_END && o
                     ? (int64_t)e->files->vf[o->vf].len + (int64_t)s->wlen
                     : -1;
  if (!o || base < 0 || base + off < 0) {
    cb_libc_set_errno(e, o ? EINVAL : EBADF);
    ret[0].u = (uint64_t)(uint32_t)-1;
    return CB_GO;
  }
  if (!st_flush(e, s)) {
    ret[0].u = (uint64_t)(uint32_t)-1;
    return CB_GO;
  }
  o->pos = (uint64_t)(base + off);
  s->rlen = s->rpos = 0;
  drop_backup(e, s);
  s->eof = false;
  if (rewind)
    s->err = false;
  sync_flags(e, s);
  ret[0].u = 0;
  return CB_GO;
}

/* perror (stdio-common/perror.c): "s: message\n" on stderr. With stderr
 * not used yet it first tries dup(2) and fdopen(fd, "w+"), which fails
 * with EINVAL on a descriptor open for writing only (the pipe or file of
 * cgref's and the native runs): errno is EINVAL after. */
static cb_stop do_perror(cb_eng *e, uint64_t sp) {
  int errnum = cb_libc_errno(e);
  char *s = NULL;
  size_t len = 0;
  if (sp) {
    s = cb_eng_read_str(e, sp, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    cb_libc_scan(e, sp, len + 1);
  }
  const char *msg = strerror(errnum);
  cb_textbuf b = {0};
  if (s && *s) {
    cb_textbuf_put(&b, s, len);
    cb_textbuf_put(&b, ": ", 2);
  }
  cb_textbuf_put(&b, msg, strlen(msg));
  cb_textbuf_put(&b, "\n", 1);
  cb_textbuf_put(&e->err_text, b.s, b.n);
  free(b.s);
  free(s);
  cb_files *f = e->files;
  if (!f->stderr_oriented) {
    f->stderr_oriented = true;
    cb_libc_set_errno(e, EINVAL);
  }
  return CB_GO;
}

static cb_stop std_flag(cb_eng *e, uint32_t fn, uint64_t fp, cb_value *ret) {
  cb_files *f = e->files;
  bool *eof = fp == e->file_stdin ? &f->stdin_eof : NULL;
  bool *err = fp == e->file_stdin ? &f->stdin_err : &f->stdout_err;
  bool zero = false;
  if (!eof)
    eof = &zero;
  if (fn == CB_LIBC_FEOF)
    return ret_int(ret, *eof);
  if (fn == CB_LIBC_FERROR)
    return ret_int(ret, *err);
  *eof = *err = false;
  return CB_GO;
}

cb_stop cb_libc_files_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret) {
  (void)ty;
  (void)n;
  if (!cb_files_get(e))
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
  switch ((cb_libfn)fn) {
  case CB_LIBC_FOPEN:
  case CB_LIBC_FOPEN64:
    return do_fopen(e, a, false, ret);
  case CB_LIBC_FDOPEN:
    return do_fopen(e, a, true, ret);
  case CB_LIBC_FCLOSE: {
    if (is_std(e, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "fclose of a standard stream is not modelled");
    cb_stream *s = st_get(e, a[0].u, "fclose");
    return s ? do_fclose(e, s, ret) : CB_FAIL;
  }
  case CB_LIBC_FGETS:
    return do_fgets(e, a[0].u, (int)(uint32_t)a[1].u, a[2].u, ret);
  case CB_LIBC_FREAD:
    return do_fread(e, a[0].u, a[1].u, a[2].u, a[3].u, ret);
  case CB_LIBC_UNGETC:
    return do_ungetc(e, (int)(uint32_t)a[0].u, a[1].u, ret);
  case CB_LIBC_FFLUSH: {
    ret[0].u = 0;
    uint64_t fp = a[0].u;
    if (!fp || fp == e->file_stdout) {
      /* stdout's buffer is written out and starts again at its start */
      uint64_t cap = e->stdout_cap ? e->stdout_cap : 4096;
      e->stdout_pos = (e->stdout_pos + cap - 1) / cap * cap;
      e->stdout_flushed = e->out_text.n;
    }
    if (fp && is_std(e, fp))
      return CB_GO;
    cb_files *f = e->files;
    for (uint32_t i = 0; i < f->nst; i++) {
      cb_stream *s = &f->st[i];
      if (s->closed || (fp && s->fp != fp))
        continue;
      TOUCH(e, s, acc_tell);
      if (!st_flush(e, s))
        ret[0].u = (uint64_t)(uint32_t)EOF;
      leave_read(e, s);
    }
    if (fp && !st_find(e, fp))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "fflush on a FILE * (0x%llx) that is not open",
                         (unsigned long long)fp);
    return CB_GO;
  }
  case CB_LIBC_FSEEK:
  case CB_LIBC_FSEEKO:
    if (is_std(e, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "fseek on a standard stream is not modelled");
    return do_seek(e, a[0].u, (int64_t)a[1].u, (int)(uint32_t)a[2].u, ret,
                   false);
  case CB_LIBC_REWIND:
    if (is_std(e, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "rewind on a standard stream is not modelled");
    return do_seek(e, a[0].u, 0, SEEK_SET, ret, true);
  case CB_LIBC_FTELL:
  case CB_LIBC_FTELLO: {
    if (is_std(e, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "ftell on a standard stream is not modelled");
    cb_stream *s = st_get(e, a[0].u, "ftell");
    if (!s)
      return CB_FAIL;
    TOUCH(e, s, acc_tell);
    ret[0].u = st_tell(e, s);
    return CB_GO;
  }
  case CB_LIBC_FEOF:
  case CB_LIBC_FERROR:
  case CB_LIBC_CLEARERR: {
    if (is_std(e, a[0].u))
      return std_flag(e, fn, a[0].u, ret);
    cb_stream *s = st_get(e, a[0].u, "feof/ferror/clearerr");
    if (!s)
      return CB_FAIL;
    TOUCH(e, s, acc_flag);
    if (fn == CB_LIBC_FEOF)
      return ret_int(ret, s->eof);
    if (fn == CB_LIBC_FERROR)
      return ret_int(ret, s->err);
    s->eof = s->err = false;
    sync_flags(e, s);
    return CB_GO;
  }
  case CB_LIBC_FILENO: {
    uint64_t fp = a[0].u;
    if (is_std(e, fp))
      return ret_int(ret, fp == e->file_stdin    ? 0
                          : fp == e->file_stdout ? 1
                                                 : 2);
    cb_stream *s = st_get(e, fp, "fileno");
    if (!s)
      return CB_FAIL;
    TOUCH(e, s, acc_flag);
    return ret_int(ret, s->fd);
  }
  case CB_LIBC_SETVBUF:
    return do_setvbuf(e, a[0].u, a[1].u, (int)(uint32_t)a[2].u, a[3].u, ret);
  case CB_LIBC_SETBUF:
    /* setbuf(fp, buf): setvbuf(fp, buf, buf ? _IOFBF : _IONBF, BUFSIZ) */
    return do_setvbuf(e, a[0].u, a[1].u, a[1].u ? _IOFBF : _IONBF, BUFSIZ, ret);
  case CB_LIBC_PERROR:
    return do_perror(e, a[0].u);
  default:
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "library function #%u is not modelled", fn);
  }
}
