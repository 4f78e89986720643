/* libc_getopt.c: getopt and getopt_long, as glibc 2.36's posix/getopt.c
 * computes them: its
 * state (getopt_data: the next character, the ordering, the bounds of the
 * non-options it skipped), the globals optind, opterr, optopt and optarg
 * (libc's variables, copied into the executable by its copy relocations:
 * the Program's extern declarations of the same names), GNU's permutation
 * of argv (non-options moved behind the options, `exchange`), "--", a
 * leading '+', '-' or ':' in the option string, options with a required
 * or an optional argument, getopt_long's "--name", "--name=value" and
 * unambiguous abbreviations (their flag and longindex stores), and the
 * messages on stderr. The environment
 * of the run (docs/process-model.md 2) has no POSIXLY_CORRECT, so the
 * ordering is PERMUTE unless the string asks otherwise.
 *
 * Traffic: the wrapper's loads of optind and opterr and its stores of
 * optind, optarg and optopt (_getopt_internal), and argv's element
 * stores when it permutes; getopt's own frames, its getopt_data and its
 * reads of argv's strings and of the option string are not modelled. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_files.h"

/* The Program's variable of that name without an initializer (libc's,
 * which the executable's copy relocation places in its .bss), 0 when the
 * program does not refer to it. A program that defines the variable
 * itself (with its own getopt: Prolangs-C/bison's `int optind = 0;`) has
 * debug info for its definition, which a declaration of libc's has not:
 * that one is the program's, and keeps its own initial value. */
uint64_t cb_libc_var(const cb_proc *pr, const char *name, uint32_t size) {
  const cb_program *p = pr->p;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->name && g->size == size && !g->init && g->var == CB_NONE &&
        !strcmp(g->name, name))
      return g->addr;
  }
  return 0;
}

/* libc's initial values: optind 1, opterr 1, optopt '?' (posix/getopt.c) */
void cb_libc_getopt_init(cb_proc *pr) {
  int32_t one = 1, q = '?';
  uint64_t a;
  if ((a = cb_libc_var(pr, "optind", 4)))
    cb_mem_write(&pr->mem, a, &one, 4, NULL);
  if ((a = cb_libc_var(pr, "opterr", 4)))
    cb_mem_write(&pr->mem, a, &one, 4, NULL);
  if ((a = cb_libc_var(pr, "optopt", 4)))
    cb_mem_write(&pr->mem, a, &q, 4, NULL);
}

static int32_t get_int(cb_proc *pr, const char *name, int32_t dflt) {
  uint64_t a = cb_libc_var(pr, name, 4);
  int32_t v = dflt;
  if (a) {
    cb_mem_read(&pr->mem, a, &v, 4, NULL);
    cb_libc_acc(pr, a, 4, false);
  }
  return v;
}

static void put_var(cb_proc *pr, const char *name, const void *v, uint32_t n) {
  uint64_t a = cb_libc_var(pr, name, n);
  if (a) {
    cb_mem_write(&pr->mem, a, v, n, NULL);
    cb_libc_acc(pr, a, n, true);
  }
}

enum { REQUIRE_ORDER, PERMUTE, RETURN_IN_ORDER };

typedef struct go {
  cb_proc *pr;
  uint64_t argv;
  bool bad;
  uint64_t longopts, longind; /* getopt_long's, 0 for getopt */
  bool refused;               /* a case not modelled (the run failed) */
} go;

static uint64_t arg_at(go *g, int i) {
  uint64_t v = 0;
  if (!cb_proc_read(g->pr, g->argv + 8 * (uint64_t)i, &v, 8))
    g->bad = true;
  return v;
}

static void arg_put(go *g, int i, uint64_t v) {
  if (!cb_proc_write(g->pr, g->argv + 8 * (uint64_t)i, &v, 8))
    g->bad = true;
  cb_libc_acc(g->pr, g->argv + 8 * (uint64_t)i, 8, true);
}

