/* libc_tempname.c: mktemp, as glibc 2.36's misc/mktemp.c and
 * sysdeps/posix/tempname.c (__gen_tempname with __GT_NOCREATE) compute
 * it. The template must end in "XXXXXX"; the six letters are drawn from
 * glibc's 62 `letters`, ten base-62 digits of one 64-bit random value
 * (random_bits: getrandom with GRND_NONBLOCK), and the name is tried with
 * lstat, which finds nothing: cbana never creates a file on disk, and a
 * name the program itself wrote (kept in memory) is not what mktemp
 * tried. A real run's value is random; the model's is that of a fixed
 * sequence (splitmix64 of the call's number), so runs repeat.
 *
 * Traffic: a lackey trace of a call (Debian 12's glibc 2.36, offsets
 * from libc's base as libc_proc.c's), relative to the caller's rsp C
 * before its call: mktemp's and __gen_tempname's frames, the canary,
 * errno saved and restored, __strlen_avx2 over the template and
 * __strspn_sse42 over its last six bytes (libc's internal PLT slots,
 * the accept string "X" and the shift table ___m128i_shift_right),
 * __libc_single_threaded read by getrandom, each letter's load from
 * `letters` and its store into the template, lstat's frame and errno
 * (ENOENT, then the EOVERFLOW test). Not modelled: a real run's second
 * getrandom when the value falls in the unfair range above the largest
 * multiple of 62^10 (a chance of about 4.5 % a call, random); a template
 * that does not end in "XXXXXX" stops the input. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"

#define LIBC_GOT_ERRNO 0x1d2de0ull  /* errno's TLS offset (.got + 0x80) */
#define SINGLE_THREADED 0x1db5d8ull /* __libc_single_threaded_internal */
#define TLS_ERRNO 0x80ull           /* errno, below the thread pointer */
#define GOT_STRLEN 0x1d3080ull      /* libc's own PLT slots (*ABS*) */
#define GOT_STRSPN 0x1d3040ull
#define GOT_TEMPNAME 0x1d17b0ull /* read by __gen_tempname's entry */
#define ACCEPT_X 0x1971eeull     /* "X", the tail of a merged string */
#define SHIFT_TABLE 0x1924c0ull  /* ___m128i_shift_right's masks */
#define LETTERS 0x19b560ull      /* tempname.c's letters[] */

#define R(a, n) cb_libc_acc(pr, a, n, false)
#define W(a, n) cb_libc_acc(pr, a, n, true)

static const char letters[] =
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* __strspn_sse42 (sysdeps/x86_64/multiarch/strspn-c.c) of the six bytes
 * at s against "X": the accept string's first byte, its aligned block
 * shifted by the table, then s's first aligned block (shifted when s is
 * not aligned) and the next one while the run of X's goes past it. */
static void strspn_traffic(cb_proc *pr, uint64_t L, uint64_t s) {
  R(L + ACCEPT_X, 1);
  R(L + (ACCEPT_X & ~15ull), 16);
  R(L + SHIFT_TABLE + (ACCEPT_X & 15), 16);
  if (s & 15)
    R(L + SHIFT_TABLE + (s & 15), 16);
  for (uint64_t b = s & ~15ull; b <= ((s + 6) & ~15ull); b += 16)
    R(b, 16);
}

