/* Heap blocks by allocation site; see alloc_track.h.
 *
 * The live blocks are an array sorted by start address. Programs mostly
 * allocate upward and free in bulk, so a block is appended at the end,
 * and a freed one becomes a tombstone (kept in order, reused by the next
 * block that fits between its neighbours, swept out when tombstones
 * outnumber the living), which keeps a list freed from its head linear.
 * A lookup first tries the accessing site's last block (valid until a
 * block dies), then the granule map of small blocks, then a binary
 * search among the big ones (or all, where the map cannot tell). A
 * lookup that finds a block remembers it for the site, whichever way it
 * found it: fannkuch's sites each walk one small block, which the
 * granule map alone answered at every access. */
#include "alloc_track.h"
#include "cbana/mix64.h"
#include "lineset.h"

#include <stdlib.h>
#include <string.h>

void cb_alloc_encode(const cb_alloc_event *ev,
                     cb_access rec[CB_ALLOC_MARK_RECORDS]) {
  memset(rec, 0, CB_ALLOC_MARK_RECORDS * sizeof *rec);
  rec[0].site = rec[1].site = rec[2].site = CB_ALLOC_MARK_SITE;
  rec[0].addr = ev->addr;
  rec[0].size = (uint16_t)ev->kind;
  rec[1].addr = ev->old;
  rec[1].size = (uint16_t)ev->callee;
  rec[2].addr = ev->size;
  /* the call site, split over two 16-bit fields of the third record */
  rec[2].size = (uint16_t)(ev->site & 0xffff);
  rec[0].reserved = (uint8_t)(ev->site >> 16 & 0xff);
  rec[0].is_write = (uint8_t)(ev->site >> 24);
}

void cb_alloc_decode(const cb_access *b, cb_alloc_event *ev) {
  ev->kind = (cb_alloc_kind)b[0].size;
  ev->addr = b[0].addr;
  ev->old = b[1].addr;
  ev->callee = b[1].size;
  ev->size = b[2].addr;
  ev->site = (uint32_t)b[2].size | (uint32_t)b[0].reserved << 16 |
             (uint32_t)b[0].is_write << 24;
}

void cb_alloc_to_stream(void *sink, const cb_alloc_event *ev) {
  const cb_access_sink *s = sink;
  cb_access rec[CB_ALLOC_MARK_RECORDS];
  cb_alloc_encode(ev, rec);
  if (s && s->fn)
    s->fn(s->ctx, rec, CB_ALLOC_MARK_RECORDS);
}

/* ---- a small map (row, key) -> count ---- */

typedef struct pair_entry {
  uint64_t key;
  uint32_t row; /* + 1; 0: empty */
  uint32_t pad;
  uint64_t val;
} pair_entry;

typedef struct pair_map {
  pair_entry *v;
  size_t cap, n;
} pair_map;

/* The entry of (row, key), made with val 0 when new (*fresh set); NULL
 * when out of memory. */
static pair_entry *pair_get(pair_map *m, uint32_t row, uint64_t key,
                            bool *fresh) {
  if ((m->n + 1) * 2 > m->cap) {
    size_t cap = m->cap ? m->cap * 2 : 1024;
    pair_entry *v = calloc(cap, sizeof *v);
    if (!v)
      return NULL;
    for (size_t i = 0; i < m->cap; i++)
      if (m->v[i].row) {
        size_t k =
            cb_mix64(m->v[i].key ^ (uint64_t)m->v[i].row << 44) & (cap - 1);
        while (v[k].row)
          k = (k + 1) & (cap - 1);
        v[k] = m->v[i];
      }
    free(m->v);
    m->v = v;
    m->cap = cap;
  }
  size_t k = cb_mix64(key ^ (uint64_t)(row + 1) << 44) & (m->cap - 1);
  while (m->v[k].row) {
    if (m->v[k].row == row + 1 && m->v[k].key == key) {
      *fresh = false;
      return &m->v[k];
    }
    k = (k + 1) & (m->cap - 1);
  }
  m->v[k].row = row + 1;
  m->v[k].key = key;
  m->v[k].val = 0;
  m->n++;
  *fresh = true;
  return &m->v[k];
}