static int byte_at(go *g, uint64_t a) {
  uint8_t b = 0;
  if (!cb_proc_read(g->pr, a, &b, 1))
    g->bad = true;
  return b;
}

/* NONOPTION_P: argv[optind] is not "-x...", or is "-" alone */
static bool nonoption(go *g, int i) {
  uint64_t s = arg_at(g, i);
  return byte_at(g, s) != '-' || byte_at(g, s + 1) == 0;
}

/* posix/getopt.c's exchange: the non-options [first, last) behind the
 * options [last, optind) */
static void exchange(go *g, cb_getopt_state *d) {
  int bottom = d->first_nonopt, middle = d->last_nonopt, top = d->optind;
  while (top > middle && middle > bottom) {
    if (top - middle > middle - bottom) {
      int len = middle - bottom;
      for (int i = 0; i < len; i++) {
        uint64_t t = arg_at(g, bottom + i);
        arg_put(g, bottom + i, arg_at(g, top - (middle - bottom) + i));
        arg_put(g, top - (middle - bottom) + i, t);
      }
      top -= len;
    } else {
      int len = top - middle;
      for (int i = 0; i < len; i++) {
        uint64_t t = arg_at(g, bottom + i);
        arg_put(g, bottom + i, arg_at(g, middle + i));
        arg_put(g, middle + i, t);
      }
      bottom += len;
    }
  }
  d->first_nonopt += d->optind - d->last_nonopt;
  d->last_nonopt = d->optind;
}

static void message(go *g, uint64_t argv0, const char *what, int c) {
  char *prog = cb_proc_read_str(g->pr, argv0, 4096, NULL);
  char buf[4200];
  int n =
      snprintf(buf, sizeof buf, "%s: %s -- '%c'\n", prog ? prog : "", what, c);
  free(prog);
  cb_textbuf_put(&g->pr->err_text, buf, (size_t)n);
  cb_files *f = cb_files_get(g->pr);
  if (f)
    f->stderr_oriented = true;
}

static uint64_t word_at(go *g, uint64_t a) {
  uint64_t v = 0;
  if (!cb_proc_read(g->pr, a, &v, 8))
    g->bad = true;
  cb_libc_acc(g->pr, a, 8, false);
  return v;
}

static int32_t int_at(go *g, uint64_t a) {
  int32_t v = 0;
  if (!cb_proc_read(g->pr, a, &v, 4))
    g->bad = true;
  cb_libc_acc(g->pr, a, 4, false);
  return v;
}

static void long_message(go *g, const char *fmt, const char *a1,
                         const char *a2) {
  char *prog = cb_proc_read_str(g->pr, arg_at(g, 0), 4096, NULL);
  char buf[8400];
  int n = snprintf(buf, sizeof buf, fmt, prog ? prog : "", a1, a2);
  free(prog);
  cb_textbuf_put(&g->pr->err_text, buf, (size_t)n);
  cb_files *f = cb_files_get(g->pr);
  if (f)
    f->stderr_oriented = true;
}

/* posix/getopt.c's process_long_option for "--name[=value]": an exact
 * match first, else the one option the name abbreviates (an ambiguous
 * one stops the input: glibc's ambiguity report is not modelled); struct
 * option is {name, has_arg, flag, val} in 32 bytes (x86-64) */
