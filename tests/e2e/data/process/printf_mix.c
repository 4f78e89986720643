/* printf's conversions, puts and putchar on stdout: glibc's own traffic
 * for each (docs/process-model.md section 9) */
#include <stdio.h>

int main(int argc, char **argv) {
  int n = argc + 41;
  printf("hello %d\n", n);
  printf("%d %d %d|%ld %u %x %c %%\n", n, -n * 1000, n * 77777, 123456789L,
         42u, 255, 'z');
  printf("%s|%-8s|%5d|\n", argv[0] + 2, "ab", n);
  printf("x=%f y=%.3f\n", n * 0.5, n / 3.0);
  for (int i = 0; i < 50; i++)
    printf("line %d of %d\n", i, n);
  puts("a line by puts");
  putchar('c');
  putchar('\n');
  return 0;
}
