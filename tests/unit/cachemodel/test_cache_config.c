/* The configuration: a valid file read right, every rule's error text,
 * the presets, cachegrind-style flags and how --cache and flags combine. */
#include "cbana/cache.h"
#include "check.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int check_error(const char *text, const char *want, int line) {
  cb_cache_config cfg;
  char err[CB_ERR_MAX] = "";
  bool ok = cb_cache_config_parse_text(text, "t.cfg", &cfg, err, sizeof err);
  if (ok || strcmp(err, want) != 0) {
    fprintf(stderr, "%s:%d: got %s '%s'\n     want '%s'\n", __FILE__, line,
            ok ? "success" : "error", err, want);
    return 0;
  }
  return 1;
}
#define CHECK_ERROR(text, want) CHECK(check_error(text, want, __LINE__))

#define GEOM "size = 32K\nassoc = 8\nline = 64\n"

static void test_valid(void) {
  const char *text = "# l1.cfg\n"
                     "[L1D]\n"
                     "size = 32K          # bytes, with K, M or G\n"
                     "assoc = 8\n"
                     "line = 64\n"
                     "policy = plru\n"
                     "write_allocate = no ; INI comments too\n"
                     "\n"
                     "  [ L2 ]  \n"
                     "size=256k\nassoc=full\nline=64\npolicy=random\nseed=9\n"
                     "[LL]\nsize = 1M\nassoc = 16\nline = 128\n";
  cb_cache_config c;
  char err[CB_ERR_MAX] = "";
  CHECK(cb_cache_config_parse_text(text, "l1.cfg", &c, err, sizeof err));
  CHECK_EQ_U64(c.n_levels, 3);
  CHECK(strcmp(c.levels[0].name, "L1D") == 0);
  CHECK_EQ_U64(c.levels[0].size, 32768);
  CHECK_EQ_U64(c.levels[0].assoc, 8);
  CHECK_EQ_U64(c.levels[0].line, 64);
  CHECK(c.levels[0].policy == CB_POLICY_PLRU);
  CHECK(!c.levels[0].write_allocate);
  CHECK(strcmp(c.levels[1].name, "L2") == 0);
  CHECK_EQ_U64(c.levels[1].size, 262144);
  CHECK_EQ_U64(c.levels[1].assoc, CB_ASSOC_FULL);
  CHECK(c.levels[1].policy == CB_POLICY_RANDOM);
  CHECK_EQ_U64(c.levels[1].seed, 9);
  CHECK(c.levels[1].write_allocate);
  CHECK(c.levels[2].policy == CB_POLICY_LRU); /* the defaults */
  CHECK_EQ_U64(c.levels[2].size, 1u << 20);
  CHECK_EQ_U64(c.levels[2].line, 128);
  /* The same text from a file. */
  char path[] = "/tmp/cbana-cfg-XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
  close(fd);
  cb_cache_config f;
  CHECK(cb_cache_config_parse_file(path, &f, err, sizeof err));
  CHECK(memcmp(&f, &c, sizeof c) == 0);
  /* --cache PATH: an existing file is a file. */
  cb_cache_flags none = {0};
  CHECK(cb_cache_config_resolve(path, &none, &f, err, sizeof err));
  CHECK_EQ_U64(f.n_levels, 3);
  unlink(path);
  CHECK(!cb_cache_config_parse_file(path, &f, err, sizeof err));
  CHECK(strstr(err, ": cannot read: No such file or directory") != NULL);
}

