/* jit_cache.c: a kernel's machine code kept in cbana's cache directory
 * between runs (jit_gen.h), so that running an unchanged program again
 * does not compile its kernels again. The key is the kernel's optimised
 * module as text, with the host CPU, its features and LLVM's version: the
 * same Program on the same machine gives the same text. The text is kept
 * beside the object and compared whole before the object is used, so two
 * modules whose keys collide never share code. Files are written whole
 * under a temporary name and renamed, so that runs at once each leave a
 * complete pair. */
#include "fe_internal.h"
#include "jit_gen.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm/Config/llvm-config.h>

static bool cache_path(char *out, size_t n, const char *dir, uint64_t key,
                       const char *ext) {
  return dir && (size_t)snprintf(out, n, "%s/kernel-%016llx.%s", dir,
                                 (unsigned long long)key, ext) < n;
}

static uint64_t cache_key(const char *text, const char *cpu,
                          const char *features) {
  uint64_t h = fe_fnv_str(FE_FNV_START, "cbana kernel 1");
  h = fe_fnv_str(h, LLVM_VERSION_STRING);
  h = fe_fnv_str(h, cpu);
  h = fe_fnv_str(h, features);
  return fe_fnv_str(h, text);
}

static bool write_all(const char *path, const char *data, size_t n) {
  char tmp[PATH_MAX + 32];
  snprintf(tmp, sizeof tmp, "%s.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (!f)
    return false;
  bool ok = fwrite(data, 1, n, f) == n;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, path) != 0) {
    unlink(tmp);
    return false;
  }
  return true;
}

LLVMMemoryBufferRef jit_cache_get(const char *dir, const char *text,
                                  const char *cpu, const char *features) {
  char path[PATH_MAX];
  uint64_t key = cache_key(text, cpu, features);
  size_t n = 0;
  if (!cache_path(path, sizeof path, dir, key, "ll"))
    return NULL;
  char *kept = fe_read_file(path, &n, NULL);
  bool same = kept && n == strlen(text) && memcmp(kept, text, n) == 0;
  free(kept);
  if (!same || !cache_path(path, sizeof path, dir, key, "o"))
    return NULL;
  char *obj = fe_read_file(path, &n, NULL);
  if (!obj)
    return NULL;
  LLVMMemoryBufferRef buf =
      LLVMCreateMemoryBufferWithMemoryRangeCopy(obj, n, "cbana-kernel");
  free(obj);
  return buf;
}

void jit_cache_put(const char *dir, const char *text, const char *cpu,
                   const char *features, LLVMMemoryBufferRef obj) {
  char path[PATH_MAX];
  uint64_t key = cache_key(text, cpu, features);
  /* the object first: a text without its object is never used */
  if (cache_path(path, sizeof path, dir, key, "o") &&
      write_all(path, LLVMGetBufferStart(obj), LLVMGetBufferSize(obj)) &&
      cache_path(path, sizeof path, dir, key, "ll"))
    write_all(path, text, strlen(text));
}

/* ---- which functions a program's last run compiled ---- */

uint64_t jit_cache_program_key(const cb_program *p) {
  uint64_t h = fe_fnv_str(FE_FNV_START, "cbana kernel index 1");
  h = fe_fnv(h, p->ops, (size_t)p->n_ops * sizeof *p->ops);
  h = fe_fnv(h, p->consts, (size_t)p->n_consts * sizeof *p->consts);
  h = fe_fnv(h, p->extra, (size_t)p->n_extra * sizeof *p->extra);
  return fe_fnv(h, &p->n_functions, sizeof p->n_functions);
}

/* The index: a line per function, its number (then ":0" when its kernel
 * was made at -O0), then the local blocks its kernel had code for when
 * not all. */
void jit_cache_index_read(const char *dir, uint64_t key, const cb_program *p,
                          uint8_t *want, uint8_t *blocks) {
  char path[PATH_MAX];
  size_t len = 0;
  if (!cache_path(path, sizeof path, dir, key, "idx"))
    return;
  char *text = fe_read_file(path, &len, NULL);
  for (char *s = text, *end; s && *s; s = end) {
    unsigned long fi = strtoul(s, &end, 10);
    if (end == s)
      break;
    unsigned tier = 1;
    if (*end == ':') {
      tier = (unsigned)strtoul(end + 1, &end, 10) != 0;
    }
    char *eol = strchr(end, '\n');
    if (!eol)
      eol = end + strlen(end);
    const cb_function *fn = fi < p->n_functions ? &p->functions[fi] : NULL;
    bool some = false;
    for (char *t = end, *te; fn && t < eol; t = te) {
      unsigned long lb = strtoul(t, &te, 10);
      if (te == t)
        break;
      if (lb < fn->n_blocks) {
        blocks[fn->first_block + lb] = 1;
        some = true;
      }
    }
    for (uint32_t lb = 0; fn && !some && lb < fn->n_blocks; lb++)
      blocks[fn->first_block + lb] = 1;
    if (fn)
      want[fi] = (uint8_t)(1 + tier);
    end = *eol ? eol + 1 : eol;
  }
  free(text);
}

void jit_cache_index_write(const char *dir, uint64_t key, const cb_program *p,
                           const uint8_t *want, const uint8_t *tier,
                           const uint8_t *blocks) {
  char path[PATH_MAX];
  if (!cache_path(path, sizeof path, dir, key, "idx"))
    return;
  size_t cap = 16 * ((size_t)p->n_functions + p->n_blocks) + 1, len = 0;
  char *text = malloc(cap);
  for (uint32_t fi = 0; text && fi < p->n_functions; fi++) {
    const cb_function *fn = &p->functions[fi];
    uint32_t in = 0;
    for (uint32_t lb = 0; lb < fn->n_blocks; lb++)
      in += blocks[fn->first_block + lb] != 0;
    /* asked for and compiled: the blocks, unless every one */
    if (!want[fi] || in == 0)
      continue;
    len +=
        (size_t)snprintf(text + len, cap - len, tier[fi] ? "%u" : "%u:0", fi);
    for (uint32_t lb = 0; in < fn->n_blocks && lb < fn->n_blocks; lb++)
      if (blocks[fn->first_block + lb])
        len += (size_t)snprintf(text + len, cap - len, " %u", lb);
    len += (size_t)snprintf(text + len, cap - len, "\n");
  }
  if (text && len)
    write_all(path, text, len);
  free(text);
}
