/* module.c: the executable's side of the frontend: cb_frontend_load and
 * the rest of frontend.h's calls, through the shared object that holds
 * everything else (fe_internal.h, fe_module_api).
 *
 * Why a shared object. A process linked with libLLVM-14 and libclang
 * spends about 0.06 s before main runs, relocating them (564 K relative
 * relocations and the page faults they take; `perf record cbana
 * --version`, bench/results/fast_notes.md), and clang could start only
 * after that. The compile (compile.c, link_cmd.c) needs neither library,
 * so the executable links neither: it starts clang at once, and a thread
 * loads cbana-frontend.so (dlopen) while clang compiles, on the core
 * the two compiles leave idle as the first of them ends.
 *
 * The shared object is looked for beside the executable, then in the
 * build's directory (the tests' executables live below it). It is never
 * unloaded: the native kernels it compiles run from its JIT's memory. */
#include "fe_internal.h"
#include "process_probe.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t scan_cv = PTHREAD_COND_INITIALIZER;
static pthread_t loader;
/* loader_running: to be joined; loading: in dlopen */
static bool loader_running, loading, tried;
static const fe_module_api *api;
static char load_error[PATH_MAX + 512];
/* The scan asked for by fe_module_preload, until it starts; whether a
 * compile ended (core_free) and succeeded (go). */
static const cb_frontend_options *scan_o;
static fe_build *scan_b;
static bool core_free, go;

/* dlopen of dir/FE_MODULE_FILE; NULL with the reason in load_error. */
static void *open_in(const char *dir) {
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/%s", dir, FE_MODULE_FILE) >=
      (int)sizeof path)
    return NULL;
  if (access(path, F_OK) != 0)
    return NULL;
  void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!h)
    snprintf(load_error, sizeof load_error, "cbana: cannot load %s: %s", path,
             dlerror());
  return h;
}

static void load(void) {
  tried = true;
  snprintf(load_error, sizeof load_error,
           "cbana: %s is neither beside the cbana executable nor in %s",
           FE_MODULE_FILE, CB_FRONTEND_MODULE_DIR);
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  void *h = NULL;
  if (n > 0) {
    self[n] = 0;
    char *slash = strrchr(self, '/');
    if (slash) {
      *slash = 0;
      h = open_in(self);
    }
  }
  if (!h)
    h = open_in(CB_FRONTEND_MODULE_DIR);
  if (!h)
    return;
  const fe_module_api *m = dlsym(h, FE_MODULE_SYMBOL);
  if (!m || m->size != sizeof *m) {
    snprintf(load_error, sizeof load_error,
             "cbana: %s is not this build's (no matching %s)", FE_MODULE_FILE,
             FE_MODULE_SYMBOL);
    return;
  }
  api = m;
}

/* The scan asked for, if its compile ended well and the shared object is
 * loaded (under lock). */
static void start_scan(void) {
  if (scan_b && core_free && go && api)
    scan_b->scans = api->scans_start(scan_o, scan_b);
  scan_b = NULL;
}

static void *loader_main(void *arg) {
  (void)arg;
  load();
  pthread_mutex_lock(&lock);
  loading = false;
  while (scan_b && !core_free)
    pthread_cond_wait(&scan_cv, &lock);
  start_scan();
  pthread_mutex_unlock(&lock);
  return NULL;
}

void fe_module_preload(const cb_frontend_options *o, fe_build *b) {
  pthread_mutex_lock(&lock);
  scan_o = o;
  scan_b = b;
  core_free = go = false;
  /* tried is the loading thread's to write: read once it was joined */
  if (!loader_running && !tried) {
    loader_running = loading =
        pthread_create(&loader, NULL, loader_main, NULL) == 0;
    if (!loader_running)
      scan_b = NULL; /* loaded later, when asked for, without a scan */
  }
  pthread_mutex_unlock(&lock);
}

void fe_module_core_free(bool ok) {
  pthread_mutex_lock(&lock);
  core_free = true;
  go = ok;
  if (!loading)
    start_scan(); /* the loader, if it waits, finds nothing to do */
  pthread_cond_signal(&scan_cv);
  pthread_mutex_unlock(&lock);
}

/* The loading thread, ended. Not under `lock`, which the thread takes
 * once loaded: joined under it, a thread still in dlopen would wait for
 * the lock and the join for the thread. */
static pthread_mutex_t join_lock = PTHREAD_MUTEX_INITIALIZER;
static void join_loader(void) {
  pthread_mutex_lock(&join_lock);
  if (loader_running) {
    pthread_join(loader, NULL);
    loader_running = false;
  }
  pthread_mutex_unlock(&join_lock);
}

/* The shared object's calls, loaded now if no thread is loading them. */
static const fe_module_api *module(fe_err *err) {
  join_loader();
  pthread_mutex_lock(&lock);
  if (!tried)
    load();
  pthread_mutex_unlock(&lock);
  if (!api)
    fe_errf(err, CB_FE_ERR_INTERNAL, "%s\n", load_error);
  return api;
}

cb_fe_status cb_frontend_load_built(const char *const *bitcode, size_t n,
                                    const char *exe,
                                    const cb_frontend_options *opts,
                                    cb_program **out, char *errbuf,
                                    size_t err_size) {
  fe_err err = {errbuf, err_size, 0, CB_FE_OK};
  if (errbuf && err_size)
    errbuf[0] = 0;
  *out = NULL;
  const fe_module_api *m = module(&err);
  return m ? m->load_built(bitcode, n, exe, opts, NULL, out, &err) : err.status;
}

cb_fe_status cb_frontend_load(const cb_frontend_options *opts, cb_program **out,
                              char *errbuf, size_t err_size) {
  fe_err err = {errbuf, err_size, 0, CB_FE_OK};
  if (errbuf && err_size)
    errbuf[0] = 0;
  *out = NULL;
  fe_build b;
  cb_fe_status st = fe_compile(opts, &b, &err); /* starts the loading */
  const fe_module_api *m = NULL;
  if (st == CB_FE_OK) {
    m = module(&err);
  } else {
    join_loader(); /* the compile failed: none is left in dlopen at exit */
  }
  if (st == CB_FE_OK)
    st = m ? m->load_built((const char *const *)b.bitcode, b.n, b.exe, opts, &b,
                           out, &err)
           : err.status;
  if (st == CB_FE_OK && b.link_err) {
    /* the bitcode lowered (no undefined function found): the linker's
       own complaint stands */
    cb_program_free(*out);
    *out = NULL;
    fe_errf(&err, CB_FE_ERR_COMPILE, "%s", b.link_err);
    st = CB_FE_ERR_COMPILE;
  }
  /* the process's start-up and exit: probes linked as the program is,
     built beside the compile and the lowering (process_probe.h) */
  if (st == CB_FE_OK && b.exe)
    fe_probes_finish(b.probes, *out);
  else
    fe_probes_finish(b.probes, NULL);
  b.probes = NULL;
  if (b.scans && api)
    api->scans_free(b.scans);
  fe_build_cleanup(&b);
  return st;
}

/* A Program exists only if the shared object made it, so api is set. */
void cb_program_free(cb_program *p) {
  if (p && api)
    api->program_free(p);
}

void cb_program_wait_kernels(cb_program *p) {
  if (p && api)
    api->wait_kernels(p);
}
