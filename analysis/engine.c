/* engine.c: the exact interpreter of a Program for one input (see
 * engine.h). One flat loop switches on the opcode of a flat op array;
 * values live in one contiguous slot stack; memory is the sparse page
 * model of mem.h; every load and store goes to the sink as one access. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "engine_internal.h"
#include "fastloop.h"
#include "fastops.h"

#define STACK_TOP_VALGRIND 0x1fff001000ull
#define RET_ADDR_VALUE 0x109000ull /* what a pushed return address holds */
#define MAX_DEPTH 1000000u

static const uint64_t ty_mask[CB_TY_COUNT] = {
    0, 1, 0xff, 0xffff, 0xffffffffu, ~0ull, 0xffffffffu, ~0ull, ~0ull};
static const unsigned ty_shift[CB_TY_COUNT] = {0, 63, 56, 48, 32, 0, 32, 0, 0};

static inline int64_t sx(uint64_t v, unsigned ty) {
  unsigned s = ty_shift[ty];
  return (int64_t)(v << s) >> s;
}

static inline int64_t sxbits(uint64_t v, unsigned bits) {
  if (bits >= 64 || bits == 0)
    return (int64_t)v;
  unsigned s = 64 - bits;
  return (int64_t)(v << s) >> s;
}

/* ---- defaults ---- */

void cb_engine_options_default(cb_engine_options *opt) {
  memset(opt, 0, sizeof *opt);
  opt->budget = CB_ENGINE_DEFAULT_BUDGET;
  opt->stack_limit = CB_ENGINE_DEFAULT_STACK_LIMIT;
  opt->mode = CB_ENGINE_FAST;
}

/* valgrind 3.19 builds the initial stack below 0x1fff001000 (see
 * docs/process-model.md, section 2): the strings (argv, the environment
 * Debian's valgrind wrapper exports even under `env -i`, 16 random bytes,
 * AT_EXECFN = argv[0], "x86_64"), then argc, argv, envp and auxv; glibc's
 * start code puts main's return address 0x108 below argc. */
#define VG_NENV 5
static void vg_env(const char *cwd, char env[VG_NENV][4200]) {
  char real[4096];
  char here[4096];
  if (!cwd)
    cwd = getcwd(here, sizeof here) ? here : "/";
  if (!realpath(cwd, real))
    snprintf(real, sizeof real, "%s", cwd);
  snprintf(env[0], 4200, "LD_LIBRARY_PATH=/usr/lib/debug");
  snprintf(env[1], 4200, "GLIBCPP_FORCE_NEW=1");
  snprintf(env[2], 4200, "PWD=%s", real);
  snprintf(env[3], 4200, "GLIBCXX_FORCE_NEW=1");
  snprintf(env[4], 4200,
           "LD_PRELOAD=/usr/libexec/valgrind/vgpreload_core-amd64-linux.so");
}

typedef struct vg_stack {
  uint64_t argc_slot, strtab;
} vg_stack;

static vg_stack vg_stack_layout(int argc, const char *const *argv,
                                const char *cwd, unsigned n_aux) {
  char env[VG_NENV][4200];
  vg_env(cwd, env);
  if (!n_aux)
    n_aux = 22;
  const char *exe = argc > 0 ? argv[0] : "";
  uint64_t s = 0;
  for (int i = 0; i < argc; i++)
    s += strlen(argv[i]) + 1;
  if (argc == 0)
    s += 1;
  for (int i = 0; i < VG_NENV; i++)
    s += strlen(env[i]) + 1;
  s += 16 + strlen(exe) + 1 + strlen("x86_64") + 1;
  uint64_t nargs = argc > 0 ? (uint64_t)argc - 1 : 0;
  uint64_t size = 8 + 8 * (1 + nargs) + 8 + 8 * VG_NENV + 8 +
                  16 * ((uint64_t)n_aux + 1) + ((s + 7) & ~7ull);
  vg_stack v;
  v.argc_slot = (STACK_TOP_VALGRIND - 1 - size) & ~15ull;
  v.strtab = STACK_TOP_VALGRIND - 1 - ((s + 3) & ~3ull);
  return v;
}

uint64_t cb_engine_default_stack_top(int argc, const char *const *argv,
                                     const char *cwd, unsigned n_aux) {
  /* main's entry rsp (its return address) is argc slot - 0x108 */
  return vg_stack_layout(argc, argv, cwd, n_aux).argc_slot - 0x108 + 8;
}

/* ---- emission and errors ---- */

void cb_eng_flush(cb_eng *e) {
  if (e->nbatch && e->sink && e->sink->fn)
    e->sink->fn(e->sink->ctx, e->batch, e->nbatch);
  e->nbatch = 0;
}

void cb_eng_lib(cb_eng *e, uint64_t addr, uint64_t len, bool is_write) {
  while (len) {
    uint32_t n = len > 8 ? 8 : (uint32_t)len;
    cb_eng_emit(e, addr, n, e->cur_site, is_write);
    if (is_write)
      e->out->lib_writes++;
    else
      e->out->lib_reads++;
    addr += n;
    len -= n;
  }
}

/* glibc 2.36 on x86-64 as valgrind 3.19 runs it (AVX2 and ERMS
 * variants): small blocks move with 32-byte vector accesses and large
 * ones with `rep movsb/stosb`, which cachegrind counts byte by byte. The
 * sequences are those measured in docs/process-model.md, section 4. */
static inline void lib1(cb_eng *e, uint64_t a, uint32_t n, bool w) {
  cb_eng_emit(e, a, n, e->cur_site, w);
  if (w)
    e->out->lib_writes++;
  else
    e->out->lib_reads++;
}

void cb_eng_lib_bulk(cb_eng *e, uint64_t addr, uint64_t len, bool is_write) {
  /* a plain sweep (reads of strings and the like) */
  while (len) {
    uint32_t n = len > 32 ? 32 : (uint32_t)len;
    lib1(e, addr, n, is_write);
    addr += n;
    len -= n;
  }
}

/* Variables of glibc 2.36 (Debian 12's libc.so.6) that its string
 * functions read, as offsets from libc's load address (measured with
 * lackey, docs/process-model.md section 4). */
#define NT_THRESHOLD (3ull << 20)
#define LIBC_MEMSET_THRESHOLD 0x1d33d0ull /* __x86_rep_stosb_threshold */
#define LIBC_MOVSB_THRESHOLD 0x1d33d8ull  /* __x86_rep_movsb_threshold */
#define LIBC_STRING_CONTROL 0x1da540ull   /* __x86_string_control (4 B) */
#define LIBC_MOVSB_STOP 0x1da548ull       /* __x86_rep_movsb_stop_threshold */
#define LIBC_NT_THRESHOLD 0x1da550ull     /* non-temporal threshold */

