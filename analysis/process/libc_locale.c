/* libc_locale.c: setlocale as glibc 2.36 answers it in the analysed
 * process, started as `env -i valgrind` starts it: no LC_ALL, LC_* or
 * LANG, so "" selects "C", as "C" does, and every category is and stays
 * "C" (locale/setlocale.c, findlocale.c: _nl_C_name, no heap block).
 * The result is libc's "C" (_nl_C_name, at its place in libc.so.6). The
 * categories LC_CTYPE ... LC_MESSAGES and LC_ALL with "", "C" or NULL are
 * modelled; any other locale name or category stops the input, named
 * (the model's string and ctype functions are the C locale's).
 *
 * Traffic: one lackey table per category and argument
 * (tools/probe/locale_tables.py, libc_locale_tables.h): the lock, the
 * names' comparisons, getenv's reads of the environment, the argument's
 * bytes (strcmp, strlen), free(NULL) by the heap model.
 *
 * catopen of a path (a name with a '/') that the run's files lack: glibc
 * mallocs its 56-byte catalog object, the open fails (ENOENT), the object
 * is freed and (nl_catd) -1 returned; catgets on -1 returns the default
 * text, catclose on -1 fails with EBADF (catgets/catgets.c, open_catalog.c).
 * A catalog that exists, or a name looked up through NLSPATH, stops the
 * input, named. Traffic: lackey tables (tools/probe/catalog_tables.py),
 * the object's malloc and free by the heap model. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "libc_rows.h"

#include "libc_catalog_tables.h"
#include "libc_locale_tables.h"

static void free_null(cb_rows *r, const cb_row *t) {
  if (r->trace)
    cb_libc_heap_traffic(r->pr, CB_LIBC_FREE, r->C - (uint64_t)t->off, 0, 0,
                         false);
}

cb_stop cb_libc_setlocale(cb_proc *pr, const cb_value *a, cb_value *ret) {
  int cat = (int)(uint32_t)a[0].u;
  int which = -1; /* 0 "", 1 NULL, 2 "C" */
  char *name = NULL;
  if (!a[1].u) {
    which = 1;
  } else {
    name = cb_proc_read_str(pr, a[1].u, 4096, NULL);
    if (!name)
      return CB_FAIL;
    which = !name[0] ? 0 : !strcmp(name, "C") ? 2 : -1;
  }
  if (cat < LC_CTYPE || cat > LC_ALL || which < 0) {
    cb_stop st = cb_proc_fail(
        pr, CB_RUN_ERROR, pr->cur_site,
        "setlocale(%d, \"%s\"): a category other than LC_CTYPE ... "
        "LC_MESSAGES and LC_ALL, or a locale other than \"\" and \"C\", is "
        "not modelled",
        cat, name ? name : "(null)");
    free(name);
    return st;
  }
  free(name);
  /* libc's _nl_C_name: the host's answer for its own C locale */
  const char *host = setlocale(LC_ALL, NULL);
  Dl_info di;
  if (!pr->libc_base || !host || strcmp(host, "C") || !dladdr(host, &di) ||
      !di.dli_fbase)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "setlocale: libc's \"C\" not found");
  uint64_t at = pr->libc_base + (uint64_t)(host - (const char *)di.dli_fbase);
  uint64_t pg = at & ~(uint64_t)(CB_PG_SIZE - 1);
  if (!cb_mem_mapped(&pr->mem, pg))
    cb_mem_map(&pr->mem, pg, pg + CB_PG_SIZE);
  cb_mem_write(&pr->mem, at, "C", 2, NULL);
  cb_rows r;
  cb_rows_init(&r, pr, a[0].u, a[1].u);
  r.op = free_null;
  cb_rows_run(&r, t_setlocale[cat][which].t, t_setlocale[cat][which].n);
  ret[0].u = at;
  return CB_GO;
}

typedef struct cat_run {
  cb_rows rows; /* first */
  uint64_t obj;
} cat_run;

static void cat_op(cb_rows *rows, const cb_row *t) {
  cat_run *c = (cat_run *)rows;
  uint64_t C = rows->C - (uint64_t)t->off;
  if (t->len == 1) {
    c->obj = cb_heap_malloc(rows->pr->heap, 56); /* struct catalog_obj */
    if (rows->trace)
      cb_libc_heap_traffic(rows->pr, CB_LIBC_MALLOC, C, 0, c->obj, false);
  } else {
    cb_heap_free(rows->pr->heap, c->obj);
    if (rows->trace)
      cb_libc_heap_traffic(rows->pr, CB_LIBC_FREE, C, c->obj, 0, false);
  }
}

cb_stop cb_libc_catalog_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                             cb_value *ret) {
  const uint64_t bad = (uint64_t)-1; /* (nl_catd) -1 */
  cat_run c = {0};
  cb_rows_init(&c.rows, pr, a[0].u, 0);
  if (fn == CB_LIBC_CATGETS || fn == CB_LIBC_CATCLOSE) {
    if (a[0].u != bad)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "%s on a catalog catopen opened is not modelled",
                          fn == CB_LIBC_CATGETS ? "catgets" : "catclose");
    if (fn == CB_LIBC_CATGETS) {
      ret[0].u = a[3].u; /* the default text */
      return CB_GO;
    }
    CB_ROWS(&c.rows, t_catclose);
    cb_libc_put_errno(pr, EBADF);
    ret[0].u = (uint32_t)-1;
    return CB_GO;
  }
  char *name = cb_proc_read_str(pr, a[0].u, 4096, NULL);
  if (!name)
    return CB_FAIL;
  int err = 0;
  int fd = strchr(name, '/') ? cb_fd_open(pr, name, O_RDONLY, 0, &err) : -3;
  if (fd >= 0)
    cb_fd_close(pr, fd);
  if (fd == -2) {
    free(name);
    return CB_FAIL;
  }
  if (fd != -1 || err != ENOENT) {
    cb_stop st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                              "catopen(\"%s\"): %s is not modelled", name,
                              fd == -3 ? "a catalog looked up through NLSPATH"
                                       : "reading a message catalog");
    free(name);
    return st;
  }
  free(name);
  c.rows.op = cat_op;
  CB_ROWS(&c.rows, t_catopen);
  cb_libc_put_errno(pr, ENOENT);
  ret[0].u = bad;
  return CB_GO;
}
