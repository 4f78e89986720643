/* Column walks over 4.9 MB, five times the LL (time_split.py; the same
 * nest as sim_threads.sh, one pass more). */
#include <stdio.h>
#define N 1200
#define M 512
static double a[N][M], b[M];
int main(void) {
  for (int i = 0; i < N; i++)
    for (int j = 0; j < M; j++)
      a[i][j] = (double)(i ^ j);
  double s = 0;
  for (int rep = 0; rep < 3; rep++)
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