static void pair_clear(pair_map *m) {
  if (m->v)
    memset(m->v, 0, m->cap * sizeof *m->v);
  m->n = 0;
}

/* ---- the tracker ---- */

typedef struct blk {
  uint64_t start, end;
  uint32_t row;
  uint32_t live;
  uint32_t small; /* its place in the granule map's table + 1, or 0 */
} blk;

/* Blocks sorted by start address, freed ones kept as tombstones. */
typedef struct blkarr {
  blk *b;
  size_t n, cap, dead;
} blkarr;

typedef struct small_blk {
  uint64_t start, end;
  uint32_t row;
} small_blk;

/* The granule map: blocks under GM_SMALL bytes by 16-byte granule, per
 * 4 KiB page of the address range they lie in. glibc aligns every block
 * to 16 bytes (MALLOC_ALIGNMENT), and a block's bytes end at least 8
 * before the next chunk's (malloc.c: the usable size is the chunk's less
 * its size field), so no two live blocks share a granule. An entry holds
 * its block's index + 1 in the table of small blocks (their rows and
 * bounds), and for the granule holding the block's end the bytes it
 * covers (GM_LEN); a granule shared anyway, or one a block starts
 * inside, is marked GM_PART and looked up in the sorted array of
 * all blocks, which stays the reference. A pointer-chasing program
 * touches a different small block at nearly every access: a binary
 * search over all blocks took 36-41% of the analysis of Olden/bisort and
 * llubenchmark. */
#define GM_SMALL 4096u
#define GM_PAGE_SHIFT 12
#define GM_PER_PAGE 256u /* granules of 16 bytes */
#define GM_PART UINT32_MAX
#define GM_ROW_BITS 28 /* index + 1 below, the covered bytes (1-15) above */
#define GM_LEN(e) ((e) >> GM_ROW_BITS)
#define GM_MAX_PAGES (1u << 24) /* 64 GiB of address range */

typedef struct gmap {
  uint32_t **page; /* per page from first: NULL, or GM_PER_PAGE entries:
                      0 none, an entry, or GM_PART */
  uint64_t first;  /* page number of page[0] */
  size_t n;        /* pages */
} gmap;

struct cb_alloc_track {
  cb_alloc_head h; /* first: alloc_track.h reads it inline */
  const cb_program *p;
  blkarr all; /* every block: the reference */
  blkarr big; /* the blocks not in the granule map */
  gmap gm;
  small_blk *sm;     /* the granule map's blocks, by the entries' index */
  uint32_t *sm_free; /* free places in sm */
  uint32_t n_sm, cap_sm, n_sm_free;
  cb_alloc_hint *cache; /* per site, for cb_alloc_track_find */
  uint32_t *row_of_site;
  uint32_t n_rows, cap_rows;
  lineset lines; /* (row, line): the working sets */
  pair_map hot;  /* (row, site): first-level misses */
};

static void gmap_clear(gmap *g) {
  for (size_t i = 0; i < g->n; i++)
    free(g->page[i]);
  free(g->page);
  memset(g, 0, sizeof *g);
}

/* The entries of page pg, made (zeroed) when `make`; NULL when absent,
 * beyond GM_MAX_PAGES or out of memory. */
