/* libc_rand.c: the C library model's random numbers beyond the values
 * of rand.c: the traffic of glibc 2.36's rand()/random()/srand() in
 * libc's data (randtbl, unsafe_state, their lock) and the *rand48 family
 * (drand48 ... lcong48: values, their state in libc's .bss, traffic).
 *
 * Addresses are offsets from libc.so.6's load address in Debian 12's
 * glibc 2.36 (libc6 2.36-9+deb12u*, build id 93ac61ec...; symbols from
 * libc6-dbg); the access sequences, stack frames included, are lackey
 * traces of each function after its first call (`valgrind --tool=lackey
 * --trace-mem=yes`), relative to the caller's return-address slot (ra).
 * A read-modify-write (lock cmpxchg) is one read, as cachegrind counts
 * it. The canary of Debian's stack protector is read at %fs:0x28. */
#include <string.h>

#include "libc_internal.h"

/* stdlib/random.c and random_r.c */
#define RANDTBL_STATE 0x1d31e4ull /* &randtbl[1]: the 31 words of TYPE_3 */
#define UNSAFE_STATE 0x1d3840ull  /* struct random_data unsafe_state */
#define RANDOM_LOCK 0x1d573cull   /* __libc_lock_define_initialized lock */
/* stdlib/drand48.c ...: struct drand48_data __libc_drand48_data */
#define DRAND48_DATA 0x1d56f0ull
/* .rodata constants the rand48 functions load: 0x0001000b (__c = 0xb
 * with __init = 1 in one store) and 1.0 (erand48_r's temp.d - 1.0) */
#define RODATA_C_INIT 0x1a1818ull
#define RODATA_ONE 0x1a1110ull
/* the thread pointer in the page after the last library (layout.c), and
 * the stack protector's canary at %fs:0x28 */
#define TP_IN_TCB_PAGE 0x740ull
#define LIBC_SPAN 0x1e2000ull

/* One access of exactly n bytes. */
void cb_libc_acc(cb_proc *pr, uint64_t a, uint32_t n, bool w) {
  cb_proc_emit(pr, a, n, pr->cur_site, w);
  if (w)
    pr->out->lib_writes++;
  else
    pr->out->lib_reads++;
}
#define R(a, n) cb_libc_acc(pr, a, n, false)
#define W(a, n) cb_libc_acc(pr, a, n, true)

uint64_t cb_libc_canary(const cb_proc *pr) {
  uint64_t tcb = pr->dl ? pr->dl_tcb : pr->libc_base + LIBC_SPAN;
  return tcb + TP_IN_TCB_PAGE + 0x28;
}

/* The caller's return-address slot (engine_frames.c writes it). */
static uint64_t ra_slot(const cb_proc *pr) {
  return cb_proc_top(pr)->sp - 8;
}

/* random() (rand() adds its own frame around it): the lock, random_r's
 * reads of unsafe_state (rand_type, state, fptr, rptr, end_ptr), *rptr,
 * *fptr and its update, the result through the stack, the pointers'
 * stores and the unlock. pos: the words of the state random_r is at
 * (rptr = state + pos, fptr = state + (pos + 3) % 31). */
void cb_libc_random_traffic(cb_proc *pr, bool via_rand, unsigned pos) {
  if (!pr->libc_base)
    return;
  uint64_t L = pr->libc_base, ra = ra_slot(pr), fs28 = cb_libc_canary(pr);
  uint64_t U = L + UNSAFE_STATE, S = L + RANDTBL_STATE;
  uint64_t rptr = S + 4 * (uint64_t)(pos % 31);
  uint64_t fptr = S + 4 * (uint64_t)((pos + 3) % 31);
  uint64_t f = ra; /* random's frame: rand's call pushes below ra */
  if (via_rand) {
    W(ra - 0x10, 8); /* rand: sub $8, %rsp; call __random */
    f = ra - 0x10;
  }
  R(fs28, 8);
  W(f - 0x10, 8); /* the canary's copy */
  R(L + RANDOM_LOCK, 4);
  W(f - 0x20, 8); /* call __random_r */
  R(U + 0x18, 4); /* rand_type */
  R(U + 0x10, 8); /* state */
  R(U + 0x00, 8); /* fptr */
  R(U + 0x08, 8); /* rptr */
  R(U + 0x28, 8); /* end_ptr */
  R(rptr, 4);
  R(fptr, 4);
  W(fptr, 4);
  W(f - 0x14, 4); /* *result */
  W(U + 0x08, 8);
  W(U + 0x00, 8);
  R(f - 0x20, 8); /* random_r's ret */
  R(L + RANDOM_LOCK, 4);
  R(L + RANDOM_LOCK, 4); /* the unlock's xchg */
  R(f - 0x14, 4);
  R(f - 0x10, 8);
  R(fs28, 8);
  if (via_rand)
    R(ra - 0x10, 8); /* random's ret into rand */
}

