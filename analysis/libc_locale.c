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
 * bytes (strcmp, strlen), free(NULL) by the heap model. */
#include <dlfcn.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "libc_rows.h"

#include "libc_locale_tables.h"

static void free_null(cb_rows *r, const cb_row *t) {
  if (r->trace)
    cb_libc_heap_traffic(r->e, CB_LIBC_FREE, r->C - (uint64_t)t->off, 0, 0,
                         false);
}

cb_stop cb_libc_setlocale(cb_eng *e, const cb_value *a, cb_value *ret) {
  int cat = (int)(uint32_t)a[0].u;
  int which = -1; /* 0 "", 1 NULL, 2 "C" */
  char *name = NULL;
  if (!a[1].u) {
    which = 1;
  } else {
    name = cb_eng_read_str(e, a[1].u, 4096, NULL);
    if (!name)
      return CB_FAIL;
    which = !name[0] ? 0 : !strcmp(name, "C") ? 2 : -1;
  }
  if (cat < LC_CTYPE || cat > LC_ALL || which < 0) {
    cb_stop st = cb_eng_fail(
        e, CB_RUN_ERROR, e->cur_site,
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
  if (!e->libc_base || !host || strcmp(host, "C") || !dladdr(host, &di) ||
      !di.dli_fbase)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "setlocale: libc's \"C\" not found");
  uint64_t at = e->libc_base + (uint64_t)(host - (const char *)di.dli_fbase);
  uint64_t pg = at & ~(uint64_t)(CB_PG_SIZE - 1);
  if (!cb_mem_mapped(&e->mem, pg))
    cb_mem_map(&e->mem, pg, pg + CB_PG_SIZE);
  cb_mem_write(&e->mem, at, "C", 2, NULL);
  cb_rows r;
  cb_rows_init(&r, e, a[0].u, a[1].u);
  r.op = free_null;
  cb_rows_run(&r, t_setlocale[cat][which].t, t_setlocale[cat][which].n);
  ret[0].u = at;
  return CB_GO;
}
