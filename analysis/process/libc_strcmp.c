/* libc_strcmp.c: the loads glibc 2.36's __strcmp_avx2 makes (the ifunc
 * valgrind's CPU selects), address by address, for two strings whose
 * first difference or NUL is at index k.
 *
 * Followed from the function's disassembly in Debian 12's libc.so.6
 * (sysdeps/x86_64/multiarch/strcmp-avx2.S) and checked against lackey
 * traces. Every vector reports the first index that differs or holds a
 * NUL, so k alone decides the path. Its steps:
 * - (s | t) & 0xfff > 0xf80, with s or t not 32-aligned, and one of the
 *   two (the larger page offset, then read first) within 128 bytes of
 *   its page end: the page-cross entry (cross_entry below);
 * - otherwise unaligned 32-byte loads of s then t at +0, +32, +64, +96;
 * - then a loop over 128-byte blocks of s aligned to 128 (t at the same
 *   index): four loads of s, four of t, with its own path when t's block
 *   would cross a page (cross_loop);
 * - at the vector that holds k, the two bytes at k (movzbl), from the
 *   string read first.
 *
 * __strcasecmp_avx2 is the same file built with USE_AS_STRCASECMP_L, and
 * its disassembly has the same paths and loads; besides, it reads the
 * thread's locale (libc's GOT slot of __libc_tsd_LOCALE, the TLS word,
 * the locale's LC_CTYPE data and its _NL_CTYPE_NONASCII_CASE word) and
 * the three 32-byte constants of its vector tolower, and every byte it
 * compares as a byte (the movzbl pair at k, the page-cross byte loop) is
 * looked up in _nl_C_LC_CTYPE_tolower (4 bytes an entry). Offsets from
 * libc's base in Debian 12's libc.so.6 (libc6-dbg symbols, checked
 * against lackey traces).
 */
#include "libc_internal.h"

#define LIBC_GOT_TSD_LOCALE 0x1d2f48ull /* the TLS offset's GOT slot */
#define TLS_LOCALE 0x90ull /* __libc_tsd_LOCALE, below the thread pointer */
#define NL_GLOBAL_LOCALE 0x1d4560ull    /* _nl_global_locale */
#define NL_C_CTYPE_NONASCII 0x1d0a70ull /* _nl_C_LC_CTYPE + 0x270 */
#define CASECMP_CONSTS 0x1a18c0ull      /* three 32-byte vectors */
#define TOLOWER_0 0x17d4c0ull /* _nl_C_LC_CTYPE_tolower's entry for 0 */

typedef struct sc {
  cb_proc *pr;
  uint64_t a, b; /* the string loaded first (rdi) and second (rsi) */
  uint64_t k;
  uint64_t n;     /* loads emitted */
  uint64_t lower; /* strcasecmp: the tolower table's entry 0, else 0 */
} sc;

static void ld(sc *c, uint64_t addr, uint32_t size) {
  cb_proc_emit(c->pr, addr, size, c->pr->cur_site, false);
  c->n++;
}

/* strcasecmp's table look-ups of the bytes at a + i and b + i */
static void lower2(sc *c, uint64_t i) {
  if (!c->lower)
    return;
  uint8_t x = 0, y = 0;
  cb_mem_read(&c->pr->mem, c->a + i, &x, 1, NULL);
  cb_mem_read(&c->pr->mem, c->b + i, &y, 1, NULL);
  ld(c, c->lower + 4 * (uint64_t)x, 4);
  ld(c, c->lower + 4 * (uint64_t)y, 4);
}

/* one vector compare of width w at index i; true: k is in it */
static bool vec(sc *c, uint64_t i, uint32_t w) {
  ld(c, c->a + i, w);
  ld(c, c->b + i, w);
  return c->k < i + w;
}

/* the movzbl pair that computes the result */
static void tail(sc *c) {
  ld(c, c->a + c->k, 1);
  ld(c, c->b + c->k, 1);
  lower2(c, c->k);
}

/* four vectors of a then four of b at index i (L(loop) and after) */
static bool four(sc *c, uint64_t i) {
  for (unsigned v = 0; v < 4; v++)
    ld(c, c->a + i + 32 * v, 32);
  for (unsigned v = 0; v < 4; v++)
    ld(c, c->b + i + 32 * v, 32);
  return c->k < i + 128;
}

/* L(prepare_loop) from index p (a + p is where rdi stands; the loop
 * advances it by 128 first): the 128-byte block loop */