void cb_eng_memset_traffic(cb_eng *e, uint64_t d, uint64_t n) {
  if (n == 0)
    return;
  if (n > 64 && e->libc_base)
    lib1(e, e->libc_base + LIBC_MEMSET_THRESHOLD, 8, false);
  if (n == 1) {
    lib1(e, d, 1, true);
  } else if (n <= 3) {
    lib1(e, d, 1, true);
    lib1(e, d + 1, 1, true);
    lib1(e, d + n - 1, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    lib1(e, d, k, true);
    lib1(e, d + n - k, k, true);
  } else if (n <= 128) {
    lib1(e, d, 32, true);
    lib1(e, d + 32, 32, true);
    lib1(e, d + n - 64, 32, true);
    lib1(e, d + n - 32, 32, true);
  } else if (n <= 2048) {
    for (int i = 0; i < 4; i++)
      lib1(e, d + 32 * (uint64_t)i, 32, true);
    if (n > 256) {
      uint64_t p = (d + 128) & ~31ull;
      do {
        for (int i = 0; i < 4; i++)
          lib1(e, p + 32 * (uint64_t)i, 32, true);
        p += 128;
      } while (p < d + n - 128);
    }
    uint64_t end = d + n - 128;
    for (int i = 0; i < 4; i++)
      lib1(e, end + 32 * (uint64_t)i, 32, true);
  } else {
    for (uint64_t i = 0; i < n; i++)
      cb_eng_emit(e, d + i, 1, e->cur_site, true);
    e->out->lib_writes += n;
  }
}

static void vec_loop(cb_eng *e, uint64_t d, uint64_t s, uint64_t n,
                     bool backward) {
  /* glibc's 4 x 32-byte loop: edge vectors, the aligned body, edges */
  if (!backward) {
    lib1(e, s, 32, false);
    for (int i = 1; i <= 4; i++)
      lib1(e, s + n - 32 * (uint64_t)i, 32, false);
    uint64_t p = (d + 32) & ~31ull;
    while (p < d + n - 128) {
      for (int i = 0; i < 4; i++)
        lib1(e, s + (p - d) + 32 * (uint64_t)i, 32, false);
      for (int i = 0; i < 4; i++)
        lib1(e, p + 32 * (uint64_t)i, 32, true);
      p += 128;
    }
    for (int i = 1; i <= 4; i++)
      lib1(e, d + n - 32 * (uint64_t)i, 32, true);
    lib1(e, d, 32, true);
  } else {
    lib1(e, s + n - 32, 32, false);
    for (int i = 0; i < 4; i++)
      lib1(e, s + 32 * (uint64_t)i, 32, false);
    uint64_t p = (d + n - 32) & ~31ull;
    while (p > d + 128) {
      for (int i = 0; i < 4; i++)
        lib1(e, s + (p - d) - 32 * (uint64_t)i, 32, false);
      for (int i = 0; i < 4; i++)
        lib1(e, p - 32 * (uint64_t)i, 32, true);
      if (p < 128)
        break;
      p -= 128;
    }
    for (int i = 0; i < 4; i++)
      lib1(e, d + 32 * (uint64_t)i, 32, true);
    lib1(e, d + n - 32, 32, true);
  }
}

void cb_eng_memcpy_traffic(cb_eng *e, uint64_t d, uint64_t s, uint64_t n) {
  if (n == 0)
    return;
  if (n > 64 && e->libc_base) {
    /* the tunables the size classes compare with */
    uint64_t L = e->libc_base;
    bool overlap_up = d - s < n;
    lib1(e, L + LIBC_MOVSB_THRESHOLD, 8, false);
    if (n > 4096 && !overlap_up) {
      lib1(e, L + LIBC_MOVSB_STOP, 8, false);
      if (n < NT_THRESHOLD)
        lib1(e, L + LIBC_STRING_CONTROL, 4, false);
      else
        lib1(e, L + LIBC_NT_THRESHOLD, 8, false);
    } else if (n > 256 && !overlap_up) {
      lib1(e, L + LIBC_NT_THRESHOLD, 8, false);
    }
  }
  if (n == 1) {
    lib1(e, s, 1, false);
    lib1(e, d, 1, true);
  } else if (n <= 3) {
    lib1(e, s, 1, false);
    lib1(e, s + n - 2, 2, false);
    lib1(e, d + n - 2, 2, true);
    lib1(e, d, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    lib1(e, s, k, false);
    lib1(e, s + n - k, k, false);
    lib1(e, d, k, true);
    lib1(e, d + n - k, k, true);
  } else if (n <= 256) {
    int v = n <= 128 ? 2 : 4;
    for (int i = 0; i < v; i++)
      lib1(e, s + 32 * (uint64_t)i, 32, false);
    for (int i = 1; i <= v; i++)
      lib1(e, s + n - 32 * (uint64_t)i, 32, false);
    for (int i = 0; i < v; i++)
      lib1(e, d + 32 * (uint64_t)i, 32, true);
    for (int i = 1; i <= v; i++)
      lib1(e, d + n - 32 * (uint64_t)i, 32, true);
  } else {
    bool overlap_up = d - s < n; /* unsigned: d > s, overlapping */
    bool alias4k = ((d - s) & 0xf00) == 0;
    if (n <= 4096 || overlap_up) {
      vec_loop(e, d, s, n, overlap_up || alias4k);
    } else if (n < NT_THRESHOLD) {
      lib1(e, s, 32, false);
      lib1(e, s + 32, 32, false);
      uint64_t base = ((d - s) & 0xe00) == 0 ? s : d;
      uint64_t o = 64 - (base & 63);
      for (uint64_t i = o; i < n; i++) {
        cb_eng_emit(e, s + i, 1, e->cur_site, false);
        cb_eng_emit(e, d + i, 1, e->cur_site, true);
      }
      if (n > o) {
        e->out->lib_reads += n - o;
        e->out->lib_writes += n - o;
      }
      lib1(e, d, 32, true);
      lib1(e, d + 32, 32, true);
    } else {
      for (uint64_t i = 0; i < n; i += 32) {
        lib1(e, s + i, 32, false);
        lib1(e, d + i, 32, true);
      }
    }
  }
}

static void site_where(cb_eng *e, uint32_t site, const char **file,
                       uint32_t *line) {
  const cb_program *p = e->p;
  *file = NULL;
  *line = 0;
  if (site != CB_NONE && site < p->n_sites) {
    const cb_site *s = &p->sites[site];
    if (s->file < p->n_files)
      *file = p->files[s->file];
    *line = s->line;
  }
}

cb_stop cb_eng_fail(cb_eng *e, cb_run_status st, uint32_t site, const char *fmt,
                    ...) {
  cb_run_outcome *o = e->out;
  if (o->status != CB_RUN_OK)
    return CB_FAIL; /* keep the first */
  o->status = st;
  const char *file;
  uint32_t line;
  site_where(e, site, &file, &line);
  if (!file && e->depth) {
    /* no site: the running function's definition */
    const cb_function *f = &e->p->functions[e->frames[e->depth - 1].func];
    if (f->file < e->p->n_files)
      file = e->p->files[f->file];
    line = f->line;
  }
  o->file = file;
  o->line = line;
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (file)
    snprintf(o->message, sizeof o->message, "%s:%u: %s", file, line, msg);
  else
    snprintf(o->message, sizeof o->message, "%s", msg);
  return CB_FAIL;
}

/* The object nearest to [addr, addr+size): a global, a live frame's
 * object, or a heap block. */
static void nearest_object(cb_eng *e, uint64_t addr, char *buf, size_t n) {
  const cb_program *p = e->p;
  uint64_t best = UINT64_MAX;
  buf[0] = 0;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    uint64_t d;
    const char *rel;
    if (addr < g->addr) {
      d = g->addr - addr;
      rel = "before its start";
    } else if (addr >= g->addr + g->size) {
      d = addr - (g->addr + g->size);
      rel = "past its end";
    } else {
      d = 0;
      rel = "inside";
    }
    if (d < best) {
      best = d;
      snprintf(buf, n, "global `%s` (%llu bytes at 0x%llx), %llu bytes %s",
               g->name ? g->name : "?", (unsigned long long)g->size,
               (unsigned long long)g->addr, (unsigned long long)d, rel);
    }
  }
  for (uint32_t k = 0; k < e->depth; k++) {
    const cb_frame *f = &e->frames[k];
    for (uint32_t i = 0; i < p->n_frame_objs; i++) {
      const cb_frame_obj *o = &p->frame_objs[i];
      if (o->func != f->func)
        continue;
      uint64_t lo = f->cfa + (uint64_t)e->fo_off[i], hi = lo + o->size;
      uint64_t d = addr < lo ? lo - addr : addr >= hi ? addr - hi : 0;
      if (d < best) {
        best = d;
        const char *nm = o->var < p->n_vars ? p->vars[o->var].name : "?";
        snprintf(buf, n,
                 "local `%s` of %s (%llu bytes at 0x%llx), %llu "
                 "bytes %s",
                 nm, p->functions[f->func].name, (unsigned long long)o->size,
                 (unsigned long long)lo, (unsigned long long)d,
                 addr < lo    ? "before its start"
                 : addr >= hi ? "past its end"
                              : "inside");
      }
    }
  }
  uint64_t mem, usable;
  if (cb_heap_find_block(e->heap, addr, &mem, &usable))
    snprintf(buf, n, "heap block of %llu bytes at 0x%llx",
             (unsigned long long)usable, (unsigned long long)mem);
}

cb_stop cb_eng_fault(cb_eng *e, uint64_t addr, uint64_t size, bool is_write,
                     uint32_t site) {
  char near[256];
  nearest_object(e, addr, near, sizeof near);
  const char *text =
      site != CB_NONE && site < e->p->n_sites ? e->p->sites[site].text : NULL;
  return cb_eng_fail(e, CB_RUN_ERROR, site,
                     "invalid %s of %llu bytes at 0x%llx%s%s%s, outside "
                     "every object; nearest: %s",
                     is_write ? "write" : "read", (unsigned long long)size,
                     (unsigned long long)addr, text ? " (" : "",
                     text ? text : "", text ? ")" : "",
                     near[0] ? near : "none");
}

bool cb_eng_read(cb_eng *e, uint64_t addr, void *dst, size_t n) {
  uint64_t bad;
  if (cb_mem_read(&e->mem, addr, dst, n, &bad))
    return true;
  cb_eng_fault(e, bad, 1, false, e->cur_site);
  return false;
}

bool cb_eng_write(cb_eng *e, uint64_t addr, const void *src, size_t n) {
  uint64_t bad;
  if (cb_mem_write(&e->mem, addr, src, n, &bad))
    return true;
  cb_eng_fault(e, bad, 1, true, e->cur_site);
  return false;
}

char *cb_eng_read_str(cb_eng *e, uint64_t addr, size_t max, size_t *len) {
  size_t cap = 64, n = 0;
  char *s = malloc(cap);
  for (;;) {
    uint8_t *pp = cb_mem_ptr(&e->mem, addr + n);
    if (!pp) {
      cb_eng_fault(e, addr + n, 1, false, e->cur_site);
      free(s);
      return NULL;
    }
    if (n + 1 >= cap) {
      cap *= 2;
      s = realloc(s, cap);
    }
    if (n >= max || *pp == 0)
      break;
    s[n++] = (char)*pp;
  }
  s[n] = 0;
  if (len)
    *len = n;
  return s;
}

void cb_textbuf_put(cb_textbuf *b, const char *s, size_t n) {
  if (b->n + n + 1 > b->cap) {
    b->cap = (b->n + n + 1) * 2;
    b->s = realloc(b->s, b->cap);
  }
  memcpy(b->s + b->n, s, n);
  b->n += n;
  b->s[b->n] = 0;
}

/* ---- heap hooks ---- */

static void hk_access(void *ctx, uint64_t addr, unsigned size, bool w,
                      uint64_t v) {
  cb_eng *e = ctx;
  uint8_t *pp = cb_mem_ptr(&e->mem, addr);
  if (!pp)
    return;
  if (w)
    cb_mem_write(&e->mem, addr, &v, size, NULL);
  cb_eng_lib(e, addr, size, w);
}

static void hk_clear(void *ctx, uint64_t addr, uint64_t len) {
  cb_eng *e = ctx;
  cb_mem_fill(&e->mem, addr, 0, len, NULL);
  if (len > 9 * 8)
    cb_eng_memset_traffic(e, addr, len);
  else
    cb_eng_lib(e, addr, len, true);
}

static void hk_copy(void *ctx, uint64_t dst, uint64_t src, uint64_t len) {
  cb_eng *e = ctx;
  uint8_t buf[4096];
  /* forward copy in page-sized steps (dst and src do not overlap) */
  for (uint64_t off = 0; off < len; off += sizeof buf) {
    size_t k = len - off > sizeof buf ? sizeof buf : (size_t)(len - off);
    cb_mem_read(&e->mem, src + off, buf, k, NULL);
    cb_mem_write(&e->mem, dst + off, buf, k, NULL);
  }
  cb_eng_memcpy_traffic(e, dst, src, len);
}

static void hk_map(void *ctx, uint64_t lo, uint64_t hi, bool on) {
  cb_eng *e = ctx;
  if (on)
    cb_mem_map(&e->mem, lo, hi);
  else
    cb_mem_unmap(&e->mem, lo, hi);
}

/* ---- functions and frames ---- */

static int cmp_fn_addr(const void *a, const void *b, void *ctx) {
  const cb_program *p = ctx;
  uint64_t x = p->functions[*(const uint32_t *)a].addr;
  uint64_t y = p->functions[*(const uint32_t *)b].addr;
  return x < y ? -1 : x > y;
}

uint32_t cb_eng_function_at(const cb_eng *e, uint64_t addr) {
  uint32_t lo = 0, hi = e->n_fn_by_addr;
  while (lo < hi) {
    uint32_t mid = (lo + hi) / 2;
    uint64_t a = e->p->functions[e->fn_by_addr[mid]].addr;
    if (a == addr)
      return e->fn_by_addr[mid];
    if (a < addr)
      lo = mid + 1;
    else
      hi = mid;
  }
  return CB_NONE;
}

static uint64_t align_down(uint64_t x, uint64_t a) {
  return x & ~(a - 1);
}

static void layout_frames(cb_eng *e) {
  const cb_program *p = e->p;
  e->fo_off = calloc(p->n_frame_objs + 1, sizeof *e->fo_off);
  e->frame_size = calloc(p->n_functions + 1, sizeof *e->frame_size);
  int64_t *lowest = calloc(p->n_functions + 1, sizeof *lowest);
  for (uint32_t f = 0; f < p->n_functions; f++)
    lowest[f] = -8; /* the return address */
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *o = &p->frame_objs[i];
    if (o->func >= p->n_functions || o->frame_offset == CB_FRAME_OFFSET_UNKNOWN)
      continue;
    e->fo_off[i] = o->frame_offset;
    if (o->frame_offset < lowest[o->func])
      lowest[o->func] = o->frame_offset;
  }
  for (uint32_t i = 0; i < p->n_frame_objs; i++) {
    const cb_frame_obj *o = &p->frame_objs[i];
    if (o->func >= p->n_functions || o->frame_offset != CB_FRAME_OFFSET_UNKNOWN)
      continue;
    uint64_t al = o->align ? o->align : 1;
    if (o->size >= 16 && al < 16)
      al = 16;
    int64_t off = lowest[o->func] - (int64_t)o->size;
    off = -(int64_t)((uint64_t)(-off + (int64_t)al - 1) & ~(al - 1));
    e->fo_off[i] = off;
    lowest[o->func] = off;
  }
  for (uint32_t f = 0; f < p->n_functions; f++) {
    uint64_t need = (uint64_t)(-lowest[f]);
    need = (need + 15) & ~15ull;
    if (need < 16)
      need = 16;
    uint64_t fs = p->functions[f].frame_size;
    e->frame_size[f] = fs > need ? fs : need;
  }
  free(lowest);
}

static bool grow_slots(cb_eng *e, size_t need) {
  if (need <= e->capslots)
    return true;
  size_t c = e->capslots ? e->capslots : 4096;
  while (c < need)
    c *= 2;
  cb_value *s = realloc(e->slots, c * sizeof *s);
  if (!s)
    return false;
  e->slots = s;
  e->capslots = c;
  return true;
}

/* Pushes a frame for function f whose caller's rsp is `sp`; the caller
 * copies argument values in afterwards. */
