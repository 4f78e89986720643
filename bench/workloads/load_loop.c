/* load_loop: the synthetic load{N}_loop{M} workloads of the CBANA paper
   (Table II): M loops, each loading N elements.
 *
 *   load_loop LAYOUT STORAGE PATTERN N M [SEED]
 *
 * LAYOUT   array   double a[]                  1 load per element
 *          struct  one struct blob, field f[i % 64] (64 doubles + header):
 *                  a small working set behind struct field offsets
 *          aos     array of struct rec {x, y, id, flags} (32 bytes),
 *                  loads a[i].x and a[i].y     2 loads per element
 *          soa     struct of arrays {x[], y[]}, loads x[i] and y[i]
 *                                              2 loads per element
 * STORAGE  global  static (.bss) objects, N <= 1048576
 *          stack   locals of the loop's caller, N <= 32768
 *          heap    malloc'd blocks of exactly N elements
 * PATTERN  r       regular: index i = 0, 1, ..., N-1 in every loop
 *          ir      irregular: index from a 64-bit LCG computed in the
 *                  program (registers only), seeded with SEED
 *          rand    irregular: index rand() % N, after srand(SEED) (glibc)
 *          line    regular, one cache line apart: element 8*i (array, soa),
 *                  record 2*i (aos), field (8*i) % 64 (struct); the data
 *                  hold 8*N (2*N) elements. With N*64 bytes over the L1
 *                  size every load misses, as in the paper's Table IV rows.
 * N, M     elements per loop and number of loops: N*M loads (2*N*M for aos
 *          and soa), 10^4 to 10^8 with one binary. The global and stack
 *          caps apply to the elements held (8*N or 2*N for line).
 *
 * The data are initialised (written) once before the loops. The program
 * prints one line: the sum of every value loaded. Only malloc/free, printf,
 * atol/strtol and rand/srand are called. */
#include <stdio.h>
#include <stdlib.h>

#define GLOBAL_MAX (1L << 20)
#define STACK_MAX (1L << 15)
#define STRUCT_FIELDS 64

enum layout { L_ARRAY, L_STRUCT, L_AOS, L_SOA };
enum storage { S_GLOBAL, S_STACK, S_HEAP };
enum pattern { P_R, P_IR, P_RAND, P_LINE };

/* elements per 64-byte line: doubles, and 32-byte records */
#define LINE_DOUBLES 8
#define LINE_RECS 2

struct rec {
  double x;
  double y;
  long id;
  long flags;
};

struct blob {
  long id;
  double f[STRUCT_FIELDS];
  long tail;
};

struct soa_global {
  double x[GLOBAL_MAX];
  double y[GLOBAL_MAX];
};

struct soa_stack {
  double x[STACK_MAX];
  double y[STACK_MAX];
};

struct soa_heap {
  double *x;
  double *y;
};

static double g_array[GLOBAL_MAX];
static struct blob g_blob;
static struct rec g_aos[GLOBAL_MAX];
static struct soa_global g_soa;

/* Next state of the in-program generator (Knuth's MMIX LCG); the index is
   taken from the high bits. */
static unsigned long long lcg(unsigned long long s) {
  return s * 6364136223846793005ULL + 1442695040888963407ULL;
}

/* Elements the data hold: N, or one line's worth per load for P_LINE (the
   struct layout always holds its STRUCT_FIELDS fields). */
static long held_elems(int layout, long n, int pat) {
  if (layout == L_STRUCT)
    return STRUCT_FIELDS;
  if (pat != P_LINE)
    return n;
  return n * (layout == L_AOS ? LINE_RECS : LINE_DOUBLES);
}

static void init_array(double *a, long n) {
  long i;
  for (i = 0; i < n; i++)
    a[i] = (double)(i % 1000);
}

static void init_blob(struct blob *b) {
  int k;
  b->id = 7;
  for (k = 0; k < STRUCT_FIELDS; k++)
    b->f[k] = (double)k;
  b->tail = 9;
}

static void init_aos(struct rec *a, long n) {
  long i;
  for (i = 0; i < n; i++) {
    a[i].x = (double)(i % 1000);
    a[i].y = (double)(i * 3 % 1000);
    a[i].id = i;
    a[i].flags = 0;
  }
}

