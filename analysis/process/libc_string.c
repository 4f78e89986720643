/* libc_string.c: the C library model's <string.h> functions beyond
 * libc_mem.c's (bcmp, memchr, memrchr, strcat, strncat, strrchr, strstr,
 * strspn, strcspn, strpbrk, strdup, strndup, strtok, strcoll, strerror,
 * stpcpy, strnlen, strcasecmp): what they do to the modelled memory, and their
 * traffic as libc_mem.c models glibc's AVX2 string functions: aligned
 * 32-byte vector reads over the bytes they examine (cb_libc_scan), the
 * bytes they write in 32-byte pieces. strdup and strndup allocate through
 * the heap model and copy as memcpy does. strerror returns the address of
 * the message in libc's .rodata: the host's libc is the same file, so the
 * host's pointer's offset from its libc is the real run's. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* Bytes of s up to its NUL or n of them (strnlen's): read one by one so
 * that nothing past them is touched. NULL after a fault. */
static char *read_upto(cb_proc *pr, uint64_t addr, uint64_t n, size_t *len) {
  size_t cap = 64, k = 0;
  char *s = malloc(cap);
  for (; k < n; k++) {
    uint8_t b;
    if (!cb_proc_read(pr, addr + k, &b, 1)) {
      free(s);
      return NULL;
    }
    if (!b)
      break;
    if (k + 1 >= cap)
      s = realloc(s, cap *= 2);
    s[k] = (char)b;
  }
  s[k] = 0;
  *len = k;
  return s;
}

/* A NUL-terminated string, its vectors read. */
static char *str_in(cb_proc *pr, uint64_t addr, size_t *len) {
  char *s = cb_proc_read_str(pr, addr, MAX_STR, len);
  if (s)
    cb_libc_scan(pr, addr, *len + 1);
  return s;
}

static cb_stop put_bytes(cb_proc *pr, uint64_t dst, const void *src, size_t n) {
  if (!cb_proc_write(pr, dst, src, n))
    return CB_FAIL;
  cb_proc_lib_bulk(pr, dst, n, true);
  return CB_GO;
}

/* strspn/strcspn/strpbrk over s with the set t. */
static cb_stop span_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                         cb_value *ret) {
  size_t ls, lt;
  char *t = str_in(pr, a[1].u, &lt);
  if (!t)
    return CB_FAIL;
  char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &ls);
  if (!s) {
    free(t);
    return CB_FAIL;
  }
  size_t k = fn == CB_LIBC_STRSPN ? strspn(s, t) : strcspn(s, t);
  cb_libc_scan(pr, a[0].u, k + 1 > ls + 1 ? ls + 1 : k + 1);
  if (fn == CB_LIBC_STRPBRK)
    ret[0].u = s[k] ? a[0].u + k : 0;
  else
    ret[0].u = k;
  free(s);
  free(t);
  return CB_GO;
}

/* strdup/strndup: malloc(len + 1) and the copy. */
static cb_stop dup_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                        cb_value *ret) {
  size_t len;
  char *s = fn == CB_LIBC_STRNDUP ? read_upto(pr, a[0].u, a[1].u, &len)
                                  : cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
  if (!s)
    return CB_FAIL;
  cb_libc_scan(pr, a[0].u, len + (fn == CB_LIBC_STRDUP || len < a[1].u));
  uint64_t p = cb_heap_malloc(pr->heap, len + 1);
  cb_libc_alloc_event(pr, CB_ALLOC_NEW, fn, p, 0, len + 1);
  ret[0].u = p;
  if (p) {
    /* strdup: memcpy of len + 1; strndup: memcpy of len, then the NUL */
    bool ok = cb_proc_write(pr, p, s, len + 1);
    if (fn == CB_LIBC_STRDUP) {
      cb_proc_memcpy_traffic(pr, p, a[0].u, len + 1);
    } else {
      cb_proc_memcpy_traffic(pr, p, a[0].u, len);
      cb_libc_acc(pr, p + len, 1, true);
    }
    if (!ok) {
      free(s);
      return CB_FAIL;
    }
  }
  free(s);
  return CB_GO;
}