/* srand(seed) = srandom: __srandom_r writes the 31 words from the seed
 * (Park-Miller), sets fptr and rptr, and discards 310 outputs with
 * random_r's loop inlined. */
void cb_libc_srand_traffic(cb_proc *pr) {
  if (!pr->libc_base)
    return;
  uint64_t L = pr->libc_base, ra = ra_slot(pr);
  uint64_t U = L + UNSAFE_STATE, S = L + RANDTBL_STATE;
  W(ra - 0x8, 8);
  R(L + RANDOM_LOCK, 4);
  W(ra - 0x10, 8);
  R(U + 0x18, 4);
  R(U + 0x10, 8);
  W(S, 4);
  R(U + 0x1c, 4); /* rand_deg */
  for (int i = 1; i < 31; i++)
    W(S + 4 * (uint64_t)i, 4);
  R(U + 0x20, 4);  /* rand_sep */
  W(U + 0x00, 16); /* fptr and rptr in one store */
  for (unsigned k = 0; k < 310; k++) {
    R(U + 0x18, 4);
    R(U + 0x08, 8);
    R(U + 0x00, 8);
    R(U + 0x28, 8);
    R(S + 4 * (uint64_t)(k % 31), 4);
    R(S + 4 * (uint64_t)((k + 3) % 31), 4); /* *fptr += *rptr */
    W(U + 0x00, 8);
    W(U + 0x08, 8);
  }
  R(ra - 0x10, 8);
  R(L + RANDOM_LOCK, 4);
  R(L + RANDOM_LOCK, 4);
  R(ra - 0x8, 8);
}

/* ---- the rand48 family (stdlib/drand48-iter.c, erand48_r.c ...) ---- */

/* struct drand48_data: __x[3] at 0, __old_x[3] at 6, __c at 12, __init
 * at 14, __a at 16 */
typedef struct d48 {
  uint16_t x[3], old_x[3], c, init;
  uint64_t a;
} d48;

static uint64_t d48_addr(cb_proc *pr) {
  uint64_t D = pr->libc_base + DRAND48_DATA;
  if (!cb_mem_mapped(&pr->mem, D))
    cb_mem_map(&pr->mem, D & ~(uint64_t)(CB_PG_SIZE - 1),
               (D + sizeof(d48) + CB_PG_SIZE - 1) &
                   ~(uint64_t)(CB_PG_SIZE - 1));
  return D;
}

static void d48_get(cb_proc *pr, d48 *d) {
  cb_mem_read(&pr->mem, d48_addr(pr), d, sizeof *d, NULL);
}

static void d48_put(cb_proc *pr, const d48 *d) {
  cb_mem_write(&pr->mem, d48_addr(pr), d, sizeof *d, NULL);
}

/* __drand48_iterate on xsubi (at X in the modelled memory, or the
 * buffer's own __x), with the prologue and epilogue traffic of
 * [ljm]rand48 / [nje]rand48 (one shape, measured for each): kind 'l'
 * (nrand48_r: x[2] << 15 | x[1] >> 1), 'm' (jrand48_r: the upper 32
 * bits, signed), 'd' (erand48_r: a double in [0, 1)). */
static cb_stop rand48_step(cb_proc *pr, uint64_t X, bool own, char kind,
                           cb_value *ret) {
  uint64_t L = pr->libc_base, ra = ra_slot(pr), fs28 = cb_libc_canary(pr);
  uint64_t D = d48_addr(pr);
  d48 d;
  d48_get(pr, &d);
  uint16_t x[3];
  if (own)
    memcpy(x, d.x, 6);
  else if (!cb_proc_read(pr, X, x, 6))
    return CB_FAIL;
  if (own)
    X = D;
  R(fs28, 8);
  W(ra - 0x10, 8);
  W(ra - 0x20, 8);
  W(ra - 0x28, 8);
  W(ra - 0x30, 8);
  W(ra - 0x40, 8);
  R(D + 14, 2); /* __init */
  if (!d.init) {
    d.a = 0x5deece66dull;
    d.c = 0xb;
    d.init = 1;
    R(L + RODATA_C_INIT, 4);
    W(D + 16, 8);
    W(D + 12, 4);
  } else {
    R(D + 16, 8);
    R(D + 12, 2);
  }
  R(X + 4, 2);
  R(X + 0, 2);
  R(X + 2, 2);
  uint64_t v = (uint64_t)x[2] << 32 | (uint32_t)x[1] << 16 | x[0];
  uint64_t r = v * d.a + d.c;
  x[0] = (uint16_t)r;
  x[1] = (uint16_t)(r >> 16);
  x[2] = (uint16_t)(r >> 32);
  W(X + 0, 4);
  W(X + 4, 2);
  R(ra - 0x40, 8);
  if (kind == 'l') {
    R(X + 2, 2);
    R(X + 4, 2);
    ret[0].s = (int64_t)((uint32_t)x[2] << 15 | (uint32_t)x[1] >> 1);
  } else if (kind == 'm') {
    R(X + 2, 4);
    ret[0].s = (int32_t)((uint32_t)x[2] << 16 | x[1]);
  } else {
    R(X + 2, 2);
    R(X + 4, 2);
    R(X + 0, 2);
    R(L + RODATA_ONE, 8);
    /* the IEEE 754 double 1.x with x[2], x[1], x[0] as the fraction's
     * upper 48 bits, minus 1.0 */
    uint64_t bits = 0x3ff0000000000000ull | (uint64_t)x[2] << 36 |
                    (uint64_t)x[1] << 20 | (uint64_t)x[0] << 4;
    double one;
    memcpy(&one, &bits, 8);
    ret[0].d = one - 1.0;
  }
  W(ra - 0x18, 8);
  R(ra - 0x30, 8);
  R(ra - 0x28, 8);
  R(ra - 0x20, 8);
  R(ra - 0x18, 8);
  R(ra - 0x10, 8);
  R(fs28, 8);
  if (own) {
    memcpy(d.x, x, 6);
  } else if (!cb_proc_write(pr, X, x, 6)) {
    return CB_FAIL;
  }
  d48_put(pr, &d);
  return CB_GO;
}

