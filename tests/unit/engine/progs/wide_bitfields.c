/* Bit-field structs whose runs clang coalesces into odd-width integers
 * (i24, i40, i48, i56, i72, i112): loads, stores, shifts, sign
 * extension and arithmetic on them (program.h, wide values). */
#include <stdio.h>
#include <stdlib.h>

struct s24 {
  unsigned a : 7;
  signed b : 13;
  unsigned c : 4;
} __attribute__((packed));
struct s40 {
  long x;
  unsigned a : 20;
  signed b : 19;
  unsigned c : 1;
} __attribute__((packed));
struct s56 {
  signed a : 30;
  unsigned b : 26;
} __attribute__((packed));
struct s112 {
  unsigned long a : 60;
  signed long b : 40;
  unsigned c : 12;
} __attribute__((packed));
struct s72 {
  signed long a : 63;
  unsigned b : 9;
} __attribute__((packed));

struct s24 g24[100];
struct s40 g40[50];
struct s56 g56[64];
struct s112 g112[32];
struct s72 g72[16];

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3;
  unsigned long sum = 0;
  for (int i = 0; i < 100; i++) {
    g24[i].a = i * n;
    g24[i].b = -i * 37;
    g24[i].c = i & 15;
  }
  for (int i = 0; i < 50; i++) {
    g40[i].a = i * 1000 * n;
    g40[i].b = -i * 7777;
    g40[i].c = i & 1;
  }
  for (int i = 0; i < 64; i++) {
    g56[i].a = (i - 32) * 12345678 / n;
    g56[i].b = i * 999983u;
  }
  for (int i = 0; i < 32; i++) {
    g112[i].a = (unsigned long)i * 0x123456789abcdull * n;
    g112[i].b = -(long)i * 987654321l;
    g112[i].c = i * 129;
  }
  for (int i = 0; i < 16; i++) {
    g72[i].a = -(long)i * 0x1234567812345ll * n;
    g72[i].b = i * 31;
  }
  for (int i = 0; i < 100; i++)
    sum += g24[i].a * 3 + g24[i].b + g24[i].c;
  for (int i = 0; i < 50; i++)
    sum += g40[i].a + g40[i].b * 5 + g40[i].c;
  for (int i = 0; i < 64; i++) {
    g56[i].a += g56[(i + 1) & 63].b;
    sum ^= (unsigned long)g56[i].a * 31 + g56[i].b;
  }
  for (int i = 1; i < 32; i++) {
    g112[i].b += g112[i - 1].b / 3;
    sum += g112[i].a % 1000003 + g112[i].b + (g112[i].c << 2);
    if (g112[i].b < g112[i - 1].b)
      sum++;
  }
  for (int i = 0; i < 16; i++)
    sum += (unsigned long)(g72[i].a >> 3) + g72[i].b;
  printf("%lu %zu %zu %zu %zu\n", sum, sizeof(struct s24), sizeof(struct s40),
         sizeof(struct s112), sizeof(struct s72));
  return (int)(sum & 0x3f);
}
