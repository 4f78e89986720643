/* `cbana sim`: runs an address trace (Dinero IV's din format, extended
 * with an access size; docs/trace-format.md) through a cache hierarchy
 * and prints its counters, as a table or as JSON. */
#include "cbana/stream.h"
#include "commands.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BATCH 4096
#define MAX_ACCESS_SIZE 65535 /* what cb_access.size holds */

void cb_cmd_sim_usage(void) {
  printf(
      "usage: cbana sim [--cache FILE|PRESET] [--D1=S,A,L] [--L2=S,A,L]\n"
      "                 [--LL=S,A,L] [--format text|json] [--no-classify]\n"
      "                 [--mrc] [--exact-mrc] TRACE\n\n"
      "Runs TRACE (din format: 'LABEL HEXADDR [SIZE]' per line, label 0\n"
      "read, 1 write, 2 instruction fetch (skipped); '-' reads stdin)\n"
      "through a cache hierarchy and prints accesses and misses per level,\n"
      "each miss classified compulsory, capacity or conflict.\n\n"
      "  --cache FILE|PRESET  configuration file (docs/cache-config.md) or\n"
      "                       preset: cachegrind (default), skylake, zen3,\n"
      "                       neoverse-n1\n"
      "  --D1/--L2/--LL=SIZE,ASSOC,LINE\n"
      "                       cachegrind-style LRU levels; they replace the\n"
      "                       level of the same name (L1D, L2, LL) or add it\n"
      "  --format text|json   output (default text)\n"
      "  --no-classify        skip miss classes and stack distances (faster)\n"
      "  --mrc                text: also print each level's miss-ratio curve\n"
      "                       (JSON always has it under \"mrc\")\n"
      "  --exact-mrc          exact stack distances however many lines a\n"
      "                       level sees (by default sampled past 65536\n"
      "                       distinct lines; \"mrc_sampling\" is the rate)\n");
}

typedef struct sim_opts {
  const char *cache;
  cb_cache_flags flags;
  bool json, classify, mrc, exact_mrc;
  const char *trace;
} sim_opts;

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "cbana sim: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, " (see `cbana sim --help`)\n");
  return 2;
}

/* Returns 0 or the exit status of a usage error. */
static int parse_args(int argc, char **argv, sim_opts *o) {
  memset(o, 0, sizeof *o);
  o->classify = true;
  for (int i = 0; i < argc; i++) {
    const char *a = argv[i];
    char err[CB_ERR_MAX];
    int r = cb_cache_flag_parse(&o->flags, a, err, sizeof err);
    if (r < 0) {
      fprintf(stderr, "cbana sim: %s\n", err);
      return 2;
    }
    if (r > 0)
      continue;
    const char *format = NULL;
    if (strcmp(a, "--cache") == 0 || strcmp(a, "--format") == 0) {
      if (i + 1 == argc)
        return usage_error("%s needs a value", a);
      if (a[2] == 'c')
        o->cache = argv[++i];
      else
        format = argv[++i];
    } else if (strncmp(a, "--cache=", 8) == 0) {
      o->cache = a + 8;
    } else if (strncmp(a, "--format=", 9) == 0) {
      format = a + 9;
    } else if (strcmp(a, "--no-classify") == 0) {
      o->classify = false;
    } else if (strcmp(a, "--mrc") == 0) {
      o->mrc = true;
    } else if (strcmp(a, "--exact-mrc") == 0) {
      o->exact_mrc = true;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option '%s'", a);
    } else if (o->trace) {
      return usage_error("one trace only, not also '%s'", a);
    } else {
      o->trace = a;
    }
    if (format) {
      if (strcmp(format, "json") == 0)
        o->json = true;
      else if (strcmp(format, "text") != 0)
        return usage_error("unknown format '%s' (text, json)", format);
    }
  }
  if (!o->trace)
    return usage_error("%s", "no TRACE given");
  return 0;
}

/* ---- The trace ----------------------------------------------------------- */

