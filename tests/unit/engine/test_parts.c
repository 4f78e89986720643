/* Engine parts: glibc's rand/random sequences against the host glibc,
 * the inputs-file parser, and the sparse memory model. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cbana/engine.h"
#include "cbana/inputs.h"
#include "check.h"
#include "lineset.h"
#include "mem.h"
#include "rand.h"

static void test_rand(void) {
  unsigned seeds[] = {1, 0, 3, 42, 7, 12345, 0x80000000u, 0xffffffffu};
  for (size_t k = 0; k < sizeof seeds / sizeof *seeds; k++) {
    cb_rand g;
    cb_rand_seed(&g, seeds[k]);
    srand(seeds[k]);
    int bad = 0;
    for (int i = 0; i < 100000; i++)
      if (cb_rand_next(&g) != rand())
        bad++;
    CHECK_EQ_U64(bad, 0);
  }
  /* srandom/random share the generator */
  cb_rand g;
  cb_rand_seed(&g, 99);
  srandom(99);
  int bad = 0;
  for (int i = 0; i < 1000; i++)
    if (cb_rand_next(&g) != (int32_t)random())
      bad++;
  CHECK_EQ_U64(bad, 0);
}

static int split(const char *line, char ***w, char **in) {
  char err[200];
  return cb_inputs_split(line, w, in, err, sizeof err);
}

static void free_split(char **w, int n, char *in) {
  for (int i = 0; i < n; i++)
    free(w[i]);
  free(w);
  free(in);
}

static void test_split(void) {
  char **w;
  char *in;
  int n = split("1 2", &w, &in);
  CHECK_EQ_U64(n, 2);
  CHECK(n == 2 && !strcmp(w[0], "1") && !strcmp(w[1], "2") && !in);
  free_split(w, n, in);

  n = split("  'a b'  \"c \\\"d\\\" $\"  e\\ f g'h'i  ", &w, &in);
  CHECK_EQ_U64(n, 4);
  if (n == 4) {
    CHECK(!strcmp(w[0], "a b"));
    CHECK(!strcmp(w[1], "c \"d\" $"));
    CHECK(!strcmp(w[2], "e f"));
    CHECK(!strcmp(w[3], "ghi"));
  }
  free_split(w, n, in);

  n = split("x '' \"\" # comment 'unterminated", &w, &in);
  CHECK_EQ_U64(n, 3);
  CHECK(n == 3 && !strcmp(w[1], "") && !strcmp(w[2], ""));
  free_split(w, n, in);

  n = split("a#b '#' \\#c", &w, &in);
  CHECK_EQ_U64(n, 3);
  CHECK(n == 3 && !strcmp(w[0], "a#b") && !strcmp(w[1], "#") &&
        !strcmp(w[2], "#c"));
  free_split(w, n, in);

  n = split("5 < data.txt 6", &w, &in);
  CHECK_EQ_U64(n, 2);
  CHECK(in && !strcmp(in, "data.txt"));
  free_split(w, n, in);

  n = split("<'my file' 7", &w, &in);
  CHECK_EQ_U64(n, 1);
  CHECK(in && !strcmp(in, "my file"));
  free_split(w, n, in);

  n = split("9<f", &w, &in);
  CHECK_EQ_U64(n, 1);
  CHECK(n == 1 && !strcmp(w[0], "9") && in && !strcmp(in, "f"));
  free_split(w, n, in);

  CHECK(split("a 'b", &w, &in) < 0);
  CHECK(split("a \"b", &w, &in) < 0);
  CHECK(split("a <", &w, &in) < 0);
  CHECK(split("a < # c", &w, &in) < 0);
  CHECK(split("< a < b", &w, &in) < 0);
  CHECK(split("a \\", &w, &in) < 0);
}

