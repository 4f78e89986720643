/* The frontend API on small programs written here: initial bytes and
 * pointers of globals, struct fields, frame objects, calls, errors
 * without exiting, and the private temporary directory. */
#include "cache_dir.h"
#include "cbana/cfg.h"
#include "cbana/frontend.h"
#include "check.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *write_src(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
  return path;
}

static int count_tmp(const char *tmp) {
  DIR *d = opendir(tmp);
  int n = 0;
  struct dirent *e;
  while (d && (e = readdir(d)))
    n += e->d_name[0] != '.';
  if (d)
    closedir(d);
  return n;
}

static const cb_global *global(const cb_program *p, const char *name) {
  for (uint32_t i = 0; i < p->n_globals; i++)
    if (strcmp(p->globals[i].name, name) == 0)
      return &p->globals[i];
  return NULL;
}

static cb_program *load(const char *src, const char *flags, char *err,
                        cb_fe_status *st) {
  const char *srcs[] = {src};
  cb_frontend_options o;
  memset(&o, 0, sizeof o);
  o.cache_dir = cb_cli_cache_dir();
  o.sources = srcs;
  o.n_sources = 1;
  o.cflags = flags;
  cb_program *p = NULL;
  *st = cb_frontend_load(&o, &p, err, 8192);
  return p;
}

static void test_globals(void) {
  const char *src = write_src(
      "g.c", "struct pt { int a; double b; char tag[3]; };\n"
             "struct pt pts[2] = {{1, 2.5, \"xy\"}, {3, -1.0, \"z\"}};\n"
             "int counter = 7;\n"
             "int *where = &counter;\n"
             "double grid[4][8];\n"
             "static const short tbl[] = {1, 2, 3, 4};\n"
             "int get(int i) { return tbl[i & 3] + *where; }\n"
             "int main(int argc, char **argv) {\n"
             "  (void)argv;\n"
             "  grid[argc][1] = pts[argc].b;\n"
             "  return get(argc) + pts[1].a;\n"
             "}\n");
  char err[8192];
  cb_fe_status st;
  cb_program *p = load(src, "-O1", err, &st);
  CHECK(st == CB_FE_OK);
  if (!p) {
    fprintf(stderr, "%s", err);
    return;
  }
  CHECK(p->main_function != CB_NONE);
  CHECK_EQ_U64(p->load_base, CB_DEFAULT_LOAD_BASE);
  const cb_global *pts = global(p, "pts"), *counter = global(p, "counter"),
                  *where = global(p, "where"), *grid = global(p, "grid");
  CHECK(pts && counter && where && grid);
  if (pts && counter && where && grid) {
    CHECK_EQ_U64(pts->size, 48);
    CHECK(pts->init != NULL);
    int a;
    double b;
    memcpy(&a, pts->init + 24, 4);
    memcpy(&b, pts->init + 32, 8);
    CHECK_EQ_U64(a, 3);
    CHECK(b == -1.0);
    CHECK(pts->init[16] == 'x' && pts->init[17] == 'y');
    CHECK(counter->init && counter->init[0] == 7);
    uint64_t ptr;
    CHECK(where->init != NULL);
    if (where->init) {
      memcpy(&ptr, where->init, 8);
      CHECK_EQ_U64(ptr, counter->addr);
    }
    CHECK(grid->init == NULL);
    CHECK(strcmp(grid->section, ".bss") == 0);
    CHECK(counter->addr > p->load_base && counter->addr < p->image_end);
    CHECK(grid->var != CB_NONE);
    if (grid->var != CB_NONE) {
      const cb_ctype *t = &p->types[p->vars[grid->var].type];
      CHECK(strcmp(t->name, "double[4][8]") == 0);
      CHECK_EQ_U64(t->count, 4);
      CHECK_EQ_U64(t->size, 256);
    }
    /* the struct's fields */
    const cb_ctype *st_pt = NULL;
    for (uint32_t i = 0; i < p->n_types; i++)
      if (strcmp(p->types[i].name, "struct pt") == 0)
        st_pt = &p->types[i];
    CHECK(st_pt != NULL);
    if (st_pt) {
      CHECK_EQ_U64(st_pt->n_fields, 3);
      CHECK(strcmp(p->fields[st_pt->first_field + 1].name, "b") == 0);
      CHECK_EQ_U64(p->fields[st_pt->first_field + 1].offset, 8);
      CHECK_EQ_U64(p->fields[st_pt->first_field + 2].offset, 16);
    }
  }
  /* the load of pts[argc].b: var pts, field b, type double */
  bool found = false;
  for (uint32_t i = 0; i < p->n_sites; i++) {
    const cb_site *s = &p->sites[i];
    if (!s->is_call && !s->is_write && s->var != CB_NONE &&
        strcmp(p->vars[s->var].name, "pts") == 0 && s->field != CB_NONE &&
        strcmp(p->fields[s->field].name, "b") == 0 && s->line == 10) {
      found = true;
      CHECK_EQ_U64(s->size, 8);
      CHECK(strcmp(p->types[s->type].name, "double") == 0);
    }
  }
  CHECK(found);
  /* tbl is private to the file: placed where its bytes are in .rodata */
  const cb_global *tbl = global(p, "tbl");
  if (tbl) {
    CHECK(tbl->addr < p->image_end);
    CHECK(tbl->init != NULL);
  }
  cb_cfg_info *cfg = cb_cfg_analyze(p);
  CHECK(cfg != NULL && cfg->n_funcs == p->n_functions);
  cb_cfg_free(cfg);
  cb_program_free(p);
}

