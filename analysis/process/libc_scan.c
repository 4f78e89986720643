/* libc_scan.c: the C library model's scanf family: sscanf, fscanf,
 * scanf and their v* forms, converting by the host's strto* on the bytes
 * the model's streams hold (stdin's, a string's, or a FILE's through
 * libc_files.c), with glibc's own traffic inside the call step by step
 * (libc_scanf_traffic.c) for sscanf, fscanf and scanf themselves. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"
#include "libc_traffic.h"

#define STDIO_BUF 4096u

typedef cb_argcur argcur;
#define next_arg(c, ty) cb_libc_next_arg(pr, c, CB_ARG_INT, ty)

typedef struct scan_src {
  const unsigned char *d;
  size_t len, pos;
  bool is_stdin;
  bool at_end; /* looked for a byte past the end */
  cb_sct *tr;  /* glibc's traffic, step by step (libc_scanf_traffic.c) */
} scan_src;

static int src_peek(scan_src *s) {
  if (s->pos < s->len)
    return s->d[s->pos];
  s->at_end = true;
  return EOF;
}

static void src_take(cb_proc *pr, scan_src *s, size_t n) {
  if (s->is_stdin) {
    for (size_t i = 0; i < n; i++)
      if (pr->stdin_buf)
        cb_proc_emit(pr, pr->stdin_buf + (s->pos + i) % STDIO_BUF, 1,
                     pr->cur_site, false);
    pr->out->lib_reads += n;
  }
  s->pos += n;
}

static bool store_int(cb_proc *pr, uint64_t ptr, int lng, uint64_t v) {
  unsigned sz = lng == -2 ? 1 : lng == -1 ? 2 : lng == 0 ? 4 : 8;
  if (!cb_proc_write(pr, ptr, &v, sz))
    return false;
  cb_proc_lib(pr, ptr, sz, true);
  return true;
}

static int scan_(cb_proc *pr, scan_src *s, uint64_t fmt_addr, argcur *ac);
static int scan_loop(cb_proc *pr, scan_src *s, const char *fmt, size_t flen,
                     argcur *ac, char *tok, size_t ntok, size_t *ip,
                     int *assignedp, int *convsp);

/* the white space at the source's position */
static size_t skip_len(const scan_src *s) {
  size_t n = 0;
  while (s->pos + n < s->len && isspace(s->d[s->pos + n]))
    n++;
  return n;
}

/* Returns the number of assignments, EOF, or -2 after a fault. */
static int scan(cb_proc *pr, scan_src *s, uint64_t fmt_addr, argcur *ac) {
  if (s->tr) {
    s->tr->d = s->d;
    s->tr->dlen = s->len;
  }
  int r = scan_(pr, s, fmt_addr, ac);
  return ac->bad ? -2 : r;
}

int cb_libc_scan_bytes(cb_proc *pr, const unsigned char *d, size_t len,
                       size_t *pos, bool *at_end, uint64_t fmt_addr,
                       cb_argcur *ac, cb_sct *tr) {
  scan_src s = {d, len, *pos, false, false, tr};
  int r = scan(pr, &s, fmt_addr, ac);
  *pos = s.pos;
  *at_end = s.at_end;
  return r;
}

static int scan_(cb_proc *pr, scan_src *s, uint64_t fmt_addr, argcur *ac) {
  size_t flen;
  char *fmt = cb_proc_read_str(pr, fmt_addr, MAX_STR, &flen);
  if (!fmt)
    return -2;
  int assigned = 0, convs = 0;
  char tok[4200];
  cb_sct *tr = s->tr;
  size_t i = 0;
  int r =
      scan_loop(pr, s, fmt, flen, ac, tok, sizeof tok, &i, &assigned, &convs);
  if (tr)
    cb_sct_end(tr, i < flen ? i : flen);
  free(fmt);
  return r;
}