static uint32_t *gmap_page(gmap *g, uint64_t pg, bool make) {
  if (g->n && pg >= g->first && pg < g->first + g->n) {
    uint32_t **slot = &g->page[pg - g->first];
    if (!*slot && make)
      *slot = calloc(GM_PER_PAGE, sizeof **slot);
    return *slot;
  }
  if (!make)
    return NULL;
  uint64_t lo = g->n ? (pg < g->first ? pg : g->first) : pg;
  uint64_t hi =
      g->n ? (pg >= g->first + g->n ? pg + 1 : g->first + g->n) : pg + 1;
  if (hi - lo > GM_MAX_PAGES)
    return NULL;
  /* grow by half again, so that a heap growing page by page costs
     amortised constant time */
  uint64_t want = hi - lo, extra = want / 2;
  if (pg < g->first && g->n)
    lo = lo > extra ? lo - extra : 0;
  else
    hi += extra;
  if (hi - lo > GM_MAX_PAGES)
    hi = lo + GM_MAX_PAGES;
  uint32_t **v = calloc(hi - lo, sizeof *v);
  if (!v)
    return NULL;
  if (g->n)
    memcpy(&v[g->first - lo], g->page, g->n * sizeof *v);
  free(g->page);
  g->page = v;
  g->first = lo;
  g->n = hi - lo;
  return gmap_page(g, pg, true);
}

/* Marks [start, end) (a small block) with entries naming its place k in
 * the small blocks' table, or clears it (k CB_NONE); false when a page could
 * not be made. */
static bool gmap_set(gmap *g, uint64_t start, uint64_t end, uint32_t k) {
  for (uint64_t gr = start >> 4; gr < (end + 15) >> 4; gr++) {
    uint32_t *e = gmap_page(g, gr >> 8, k != CB_NONE);
    if (!e) {
      if (k != CB_NONE)
        return false;
      continue;
    }
    uint32_t *x = &e[gr & (GM_PER_PAGE - 1)];
    if (k == CB_NONE) {
      /* a granule shared with a live block stays looked up */
      *x = *x == GM_PART ? GM_PART : 0;
      continue;
    }
    uint64_t at = gr << 4;
    uint32_t len = end - at >= 16 ? 0 : (uint32_t)(end - at);
    *x = *x || at < start || k + 1 >= 1u << GM_ROW_BITS
             ? GM_PART
             : (k + 1) | len << GM_ROW_BITS;
  }
  return true;
}

/* The granule map's entry for addr: 0 when it has none. */
static inline uint32_t gmap_get(const gmap *g, uint64_t addr) {
  uint64_t pg = (addr >> GM_PAGE_SHIFT) - g->first;
  if (pg >= g->n || !g->page[pg])
    return 0;
  return g->page[pg][(addr >> 4) & (GM_PER_PAGE - 1)];
}

cb_alloc_track *cb_alloc_track_new(const cb_program *p, unsigned n_levels,
                                   unsigned line_shift) {
  cb_alloc_track *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->p = p;
  t->h.nl = n_levels > CB_RESULT_LEVELS ? CB_RESULT_LEVELS : n_levels;
  t->h.shift = line_shift;
  t->cache = calloc(p->n_sites + 1, sizeof *t->cache);
  t->row_of_site = malloc((p->n_sites + 1) * sizeof *t->row_of_site);
  if (!t->cache || !t->row_of_site) {
    cb_alloc_track_free(t);
    return NULL;
  }
  for (uint32_t s = 0; s <= p->n_sites; s++)
    t->row_of_site[s] = CB_NONE;
  cb_alloc_track_reset(t);
  return t;
}

void cb_alloc_track_reset(cb_alloc_track *t) {
  for (uint32_t r = 0; r < t->n_rows; r++)
    t->row_of_site[t->h.rows[r].site] = CB_NONE;
  t->n_rows = 0;
  t->all.n = t->all.dead = 0;
  t->big.n = t->big.dead = 0;
  gmap_clear(&t->gm);
  t->n_sm = t->n_sm_free = 0;
  t->h.lo = UINT64_MAX;
  t->h.hi = 0;
  t->h.epoch++; /* the caches of the previous run */
  lineset_clear(&t->lines);
  pair_clear(&t->hot);
}

