/* sleep and getrusage around a loop over an array: their values (sleep
 * returns 0, getrusage 0 with a non-negative CPU time that does not go
 * back, EINVAL for an unknown `who`), errno kept by sleep, and their
 * traffic (sleep's frames, errno and __libc_single_threaded) in the
 * program's cache. argv[1]: seconds to sleep (0 or 1), argv[2]: passes. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

static long data[8192];

static long usec(const struct timeval *t) {
  return t->tv_sec * 1000000L + t->tv_usec;
}

int main(int argc, char **argv) {
  unsigned secs = argc > 1 ? (unsigned)atoi(argv[1]) : 0;
  int passes = argc > 2 ? atoi(argv[2]) : 10;
  struct rusage a, b, c;
  int ra = getrusage(RUSAGE_SELF, &a);
  long sum = 0;
  errno = 7;
  unsigned left = 0;
  for (int p = 0; p < passes; p++) {
    for (int i = 0; i < 8192; i += 4)
      sum += data[i] += i ^ p;
    left += sleep(p == 0 ? secs : 0);
  }
  int kept = errno;
  int rb = getrusage(RUSAGE_SELF, &b);
  int rc = getrusage(RUSAGE_CHILDREN, &c);
  int bad = getrusage(12345, &c);
  int bad_errno = errno;
  printf("sleep left %u, errno kept %d\n", left, kept);
  printf("getrusage %d %d %d, bad %d errno %d\n", ra, rb, rc, bad, bad_errno);
  printf("cpu time forward %d, children none %d\n",
         usec(&b.ru_utime) + usec(&b.ru_stime) >=
             usec(&a.ru_utime) + usec(&a.ru_stime),
         usec(&c.ru_utime) + usec(&c.ru_stime) == 0);
  printf("sum %ld\n", sum);
  return 0;
}
