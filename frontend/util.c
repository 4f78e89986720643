/* util.c: growable arrays, the cache's keys, a pointer-keyed hash map,
 * the string pool that a Program owns, error text, and whole files. */
#include "fe_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void *fe_grow(void *v, uint32_t *cap, uint32_t need, size_t elem) {
  uint32_t c = *cap ? *cap : 8;
  while (c < need)
    c *= 2;
  void *n = realloc(v, (size_t)c * elem);
  if (!n) {
    fprintf(stderr, "cbana: out of memory\n");
    abort();
  }
  *cap = c;
  return n;
}

uint64_t fe_fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++)
    h = (h ^ s[i]) * 0x100000001b3ull;
  return h;
}

uint64_t fe_fnv_str(uint64_t h, const char *s) {
  return fe_fnv(h, s ? s : "", s ? strlen(s) + 1 : 1);
}

/* ---- map ---- */

static uint32_t hash_ptr(const void *p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return (uint32_t)x;
}

bool fe_map_get(const fe_map *m, const void *key, uint64_t *val) {
  if (!m->cap)
    return false;
  uint32_t mask = m->cap - 1;
  for (uint32_t i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
    if (!m->keys[i])
      return false;
    if (m->keys[i] == key) {
      if (val)
        *val = m->vals[i];
      return true;
    }
  }
}

static void map_insert(fe_map *m, const void *key, uint64_t val) {
  uint32_t mask = m->cap - 1;
  for (uint32_t i = hash_ptr(key) & mask;; i = (i + 1) & mask) {
    if (!m->keys[i]) {
      m->keys[i] = key;
      m->vals[i] = val;
      m->n++;
      return;
    }
    if (m->keys[i] == key) {
      m->vals[i] = val;
      return;
    }
  }
}

void fe_map_put(fe_map *m, const void *key, uint64_t val) {
  if ((m->n + 1) * 2 > m->cap) {
    fe_map old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->n = 0;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->vals = calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals)
      abort();
    for (uint32_t i = 0; i < old.cap; i++)
      if (old.keys[i])
        map_insert(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
  }
  map_insert(m, key, val);
}

void fe_map_clear(fe_map *m) {
  if (m->cap && m->n) {
    memset(m->keys, 0, m->cap * sizeof *m->keys);
    m->n = 0;
  }
}

void fe_map_free(fe_map *m) {
  free(m->keys);
  free(m->vals);
  memset(m, 0, sizeof *m);
}

/* ---- pool ---- */

typedef struct pool_chunk {
  struct pool_chunk *next;
  size_t used, size;
  _Alignas(16) unsigned char data[];
} pool_chunk;

struct fe_pool {
  pool_chunk *head;
  /* interning: open addressing over pointers into the pool */
  const char **tab;
  uint32_t n, cap;
};

fe_pool *fe_pool_new(void) {
  fe_pool *p = calloc(1, sizeof *p);
  if (!p)
    abort();
  return p;
}

void fe_pool_free(fe_pool *p) {
  if (!p)
    return;
  for (pool_chunk *c = p->head, *n; c; c = n) {
    n = c->next;
    free(c);
  }
  free(p->tab);
  free(p);
}

void *fe_pool_alloc(fe_pool *p, size_t n) {
  n = (n + 15) & ~(size_t)15;
  if (!p->head || p->head->used + n > p->head->size) {
    size_t sz = n > 60000 ? n : 60000;
    pool_chunk *c = calloc(1, sizeof *c + sz);
    if (!c)
      abort();
    c->size = sz;
    c->next = p->head;
    if (p->head && n > 60000) { /* keep the current chunk in front */
      c->next = p->head->next;
      p->head->next = c;
      c->used = n;
      return c->data;
    }
    p->head = c;
  }
  void *r = p->head->data + p->head->used;
  p->head->used += n;
  return r;
}

const char *fe_pool_strn(fe_pool *p, const char *s, size_t n) {
  char *d = fe_pool_alloc(p, n + 1);
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}

const char *fe_pool_str(fe_pool *p, const char *s) {
  return s ? fe_pool_strn(p, s, strlen(s)) : NULL;
}

static uint32_t hash_str(const char *s, size_t n) {
  uint32_t h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ (unsigned char)s[i]) * 16777619u;
  return h;
}

const char *fe_pool_intern(fe_pool *p, const char *s, size_t n) {
  if ((p->n + 1) * 2 > p->cap) {
    uint32_t oc = p->cap;
    const char **ot = p->tab;
    p->cap = oc ? oc * 2 : 256;
    p->tab = calloc(p->cap, sizeof *p->tab);
    if (!p->tab)
      abort();
    for (uint32_t i = 0; i < oc; i++)
      if (ot[i]) {
        const char *t = ot[i];
        uint32_t j = hash_str(t, strlen(t)) & (p->cap - 1);
        while (p->tab[j])
          j = (j + 1) & (p->cap - 1);
        p->tab[j] = t;
      }
    free(ot);
  }
  uint32_t j = hash_str(s, n) & (p->cap - 1);
  for (; p->tab[j]; j = (j + 1) & (p->cap - 1))
    if (strncmp(p->tab[j], s, n) == 0 && p->tab[j][n] == 0)
      return p->tab[j];
  const char *d = fe_pool_strn(p, s, n);
  p->tab[j] = d;
  p->n++;
  return d;
}

/* ---- errors ---- */

void fe_errf(fe_err *e, cb_fe_status st, const char *fmt, ...) {
  if (e->status == CB_FE_OK)
    e->status = st;
  if (!e->buf || e->size == 0)
    return;
  if (e->len + 1 >= e->size)
    return;
  va_list ap;
  va_start(ap, fmt);
  int k = vsnprintf(e->buf + e->len, e->size - e->len, fmt, ap);
  va_end(ap);
  if (k < 0)
    return;
  e->len += (size_t)k;
  if (e->len >= e->size)
    e->len = e->size - 1;
}

char *fe_read_file(const char *path, size_t *len, struct stat *st) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  struct stat s;
  if (fd < 0 || fstat(fd, &s) != 0 || !S_ISREG(s.st_mode)) {
    if (fd >= 0)
      close(fd);
    return NULL;
  }
  char *buf = malloc((size_t)s.st_size + 1);
  size_t got = 0;
  while (buf && got < (size_t)s.st_size) {
    ssize_t r = read(fd, buf + got, (size_t)s.st_size - got);
    if (r <= 0)
      break;
    got += (size_t)r;
  }
  close(fd);
  if (!buf || got != (size_t)s.st_size) {
    free(buf);
    return NULL;
  }
  buf[got] = 0;
  *len = got;
  if (st)
    *st = s;
  return buf;
}