static void emit_mach(cb_eng *e, const cb_block *b, uint64_t cfa);
static void emit_mach_at(cb_eng *e, const cb_block *b, uint64_t cfa,
                         uint32_t at);

static cb_stop push_frame(cb_eng *e, uint32_t f, uint64_t sp, uint32_t call_op,
                          uint32_t call_site) {
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[f];
  if (e->depth >= MAX_DEPTH || sp - e->frame_size[f] < e->stack_lo)
    return cb_eng_fail(e, CB_RUN_ERROR, call_site,
                       "stack overflow calling %s (depth %u)", fn->name,
                       e->depth);
  if (e->depth == e->capframes) {
    e->capframes = e->capframes ? 2 * e->capframes : 256;
    e->frames = realloc(e->frames, e->capframes * sizeof *e->frames);
  }
  size_t base = e->nslots;
  if (!grow_slots(e, base + fn->n_slots + 1))
    return cb_eng_fail(e, CB_RUN_ERROR, call_site, "out of memory");
  memset(e->slots + base, 0, (fn->n_slots + 1) * sizeof *e->slots);
  e->nslots = base + fn->n_slots;
  cb_frame *F = &e->frames[e->depth++];
  F->func = f;
  F->slot_base = (uint32_t)base;
  F->block = fn->first_block;
  F->prev = CB_NONE;
  F->ip = p->blocks[fn->first_block].first_op;
  F->call_op = call_op;
  F->call_site = call_site;
  F->cfa = sp;
  F->sp = sp - e->frame_size[f];
  /* call pushes the return address: the caller's own access on the
   * call's line when the caller is the program's code */
  uint64_t ra = RET_ADDR_VALUE;
  cb_mem_write(&e->mem, sp - 8, &ra, 8, NULL);
  uint32_t ra_site = call_op != CB_NONE && p->ra_site && call_site < p->n_sites
                         ? p->ra_site[call_site]
                         : CB_NONE;
  if (ra_site != CB_NONE) {
    cb_eng_emit(e, sp - 8, 8, ra_site, true);
    e->out->stores++;
  } else {
    cb_eng_emit(e, sp - 8, 8, call_site, true);
    e->out->lib_writes++;
  }
  /* the prologue's pushes of callee-saved registers (the callee's own
   * accesses on its first line when the machine code told) */
  uint32_t in_site = p->fn_mach ? p->fn_mach[f].entry_site : CB_NONE;
  for (unsigned r = 0; r < fn->n_saved_regs; r++)
    cb_eng_emit(e, sp - 16 - 8 * (uint64_t)r, 8,
                in_site != CB_NONE ? in_site : call_site, true);
  if (in_site != CB_NONE)
    e->out->stores += fn->n_saved_regs;
  else
    e->out->lib_writes += fn->n_saved_regs;
  if (p->blocks[fn->first_block].n_mach)
    emit_mach(e, &p->blocks[fn->first_block], sp);
  return CB_GO;
}

static void pop_frame(cb_eng *e) {
  cb_frame *F = &e->frames[e->depth - 1];
  const cb_program *p = e->p;
  unsigned nr = p->functions[F->func].n_saved_regs;
  /* the epilogue's pops and ret: the callee's own reads on its exit line
   * when the machine code told */
  uint32_t x = p->fn_mach ? p->fn_mach[F->func].exit_site : CB_NONE;
  uint32_t site = x != CB_NONE ? x : F->call_site;
  for (unsigned r = nr; r-- > 0;)
    cb_eng_emit(e, F->cfa - 16 - 8 * (uint64_t)r, 8, site, false);
  cb_eng_emit(e, F->cfa - 8, 8, site, false);
  if (x != CB_NONE)
    e->out->loads += nr + 1;
  else
    e->out->lib_reads += nr + 1;
  e->nslots = F->slot_base;
  e->depth--;
}

/* Copies argument k's value (lanes slots) and handles byval copies. */
static void set_params(cb_eng *e, uint32_t f, const cb_value *const *vals,
                       const uint8_t *lanes, uint32_t nargs) {
  const cb_program *p = e->p;
  const cb_function *fn = &p->functions[f];
  cb_value *S = e->slots + e->frames[e->depth - 1].slot_base;
  uint32_t n = nargs < fn->n_params ? nargs : fn->n_params;
  for (uint32_t k = 0; k < n; k++) {
    const cb_param *pa = &p->params[fn->first_param + k];
    unsigned l = pa->lanes ? pa->lanes : 1;
    if (lanes && lanes[k] && lanes[k] < l)
      l = lanes[k];
    for (unsigned i = 0; i < l; i++)
      S[pa->slot + i] = vals[k][i];
  }
}

cb_stop cb_eng_call_function(cb_eng *e, uint32_t func, const cb_value *args,
                             uint32_t nargs, cb_value *ret);

/* The machine code's own accesses of a block (spills, reloads, constant
 * loads) when the frontend found them. */
static void emit_mach_at(cb_eng *e, const cb_block *b, uint64_t cfa,
                         uint32_t at) {
  const cb_program *p = e->p;
  for (uint32_t i = 0; i < b->n_mach && b->first_mach + i < p->n_mach; i++) {
    const cb_mach_access *m = &p->mach[b->first_mach + i];
    if (m->op > b->first_op ? m->op != at : at != b->first_op)
      continue;
    uint64_t a = m->cfa_offset ? cfa + (uint64_t)m->cfa_offset : m->addr;
    cb_eng_emit(e, a, m->size ? m->size : 8, m->site, m->is_write != 0);
    if (m->is_write)
      e->out->stores++;
    else
      e->out->loads++;
  }
}

/* On entry to a block: the accesses before its own. */
static void emit_mach(cb_eng *e, const cb_block *b, uint64_t cfa) {
  emit_mach_at(e, b, cfa, b->first_op);
}

/* ---- the interpreter ---- */

static cb_stop run(cb_eng *e, uint32_t stop_depth, cb_value *ret_out);

static inline void fp_put_f(cb_value *d, float f) {
  d->u = 0;
  d->f = f;
}

static bool fcmp(unsigned pred, double a, double b) {
  /* LLVM's encoding (the enum order of cb_fcmp): 1 equal, 2 greater,
   * 4 less, 8 unordered */
  unsigned r = (isnan(a) || isnan(b)) ? 8 : a < b ? 4 : a == b ? 1 : 2;
  return (pred & r) != 0;
}

static bool icmp(unsigned pred, uint64_t a, uint64_t b, unsigned ty) {
  switch (pred) {
  case CB_ICMP_EQ:
    return a == b;
  case CB_ICMP_NE:
    return a != b;
  case CB_ICMP_UGT:
    return a > b;
  case CB_ICMP_UGE:
    return a >= b;
  case CB_ICMP_ULT:
    return a < b;
  case CB_ICMP_ULE:
    return a <= b;
  case CB_ICMP_SGT:
    return sx(a, ty) > sx(b, ty);
  case CB_ICMP_SGE:
    return sx(a, ty) >= sx(b, ty);
  case CB_ICMP_SLT:
    return sx(a, ty) < sx(b, ty);
  default:
    return sx(a, ty) <= sx(b, ty);
  }
}

/* Integer binary op on one lane; false on division by zero. */
static bool ibin(unsigned code, unsigned ty, uint64_t a, uint64_t b,
                 uint64_t *r) {
  uint64_t m = ty_mask[ty];
  unsigned bits = ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
  switch (code) {
  case CB_OP_ADD:
    *r = (a + b) & m;
    return true;
  case CB_OP_SUB:
    *r = (a - b) & m;
    return true;
  case CB_OP_MUL:
    *r = (a * b) & m;
    return true;
  case CB_OP_UDIV:
    if (!b)
      return false;
    *r = (a / b) & m;
    return true;
  case CB_OP_UREM:
    if (!b)
      return false;
    *r = (a % b) & m;
    return true;
  case CB_OP_SDIV: {
    int64_t x = sx(a, ty), y = sx(b, ty);
    if (!y)
      return false;
    *r = (y == -1 ? (uint64_t)0 - (uint64_t)x : (uint64_t)(x / y)) & m;
    return true;
  }
  case CB_OP_SREM: {
    int64_t x = sx(a, ty), y = sx(b, ty);
    if (!y)
      return false;
    *r = (y == -1 ? 0 : (uint64_t)(x % y)) & m;
    return true;
  }
  case CB_OP_SHL:
    *r = (a << (b & (bits - 1))) & m;
    return true;
  case CB_OP_LSHR:
    *r = (a >> (b & (bits - 1))) & m;
    return true;
  case CB_OP_ASHR:
    *r = (uint64_t)(sx(a, ty) >> (b & (bits - 1))) & m;
    return true;
  case CB_OP_AND:
    *r = a & b;
    return true;
  case CB_OP_OR:
    *r = a | b;
    return true;
  default:
    *r = a ^ b;
    return true;
  }
}

static void fbin(unsigned code, unsigned ty, const cb_value *a,
                 const cb_value *b, cb_value *r) {
  if (ty == CB_TY_F32) {
    float x = a->f, y = b->f, z;
    switch (code) {
    case CB_OP_FADD:
      z = x + y;
      break;
    case CB_OP_FSUB:
      z = x - y;
      break;
    case CB_OP_FMUL:
      z = x * y;
      break;
    case CB_OP_FDIV:
      z = x / y;
      break;
    default:
      z = fmodf(x, y);
      break;
    }
    fp_put_f(r, z);
  } else {
    double x = a->d, y = b->d;
    switch (code) {
    case CB_OP_FADD:
      r->d = x + y;
      break;
    case CB_OP_FSUB:
      r->d = x - y;
      break;
    case CB_OP_FMUL:
      r->d = x * y;
      break;
    case CB_OP_FDIV:
      r->d = x / y;
      break;
    default:
      r->d = fmod(x, y);
      break;
    }
  }
}

static int64_t fp_to_si(double v) {
  if (v != v || v >= 9223372036854775808.0 || v < -9223372036854775808.0)
    return INT64_MIN; /* x86's "integer indefinite" */
  return (int64_t)v;
}

static uint64_t fp_to_ui(double v) {
  if (v != v || v >= 18446744073709551616.0 || v <= -1.0)
    return v <= -1.0 && v > -9223372036854775808.0 ? (uint64_t)(int64_t)v
                                                   : 0x8000000000000000ull;
  if (v >= 9223372036854775808.0)
    return (uint64_t)(v - 9223372036854775808.0) + 0x8000000000000000ull;
  return (uint64_t)(int64_t)v;
}

static void cast1(unsigned code, unsigned ty, unsigned ty2, const cb_value *a,
                  cb_value *r) {
  double d;
  switch (code) {
  case CB_OP_TRUNC:
  case CB_OP_ZEXT:
  case CB_OP_PTRTOINT:
  case CB_OP_INTTOPTR:
    r->u = a->u & ty_mask[ty];
    break;
  case CB_OP_SEXT:
    r->u = (uint64_t)sx(a->u, ty2) & ty_mask[ty];
    break;
  case CB_OP_FPTRUNC:
    fp_put_f(r, (float)a->d);
    break;
  case CB_OP_FPEXT:
    r->d = (double)a->f;
    break;
  case CB_OP_FPTOUI:
    d = ty2 == CB_TY_F32 ? (double)a->f : a->d;
    r->u = fp_to_ui(d) & ty_mask[ty];
    break;
  case CB_OP_FPTOSI:
    d = ty2 == CB_TY_F32 ? (double)a->f : a->d;
    r->u = (uint64_t)fp_to_si(d) & ty_mask[ty];
    break;
  case CB_OP_UITOFP:
    if (ty == CB_TY_F32)
      fp_put_f(r, (float)(a->u & ty_mask[ty2]));
    else
      r->d = (double)(a->u & ty_mask[ty2]);
    break;
  case CB_OP_SITOFP:
    if (ty == CB_TY_F32)
      fp_put_f(r, (float)sx(a->u, ty2));
    else
      r->d = (double)sx(a->u, ty2);
    break;
  }
}

