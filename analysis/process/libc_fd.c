/* libc_fd.c: the C library model's files and file descriptors: what the
 * kernel keeps for a run (libc_files.h). open, creat, read, write,
 * lseek, close, fstat, stat, remove, unlink, and errno
 * (__errno_location). Files are read from disk at analysis time, relative
 * to the run's working directory (cb_engine_options.cwd); everything the
 * program writes, creates, truncates or removes happens in memory only,
 * and is reported with the run (cb_run_outcome.files).
 *
 * The kernel's reads and writes of the program's memory (read(2) filling
 * a buffer, write(2) taking one) are no data accesses of the program's
 * under cachegrind, which counts instructions' accesses only: they change
 * the modelled bytes and make no traffic. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "libc_files.h"

/* The largest file the model reads into memory. */
#define MAX_FILE (1ull << 30)

cb_files *cb_files_get(cb_proc *pr) {
  if (pr->files)
    return pr->files;
  cb_files *f = calloc(1, sizeof *f);
  if (!f)
    return NULL;
  for (int i = 0; i < CB_MAX_FDS; i++)
    f->fd[i] = CB_FD_FREE;
  f->fd[0] = CB_FD_STDIN;
  f->fd[1] = CB_FD_STDOUT;
  f->fd[2] = CB_FD_STDERR;
  pr->files = f;
  return f;
}

void cb_files_free(cb_proc *pr) {
  cb_files *f = pr->files;
  if (!f)
    return;
  for (uint32_t i = 0; i < f->nvf; i++) {
    free(f->vf[i].path);
    free(f->vf[i].name);
    free(f->vf[i].data);
  }
  for (uint32_t i = 0; i < f->nst; i++) {
    free(f->st[i].rcopy);
    free(f->st[i].wcopy);
  }
  free(f->vf);
  free(f->ofd);
  free(f->st);
  free(f);
  pr->files = NULL;
}

/* ---- errno ---- */

/* glibc 2.36's errno is libc's TLS variable at the thread pointer - 0x80
 * (measured: &errno - pthread_self(), with and without -lm); the thread
 * pointer is 0x740 into the static TLS page (layout.c, libc_dlfixup.c's
 * TCB_SINGLE = tp + 0x18). Without ld.so's layout, a page of its own. */
static uint64_t errno_addr(cb_proc *pr) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return 0;
  if (!f->errno_addr) {
    uint64_t tcb = pr->dl_tcb ? pr->dl_tcb : 0x7fe000000000ull;
    if (!cb_mem_mapped(&pr->mem, tcb))
      cb_mem_map(&pr->mem, tcb, tcb + CB_PG_SIZE);
    f->errno_addr = tcb + 0x740 - 0x80;
  }
  return f->errno_addr;
}

void cb_libc_set_errno(cb_proc *pr, int err) {
  uint64_t a = errno_addr(pr);
  if (!a)
    return;
  int32_t v = err;
  cb_mem_write(&pr->mem, a, &v, 4, NULL);
  cb_proc_lib(pr, a, 4, true);
}

void cb_libc_put_errno(cb_proc *pr, int err) {
  uint64_t a = errno_addr(pr);
  int32_t v = err;
  if (a)
    cb_mem_write(&pr->mem, a, &v, 4, NULL);
}

int cb_libc_errno(cb_proc *pr) {
  uint64_t a = errno_addr(pr);
  int32_t v = 0;
  if (a)
    cb_mem_read(&pr->mem, a, &v, 4, NULL);
  return v;
}

/* ---- files ---- */

static const char *run_cwd(cb_proc *pr, char *buf, size_t n) {
  if (pr->opt->cwd)
    return pr->opt->cwd;
  return getcwd(buf, n) ? buf : "/";
}

/* The resolved path of name: its directory's real path joined with its
 * last component; false (with *err) when the directory does not exist. */
