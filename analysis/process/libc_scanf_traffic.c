/* libc_scanf_traffic.c: what glibc 2.36's sscanf and fscanf read and write
 * besides the input and the stored values: sscanf's string FILE on its
 * stack (_IO_no_init, _IO_str_init_static_internal, __rawmemchr for the
 * string's end), fscanf's stream lock, and __vfscanf_internal
 * (stdio-common/vfscanf-internal.c) step by step: its 0x718-byte frame,
 * the format's chars read twice per step, the two jump tables of its
 * switches, the white-space skip (errno saved, inchar and ISSPACE per
 * char, the char given back by _IO_sputbackc), each conversion's loop
 * (inchar, ISSPACE for %s, the work buffer `charbuf` for numbers),
 * va_arg on the caller's register save area, __strtol_internal's and
 * __strtoul_internal's digit loops, __strtof_internal's measured
 * sequence, and the end of the string (__uflow, _IO_str_underflow).
 * Rows measured with lackey (tools/probe/scanf_tables.sh; offsets below
 * vfscanf's frame base B, the caller's rsp minus 0x1f0 in sscanf and
 * 0xe0 in fscanf). libc_stdio.c's scan calls these steps as it converts;
 * the input bytes of a stream and the stores of numbers stay its own. */
#include <string.h>

#include "libc_internal.h"
#include "libc_traffic.h"

#include "libc_scanf_tables.h"

/* libc.so.6 (Debian 12, glibc 2.36) */
#define L_GL_CTYPE 0x1d45c8ull  /* _nl_global_locale's LC_CTYPE class ptr */
#define L_CLASS 0x17e3c0ull     /* _nl_C_LC_CTYPE_class + 0x100: [c] */
#define L_TOUPPER 0x17dac0ull   /* _nl_C_LC_CTYPE_toupper + 0x200: [c] */
#define L_JT_MOD 0x1900ccull    /* the modifier switch's table, 4 a char */
#define L_JT_CONV 0x190224ull   /* the conversion switch's (after a skip) */
#define L_JT_NOSKIP 0x1902fcull /* its copy for %c, %[, %n */
#define L_ERRNO_GOT 0x1d2de0ull /* errno's TLS offset */
#define L_LOCALE_GOT 0x1d2f48ull
#define L_LOCOBJ 0x1d2940ull    /* _nl_C_locobj */
#define L_UL_MAX 0x18bd60ull    /* __strtol_ul_max_tab */
#define L_UL_REM 0x18bd20ull    /* __strtol_ul_rem_tab */
#define L_STR_JUMPS 0x1d06a0ull /* _IO_str_jumps */
#define L_RAWMEMCHR_GOT 0x1d3008ull
#define L_TOLOWER 0x17d4c0ull    /* _nl_C_LC_CTYPE_tolower + 0x200: [c] */
#define L_DOT 0x1989e8ull        /* vfscanf's "." (the C locale's point) */
#define L_STDIN 0x1d3a80ull      /* _IO_2_1_stdin_ */
#define L_STDIN_LOCK 0x1d5a20ull /* _IO_stdfile_0_lock */
#define T_ERRNO 0x6c0u
#define T_LOCALE 0x6b0u

#define RD(a, n) cb_lt_acc(&t->m, a, n, false)
#define WR(a, n) cb_lt_acc(&t->m, a, n, true)
/* below vfscanf's base, in the FILE, in libc, in the TLS page */
#define SB(o) (t->B - (o))
#define PF(o) (t->P + (o))
#define LC(o) (t->m.libc + (o))
#define TP(o) (t->m.tcb + (o))

static void rows(cb_sct *t, const lt_acc *r, size_t n, uint64_t S) {
  uint64_t base[LT_NBASES] = {0};
  base[LT_S] = S;
  base[LT_P] = t->P;
  base[LT_V] = t->V;
  cb_lt_table(&t->m, r, n, base);
}
#define ROWS(t, r, S) rows(t, r, sizeof r / sizeof r[0], S)

/* `fc = *f` and its second read: every step reads its format char twice */
static void fmt2(cb_sct *t, size_t fi) {
  RD(t->F + fi, 1);
  RD(t->F + fi, 1);
}

