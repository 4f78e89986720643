/* Cachegrind-style cache flags (--D1=size,assoc,line, --L2=..., --LL=...,
 * as valgrind's cachegrind spells them; LRU and write-allocate, its only
 * semantics), and how --cache and the flags combine into the hierarchy a
 * command runs. */
#include "cbana/cache.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const struct {
  const char *flag;  /* as typed, with its '=' */
  const char *level; /* the level it makes */
} cache_flags[3] = {{"--D1=", "L1D"}, {"--L2=", "L2"}, {"--LL=", "LL"}};

int cb_cache_flag_parse(cb_cache_flags *f, const char *arg, char *err,
                        size_t n) {
  int k = 0;
  while (k < 3 && strncmp(arg, cache_flags[k].flag, 5) != 0)
    k++;
  if (k == 3)
    return 0;
  char buf[64];
  const char *spec = arg + 5;
  char *size_s, *assoc_s, *line_s, *extra;
  if (strlen(spec) >= sizeof buf)
    goto malformed;
  strcpy(buf, spec);
  size_s = buf;
  assoc_s = strchr(size_s, ',');
  if (!assoc_s)
    goto malformed;
  *assoc_s++ = '\0';
  line_s = strchr(assoc_s, ',');
  if (!line_s)
    goto malformed;
  *line_s++ = '\0';
  extra = strchr(line_s, ',');
  if (extra)
    goto malformed;
  cb_level_config lc = {.policy = CB_POLICY_LRU, .write_allocate = true};
  strcpy(lc.name, cache_flags[k].level);
  if (!cb_parse_size(size_s, &lc.size) || !cb_parse_assoc(assoc_s, &lc.assoc) ||
      !cb_parse_line(line_s, &lc.line))
    goto malformed;
  char why[CB_ERR_MAX];
  if (!cb_level_config_check(&lc, why, sizeof why)) {
    if (err && n)
      snprintf(err, n, "%s: %s", arg, why);
    return -1;
  }
  f->given[k] = true;
  f->level[k] = lc;
  return 1;
malformed:
  if (err && n)
    snprintf(err, n,
             "%s: expected %.4s=SIZE,ASSOC,LINE (bytes, ways or "
             "'full', bytes)",
             arg, cache_flags[k].flag);
  return -1;
}

static int find_level(const cb_cache_config *cfg, const char *name) {
  for (unsigned i = 0; i < cfg->n_levels; i++)
    if (strcmp(cfg->levels[i].name, name) == 0)
      return (int)i;
  return -1;
}

static bool insert_level(cb_cache_config *cfg, unsigned at,
                         const cb_level_config *lc) {
  if (cfg->n_levels == CB_MAX_LEVELS)
    return false;
  memmove(&cfg->levels[at + 1], &cfg->levels[at],
          (cfg->n_levels - at) * sizeof cfg->levels[0]);
  cfg->levels[at] = *lc;
  cfg->n_levels++;
  return true;
}

static bool is_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && !S_ISDIR(st.st_mode);
}

bool cb_cache_config_resolve(const char *cache_arg, const cb_cache_flags *f,
                             cb_cache_config *out, char *err, size_t n) {
  bool any_flag = f && (f->given[0] || f->given[1] || f->given[2]);
  memset(out, 0, sizeof *out);
  if (cache_arg) {
    if (is_file(cache_arg)) {
      if (!cb_cache_config_parse_file(cache_arg, out, err, n))
        return false;
    } else if (!cb_cache_preset(cache_arg, out)) {
      if (err && n) {
        int k =
            snprintf(err, n, "--cache %s: no such file or preset (", cache_arg);
        const char *const *p = cb_cache_preset_names();
        for (int i = 0; p[i] && k >= 0 && (size_t)k < n; i++)
          k += snprintf(err + k, n - (size_t)k, "%s%s", i ? ", " : "", p[i]);
        if (k >= 0 && (size_t)k < n)
          snprintf(err + k, n - (size_t)k, ")");
      }
      return false;
    }
  } else if (!any_flag) {
    return cb_cache_preset("cachegrind", out);
  }
  if (!any_flag)
    return true;
  for (int k = 0; k < 3; k++) {
    if (!f->given[k])
      continue;
    int at = find_level(out, f->level[k].name);
    if (at >= 0) {
      out->levels[at] = f->level[k];
      continue;
    }
    unsigned pos = 0; /* D1 goes first */
    if (k == 1)       /* L2 right after L1D, else first */
      pos = (unsigned)(find_level(out, "L1D") + 1);
    else if (k == 2) /* LL last */
      pos = out->n_levels;
    if (!insert_level(out, pos, &f->level[k])) {
      if (err && n)
        snprintf(err, n, "--%s: more than %d levels",
                 k == 0   ? "D1"
                 : k == 1 ? "L2"
                          : "LL",
                 CB_MAX_LEVELS);
      return false;
    }
  }
  return true;
}
