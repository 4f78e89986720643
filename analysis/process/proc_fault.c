/* proc_fault.c: how a run stops with an error (cb_proc_fail), the
 * message about an access outside every object (cb_proc_fault, naming the
 * nearest object: a global, a live frame's object, a heap block), and the
 * checked memory accesses of the library model that report such faults. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

static void site_where(cb_proc *pr, uint32_t site, const char **file,
                       uint32_t *line) {
  const cb_program *p = pr->p;
  *file = NULL;
  *line = 0;
  if (site != CB_NONE && site < p->n_sites) {
    const cb_site *s = &p->sites[site];
    if (s->file < p->n_files)
      *file = p->files[s->file];
    *line = s->line;
  }
}

cb_stop cb_proc_fail(cb_proc *pr, cb_run_status st, uint32_t site,
                     const char *fmt, ...) {
  cb_run_outcome *o = pr->out;
  if (o->status != CB_RUN_OK)
    return CB_FAIL; /* keep the first */
  o->status = st;
  const char *file;
  uint32_t line;
  site_where(pr, site, &file, &line);
  if (!file && pr->stack->depth) {
    /* no site: the running function's definition */
    const cb_function *f = &pr->p->functions[cb_proc_top(pr)->func];
    if (f->file < pr->p->n_files)
      file = pr->p->files[f->file];
    line = f->line;
  }
  o->file = file;
  o->line = line;
  /* the location is in file and line: reports put it in front */
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(o->message, sizeof o->message, "%s", msg);
  return CB_FAIL;
}

/* The object nearest to [addr, addr+size): a global, a live frame's
 * object, or a heap block. */
static void nearest_object(cb_proc *pr, uint64_t addr, char *buf, size_t n) {
  const cb_program *p = pr->p;
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
  for (uint32_t k = 0; k < pr->stack->depth; k++) {
    const cb_frame *f = &pr->stack->frames[k];
    for (uint32_t i = 0; i < p->n_frame_objs; i++) {
      const cb_frame_obj *o = &p->frame_objs[i];
      if (o->func != f->func)
        continue;
      uint64_t lo = f->cfa + (uint64_t)pr->stack->fo_off[i], hi = lo + o->size;
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
  if (cb_heap_find_block(pr->heap, addr, &mem, &usable))
    snprintf(buf, n, "heap block of %llu bytes at 0x%llx",
             (unsigned long long)usable, (unsigned long long)mem);
}

cb_stop cb_proc_fault(cb_proc *pr, uint64_t addr, uint64_t size, bool is_write,
                      uint32_t site) {
  char near[256];
  nearest_object(pr, addr, near, sizeof near);
  const char *text =
      site != CB_NONE && site < pr->p->n_sites ? pr->p->sites[site].text : NULL;
  return cb_proc_fail(pr, CB_RUN_ERROR, site,
                      "invalid %s of %llu bytes at 0x%llx%s%s%s, outside "
                      "every object; nearest: %s",
                      is_write ? "write" : "read", (unsigned long long)size,
                      (unsigned long long)addr, text ? " (" : "",
                      text ? text : "", text ? ")" : "",
                      near[0] ? near : "none");
}

bool cb_proc_read(cb_proc *pr, uint64_t addr, void *dst, size_t n) {
  uint64_t bad;
  if (cb_mem_read(&pr->mem, addr, dst, n, &bad))
    return true;
  cb_proc_fault(pr, bad, 1, false, pr->cur_site);
  return false;
}

bool cb_proc_write(cb_proc *pr, uint64_t addr, const void *src, size_t n) {
  uint64_t bad;
  if (cb_mem_write(&pr->mem, addr, src, n, &bad))
    return true;
  cb_proc_fault(pr, bad, 1, true, pr->cur_site);
  return false;
}

char *cb_proc_read_str(cb_proc *pr, uint64_t addr, size_t max, size_t *len) {
  size_t cap = 64, n = 0;
  char *s = malloc(cap);
  for (;;) {
    uint8_t *pp = cb_mem_ptr(&pr->mem, addr + n);
    if (!pp) {
      cb_proc_fault(pr, addr + n, 1, false, pr->cur_site);
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
