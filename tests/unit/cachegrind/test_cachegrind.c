/* Tests of the cachegrind parser (on hand-written outputs) and of the
 * runner (on a program compiled here with clang and run under valgrind). */
#include "../check.h"
#include "cachegrind.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int parse_text(const char *text, cb_cg_result *r, char *err,
                      size_t errlen) {
  FILE *f = fmemopen((void *)text, strlen(text), "r");
  if (!f)
    return -2;
  int rc = cb_cg_parse_stream(f, "t.out", r, err, errlen);
  fclose(f);
  return rc;
}

static void test_parse_valid(void) {
  const char *text =
      "desc: I1 cache:         32768 B, 64 B, 8-way associative\n"
      "desc: D1 cache:         32768 B, 64 B, 2-way associative\n"
      "desc: LL cache:         1048576 B, 64 B, 16-way associative\n"
      "cmd: ./prog 1 2\n"
      "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw \n"
      "fl=/src/a.c\n"
      "fn=main\n"
      "3 10 1 1 4 2 1 2 1 1\n"
      "0 5 0 0 1 1 0\n" /* trailing counts omitted: zeros */
      "fn=helper\n"
      "7 1 0 0 0 0 0 1 1 0\n"
      "fl=./libc/memset.S\n"
      "fn=memset\n"
      "12 100 2 2 0 0 0 64 8 8\n"
      "fl=/src/a.c\n"
      "fn=main\n"
      "4 2 0 0 2 2 2 0 0 0\n"
      "summary: 118 3 3 7 5 3 67 10 9\n";
  cb_cg_result r;
  char err[256] = "";
  CHECK(parse_text(text, &r, err, sizeof err) == 0);
  CHECK_EQ_U64(r.d1.size, 32768);
  CHECK_EQ_U64(r.d1.assoc, 2);
  CHECK_EQ_U64(r.ll.size, 1048576);
  CHECK_EQ_U64(r.ll.assoc, 16);
  CHECK_EQ_U64(r.i1.line, 64);
  CHECK(r.cmd && strcmp(r.cmd, "./prog 1 2") == 0);
  CHECK_EQ_U64(r.nfiles, 2);
  CHECK_EQ_U64(r.nfns, 3);
  CHECK_EQ_U64(r.nrows, 5);
  CHECK_EQ_U64(r.event_mask, (1u << CB_CG_NEVENTS) - 1);
  CHECK(r.has_summary);
  for (int e = 0; e < CB_CG_NEVENTS; e++)
    CHECK_EQ_U64(r.total.v[e], r.summary.v[e]);
  CHECK_EQ_U64(r.rows[1].line, 0);
  CHECK_EQ_U64(r.rows[1].c.v[CB_CG_D1MR], 1);
  CHECK_EQ_U64(r.rows[1].c.v[CB_CG_DW], 0);
  CHECK_EQ_U64(r.rows[4].file, 0); /* a.c again: same index */
  const char *own[] = {"a.c"};
  cb_cg_counts c;
  cb_cg_sum_files(&r, own, 1, "/src", &c);
  CHECK_EQ_U64(c.v[CB_CG_IR], 18);
  CHECK_EQ_U64(c.v[CB_CG_DR], 7);
  CHECK_EQ_U64(c.v[CB_CG_D1MR], 5);
  CHECK_EQ_U64(c.v[CB_CG_DW], 3);
  CHECK_EQ_U64(c.v[CB_CG_D1MW], 2);
  CHECK_EQ_U64(c.v[CB_CG_DLMR], 3);
  cb_cg_result_free(&r);
}