/* strtok's saved position: glibc's static olds (string/strtok.c). */
static cb_stop strtok_call(cb_proc *pr, const cb_value *a, cb_value *ret) {
  uint64_t s = a[0].u ? a[0].u : pr->strtok_next;
  size_t ld, ls;
  if (!s) {
    ret[0].u = 0;
    return CB_GO;
  }
  char *d = str_in(pr, a[1].u, &ld);
  if (!d)
    return CB_FAIL;
  char *t = cb_proc_read_str(pr, s, MAX_STR, &ls);
  if (!t) {
    free(d);
    return CB_FAIL;
  }
  size_t skip = strspn(t, d);
  if (!t[skip]) {
    cb_libc_scan(pr, s, ls + 1);
    pr->strtok_next = s + ls;
    ret[0].u = 0;
  } else {
    size_t end = skip + strcspn(t + skip, d);
    cb_libc_scan(pr, s, end + 1);
    ret[0].u = s + skip;
    if (t[end]) {
      char z = 0;
      if (put_bytes(pr, s + end, &z, 1) != CB_GO) {
        free(d);
        free(t);
        return CB_FAIL;
      }
      pr->strtok_next = s + end + 1;
    } else {
      pr->strtok_next = s + end;
    }
  }
  free(d);
  free(t);
  return CB_GO;
}

/* strerror(n): the message in the host's libc's .rodata, at the same
 * offset from the modelled libc, mapped with its bytes on first use. */
static cb_stop strerror_call(cb_proc *pr, const cb_value *a, cb_value *ret) {
  int n = (int)(uint32_t)a[0].u;
  const char *msg = strerror(n);
  Dl_info di;
  char unknown[64];
  snprintf(unknown, sizeof unknown, "Unknown error %d", n);
  if (!strcmp(msg, unknown) || !dladdr(msg, &di) || !di.dli_fbase ||
      !pr->libc_base)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "strerror(%d): no message of glibc's table (glibc "
                        "formats unknown numbers into a buffer it allocates; "
                        "not modelled)",
                        n);
  uint64_t at = pr->libc_base + (uint64_t)(msg - (const char *)di.dli_fbase);
  size_t len = strlen(msg) + 1;
  for (uint64_t p = at & ~(uint64_t)(CB_PG_SIZE - 1); p < at + len;
       p += CB_PG_SIZE)
    if (!cb_mem_mapped(&pr->mem, p))
      cb_mem_map(&pr->mem, p, p + CB_PG_SIZE);
  cb_mem_write(&pr->mem, at, msg, len, NULL);
  ret[0].u = at;
  return CB_GO;
}

/* strcasecmp in the C locale (the model has no setlocale): bytes compared
 * after tolower of 'A' to 'Z' only (_nl_C_LC_CTYPE_tolower), the result
 * the difference of the first pair that differs, as glibc's
 * __strcasecmp_avx2 returns it (sysdeps/x86_64/multiarch/strcmp-avx2.S). */
static int c_lower(unsigned char b) {
  return b >= 'A' && b <= 'Z' ? b + 32 : b;
}

static cb_stop strcasecmp_call(cb_proc *pr, const cb_value *a, cb_value *ret) {
  size_t ls, lt;
  char *s = cb_proc_read_str(pr, a[0].u, MAX_STR, &ls);
  char *t = s ? cb_proc_read_str(pr, a[1].u, MAX_STR, &lt) : NULL;
  if (!t) {
    free(s);
    return CB_FAIL;
  }
  size_t i = 0;
  while (s[i] && c_lower((unsigned char)s[i]) == c_lower((unsigned char)t[i]))
    i++;
  int r = c_lower((unsigned char)s[i]) - c_lower((unsigned char)t[i]);
  cb_libc_strcasecmp_traffic(pr, a[0].u, a[1].u, i);
  free(s);
  free(t);
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}