static bool resolve(cb_proc *pr, const char *name, char *out, size_t n,
                    int *err) {
  char cwd[PATH_MAX], full[2 * PATH_MAX + 2], dir[PATH_MAX];
  if (!*name) {
    *err = ENOENT;
    return false;
  }
  if (name[0] == '/')
    snprintf(full, sizeof full, "%s", name);
  else
    snprintf(full, sizeof full, "%s/%s", run_cwd(pr, cwd, sizeof cwd), name);
  char *slash = strrchr(full, '/');
  const char *base = slash + 1;
  *slash = 0;
  if (!realpath(full[0] ? full : "/", dir)) {
    *err = errno == EACCES ? EACCES : ENOENT;
    return false;
  }
  if (!*base || !strcmp(base, ".") || !strcmp(base, "..")) {
    *err = EISDIR;
    return false;
  }
  snprintf(out, n, "%s/%s", strcmp(dir, "/") ? dir : "", base);
  return true;
}

static cb_vfile *vf_new(cb_files *f, const char *path, const char *name) {
  if (f->nvf == f->capvf) {
    uint32_t cap = f->capvf ? 2 * f->capvf : 8;
    cb_vfile *v = realloc(f->vf, cap * sizeof *v);
    if (!v)
      return NULL;
    f->vf = v;
    f->capvf = cap;
  }
  cb_vfile *v = &f->vf[f->nvf++];
  memset(v, 0, sizeof *v);
  v->path = strdup(path);
  v->name = strdup(name);
  return v;
}

/* The file at resolved path: the run's entry, or the disk's file read in
 * (NULL when neither has it; *fail after a run failure). */
static cb_vfile *vf_find(cb_proc *pr, const char *path, const char *name,
                         bool *fail) {
  cb_files *f = cb_files_get(pr);
  *fail = false;
  /* the path's latest entry; one the run removed hides the disk's file */
  for (uint32_t i = f->nvf; i-- > 0;)
    if (!strcmp(f->vf[i].path, path))
      return f->vf[i].unlinked ? NULL : &f->vf[i];
  struct stat st;
  if (stat(path, &st) != 0)
    return NULL;
  if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 1 && minor(st.st_rdev) == 3) {
    /* /dev/null (Linux's memory device 1:3, whatever its name): the
     * kernel's null device reads nothing and takes every write; fstat
     * gives the real device's stat (a character device, st_blksize 4096:
     * glibc's _IO_file_doallocate then mallocs a 4096-byte buffer and
     * keeps the stream fully buffered, isatty being false) */
    cb_vfile *v = vf_new(f, path, name);
    if (!v)
      return NULL;
    v->exists = v->on_disk = v->devnull = true;
    v->st = st;
    return v;
  }
  if (!S_ISREG(st.st_mode)) {
    *fail = true;
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                 "opening `%s`, which is not a regular file, is not modelled",
                 name);
    return NULL;
  }
  if ((uint64_t)st.st_size > MAX_FILE) {
    *fail = true;
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                 "`%s` is larger than the %llu bytes the model reads", name,
                 (unsigned long long)MAX_FILE);
    return NULL;
  }
  cb_vfile *v = vf_new(f, path, name);
  if (!v)
    return NULL;
  v->exists = v->on_disk = true;
  v->st = st;
  v->cap = (uint64_t)st.st_size;
  v->data = malloc(v->cap + 1);
  FILE *in = fopen(path, "rb");
  size_t got = in && v->data ? fread(v->data, 1, v->cap, in) : 0;
  if (in)
    fclose(in);
  if (!v->data || got != v->cap) {
    *fail = true;
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "cannot read `%s`", name);
    return NULL;
  }
  v->len = got;
  return v;
}

static bool vf_reserve(cb_vfile *v, uint64_t n) {
  if (n <= v->cap)
    return true;
  if (n > MAX_FILE)
    return false;
  uint64_t cap = v->cap ? v->cap : 4096;
  while (cap < n)
    cap *= 2;
  unsigned char *d = realloc(v->data, cap);
  if (!d)
    return false;
  v->data = d;
  v->cap = cap;
  return true;
}

