/* libc_ctype.c: <ctype.h> in the C library model. glibc's macros make
 * isdigit(c) a load of (*__ctype_b_loc())[c] in the program's own code,
 * and toupper/tolower (extern inlines when optimizing) loads of
 * (*__ctype_toupper_loc())[c]: the program calls the *_loc function,
 * which returns the address of a thread-local pointer, then loads the
 * pointer and a table entry itself. So the model keeps, at their places
 * in the modelled address space, the three thread-local pointers (in
 * libc's static TLS block below the thread pointer) and the C locale's
 * tables in libc's .rodata, with the contents the host's glibc has for
 * the C locale (the same library: newlocale(LC_ALL_MASK, "C")).
 *
 * Offsets (Debian 12's glibc 2.36, as libc_rand.c's; libc6-dbg symbols
 * and a lackey trace): _nl_C_LC_CTYPE_class at libc + 0x17e2c0 (384
 * uint16, index -128 first), _nl_C_LC_CTYPE_toupper at + 0x17d8c0 and
 * _nl_C_LC_CTYPE_tolower at + 0x17d2c0 (384 int32 each); the
 * thread-local __libc_tsd_CTYPE_B/TOUPPER/TOLOWER at tp - 0x68, - 0x70,
 * - 0x78. Each *_loc function reads its TLS offset from libc's GOT and
 * %fs:0 (the thread pointer's self pointer): two loads. The ctype
 * functions called as functions (at -O0, or through a pointer) read the
 * same GOT slot, the thread-local pointer and the entry (their order in
 * glibc's code is not measured). */
#include <ctype.h>
#include <locale.h>
#include <string.h>

#include "libc_internal.h"

#define CLASS_TABLE 0x17e2c0ull
#define TOUPPER_TABLE 0x17d8c0ull
#define TOLOWER_TABLE 0x17d2c0ull
#define GOT_TLS_B 0x1d2dc8ull
#define GOT_TLS_TOUPPER 0x1d2fd0ull
#define GOT_TLS_TOLOWER 0x1d2db8ull
#define TLS_B 0x68ull /* below the thread pointer */
#define TLS_TOUPPER 0x70ull
#define TLS_TOLOWER 0x78ull

static void map_range(cb_proc *pr, uint64_t lo, uint64_t hi) {
  for (uint64_t p = lo & ~(uint64_t)(CB_PG_SIZE - 1); p < hi; p += CB_PG_SIZE)
    if (!cb_mem_mapped(&pr->mem, p))
      cb_mem_map(&pr->mem, p, p + CB_PG_SIZE);
}

/* The tables and the thread-local pointers, written once per run. */
static void ctype_setup(cb_proc *pr) {
  if (pr->ctype_ready)
    return;
  pr->ctype_ready = true;
  uint64_t L = pr->libc_base, tp = cb_libc_canary(pr) - 0x28;
  locale_t c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
  if (!c)
    return;
  map_range(pr, L + TOLOWER_TABLE, L + CLASS_TABLE + 384 * 2);
  map_range(pr, tp - TLS_TOLOWER, tp + 8);
  cb_mem_write(&pr->mem, L + CLASS_TABLE, c->__ctype_b - 128, 384 * 2, NULL);
  cb_mem_write(&pr->mem, L + TOUPPER_TABLE, c->__ctype_toupper - 128, 384 * 4,
               NULL);
  cb_mem_write(&pr->mem, L + TOLOWER_TABLE, c->__ctype_tolower - 128, 384 * 4,
               NULL);
  uint64_t pb = L + CLASS_TABLE + 128 * 2, pu = L + TOUPPER_TABLE + 128 * 4,
           pl = L + TOLOWER_TABLE + 128 * 4;
  cb_mem_write(&pr->mem, tp - TLS_B, &pb, 8, NULL);
  cb_mem_write(&pr->mem, tp - TLS_TOUPPER, &pu, 8, NULL);
  cb_mem_write(&pr->mem, tp - TLS_TOLOWER, &pl, 8, NULL);
  cb_mem_write(&pr->mem, tp, &tp, 8, NULL); /* the TCB's self pointer */
  freelocale(c);
}

