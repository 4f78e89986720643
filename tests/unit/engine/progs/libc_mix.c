/* The C library model against the real one: formatting, scanning,
 * strings, memory, qsort with a struct comparator, math, stdin. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
  int key;
  double w;
  char name[12];
};

static int by_key(const void *a, const void *b) {
  const struct rec *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const struct rec *)a)->name, ((const struct rec *)b)->name);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20;
  double scale = argc > 2 ? atof(argv[2]) : 1.5;
  char *end;
  long big = strtol(argc > 3 ? argv[3] : "0x1f rest", &end, 0);
  printf("n=%d scale=%.3f big=%ld rest='%s'\n", n, scale, big, end);
  struct rec *r = calloc((size_t)n, sizeof *r);
  srand(7);
  for (int i = 0; i < n; i++) {
    r[i].key = rand() % 1000;
    r[i].w = sqrt((double)i) * scale;
    snprintf(r[i].name, sizeof r[i].name, "r%03d", (i * 37) % n);
  }
  qsort(r, (size_t)n, sizeof *r, by_key);
  for (int i = 0; i < n && i < 5; i++)
    printf("%d:%s:%.4f ", r[i].key, r[i].name, r[i].w);
  putchar('\n');
  qsort(r, (size_t)n, sizeof *r, by_name);
  printf("first %s last %s\n", r[0].name, r[n - 1].name);
  char buf[64];
  int k = sprintf(buf, "%-6s|%+5d|%x|%o|%e|%g|%c|%%", "ab", 42, 255, 8,
                  12345.678, 0.0001, 'z');
  puts(buf);
  printf("len %d %zu cmp %d %d\n", k, strlen(buf), strcmp("abc", "abd") < 0,
         memcmp(buf, "ab", 2) == 0);
  char copy[64];
  strcpy(copy, buf);
  strncpy(copy, "XYZ", 3);
  printf("%s %s\n", copy, strchr(copy, '|'));
  int a, b2;
  double d;
  char word[16];
  int got = sscanf("17 -4 2.5 hello", "%d %d %lf %15s", &a, &b2, &d, word);
  printf("sscanf %d: %d %d %.2f %s\n", got, a, b2, d, word);
  r = realloc(r, sizeof *r * (size_t)(2 * n));
  memset(r + n, 0, sizeof *r * (size_t)n);
  memmove(r + 1, r, sizeof *r * (size_t)(n - 1));
  printf("after move %s %s\n", r[1].name, r[n].name);
  long sum = 0;
  int v;
  while (scanf("%d", &v) == 1)
    sum += v;
  printf("stdin sum %ld\n", sum);
  printf("math %.6f %.6f %.6f %.6f %.6f\n", pow(2.0, 0.5), log(10.0), exp(1.0),
         floor(-2.5), fmod(7.5, 2.0));
  fprintf(stderr, "to stderr %d\n", n);
  free(r);
  return n % 7;
}