static void test_parse(void) {
  char dir[] = "/tmp/cbana_inputsXXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char path[256];
  snprintf(path, sizeof path, "%s/data", dir);
  FILE *f = fopen(path, "w");
  fputs("3 1 2 3\n", f);
  fclose(f);
  const char *text = "# header\n"
                     "\n"
                     "1 2   # trailing\n"
                     "'unterminated\n"
                     "< data\n"
                     "x < missing\n"
                     "<\n"
                     "  last\tline";
  cb_inputs in;
  int rc = cb_inputs_parse_text(text, "t.inputs", dir, &in);
  CHECK(rc == -1);
  CHECK_EQ_U64(in.n, 3);
  CHECK_EQ_U64(in.n_errors, 3);
  if (in.n == 3) {
    CHECK_EQ_U64(in.sets[0].line, 3);
    CHECK_EQ_U64(in.sets[0].argc, 2);
    CHECK_EQ_U64(in.sets[1].line, 5);
    CHECK_EQ_U64(in.sets[1].argc, 0);
    CHECK(in.sets[1].stdin_path && !strcmp(in.sets[1].stdin_path, path));
    CHECK_EQ_U64(in.sets[2].line, 8);
    CHECK(in.sets[2].argc == 2 && !strcmp(in.sets[2].args[1], "line"));
  }
  if (in.n_errors == 3) {
    CHECK(strstr(in.errors[0], "t.inputs:4:") == in.errors[0]);
    CHECK(strstr(in.errors[0], "quote") != NULL);
    CHECK(strstr(in.errors[1], "t.inputs:6:") == in.errors[1]);
    CHECK(strstr(in.errors[1], "missing") != NULL);
    CHECK(strstr(in.errors[2], "t.inputs:7:") == in.errors[2]);
  }
  cb_inputs_free(&in);

  snprintf(path, sizeof path, "%s/x.inputs", dir);
  f = fopen(path, "w");
  fputs("1\n< data\n", f);
  fclose(f);
  rc = cb_inputs_parse_file(path, &in);
  CHECK(rc == 0 && in.n == 2);
  cb_inputs_free(&in);
  CHECK(cb_inputs_parse_file("/nonexistent/x.inputs", &in) == -1);
  CHECK(in.n_errors == 1 &&
        strstr(in.errors[0], "/nonexistent/x.inputs") != NULL);
  cb_inputs_free(&in);

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  CHECK(system(cmd) == 0);
}

static void test_mem(void) {
  cb_mem m;
  cb_mem_init(&m);
  CHECK(cb_mem_ptr(&m, 0x1000) == NULL);
  cb_mem_map(&m, 0x10000, 0x13000);
  uint8_t *p = cb_mem_ptr(&m, 0x10008);
  CHECK(p != NULL && *p == 0);
  *p = 7;
  CHECK(*cb_mem_ptr(&m, 0x10008) == 7);
  CHECK(cb_mem_ptr(&m, 0x13000) == NULL);
  CHECK(cb_mem_ptr(&m, 0xffff) == NULL);
  /* across pages */
  uint64_t v = 0x1122334455667788ull, r = 0, bad = 0;
  CHECK(cb_mem_write(&m, 0x10ffc, &v, 8, &bad));
  CHECK(cb_mem_read(&m, 0x10ffc, &r, 8, &bad) && r == v);
  CHECK(!cb_mem_write(&m, 0x12ffc, &v, 8, &bad) && bad == 0x13000);
  /* grow, unmap and map again: zeros */
  cb_mem_map(&m, 0x13000, 0x14000);
  CHECK(cb_mem_write(&m, 0x12ffc, &v, 8, &bad));
  cb_mem_unmap(&m, 0x12000, 0x14000);
  CHECK(cb_mem_ptr(&m, 0x12ffc) == NULL);
  CHECK(cb_mem_ptr(&m, 0x11000) != NULL);
  cb_mem_map(&m, 0x12000, 0x14000);
  CHECK(cb_mem_read(&m, 0x12ff8, &r, 8, &bad) && r == 0);
  /* many pages (table growth, translation cache conflicts) */
  cb_mem_map(&m, 0x40000000, 0x40000000 + (64u << 20));
  for (uint64_t a = 0x40000000; a < 0x40000000 + (64u << 20); a += 4096)
    *cb_mem_ptr(&m, a) = (uint8_t)(a >> 12);
  int badn = 0;
  for (uint64_t a = 0x40000000; a < 0x40000000 + (64u << 20); a += 4096)
    badn += *cb_mem_ptr(&m, a) != (uint8_t)(a >> 12);
  CHECK_EQ_U64(badn, 0);
  cb_mem_unmap(&m, 0x40001000, 0x40000000 + (64u << 20));
  CHECK(cb_mem_ptr(&m, 0x40000000) != NULL);
  CHECK(cb_mem_ptr(&m, 0x40001000) == NULL);
  cb_mem_destroy(&m);
}

/* Main's CFA measured with `cd /tmp/eng && env -i valgrind --tool=none
 * PROG ARGS` (a probe printing __builtin_frame_address(0) + 16). */
static void test_stack_top(void) {
  static const struct {
    const char *args[3];
    uint64_t cfa;
  } v[] = {
      {{"./cfa"}, 0x1fff000c80},
      {{"./cfa", "a"}, 0x1fff000c80},
      {{"./cfa", "ab"}, 0x1fff000c70},
      {{"/tmp/eng/cfa"}, 0x1fff000c70},
      {{"/tmp/../tmp/eng/cfa"}, 0x1fff000c60},
      {{"/tmp/../tmp/../tmp/../tmp/eng/cfa"}, 0x1fff000c50},
      {{"/tmp/eng/cfa", "abcdefg"}, 0x1fff000c60},
      {{"/tmp/eng/cfa", "abcdefghijklmnopqrstuvw"}, 0x1fff000c50},
      {{"./cfa", "a", "b"}, 0x1fff000c70},
  };
  for (size_t i = 0; i < sizeof v / sizeof *v; i++) {
    int argc = 0;
    while (argc < 3 && v[i].args[argc])
      argc++;
    CHECK_EQ_U64(cb_engine_default_stack_top(argc, v[i].args, "/tmp/eng", 22),
                 v[i].cfa);
  }
}