static void test_parse_compressed_and_other_events(void) {
  /* callgrind-style name compression, and an events line with other
   * events and a different order. */
  const char *text = "version: 1\n"
                     "events: Dw Ir Bc Dr\n"
                     "fl=(1) /x/m.c\n"
                     "fn=(2) main\n"
                     "5 1 2 3 4\n"
                     "fl=(3) /x/n.c\n"
                     "fn=(4) f\n"
                     "6 10 20 30 40\n"
                     "fn=(below main)\n"
                     "0 1 1 1 1\n"
                     "fl=(1)\n"
                     "fn=(2)\n"
                     "7 100 200 300 400\n"
                     "summary: 112 223 334 445\n";
  cb_cg_result r;
  char err[256] = "";
  CHECK(parse_text(text, &r, err, sizeof err) == 0);
  CHECK_EQ_U64(r.nfiles, 2);
  CHECK_EQ_U64(r.nfns, 3);
  CHECK_EQ_U64(r.nrows, 4);
  CHECK(strcmp(r.fns[r.rows[2].fn], "(below main)") == 0);
  CHECK_EQ_U64(r.rows[3].file, 0);
  CHECK_EQ_U64(r.rows[3].fn, 0);
  CHECK_EQ_U64(r.total.v[CB_CG_DW], 112);
  CHECK_EQ_U64(r.total.v[CB_CG_IR], 223);
  CHECK_EQ_U64(r.total.v[CB_CG_DR], 445);
  CHECK_EQ_U64(r.summary.v[CB_CG_DR], 445);
  CHECK_EQ_U64(r.event_mask,
               (1u << CB_CG_DW) | (1u << CB_CG_IR) | (1u << CB_CG_DR));
  cb_cg_result_free(&r);
}

static void expect_error(const char *text, const char *want) {
  cb_cg_result r;
  char err[256] = "";
  int rc = parse_text(text, &r, err, sizeof err);
  CHECK(rc == -1);
  if (!strstr(err, want)) {
    check_failed++;
    fprintf(stderr, "error '%s' does not contain '%s'\n", err, want);
  } else {
    check_passed++;
  }
  cb_cg_result_free(&r);
}

static void test_parse_errors(void) {
  const char *hdr = "events: Ir Dr\n";
  char buf[512];
  snprintf(buf, sizeof buf, "%sfl=a.c\nfn=f\n1 2 x\n", hdr);
  expect_error(buf, "t.out:4: bad count");
  snprintf(buf, sizeof buf, "%sfl=a.c\nfn=f\n1 2 3 4\n", hdr);
  expect_error(buf, "t.out:4: more counts than events");
  snprintf(buf, sizeof buf, "%s1 2 3\n", hdr);
  expect_error(buf, "t.out:2: count line before 'fl='");
  snprintf(buf, sizeof buf, "%sfl=a.c\n1 2 3\n", hdr);
  expect_error(buf, "t.out:3: count line before 'fn='");
  expect_error("fl=a.c\nfn=f\n1 2\n", "t.out:3: count line before 'events:'");
  snprintf(buf, sizeof buf, "%sfl=a.c\nfn=f\n1 2\nwhat is this\n", hdr);
  expect_error(buf, "t.out:5: unrecognised line");
  snprintf(buf, sizeof buf, "%sfl=a.c\nfn=f\n12x 2\n", hdr);
  expect_error(buf, "t.out:4: bad line number");
  snprintf(buf, sizeof buf, "%sfl=(3)\n", hdr);
  expect_error(buf, "t.out:2: name id (3) used before");
  snprintf(buf, sizeof buf, "%sfl=a.c\nfn=f\n1 99999999999999999999999\n", hdr);
  expect_error(buf, "t.out:4: count out of range");
  expect_error("", "t.out:1: no 'events:' line");

  cb_cg_result r;
  char err[256] = "";
  CHECK(cb_cg_parse_file("/nonexistent/cachegrind.out", &r, err, sizeof err) ==
        -1);
  CHECK(strstr(err, "/nonexistent/cachegrind.out") != NULL);
  CHECK(strstr(err, "No such file") != NULL);
  cb_cg_result_free(&r);
}