static void init_soa(double *x, double *y, long n) {
  long i;
  for (i = 0; i < n; i++) {
    x[i] = (double)(i % 1000);
    y[i] = (double)(i * 3 % 1000);
  }
}

static double run_array(const double *a, long n, long m, int pat,
                        unsigned seed) {
  double sum = 0.0;
  long i, j;
  unsigned long long s = seed;

  if (pat == P_R) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += a[i];
  } else if (pat == P_LINE) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += a[i * LINE_DOUBLES];
  } else if (pat == P_IR) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        s = lcg(s);
        sum += a[(long)((s >> 33) % (unsigned long long)n)];
      }
  } else {
    srand(seed);
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += a[rand() % n];
  }
  return sum;
}

static double run_struct(const struct blob *b, long n, long m, int pat,
                         unsigned seed) {
  double sum = 0.0;
  long i, j;
  unsigned long long s = seed;

  if (pat == P_R) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += b->f[i % STRUCT_FIELDS];
  } else if (pat == P_LINE) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += b->f[(i * LINE_DOUBLES) % STRUCT_FIELDS];
  } else if (pat == P_IR) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        s = lcg(s);
        sum += b->f[(s >> 33) % STRUCT_FIELDS];
      }
  } else {
    srand(seed);
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += b->f[rand() % STRUCT_FIELDS];
  }
  return sum;
}

static double run_aos(const struct rec *a, long n, long m, int pat,
                      unsigned seed) {
  double sum = 0.0;
  long i, j, k;
  unsigned long long s = seed;

  if (pat == P_R) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += a[i].x + a[i].y;
  } else if (pat == P_LINE) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += a[i * LINE_RECS].x + a[i * LINE_RECS].y;
  } else if (pat == P_IR) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        s = lcg(s);
        k = (long)((s >> 33) % (unsigned long long)n);
        sum += a[k].x + a[k].y;
      }
  } else {
    srand(seed);
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        k = rand() % n;
        sum += a[k].x + a[k].y;
      }
  }
  return sum;
}

static double run_soa(const double *x, const double *y, long n, long m, int pat,
                      unsigned seed) {
  double sum = 0.0;
  long i, j, k;
  unsigned long long s = seed;

  if (pat == P_R) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += x[i] + y[i];
  } else if (pat == P_LINE) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++)
        sum += x[i * LINE_DOUBLES] + y[i * LINE_DOUBLES];
  } else if (pat == P_IR) {
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        s = lcg(s);
        k = (long)((s >> 33) % (unsigned long long)n);
        sum += x[k] + y[k];
      }
  } else {
    srand(seed);
    for (j = 0; j < m; j++)
      for (i = 0; i < n; i++) {
        k = rand() % n;
        sum += x[k] + y[k];
      }
  }
  return sum;
}

static double on_global(int layout, long n, long m, int pat, unsigned seed) {
  switch (layout) {
  case L_ARRAY:
    init_array(g_array, held_elems(L_ARRAY, n, pat));
    return run_array(g_array, n, m, pat, seed);
  case L_STRUCT:
    init_blob(&g_blob);
    return run_struct(&g_blob, n, m, pat, seed);
  case L_AOS:
    init_aos(g_aos, held_elems(L_AOS, n, pat));
    return run_aos(g_aos, n, m, pat, seed);
  default:
    init_soa(g_soa.x, g_soa.y, held_elems(L_SOA, n, pat));
    return run_soa(g_soa.x, g_soa.y, n, m, pat, seed);
  }
}

static double stack_array(long n, long m, int pat, unsigned seed) {
  double a[STACK_MAX];
  init_array(a, held_elems(L_ARRAY, n, pat));
  return run_array(a, n, m, pat, seed);
}

static double stack_struct(long n, long m, int pat, unsigned seed) {
  struct blob b;
  init_blob(&b);
  return run_struct(&b, n, m, pat, seed);
}

