/* libc_stdio.c: the C library model's standard input and output: the
 * printf family (formatting by the host's glibc; the v* forms read their
 * `va_list`), puts/putchar/fwrite/getchar ..., and stdin's and stdout's
 * buffers on the heap, as glibc allocates them. The scanf family is
 * libc_scan.c's, other FILE streams libc_files.c's. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"
#include "libc_internal.h"
#include "libc_traffic.h"

#define STDIO_BUF 4096u

/* ---- stdio buffers ---- */

static uint64_t stdout_cap(const cb_proc *pr) {
  return pr->stdout_cap           ? pr->stdout_cap
         : pr->opt->stdout_is_tty ? 1024
                                  : STDIO_BUF;
}

static void ensure_stdout_buf(cb_proc *pr) {
  if (!pr->stdout_buf && !pr->stdout_unbuf)
    pr->stdout_buf = cb_heap_malloc(pr->heap, stdout_cap(pr));
}

/* The output's text. */
static void out_text(cb_proc *pr, const char *s, size_t n) {
  if (n)
    pr->stdout_flushed = false;
  cb_textbuf_put(&pr->out_text, s, n);
}

/* what reached fd 1: all but the buffer's content (a write(1, ...)
 * comes out before that) */
static void out_sent(cb_proc *pr) {
  uint64_t cap = stdout_cap(pr);
  size_t held = pr->stdout_buf ? (size_t)(pr->stdout_pos % cap) : 0;
  pr->stdout_sent = pr->out_text.n - (held < pr->out_text.n ? held : 0);
}

void cb_libc_put_stdout_text(cb_proc *pr, const char *s, size_t n) {
  out_text(pr, s, n);
  pr->stdout_pos += n;
  out_sent(pr);
}

/* Output through stdout's buffer: the bytes are copied into it. */
void cb_libc_put_stdout(cb_proc *pr, const char *s, size_t n) {
  ensure_stdout_buf(pr);
  out_text(pr, s, n);
  uint64_t cap = stdout_cap(pr);
  if (pr->stdout_buf) {
    for (size_t i = 0; i < n;) {
      uint64_t at = pr->stdout_pos % cap;
      size_t k = n - i;
      if (k > cap - at)
        k = (size_t)(cap - at);
      cb_mem_write(&pr->mem, pr->stdout_buf + at, s + i, k, NULL);
      cb_proc_lib(pr, pr->stdout_buf + at, k, true);
      pr->stdout_pos += k;
      i += k;
    }
  }
  out_sent(pr);
}

#define put_stdout cb_libc_put_stdout

/* src: the program's address of the bytes (fwrite, fputs), 0 for
 * formatted text. */
static cb_stop put_file(cb_proc *pr, uint64_t file, const char *s, uint64_t src,
                        size_t n) {
  if (file == pr->file_stdout)
    put_stdout(pr, s, n);
  else
    return cb_stream_put(pr, file, s, src, n);
  return CB_GO;
}

/* ---- printf ---- */

typedef cb_argcur argcur;

/* va_arg on the va_list at c->va (SysV x86-64 ABI, section 3.5.7): the
 * offset (or overflow pointer) read, the slot read, the offset written
 * back, as glibc's compiled va_arg does. */
