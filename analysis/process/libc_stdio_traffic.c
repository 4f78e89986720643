/* libc_stdio_traffic.c: what glibc 2.36's printf, puts, putchar/putc and
 * fwrite on stdout read and write besides the text itself: printf's and
 * __vfprintf_internal's frames (the va_list, the spec parsing's locals, a
 * 0x620-byte frame), stdout's FILE and its lock in libc's data, the
 * vtable, the format's scan by strchrnul, each piece's _IO_file_xsputn
 * and its copy into stdout's buffer, _itoa_word's digits, __printf_fp's
 * work for a floating conversion (its padding by _IO_padn), and on the
 * first output, wherever it happens, stdout's set-up (_IO_file_doallocate:
 * fstat, isatty, the buffer's malloc). getc on stdin is
 * libc_stdin_traffic.c's. The
 * text's bytes go where libc_stdio.c put them; its own approximate
 * traffic for the format and the buffer is left out while the call runs
 * (cb_proc's lib_mute) and replaced by this. Rows measured with lackey
 * (tools/probe/libtrace.py, docs/process-model.md section 9). Not
 * modelled: the buffer's flush when it fills (write(2)'s path), other
 * streams, the v* and s*printf forms (their text's traffic only). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"
#include "libc_traffic.h"

#include "libc_stdio_tables.h"

/* libc.so.6 (Debian 12, glibc 2.36) */
#define L_STDOUT 0x1d4760ull     /* _IO_2_1_stdout_ */
#define L_GOTPLT 0x1d2fe8ull     /* libc's PLT slots: memmove, strlen, ... */
#define L_DIGITS 0x19b4e0ull     /* _itoa_lower_digits */
#define L_JUMP_TABLE 0x1901a0ull /* vfprintf's jump_table: a class a char */
#define L_STEP0 0x190120ull      /* step0_jumps: flags, the first char */
#define L_STEP1 0x1900a0ull      /* step1_jumps: after the width */
#define L_STEP2 0x190020ull      /* step2_jumps: after the precision */
#define L_STEP3A 0x18ffa0ull     /* step3a_jumps: after h */
#define L_STEP3B 0x18fea0ull     /* step3b_jumps: after l */
#define L_STEP4 0x18ff20ull      /* step4_jumps: after hh, ll, L, q, j, z, t */
#define L_PADDING 0x1a0140ull    /* _IO_padn's blanks and zeroes */
#define L_ZEROES 0x1a0140ull     /* _IO_padn's zeroes (16 bytes) */
#define L_BLANKS 0x1a0160ull     /* and blanks */
#define F_WRITE_PTR 0x28u
#define F_WRITE_END 0x30u

#define RD(a, n) cb_lt_acc(m, a, n, false)
#define WR(a, n) cb_lt_acc(m, a, n, true)

typedef struct pf {
  cb_lt *m;
  uint64_t C;    /* the caller's rsp */
  uint64_t buf;  /* stdout's buffer */
  uint64_t cap;  /* its size */
  uint64_t pos;  /* where the next byte goes (modulo cap) */
  bool setup;    /* stdout's set-up is still to come */
  uint64_t fmt;  /* the format's address (base F) */
  unsigned gp;   /* va_arg: general-purpose slots taken (fmt's included) */
  unsigned fp;   /* vector slots */
  unsigned over; /* overflow slots */
} pf;

static void rows(pf *s, const lt_acc *t, size_t n, uint64_t B, uint64_t F) {
  uint64_t base[LT_NBASES] = {0};
  base[LT_S] = B;
  base[LT_F] = F;
  cb_lt_table(s->m, t, n, base);
}

#define ROWS(s, t, B, F) rows(s, t, sizeof t / sizeof t[0], B, F)

/* strchrnul / strlen (AVX2): aligned 32-byte vectors over [a, end], the
 * libc PLT slot read first and the `ret` */
static void scan(pf *s, unsigned slot, uint64_t a, uint64_t end,
                 uint64_t ret_at) {
  cb_lt *m = s->m;
  RD(m->libc + L_GOTPLT + slot, 8);
  /* the first vector at a itself unless it would cross a page, then the
   * aligned ones up to the one with the char (docs/process-model.md 4,
   * strlen's rule) */
  uint64_t v = (a & 4095) <= 4096 - 32 ? a : a & ~31ull;
  RD(v, 32);
  for (uint64_t x = (v & ~31ull) + 32; x <= end; x += 32)
    RD(x, 32);
  RD(ret_at, 8);
}