static int long_option(go *g, cb_getopt_state *d, int argc, uint64_t optstring,
                       bool print_errors, uint64_t *arg) {
  uint64_t name = d->nextchar, nameend = name;
  while (byte_at(g, nameend) && byte_at(g, nameend) != '=' && !g->bad)
    nameend++;
  size_t namelen = (size_t)(nameend - name);
  char *want = cb_proc_read_str(g->pr, name, 4096, NULL);
  if (!want) {
    g->bad = true;
    return -1;
  }
  want[namelen] = 0;
  uint64_t found = 0;
  int index = -1, n_found = 0;
  bool exact = false;
  for (int i = 0; !g->bad; i++) {
    uint64_t p = g->longopts + 32 * (uint64_t)i;
    uint64_t pn = word_at(g, p);
    if (!pn)
      break;
    char *on = cb_proc_read_str(g->pr, pn, 4096, NULL);
    if (!on) {
      g->bad = true;
      break;
    }
    if (!strncmp(on, want, namelen)) {
      if (strlen(on) == namelen) {
        found = p, index = i, exact = true;
        free(on);
        break;
      }
      if (!found)
        found = p, index = i;
      else if (int_at(g, found + 8) != int_at(g, p + 8) ||
               word_at(g, found + 16) != word_at(g, p + 16) ||
               int_at(g, found + 24) != int_at(g, p + 24))
        n_found++;
    }
    free(on);
  }
  if (!exact && n_found) {
    cb_proc_fail(g->pr, CB_RUN_ERROR, g->pr->cur_site,
                 "getopt_long: the ambiguous option '--%s' is not modelled",
                 want);
    free(want);
    g->refused = true;
    return -1;
  }
  if (!found) {
    if (print_errors)
      long_message(g, "%s: unrecognized option '--%s'\n%s", want, "");
    free(want);
    d->nextchar = 0;
    d->optind++;
    d->optopt = 0;
    return '?';
  }
  d->optind++;
  d->nextchar = 0;
  int has_arg = int_at(g, found + 8);
  int val = int_at(g, found + 24);
  uint64_t flag = word_at(g, found + 16);
  char *oname = cb_proc_read_str(g->pr, word_at(g, found), 4096, NULL);
  if (byte_at(g, nameend)) {
    if (has_arg) {
      *arg = nameend + 1;
    } else {
      if (print_errors)
        long_message(g, "%s: option '--%s' doesn't allow an argument\n%s",
                     oname ? oname : "", "");
      free(want);
      free(oname);
      d->optopt = val;
      return '?';
    }
  } else if (has_arg == 1) {
    if (d->optind < argc) {
      *arg = arg_at(g, d->optind++);
    } else {
      if (print_errors)
        long_message(g, "%s: option '--%s' requires an argument\n%s",
                     oname ? oname : "", "");
      free(want);
      free(oname);
      d->optopt = val;
      return byte_at(g, optstring) == ':' ? ':' : '?';
    }
  }
  free(want);
  free(oname);
  if (g->longind) {
    int32_t v = index;
    if (!cb_proc_write(g->pr, g->longind, &v, 4))
      g->bad = true;
    cb_libc_acc(g->pr, g->longind, 4, true);
  }
  if (flag) {
    if (!cb_proc_write(g->pr, flag, &val, 4))
      g->bad = true;
    cb_libc_acc(g->pr, flag, 4, true);
    return 0;
  }
  return val;
}

/* _getopt_internal_r (getopt_long's long options through long_option);
 * the result, optarg in *arg */