static unsigned ty_bits(unsigned ty) {
  return ty == CB_TY_I1 ? 1 : cb_ty_bytes(ty) * 8;
}

/* Reinterprets the bits of `lanes_in` values of ty2 as values of ty. */
static void bitcast(unsigned ty, unsigned lanes, unsigned ty2,
                    const cb_value *a, cb_value *r) {
  unsigned ob = ty_bits(ty), ib = ty_bits(ty2);
  unsigned total = ob * lanes, in_lanes = ib ? total / ib : 0;
  uint8_t buf[2048] = {0};
  if (total > sizeof buf * 8)
    return;
  for (unsigned i = 0; i < in_lanes; i++) {
    uint64_t v = a[i].u;
    if (ty2 == CB_TY_F32) {
      uint32_t w;
      memcpy(&w, &a[i].f, 4);
      v = w;
    }
    for (unsigned bit = 0; bit < ib; bit++)
      if (v >> bit & 1) {
        unsigned pos = i * ib + bit;
        buf[pos / 8] |= (uint8_t)(1u << (pos % 8));
      }
  }
  for (unsigned i = 0; i < lanes; i++) {
    uint64_t v = 0;
    for (unsigned bit = 0; bit < ob; bit++) {
      unsigned pos = i * ob + bit;
      if (buf[pos / 8] >> (pos % 8) & 1)
        v |= 1ull << bit;
    }
    if (ty == CB_TY_F32) {
      uint32_t w = (uint32_t)v;
      r[i].u = 0;
      memcpy(&r[i].f, &w, 4);
    } else {
      r[i].u = v;
    }
  }
}

static inline void load_lane(cb_value *d, const uint8_t *pp, unsigned ty) {
  switch (ty) {
  case CB_TY_I1:
    d->u = pp[0] & 1;
    break;
  case CB_TY_I8:
    d->u = pp[0];
    break;
  case CB_TY_I16: {
    uint16_t v;
    memcpy(&v, pp, 2);
    d->u = v;
    break;
  }
  case CB_TY_I32: {
    uint32_t v;
    memcpy(&v, pp, 4);
    d->u = v;
    break;
  }
  case CB_TY_F32:
    d->u = 0;
    memcpy(&d->f, pp, 4);
    break;
  default:
    memcpy(&d->u, pp, 8);
    break;
  }
}

static inline void store_lane(uint8_t *pp, const cb_value *v, unsigned ty) {
  switch (ty) {
  case CB_TY_I1:
  case CB_TY_I8:
    pp[0] = (uint8_t)v->u;
    break;
  case CB_TY_I16: {
    uint16_t x = (uint16_t)v->u;
    memcpy(pp, &x, 2);
    break;
  }
  case CB_TY_I32: {
    uint32_t x = (uint32_t)v->u;
    memcpy(pp, &x, 4);
    break;
  }
  case CB_TY_F32:
    memcpy(pp, &v->f, 4);
    break;
  default:
    memcpy(pp, &v->u, 8);
    break;
  }
}

static uint64_t sig_mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
  return h * 0x100000001b3ull;
}

/* A call op: pushes a frame (CB_GO with the new frame on top), or runs
 * the library function and writes the result. */
static cb_stop do_call(cb_eng *e, const cb_op *op, uint32_t ip);

