/* getpid (the system call alone) and difftime (x87 through one stack
 * slot): values and the calls' own-code accesses. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static time_t stamps[64];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  for (int i = 0; i < 64; i++)
    stamps[i] = (time_t)1700000000 + (time_t)i * i * 977 - 31 * i;
  double sum = 0;
  for (int k = 0; k < n; k++)
    sum += difftime(stamps[k & 63], stamps[(k * 7 + 3) & 63]);
  double big = difftime((time_t)0x7fffffffffffffffLL, (time_t)-5);
  pid_t p = getpid();
  printf("%.6f %.17g %d %d\n", sum, big, p > 0, getpid() == p);
  return 0;
}