static void test_errors(void) {
  CHECK_ERROR("[L1D]\nsize = 24K\nassoc = 4\nline = 64\n",
              "t.cfg:1: [L1D]: 96 sets (size / (assoc * line)) is not a power "
              "of two");
  CHECK_ERROR("[L1D]\nsize = 32\nassoc = 1\nline = 64\n",
              "t.cfg:1: [L1D]: line 64 is larger than the level (32 bytes)");
  CHECK_ERROR("[L1D]\nsize = 32K\nassoc = 8\nline = 48\n",
              "t.cfg:1: [L1D]: line 48 is not a power of two");
  CHECK_ERROR("[L1D]\nsize = 32K\nassoc = 8\nline = 2\n",
              "t.cfg:1: [L1D]: line 2 is under 4 bytes");
  CHECK_ERROR("[L1D]\n" GEOM "policy = lfu\n",
              "t.cfg:5: unknown policy 'lfu' (lru, fifo, mru, plru, random)");
  CHECK_ERROR("[L1D]\n" GEOM "latency = 4\n",
              "t.cfg:5: unknown key 'latency' (size, assoc, line, policy, "
              "write_allocate, seed)");
  CHECK_ERROR("[L1D]\nsize = 32X\n",
              "t.cfg:2: size '32X' is not a number of bytes with an optional "
              "K, M or G");
  CHECK_ERROR("[L1D]\nsize = lots\n",
              "t.cfg:2: size 'lots' is not a number of bytes with an optional "
              "K, M or G");
  CHECK_ERROR("[L1D]\nsize = 99999999999999999999\n",
              "t.cfg:2: size '99999999999999999999' is not a number of bytes "
              "with an optional K, M or G");
  CHECK_ERROR("[L1D]\n" GEOM "[L2]\n" GEOM "[L1D]\n" GEOM,
              "t.cfg:9: duplicate section [L1D]");
  CHECK_ERROR("", "t.cfg:1: no cache level (a [NAME] section with size, assoc "
                  "and line)");
  CHECK_ERROR("# nothing\n\n", "t.cfg:2: no cache level (a [NAME] section "
                               "with size, assoc and line)");
  CHECK_ERROR("[L1D]\n" GEOM "size = 64K\n",
              "t.cfg:5: duplicate key 'size' in [L1D]");
  CHECK_ERROR("size = 32K\n", "t.cfg:1: 'size' outside a [LEVEL] section");
  CHECK_ERROR("[L1D]\nsize = 32K\nline = 64\n",
              "t.cfg:1: [L1D] has no 'assoc' key");
  CHECK_ERROR("[L1D]\nsize = 32K\nassoc = 8\n[L2]\n",
              "t.cfg:1: [L1D] has no 'line' key");
  CHECK_ERROR("[L1D]\nassoc = 0\n",
              "t.cfg:2: assoc '0' is not a positive number or 'full'");
  CHECK_ERROR("[L1D]\n" GEOM "write_allocate = maybe\n",
              "t.cfg:5: write_allocate 'maybe' is not yes or no");
  CHECK_ERROR("[L1D]\n" GEOM "seed = -1\n",
              "t.cfg:5: seed '-1' is not a number below 2^64");
  CHECK_ERROR("[L1D\n", "t.cfg:1: a section header is '[NAME]'");
  CHECK_ERROR("[]\n", "t.cfg:1: a level name has 1 to 15 characters");
  CHECK_ERROR("[L 1]\n", "t.cfg:1: level name 'L 1' has characters other "
                         "than letters, digits, '_' and '-'");
  CHECK_ERROR("[L1D]\nsize\n", "t.cfg:2: expected 'key = value' or '[LEVEL]'");
  CHECK_ERROR("[L1D]\nsize = 768\nassoc = 3\nline = 64\npolicy = plru\n",
              "t.cfg:1: [L1D]: policy plru needs a power-of-two assoc, not 3");
  CHECK_ERROR("[L1D]\nsize = 256\nassoc = 8\nline = 64\n",
              "t.cfg:1: [L1D]: assoc 8 exceeds the level's 4 lines");
  CHECK_ERROR("[L1D]\nsize = 320\nassoc = 2\nline = 64\n",
              "t.cfg:1: [L1D]: 5 lines do not divide into 2 ways");
  CHECK_ERROR("[L1D]\nsize = 100\nassoc = 1\nline = 64\n",
              "t.cfg:1: [L1D]: size 100 is not a multiple of line 64");
  CHECK_ERROR("[L1D]\nsize = 8G\nassoc = 1\nline = 64\n",
              "t.cfg:1: [L1D]: size 8589934592 is not between 1 and 4G");
  CHECK_ERROR("[A]\n" GEOM "[B]\n" GEOM "[C]\n" GEOM "[D]\n" GEOM "[E]\n" GEOM
              "[F]\n" GEOM "[G]\n" GEOM "[H]\n" GEOM "[I]\n" GEOM,
              "t.cfg:33: more than 8 levels");
}