/* ISSPACE (c): the locale's class table, the whole entry or its high byte */
static void isspace_(cb_sct *t, int c, unsigned n) {
  /* the table is indexed from -128: EOF (-1) has its entry */
  int64_t i = c < 0 ? -1 : (uint8_t)c;
  RD(LC(L_GL_CTYPE), 8);
  RD(LC(L_CLASS) + (uint64_t)(2 * i) + (n == 1), n);
}

/* TOLOWER (c), TOUPPER (c): 4-byte entries from -128; vfscanf's EOF
 * reaches them as the unsigned char 255 */
static void case_tab(cb_sct *t, uint64_t tab, int c) {
  int64_t i = (uint8_t)c;
  RD(LC(L_GL_CTYPE + 8), 8);
  RD(LC(tab) + (uint64_t)(4 * i), 4);
}

/* inchar (): _IO_getc_unlocked on the FILE's read pointers, the byte */
static void inchar(cb_sct *t, size_t pos) {
  RD(PF(0x8), 8);
  RD(PF(0x10), 8);
  WR(PF(0x8), 8);
  if (t->bytes)
    RD(t->src + pos, 1);
}

/* inchar () at the end: __uflow -> _IO_default_uflow -> the FILE's
 * underflow: a string's (_IO_str_underflow) says EOF; a stream's refill
 * is read(2)'s path, whose rows are not modelled */
static void inchar_end(cb_sct *t) {
  RD(PF(0x8), 8);
  RD(PF(0x10), 8);
  WR(SB(0x650), 8);
  WR(SB(0x708), 8);
  if (!t->string)
    return;
  WR(SB(0x710), 8), WR(SB(0x718), 8);
  RD(PF(0xc0), 4), RD(PF(0), 4), RD(PF(0x8), 8), RD(PF(0x10), 8);
  RD(PF(0), 4), RD(PF(0x60), 8), RD(PF(0x50), 8), RD(PF(0xd8), 8);
  RD(LC(L_STR_JUMPS + 0x28), 8);
  RD(SB(0x718), 8), RD(SB(0x710), 8);
  WR(SB(0x710), 8), WR(SB(0x718), 8);
  RD(PF(0xd8), 8), RD(LC(L_STR_JUMPS + 0x20), 8), WR(SB(0x728), 8);
  RD(PF(0x28), 8), RD(PF(0x10), 8), RD(PF(0), 4), RD(PF(0x8), 8);
  RD(SB(0x728), 8), RD(SB(0x718), 8), RD(SB(0x710), 8), RD(SB(0x708), 8);
}

/* _IO_sputbackc (c): the FILE's pointers, read_ptr[-1] compared */
static void ungetc_(cb_sct *t, size_t pos) {
  WR(SB(0x710), 8), WR(SB(0x718), 8);
  RD(PF(0x8), 8), RD(PF(0x18), 8), RD(PF(0), 4);
  if (t->bytes)
    RD(t->src + pos, 1);
  WR(PF(0x8), 8), WR(PF(0), 4);
  RD(SB(0x718), 8), RD(SB(0x710), 8), RD(SB(0x708), 8);
}

/* va_arg (arg, void *): gp_offset, the register save area (or the
 * overflow area past the sixth register) */
static void va_ptr(cb_sct *t) {
  RD(SB(0x698), 4);
  RD(SB(0x5b8), 4);
  if (t->gp < 48) {
    RD(SB(0x5a8), 8);
    WR(SB(0x5b8), 4);
    RD(t->R + t->gp, 8);
    t->gp += 8;
  } else {
    RD(SB(0x5b0), 8);
    WR(SB(0x5b0), 8);
    RD(t->over, 8);
    t->over += 8;
  }
}

