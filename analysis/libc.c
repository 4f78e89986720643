/* libc.c: the C library model: what each function of libc_names.h
 * returns, what it does to the modelled memory and to standard input and
 * output, and the memory traffic glibc generates for it (attributed to
 * the call site). Number conversion, formatting and libm come from the
 * host's glibc, which is the same library the real run uses. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

#define STDIO_BUF 4096u
#define MAX_STR (1u << 24)

void cb_libc_init(cb_eng *e) {
  (void)e;
}

/* ---- stdio buffers ---- */

static void ensure_stdout_buf(cb_eng *e) {
  if (!e->stdout_buf)
    e->stdout_buf =
        cb_heap_malloc(e->heap, e->opt.stdout_is_tty ? 1024 : STDIO_BUF);
}

/* Output through stdout's buffer: the bytes are copied into it. */
static void put_stdout(cb_eng *e, const char *s, size_t n) {
  ensure_stdout_buf(e);
  cb_textbuf_put(&e->out_text, s, n);
  uint64_t cap = e->opt.stdout_is_tty ? 1024 : STDIO_BUF;
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
}

static cb_stop put_file(cb_eng *e, uint64_t file, const char *s, size_t n) {
  if (file == e->file_stdout)
    put_stdout(e, s, n);
  else if (file == e->file_stderr)
    cb_textbuf_put(&e->err_text, s, n);
  else
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "output to a FILE * (0x%llx) the model does not know",
                       (unsigned long long)file);
  return CB_GO;
}

/* ---- printf ---- */

typedef struct argcur {
  const cb_value *a;
  const uint8_t *ty;
  uint32_t n, i;
} argcur;

static cb_value next_arg(argcur *c, uint8_t *ty) {
  if (c->i >= c->n) {
    *ty = CB_TY_I64;
    return (cb_value){0};
  }
  *ty = c->ty[c->i];
  return c->a[c->i++];
}

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
      cb_value v = next_arg(ac, &t);
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
  return true;
}

/* ---- scanf ---- */

typedef struct scan_src {
  const unsigned char *d;
  size_t len, pos;
  bool is_stdin;
} scan_src;