/* _IO_file_xsputn(stdout, src, n) with its frame at B: stdout's write
 * pointers, __mempcpy into the buffer; on the first output, stdout's
 * set-up (_IO_new_file_overflow -> _IO_doallocbuf ->
 * _IO_file_doallocate, whose malloc's frame base is B - 0x140) */
static void xsputn(pf *s, uint64_t B, uint64_t src, uint64_t n) {
  cb_lt *m = s->m;
  cb_lt_pushes(m, B, 6);
  RD(m->libc + L_STDOUT, 4);
  RD(m->libc + L_STDOUT + F_WRITE_PTR, 8);
  RD(m->libc + L_STDOUT + F_WRITE_END, 8);
  if (s->setup) {
    s->setup = false;
    ROWS(s, t_stdout_setup, B, 0);
    cb_libc_heap_traffic(m->pr, CB_LIBC_MALLOC, B - 0x140, 0, s->buf, false);
    RD(B - 0x148, 8); /* malloc's `ret` */
  }
  WR(B - 0x48, 8);
  RD(m->libc + L_GOTPLT + 0x40, 8);
  while (n && s->buf) {
    uint64_t at = s->pos % s->cap, k = n < s->cap - at ? n : s->cap - at;
    cb_proc_memcpy_traffic(m->pr, s->buf + at, src, k);
    s->pos += k;
    src += k;
    n -= k;
  }
  RD(B - 0x48, 8);
  WR(m->libc + L_STDOUT + F_WRITE_PTR, 8);
  cb_lt_pops(m, B, 6, true);
}

/* putc's single byte into the buffer */
static void put_byte(pf *s) {
  if (s->buf)
    cb_lt_acc(s->m, s->buf + s->pos % s->cap, 1, true);
  s->pos++;
}

/* _IO_padn(stdout, c, n) from __printf_fp: n bytes of its 16-byte
 * blanks or zeroes, an _IO_file_xsputn (frame base C - 0x8b0) per piece,
 * stdout's set-up in the first if it is the first output */
static void padn(pf *s, uint64_t tab, size_t n) {
  cb_lt *m = s->m;
  ROWS(s, t_padn, s->C, 0);
  for (size_t k; n; n -= k) {
    k = n < 16 ? n : 16;
    ROWS(s, t_padn_put, s->C, 0);
    xsputn(s, s->C - 0x8b0, m->libc + tab, k);
  }
  ROWS(s, t_padn_exit, s->C, 0);
}

/* one char of __printf_fp's text (outchar: putc_unlocked); as the first
 * output, __overflow sets stdout up (its malloc's frame base C - 0x950) */
static void fp_char(pf *s) {
  if (s->setup) {
    s->setup = false;
    ROWS(s, t_fp_overflow, s->C, 0);
    cb_libc_heap_traffic(s->m->pr, CB_LIBC_MALLOC, s->C - 0x950, 0, s->buf,
                         false);
    cb_lt_acc(s->m, s->C - 0x958, 8, false); /* malloc's `ret` */
    ROWS(s, t_fp_overflow_end, s->C, 0);
  }
  put_byte(s);
}

/* va_arg of the SysV ABI (section 3.5.7) on printf's va_list at C - 0xe0
 * (gp_offset, fp_offset, overflow_arg_area, reg_save_area at C - 0xc0):
 * the offset read and written back, the slot read */
static void next_arg(pf *s, bool is_fp, unsigned size) {
  cb_lt *m = s->m;
  uint64_t C = s->C;
  RD(C - (is_fp ? 0xdc : 0xe0), 4);
  if (is_fp ? s->fp < 8 : s->gp < 6) {
    RD(C - 0xd0, 8);
    WR(C - (is_fp ? 0xdc : 0xe0), 4);
    RD(is_fp ? C - 0x90 + 16 * (uint64_t)s->fp++
             : C - 0xc0 + 8 * (uint64_t)s->gp++,
       8);
  } else {
    RD(C - 0xd8, 8);
    WR(C - 0xd8, 8);
    RD(C + 8 * (uint64_t)s->over++, size);
  }
}

/* vfprintf-internal.c's jump_table: the class of each char from ' ' to
 * 'z' (0: not part of a spec) */
