/* Column walks over 4.9 MB, five times the LL, in 12 passes (6 M
 * accesses): the nest of sim_threads.sh, long enough for several of
 * time_split.py's epochs and checkpoints, where a guess meets the truth
 * within a pass. */
#include <stdio.h>
#define N 1200
#define M 512
static double a[N][M], b[M];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      a[i][j] = (double)(i ^ j);
  double s = 0;
  for (int rep = 0; rep < 12; rep++)
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
