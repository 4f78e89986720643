/* A program that links against a C library function cbana does not model
 * (sendto), on paths only some inputs take: input 0 never calls it and is
 * analysed in full; input 1 calls it directly from a hot loop, input 2
 * through a pointer, and both stop there with the call's file:line. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

typedef ssize_t sender(int, const void *, size_t, int, const struct sockaddr *,
                       socklen_t);
/* a table the optimizer cannot see through: the call stays indirect */
sender *volatile senders[1] = {sendto};

static long work(int *a, int n, int mode) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    a[i] = i * 3;
    if (mode == 1 && i == n - 7)
      s += sendto(-1, "direct", 6, 0, NULL, 0);
  }
  for (int i = 0; i < n; i++)
    s += a[(i * 17) % n];
  return s;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  int n = 20000;
  int *a = malloc(n * sizeof *a);
  printf("sum %ld\n", work(a, n, mode));
  if (mode == 2)
    printf("via pointer %zd\n", senders[0](-1, "ptr", 3, 0, NULL, 0));
  free(a);
  return 0;
}