static int fd_new(cb_files *f, uint32_t ofd) {
  for (int i = 0; i < CB_MAX_FDS; i++)
    if (f->fd[i] == CB_FD_FREE) {
      f->fd[i] = (int32_t)ofd;
      return i;
    }
  return -1;
}

int cb_fd_open(cb_proc *pr, const char *name, int flags, unsigned mode,
               int *err) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return -2;
  if (flags & (O_DIRECTORY | O_PATH | (__O_TMPFILE & ~O_DIRECTORY))) {
    cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                 "open of `%s` with O_DIRECTORY, O_PATH or O_TMPFILE is not "
                 "modelled",
                 name);
    return -2;
  }
  char path[2 * PATH_MAX + 2];
  if (!resolve(pr, name, path, sizeof path, err))
    return -1;
  bool fail;
  cb_vfile *v = vf_find(pr, path, name, &fail);
  if (fail)
    return -2;
  int acc = flags & O_ACCMODE;
  if (v) {
    if ((flags & O_CREAT) && (flags & O_EXCL)) {
      *err = EEXIST;
      return -1;
    }
    /* the real run's permissions are this user's */
    if (v->on_disk && !v->written &&
        access(path, acc == O_RDONLY   ? R_OK
                     : acc == O_WRONLY ? W_OK
                                       : R_OK | W_OK) != 0) {
      *err = EACCES;
      return -1;
    }
  } else {
    if (!(flags & O_CREAT)) {
      *err = ENOENT;
      return -1;
    }
    char dir[2 * PATH_MAX + 2];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = 0;
    if (access(dir[0] ? dir : "/", W_OK) != 0) {
      *err = EACCES;
      return -1;
    }
    v = vf_new(f, path, name);
    if (!v)
      return -2;
    v->exists = v->written = true;
    /* a new file: the directory's device, the mode less umask 022 */
    struct stat ds;
    if (stat(dir[0] ? dir : "/", &ds) == 0)
      v->st = ds;
    v->st.st_mode = S_IFREG | (mode & 0777 & ~0022u);
    v->st.st_nlink = 1;
    v->st.st_ino = 0;
    v->st.st_size = 0;
  }
  if ((flags & O_TRUNC) && acc != O_RDONLY && v->len) {
    v->len = 0;
    v->written = true;
  }
  if (f->nofd == f->capofd) {
    uint32_t cap = f->capofd ? 2 * f->capofd : 8;
    cb_ofd *o = realloc(f->ofd, cap * sizeof *o);
    if (!o)
      return -2;
    f->ofd = o;
    f->capofd = cap;
  }
  uint32_t oi = f->nofd;
  f->ofd[oi] = (cb_ofd){(uint32_t)(v - f->vf), 0, acc, (flags & O_APPEND) != 0};
  int fd = fd_new(f, oi);
  if (fd < 0) {
    *err = EMFILE;
    return -1;
  }
  f->nofd++;
  return fd;
}

cb_ofd *cb_fd_ofd(cb_proc *pr, int fd) {
  cb_files *f = cb_files_get(pr);
  if (!f || fd < 0 || fd >= CB_MAX_FDS || f->fd[fd] < 0)
    return NULL;
  return &f->ofd[f->fd[fd]];
}

int cb_fd_accmode(cb_proc *pr, int fd) {
  cb_files *f = cb_files_get(pr);
  if (!f || fd < 0 || fd >= CB_MAX_FDS || f->fd[fd] == CB_FD_FREE)
    return -1;
  if (f->fd[fd] == CB_FD_STDIN)
    return O_RDONLY;
  if (f->fd[fd] < 0)
    return O_WRONLY; /* stdout and stderr: pipes or files opened for
                        writing (cgref's and the native run's) */
  return f->ofd[f->fd[fd]].acc;
}

uint64_t cb_fd_blksize(cb_proc *pr, int fd) {
  cb_ofd *o = cb_fd_ofd(pr, fd);
  if (!o)
    return 4096;
  const cb_vfile *v = &pr->files->vf[o->vf];
  return v->st.st_blksize > 0 ? (uint64_t)v->st.st_blksize : 4096;
}

