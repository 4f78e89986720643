/* libc_stdstream.c: fclose, rewind and ftell on stdin, stdout and stderr,
 * whose state libc_stdio.c keeps (stdin's position in its input, stdout's
 * text and buffer), as glibc 2.36's libio does them (iofclose.c,
 * fileops.c: _IO_new_file_close_it, _IO_new_file_seekoff, do_ftell;
 * genops.c: _IO_un_link, _IO_setb).
 *
 * What the model's process has: stdin is the input file (or /dev/null),
 * stdout a regular file, as `cbana validate` runs the program (its
 * output file is opened with O_TRUNC: ftell(stdout) is every byte the
 * program has sent to fd 1, pending ones included).
 *
 * fclose of a standard stream writes out what waits, closes the
 * descriptor, frees glibc's buffer (not the FILE: it is libc's) and
 * unlinks the FILE from _IO_list_all. Any later use of the stream stops
 * the input with its line (glibc would fail with EBADF or EOF; nothing
 * a program relies on). rewind(stdin) is an lseek to 0 with the buffer
 * emptied (the next getc refills from the start), or, once an earlier
 * rewind made glibc's _offset known and no end was read since, a move
 * of read_ptr back inside the buffer when it holds the first block.
 *
 * Traffic: tables from lackey traces (tools/probe/stdstream_tables.py,
 * libc_stdstream_tables.h); the model makes two parts itself: the walk
 * of _IO_list_all up to the stream closed (each FILE's _chain, the
 * streams fopen opened last first) and free's traffic of the buffer.
 * Variants not measured (stdin or stdout never used, setvbuf's buffers, a
 * terminal, a second rewind from past the first block, ungetc's bytes
 * waiting) stop the input
 * with a message naming them. */
#include <errno.h>
#include <stdio.h>

#include "libc_files.h"
#include "libc_internal.h"
#include "libc_traffic.h"

#include "libc_stdstream_tables.h"

#define IO_LIST_ALL 0x1d4660ull /* _IO_list_all in libc.so.6 */
#define F_CHAIN 0x68u           /* FILE._chain */
/* _flags after _IO_file_close_it: _IO_MAGIC | CLOSED_FILEBUF_FLAGS
 * (_IO_IS_FILEBUF, _IO_NO_READS, _IO_NO_WRITES, _IO_TIED_PUT_GET) */
#define CLOSED_FLAGS 0xfbad240cu

enum { IN = 1, OUT = 2, ERR = 4 };

static void rows(cb_lt *m, const lt_acc *t, size_t n, uint64_t C) {
  uint64_t base[LT_NBASES] = {0};
  base[LT_S] = C;
  cb_lt_table(m, t, n, base);
}

#define ROWS(m, t, C) rows(m, t, sizeof t / sizeof t[0], C)

static unsigned std_bit(const cb_proc *pr, uint64_t fp) {
  return fp == pr->file_stdin    ? IN
         : fp == pr->file_stdout ? OUT
         : fp == pr->file_stderr ? ERR
                                 : 0;
}

static cb_stop refuse(cb_proc *pr, const char *what) {
  return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "%s is not modelled",
                      what);
}

bool cb_libc_std_closed_use(cb_proc *pr, uint32_t fn, const cb_value *a,
                            uint32_t n) {
  unsigned c = pr->std_closed;
  switch ((cb_libfn)fn) {
  case CB_LIBC_PRINTF:
  case CB_LIBC_VPRINTF:
  case CB_LIBC_PUTS:
  case CB_LIBC_PUTCHAR:
  case CB_LIBC_PUTCHAR_UNLOCKED:
    if (c & OUT)
      return true;
    break;
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF:
  case CB_LIBC_GETCHAR:
  case CB_LIBC_GETCHAR_UNLOCKED:
    if (c & IN)
      return true;
    break;
  case CB_LIBC_PERROR:
    if (c & ERR)
      return true;
    break;
  default:
    break;
  }
  for (uint32_t i = 0; i < n; i++)
    if (a[i].u && (std_bit(pr, a[i].u) & c))
      return true;
  return false;
}

/* _IO_un_link's walk: _IO_list_all holds the streams fopen opened, the
 * last first, then stderr, stdout and stdin; each _chain up to fp's is
 * read, fp's too, and the one before it (or _IO_list_all) written */
