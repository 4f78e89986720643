/* libc_mem.c: the C library model's memory and string functions
 * (memset, memcpy/memmove, memcmp, strlen, strcpy, strcmp, strchr ...):
 * what they do to the modelled memory and the traffic glibc's
 * implementations generate for them. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* ---- strings ---- */

/* glibc's AVX2 string functions read whole aligned 32-byte vectors. */
void cb_libc_scan(cb_proc *pr, uint64_t addr, uint64_t len) {
  uint64_t a = addr & ~31ull, end = addr + len;
  for (; a < end; a += 32)
    cb_proc_emit(pr, a, 32, pr->cur_site, false);
  pr->out->lib_reads += (end - (addr & ~31ull) + 31) / 32;
}

static void vec_load(cb_proc *pr, uint64_t a) {
  cb_proc_emit(pr, a, 32, pr->cur_site, false);
  pr->out->lib_reads++;
}

void cb_libc_strlen_traffic(cb_proc *pr, uint64_t p, uint64_t len) {
  /* __strlen_avx2 (and __rawmemchr_avx2, the same loads), as Debian 12's
   * libc.so.6 has it (sysdeps/x86_64/multiarch/strlen-avx2.S): the 32
   * bytes at s, unaligned, or the aligned vector holding s when those
   * would cross a page; then the four aligned vectors from A = (s | 31) +
   * 1, one at a time; then blocks of four from the next multiple of 128
   * above A, whole, until the block holding the NUL (so bytes are read
   * twice where the blocks overlap the four, and up to three vectors past
   * the NUL's). */
  uint64_t z = p + len; /* the NUL */
  uint64_t first = (p & 4095) > 4096 - 32 ? p & ~31ull : p;
  vec_load(pr, first);
  if (z < first + 32)
    return;
  uint64_t A = (p | 31) + 1;
  for (unsigned k = 0; k < 4; k++) {
    vec_load(pr, A + 32 * k);
    if (z < A + 32 * (k + 1))
      return;
  }
  for (uint64_t C = (A | 127) + 1;; C += 128) {
    for (unsigned k = 0; k < 4; k++)
      vec_load(pr, C + 32 * k);
    if (z < C + 128)
      return;
  }
}

cb_stop cb_libc_memmove(cb_proc *pr, uint64_t dst, uint64_t src, uint64_t n) {
  if (!n)
    return CB_GO;
  uint64_t bad;
  if (!cb_mem_move(&pr->mem, dst, src, n, &bad))
    return cb_proc_fault(pr, bad, 1, dst <= bad && bad < dst + n, pr->cur_site);
  cb_proc_memcpy_traffic(pr, dst, src, n);
  return CB_GO;
}

cb_stop cb_libc_memset(cb_proc *pr, uint64_t dst, int c, uint64_t n) {
  uint64_t bad;
  if (!cb_mem_fill(&pr->mem, dst, c, n, &bad))
    return cb_proc_fault(pr, bad, 1, true, pr->cur_site);
  cb_proc_memset_traffic(pr, dst, n);
  return CB_GO;
}

static cb_stop str_arg(cb_proc *pr, uint64_t addr, char **out, size_t *len) {
  *out = cb_proc_read_str(pr, addr, MAX_STR, len);
  if (!*out)
    return CB_FAIL;
  cb_libc_scan(pr, addr, *len + 1);
  return CB_GO;
}

