/* engine_libtraffic.c: access emission, and the C library's own traffic
 * (attributed to the running call's site): word by word, bulk, and
 * glibc's memset and memcpy/memmove access by access. */
#include <stdlib.h>
#include <string.h>

#include "engine_internal.h"

void cb_eng_flush(cb_eng *e) {
  if (e->nbatch && e->sink && e->sink->fn)
    e->sink->fn(e->sink->ctx, e->batch, e->nbatch);
  e->nbatch = 0;
  /* An area is taken at the next access, not now: the sink may receive a
   * block or an allocation mark first, which would overwrite it. */
  e->cap = 0;
}

void cb_eng_next_batch(cb_eng *e) {
  cb_eng_flush(e);
  e->stream_records = e->sink && e->sink->fn && e->sink->area;
  if (e->stream_records) {
    e->batch = e->sink->area(e->sink->ctx, &e->cap);
  } else {
    e->batch = e->own_batch;
    e->cap = CB_ENGINE_BATCH;
  }
}

void cb_eng_lib(cb_eng *e, uint64_t addr, uint64_t len, bool is_write) {
  if (__builtin_expect(e->lib_mute_stdout, 0)) {
    if (addr >= e->lib_mute_lo && addr < e->lib_mute_hi)
      return;
    if (e->stdout_buf && addr >= e->stdout_buf && addr < e->stdout_buf + 4096)
      return;
  }
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

/* Library loops of this many accesses and up travel as one affine block
 * (stream.h), as template loops do (template_run.c): rep movsb's bytes
 * were most of durbin's stream, record by record. */
#define LIB_MIN_BLOCK 64

/* n_iter iterations of the accesses acc[0 .. n) (their sites set here),
 * exactly the records lib1 would emit in that order: one affine block
 * when the sink takes blocks and the loop is long enough, else record by
 * record. */
static void lib_loop(cb_eng *e, cb_affine_access *acc, uint32_t n,
                     uint64_t n_iter) {
  for (uint32_t j = 0; j < n; j++) {
    acc[j].site = e->cur_site;
    if (acc[j].is_write)
      e->out->lib_writes += n_iter;
    else
      e->out->lib_reads += n_iter;
  }
  if (e->sink && e->sink->affine && n_iter * n >= LIB_MIN_BLOCK) {
    cb_eng_flush(e);
    cb_affine_block blk = {n_iter, n, acc};
    e->sink->affine(e->sink->ctx, &blk);
    return;
  }
  for (uint64_t t = 0; t < n_iter; t++)
    for (uint32_t j = 0; j < n; j++)
      cb_eng_emit(e, acc[j].base + t * (uint64_t)acc[j].stride, acc[j].size,
                  e->cur_site, acc[j].is_write);
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
#define LIBC_MEMSET_THRESHOLD 0x1d33d0ull /* __x86_rep_stosb_threshold */
#define LIBC_MOVSB_THRESHOLD 0x1d33d8ull  /* __x86_rep_movsb_threshold */
#define LIBC_STRING_CONTROL 0x1da540ull   /* __x86_string_control (4 B) */
#define LIBC_MOVSB_STOP 0x1da548ull       /* __x86_rep_movsb_stop_threshold */
#define LIBC_NT_THRESHOLD 0x1da550ull     /* non-temporal threshold */

void cb_eng_memset_traffic(cb_eng *e, uint64_t d, uint64_t n) {
  if (n == 0)
    return;
  /* the thresholds the program meets (engine.h; cb_engine_run fills the
   * fields the driver did not measure) */
  const uint64_t stosb = e->opt.glibc.stosb;
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
  } else if (n <= stosb) {
    for (int i = 0; i < 4; i++)
      lib1(e, d + 32 * (uint64_t)i, 32, true);
    if (n > 256) {
      /* at least once, then while p < d + n - 128 */
      uint64_t p = (d + 128) & ~31ull;
      uint64_t k = steps_below(p + 128, d + n - 128, 128) + 1;
      cb_affine_access acc[4];
      for (int i = 0; i < 4; i++)
        acc[i] = lib_acc(p + 32 * (uint64_t)i, 128, 32, true);
      lib_loop(e, acc, 4, k);
    }
    uint64_t end = d + n - 128;
    for (int i = 0; i < 4; i++)
      lib1(e, end + 32 * (uint64_t)i, 32, true);
  } else {
    cb_affine_access acc = lib_acc(d, 1, 1, true);
    lib_loop(e, &acc, 1, n);
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
    cb_affine_access acc[8];
    for (int i = 0; i < 4; i++) {
      acc[i] = lib_acc(s + (p - d) + 32 * (uint64_t)i, 128, 32, false);
      acc[4 + i] = lib_acc(p + 32 * (uint64_t)i, 128, 32, true);
    }
    lib_loop(e, acc, 8, steps_below(p, d + n - 128, 128));
    for (int i = 1; i <= 4; i++)
      lib1(e, d + n - 32 * (uint64_t)i, 32, true);
    lib1(e, d, 32, true);
  } else {
    lib1(e, s + n - 32, 32, false);
    for (int i = 0; i < 4; i++)
      lib1(e, s + 32 * (uint64_t)i, 32, false);
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
    lib_loop(e, acc, 8, k);
    for (int i = 0; i < 4; i++)
      lib1(e, d + 32 * (uint64_t)i, 32, true);
    lib1(e, d + n - 32, 32, true);
  }
}

void cb_eng_memcpy_traffic(cb_eng *e, uint64_t d, uint64_t s, uint64_t n) {
  if (n == 0)
    return;
  const cb_glibc_thresholds t = e->opt.glibc;
  if (n > 64 && e->libc_base) {
    /* the tunables the size classes compare with */
    uint64_t L = e->libc_base;
    bool overlap_up = d - s < n;
    lib1(e, L + LIBC_MOVSB_THRESHOLD, 8, false);
    if (n > t.movsb && !overlap_up) {
      lib1(e, L + LIBC_MOVSB_STOP, 8, false);
      if (n < t.movsb_stop)
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
    /* rep movsb between its threshold and its stop; past the stop,
     * non-temporal stores from the non-temporal threshold, else the
     * loop (equal thresholds on the machines measured) */
    if (n <= t.movsb || overlap_up || (n >= t.movsb_stop && n < t.nt)) {
      vec_loop(e, d, s, n, overlap_up || alias4k);
    } else if (n < t.movsb_stop) {
      lib1(e, s, 32, false);
      lib1(e, s + 32, 32, false);
      uint64_t base = ((d - s) & 0xe00) == 0 ? s : d;
      uint64_t o = 64 - (base & 63);
      if (n > o) {
        cb_affine_access acc[2] = {lib_acc(s + o, 1, 1, false),
                                   lib_acc(d + o, 1, 1, true)};
        lib_loop(e, acc, 2, n - o);
      }
      lib1(e, d, 32, true);
      lib1(e, d + 32, 32, true);
    } else {
      cb_affine_access acc[2] = {lib_acc(s, 32, 32, false),
                                 lib_acc(d, 32, 32, true)};
      lib_loop(e, acc, 2, (n + 31) / 32);
    }
  }
}
