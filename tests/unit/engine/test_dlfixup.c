/* ld.so's lazy binding (analysis/process/libc_dlfixup.c) against a live lackey
 * trace (`valgrind --tool=lackey --trace-mem=yes`) of the same executable:
 * for each PLT function's first call of progs/dl_bind.c, the accesses from
 * PLT0's read of GOT[1] to the trampoline's `pop %rbx`, in order: outside
 * the stack the same addresses, sizes and directions; on the stack the
 * same offsets from the caller's rsp and from the trampoline's 64-byte
 * aligned frame. Exact for every function but the IFUNCs whose resolver
 * is not memset's (strlen, memcpy: close, see compare()). Skipped (exit
 * 77) without valgrind. Also: the libraries' build ids read by the
 * frontend against `readelf -n`, and the report's note when libc is not
 * the build the library model was measured in. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache_dir.h"
#include "cbana/engine.h"
#include "cbana/frontend.h"
#include "check.h"
#include "libc_build.h"

typedef struct acc {
  uint64_t a;
  uint32_t n;
  bool w;
} acc;

typedef struct accs {
  acc *v;
  size_t n, cap;
} accs;

static void push(accs *s, uint64_t a, uint32_t n, bool w) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 4096;
    s->v = realloc(s->v, s->cap * sizeof *s->v);
  }
  s->v[s->n++] = (acc){a, n, w};
}

static void sink(void *ctx, const cb_access *b, size_t n) {
  for (size_t i = 0; i < n; i++)
    push(ctx, b[i].addr, b[i].size, b[i].is_write);
}

static bool lackey(const char *exe, const char *dir, accs *out) {
  char log[600], cmd[2000];
  snprintf(log, sizeof log, "%s/lackey.log", dir);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && env -i valgrind --tool=lackey --trace-mem=yes "
           "--log-file='%s' '%s' >/dev/null 2>&1",
           dir, log, exe);
  if (system(cmd) != 0)
    return false;
  FILE *f = fopen(log, "r");
  if (!f)
    return false;
  char line[256];
  while (fgets(line, sizeof line, f)) {
    if (line[0] != ' ' || (line[1] != 'L' && line[1] != 'S' && line[1] != 'M'))
      continue;
    unsigned long long a;
    unsigned n;
    if (sscanf(line + 3, "%llx,%u", &a, &n) == 2)
      push(out, a, n, line[1] == 'S');
  }
  fclose(f);
  return true;
}

#define STACK_LO 0x1000000000ull

/* [*lo, *hi): from PLT0's read of GOT[1] to the trampoline's last access,
 * its `pop %rbx` (8 bytes above PLT0's push), past the slot's write */
static bool window(const accs *s, uint64_t got1, uint64_t slot, size_t *lo,
                   size_t *hi) {
  for (size_t k = 0; k < s->n; k++)
    if (s->v[k].a == slot && s->v[k].w) {
      for (size_t i = k; i-- > 0;)
        if (s->v[i].a == got1 && !s->v[i].w) {
          uint64_t rbx = 0;
          for (size_t j = i; j < k && !rbx; j++)
            if (s->v[j].a >= STACK_LO)
              rbx = s->v[j].a - 8;
          for (size_t j = k; j < s->n; j++)
            if (s->v[j].a == rbx && !s->v[j].w) {
              *lo = i;
              *hi = j + 1;
              return true;
            }
          return false;
        }
      return false;
    }
  return false;
}

static int cmp_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return x < y ? -1 : x > y;
}

/* the distinct lines of the window's non-stack accesses */
static size_t lines(const accs *s, size_t lo, size_t hi, uint64_t *out) {
  size_t n = 0;
  for (size_t i = lo; i < hi; i++)
    if (s->v[i].a < STACK_LO)
      out[n++] = s->v[i].a >> 6;
  qsort(out, n, sizeof *out, cmp_u64);
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (!m || out[m - 1] != out[i])
      out[m++] = out[i];
  return m;
}

/* libc's build id as binutils' readelf prints it (hex), "" if unknown. */
static void readelf_build_id(const char *path, char *out, size_t n) {
  char cmd[600], line[512];
  out[0] = 0;
  snprintf(cmd, sizeof cmd, "readelf -n '%s' 2>/dev/null", path);
  FILE *f = popen(cmd, "r");
  if (!f)
    return;
  while (fgets(line, sizeof line, f)) {
    const char *k = strstr(line, "Build ID: ");
    if (k && sscanf(k + 10, "%127s", out) == 1 && strlen(out) < n)
      break;
  }
  pclose(f);
}

