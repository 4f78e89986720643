/* Computed goto (GNU C labels as values): a bytecode interpreter that
 * dispatches through a static table of label addresses (a global
 * initializer of blockaddress constants, which `goto *` reads back), one
 * through a table of label differences (&&x - &&base, an initializer of
 * constant expressions), a label kept in a variable and compared with
 * another, and a stack of continuations. argv[1]: the bytecode, argv[2]:
 * a count. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long run(const char *code, long n) {
  static void *const ops[] = {&&op_inc, &&op_dbl, &&op_neg, &&op_sq,
                              &&op_mod, &&op_jnz, &&op_end};
  long acc = 1, steps = 0;
  const char *pc = code;
  long loops = n;
#define NEXT goto *ops[(unsigned char)*pc++ % 7]
  NEXT;
op_inc:
  acc++;
  steps++;
  NEXT;
op_dbl:
  acc *= 2;
  steps++;
  NEXT;
op_neg:
  acc = -acc;
  steps++;
  NEXT;
op_sq:
  acc = acc * acc % 1000003;
  steps++;
  NEXT;
op_mod:
  acc %= 977;
  steps++;
  NEXT;
op_jnz:
  /* back to the start while loops remain */
  if (--loops > 0)
    pc = code;
  steps++;
  NEXT;
op_end:
  return acc * 1000 + steps;
#undef NEXT
}

/* a table of offsets from one label, as interpreters keep to stay
 * position-independent */
static int relative(int x) {
  static const int offs[] = {&&r_a - &&r_base, &&r_b - &&r_base,
                             &&r_c - &&r_base};
  int r = 0;
  for (int i = 0; i < 9; i++) {
    goto *(&&r_base + offs[(x + i) % 3]);
  r_base:
  r_a:
    r += 3;
    continue;
  r_b:
    r *= 2;
    continue;
  r_c:
    r -= 7;
  }
  return r;
}

/* a label in a variable, compared and jumped to; a stack of labels */
static int chain(int k) {
  void *stack[16];
  int sp = 0, out = 0;
  void *next = k & 1 ? &&odd : &&even;
  stack[sp++] = &&fin;
  stack[sp++] = &&twice;
  goto *next;
odd:
  out += 1;
  goto *stack[--sp];
even:
  out += 10;
  goto *stack[--sp];
twice:
  out *= 2;
  if (next == &&odd)
    out += 100;
  goto *stack[--sp];
fin:
  return out;
}

int main(int argc, char **argv) {
  const char *code = argc > 1 ? argv[1] : "\x00\x01\x03\x04\x05\x06";
  long n = argc > 2 ? atol(argv[2]) : 100;
  char buf[64];
  /* the bytecode's digits as opcodes, ended by op_end */
  size_t len = strlen(code);
  if (len > sizeof buf - 2)
    len = sizeof buf - 2;
  for (size_t i = 0; i < len; i++)
    buf[i] = (char)(code[i] >= '0' && code[i] <= '9' ? code[i] - '0' : 0);
  buf[len] = 6;
  buf[len + 1] = 0;
  printf("run %ld\n", run(buf, n));
  for (int x = 0; x < 4; x++)
    printf("relative %d chain %d\n", relative(x), chain(x));
  return 0;
}