int64_t cb_fd_read(cb_proc *pr, int fd, uint64_t addr, uint64_t n, int *err) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return -2;
  if (fd < 0 || fd >= CB_MAX_FDS || f->fd[fd] == CB_FD_FREE) {
    *err = EBADF;
    return -1;
  }
  if (f->fd[fd] == CB_FD_STDIN) {
    /* stdin's FILE reads whole buffers (4096 bytes from a file) ahead of
     * what the program took */
    uint64_t k = pr->stdin_buf ? (pr->stdin_pos + 4095) / 4096 * 4096 : 0;
    if (k > pr->in_len)
      k = pr->in_len;
    if (pr->stdin_buf && pr->stdin_pos < k) {
      cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                   "read(0) while stdin's FILE buffer holds unread input is "
                   "not modelled");
      return -2;
    }
    uint64_t at = f->stdin_kpos > k ? f->stdin_kpos : k;
    uint64_t m = at < pr->in_len ? pr->in_len - at : 0;
    if (m > n)
      m = n;
    if (m && !cb_proc_write(pr, addr, pr->in_data + at, m))
      return -2;
    f->stdin_kpos = at + m;
    pr->stdin_pos = f->stdin_kpos;
    return (int64_t)m;
  }
  if (f->fd[fd] < 0) {
    *err = EBADF; /* stdout and stderr are open for writing */
    return -1;
  }
  cb_ofd *o = &f->ofd[f->fd[fd]];
  if (o->acc == O_WRONLY) {
    *err = EBADF;
    return -1;
  }
  const cb_vfile *v = &f->vf[o->vf];
  uint64_t m = o->pos < v->len ? v->len - o->pos : 0;
  if (m > n)
    m = n;
  if (m && !cb_proc_write(pr, addr, v->data + o->pos, m))
    return -2;
  o->pos += m;
  return (int64_t)m;
}

int64_t cb_fd_write(cb_proc *pr, int fd, uint64_t addr, const void *host,
                    uint64_t n, int *err) {
  cb_files *f = cb_files_get(pr);
  if (!f)
    return -2;
  if (fd < 0 || fd >= CB_MAX_FDS || f->fd[fd] == CB_FD_FREE ||
      f->fd[fd] == CB_FD_STDIN) {
    *err = EBADF;
    return -1;
  }
  char *tmp = NULL;
  if (!host) {
    tmp = malloc(n ? n : 1);
    if (!tmp || !cb_proc_read(pr, addr, tmp, n)) {
      free(tmp);
      return -2;
    }
    host = tmp;
  }
  int64_t r = (int64_t)n;
  if (f->fd[fd] == CB_FD_STDOUT) {
    /* before what waits in stdout's buffer */
    cb_textbuf *b = &pr->out_text;
    size_t at = pr->stdout_sent <= b->n ? pr->stdout_sent : b->n;
    size_t tail = b->n - at;
    cb_textbuf_put(b, host, n);
    memmove(b->s + at + n, b->s + at, tail);
    memcpy(b->s + at, host, n);
    pr->stdout_sent = at + n;
  } else if (f->fd[fd] == CB_FD_STDERR) {
    cb_textbuf_put(&pr->err_text, host, n);
  } else {
    cb_ofd *o = &f->ofd[f->fd[fd]];
    cb_vfile *v = &f->vf[o->vf];
    if (o->acc == O_RDONLY) {
      *err = EBADF;
      r = -1;
    } else if (v->devnull) {
      /* discarded; the file stays empty and is not the run's output */
    } else {
      uint64_t at = o->append ? v->len : o->pos;
      if (!vf_reserve(v, at + n)) {
        cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                     "`%s` grows past the %llu bytes the model keeps", v->name,
                     (unsigned long long)MAX_FILE);
        r = -2;
      } else {
        if (at > v->len)
          memset(v->data + v->len, 0, at - v->len);
        memcpy(v->data + at, host, n);
        if (at + n > v->len)
          v->len = at + n;
        o->pos = at + n;
        v->written = true;
        v->writes += n;
      }
    }
  }
  free(tmp);
  return r;
}