static void check_build_ids(cb_program *p) {
  cb_dl_object *libc = NULL;
  for (uint32_t i = 0; i < p->dl->n_objs; i++)
    if (!strcmp(p->dl->objs[i].soname, "libc.so.6"))
      libc = &p->dl->objs[i];
  CHECK(libc != NULL);
  if (!libc)
    return;
  char want[128], got[64] = "";
  readelf_build_id("/lib/x86_64-linux-gnu/libc.so.6", want, sizeof want);
  for (unsigned k = 0; k < libc->build_id_len; k++)
    sprintf(got + 2 * k, "%02x", libc->build_id[k]);
  if (strcmp(got, want) != 0)
    fprintf(stderr, "libc build id: frontend %s, readelf %s\n", got, want);
  CHECK(want[0] && strcmp(got, want) == 0);
  /* the build the model was measured in: no note (a machine with another
   * libc6 fails here, saying why the library-traffic tests differ) */
  char *note = cb_library_build_note(p);
  if (note)
    fprintf(stderr, "%s\n", note);
  CHECK(note == NULL);
  free(note);
  libc->build_id[0] ^= 0xff;
  note = cb_library_build_note(p);
  CHECK(note && strstr(note, "libc.so.6 here has build id") != NULL);
  free(note);
  libc->build_id[0] ^= 0xff;
}

static void compare(const cb_program *p, const cb_plt_slot *sl,
                    const accs *mine, const accs *real) {
  uint64_t x = p->load_base;
  uint64_t got1 = x + p->dl->pltgot + 8;
  size_t ml, mh, rl, rh;
  bool ok_m = window(mine, got1, x + sl->got, &ml, &mh);
  bool ok_r = window(real, got1, x + sl->got, &rl, &rh);
  CHECK(ok_m && ok_r);
  if (!ok_m || !ok_r)
    return;
  bool ifunc = sl->probes[sl->n_probes - 1].ifunc;
  if (getenv("CB_DLFIXUP_DUMP")) { /* both windows, side by side */
    for (size_t i = 0; i < mh - ml || i < rh - rl; i++) {
      if (i < mh - ml)
        printf("%-4s %c %llx,%u", sl->name, mine->v[ml + i].w ? 'S' : 'L',
               (unsigned long long)mine->v[ml + i].a, mine->v[ml + i].n);
      else
        printf("%-4s                  ", sl->name);
      if (i < rh - rl)
        printf("\t%c %llx,%u", real->v[rl + i].w ? 'S' : 'L',
               (unsigned long long)real->v[rl + i].a, real->v[rl + i].n);
      printf("\n");
    }
  }
  /* the caller's rsp: the window's first stack access is PLT0's push at
   * rsp - 0x18 */
  uint64_t cm = 0, cr = 0;
  for (size_t i = ml; i < mh && !cm; i++)
    if (mine->v[i].a >= STACK_LO)
      cm = mine->v[i].a + 0x18;
  for (size_t i = rl; i < rh && !cr; i++)
    if (real->v[i].a >= STACK_LO)
      cr = real->v[i].a + 0x18;
  uint64_t am = (cm - 0x20) & ~63ull, ar = (cr - 0x20) & ~63ull;
  /* outside the stack: in order, but strcmp's and the IFUNC resolver's
   * accesses may differ; count equal accesses, resynchronising on the next
   * equal address after a difference */
  size_t nm = 0, nr = 0, same = 0, sm = 0, sr = 0, ssame = 0;
  for (size_t i = ml; i < mh; i++)
    mine->v[i].a >= STACK_LO ? sm++ : nm++;
  for (size_t k = rl; k < rh; k++)
    real->v[k].a >= STACK_LO ? sr++ : nr++;
  size_t i = ml, k = rl;
  while (i < mh && k < rh) {
    if (mine->v[i].a >= STACK_LO) {
      i++;
      continue;
    }
    if (real->v[k].a >= STACK_LO) {
      k++;
      continue;
    }
    if (mine->v[i].a == real->v[k].a && mine->v[i].n == real->v[k].n &&
        mine->v[i].w == real->v[k].w) {
      same++;
      i++;
      k++;
      continue;
    }
    bool found = false;
    for (size_t d = 1; d < 24 && !found; d++) {
      if (k + d < rh && real->v[k + d].a == mine->v[i].a) {
        k += d;
        found = true;
      } else if (i + d < mh && mine->v[i + d].a == real->v[k].a) {
        i += d;
        found = true;
      }
    }
    if (!found) {
      i++;
      k++;
    }
  }
  /* the stack: offsets from the aligned base, as multisets in order */
  for (size_t a = ml, b = rl; a < mh && b < rh;) {
    while (a < mh && mine->v[a].a < STACK_LO)
      a++;
    while (b < rh && real->v[b].a < STACK_LO)
      b++;
    if (a >= mh || b >= rh)
      break;
    int64_t om = mine->v[a].a >= am ? (int64_t)(mine->v[a].a - cm)
                                    : (int64_t)(mine->v[a].a - am) - 0x10000;
    int64_t orr = real->v[b].a >= ar ? (int64_t)(real->v[b].a - cr)
                                     : (int64_t)(real->v[b].a - ar) - 0x10000;
    ssame += om == orr && mine->v[a].n == real->v[b].n &&
             mine->v[a].w == real->v[b].w;
    a++;
    b++;
  }
  uint64_t *lm = malloc((mh - ml + 1) * sizeof *lm);
  uint64_t *lr = malloc((rh - rl + 1) * sizeof *lr);
  size_t nlm = lines(mine, ml, mh, lm), nlr = lines(real, rl, rh, lr);
  size_t common = 0;
  for (size_t a = 0, b = 0; a < nlm && b < nlr;) {
    if (lm[a] == lr[b]) {
      common++;
      a++;
      b++;
    } else if (lm[a] < lr[b]) {
      a++;
    } else {
      b++;
    }
  }
  printf("%-16s%s caller rsp %llx/%llx, accesses %zu/%zu (stack %zu/%zu, %zu "
         "at the same "
         "offsets), outside the stack %zu equal of %zu; lines %zu model, "
         "%zu real, %zu common\n",
         sl->name, ifunc ? " (ifunc)" : "", (unsigned long long)cm,
         (unsigned long long)cr, mh - ml, rh - rl, sm, sr, ssame, same, nr, nlm,
         nlr, common);
  /* every line the model touches is one the binding touches */
  CHECK_EQ_U64(common, nlm);
  if (!ifunc) {
    /* the same accesses in the same order: every one outside the stack,
     * every stack offset, hence the same lines */
    CHECK_EQ_U64(nm, nr);
    CHECK_EQ_U64(same, nr);
    CHECK_EQ_U64(sm, sr);
    CHECK_EQ_U64(ssame, sr);
    CHECK_EQ_U64(nlm, nlr);
  } else {
    /* an IFUNC's resolver runs inside _dl_fixup: memset's is replayed,
     * other resolvers (strlen's tests one more word; memmove's, behind
     * memcpy, calls helpers, and memcpy@GLIBC_2.2.5 first fails
     * check_match's version test) are approximated by memset's: at most
     * one line and 15% of the accesses apart */
    CHECK(nlm + 1 >= nlr);
    CHECK(20 * (mh - ml) >= 17 * (rh - rl));
  }
  free(lm);
  free(lr);
}

