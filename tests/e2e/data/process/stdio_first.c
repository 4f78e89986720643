/* stdio's first use in other ways than a literal of printf: a %f
 * conversion's padding or its first char (__printf_fp's _IO_padn and
 * __overflow), fwrite, getchar from a file or /dev/null (stdin's buffer);
 * each sets its stream up and makes the process's first malloc inside
 * the C library (docs/process-model.md section 9). */
#include <stdio.h>
#include <string.h>

static double v[16];

int main(int argc, char **argv) {
  const char *m = argc > 1 ? argv[1] : "f";
  for (int i = 0; i < 16; i++)
    v[i] = 30.0 + 7.31 * i - (i & 3) * 19.2;
  if (m[0] == 'f') { /* a field wider than the number: padding first */
    for (int i = 0; i < 16; i++) {
      printf("%8.2f", v[i]);
      if (i % 4 == 3)
        puts("");
    }
  } else if (m[0] == 'g') { /* the number's first char first */
    printf("%.2f", v[0]);
    printf("%-9.3f", v[1]);
    printf("%08.1f", -v[2]);
    printf("%.4f", v[3] / 100);
    puts("");
  } else if (m[0] == 'w') { /* fwrite first, 60-byte lines */
    char line[61];
    for (int i = 0; i < 60; i++)
      line[i] = "acgt"[(i * 7) % 4];
    fputs(">ONE sequence\n", stdout);
    for (int i = 0; i < 200; i++) {
      fwrite(line + i % 3, 1, 57, stdout);
      putchar('\n');
    }
  } else { /* getchar to the end, and once more */
    int c;
    long n = 0, s = 0;
    while ((c = getchar()) != EOF) {
      n++;
      s += c;
    }
    c = getchar();
    printf("%ld %ld %d\n", n, s, c);
  }
  return 0;
}
