/* localtime, localtime_r, gmtime, gmtime_r, asctime, ctime, mktime on fixed
 * times and on time()'s, with the zone names they point to, and the heap
 * blocks glibc makes for the zone: the distance between two of the
 * program's blocks around the first conversion (mode: which call is
 * first: 0 ctime, 1 localtime, 2 localtime_r, 3 gmtime, 4 gmtime_r,
 * 5 mktime), mktime normalizing a day past the month's end. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static long fields(const struct tm *t) {
  long s = t->tm_year;
  s = s * 13 + t->tm_mon;
  s = s * 32 + t->tm_mday;
  s = s * 24 + t->tm_hour;
  s = s * 60 + t->tm_min;
  s = s * 61 + t->tm_sec;
  s = s * 7 + t->tm_wday;
  s = s * 367 + t->tm_yday;
  return s * 2 + t->tm_isdst;
}

static time_t t = 1700000123;

/* the first conversion, by mode (a table: an if-else chain would become a
 * jump table, whose load the engine does not see) */
static void ct(struct tm *r, const struct tm **p) {
  (void)r;
  (void)p;
  printf("first ctime %s", ctime(&t));
}
static void lt(struct tm *r, const struct tm **p) {
  (void)r;
  *p = localtime(&t);
}
static void ltr(struct tm *r, const struct tm **p) {
  (void)p;
  localtime_r(&t, r);
}
static void gt(struct tm *r, const struct tm **p) {
  (void)r;
  *p = gmtime(&t);
}
static void gtr(struct tm *r, const struct tm **p) {
  (void)p;
  gmtime_r(&t, r);
}
static void first_mktime(struct tm *r, const struct tm **p) {
  (void)p;
  *r = (struct tm){.tm_year = 123,
                   .tm_mon = 10,
                   .tm_mday = 14,
                   .tm_hour = 22,
                   .tm_min = 15,
                   .tm_sec = 23,
                   .tm_isdst = -1};
  printf("first mktime %ld\n", (long)mktime(r));
}
static void (*const first[])(struct tm *, const struct tm **) = {ct, lt, ltr,
                                                                 gt, gtr};

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long n = argc > 2 ? atol(argv[2]) : 3;
  char *a = malloc(24);
  struct tm r;
  const struct tm *p = &r;
  if (mode == 5)
    first_mktime(&r, &p);
  else
    first[mode](&r, &p);
  printf("first %ld %s\n", mode ? fields(p) : 0L, mode ? p->tm_zone : "");
  char *b = malloc(24);
  printf("blocks %ld apart\n", (long)(b - a));
  long sum = 0;
  for (long i = 0; i < n; i++) {
    time_t u = 1700000123 + i * 86400 * 40 + i * 3671;
    sum += fields(gmtime(&u));
    sum += fields(localtime(&u));
    sum += fields(gmtime_r(&u, &r));
    sum += fields(localtime_r(&u, &r));
    sum += strlen(asctime(&r));
    sum += strlen(ctime(&u));
    r.tm_mday += 40; /* normalized by mktime */
    r.tm_isdst = -1;
    sum += mktime(&r) + fields(&r);
  }
  printf("sum %ld\n", sum);
  time_t u = t + n * 1000003;
  printf("gmtime %s %ld\n", gmtime(&u)->tm_zone, gmtime(&u)->tm_gmtoff);
  printf("localtime %s %ld\n", localtime(&u)->tm_zone,
         localtime(&u)->tm_gmtoff);
  printf("asctime %s", asctime(gmtime(&u)));
  printf("ctime %s", ctime(&u));
  time_t now = time(NULL);
  char *s = ctime(&now);
  printf("now has %zu chars, ends in newline %d\n", strlen(s),
         s[strlen(s) - 1] == '\n');
  printf("tzname %s %s\n", tzname[0], tzname[1]);
  free(a);
  free(b);
  return 0;
}
