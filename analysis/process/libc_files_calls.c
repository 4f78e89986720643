/* libc_files_calls.c: the C library model's calls on FILE streams
 * (libc_files.c keeps the streams themselves): fgets, fread, ungetc,
 * fflush, fseek, rewind, ftell, feof, ferror, clearerr, fileno, setvbuf,
 * setbuf and perror, on streams fopen made and on stdin, stdout and
 * stderr (whose state libc_stdio.c keeps), and cb_libc_files_call, the
 * dispatcher of libc_files.c's and this file's functions. The rules are
 * glibc 2.36's libio (iofgets.c, fileops.c _IO_file_xsgetn, genops.c
 * _IO_default_pbackfail, iosetvbuf.c) and stdio-common/perror.c. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"

/* ---- the calls ---- */

static cb_stop ret_int(cb_value *ret, int v) {
  ret[0].u = (uint64_t)(uint32_t)v;
  return CB_GO;
}

/* setvbuf on a standard stream: stdout's buffer (libc_stdio.c); input
 * and stderr buffers other than glibc's are not modelled */
static cb_stop std_setvbuf(cb_proc *pr, uint64_t fp, uint64_t buf, int mode,
                           uint64_t size, cb_value *ret) {
  if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
    return ret_int(ret, EOF);
  if (fp == pr->file_stderr) {
    if (mode == _IONBF)
      return ret_int(ret, 0);
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "a buffer for stderr (setvbuf) is not modelled");
  }
  if (fp == pr->file_stdin) {
    if (pr->stdin_buf || (buf && mode != _IONBF) || mode == _IONBF)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "setvbuf on stdin with a buffer of its own, "
                          "unbuffered or after input, is not modelled");
    return ret_int(ret, 0);
  }
  /* stdout: glibc's setvbuf (libio/iosetvbuf.c) */
  if (pr->stdout_pos % (pr->stdout_cap ? pr->stdout_cap : 4096) ||
      (pr->out_text.n && pr->stdout_unbuf)) {
    pr->stdout_sent = pr->out_text.n; /* _IO_SYNC */
    pr->stdout_flushed = true;
  }
  if (mode == _IOLBF && !buf)
    return ret_int(ret, 0);
  if (mode == _IOFBF && !buf) {
    if (!pr->stdout_buf && !pr->stdout_unbuf) /* allocated now */
      cb_libc_put_stdout(pr, "", 0);
    return ret_int(ret, 0);
  }
  /* _IO_setb frees a buffer glibc malloc'ed */
  if (pr->stdout_buf && !pr->stdout_cap)
    cb_heap_free(pr->heap, pr->stdout_buf);
  pr->stdout_pos = 0;
  if (mode == _IONBF || !size) {
    pr->stdout_buf = 0;
    pr->stdout_unbuf = true;
    pr->stdout_cap = 0;
  } else {
    pr->stdout_buf = buf;
    pr->stdout_cap = size;
    pr->stdout_unbuf = false;
  }
  return ret_int(ret, 0);
}

static cb_stop do_setvbuf(cb_proc *pr, uint64_t fp, uint64_t buf, int mode,
                          uint64_t size, cb_value *ret) {
  if (cb_st_is_std(pr, fp))
    return std_setvbuf(pr, fp, buf, mode, size, ret);
  cb_stream *s = cb_st_get(pr, fp, "setvbuf");
  if (!s)
    return CB_FAIL;
  cb_st_touch(pr, s, CB_ACC_TELL);
  if (mode != _IOFBF && mode != _IOLBF && mode != _IONBF)
    return ret_int(ret, EOF);
  if (!buf && mode != _IONBF) {
    s->bmode = mode;
    /* full buffering allocates now (iosetvbuf.c) */
    if (mode == _IOFBF && !s->buf && !cb_st_ensure_buf(pr, s))
      return CB_FAIL;
    return ret_int(ret, 0);
  }
  /* _IO_SYNC, then _IO_setb */
  cb_st_flush(pr, s);
  cb_st_leave_read(pr, s);
  if (s->buf && !s->user_buf && s->bmode != _IONBF)
    cb_heap_free(pr->heap, s->buf);
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
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  }
  return ret_int(ret, 0);
}