static uint8_t spec_class(char c) {
  static const char *const chars = " +-#0'*.123456789hlLqjztZAaCcdEeFfGgi"
                                   "mnopSsuXxBb%";
  static const uint8_t cls[] = {
      1,  2,  3,  4,  5,  6,  7,  9,  8,  8,  8,  8,  8,  8,  8,  8,  8,
      10, 11, 12, 12, 28, 13, 27, 13, 26, 26, 25, 20, 15, 19, 19, 19, 19,
      19, 19, 15, 24, 23, 17, 22, 21, 21, 16, 18, 18, 30, 30, 14};
  const char *k = c ? strchr(chars, c) : NULL;
  return k ? cls[k - chars] : 0;
}

/* The spec's dispatches through jump_table and the step tables, from the
 * char after '%' to the conversion letter: a class byte and a 4-byte
 * entry each, in the table of the state the parser is in (flags: step0;
 * after the width's digits step1, the precision's step2, h step3a, l
 * step3b, a second h or l, L, q, j, z or t step4). first: only the first
 * dispatch (part of t_pf_conv_head*'s sequence), else the others. */
static void spec_jumps(pf *s, const char *sp, size_t n, bool first) {
  cb_lt *m = s->m;
  uint64_t step = L_STEP0;
  for (size_t i = 0; i < n;) {
    char c = sp[i];
    if (first == (i == 0)) {
      RD(m->libc + L_JUMP_TABLE + (uint64_t)(unsigned char)(c - ' '), 1);
      RD(m->libc + step + 4 * (uint64_t)spec_class(c), 4);
    }
    if (first)
      return;
    i++;
    if (c >= '1' && c <= '9') {
      while (i < n && sp[i] >= '0' && sp[i] <= '9')
        i++;
      step = L_STEP1;
    } else if (c == '.') {
      while (i < n && ((sp[i] >= '0' && sp[i] <= '9') || sp[i] == '*'))
        i++;
      step = L_STEP2;
    } else if (c == 'h') {
      step = step == L_STEP3A ? L_STEP4 : L_STEP3A;
    } else if (c == 'l') {
      step = step == L_STEP3B ? L_STEP4 : L_STEP3B;
    } else if (strchr("Lqjzt", c)) {
      step = L_STEP4;
    }
  }
}

static bool is_fp_type(uint8_t t) {
  return t == CB_TY_F32 || t == CB_TY_F64;
}

/* The spec from '%' to its letter with each '*' replaced by the argument
 * it takes (C11 7.21.6.1: a negative width is the '-' flag and its
 * magnitude, a negative precision none), into out (n bytes); its length,
 * or 0 when it does not fit. */
static size_t expand_stars(const char *spec, size_t len, const int *star,
                           unsigned nstar, char *out, size_t n) {
  size_t k = 0;
  unsigned used = 0;
  for (size_t i = 0; i < len; i++) {
    if (spec[i] != '*' || used >= nstar) {
      if (k + 1 >= n)
        return 0;
      out[k++] = spec[i];
      continue;
    }
    int v = star[used++];
    bool prec = i > 0 && spec[i - 1] == '.';
    if (prec && v < 0) {
      k--; /* the '.' goes: no precision */
      continue;
    }
    int w = snprintf(out + k, n - k, "%s%lld", !prec && v < 0 ? "-" : "",
                     v < 0 ? -(long long)v : (long long)v);
    if (w < 0 || (size_t)w >= n - k)
      return 0;
    k += (size_t)w;
  }
  out[k] = 0;
  return k;
}

/* The output length of one conversion spec (from '%' to its letter) of
 * value v, by the host's glibc as libc_stdio.c formats it; -1: %n */
static int conv_len(const char *spec, size_t len, char conv, cb_value v,
                    uint8_t t, const char *str, char tmp[512]) {
  char sp[64];
  if (len >= sizeof sp)
    return 0;
  memcpy(sp, spec, len);
  sp[len] = 0;
  if (strchr(sp, '*'))
    return 1; /* a width from the arguments not written in (expand_stars) */
  bool lng =
      strchr(sp, 'l') || strchr(sp, 'j') || strchr(sp, 'z') || strchr(sp, 't');
  char *L = strchr(sp, 'L');
  if (L)
    memmove(L, L + 1, strlen(L));
  switch (conv) {
  case 'd':
  case 'i':
    return lng ? snprintf(tmp, 512, sp, (long long)v.s)
               : snprintf(tmp, 512, sp, (int)(uint32_t)v.u);
  case 'u':
  case 'o':
  case 'x':
  case 'X':
  case 'c':
    return lng && conv != 'c' ? snprintf(tmp, 512, sp, (unsigned long long)v.u)
                              : snprintf(tmp, 512, sp, (unsigned)v.u);
  case 'p':
    return snprintf(tmp, 512, sp, (void *)(uintptr_t)v.u);
  case 's':
    return str ? snprintf(tmp, 512, sp, str) : 6;
  case 'n':
    return -1;
  default:
    return snprintf(tmp, 512, sp, t == CB_TY_F32 ? (double)v.f : v.d);
  }
}

