/* The cache configuration file: INI sections, one per level from the core
 * outward, keys size, assoc, line (required), policy, write_allocate, seed
 * (optional). The format is described in docs/cache-config.md. Every
 * error names the file, the line and the rule broken. */
#include "cbana/cache.h"
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (4ull << 30) /* 4G: the tags of a bigger level are silly */
#define MIN_LINE 4

static const char *const policy_names[] = {
    [CB_POLICY_LRU] = "lru",       [CB_POLICY_FIFO] = "fifo",
    [CB_POLICY_MRU] = "mru",       [CB_POLICY_PLRU] = "plru",
    [CB_POLICY_RANDOM] = "random",
};

const char *cb_policy_name(cb_policy p) {
  return (unsigned)p <= CB_POLICY_RANDOM ? policy_names[p] : "?";
}

static bool is_pow2(uint64_t v) {
  return v && !(v & (v - 1));
}

static bool fail(char *err, size_t n, const char *fmt, ...) {
  if (err && n) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, n, fmt, ap);
    va_end(ap);
  }
  return false;
}

bool cb_level_config_check(const cb_level_config *lc, char *err, size_t n) {
  if (!is_pow2(lc->line))
    return fail(err, n, "line %" PRIu32 " is not a power of two", lc->line);
  if (lc->line < MIN_LINE)
    return fail(err, n, "line %" PRIu32 " is under %d bytes", lc->line,
                MIN_LINE);
  if (lc->size == 0 || lc->size > MAX_SIZE)
    return fail(err, n, "size %" PRIu64 " is not between 1 and 4G", lc->size);
  if (lc->line > lc->size)
    return fail(err, n,
                "line %" PRIu32 " is larger than the level (%" PRIu64 " bytes)",
                lc->line, lc->size);
  if (lc->size % lc->line)
    return fail(err, n, "size %" PRIu64 " is not a multiple of line %" PRIu32,
                lc->size, lc->line);
  uint64_t lines = lc->size / lc->line;
  uint64_t assoc = lc->assoc == CB_ASSOC_FULL ? lines : lc->assoc;
  if (assoc > lines)
    return fail(err, n,
                "assoc %" PRIu64 " exceeds the level's %" PRIu64 " lines",
                assoc, lines);
  if (lines % assoc)
    return fail(err, n, "%" PRIu64 " lines do not divide into %" PRIu64 " ways",
                lines, assoc);
  if (!is_pow2(lines / assoc))
    return fail(err, n,
                "%" PRIu64 " sets (size / (assoc * line)) is not a "
                "power of two",
                lines / assoc);
  if (lc->policy == CB_POLICY_PLRU && !is_pow2(assoc))
    return fail(err, n, "policy plru needs a power-of-two assoc, not %" PRIu64,
                assoc);
  if ((unsigned)lc->policy > CB_POLICY_RANDOM)
    return fail(err, n, "unknown policy");
  return true;
}

/* ---- Values ------------------------------------------------------------ */