static void test_frame_and_calls(void) {
  const char *src =
      write_src("f.c", "#include <stdlib.h>\n#include <string.h>\n"
                       "struct big { double v[8]; };\n"
                       "static double sum(struct big b) {\n"
                       "  double s = 0;\n"
                       "  for (int i = 0; i < 8; i++) s += b.v[i];\n"
                       "  return s;\n}\n"
                       "double (*fp)(struct big) = sum;\n"
                       "int main(int argc, char **argv) {\n"
                       "  (void)argv;\n"
                       "  double local[100];\n"
                       "  struct big b;\n"
                       "  memset(local, 0, sizeof local);\n"
                       "  for (int i = 0; i < 8; i++) b.v[i] = argc * i;\n"
                       "  local[argc] = fp(b);\n"
                       "  char *m = malloc(10);\n"
                       "  free(m);\n"
                       "  return (int)local[argc + 1];\n}\n");
  char err[8192];
  cb_fe_status st;
  cb_program *p = load(src, "-O0", err, &st);
  CHECK(st == CB_FE_OK);
  if (!p) {
    fprintf(stderr, "%s", err);
    return;
  }
  bool local = false, byval = false, indirect = false, malloc_call = false;
  for (uint32_t i = 0; i < p->n_frame_objs; i++)
    if (p->frame_objs[i].var != CB_NONE &&
        strcmp(p->vars[p->frame_objs[i].var].name, "local") == 0) {
      local = true;
      CHECK_EQ_U64(p->frame_objs[i].size, 800);
    }
  for (uint32_t i = 0; i < p->n_ops; i++) {
    const cb_op *o = &p->ops[i];
    if (o->code != CB_OP_CALL)
      continue;
    const int64_t *x = &p->extra[o->aux];
    if (x[0] == CB_CALL_INDIRECT) {
      indirect = true;
      byval |= x[3] == 1 && CB_CALL_ARG_BYVAL(x[4]) == 64;
    }
    if (x[0] == CB_CALL_LIBC && x[1] == CB_LIBC_MALLOC)
      malloc_call = true;
  }
  CHECK(local);
  CHECK(indirect);
  CHECK(byval);
  CHECK(malloc_call);
  /* fp's initial bytes are sum's code address */
  const cb_global *fp = global(p, "fp");
  CHECK(fp && fp->init);
  for (uint32_t i = 0; fp && fp->init && i < p->n_functions; i++)
    if (strcmp(p->functions[i].name, "sum") == 0) {
      uint64_t a;
      memcpy(&a, fp->init, 8);
      CHECK(p->functions[i].addr != 0);
      CHECK_EQ_U64(a, p->functions[i].addr);
    }
  cb_program_free(p);
}

