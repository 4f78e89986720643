/* libc_time.c: localtime, localtime_r, gmtime, gmtime_r, asctime, ctime
 * and mktime on the virtual clock's times, as glibc 2.36 computes them
 * (time/tzset.c, time/tzfile.c, time/offtime.c, time/asctime.c,
 * time/mktime.c).
 *
 * The analysed process runs as `env -i valgrind` starts it: no TZ in its
 * environment, so glibc reads the site's zone, /etc/localtime. The values
 * are the host's glibc's (the same 2.36) for that zone: cbana must then run
 * with TZ unset too, else the input stops, naming both. A TZ in the
 * modelled environment is not modelled either.
 *
 * glibc's own heap blocks are made as it makes them: the first conversion
 * that reads the zone (tzset_internal) strdups the TZ path, fopens the
 * file (a 472-byte FILE and an st_blksize buffer, freed by fclose), mallocs
 * the zone's transitions, types, names and TZ string in one block
 * (timecnt * 9 + typecnt * 8 + charcnt + the string's length: measured on
 * four zones with mtrace) and one __tzstring node (16 bytes + the name) per
 * distinct name, a name that is the tail of one already kept sharing it;
 * every later localtime and ctime (tzset_internal(1): TZ unset never
 * compares equal to the old value) frees the strdup and makes it again.
 * tm_zone points into those nodes (gmtime's at libc's "GMT"); localtime's
 * and gmtime's struct tm is libc's _tmbuf and asctime's text its static
 * buffer, at their places in libc.so.6.
 *
 * Traffic: tables from lackey traces (tools/probe/time_tables.py,
 * libc_time_tables.h) on this machine's zone file, rows relative to the
 * caller's rsp, libc, the TLS page, the arguments, glibc's blocks, the
 * environment (getenv("TZ")), with glibc's mallocs and frees as the heap
 * model's. On another zone the same rows are used: the zone's own reads
 * (its binary search over transitions, the extra names' nodes) are not
 * measured; a zone with leap seconds stops the input. */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "libc_rows.h"

#include "libc_time_tables.h"

#define TZ_PATH "/etc/localtime" /* TZDEFAULT */
#define MAX_NAMES 64
enum { TM_BYTES = 56, TM_GMTOFF = 40, TM_ZONE = 48 };

/* glibc's time zone state in the modelled process */
typedef struct cb_tz {
  bool loaded;
  uint64_t blk[5];
  uint64_t trans_size, blksize;
  /* the __tzstring nodes: the name, its node */
  uint32_t nnames;
  char names[MAX_NAMES][32];
  uint64_t node[MAX_NAMES];
} cb_tz;

static cb_stop refuse(cb_proc *pr, const char *fn, const char *why) {
  return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "%s: %s is not modelled",
                      fn, why);
}

/* libc's address of a host libc object (the same libc.so.6) */
static uint64_t libc_addr(const cb_proc *pr, const void *host) {
  Dl_info di;
  if (!pr->libc_base || !dladdr(host, &di) || !di.dli_fbase)
    return 0;
  return pr->libc_base + (uint64_t)((const char *)host - (char *)di.dli_fbase);
}

/* bytes glibc keeps in its own data (no traffic: the tables have it) */
static void lib_put(cb_proc *pr, uint64_t at, const void *p, size_t n) {
  for (uint64_t a = at & ~(uint64_t)(CB_PG_SIZE - 1); a < at + n;
       a += CB_PG_SIZE)
    if (!cb_mem_mapped(&pr->mem, a))
      cb_mem_map(&pr->mem, a, a + CB_PG_SIZE);
  cb_mem_write(&pr->mem, at, p, n, NULL);
}

/* the TZ string of the modelled environment, or NULL */
static bool model_tz_set(cb_proc *pr) {
  for (uint64_t i = 0; pr->envp_at; i++) {
    uint64_t s = 0;
    char b[3] = {0};
    if (!cb_proc_read(pr, pr->envp_at + 8 * i, &s, 8) || !s)
      break;
    if (cb_proc_read(pr, s, b, 3) && b[0] == 'T' && b[1] == 'Z' && b[2] == '=')
      return true;
  }
  return false;
}