typedef struct trace_counts {
  uint64_t accesses, ifetches;
} trace_counts;

static int trace_error(const char *file, uint64_t line, const char *msg,
                       const char *tok) {
  fprintf(stderr, "%s:%" PRIu64 ": %s", file, line, msg);
  if (tok)
    fprintf(stderr, " '%s'", tok);
  fprintf(stderr, "\n");
  return 2;
}

static bool parse_hex(const char *s, uint64_t *out) {
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  size_t len = strlen(s);
  if (len == 0 || len > 16 || strspn(s, "0123456789abcdefABCDEF") != len)
    return false;
  *out = strtoull(s, NULL, 16);
  return true;
}

static bool parse_size_field(const char *s, uint32_t *out) {
  size_t len = strlen(s);
  if (len == 0 || len > 5 || strspn(s, "0123456789") != len)
    return false;
  unsigned long v = strtoul(s, NULL, 10);
  if (v == 0 || v > MAX_ACCESS_SIZE)
    return false;
  *out = (uint32_t)v;
  return true;
}

/* One trace line into *a; 1 an access, 0 nothing to run, 2 an error. */
static int parse_trace_line(char *s, const char *file, uint64_t line,
                            cb_access *a, trace_counts *tc) {
  s[strcspn(s, "#\r\n")] = '\0';
  char *tok[4];
  int nt = 0;
  for (char *t = strtok(s, " \t"); t; t = strtok(NULL, " \t")) {
    if (nt == 3)
      return trace_error(file, line, "more than 3 fields at", t);
    tok[nt++] = t;
  }
  if (nt == 0)
    return 0;
  if (nt == 1)
    return trace_error(file, line, "expected 'LABEL HEXADDR [SIZE]', got",
                       tok[0]);
  if (strcmp(tok[0], "0") && strcmp(tok[0], "1") && strcmp(tok[0], "2"))
    return trace_error(
        file, line, "label is not 0 (read), 1 (write) or 2 (fetch):", tok[0]);
  uint64_t addr;
  if (!parse_hex(tok[1], &addr))
    return trace_error(file, line,
                       "address is not up to 16 hex digits:", tok[1]);
  uint32_t size = 1;
  if (nt == 3 && !parse_size_field(tok[2], &size))
    return trace_error(file, line, "size is not a decimal 1 to 65535:", tok[2]);
  if (tok[0][0] == '2') {
    tc->ifetches++;
    return 0;
  }
  a->addr = addr;
  a->size = (uint16_t)size;
  a->is_write = tok[0][0] == '1';
  a->site = CB_SITE_NONE;
  a->reserved = 0;
  tc->accesses++;
  return 1;
}

static int run_trace(cb_hierarchy *h, const char *path, trace_counts *tc) {
  bool is_stdin = strcmp(path, "-") == 0;
  const char *name = is_stdin ? "<stdin>" : path;
  FILE *f = is_stdin ? stdin : fopen(path, "r");
  if (!f) {
    fprintf(stderr, "cbana sim: %s: cannot read: %s\n", path, strerror(errno));
    return 2;
  }
  static cb_access batch[BATCH];
  size_t nb = 0;
  char *buf = NULL;
  size_t cap = 0;
  uint64_t line = 0;
  int status = 0;
  ssize_t len;
  while ((len = getline(&buf, &cap, f)) >= 0) {
    line++;
    if (strlen(buf) != (size_t)len) {
      trace_error(name, line, "a NUL byte in the line", NULL);
      status = 2;
      break;
    }
    int r = parse_trace_line(buf, name, line, &batch[nb], tc);
    if (r == 2) {
      status = 2;
      break;
    }
    if (r == 1 && ++nb == BATCH) {
      cb_hierarchy_run(h, batch, nb);
      nb = 0;
    }
  }
  if (!status && ferror(f)) {
    fprintf(stderr, "cbana sim: %s: read error\n", name);
    status = 2;
  }
  if (!status)
    cb_hierarchy_run(h, batch, nb);
  free(buf);
  if (!is_stdin)
    fclose(f);
  return status;
}

