/* libc_stdio.c: the C library model's standard input and output: the
 * printf and scanf families (formatting and conversion by the host's
 * glibc; the v* forms read their `va_list`), puts/putchar/fwrite/getchar
 * ..., and stdin's and stdout's buffers on the heap, as glibc allocates
 * them. Other FILE streams are libc_files.c's. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"

#define STDIO_BUF 4096u

/* ---- stdio buffers ---- */

static uint64_t stdout_cap(const cb_eng *e) {
  return e->stdout_cap          ? e->stdout_cap
         : e->opt.stdout_is_tty ? 1024
                                : STDIO_BUF;
}

static void ensure_stdout_buf(cb_eng *e) {
  if (!e->stdout_buf && !e->stdout_unbuf)
    e->stdout_buf = cb_heap_malloc(e->heap, stdout_cap(e));
}

/* The output's text. */
static void out_text(cb_eng *e, const char *s, size_t n) {
  if (n)
    e->stdout_flushed = false;
  cb_textbuf_put(&e->out_text, s, n);
}

/* what reached fd 1: all but the buffer's content (a write(1, ...)
 * comes out before that) */
static void out_sent(cb_eng *e) {
  uint64_t cap = stdout_cap(e);
  size_t held = e->stdout_buf ? (size_t)(e->stdout_pos % cap) : 0;
  e->stdout_sent = e->out_text.n - (held < e->out_text.n ? held : 0);
}

void cb_libc_put_stdout_text(cb_eng *e, const char *s, size_t n) {
  out_text(e, s, n);
  e->stdout_pos += n;
  out_sent(e);
}

/* Output through stdout's buffer: the bytes are copied into it. */
void cb_libc_put_stdout(cb_eng *e, const char *s, size_t n) {
  ensure_stdout_buf(e);
  out_text(e, s, n);
  uint64_t cap = stdout_cap(e);
  if (e->stdout_buf) {
    for (size_t i = 0; i < n;) {
      uint64_t at = e->stdout_pos % cap;
      size_t k = n - i;
      if (k > cap - at)
        k = (size_t)(cap - at);
      cb_mem_write(&e->mem, e->stdout_buf + at, s + i, k, NULL);
      cb_eng_lib(e, e->stdout_buf + at, k, true);
      e->stdout_pos += k;
      i += k;
    }
  }
  out_sent(e);
}

#define put_stdout cb_libc_put_stdout

/* src: the program's address of the bytes (fwrite, fputs), 0 for
 * formatted text. */
static cb_stop put_file(cb_eng *e, uint64_t file, const char *s, uint64_t src,
                        size_t n) {
  if (file == e->file_stdout)
    put_stdout(e, s, n);
  else
    return cb_stream_put(e, file, s, src, n);
  return CB_GO;
}

/* ---- printf ---- */

typedef cb_argcur argcur;

/* va_arg on the va_list at c->va (SysV x86-64 ABI, section 3.5.7): the
 * offset (or overflow pointer) read, the slot read, the offset written
 * back, as glibc's compiled va_arg does. */