bool cb_sct_begin(cb_proc *pr, cb_sct *t, int kind, uint64_t obj,
                  uint64_t fmt) {
  bool string = kind == CB_SCT_STRING;
  memset(t, 0, sizeof *t);
  uint64_t C = cb_libc_caller_sp(pr);
  if (!C || !cb_lt_init(&t->m, pr))
    return false;
  t->on = true;
  t->string = string;
  t->bytes = string;
  t->C = C;
  t->F = fmt;
  t->first = true;
  t->gp = 16; /* two fixed arguments: the string or stream, the format */
  t->over = C;
  if (string) {
    /* __isoc99_sscanf (stdio-common/isoc99_sscanf.c): its frame, the
     * _IO_strfile on it (FILE at C - 0x1d0), _IO_no_init, then
     * _IO_str_init_static_internal up to __rawmemchr's PLT slot */
    t->B = C - 0x1f0;
    t->P = C - 0x1d0;
    t->V = C - 0x1e8;
    t->R = C - 0xd0;
    t->src = obj;
    ROWS(t, t_ss_entry, C);
    RD(LC(L_RAWMEMCHR_GOT), 8);
  } else {
    /* __isoc99_fscanf (__isoc99_scanf: stdin, one fixed argument): its
     * frame, the va_list, the stream's lock */
    t->B = C - 0xe0;
    t->P = obj;
    t->V = C - 0xe0;
    t->R = C - 0xc0;
    t->K = obj == pr->file_stdin ? LC(L_STDIN_LOCK) : obj + 0xe0;
    if (obj == pr->file_stdin)
      t->P = LC(L_STDIN);
    if (kind == CB_SCT_STDIN) {
      t->gp = 8;
      ROWS(t, t_sc_entry, C);
    } else {
      ROWS(t, t_fs_entry, C);
    }
    ROWS(t, t_fs_pro, t->B);
    /* _IO_flockfile: the owner, the lock word, its count */
    RD(TP(0x750), 8), RD(PF(0x88), 8), RD(t->K + 8, 8), RD(t->K, 4);
    RD(SB(0x638), 8), RD(SB(0x600), 8);
    RD(PF(0x88), 8), WR(t->K + 8, 8), RD(t->K + 4, 4);
    WR(SB(0x5c8), 8);
  }
  return true;
}

void cb_sct_string_set(cb_sct *t) {
  /* after __rawmemchr: _IO_setb, the read pointers, vfscanf's prologue
   * and its cleanup handler */
  if (!t->on)
    return;
  ROWS(t, t_ss_entry2, t->C);
  ROWS(t, t_ss_pro, t->B);
}

/* the loop's head for the format char at fi: its first pass sets the
 * loop's locals */
static void head(cb_sct *t, size_t fi) {
  if (t->first) {
    RD(t->F + fi, 1);
    WR(SB(0x610), 4), RD(SB(0x638), 8), WR(SB(0x630), 4), WR(SB(0x62c), 4);
    WR(SB(0x6b8), 8), WR(SB(0x668), 8), WR(SB(0x6a8), 8), WR(SB(0x6d0), 8);
    WR(SB(0x6c8), 8);
    RD(t->F + fi, 1);
    t->first = false;
  } else {
    fmt2(t, fi);
  }
}

/* the byte at pos, or EOF past the end */
static int at(const cb_sct *t, size_t pos) {
  return pos < t->dlen ? t->d[pos] : -1;
}

