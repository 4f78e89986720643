/* libc_getline.c: getline and getdelim (glibc 2.36 libio/iogetdelim.c).
 *
 * The line's buffer is the program's malloc'ed block: a NULL *lineptr (or
 * a zero *n) gets malloc(120) first, even when the stream is at its end;
 * then the stream's buffer is taken a chunk at a time (up to the
 * delimiter, else what the buffer holds: stdin's current 4096-byte block,
 * a file stream's buffer), and whenever the line with its NUL would not
 * fit, the block grows by realloc to the larger of what it needs and
 * twice its size. The heap model sees the same calls, so the line lands
 * where the real one does.
 *
 * Traffic (lackey, tools/probe/libtrace.py on getline from stdin):
 * getdelim's six pushes and locals, the FILE's flags and lock, *lineptr
 * and *n, per chunk the buffer's pointers, memchr's vectors over the
 * chunk and memcpy's sequence into the line, the final NUL, the unlock;
 * malloc and realloc are called 0x60 below the caller's rsp. Not
 * modelled: __underflow's own frames when a chunk needs a refill. */
#include <stdio.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"

#define L_STDIN_LOCK 0x1d5a20ull /* _IO_stdfile_0_lock */
#define T_SELF 0x750u            /* the thread's descriptor (THREAD_SELF) */
#define IN_BLOCK 4096u

typedef struct gd {
  cb_proc *pr;
  uint64_t C, fp, lock;
  cb_stream *s; /* a file stream's, NULL for stdin */
} gd;

static void acc(gd *g, uint64_t a, unsigned n, bool w) {
  cb_libc_acc(g->pr, a, n, w);
}

/* _IO_acquire_lock / _IO_release_lock (the owner test reads the thread
 * descriptor) */
static void lock(gd *g, bool take) {
  cb_proc *pr = g->pr;
  if (take) {
    acc(g, g->fp + CB_F_FLAGS, 4, false);
    acc(g, pr->dl_tcb + T_SELF, 8, false);
    acc(g, g->fp + CB_F_LOCK, 8, false);
    acc(g, g->lock + 8, 8, false);
    acc(g, g->lock, 4, false);
    acc(g, g->fp + CB_F_LOCK, 8, false);
    acc(g, g->fp + CB_F_FLAGS, 4, false);
    acc(g, g->lock + 8, 8, true);
    acc(g, g->lock + 4, 4, false);
  } else {
    acc(g, g->fp + CB_F_FLAGS, 4, false);
    acc(g, g->fp + CB_F_LOCK, 8, false);
    acc(g, g->lock + 4, 4, false);
    acc(g, g->lock + 4, 4, true);
    acc(g, g->lock + 8, 8, true);
    acc(g, g->lock, 4, false);
    acc(g, g->lock, 4, false);
  }
}

/* The chunk the stream's buffer holds now, refilled when it is empty:
 * its bytes (a host copy), their address in the buffer; 0 at the end. */
static int64_t chunk(gd *g, const unsigned char **bytes, uint64_t *at) {
  cb_proc *pr = g->pr;
  if (g->s) {
    cb_stream *s = g->s;
    if (s->rpos >= s->rlen) {
      int64_t r = cb_st_fill(pr, s);
      if (r <= 0)
        return r;
    }
    *bytes = s->rcopy + s->rpos;
    *at = s->buf + s->rpos;
    return (int64_t)(s->rlen - s->rpos);
  }
  if (!pr->stdin_buf)
    pr->stdin_buf = cb_heap_malloc(pr->heap, IN_BLOCK);
  uint64_t pos = pr->stdin_pos;
  if (pos >= pr->in_len)
    return 0;
  uint64_t end = pos / IN_BLOCK * IN_BLOCK + IN_BLOCK;
  if (end > pr->in_len)
    end = pr->in_len;
  *bytes = pr->in_data + pos;
  *at = pr->stdin_buf + pos % IN_BLOCK;
  return (int64_t)(end - pos);
}

static void take(gd *g, uint64_t k) {
  if (g->s)
    g->s->rpos += k;
  else
    g->pr->stdin_pos += k;
}