static double stack_aos(long n, long m, int pat, unsigned seed) {
  struct rec a[STACK_MAX];
  init_aos(a, held_elems(L_AOS, n, pat));
  return run_aos(a, n, m, pat, seed);
}

static double stack_soa(long n, long m, int pat, unsigned seed) {
  struct soa_stack s;
  init_soa(s.x, s.y, held_elems(L_SOA, n, pat));
  return run_soa(s.x, s.y, n, m, pat, seed);
}

static double on_stack(int layout, long n, long m, int pat, unsigned seed) {
  switch (layout) {
  case L_ARRAY:
    return stack_array(n, m, pat, seed);
  case L_STRUCT:
    return stack_struct(n, m, pat, seed);
  case L_AOS:
    return stack_aos(n, m, pat, seed);
  default:
    return stack_soa(n, m, pat, seed);
  }
}

static double on_heap(int layout, long n, long m, int pat, unsigned seed) {
  double r;

  switch (layout) {
  case L_ARRAY: {
    long h = held_elems(L_ARRAY, n, pat);
    double *a = malloc((size_t)h * sizeof *a);
    if (!a)
      return -1.0;
    init_array(a, h);
    r = run_array(a, n, m, pat, seed);
    free(a);
    return r;
  }
  case L_STRUCT: {
    struct blob *b = malloc(sizeof *b);
    if (!b)
      return -1.0;
    init_blob(b);
    r = run_struct(b, n, m, pat, seed);
    free(b);
    return r;
  }
  case L_AOS: {
    long h = held_elems(L_AOS, n, pat);
    struct rec *a = malloc((size_t)h * sizeof *a);
    if (!a)
      return -1.0;
    init_aos(a, h);
    r = run_aos(a, n, m, pat, seed);
    free(a);
    return r;
  }
  default: {
    long h = held_elems(L_SOA, n, pat);
    struct soa_heap s;
    s.x = malloc((size_t)h * sizeof *s.x);
    s.y = malloc((size_t)h * sizeof *s.y);
    if (!s.x || !s.y)
      return -1.0;
    init_soa(s.x, s.y, h);
    r = run_soa(s.x, s.y, n, m, pat, seed);
    free(s.x);
    free(s.y);
    return r;
  }
  }
}

static int streq(const char *a, const char *b) {
  while (*a && *a == *b) {
    a++;
    b++;
  }
  return *a == *b;
}

static int lookup(const char *s, const char *const names[], int count) {
  int k;
  for (k = 0; k < count; k++)
    if (streq(s, names[k]))
      return k;
  return -1;
}

static const char *const layouts[] = {"array", "struct", "aos", "soa"};
static const char *const storages[] = {"global", "stack", "heap"};
static const char *const patterns[] = {"r", "ir", "rand", "line"};

int main(int argc, char **argv) {
  int layout, storage, pat;
  long n, m, cap;
  unsigned seed = 1;
  double sum;

  if (argc < 6) {
    printf("usage: load_loop array|struct|aos|soa global|stack|heap "
           "r|ir|rand|line N M [SEED]\n");
    return 2;
  }
  layout = lookup(argv[1], layouts, 4);
  storage = lookup(argv[2], storages, 3);
  pat = lookup(argv[3], patterns, 4);
  n = atol(argv[4]);
  m = atol(argv[5]);
  if (argc > 6)
    seed = (unsigned)strtol(argv[6], NULL, 10);
  cap = storage == S_GLOBAL ? GLOBAL_MAX : storage == S_STACK ? STACK_MAX : 0;
  if (layout < 0 || storage < 0 || pat < 0 || n < 1 || m < 0 ||
      (cap > 0 && held_elems(layout, n, pat) > cap)) {
    printf("load_loop: bad arguments (at most %ld elements for global, %ld "
           "for stack)\n",
           GLOBAL_MAX, STACK_MAX);
    return 2;
  }

  if (storage == S_GLOBAL)
    sum = on_global(layout, n, m, pat, seed);
  else if (storage == S_STACK)
    sum = on_stack(layout, n, m, pat, seed);
  else
    sum = on_heap(layout, n, m, pat, seed);

  printf("%.17g\n", sum);
  return sum < 0.0;
}