static cb_stop run(cb_eng *e, uint32_t stop_depth, cb_value *ret_out) {
  const cb_program *p = e->p;
  const cb_op *ops = p->ops;
  const cb_value *K = p->consts;
  const int64_t *X = p->extra;
  const cb_block *B = p->blocks;
  const uint32_t *SU = p->succs;
  cb_frame *F = &e->frames[e->depth - 1];
  cb_value *S = e->slots + F->slot_base;
  uint32_t ip = F->ip;
  uint64_t budget = e->budget_left;
  cb_run_outcome *out = e->out;
  cb_stop st = CB_GO;
  uint32_t target = 0;
  const uint8_t *FK = e->fk; /* fast engine: pre-decoded kinds */
  const cb_phi_edges *PE = e->pe.first ? &e->pe : NULL;

#define V(o) ((o)&CB_OPND_CONST ? &K[(o) & ~CB_OPND_CONST] : &S[o])
#define RELOAD()                                                               \
  do {                                                                         \
    F = &e->frames[e->depth - 1];                                              \
    S = e->slots + F->slot_base;                                               \
  } while (0)

  for (;;) {
    if (FK && FK[ip] != FK_NONE && budget != 0)
      cb_fast_loop(e, F, S, &ip, &budget); /* fastloop.h */
    if (__builtin_expect(budget == 0, 0)) {
      e->budget_left = 0;
      F->ip = ip;
      const cb_function *fn = &p->functions[F->func];
      return cb_eng_fail(e, CB_RUN_BUDGET, CB_NONE,
                         "stopped after %llu operations (the budget) in "
                         "%s: the input does not finish in time",
                         (unsigned long long)e->opt.budget, fn->name);
    }
    budget--;
    const cb_op *op = &ops[ip++];
    if (FK) {
      /* The fast engine's specialised handlers (fastops.h): each does what
       * the reference case below does for its form; `break` falls back to
       * the reference case (page-crossing or unmapped accesses). */
      switch (FK[ip - 1]) {
      case FK_NONE:
        break;
      case FK_ADD:
        S[op->dst].u = (V(op->a)->u + V(op->b)->u) & ty_mask[op->ty];
        continue;
      case FK_SUB:
        S[op->dst].u = (V(op->a)->u - V(op->b)->u) & ty_mask[op->ty];
        continue;
      case FK_MUL:
        S[op->dst].u = (V(op->a)->u * V(op->b)->u) & ty_mask[op->ty];
        continue;
      case FK_AND:
        S[op->dst].u = V(op->a)->u & V(op->b)->u;
        continue;
      case FK_OR:
        S[op->dst].u = V(op->a)->u | V(op->b)->u;
        continue;
      case FK_XOR:
        S[op->dst].u = V(op->a)->u ^ V(op->b)->u;
        continue;
      case FK_FADD_D:
        S[op->dst].d = V(op->a)->d + V(op->b)->d;
        continue;
      case FK_FSUB_D:
        S[op->dst].d = V(op->a)->d - V(op->b)->d;
        continue;
      case FK_FMUL_D:
        S[op->dst].d = V(op->a)->d * V(op->b)->d;
        continue;
      case FK_FDIV_D:
        S[op->dst].d = V(op->a)->d / V(op->b)->d;
        continue;
      case FK_FADD_V:
      case FK_FSUB_V:
      case FK_FMUL_V:
      case FK_FDIV_V: {
        const cb_value *a = V(op->a), *b = V(op->b);
        cb_value *r = &S[op->dst];
        unsigned l = op->lanes;
        switch (FK[ip - 1]) {
        case FK_FADD_V:
          for (unsigned i = 0; i < l; i++)
            r[i].d = a[i].d + b[i].d;
          break;
        case FK_FSUB_V:
          for (unsigned i = 0; i < l; i++)
            r[i].d = a[i].d - b[i].d;
          break;
        case FK_FMUL_V:
          for (unsigned i = 0; i < l; i++)
            r[i].d = a[i].d * b[i].d;
          break;
        default:
          for (unsigned i = 0; i < l; i++)
            r[i].d = a[i].d / b[i].d;
          break;
        }
        continue;
      }
      case FK_ICMP: {
        uint64_t m = ty_mask[op->ty];
        S[op->dst].u = icmp(op->aux, V(op->a)->u & m, V(op->b)->u & m, op->ty);
        continue;
      }
      case FK_GEP0:
        S[op->dst].u = V(op->a)->u + (uint64_t)X[op->aux];
        continue;
      case FK_GEP1: {
        const int64_t *g = &X[op->aux];
        uint64_t x = (uint64_t)g[2];
        const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
        S[op->dst].u =
            V(op->a)->u + (uint64_t)g[0] +
            (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) * (uint64_t)g[3];
        continue;
      }
      case FK_GEP2: {
        const int64_t *g = &X[op->aux];
        uint64_t x = (uint64_t)g[2], y = (uint64_t)g[4];
        const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
        const cb_value *jv = V((cb_operand)(y & 0xffffffffu));
        uint64_t addr = V(op->a)->u + (uint64_t)g[0];
        addr += (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) * (uint64_t)g[3];
        addr += (uint64_t)sxbits(jv->u, (unsigned)(y >> 32)) * (uint64_t)g[5];
        S[op->dst].u = addr;
        continue;
      }
      case FK_LOAD8:
      case FK_LOAD16: {
        uint64_t addr = V(op->a)->u;
        unsigned size = FK[ip - 1] == FK_LOAD8 ? 8 : 16;
        uint8_t *pp = cb_mem_ptr(&e->mem, addr);
        if (__builtin_expect(
                !pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
          break;
        memcpy(&S[op->dst], pp, size);
        cb_eng_emit(e, addr, size, op->aux, false);
        out->loads++;
        continue;
      }
      case FK_STORE8:
      case FK_STORE16: {
        uint64_t addr = V(op->b)->u;
        unsigned size = FK[ip - 1] == FK_STORE8 ? 8 : 16;
        uint8_t *pp = cb_mem_ptr(&e->mem, addr);
        if (__builtin_expect(
                !pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE, 0))
          break;
        memcpy(pp, V(op->a), size);
        cb_eng_emit(e, addr, size, op->aux, true);
        out->stores++;
        continue;
      }
      case FK_FMA_D: {
        const int64_t *g = &X[op->aux];
        const cb_value *x = V(CB_CALL_ARG_OPERAND((uint64_t)g[4]));
        const cb_value *y = V(CB_CALL_ARG_OPERAND((uint64_t)g[5]));
        const cb_value *z = V(CB_CALL_ARG_OPERAND((uint64_t)g[6]));
        unsigned l = op->lanes ? op->lanes : 1;
        cb_value r[64];
        for (unsigned i = 0; i < l; i++)
          r[i].d = fma(x[i].d, y[i].d, z[i].d);
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = r[i];
        continue;
      }
      default:
        break;
      }
    }
    switch ((cb_opcode)op->code) {
    case CB_OP_ADD:
    case CB_OP_SUB:
    case CB_OP_MUL:
    case CB_OP_AND:
    case CB_OP_OR:
    case CB_OP_XOR:
    case CB_OP_SHL:
    case CB_OP_LSHR:
    case CB_OP_ASHR:
    case CB_OP_UDIV:
    case CB_OP_SDIV:
    case CB_OP_UREM:
    case CB_OP_SREM: {
      const cb_value *a = V(op->a), *b = V(op->b);
      if (op->lanes <= 1) {
        uint64_t m = ty_mask[op->ty];
        switch (op->code) {
        case CB_OP_ADD:
          S[op->dst].u = (a->u + b->u) & m;
          continue;
        case CB_OP_SUB:
          S[op->dst].u = (a->u - b->u) & m;
          continue;
        case CB_OP_MUL:
          S[op->dst].u = (a->u * b->u) & m;
          continue;
        case CB_OP_AND:
          S[op->dst].u = a->u & b->u;
          continue;
        case CB_OP_OR:
          S[op->dst].u = a->u | b->u;
          continue;
        case CB_OP_XOR:
          S[op->dst].u = a->u ^ b->u;
          continue;
        default:
          break;
        }
      }
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        if (!ibin(op->code, op->ty, a[i].u, b[i].u, &S[op->dst + i].u)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "division by zero in %s",
                             p->functions[F->func].name);
        }
      continue;
    }
    case CB_OP_FADD:
    case CB_OP_FSUB:
    case CB_OP_FMUL:
    case CB_OP_FDIV:
    case CB_OP_FREM: {
      const cb_value *a = V(op->a), *b = V(op->b);
      if (op->lanes <= 1 && op->ty == CB_TY_F64) {
        switch (op->code) {
        case CB_OP_FADD:
          S[op->dst].d = a->d + b->d;
          continue;
        case CB_OP_FSUB:
          S[op->dst].d = a->d - b->d;
          continue;
        case CB_OP_FMUL:
          S[op->dst].d = a->d * b->d;
          continue;
        default:
          break;
        }
      }
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        fbin(op->code, op->ty, &a[i], &b[i], &S[op->dst + i]);
      continue;
    }
    case CB_OP_FNEG: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++) {
        if (op->ty == CB_TY_F32)
          fp_put_f(&S[op->dst + i], -a[i].f);
        else
          S[op->dst + i].d = -a[i].d;
      }
      continue;
    }
    case CB_OP_ICMP: {
      const cb_value *a = V(op->a), *b = V(op->b);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i].u = icmp(op->aux, a[i].u & ty_mask[op->ty],
                                b[i].u & ty_mask[op->ty], op->ty);
      continue;
    }
    case CB_OP_FCMP: {
      const cb_value *a = V(op->a), *b = V(op->b);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++) {
        double x = op->ty == CB_TY_F32 ? a[i].f : a[i].d;
        double y = op->ty == CB_TY_F32 ? b[i].f : b[i].d;
        S[op->dst + i].u = fcmp(op->aux, x, y);
      }
      continue;
    }
    case CB_OP_SELECT: {
      const cb_value *c = V(op->a), *x = V(op->b), *y = V(op->c);
      unsigned l = op->lanes ? op->lanes : 1;
      if (e->rmw[ip - 1] & 2)
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = (c[i].u & 1) ? x[i] : y[i];
      else {
        const cb_value *src = (c->u & 1) ? x : y;
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = src[i];
      }
      continue;
    }
    case CB_OP_TRUNC:
    case CB_OP_ZEXT:
    case CB_OP_SEXT:
    case CB_OP_FPTRUNC:
    case CB_OP_FPEXT:
    case CB_OP_FPTOUI:
    case CB_OP_FPTOSI:
    case CB_OP_UITOFP:
    case CB_OP_SITOFP:
    case CB_OP_PTRTOINT:
    case CB_OP_INTTOPTR: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        cast1(op->code, op->ty, op->ty2, &a[i], &S[op->dst + i]);
      continue;
    }
    case CB_OP_BITCAST: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      if (op->ty == op->ty2 || (ty_bits(op->ty) == ty_bits(op->ty2) &&
                                op->ty != CB_TY_F32 && op->ty2 != CB_TY_F32)) {
        for (unsigned i = 0; i < l; i++)
          S[op->dst + i] = a[i];
      } else {
        bitcast(op->ty, l, op->ty2, a, &S[op->dst]);
      }
      continue;
    }
    case CB_OP_MOV: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[i];
      continue;
    }
    case CB_OP_GEP: {
      const int64_t *g = &X[op->aux];
      uint64_t addr = V(op->a)->u + (uint64_t)g[0];
      int64_t n = g[1];
      for (int64_t k = 0; k < n; k++) {
        uint64_t x = (uint64_t)g[2 + 2 * k];
        const cb_value *iv = V((cb_operand)(x & 0xffffffffu));
        addr += (uint64_t)sxbits(iv->u, (unsigned)(x >> 32)) *
                (uint64_t)g[3 + 2 * k];
      }
      S[op->dst].u = addr;
      continue;
    }
    case CB_OP_LOAD: {
      uint64_t addr = V(op->a)->u;
      unsigned l = op->lanes ? op->lanes : 1;
      unsigned bytes = cb_ty_bytes(op->ty), size = bytes * l;
      uint8_t *pp = cb_mem_ptr(&e->mem, addr);
      uint8_t tmp[2048];
      if (__builtin_expect(!pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE,
                           0)) {
        uint64_t bad;
        if (size > sizeof tmp || !cb_mem_read(&e->mem, addr, tmp, size, &bad)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, false, op->aux);
        }
        pp = tmp;
      }
      if (l == 1)
        load_lane(&S[op->dst], pp, op->ty);
      else
        for (unsigned i = 0; i < l; i++)
          load_lane(&S[op->dst + i], pp + i * bytes, op->ty);
      cb_eng_emit(e, addr, size, op->aux, false);
      out->loads++;
      continue;
    }
    case CB_OP_STORE: {
      uint64_t addr = V(op->b)->u;
      const cb_value *v = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      unsigned bytes = cb_ty_bytes(op->ty), size = bytes * l;
      uint8_t *pp = cb_mem_ptr(&e->mem, addr);
      if (__builtin_expect(!pp || (addr & (CB_PG_SIZE - 1)) + size > CB_PG_SIZE,
                           0)) {
        uint8_t tmp[2048];
        uint64_t bad;
        if (size > sizeof tmp) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, true, op->aux);
        }
        for (unsigned i = 0; i < l; i++)
          store_lane(tmp + i * bytes, &v[i], op->ty);
        if (!cb_mem_write(&e->mem, addr, tmp, size, &bad)) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fault(e, addr, size, true, op->aux);
        }
      } else if (l == 1) {
        store_lane(pp, v, op->ty);
      } else {
        for (unsigned i = 0; i < l; i++)
          store_lane(pp + i * bytes, &v[i], op->ty);
      }
      if (__builtin_expect(!(e->rmw[ip - 1] & 1), 1)) {
        cb_eng_emit(e, addr, size, op->aux, true);
        out->stores++;
      }
      continue;
    }
    case CB_OP_ALLOCA: {
      if (op->a == CB_NONE) {
        S[op->dst].u = F->cfa + (uint64_t)e->fo_off[op->aux];
      } else {
        uint64_t cnt = V(op->a)->u;
        uint64_t sz = p->frame_objs[op->aux].size * cnt;
        uint64_t al = p->frame_objs[op->aux].align;
        if (al < 16)
          al = 16;
        if (sz > F->sp - e->stack_lo) {
          F->ip = ip;
          e->budget_left = budget;
          return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE,
                             "stack overflow: alloca of %llu bytes in %s",
                             (unsigned long long)sz,
                             p->functions[F->func].name);
        }
        F->sp = align_down(F->sp - sz, al);
        S[op->dst].u = F->sp;
      }
      continue;
    }
    case CB_OP_EXTRACTELT: {
      const cb_value *a = V(op->a);
      uint64_t i = V(op->b)->u;
      S[op->dst] = i < op->lanes ? a[i] : (cb_value){0};
      continue;
    }
    case CB_OP_INSERTELT: {
      const cb_value *a = V(op->a), *b = V(op->b);
      uint64_t idx = V(op->c)->u;
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[i];
      if (idx < l)
        S[op->dst + idx] = *b;
      continue;
    }
    case CB_OP_SHUFFLE: {
      const int64_t *g = &X[op->aux];
      unsigned src = (unsigned)g[0];
      const cb_value *a = V(op->a), *b = V(op->b);
      cb_value tmp[256];
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l && i < 256; i++) {
        int64_t m = g[1 + i];
        tmp[i] = m < 0                   ? (cb_value){0}
                 : (uint64_t)m < src     ? a[m]
                 : (uint64_t)m < 2 * src ? b[m - src]
                                         : (cb_value){0};
      }
      for (unsigned i = 0; i < l && i < 256; i++)
        S[op->dst + i] = tmp[i];
      continue;
    }
    case CB_OP_EXTRACTVAL: {
      const cb_value *a = V(op->a);
      unsigned l = op->lanes ? op->lanes : 1;
      for (unsigned i = 0; i < l; i++)
        S[op->dst + i] = a[op->aux + i];
      continue;
    }
    case CB_OP_INSERTVAL: {
      const int64_t *g = &X[op->aux];
      const cb_value *a = V(op->a), *b = V(op->b);
      uint64_t n = (uint64_t)g[0], at = (uint64_t)g[1];
      unsigned l = op->lanes ? op->lanes : 1;
      for (uint64_t i = 0; i < n; i++)
        S[op->dst + i] = a[i];
      for (unsigned i = 0; i < l; i++)
        S[op->dst + at + i] = b[i];
      continue;
    }
    case CB_OP_PHI:
      /* phis run at block entry; reaching one here is a malformed block */
      continue;
    case CB_OP_CALL: {
      F->ip = ip;
      F->sp = F->sp; /* keep */
      e->budget_left = budget;
      uint32_t d0 = e->depth;
      st = do_call(e, op, ip);
      budget = e->budget_left;
      if (st != CB_GO)
        return st;
      RELOAD();
      if (e->depth != d0)
        ip = F->ip; /* entered the callee */
      else if (__builtin_expect(B[F->block].n_mach != 0, 0))
        emit_mach_at(e, &B[F->block], F->cfa, ip); /* after the call */
      continue;
    }
    case CB_OP_BR: {
      const cb_block *blk = &B[F->block];
      if (op->a == CB_NONE) {
        target = SU[blk->first_succ];
      } else {
        unsigned c = V(op->a)->u & 1;
        target = SU[blk->first_succ + (c ? 0 : 1)];
        if (op->aux != CB_NONE) {
          out->path_signature =
              sig_mix(out->path_signature, ((uint64_t)op->aux << 8) | c);
          out->branches++;
        }
      }
      goto jump;
    }
    case CB_OP_SWITCH: {
      const cb_block *blk = &B[F->block];
      const int64_t *g = &X[op->aux];
      uint64_t v = V(op->a)->u & ty_mask[op->ty];
      int64_t n = g[0];
      uint64_t si = 0;
      for (int64_t k = 0; k < n; k++)
        if (((uint64_t)g[1 + 2 * k] & ty_mask[op->ty]) == v) {
          si = (uint64_t)g[2 + 2 * k];
          break;
        }
      uint32_t bp = (uint32_t)g[1 + 2 * n];
      if (bp != CB_NONE) {
        out->path_signature =
            sig_mix(out->path_signature, ((uint64_t)bp << 8) | (si & 0xff));
        out->branches++;
      }
      target = SU[blk->first_succ + si];
      goto jump;
    }
    case CB_OP_RET: {
      const cb_function *fn = &p->functions[F->func];
      unsigned l = fn->ret_lanes ? fn->ret_lanes : 1;
      cb_value rv[256];
      if (op->a != CB_NONE && fn->ret_ty != CB_TY_VOID) {
        const cb_value *a = V(op->a);
        for (unsigned i = 0; i < l && i < 256; i++)
          rv[i] = a[i];
      } else {
        l = 0;
      }
      uint32_t call_op = F->call_op;
      pop_frame(e);
      e->budget_left = budget;
      if (e->depth == stop_depth) {
        if (ret_out)
          for (unsigned i = 0; i < l; i++)
            ret_out[i] = rv[i];
        return CB_RETURNED;
      }
      RELOAD();
      if (call_op != CB_NONE) {
        const cb_op *cop = &ops[call_op];
        if (cop->dst != CB_NONE)
          for (unsigned i = 0; i < l; i++)
            S[cop->dst + i] = rv[i];
      }
      ip = F->ip;
      if (__builtin_expect(B[F->block].n_mach != 0, 0))
        emit_mach_at(e, &B[F->block], F->cfa, ip); /* after the call */
      continue;
    }
    case CB_OP_UNREACHABLE:
      F->ip = ip;
      e->budget_left = budget;
      return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE,
                         "reached `unreachable` in %s (undefined behaviour "
                         "or a path the compiler ruled out)",
                         p->functions[F->func].name);
    default:
      F->ip = ip;
      e->budget_left = budget;
      return cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "unknown opcode %u",
                         op->code);
    }
  jump : {
    const cb_function *fn = &p->functions[F->func];
    uint32_t from = F->block - fn->first_block;
    uint32_t gb = fn->first_block + target;
    const cb_block *nb = &B[gb];
    uint32_t np = e->nphis[gb];
    F->prev = from;
    F->block = gb;
    ip = nb->first_op;
    if (__builtin_expect(nb->n_mach != 0, 0))
      emit_mach(e, nb, F->cfa);
    if (np && PE) {
      /* fast engine: this edge's moves, precomputed (fastops.h) */
      const cb_phi_edge *ed = &PE->edges[PE->first[gb]];
      const cb_phi_edge *ee = &PE->edges[PE->first[gb + 1]];
      while (ed < ee && ed->pred != from)
        ed++;
      uint64_t *tmp = e->phi_tmp;
      size_t t = 0;
      if (ed < ee) {
        const cb_phi_move *mv = &PE->moves[ed->first_move];
        for (uint32_t k = 0; k < ed->n_moves; k++) {
          const cb_value *src =
              mv[k].src == CB_NONE ? NULL : V((cb_operand)mv[k].src);
          for (unsigned i = 0; i < mv[k].lanes; i++)
            tmp[t++] = src ? src[i].u : 0;
        }
        t = 0;
        for (uint32_t k = 0; k < ed->n_moves; k++)
          for (unsigned i = 0; i < mv[k].lanes; i++)
            S[mv[k].dst + i].u = tmp[t++];
      } else {
        /* an edge no phi names: every phi reads 0, as the reference */
        for (uint32_t k = 0; k < np; k++) {
          const cb_op *ph = &ops[ip + k];
          unsigned l = ph->lanes ? ph->lanes : 1;
          for (unsigned i = 0; i < l; i++)
            S[ph->dst + i].u = 0;
        }
      }
      budget = budget > np ? budget - np : 0;
      ip += np;
    } else if (np) {
      /* parallel: read every incoming value, then write */
      uint64_t *tmp = e->phi_tmp;
      size_t t = 0;
      for (uint32_t k = 0; k < np; k++) {
        const cb_op *ph = &ops[ip + k];
        const int64_t *g = &X[ph->aux];
        int64_t n = g[0];
        const cb_value *src = NULL;
        for (int64_t j = 0; j < n; j++)
          if ((uint32_t)g[1 + 2 * j] == from) {
            src = V((cb_operand)g[2 + 2 * j]);
            break;
          }
        unsigned l = ph->lanes ? ph->lanes : 1;
        for (unsigned i = 0; i < l; i++)
          tmp[t++] = src ? src[i].u : 0;
      }
      t = 0;
      for (uint32_t k = 0; k < np; k++) {
        const cb_op *ph = &ops[ip + k];
        unsigned l = ph->lanes ? ph->lanes : 1;
        for (unsigned i = 0; i < l; i++)
          S[ph->dst + i].u = tmp[t++];
      }
      budget = budget > np ? budget - np : 0;
      ip += np;
    }
  }
  }