int main(void) {
  if (system("valgrind --version >/dev/null 2>&1") != 0) {
    printf("valgrind not found: skipped\n");
    return 77;
  }
  char dir[] = "/tmp/cbana-dlfixup-XXXXXX";
  if (!mkdtemp(dir))
    return 1;
  char exe[600], src[600];
  snprintf(exe, sizeof exe, "%s/dl_bind", dir);
  snprintf(src, sizeof src, "%s/dl_bind.c", CB_TEST_PROGS);
  const char *srcs[] = {src};
  cb_frontend_options fo = {0};
  fo.cache_dir = cb_cli_cache_dir();
  fo.sources = srcs;
  fo.n_sources = 1;
  fo.cflags = "-O2";
  fo.exe_out = exe;
  cb_program *p = NULL;
  char err[4096];
  CHECK(cb_frontend_load(&fo, &p, err, sizeof err) == CB_FE_OK);
  if (!p) {
    fprintf(stderr, "%s\n", err);
    return check_done();
  }
  CHECK(p->dl != NULL);
  if (p->dl)
    check_build_ids(p);
  accs mine = {0}, real = {0};
  if (p->dl) {
    cb_engine_options opt;
    cb_engine_options_default(&opt);
    opt.cwd = dir;
    const char *argv[] = {exe};
    cb_run_input in = {1, argv, NULL, 0};
    cb_access_sink s = {sink, &mine, NULL, NULL};
    cb_run_outcome o;
    cb_engine_run(p, &in, &opt, &s, &o);
    CHECK(o.status == CB_RUN_OK);
    cb_run_outcome_free(&o);
    CHECK(lackey(exe, dir, &real));
    for (uint32_t i = 0; i < p->dl->n_slots; i++)
      compare(p, &p->dl->slots[i], &mine, &real);
  }
  free(mine.v);
  free(real.v);
  cb_program_free(p);
  char cmd[700];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    return 1;
  return check_done();
}
