/* proc.c: the modelled process of one run (proc.h): its state before
 * main (memory, the heap and the hooks through which glibc's heap model
 * touches memory, the executable's image and the standard FILEs), and
 * after the run the outcome's output and files. */
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

/* ---- heap hooks ---- */

static void hk_access(void *ctx, uint64_t addr, unsigned size, bool w,
                      uint64_t v) {
  cb_proc *pr = ctx;
  uint8_t *pp = cb_mem_ptr(&pr->mem, addr);
  if (!pp)
    return;
  if (w)
    cb_mem_write(&pr->mem, addr, &v, size, NULL);
  cb_proc_lib(pr, addr, size, w);
}

static void hk_clear(void *ctx, uint64_t addr, uint64_t len) {
  cb_proc *pr = ctx;
  cb_mem_fill(&pr->mem, addr, 0, len, NULL);
  if (len > 9 * 8)
    cb_proc_memset_traffic(pr, addr, len);
  else
    cb_proc_lib(pr, addr, len, true);
}

static void hk_copy(void *ctx, uint64_t dst, uint64_t src, uint64_t len) {
  cb_proc *pr = ctx;
  cb_mem_move(&pr->mem, dst, src, len, NULL);
  cb_proc_memcpy_traffic(pr, dst, src, len);
}

static void hk_map(void *ctx, uint64_t lo, uint64_t hi, bool on) {
  cb_proc *pr = ctx;
  if (on)
    cb_mem_map(&pr->mem, lo, hi);
  else
    cb_mem_unmap(&pr->mem, lo, hi);
}

void cb_proc_init(cb_proc *pr, const cb_program *p,
                  const cb_engine_options *opt, cb_run_outcome *out,
                  cb_accbuf *acc, cb_kernel_stack *stack,
                  const cb_run_input *in) {
  pr->p = p;
  pr->opt = opt;
  pr->out = out;
  pr->acc = acc;
  pr->stack = stack;
  pr->cur_site = CB_NONE;
  pr->in_data = in->stdin_data;
  pr->in_len = in->stdin_data ? in->stdin_len : 0;
  pr->file_stdin = 0x7ff0000008a0ull;
  pr->file_stdout = 0x7ff000000780ull;
  pr->file_stderr = 0x7ff0000006a0ull;
  cb_mem_init(&pr->mem);
  cb_rand_seed(&pr->rng, 1);
  pr->libc_base = cb_eng_libc_base(p);
  /* valgrind's brk segment: one anonymous page and a reservation up to
   * min(RLIMIT_DATA, 8 MiB) (m_initimg's setup_client_dataseg); do_brk
   * (syswrap-generic.c) grows into the reservation, which must keep a
   * page (aspacemgr's am_extend_into_adjacent_reservation_client), so
   * the break ends 8 MiB - 4 KiB above its start (measured: brk0 +
   * 0x7fe000 granted, brk0 + 0x81f000 refused); past it glibc's sysmalloc
   * goes on in mmapped memory (heap.c). */
  cb_heap_config hc = {opt->heap_base, opt->mmap_base, 0x7ff000};
  cb_heap_hooks hk = {pr, hk_access, hk_clear, hk_copy, hk_map};
  pr->heap = cb_heap_new(&hc, &hk);
}

void cb_proc_setup_image(cb_proc *pr) {
  const cb_program *p = pr->p;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->lib_obj) {
      /* in a library's data, apart from the executable's image */
      cb_mem_map(&pr->mem, g->addr & ~(uint64_t)(CB_PG_SIZE - 1),
                 (g->addr + (g->size ? g->size : 1) + CB_PG_SIZE - 1) &
                     ~(uint64_t)(CB_PG_SIZE - 1));
      continue;
    }
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
    cb_mem_map(&pr->mem, lo & ~(uint64_t)(CB_PG_SIZE - 1),
               (hi + CB_PG_SIZE - 1) & ~(uint64_t)(CB_PG_SIZE - 1));
  /* the FILE objects: the frontend's _IO_2_1_std*_ when it placed them */
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (!g->name)
      continue;
    if (!strcmp(g->name, "_IO_2_1_stdout_"))
      pr->file_stdout = g->addr;
    else if (!strcmp(g->name, "_IO_2_1_stderr_"))
      pr->file_stderr = g->addr;
    else if (!strcmp(g->name, "_IO_2_1_stdin_"))
      pr->file_stdin = g->addr;
  }
  for (uint32_t i = 0; i < p->n_globals; i++) {
    const cb_global *g = &p->globals[i];
    if (g->init)
      cb_mem_write(&pr->mem, g->addr, g->init, g->size, NULL);
    if (g->name && !g->init && g->size == 8) {
      /* stdout and friends without an object: point at ours */
      uint64_t v = 0;
      if (!strcmp(g->name, "stdout"))
        v = pr->file_stdout;
      else if (!strcmp(g->name, "stderr"))
        v = pr->file_stderr;
      else if (!strcmp(g->name, "stdin"))
        v = pr->file_stdin;
      if (v)
        cb_mem_write(&pr->mem, g->addr, &v, 8, NULL);
    }
  }
}

void cb_proc_outcome(cb_proc *pr, cb_run_outcome *out) {
  out->out = pr->out_text.s ? pr->out_text.s : calloc(1, 1);
  out->out_len = pr->out_text.n;
  out->err = pr->err_text.s ? pr->err_text.s : calloc(1, 1);
  out->err_len = pr->err_text.n;
  cb_files_outcome(pr, out);
}

void cb_proc_free(cb_proc *pr) {
  cb_files_free(pr);
  cb_libc_time_free(pr);
  cb_mem_destroy(&pr->mem);
  cb_heap_free_model(pr->heap);
}