static void test_paths(void) {
  CHECK(cb_cg_path_matches("/tmp/x/a.c", "a.c", "/tmp/x"));
  CHECK(cb_cg_path_matches("/tmp/x/a.c", "/tmp/x/./a.c", NULL));
  CHECK(cb_cg_path_matches("/tmp/x/../x/a.c", "/tmp/x/a.c", NULL));
  CHECK(cb_cg_path_matches("/tmp/x/sub/a.c", "sub//a.c", "/tmp/x"));
  CHECK(cb_cg_path_matches("/tmp/x/sub/a.c", "../x/sub/a.c", "/tmp/y"));
  CHECK(!cb_cg_path_matches("/tmp/x/a.c", "b.c", "/tmp/x"));
  CHECK(!cb_cg_path_matches("/tmp/x/ba.c", "a.c", "/tmp/y"));
  CHECK(!cb_cg_path_matches("/tmp/y/a.c", "a.c", "/tmp/x"));
  /* relative names as cachegrind prints them for a relative compdir */
  CHECK(cb_cg_path_matches("./sub/a.c", "/w/proj/sub/a.c", NULL));
  CHECK(cb_cg_path_matches("sub/../sub/a.c", "/w/proj/sub/a.c", NULL));
  CHECK(!cb_cg_path_matches("./sub/a.c", "/w/proj/other/a.c", NULL));
  CHECK(!cb_cg_path_matches("./ub/a.c", "/w/proj/sub/a.c", NULL));
}

/* ---- runner, on a real program ---- */

#define N_DOUBLES (1 << 20) /* 8 MiB: larger than any cache used here */
#define STRIDE 8            /* doubles: 64 bytes, one line per read */

static const char *prog_src =
    "#include <stdio.h>\n"                         /* 1 */
    "#include <stdlib.h>\n"                        /* 2 */
    "double a[1 << 20];\n"                         /* 3 */
    "int main(int argc, char **argv) {\n"          /* 4 */
    "  int n = 0;\n"                               /* 5 */
    "  if (scanf(\"%d\", &n) != 1) return 5;\n"    /* 6 */
    "  double s = 0;\n"                            /* 7 */
    "  for (int i = 0; i < (1 << 20); i += 8)\n"   /* 8 */
    "    s += a[i];\n"                             /* 9 */
    "  printf(\"%f %d\\n\", s, argc);\n"           /* 10 */
    "  return argc > 1 ? atoi(argv[1]) + n : 0;\n" /* 11 */
    "}\n";

static int write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  if (!f)
    return -1;
  fputs(text, f);
  return fclose(f);
}