cb_stop cb_libc_rand48_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                            cb_value *ret) {
  uint64_t L = pr->libc_base, ra = ra_slot(pr);
  switch ((cb_libfn)fn) {
  case CB_LIBC_DRAND48:
    return rand48_step(pr, 0, true, 'd', ret);
  case CB_LIBC_LRAND48:
    return rand48_step(pr, 0, true, 'l', ret);
  case CB_LIBC_MRAND48:
    return rand48_step(pr, 0, true, 'm', ret);
  case CB_LIBC_ERAND48:
    return rand48_step(pr, a[0].u, false, 'd', ret);
  case CB_LIBC_NRAND48:
    return rand48_step(pr, a[0].u, false, 'l', ret);
  case CB_LIBC_JRAND48:
    return rand48_step(pr, a[0].u, false, 'm', ret);
  default:
    break;
  }
  uint64_t D = d48_addr(pr);
  d48 d;
  d48_get(pr, &d);
  switch ((cb_libfn)fn) {
  case CB_LIBC_SRAND48: {
    /* srand48_r: a long's low 32 bits */
    uint32_t s = (uint32_t)a[0].u;
    d.x[2] = (uint16_t)(s >> 16);
    d.x[1] = (uint16_t)s;
    d.x[0] = 0x330e;
    W(D + 2, 4);
    W(D + 0, 2);
    W(D + 16, 8);
    R(L + RODATA_C_INIT, 4);
    W(D + 12, 4);
    break;
  }
  case CB_LIBC_SEED48: {
    uint16_t s[3];
    if (!cb_proc_read(pr, a[0].u, s, 6))
      return CB_FAIL;
    W(ra - 0x10, 8);
    R(D + 0, 4);
    W(D + 6, 4);
    R(D + 4, 2);
    W(D + 10, 2);
    R(a[0].u + 4, 2);
    W(D + 4, 2);
    R(a[0].u + 2, 2);
    W(D + 2, 2);
    R(a[0].u + 0, 2);
    W(D + 0, 2);
    W(D + 16, 8);
    R(L + RODATA_C_INIT, 4);
    W(D + 12, 4);
    R(ra - 0x10, 8);
    memcpy(d.old_x, d.x, 6);
    memcpy(d.x, s, 6);
    ret[0].u = D + 6; /* the previous __x, in libc's data */
    break;
  }
  case CB_LIBC_LCONG48: {
    uint16_t p[7];
    if (!cb_proc_read(pr, a[0].u, p, 14))
      return CB_FAIL;
    uint64_t P = a[0].u;
    R(P + 0, 4);
    W(D + 0, 4);
    R(P + 4, 2);
    W(D + 4, 2);
    R(P + 10, 2);
    R(P + 6, 2);
    R(P + 8, 2);
    W(D + 16, 8);
    R(P + 12, 2);
    W(D + 12, 2);
    W(D + 14, 2);
    memcpy(d.x, p, 6);
    d.a = (uint64_t)p[5] << 32 | (uint32_t)p[4] << 16 | p[3];
    d.c = p[6];
    break;
  }
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is no rand48 function", fn);
  }
  if (fn != CB_LIBC_LCONG48) {
    d.a = 0x5deece66dull;
    d.c = 0xb;
  }
  d.init = 1;
  d48_put(pr, &d);
  return CB_GO;
}
