/* <math.h> in its double and float forms against the real libm: every
 * function on arguments the compiler cannot fold (from argv), printed
 * bit for bit (%a), and the pointer out-parameters (frexp, modf, remquo)
 * and signgam; a loop of calls on an array, whose traffic shares the
 * cache with the calls'. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define D1(f) printf(#f " %a\n", f(x))
#define D2(f) printf(#f " %a\n", f(x, y))
#define F1(f) printf(#f " %a\n", (double)f(xf))
#define F2(f) printf(#f " %a\n", (double)f(xf, yf))

static void one(double x, double y) {
  float xf = (float)x, yf = (float)y;
  double ax = fabs(x) < 1 ? x : 1 / x; /* in [-1, 1] */
  float axf = (float)ax;
  int e = 0, q = 0;
  double ip = 0;
  float ipf = 0;
  printf("x %a y %a\n", x, y);
  printf("asin %a acos %a atanh %a\n", asin(ax), acos(ax), atanh(ax / 2));
  printf("asinf %a acosf %a atanhf %a\n", (double)asinf(axf),
         (double)acosf(axf), (double)atanhf(axf / 2));
  D1(sin), D1(cos), D1(tan), D1(atan), D1(sinh), D1(cosh), D1(tanh);
  D1(asinh), D1(exp), D1(exp2), D1(expm1), D1(cbrt), D1(erf), D1(erfc);
  D1(tgamma), D1(floor), D1(ceil), D1(round), D1(trunc), D1(rint);
  D1(nearbyint), D1(fabs), D1(logb);
  D2(atan2), D2(pow), D2(hypot), D2(fmod), D2(remainder), D2(copysign);
  D2(nextafter), D2(fdim), D2(fmax), D2(fmin);
  F1(sinf), F1(cosf), F1(tanf), F1(atanf), F1(sinhf), F1(coshf), F1(tanhf);
  F1(asinhf), F1(expf), F1(exp2f), F1(expm1f), F1(cbrtf), F1(erff);
  F1(erfcf), F1(tgammaf), F1(floorf), F1(ceilf), F1(roundf), F1(truncf);
  F1(rintf), F1(nearbyintf), F1(fabsf), F1(logbf);
  F2(atan2f), F2(powf), F2(hypotf), F2(fmodf), F2(remainderf), F2(copysignf);
  F2(nextafterf), F2(fdimf), F2(fmaxf), F2(fminf);
  double p = fabs(x) + 0.5;
  float pf = (float)p;
  printf("log %a log2 %a log10 %a log1p %a acosh %a sqrt %a\n", log(p), log2(p),
         log10(p), log1p(p), acosh(p + 1), sqrt(p));
  printf("logf %a log2f %a log10f %a log1pf %a acoshf %a sqrtf %a\n",
         (double)logf(pf), (double)log2f(pf), (double)log10f(pf),
         (double)log1pf(pf), (double)acoshf(pf + 1), (double)sqrtf(pf));
  printf("lgamma %a signgam %d ", lgamma(x), signgam);
  printf("lgammaf %a signgam %d\n", (double)lgammaf(xf), signgam);
  printf("fma %a fmaf %a\n", fma(x, y, 0.1), (double)fmaf(xf, yf, 0.1f));
  printf("ilogb %d ilogbf %d\n", ilogb(x), ilogbf(xf));
  printf("lrint %ld llrint %lld lround %ld llround %lld\n", lrint(x * 3),
         llrint(x * 3), lround(x * 3), llround(x * 3));
  printf("lrintf %ld llrintf %lld lroundf %ld llroundf %lld\n", lrintf(xf * 3),
         llrintf(xf * 3), lroundf(xf * 3), llroundf(xf * 3));
  printf("ldexp %a scalbn %a scalbln %a\n", ldexp(x, 7), scalbn(x, -3),
         scalbln(x, 20L));
  printf("ldexpf %a scalbnf %a scalblnf %a\n", (double)ldexpf(xf, 7),
         (double)scalbnf(xf, -3), (double)scalblnf(xf, 20L));
  double fr = frexp(x, &e);
  printf("frexp %a %d ", fr, e);
  float frf = frexpf(xf, &e);
  printf("frexpf %a %d\n", (double)frf, e);
  double mf = modf(x, &ip);
  float mff = modff(xf, &ipf);
  printf("modf %a %a modff %a %a\n", mf, ip, (double)mff, (double)ipf);
  double rq = remquo(x, y, &q);
  printf("remquo %a %d ", rq, q);
  float rqf = remquof(xf, yf, &q);
  printf("remquof %a %d\n", (double)rqf, q);
}

int main(int argc, char **argv) {
  double x = argc > 1 ? atof(argv[1]) : 2.5;
  double y = argc > 2 ? atof(argv[2]) : 0.75;
  int n = argc > 3 ? atoi(argv[3]) : 1000;
  one(x, y);
  one(-x * 3.7, y + 1);
  one(1 / x, -y);
  const char *tag = argc > 4 ? argv[4] : "";
  double qn = nan(tag);
  float qnf = nanf(tag);
  unsigned long long qb;
  unsigned qbf;
  memcpy(&qb, &qn, 8);
  memcpy(&qbf, &qnf, 4);
  printf("nan %llx nanf %x\n", qb, qbf);
  /* calls in a loop, their out-parameters into an array */
  double *a = malloc(sizeof(double) * (size_t)n);
  int *ex = malloc(sizeof(int) * (size_t)n);
  double s = 0;
  for (int i = 0; i < n; i++)
    a[i] = sin(x + i) * exp2(-(double)(i % 7)) + asin((i % 50) / 50.0);
  for (int i = 0; i < n; i++)
    s += frexp(a[i], &ex[i]) + hypot(a[i], y) + sinf((float)a[i]);
  long t = 0;
  for (int i = 0; i < n; i++)
    t += ex[i] + lround(a[i] * 100);
  printf("sum %a %ld\n", s, t);
  free(ex);
  free(a);
  return 0;
}