static int src_peek(scan_src *s) {
  return s->pos < s->len ? s->d[s->pos] : EOF;
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

/* Returns the number of assignments, EOF, or -2 after a fault. */
static int scan(cb_eng *e, scan_src *s, uint64_t fmt_addr, argcur *ac) {
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
    if (conv == 'n') {
      uint8_t t;
      cb_value p = next_arg(ac, &t);
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
      cb_value p = next_arg(ac, &t);
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
    if (conv == 's') {
      size_t w = 0;
      while (w < maxw && w < avail && !isspace(s->d[s->pos + w]))
        w++;
      uint8_t t;
      cb_value p = next_arg(ac, &t);
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
      break; /* %[ and the rest: not modelled */
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
  scan_src s = {e->in_data, e->in_len, e->stdin_pos, true};
  int r = scan(e, &s, fmt, ac);
  e->stdin_pos = s.pos;
  if (r == -2)
    return CB_FAIL;
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

/* ---- strings ---- */

/* glibc's AVX2 string functions read whole aligned 32-byte vectors. */
static void lib_scan(cb_eng *e, uint64_t addr, uint64_t len) {
  uint64_t a = addr & ~31ull, end = addr + len;
  for (; a < end; a += 32)
    cb_eng_emit(e, a, 32, e->cur_site, false);
  e->out->lib_reads += (end - (addr & ~31ull) + 31) / 32;
}

static cb_stop do_memmove(cb_eng *e, uint64_t dst, uint64_t src, uint64_t n) {
  if (!n)
    return CB_GO;
  uint8_t buf[65536];
  if (dst <= src || dst >= src + n) {
    for (uint64_t off = 0; off < n; off += sizeof buf) {
      size_t k = n - off > sizeof buf ? sizeof buf : (size_t)(n - off);
      if (!cb_eng_read(e, src + off, buf, k) ||
          !cb_eng_write(e, dst + off, buf, k))
        return CB_FAIL;
    }
  } else {
    for (uint64_t done = 0; done < n;) {
      size_t k = n - done > sizeof buf ? sizeof buf : (size_t)(n - done);
      uint64_t off = n - done - k;
      if (!cb_eng_read(e, src + off, buf, k) ||
          !cb_eng_write(e, dst + off, buf, k))
        return CB_FAIL;
      done += k;
    }
  }
  cb_eng_memcpy_traffic(e, dst, src, n);
  return CB_GO;
}

static cb_stop do_memset(cb_eng *e, uint64_t dst, int c, uint64_t n) {
  uint64_t bad;
  if (!cb_mem_fill(&e->mem, dst, c, n, &bad))
    return cb_eng_fault(e, bad, 1, true, e->cur_site);
  cb_eng_memset_traffic(e, dst, n);
  return CB_GO;
}

/* ---- qsort: glibc 2.36's merge sort (msort_with_tmp) ---- */

typedef struct msort_ctx {
  cb_eng *e;
  uint32_t cmp;
  uint64_t size, tmp;
  cb_stop st;
} msort_ctx;

static int ms_cmp(msort_ctx *c, uint64_t a, uint64_t b) {
  cb_value args[2], r[4] = {{0}};
  args[0].u = a;
  args[1].u = b;
  uint32_t keep = c->e->cur_site;
  cb_stop st = cb_eng_call_function(c->e, c->cmp, args, 2, r);
  c->e->cur_site = keep;
  if (st != CB_GO)
    c->st = st;
  return (int32_t)(uint32_t)r[0].u;
}

static void ms_copy(msort_ctx *c, uint64_t dst, uint64_t src, uint64_t n) {
  if (c->st == CB_GO && do_memmove(c->e, dst, src, n) != CB_GO)
    c->st = CB_FAIL;
}

static void msort(msort_ctx *c, uint64_t b, uint64_t n) {
  if (n <= 1 || c->st != CB_GO)
    return;
  uint64_t n1 = n / 2, n2 = n - n1, s = c->size;
  uint64_t b1 = b, b2 = b + n1 * s;
  msort(c, b1, n1);
  msort(c, b2, n2);
  uint64_t t = c->tmp;
  while (n1 > 0 && n2 > 0 && c->st == CB_GO) {
    if (ms_cmp(c, b1, b2) <= 0) {
      ms_copy(c, t, b1, s);
      b1 += s;
      n1--;
    } else {
      ms_copy(c, t, b2, s);
      b2 += s;
      n2--;
    }
    t += s;
  }
  if (n1 > 0)
    ms_copy(c, t, b1, n1 * s);
  ms_copy(c, b, c->tmp, (n - n2) * s);
}

static cb_stop do_qsort(cb_eng *e, uint64_t base, uint64_t n, uint64_t size,
                        uint64_t fnaddr) {
  uint32_t f = cb_eng_function_at(e, fnaddr);
  if (f == CB_NONE)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "qsort with a comparator (0x%llx) that is no "
                       "function of the program",
                       (unsigned long long)fnaddr);
  if (n <= 1)
    return CB_GO;
  msort_ctx c = {e, f, size, 0, CB_GO};
  uint64_t total = n * size;
  bool heap = total >= 1024;
  cb_frame *F = &e->frames[e->depth - 1];
  uint64_t keep_sp = F->sp;
  if (heap) {
    c.tmp = cb_heap_malloc(e->heap, total);
    if (!c.tmp)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "qsort: no memory for %llu bytes",
                         (unsigned long long)total);
  } else {
    F->sp = (F->sp - 64 - total) & ~15ull;
    c.tmp = F->sp;
  }
  msort(&c, base, n);
  if (heap)
    cb_heap_free(e->heap, c.tmp);
  e->frames[e->depth - 1].sp = keep_sp;
  return c.st;
}

/* ---- the dispatcher ---- */

static double arg_d(const cb_value *a, const uint8_t *ty, uint32_t k) {
  return ty[k] == CB_TY_F32 ? (double)a[k].f : a[k].d;
}

static void ret_f(cb_value *r, float f) {
  r->u = 0;
  r->f = f;
}

static cb_stop str_arg(cb_eng *e, uint64_t addr, char **out, size_t *len) {
  *out = cb_eng_read_str(e, addr, MAX_STR, len);
  if (!*out)
    return CB_FAIL;
  lib_scan(e, addr, *len + 1);
  return CB_GO;
}

cb_stop cb_libc_call(cb_eng *e, uint32_t fn, const cb_value *a,
                     const uint8_t *ty, uint32_t n, cb_value *ret) {
  cb_value pad[8];
  uint8_t padty[8];
  if (n < 8) {
    /* missing arguments read as zeros */
    memcpy(pad, a, n * sizeof *a);
    memset(pad + n, 0, (8 - n) * sizeof *pad);
    memcpy(padty, ty, n);
    memset(padty + n, CB_TY_I64, 8 - n);
    a = pad;
    ty = padty;
  }
  cb_heap *h = e->heap;
  switch ((cb_libfn)fn) {
  case CB_LIBC_MALLOC:
    ret[0].u = cb_heap_malloc(h, a[0].u);
    return CB_GO;
  case CB_LIBC_CALLOC:
    ret[0].u = cb_heap_calloc(h, a[0].u, a[1].u);
    return CB_GO;
  case CB_LIBC_REALLOC:
    if (a[0].u && !cb_heap_is_block(h, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "realloc of 0x%llx, which is no live heap block",
                         (unsigned long long)a[0].u);
    ret[0].u = cb_heap_realloc(h, a[0].u, a[1].u);
    return CB_GO;
  case CB_LIBC_FREE:
    if (a[0].u && !cb_heap_is_block(h, a[0].u))
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "free of 0x%llx, which is no live heap block "
                         "(double free or a pointer inside a block)",
                         (unsigned long long)a[0].u);
    cb_heap_free(h, a[0].u);
    return CB_GO;
  case CB_LIBC_POSIX_MEMALIGN: {
    uint64_t al = a[1].u;
    if (al % 8 || !al || ((al / 8) & (al / 8 - 1))) {
      ret[0].u = 22; /* EINVAL */
      return CB_GO;
    }
    uint64_t m = cb_heap_memalign(h, al, a[2].u);
    if (!m) {
      ret[0].u = 12; /* ENOMEM */
      return CB_GO;
    }
    if (!cb_eng_write(e, a[0].u, &m, 8))
      return CB_FAIL;
    cb_eng_lib(e, a[0].u, 8, true);
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_ALIGNED_ALLOC:
  case CB_LIBC_MEMALIGN:
    ret[0].u = cb_heap_memalign(h, a[0].u, a[1].u);
    return CB_GO;
  case CB_LIBC_MEMSET:
    ret[0].u = a[0].u;
    return do_memset(e, a[0].u, (int)(a[1].u & 0xff), a[2].u);
  case CB_LIBC_MEMCPY:
  case CB_LIBC_MEMMOVE:
    ret[0].u = a[0].u;
    return do_memmove(e, a[0].u, a[1].u, a[2].u);
  case CB_LIBC_MEMCMP: {
    uint64_t len = a[2].u;
    int r = 0;
    uint64_t i = 0;
    for (; i < len; i++) {
      uint8_t x, y;
      if (!cb_eng_read(e, a[0].u + i, &x, 1) ||
          !cb_eng_read(e, a[1].u + i, &y, 1))
        return CB_FAIL;
      if (x != y) {
        r = x < y ? -1 : 1;
        i++;
        break;
      }
    }
    lib_scan(e, a[0].u, i);
    lib_scan(e, a[1].u, i);
    ret[0].u = (uint64_t)(uint32_t)r;
    return CB_GO;
  }
  case CB_LIBC_STRLEN: {
    char *s;
    size_t len;
    if (str_arg(e, a[0].u, &s, &len) != CB_GO)
      return CB_FAIL;
    free(s);
    ret[0].u = len;
    return CB_GO;
  }
  case CB_LIBC_STRCPY:
  case CB_LIBC_STRNCPY: {
    char *s;
    size_t len;
    if (str_arg(e, a[1].u, &s, &len) != CB_GO)
      return CB_FAIL;
    size_t w = len + 1;
    if (fn == CB_LIBC_STRNCPY) {
      uint64_t lim = a[2].u;
      if (w > lim)
        w = (size_t)lim;
      char *z = calloc(1, lim + 1);
      memcpy(z, s, w);
      bool ok = cb_eng_write(e, a[0].u, z, (size_t)lim);
      free(z);
      free(s);
      if (!ok)
        return CB_FAIL;
      cb_eng_lib_bulk(e, a[0].u, lim, true);
    } else {
      bool ok = cb_eng_write(e, a[0].u, s, w);
      free(s);
      if (!ok)
        return CB_FAIL;
      cb_eng_lib_bulk(e, a[0].u, w, true);
    }
    ret[0].u = a[0].u;
    return CB_GO;
  }
  case CB_LIBC_STRCMP:
  case CB_LIBC_STRNCMP: {
    char *s, *t;
    size_t ls, lt;
    if (str_arg(e, a[0].u, &s, &ls) != CB_GO)
      return CB_FAIL;
    if (str_arg(e, a[1].u, &t, &lt) != CB_GO) {
      free(s);
      return CB_FAIL;
    }
    int r = fn == CB_LIBC_STRCMP ? strcmp(s, t) : strncmp(s, t, a[2].u);
    free(s);
    free(t);
    ret[0].u = (uint64_t)(uint32_t)(r < 0 ? -1 : r > 0);
    return CB_GO;
  }
  case CB_LIBC_STRCHR: {
    char *s;
    size_t len;
    if (str_arg(e, a[0].u, &s, &len) != CB_GO)
      return CB_FAIL;
    int c = (int)(a[1].u & 0xff);
    char *q = c ? strchr(s, c) : s + len;
    ret[0].u = q ? a[0].u + (uint64_t)(q - s) : 0;
    free(s);
    return CB_GO;
  }
  case CB_LIBC_RAND:
  case CB_LIBC_RANDOM:
    ret[0].u = (uint64_t)(uint32_t)cb_rand_next(&e->rng);
    if (fn == CB_LIBC_RANDOM)
      ret[0].u = (uint64_t)(int64_t)(int32_t)ret[0].u;
    return CB_GO;
  case CB_LIBC_SRAND:
  case CB_LIBC_SRANDOM:
    cb_rand_seed(&e->rng, (uint32_t)a[0].u);
    return CB_GO;
  case CB_LIBC_ATOI:
  case CB_LIBC_ATOL:
  case CB_LIBC_ATOLL:
  case CB_LIBC_ATOF:
  case CB_LIBC_STRTOL:
  case CB_LIBC_STRTOUL:
  case CB_LIBC_STRTOLL:
  case CB_LIBC_STRTOULL:
  case CB_LIBC_STRTOD:
  case CB_LIBC_STRTOF: {
    size_t len;
    char *s = cb_eng_read_str(e, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    char *end = s;
    switch (fn) {
    case CB_LIBC_ATOI:
      ret[0].u = (uint64_t)(uint32_t)(int)strtol(s, &end, 10);
      break;
    case CB_LIBC_ATOL:
    case CB_LIBC_ATOLL:
      ret[0].s = strtoll(s, &end, 10);
      break;
    case CB_LIBC_ATOF:
    case CB_LIBC_STRTOD:
      ret[0].d = strtod(s, &end);
      break;
    case CB_LIBC_STRTOF:
      ret_f(&ret[0], strtof(s, &end));
      break;
    case CB_LIBC_STRTOL:
    case CB_LIBC_STRTOLL:
      ret[0].s = strtoll(s, &end, (int)a[2].u);
      break;
    default:
      ret[0].u = strtoull(s, &end, (int)a[2].u);
      break;
    }
    cb_eng_lib(e, a[0].u, (uint64_t)(end - s) + 1, false);
    if (fn >= CB_LIBC_STRTOL && fn <= CB_LIBC_STRTOF && a[1].u) {
      uint64_t ep = a[0].u + (uint64_t)(end - s);
      bool ok = cb_eng_write(e, a[1].u, &ep, 8);
      cb_eng_lib(e, a[1].u, 8, true);
      if (!ok) {
        free(s);
        return CB_FAIL;
      }
    }
    free(s);
    return CB_GO;
  }
  case CB_LIBC_PRINTF:
  case CB_LIBC_FPRINTF:
  case CB_LIBC_SPRINTF:
  case CB_LIBC_SNPRINTF: {
    uint32_t fi = fn == CB_LIBC_PRINTF ? 0 : fn == CB_LIBC_SNPRINTF ? 2 : 1;
    argcur ac = {a, ty, n, fi + 1};
    cb_textbuf b = {0};
    if (!format(e, a[fi].u, &ac, &b)) {
      free(b.s);
      return CB_FAIL;
    }
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PRINTF)
      put_stdout(e, b.s ? b.s : "", b.n);
    else if (fn == CB_LIBC_FPRINTF)
      st = put_file(e, a[0].u, b.s ? b.s : "", b.n);
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
    free(b.s);
    return st;
  }
  case CB_LIBC_PUTS:
  case CB_LIBC_FPUTS: {
    size_t len;
    char *s = cb_eng_read_str(e, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    lib_scan(e, a[0].u, len + 1);
    cb_stop st = CB_GO;
    if (fn == CB_LIBC_PUTS) {
      put_stdout(e, s, len);
      put_stdout(e, "\n", 1);
    } else {
      st = put_file(e, a[1].u, s, len);
    }
    free(s);
    ret[0].u = 1;
    return st;
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
    return put_file(e, a[1].u, &c, 1);
  }
  case CB_LIBC_FWRITE: {
    uint64_t bytes = a[1].u * a[2].u;
    if (bytes > MAX_STR)
      bytes = MAX_STR;
    char *buf = malloc(bytes + 1);
    if (!cb_eng_read(e, a[0].u, buf, bytes)) {
      free(buf);
      return CB_FAIL;
    }
    cb_eng_lib_bulk(e, a[0].u, bytes, false);
    cb_stop st = put_file(e, a[3].u, buf, bytes);
    free(buf);
    ret[0].u = a[2].u;
    return st;
  }
  case CB_LIBC_FFLUSH:
    ret[0].u = 0;
    return CB_GO;
  case CB_LIBC_SCANF:
  case CB_LIBC_ISOC99_SCANF: {
    argcur ac = {a, ty, n, 1};
    return scan_stdin(e, a[0].u, &ac, ret);
  }
  case CB_LIBC_FSCANF:
  case CB_LIBC_ISOC99_FSCANF: {
    if (a[0].u != e->file_stdin)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "fscanf from a FILE * other than stdin");
    argcur ac = {a, ty, n, 2};
    return scan_stdin(e, a[1].u, &ac, ret);
  }
  case CB_LIBC_SSCANF:
  case CB_LIBC_ISOC99_SSCANF: {
    size_t len;
    char *s = cb_eng_read_str(e, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    scan_src src = {(const unsigned char *)s, len, 0, false};
    argcur ac = {a, ty, n, 2};
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
    if (a[0].u != e->file_stdin)
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "getc from a FILE * other than stdin");
    /* fall through */
  case CB_LIBC_GETCHAR: {
    ensure_stdin_buf(e);
    if (e->stdin_pos >= e->in_len) {
      ret[0].u = (uint64_t)(uint32_t)EOF;
      return CB_GO;
    }
    cb_eng_emit(e, e->stdin_buf + e->stdin_pos % STDIO_BUF, 1, e->cur_site,
                false);
    e->out->lib_reads++;
    ret[0].u = e->in_data[e->stdin_pos++];
    return CB_GO;
  }
  case CB_LIBC_EXIT:
    e->exit_code = (int)(int32_t)a[0].u;
    return CB_EXIT;
  case CB_LIBC_ABORT:
    return cb_eng_fail(e, CB_RUN_ABORT, e->cur_site,
                       "the program called abort()");
  case CB_LIBC_ASSERT_FAIL: {
    char *ex = cb_eng_read_str(e, a[0].u, 4096, NULL);
    cb_stop st = cb_eng_fail(e, CB_RUN_ABORT, e->cur_site,
                             "assertion failed: %s", ex ? ex : "?");
    free(ex);
    return st;
  }
  case CB_LIBC_CLOCK:
    ret[0].u = 1000;
    return CB_GO;
  case CB_LIBC_TIME: {
    uint64_t t = 1700000000;
    if (a[0].u) {
      if (!cb_eng_write(e, a[0].u, &t, 8))
        return CB_FAIL;
      cb_eng_lib(e, a[0].u, 8, true);
    }
    ret[0].u = t;
    return CB_GO;
  }
  case CB_LIBC_GETTIMEOFDAY:
  case CB_LIBC_CLOCK_GETTIME: {
    uint64_t tv[2] = {1700000000, 0};
    uint64_t p = fn == CB_LIBC_GETTIMEOFDAY ? a[0].u : a[1].u;
    if (p) {
      if (!cb_eng_write(e, p, tv, 16))
        return CB_FAIL;
      cb_eng_lib(e, p, 16, true);
    }
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_QSORT:
    return do_qsort(e, a[0].u, a[1].u, a[2].u, a[3].u);
  case CB_LIBC_ABS: {
    int32_t v = (int32_t)(uint32_t)a[0].u;
    ret[0].u = (uint32_t)(v < 0 ? -(uint32_t)v : (uint32_t)v);
    return CB_GO;
  }
  case CB_LIBC_LABS:
    ret[0].u = a[0].s < 0 ? 0 - a[0].u : a[0].u;
    return CB_GO;
  case CB_LIBC_SQRT:
    ret[0].d = sqrt(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_SQRTF:
    ret_f(ret, sqrtf(a[0].f));
    return CB_GO;
  case CB_LIBC_EXP:
    ret[0].d = exp(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_EXPF:
    ret_f(ret, expf(a[0].f));
    return CB_GO;
  case CB_LIBC_LOG:
    ret[0].d = log(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_LOGF:
    ret_f(ret, logf(a[0].f));
    return CB_GO;
  case CB_LIBC_LOG2:
    ret[0].d = log2(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_LOG10:
    ret[0].d = log10(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_POW:
    ret[0].d = pow(arg_d(a, ty, 0), arg_d(a, ty, 1));
    return CB_GO;
  case CB_LIBC_POWF:
    ret_f(ret, powf(a[0].f, a[1].f));
    return CB_GO;
  case CB_LIBC_SIN:
    ret[0].d = sin(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_COS:
    ret[0].d = cos(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_TAN:
    ret[0].d = tan(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_ATAN:
    ret[0].d = atan(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_ATAN2:
    ret[0].d = atan2(arg_d(a, ty, 0), arg_d(a, ty, 1));
    return CB_GO;
  case CB_LIBC_TANH:
    ret[0].d = tanh(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_FABS:
    ret[0].d = fabs(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_FABSF:
    ret_f(ret, fabsf(a[0].f));
    return CB_GO;
  case CB_LIBC_FLOOR:
    ret[0].d = floor(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_CEIL:
    ret[0].d = ceil(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_ROUND:
    ret[0].d = round(arg_d(a, ty, 0));
    return CB_GO;
  case CB_LIBC_FMOD:
    ret[0].d = fmod(arg_d(a, ty, 0), arg_d(a, ty, 1));
    return CB_GO;
  case CB_LIBC_FMAX:
    ret[0].d = fmax(arg_d(a, ty, 0), arg_d(a, ty, 1));
    return CB_GO;
  case CB_LIBC_FMIN:
    ret[0].d = fmin(arg_d(a, ty, 0), arg_d(a, ty, 1));
    return CB_GO;
  default:
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "library function #%u is not modelled", fn);
  }
}

/* ---- LLVM intrinsics ---- */

static double lane_d(const cb_value *v, unsigned ty) {
  return ty == CB_TY_F32 ? (double)v->f : v->d;
}

static void put_d(cb_value *r, unsigned ty, double d) {
  if (ty == CB_TY_F32)
    ret_f(r, (float)d);
  else
    r->d = d;
}

static const uint64_t imask[CB_TY_COUNT] = {
    0, 1, 0xff, 0xffff, 0xffffffffu, ~0ull, 0xffffffffu, ~0ull, ~0ull};

static unsigned ibits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
}

static int64_t isx(uint64_t v, unsigned ty) {
  unsigned b = ibits(ty);
  if (b >= 64)
    return (int64_t)v;
  return (int64_t)(v << (64 - b)) >> (64 - b);
}

cb_stop cb_intrinsic_call(cb_eng *e, uint32_t id, const cb_op *op,
                          const cb_value *const *v, const uint8_t *aty,
                          const uint8_t *alanes, uint32_t n, cb_value *r) {
  unsigned ty = op->ty, l = op->lanes ? op->lanes : 1;
  unsigned t0 = n ? aty[0] : ty;
  unsigned l0 = n && alanes[0] ? alanes[0] : 1;
  (void)alanes;
  switch ((cb_intrinsic)id) {
  case CB_INTR_MEMCPY:
  case CB_INTR_MEMMOVE:
    return do_memmove(e, v[0][0].u, v[1][0].u, v[2][0].u);
  case CB_INTR_MEMSET:
    return do_memset(e, v[0][0].u, (int)(v[1][0].u & 0xff), v[2][0].u);
  case CB_INTR_STACKSAVE:
    r[0].u = e->frames[e->depth - 1].sp;
    return CB_GO;
  case CB_INTR_STACKRESTORE:
    e->frames[e->depth - 1].sp = v[0][0].u;
    return CB_GO;
  default:
    break;
  }
  if (id >= CB_INTR_REDUCE_ADD && id <= CB_INTR_REDUCE_FMIN) {
    bool fstart = id == CB_INTR_REDUCE_FADD || id == CB_INTR_REDUCE_FMUL;
    const cb_value *x = fstart ? v[1] : v[0];
    unsigned et = fstart ? aty[1] : t0;
    unsigned ln = fstart ? (alanes[1] ? alanes[1] : 1) : l0;
    if (id >= CB_INTR_REDUCE_FADD) {
      double acc = fstart ? lane_d(v[0], ty) : lane_d(&x[0], et);
      for (unsigned i = fstart ? 0 : 1; i < ln; i++) {
        double d = lane_d(&x[i], et);
        if (ty == CB_TY_F32) {
          float fa = (float)acc, fd = (float)d;
          acc = id == CB_INTR_REDUCE_FADD   ? (double)(fa + fd)
                : id == CB_INTR_REDUCE_FMUL ? (double)(fa * fd)
                : id == CB_INTR_REDUCE_FMAX ? fmax(acc, d)
                                            : fmin(acc, d);
        } else {
          acc = id == CB_INTR_REDUCE_FADD   ? acc + d
                : id == CB_INTR_REDUCE_FMUL ? acc * d
                : id == CB_INTR_REDUCE_FMAX ? fmax(acc, d)
                                            : fmin(acc, d);
        }
      }
      put_d(r, ty, acc);
      return CB_GO;
    }
    uint64_t acc = x[0].u;
    for (unsigned i = 1; i < ln; i++) {
      uint64_t y = x[i].u;
      switch (id) {
      case CB_INTR_REDUCE_ADD:
        acc += y;
        break;
      case CB_INTR_REDUCE_MUL:
        acc *= y;
        break;
      case CB_INTR_REDUCE_AND:
        acc &= y;
        break;
      case CB_INTR_REDUCE_OR:
        acc |= y;
        break;
      case CB_INTR_REDUCE_XOR:
        acc ^= y;
        break;
      case CB_INTR_REDUCE_SMAX:
        acc = isx(y, et) > isx(acc, et) ? y : acc;
        break;
      case CB_INTR_REDUCE_SMIN:
        acc = isx(y, et) < isx(acc, et) ? y : acc;
        break;
      case CB_INTR_REDUCE_UMAX:
        acc = y > acc ? y : acc;
        break;
      default:
        acc = y < acc ? y : acc;
        break;
      }
    }
    r[0].u = acc & imask[ty];
    return CB_GO;
  }
  if (id >= CB_INTR_SADD_OVF && id <= CB_INTR_UMUL_OVF) {
    unsigned t = t0, b = ibits(t);
    uint64_t x = v[0][0].u & imask[t], y = v[1][0].u & imask[t], res;
    bool ovf;
    if (id == CB_INTR_UADD_OVF || id == CB_INTR_USUB_OVF ||
        id == CB_INTR_UMUL_OVF) {
      unsigned __int128 wide = id == CB_INTR_UADD_OVF ? (unsigned __int128)x + y
                               : id == CB_INTR_USUB_OVF
                                   ? (unsigned __int128)x - y
                                   : (unsigned __int128)x * y;
      res = (uint64_t)wide & imask[t];
      ovf = id == CB_INTR_USUB_OVF
                ? x < y
                : (wide >> b) != 0 || (b == 64 && (wide >> 64));
    } else {
      __int128 sxv = isx(x, t), syv = isx(y, t);
      __int128 wide = id == CB_INTR_SADD_OVF   ? sxv + syv
                      : id == CB_INTR_SSUB_OVF ? sxv - syv
                                               : sxv * syv;
      res = (uint64_t)wide & imask[t];
      ovf = wide != (__int128)isx(res, t);
    }
    r[0].u = res;
    r[1].u = ovf;
    return CB_GO;
  }
  for (unsigned i = 0; i < l; i++) {
    const cb_value *x = &v[0][i];
    const cb_value *y = n > 1 ? &v[1][i] : x;
    const cb_value *z = n > 2 ? &v[2][i] : x;
    double dx = lane_d(x, ty);
    uint64_t ux = x->u & imask[ty], uy = y->u & imask[ty];
    unsigned b = ibits(ty);
    switch ((cb_intrinsic)id) {
    case CB_INTR_FABS:
      put_d(&r[i], ty, fabs(dx));
      break;
    case CB_INTR_SQRT:
      if (ty == CB_TY_F32)
        ret_f(&r[i], sqrtf(x->f));
      else
        r[i].d = sqrt(dx);
      break;
    case CB_INTR_EXP:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)expf(x->f) : exp(dx));
      break;
    case CB_INTR_LOG:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)logf(x->f) : log(dx));
      break;
    case CB_INTR_POW:
      put_d(&r[i], ty,
            ty == CB_TY_F32 ? (double)powf(x->f, y->f)
                            : pow(dx, lane_d(y, ty)));
      break;
    case CB_INTR_SIN:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)sinf(x->f) : sin(dx));
      break;
    case CB_INTR_COS:
      put_d(&r[i], ty, ty == CB_TY_F32 ? (double)cosf(x->f) : cos(dx));
      break;
    case CB_INTR_FLOOR:
      put_d(&r[i], ty, floor(dx));
      break;
    case CB_INTR_CEIL:
      put_d(&r[i], ty, ceil(dx));
      break;
    case CB_INTR_ROUND:
      put_d(&r[i], ty, round(dx));
      break;
    case CB_INTR_TRUNC:
      put_d(&r[i], ty, trunc(dx));
      break;
    case CB_INTR_RINT:
      put_d(&r[i], ty, rint(dx));
      break;
    case CB_INTR_FMA:
    case CB_INTR_FMULADD:
      if (ty == CB_TY_F32)
        ret_f(&r[i], fmaf(x->f, y->f, z->f));
      else
        r[i].d = fma(x->d, y->d, z->d);
      break;
    case CB_INTR_MAXNUM:
      put_d(&r[i], ty, fmax(dx, lane_d(y, ty)));
      break;
    case CB_INTR_MINNUM:
      put_d(&r[i], ty, fmin(dx, lane_d(y, ty)));
      break;
    case CB_INTR_COPYSIGN:
      put_d(&r[i], ty, copysign(dx, lane_d(y, ty)));
      break;
    case CB_INTR_SMAX:
      r[i].u = isx(ux, ty) > isx(uy, ty) ? ux : uy;
      break;
    case CB_INTR_SMIN:
      r[i].u = isx(ux, ty) < isx(uy, ty) ? ux : uy;
      break;
    case CB_INTR_UMAX:
      r[i].u = ux > uy ? ux : uy;
      break;
    case CB_INTR_UMIN:
      r[i].u = ux < uy ? ux : uy;
      break;
    case CB_INTR_ABS:
      r[i].u = (isx(ux, ty) < 0 ? 0 - ux : ux) & imask[ty];
      break;
    case CB_INTR_CTPOP:
      r[i].u = (uint64_t)__builtin_popcountll(ux);
      break;
    case CB_INTR_CTLZ:
      r[i].u = ux ? (uint64_t)(__builtin_clzll(ux) - (64 - (int)b)) : b;
      break;
    case CB_INTR_CTTZ:
      r[i].u = ux ? (uint64_t)__builtin_ctzll(ux) : b;
      break;
    case CB_INTR_BSWAP:
      r[i].u = __builtin_bswap64(ux) >> (64 - b);
      break;
    case CB_INTR_FSHL:
    case CB_INTR_FSHR: {
      unsigned s = (unsigned)(z->u % b);
      unsigned __int128 cat = ((unsigned __int128)ux << b) | uy;
      uint64_t res;
      if (id == CB_INTR_FSHL)
        res = (uint64_t)((cat << s) >> b);
      else
        res = (uint64_t)(cat >> s);
      r[i].u = res & imask[ty];
      break;
    }
    case CB_INTR_UADD_SAT: {
      uint64_t s = (ux + uy) & imask[ty];
      r[i].u = s < ux ? imask[ty] : s;
      break;
    }
    case CB_INTR_USUB_SAT:
      r[i].u = ux > uy ? ux - uy : 0;
      break;
    default:
      return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                         "intrinsic #%u is not modelled", id);
    }
  }
  return CB_GO;
}
