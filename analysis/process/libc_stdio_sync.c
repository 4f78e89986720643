/* libc_stdio_sync.c: the FILE objects of stdin and stdout as the
 * program's own code reads and writes them. glibc's <stdio.h> makes
 * getc_unlocked, getchar_unlocked, putc_unlocked, putchar_unlocked,
 * fgetc_unlocked, fputc_unlocked, feof_unlocked and ferror_unlocked
 * inline when optimizing (bits/stdio.h, __getc_unlocked_body and
 * __putc_unlocked_body): the program compares _IO_read_ptr with
 * _IO_read_end (_IO_write_ptr with _IO_write_end), takes (stores) the
 * byte itself and moves the pointer, and calls __uflow (__overflow) only
 * when the buffer is empty (full).
 *
 * The model's stdio state (libc_stdio.c: stdin's position in its input,
 * stdout's text and its position in the buffer) stays the one truth:
 * after every library call that touched them, the FILEs' fields are
 * written as glibc leaves them (stdin's buffer holding the current
 * 4096-byte block of the input, read_ptr at the position, read_end at the
 * block's end; stdout's write_ptr at the position in its buffer and
 * write_end at the buffer's end, or at write_ptr when stdout is line
 * buffered or unbuffered, which sends every byte through __overflow), and
 * before every library call, what the program's code did meanwhile is
 * taken back: stdin's read_ptr moved on, the bytes the program stored
 * into stdout's buffer. File streams (libc_files.c) likewise: a stream
 * that is reading shows its buffer's bytes between read_ptr and read_end,
 * one that is writing the room left between write_ptr and write_end (none
 * when line buffered or unbuffered), and the other pair stays equal so
 * that the other direction goes through the library. While ungetc's bytes
 * wait, read_ptr equals read_end, so that they come through __uflow. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"

#define IN_BLOCK 4096u

static uint64_t rd64(cb_proc *pr, uint64_t a) {
  uint64_t v = 0;
  cb_mem_read(&pr->mem, a, &v, 8, NULL);
  return v;
}

static void wr64(cb_proc *pr, uint64_t a, uint64_t v) {
  cb_mem_write(&pr->mem, a, &v, 8, NULL);
}

static uint64_t out_cap(const cb_proc *pr) {
  return pr->stdout_cap           ? pr->stdout_cap
         : pr->opt->stdout_is_tty ? 1024
                                  : IN_BLOCK;
}

static bool stream_pull(cb_proc *pr, cb_stream *s) {
  if (s->pub_rp) {
    uint64_t p = rd64(pr, s->fp + CB_F_READ_PTR);
    if (p > s->pub_rp && p <= s->buf + s->rlen) {
      s->rpos += p - s->pub_rp;
      s->pub_rp = p;
    }
  }
  if (s->pub_wp) {
    uint64_t p = rd64(pr, s->fp + CB_F_WRITE_PTR);
    if (p > s->pub_wp && p <= s->buf + s->bufsz) {
      uint64_t k = p - s->pub_wp;
      if (!cb_proc_read(pr, s->pub_wp, s->wcopy + s->wlen, (size_t)k))
        return false;
      s->wlen += k;
      s->pub_wp = p;
    }
  }
  return true;
}

static void stream_publish(cb_proc *pr, cb_stream *s) {
  uint64_t rp = 0, re = 0, wp = 0, we = 0;
  if (s->buf && !s->npb) {
    if (s->wlen) {
      wp = s->buf + s->wlen;
      we = s->bmode == _IOFBF ? s->buf + s->bufsz : wp;
    } else if (s->rlen) {
      rp = s->buf + s->rpos;
      re = s->buf + s->rlen;
    }
  }
  if (rp == s->pub_rp && wp == s->pub_wp)
    return;
  wr64(pr, s->fp + CB_F_READ_PTR, rp);
  wr64(pr, s->fp + CB_F_READ_END, re);
  wr64(pr, s->fp + CB_F_WRITE_PTR, wp);
  wr64(pr, s->fp + CB_F_WRITE_END, we);
  s->pub_rp = rp;
  s->pub_wp = wp;
}

bool cb_stdio_pull(cb_proc *pr) {
  cb_files *f = pr->files;
  for (uint32_t i = 0; f && i < f->nst; i++)
    if (!f->st[i].closed && !stream_pull(pr, &f->st[i]))
      return false;
  if (pr->stdin_pub) {
    uint64_t p = rd64(pr, pr->file_stdin + CB_F_READ_PTR);
    if (p > pr->stdin_pub_ptr && p <= pr->stdin_buf + IN_BLOCK) {
      pr->stdin_pos += p - pr->stdin_pub_ptr;
      pr->stdin_pub_ptr = p;
    }
  }
  if (pr->stdout_pub) {
    uint64_t p = rd64(pr, pr->file_stdout + CB_F_WRITE_PTR);
    if (p > pr->stdout_pub_ptr && p <= pr->stdout_buf + out_cap(pr)) {
      size_t n = (size_t)(p - pr->stdout_pub_ptr);
      char *b = malloc(n);
      if (!b || !cb_proc_read(pr, pr->stdout_pub_ptr, b, n)) {
        free(b);
        return false;
      }
      /* the bytes are in the buffer already: only the text and the
       * position move */
      cb_libc_put_stdout_text(pr, b, n);
      free(b);
      pr->stdout_pub_ptr = p;
    }
  }
  return true;
}