static cb_value va_next(cb_proc *pr, cb_argcur *c, int cls, uint8_t *ty) {
  uint32_t off[2];
  uint64_t ovf, save;
  cb_value v = {0};
  *ty = cls == CB_ARG_INT ? CB_TY_I64 : CB_TY_F64;
  if (c->bad || !cb_proc_read(pr, c->va, off, 8) ||
      !cb_proc_read(pr, c->va + 8, &ovf, 8) ||
      !cb_proc_read(pr, c->va + 16, &save, 8)) {
    c->bad = true;
    return v;
  }
  unsigned k = cls == CB_ARG_INT ? 0 : 1;
  uint32_t lim = k ? 176 : 48, step = k ? 16 : 8;
  if (cls != CB_ARG_LDOUBLE && off[k] + step <= lim) {
    cb_proc_lib(pr, c->va + 4 * k, 4, false);
    uint64_t at = save + off[k];
    if (!cb_proc_read(pr, at, &v.u, 8)) {
      c->bad = true;
      return v;
    }
    cb_proc_lib(pr, at, 8, false);
    off[k] += step;
    cb_mem_write(&pr->mem, c->va + 4 * k, &off[k], 4, NULL);
    cb_proc_lib(pr, c->va + 4 * k, 4, true);
    return v;
  }
  cb_proc_lib(pr, c->va + 8, 8, false);
  if (cls == CB_ARG_LDOUBLE) {
    /* 16 bytes, 16-aligned, the x87 extended format */
    ovf = (ovf + 15) & ~15ull;
    long double ld = 0;
    if (!cb_proc_read(pr, ovf, &ld, 10)) {
      c->bad = true;
      return v;
    }
    cb_proc_lib(pr, ovf, 16, false);
    c->ld = ld;
    *ty = CB_TY_F80;
    ovf += 16;
  } else {
    if (!cb_proc_read(pr, ovf, &v.u, 8)) {
      c->bad = true;
      return v;
    }
    cb_proc_lib(pr, ovf, 8, false);
    ovf += 8;
  }
  cb_mem_write(&pr->mem, c->va + 8, &ovf, 8, NULL);
  cb_proc_lib(pr, c->va + 8, 8, true);
  return v;
}

cb_value cb_libc_next_arg(cb_proc *pr, cb_argcur *c, int cls, uint8_t *ty) {
  if (c->va)
    return va_next(pr, c, cls, ty);
  if (c->i >= c->n) {
    *ty = CB_TY_I64;
    return (cb_value){0};
  }
  *ty = c->ty[c->i];
  return c->a[c->i++];
}

#define next_arg(c, ty) cb_libc_next_arg(pr, c, CB_ARG_INT, ty)
#define next_fp_arg(c, cls, ty) cb_libc_next_arg(pr, c, cls, ty)

