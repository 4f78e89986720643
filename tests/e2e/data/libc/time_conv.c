/* localtime, localtime_r, gmtime, gmtime_r, asctime and ctime on fixed
 * times and on time()'s, with the zone names they point to, and the heap
 * blocks glibc makes for the zone: the distance between two of the
 * program's blocks around the first conversion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static void show(const char *what, const struct tm *t) {
  printf("%s: %04d-%02d-%02d", what, t->tm_year + 1900, t->tm_mon + 1,
         t->tm_mday);
  printf(" %02d:%02d:%02d", t->tm_hour, t->tm_min, t->tm_sec);
  printf(" wday %d yday %d dst %d", t->tm_wday, t->tm_yday, t->tm_isdst);
  printf(" off %ld", t->tm_gmtoff);
  printf(" %s\n", t->tm_zone);
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long n = argc > 2 ? atol(argv[2]) : 3;
  char *a = malloc(24);
  time_t t = 1700000123;
  char *s;
  struct tm r;
  if (mode == 0) {
    s = ctime(&t);
    printf("ctime %s", s);
  } else if (mode == 1) {
    show("localtime", localtime(&t));
  } else {
    show("localtime_r", localtime_r(&t, &r));
  }
  char *b = malloc(24);
  printf("blocks %ld apart\n", (long)(b - a));
  for (long i = 0; i < n; i++) {
    time_t u = t + i * 86400 * 40 + i * 3671;
    show("gmtime", gmtime(&u));
    show("localtime", localtime(&u));
    show("gmtime_r", gmtime_r(&u, &r));
    show("localtime_r", localtime_r(&u, &r));
    printf("asctime %s", asctime(&r));
    printf("ctime %s", ctime(&u));
  }
  time_t now = time(NULL);
  s = ctime(&now);
  printf("now has %zu chars, ends in newline %d\n", strlen(s),
         s[strlen(s) - 1] == '\n');
  printf("tzname %s %s\n", tzname[0], tzname[1]);
  free(a);
  free(b);
  return 0;
}
