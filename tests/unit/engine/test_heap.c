/* The heap model against the real glibc of this machine: a pseudo-random
 * sequence of malloc/calloc/realloc/free/posix_memalign calls is written
 * into a C program, compiled with clang and run; it prints every returned
 * pointer relative to the first block. The model must place every block
 * at the same offset (mmapped blocks: same page offset, and mmapped in
 * both). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "heap.h"

enum { OP_MALLOC, OP_CALLOC, OP_REALLOC, OP_FREE, OP_MEMALIGN };

typedef struct op {
  int kind, slot;
  unsigned long a, b;
} op;

#define NSLOTS 64
#define MAXOPS 4000

static unsigned long long rng = 88172645463325252ull;
static unsigned long rnd(unsigned long n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned long)(rng % n);
}

static unsigned long rsize(void) {
  unsigned long k = rnd(100);
  if (k < 55)
    return rnd(200);
  if (k < 80)
    return 200 + rnd(900);
  if (k < 93)
    return 1100 + rnd(70000);
  return 100000 + rnd(500000);
}

static int gen(op *ops, int n) {
  int live[NSLOTS] = {0};
  int k = 0;
  for (int i = 0; i < n; i++) {
    int s = (int)rnd(NSLOTS);
    op o = {0, s, 0, 0};
    if (!live[s]) {
      unsigned long c = rnd(100);
      if (c < 75) {
        o.kind = OP_MALLOC;
        o.a = rsize();
      } else if (c < 88) {
        o.kind = OP_CALLOC;
        o.a = 1 + rnd(8);
        o.b = rsize() / o.a + 1;
      } else {
        o.kind = OP_MEMALIGN;
        o.a = 32ul << rnd(8);
        o.b = rsize();
      }
      live[s] = 1;
    } else {
      if (rnd(100) < 25) {
        o.kind = OP_REALLOC;
        o.a = rsize() + 1;
      } else {
        o.kind = OP_FREE;
        live[s] = 0;
      }
    }
    ops[k++] = o;
  }
  return k;
}

static const char *kname[] = {"m", "c", "r", "f", "a"};

static int write_prog(const char *path, const op *ops, int n) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fprintf(f,
          "#include <stdio.h>\n#include <stdlib.h>\n"
          "static char *s[%d]; static unsigned long r[%d];\n"
          "int main(void) {\n",
          NSLOTS, n);
  for (int i = 0; i < n; i++) {
    const op *o = &ops[i];
    switch (o->kind) {
    case OP_MALLOC:
      fprintf(f, "s[%d]=malloc(%lu);r[%d]=(unsigned long)s[%d];\n", o->slot,
              o->a, i, o->slot);
      break;
    case OP_CALLOC:
      fprintf(f, "s[%d]=calloc(%lu,%lu);r[%d]=(unsigned long)s[%d];\n", o->slot,
              o->a, o->b, i, o->slot);
      break;
    case OP_REALLOC:
      fprintf(f, "s[%d]=realloc(s[%d],%lu);r[%d]=(unsigned long)s[%d];\n",
              o->slot, o->slot, o->a, i, o->slot);
      break;
    case OP_FREE:
      fprintf(f, "free(s[%d]);\n", o->slot);
      break;
    case OP_MEMALIGN:
      fprintf(f,
              "{void*p=0;posix_memalign(&p,%lu,%lu);s[%d]=p;r[%d]=(unsigned "
              "long)p;}\n",
              o->a, o->b, o->slot, i);
      break;
    }
  }
  fprintf(f,
          "for (int i = 0; i < %d; i++) printf(\"%%lu\\n\", r[i]);\n"
          "return 0;\n}\n",
          n);
  fclose(f);
  return 0;
}

static int compare(int n, uint64_t seed) {
  op *ops = calloc(MAXOPS, sizeof *ops);
  rng = seed;
  n = gen(ops, n);
  char dir[] = "/tmp/cbana_heapXXXXXX";
  if (!mkdtemp(dir)) {
    CHECK(!"mkdtemp");
    free(ops);
    return 1;
  }
  char src[256], exe[256], cmd[1024];
  snprintf(src, sizeof src, "%s/h.c", dir);
  snprintf(exe, sizeof exe, "%s/h", dir);
  CHECK(write_prog(src, ops, n) == 0);
  snprintf(cmd, sizeof cmd, "%s -O0 -w -o %s %s", CB_TEST_CLANG, exe, src);
  int rc = system(cmd);
  CHECK(rc == 0);
  unsigned long *real = calloc((size_t)n, sizeof *real);
  FILE *p = popen(exe, "r");
  for (int i = 0; p && i < n; i++)
    if (fscanf(p, "%lu", &real[i]) != 1)
      break;
  if (p)
    pclose(p);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);

  cb_heap_config cfg = {0x4035000, 0x4a2c000, 1ull << 40};
  cb_heap *h = cb_heap_new(&cfg, NULL);
  uint64_t slots[NSLOTS] = {0};
  unsigned long base = 0;
  uint64_t mbase = cfg.heap_base;
  int bad = 0;
  for (int i = 0; i < n; i++) {
    const op *o = &ops[i];
    uint64_t got = 0;
    switch (o->kind) {
    case OP_MALLOC:
      got = slots[o->slot] = cb_heap_malloc(h, o->a);
      break;
    case OP_CALLOC:
      got = slots[o->slot] = cb_heap_calloc(h, o->a, o->b);
      break;
    case OP_REALLOC:
      got = slots[o->slot] = cb_heap_realloc(h, slots[o->slot], o->a);
      break;
    case OP_FREE:
      cb_heap_free(h, slots[o->slot]);
      slots[o->slot] = 0;
      continue;
    case OP_MEMALIGN:
      got = slots[o->slot] = cb_heap_memalign(h, o->a, o->b);
      break;
    }
    if (getenv("HEAPDBG") && i < 8)
      fprintf(stderr, "op %d %s(%lu,%lu) model %lx real %lx\n", i,
              kname[o->kind], o->a, o->b, (unsigned long)got, real[i]);
    if (!base) {
      base = real[i];
      mbase = got;
    }
    bool mm_model = got >= cfg.mmap_base;
    long rel_real = (long)(real[i] - base);
    bool mm_real = rel_real < -(64l << 20) || rel_real > (64l << 20);
    bool ok;
    if (mm_model || mm_real)
      ok = mm_model == mm_real && (got & 4095) == (real[i] & 4095);
    else
      ok = (long)(got - mbase) == rel_real;
    if (!ok && bad++ < 5)
      fprintf(stderr,
              "seed %llu op %d %s(%lu,%lu) slot %d: model %+ld%s, real "
              "%+ld%s\n",
              (unsigned long long)seed, i, kname[o->kind], o->a, o->b, o->slot,
              (long)(got - mbase), mm_model ? " (mmap)" : "", rel_real,
              mm_real ? " (mmap)" : "");
  }
  CHECK(bad == 0);
  cb_heap_free_model(h);
  free(real);
  free(ops);
  return bad;
}

static void fixed_facts(void) {
  cb_heap_config cfg = {0x4035000, 0x4a2c000, 0x7ff000};
  cb_heap *h = cb_heap_new(&cfg, NULL);
  CHECK_EQ_U64(cb_heap_malloc(h, 10), 0x40352a0);
  CHECK_EQ_U64(cb_heap_brk(h), 0x4056000);
  CHECK_EQ_U64(cb_heap_malloc(h, 1 << 20), 0x4a2c010);
  CHECK_EQ_U64(cb_heap_malloc(h, 1ull << 50), 0);
  cb_heap_free_model(h);
  h = cb_heap_new(&cfg, NULL);
  uint64_t a = cb_heap_malloc(h, 128 * 1024);
  CHECK(a < cfg.mmap_base); /* a first 128 KiB block comes from the top */
  cb_heap_free_model(h);
}