static int scan_loop(cb_proc *pr, scan_src *s, const char *fmt, size_t flen,
                     argcur *ac, char *tok, size_t ntok, size_t *ip,
                     int *assignedp, int *convsp) {
  cb_sct *tr = s->tr;
  int assigned = 0, convs = 0;
  size_t i = *ip;
#define RET(v)                                                                 \
  do {                                                                         \
    *ip = i;                                                                   \
    *assignedp = assigned;                                                     \
    *convsp = convs;                                                           \
    return (v);                                                                \
  } while (0)
  while (i < flen) {
    unsigned char fc = (unsigned char)fmt[i];
    if (isspace(fc)) {
      if (tr)
        cb_sct_fmt_space(tr, i, s->pos);
      while (isspace(src_peek(s)))
        src_take(pr, s, 1);
      i++;
      continue;
    }
    if (fc != '%' || (i + 1 < flen && fmt[i + 1] == '%')) {
      if (fc == '%') {
        i++;
        if (tr)
          cb_sct_skip(tr, s->pos, s->pos + skip_len(s));
        while (isspace(src_peek(s)))
          src_take(pr, s, 1);
      }
      if (tr && fc != '%')
        cb_sct_fmt_lit(tr, i, s->pos, src_peek(s) == (unsigned char)fmt[i]);
      if (src_peek(s) == EOF)
        RET(convs ? assigned : EOF);
      if (src_peek(s) != (unsigned char)fmt[i])
        break;
      src_take(pr, s, 1);
      i++;
      continue;
    }
    size_t pct = i;
    i++;
    bool suppress = false;
    if (i < flen && fmt[i] == '*') {
      suppress = true;
      i++;
    }
    size_t width = 0;
    while (i < flen && isdigit((unsigned char)fmt[i]))
      width = width * 10 + (size_t)(fmt[i++] - '0');
    int lng = 0;
    while (i < flen && strchr("hlLqjzt", fmt[i])) {
      char c = fmt[i++];
      if (c == 'h')
        lng = lng == -1 ? -2 : -1;
      else if (c == 'l')
        lng = lng == 1 ? 2 : 1;
      else if (c == 'L' || c == 'q')
        lng = 3;
      else
        lng = 1;
    }
    if (i >= flen)
      break;
    char conv = fmt[i++];
    if (tr)
      cb_sct_spec(tr, pct, i - 1, conv);
    /* %[set]: the bytes of the set, or not of it after ^ (a ] first is
     * one of them; a-z a range, as glibc reads it) */
    bool set[256] = {false};
    if (conv == '[') {
      bool neg = i < flen && fmt[i] == '^';
      i += neg;
      size_t st = i;
      while (i < flen && (fmt[i] != ']' || i == st)) {
        unsigned char lo = (unsigned char)fmt[i];
        if (i + 2 < flen && fmt[i + 1] == '-' && fmt[i + 2] != ']' &&
            (unsigned char)fmt[i + 2] >= lo) {
          for (unsigned ch = lo; ch <= (unsigned char)fmt[i + 2]; ch++)
            set[ch] = true;
          i += 3;
        } else {
          set[lo] = true;
          i++;
        }
      }
      if (i >= flen) {
        cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                     "scanf: a %%[ conversion without its ]");
        RET(-2);
      }
      i++;
      if (neg)
        for (unsigned ch = 0; ch < 256; ch++)
          set[ch] = !set[ch];
    }
    if (conv == 'n') {
      uint8_t t;
      cb_value p = {0};
      if (!suppress)
        p = next_arg(ac, &t);
      if (!suppress && !store_int(pr, p.u, lng, s->pos))
        RET(-2);
      continue;
    }
    if (tr && ((conv != 'c' && conv != '[') || tr->pend))
      cb_sct_skip(tr, s->pos,
                  s->pos + (conv != 'c' && conv != '[' ? skip_len(s) : 0));
    if (conv != 'c' && conv != '[')
      while (isspace(src_peek(s)))
        src_take(pr, s, 1);
    if (src_peek(s) == EOF)
      RET(convs ? assigned : EOF);
    convs++;
    size_t maxw = width ? width : ntok - 1;
    if (maxw > ntok - 1)
      maxw = ntok - 1;
    size_t avail = s->len - s->pos;
    if (conv == 'c') {
      size_t w = width ? width : 1;
      if (w > avail)
        w = avail;
      uint8_t t;
      cb_value p = {0}; /* a suppressed conversion takes no argument */
      if (!suppress)
        p = next_arg(ac, &t);
      if (tr)
        cb_sct_chars(tr, s->pos, w, suppress, p.u, true);
      if (!suppress) {
        if (!cb_proc_write(pr, p.u, s->d + s->pos, w))
          RET(-2);
        if (!tr)
          cb_proc_lib(pr, p.u, w, true);
        assigned++;
      }
      src_take(pr, s, w);
      continue;
    }
    if (conv == 's' || conv == '[') {
      size_t w = 0;
      while (w < (width ? width : avail) && w < avail &&
             (conv == 's' ? !isspace(s->d[s->pos + w]) : set[s->d[s->pos + w]]))
        w++;
      if (conv == '[' && !w)
        break; /* a matching failure */
      uint8_t t;
      cb_value p = {0};
      if (!suppress)
        p = next_arg(ac, &t);
      if (tr)
        cb_sct_chars(tr, s->pos, w, suppress, p.u, width && w == width);
      if (!suppress) {
        char z = 0;
        if (!cb_proc_write(pr, p.u, s->d + s->pos, w) ||
            !cb_proc_write(pr, p.u + w, &z, 1))
          RET(-2);
        if (!tr)
          cb_proc_lib(pr, p.u, w + 1, true);
        assigned++;
      }
      src_take(pr, s, w);
      continue;
    }
    /* numbers: the host's strto* on a copy of the next bytes */
    size_t w = maxw < avail ? maxw : avail;
    memcpy(tok, s->d + s->pos, w);
    tok[w] = 0;
    char *end = tok;
    uint8_t t;
    cb_value p = {0};
    if (strchr("diuxXo", conv)) {
      int base = conv == 'd' || conv == 'u' ? 10
                 : conv == 'i'              ? 0
                 : conv == 'o'              ? 8
                                            : 16;
      unsigned long long v = conv == 'd' || conv == 'i'
                                 ? (unsigned long long)strtoll(tok, &end, base)
                                 : strtoull(tok, &end, base);
      if (end == tok)
        break;
      if (tr)
        cb_sct_number(tr, s->pos, (size_t)(end - tok), suppress, false,
                      width && (size_t)(end - tok) == width);
      if (!suppress)
        p = next_arg(ac, &t);
      if (!suppress) {
        if (!store_int(pr, p.u, lng, v))
          RET(-2);
        assigned++;
      }
      if (tr)
        cb_sct_number_done(tr);
    } else if (strchr("feEgGaA", conv)) {
      double d = strtod(tok, &end);
      if (end == tok)
        break;
      if (tr)
        cb_sct_number(tr, s->pos, (size_t)(end - tok), suppress, true,
                      width && (size_t)(end - tok) == width);
      if (!suppress)
        p = next_arg(ac, &t);
      if (!suppress) {
        bool ok;
        if (lng >= 1) {
          ok = cb_proc_write(pr, p.u, &d, 8);
          cb_proc_lib(pr, p.u, 8, true);
        } else {
          float f = (float)d;
          ok = cb_proc_write(pr, p.u, &f, 4);
          cb_proc_lib(pr, p.u, 4, true);
        }
        if (!ok)
          RET(-2);
        assigned++;
      }
      if (tr)
        cb_sct_number_done(tr);
    } else {
      cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                   "scanf: the conversion %%%c is not modelled", conv);
      RET(-2);
    }
    src_take(pr, s, (size_t)(end - tok));
  }
  RET(assigned);
