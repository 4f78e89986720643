/* scanf's assignment suppression (%*): a suppressed conversion takes no
 * argument, with scansets, numbers and characters (MiBench/consumer-typeset,
 * z33.c: "%*[^\t]\t%[^\t]..."). */
#include <stdio.h>
int main(void) {
  char a[32] = "", b[32] = "", c[32] = "";
  long l = 0; int d = 0, x = 0;
  int n = sscanf("k1\tseq\tz\t123\t45\trest of it", "%*[^\t]\t%[^\t]\t%*[^\t]\t%ld\t%d\t%[^\n]", a, &l, &d, b);
  printf("%d [%s] %ld %d [%s]\n", n, a, l, d, b);
  n = sscanf("7 8 9 word", "%*d %d %*d %s %n", &x, c, &d);
  printf("%d %d [%s] %d\n", n, x, c, d);
  n = sscanf("xy", "%*c%c", c);
  printf("%d %c\n", n, c[0]);
  return 0;
}
