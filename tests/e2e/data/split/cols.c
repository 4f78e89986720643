/* Column walks over 4.9 MB, five times the LL. In 12 passes (6 M
 * accesses, time_split.py) long enough for several epochs and
 * checkpoints, where a guess meets the truth within a pass; in 2
 * (sim_threads.sh, -DPASSES=2) every inner loop is long enough to be
 * split by set. */
#include <stdio.h>
#define N 1200
#define M 512
#ifndef PASSES
#define PASSES 12
#endif
static double a[N][M], b[M];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      a[i][j] = (double)(i ^ j);
  double s = 0;
  for (int rep = 0; rep < PASSES; rep++)
    for (int j = 0; j < M; j += 3) {
      double c = 0;
      for (int i = 0; i < N; i++)
        c += a[i][j] * a[i][M - 1 - j];
      b[j] = c;
      s += c;
    }
  printf("%g\n", s);
  return 0;
}
