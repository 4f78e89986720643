/* signal and isatty, as programs that install interrupt handlers and
 * test their terminal at start-up do (Prolangs' bc and unix-tbl, cdecl,
 * ispell): signal returns the handler installed before (SIG_DFL first,
 * then each one set), SIG_ERR with EINVAL for SIGKILL, SIGSTOP and
 * numbers out of range; isatty is 0 with ENOTTY on the standard
 * descriptors (a file or /dev/null, pipes) and EBADF on a closed one.
 * Calls between passes over an array, so that their frames share the
 * cache with it. argv[1]: passes. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int hits;
static void on_int(int s) {
  hits += s;
}
static void on_term(int s) {
  hits -= s;
}

static int data[4096];

int main(int argc, char **argv) {
  int passes = argc > 1 ? atoi(argv[1]) : 10;
  int tty = 0, same = 0, ebadf = 0, enotty = 0;
  long sum = 0;
  void (*prev)(int) = signal(SIGINT, on_int);
  printf("first SIGINT handler was SIG_DFL: %d\n", prev == SIG_DFL);
  for (int p = 0; p < passes; p++) {
    for (int i = 0; i < 4096; i += 16)
      sum += data[i] += i + p;
    prev = signal(SIGINT, (p & 1) ? on_int : on_term);
    same += prev == ((p & 1) ? on_term : on_int) || (p == 0 && prev == on_int);
    prev = signal(SIGUSR1 + (p % 3), SIG_IGN);
    errno = 0;
    tty += isatty(p % 3);
    enotty += errno == ENOTTY;
    errno = 0;
    tty += isatty(200 + p);
    ebadf += errno == EBADF;
  }
  printf("handlers returned in order: %d of %d\n", same, passes);
  printf("SIGUSR1 now SIG_IGN: %d\n", signal(SIGUSR1, SIG_DFL) == SIG_IGN);
  errno = 0;
  printf("SIGKILL: SIG_ERR %d, EINVAL %d\n", signal(SIGKILL, on_int) == SIG_ERR,
         errno == EINVAL);
  errno = 0;
  printf("signal 65: SIG_ERR %d, EINVAL %d\n", signal(65, on_int) == SIG_ERR,
         errno == EINVAL);
  printf("isatty: %d terminals, %d ENOTTY, %d EBADF\n", tty, enotty, ebadf);
  printf("sum %ld, handler runs %d\n", sum, hits);
  return 0;
}