/* ISSPACE in the C locale */
static bool cb_isspace_c(int c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

void cb_sct_fmt_space(cb_sct *t, size_t fi, size_t pos) {
  if (!t->on)
    return;
  /* if (ISSPACE (fc)) { skip_space = 1; continue; }: the input's white
   * space is read at the next directive */
  head(t, fi);
  WR(SB(0x600), 8), RD(SB(0x628), 8);
  isspace_(t, ' ', 1);
  WR(SB(0x610), 4);
  if (!t->pend) {
    t->pend = true;
    t->pend_pos = pos;
  }
}

void cb_sct_fmt_lit(cb_sct *t, size_t fi, size_t pos, bool match) {
  if (!t->on)
    return;
  /* c = inchar (); with skip_space, inchar while ISSPACE (c); a char
   * that differs is given back */
  head(t, fi);
  WR(SB(0x600), 8), RD(SB(0x628), 8);
  size_t p0 = t->pend ? t->pend_pos : pos;
  for (size_t k = p0; k <= pos; k++) {
    if (at(t, k) < 0) {
      inchar_end(t);
      break;
    }
    inchar(t, k);
    if (t->pend)
      isspace_(t, at(t, k), 2);
  }
  t->pend = false;
  if (at(t, pos) >= 0 && !match)
    ungetc_(t, pos);
}

void cb_sct_spec(cb_sct *t, size_t fi, size_t fc_at, char conv) {
  if (!t->on)
    return;
  /* '%': char_buffer_rewind, the flags, the width's digits, then
   * `switch (*f++)` over the modifiers */
  head(t, fi);
  WR(SB(0x600), 8), RD(SB(0x470), 8), RD(SB(0x468), 8), WR(SB(0x480), 16);
  bool mod = false;
  for (size_t k = fi + 1; k < fc_at; k++) {
    char c = 0;
    if (!cb_proc_read(t->m.pr, t->F + k, &c, 1))
      return;
    if (c >= '0' && c <= '9') { /* width = width * 10 + digit */
      RD(t->F + k, 1);
      RD(SB(0x698), 4), WR(SB(0x698), 4);
      continue;
    }
    if (c == '*') { /* flags |= SUPPRESS */
      RD(t->F + k, 1);
      RD(SB(0x63c), 4), WR(SB(0x63c), 4);
      continue;
    }
    /* a modifier: its case of the switch, the next char read */
    RD(t->F + k, 1);
    WR(SB(0x698), 4), RD(SB(0x688), 8), WR(SB(0x63c), 4), RD(SB(0x600), 8);
    RD(t->F + k, 1);
    WR(SB(0x600), 8);
    RD(LC(L_JT_MOD) + 4 * (uint64_t)(uint8_t)c, 4);
    RD(t->F + k + 1, 1);
    RD(SB(0x63c), 4), WR(SB(0x63c), 4);
    RD(SB(0x610), 4), WR(SB(0x600), 8);
    mod = true;
  }
  if (!mod) {
    /* the switch's default: --f, fc = *f++ */
    RD(t->F + fc_at, 1);
    WR(SB(0x698), 4), RD(SB(0x688), 8), WR(SB(0x63c), 4), RD(SB(0x600), 8);
    RD(t->F + fc_at, 1);
    WR(SB(0x600), 8);
    RD(LC(L_JT_MOD) + 4 * (uint64_t)(uint8_t)conv, 4);
    WR(SB(0x600), 8), RD(SB(0x610), 4), WR(SB(0x600), 8);
    /* skip_space || (fc != '[' && fc != 'c' ...): a bit test of fc's
     * bit in a mask from 'C' (the compiler's), spilled by valgrind */
    if (!t->pend && conv >= 'C' && conv <= 'n') {
      WR(SB(0x820), 8);
      RD(SB(0x820) + (uint64_t)((conv - 'C') / 8), 1);
    }
  }
  t->conv = conv;
}

void cb_sct_skip(cb_sct *t, size_t from, size_t pos) {
  if (!t->on)
    return;
  /* the white space before a conversion (all but %c, %[ and %n unless a
   * space came before): errno saved and cleared, inchar and ISSPACE until
   * a char that is not, errno back, ungetc (c) */
  size_t p0 = t->pend ? t->pend_pos : from;
  t->pend = false;
  RD(LC(L_ERRNO_GOT), 8), RD(TP(T_ERRNO), 4), WR(TP(T_ERRNO), 4);
  WR(SB(0x610), 4), RD(SB(0x628), 8);
  for (size_t k = p0; k < pos; k++) {
    inchar(t, k);
    isspace_(t, at(t, k), 2);
  }
  if (at(t, pos) < 0) {
    inchar_end(t);
    isspace_(t, -1, 2);
    RD(SB(0x610), 4), WR(TP(T_ERRNO), 4);
    return;
  }
  inchar(t, pos);
  isspace_(t, at(t, pos), 2);
  RD(SB(0x610), 4), WR(TP(T_ERRNO), 4), WR(SB(0x610), 1);
  WR(SB(0x678), 8), WR(SB(0x670), 8), WR(SB(0x660), 4), WR(SB(0x650), 8);
  WR(SB(0x620), 8), WR(SB(0x708), 8);
  ungetc_(t, pos);
  t->skipped = true;
}

/* the conversion switch after the skip (or its copy without one) */
static void conv_switch(cb_sct *t) {
  if (t->skipped) {
    RD(SB(0x610), 1), RD(SB(0x620), 8), RD(SB(0x660), 4);
    RD(LC(L_JT_CONV) + 4 * (uint64_t)(uint8_t)t->conv, 4);
    RD(SB(0x670), 8), RD(SB(0x678), 8);
  } else {
    RD(LC(L_JT_NOSKIP) + 4 * (uint64_t)(uint8_t)t->conv, 4);
  }
  t->skipped = false;
}

/* ++done and the loop's bottom */
static void done(cb_sct *t) {
  RD(SB(0x62c), 4), WR(SB(0x610), 4), WR(SB(0x6d0), 8), WR(SB(0x668), 8);
}

void cb_sct_chars(cb_sct *t, size_t pos, size_t n, bool suppress, uint64_t dst,
                  bool width_full) {
  if (!t->on)
    return;
  conv_switch(t);
  /* %s (and %[): STRING_ARG, then per char inchar, the test, *str++ = c;
   * the char that ends it given back; %c: width chars, no test */
  bool c_conv = t->conv == 'c';
  RD(SB(0x63c), 4), WR(SB(0x610), 4), WR(SB(0x620), 4);
  if (!suppress)
    va_ptr(t);
  WR(SB(0x6d0), 8), RD(SB(0x6d0), 8);
  for (size_t k = 0; k < n; k++) {
    inchar(t, pos + k);
    if (c_conv) {
      RD(SB(0x620), 4), RD(SB(0x63c), 4), WR(SB(0x660), 8), WR(SB(0x678), 8);
      RD(SB(0x6b8), 8), WR(SB(0x620), 8), RD(SB(0x6d0), 8), WR(SB(0x650), 8);
      WR(SB(0x690), 8), WR(SB(0x610), 4), RD(SB(0x610), 4);
    } else if (k == 0) {
      RD(SB(0x628), 8), RD(SB(0x650), 8);
      isspace_(t, at(t, pos), 1);
      RD(SB(0x63c), 4), WR(SB(0x678), 8), WR(SB(0x650), 8), RD(SB(0x6d0), 8);
      WR(SB(0x660), 8), RD(SB(0x6b8), 8), WR(SB(0x670), 4), WR(SB(0x690), 8);
      RD(SB(0x620), 4), RD(SB(0x670), 4);
    } else {
      isspace_(t, at(t, pos + k), 1);
      RD(SB(0x620), 4), RD(SB(0x670), 4);
    }
    if (!suppress)
      WR(dst + k, 1);
  }
  if (c_conv) {
    RD(SB(0x63c), 4), WR(SB(0x6b8), 8), RD(SB(0x660), 8), RD(SB(0x620), 8);
    RD(SB(0x650), 8);
  } else if (!width_full && at(t, pos + n) >= 0) {
    inchar(t, pos + n);
    isspace_(t, at(t, pos + n), 1);
    WR(SB(0x6b8), 8), RD(SB(0x678), 8), WR(SB(0x6d0), 8), RD(SB(0x660), 8);
    RD(SB(0x650), 8), WR(SB(0x650), 8), WR(SB(0x708), 8);
    ungetc_(t, pos + n);
    RD(SB(0x650), 8), RD(SB(0x620), 4), RD(SB(0x6d0), 8);
  } else if (!width_full) {
    inchar_end(t);
    RD(SB(0x650), 8), RD(SB(0x620), 4), RD(SB(0x6d0), 8);
  }
  if (!c_conv && !suppress)
    WR(dst + n, 1); /* the NUL */
  if (!c_conv)
    RD(SB(0x63c), 4);
  done(t);
}

/* ____strtol_l_internal / ____strtoul_l_internal (stdlib/strtol_l.c) on
 * charbuf: the locale, the sign and white-space test of the first char,
 * per digit the next char (a letter through the class and toupper
 * tables), for unsigned the overflow tables */
static void strtol_(cb_sct *t, size_t pos, size_t n, int base, bool sign) {
  uint64_t cb = SB(0x460); /* charbuf's bytes */
  RD(LC(L_LOCALE_GOT), 8), RD(TP(T_LOCALE), 8);
  for (unsigned k = 0; k < 6; k++)
    WR(SB(0x710 + 8 * k), 8);
  RD(LC(0x1d4568), 8); /* _nl_global_locale's LC_NUMERIC */
  int c0 = n ? at(t, pos) : 0;
  if (sign) {
    WR(SB(0x758), 8), WR(SB(0x750), 8), RD(SB(0x758), 8);
    RD(LC(L_GL_CTYPE), 8);
    RD(cb, 1);
  } else {
    WR(SB(0x750), 8);
    RD(cb, 1);
    RD(LC(L_GL_CTYPE), 8);
  }
  RD(LC(L_CLASS) + 2 * (uint64_t)(uint8_t)c0 + 1, 1);
  WR(SB(0x744), 4);
  RD(cb, 1);
  if (!sign) {
    RD(LC(L_UL_MAX) + 8 * (uint64_t)(base - 2), 8);
    RD(LC(L_UL_REM) + (uint64_t)(base - 2), 1);
    WR(SB(0x746), 1);
  }
  RD(LC(L_LOCOBJ + 0x78), 8), RD(LC(L_LOCOBJ + 0x68), 8);
  if (base == 16 && n && c0 == '0') /* TOUPPER (s[1]) == 'X' */
    RD(LC(L_TOUPPER) + 4 * (uint64_t)(n > 1 ? at(t, pos + 1) : 0), 4);
  /* the sign, taken before the digits' loop */
  size_t k0 = n && (c0 == '-' || c0 == '+');
  for (size_t k = k0; k < n; k++) {
    uint8_t c = (uint8_t)at(t, pos + k);
    if (!(c >= '0' && c <= '9')) {
      RD(LC(L_CLASS) + 2 * (uint64_t)c + 1, 1);
      RD(LC(L_TOUPPER) + 4 * (uint64_t)c, 4);
    }
    RD(cb + 1 + k, 1);
  }
  RD(SB(0x750), 8), WR(SB(0x5f8), 8), RD(SB(0x744), 4);
  for (unsigned k = 6; k-- > 0;)
    RD(SB(0x710 + 8 * k), 8);
  RD(SB(0x708), 8);
}

/* %f, %e, %g, %a: per char inchar, TOLOWER (c), the decimal point's
 * test against the locale's, char_buffer_add; the char after given back;
 * then __strtof_internal (its measured sequence) */
static void float_chars(cb_sct *t, size_t pos, size_t n, bool width_full) {
  uint64_t cb = SB(0x460);
  RD(SB(0x650), 8);
  bool seen_dot = false;
  for (size_t k = 0; k < n; k++) {
    int c = at(t, pos + k);
    inchar(t, pos + k);
    if (k == 0) {
      RD(SB(0x480), 8), WR(SB(0x678), 1), WR(SB(0x610), 8), RD(SB(0x628), 8);
      RD(LC(L_GL_CTYPE + 8), 8), RD(LC(L_TOLOWER) + 4 * (uint64_t)c, 4);
      WR(SB(0x650), 1), WR(SB(0x620), 1), RD(SB(0x63c), 4), WR(SB(0x660), 8);
      WR(SB(0x670), 8), WR(SB(0x6a0), 1), WR(SB(0x6e0), 4);
      RD(SB(0x478), 8), WR(SB(0x480), 8), WR(cb, 1), WR(SB(0x620), 1);
      continue;
    }
    RD(SB(0x610), 8);
    if (c == '.' && !seen_dot) {
      RD(SB(0x480), 8), RD(SB(0x6a0), 1), RD(SB(0x6e0), 4), RD(SB(0x620), 1);
      RD(SB(0x628), 8), RD(SB(0x650), 1);
      RD(LC(L_GL_CTYPE + 8), 8), RD(LC(L_TOLOWER) + 4 * (uint64_t)c, 4);
      RD(SB(0x6d8), 8), RD(LC(L_DOT), 1), RD(SB(0x6d8), 8), WR(SB(0x690), 4);
      WR(SB(0x6b0), 1), RD(LC(L_DOT + 1), 1), RD(SB(0x690), 4);
      RD(SB(0x6d8), 8), RD(LC(L_DOT), 1), WR(SB(0x6b0), 8);
      RD(SB(0x480), 8), RD(SB(0x478), 8), WR(SB(0x480), 8), WR(cb + k, 1);
      RD(LC(L_DOT + 1), 1), RD(SB(0x6b0), 8);
      seen_dot = true;
      continue;
    }
    RD(SB(0x480), 8), RD(SB(0x478), 8), WR(SB(0x480), 8), WR(cb + k, 1);
    WR(SB(0x620), 1);
  }
  if (!width_full && at(t, pos + n) >= 0) {
    int c = at(t, pos + n);
    inchar(t, pos + n);
    RD(SB(0x610), 8), RD(SB(0x480), 8), RD(SB(0x6a0), 1), RD(SB(0x6e0), 4);
    RD(SB(0x620), 1), RD(SB(0x628), 8), RD(SB(0x650), 1);
    RD(LC(L_GL_CTYPE + 8), 8), RD(LC(L_TOLOWER) + 4 * (uint64_t)c, 4);
    RD(SB(0x6d8), 8), RD(LC(L_DOT), 1), RD(SB(0x688), 8), RD(SB(0x670), 8);
    RD(SB(0x660), 8), WR(SB(0x660), 4), RD(SB(0x610), 8), WR(SB(0x620), 8);
    WR(SB(0x708), 8);
    ungetc_(t, pos + n);
  } else if (!width_full) {
    inchar_end(t);
  }
  RD(SB(0x620), 8), RD(SB(0x660), 4), RD(SB(0x480), 8), RD(SB(0x678), 1);
  RD(SB(0x470), 8), RD(SB(0x63c), 4), RD(SB(0x470), 8), RD(SB(0x63c), 4);
  RD(SB(0x478), 8), RD(SB(0x610), 8), WR(SB(0x480), 8), WR(cb + n, 1);
  RD(SB(0x480), 8), RD(SB(0x63c), 4), RD(SB(0x470), 8), RD(SB(0x63c), 1);
  WR(SB(0x610), 8), WR(SB(0x708), 8);
  ROWS(t, t_strtof, t->B);
  RD(SB(0x610), 8), RD(SB(0x5f8), 8), RD(SB(0x470), 8);
}

void cb_sct_number(cb_sct *t, size_t pos, size_t n, bool suppress,
                   bool is_float, bool width_full) {
  if (!t->on)
    return;
  conv_switch(t);
  if (is_float) {
    float_chars(t, pos, n, width_full);
    if (!suppress)
      va_ptr(t);
    return;
  }
  bool sign = t->conv == 'd' || t->conv == 'i';
  if (sign)
    RD(SB(0x63c), 4);
  RD(SB(0x650), 8);
  /* number: per char inchar, char_buffer_add (charbuf's top pointer and
   * its end, the byte stored) */
  uint64_t cb = SB(0x460);
  for (size_t k = 0; k < n; k++) {
    inchar(t, pos + k);
    if (k == 0)
      RD(SB(0x63c), 4), WR(SB(0x610), 8), WR(SB(0x678), 8), WR(SB(0x620), 8);
    if (k == 1 && at(t, pos) == '0')
      case_tab(t, L_TOLOWER, at(t, pos + 1)); /* a 0x prefix? */
    RD(SB(0x480), 8), RD(SB(0x478), 8), WR(SB(0x480), 8), WR(cb + k, 1);
  }
  if (n == 1 && at(t, pos) == '0')
    case_tab(t, L_TOLOWER, at(t, pos + 1));
  /* the char after: given back (or the end), then the NUL added */
  if (!width_full && at(t, pos + n) >= 0) {
    inchar(t, pos + n);
    RD(SB(0x63c), 1), RD(SB(0x610), 8), RD(SB(0x620), 8), RD(SB(0x480), 8);
    RD(SB(0x470), 8), WR(SB(0x610), 8), WR(SB(0x708), 8);
    ungetc_(t, pos + n);
  } else if (!width_full) {
    inchar_end(t);
    RD(LC(L_ERRNO_GOT), 8), RD(SB(0x610), 8), RD(SB(0x620), 8);
    RD(TP(T_ERRNO), 4), WR(SB(0x630), 4);
  }
  RD(SB(0x480), 8), RD(SB(0x478), 8), RD(SB(0x610), 8), WR(SB(0x480), 8);
  WR(cb + n, 1);
  RD(SB(0x480), 8), RD(SB(0x63c), 4), WR(SB(0x610), 8), RD(SB(0x470), 8);
  WR(SB(0x620), 4), WR(SB(0x708), 8);
  char c = t->conv;
  int base = c == 'x' || c == 'X' || c == 'p' ? 16 : c == 'o' ? 8 : 10;
  strtol_(t, pos, n, base, sign);
  /* the value's store: va_arg, then (libc_stdio.c's) the store */
  RD(SB(0x610), 8), RD(SB(0x470), 8), RD(SB(0x5f8), 8), RD(SB(0x63c), 4);
  WR(SB(0x610), 4), RD(SB(0x63c), 4), RD(SB(0x620), 4);
  if (sign)
    RD(SB(0x63c), 1), RD(SB(0x63c), 4);
  if (!suppress)
    va_ptr(t);
}

void cb_sct_number_done(cb_sct *t) {
  if (!t->on)
    return;
  if (t->conv == 'f' || t->conv == 'e' || t->conv == 'g' || t->conv == 'a' ||
      t->conv == 'E' || t->conv == 'G' || t->conv == 'A')
    RD(SB(0x470), 8), RD(SB(0x62c), 4), WR(SB(0x610), 4);
  else
    RD(SB(0x62c), 4);
  RD(SB(0x600), 8);
}

void cb_sct_end(cb_sct *t, size_t fi) {
  if (!t->on)
    return;
  /* the format's NUL; a space last in the format reads the white space
   * then (inchar while ISSPACE, ungetc); UNLOCK_STREAM, the cleanup
   * handler, the epilogues */
  RD(t->F + fi, 1);
  if (t->pend) {
    size_t k = t->pend_pos;
    for (; at(t, k) >= 0; k++) {
      inchar(t, k);
      isspace_(t, at(t, k), 2);
      if (!cb_isspace_c(at(t, k)))
        break;
    }
    if (at(t, k) >= 0)
      ungetc_(t, k);
    else
      inchar_end(t);
  }
  RD(SB(0x610), 4), RD(SB(0x638), 8), RD(PF(0), 4), WR(SB(0x610), 4);
  if (!t->string) {
    RD(PF(0x88), 8), RD(t->K + 4, 4), WR(t->K + 4, 4), WR(t->K + 8, 8);
    RD(t->K, 4), RD(t->K, 4);
  }
  WR(SB(0x708), 8);
  RD(TP(0x750), 8), RD(SB(0x5d8), 8), WR(TP(0xa38), 8), RD(TP(0xa48), 4);
  RD(SB(0x5e0), 4), RD(SB(0x708), 8);
  RD(SB(0x470), 8), RD(SB(0x62c), 4), RD(SB(0x668), 8), RD(SB(0x48), 8);
  RD(TP(0x768), 8), RD(SB(0x62c), 4);
  for (unsigned k = 0x38; k >= 0x8; k -= 8)
    RD(SB(k), 8);
  if (t->string) {
    RD(t->C - 0xd8, 8), RD(TP(0x768), 8);
    RD(t->C - 0x20, 8), RD(t->C - 0x18, 8), RD(t->C - 0x10, 8);
  } else {
    RD(t->C - 0xc8, 8), RD(TP(0x768), 8);
  }
  t->on = false;
}