/* fgets on stdin: libc_stdio.c's stdin model, a byte at a time */
static int stdin_getc(cb_proc *pr) {
  cb_files *f = pr->files;
  if (f->stdin_npb) {
    cb_proc_emit(pr, f->stdin_backup + 128 - f->stdin_npb, 1, pr->cur_site,
                 false);
    pr->out->lib_reads++;
    return f->stdin_pb[--f->stdin_npb];
  }
  if (!pr->stdin_buf)
    pr->stdin_buf = cb_heap_malloc(pr->heap, 4096);
  if (pr->stdin_pos >= pr->in_len) {
    f->stdin_eof = true;
    return EOF;
  }
  cb_proc_emit(pr, pr->stdin_buf + pr->stdin_pos % 4096, 1, pr->cur_site,
               false);
  pr->out->lib_reads++;
  return pr->in_data[pr->stdin_pos++];
}

static cb_stop do_fgets(cb_proc *pr, uint64_t dst, int n, uint64_t fp,
                        cb_value *ret) {
  ret[0].u = 0;
  bool in = fp == pr->file_stdin;
  cb_stream *s = NULL;
  if (!in) {
    if (cb_st_is_std(pr, fp)) {
      cb_libc_set_errno(pr, EBADF);
      return CB_GO;
    }
    if (!(s = cb_st_get(pr, fp, "fgets")))
      return CB_FAIL;
    cb_st_touch(pr, s, CB_ACC_GETS);
    if (!cb_st_can_read(pr, s))
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
      cb_libc_scan(pr, s->buf + s->rpos, k);
      if (!cb_st_copy_out(pr, s, dst + (uint64_t)count, k))
        return CB_FAIL;
      count += (int)k;
      if (nl)
        break;
      continue;
    }
    int c = s ? cb_st_getc(pr, s) : stdin_getc(pr);
    if (c == -2)
      return CB_FAIL;
    if (c == EOF)
      break;
    char ch = (char)c;
    if (!cb_proc_write(pr, dst + (uint64_t)count, &ch, 1))
      return CB_FAIL;
    cb_proc_lib(pr, dst + (uint64_t)count, 1, true);
    count++;
    if (c == '\n')
      break;
  }
  if (s && s->err)
    return CB_GO;
  if (count == 0 && n > 1)
    return CB_GO;
  if (!cb_proc_write(pr, dst + (uint64_t)count, &nul, 1))
    return CB_FAIL;
  cb_proc_lib(pr, dst + (uint64_t)count, 1, true);
  ret[0].u = dst;
  return CB_GO;
}

/* fread (_IO_file_xsgetn) */
static cb_stop do_fread(cb_proc *pr, uint64_t dst, uint64_t size,
                        uint64_t count, uint64_t fp, cb_value *ret) {
  uint64_t want = size * count, got = 0;
  ret[0].u = 0;
  if (!want)
    return CB_GO;
  if (fp == pr->file_stdin) {
    /* byte by byte through libc_stdio.c's stdin model */
    while (got < want) {
      int c = stdin_getc(pr);
      if (c == EOF)
        break;
      uint8_t b = (uint8_t)c;
      if (!cb_proc_write(pr, dst + got, &b, 1))
        return CB_FAIL;
      cb_proc_lib(pr, dst + got, 1, true);
      got++;
    }
    ret[0].u = got / size;
    return CB_GO;
  }
  if (cb_st_is_std(pr, fp)) {
    cb_libc_set_errno(pr, EBADF);
    return CB_GO;
  }
  cb_stream *s = cb_st_get(pr, fp, "fread");
  if (!s)
    return CB_FAIL;
  cb_st_touch(pr, s, CB_ACC_READ);
  if (!cb_st_can_read(pr, s))
    return CB_GO;
  if (!s->buf) {
    if (s->backup)
      cb_st_drop_backup(pr, s);
    if (!cb_st_ensure_buf(pr, s))
      return CB_FAIL;
  }
  while (got < want) {
    if (s->npb) {
      int c = cb_st_getc(pr, s);
      uint8_t b = (uint8_t)c;
      if (!cb_proc_write(pr, dst + got, &b, 1))
        return CB_FAIL;
      cb_proc_lib(pr, dst + got, 1, true);
      got++;
      continue;
    }
    uint64_t have = s->rlen - s->rpos, need = want - got;
    if (have) {
      uint64_t k = have < need ? have : need;
      if (!cb_st_copy_out(pr, s, dst + got, k))
        return CB_FAIL;
      got += k;
      continue;
    }
    if (need < s->bufsz) {
      int64_t r = cb_st_fill(pr, s);
      if (r < 0)
        return CB_FAIL;
      if (!r)
        break;
      continue;
    }
    /* whole blocks straight into the program's memory */
    uint64_t direct = s->bufsz >= 128 ? need - need % s->bufsz : need;
    int err = 0;
    int64_t r = cb_fd_read(pr, s->fd, dst + got, direct, &err);
    if (r == -2)
      return CB_FAIL;
    if (r <= 0) {
      if (r < 0)
        cb_st_set_err(pr, s, err);
      else
        s->eof = true;
      cb_st_sync_flags(pr, s);
      break;
    }
    got += (uint64_t)r;
  }
  ret[0].u = got / size;
  return CB_GO;
}

