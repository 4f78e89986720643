/* <string.h>, <ctype.h> and <stdlib.h> functions against glibc: their
 * results and the bytes they write, on text taken from argv: strcat,
 * strncat, stpcpy, strrchr, strstr, strspn, strcspn, strpbrk, strtok,
 * strdup, strndup, memchr, memrchr, bcmp (memcmp() == 0), strnlen,
 * strcoll, strerror; the ctype tables (isdigit ... in a counting loop,
 * toupper/tolower) and the functions themselves; bsearch, div, ldiv,
 * lldiv, llabs, getenv, strtoimax. */
#define _GNU_SOURCE
/* glibc's headers then give bsearch no inline body (features.h's
 * __USE_EXTERN_INLINES): the program calls the library's */
#define __NO_INLINE__ 1
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* the library's own functions, not the header's inlines and macros:
 * the same symbols under other names */
extern void *lib_bsearch(const void *, const void *, size_t, size_t,
                         int (*)(const void *,
                                 const void *)) __asm__("bsearch");
extern int lib_isalpha(int) __asm__("isalpha");
extern int lib_isdigit(int) __asm__("isdigit");
extern int lib_isspace(int) __asm__("isspace");
extern int lib_isupper(int) __asm__("isupper");
extern int lib_islower(int) __asm__("islower");
extern int lib_isalnum(int) __asm__("isalnum");
extern int lib_ispunct(int) __asm__("ispunct");
extern int lib_isxdigit(int) __asm__("isxdigit");
extern int lib_isprint(int) __asm__("isprint");
extern int lib_iscntrl(int) __asm__("iscntrl");
extern int lib_isgraph(int) __asm__("isgraph");
extern int lib_isblank(int) __asm__("isblank");
extern int lib_toupper(int) __asm__("toupper");
extern int lib_tolower(int) __asm__("tolower");

int main(int argc, char **argv) {
  const char *text = argc > 1 ? argv[1] : "The quick, brown fox: 42 jumps!";
  const char *needle = argc > 2 ? argv[2] : "fox";
  int reps = argc > 3 ? atoi(argv[3]) : 100;
  char buf[512];
  strcpy(buf, "<");
  strcat(buf, text);
  strncat(buf, needle, 2);
  char *end = stpcpy(buf + strlen(buf), ">");
  printf("cat %s len %zu end %td\n", buf, strlen(buf), end - buf);
  printf("strrchr %s strchr0 %td\n",
         strrchr(buf, 'o') ? strrchr(buf, 'o') : "-", strrchr(buf, 0) - buf);
  char *hit = strstr(text, needle);
  printf("strstr %td spn %zu cspn %zu pbrk %s\n", hit ? hit - text : -1,
         strspn(text, "Teh "), strcspn(text, ",:"),
         strpbrk(text, "0123456789") ? strpbrk(text, "0123456789") : "-");
  printf("memchr %td memrchr %td strnlen %zu %zu\n",
         (char *)memchr(text, ' ', strlen(text)) - text,
         (char *)memrchr(text, ' ', strlen(text)) - text, strnlen(text, 5),
         strnlen(text, 1000));
  char *d = strdup(text), *dn = strndup(text, 7);
  printf("dup %s ndup %s eq %d %d coll %d\n", d, dn, memcmp(d, text, 5) == 0,
         memcmp(dn, needle, 3) == 0, strcoll(d, dn) > 0);
  /* glibc returns the bytes' difference, which a program may print */
  printf("cmp %d %d %d\n", strcmp(text, needle), strncmp(needle, text, 2),
         strcmp(dn, d));
  int ntok = 0;
  for (char *t = strtok(d, " ,:!"); t; t = strtok(NULL, " ,:!"))
    printf("tok%d %s ", ntok++, t);
  printf("\nstrerror %s | %s\n", strerror(2), strerror(argc > 4 ? 13 : 22));
  free(dn);
  free(d);
  /* ctype: the tables through the header's macros, in a loop */
  long counts[6] = {0};
  char up[512];
  size_t n = strlen(text);
  for (int r = 0; r < reps; r++)
    for (size_t i = 0; i < n; i++) {
      unsigned char c = (unsigned char)text[i];
      counts[0] += isalpha(c) != 0;
      counts[1] += isdigit(c) != 0;
      counts[2] += isspace(c) != 0;
      counts[3] += ispunct(c) != 0;
      counts[4] += isupper(c) != 0;
      up[i] = (char)(r & 1 ? tolower(c) : toupper(c));
    }
  up[n] = 0;
  printf("ctype %ld %ld %ld %ld %ld %s\n", counts[0], counts[1], counts[2],
         counts[3], counts[4], up);
  int v = 0;
  for (int c = -1; c < 256; c += 7)
    v = v * 31 + lib_isalpha(c) + 3 * lib_isdigit(c) + 5 * lib_isspace(c) +
        7 * lib_isupper(c) + 11 * lib_islower(c) + 13 * lib_isalnum(c) +
        17 * lib_ispunct(c) + 19 * lib_isxdigit(c) + 23 * lib_isprint(c) +
        29 * lib_iscntrl(c) + 31 * lib_isgraph(c) + 37 * lib_isblank(c) +
        41 * lib_toupper(c) + 43 * lib_tolower(c);
  printf("ctype functions %d\n", v);
  /* stdlib */
  int arr[1000];
  for (int i = 0; i < 1000; i++)
    arr[i] = 3 * i + 1;
  long found = 0;
  for (int k = 0; k < 3000; k += 7) {
    int *p = bsearch(&k, arr, 1000, sizeof *arr, cmp_int);
    found += p ? p - arr : -1;
  }
  div_t q = div(-17 * reps, 5);
  ldiv_t lq = ldiv(123456789L * reps, -1000);
  lldiv_t llq = lldiv(-987654321987LL, 1000 + reps);
  printf("bsearch %ld div %d %d ldiv %ld %ld lldiv %lld %lld llabs %lld\n",
         found, q.quot, q.rem, lq.quot, lq.rem, llq.quot, llq.rem,
         llabs(-5LL * reps));
  /* the names the valgrind wrapper exports (PWD, GLIBCPP_FORCE_NEW ...)
   * are set in the modelled run only: argv[5] asks for one */
  const char *name = argc > 5 ? argv[5] : "HOME";
  const char *val = getenv(name);
  printf("getenv %s %s PATH %s\n", name, val ? val : "unset",
         getenv("PATH") ? "set" : "unset");
  char *e;
  printf("strtoimax %jd %ju rest '%s'\n", strtoimax("-0x7fz", &e, 0),
         strtoumax("18446744073709551615", NULL, 10), e);
  return 0;
}
