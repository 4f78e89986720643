/* A program whose run takes as long as its argument says: N sweeps over
 * a 1 MiB array (about 4 * 2^17 operations each). stop_signal.sh runs it
 * for 10 sweeps, which end, and for 10^9, which take days in the model,
 * and stops that one from outside. */
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 17)
static long a[N];

int main(int argc, char **argv) {
  long sweeps = argc > 1 ? atol(argv[1]) : 1;
  long s = 0;
  for (long k = 0; k < sweeps; k++)
    for (int i = 0; i < N; i++) {
      a[i] += i ^ k;
      s += a[(i * 7) & (N - 1)];
    }
  printf("%ld\n", s);
  return 0;
}