static void block_loop(sc *c, uint64_t p) {
  for (;;) {
    p += 128;
    uint64_t d = (0 - (c->b + p)) & 0xfff; /* t's bytes to its page end */
    if (d == 0 || d >= 128) {
      if (four(c, p))
        break;
      continue;
    }
    /* L(page_cross_during_loop) */
    if (d > 32) {
      if (vec(c, p, 32))
        break;
      if (d > 64) {
        if (vec(c, p + 32, 32) || vec(c, p + d - 64, 32) ||
            vec(c, p + d - 32, 32))
          break;
        ld(c, c->a + p + 64, 32);
        ld(c, c->a + p + 96, 32);
        ld(c, c->b + p + 64, 32);
        ld(c, c->b + p + 96, 32);
        if (c->k < p + 128)
          break;
        p += 128;
        if (four(c, p))
          break;
        continue;
      }
    }
    /* the last vector before t's page end (bytes before p masked) */
    if (vec(c, p + d - 32, 32))
      break;
    if (four(c, p))
      break;
  }
  tail(c);
}

/* L(page_cross): a (the string with the larger page offset) is within
 * 128 bytes of its page end, off = its offset there. */
static void cross_entry(sc *c, uint64_t off) {
  int64_t x = (int64_t)off - 0xfe0; /* > 0: fewer than 32 bytes left */
  if (x <= 0) {
    uint64_t i = 0;
    for (;;) {
      if (vec(c, i, 32)) {
        tail(c);
        return;
      }
      i += 32;
      x += 32;
      if (x >= 0)
        break;
    }
    i -= (uint64_t)x; /* the vector that ends at the page end */
    if (vec(c, i, 32)) {
      tail(c);
      return;
    }
    block_loop(c, (c->a & ~127ull) - c->a);
    return;
  }
  uint32_t w;
  uint64_t end;
  if (x <= 16)
    w = 16, end = 16;
  else if (x <= 24)
    w = 8, end = 24;
  else if (x <= 28)
    w = 4, end = 28;
  else {
    /* byte by byte to a's next 32-byte boundary */
    uint64_t i = 0;
    for (;;) {
      ld(c, c->a + i, 1);
      ld(c, c->b + i, 1);
      lower2(c, i);
      if (c->k == i)
        return;
      i++;
      if (((c->a + i) & 31) == 0)
        break;
    }
    block_loop(c, i - 128);
    return;
  }
  if (vec(c, 0, w)) {
    tail(c);
    return;
  }
  uint64_t j = end - (uint64_t)x;
  if (w == 16 && j == 0) {
    block_loop(c, (c->a & ~127ull) - c->a);
    return;
  }
  if (vec(c, j, w)) {
    tail(c);
    return;
  }
  block_loop(c, j + w - 128);
}

static uint64_t strcmp_paths(cb_proc *pr, uint64_t s, uint64_t t, uint64_t k,
                             uint64_t lower) {
  sc c = {pr, s, t, k, 0, lower};
  uint64_t os = s & 0xfff, ot = t & 0xfff;
  if ((os | ot) > 0xf80 && ((s | t) & 31) && (os > 0xf80 || ot > 0xf80)) {
    if (ot > os) { /* t is read first */
      c.a = t;
      c.b = s;
      cross_entry(&c, ot);
    } else
      cross_entry(&c, os);
  } else {
    for (uint64_t i = 0; i < 128; i += 32)
      if (vec(&c, i, 32)) {
        tail(&c);
        pr->out->lib_reads += c.n;
        return c.n;
      }
    block_loop(&c, (s & ~127ull) - s);
  }
  pr->out->lib_reads += c.n;
  return c.n;
}

uint64_t cb_libc_strcmp_traffic(cb_proc *pr, uint64_t s, uint64_t t,
                                uint64_t k) {
  return strcmp_paths(pr, s, t, k, 0);
}

uint64_t cb_libc_strcasecmp_traffic(cb_proc *pr, uint64_t s, uint64_t t,
                                    uint64_t k) {
  uint64_t L = pr->libc_base, tp = cb_libc_canary(pr) - 0x28;
  if (!L) /* no libc in the address space: the strings' loads only */
    return strcmp_paths(pr, s, t, k, 0);
  /* __strcasecmp_avx2: the locale; __strcasecmp_l_avx2: its LC_CTYPE's
   * NONASCII_CASE word, then the vector tolower's constants */
  cb_libc_acc(pr, L + LIBC_GOT_TSD_LOCALE, 8, false);
  cb_libc_acc(pr, tp - TLS_LOCALE, 8, false);
  cb_libc_acc(pr, L + NL_GLOBAL_LOCALE, 8, false);
  cb_libc_acc(pr, L + NL_C_CTYPE_NONASCII, 4, false);
  for (unsigned i = 0; i < 3; i++)
    cb_libc_acc(pr, L + CASECMP_CONSTS + 32 * i, 32, false);
  return 7 + strcmp_paths(pr, s, t, k, L + TOLOWER_0);
}
