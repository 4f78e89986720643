/* A loop that reads stdout and optind, variables libc defines (the
 * executable reaches them through its GOT), among eight lines of one L1
 * set (a 4096-aligned array: 32 KiB, 8 ways, 64 sets). Where the process
 * has them (libc's .data, other sets) the loop's lines all stay cached;
 * placed elsewhere, in the array's set, they would miss every time. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int a[8 * 1024] __attribute__((aligned(4096)));

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  long sum = 0;
  for (long i = 0; i < n; i++) {
    sum += a[(i % 8) * 1024];
    sum += *(FILE *volatile *)&stdout != NULL;
    sum += *(volatile int *)&optind;
    a[(i % 8) * 1024] = (int)i;
  }
  fprintf(stdout, "%ld %d\n", sum, optind);
  return 0;
}
