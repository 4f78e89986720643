/* libc_stdin_traffic.c: what glibc 2.36's getc(stdin) reads and writes
 * besides the byte it returns: getc's frame and stdin's read pointers, and
 * when the buffer is empty the refill (__uflow, _IO_default_uflow,
 * _IO_file_underflow, read(2)'s wrapper), the first time with the buffer's
 * set-up (_IO_doallocbuf, _IO_file_doallocate: fstat, isatty for a
 * character device, the buffer's malloc with its arena traffic). Rows
 * measured with lackey (tools/probe/stdin_tables.sh, docs/process-model.md
 * section 9.7). stdin is the input file or /dev/null, as cbana runs a
 * program; its buffer holds 4096-byte blocks of it (libc_stdio.c), so an
 * empty buffer is the start of a block. */
#include "libc_files.h"
#include "libc_internal.h"
#include "libc_traffic.h"

#include "libc_stdin_tables.h"

#define BLOCK 4096u

static void rows(cb_lt *m, const lt_acc *t, size_t n, uint64_t C) {
  uint64_t base[LT_NBASES] = {0};
  base[LT_S] = C;
  cb_lt_table(m, t, n, base);
}

#define ROWS(m, t, C) rows(m, t, sizeof t / sizeof t[0], C)

bool cb_libc_stdin_traffic_begin(cb_proc *pr, cb_stdio_mark *mk) {
  cb_lt m;
  uint64_t C = cb_libc_caller_sp(pr);
  mk->C = C;
  mk->tail = 0;
  if (!C || !cb_lt_init(&m, pr))
    return false;
  const cb_files *f = pr->files;
  bool eof = f && f->stdin_eof, first = !pr->stdin_buf;
  uint64_t pos = pr->stdin_pos;
  ROWS(&m, t_gc_head, C);
  if ((f && f->stdin_npb) ||
      (!first && !eof && pos < pr->in_len &&
       (pos % BLOCK || (f && f->stdin_hold0 && pos == 0)))) {
    /* a byte in the buffer (or in ungetc's backup area): read_ptr moved
     * on, the byte (libc_stdio.c's), the pops */
    ROWS(&m, t_gc_hit, C);
    mk->tail = 1;
    return true;
  }
  if (first)
    ROWS(&m, t_gc_uflow_first, C); /* _IO_fwide sets the mode */
  else
    ROWS(&m, t_gc_uflow, C);
  if (eof) {
    /* _IO_file_underflow: the end is sticky (C99) */
    ROWS(&m, t_gc_sticky, C);
    return true;
  }
  if (first) {
    /* fstat says a character device for /dev/null, then isatty */
    if (pr->in_data)
      ROWS(&m, t_gc_under_first_file, C);
    else
      ROWS(&m, t_gc_under_first_chr, C);
    pr->stdin_buf = cb_heap_malloc(pr->heap, BLOCK);
    cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, C - 0x150, 0, pr->stdin_buf,
                         false);
    cb_lt_acc(&m, C - 0x158, 8, false); /* malloc's `ret` */
    ROWS(&m, t_gc_setup_end, C);
  } else {
    ROWS(&m, t_gc_under, C);
  }
  ROWS(&m, t_gc_read, C);
  if (pos < pr->in_len) {
    /* the block read: read_end moved, underflow returns its first byte,
     * _IO_default_uflow takes it (libc_stdio.c's read of it) */
    ROWS(&m, t_gc_data, C);
    if (pr->stdin_buf)
      cb_lt_acc(&m, pr->stdin_buf + pos % BLOCK, 1, false);
    ROWS(&m, t_gc_data_end, C);
    mk->tail = 2;
  } else {
    ROWS(&m, t_gc_eof, C); /* read returned 0: the end's flag */
  }
  return true;
}

void cb_libc_stdin_traffic_end(cb_proc *pr, const cb_stdio_mark *mk,
                               cb_stop st) {
  cb_lt m;
  if (st != CB_GO || !mk->tail || !cb_lt_init(&m, pr))
    return;
  if (mk->tail == 1)
    ROWS(&m, t_gc_hit_exit, mk->C);
  else
    ROWS(&m, t_gc_data_ret, mk->C);
}
