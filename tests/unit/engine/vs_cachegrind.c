/* vs_cachegrind: a developer tool (not a test): one corpus program and one
 * input, through the frontend, the engine and the cache model, beside
 * `env -i valgrind --tool=cachegrind` on the same executable; prints the
 * own-code data accesses and misses of both (cachegrind's reference
 * configuration, D1 32 KiB 8-way, LL 1 MiB 16-way).
 * Usage: engine_vs_cachegrind [-i STDIN] FILE.c... -- ARGS... */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_dir.h"
#include "cbana/cache.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "cbana/stream.h"

static void sink_fn(void *ctx, const cb_access *b, size_t n) {
  cb_hierarchy_run(ctx, b, n);
}

int main(int argc, char **argv) {
  const char *srcs[8], *stdin_path = NULL;
  int ns = 0, i = 1;
  for (; i < argc && strcmp(argv[i], "--"); i++) {
    if (!strcmp(argv[i], "-i") && i + 1 < argc)
      stdin_path = realpath(argv[++i], NULL);
    else if (ns < 8)
      srcs[ns++] = argv[i];
  }
  int pargc = i < argc ? argc - i - 1 : 0;
  char **pargs = argv + i + 1;
  char dir[] = "/tmp/cbana_vscgXXXXXX";
  if (!mkdtemp(dir))
    return 1;
  char exe[256];
  snprintf(exe, sizeof exe, "%s/prog", dir);
  cb_frontend_options fo = {0};
  fo.cache_dir = cb_cli_cache_dir();
  fo.sources = srcs;
  fo.n_sources = (size_t)ns;
  fo.cflags = "-O2";
  fo.exe_out = exe;
  cb_program *p;
  char err[4096];
  if (cb_frontend_load(&fo, &p, err, sizeof err) != CB_FE_OK) {
    fprintf(stderr, "%s\n", err);
    return 1;
  }
  /* cachegrind */
  char cmd[4096], out[300];
  snprintf(out, sizeof out, "%s/cg.out", dir);
  int k = snprintf(cmd, sizeof cmd,
                   "cd %s && env -i valgrind --tool=cachegrind --cache-sim=yes "
                   "--D1=32768,8,64 --LL=1048576,16,64 "
                   "--cachegrind-out-file=%s %s",
                   dir, out, exe);
  for (int a = 0; a < pargc; a++)
    k += snprintf(cmd + k, sizeof cmd - (size_t)k, " '%s'", pargs[a]);
  snprintf(cmd + k, sizeof cmd - (size_t)k, " < %s > /dev/null 2>&1",
           stdin_path ? stdin_path : "/dev/null");
  if (system(cmd) != 0)
    fprintf(stderr, "valgrind failed\n");
  unsigned long long cg[9] = {0};
  FILE *f = fopen(out, "r");
  char line[4096];
  bool own = false;
  while (f && fgets(line, sizeof line, f)) {
    if (!strncmp(line, "fl=", 3)) {
      line[strcspn(line, "\n")] = 0;
      own = false;
      for (uint32_t s = 0; s < p->n_files; s++) {
        const char *b = strrchr(p->files[s], '/');
        b = b ? b + 1 : p->files[s];
        const char *c = strrchr(line + 3, '/');
        c = c ? c + 1 : line + 3;
        if (!strcmp(b, c) && strstr(p->files[s], "/usr/include") == NULL)
          own = true;
      }
      continue;
    }
    if (!own || line[0] < '0' || line[0] > '9')
      continue;
    unsigned long long v[10] = {0};
    int n =
        sscanf(line, "%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0],
               &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9]);
    for (int e = 1; e < n && e <= 9; e++)
      cg[e - 1] += v[e];
  }
  if (f)
    fclose(f);
  /* engine */
  cb_cache_config cfg;
  cb_cache_preset("cachegrind", &cfg);
  cb_hierarchy *h = cb_hierarchy_create(&cfg, p->n_sites, 0, err, sizeof err);
  const char **av = calloc((size_t)pargc + 2, sizeof *av);
  av[0] = exe;
  for (int a = 0; a < pargc; a++)
    av[a + 1] = pargs[a];
  size_t in_len = 0;
  unsigned char *in = NULL;
  if (stdin_path) {
    FILE *g = fopen(stdin_path, "rb");
    in = malloc(1 << 24);
    in_len = fread(in, 1, 1 << 24, g);
    fclose(g);
  }
  cb_run_input ri = {pargc + 1, av, in, in_len};
  cb_engine_options opt;
  cb_engine_options_default(&opt);
  opt.cwd = dir;
  cb_access_sink sink = {sink_fn, h, NULL, NULL};
  cb_run_outcome o;
  int rc = cb_engine_run(p, &ri, &opt, &sink, &o);
  unsigned long long acc[3] = {0}, d1[3] = {0}, ll[3] = {0};
  for (uint32_t s = 0; s < p->n_sites; s++) {
    const cb_site_stats *a = cb_hierarchy_site_stats(h, s, 0);
    const cb_site_stats *b = cb_hierarchy_site_stats(h, s, 1);
    int c = p->sites[s].is_call ? 1 : 0;
    acc[c] += a->accesses;
    d1[c] += a->misses;
    ll[c] += b->misses;
  }
  printf("engine rc=%d %s\n", rc, o.message);
  printf("             %12s %12s %12s\n", "accesses", "D1 misses", "LL misses");
  printf("cachegrind   %12llu %12llu %12llu   (Dr %llu Dw %llu D1mr %llu "
         "D1mw %llu)\n",
         cg[3] + cg[6], cg[4] + cg[7], cg[5] + cg[8], cg[3], cg[6], cg[4],
         cg[7]);
  printf("engine own   %12llu %12llu %12llu   (loads %llu stores %llu)\n",
         acc[0], d1[0], ll[0], (unsigned long long)o.loads,
         (unsigned long long)o.stores);
  printf("engine calls %12llu %12llu %12llu   (library traffic, calls)\n",
         acc[1], d1[1], ll[1]);
  cb_run_outcome_free(&o);
  cb_hierarchy_destroy(h);
  cb_program_free(p);
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) ? 1 : 0;
}