void cb_alloc_track_free(cb_alloc_track *t) {
  if (!t)
    return;
  free(t->all.b);
  free(t->big.b);
  gmap_clear(&t->gm);
  free(t->sm);
  free(t->sm_free);
  free(t->cache);
  free(t->row_of_site);
  free(t->h.rows);
  free(t->h.extra);
  lineset_free(&t->lines);
  free(t->hot.v);
  free(t);
}

/* The first index whose start is above addr. */
static size_t upper(const blkarr *a, uint64_t addr) {
  size_t lo = 0, hi = a->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (a->b[mid].start <= addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static void sweep(blkarr *a) {
  size_t k = 0;
  for (size_t i = 0; i < a->n; i++)
    if (a->b[i].live)
      a->b[k++] = a->b[i];
  a->n = k;
  a->dead = 0;
}

/* Kills the live block starting at addr; false when there is none (else
 * *dead is it). */
static bool kill(blkarr *a, uint64_t addr, blk *dead) {
  size_t i = upper(a, addr);
  bool found = false;
  while (i > 0 && a->b[i - 1].start == addr) {
    if (a->b[i - 1].live) {
      a->b[i - 1].live = 0;
      *dead = a->b[i - 1];
      a->dead++;
      found = true;
      break;
    }
    i--;
  }
  if (a->dead > 64 && a->dead * 2 > a->n)
    sweep(a);
  return found;
}

static uint32_t row_for(cb_alloc_track *t, const cb_alloc_event *ev) {
  uint32_t s = ev->site < t->p->n_sites ? ev->site : t->p->n_sites;
  if (t->row_of_site[s] != CB_NONE)
    return t->row_of_site[s];
  if (t->n_rows == t->cap_rows) {
    uint32_t cap = t->cap_rows ? t->cap_rows * 2 : 16;
    cb_alloc_site *r = realloc(t->h.rows, cap * sizeof *r);
    if (r)
      t->h.rows = r;
    cb_alloc_row_state *x = realloc(t->h.extra, cap * sizeof *x);
    if (x)
      t->h.extra = x;
    if (!r || !x)
      return CB_NONE;
    t->cap_rows = cap;
  }
  uint32_t row = t->n_rows++;
  cb_alloc_site *a = &t->h.rows[row];
  memset(a, 0, sizeof *a);
  a->site = s;
  a->callee = ev->callee;
  a->min_size = UINT64_MAX;
  if (s < t->p->n_sites) {
    a->hot_file = t->p->sites[s].file;
    a->hot_line = 0;
  }
  memset(&t->h.extra[row], 0, sizeof t->h.extra[row]);
  t->row_of_site[s] = row;
  return row;
}

static void add_block(blkarr *a, uint64_t start, uint64_t size, uint32_t row,
                      uint32_t small) {
  blk nb = {start, start + size, row, 1, small};
  size_t pos = upper(a, start);
  /* A tombstone beside the place keeps the order when replaced. */
  if (pos > 0 && !a->b[pos - 1].live) {
    a->b[pos - 1] = nb;
    a->dead--;
  } else if (pos < a->n && !a->b[pos].live) {
    a->b[pos] = nb;
    a->dead--;
  } else {
    if (a->n == a->cap) {
      size_t cap = a->cap ? a->cap * 2 : 64;
      blk *b = realloc(a->b, cap * sizeof *b);
      if (!b)
        return;
      a->b = b;
      a->cap = cap;
    }
    memmove(&a->b[pos + 1], &a->b[pos], (a->n - pos) * sizeof *a->b);
    a->b[pos] = nb;
    a->n++;
  }
}

/* A place in the small blocks' table for [start, end) of row: its index,
 * or UINT32_MAX when out of memory. */
static uint32_t small_new(cb_alloc_track *t, uint64_t start, uint64_t end,
                          uint32_t row) {
  uint32_t k;
  if (t->n_sm_free) {
    k = t->sm_free[--t->n_sm_free];
  } else {
    if (t->n_sm == t->cap_sm) {
      uint32_t cap = t->cap_sm ? t->cap_sm * 2 : 256;
      small_blk *v = cap > t->cap_sm ? realloc(t->sm, cap * sizeof *v) : NULL;
      if (!v)
        return UINT32_MAX;
      t->sm = v;
      uint32_t *f = realloc(t->sm_free, cap * sizeof *f);
      if (!f)
        return UINT32_MAX;
      t->sm_free = f;
      t->cap_sm = cap;
    }
    k = t->n_sm++;
  }
  t->sm[k] = (small_blk){start, end, row};
  return k;
}

/* Gives back a block's place (dead: the block). */
static void small_free(cb_alloc_track *t, const blk *dead) {
  if (dead->small)
    t->sm_free[t->n_sm_free++] = dead->small - 1;
}

void cb_alloc_track_event(cb_alloc_track *t, const cb_alloc_event *ev) {
  if (ev->kind == CB_ALLOC_FREE || ev->kind == CB_ALLOC_REALLOC) {
    uint64_t at = ev->kind == CB_ALLOC_FREE ? ev->addr : ev->old;
    blk dead;
    if (kill(&t->all, at, &dead)) {
      t->h.epoch++;
      blk d2;
      if (!kill(&t->big, at, &d2))
        gmap_set(&t->gm, dead.start, dead.end, CB_NONE);
      small_free(t, &dead);
    }
  }
  if (ev->kind == CB_ALLOC_FREE)
    return;
  uint32_t row = row_for(t, ev);
  if (row == CB_NONE)
    return;
  cb_alloc_site *a = &t->h.rows[row];
  a->blocks++;
  a->bytes += ev->size;
  if (ev->size < a->min_size)
    a->min_size = ev->size;
  if (ev->size > a->max_size)
    a->max_size = ev->size;
  uint32_t k = ev->size < GM_SMALL
                   ? small_new(t, ev->addr, ev->addr + ev->size, row)
                   : UINT32_MAX;
  bool mapped =
      k != UINT32_MAX && gmap_set(&t->gm, ev->addr, ev->addr + ev->size, k);
  if (!mapped) {
    if (k != UINT32_MAX) { /* the granules it got before failing */
      gmap_set(&t->gm, ev->addr, ev->addr + ev->size, CB_NONE);
      t->sm_free[t->n_sm_free++] = k;
    }
    add_block(&t->big, ev->addr, ev->size, row, 0);
  }
  add_block(&t->all, ev->addr, ev->size, row, mapped ? k + 1 : 0);
  if (ev->addr < t->h.lo)
    t->h.lo = ev->addr;
  if (ev->addr + ev->size > t->h.hi)
    t->h.hi = ev->addr + ev->size;
}

/* The live block of `a` holding addr, or NULL. */
static const blk *find_in(const blkarr *a, uint64_t addr) {
  size_t i = upper(a, addr);
  while (i > 0 && !a->b[i - 1].live)
    i--;
  if (i == 0 || addr >= a->b[i - 1].end)
    return NULL;
  return &a->b[i - 1];
}

uint32_t cb_alloc_track_find(cb_alloc_track *t, uint64_t addr, uint32_t site) {
  cb_alloc_hint none = {0, 0, 0, CB_NONE};
  return cb_alloc_track_find_at(t, addr,
                                site < t->p->n_sites ? &t->cache[site] : &none);
}

/* The hint missed (addr lies in [lo, hi)). The block found, from the
 * granule map or the sorted arrays, holds addr; live blocks do not
 * overlap (an allocator's), so until one dies it holds every address
 * between its bounds: the next lookup's answer there is it. */
uint32_t cb_alloc_track_find_slow(cb_alloc_track *t, uint64_t addr,
                                  cb_alloc_hint *hint) {
  uint32_t g = gmap_get(&t->gm, addr);
  if (g && g != GM_PART) {
    if (!GM_LEN(g) || (addr & 15) < GM_LEN(g)) {
      const small_blk *b = &t->sm[(g & ((1u << GM_ROW_BITS) - 1)) - 1];
      *hint = (cb_alloc_hint){b->start, b->end, t->h.epoch, b->row};
      return b->row;
    }
    g = 0; /* past its block's end: no small block there */
  }
  const blk *b = find_in(g ? &t->all : &t->big, addr);
  if (!b)
    return CB_NONE;
  *hint = (cb_alloc_hint){b->start, b->end, t->h.epoch, b->row};
  return b->row;
}

uint32_t cb_alloc_track_find_range(const cb_alloc_track *t, uint64_t lo,
                                   uint64_t hi, bool *uniform) {
  *uniform = true;
  if (hi < t->h.lo || lo >= t->h.hi)
    return CB_NONE;
  /* The live block at or before hi, as cb_alloc_track_find looks. */
  const blkarr *a = &t->all;
  size_t i = upper(a, hi), steps = 0;
  while (i > 0 && !a->b[i - 1].live) {
    if (++steps > 64) {
      *uniform = false;
      return CB_NONE;
    }
    i--;
  }
  if (i == 0 || a->b[i - 1].end <= lo)
    return CB_NONE; /* it ends before lo: nothing live in [lo, hi] */
  const blk *b = &a->b[i - 1];
  if (b->start <= lo && hi < b->end)
    return b->row;
  *uniform = false;
  return CB_NONE;
}

void cb_alloc_track_count_hits(cb_alloc_track *t, uint32_t row, uint64_t n) {
  t->h.rows[row].level[0].accesses += n;
}

void cb_alloc_track_count(cb_alloc_track *t, uint32_t row, const cb_access *a,
                          unsigned missed, const uint8_t *cls) {
  uint64_t first = a->addr >> t->h.shift;
  uint64_t last = (a->addr + (a->size ? a->size - 1 : 0)) >> t->h.shift;
  cb_alloc_track_count_at(t, row, a->site, first, last, missed, cls);
}

void cb_alloc_track_count_misses(cb_alloc_track *t, uint32_t row, uint32_t site,
                                 unsigned missed, const uint8_t *cls) {
  cb_alloc_site *r = &t->h.rows[row];
  for (unsigned l = 0; l < missed && l < t->h.nl; l++) {
    cb_site_counts *lc = &r->level[l];
    lc->misses++;
    lc->compulsory += cls[l] == CB_MISS_COMPULSORY;
    lc->capacity += cls[l] == CB_MISS_CAPACITY;
    lc->conflict += cls[l] == CB_MISS_CONFLICT;
    if (l + 1 < t->h.nl)
      lc[1].accesses++;
  }
  bool fresh;
  if (site < t->p->n_sites) {
    pair_entry *e = pair_get(&t->hot, row, site, &fresh);
    if (e && ++e->val > t->h.extra[row].hot) {
      t->h.extra[row].hot = e->val;
      r->hot_file = t->p->sites[site].file;
      r->hot_line = t->p->sites[site].line;
    }
  }
}

void cb_alloc_track_count_lines(cb_alloc_track *t, uint32_t row, uint64_t first,
                                uint64_t last) {
  cb_alloc_site *r = &t->h.rows[row];
  t->h.extra[row].last_line = last + 1;
  for (uint64_t line = first; line <= last && line - first < 64; line++)
    r->lines += lineset_add(&t->lines, row, line) > 0;
}

bool cb_alloc_track_export(const cb_alloc_track *t, cb_alloc_site **rows,
                           uint32_t *n) {
  *rows = NULL;
  *n = 0;
  if (!t->n_rows)
    return true;
  cb_alloc_site *v = malloc(t->n_rows * sizeof *v);
  if (!v)
    return false;
  memcpy(v, t->h.rows, t->n_rows * sizeof *v);
  *rows = v;
  *n = t->n_rows;
  return true;
}