static int getopt_r(go *g, cb_getopt_state *d, int argc, uint64_t optstring,
                    uint64_t *arg) {
  *arg = 0;
  if (argc < 1)
    return -1;
  uint64_t os = optstring;
  if (d->optind == 0 || !d->initialized) {
    if (d->optind == 0)
      d->optind = 1;
    d->first_nonopt = d->last_nonopt = d->optind;
    d->nextchar = 0;
    int c0 = byte_at(g, os);
    if (c0 == '-') {
      d->ordering = RETURN_IN_ORDER;
      os++;
    } else if (c0 == '+') {
      d->ordering = REQUIRE_ORDER;
      os++;
    } else {
      d->ordering = PERMUTE; /* no POSIXLY_CORRECT in the environment */
    }
    d->initialized = true;
  } else if (byte_at(g, os) == '-' || byte_at(g, os) == '+') {
    os++;
  }
  bool print_errors = d->opterr && byte_at(g, os) != ':';
  if (!d->nextchar || byte_at(g, d->nextchar) == 0) {
    if (d->last_nonopt > d->optind)
      d->last_nonopt = d->optind;
    if (d->first_nonopt > d->optind)
      d->first_nonopt = d->optind;
    if (d->ordering == PERMUTE) {
      if (d->first_nonopt != d->last_nonopt && d->last_nonopt != d->optind)
        exchange(g, d);
      else if (d->last_nonopt != d->optind)
        d->first_nonopt = d->optind;
      while (d->optind < argc && nonoption(g, d->optind) && !g->bad)
        d->optind++;
      d->last_nonopt = d->optind;
    }
    if (d->optind != argc) {
      uint64_t s = arg_at(g, d->optind);
      if (byte_at(g, s) == '-' && byte_at(g, s + 1) == '-' &&
          byte_at(g, s + 2) == 0) {
        d->optind++;
        if (d->first_nonopt != d->last_nonopt && d->last_nonopt != d->optind)
          exchange(g, d);
        else if (d->first_nonopt == d->last_nonopt)
          d->first_nonopt = d->optind;
        d->last_nonopt = argc;
        d->optind = argc;
      }
    }
    if (d->optind == argc) {
      if (d->first_nonopt != d->last_nonopt)
        d->optind = d->first_nonopt;
      return -1;
    }
    if (nonoption(g, d->optind)) {
      if (d->ordering == REQUIRE_ORDER)
        return -1;
      *arg = arg_at(g, d->optind++);
      return 1;
    }
    uint64_t s = arg_at(g, d->optind);
    if (g->longopts && byte_at(g, s + 1) == '-') {
      /* "--foo" is always a long option ("--" was handled above) */
      d->nextchar = s + 2;
      return long_option(g, d, argc, optstring, print_errors, arg);
    }
    d->nextchar = s + 1;
  }
  int c = byte_at(g, d->nextchar++);
  /* strchr (optstring, c): c's first place in the string, NUL included */
  uint64_t temp = 0;
  for (uint64_t p = os;; p++) {
    int b = byte_at(g, p);
    if (b == c) {
      temp = p;
      break;
    }
    if (!b || g->bad)
      break;
  }
  if (byte_at(g, d->nextchar) == 0)
    d->optind++;
  if (!temp || c == ':' || c == ';') {
    if (print_errors)
      message(g, arg_at(g, 0), "invalid option", c);
    d->optopt = c;
    return '?';
  }
  if (byte_at(g, temp + 1) == ':') {
    if (byte_at(g, temp + 2) == ':') {
      if (byte_at(g, d->nextchar) != 0) {
        *arg = d->nextchar;
        d->optind++;
      }
    } else if (byte_at(g, d->nextchar) != 0) {
      *arg = d->nextchar;
      d->optind++;
    } else if (d->optind == argc) {
      if (print_errors)
        message(g, arg_at(g, 0), "option requires an argument", c);
      d->optopt = c;
      c = byte_at(g, os) == ':' ? ':' : '?';
    } else {
      *arg = arg_at(g, d->optind++);
    }
    d->nextchar = 0;
  }
  return c;
}

cb_stop cb_libc_getopt(cb_proc *pr, uint32_t fn, const cb_value *a,
                       cb_value *ret) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  cb_getopt_state *d = &f->getopt;
  /* _getopt_internal: the globals in, the state's out */
  d->optind = get_int(pr, "optind", d->optind ? d->optind : 1);
  d->opterr = get_int(pr, "opterr", 1);
  go g = {pr,
          a[1].u,
          false,
          fn == CB_LIBC_GETOPT_LONG ? a[3].u : 0,
          fn == CB_LIBC_GETOPT_LONG ? a[4].u : 0,
          false};
  uint64_t arg = 0;
  int r = getopt_r(&g, d, (int)(uint32_t)a[0].u, a[2].u, &arg);
  if (g.bad || g.refused)
    return CB_FAIL;
  int32_t oi = d->optind, oo = d->optopt;
  put_var(pr, "optind", &oi, 4);
  put_var(pr, "optarg", &arg, 8);
  put_var(pr, "optopt", &oo, 4);
  ret[0].u = (uint64_t)(uint32_t)r;
  return CB_GO;
}