int64_t cb_fd_seek(cb_proc *pr, int fd, int64_t off, int whence, int *err) {
  cb_ofd *o = cb_fd_ofd(pr, fd);
  if (!o) {
    *err = EBADF;
    return -1;
  }
  if (pr->files->vf[o->vf].devnull) {
    /* Linux's null_lseek: the offset is 0 whatever was asked */
    o->pos = 0;
    return 0;
  }
  int64_t base = whence == SEEK_SET   ? 0
                 : whence == SEEK_CUR ? (int64_t)o->pos
                 : whence == SEEK_END ? (int64_t)pr->files->vf[o->vf].len
                                      : -1;
  if (base < 0 || base + off < 0) {
    *err = EINVAL;
    return -1;
  }
  o->pos = (uint64_t)(base + off);
  return (int64_t)o->pos;
}

int cb_fd_close(cb_proc *pr, int fd) {
  cb_files *f = cb_files_get(pr);
  if (!f || fd < 0 || fd >= CB_MAX_FDS || f->fd[fd] == CB_FD_FREE)
    return EBADF;
  f->fd[fd] = CB_FD_FREE;
  return 0;
}

/* struct stat of x86-64 Linux (144 bytes), as the kernel fills it. */
static void fill_stat(const cb_vfile *v, uint8_t out[144]) {
  memset(out, 0, 144);
  uint64_t q;
  uint32_t w;
#define PUT8(o, x) (q = (uint64_t)(x), memcpy(out + (o), &q, 8))
#define PUT4(o, x) (w = (uint32_t)(x), memcpy(out + (o), &w, 4))
  PUT8(0, v->st.st_dev);
  PUT8(8, v->st.st_ino);
  PUT8(16, v->st.st_nlink ? v->st.st_nlink : 1);
  PUT4(24, v->st.st_mode);
  PUT4(28, v->st.st_uid);
  PUT4(32, v->st.st_gid);
  PUT8(40, v->devnull ? v->st.st_rdev : 0);
  PUT8(48, v->len);
  PUT8(56, v->st.st_blksize > 0 ? v->st.st_blksize : 4096);
  PUT8(64, (v->len + 4095) / 4096 * 8);
  /* the times of the disk's file; a file the run made: time()'s value */
  uint64_t t = v->on_disk && !v->written ? (uint64_t)v->st.st_mtim.tv_sec
                                         : CB_CLOCK_EPOCH_S;
  PUT8(72, v->on_disk ? (uint64_t)v->st.st_atim.tv_sec : t);
  PUT8(88, t);
  PUT8(104, v->devnull ? (uint64_t)v->st.st_ctim.tv_sec : t);
#undef PUT8
#undef PUT4
}

/* ---- the calls ---- */

static cb_stop ret_int(cb_proc *pr, cb_value *ret, int64_t r, int err,
                       bool wide) {
  if (r == -2)
    return CB_FAIL;
  if (r == -1)
    cb_libc_set_errno(pr, err);
  ret[0].u = wide ? (uint64_t)r : (uint64_t)(uint32_t)(int32_t)r;
  return CB_GO;
}

/* rename(2) on the run's files: new takes old's bytes (a file new named
 * before is replaced), old is gone; nothing on disk changes. The wrapper
 * is the system call: its only access, on failure, is errno's (its TLS
 * offset read from libc's GOT, then the store). */