static void do_printf(pf *s, const cb_value *a, const uint8_t *ty, uint32_t n,
                      uint32_t fi) {
  cb_lt *m = s->m;
  cb_proc *pr = m->pr;
  uint64_t C = s->C, B = C - 0x620; /* _IO_file_xsputn's frame base */
  size_t flen;
  char *f = cb_proc_read_str(pr, a[fi].u, MAX_STR, &flen);
  if (!f)
    return;
  s->fmt = a[fi].u;
  s->gp = fi + 1;
  bool fp_args = false;
  for (uint32_t i = fi + 1; i < n; i++)
    fp_args |= is_fp_type(ty[i]);
  /* printf's prologue saves the argument registers, the vector ones
   * when %al says some are used */
  rows(s, t_pf_entry, 5, C, 0);
  if (fp_args)
    ROWS(s, t_pf_xmm, C, 0);
  rows(s, t_pf_entry + 5, sizeof t_pf_entry / sizeof t_pf_entry[0] - 5, C, 0);
  const char *pc = strchr(f, '%');
  size_t p = pc ? (size_t)(pc - f) : flen;
  scan(s, 0xb8, s->fmt, s->fmt + p, C - 0x628);
  ROWS(s, t_pf_lock, C, 0);
  if (p) {
    ROWS(s, t_pf_lit, C, 0);
    xsputn(s, B, s->fmt, p);
  }
  uint32_t ai = fi + 1, nconv = 0;
  while (p < flen) {
    /* a conversion: flags, width, precision, length, the letter */
    size_t q = p + 1;
    while (q < flen && strchr("-+ #0'123456789.*hlLqjzt", f[q]))
      q++;
    char conv = q < flen ? f[q] : 0;
    if (q < flen)
      q++;
    /* the spec parsed: its first dispatch inside the measured sequence,
     * the others after */
    if (nconv++ == 0) {
      ROWS(s, t_pf_conv_head, C, s->fmt + p);
    } else {
      /* __printf_function_table and the others are read for the first
       * spec only (rows 0, 2-7 of the head) */
      rows(s, t_pf_conv_head + 1, 1, C, s->fmt + p);
      rows(s, t_pf_conv_head + 8,
           sizeof t_pf_conv_head / sizeof t_pf_conv_head[0] - 8, C, s->fmt + p);
    }
    spec_jumps(s, f + p + 1, q - p - 1, true);
    ROWS(s, t_pf_conv_head2, C, 0);
    ROWS(s, t_pf_conv_head3, C, 0);
    spec_jumps(s, f + p + 1, q - p - 1, false);
    cb_value v = {0};
    uint8_t t = CB_TY_I64;
    char *str = NULL;
    size_t slen = 0;
    /* '*': a width or precision argument each, an int, before the value */
    int star[2] = {0, 0};
    unsigned nstar = 0;
    for (size_t k = p + 1; k + 1 < q; k++)
      if (f[k] == '*') {
        if (nstar < 2)
          star[nstar++] = ai < n ? (int)(uint32_t)a[ai].u : 0;
        ai += ai < n;
        next_arg(s, false, 4);
      }
    char xsp[64];
    size_t xlen =
        nstar ? expand_stars(f + p, q - p, star, nstar, xsp, sizeof xsp) : 0;
    const char *spec = xlen ? xsp : f + p;
    size_t slen_spec = xlen ? xlen : q - p;
    if (conv && conv != '%') {
      if (ai < n) {
        v = a[ai];
        t = ty[ai];
        ai++;
      }
      bool wide = memchr(f + p, 'l', q - p) || memchr(f + p, 'j', q - p) ||
                  memchr(f + p, 'z', q - p) || memchr(f + p, 't', q - p) ||
                  conv == 's' || conv == 'p';
      bool isfp = strchr("fFeEgGaA", conv) != NULL;
      next_arg(s, isfp, isfp || wide ? 8 : 4);
      if (conv == 's' && v.u)
        str = cb_proc_read_str(pr, v.u, MAX_STR, &slen);
    }
    char text[512] = "";
    int len =
        conv == '%' ? 1 : conv_len(spec, slen_spec, conv, v, t, str, text);
    /* the field width: _IO_padn pads the text up to it */
    size_t w = 0, k = 1;
    while (k < slen_spec && strchr("-+ #0'", spec[k]))
      k++;
    size_t w0 = k;
    while (k < slen_spec && spec[k] >= '0' && spec[k] <= '9')
      w = 10 * w + (size_t)(spec[k++] - '0');
    if (w && len > 0 && conv != '%') {
      char sp[64];
      size_t a0 = w0, rest = slen_spec - k;
      if (a0 + rest < sizeof sp) {
        memcpy(sp, spec, a0);
        memcpy(sp + a0, spec + k, rest);
        int l0 = conv_len(sp, a0 + rest, conv, v, t, str, text);
        len = l0 >= 0 ? l0 : len;
      }
    }
    if (conv && strchr("fFeEgGaA", conv)) {
      /* __printf_fp: from 8 up (a binary exponent above 2) the integer
       * part is scaled by _fpioconst_pow10's powers of ten; its digits
       * are written into the buffer one by one */
      double d = t == CB_TY_F32 ? (double)v.f : v.d;
      if (d >= 8 || d <= -8)
        ROWS(s, t_pf_fp_big, C, 0);
      else
        ROWS(s, t_pf_fp, C, 0);
      /* the field: a right-justified one's blanks by _IO_padn first; with
       * the 0 flag the sign, then the zeroes; the chars one by one
       * (outchar), a left-justified field's blanks last */
      bool left = memchr(spec + 1, '-', w0 - 1) != NULL;
      bool zero = !left && memchr(spec + 1, '0', w0 - 1) != NULL;
      size_t pad = w > (size_t)len && len > 0 ? w - (size_t)len : 0;
      size_t sign = zero && len > 0 && strchr("+- ", text[0]) ? 1 : 0;
      if (pad && !left && !zero)
        padn(s, L_BLANKS, pad);
      for (size_t i = 0; i < sign; i++)
        fp_char(s);
      if (pad && zero)
        padn(s, L_ZEROES, pad);
      for (size_t i = sign; i < (size_t)(len > 0 ? len : 0); i++)
        fp_char(s);
      if (pad && left)
        padn(s, L_BLANKS, pad);
    } else if (len > 0) {
      uint64_t src;
      if (conv == 's' && v.u) {
        src = v.u;
      } else {
        /* _itoa_word: a digit table read and a byte stored per digit,
         * from the work buffer's end (C - 0x128) down */
        ROWS(s, t_pf_conv_int, C, 0);
        for (int i = 0; i < len; i++) {
          /* the digits' values, last first */
          char c = i < (int)sizeof text - 1 ? text[len - 1 - i] : '0';
          unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                       : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                       : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                              : 0;
          RD(m->libc + L_DIGITS + d, 1);
          WR(C - 0x129 - (uint64_t)i, 1);
        }
        RD(C - 0x628, 8);
        src = C - 0x128 - (uint64_t)len;
      }
      ROWS(s, t_pf_conv_tail, C, 0);
      /* a field wider than the text: _IO_padn's blanks (or zeroes) */
      if (w > (size_t)len) {
        RD(m->libc + L_PADDING, 16);
        xsputn(s, B, m->libc + L_PADDING, w - (size_t)len);
      }
      xsputn(s, B, src, (uint64_t)len);
    }
    free(str);
    /* the next literal run */
    p = q;
    const char *nx = strchr(f + p, '%');
    size_t r = nx ? (size_t)(nx - f) : flen;
    ROWS(s, t_pf_next, C, 0);
    scan(s, 0xb8, s->fmt + p, s->fmt + r, C - 0x628);
    if (r > p) {
      ROWS(s, t_pf_next_lit, C, 0);
      xsputn(s, B, s->fmt + p, r - p);
    }
    p = r;
  }
  RD(s->fmt + flen, 1);
  ROWS(s, t_pf_exit, C, 0);
  free(f);
}

