/* A variadic logger, as real programs write one: a printf-like wrapper
 * that formats through vsnprintf, vfprintf and vprintf, with va_copy to
 * format the same arguments twice, mixing integers, doubles, strings and
 * more arguments than registers hold. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char line[256];
static unsigned long logged;

static int logmsg(int level, const char *fmt, ...) {
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  logged += (unsigned long)n;
  if (level > 1)
    vfprintf(stderr, fmt, again);
  else
    vprintf(fmt, again);
  va_end(again);
  return n;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20;
  double scale = argc > 2 ? atof(argv[2]) : 0.5;
  double acc = 0;
  for (int i = 0; i < rounds; i++) {
    acc += scale * i;
    logmsg(i % 3, "step %d of %d: %s acc=%.3f %g %ld %u %c %x %e\n", i, rounds,
           i & 1 ? "odd" : "even", acc, acc / (i + 1), (long)i * 1000003,
           (unsigned)i * 7u, 'a' + i % 26, i * 31, acc * 1e-3);
  }
  printf("logged %lu last %zu: %s", logged, strlen(line), line);
  return (int)(logged % 7);
}