/* The break runs out (valgrind's brk segment; here a small one): sysmalloc
 * moves the top into an mmapped region and leaves two fenceposts after
 * the old top, which the model keeps no record of (malloc.c). Small
 * chunks freed into the fastbins, then consolidated by a large request,
 * merge down to the fence: the chunk below it goes to the unsorted list
 * like any other, and the request is served from the merged chunk, at
 * the first fastbin chunk (the seven before it stay in the tcache). */
static void fence_after_brk(void) {
  cb_heap_config cfg = {0x4035000, 0x4a2c000, 0x40000};
  cb_heap *h = cb_heap_new(&cfg, NULL);
  enum { N = 6000 };
  static uint64_t p[N];
  uint64_t below = 0; /* the last chunk the break held */
  for (int i = 0; i < N; i++) {
    p[i] = cb_heap_malloc(h, 24);
    if (p[i] < cfg.heap_base + cfg.brk_max)
      below = p[i];
  }
  CHECK(below != 0 && p[N - 1] >= cfg.mmap_base); /* the break ran out */
  for (int i = 0; i < N; i++)
    cb_heap_free(h, p[i]);
  CHECK_EQ_U64(cb_heap_malloc(h, 4000), p[7]);
  /* what is left of the merged chunk, up to the fence, serves the next */
  uint64_t rest = below + 32 - (p[7] + 4016);
  CHECK_EQ_U64(cb_heap_malloc(h, rest - 16), p[7] + 4016);
  cb_heap_free_model(h);
}