/* Formats into *b; false after a fault. */
static bool format(cb_proc *pr, uint64_t fmt_addr, argcur *ac, cb_textbuf *b) {
  size_t flen;
  char *fmt = cb_proc_read_str(pr, fmt_addr, MAX_STR, &flen);
  if (!fmt)
    return false;
  cb_proc_lib(pr, fmt_addr, flen + 1, false);
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
      if (t == CB_TY_F80 && (ac->va || pr->call_vals)) {
        /* a long double, from the va_list or in its two slots
         * (engine_wide.c); %Lf's digits reach 4933 */
        long double x = ac->va ? ac->ld : cb_wide_f80(pr->call_vals[ac->i - 1]);
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
      char *s = v.u ? cb_proc_read_str(pr, v.u, MAX_STR, &len) : NULL;
      if (v.u && !s) {
        free(fmt);
        return false;
      }
      if (s)
        cb_proc_lib(pr, v.u, len + 1, false);
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
      if (v.u && !cb_proc_write(pr, v.u, &cnt, 4)) {
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

bool cb_libc_format(cb_proc *pr, uint64_t fmt_addr, cb_argcur *ac,
                    cb_textbuf *b) {
  return format(pr, fmt_addr, ac, b);
}

/* The stdio functions. */
cb_stop cb_libc_stdio_call(cb_proc *pr, uint32_t fn, const cb_value *a,
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
    if (!format(pr, a[fi].u, &ac, &b)) {
      free(b.s);
      return CB_FAIL;
    }
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PRINTF)
      put_stdout(pr, b.s ? b.s : "", b.n);
    else if (fn == CB_LIBC_FPRINTF)
      st = put_file(pr, a[0].u, b.s ? b.s : "", 0, b.n);
    else {
      uint64_t lim = fn == CB_LIBC_SNPRINTF ? a[1].u : UINT64_MAX;
      if (lim) {
        size_t w = b.n < lim ? b.n : (size_t)(lim - 1);
        char z = 0;
        if ((w && !cb_proc_write(pr, a[0].u, b.s, w)) ||
            !cb_proc_write(pr, a[0].u + w, &z, 1))
          st = CB_FAIL;
        else
          cb_proc_lib(pr, a[0].u, w + 1, true);
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
    char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    cb_libc_scan(pr, a[0].u, len + 1);
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PUTS) {
      put_stdout(pr, s, len);
      put_stdout(pr, "\n", 1);
    } else {
      st = put_file(pr, a[1].u, s, a[0].u, len);
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
      put_stdout(pr, &c, 1);
      return CB_GO;
    }
    cb_stop st = put_file(pr, a[1].u, &c, 0, 1);
    if (st == CB_RETURNED)
      ret[0].u = (uint64_t)(uint32_t)EOF;
    return st == CB_RETURNED ? CB_GO : st;
  }
  case CB_LIBC_FWRITE: {
    uint64_t bytes;
    if (__builtin_mul_overflow(a[1].u, a[2].u, &bytes) || bytes == UINT64_MAX)
      return cb_proc_fault(pr, a[0].u, UINT64_MAX, false, pr->cur_site);
    char *buf = malloc(bytes + 1);
    if (!buf) /* more than any object the process could hold */
      return cb_proc_fault(pr, a[0].u, bytes, false, pr->cur_site);
    if (!cb_proc_read(pr, a[0].u, buf, bytes)) {
      free(buf);
      return CB_FAIL;
    }
    cb_stop st;
    if (a[3].u == pr->file_stdout) {
      /* with glibc's traffic (libc_stdio_traffic.c) the copy's reads
       * are its memcpy's */
      if (!pr->lib_mute_stdout)
        cb_proc_lib_bulk(pr, a[0].u, bytes, false);
      st = put_file(pr, a[3].u, buf, 0, bytes);
    } else {
      st = put_file(pr, a[3].u, buf, a[0].u, bytes);
    }
    free(buf);
    ret[0].u = st == CB_RETURNED ? 0 : a[1].u ? a[2].u : 0;
    return st == CB_RETURNED ? CB_GO : st;
  }
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF:
  case CB_LIBC_VSCANF:
  case CB_LIBC_ISOC99_VSCANF:
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF:
  case CB_LIBC_VFSCANF:
  case CB_LIBC_ISOC99_VFSCANF:
  case CB_LIBC_SSCANF:
  case CB_LIBC_ISOC99_SSCANF:
  case CB_LIBC_VSSCANF:
  case CB_LIBC_ISOC99_VSSCANF:
    return cb_libc_scanf_call(pr, fn, a, ty, n, ret);
  case CB_LIBC_GETC:
  case CB_LIBC_FGETC:
    if (a[0].u != pr->file_stdin) {
      int c = cb_stream_getc(pr, a[0].u);
      if (c == -2)
        return CB_FAIL;
      ret[0].u = (uint64_t)(uint32_t)c;
      return CB_GO;
    }
    /* fall through */
  case CB_LIBC_GETCHAR: {
    cb_libc_stdin_buf(pr);
    cb_files *f = pr->files;
    if (f && f->stdin_npb) {
      /* ungetc's backup area (libc_files.c) */
      cb_proc_emit(pr, f->stdin_backup + 128 - f->stdin_npb, 1, pr->cur_site,
                   false);
      pr->out->lib_reads++;
      ret[0].u = f->stdin_pb[--f->stdin_npb];
      return CB_GO;
    }
    if (pr->stdin_pos >= pr->in_len) {
      if (f || (f = cb_files_get(pr)))
        f->stdin_eof = true;
      ret[0].u = (uint64_t)(uint32_t)EOF;
      return CB_GO;
    }
    cb_proc_emit(pr, pr->stdin_buf + pr->stdin_pos % STDIO_BUF, 1, pr->cur_site,
                 false);
    pr->out->lib_reads++;
    ret[0].u = pr->in_data[pr->stdin_pos++];
    return CB_GO;
  }
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