static void test_presets(void) {
  const char *const *names = cb_cache_preset_names();
  int n = 0;
  for (; names[n]; n++) {
    cb_cache_config c;
    CHECK(cb_cache_preset(names[n], &c));
    char err[CB_ERR_MAX];
    for (unsigned i = 0; i < c.n_levels; i++)
      CHECK(cb_level_config_check(&c.levels[i], err, sizeof err));
    cb_hierarchy *h = cb_hierarchy_create(&c, 0, 0, err, sizeof err);
    CHECK(h != NULL);
    cb_hierarchy_destroy(h);
  }
  CHECK(n >= 3);
  cb_cache_config c;
  CHECK(cb_cache_preset("cachegrind", &c));
  CHECK_EQ_U64(c.n_levels, 2);
  CHECK(strcmp(c.levels[0].name, "L1D") == 0);
  CHECK_EQ_U64(c.levels[0].size, 32768);
  CHECK_EQ_U64(c.levels[0].assoc, 8);
  CHECK_EQ_U64(c.levels[0].line, 64);
  CHECK(strcmp(c.levels[1].name, "LL") == 0);
  CHECK_EQ_U64(c.levels[1].size, 1048576);
  CHECK_EQ_U64(c.levels[1].assoc, 16);
  CHECK_EQ_U64(c.levels[1].line, 64);
  CHECK(!cb_cache_preset("pentium", &c));
}

static void test_flags(void) {
  cb_cache_flags f = {0};
  char err[CB_ERR_MAX] = "";
  CHECK(cb_cache_flag_parse(&f, "--D1=32768,8,64", err, sizeof err) == 1);
  CHECK(f.given[0] && f.level[0].size == 32768 && f.level[0].assoc == 8);
  CHECK(cb_cache_flag_parse(&f, "--cache", err, sizeof err) == 0);
  CHECK(cb_cache_flag_parse(&f, "--D1=32768,8", err, sizeof err) == -1);
  CHECK(strcmp(err, "--D1=32768,8: expected --D1=SIZE,ASSOC,LINE (bytes, "
                    "ways or 'full', bytes)") == 0);
  CHECK(cb_cache_flag_parse(&f, "--LL=1000,8,64", err, sizeof err) == -1);
  CHECK(strcmp(err, "--LL=1000,8,64: size 1000 is not a multiple of line 64") ==
        0);
  CHECK(cb_cache_flag_parse(&f, "--L2=1M,8,64,1", err, sizeof err) == -1);

  /* --D1 alone: a hierarchy of only L1D. */
  cb_cache_config c;
  CHECK(cb_cache_config_resolve(NULL, &f, &c, err, sizeof err));
  CHECK_EQ_U64(c.n_levels, 1);
  CHECK(strcmp(c.levels[0].name, "L1D") == 0);
  /* Nothing: the cachegrind preset. */
  cb_cache_flags none = {0};
  CHECK(cb_cache_config_resolve(NULL, &none, &c, err, sizeof err));
  CHECK_EQ_U64(c.n_levels, 2);
  /* Flags replace levels of their name and add the others in place. */
  cb_cache_flags g = {0};
  CHECK(cb_cache_flag_parse(&g, "--D1=16K,4,64", err, sizeof err) == 1);
  CHECK(cb_cache_flag_parse(&g, "--L2=256K,4,64", err, sizeof err) == 1);
  CHECK(cb_cache_config_resolve("cachegrind", &g, &c, err, sizeof err));
  CHECK_EQ_U64(c.n_levels, 3);
  CHECK_EQ_U64(c.levels[0].size, 16384);
  CHECK(strcmp(c.levels[1].name, "L2") == 0);
  CHECK(strcmp(c.levels[2].name, "LL") == 0);
  cb_cache_flags ll = {0};
  CHECK(cb_cache_flag_parse(&ll, "--LL=8M,16,64", err, sizeof err) == 1);
  CHECK(cb_cache_config_resolve("zen3", &ll, &c, err, sizeof err));
  CHECK_EQ_U64(c.n_levels, 4);
  CHECK(strcmp(c.levels[3].name, "LL") == 0);
  CHECK(!cb_cache_config_resolve("no-such-cpu", &none, &c, err, sizeof err));
  CHECK(strcmp(err, "--cache no-such-cpu: no such file or preset "
                    "(cachegrind, skylake, zen3, neoverse-n1)") == 0);
}

int main(void) {
  test_valid();
  test_errors();
  test_presets();
  test_flags();
  return check_done();
}
