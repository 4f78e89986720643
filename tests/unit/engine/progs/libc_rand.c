/* rand()/random()/srand() and the rand48 family against glibc: the
 * values, seed48's pointer to the previous state (in libc's data), and
 * their traffic in libc's data (randtbl, the drand48 state), which
 * shares the cache with a binary search of a 40 KB array probed at
 * random indexes between the calls. */
#include <stdio.h>
#include <stdlib.h>

#define N 10240 /* ints: 40 KB */

static int table[N];

static int find(int key) {
  int lo = 0, hi = N - 1;
  while (lo < hi) {
    int mid = (lo + hi) / 2;
    if (table[mid] < key)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  unsigned seed = argc > 2 ? (unsigned)atoi(argv[2]) : 0;
  int mode = argc > 3 ? atoi(argv[3]) : 0;
  for (int i = 0; i < N; i++)
    table[i] = 3 * i;
  if (seed)
    srand(seed);
  long hits = 0;
  for (int i = 0; i < n; i++) {
    int r = mode == 1 ? (int)random() : mode == 2 ? (int)lrand48() : rand();
    hits += find(r % (3 * N));
  }
  printf("hits %ld\n", hits);
  /* the rand48 family */
  printf("unseeded lrand48 %ld drand48 %.17g\n", lrand48(), drand48());
  srand48((long)seed * 7919 + 1);
  printf("lrand48 %ld mrand48 %ld drand48 %.17g\n", lrand48(), mrand48(),
         drand48());
  unsigned short s[3] = {0x1234, 0xabcd, (unsigned short)seed};
  unsigned short *old = seed48(s);
  printf("old %04x %04x %04x\n", old[0], old[1], old[2]);
  printf("lrand48 %ld\n", lrand48());
  unsigned short x[3] = {1, 2, 3};
  double d = 0;
  long t = 0;
  for (int i = 0; i < 100; i++) {
    d += erand48(x);
    t += nrand48(x) ^ jrand48(x);
  }
  printf("x %04x %04x %04x erand48 sum %.17g n^j %ld\n", x[0], x[1], x[2], d,
         t);
  unsigned short p[7] = {5, 6, 7, 0xe66d, 0xdeec, 0x5, 0xb};
  lcong48(p);
  printf("lcong48 lrand48 %ld %ld\n", lrand48(), lrand48());
  srandom(seed + 3);
  printf("random %ld rand %d\n", random(), rand());
  return 0;
}