static const char *ctype_name(uint32_t fn) {
  static const char *const names[CB_LIBC_COUNT] = {
#define CB_LIBFN_NAME(id, name) [CB_LIBC_##id] = name,
      CB_LIBC_FUNCTIONS(CB_LIBFN_NAME)
#undef CB_LIBFN_NAME
  };
  return fn < CB_LIBC_COUNT && names[fn] ? names[fn] : "?";
}

/* The class bit each is* function tests (glibc's <ctype.h> _IS*). */
static unsigned short class_bit(uint32_t fn) {
  switch ((cb_libfn)fn) {
  case CB_LIBC_ISALPHA:
    return _ISalpha;
  case CB_LIBC_ISDIGIT:
    return _ISdigit;
  case CB_LIBC_ISSPACE:
    return _ISspace;
  case CB_LIBC_ISUPPER:
    return _ISupper;
  case CB_LIBC_ISLOWER:
    return _ISlower;
  case CB_LIBC_ISALNUM:
    return _ISalnum;
  case CB_LIBC_ISPUNCT:
    return _ISpunct;
  case CB_LIBC_ISXDIGIT:
    return _ISxdigit;
  case CB_LIBC_ISPRINT:
    return _ISprint;
  case CB_LIBC_ISCNTRL:
    return _IScntrl;
  case CB_LIBC_ISGRAPH:
    return _ISgraph;
  case CB_LIBC_ISBLANK:
    return _ISblank;
  default:
    return 0;
  }
}

cb_stop cb_libc_ctype_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                           cb_value *ret) {
  if (!pr->libc_base)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "<ctype.h> without libc's place in the address space");
  ctype_setup(pr);
  uint64_t L = pr->libc_base, tp = cb_libc_canary(pr) - 0x28;
  switch ((cb_libfn)fn) {
  case CB_LIBC_CTYPE_B_LOC:
    cb_libc_acc(pr, L + GOT_TLS_B, 8, false);
    cb_libc_acc(pr, tp, 8, false);
    ret[0].u = tp - TLS_B;
    return CB_GO;
  case CB_LIBC_CTYPE_TOUPPER_LOC:
    cb_libc_acc(pr, L + GOT_TLS_TOUPPER, 8, false);
    cb_libc_acc(pr, tp, 8, false);
    ret[0].u = tp - TLS_TOUPPER;
    return CB_GO;
  case CB_LIBC_CTYPE_TOLOWER_LOC:
    cb_libc_acc(pr, L + GOT_TLS_TOLOWER, 8, false);
    cb_libc_acc(pr, tp, 8, false);
    ret[0].u = tp - TLS_TOLOWER;
    return CB_GO;
  default:
    break;
  }
  int32_t c = (int32_t)(uint32_t)a[0].u;
  bool up = fn == CB_LIBC_TOUPPER, low = fn == CB_LIBC_TOLOWER;
  uint64_t got = up ? GOT_TLS_TOUPPER : low ? GOT_TLS_TOLOWER : GOT_TLS_B;
  uint64_t tls = tp - (up ? TLS_TOUPPER : low ? TLS_TOLOWER : TLS_B);
  cb_libc_acc(pr, L + got, 8, false);
  cb_libc_acc(pr, tls, 8, false);
  /* glibc indexes its tables with c in [-128, 255]; the is* functions
   * index with any int (undefined outside that range, as in C) */
  if (c < -128 || c > 255) {
    if (up || low) {
      ret[0].u = (uint32_t)c; /* toupper/tolower return c unchanged */
      return CB_GO;
    }
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "%s(%d): outside the table of unsigned char values "
                        "and EOF",
                        ctype_name(fn), c);
  }
  if (up || low) {
    uint64_t at =
        L + (up ? TOUPPER_TABLE : TOLOWER_TABLE) + 4 * (uint64_t)(c + 128);
    int32_t v;
    cb_mem_read(&pr->mem, at, &v, 4, NULL);
    cb_libc_acc(pr, at, 4, false);
    ret[0].u = (uint32_t)v;
    return CB_GO;
  }
  uint64_t at = L + CLASS_TABLE + 2 * (uint64_t)(c + 128);
  uint16_t v;
  cb_mem_read(&pr->mem, at, &v, 2, NULL);
  cb_libc_acc(pr, at, 2, false);
  ret[0].u = (uint32_t)(v & class_bit(fn));
  return CB_GO;
}
