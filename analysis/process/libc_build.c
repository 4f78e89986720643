/* libc_build.c: which build of the C library the model's addresses
 * belong to. The library model (libc_*.c, proc_traffic.c,
 * libc_dlfixup.c) places glibc's own variables, tables and frames at
 * offsets measured in one build, Debian 12's glibc 2.36 (libc6
 * 2.36-9+deb12u14, symbols from libc6-dbg, traces from lackey). Another
 * build may place them elsewhere, and its internal traffic would then be
 * modelled at the wrong addresses: the report says so instead of staying
 * silent. */
#include "libc_build.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
  const char *soname;
  const char *build_id; /* hex, as `readelf -n` prints it */
} measured[] = {
    {"libc.so.6", "93ac61ec5a8eb1396f9fbd350e3169a558528a40"},
};

static void hex(const uint8_t *b, unsigned n, char *out) {
  for (unsigned i = 0; i < n; i++)
    sprintf(out + 2 * i, "%02x", b[i]);
  out[2 * n] = 0;
}

char *cb_library_build_note(const cb_program *p) {
  if (!p->dl)
    return NULL;
  for (size_t m = 0; m < sizeof measured / sizeof *measured; m++)
    for (uint32_t i = 0; i < p->dl->n_objs; i++) {
      const cb_dl_object *o = &p->dl->objs[i];
      if (strcmp(o->soname, measured[m].soname) != 0)
        continue;
      char id[2 * sizeof o->build_id + 1];
      hex(o->build_id, o->build_id_len, id);
      if (strcmp(id, measured[m].build_id) == 0)
        continue;
      char *note = malloc(400);
      if (note)
        snprintf(note, 400,
                 "%s here has build id %s; the library model's addresses "
                 "were measured in build %s (Debian 12's glibc "
                 "2.36-9+deb12u14): the library's internal traffic may be "
                 "placed wrongly, the program's own accesses and values "
                 "are not affected",
                 measured[m].soname, id[0] ? id : "(none)",
                 measured[m].build_id);
      return note;
    }
  return NULL;
}
