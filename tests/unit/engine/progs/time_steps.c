/* Time-step loops around loop templates, run against the reference
 * interpreter by engine_fast_stream (budgets that end inside them too)
 * and fast_identity_progs: steps whose stream is the same every step and
 * steps where it is not.
 * Usage: time_steps MODE T
 *   0  a stencil's time steps, with branches on the inner variables
 *   1  as 0, and the step's variable in an address
 *   2  as 0, and a value computed step by step printed
 *   3  as 0, counting down by 2 in a char, to 0 (!=)
 *   4  as 0, with the exit test between the two sweeps
 *   5  as 0, reading a value the previous step stored as an index */
#include <stdio.h>
#include <stdlib.h>

#define N 300
static double A[N], B[N];
static int hist[64];

/* Its own function: an address from loaded data gets it a native kernel
 * (program.h), which would run main's loops in the other modes. */
__attribute__((noinline)) static void needed_load(long T) {
  for (long t = 0; t < T; t++) {
    for (int i = 1; i < N - 1; i++)
      B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
    hist[hist[0] & 63] += 1;
    for (int i = 1; i < N - 1; i++)
      A[i] = (i & 4) ? B[i] : 0.5 * (B[i - 1] + B[i + 1]);
  }
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  long T = argc > 2 ? atol(argv[2]) : 10;
  for (int i = 0; i < N; i++)
    A[i] = i % 7;
  switch (mode) {
  case 0:
    for (long t = 0; t < T; t++) {
      for (int i = 1; i < N - 1; i++)
        B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
      for (int i = 1; i < N - 1; i++)
        A[i] = (i % 3 == 0) ? B[i] : 0.5 * (B[i - 1] + B[i + 1]);
    }
    break;
  case 1:
    for (long t = 0; t < T; t++) {
      for (int i = 1; i < N - 1; i++)
        B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
      hist[t & 63] += 1;
    }
    break;
  case 2: {
    long steps = 0;
    for (long t = 0; t < T; t++) {
      for (int i = 1; i < N - 1; i++)
        B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
      steps = steps * 3 + 1; /* no closed form: a phi of its own */
    }
    printf("steps %ld\n", steps);
    break;
  }
  case 3:
    for (signed char t = (signed char)(2 * (T % 60)); t != 0; t -= 2) {
      for (int i = 1; i < N - 1; i++)
        B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
      for (int i = 1; i < N - 1; i++)
        A[i] = 0.5 * (B[i - 1] + B[i + 1]);
    }
    break;
  case 4:
    for (long t = 0;; t++) {
      for (int i = 1; i < N - 1; i++)
        B[i] = (A[i - 1] + A[i] + A[i + 1]) / 3.0;
      if (t == T)
        break;
      for (int i = 1; i < N - 1; i++)
        A[i] = 0.25 * B[i];
    }
    break;
  case 5:
    needed_load(T);
    break;
  }
  printf("mode %d T %ld\n", mode, T);
  return 0;
}