/* ---- the zone file (tzfile.c's sizes) ---- */

static uint32_t be32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
         p[3];
}

static void add_name(cb_tz *z, const char *s) {
  size_t n = strlen(s);
  for (uint32_t i = 0; i < z->nnames; i++) {
    size_t m = strlen(z->names[i]);
    if (n <= m && !strcmp(z->names[i] + m - n, s))
      return; /* __tzstring_len: the tail of a kept name */
  }
  if (z->nnames < MAX_NAMES && n < sizeof z->names[0])
    strcpy(z->names[z->nnames++], s);
}

/* false: a file glibc would not read as the model reads it */
static bool read_zone(cb_tz *z, char *why, size_t whyn) {
  FILE *f = fopen(TZ_PATH, "rb");
  struct stat st;
  if (!f || fstat(fileno(f), &st) != 0) {
    if (f)
      fclose(f);
    snprintf(why, whyn, "a site without %s", TZ_PATH);
    return false;
  }
  unsigned char *d = malloc((size_t)st.st_size + 1);
  size_t len = d ? fread(d, 1, (size_t)st.st_size, f) : 0;
  fclose(f);
  z->blksize = st.st_blksize > 0 ? (uint64_t)st.st_blksize : 4096;
  bool ok = false;
  if (len >= 44 && !memcmp(d, "TZif", 4) && d[4] >= '2') {
    /* the v1 block skipped, the 64-bit one read */
    uint32_t c[6];
    for (int i = 0; i < 6; i++)
      c[i] = be32(d + 20 + 4 * i);
    size_t o = 44 + (size_t)c[3] * 5 + (size_t)c[4] * 6 + c[5] +
               (size_t)c[2] * 8 + c[1] + c[0];
    if (o + 44 <= len && !memcmp(d + o, "TZif", 4)) {
      for (int i = 0; i < 6; i++)
        c[i] = be32(d + o + 20 + 4 * i);
      uint32_t isgmt = c[0], isstd = c[1], leaps = c[2], timecnt = c[3],
               typecnt = c[4], chars = c[5];
      size_t types = o + 44 + (size_t)timecnt * 9;
      size_t names = types + (size_t)typecnt * 6;
      size_t end = names + chars + (size_t)leaps * 12 + isstd + isgmt;
      if (leaps) {
        snprintf(why, whyn, "a zone with leap seconds (%s)", TZ_PATH);
      } else if (end + 2 <= len && typecnt && names + chars <= len) {
        uint64_t spec = len - end - 1; /* the TZ string and its NUL */
        z->trans_size =
            (uint64_t)timecnt * 9 + (uint64_t)typecnt * 8 + chars + spec;
        for (uint32_t i = 0; i < typecnt; i++) {
          unsigned idx = d[types + 6 * i + 5];
          char nm[32] = {0};
          for (unsigned k = 0; k < 31 && idx + k < chars; k++)
            if (!(nm[k] = (char)d[names + idx + k]))
              break;
          add_name(z, nm);
        }
        ok = true;
      } else {
        snprintf(why, whyn, "%s, not a zone file glibc reads", TZ_PATH);
      }
    }
  } else if (d) {
    snprintf(why, whyn, "%s, not a version 2 zone file", TZ_PATH);
  }
  free(d);
  return ok;
}

/* ---- running a table ---- */

typedef struct tz_run {
  cb_rows rows; /* first: the callback's cb_rows is the tz_run */
  cb_tz *z;
} tz_run;

