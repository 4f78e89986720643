/* Exit handlers in the whole process: atexit and on_exit handlers that
 * walk a global array, one registered while the handlers run, exit by
 * main's return (no argument) or by exit() (an argument): glibc's
 * registrations, __run_exit_handlers' loop around the handlers and the
 * rest of exit against cachegrind's summary. */
#include <stdio.h>
#include <stdlib.h>

static double t[4096];

static void walk8(void) {
  for (int i = 0; i < 4096; i += 8)
    t[i] += 1;
}

static void walk4(void) {
  for (int i = 0; i < 4096; i += 4)
    t[i] *= 2;
}

static void late(void) {
  puts(t[64] > 100 ? "late: big" : "late: small");
}

static void on_exit_fn(int status, void *arg) {
  t[status] += (double)(long)arg;
  if (atexit(late))
    puts("atexit failed");
}

int main(int argc, char **argv) {
  if (atexit(walk8) || on_exit(on_exit_fn, (void *)5L) || atexit(walk4))
    return 1;
  for (int i = 0; i < 4096; i++)
    t[i] = i;
  puts("main done");
  if (argc > 1)
    exit(argc);
  return 0;
}
