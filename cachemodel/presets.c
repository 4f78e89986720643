/* Named cache configurations shipped with cbana. Sources and caveats are
 * in docs/cache-config.md; all levels are LRU and write-allocate (the
 * vendors do not document their replacement policies precisely; LRU is
 * also what cachegrind models). */
#include "cbana/cache.h"

#include <string.h>

#define LEVEL(NAME, SIZE, ASSOC, LINE)                                         \
  {                                                                            \
    .name = NAME, .size = SIZE, .assoc = ASSOC, .line = LINE,                  \
    .policy = CB_POLICY_LRU, .write_allocate = true                            \
  }

#define KIB 1024ull
#define MIB (1024ull * 1024)

typedef struct preset {
  const char *name;
  cb_cache_config cfg;
} preset;

static const preset presets[] = {
    /* cachegrind's defaults when it cannot read the host's caches, and
     * what `valgrind --tool=cachegrind --D1=32768,8,64
     * --LL=1048576,16,64` models. */
    {"cachegrind",
     {2, {LEVEL("L1D", 32 * KIB, 8, 64), LEVEL("LL", 1 * MIB, 16, 64)}}},
    /* Intel Skylake client (Core i7-6700K, 4 cores): Intel 64 and IA-32
     * Architectures Optimization Reference Manual, Skylake cache
     * parameters table; L3 8 MiB shared, 16-way. */
    {"skylake",
     {3,
      {LEVEL("L1D", 32 * KIB, 8, 64), LEVEL("L2", 256 * KIB, 4, 64),
       LEVEL("L3", 8 * MIB, 16, 64)}}},
    /* AMD Zen 3 (Ryzen 5000 / EPYC 7003): Software Optimization Guide for
     * AMD Family 19h Processors (pub. 56665); L3 32 MiB per CCD, 16-way. */
    {"zen3",
     {3,
      {LEVEL("L1D", 32 * KIB, 8, 64), LEVEL("L2", 512 * KIB, 8, 64),
       LEVEL("L3", 32 * MIB, 16, 64)}}},
    /* Arm Neoverse N1 (AWS Graviton2, Ampere Altra): Arm Neoverse N1 Core
     * Technical Reference Manual; L2 in its 1 MiB configuration. The
     * system-level cache belongs to the SoC, not the core: left out. */
    {"neoverse-n1",
     {2, {LEVEL("L1D", 64 * KIB, 4, 64), LEVEL("L2", 1 * MIB, 8, 64)}}},
};

#define N_PRESETS (sizeof presets / sizeof presets[0])

static const char *const preset_names[N_PRESETS + 1] = {
    "cachegrind", "skylake", "zen3", "neoverse-n1", NULL};

bool cb_cache_preset(const char *name, cb_cache_config *out) {
  for (size_t i = 0; i < N_PRESETS; i++)
    if (strcmp(presets[i].name, name) == 0) {
      *out = presets[i].cfg;
      return true;
    }
  return false;
}

const char *const *cb_cache_preset_names(void) {
  return preset_names;
}
