/* native_run.h: runs the analysed program's own executable natively, for
 * its standard output. Slicing (slice.h) skips the values only printf
 * needs; when a printf prints one, its text is taken from this output
 * (libc_stdio.c), checked against every byte the model prints itself.
 * Internal to analysis/. */
#ifndef CBANA_ANALYSIS_NATIVE_RUN_H
#define CBANA_ANALYSIS_NATIVE_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

/* Runs exe with argv (argv[0] as the program sees it), an empty
 * environment, stdin_data as its standard input and stderr discarded;
 * returns what it wrote to stdout (malloc'ed, *len bytes, NUL ended) and,
 * if exit_status is not NULL, its exit status there; or NULL when it
 * could not run, was killed by a signal, wrote more than max_out bytes
 * or ran past timeout_s seconds (then it is killed).
 *
 * With bindings not NULL the environment holds ld.so's
 * LD_DEBUG=bindings (and LD_DEBUG_OUTPUT, a file in a private temporary
 * directory), and *bindings receives ld.so's log (malloc'ed, NUL ended;
 * NULL if none was written): a line "... normal symbol `sqrt' ..." for
 * every symbol ld.so bound, lazily bound PLT slots included, which is how
 * a sliced run learns whether the program ever called sqrt with a
 * negative argument (engine_frames.c).
 *
 * cancel, when not NULL, is watched while the program runs (every 20 ms
 * at least): once it is set the program is killed and NULL returned (a
 * run started ahead of need that turned out unneeded, driver_native.h).
 *
 * huge adds GLIBC_TUNABLES=glibc.malloc.hugetlb=1 (glibc 2.35 on; older
 * ones ignore it): malloc advises its mappings to be transparent huge
 * pages. The program's output cannot depend on it, and its large arrays
 * then take one page fault per 2 MiB (lu LARGE: 15.7 K -> 1.4 K faults,
 * 12.4 -> 10.7 s; gemm 0.46 -> 0.39 s; bench/results/fast_notes.md,
 * session 28), CPU that the analysis shares on two cores. */
char *cb_native_stdout(const char *exe, const char *const *argv,
                       const unsigned char *stdin_data, size_t stdin_len,
                       double timeout_s, size_t max_out, size_t *len,
                       int *exit_status, char **bindings, bool huge,
                       atomic_bool *cancel);

/* Whether ld.so's log (cb_native_stdout's *bindings) shows `symbol`
 * bound. */
bool cb_native_bound(const char *bindings, const char *symbol);

#endif
