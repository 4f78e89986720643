/* Option parsing for the analysis commands, from the option table
 * (options_table.c) through getopt_long, so GNU conventions hold:
 * --opt=value or --opt value, options anywhere, unique prefixes. */
#include "analyze_args.h"
#include "options.h"

#include "cbana/report.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A whole unsigned number (any base strtoull takes), or false. */
static bool parse_u64(const char *s, uint64_t *out) {
  if (!s || !*s || *s == '-')
    return false;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, 0);
  if (errno || *end)
    return false;
  *out = v;
  return true;
}

/* Stores one option's value (NULL for a flag) where its entry says. */
static bool set_option(const cb_option *o, const char *v, cb_analyze_args *a,
                       const char *command) {
  char *field = (char *)a + o->field;
  uint64_t n;
  switch (o->kind) {
  case CB_OPT_FLAG:
    *(bool *)field = true;
    return true;
  case CB_OPT_STRING:
    *(const char **)field = v;
    return true;
  case CB_OPT_UINT:
  case CB_OPT_U64:
    if (!parse_u64(v, &n) || n < o->min || n > o->max) {
      if (o->name)
        fprintf(stderr, "cbana %s: --%s needs a whole number, not '%s'\n",
                command, o->name, v);
      else
        fprintf(stderr, "cbana %s: -%c needs a whole number, not '%s'\n",
                command, o->short_name, v);
      return false;
    }
    if (o->kind == CB_OPT_UINT)
      *(unsigned *)field = (unsigned)n;
    else
      *(uint64_t *)field = n;
    return true;
  case CB_OPT_CUSTOM:
    return o->parse(a, v, command);
  }
  return false;
}

/* getopt_long's tables for one command: the entries it takes; an entry's
 * long option returns 256 + its index, a short one its letter. */
static bool getopt_tables(unsigned cmd, struct option **longs, char **shorts) {
  *longs = calloc(cb_n_options + 1, sizeof **longs);
  *shorts = calloc(2 * cb_n_options + 2, 1);
  if (!*longs || !*shorts)
    return false;
  size_t nl = 0;
  char *sp = *shorts;
  *sp++ = ':'; /* a missing value returns ':' */
  for (size_t i = 0; i < cb_n_options; i++) {
    const cb_option *o = &cb_options[i];
    if (!(o->takes & cmd))
      continue;
    if (o->name)
      (*longs)[nl++] =
          (struct option){o->name, o->arg ? required_argument : no_argument,
                          NULL, 256 + (int)i};
    if (o->short_name) {
      *sp++ = o->short_name;
      if (o->arg)
        *sp++ = ':';
    }
  }
  return true;
}

static const cb_option *short_option(int c) {
  for (size_t i = 0; i < cb_n_options; i++)
    if (cb_options[i].short_name == c)
      return &cb_options[i];
  return NULL;
}

bool cb_analyze_args_parse(int argc, char **argv, cb_analyze_args *a,
                           const char *command) {
  memset(a, 0, sizeof *a);
  a->cflags = "-O2";
  a->format = "text";
  a->top = 10;
  a->tolerance = -1;
  a->sources = calloc((size_t)argc + 1, sizeof *a->sources);
  if (!a->sources)
    return false;
  /* getopt_long wants argv[0] to be the program; shift by one. */
  char **av = calloc((size_t)argc + 2, sizeof *av);
  if (!av)
    return false;
  av[0] = (char *)command;
  for (int i = 0; i < argc; i++)
    av[i + 1] = argv[i];
  int ac = argc + 1;
  optind = 1;
  opterr = 0;
  bool ok = true;
  int c;
  struct option *longs = NULL;
  char *shorts = NULL;
  if (!getopt_tables(cb_options_command(command), &longs, &shorts)) {
    free(longs);
    free(shorts);
    free(av);
    free(a->sources);
    a->sources = NULL;
    return false;
  }
  while (ok && (c = getopt_long(ac, av, shorts, longs, NULL)) != -1) {
    const cb_option *o = c >= 256 ? &cb_options[c - 256] : short_option(c);
    if (c == ':') {
      fprintf(stderr, "cbana %s: %s needs a value\n", command, av[optind - 1]);
      ok = false;
    } else if (c == '?' || !o) {
      fprintf(stderr, "cbana %s: unknown option '%s'\n", command,
              av[optind - 1]);
      ok = false;
    } else {
      ok = set_option(o, o->arg ? optarg : NULL, a, command);
    }
  }
  free(longs);
  free(shorts);
  for (int i = optind; ok && i < ac; i++)
    a->sources[a->n_sources++] = av[i];
  free(av);
  if (ok && a->n_sources == 0) {
    fprintf(stderr, "cbana %s: no C source given\n", command);
    ok = false;
  }
  bool known = false;
  for (const char *const *f = cb_report_formats; *f; f++)
    known |= strcmp(*f, a->format) == 0;
  if (ok && !known) {
    fprintf(stderr,
            "cbana %s: --format is text, json, annotate, html, sarif, dot or "
            "cachegrind, not '%s'\n",
            command, a->format);
    ok = false;
  }
  if (ok && a->shards && !a->inputs_file) {
    fprintf(stderr, "cbana %s: --shard slices an --inputs file: give one\n",
            command);
    ok = false;
  }
  if (ok && a->inputs_file && a->inline_args) {
    fprintf(stderr, "cbana %s: give --inputs or --args, not both\n", command);
    ok = false;
  }
  if (!ok) {
    free(a->sources);
    a->sources = NULL;
  }
  return ok;
}

void cb_analyze_args_free(cb_analyze_args *a) {
  free(a->sources);
  a->sources = NULL;
}

void cb_analyze_args_usage(const char *command, const char *synopsis,
                           const char *prose) {
  printf("usage: cbana %s FILE.c... [options]%s\n\n", command,
         synopsis ? synopsis : "");
  if (prose)
    printf("%s\n", prose);
  cb_options_help(stdout, cb_options_command(command));
  printf("\n"
         "Every value is computed in the model; the program itself is run "
         "only by\n"
         "validate (under cachegrind).\n"
         "Ctrl-C stops the analysis and still writes the report: the input "
         "that was\n"
         "running is reported stopped, with its counts so far (exit status "
         "3).\n");
}