static void traffic(cb_proc *pr, uint64_t tmpl, uint64_t len,
                    const unsigned *idx) {
  uint64_t L = pr->libc_base, C = cb_proc_top(pr)->sp;
  uint64_t fs28 = cb_libc_canary(pr), err = fs28 - 0x28 - TLS_ERRNO;
  uint64_t x = tmpl + len - 6;
  for (uint64_t o = 0x10; o <= 0x48; o += 8)
    W(C - o, 8); /* the callee-saved registers */
  W(C - 0xc8, 8);
  R(fs28, 8);
  W(C - 0x58, 8); /* the canary's copy */
  W(C - 0x84, 4);
  R(L + GOT_TEMPNAME, 8);
  R(L + LIBC_GOT_ERRNO, 8);
  W(C - 0xc0, 8);
  R(err, 4); /* save_errno */
  W(C - 0x80, 8);
  W(C - 0xcd, 1);
  W(C - 0xd8, 8); /* call strlen */
  R(L + GOT_STRLEN, 8);
  cb_libc_strlen_traffic(pr, tmpl, len);
  R(C - 0xd8, 8);
  W(C - 0xb8, 8);
  W(C - 0xb0, 8);
  W(C - 0xd8, 8); /* call strspn */
  R(L + GOT_STRSPN, 8);
  strspn_traffic(pr, L, x);
  R(C - 0xd8, 8);
  R(C - 0xcd, 1);
  W(C - 0x94, 4);
  W(C - 0xa8, 8);
  R(C - 0xc8, 8);
  W(C - 0x98, 4);
  W(C - 0xcd, 1);
  W(C - 0xa0, 8);
  W(C - 0xcc, 4);
  R(C - 0xa0, 8);
  R(C - 0xb8, 8);
  R(C - 0xb0, 8);
  R(C - 0xcd, 1);
  R(C - 0xcc, 4);
  W(C - 0xd8, 8); /* call getrandom */
  R(L + SINGLE_THREADED, 1);
  R(C - 0xd8, 8);
  R(C - 0x78, 8);
  W(C - 0x80, 8);
  for (int i = 0; i < 6; i++) {
    W(C - 0x80, 8);
    R(L + LETTERS + idx[i], 1);
    W(x + (uint64_t)i, 1);
  }
  R(C - 0xa8, 8);
  R(C - 0xc8, 8);
  W(C - 0xcd, 1);
  W(C - 0xcc, 4);
  R(C - 0xc0, 8);
  W(C - 0xd8, 8); /* call try_nocreate */
  R(fs28, 8);
  W(C - 0xe8, 8);
  W(C - 0x188, 8); /* call __lstat64 */
  R(L + LIBC_GOT_ERRNO, 8);
  W(err, 4); /* ENOENT */
  R(C - 0x188, 8);
  R(L + LIBC_GOT_ERRNO, 8);
  R(err, 4); /* errno == EOVERFLOW? */
  R(C - 0xe8, 8);
  R(fs28, 8);
  R(C - 0xd8, 8);
  R(C - 0x94, 4);
  R(L + LIBC_GOT_ERRNO, 8);
  W(err, 4); /* errno restored */
  R(C - 0x58, 8);
  R(fs28, 8);
  for (uint64_t o = 0x48; o >= 0x10; o -= 8)
    R(C - o, 8);
}

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

cb_stop cb_libc_mktemp(cb_proc *pr, const cb_value *a, cb_value *ret) {
  uint64_t tmpl = a[0].u;
  size_t len;
  char *s = cb_proc_read_str(pr, tmpl, 1 << 20, &len);
  if (!s)
    return CB_FAIL;
  bool ok = len >= 6 && strcmp(s + len - 6, "XXXXXX") == 0;
  free(s);
  if (!ok)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "mktemp of a template that does not end in XXXXXX "
                        "(EINVAL) is not modelled");
  /* tempname.c: ten base-62 digits of v, the first six used */
  uint64_t v = splitmix64(++pr->tempname_calls);
  /* v below glibc's unfair_min, as the digits it keeps are */
  const uint64_t base62_10 = 839299365868340224ull; /* 62^10 */
  v %= UINT64_MAX - UINT64_MAX % base62_10;
  char name[6];
  unsigned idx[6];
  for (int i = 0; i < 6; i++) {
    idx[i] = (unsigned)(v % 62);
    name[i] = letters[idx[i]];
    v /= 62;
  }
  if (!cb_proc_write(pr, tmpl + len - 6, name, 6))
    return CB_FAIL;
  if (pr->libc_base)
    traffic(pr, tmpl, len, idx);
  ret[0].u = tmpl;
  return CB_GO;
}