static cb_stop do_rename(cb_proc *pr, uint64_t from, uint64_t to,
                         cb_value *ret) {
  cb_files *f = pr->files;
  char *n0 = cb_proc_read_str(pr, from, PATH_MAX, NULL);
  char *n1 = n0 ? cb_proc_read_str(pr, to, PATH_MAX, NULL) : NULL;
  if (!n1) {
    free(n0);
    return CB_FAIL;
  }
  char p0[2 * PATH_MAX + 2], p1[2 * PATH_MAX + 2];
  int err = ENOENT;
  bool fail = false;
  cb_vfile *v = NULL;
  cb_stop st = CB_GO;
  if (resolve(pr, n0, p0, sizeof p0, &err) &&
      resolve(pr, n1, p1, sizeof p1, &err)) {
    struct stat sd;
    if ((stat(p0, &sd) == 0 && S_ISDIR(sd.st_mode)) ||
        (stat(p1, &sd) == 0 && S_ISDIR(sd.st_mode))) {
      st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "renaming a directory (`%s` to `%s`) is not modelled",
                        n0, n1);
      goto out;
    }
    v = vf_find(pr, p0, n0, &fail);
    err = ENOENT;
  }
  if (fail) {
    st = CB_FAIL;
    goto out;
  }
  if (!v) {
    if (pr->libc_base)
      cb_libc_acc(pr, pr->libc_base + 0x1d2de0, 8, false); /* errno's GOT */
    st = ret_int(pr, ret, -1, err, false);
    goto out;
  }
  uint32_t vi = (uint32_t)(v - f->vf);
  for (int fd = 0; fd < CB_MAX_FDS; fd++)
    if (f->fd[fd] >= 0 && f->ofd[f->fd[fd]].vf == vi) {
      st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "renaming `%s` while it is open is not modelled", n0);
      goto out;
    }
  if (v->devnull) {
    st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                      "renaming `%s` (the null device) is not modelled", n0);
    goto out;
  }
  if (strcmp(p0, p1)) {
    cb_vfile *w = vf_new(f, p1, n1);
    if (!w) {
      st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
      goto out;
    }
    v = &f->vf[vi]; /* vf_new may move the array */
    w->exists = w->written = true;
    w->st = v->st;
    w->len = w->cap = v->len;
    w->data = malloc(v->len + 1);
    if (!w->data) {
      st = cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
      goto out;
    }
    memcpy(w->data, v->data ? v->data : (unsigned char *)"", v->len);
    w->writes = v->len;
    v->exists = false;
    v->unlinked = true;
    v->written = true;
  }
  ret[0].u = 0;
out:
  free(n0);
  free(n1);
  return st;
}

void cb_files_outcome(cb_proc *pr, cb_run_outcome *out) {
  cb_files *f = pr->files;
  if (!f)
    return;
  out->files = calloc(f->nvf ? f->nvf : 1, sizeof *out->files);
  if (!out->files)
    return;
  for (uint32_t i = 0; i < f->nvf; i++) {
    const cb_vfile *v = &f->vf[i];
    if (!v->written)
      continue;
    /* one entry per path: its last state, the writes of all its files */
    cb_file_out *o = NULL;
    for (unsigned k = 0; k < out->n_files; k++)
      if (!strcmp(out->files[k].path, v->name))
        o = &out->files[k];
    if (!o) {
      o = &out->files[out->n_files++];
      o->path = strdup(v->name);
    }
    o->writes += v->writes;
    o->removed = !v->exists;
    o->bytes = v->exists ? v->len : 0;
  }
}

