/* atexit and on_exit handlers: glibc runs them in exit() (and after
 * main's return) in the reverse order of their registration, before
 * stdio's buffers are flushed (stdlib/exit.c, __run_exit_handlers). Each
 * handler prints and walks a global array, so that its output, its order
 * and its accesses all show. Usage: atexit_mix MODE [N]: MODE 0 returns
 * from main, 1 calls exit() two calls deep, 2 also registers on_exit
 * handlers and a handler that registers another while the handlers run,
 * 3 exits with exit() with no handler registered. */
#include <stdio.h>
#include <stdlib.h>

#define N 8192 /* doubles: 64 KiB, twice a 32 KiB L1 */

static double table[N];
static int order[16], n_order;
static long n = 1000;

static double walk(int stride, double scale) {
  double s = 0;
  for (long i = 0; i < N; i += stride) {
    s += table[i];
    table[i] = table[i] * scale + 1;
  }
  return s;
}

static void first(void) {
  order[n_order++] = 1;
  printf("first: %.1f\n", walk(1, 0.5));
}

static void second(void) {
  order[n_order++] = 2;
  printf("second: %.1f\n", walk(8, 2.0));
}

static void third(void) {
  order[n_order++] = 3;
  /* the pending output of the program is still in stdout's buffer */
  printf("third: %.1f (order so far:", walk(2, 1.5));
  for (int i = 0; i < n_order; i++)
    printf(" %d", order[i]);
  printf(")\n");
}

static void late(void) {
  order[n_order++] = 4;
  printf("late: %.1f\n", walk(16, 3.0));
}

static void registers_late(void) {
  order[n_order++] = 5;
  /* registered while the handlers run: glibc runs it next */
  if (atexit(late) != 0)
    printf("atexit failed\n");
  printf("registers_late: %.1f\n", walk(4, 0.25));
}

static void on_exit_fn(int status, void *arg) {
  order[n_order++] = 6;
  long k = (long)arg;
  printf("on_exit(%d, %ld): %.1f\n", status, k, walk((int)k, 1.0));
}

static void leave(int code) {
  for (long i = 0; i < N; i++)
    table[i] += (double)(i % 7);
  printf("leaving with %d\n", code);
  exit(code);
}

static int middle(int code) {
  leave(code);
  return 1;
}

int main(int argc, char **argv) {
  int mode = argc > 1 ? atoi(argv[1]) : 0;
  if (argc > 2)
    n = atol(argv[2]);
  for (long i = 0; i < N; i++)
    table[i] = (double)(i % 13) + (double)n / 1000;
  if (mode != 3) {
    if (atexit(first) || atexit(second))
      return 2;
    if (mode == 2 && on_exit(on_exit_fn, (void *)4L))
      return 2;
    if (atexit(third))
      return 2;
    if (mode == 2 &&
        (atexit(registers_late) || on_exit(on_exit_fn, (void *)32L)))
      return 2;
  }
  printf("main: %.1f\n", walk(1, 1.0));
  if (mode == 1 || mode == 3)
    return middle(mode == 1 ? 7 : 0);
  return 3;
}