static void heap_op(cb_rows *rows, const cb_row *t) {
  tz_run *r = (tz_run *)rows;
  cb_proc *pr = rows->pr;
  cb_tz *z = r->z;
  uint64_t C = rows->C - (uint64_t)t->off;
  if (t->len == 1) { /* malloc */
    static const uint64_t fixed[] = {sizeof TZ_PATH, 472};
    unsigned b = t->w;
    uint64_t n = b < 2    ? fixed[b]
                 : b == 2 ? z->blksize
                 : b == 3 ? z->trans_size
                          : 16 + strlen(z->names[0]) + 1;
    z->blk[b] = cb_heap_malloc(pr->heap, n);
    if (rows->trace)
      cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, C, 0, z->blk[b], false);
    if (b == 0)
      cb_mem_write(&pr->mem, z->blk[0], TZ_PATH, sizeof TZ_PATH, NULL);
    if (b == 4) {
      /* the nodes of every name, in the types' order */
      z->node[0] = z->blk[4];
      for (uint32_t i = 1; i < z->nnames; i++) {
        z->node[i] = cb_heap_malloc(pr->heap, 16 + strlen(z->names[i]) + 1);
        if (rows->trace)
          cb_libc_heap_traffic(pr, CB_LIBC_MALLOC, C, 0, z->node[i], false);
      }
      for (uint32_t i = 0; i < z->nnames; i++) {
        uint64_t hdr[2] = {i + 1 < z->nnames ? z->node[i + 1] : 0,
                           strlen(z->names[i])};
        cb_mem_write(&pr->mem, z->node[i], hdr, 16, NULL);
        cb_mem_write(&pr->mem, z->node[i] + 16, z->names[i], hdr[1] + 1, NULL);
      }
    }
  } else {
    uint64_t p = t->w == 255 ? 0 : z->blk[t->w];
    if (p)
      cb_heap_free(pr->heap, p);
    if (rows->trace)
      cb_libc_heap_traffic(pr, CB_LIBC_FREE, C, p, 0, false);
  }
}

#define RUN(r, t) CB_ROWS(&(r)->rows, t)

/* ---- the calls ---- */

static cb_tz *tz_state(cb_proc *pr) {
  if (!pr->tz)
    pr->tz = calloc(1, sizeof(cb_tz));
  return pr->tz;
}

void cb_libc_time_free(cb_proc *pr) {
  free(pr->tz);
  pr->tz = NULL;
}

/* the host's glibc gives the modelled process's values: both without TZ */
static bool check_tz(cb_proc *pr, const char *fn) {
  if (model_tz_set(pr)) {
    refuse(pr, fn, "TZ in the analysed process's environment");
    return false;
  }
  const char *h = getenv("TZ");
  if (h) {
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                 "%s: cbana runs with TZ=%s but the analysed process has no "
                 "TZ (glibc reads %s): unset TZ to analyse it",
                 fn, h, TZ_PATH);
    return false;
  }
  return true;
}

/* a struct tm into the model's memory (the tables have its stores);
 * zone: tm_zone's model address */
static void put_tm(cb_proc *pr, uint64_t at, const struct tm *tm,
                   uint64_t zone) {
  unsigned char b[TM_BYTES] = {0};
  int32_t v[9] = {tm->tm_sec,  tm->tm_min,  tm->tm_hour,
                  tm->tm_mday, tm->tm_mon,  tm->tm_year,
                  tm->tm_wday, tm->tm_yday, tm->tm_isdst};
  memcpy(b, v, sizeof v);
  int64_t off = tm->tm_gmtoff;
  memcpy(b + TM_GMTOFF, &off, 8);
  memcpy(b + TM_ZONE, &zone, 8);
  lib_put(pr, at, b, TM_BYTES);
}

static uint64_t zone_node(const cb_tz *z, const char *name) {
  size_t n = strlen(name);
  for (uint32_t i = 0; i < z->nnames; i++) {
    size_t m = strlen(z->names[i]);
    if (n <= m && !strcmp(z->names[i] + m - n, name))
      return z->node[i] + 16 + (m - n);
  }
  return 0;
}

