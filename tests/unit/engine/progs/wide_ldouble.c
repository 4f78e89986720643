/* long double (x86_fp80): arithmetic, compares, conversions, 10-byte
 * loads and stores in 16-byte slots, libm's l functions and printf's
 * %Lf, %La, %Lg and %Le (program.h, wide values). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

long double a[200];
struct p {
  long double v;
  int k;
} ps[40];

long double acc(const long double *p, int n, long double s) {
  long double r = 0;
  for (int i = 0; i < n; i++)
    r += p[i] * s - (long double)i / 3;
  return r;
}

int main(int argc, char **argv) {
  long double x = (argc > 1 ? atoi(argv[1]) : 1) * 1.25L + 1e-10L;
  for (int i = 0; i < 200; i++)
    a[i] = (i + x) / 7.0L;
  for (int i = 0; i < 40; i++) {
    ps[i].v = a[i * 5] * a[i];
    ps[i].k = (int)(ps[i].v * 1000);
  }
  long double s = acc(a, 200, 1.5L);
  printf("%.20Lf %La %Lg %Le\n", s, s, s, s);
  printf("%Lf %Lf %Lf %Lf %Lf\n", sqrtl(x), fabsl(-x), floorl(s),
         powl(x, 1.5L), sinl(x));
  printf("%Lf %Lf %Lf %Lf %Lf %Lf\n", expl(x), logl(s), cosl(s), ceill(s),
         fmodl(s, 3.0L), atan2l(s, x));
  printf("%.25Lg %.25Lg %.25Lg %.25Lg\n", cbrtl(s), tgammal(x), erfl(x / 4),
         hypotl(s, x));
  int ex;
  long double ip;
  long double fr = frexpl(s, &ex);
  long double mf = modfl(s, &ip);
  printf("%Lf %d %Lf %Lf %ld %lld\n", fr, ex, mf, ip, lrintl(s),
         llroundl(s * 3));
  double d = (double)s;
  float f = (float)s;
  long long ll = (long long)s;
  unsigned long ul = (unsigned long)(s * 1e6L);
  printf("%.17g %.9g %lld %lu %d\n", d, f, ll, ul,
         s > x && s != x && !(s < x));
  long sum = 0;
  for (int i = 0; i < 40; i++)
    sum += ps[i].k;
  printf("%ld %Lf %.30Lf\n", sum, (long double)sum / 3, 1e100L * 1e100L);
  return (int)ll & 0x7f;
}