static cb_value va_next(cb_eng *e, cb_argcur *c, int cls, uint8_t *ty) {
  uint32_t off[2];
  uint64_t ovf, save;
  cb_value v = {0};
  *ty = cls == CB_ARG_INT ? CB_TY_I64 : CB_TY_F64;
  if (c->bad || !cb_eng_read(e, c->va, off, 8) ||
      !cb_eng_read(e, c->va + 8, &ovf, 8) ||
      !cb_eng_read(e, c->va + 16, &save, 8)) {
    c->bad = true;
    return v;
  }
  unsigned k = cls == CB_ARG_INT ? 0 : 1;
  uint32_t lim = k ? 176 : 48, step = k ? 16 : 8;
  if (cls != CB_ARG_LDOUBLE && off[k] + step <= lim) {
    cb_eng_lib(e, c->va + 4 * k, 4, false);
    uint64_t at = save + off[k];
    if (!cb_eng_read(e, at, &v.u, 8)) {
      c->bad = true;
      return v;
    }
    cb_eng_lib(e, at, 8, false);
    off[k] += step;
    cb_mem_write(&e->mem, c->va + 4 * k, &off[k], 4, NULL);
    cb_eng_lib(e, c->va + 4 * k, 4, true);
    return v;
  }
  cb_eng_lib(e, c->va + 8, 8, false);
  if (cls == CB_ARG_LDOUBLE) {
    /* 16 bytes, 16-aligned, the x87 extended format */
    ovf = (ovf + 15) & ~15ull;
    long double ld = 0;
    if (!cb_eng_read(e, ovf, &ld, 10)) {
      c->bad = true;
      return v;
    }
    cb_eng_lib(e, ovf, 16, false);
    c->ld = ld;
    *ty = CB_TY_F80;
    ovf += 16;
  } else {
    if (!cb_eng_read(e, ovf, &v.u, 8)) {
      c->bad = true;
      return v;
    }
    cb_eng_lib(e, ovf, 8, false);
    ovf += 8;
  }
  cb_mem_write(&e->mem, c->va + 8, &ovf, 8, NULL);
  cb_eng_lib(e, c->va + 8, 8, true);
  return v;
}

cb_value cb_libc_next_arg(cb_eng *e, cb_argcur *c, int cls, uint8_t *ty) {
  if (c->va)
    return va_next(e, c, cls, ty);
  if (c->i >= c->n) {
    *ty = CB_TY_I64;
    return (cb_value){0};
  }
  *ty = c->ty[c->i];
  return c->a[c->i++];
}

#define next_arg(c, ty) cb_libc_next_arg(e, c, CB_ARG_INT, ty)
#define next_fp_arg(c, cls, ty) cb_libc_next_arg(e, c, cls, ty)