/* The mem* and str* functions. */
cb_stop cb_libc_mem_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                         const uint8_t *ty, uint32_t n, cb_value *ret) {
  (void)ty;
  (void)n;
  switch ((cb_libfn)fn) {
  case CB_LIBC_MEMSET:
    ret[0].u = a[0].u;
    return cb_libc_memset(pr, a[0].u, (int)(a[1].u & 0xff), a[2].u);
  case CB_LIBC_MEMCPY:
  case CB_LIBC_MEMMOVE:
    ret[0].u = a[0].u;
    return cb_libc_memmove(pr, a[0].u, a[1].u, a[2].u);
  case CB_LIBC_MEMCMP: {
    uint64_t len = a[2].u;
    int r = 0;
    uint64_t i = 0;
    for (; i < len; i++) {
      uint8_t x, y;
      if (!cb_proc_read(pr, a[0].u + i, &x, 1) ||
          !cb_proc_read(pr, a[1].u + i, &y, 1))
        return CB_FAIL;
      if (x != y) {
        r = x < y ? -1 : 1;
        i++;
        break;
      }
    }
    cb_libc_scan(pr, a[0].u, i);
    cb_libc_scan(pr, a[1].u, i);
    ret[0].u = (uint64_t)(uint32_t)r;
    return CB_GO;
  }
  case CB_LIBC_STRLEN: {
    size_t len;
    char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
    if (!s)
      return CB_FAIL;
    cb_libc_strlen_traffic(pr, a[0].u, len);
    free(s);
    ret[0].u = len;
    return CB_GO;
  }
  case CB_LIBC_STRCPY:
  case CB_LIBC_STRNCPY: {
    char *s;
    size_t len;
    if (str_arg(pr, a[1].u, &s, &len) != CB_GO)
      return CB_FAIL;
    size_t w = len + 1;
    if (fn == CB_LIBC_STRNCPY) {
      uint64_t lim = a[2].u;
      if (w > lim)
        w = (size_t)lim;
      char *z = calloc(1, lim + 1);
      memcpy(z, s, w);
      bool ok = cb_proc_write(pr, a[0].u, z, (size_t)lim);
      free(z);
      free(s);
      if (!ok)
        return CB_FAIL;
      cb_proc_lib_bulk(pr, a[0].u, lim, true);
    } else {
      bool ok = cb_proc_write(pr, a[0].u, s, w);
      free(s);
      if (!ok)
        return CB_FAIL;
      cb_proc_lib_bulk(pr, a[0].u, w, true);
    }
    ret[0].u = a[0].u;
    return CB_GO;
  }
  case CB_LIBC_STRCMP:
  case CB_LIBC_STRNCMP: {
    char *s, *t;
    size_t ls, lt;
    if (fn == CB_LIBC_STRCMP) {
      /* the traffic follows from the first difference (below) */
      s = cb_proc_read_str(pr, a[0].u, MAX_STR, &ls);
      t = s ? cb_proc_read_str(pr, a[1].u, MAX_STR, &lt) : NULL;
      if (!t) {
        free(s);
        return CB_FAIL;
      }
    } else {
      if (str_arg(pr, a[0].u, &s, &ls) != CB_GO)
        return CB_FAIL;
      if (str_arg(pr, a[1].u, &t, &lt) != CB_GO) {
        free(s);
        return CB_FAIL;
      }
    }
    /* glibc's x86-64 strcmp and strncmp (every ifunc variant) return the
     * difference of the first differing bytes as unsigned chars, which a
     * program may print; computed here, not by the host's strcmp (a
     * sanitizer's interceptor returns only the sign) */
    size_t lim = fn == CB_LIBC_STRCMP ? SIZE_MAX : (size_t)a[2].u, i = 0;
    while (i < lim && s[i] && s[i] == t[i])
      i++;
    int r = i < lim ? (unsigned char)s[i] - (unsigned char)t[i] : 0;
    if (fn == CB_LIBC_STRCMP)
      cb_libc_strcmp_traffic(pr, a[0].u, a[1].u, i);
    free(s);
    free(t);
    ret[0].u = (uint64_t)(uint32_t)r;
    return CB_GO;
  }
  case CB_LIBC_STRCHR: {
    char *s;
    size_t len;
    if (str_arg(pr, a[0].u, &s, &len) != CB_GO)
      return CB_FAIL;
    int c = (int)(a[1].u & 0xff);
    char *q = c ? strchr(s, c) : s + len;
    ret[0].u = q ? a[0].u + (uint64_t)(q - s) : 0;
    free(s);
    return CB_GO;
  }
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