cb_stop cb_libc_getdelim(cb_proc *pr, uint64_t lineptr, uint64_t np, int delim,
                         uint64_t fp, cb_value *ret) {
  if (!cb_files_get(pr))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  cb_files *f = pr->files;
  gd g = {pr, cb_libc_caller_sp(pr), fp, 0, NULL};
  if (fp == pr->file_stdin) {
    if (f->stdin_npb)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "getdelim after ungetc of another byte on stdin "
                          "(glibc's backup area) is not modelled");
    g.lock = pr->libc_base + L_STDIN_LOCK;
  } else {
    if (cb_st_is_std(pr, fp))
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "getdelim on stdout or stderr is not modelled");
    g.s = cb_st_get(pr, fp, "getdelim");
    if (!g.s)
      return CB_FAIL;
    if (g.s->npb)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "getdelim after ungetc of another byte (glibc's "
                          "backup area) is not modelled");
    g.lock = fp + CB_F_LOCKWORD;
  }
  uint64_t line, n;
  if (!cb_proc_read(pr, lineptr, &line, 8) || !cb_proc_read(pr, np, &n, 8))
    return CB_FAIL;
  uint64_t C = g.C;
  for (unsigned i = 0; i < 6; i++)
    acc(&g, C - 0x10 - 8 * i, 8, true);
  acc(&g, C - 0x50, 8, true);
  acc(&g, C - 0x44, 4, true);
  lock(&g, true);
  acc(&g, np, 8, false);
  acc(&g, C - 0x50, 8, false);
  acc(&g, lineptr, 8, false);
  ret[0].u = (uint64_t)-1;
  if (!line || !n) {
    n = 120;
    line = cb_heap_malloc(pr->heap, n);
    cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, C - 0x60, 0, line, false);
    cb_libc_alloc_event(pr, CB_ALLOC_NEW, CB_LIBC_GETDELIM, line, 0, n);
    if (!line)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "getdelim: no memory for the line");
    if (!cb_proc_write(pr, lineptr, &line, 8) || !cb_proc_write(pr, np, &n, 8))
      return CB_FAIL;
    cb_proc_lib(pr, lineptr, 8, true);
    cb_proc_lib(pr, np, 8, true);
  }
  bool in = g.s == NULL;
  if (g.s && !cb_st_can_read(pr, g.s)) {
    lock(&g, false);
    return CB_GO;
  }
  if (g.s && !cb_st_ensure_buf(pr, g.s))
    return CB_FAIL;
  uint64_t cur = 0;
  for (;;) {
    const unsigned char *b;
    uint64_t at;
    acc(&g, fp + CB_F_READ_PTR, 8, false);
    acc(&g, fp + CB_F_READ_END, 8, false);
    int64_t len = chunk(&g, &b, &at);
    if (len < 0)
      return CB_FAIL;
    if (len == 0) {
      /* the end: EOF_SEEN, and -1 when nothing was read */
      if (in)
        f->stdin_eof = true;
      else {
        g.s->eof = true;
        cb_st_sync_flags(pr, g.s);
      }
      break;
    }
    const unsigned char *t = memchr(b, delim & 0xff, (size_t)len);
    uint64_t k = t ? (uint64_t)(t - b) + 1 : (uint64_t)len;
    acc(&g, C - 0x58, 8, true);
    acc(&g, C - 0x68, 8, true);
    cb_libc_scan(pr, at, t ? k : (uint64_t)len);
    acc(&g, C - 0x68, 8, false);
    uint64_t need = cur + k + 1;
    if (need > n) {
      if (need < 2 * n)
        need = 2 * n;
      uint64_t nl = cb_heap_realloc(pr->heap, line, need);
      cb_libc_heap_traffic(pr, CB_LIBC_REALLOC, C - 0x60, line, nl, false);
      if (!nl)
        return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                            "getdelim: no memory for a line of %llu bytes",
                            (unsigned long long)need);
      cb_libc_alloc_event(pr, CB_ALLOC_REALLOC, CB_LIBC_GETDELIM, nl, line,
                          need);
      line = nl;
      n = need;
      if (!cb_proc_write(pr, lineptr, &line, 8) ||
          !cb_proc_write(pr, np, &n, 8))
        return CB_FAIL;
      cb_proc_lib(pr, lineptr, 8, true);
      cb_proc_lib(pr, np, 8, true);
    }
    if (!cb_proc_write(pr, line + cur, b, (size_t)k))
      return CB_FAIL;
    acc(&g, C - 0x68, 8, true);
    cb_proc_memcpy_traffic(pr, line + cur, at, k);
    acc(&g, C - 0x68, 8, false);
    acc(&g, fp + CB_F_READ_PTR, 8, false); /* read_ptr += len */
    take(&g, k);
    cur += k;
    if (t)
      break;
  }
  if (cur) {
    char z = 0;
    if (!cb_proc_write(pr, line + cur, &z, 1))
      return CB_FAIL;
    acc(&g, line + cur, 1, true);
    ret[0].u = cur;
  }
  lock(&g, false);
  for (unsigned i = 6; i-- > 0;)
    acc(&g, C - 0x10 - 8 * i, 8, false);
  return CB_GO;
}
