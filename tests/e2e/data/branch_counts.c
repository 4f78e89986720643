/* A loop and a data-dependent branch whose outcomes are counted by hand
 * in tests/e2e/report_alloc.sh (built with -O0: each condition stays one
 * branch). */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  int hits = 0;
  for (int i = 0; i < n; i++)
    if (i % 3 == 0)
      hits++;
  if (n > 100)
    for (int j = 0; j < n; j++)
      if (j % 7 == 0)
        hits--;
  printf("%d\n", hits);
  return 0;
}
