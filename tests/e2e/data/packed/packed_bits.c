/* Packed structs whose bit-fields clang stores as odd-width integers
 * (i24, i40, i56, i152 loads and stores that the x86 backend narrows,
 * widens or folds into read-modify-writes), volatile ones whose storage
 * is read whole and mostly discarded, and odd-size packed struct copies
 * (7, 11, 13 bytes). */
#include <stdio.h>
#include <stdlib.h>

#pragma pack(push, 1)
struct s3 {
  unsigned a : 5;
  unsigned b : 11;
  signed c : 7;
};
struct s5 {
  unsigned a : 13;
  signed b : 20;
  unsigned c : 7;
};
struct s19 {
  signed f0 : 29;
  signed f1 : 30;
  const signed f2 : 8;
  volatile signed f3 : 20;
  signed f4 : 19;
  unsigned f5 : 30;
  signed f6 : 4;
  const unsigned f7 : 9;
};
struct c7 {
  int x;
  char y, z, w;
};
struct c11 {
  long long x;
  short y;
  char z;
};
struct c13 {
  int x;
  long long y;
  char z;
};
#pragma pack(pop)

static struct s3 g3 = {3, 100, -5};
static struct s5 g5 = {77, -1000, 9};
static struct s19 g19 = {1, -2, 3, 4, -5, 6, 7, 8};
static volatile struct s19 v19 = {11, 12, 13, 14, 15, 16, -7, 18};
static struct s5 arr5[64];
static struct c7 src7 = {1, 2, 3, 4}, dst7[16];
static struct c11 src11 = {5, 6, 7}, dst11[16];
static struct c13 src13 = {8, 9, 10}, dst13[16];

__attribute__((noinline)) static long through(struct s5 *p, int n) {
  long t = 0;
  /* one element an iteration: unrolled, the second element's index is
     `i | 1`, which the pairing cannot place (packed_unrolled.c) */
#pragma clang loop unroll(disable)
  for (int i = 0; i < n; i++) {
    t += p[i].b;
    p[i].c = (unsigned)t;
  }
  return t;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100;
  long sum = 0;
  for (int i = 0; i < n; i++) {
    sum += g3.b + g3.c;
    g3.a = (unsigned)i;
    sum += g5.b;
    g5.c = (unsigned)sum;
    sum += g19.f0;
    sum += g19.f3;
    sum += g19.f5;
    g19.f4 = i;
    sum += v19.f1;
    v19.f3 = i;
    arr5[i & 63].b = 5;
    dst7[i & 15] = src7;
    dst11[i & 15] = src11;
    dst13[i & 15] = src13;
    src7.y += (char)i;
    src11.z += (char)i;
  }
  sum += through(arr5, 64);
  long chk = 0;
  for (int i = 0; i < 16; i++)
    chk += dst7[i].x + dst7[i].w + dst11[i].y + dst13[i].z;
  printf("%ld %ld %d %d %d\n", sum, chk, g3.a, g5.c, g19.f4);
  return 0;
}