#undef V
#undef RELOAD
}

static cb_stop do_call(cb_eng *e, const cb_op *op, uint32_t ip) {
  const cb_program *p = e->p;
  const int64_t *g = &p->extra[op->aux];
  uint32_t kind = (uint32_t)g[0], callee = (uint32_t)g[1];
  uint32_t site = (uint32_t)g[2], nargs = (uint32_t)g[3];
  cb_frame *F = &e->frames[e->depth - 1];
  cb_value *S = e->slots + F->slot_base;
  const cb_value *K = p->consts;
  enum { MAXA = 64 };
  const cb_value *vals[MAXA];
  uint8_t tys[MAXA], lanes[MAXA];
  uint32_t byval[MAXA];
  if (nargs > MAXA)
    return cb_eng_fail(e, CB_RUN_ERROR, site, "call with %u arguments", nargs);
  for (uint32_t k = 0; k < nargs; k++) {
    uint64_t x = (uint64_t)g[4 + k];
    cb_operand o = CB_CALL_ARG_OPERAND(x);
    vals[k] = (o & CB_OPND_CONST) ? &K[o & ~CB_OPND_CONST] : &S[o];
    tys[k] = (uint8_t)CB_CALL_ARG_TY(x);
    lanes[k] = (uint8_t)CB_CALL_ARG_LANES(x);
    byval[k] = CB_CALL_ARG_BYVAL(x);
  }
  if (kind == CB_CALL_INDIRECT) {
    uint64_t addr =
        ((op->a & CB_OPND_CONST) ? &K[op->a & ~CB_OPND_CONST] : &S[op->a])->u;
    callee = cb_eng_function_at(e, addr);
    if (callee == CB_NONE)
      return cb_eng_fail(e, CB_RUN_ERROR, site,
                         "call through a pointer to 0x%llx, which is no "
                         "function of the program",
                         (unsigned long long)addr);
    kind = CB_CALL_DIRECT;
  }
  if (kind == CB_CALL_DIRECT) {
    if (callee >= p->n_functions)
      return cb_eng_fail(e, CB_RUN_ERROR, site, "call of function #%u", callee);
    const cb_function *fn = &p->functions[callee];
    if (fn->n_blocks == 0)
      return cb_eng_fail(e, CB_RUN_ERROR, site, "call of %s, which has no body",
                         fn->name);
    /* copy argument values before the slot stack may move */
    cb_value argv_copy[MAXA * 4];
    const cb_value *argp[MAXA];
    uint32_t used = 0;
    uint64_t sp = F->sp;
    uint64_t total_byval = 0;
    for (uint32_t k = 0; k < nargs; k++)
      if (byval[k])
        total_byval += (byval[k] + 7) & ~7u;
    if (total_byval)
      sp = align_down(sp - total_byval, 16);
    uint64_t at = sp;
    for (uint32_t k = 0; k < nargs; k++) {
      unsigned l = lanes[k] ? lanes[k] : 1;
      if (used + l > MAXA * 4)
        l = 1;
      argp[k] = &argv_copy[used];
      for (unsigned i = 0; i < l; i++)
        argv_copy[used + i] = vals[k][i];
      if (byval[k]) {
        /* the caller copies the aggregate into the argument area */
        uint8_t buf[4096];
        uint64_t src = vals[k][0].u, n = byval[k];
        for (uint64_t off = 0; off < n; off += sizeof buf) {
          size_t c = n - off > sizeof buf ? sizeof buf : (size_t)(n - off);
          uint64_t bad;
          if (!cb_mem_read(&e->mem, src + off, buf, c, &bad))
            return cb_eng_fault(e, bad, 1, false, site);
          cb_mem_write(&e->mem, at + off, buf, c, NULL);
        }
        uint32_t keep = e->cur_site;
        e->cur_site = site;
        cb_eng_lib(e, src, n, false);
        cb_eng_lib(e, at, n, true);
        e->cur_site = keep;
        argv_copy[used].u = at;
        at += (n + 7) & ~7ull;
      }
      used += l;
    }
    uint32_t call_op = (uint32_t)(op - p->ops);
    (void)ip;
    cb_stop st = push_frame(e, callee, sp, call_op, site);
    if (st != CB_GO)
      return st;
    set_params(e, callee, argp, lanes, nargs);
    return CB_GO;
  }
  cb_value ret[256];
  memset(ret, 0, sizeof ret[0] * 4);
  uint32_t keep = e->cur_site;
  e->cur_site = site;
  cb_stop st;
  /* a call into the library pushes its return address (the caller's
   * line) and the library's `ret` pops it */
  bool real_call = kind == CB_CALL_LIBC;
  if (kind == CB_CALL_INTRINSIC &&
      (callee == CB_INTR_MEMCPY || callee == CB_INTR_MEMMOVE ||
       callee == CB_INTR_MEMSET))
    real_call = !(nargs > 2 && (((uint64_t)g[4 + 2]) & CB_OPND_CONST) &&
                  vals[2][0].u <= 128);
  uint64_t ra_at = F->sp - 8;
  if (real_call) {
    /* the caller's `call` writes the return address on the call's line */
    uint32_t ras = p->ra_site && site < p->n_sites ? p->ra_site[site] : CB_NONE;
    cb_eng_emit(e, ra_at, 8, ras != CB_NONE ? ras : site, true);
    if (ras != CB_NONE)
      e->out->stores++;
    else
      e->out->lib_writes++;
    /* the PLT stub reads the function's GOT slot */
    uint32_t lf = callee;
    if (kind == CB_CALL_INTRINSIC)
      lf = callee == CB_INTR_MEMSET    ? CB_LIBC_MEMSET
           : callee == CB_INTR_MEMMOVE ? CB_LIBC_MEMMOVE
                                       : CB_LIBC_MEMCPY;
    if (lf < CB_LIBC_COUNT && e->got[lf]) {
      cb_eng_emit(e, e->got[lf], 8, site, false);
      e->out->lib_reads++;
    }
  }
  if (kind == CB_CALL_LIBC) {
    cb_value a[MAXA];
    for (uint32_t k = 0; k < nargs; k++)
      a[k] = vals[k][0];
    st = cb_libc_call(e, callee, a, tys, nargs, ret);
  } else {
    st = cb_intrinsic_call(e, callee, op, vals, tys, lanes, nargs, ret);
  }
  e->cur_site = keep;
  if (st != CB_GO)
    return st;
  if (real_call) {
    cb_eng_emit(e, ra_at, 8, site, false);
    e->out->lib_reads++;
  }
  /* the slot stack may have moved (qsort ran a comparator) */
  F = &e->frames[e->depth - 1];
  S = e->slots + F->slot_base;
  if (op->dst != CB_NONE && op->ty != CB_TY_VOID) {
    unsigned l = op->lanes ? op->lanes : 1;
    if (kind == CB_CALL_INTRINSIC && callee >= CB_INTR_SADD_OVF &&
        callee <= CB_INTR_UMUL_OVF && l < 2)
      l = 2; /* {iN, i1}: value and overflow flag */
    for (unsigned i = 0; i < l && i < 256; i++)
      S[op->dst + i] = ret[i];
  }
  return CB_GO;
}

cb_stop cb_eng_call_function(cb_eng *e, uint32_t func, const cb_value *args,
                             uint32_t nargs, cb_value *ret) {
  const cb_program *p = e->p;
  if (func >= p->n_functions || !p->functions[func].n_blocks)
    return cb_eng_fail(e, CB_RUN_ERROR, e->cur_site,
                       "callback to a function without a body");
  cb_frame *F = &e->frames[e->depth - 1];
  uint32_t d0 = e->depth;
  /* library frames sit between: leave room for them */
  uint64_t sp = align_down(F->sp - 256, 16);
  cb_stop st = push_frame(e, func, sp, CB_NONE, e->cur_site);
  if (st != CB_GO)
    return st;
  const cb_value *argp[64];
  uint32_t n = nargs > 64 ? 64 : nargs;
  for (uint32_t k = 0; k < n; k++)
    argp[k] = &args[k];
  set_params(e, func, argp, NULL, n);
  st = run(e, d0, ret);
  if (st == CB_RETURNED)
    return CB_GO;
  return st;
}

/* ---- setup and the run ---- */