/* cb_mem_move is memmove in the model: across pages and both ways of
 * overlap, the moved bytes are the source's before the move, the others
 * keep theirs. Against a byte array kept beside. */
static void test_mem_move(void) {
  const uint64_t lo = 0x20000, size = 5 * 4096;
  uint64_t seed = 5;
  int bad = 0;
  for (int round = 0; round < 40; round++) {
    cb_mem m;
    cb_mem_init(&m);
    cb_mem_map(&m, lo, lo + size);
    static uint8_t want[5 * 4096], got[5 * 4096];
    for (uint64_t i = 0; i < size; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      want[i] = (uint8_t)(seed >> 56);
    }
    uint64_t fault = 0;
    CHECK(cb_mem_write(&m, lo, want, size, &fault));
    seed = seed * 6364136223846793005ull + 1442695040888963407ull;
    uint64_t n = 1 + (seed >> 33) % 9000;
    uint64_t src = (seed >> 13) % (size - n);
    uint64_t dst = round % 3 == 0 ? src + 1 + (seed >> 7) % 64
                   : round % 3 == 1
                       ? (src > 70 ? src - 1 - (seed >> 7) % 64 : 0)
                       : (seed >> 29) % (size - n);
    if (dst + n > size)
      dst = size - n;
    CHECK(cb_mem_move(&m, lo + dst, lo + src, n, &fault));
    memmove(want + dst, want + src, n);
    CHECK(cb_mem_read(&m, lo, got, size, &fault));
    bad += memcmp(got, want, size) != 0;
    cb_mem_destroy(&m);
  }
  CHECK_EQ_U64(bad, 0);
}

/* lineset.h against first occurrences found by sorting: clustered walks,
 * strides across chunks, random lines over the whole range, tags up to
 * the working sets' largest (kind 2 << 30), then the same after a clear. */
typedef struct ls_ref {
  uint32_t tag;
  uint64_t line;
  size_t i;
} ls_ref;

static int ls_ref_cmp(const void *a, const void *b) {
  const ls_ref *x = a, *y = b;
  if (x->tag != y->tag)
    return x->tag < y->tag ? -1 : 1;
  if (x->line != y->line)
    return x->line < y->line ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

static void test_lineset(void) {
  enum { N = 200000 };
  ls_ref *seq = malloc(N * sizeof *seq), *sorted = malloc(N * sizeof *seq);
  bool *fresh = calloc(N, sizeof *fresh);
  uint32_t tags[] = {0, 1, 7, 1u << 30 | 3, 2u << 30 | 5, 0xfffffffeu};
  uint64_t x = 0x9e3779b97f4a7c15ull;
  for (size_t i = 0; i < N; i++) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    uint32_t tag = tags[(x >> 20) % 6];
    uint64_t line;
    switch ((x >> 40) % 4) {
    case 0: /* a walk: consecutive lines */
      line = 1000 + i % 3000;
      break;
    case 1: /* a column: 50 lines apart, across chunks */
      line = 7 + 50 * (i % 977);
      break;
    case 2: /* anywhere, the top of the range included */
      line = x ^ (x << 17);
      break;
    default: /* a few lines, often repeated */
      line = (x >> 50) % 16 + (UINT64_MAX - 20);
      break;
    }
    seq[i] = (ls_ref){.tag = tag, .line = line, .i = i};
  }
  memcpy(sorted, seq, N * sizeof *seq);
  qsort(sorted, N, sizeof *sorted, ls_ref_cmp);
  for (size_t i = 0; i < N; i++)
    fresh[sorted[i].i] = i == 0 || sorted[i].tag != sorted[i - 1].tag ||
                         sorted[i].line != sorted[i - 1].line;
  lineset s;
  memset(&s, 0, sizeof s);
  for (int round = 0; round < 2; round++) {
    size_t bad = 0, added = 0;
    for (size_t i = 0; i < N; i++) {
      int r = lineset_add(&s, seq[i].tag, seq[i].line);
      bad += r != (fresh[i] ? 1 : 0);
      added += r == 1;
    }
    CHECK_EQ_U64(bad, 0);
    CHECK(added > 1000);
    lineset_clear(&s);
  }
  lineset_free(&s);
  free(seq);
  free(sorted);
  free(fresh);
}

int main(void) {
  test_stack_top();
  test_rand();
  test_split();
  test_parse();
  test_mem();
  test_mem_move();
  test_lineset();
  return check_done();
}
