/* glibc_tunables.h: the size thresholds of glibc's memcpy and memset as
 * the analysed program will meet them under valgrind on this machine
 * (cb_glibc_thresholds, engine.h). They depend on the CPU valgrind
 * presents, so they are measured once per machine by running
 * cbana-glibc-probe (glibc_probe.c) under `valgrind --tool=none`, and
 * kept in cbana's cache directory. Internal to analysis/. */
#ifndef CBANA_ANALYSIS_GLIBC_TUNABLES_H
#define CBANA_ANALYSIS_GLIBC_TUNABLES_H

#include "cbana/engine.h"

/* The thresholds for this machine: from cache_dir when its key (the
 * valgrind and libc files, the CPU's model and flags) still matches,
 * else measured and kept there (cache_dir NULL: measured each time);
 * where they cannot be measured (no valgrind, no probe beside cbana,
 * another libc), zeros: the engine then takes those of
 * docs/process-model.md section 4. */
void cb_glibc_thresholds_load(cb_glibc_thresholds *t, const char *cache_dir);

#endif