static void setup_image(cb_eng *e) {
  const cb_program *p = e->p;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->addr < lo)
      lo = g->addr;
    if (g->addr + g->size > hi)
      hi = g->addr + g->size;
  }
  if (p->load_base && p->load_base < lo)
    lo = p->load_base;
  if (p->image_end > hi)
    hi = p->image_end;
  if (lo < hi)
    cb_mem_map(&e->mem, lo & ~(uint64_t)(CB_PG_SIZE - 1),
               (hi + CB_PG_SIZE - 1) & ~(uint64_t)(CB_PG_SIZE - 1));
  /* the FILE objects: the frontend's _IO_2_1_std*_ when it placed them */
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (!g->name)
      continue;
    if (!strcmp(g->name, "_IO_2_1_stdout_"))
      e->file_stdout = g->addr;
    else if (!strcmp(g->name, "_IO_2_1_stderr_"))
      e->file_stderr = g->addr;
    else if (!strcmp(g->name, "_IO_2_1_stdin_"))
      e->file_stdin = g->addr;
  }
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->init)
      cb_mem_write(&e->mem, g->addr, g->init, g->size, NULL);
    if (g->name && !g->init && g->size == 8) {
      /* stdout and friends without an object: point at ours */
      uint64_t v = 0;
      if (!strcmp(g->name, "stdout"))
        v = e->file_stdout;
      else if (!strcmp(g->name, "stderr"))
        v = e->file_stderr;
      else if (!strcmp(g->name, "stdin"))
        v = e->file_stdin;
      if (v)
        cb_mem_write(&e->mem, g->addr, &v, 8, NULL);
    }
  }
}

/* argc, argv[] and the strings above main's CFA, as the process sees
 * them. Returns argv's address. */
static uint64_t setup_stack(cb_eng *e, const cb_run_input *in) {
  uint64_t cfa = e->main_cfa;
  uint64_t argc_slot = cfa + 0x100;
  uint64_t argv_at = argc_slot + 8;
  uint64_t strings, top;
  if (!e->opt.stack_top) {
    vg_stack v = vg_stack_layout(in->argc, in->argv, e->opt.cwd, e->opt.n_aux);
    strings = v.strtab;
    top = STACK_TOP_VALGRIND;
  } else {
    strings = argv_at + 8 * ((uint64_t)in->argc + 2 + VG_NENV) + 0x180;
    uint64_t end = strings;
    for (int i = 0; i < in->argc; i++)
      end += strlen(in->argv[i]) + 1;
    top = (end + 256 + CB_PG_SIZE - 1) & ~(uint64_t)(CB_PG_SIZE - 1);
  }
  e->stack_lo = cfa - e->opt.stack_limit;
  cb_mem_map(&e->mem, e->stack_lo & ~(uint64_t)(CB_PG_SIZE - 1), top);
  uint64_t argc = (uint64_t)in->argc;
  cb_mem_write(&e->mem, argc_slot, &argc, 8, NULL);
  uint64_t s = strings;
  for (int i = 0; i < in->argc; i++) {
    size_t n = strlen(in->argv[i]) + 1;
    cb_mem_write(&e->mem, s, in->argv[i], n, NULL);
    cb_mem_write(&e->mem, argv_at + 8 * (uint64_t)i, &s, 8, NULL);
    s += n;
  }
  return argv_at;
}

/* Stores that the x86 backend folds with the load of the same address
 * into one read-modify-write instruction (`addl %eax, (mem)`), which
 * cachegrind counts as one read and no write: load L of p; v = L op x;
 * store v to p; in one block, L and v used once, no store or call in
 * between. */
static void count_use(uint32_t *uses, uint32_t nslots, cb_operand o) {
  if (o != CB_NONE && !(o & CB_OPND_CONST) && o < nslots)
    uses[o]++;
}

static void find_rmw(cb_eng *e) {
  const cb_program *p = e->p;
  e->rmw = calloc(p->n_ops + 1, 1);
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    if (!fn->n_blocks)
      continue;
    uint32_t ns = fn->n_slots + 1;
    uint32_t *uses = calloc(ns, sizeof *uses);
    const cb_block *b0 = &p->blocks[fn->first_block];
    const cb_block *bl = &p->blocks[fn->first_block + fn->n_blocks - 1];
    uint32_t o0 = b0->first_op, o1 = bl->first_op + bl->n_ops;
    for (uint32_t i = o0; i < o1; i++) {
      const cb_op *op = &p->ops[i];
      const int64_t *g = &p->extra[op->aux];
      switch (op->code) {
      case CB_OP_GEP:
        count_use(uses, ns, op->a);
        for (int64_t k = 0; k < g[1]; k++)
          count_use(uses, ns, (cb_operand)(g[2 + 2 * k] & 0xffffffff));
        break;
      case CB_OP_PHI:
        for (int64_t k = 0; k < g[0]; k++)
          count_use(uses, ns, (cb_operand)g[2 + 2 * k]);
        break;
      case CB_OP_CALL:
        if (g[0] == CB_CALL_INDIRECT)
          count_use(uses, ns, op->a);
        for (int64_t k = 0; k < g[3]; k++)
          count_use(uses, ns, CB_CALL_ARG_OPERAND(g[4 + k]));
        break;
      case CB_OP_ALLOCA:
      case CB_OP_BR:
      case CB_OP_SWITCH:
      case CB_OP_RET:
      case CB_OP_EXTRACTVAL:
        count_use(uses, ns, op->a);
        break;
      case CB_OP_UNREACHABLE:
        break;
      default:
        count_use(uses, ns, op->a);
        count_use(uses, ns, op->b);
        if (op->code == CB_OP_SELECT || op->code == CB_OP_INSERTELT)
          count_use(uses, ns, op->c);
        break;
      }
    }
    for (uint32_t bi = 0; bi < fn->n_blocks; bi++) {
      const cb_block *b = &p->blocks[fn->first_block + bi];
      for (uint32_t i = b->first_op; i < b->first_op + b->n_ops; i++) {
        const cb_op *st = &p->ops[i];
        if (st->code != CB_OP_STORE || st->lanes > 1 || st->ty < CB_TY_I8 ||
            st->ty > CB_TY_I64 || (st->a & CB_OPND_CONST) ||
            (st->b & CB_OPND_CONST))
          continue;
        /* the value's definition */
        uint32_t j = i;
        while (j > b->first_op && p->ops[j - 1].dst != st->a)
          j--;
        if (j == b->first_op)
          continue;
        const cb_op *bin = &p->ops[--j];
        switch (bin->code) {
        case CB_OP_ADD:
        case CB_OP_SUB:
        case CB_OP_AND:
        case CB_OP_OR:
        case CB_OP_XOR:
        case CB_OP_SHL:
        case CB_OP_LSHR:
        case CB_OP_ASHR:
          break;
        default:
          continue;
        }
        if (bin->ty != st->ty || bin->lanes > 1 || st->a >= ns ||
            uses[st->a] != 1)
          continue;
        bool commutative = bin->code == CB_OP_ADD || bin->code == CB_OP_AND ||
                           bin->code == CB_OP_OR || bin->code == CB_OP_XOR;
        bool found = false;
        for (int side = 0; side < (commutative ? 2 : 1) && !found; side++) {
          cb_operand lv = side ? bin->b : bin->a;
          if ((lv & CB_OPND_CONST) || lv >= ns || uses[lv] != 1)
            continue;
          uint32_t k = j;
          while (k > b->first_op && p->ops[k - 1].dst != lv)
            k--;
          if (k == b->first_op)
            continue;
          const cb_op *ld = &p->ops[k - 1];
          if (ld->code != CB_OP_LOAD || ld->a != st->b || ld->ty != st->ty ||
              ld->lanes > 1)
            continue;
          bool clean = true;
          for (uint32_t m = k; m < i && clean; m++)
            if (p->ops[m].code == CB_OP_STORE || p->ops[m].code == CB_OP_CALL)
              clean = false;
          found = clean;
        }
        if (found)
          e->rmw[i] = 1;
      }
    }
    free(uses);
  }
}

/* Checks that every index the interpreter follows stays inside the
 * Program's arrays, so that a malformed Program is an error, never a
 * crash. Returns NULL or a message. */
