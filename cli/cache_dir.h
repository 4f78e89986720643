/* cache_dir.h: cbana's own cache directory, resolved once per run and
 * handed to the frontend (link lines, the process probes) and to the
 * analysis (the process traces, glibc's thresholds). */
#ifndef CBANA_CLI_CACHE_DIR_H
#define CBANA_CLI_CACHE_DIR_H

/* $XDG_CACHE_HOME/cbana, else $HOME/.cache/cbana, made with its parents;
 * when neither can be made (HOME unset or not writable, as for a service
 * account), $TMPDIR (or /tmp)/cbana-cache-UID. NULL when none can be
 * made: nothing is then kept, and the process is not modelled. */
const char *cb_cli_cache_dir(void);

#endif