static void unlink_walk(cb_proc *pr, cb_lt *m, uint64_t fp) {
  uint64_t list[CB_MAX_FDS + 3];
  size_t k = 0;
  const cb_files *f = pr->files;
  for (uint32_t i = f ? f->nst : 0; i-- > 0 && k < CB_MAX_FDS;)
    if (!f->st[i].closed)
      list[k++] = f->st[i].fp;
  if (!(pr->std_closed & ERR))
    list[k++] = pr->file_stderr;
  if (!(pr->std_closed & OUT))
    list[k++] = pr->file_stdout;
  if (!(pr->std_closed & IN))
    list[k++] = pr->file_stdin;
  size_t at = 0;
  while (at < k && list[at] != fp)
    at++;
  for (size_t i = 0; i < at; i++)
    cb_lt_acc(m, list[i] + F_CHAIN, 8, false);
  cb_lt_acc(m, fp + F_CHAIN, 8, false);
  cb_lt_acc(m, at ? list[at - 1] + F_CHAIN : m->libc + IO_LIST_ALL, 8, true);
}

/* glibc's FILE after _IO_file_close_it: no buffer, no descriptor */
static void write_closed(cb_proc *pr, uint64_t fp) {
  uint32_t fl = CLOSED_FLAGS;
  cb_mem_write(&pr->mem, fp + CB_F_FLAGS, &fl, 4, NULL);
  uint64_t z = 0;
  for (uint32_t o = CB_F_READ_PTR; o <= CB_F_BUF_END; o += 8)
    cb_mem_write(&pr->mem, fp + o, &z, 8, NULL);
  int32_t no = -1;
  cb_mem_write(&pr->mem, fp + CB_F_FILENO, &no, 4, NULL);
  int64_t off = -1;
  cb_mem_write(&pr->mem, fp + CB_F_OFFSET, &off, 8, NULL);
}

/* _IO_setb's free of glibc's buffer (C: free's, below the caller's) */
static void free_buf(cb_proc *pr, uint64_t C, uint64_t buf) {
  cb_heap_free(pr->heap, buf);
  cb_libc_heap_traffic(pr, CB_LIBC_FREE, C, buf, 0, false);
}

static bool stdout_plain(const cb_proc *pr) {
  return pr->stdout_buf && !pr->stdout_cap && !pr->stdout_unbuf &&
         !pr->opt->stdout_is_tty;
}

static bool stdout_pending(const cb_proc *pr) {
  return pr->stdout_pos % 4096 != 0;
}

static cb_stop std_fclose(cb_proc *pr, uint64_t fp, cb_value *ret) {
  cb_files *f = pr->files;
  unsigned bit = std_bit(pr, fp);
  if (pr->std_closed & bit)
    return refuse(pr, "fclose of a standard stream closed before");
  uint64_t C = cb_libc_caller_sp(pr);
  cb_lt m;
  bool tr = C && cb_lt_init(&m, pr);
  if (bit == IN) {
    if (!pr->stdin_buf)
      return refuse(pr, "fclose(stdin) before any input from it");
    if (f->stdin_npb || f->stdin_backup)
      return refuse(pr, "fclose(stdin) with ungetc's backup area");
    if (tr) {
      ROWS(&m, t_fclose_in_head, C);
      unlink_walk(pr, &m, fp);
      ROWS(&m, t_fclose_in_mid, C);
    }
    free_buf(pr, C - FCLOSE_IN_FREE_C, pr->stdin_buf);
    if (tr)
      ROWS(&m, t_fclose_in_tail, C);
    pr->stdin_buf = 0;
    pr->stdin_pub = false;
  } else if (bit == OUT) {
    if (!stdout_plain(pr))
      return refuse(pr, "fclose(stdout) before any output, or with a "
                        "buffer from setvbuf, or on a terminal,");
    bool pending = stdout_pending(pr);
    if (tr) {
      if (pending) {
        ROWS(&m, t_fclose_out_pending_head, C);
        unlink_walk(pr, &m, fp);
        ROWS(&m, t_fclose_out_pending_mid, C);
      } else {
        ROWS(&m, t_fclose_out_flushed_head, C);
        unlink_walk(pr, &m, fp);
        ROWS(&m, t_fclose_out_flushed_mid, C);
      }
    }
    /* _IO_do_flush: what waits reaches fd 1 */
    pr->stdout_sent = pr->out_text.n;
    pr->stdout_flushed = true;
    free_buf(
        pr,
        C - (pending ? FCLOSE_OUT_PENDING_FREE_C : FCLOSE_OUT_FLUSHED_FREE_C),
        pr->stdout_buf);
    if (tr) {
      if (pending)
        ROWS(&m, t_fclose_out_pending_tail, C);
      else
        ROWS(&m, t_fclose_out_flushed_tail, C);
    }
    pr->stdout_buf = 0;
    pr->stdout_pub = false;
  } else {
    /* stderr is unbuffered: no buffer to free; one written through
     * stdio is flushed first (nothing waits) */
    if (tr && f->stderr_oriented) {
      ROWS(&m, t_fclose_err_head, C);
      unlink_walk(pr, &m, fp);
      ROWS(&m, t_fclose_err_tail, C);
    } else if (tr) {
      ROWS(&m, t_fclose_err_unused_head, C);
      unlink_walk(pr, &m, fp);
      ROWS(&m, t_fclose_err_unused_tail, C);
    }
  }
  int fd = bit == IN ? 0 : bit == OUT ? 1 : 2;
  if (f->fd[fd] != CB_FD_FREE)
    cb_fd_close(pr, fd);
  pr->std_closed |= bit;
  write_closed(pr, fp);
  ret[0].u = 0;
  return CB_GO;
}

