/* libc_stdlib.c: the C library model's <stdlib.h> and <inttypes.h>
 * functions beyond allocation, conversion and rand: bsearch (glibc's
 * inline of bits/stdlib-bsearch.h, calling the program's comparator),
 * llabs, div, ldiv, lldiv, getenv, strtoimax and strtoumax.
 *
 * getenv reads the environment the real run has: the model's runs are
 * those of `env -i valgrind` (docs/process-model.md, section 2), whose
 * environment is Debian's valgrind wrapper's five strings
 * (LD_LIBRARY_PATH, GLIBCPP_FORCE_NEW, PWD, GLIBCXX_FORCE_NEW,
 * LD_PRELOAD), laid out on the stack by engine_stack.c; any other name
 * gives NULL. Its traffic: the name's vectors, each envp entry and the
 * first two bytes of its string (glibc 2.36 stdlib/getenv.c compares
 * them as one 16-bit word first), the rest of a candidate's bytes. */
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* ---- bsearch ---- */

static cb_stop do_bsearch(cb_proc *pr, const cb_value *a, cb_value *ret) {
  uint64_t key = a[0].u, base = a[1].u, n = a[2].u, size = a[3].u;
  uint32_t f = cb_host_function_at(pr, a[4].u);
  if (f == CB_NONE)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "bsearch with a comparator (0x%llx) that is no "
                        "function of the program",
                        (unsigned long long)a[4].u);
  uint64_t l = 0, u = n;
  ret[0].u = 0;
  while (l < u) {
    uint64_t idx = (l + u) / 2, p = base + idx * size;
    cb_value args[2], r[4] = {{0}};
    args[0].u = key;
    args[1].u = p;
    uint32_t keep = pr->cur_site;
    cb_stop st = cb_host_call(pr, f, args, 2, r);
    pr->cur_site = keep;
    if (st != CB_GO)
      return st;
    int32_t c = (int32_t)(uint32_t)r[0].u;
    if (c < 0) {
      u = idx;
    } else if (c > 0) {
      l = idx + 1;
    } else {
      ret[0].u = p;
      break;
    }
  }
  return CB_GO;
}

/* ---- getenv ---- */

static cb_stop do_getenv(cb_proc *pr, const cb_value *a, cb_value *ret) {
  size_t len;
  char *name = cb_proc_read_str(pr, a[0].u, MAX_STR, &len);
  if (!name)
    return CB_FAIL;
  cb_libc_scan(pr, a[0].u, len + 1);
  ret[0].u = 0;
  for (uint64_t i = 0; pr->envp_at && len; i++) {
    uint64_t ep = pr->envp_at + 8 * i, s;
    if (!cb_proc_read(pr, ep, &s, 8)) {
      free(name);
      return CB_FAIL;
    }
    cb_libc_acc(pr, ep, 8, false);
    if (!s)
      break;
    size_t sl;
    char *str = cb_proc_read_str(pr, s, MAX_STR, &sl);
    if (!str) {
      free(name);
      return CB_FAIL;
    }
    cb_libc_acc(pr, s, len > 1 ? 2 : 1, false);
    bool hit = sl > len && !strncmp(str, name, len) && str[len] == '=';
    if (len > 1 && sl >= 2 && !memcmp(str, name, 2))
      cb_libc_scan(pr, s + 2, len - 1); /* strncmp of the rest, the '=' */
    free(str);
    if (hit) {
      ret[0].u = s + len + 1;
      break;
    }
  }
  free(name);
  return CB_GO;
}

cb_stop cb_libc_stdlib_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            const uint8_t *ty, uint32_t n, cb_value *ret) {
  (void)ty;
  (void)n;
  switch ((cb_libfn)fn) {
  case CB_LIBC_BSEARCH:
    return do_bsearch(pr, a, ret);
  case CB_LIBC_LLABS:
    ret[0].u = a[0].s < 0 ? 0 - a[0].u : a[0].u;
    return CB_GO;
  case CB_LIBC_DIV: {
    /* div_t {int quot, rem} comes back in one register, quot low */
    int32_t x = (int32_t)(uint32_t)a[0].u, y = (int32_t)(uint32_t)a[1].u;
    if (!y || (x == INT32_MIN && y == -1))
      break;
    ret[0].u = (uint64_t)(uint32_t)(x / y) | (uint64_t)(uint32_t)(x % y) << 32;
    return CB_GO;
  }
  case CB_LIBC_LDIV:
  case CB_LIBC_LLDIV:
    /* {quot, rem} in two registers */
    if (!a[1].s || (a[0].s == INT64_MIN && a[1].s == -1))
      break;
    ret[0].s = a[0].s / a[1].s;
    ret[1].s = a[0].s % a[1].s;
    return CB_GO;
  case CB_LIBC_GETENV:
    return do_getenv(pr, a, ret);
  case CB_LIBC_STRTOIMAX:
  case CB_LIBC_STRTOUMAX:
    /* intmax_t is long: strtol's and strtoul's model */
    return cb_libc_call(
        pr, fn == CB_LIBC_STRTOIMAX ? CB_LIBC_STRTOL : CB_LIBC_STRTOUL, a, ty,
        n, ret);
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
  return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                      "%s by zero (or of the most negative value by -1): "
                      "the real run dies of SIGFPE",
                      fn == CB_LIBC_DIV ? "div" : "ldiv/lldiv");
}