/* Formats into *b; false after a fault. */
static bool format(cb_eng *e, uint64_t fmt_addr, argcur *ac, cb_textbuf *b) {
  size_t flen;
  char *fmt = cb_eng_read_str(e, fmt_addr, MAX_STR, &flen);
  if (!fmt)
    return false;
  cb_eng_lib(e, fmt_addr, flen + 1, false);
  char spec[64], tmp[512];
  for (size_t i = 0; i < flen;) {
    if (fmt[i] != '%') {
      size_t j = i;
      while (j < flen && fmt[j] != '%')
        j++;
      cb_textbuf_put(b, fmt + i, j - i);
      i = j;
      continue;
    }
    size_t st = i++;
    if (i < flen && fmt[i] == '%') {
      cb_textbuf_put(b, "%", 1);
      i++;
      continue;
    }
    /* flags, width, precision (with * taken from the arguments) */
    int star[2], nstar = 0;
    size_t k = 0;
    spec[k++] = '%';
    while (i < flen && strchr("-+ #0'", fmt[i]) && k < 40)
      spec[k++] = fmt[i++];
    if (i < flen && fmt[i] == '*') {
      uint8_t t;
      star[nstar++] = (int)next_arg(ac, &t).s;
      spec[k++] = '*';
      i++;
    } else
      while (i < flen && isdigit((unsigned char)fmt[i]) && k < 40)
        spec[k++] = fmt[i++];
    if (i < flen && fmt[i] == '.') {
      spec[k++] = fmt[i++];
      if (i < flen && fmt[i] == '*') {
        uint8_t t;
        star[nstar++] = (int)next_arg(ac, &t).s;
        spec[k++] = '*';
        i++;
      } else
        while (i < flen && isdigit((unsigned char)fmt[i]) && k < 40)
          spec[k++] = fmt[i++];
    }
    int lng = 0; /* 0 int, 1 long, 2 long long, -1 short, -2 char, 3 L */
    while (i < flen && strchr("hlLqjzt", fmt[i]) && k < 50) {
      char c = fmt[i];
      if (c == 'h')
        lng = lng == -1 ? -2 : -1;
      else if (c == 'l')
        lng = lng == 1 ? 2 : 1;
      else if (c == 'L' || c == 'q')
        lng = 3;
      else
        lng = 1;
      spec[k++] = fmt[i++];
    }
    if (i >= flen) {
      cb_textbuf_put(b, fmt + st, flen - st);
      break;
    }
    char conv = fmt[i++];
    spec[k++] = conv;
    spec[k] = 0;
    uint8_t t;
    int n = 0;
    char *dyn = NULL;
    switch (conv) {
    case 'd':
    case 'i': {
      cb_value v = next_arg(ac, &t);
      long long x = lng >= 1 ? (long long)v.s : (long long)(int)(uint32_t)v.u;
#define SNP(val)                                                               \
  (nstar == 2   ? snprintf(tmp, sizeof tmp, spec, star[0], star[1], val)       \
   : nstar == 1 ? snprintf(tmp, sizeof tmp, spec, star[0], val)                \
                : snprintf(tmp, sizeof tmp, spec, val))
      if (lng >= 1)
        n = SNP(x);
      else
        n = SNP((int)x);
      break;
    }
    case 'u':
    case 'o':
    case 'x':
    case 'X':
    case 'c': {
      cb_value v = next_arg(ac, &t);
      if (lng >= 1 && conv != 'c')
        n = SNP((unsigned long long)v.u);
      else
        n = SNP((unsigned)v.u);
      break;
    }
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A': {
      cb_value v =
          next_fp_arg(ac, lng == 3 ? CB_ARG_LDOUBLE : CB_ARG_DOUBLE, &t);
      if (t == CB_TY_F80 && (ac->va || e->call_vals)) {
        /* a long double, from the va_list or in its two slots
         * (engine_wide.c); %Lf's digits reach 4933 */
        long double x = ac->va ? ac->ld : cb_wide_f80(e->call_vals[ac->i - 1]);
        n = lng == 3 ? SNP(x) : SNP((double)x);
        if (lng == 3 && n >= (int)sizeof tmp &&
            (dyn = malloc((size_t)n + 1)) != NULL)
          (void)(nstar == 2
                     ? snprintf(dyn, (size_t)n + 1, spec, star[0], star[1], x)
                 : nstar == 1 ? snprintf(dyn, (size_t)n + 1, spec, star[0], x)
                              : snprintf(dyn, (size_t)n + 1, spec, x));
        break;
      }
      double d = t == CB_TY_F32 ? (double)v.f : v.d;
      if (lng == 3) {
        /* long double arrives as double in this model */
        char *L = strchr(spec, 'L');
        if (L)
          memmove(L, L + 1, strlen(L));
      }
      n = SNP(d);
      break;
    }
    case 'p': {
      cb_value v = next_arg(ac, &t);
      n = SNP((void *)(uintptr_t)v.u);
      break;
    }
    case 's': {
      cb_value v = next_arg(ac, &t);
      size_t len;
      char *s = v.u ? cb_eng_read_str(e, v.u, MAX_STR, &len) : NULL;
      if (v.u && !s) {
        free(fmt);
        return false;
      }
      if (s)
        cb_eng_lib(e, v.u, len + 1, false);
      const char *arg = s ? s : "(null)";
      size_t need = strlen(arg) + 64 + (nstar ? (size_t)abs(star[0]) : 0);
      if (need > sizeof tmp) {
        dyn = malloc(need + 4096);
        n = nstar == 2 ? snprintf(dyn, need + 4096, spec, star[0], star[1], arg)
            : nstar == 1 ? snprintf(dyn, need + 4096, spec, star[0], arg)
                         : snprintf(dyn, need + 4096, spec, arg);
      } else {
        n = SNP(arg);
      }
      free(s);
      break;
    }
    case 'n': {
      cb_value v = next_arg(ac, &t);
      int32_t cnt = (int32_t)b->n;
      if (v.u && !cb_eng_write(e, v.u, &cnt, 4)) {
        free(fmt);
        return false;
      }
      continue;
    }
    default:
      cb_textbuf_put(b, fmt + st, i - st);
      continue;
    }
#undef SNP
    if (n > 0) {
      if (dyn)
        cb_textbuf_put(b, dyn, (size_t)n);
      else
        cb_textbuf_put(b, tmp,
                       (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
    }
    free(dyn);
  }
  free(fmt);
  return !ac->bad;
}

bool cb_libc_format(cb_eng *e, uint64_t fmt_addr, cb_argcur *ac,
                    cb_textbuf *b) {
  return format(e, fmt_addr, ac, b);
}

/* ---- scanf ---- */

typedef struct scan_src {
  const unsigned char *d;
  size_t len, pos;
  bool is_stdin;
  bool at_end; /* looked for a byte past the end */
} scan_src;

static int src_peek(scan_src *s) {
  if (s->pos < s->len)
    return s->d[s->pos];
  s->at_end = true;
  return EOF;
}

static void src_take(cb_eng *e, scan_src *s, size_t n) {
  if (s->is_stdin) {
    for (size_t i = 0; i < n; i++)
      if (e->stdin_buf)
        cb_eng_emit(e, e->stdin_buf + (s->pos + i) % STDIO_BUF, 1, e->cur_site,
                    false);
    e->out->lib_reads += n;
  }
  s->pos += n;
}

static bool store_int(cb_eng *e, uint64_t ptr, int lng, uint64_t v) {
  unsigned sz = lng == -2 ? 1 : lng == -1 ? 2 : lng == 0 ? 4 : 8;
  if (!cb_eng_write(e, ptr, &v, sz))
    return false;
  cb_eng_lib(e, ptr, sz, true);
  return true;
}

static int scan_(cb_eng *e, scan_src *s, uint64_t fmt_addr, argcur *ac);

/* Returns the number of assignments, EOF, or -2 after a fault. */
static int scan(cb_eng *e, scan_src *s, uint64_t fmt_addr, argcur *ac) {
  int r = scan_(e, s, fmt_addr, ac);
  return ac->bad ? -2 : r;
}

int cb_libc_scan_bytes(cb_eng *e, const unsigned char *d, size_t len,
                       size_t *pos, bool *at_end, uint64_t fmt_addr,
                       cb_argcur *ac) {
  scan_src s = {d, len, *pos, false, false};
  int r = scan(e, &s, fmt_addr, ac);
  *pos = s.pos;
  *at_end = s.at_end;
  return r;
}

static int scan_(cb_eng *e, scan_src *s, uint64_t fmt_addr, argcur *ac) {
  size_t flen;
  char *fmt = cb_eng_read_str(e, fmt_addr, MAX_STR, &flen);
  if (!fmt)
    return -2;
  int assigned = 0, convs = 0;
  char tok[4200];
  for (size_t i = 0; i < flen;) {
    unsigned char fc = (unsigned char)fmt[i];
    if (isspace(fc)) {
      while (isspace(src_peek(s)))
        src_take(e, s, 1);
      i++;
      continue;
    }
    if (fc != '%' || (i + 1 < flen && fmt[i + 1] == '%')) {
      if (fc == '%') {
        i++;
        while (isspace(src_peek(s)))
          src_take(e, s, 1);
      }
      if (src_peek(s) == EOF) {
        free(fmt);
        return convs ? assigned : EOF;
      }
      if (src_peek(s) != (unsigned char)fmt[i])
        break;
      src_take(e, s, 1);
      i++;
      continue;
    }
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
        free(fmt);
        cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                    "scanf: a %%[ conversion without its ]");
        return -2;
      }
      i++;
      if (neg)
        for (unsigned ch = 0; ch < 256; ch++)
          set[ch] = !set[ch];
    }
    if (conv == 'n') {
      uint8_t t;
      /* a suppressed conversion (*) takes no argument (C99 7.19.6.2) */
      cb_value p = suppress ? (cb_value){0} : next_arg(ac, &t);
      if (!suppress && !store_int(e, p.u, lng, s->pos)) {
        free(fmt);
        return -2;
      }
      continue;
    }
    if (conv != 'c' && conv != '[')
      while (isspace(src_peek(s)))
        src_take(e, s, 1);
    if (src_peek(s) == EOF) {
      free(fmt);
      return convs ? assigned : EOF;
    }
    convs++;
    size_t maxw = width ? width : sizeof tok - 1;
    if (maxw > sizeof tok - 1)
      maxw = sizeof tok - 1;
    size_t avail = s->len - s->pos;
    if (conv == 'c') {
      size_t w = width ? width : 1;
      if (w > avail)
        w = avail;
      uint8_t t;
      /* a suppressed conversion (*) takes no argument (C99 7.19.6.2) */
      cb_value p = suppress ? (cb_value){0} : next_arg(ac, &t);
      if (!suppress) {
        if (!cb_eng_write(e, p.u, s->d + s->pos, w)) {
          free(fmt);
          return -2;
        }
        cb_eng_lib(e, p.u, w, true);
        assigned++;
      }
      src_take(e, s, w);
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
      /* a suppressed conversion (*) takes no argument (C99 7.19.6.2) */
      cb_value p = suppress ? (cb_value){0} : next_arg(ac, &t);
      if (!suppress) {
        char z = 0;
        if (!cb_eng_write(e, p.u, s->d + s->pos, w) ||
            !cb_eng_write(e, p.u + w, &z, 1)) {
          free(fmt);
          return -2;
        }
        cb_eng_lib(e, p.u, w + 1, true);
        assigned++;
      }
      src_take(e, s, w);
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
      if (!suppress)
        p = next_arg(ac, &t);
      if (!suppress) {
        if (!store_int(e, p.u, lng, v)) {
          free(fmt);
          return -2;
        }
        assigned++;
      }
    } else if (strchr("feEgGaA", conv)) {
      double d = strtod(tok, &end);
      if (end == tok)
        break;
      if (!suppress)
        p = next_arg(ac, &t);
      if (!suppress) {
        bool ok;
        if (lng >= 1) {
          ok = cb_eng_write(e, p.u, &d, 8);
          cb_eng_lib(e, p.u, 8, true);
        } else {
          float f = (float)d;
          ok = cb_eng_write(e, p.u, &f, 4);
          cb_eng_lib(e, p.u, 4, true);
        }
        if (!ok) {
          free(fmt);
          return -2;
        }
        assigned++;
      }
    } else {
      free(fmt);
      cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                  "scanf: the conversion %%%c is not modelled", conv);
      return -2;
    }
    src_take(e, s, (size_t)(end - tok));
  }
  free(fmt);
  return assigned;
}

