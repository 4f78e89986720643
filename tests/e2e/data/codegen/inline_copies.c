/* Struct copies, string copies, memset and memmove of constant lengths,
 * which the x86-64 code generator expands into loads and stores of the
 * program's own (16-byte vectors and overlapping integer pieces), and a
 * copy past its store limit, which calls memcpy. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct s24 {
  long a[3];
};
struct s40 {
  long a[5];
};
struct s100 {
  char a[100];
};
struct s300 {
  char a[300];
};

static struct s24 A24[1000], B24[1000];
static struct s40 A40[1000], B40[1000];
static struct s100 A100[1000], B100[1000];
static struct s300 A300[100], B300[100];
static char buf[8000];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  int reps = argc > 2 ? atoi(argv[2]) : 3;
  if (n > 1000)
    n = 1000;
  for (int i = 0; i < 1000; i++) {
    B24[i].a[i % 3] = i;
    B40[i].a[i % 5] = 3 * i;
    B100[i].a[i % 100] = (char)i;
  }
  long sum = 0;
  for (int r = 0; r < reps; r++) {
    for (int i = 0; i < n; i++) {
      A24[i] = B24[(i * 7) % n];
      A40[i] = B40[(i * 3) % n];
      A100[i] = B100[(i * 5) % n];
      A300[i % 100] = B300[(i * 3) % 100];
      memcpy(buf + 7 * i, "hello\n", 7);
      memset(&B24[(i * 11) % n], 0, sizeof B24[0]);
      memset(&B40[(i * 13) % n], r + 1, sizeof B40[0]);
      memmove(&B100[i].a[3], &B100[i].a[0], 40);
    }
    for (int i = 0; i < n; i += 10)
      sum += A24[i].a[1] + A40[i].a[2] + A100[i].a[7] + A300[i % 100].a[5] +
             buf[7 * i + 2] + B100[i].a[5];
  }
  printf("%ld\n", sum);
  return 0;
}