static void do_puts(pf *s, uint64_t str) {
  cb_lt *m = s->m;
  size_t len;
  char *t = cb_proc_read_str(m->pr, str, MAX_STR, &len);
  if (!t)
    return;
  free(t);
  /* its strlen's vectors are libc_stdio.c's */
  ROWS(s, t_puts_entry, s->C, 0);
  RD(m->libc + L_GOTPLT + 0x98, 8);
  RD(s->C - 0x48, 8);
  ROWS(s, t_puts_lock, s->C, 0);
  xsputn(s, s->C - 0x40, str, len);
  ROWS(s, t_puts_nl, s->C, 0);
  put_byte(s);
  ROWS(s, t_puts_exit, s->C, 0);
}

static void do_putc(pf *s) {
  ROWS(s, t_putc, s->C, 0);
  if (s->setup) {
    /* __overflow sets stdout up: as _IO_file_xsputn's would (frame
     * base approximated by putc's) */
    s->setup = false;
    ROWS(s, t_stdout_setup, s->C - 0x20, 0);
    cb_libc_heap_traffic(s->m->pr, CB_LIBC_MALLOC, s->C - 0x160, 0, s->buf,
                         false);
  }
  put_byte(s);
  ROWS(s, t_putc_exit, s->C, 0);
}

