/* Binary output on stdout and stderr: every byte value, NULs among them,
 * then UTF-8 text. */
#include <stdio.h>

int main(void) {
  unsigned char b[512];
  for (int i = 0; i < 512; i++)
    b[i] = (unsigned char)(i * 7 + i / 256);
  fwrite(b, 1, sizeof b, stdout);
  printf("h\xc3\xa9llo\n");
  fwrite(b + 100, 1, 20, stderr);
  return 0;
}