static cb_stop do_ungetc(cb_proc *pr, int c, uint64_t fp, cb_value *ret) {
  cb_files *f = pr->files;
  ret[0].u = (uint64_t)(uint32_t)EOF;
  if (c == EOF)
    return CB_GO;
  unsigned char ch = (unsigned char)c;
  ret[0].u = ch;
  if (fp == pr->file_stdin) {
    f->stdin_eof = false;
    if (!f->stdin_npb && pr->stdin_pos > 0 &&
        pr->in_data[pr->stdin_pos - 1] == ch) {
      cb_proc_emit(pr, pr->stdin_buf + (pr->stdin_pos - 1) % 4096, 1,
                   pr->cur_site, false);
      pr->out->lib_reads++;
      pr->stdin_pos--;
      return CB_GO;
    }
    if (f->stdin_npb == sizeof f->stdin_pb)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "more than 128 bytes pushed back by ungetc");
    if (!f->stdin_backup)
      f->stdin_backup = cb_heap_malloc(pr->heap, 128);
    f->stdin_pb[f->stdin_npb++] = ch;
    cb_proc_lib(pr, f->stdin_backup + 128 - f->stdin_npb, 1, true);
    return CB_GO;
  }
  if (cb_st_is_std(pr, fp)) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  cb_stream *s = cb_st_get(pr, fp, "ungetc");
  if (!s)
    return CB_FAIL;
  cb_st_touch(pr, s, CB_ACC_UNGETC);
  if (!s->rd) {
    ret[0].u = (uint64_t)(uint32_t)EOF;
    return CB_GO;
  }
  if (s->wlen && !cb_st_flush(pr, s))
    return CB_GO;
  s->eof = false;
  cb_st_sync_flags(pr, s);
  /* _IO_sputbackc: the byte before, in the buffer, steps back */
  if (!s->npb && s->rpos > 0 && s->rcopy[s->rpos - 1] == ch) {
    cb_proc_emit(pr, s->buf + s->rpos - 1, 1, pr->cur_site, false);
    pr->out->lib_reads++;
    s->rpos--;
    return CB_GO;
  }
  if (s->npb == sizeof s->pb)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "more than 128 bytes pushed back by ungetc");
  if (!s->backup)
    s->backup = cb_heap_malloc(pr->heap, 128);
  s->pb[s->npb++] = ch;
  cb_proc_lib(pr, s->backup + 128 - s->npb, 1, true);
  return CB_GO;
}

static cb_stop do_seek(cb_proc *pr, uint64_t fp, int64_t off, int whence,
                       cb_value *ret, bool rewind) {
  cb_stream *s = cb_st_get(pr, fp, rewind ? "rewind" : "fseek");
  if (!s)
    return CB_FAIL;
  cb_st_touch(pr, s, CB_ACC_SEEK);
  cb_ofd *o = cb_st_ofd(pr, s);
  int64_t base = whence == SEEK_SET   ? 0
                 : whence == SEEK_CUR ? (int64_t)cb_st_tell(pr, s)
                 : whence == SEEK_END && o
                     ? (int64_t)pr->files->vf[o->vf].len + (int64_t)s->wlen
                     : -1;
  if (!o || base < 0 || base + off < 0) {
    cb_libc_set_errno(pr, o ? EINVAL : EBADF);
    ret[0].u = (uint64_t)(uint32_t)-1;
    return CB_GO;
  }
  if (!cb_st_flush(pr, s)) {
    ret[0].u = (uint64_t)(uint32_t)-1;
    return CB_GO;
  }
  o->pos = pr->files->vf[o->vf].devnull ? 0 : (uint64_t)(base + off);
  s->rlen = s->rpos = 0;
  cb_st_drop_backup(pr, s);
  s->eof = false;
  if (rewind)
    s->err = false;
  cb_st_sync_flags(pr, s);
  ret[0].u = 0;
  return CB_GO;
}

