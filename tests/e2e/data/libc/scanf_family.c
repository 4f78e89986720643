/* scanf_family.c: sscanf and fscanf conversions, each call followed by a
 * walk over a 32 KiB array (the whole L1D): every line that glibc's
 * scanf touches inside the call (its frames, the string FILE, libc's
 * tables) evicts one of the array's lines in its set, so the walk's
 * misses on each line of this file depend on the library traffic being
 * where glibc has it. argv[1] picks the conversions, argv[2] the rounds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WALK (32768 / sizeof(long))
static volatile long arr[WALK];

static long walk(void) {
  long s = 0;
  for (size_t i = 0; i < WALK; i += 8)
    s += arr[i];
  return s;
}

static const char *lines[] = {
    "0.245680 2 1 53 53", "12.25 -4", "word 77 1f", "x 123456 deadbeef",
    "   spaced\t 9 a",    "ab",       "q 0 0",      "1.5e3 8"};
#define NLINES (sizeof lines / sizeof lines[0])
static char w[64]; /* the strings converted */

__attribute__((noinline)) static long run_f(int rounds) {
  long sum = 0;
  for (int i = 0; i < rounds; i++) {
    float f = 0;
    int d = 0;
    int r = sscanf(lines[i % NLINES], "%f %d", &f, &d);
    sum += r + (long)(f + f) + d + walk();
  }
  return sum;
}

__attribute__((noinline)) static long run_s(int rounds) {
  long sum = 0;
  for (int i = 0; i < rounds; i++) {
    unsigned long u = 0, x = 0;
    w[0] = 0;
    int r = sscanf(lines[i % NLINES], "%s %lu %lx", w, &u, &x);
    sum += r + (long)(u + x) + w[0] + walk();
  }
  return sum;
}

__attribute__((noinline)) static long run_c(int rounds) {
  long sum = 0;
  for (int i = 0; i < rounds; i++) {
    char c[2] = {0, 0};
    w[0] = 0;
    int r = sscanf(lines[i % NLINES], "%c%c %*s %5s", &c[0], &c[1], w);
    sum += r + c[0] + c[1] + w[0] + walk();
  }
  return sum;
}

__attribute__((noinline)) static long run_file(int rounds) {
  /* a file of words for fscanf */
  FILE *f = fopen("scanf_words.txt", "w");
  if (!f)
    return -1;
  for (int i = 0; i < rounds; i++)
    fputs(i % 3 ? "alpha 12\n" : "be 7\n", f);
  fclose(f);
  FILE *in = fopen("scanf_words.txt", "r");
  if (!in)
    return -1;
  long sum = 0;
  for (int i = 0; i < rounds; i++) {
    int d = 0;
    w[0] = 0;
    int r = fscanf(in, "%s %d", w, &d);
    sum += r + d + w[0] + walk();
  }
  fclose(in);
  remove("scanf_words.txt");
  return sum;
}

int main(int argc, char **argv) {
  int which = argc > 1 ? atoi(argv[1]) : 0;
  int rounds = argc > 2 ? atoi(argv[2]) : 100;
  long sum = which == 0   ? run_f(rounds)
             : which == 1 ? run_s(rounds)
             : which == 2 ? run_c(rounds)
                          : run_file(rounds);
  printf("%ld\n", sum);
  return 0;
}
