/* Switches in native kernels (frontend/jit_ops.c's gen_switch): a small
 * byte-code machine whose program is random data, so that the dispatch
 * loop loads its addresses from what it loaded (a kernel's region), and
 * every case value, the default, case ranges the compiler keeps as a
 * switch, and 8- and 16-bit switch values run in it. The path signature
 * and the branch counts (cbana paths) see every case taken.
 *
 *   kernel_switch MODE [N]
 *
 * vm       the machine: 12 opcodes on a register file and a memory
 * bytes    a switch on bytes of a buffer, by ranges and single values
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t lcg(uint64_t s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}

__attribute__((noinline)) static uint64_t vm(long n) {
  uint8_t *code = malloc(n);
  int64_t reg[16] = {0};
  int64_t mem[256] = {0};
  uint64_t r = 11;
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    code[i] = (uint8_t)(r >> 56);
  }
  long steps = 0;
  for (long pc = 0; pc < n; pc++, steps++) {
    uint8_t c = code[pc];
    unsigned a = c & 15, b = (c >> 4) & 15;
    switch (c % 13) {
    case 0:
      reg[a] += reg[b] + 1;
      break;
    case 1:
      reg[a] = mem[(uint8_t)reg[b]];
      break;
    case 2:
      mem[(uint8_t)reg[a]] = reg[b];
      break;
    case 3:
      reg[a] ^= reg[b] << 3;
      break;
    case 4:
      reg[a] = reg[a] * 31 + b;
      break;
    case 5:
      if (reg[a] & 1)
        pc += 2;
      break;
    case 6:
      reg[b] = reg[a] >> 1;
      break;
    case 7:
      mem[b * 16 + a] += 1;
      break;
    case 8:
      reg[a] -= mem[(uint8_t)(reg[b] + a)];
      break;
    case 10:
      reg[a] = (int64_t)(uint16_t)reg[b];
      break;
    case 11:
      reg[(a + 1) & 15] = reg[a] | b;
      break;
    default: /* 9 and 12 */
      reg[0]++;
      break;
    }
  }
  uint64_t h = (uint64_t)steps;
  for (int i = 0; i < 16; i++)
    h = (h ^ (uint64_t)reg[i]) * 0x100000001b3ull;
  for (int i = 0; i < 256; i++)
    h = (h ^ (uint64_t)mem[i]) * 0x100000001b3ull;
  free(code);
  return h;
}

__attribute__((noinline)) static uint64_t bytes(long n) {
  uint16_t *w = malloc(n * sizeof *w);
  long cnt[8] = {0};
  uint64_t r = 3;
  for (long i = 0; i < n; i++) {
    r = lcg(r);
    w[i] = (uint16_t)(r >> 48);
  }
  for (long i = 0; i < n; i++) {
    uint16_t v = w[w[i] % n];
    switch (v >> 10) {
    case 0:
    case 1:
      cnt[0]++;
      break;
    case 7:
      cnt[1] += v & 3;
      break;
    case 13:
    case 14:
    case 15:
      cnt[2]--;
      break;
    case 40:
      cnt[3] ^= v;
      break;
    case 63:
      cnt[4] += 2;
      break;
    case 21:
      cnt[v & 7]++;
      break;
    default:
      cnt[5]++;
    }
  }
  uint64_t h = 0;
  for (int i = 0; i < 8; i++)
    h = (h ^ (uint64_t)cnt[i]) * 0x100000001b3ull;
  free(w);
  return h;
}

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "vm";
  long n = argc > 2 ? atol(argv[2]) : 20000;
  uint64_t h;
  if (!strcmp(mode, "vm"))
    h = vm(n);
  else if (!strcmp(mode, "bytes"))
    h = bytes(n);
  else
    return 2;
  printf("%s %016llx\n", mode, (unsigned long long)h);
  return 0;
}
