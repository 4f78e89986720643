/* cbana's cache directory: the XDG base directory rule
 * (https://specifications.freedesktop.org/basedir-spec/), then a private
 * folder under the temporary directory. */
#include "cache_dir.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* mkdir -p path (mode 0755, or 0700 for the last component when private);
 * true when path is then a directory this process can write. */
static bool make_dirs(const char *path, bool private) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
    return false;
  for (char *s = buf + 1; *s; s++) {
    if (*s != '/')
      continue;
    *s = 0;
    if (mkdir(buf, 0755) != 0 && errno != EEXIST)
      return false;
    *s = '/';
  }
  if (mkdir(buf, private ? 0700 : 0755) != 0 && errno != EEXIST)
    return false;
  struct stat st;
  return stat(buf, &st) == 0 && S_ISDIR(st.st_mode) &&
         access(buf, W_OK | X_OK) == 0;
}

const char *cb_cli_cache_dir(void) {
  static char dir[PATH_MAX];
  static bool resolved, found;
  if (resolved)
    return found ? dir : NULL;
  resolved = true;
  const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  /* the spec: a relative XDG_CACHE_HOME is invalid and ignored */
  if (xdg && xdg[0] == '/' &&
      snprintf(dir, sizeof dir, "%s/cbana", xdg) < (int)sizeof dir &&
      make_dirs(dir, false))
    return found = true, dir;
  if (home && home[0] == '/' &&
      snprintf(dir, sizeof dir, "%s/.cache/cbana", home) < (int)sizeof dir &&
      make_dirs(dir, false))
    return found = true, dir;
  const char *tmp = getenv("TMPDIR");
  if (!tmp || tmp[0] != '/')
    tmp = "/tmp";
  if (snprintf(dir, sizeof dir, "%s/cbana-cache-%ld", tmp, (long)getuid()) <
          (int)sizeof dir &&
      make_dirs(dir, true))
    return found = true, dir;
  return NULL;
}