static void test_run(const char *dir) {
  char src[512], exe[512], in[512], out[512], cmd[2048];
  snprintf(src, sizeof src, "%s/stride.c", dir);
  snprintf(exe, sizeof exe, "%s/stride", dir);
  snprintf(in, sizeof in, "%s/stdin.txt", dir);
  snprintf(out, sizeof out, "%s/stdout.txt", dir);
  CHECK(write_file(src, prog_src) == 0);
  CHECK(write_file(in, "4\n") == 0);
  snprintf(cmd, sizeof cmd, "'%s' -O2 -g -gdwarf-4 -o '%s' '%s'", CB_CLANG, exe,
           src);
  int st = system(cmd);
  CHECK(st == 0);
  if (st != 0)
    return;

  const char *args[] = {"3", NULL};
  cb_cg_request req = {
      .program = exe,
      .args = args,
      .stdin_path = in,
      .stdout_path = out,
      .d1 = {32768, 8, 64},
      .ll = {1048576, 16, 64},
      .tmpdir = dir,
      .timeout_sec = 120,
  };
  cb_cg_result r;
  char err[1024] = "";
  int rc = cb_cg_run(&req, &r, err, sizeof err);
  if (rc != 0)
    fprintf(stderr, "cb_cg_run: %s\n", err);
  CHECK(rc == 0);
  CHECK(r.exited);
  CHECK_EQ_U64(r.exit_code, 7); /* atoi("3") + 4 read from stdin */
  CHECK(r.has_summary);
  for (int e = 0; e < CB_CG_NEVENTS; e++)
    CHECK_EQ_U64(r.total.v[e], r.summary.v[e]);
  CHECK_EQ_U64(r.d1.size, 32768);
  CHECK_EQ_U64(r.ll.assoc, 16);

  /* From first principles: the loop reads N/STRIDE doubles, each in its
   * own 64-byte line (an 8-byte aligned double never straddles a line),
   * none of which was touched before (a is .bss) and the array (8 MiB)
   * exceeds both caches, so every read misses D1 and LL. */
  uint64_t want = N_DOUBLES / STRIDE;
  cb_cg_counts line9 = {{0}};
  for (size_t i = 0; i < r.nrows; i++)
    if (r.rows[i].line == 9 &&
        cb_cg_path_matches(r.files[r.rows[i].file], src, NULL))
      for (int e = 0; e < CB_CG_NEVENTS; e++)
        line9.v[e] += r.rows[i].c.v[e];
  CHECK_EQ_U64(line9.v[CB_CG_DR], want);
  CHECK_EQ_U64(line9.v[CB_CG_D1MR], want);
  CHECK_EQ_U64(line9.v[CB_CG_DLMR], want);
  CHECK_EQ_U64(line9.v[CB_CG_DW], 0);

  const char *own[] = {src};
  cb_cg_counts c;
  cb_cg_sum_files(&r, own, 1, NULL, &c);
  CHECK(c.v[CB_CG_D1MR] >= want && c.v[CB_CG_D1MR] < want + 20);
  CHECK(c.v[CB_CG_DR] >= want && c.v[CB_CG_DR] < want + 50);
  CHECK(c.v[CB_CG_D1MR] + c.v[CB_CG_D1MW] <= c.v[CB_CG_DR] + c.v[CB_CG_DW]);
  cb_cg_result_free(&r);

  FILE *f = fopen(out, "r");
  char line[128] = "";
  CHECK(f && fgets(line, sizeof line, f));
  if (f)
    fclose(f);
  CHECK(strcmp(line, "0.000000 2\n") == 0);

  /* Only D1 given: LL and I1 get defaults; no stdin: the program's scanf
   * fails and it exits 5. */
  cb_cg_request r2 = {.program = exe, .d1 = {32768, 2, 64}, .tmpdir = dir};
  rc = cb_cg_run(&r2, &r, err, sizeof err);
  CHECK(rc == 0);
  CHECK(r.exited && r.exit_code == 5);
  CHECK_EQ_U64(r.ll.size, CB_CG_NEUTRAL_LL_SIZE);
  CHECK_EQ_U64(r.i1.size, 32768);
  CHECK_EQ_U64(r.d1.assoc, 2);
  cb_cg_result_free(&r);

  /* A program that does not exist: an error naming it. */
  char missing[600];
  snprintf(missing, sizeof missing, "%s/no-such-program", dir);
  cb_cg_request r3 = {.program = missing, .d1 = {32768, 8, 64}, .tmpdir = dir};
  rc = cb_cg_run(&r3, &r, err, sizeof err);
  CHECK(rc == -1);
  CHECK(strstr(err, "no-such-program") != NULL);
  cb_cg_result_free(&r);

  /* A missing stdin file: an error, no valgrind run. */
  cb_cg_request r4 = {.program = exe,
                      .d1 = {32768, 8, 64},
                      .tmpdir = dir,
                      .stdin_path = "/nonexistent/in"};
  rc = cb_cg_run(&r4, &r, err, sizeof err);
  CHECK(rc == -1);
  CHECK(strstr(err, "/nonexistent/in") != NULL);
  cb_cg_result_free(&r);

  /* Bad geometry is refused before running anything. */
  cb_cg_request r5 = {.program = exe, .d1 = {0, 8, 64}};
  CHECK(cb_cg_run(&r5, &r, err, sizeof err) == -1);
  cb_cg_result_free(&r);
}

/* Every temporary file of the runner is gone: only the files this test
 * made remain in dir. */
static void check_dir_clean(const char *dir) {
  char cmd[1024];
  snprintf(cmd, sizeof cmd,
           "test -z \"$(ls -A '%s' | grep -v -x -e stride -e stride.c "
           "-e stdin.txt -e stdout.txt)\"",
           dir);
  CHECK(system(cmd) == 0);
}

int main(void) {
  test_parse_valid();
  test_parse_compressed_and_other_events();
  test_parse_errors();
  test_paths();
  if (!CB_CLANG[0] || !CB_VALGRIND[0] || access(CB_CLANG, X_OK) != 0) {
    printf("clang or valgrind not found: runner tests skipped\n");
    int rc = check_done();
    return rc ? rc : 77;
  }
  char dir[] = "/tmp/cbana-test-cg-XXXXXX";
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  test_run(dir);
  check_dir_clean(dir);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "could not remove %s\n", dir);
  return check_done();
}