static void ensure_stdin_buf(cb_eng *e) {
  if (!e->stdin_buf)
    e->stdin_buf = cb_heap_malloc(e->heap, STDIO_BUF);
}

static cb_stop scan_stdin(cb_eng *e, uint64_t fmt, argcur *ac, cb_value *ret) {
  ensure_stdin_buf(e);
  cb_files *f = e->files;
  int r;
  if (f && f->stdin_npb) {
    /* bytes ungetc pushed back come first (libc_files.c) */
    size_t rest = e->in_len - e->stdin_pos, np = f->stdin_npb;
    unsigned char *d = malloc(np + rest + 1);
    if (!d)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site, "out of memory");
    for (size_t i = 0; i < np; i++)
      d[i] = f->stdin_pb[np - 1 - i];
    memcpy(d + np, e->in_data + e->stdin_pos, rest);
    scan_src s = {d, np + rest, 0, false, false};
    r = scan(e, &s, fmt, ac);
    size_t took = s.pos < np ? s.pos : np;
    f->stdin_npb -= (uint32_t)took;
    scan_src t = {e->in_data, e->in_len, e->stdin_pos, true, false};
    src_take(e, &t, s.pos - took);
    e->stdin_pos = t.pos;
    f->stdin_eof |= s.at_end;
    free(d);
  } else {
    scan_src s = {e->in_data, e->in_len, e->stdin_pos, true, false};
    r = scan(e, &s, fmt, ac);
    e->stdin_pos = s.pos;
    if (s.at_end && (f || (f = cb_files_get(e))))
      f->stdin_eof = true;
  }
  if (r == -2)
    return CB_FAIL;
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

