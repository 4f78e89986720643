/* libc_frames.c: the stack frames glibc's own functions build below the
 * caller's rsp (saved registers, locals, return addresses of internal
 * calls). They are library traffic of the calling site; the caller's
 * `call` (return address at rsp - 8) and its read on return are emitted
 * by engine_frames.c.
 *
 * posix_memalign with an alignment above MALLOC_ALIGNMENT (glibc 2.36
 * malloc/malloc.c): __posix_memalign -> _mid_memalign -> _int_memalign
 * -> _int_malloc (the request padded by the alignment; a largebin-sized
 * request first runs malloc_consolidate when av->have_fastchunks), then
 * _int_memalign splits the block and hands the remainders to _int_free.
 * The offsets below the caller's rsp are those of Debian 12's libc.so.6
 * (pushes of callee-saved registers, locals, internal calls' return
 * addresses), measured with lackey (`valgrind --tool=lackey
 * --trace-mem=yes`, docs/process-model.md section 7) on the PolyBench
 * kernels' posix_memalign(&p, 4096, n) after the first call. _int_free's
 * frame (rsp - 0x98 .. rsp - 0xec) reuses _int_malloc's lines and is not
 * repeated. The first call's ld.so lazy binding is libc_dlfixup.c's. Not
 * modelled: malloc initialisation, sysmalloc's frame when the request extends
 * the heap or is mmapped, and memalign/aligned_alloc (same path without
 * __posix_memalign's frame; not measured). */
#include "libc_internal.h"

typedef struct {
  uint16_t off; /* below the caller's rsp */
  uint8_t len;
  uint8_t write;
} frame_acc;

#define W(o)                                                                   \
  { o, 8, 1 }
#define R(o)                                                                   \
  { o, 8, 0 }

/* down to _int_malloc's prologue */
static const frame_acc entry[] = {
    /* __posix_memalign: push r12, rbp, rbx; call _mid_memalign */
    W(0x10), W(0x18), W(0x20), W(0x28),
    /* _mid_memalign: push r13, r12, rbp; call _int_memalign */
    W(0x30), W(0x38), W(0x40), W(0x58),
    /* _int_memalign: push r15, r14, r13, r12, rbp, rbx; call _int_malloc */
    W(0x60), W(0x68), W(0x70), W(0x78), W(0x80), W(0x88), W(0x98),
    /* _int_malloc: push r15, r14, r13, r12, rbp, rbx */
    W(0xa0), W(0xa8), W(0xb0), W(0xb8), W(0xc0), W(0xc8)};

/* malloc_consolidate (called from _int_malloc): its frame, a local
 * re-read once per fastbin (NFASTBINS = 10) while it walks
 * av->fastbinsY, and its epilogue */
static const frame_acc consolidate[] = {
    W(0xf8),  W(0x100), W(0x108), W(0x110), W(0x118), W(0x120), W(0x128),
    W(0x158), R(0x158), R(0x158), R(0x158), R(0x158), R(0x158), R(0x158),
    R(0x158), R(0x158), R(0x158), R(0x158), R(0x128), R(0x120), R(0x118),
    R(0x110), R(0x108), R(0x100), R(0xf8)};

/* the rest of _int_malloc (locals, a helper's call) and the epilogues */
static const frame_acc leave[] = {W(0xe0),
                                  W(0xe8),
                                  {0xd8, 4, 1},
                                  R(0xe8),
                                  W(0xe8),
                                  R(0xe8),
                                  {0xd8, 4, 0},
                                  W(0xe8),
                                  W(0xf8),
                                  R(0xf8),
                                  R(0xe8),
                                  /* _int_malloc's epilogue */
                                  R(0xc8),
                                  R(0xc0),
                                  R(0xb8),
                                  R(0xb0),
                                  R(0xa8),
                                  R(0xa0),
                                  R(0x98),
                                  /* _int_memalign's */
                                  R(0x88),
                                  R(0x80),
                                  R(0x78),
                                  R(0x70),
                                  R(0x68),
                                  R(0x60),
                                  R(0x58),
                                  /* _mid_memalign's */
                                  R(0x40),
                                  R(0x38),
                                  R(0x30),
                                  R(0x28),
                                  /* __posix_memalign's */
                                  R(0x20),
                                  R(0x18),
                                  R(0x10)};

static void emit(cb_eng *e, uint64_t rsp, const frame_acc *a, size_t n) {
  for (size_t i = 0; i < n; i++)
    cb_eng_lib(e, rsp - a[i].off, a[i].len, a[i].write);
}

#define EMIT(e, rsp, t) emit(e, rsp, t, sizeof t / sizeof t[0])

void cb_libc_memalign_frame(cb_eng *e, bool consolidated) {
  if (!e->depth)
    return;
  uint64_t rsp = e->frames[e->depth - 1].sp;
  EMIT(e, rsp, entry);
  if (consolidated)
    EMIT(e, rsp, consolidate);
  EMIT(e, rsp, leave);
}
