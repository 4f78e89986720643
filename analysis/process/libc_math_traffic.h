/* libc_math_traffic.h: what glibc 2.36's libm functions read and write
 * inside a call (their frames and spills, the stack protector's canary,
 * .rodata constants and table entries, errno), as measured with lackey
 * for the FMA variants the host's IFUNCs choose; internal to the analysis
 * module, and the interface tests/unit/engine's engine_libm_traffic
 * checks against live lackey traces. A call's path and table indices
 * come from its arguments' bits as glibc's code computes them
 * (libc_math_traffic.c); the path's rows are tables generated from
 * lackey traces (tools/probe/libm_tables.py, libc_math_tables.h). */
#ifndef CBANA_LIBC_MATH_TRAFFIC_H
#define CBANA_LIBC_MATH_TRAFFIC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* S: the caller's rsp - off; M: libm + off; T: the thread pointer + off;
 * Z: the caller's rsp - off + idx[3] (a byte valgrind's `bt` reads);
 * X0..X3: libm + idx[k] + off (a table entry the path computes) */
enum {
  CB_LM_S,
  CB_LM_M,
  CB_LM_T,
  CB_LM_Z,
  CB_LM_X0,
  CB_LM_X1,
  CB_LM_X2,
  CB_LM_X3
};
#define CB_LM_NIDX 4

typedef struct cb_lm_row {
  uint8_t base, len, write;
  int32_t off;
} cb_lm_row;

/* fn's path on the arguments a (ret: the call's result, as the host's
 * libm gives it) and its table offsets from libm's base; -1 when the
 * path is not modelled */
int cb_libm_path(uint32_t fn, const double *a, double ret,
                 uint32_t idx[CB_LM_NIDX]);
/* the rows of fn's path; NULL when none was measured */
const cb_lm_row *cb_libm_rows(uint32_t fn, int path, size_t *n);

#endif