#undef RET
}

/* traced: CB_SCT_STREAM (fscanf), CB_SCT_STDIN (scanf) or -1 */
static cb_stop scan_stdin(cb_proc *pr, uint64_t fmt, argcur *ac, cb_value *ret,
                          int traced) {
  cb_libc_stdin_buf(pr);
  cb_files *f = pr->files;
  int r;
  if (f && f->stdin_npb) {
    /* bytes ungetc pushed back come first (libc_files.c) */
    size_t rest = pr->in_len - pr->stdin_pos, np = f->stdin_npb;
    unsigned char *d = malloc(np + rest + 1);
    if (!d)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
    for (size_t i = 0; i < np; i++)
      d[i] = f->stdin_pb[np - 1 - i];
    memcpy(d + np, pr->in_data + pr->stdin_pos, rest);
    scan_src s = {d, np + rest, 0, false, false, NULL};
    r = scan(pr, &s, fmt, ac);
    size_t took = s.pos < np ? s.pos : np;
    f->stdin_npb -= (uint32_t)took;
    scan_src t = {pr->in_data, pr->in_len, pr->stdin_pos, true, false, NULL};
    src_take(pr, &t, s.pos - took);
    pr->stdin_pos = t.pos;
    f->stdin_eof |= s.at_end;
    free(d);
  } else {
    cb_sct tr;
    bool on = traced >= 0 && cb_sct_begin(pr, &tr, traced, pr->file_stdin, fmt);
    scan_src s = {pr->in_data, pr->in_len, pr->stdin_pos,
                  true,        false,      on ? &tr : NULL};
    r = scan(pr, &s, fmt, ac);
    pr->stdin_pos = s.pos;
    if (s.at_end && (f || (f = cb_files_get(pr))))
      f->stdin_eof = true;
  }
  if (r == -2)
    return CB_FAIL;
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

/* The scanf functions. */
cb_stop cb_libc_scanf_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF: {
    bool v = fn == CB_LIBC_VSCANF || fn == CB_LIBC_ISOC99_VSCANF;
    argcur ac = {a, ty, n, 1, v ? a[1].u : 0, 0, false};
    return scan_stdin(pr, a[0].u, &ac, ret,
                      !v && pr->lib_called == fn ? CB_SCT_STDIN : -1);
  }
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF:
  case CB_LIBC_VFSCANF:
  case CB_LIBC_ISOC99_VFSCANF: {
    bool v = fn == CB_LIBC_VFSCANF || fn == CB_LIBC_ISOC99_VFSCANF;
    argcur ac = {a, ty, n, 2, v ? a[2].u : 0, 0, false};
    /* glibc's traffic for fscanf itself (vfscanf's entry differs) */
    bool traced = !v && pr->lib_called == fn;
    if (a[0].u != pr->file_stdin)
      return cb_stream_scanf(pr, a[0].u, a[1].u, &ac, ret, traced);
    return scan_stdin(pr, a[1].u, &ac, ret, traced ? CB_SCT_STREAM : -1);
  }
  case CB_LIBC_SSCANF:
  case CB_LIBC_ISOC99_SSCANF:
  case CB_LIBC_VSSCANF:
  case CB_LIBC_ISOC99_VSSCANF: {
    size_t len;
    char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    bool v = fn == CB_LIBC_VSSCANF || fn == CB_LIBC_ISOC99_VSSCANF;
    /* glibc's traffic for sscanf itself (libc_scanf_traffic.c) */
    cb_sct tr;
    bool on = !v && pr->lib_called == fn &&
              cb_sct_begin(pr, &tr, CB_SCT_STRING, a[0].u, a[1].u);
    /* the string's end first: _IO_str_init_static_internal with size 0
     * (libio/strops.c) calls __rawmemchr (s, 0) */
    cb_libc_strlen_traffic(pr, a[0].u, len);
    if (on)
      cb_sct_string_set(&tr);
    scan_src src = {(const unsigned char *)s, len, 0, false, false,
                    on ? &tr : NULL};
    argcur ac = {a, ty, n, 2, v ? a[2].u : 0, 0, false};
    int r = scan(pr, &src, a[1].u, &ac);
    if (!on) /* else inchar's reads */
      cb_proc_lib(pr, a[0].u, src.pos + 1, false);
    free(s);
    if (r == -2)
      return CB_FAIL;
    ret[0].u = (uint64_t)(uint32_t)r;
    return CB_GO;
  }
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