/* The stdio functions. */
cb_stop cb_libc_stdio_call(cb_eng *e, uint32_t fn, const cb_value *a,
                           const uint8_t *ty, uint32_t n, cb_value *ret) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_PRINTF:
  case CB_LIBC_FPRINTF:
  case CB_LIBC_SPRINTF:
  case CB_LIBC_SNPRINTF:
  case CB_LIBC_VPRINTF:
  case CB_LIBC_VFPRINTF:
  case CB_LIBC_VSPRINTF:
  case CB_LIBC_VSNPRINTF: {
    bool v = fn >= CB_LIBC_VPRINTF && fn <= CB_LIBC_VSNPRINTF;
    if (v)
      fn = fn == CB_LIBC_VPRINTF    ? CB_LIBC_PRINTF
           : fn == CB_LIBC_VFPRINTF ? CB_LIBC_FPRINTF
           : fn == CB_LIBC_VSPRINTF ? CB_LIBC_SPRINTF
                                    : CB_LIBC_SNPRINTF;
    uint32_t fi = fn == CB_LIBC_PRINTF ? 0 : fn == CB_LIBC_SNPRINTF ? 2 : 1;
    argcur ac = {a, ty, n, fi + 1, v ? a[fi + 1].u : 0, 0, false};
    cb_textbuf b = {0};
    if (!format(e, a[fi].u, &ac, &b)) {
      free(b.s);
      return CB_FAIL;
    }
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PRINTF)
      put_stdout(e, b.s ? b.s : "", b.n);
    else if (fn == CB_LIBC_FPRINTF)
      st = put_file(e, a[0].u, b.s ? b.s : "", 0, b.n);
    else {
      uint64_t lim = fn == CB_LIBC_SNPRINTF ? a[1].u : UINT64_MAX;
      if (lim) {
        size_t w = b.n < lim ? b.n : (size_t)(lim - 1);
        char z = 0;
        if ((w && !cb_eng_write(e, a[0].u, b.s, w)) ||
            !cb_eng_write(e, a[0].u + w, &z, 1))
          st = CB_FAIL;
        else
          cb_eng_lib(e, a[0].u, w + 1, true);
      }
    }
    ret[0].u = (uint64_t)(uint32_t)b.n;
    if (st == CB_RETURNED) { /* the stream's output failed */
      ret[0].u = (uint64_t)(uint32_t)EOF;
      st = CB_GO;
    }
    free(b.s);
    return st;
  }
  case CB_LIBC_PUTS:
  case CB_LIBC_FPUTS: {
    size_t len;
    char *s = cb_eng_read_str(e, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    cb_libc_scan(e, a[0].u, len + 1);
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PUTS) {
      put_stdout(e, s, len);
      put_stdout(e, "\n", 1);
    } else {
      st = put_file(e, a[1].u, s, a[0].u, len);
    }
    free(s);
    /* glibc: puts returns the bytes written, fputs 1 */
    ret[0].u = st == CB_RETURNED ? (uint64_t)(uint32_t)EOF
               : fn == CB_LIBC_PUTS && len < 0x7fffffff ? len + 1
                                                        : 1;
    return st == CB_RETURNED ? CB_GO : st;
  }
  case CB_LIBC_PUTCHAR:
  case CB_LIBC_PUTC: /* glibc's inline putchar at -O2 */
  case CB_LIBC_FPUTC: {
    char c = (char)a[0].u;
    ret[0].u = a[0].u & 0xff;
    if (fn == CB_LIBC_PUTCHAR) {
      put_stdout(e, &c, 1);
      return CB_GO;
    }
    cb_stop st = put_file(e, a[1].u, &c, 0, 1);
    if (st == CB_RETURNED)
      ret[0].u = (uint64_t)(uint32_t)EOF;
    return st == CB_RETURNED ? CB_GO : st;
  }
  case CB_LIBC_FWRITE: {
    uint64_t bytes;
    if (__builtin_mul_overflow(a[1].u, a[2].u, &bytes) || bytes == UINT64_MAX)
      return cb_eng_fault(e, a[0].u, UINT64_MAX, false, e->cur_site);
    char *buf = malloc(bytes + 1);
    if (!buf) /* more than any object the process could hold */
      return cb_eng_fault(e, a[0].u, bytes, false, e->cur_site);
    if (!cb_eng_read(e, a[0].u, buf, bytes)) {
      free(buf);
      return CB_FAIL;
    }
    cb_stop st;
    if (a[3].u == e->file_stdout) {
      /* with glibc's traffic (libc_stdio_traffic.c) the copy's reads
       * are its memcpy's */
      if (!e->lib_mute_stdout)
        cb_eng_lib_bulk(e, a[0].u, bytes, false);
      st = put_file(e, a[3].u, buf, 0, bytes);
    } else {
      st = put_file(e, a[3].u, buf, a[0].u, bytes);
    }
    free(buf);
    ret[0].u = st == CB_RETURNED ? 0 : a[1].u ? a[2].u : 0;
    return st == CB_RETURNED ? CB_GO : st;
  }
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF: {
    bool v = fn == CB_LIBC_VSCANF || fn == CB_LIBC_ISOC99_VSCANF;
    argcur ac = {a, ty, n, 1, v ? a[1].u : 0, 0, false};
    return scan_stdin(e, a[0].u, &ac, ret);
  }
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF:
  case CB_LIBC_VFSCANF:
  case CB_LIBC_ISOC99_VFSCANF: {
    bool v = fn == CB_LIBC_VFSCANF || fn == CB_LIBC_ISOC99_VFSCANF;
    argcur ac = {a, ty, n, 2, v ? a[2].u : 0, 0, false};
    if (a[0].u != e->file_stdin)
      return cb_stream_scanf(e, a[0].u, a[1].u, &ac, ret);
    return scan_stdin(e, a[1].u, &ac, ret);
  }
  case CB_LIBC_SSCANF:
  case CB_LIBC_ISOC99_SSCANF:
  case CB_LIBC_VSSCANF:
  case CB_LIBC_ISOC99_VSSCANF: {
    size_t len;
    char *s = cb_eng_read_str(e, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    /* the string's end first: _IO_str_init_static_internal with size 0
     * (libio/strops.c) calls __rawmemchr (s, 0) */
    cb_libc_strlen_traffic(e, a[0].u, len);
    scan_src src = {(const unsigned char *)s, len, 0, false, false};
    bool v = fn == CB_LIBC_VSSCANF || fn == CB_LIBC_ISOC99_VSSCANF;
    argcur ac = {a, ty, n, 2, v ? a[2].u : 0, 0, false};
    int r = scan(e, &src, a[1].u, &ac);
    cb_eng_lib(e, a[0].u, src.pos + 1, false);
    free(s);
    if (r == -2)
      return CB_FAIL;
    ret[0].u = (uint64_t)(uint32_t)r;
    return CB_GO;
  }
  case CB_LIBC_GETC:
  case CB_LIBC_FGETC:
    if (a[0].u != e->file_stdin) {
      int c = cb_stream_getc(e, a[0].u);
      if (c == -2)
        return CB_FAIL;
      ret[0].u = (uint64_t)(uint32_t)c;
      return CB_GO;
    }
    /* fall through */
  case CB_LIBC_GETCHAR: {
    ensure_stdin_buf(e);
    cb_files *f = e->files;
    if (f && f->stdin_npb) {
      /* ungetc's backup area (libc_files.c) */
      cb_eng_emit(e, f->stdin_backup + 128 - f->stdin_npb, 1, e->cur_site,
                  false);
      e->out->lib_reads++;
      ret[0].u = f->stdin_pb[--f->stdin_npb];
      return CB_GO;
    }
    if (e->stdin_pos >= e->in_len) {
      if (f || (f = cb_files_get(e)))
        f->stdin_eof = true;
      ret[0].u = (uint64_t)(uint32_t)EOF;
      return CB_GO;
    }
    cb_eng_emit(e, e->stdin_buf + e->stdin_pos % STDIO_BUF, 1, e->cur_site,
                false);
    e->out->lib_reads++;
    ret[0].u = e->in_data[e->stdin_pos++];
    return CB_GO;
  }
  default:
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "library function #%u is not modelled", fn);
  }
}