static const char *validate(const cb_program *p, char *buf, size_t n) {
  if (!p->functions || !p->blocks || !p->ops)
    return "no functions, blocks or operations";
  for (uint32_t f = 0; p->fn_mach && f < p->n_functions; f++)
    if ((p->fn_mach[f].entry_site != CB_NONE &&
         p->fn_mach[f].entry_site >= p->n_sites) ||
        (p->fn_mach[f].exit_site != CB_NONE &&
         p->fn_mach[f].exit_site >= p->n_sites))
      return "function entry/exit sites out of range";
  for (uint32_t s = 0; p->ra_site && s < p->n_sites; s++)
    if (p->ra_site[s] != CB_NONE && p->ra_site[s] >= p->n_sites)
      return "return-address sites out of range";
  for (uint32_t i = 0; p->mach && i < p->n_mach; i++)
    if (p->mach[i].site >= p->n_sites)
      return "machine access sites out of range";
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    const char *nm = fn->name ? fn->name : "?";
    uint32_t ns = fn->n_slots;
    if (!fn->n_blocks)
      continue;
    if ((uint64_t)fn->first_block + fn->n_blocks > p->n_blocks) {
      snprintf(buf, n, "function %s: blocks out of range", nm);
      return buf;
    }
    for (uint32_t k = 0; k < fn->n_params; k++) {
      const cb_param *pa = &p->params[fn->first_param + k];
      if ((uint64_t)pa->slot + (pa->lanes ? pa->lanes : 1) > ns) {
        snprintf(buf, n, "function %s: parameter %u slot out of range", nm, k);
        return buf;
      }
    }
    for (uint32_t b = 0; b < fn->n_blocks; b++) {
      const cb_block *bl = &p->blocks[fn->first_block + b];
      if (!bl->n_ops || (uint64_t)bl->first_op + bl->n_ops > p->n_ops) {
        snprintf(buf, n, "function %s block %u: operations out of range", nm,
                 b);
        return buf;
      }
      for (uint32_t k = 0; k < bl->n_succ; k++)
        if (p->succs[bl->first_succ + k] >= fn->n_blocks) {
          snprintf(buf, n, "function %s block %u: successor out of range", nm,
                   b);
          return buf;
        }
      if (bl->n_mach &&
          (!p->mach || (uint64_t)bl->first_mach + bl->n_mach > p->n_mach)) {
        snprintf(buf, n, "function %s block %u: machine accesses out of range",
                 nm, b);
        return buf;
      }
      for (uint32_t i = bl->first_op; i < bl->first_op + bl->n_ops; i++) {
        const cb_op *op = &p->ops[i];
        unsigned l = op->lanes ? op->lanes : 1;
        const char *why = NULL;
#define OPND_OK(o, ln)                                                         \
  ((o) == CB_NONE ||                                                           \
   (((o)&CB_OPND_CONST)                                                        \
        ? ((uint64_t)((o) & ~CB_OPND_CONST) + (ln) <= p->n_consts)             \
        : ((uint64_t)(o) + (ln) <= ns)))
        bool last = i + 1 == bl->first_op + bl->n_ops;
        bool term = op->code == CB_OP_BR || op->code == CB_OP_SWITCH ||
                    op->code == CB_OP_RET || op->code == CB_OP_UNREACHABLE;
        if (op->code >= CB_OP_COUNT || op->ty >= CB_TY_COUNT ||
            op->ty2 >= CB_TY_COUNT)
          why = "unknown opcode or type";
        else if (last != term)
          why = last ? "the block does not end with a terminator"
                     : "a terminator inside the block";
        else if (op->dst != CB_NONE &&
                 (uint64_t)op->dst + (l < 2 ? 2 : l) > ns + 1)
          why = "destination slot out of range";
        else if (!OPND_OK(op->a, 1) || !OPND_OK(op->b, 1) || !OPND_OK(op->c, 1))
          why = "operand out of range";
        else if ((op->code == CB_OP_LOAD || op->code == CB_OP_STORE) &&
                 op->aux != CB_NONE && op->aux >= p->n_sites)
          why = "site out of range";
        else if (op->code == CB_OP_ALLOCA && op->aux >= p->n_frame_objs)
          why = "frame object out of range";
        else if (op->code == CB_OP_BR && op->a != CB_NONE && bl->n_succ < 2)
          why = "conditional branch with fewer than two successors";
        else if (op->code == CB_OP_BR && bl->n_succ < 1)
          why = "branch without a successor";
        else if (op->code == CB_OP_GEP || op->code == CB_OP_PHI ||
                 op->code == CB_OP_CALL || op->code == CB_OP_SWITCH ||
                 op->code == CB_OP_SHUFFLE || op->code == CB_OP_INSERTVAL) {
          uint64_t need = 2;
          if (op->aux >= p->n_extra)
            why = "extra record out of range";
          else {
            const int64_t *g = &p->extra[op->aux];
            switch (op->code) {
            case CB_OP_GEP:
              need = 2 + 2 * (uint64_t)g[1];
              break;
            case CB_OP_PHI:
              need = 1 + 2 * (uint64_t)g[0];
              break;
            case CB_OP_CALL:
              need = op->aux + 3 < p->n_extra ? 4 + (uint64_t)g[3] : 4;
              break;
            case CB_OP_SWITCH:
              need = 2 + 2 * (uint64_t)g[0];
              break;
            case CB_OP_SHUFFLE:
              need = 1 + (uint64_t)l;
              break;
            default:
              need = 2;
              break;
            }
            if ((uint64_t)op->aux + need > p->n_extra)
              why = "extra record out of range";
            else if (op->code == CB_OP_CALL &&
                     ((g[0] == CB_CALL_DIRECT &&
                       (uint64_t)g[1] >= p->n_functions) ||
                      (g[0] == CB_CALL_LIBC && g[1] >= CB_LIBC_COUNT) ||
                      (g[0] == CB_CALL_INTRINSIC && g[1] >= CB_INTR_COUNT) ||
                      g[0] > CB_CALL_INTRINSIC || g[3] > 64))
              why = "call record out of range";
            else if (op->code == CB_OP_SWITCH)
              for (int64_t k = 0; k < g[0] && !why; k++)
                if ((uint64_t)g[2 + 2 * k] >= bl->n_succ)
                  why = "switch successor out of range";
            if (!why && op->code == CB_OP_PHI)
              for (int64_t k = 0; k < g[0] && !why; k++)
                if (!OPND_OK((cb_operand)g[2 + 2 * k], l))
                  why = "phi operand out of range";
            if (!why && op->code == CB_OP_GEP)
              for (int64_t k = 0; k < g[1] && !why; k++)
                if (!OPND_OK((cb_operand)(g[2 + 2 * k] & 0xffffffff), 1))
                  why = "index operand out of range";
            if (!why && op->code == CB_OP_CALL)
              for (int64_t k = 0; k < g[3] && !why; k++) {
                uint64_t x = (uint64_t)g[4 + k];
                unsigned al = CB_CALL_ARG_LANES(x) ? CB_CALL_ARG_LANES(x) : 1;
                if (!OPND_OK(CB_CALL_ARG_OPERAND(x), al))
                  why = "argument out of range";
              }
          }
        }
        if (why) {
          snprintf(buf, n, "function %s block %u operation %u: %s", nm, b,
                   i - bl->first_op, why);
          return buf;
        }
#undef OPND_OK
      }
    }
  }
  return NULL;
}

/* Selects whose condition is a vector of i1 (one per lane): marked by
 * the frontend with ty2 = CB_TY_I1, or found here from the lanes of the
 * condition's definition. Sets bit 2 of e->rmw. */
static void find_vector_selects(cb_eng *e) {
  const cb_program *p = e->p;
  for (uint32_t f = 0; f < p->n_functions; f++) {
    const cb_function *fn = &p->functions[f];
    if (!fn->n_blocks)
      continue;
    uint8_t *lanes = calloc(fn->n_slots + 2, 1);
    for (uint32_t k = 0; k < fn->n_params; k++) {
      const cb_param *pa = &p->params[fn->first_param + k];
      if (pa->slot < fn->n_slots)
        lanes[pa->slot] = pa->lanes;
    }
    const cb_block *b0 = &p->blocks[fn->first_block];
    const cb_block *bl = &p->blocks[fn->first_block + fn->n_blocks - 1];
    uint32_t o0 = b0->first_op, o1 = bl->first_op + bl->n_ops;
    for (uint32_t i = o0; i < o1; i++)
      if (p->ops[i].dst < fn->n_slots)
        lanes[p->ops[i].dst] = p->ops[i].lanes;
    for (uint32_t i = o0; i < o1; i++) {
      const cb_op *op = &p->ops[i];
      if (op->code != CB_OP_SELECT || op->lanes <= 1)
        continue;
      if (op->ty2 == CB_TY_I1 || (op->a & CB_OPND_CONST) ||
          (op->a < fn->n_slots && lanes[op->a] > 1))
        e->rmw[i] |= 2;
    }
    free(lanes);
  }
}

static void precompute(cb_eng *e) {
  find_rmw(e);
  find_vector_selects(e);
  if (e->opt.mode == CB_ENGINE_FAST)
    e->fk = cb_fast_kinds(e->p, e->rmw); /* NULL: the reference loop */
  const cb_program *p = e->p;
  e->nphis = calloc(p->n_blocks + 1, sizeof *e->nphis);
  size_t maxl = 16;
  for (uint32_t b = 0; b < p->n_blocks; b++) {
    const cb_block *bl = &p->blocks[b];
    uint32_t n = 0;
    size_t l = 0;
    while (n < bl->n_ops && p->ops[bl->first_op + n].code == CB_OP_PHI) {
      unsigned ln = p->ops[bl->first_op + n].lanes;
      l += ln ? ln : 1;
      n++;
    }
    e->nphis[b] = n;
    if (l > maxl)
      maxl = l;
  }
  e->phi_cap = maxl;
  if (e->opt.mode == CB_ENGINE_FAST)
    cb_phi_edges_build(p, e->nphis, &e->pe);
  e->phi_tmp = malloc(maxl * sizeof *e->phi_tmp);
  e->fn_by_addr = malloc((p->n_functions + 1) * sizeof *e->fn_by_addr);
  for (uint32_t f = 0; f < p->n_functions; f++)
    if (p->functions[f].addr)
      e->fn_by_addr[e->n_fn_by_addr++] = f;
  qsort_r(e->fn_by_addr, e->n_fn_by_addr, sizeof *e->fn_by_addr, cmp_fn_addr,
          (void *)p);
  layout_frames(e);
}

static void eng_destroy(cb_eng *e) {
  cb_mem_destroy(&e->mem);
  cb_heap_free_model(e->heap);
  free(e->nphis);
  free(e->rmw);
  free(e->fk);
  cb_phi_edges_free(&e->pe);
  free(e->fo_off);
  free(e->frame_size);
  free(e->fn_by_addr);
  free(e->slots);
  free(e->frames);
  free(e->phi_tmp);
}

int cb_engine_run(const cb_program *p, const cb_run_input *in,
                  const cb_engine_options *opt_in, const cb_access_sink *sink,
                  cb_run_outcome *out) {
  memset(out, 0, sizeof *out);
  cb_eng *e = calloc(1, sizeof *e);
  if (!e) {
    out->status = CB_RUN_ERROR;
    snprintf(out->message, sizeof out->message, "out of memory");
    return -1;
  }
  cb_engine_options_default(&e->opt);
  if (opt_in) {
    e->opt = *opt_in;
    cb_engine_options def;
    cb_engine_options_default(&def);
    if (!e->opt.budget)
      e->opt.budget = def.budget;
    if (!e->opt.stack_limit)
      e->opt.stack_limit = def.stack_limit;
  }
  e->p = p;
  e->out = out;
  e->sink = sink;
  e->budget_left = e->opt.budget;
  e->cur_site = CB_NONE;
  e->in_data = in->stdin_data;
  e->in_len = in->stdin_data ? in->stdin_len : 0;
  e->file_stdin = 0x7ff0000008a0ull;
  e->file_stdout = 0x7ff000000780ull;
  e->file_stderr = 0x7ff0000006a0ull;
  cb_mem_init(&e->mem);
  cb_rand_seed(&e->rng, 1);
  {
    uint64_t hb, mb;
    cb_engine_layout(p, &hb, &mb);
    if (!e->opt.heap_base)
      e->opt.heap_base = hb;
    if (!e->opt.mmap_base)
      e->opt.mmap_base = mb;
    e->libc_base = cb_eng_libc_base(p);
  }
  cb_heap_config hc = {e->opt.heap_base, e->opt.mmap_base, 0x7ff000};
  cb_heap_hooks hk = {e, hk_access, hk_clear, hk_copy, hk_map};
  e->heap = cb_heap_new(&hc, &hk);

  int rc = -1;
  if (p->main_function == CB_NONE || p->main_function >= p->n_functions) {
    cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "the program has no main");
    goto done;
  }
  {
    char vbuf[300];
    const char *bad = validate(p, vbuf, sizeof vbuf);
    if (bad) {
      cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "malformed Program: %s", bad);
      goto done;
    }
  }
  precompute(e);
  cb_engine_got_slots(p, e->got);
  setup_image(e);
  e->main_cfa = e->opt.stack_top
                    ? e->opt.stack_top
                    : cb_engine_default_stack_top(in->argc, in->argv,
                                                  e->opt.cwd, e->opt.n_aux);
  uint64_t argv_at = setup_stack(e, in);
  cb_libc_init(e);

  /* main(argc, argv) */
  cb_value args[2];
  args[0].u = (uint64_t)(uint32_t)in->argc;
  args[1].u = argv_at;
  uint32_t mf = p->main_function;
  if (!grow_slots(e, 1024) || !(e->frames = calloc(256, sizeof *e->frames))) {
    cb_eng_fail(e, CB_RUN_ERROR, CB_NONE, "out of memory");
    goto done;
  }
  e->capframes = 256;
  cb_stop st = push_frame(e, mf, e->main_cfa, CB_NONE, CB_NONE);
  if (st == CB_GO) {
    const cb_value *argp[2] = {&args[0], &args[1]};
    set_params(e, mf, argp, NULL, 2);
    cb_value ret[4] = {{0}};
    st = run(e, 0, ret);
    if (st == CB_RETURNED) {
      e->exit_code = (int)(int32_t)ret[0].u;
      st = CB_EXIT;
    }
  }
  if (st == CB_EXIT && out->status == CB_RUN_OK) {
    out->exit_code = e->exit_code;
    rc = 0;
  }
done:
  out->ops = e->opt.budget - e->budget_left;
  cb_eng_flush(e);
  out->out = e->out_text.s ? e->out_text.s : calloc(1, 1);
  out->out_len = e->out_text.n;
  out->err = e->err_text.s ? e->err_text.s : calloc(1, 1);
  out->err_len = e->err_text.n;
  if (out->status != CB_RUN_OK)
    rc = -1;
  eng_destroy(e);
  free(e);
  return rc;
}

void cb_run_outcome_free(cb_run_outcome *out) {
  if (!out)
    return;
  free(out->out);
  free(out->err);
  out->out = out->err = NULL;
}