void cb_stdio_publish_streams(cb_proc *pr) {
  cb_files *f = pr->files;
  for (uint32_t i = 0; f && i < f->nst; i++)
    if (!f->st[i].closed)
      stream_publish(pr, &f->st[i]);
}

void cb_stdio_publish(cb_proc *pr) {
  cb_files *f = pr->files;
  if (pr->stdin_buf && pr->stdin_pos > 0) {
    uint64_t pos = pr->stdin_pos, blk = (pos - 1) / IN_BLOCK * IN_BLOCK;
    uint64_t end = blk + IN_BLOCK < pr->in_len ? blk + IN_BLOCK : pr->in_len;
    if (end < pos)
      end = pos;
    if (pr->stdin_blk != blk + 1) {
      /* read(2) filled the buffer with this block */
      if (end > blk && blk < pr->in_len)
        cb_mem_write(&pr->mem, pr->stdin_buf, pr->in_data + blk,
                     (size_t)((end < pr->in_len ? end : pr->in_len) - blk),
                     NULL);
      pr->stdin_blk = blk + 1;
    }
    uint64_t b = pr->stdin_buf, rp = b + (pos - blk);
    bool pushed = f && f->stdin_npb;
    wr64(pr, pr->file_stdin + CB_F_READ_PTR, rp);
    wr64(pr, pr->file_stdin + CB_F_READ_END, pushed ? rp : b + (end - blk));
    wr64(pr, pr->file_stdin + CB_F_READ_BASE, b);
    wr64(pr, pr->file_stdin + CB_F_BUF_BASE, b);
    wr64(pr, pr->file_stdin + CB_F_BUF_END, b + IN_BLOCK);
    pr->stdin_pub = true;
    pr->stdin_pub_ptr = rp;
  }
  /* _flags as glibc's stdin and stdout hold them (0xfbad2088 and
   * 0xfbad2884 once used: _IO_IS_FILEBUF, _IO_LINKED, no writes / no
   * reads, _IO_CURRENTLY_PUTTING), with the end and error bits
   * feof_unlocked and ferror_unlocked read */
  uint32_t fl = CB_IO_MAGIC | 0x2088u;
  if (f && f->stdin_eof)
    fl |= CB_IO_EOF_SEEN;
  if (f && f->stdin_err)
    fl |= CB_IO_ERR_SEEN;
  /* a stream fclose closed keeps the fields it left (libc_stdstream.c) */
  if (!(pr->std_closed & 1))
    cb_mem_write(&pr->mem, pr->file_stdin + CB_F_FLAGS, &fl, 4, NULL);
  fl = CB_IO_MAGIC | 0x2084u | (pr->stdout_buf ? 0x800u : 0);
  if (f && f->stdout_err)
    fl |= CB_IO_ERR_SEEN;
  if (!(pr->std_closed & 2))
    cb_mem_write(&pr->mem, pr->file_stdout + CB_F_FLAGS, &fl, 4, NULL);
  if (pr->stdout_buf) {
    uint64_t cap = out_cap(pr), b = pr->stdout_buf;
    uint64_t wp = b + pr->stdout_pos % cap;
    bool every = pr->opt->stdout_is_tty || pr->stdout_unbuf;
    wr64(pr, pr->file_stdout + CB_F_WRITE_BASE, b);
    wr64(pr, pr->file_stdout + CB_F_WRITE_PTR, wp);
    wr64(pr, pr->file_stdout + CB_F_WRITE_END, every ? wp : b + cap);
    wr64(pr, pr->file_stdout + CB_F_BUF_BASE, b);
    wr64(pr, pr->file_stdout + CB_F_BUF_END, b + cap);
    pr->stdout_pub = true;
    pr->stdout_pub_ptr = wp;
  }
}
