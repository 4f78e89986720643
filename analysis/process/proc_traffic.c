/* proc_traffic.c: the access batch (proc.h's cb_accbuf), and the C
 * library's own traffic (attributed to the running call's site): word by
 * word, bulk, and glibc's memset and memcpy/memmove access by access. */
#include <stdlib.h>
#include <string.h>

#include "libc_internal.h"

void cb_acc_flush(cb_accbuf *b) {
  if (b->nbatch && b->sink && b->sink->fn)
    b->sink->fn(b->sink->ctx, b->batch, b->nbatch);
  b->nbatch = 0;
  /* An area is taken at the next access, not now: the sink may receive a
   * block or an allocation mark first, which would overwrite it. */
  b->cap = 0;
}

void cb_acc_next(cb_accbuf *b) {
  cb_acc_flush(b);
  b->stream_records = b->sink && b->sink->fn && b->sink->area;
  if (b->stream_records) {
    b->batch = b->sink->area(b->sink->ctx, &b->cap);
  } else {
    b->batch = b->own_batch;
    b->cap = CB_ENGINE_BATCH;
  }
}

void cb_proc_lib(cb_proc *pr, uint64_t addr, uint64_t len, bool is_write) {
  if (__builtin_expect(pr->lib_mute_stdout, 0)) {
    if (addr >= pr->lib_mute_lo && addr < pr->lib_mute_hi)
      return;
    if (pr->stdout_buf && addr >= pr->stdout_buf &&
        addr < pr->stdout_buf + 4096)
      return;
  }
  while (len) {
    uint32_t n = len > 8 ? 8 : (uint32_t)len;
    cb_proc_emit(pr, addr, n, pr->cur_site, is_write);
    if (is_write)
      pr->out->lib_writes++;
    else
      pr->out->lib_reads++;
    addr += n;
    len -= n;
  }
}

/* glibc 2.36 on x86-64 as valgrind 3.19 runs it (AVX2 and ERMS
 * variants): small blocks move with 32-byte vector accesses and large
 * ones with `rep movsb/stosb`, which cachegrind counts byte by byte. The
 * sequences are those measured in docs/process-model.md, section 4. */
static inline void lib1(cb_proc *pr, uint64_t a, uint32_t n, bool w) {
  cb_proc_emit(pr, a, n, pr->cur_site, w);
  if (w)
    pr->out->lib_writes++;
  else
    pr->out->lib_reads++;
}

/* Library loops of this many accesses and up travel as one affine block
 * (stream.h), as template loops do (template_run.c): rep movsb's bytes
 * were most of durbin's stream, record by record. */
#define LIB_MIN_BLOCK 64

/* n_iter iterations of the accesses acc[0 .. n) (their sites set here),
 * exactly the records lib1 would emit in that order: one affine block
 * when the sink takes blocks and the loop is long enough, else record by
 * record. */
static void lib_loop(cb_proc *pr, cb_affine_access *acc, uint32_t n,
                     uint64_t n_iter) {
  for (uint32_t j = 0; j < n; j++) {
    acc[j].site = pr->cur_site;
    if (acc[j].is_write)
      pr->out->lib_writes += n_iter;
    else
      pr->out->lib_reads += n_iter;
  }
  if (pr->acc->sink && pr->acc->sink->affine && n_iter * n >= LIB_MIN_BLOCK) {
    cb_acc_flush(pr->acc);
    cb_affine_block blk = {n_iter, n, acc};
    pr->acc->sink->affine(pr->acc->sink->ctx, &blk);
    return;
  }
  for (uint64_t t = 0; t < n_iter; t++)
    for (uint32_t j = 0; j < n; j++)
      cb_proc_emit(pr, acc[j].base + t * (uint64_t)acc[j].stride, acc[j].size,
                   pr->cur_site, acc[j].is_write);
}

/* One access of a library loop: the t-th is at base + t * stride. */
static cb_affine_access lib_acc(uint64_t base, int64_t stride, uint16_t size,
                                bool is_write) {
  return (cb_affine_access){
      .base = base, .stride = stride, .size = size, .is_write = is_write};
}

/* Steps of `step` bytes from p while p < limit (0 if p >= limit). */
static uint64_t steps_below(uint64_t p, uint64_t limit, uint64_t step) {
  return p < limit ? (limit - p + step - 1) / step : 0;
}

