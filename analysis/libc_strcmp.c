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
 */
#include "libc_internal.h"

typedef struct sc {
  cb_eng *e;
  uint64_t a, b; /* the string loaded first (rdi) and second (rsi) */
  uint64_t k;
  uint64_t n; /* loads emitted */
} sc;

static void ld(sc *c, uint64_t addr, uint32_t size) {
  cb_eng_emit(c->e, addr, size, c->e->cur_site, false);
  c->n++;
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

uint64_t cb_libc_strcmp_traffic(cb_eng *e, uint64_t s, uint64_t t, uint64_t k) {
  sc c = {e, s, t, k, 0};
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
        e->out->lib_reads += c.n;
        return c.n;
      }
    block_loop(&c, (s & ~127ull) - s);
  }
  e->out->lib_reads += c.n;
  return c.n;
}