/* fwrite(buf, size, count, stdout): its frame and the lock around one
 * _IO_file_xsputn of size * count bytes (frame base C - 0x50); a zero
 * request returns before them */
static void do_fwrite(pf *s, uint64_t buf, uint64_t bytes) {
  if (!bytes)
    return;
  ROWS(s, t_fwrite, s->C, 0);
  xsputn(s, s->C - 0x50, buf, bytes);
  ROWS(s, t_fwrite_exit, s->C, 0);
}

bool cb_libc_stdio_traffic_begin(cb_proc *pr, uint32_t fn, const cb_value *a,
                                 cb_stdio_mark *mk) {
  bool to_stdout;
  /* getc and fwrite themselves: their unlocked forms and __uflow have
   * other frames (not measured) */
  if (fn == CB_LIBC_GETC)
    return pr->lib_called == CB_LIBC_GETC && a[0].u == pr->file_stdin &&
           cb_libc_stdin_traffic_begin(pr, mk);
  switch ((cb_libfn)fn) {
  case CB_LIBC_PRINTF:
  case CB_LIBC_PUTS:
  case CB_LIBC_PUTCHAR:
    to_stdout = true;
    break;
  case CB_LIBC_FPRINTF:
    to_stdout = a[0].u == pr->file_stdout;
    break;
  case CB_LIBC_PUTC:
  case CB_LIBC_FPUTC:
    to_stdout = a[1].u == pr->file_stdout;
    break;
  case CB_LIBC_FWRITE:
    to_stdout = a[3].u == pr->file_stdout && pr->lib_called == CB_LIBC_FWRITE;
    break;
  default:
    to_stdout = false;
  }
  if (!to_stdout || pr->opt->stdout_is_tty)
    return false;
  mk->first = !pr->stdout_buf;
  mk->pos = pr->stdout_pos;
  mk->C = cb_libc_caller_sp(pr);
  /* libc_stdio.c's reads of the format and writes into the buffer are
   * replaced by the traffic below */
  pr->lib_mute_stdout = true;
  if (fn == CB_LIBC_PRINTF || fn == CB_LIBC_FPRINTF) {
    uint64_t fmt = a[fn == CB_LIBC_PRINTF ? 0 : 1].u;
    size_t len;
    char *f = cb_proc_read_str(pr, fmt, MAX_STR, &len);
    if (f) {
      pr->lib_mute_lo = fmt;
      pr->lib_mute_hi = fmt + len + 1;
      free(f);
    }
  }
  return true;
}

void cb_libc_stdio_traffic_end(cb_proc *pr, uint32_t fn, const cb_value *a,
                               const uint8_t *ty, uint32_t n,
                               const cb_stdio_mark *mk, cb_stop st) {
  if (fn == CB_LIBC_GETC) {
    cb_libc_stdin_traffic_end(pr, mk, st);
    return;
  }
  pr->lib_mute_stdout = false;
  pr->lib_mute_lo = pr->lib_mute_hi = 0;
  cb_lt m;
  if (st != CB_GO || !mk->C || !cb_lt_init(&m, pr))
    return;
  pf s = {&m, mk->C, pr->stdout_buf, 4096, mk->pos, mk->first, 0, 0, 0, 0};
  switch ((cb_libfn)fn) {
  case CB_LIBC_PRINTF:
    do_printf(&s, a, ty, n, 0);
    break;
  case CB_LIBC_FPRINTF:
    do_printf(&s, a, ty, n, 1);
    break;
  case CB_LIBC_PUTS:
    do_puts(&s, a[0].u);
    break;
  case CB_LIBC_FWRITE:
    do_fwrite(&s, a[0].u, a[1].u * a[2].u);
    break;
  default:
    do_putc(&s);
    break;
  }
}