static cb_stop std_rewind(cb_proc *pr, uint64_t fp) {
  cb_files *f = pr->files;
  if (fp != pr->file_stdin)
    return refuse(pr, "rewind of stdout or stderr");
  if (!pr->stdin_buf)
    return refuse(pr, "rewind(stdin) before any input from it");
  if (f->stdin_npb || f->stdin_backup)
    return refuse(pr, "rewind(stdin) with ungetc's backup area");
  /* _IO_new_file_seekoff: with _offset known (a rewind before, no end
   * read since) a target inside the buffer only moves read_ptr; else
   * lseek(0, 0, SEEK_SET) and the buffer emptied */
  bool known = f->stdin_off_known && !f->stdin_eof;
  bool in_buf = known && pr->stdin_pos > 0 && pr->stdin_pos <= 4096;
  if (known && !in_buf && pr->stdin_pos > 0)
    return refuse(pr, "rewind(stdin) from past its first block after an "
                      "earlier rewind");
  uint64_t C = cb_libc_caller_sp(pr);
  cb_lt m;
  if (C && cb_lt_init(&m, pr)) {
    if (in_buf)
      ROWS(&m, t_rewind_in_buf, C);
    else
      ROWS(&m, t_rewind_in, C);
  }
  /* rewind clears the end and error flags */
  pr->stdin_pos = 0;
  f->stdin_kpos = in_buf ? 4096 : 0;
  f->stdin_eof = f->stdin_err = false;
  f->stdin_off_known = true;
  f->stdin_hold0 = in_buf;
  uint64_t b = pr->stdin_buf;
  if (in_buf) {
    /* block 0 stays: read_ptr at its start */
    cb_mem_write(&pr->mem, fp + CB_F_READ_PTR, &b, 8, NULL);
    pr->stdin_pub = true;
    pr->stdin_pub_ptr = b;
    return CB_GO;
  }
  pr->stdin_blk = 0;
  pr->stdin_pub = false;
  for (uint32_t o = CB_F_READ_PTR; o <= CB_F_WRITE_END; o += 8)
    cb_mem_write(&pr->mem, fp + o, &b, 8, NULL);
  int64_t off = 0;
  cb_mem_write(&pr->mem, fp + CB_F_OFFSET, &off, 8, NULL);
  return CB_GO;
}

static cb_stop std_ftell(cb_proc *pr, uint64_t fp, cb_value *ret) {
  cb_files *f = pr->files;
  uint64_t C = cb_libc_caller_sp(pr);
  cb_lt m;
  bool tr = C && cb_lt_init(&m, pr);
  if (fp == pr->file_stdin) {
    if (!pr->stdin_buf)
      return refuse(pr, "ftell(stdin) before any input from it");
    if (f->stdin_npb || f->stdin_backup)
      return refuse(pr, "ftell(stdin) with ungetc's backup area");
    if (tr)
      ROWS(&m, t_ftell_in, C);
    ret[0].u = pr->stdin_pos;
    return CB_GO;
  }
  if (fp == pr->file_stdout) {
    if (!stdout_plain(pr))
      return refuse(pr, "ftell(stdout) before any output, or with a buffer "
                        "from setvbuf, or on a terminal,");
    if (tr) {
      if (stdout_pending(pr))
        ROWS(&m, t_ftell_out_pending, C);
      else
        ROWS(&m, t_ftell_out_flushed, C);
    }
    ret[0].u = pr->out_text.n;
    return CB_GO;
  }
  return refuse(pr, "ftell(stderr)");
}

cb_stop cb_libc_std_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                         cb_value *ret) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_FCLOSE:
    return std_fclose(pr, a[0].u, ret);
  case CB_LIBC_REWIND:
    return std_rewind(pr, a[0].u);
  case CB_LIBC_FTELL:
  case CB_LIBC_FTELLO:
    return std_ftell(pr, a[0].u, ret);
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