/* perror (stdio-common/perror.c): "s: message\n" on stderr. With stderr
 * not used yet it first tries dup(2) and fdopen(fd, "w+"), which fails
 * with EINVAL on a descriptor open for writing only (the pipe or file of
 * cgref's and the native runs): errno is EINVAL after. */
static cb_stop do_perror(cb_proc *pr, uint64_t sp) {
  int errnum = cb_libc_errno(pr);
  char *s = NULL;
  size_t len = 0;
  if (sp) {
    s = cb_proc_read_str(pr, sp, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    cb_libc_scan(pr, sp, len + 1);
  }
  const char *msg = strerror(errnum);
  cb_textbuf b = {0};
  if (s && *s) {
    cb_textbuf_put(&b, s, len);
    cb_textbuf_put(&b, ": ", 2);
  }
  cb_textbuf_put(&b, msg, strlen(msg));
  cb_textbuf_put(&b, "\n", 1);
  cb_textbuf_put(&pr->err_text, b.s, b.n);
  free(b.s);
  free(s);
  cb_files *f = pr->files;
  if (!f->stderr_oriented) {
    f->stderr_oriented = true;
    cb_libc_set_errno(pr, EINVAL);
  }
  return CB_GO;
}

static cb_stop std_flag(cb_proc *pr, uint32_t fn, uint64_t fp, cb_value *ret) {
  cb_files *f = pr->files;
  bool *eof = fp == pr->file_stdin ? &f->stdin_eof : NULL;
  bool *err = fp == pr->file_stdin ? &f->stdin_err : &f->stdout_err;
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

cb_stop cb_libc_files_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret) {
  (void)ty;
  (void)n;
  if (!cb_files_get(pr))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  switch ((cb_libfn)fn) {
  case CB_LIBC_FOPEN:
  case CB_LIBC_FOPEN64:
    return cb_st_fopen(pr, a, false, ret);
  case CB_LIBC_FDOPEN:
    return cb_st_fopen(pr, a, true, ret);
  case CB_LIBC_FCLOSE: {
    if (cb_st_is_std(pr, a[0].u))
      return cb_libc_std_call(pr, fn, a, ret);
    cb_stream *s = cb_st_get(pr, a[0].u, "fclose");
    return s ? cb_st_fclose(pr, s, ret) : CB_FAIL;
  }
  case CB_LIBC_FGETS:
    return do_fgets(pr, a[0].u, (int)(uint32_t)a[1].u, a[2].u, ret);
  case CB_LIBC_FREAD:
    return do_fread(pr, a[0].u, a[1].u, a[2].u, a[3].u, ret);
  case CB_LIBC_UNGETC:
    return do_ungetc(pr, (int)(uint32_t)a[0].u, a[1].u, ret);
  case CB_LIBC_FFLUSH: {
    ret[0].u = 0;
    uint64_t fp = a[0].u;
    if (!fp || fp == pr->file_stdout) {
      /* stdout's buffer is written out and starts again at its start */
      uint64_t cap = pr->stdout_cap ? pr->stdout_cap : 4096;
      pr->stdout_pos = (pr->stdout_pos + cap - 1) / cap * cap;
      pr->stdout_sent = pr->out_text.n;
      pr->stdout_flushed = true;
    }
    if (fp && cb_st_is_std(pr, fp))
      return CB_GO;
    cb_files *f = pr->files;
    for (uint32_t i = 0; i < f->nst; i++) {
      cb_stream *s = &f->st[i];
      if (s->closed || (fp && s->fp != fp))
        continue;
      cb_st_touch(pr, s, CB_ACC_TELL);
      if (!cb_st_flush(pr, s))
        ret[0].u = (uint64_t)(uint32_t)EOF;
      cb_st_leave_read(pr, s);
    }
    if (fp && !cb_st_find(pr, fp))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "fflush on a FILE * (0x%llx) that is not open",
                          (unsigned long long)fp);
    return CB_GO;
  }
  case CB_LIBC_FSEEK:
  case CB_LIBC_FSEEKO:
    if (cb_st_is_std(pr, a[0].u))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "fseek on a standard stream is not modelled");
    return do_seek(pr, a[0].u, (int64_t)a[1].u, (int)(uint32_t)a[2].u, ret,
                   false);
  case CB_LIBC_REWIND:
    if (cb_st_is_std(pr, a[0].u))
      return cb_libc_std_call(pr, fn, a, ret);
    return do_seek(pr, a[0].u, 0, SEEK_SET, ret, true);
  case CB_LIBC_FTELL:
  case CB_LIBC_FTELLO: {
    if (cb_st_is_std(pr, a[0].u))
      return cb_libc_std_call(pr, fn, a, ret);
    cb_stream *s = cb_st_get(pr, a[0].u, "ftell");
    if (!s)
      return CB_FAIL;
    cb_st_touch(pr, s, CB_ACC_TELL);
    ret[0].u = cb_st_tell(pr, s);
    return CB_GO;
  }
  case CB_LIBC_FGETPOS: {
    /* libio/iofgetpos.c: ftell's position into the fpos_t's __pos (its
     * __state is only written for wide streams) */
    if (cb_st_is_std(pr, a[0].u))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "fgetpos on a standard stream is not modelled");
    cb_stream *s = cb_st_get(pr, a[0].u, "fgetpos");
    if (!s)
      return CB_FAIL;
    cb_st_touch(pr, s, CB_ACC_TELL);
    uint64_t pos = cb_st_tell(pr, s);
    if (!cb_proc_write(pr, a[1].u, &pos, 8))
      return CB_FAIL;
    cb_proc_lib(pr, a[1].u, 8, true);
    return ret_int(ret, 0);
  }
  case CB_LIBC_FSETPOS: {
    /* libio/iofsetpos.c: fseek(fp, pos->__pos, SEEK_SET)'s work */
    if (cb_st_is_std(pr, a[0].u))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "fsetpos on a standard stream is not modelled");
    int64_t pos;
    if (!cb_proc_read(pr, a[1].u, &pos, 8))
      return CB_FAIL;
    cb_proc_lib(pr, a[1].u, 8, false);
    return do_seek(pr, a[0].u, pos, SEEK_SET, ret, false);
  }
  case CB_LIBC_FEOF:
  case CB_LIBC_FERROR:
  case CB_LIBC_CLEARERR: {
    if (cb_st_is_std(pr, a[0].u))
      return std_flag(pr, fn, a[0].u, ret);
    cb_stream *s = cb_st_get(pr, a[0].u, "feof/ferror/clearerr");
    if (!s)
      return CB_FAIL;
    cb_st_touch(pr, s, CB_ACC_FLAG);
    if (fn == CB_LIBC_FEOF)
      return ret_int(ret, s->eof);
    if (fn == CB_LIBC_FERROR)
      return ret_int(ret, s->err);
    s->eof = s->err = false;
    cb_st_sync_flags(pr, s);
    return CB_GO;
  }
  case CB_LIBC_FILENO: {
    uint64_t fp = a[0].u;
    if (cb_st_is_std(pr, fp))
      return ret_int(ret, fp == pr->file_stdin    ? 0
                          : fp == pr->file_stdout ? 1
                                                  : 2);
    cb_stream *s = cb_st_get(pr, fp, "fileno");
    if (!s)
      return CB_FAIL;
    cb_st_touch(pr, s, CB_ACC_FLAG);
    return ret_int(ret, s->fd);
  }
  case CB_LIBC_SETVBUF:
    return do_setvbuf(pr, a[0].u, a[1].u, (int)(uint32_t)a[2].u, a[3].u, ret);
  case CB_LIBC_SETBUF:
    /* setbuf(fp, buf): setvbuf(fp, buf, buf ? _IOFBF : _IONBF, BUFSIZ) */
    return do_setvbuf(pr, a[0].u, a[1].u, a[1].u ? _IOFBF : _IONBF, BUFSIZ,
                      ret);
  case CB_LIBC_PERROR:
    return do_perror(pr, a[0].u);
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
