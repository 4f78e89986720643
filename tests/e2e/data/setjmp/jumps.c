/* Non-local jumps in several shapes, for tests/e2e/setjmp_longjmp.sh:
 * error recovery out of a recursion many frames deep, setjmp in a loop,
 * a longjmp from a callee of a callee with the value 0, a jump through a
 * copy of the jmp_buf (a shallow binding stack, as gawk keeps one), and
 * a longjmp out of hot functions that the engine runs as native kernels,
 * and out of a function the interpreter runs for a kernel.
 * `jumps N` runs every shape N times; `jumps returned` jumps to a
 * function that has returned (undefined in C: the analysis must refuse),
 * `jumps mask` saves the signal mask, which the model does not. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static jmp_buf err_buf, loop_buf, tag, saved;
static int table[8192];
static long hot_sum;

/* a recursion whose frames hold arrays, left by a longjmp at `limit` */
__attribute__((noinline)) static int descend(int depth, int limit) {
  int local[24];
  for (int i = 0; i < 24; i++)
    local[i] = depth * i + limit;
  table[(depth * 97) % 8192] += local[depth % 24];
  if (depth == limit)
    longjmp(err_buf, depth);
  int r = descend(depth + 1, limit);
  table[(r + depth) % 8192] += local[5];
  return r + local[3];
}

/* a callee of a callee jumps with 0: setjmp returns 1 */
__attribute__((noinline)) static void inner(int v) {
  table[(v * 31) % 8192]++;
  longjmp(loop_buf, 0);
}
__attribute__((noinline)) static void middle(int v) {
  int pad[12];
  for (int i = 0; i < 12; i++)
    pad[i] = v + i;
  table[(v * 13) % 8192] += pad[v % 12];
  inner(v + pad[1]);
}

/* gawk's binding stack: the current tag saved by memcpy, restored after */
__attribute__((noinline)) static void raise_tag(int v) {
  longjmp(tag, v + 2);
}
__attribute__((noinline)) static int bound(int v) {
  int r;
  memcpy(saved, tag, sizeof(jmp_buf));
  if ((r = setjmp(tag)) == 0)
    raise_tag(v);
  memcpy(tag, saved, sizeof(jmp_buf));
  return r;
}

/* hot functions (kernels): scan calls probe, which jumps out of both */
__attribute__((noinline)) static void probe(int i, int stop) {
  if (i == stop)
    longjmp(err_buf, 1000 + i);
}
__attribute__((noinline)) static long step(int i, int stop) {
  long s = 0;
  for (int k = 0; k < 64; k++)
    s += table[(i * 64 + k) % 8192];
  probe(i, stop);
  return s;
}
__attribute__((noinline)) static void scan(int stop) {
  for (int i = 0; i < 4096; i++)
    hot_sum += step(i, stop);
}

/* a kernel (driver) calls a function the interpreter runs (guarded: it
 * calls setjmp), whose callee, a kernel, jumps past both to main */
__attribute__((noinline)) static void thrower(int v) {
  if (v > 2)
    longjmp(err_buf, 2000 + v);
}
__attribute__((noinline)) static int guarded(int v) {
  jmp_buf local;
  if (setjmp(local))
    return -1;
  thrower(v);
  return v;
}
__attribute__((noinline)) static long driver(int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += guarded(i) + table[i];
  return s;
}

/* text and a number without printf, which -D_FORTIFY_SOURCE=2 makes
 * __printf_chk (and longjmp __longjmp_chk) */
static void put(const char *s, long v) {
  char d[24];
  int n = 0;
  fputs(s, stdout);
  putchar(' ');
  if (v < 0) {
    putchar('-');
    v = -v;
  }
  do
    d[n++] = (char)('0' + v % 10);
  while ((v /= 10) != 0);
  while (n > 0)
    putchar(d[--n]);
}

/* a setjmp whose function returns before the jump */
__attribute__((noinline)) static int set_and_return(void) {
  return setjmp(err_buf);
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "returned") == 0) {
    if (set_and_return() == 0)
      probe(7, 7); /* to err_buf, whose frame has returned */
    return 0;
  }
  if (argc > 1 && strcmp(argv[1], "mask") == 0) {
    sigjmp_buf b;
    return sigsetjmp(b, 1); /* saves the signal mask: not modelled */
  }
  int n = argc > 1 ? atoi(argv[1]) : 20;
  volatile int recovered = 0, sum = 0, tags = 0;
  for (int r = 1; r <= n; r++) {
    int v = setjmp(err_buf);
    if (v == 0)
      descend(0, r % 29 + 3);
    else
      recovered += v;
  }
  volatile int i = 0;
  for (i = 0; i < n; i++) {
    int v = setjmp(loop_buf);
    sum += v;
    if (v == 0)
      middle(i);
  }
  if (setjmp(tag) == 0) {
    for (int k = 0; k < n; k++)
      tags += bound(k);
    longjmp(tag, 1); /* the restored tag: back to main's setjmp */
  }
  for (int k = 0; k < n; k++) {
    int v = setjmp(err_buf);
    if (v == 0)
      scan((k * 37) % 4000 + 50);
    else
      recovered += v;
  }
  for (int k = 0; k < n; k++) {
    int v = setjmp(err_buf);
    if (v == 0)
      hot_sum += driver(k % 5 + 3);
    else
      recovered += v;
  }
  long t = 0;
  for (int k = 0; k < 8192; k++)
    t += (long)table[k] * (k + 1);
  put("recovered", recovered);
  put(" sum", sum);
  put(" tags", tags);
  put(" hot", hot_sum);
  put(" table", t);
  putchar('\n');
  return recovered % 7;
}