static void test_errors(void) {
  char err[8192];
  cb_fe_status st;
  const char *src = write_src("bad.c", "int main(void) { return x; }\n");
  cb_program *p = load(src, NULL, err, &st);
  CHECK(p == NULL);
  CHECK(st == CB_FE_ERR_COMPILE);
  CHECK(strstr(err, "bad.c:1:") != NULL);
  src = write_src("asm.c", "int main(void) {\n  int x = 0;\n"
                           "  __asm__ volatile(\"nop\" : \"+r\"(x));\n"
                           "  return x;\n}\n");
  p = load(src, NULL, err, &st);
  CHECK(p == NULL);
  CHECK(st == CB_FE_ERR_UNSUPPORTED);
  CHECK(strstr(err, "asm.c:3") != NULL && strstr(err, "inline assembly"));
  src = write_src("undef.c", "void nowhere(int);\n"
                             "int main(void) {\n  nowhere(1);\n"
                             "  nowhere(2);\n  return 0;\n}\n");
  p = load(src, NULL, err, &st);
  CHECK(p == NULL);
  CHECK(st == CB_FE_ERR_UNDEFINED);
  CHECK(strstr(err, "nowhere") && strstr(err, "undef.c:3") &&
        strstr(err, "undef.c:4"));
  /* a real library function the model does not know: the link finds
   * it, so the call lowers to one that stops the input when reached, and
   * a pointer to it holds an address of its own */
  src = write_src("unmod.c",
                  "#include <sys/socket.h>\n"
                  "ssize_t (*volatile fp)(int, const void *, size_t, int,\n"
                  "  const struct sockaddr *, socklen_t) = sendto;\n"
                  "int main(int argc, char **argv) {\n"
                  "  if (argc > 5)\n    sendto(-1, argv[0], 1, 0, 0, 0);\n"
                  "  return 0;\n}\n");
  p = load(src, NULL, err, &st);
  CHECK(st == CB_FE_OK && p != NULL);
  if (p) {
    CHECK_EQ_U64(p->n_unmodelled, 1);
    CHECK(p->n_unmodelled == 1 && strcmp(p->unmodelled[0], "sendto") == 0);
    CHECK(p->n_unmodelled == 1 && p->unmodelled_addr[0] != 0);
    bool unmod_call = false;
    for (uint32_t i = 0; i < p->n_ops; i++)
      if (p->ops[i].code == CB_OP_CALL &&
          p->extra[p->ops[i].aux] == CB_CALL_UNMODELLED &&
          p->extra[p->ops[i].aux + 1] == 0)
        unmod_call = true;
    CHECK(unmod_call);
    cb_program_free(p);
  }
  /* bad bitcode: an error, not an exit */
  const char *junk = write_src("junk.bc", "BC\xc0\xde garbage");
  const char *bcs[] = {junk};
  p = NULL;
  st = cb_frontend_load_built(bcs, 1, NULL, NULL, &p, err, sizeof err);
  CHECK(st != CB_FE_OK && p == NULL);
  CHECK(strstr(err, "junk.bc") != NULL);
  const char *missing[] = {"/nonexistent/x.c"};
  cb_frontend_options o;
  memset(&o, 0, sizeof o);
  o.cache_dir = cb_cli_cache_dir();
  o.sources = missing;
  o.n_sources = 1;
  st = cb_frontend_load(&o, &p, err, sizeof err);
  CHECK(st == CB_FE_ERR_USAGE);
}

int main(void) {
  snprintf(dir, sizeof dir, "/tmp/cbana-test-XXXXXX");
  if (!mkdtemp(dir))
    return 1;
  char tmp[300];
  snprintf(tmp, sizeof tmp, "%s/tmp", dir);
  mkdir(tmp, 0700);
  setenv("TMPDIR", tmp, 1);
  test_globals();
  test_frame_and_calls();
  test_errors();
  CHECK_EQ_U64(count_tmp(tmp), 0);
  char cmd[400];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "cannot remove %s\n", dir);
  return check_done();
}
