/* libc_build.h: whether the program's C library is the build the library
 * model's addresses were measured in (libc_build.c). Internal to
 * analysis/. */
#ifndef CBANA_ANALYSIS_LIBC_BUILD_H
#define CBANA_ANALYSIS_LIBC_BUILD_H

#include "cbana/program.h"

/* NULL when it is, else a note saying which library differs and what that
 * means for the report (malloc'ed). */
char *cb_library_build_note(const cb_program *p);

#endif
