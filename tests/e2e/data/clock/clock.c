/* The virtual clock (docs/process-model.md): a timer calibration that
 * waits for clock() to tick, clock() around growing work, time() and
 * gettimeofday() around sleep(2), clock_gettime and getrusage. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
static double a[1 << 16];
static long work(int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += (long)(a[i & 0xffff] += i * 0.5);
  return s;
}
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  clock_t c0 = clock();
  /* wait for the clock to tick, as timer calibrations do */
  clock_t c1 = clock();
  long spins = 0;
  while (c1 == c0) {
    c1 = clock();
    spins++;
  }
  long s = 0;
  clock_t t[5];
  for (int k = 0; k < 5; k++) {
    s += work(n * (k + 1));
    t[k] = clock();
  }
  struct timeval tv0, tv1;
  gettimeofday(&tv0, NULL);
  time_t w0 = time(NULL);
  sleep(2);
  time_t w1 = time(NULL);
  gettimeofday(&tv1, NULL);
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  printf("%ld spins %ld", s, spins);
  for (int k = 0; k < 5; k++)
    printf(" %ld", (long)(t[k] - c1));
  printf(" slept %ld %ld us %ld ns %ld ru %ld.%06ld\n", (long)(w1 - w0),
         (long)((tv1.tv_sec - tv0.tv_sec) * 1000000 + tv1.tv_usec - tv0.tv_usec),
         (long)ts.tv_nsec % 1000, (long)ts.tv_sec - 1700000000,
         (long)ru.ru_utime.tv_sec, (long)ru.ru_utime.tv_usec);
  return 0;
}