void cb_proc_lib_bulk(cb_proc *pr, uint64_t addr, uint64_t len, bool is_write) {
  /* a plain sweep (reads of strings and the like) */
  while (len) {
    uint32_t n = len > 32 ? 32 : (uint32_t)len;
    lib1(pr, addr, n, is_write);
    addr += n;
    len -= n;
  }
}

/* Variables of glibc 2.36 (Debian 12's libc.so.6) that its string
 * functions read, as offsets from libc's load address (measured with
 * lackey, docs/process-model.md section 4). */
#define LIBC_MEMSET_THRESHOLD 0x1d33d0ull /* __x86_rep_stosb_threshold */
#define LIBC_MOVSB_THRESHOLD 0x1d33d8ull  /* __x86_rep_movsb_threshold */
#define LIBC_STRING_CONTROL 0x1da540ull   /* __x86_string_control (4 B) */
#define LIBC_MOVSB_STOP 0x1da548ull       /* __x86_rep_movsb_stop_threshold */
#define LIBC_NT_THRESHOLD 0x1da550ull     /* non-temporal threshold */

void cb_proc_memset_traffic(cb_proc *pr, uint64_t d, uint64_t n) {
  if (n == 0)
    return;
  /* the thresholds the program meets (engine.h; cb_engine_run fills the
   * fields the driver did not measure) */
  const uint64_t stosb = pr->opt->glibc.stosb;
  if (n > 64 && pr->libc_base)
    lib1(pr, pr->libc_base + LIBC_MEMSET_THRESHOLD, 8, false);
  if (n == 1) {
    lib1(pr, d, 1, true);
  } else if (n <= 3) {
    lib1(pr, d, 1, true);
    lib1(pr, d + 1, 1, true);
    lib1(pr, d + n - 1, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    lib1(pr, d, k, true);
    lib1(pr, d + n - k, k, true);
  } else if (n <= 128) {
    lib1(pr, d, 32, true);
    lib1(pr, d + 32, 32, true);
    lib1(pr, d + n - 64, 32, true);
    lib1(pr, d + n - 32, 32, true);
  } else if (n <= stosb) {
    for (int i = 0; i < 4; i++)
      lib1(pr, d + 32 * (uint64_t)i, 32, true);
    if (n > 256) {
      /* at least once, then while p < d + n - 128 */
      uint64_t p = (d + 128) & ~31ull;
      uint64_t k = steps_below(p + 128, d + n - 128, 128) + 1;
      cb_affine_access acc[4];
      for (int i = 0; i < 4; i++)
        acc[i] = lib_acc(p + 32 * (uint64_t)i, 128, 32, true);
      lib_loop(pr, acc, 4, k);
    }
    uint64_t end = d + n - 128;
    for (int i = 0; i < 4; i++)
      lib1(pr, end + 32 * (uint64_t)i, 32, true);
  } else {
    cb_affine_access acc = lib_acc(d, 1, 1, true);
    lib_loop(pr, &acc, 1, n);
  }
}

static void vec_loop(cb_proc *pr, uint64_t d, uint64_t s, uint64_t n,
                     bool backward) {
  /* glibc's 4 x 32-byte loop: edge vectors, the aligned body, edges */
  if (!backward) {
    lib1(pr, s, 32, false);
    for (int i = 1; i <= 4; i++)
      lib1(pr, s + n - 32 * (uint64_t)i, 32, false);
    uint64_t p = (d + 32) & ~31ull;
    cb_affine_access acc[8];
    for (int i = 0; i < 4; i++) {
      acc[i] = lib_acc(s + (p - d) + 32 * (uint64_t)i, 128, 32, false);
      acc[4 + i] = lib_acc(p + 32 * (uint64_t)i, 128, 32, true);
    }
    lib_loop(pr, acc, 8, steps_below(p, d + n - 128, 128));
    for (int i = 1; i <= 4; i++)
      lib1(pr, d + n - 32 * (uint64_t)i, 32, true);
    lib1(pr, d, 32, true);
  } else {
    lib1(pr, s + n - 32, 32, false);
    for (int i = 0; i < 4; i++)
      lib1(pr, s + 32 * (uint64_t)i, 32, false);
    /* while p > d + 128, stepping down by 128 (and not below 0: the
     * loop stops after the step that would wrap) */
    uint64_t p = (d + n - 32) & ~31ull;
    uint64_t k = p > d + 128 ? (p - d - 128 + 127) / 128 : 0;
    if (k > 0 && p / 128 < k - 1)
      k = p / 128 + 1;
    cb_affine_access acc[8];
    for (int i = 0; i < 4; i++) {
      acc[i] = lib_acc(s + (p - d) - 32 * (uint64_t)i, -128, 32, false);
      acc[4 + i] = lib_acc(p - 32 * (uint64_t)i, -128, 32, true);
    }
    lib_loop(pr, acc, 8, k);
    for (int i = 0; i < 4; i++)
      lib1(pr, d + 32 * (uint64_t)i, 32, true);
    lib1(pr, d + n - 32, 32, true);
  }
}

void cb_proc_memcpy_traffic(cb_proc *pr, uint64_t d, uint64_t s, uint64_t n) {
  if (n == 0)
    return;
  const cb_glibc_thresholds t = pr->opt->glibc;
  if (n > 64 && pr->libc_base) {
    /* the tunables the size classes compare with */
    uint64_t L = pr->libc_base;
    bool overlap_up = d - s < n;
    lib1(pr, L + LIBC_MOVSB_THRESHOLD, 8, false);
    if (n > t.movsb && !overlap_up) {
      lib1(pr, L + LIBC_MOVSB_STOP, 8, false);
      if (n < t.movsb_stop)
        lib1(pr, L + LIBC_STRING_CONTROL, 4, false);
      else
        lib1(pr, L + LIBC_NT_THRESHOLD, 8, false);
    } else if (n > 256 && !overlap_up) {
      lib1(pr, L + LIBC_NT_THRESHOLD, 8, false);
    }
  }
  if (n == 1) {
    lib1(pr, s, 1, false);
    lib1(pr, d, 1, true);
  } else if (n <= 3) {
    lib1(pr, s, 1, false);
    lib1(pr, s + n - 2, 2, false);
    lib1(pr, d + n - 2, 2, true);
    lib1(pr, d, 1, true);
  } else if (n <= 64) {
    uint32_t k = n < 8 ? 4 : n < 16 ? 8 : n < 32 ? 16 : 32;
    lib1(pr, s, k, false);
    lib1(pr, s + n - k, k, false);
    lib1(pr, d, k, true);
    lib1(pr, d + n - k, k, true);
  } else if (n <= 256) {
    int v = n <= 128 ? 2 : 4;
    for (int i = 0; i < v; i++)
      lib1(pr, s + 32 * (uint64_t)i, 32, false);
    for (int i = 1; i <= v; i++)
      lib1(pr, s + n - 32 * (uint64_t)i, 32, false);
    for (int i = 0; i < v; i++)
      lib1(pr, d + 32 * (uint64_t)i, 32, true);
    for (int i = 1; i <= v; i++)
      lib1(pr, d + n - 32 * (uint64_t)i, 32, true);
  } else {
    bool overlap_up = d - s < n; /* unsigned: d > s, overlapping */
    bool alias4k = ((d - s) & 0xf00) == 0;
    /* rep movsb between its threshold and its stop; past the stop,
     * non-temporal stores from the non-temporal threshold, else the
     * loop (equal thresholds on the machines measured) */
    if (n <= t.movsb || overlap_up || (n >= t.movsb_stop && n < t.nt)) {
      vec_loop(pr, d, s, n, overlap_up || alias4k);
    } else if (n < t.movsb_stop) {
      lib1(pr, s, 32, false);
      lib1(pr, s + 32, 32, false);
      uint64_t base = ((d - s) & 0xe00) == 0 ? s : d;
      uint64_t o = 64 - (base & 63);
      if (n > o) {
        cb_affine_access acc[2] = {lib_acc(s + o, 1, 1, false),
                                   lib_acc(d + o, 1, 1, true)};
        lib_loop(pr, acc, 2, n - o);
      }
      lib1(pr, d, 32, true);
      lib1(pr, d + 32, 32, true);
    } else {
      cb_affine_access acc[2] = {lib_acc(s, 32, 32, false),
                                 lib_acc(d, 32, 32, true)};
      lib_loop(pr, acc, 2, (n + 31) / 32);
    }
  }
}