/* Decimal digits, all of s; false on anything else or on overflow. */
static bool parse_u64(const char *s, uint64_t *out) {
  if (!isdigit((unsigned char)*s))
    return false;
  uint64_t v = 0;
  for (; *s; s++) {
    if (!isdigit((unsigned char)*s))
      return false;
    unsigned d = (unsigned)(*s - '0');
    if (v > (UINT64_MAX - d) / 10)
      return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool cb_parse_size(const char *s, uint64_t *out) {
  char digits[32];
  size_t len = strlen(s);
  if (len == 0 || len >= sizeof digits)
    return false;
  memcpy(digits, s, len + 1);
  unsigned shift = 0;
  switch (toupper((unsigned char)digits[len - 1])) {
  case 'K':
    shift = 10;
    break;
  case 'M':
    shift = 20;
    break;
  case 'G':
    shift = 30;
    break;
  }
  if (shift)
    digits[len - 1] = '\0';
  uint64_t v;
  if (!parse_u64(digits, &v) || v > (UINT64_MAX >> shift))
    return false;
  *out = v << shift;
  return true;
}

bool cb_parse_assoc(const char *s, uint32_t *out) {
  uint64_t v;
  if (strcmp(s, "full") == 0) {
    *out = CB_ASSOC_FULL;
    return true;
  }
  if (!parse_u64(s, &v) || v == 0 || v > UINT32_MAX)
    return false;
  *out = (uint32_t)v;
  return true;
}

bool cb_parse_line(const char *s, uint32_t *out) {
  uint64_t v;
  if (!parse_u64(s, &v) || v > UINT32_MAX)
    return false;
  *out = (uint32_t)v;
  return true;
}

static bool parse_policy(const char *s, cb_policy *out) {
  for (unsigned p = 0; p <= CB_POLICY_RANDOM; p++)
    if (strcmp(s, policy_names[p]) == 0) {
      *out = (cb_policy)p;
      return true;
    }
  return false;
}

static bool parse_bool(const char *s, bool *out) {
  if (!strcmp(s, "yes") || !strcmp(s, "true") || !strcmp(s, "1"))
    *out = true;
  else if (!strcmp(s, "no") || !strcmp(s, "false") || !strcmp(s, "0"))
    *out = false;
  else
    return false;
  return true;
}

/* ---- The file ----------------------------------------------------------- */

enum { KEY_SIZE, KEY_ASSOC, KEY_LINE, KEY_POLICY, KEY_WA, KEY_SEED, N_KEYS };
static const char *const key_names[N_KEYS] = {
    "size", "assoc", "line", "policy", "write_allocate", "seed"};

typedef struct parser {
  const char *file;
  cb_cache_config *cfg;
  cb_level_config *cur; /* the open section */
  unsigned cur_line;    /* where it opened */
  unsigned seen;        /* keys given in it, bit per key */
  char *err;
  size_t n;
} parser;

static bool perr(parser *p, unsigned line, const char *fmt, ...) {
  if (p->err && p->n) {
    int k = snprintf(p->err, p->n, "%s:%u: ", p->file, line);
    if (k >= 0 && (size_t)k < p->n) {
      va_list ap;
      va_start(ap, fmt);
      vsnprintf(p->err + k, p->n - (size_t)k, fmt, ap);
      va_end(ap);
    }
  }
  return false;
}

static char *trim(char *s) {
  while (isspace((unsigned char)*s))
    s++;
  char *e = s + strlen(s);
  while (e > s && isspace((unsigned char)e[-1]))
    *--e = '\0';
  return s;
}

/* A section ends: its required keys and its geometry. */
static bool close_section(parser *p) {
  if (!p->cur)
    return true;
  for (int k = KEY_SIZE; k <= KEY_LINE; k++)
    if (!(p->seen & (1u << k)))
      return perr(p, p->cur_line, "[%s] has no '%s' key", p->cur->name,
                  key_names[k]);
  char why[CB_ERR_MAX];
  if (!cb_level_config_check(p->cur, why, sizeof why))
    return perr(p, p->cur_line, "[%s]: %s", p->cur->name, why);
  p->cur = NULL;
  return true;
}

static bool open_section(parser *p, unsigned line, char *s) {
  char *close = strchr(s, ']');
  if (!close || trim(close + 1)[0])
    return perr(p, line, "a section header is '[NAME]'");
  *close = '\0';
  char *name = trim(s + 1);
  size_t len = strlen(name);
  if (len == 0 || len >= CB_LEVEL_NAME_MAX)
    return perr(p, line, "a level name has 1 to %d characters",
                CB_LEVEL_NAME_MAX - 1);
  for (size_t i = 0; i < len; i++)
    if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '-')
      return perr(p, line,
                  "level name '%s' has characters other than "
                  "letters, digits, '_' and '-'",
                  name);
  if (!close_section(p))
    return false;
  for (unsigned i = 0; i < p->cfg->n_levels; i++)
    if (strcmp(p->cfg->levels[i].name, name) == 0)
      return perr(p, line, "duplicate section [%s]", name);
  if (p->cfg->n_levels == CB_MAX_LEVELS)
    return perr(p, line, "more than %d levels", CB_MAX_LEVELS);
  cb_level_config *lc = &p->cfg->levels[p->cfg->n_levels++];
  memset(lc, 0, sizeof *lc);
  memcpy(lc->name, name, len + 1);
  lc->policy = CB_POLICY_LRU;
  lc->write_allocate = true;
  p->cur = lc;
  p->cur_line = line;
  p->seen = 0;
  return true;
}

static bool set_key(parser *p, unsigned line, char *s) {
  char *eq = strchr(s, '=');
  if (!eq)
    return perr(p, line, "expected 'key = value' or '[LEVEL]'");
  *eq = '\0';
  char *key = trim(s), *val = trim(eq + 1);
  int k = 0;
  while (k < N_KEYS && strcmp(key, key_names[k]) != 0)
    k++;
  if (k == N_KEYS)
    return perr(p, line,
                "unknown key '%s' (size, assoc, line, policy, "
                "write_allocate, seed)",
                key);
  if (!p->cur)
    return perr(p, line, "'%s' outside a [LEVEL] section", key);
  if (p->seen & (1u << k))
    return perr(p, line, "duplicate key '%s' in [%s]", key, p->cur->name);
  p->seen |= 1u << k;
  cb_level_config *lc = p->cur;
  switch (k) {
  case KEY_SIZE:
    if (!cb_parse_size(val, &lc->size))
      return perr(p, line,
                  "size '%s' is not a number of bytes with an "
                  "optional K, M or G",
                  val);
    break;
  case KEY_ASSOC:
    if (!cb_parse_assoc(val, &lc->assoc))
      return perr(p, line, "assoc '%s' is not a positive number or 'full'",
                  val);
    break;
  case KEY_LINE:
    if (!cb_parse_line(val, &lc->line))
      return perr(p, line, "line '%s' is not a number of bytes", val);
    break;
  case KEY_POLICY:
    if (!parse_policy(val, &lc->policy))
      return perr(p, line,
                  "unknown policy '%s' (lru, fifo, mru, plru, "
                  "random)",
                  val);
    break;
  case KEY_WA:
    if (!parse_bool(val, &lc->write_allocate))
      return perr(p, line, "write_allocate '%s' is not yes or no", val);
    break;
  case KEY_SEED:
    if (!parse_u64(val, &lc->seed))
      return perr(p, line, "seed '%s' is not a number below 2^64", val);
    break;
  }
  return true;
}

bool cb_cache_config_parse_text(const char *text, const char *filename,
                                cb_cache_config *out, char *err, size_t n) {
  parser p = {.file = filename, .cfg = out, .err = err, .n = n};
  memset(out, 0, sizeof *out);
  unsigned line = 0;
  const char *s = text;
  char *buf = NULL;
  size_t buf_cap = 0;
  bool ok = true;
  while (ok && *s) {
    line++;
    size_t len = strcspn(s, "\n");
    if (len + 1 > buf_cap) {
      buf_cap = len + 1;
      char *nb = realloc(buf, buf_cap);
      if (!nb) {
        ok = perr(&p, line, "out of memory");
        break;
      }
      buf = nb;
    }
    memcpy(buf, s, len);
    buf[len] = '\0';
    s += len + (s[len] == '\n');
    buf[strcspn(buf, "#;")] = '\0'; /* comments run to the end of line */
    char *t = trim(buf);
    if (*t == '\0')
      continue;
    ok = *t == '[' ? open_section(&p, line, t) : set_key(&p, line, t);
  }
  free(buf);
  if (!ok)
    return false;
  if (!close_section(&p))
    return false;
  if (out->n_levels == 0)
    return perr(&p, line ? line : 1,
                "no cache level (a [NAME] section "
                "with size, assoc and line)");
  return true;
}

bool cb_cache_config_parse_file(const char *path, cb_cache_config *out,
                                char *err, size_t n) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return fail(err, n, "%s: cannot read: %s", path, strerror(errno));
  char *text = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *nt = realloc(text, cap);
      if (!nt) {
        free(text);
        fclose(f);
        return fail(err, n, "%s: out of memory", path);
      }
      text = nt;
    }
    size_t got = fread(text + len, 1, 4096, f);
    len += got;
    if (got < 4096)
      break;
  }
  bool read_error = ferror(f);
  fclose(f);
  if (read_error) {
    free(text);
    return fail(err, n, "%s: cannot read", path);
  }
  text[len] = '\0';
  bool ok;
  if (strlen(text) != len) {
    unsigned line = 1;
    for (const char *c = text; *c; c++)
      line += *c == '\n';
    ok = fail(err, n, "%s:%u: a NUL byte in a text file", path, line);
  } else {
    ok = cb_cache_config_parse_text(text, path, out, err, n);
  }
  free(text);
  return ok;
}
