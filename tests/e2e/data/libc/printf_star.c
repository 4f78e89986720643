/* printf with widths and precisions from the arguments (%*s, %.*s,
 * %-*d, %*.*f): the output as glibc prints it; the traffic model takes
 * each * argument before the value. */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  const char *w[] = {"a", "bcd", "efghij", ""};
  long s = 0;
  for (int i = 0; i < n; i++)
    s += printf("[%*s|%.*s|%-*d|%*.*f]\n", i % 9, w[i & 3], i % 4, "xyzw",
                (i % 7) - 3, i, 8, i % 5, i * 0.37);
  printf("%ld\n", s);
  return 0;
}