/* ---- Output ---------------------------------------------------------------
 */

static double pct(uint64_t part, uint64_t whole) {
  return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Capacities of the miss-ratio curve: powers of two up to the first that
 * holds every distance seen. */
static uint64_t mrc_end(const cb_hierarchy *h, unsigned level) {
  const uint64_t *hist;
  size_t len;
  uint64_t cold;
  cb_hierarchy_distance_histogram(h, level, &hist, &len, &cold);
  uint64_t end = 1;
  while (end < len)
    end *= 2;
  return end;
}

static void print_level_config(const cb_level_config *lc) {
  char assoc[24];
  if (lc->assoc == CB_ASSOC_FULL)
    strcpy(assoc, "fully assoc");
  else
    snprintf(assoc, sizeof assoc, "%" PRIu32 "-way", lc->assoc);
  printf("  %-6s %10" PRIu64 " B, %s, %" PRIu32 " B lines, %s, %s\n", lc->name,
         lc->size, assoc, lc->line, cb_policy_name(lc->policy),
         lc->write_allocate ? "write-allocate" : "no-write-allocate");
}

/* What the hierarchy came from, for the report's header. */
static void print_cache_name(const sim_opts *o) {
  const cb_cache_flags *f = &o->flags;
  bool flags = f->given[0] || f->given[1] || f->given[2];
  if (!o->cache)
    printf("cache %s:\n",
           flags ? "from --D1/--L2/--LL" : "cachegrind (default)");
  else
    printf("cache %s%s:\n", o->cache, flags ? " with --D1/--L2/--LL" : "");
}

static void print_text(const cb_hierarchy *h, const sim_opts *o,
                       const trace_counts *tc) {
  unsigned nl = cb_hierarchy_n_levels(h);
  printf("trace %s: %" PRIu64 " data accesses (%" PRIu64
         " instruction fetches skipped)\n",
         o->trace, tc->accesses, tc->ifetches);
  print_cache_name(o);
  for (unsigned i = 0; i < nl; i++)
    print_level_config(cb_hierarchy_level_config(h, i));
  printf("\n%-6s %12s %12s %12s %12s %12s %12s %7s %7s %7s", "level",
         "accesses", "reads", "writes", "misses", "rd_misses", "wr_misses",
         "miss%", "rd%", "wr%");
  if (o->classify)
    printf(" %12s %12s %12s", "compulsory", "capacity", "conflict");
  printf("\n");
  for (unsigned i = 0; i < nl; i++) {
    cb_level_stats s;
    cb_hierarchy_level_stats(h, i, &s);
    printf("%-6s %12" PRIu64 " %12" PRIu64 " %12" PRIu64 " %12" PRIu64
           " %12" PRIu64 " %12" PRIu64 " %6.2f%% %6.2f%% %6.2f%%",
           cb_hierarchy_level_config(h, i)->name, s.accesses, s.reads, s.writes,
           s.misses, s.read_misses, s.write_misses, pct(s.misses, s.accesses),
           pct(s.read_misses, s.reads), pct(s.write_misses, s.writes));
    if (o->classify)
      printf(" %12" PRIu64 " %12" PRIu64 " %12" PRIu64,
             s.miss_class[CB_MISS_COMPULSORY], s.miss_class[CB_MISS_CAPACITY],
             s.miss_class[CB_MISS_CONFLICT]);
    printf("\n");
  }
  printf("\nMiss rates are per level: misses / accesses presented to that "
         "level.\n");
  if (!o->mrc || !o->classify)
    return;
  for (unsigned i = 0; i < nl; i++) {
    const cb_level_config *lc = cb_hierarchy_level_config(h, i);
    uint64_t refs = cb_hierarchy_line_refs(h, i);
    uint32_t k = cb_hierarchy_distance_scale_log2(h, i);
    printf("\nmiss-ratio curve at %s (fully associative LRU, %" PRIu64
           "-byte lines, %" PRIu64 " line references, ",
           lc->name, (uint64_t)lc->line, refs);
    if (k)
      printf("distances sampled at 1/%" PRIu64 "):\n", (uint64_t)1 << k);
    else
      printf("exact):\n");
    printf("%12s %14s %12s %7s\n", "lines", "bytes", "misses", "miss%");
    for (uint64_t c = 1, end = mrc_end(h, i); c <= end; c *= 2) {
      uint64_t m = cb_hierarchy_fa_lru_misses(h, i, c);
      printf("%12" PRIu64 " %14" PRIu64 " %12" PRIu64 " %6.2f%%\n", c,
             c * lc->line, m, pct(m, refs));
    }
  }
}

static void print_json(const cb_hierarchy *h, const sim_opts *o) {
  unsigned nl = cb_hierarchy_n_levels(h);
  printf("{\n");
  for (unsigned i = 0; i < nl; i++) {
    const cb_level_config *lc = cb_hierarchy_level_config(h, i);
    cb_level_stats s;
    cb_hierarchy_level_stats(h, i, &s);
    printf("  \"%s\": {\"accesses\": %" PRIu64 ", \"reads\": %" PRIu64
           ", \"writes\": %" PRIu64 ", \"misses\": %" PRIu64
           ", \"read_misses\": %" PRIu64 ", \"write_misses\": %" PRIu64,
           lc->name, s.accesses, s.reads, s.writes, s.misses, s.read_misses,
           s.write_misses);
    if (o->classify) {
      printf(", \"compulsory\": %" PRIu64 ", \"capacity\": %" PRIu64
             ", \"conflict\": %" PRIu64 ", \"line_refs\": %" PRIu64
             ", \"mrc_sampling\": %.17g, \"mrc\": [",
             s.miss_class[CB_MISS_COMPULSORY], s.miss_class[CB_MISS_CAPACITY],
             s.miss_class[CB_MISS_CONFLICT], cb_hierarchy_line_refs(h, i),
             1.0 / (double)((uint64_t)1
                            << cb_hierarchy_distance_scale_log2(h, i)));
      for (uint64_t c = 1, end = mrc_end(h, i); c <= end; c *= 2)
        printf("%s{\"lines\": %" PRIu64 ", \"bytes\": %" PRIu64
               ", \"misses\": %" PRIu64 "}",
               c > 1 ? ", " : "", c, c * lc->line,
               cb_hierarchy_fa_lru_misses(h, i, c));
      printf("]}");
    } else {
      printf(", \"compulsory\": null, \"capacity\": null, \"conflict\": null, "
             "\"line_refs\": null, \"mrc_sampling\": null, \"mrc\": "
             "null}");
    }
    printf("%s\n", i + 1 < nl ? "," : "");
  }
  printf("}\n");
}

int cb_cmd_sim_run(int argc, char **argv) {
  sim_opts o;
  int st = parse_args(argc, argv, &o);
  if (st)
    return st;
  char err[CB_ERR_MAX];
  cb_cache_config cfg;
  if (!cb_cache_config_resolve(o.cache, &o.flags, &cfg, err, sizeof err)) {
    fprintf(stderr, "cbana sim: %s\n", err);
    return 2;
  }
  cb_hierarchy *h = cb_hierarchy_create(
      &cfg, 0, o.classify ? CB_CLASSIFY | (o.exact_mrc ? CB_EXACT_MRC : 0) : 0,
      err, sizeof err);
  if (!h) {
    fprintf(stderr, "cbana sim: %s\n", err);
    return 2;
  }
  trace_counts tc = {0, 0};
  st = run_trace(h, o.trace, &tc);
  if (!st) {
    if (o.json)
      print_json(h, &o);
    else
      print_text(h, &o, &tc);
  }
  cb_hierarchy_destroy(h);
  return st;
}