/* tzname, timezone and daylight, where the program has them */
static void put_tz_vars(cb_proc *pr, const cb_tz *z) {
  const cb_program *p = pr->p;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (!g->name || g->init || g->var != CB_NONE)
      continue;
    if (!strcmp(g->name, "tzname") && g->size == 16) {
      uint64_t v[2] = {zone_node(z, tzname[0]), zone_node(z, tzname[1])};
      cb_mem_write(&pr->mem, g->addr, v, 16, NULL);
    } else if (!strcmp(g->name, "timezone") && g->size == 8) {
      int64_t v = timezone;
      cb_mem_write(&pr->mem, g->addr, &v, 8, NULL);
    } else if (!strcmp(g->name, "daylight") && g->size == 4) {
      int32_t v = daylight;
      cb_mem_write(&pr->mem, g->addr, &v, 4, NULL);
    }
  }
}

/* mktime (time/mktime.c): __tzset (tzset_internal(1): the zone read
 * first, the strdup remade after), then the search over localtime_r
 * conversions; the struct normalized in place. Its traffic was measured
 * on one date: the search's steps (about 140 accesses each) depend on
 * the date and the fields' ranges. */
static cb_stop mktime_call(cb_proc *pr, const cb_value *a, cb_value *ret) {
  cb_tz *z = tz_state(pr);
  if (!z)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  if (!pr->libc_base)
    return refuse(pr, "mktime", "a process without libc's layout");
  if (!check_tz(pr, "mktime"))
    return CB_FAIL;
  unsigned char b[TM_BYTES];
  if (!cb_proc_read(pr, a[0].u, b, TM_BYTES))
    return CB_FAIL;
  int32_t v[9];
  memcpy(v, b, sizeof v);
  struct tm tm = {0};
  tm.tm_sec = v[0], tm.tm_min = v[1], tm.tm_hour = v[2];
  tm.tm_mday = v[3], tm.tm_mon = v[4], tm.tm_year = v[5];
  tm.tm_isdst = v[8];
  bool first = !z->loaded;
  if (first) {
    char why[160];
    if (!read_zone(z, why, sizeof why))
      return refuse(pr, "mktime", why);
    tzset();
  }
  tz_run r;
  cb_rows_init(&r.rows, pr, a[0].u, 0);
  r.rows.blk = z->blk;
  r.rows.op = heap_op;
  r.z = z;
  first ? RUN(&r, t_mktime_first) : RUN(&r, t_mktime);
  z->loaded = true;
  time_t t = mktime(&tm);
  put_tz_vars(pr, z);
  if (t != (time_t)-1) {
    uint64_t zone = zone_node(z, tm.tm_zone ? tm.tm_zone : "");
    if (!zone)
      return refuse(pr, "mktime", "a zone name the zone file's types lack");
    put_tm(pr, a[0].u, &tm, zone);
  } else {
    cb_libc_put_errno(pr, EOVERFLOW);
  }
  ret[0].u = (uint64_t)t;
  return CB_GO;
}