cb_stop cb_libc_string_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret) {
  size_t ls, lt;
  char *s, *t;
  switch ((cb_libfn)fn) {
  case CB_LIBC_BCMP:
    /* glibc's bcmp is memcmp (__memcmp_avx2_movbe under valgrind) */
    return cb_libc_mem_call(pr, CB_LIBC_MEMCMP, a, ty, n, ret);
  case CB_LIBC_MEMCHR:
  case CB_LIBC_MEMRCHR: {
    uint64_t len = a[2].u, i, hit = 0;
    bool found = false;
    uint8_t c = (uint8_t)a[1].u;
    for (i = 0; i < len && !found; i++) {
      uint64_t k = fn == CB_LIBC_MEMCHR ? i : len - 1 - i;
      uint8_t b;
      if (!cb_proc_read(pr, a[0].u + k, &b, 1))
        return CB_FAIL;
      if (b == c) {
        found = true;
        hit = k;
      }
    }
    if (fn == CB_LIBC_MEMCHR)
      cb_libc_scan(pr, a[0].u, found ? hit + 1 : len);
    else
      cb_libc_scan(pr, a[0].u + (found ? hit : 0), found ? len - hit : len);
    ret[0].u = found ? a[0].u + hit : 0;
    return CB_GO;
  }
  case CB_LIBC_STRNLEN:
    if (!(s = read_upto(pr, a[0].u, a[1].u, &ls)))
      return CB_FAIL;
    cb_libc_scan(pr, a[0].u, ls < a[1].u ? ls + 1 : ls);
    free(s);
    ret[0].u = ls;
    return CB_GO;
  case CB_LIBC_STRCAT:
  case CB_LIBC_STRNCAT:
  case CB_LIBC_STPCPY: {
    uint64_t d = a[0].u;
    if (fn != CB_LIBC_STPCPY) {
      char *dd = str_in(pr, d, &ls);
      if (!dd)
        return CB_FAIL;
      free(dd);
      d += ls;
    }
    if (fn == CB_LIBC_STRNCAT) {
      if (!(t = read_upto(pr, a[1].u, a[2].u, &lt)))
        return CB_FAIL;
      cb_libc_scan(pr, a[1].u, lt < a[2].u ? lt + 1 : lt);
    } else if (!(t = str_in(pr, a[1].u, &lt))) {
      return CB_FAIL;
    }
    cb_stop st = put_bytes(pr, d, t, lt + 1);
    free(t);
    ret[0].u = fn == CB_LIBC_STPCPY ? d + lt : a[0].u;
    return st;
  }
  case CB_LIBC_STRRCHR: {
    if (!(s = str_in(pr, a[0].u, &ls)))
      return CB_FAIL;
    int c = (int)(a[1].u & 0xff);
    char *q = c ? strrchr(s, c) : s + ls;
    ret[0].u = q ? a[0].u + (uint64_t)(q - s) : 0;
    free(s);
    return CB_GO;
  }
  case CB_LIBC_STRSTR: {
    if (!(t = str_in(pr, a[1].u, &lt)))
      return CB_FAIL;
    if (!(s = cb_proc_read_str(pr, a[0].u, MAX_STR, &ls))) {
      free(t);
      return CB_FAIL;
    }
    char *q = strstr(s, t);
    /* the haystack up to the match's end, or all of it */
    cb_libc_scan(pr, a[0].u, q ? (size_t)(q - s) + lt + 1 : ls + 1);
    ret[0].u = q ? a[0].u + (uint64_t)(q - s) : 0;
    free(s);
    free(t);
    return CB_GO;
  }
  case CB_LIBC_STRSPN:
  case CB_LIBC_STRCSPN:
  case CB_LIBC_STRPBRK:
    return span_call(pr, fn, a, ret);
  case CB_LIBC_STRDUP:
  case CB_LIBC_STRNDUP:
    return dup_call(pr, fn, a, ret);
  case CB_LIBC_STRTOK:
    return strtok_call(pr, a, ret);
  case CB_LIBC_STRCOLL:
    /* in the C locale (the program never calls setlocale: the model has
     * no setlocale) strcoll is strcmp */
    return cb_libc_mem_call(pr, CB_LIBC_STRCMP, a, ty, n, ret);
  case CB_LIBC_STRERROR:
    return strerror_call(pr, a, ret);
  case CB_LIBC_STRCASECMP:
    return strcasecmp_call(pr, a, ret);
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