/* Past valgrind's 8 MiB brk segment (0x7ff000 bytes from the initial
 * break), measured under `env -i valgrind`: calloc(393241, 8) mmapped,
 * stdout's 4096-byte buffer (the probe printed to a file), then malloc(24)
 * and malloc(strlen("%x" of i) + 1) for i = 1 .. 350000.
 * glibc 2.36's first mmap fallback maps 1 MiB (size + old top rounded up
 * to MMAP_AS_MORECORE_SIZE), each later one only the page-rounded request
 * (0x21000: sysmalloc_mmap_fallback gets pagesize and
 * MMAP_AS_MORECORE_SIZE swapped), each a new top behind fenceposts. The
 * pairs' addresses where they jump, and the last pair. */
static void mmap_fallback(void) {
  cb_heap_config cfg = {0x4035000, 0x4a2c000, 0x7ff000};
  cb_heap *h = cb_heap_new(&cfg, NULL);
  CHECK_EQ_U64(cb_heap_calloc(h, 393241, 8), 0x4a2c010);
  CHECK_EQ_U64(cb_heap_malloc(h, 4096), 0x40352a0);
  uint64_t prev_key = 0, n = 0, k = 0;
  int jumps = 0;
  for (unsigned i = 1; i <= 350000; i++) {
    char buf[16];
    n = cb_heap_malloc(h, 24);
    k = cb_heap_malloc(h, (uint64_t)snprintf(buf, sizeof buf, "%x", i) + 1);
    if (i > 1 && n != prev_key + 0x20) {
      jumps++;
      if (jumps == 1) {
        CHECK_EQ_U64(i, 130870);
        CHECK_EQ_U64(n, 0x4d2d010);
      } else if (jumps == 2) {
        CHECK_EQ_U64(i, 149365);
        CHECK_EQ_U64(n, 0x4e4e010);
      } else if (jumps == 3) {
        CHECK_EQ_U64(i, 153588);
        CHECK_EQ_U64(n, 0x4e90010);
      }
    }
    prev_key = k;
  }
  CHECK_EQ_U64(jumps, 49);
  CHECK_EQ_U64(n, 0x5a8dab0);
  CHECK_EQ_U64(k, 0x5a8dad0);
  cb_heap_free_model(h);
}

int main(void) {
  fixed_facts();
  fence_after_brk();
  mmap_fallback();
  uint64_t seeds[] = {88172645463325252ull, 12345,        777,
                      4242424242ull,        99,           31337,
                      2718281828ull,        1618033988ull};
  for (size_t i = 0; i < sizeof seeds / sizeof *seeds; i++)
    compare(i == 0 ? 300 : 3000, seeds[i]);
  return check_done();
}