cb_stop cb_libc_time_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                          cb_value *ret) {
  if (fn == CB_LIBC_MKTIME)
    return mktime_call(pr, a, ret);
  const char *name = fn == CB_LIBC_LOCALTIME     ? "localtime"
                     : fn == CB_LIBC_LOCALTIME_R ? "localtime_r"
                     : fn == CB_LIBC_GMTIME      ? "gmtime"
                     : fn == CB_LIBC_GMTIME_R    ? "gmtime_r"
                     : fn == CB_LIBC_ASCTIME     ? "asctime"
                                                 : "ctime";
  if (!pr->libc_base)
    return refuse(pr, name, "a process without libc's layout");
  cb_tz *z = tz_state(pr);
  if (!z)
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  tz_run r;
  cb_rows_init(&r.rows, pr, a[0].u, a[1].u);
  r.rows.blk = z->blk;
  r.rows.op = heap_op;
  r.z = z;
  bool local = fn == CB_LIBC_LOCALTIME || fn == CB_LIBC_LOCALTIME_R ||
               fn == CB_LIBC_CTIME;
  time_t t = 0;
  struct tm tm;
  if (fn != CB_LIBC_ASCTIME && !cb_proc_read(pr, a[0].u, &t, 8))
    return CB_FAIL;
  /* every conversion but asctime's initializes the zone once
   * (__tz_convert's tzset_internal, gmtime's too) */
  bool first = false;
  if (fn != CB_LIBC_ASCTIME) {
    if (!check_tz(pr, name))
      return CB_FAIL;
    first = !z->loaded;
    if (first) {
      char why[160];
      if (!read_zone(z, why, sizeof why))
        return refuse(pr, name, why);
      tzset(); /* the host's view of the same zone, for tzname */
    }
  }
  if (local) {
    if (!localtime_r(&t, &tm))
      return refuse(pr, name, "a time localtime cannot convert (EOVERFLOW)");
    if (fn == CB_LIBC_LOCALTIME)
      first ? RUN(&r, t_localtime_first) : RUN(&r, t_localtime);
    else if (fn == CB_LIBC_LOCALTIME_R)
      first ? RUN(&r, t_localtime_r_first) : RUN(&r, t_localtime_r);
    else
      first ? RUN(&r, t_ctime_first) : RUN(&r, t_ctime);
    z->loaded = true;
    uint64_t zone = zone_node(z, tm.tm_zone ? tm.tm_zone : "");
    if (!zone)
      return refuse(pr, name, "a zone name the zone file's types lack");
    put_tz_vars(pr, z);
    if (fn == CB_LIBC_LOCALTIME_R) {
      put_tm(pr, a[1].u, &tm, zone);
      ret[0].u = a[1].u;
      return CB_GO;
    }
    time_t zero = 0;
    uint64_t tmbuf = libc_addr(pr, gmtime(&zero)); /* libc's _tmbuf */
    if (!tmbuf)
      return refuse(pr, name, "libc's _tmbuf not found");
    put_tm(pr, tmbuf, &tm, zone);
    ret[0].u = tmbuf;
    if (fn == CB_LIBC_LOCALTIME)
      return CB_GO;
  } else if (fn != CB_LIBC_ASCTIME) {
    if (!gmtime_r(&t, &tm))
      return refuse(pr, name, "a time gmtime cannot convert (EOVERFLOW)");
    uint64_t gmt = libc_addr(pr, tm.tm_zone); /* libc's "GMT" */
    if (!gmt)
      return refuse(pr, name, "libc's \"GMT\" not found");
    lib_put(pr, gmt, "GMT", 4);
    uint64_t at = a[1].u;
    if (fn == CB_LIBC_GMTIME) {
      time_t zero = 0;
      at = libc_addr(pr, gmtime(&zero));
      first ? RUN(&r, t_gmtime_first) : RUN(&r, t_gmtime);
    } else {
      first ? RUN(&r, t_gmtime_r_first) : RUN(&r, t_gmtime_r);
    }
    z->loaded = true;
    put_tz_vars(pr, z);
    put_tm(pr, at, &tm, gmt);
    ret[0].u = at;
    return CB_GO;
  } else {
    /* asctime's struct tm, from the program's memory (the table reads it) */
    unsigned char b[TM_BYTES];
    if (!cb_proc_read(pr, a[0].u, b, TM_BYTES))
      return CB_FAIL;
    int32_t v[9];
    memcpy(v, b, sizeof v);
    memset(&tm, 0, sizeof tm);
    tm.tm_sec = v[0], tm.tm_min = v[1], tm.tm_hour = v[2];
    tm.tm_mday = v[3], tm.tm_mon = v[4], tm.tm_year = v[5];
    tm.tm_wday = v[6], tm.tm_yday = v[7], tm.tm_isdst = v[8];
    RUN(&r, t_asctime);
  }
  /* asctime's text (ctime: of localtime's _tmbuf) in its static buffer */
  char text[64];
  struct tm probe = {0};
  char *host_buf = asctime(&probe); /* libc's static buffer */
  if (!asctime_r(&tm, text))
    return refuse(pr, name, "a year asctime cannot print (EOVERFLOW)");
  uint64_t at = libc_addr(pr, host_buf);
  if (!at)
    return refuse(pr, name, "libc's asctime buffer not found");
  lib_put(pr, at, text, strlen(text) + 1);
  ret[0].u = at;
  return CB_GO;
}