cb_stop cb_libc_fd_call(cb_proc *pr, uint32_t fn, const cb_value *a,
                        const uint8_t *ty, uint32_t n, cb_value *ret) {
  (void)ty;
  (void)n;
  int err = 0;
  if (!cb_files_get(pr))
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site, "out of memory");
  switch ((cb_libfn)fn) {
  case CB_LIBC_ERRNO_LOCATION: {
    /* `mov errno's TLS offset(%rip), %rax; add %fs:0, %rax`: libc's GOT
     * slot (+0x1d2de0) and the thread pointer's self word are read
     * (lackey) */
    uint64_t at = errno_addr(pr);
    if (pr->libc_base)
      cb_proc_lib(pr, pr->libc_base + 0x1d2de0, 8, false);
    cb_proc_lib(pr, at + 0x80, 8, false);
    ret[0].u = at;
    return CB_GO;
  }
  case CB_LIBC_OPEN:
  case CB_LIBC_OPEN64:
  case CB_LIBC_CREAT: {
    char *name = cb_proc_read_str(pr, a[0].u, PATH_MAX, NULL);
    if (!name)
      return CB_FAIL;
    int flags = fn == CB_LIBC_CREAT ? O_CREAT | O_WRONLY | O_TRUNC
                                    : (int)(uint32_t)a[1].u;
    unsigned mode = (unsigned)(fn == CB_LIBC_CREAT ? a[1].u : a[2].u);
    int fd = cb_fd_open(pr, name, flags, mode, &err);
    free(name);
    return ret_int(pr, ret, fd, err, false);
  }
  case CB_LIBC_READ:
    return ret_int(pr, ret, cb_fd_read(pr, (int)a[0].u, a[1].u, a[2].u, &err),
                   err, true);
  case CB_LIBC_WRITE:
    return ret_int(pr, ret,
                   cb_fd_write(pr, (int)a[0].u, a[1].u, NULL, a[2].u, &err),
                   err, true);
  case CB_LIBC_LSEEK:
    return ret_int(
        pr, ret,
        cb_fd_seek(pr, (int)a[0].u, (int64_t)a[1].u, (int)a[2].u, &err), err,
        true);
  case CB_LIBC_CLOSE: {
    int fd = (int)a[0].u;
    cb_files *f = pr->files;
    if (fd >= 0 && fd < CB_MAX_FDS)
      for (uint32_t i = 0; i < f->nst; i++)
        if (!f->st[i].closed && f->st[i].fd == fd && f->st[i].wlen)
          return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                              "close(%d) under a FILE with unwritten output "
                              "is not modelled",
                              fd);
    err = cb_fd_close(pr, fd);
    return ret_int(pr, ret, err ? -1 : 0, err, false);
  }
  case CB_LIBC_FSTAT:
  case CB_LIBC_STAT: {
    const cb_vfile *v = NULL;
    if (fn == CB_LIBC_FSTAT) {
      int fd = (int)a[0].u;
      cb_ofd *o = cb_fd_ofd(pr, fd);
      if (!o && cb_fd_accmode(pr, fd) >= 0)
        return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                            "fstat of standard descriptor %d is not modelled",
                            fd);
      if (!o)
        return ret_int(pr, ret, -1, EBADF, false);
      v = &pr->files->vf[o->vf];
    } else {
      char *name = cb_proc_read_str(pr, a[0].u, PATH_MAX, NULL);
      if (!name)
        return CB_FAIL;
      char path[2 * PATH_MAX + 2];
      bool fail = false;
      if (resolve(pr, name, path, sizeof path, &err)) {
        v = vf_find(pr, path, name, &fail);
        err = ENOENT;
      }
      free(name);
      if (fail)
        return CB_FAIL;
      if (!v)
        return ret_int(pr, ret, -1, err, false);
    }
    uint8_t st[144];
    fill_stat(v, st);
    if (!cb_proc_write(pr, a[1].u, st, sizeof st))
      return CB_FAIL;
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_REMOVE:
  case CB_LIBC_UNLINK: {
    char *name = cb_proc_read_str(pr, a[0].u, PATH_MAX, NULL);
    if (!name)
      return CB_FAIL;
    char path[2 * PATH_MAX + 2];
    cb_vfile *v = NULL;
    bool fail = false;
    if (resolve(pr, name, path, sizeof path, &err)) {
      struct stat st;
      if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        cb_stop s =
            cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                         "removing the directory `%s` is not modelled", name);
        free(name);
        return s;
      }
      v = vf_find(pr, path, name, &fail);
      err = ENOENT;
    }
    free(name);
    if (fail)
      return CB_FAIL;
    if (!v)
      return ret_int(pr, ret, -1, err, false);
    if (v->devnull)
      return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                          "removing `%s` (the null device) is not modelled",
                          v->name);
    v->exists = false;
    v->unlinked = true;
    v->written = true;
    ret[0].u = 0;
    return CB_GO;
  }
  case CB_LIBC_RENAME:
    return do_rename(pr, a[0].u, a[1].u, ret);
  default:
    return cb_proc_fail(pr, CB_RUN_ERROR, pr->cur_site,
                        "library function #%u is not modelled", fn);
  }
}
