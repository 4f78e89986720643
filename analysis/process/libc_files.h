/* libc_files.h: the state of one run's files, file descriptors and FILE
 * streams, shared by libc_fd.c (files and descriptors: what the kernel
 * keeps) and libc_files.c, libc_files_calls.c (FILE streams: what glibc
 * keeps, and its buffers on the modelled heap). Internal to analysis/.
 *
 * The files a program reads are read from disk at analysis time, relative
 * to the run's working directory; what it writes stays here, in memory:
 * cbana never creates, changes or removes a file. */
#ifndef CBANA_ANALYSIS_LIBC_FILES_H
#define CBANA_ANALYSIS_LIBC_FILES_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>

#include "libc_internal.h"

/* A file as the run sees it. */
typedef struct cb_vfile {
  char *path; /* resolved: the real directory joined with the name */
  char *name; /* as the program first named it */
  unsigned char *data;
  uint64_t len, cap;
  bool exists;   /* in the run's view now */
  bool unlinked; /* removed while this entry was the path's (a later
                    create makes a new entry) */
  bool written;  /* the run created, wrote, truncated or removed it */
  uint64_t writes;
  bool on_disk; /* it was there at analysis time: st holds its stat */
  bool devnull; /* /dev/null: reads at its end, writes discarded */
  struct stat st;
} cb_vfile;

/* An open file description: what a descriptor refers to. */
typedef struct cb_ofd {
  uint32_t vf; /* cb_files.vf index */
  uint64_t pos;
  int acc; /* O_RDONLY, O_WRONLY or O_RDWR */
  bool append;
} cb_ofd;

enum {
  CB_FD_FREE = -1,
  CB_FD_STDIN = -2,
  CB_FD_STDOUT = -3,
  CB_FD_STDERR = -4
};
/* RLIMIT_NOFILE's usual soft limit (valgrind keeps a few descriptors of
 * its own above the client's; a program near the limit is not modelled) */
#define CB_MAX_FDS 1024

/* glibc's _IO_FILE as fopen mallocs it (struct locked_FILE: the FILE,
 * its vtable pointer, its lock and its wide data; 472 bytes in glibc 2.36,
 * measured with malloc_usable_size), and the offsets of the fields its
 * functions touch (libio/bits/types/struct_FILE.h). */
#define CB_FILE_SIZE 472u
enum {
  CB_F_FLAGS = 0,
  CB_F_READ_PTR = 8,
  CB_F_READ_END = 16,
  CB_F_READ_BASE = 24,
  CB_F_WRITE_BASE = 32,
  CB_F_WRITE_PTR = 40,
  CB_F_WRITE_END = 48,
  CB_F_BUF_BASE = 56,
  CB_F_BUF_END = 64,
  CB_F_FILENO = 112,
  CB_F_FLAGS2 = 116,
  CB_F_LOCK = 136,
  CB_F_OFFSET = 144,
  CB_F_MODE = 192,
  CB_F_VTABLE = 216,
  CB_F_LOCKWORD = 224, /* the lock itself, inside locked_FILE */
  CB_F_LOCKCNT = 228,
  CB_F_OWNER = 232,
};
/* _flags bits (libio.h) a program may read through feof_unlocked's
 * inline body */
#define CB_IO_MAGIC 0xFBAD0000u
#define CB_IO_EOF_SEEN 0x10u
#define CB_IO_ERR_SEEN 0x20u

/* A FILE stream opened by fopen or fdopen. */
typedef struct cb_stream {
  uint64_t fp; /* the FILE (a heap block of CB_FILE_SIZE) */
  int fd;
  bool rd, wr, append;
  bool eof, err, closed;
  int bmode;           /* _IOFBF 0, _IOLBF 1, _IONBF 2 */
  uint64_t buf, bufsz; /* 0 until the first input or output */
  bool user_buf;       /* setvbuf's: not glibc's to free */
  /* reading: the buffer holds the file's bytes [roff, roff + rlen), a
   * copy in rcopy; the next byte is rpos */
  uint64_t roff, rlen, rpos;
  unsigned char *rcopy;
  /* writing: wlen bytes wait at the buffer's start */
  uint64_t wlen;
  unsigned char *wcopy;
  /* ungetc of a byte other than the one before: glibc's backup area
   * (malloc(128), libio/genops.c _IO_default_pbackfail); pb[npb - 1] is
   * read next */
  uint64_t backup;
  unsigned char pb[128];
  uint32_t npb;
  /* the read and write pointers libc_stdio_sync.c last wrote into the
   * FILE (0: none), which the program's inline code moves on */
  uint64_t pub_rp, pub_wp;
} cb_stream;

/* getopt's getopt_data (posix/getopt_int.h): optind and opterr as the
 * globals last held them, the rest its own (libc_getopt.c) */
typedef struct cb_getopt_state {
  int optind, opterr, optopt;
  uint64_t nextchar;
  int ordering, first_nonopt, last_nonopt;
  bool initialized;
} cb_getopt_state;

typedef struct cb_files {
  cb_vfile *vf;
  uint32_t nvf, capvf;
  cb_ofd *ofd;
  uint32_t nofd, capofd;
  int32_t fd[CB_MAX_FDS]; /* CB_FD_* or an ofd index */
  cb_stream *st;
  uint32_t nst, capst;
  uint64_t errno_addr;  /* 0 until the first use */
  uint64_t stdin_kpos;  /* fd 0's offset as read(0) moved it */
  bool stderr_oriented; /* some output went to stderr (perror) */
  bool stdin_eof, stdin_err, stdout_err;
  /* ungetc on stdin of a byte other than the one before */
  unsigned char stdin_pb[128];
  uint32_t stdin_npb;
  uint64_t stdin_backup;
  /* rewind(stdin) made glibc's _offset known (until the end is read);
   * hold0: a rewind inside the buffer left block 0 in it at position 0 */
  bool stdin_off_known, stdin_hold0;
  /* signal()'s handlers, by signal number (SIG_DFL 0 at the start) */
  uint64_t sig_handler[65];
  cb_getopt_state getopt;
} cb_files;

/* libc_files.c: the streams' machinery, shared with libc_files_calls.c. */
/* The FILE fields a function touches (its lackey-measured list). */
enum {
  CB_ACC_GETC,
  CB_ACC_PUTC,
  CB_ACC_GETS,
  CB_ACC_READ,
  CB_ACC_SCANF,
  CB_ACC_SCAN_BYTE,
  CB_ACC_UNGETC,
  CB_ACC_FLAG,
  CB_ACC_TELL,
  CB_ACC_SEEK,
  CB_ACC_PUTS,
  CB_ACC_PRINTF
};
void cb_st_touch(cb_proc *pr, const cb_stream *s, int kind);
/* The open stream of fp; NULL (cb_st_get: after failing the run, naming
 * `what`) when there is none. */
cb_stream *cb_st_find(cb_proc *pr, uint64_t fp);
cb_stream *cb_st_get(cb_proc *pr, uint64_t fp, const char *what);
bool cb_st_is_std(const cb_proc *pr, uint64_t fp);
/* _flags in the FILE's memory; the error flag and errno. */
void cb_st_sync_flags(cb_proc *pr, const cb_stream *s);
void cb_st_set_err(cb_proc *pr, cb_stream *s, int err);
/* The buffer (_IO_file_doallocate); false after failing the run. */
bool cb_st_ensure_buf(cb_proc *pr, cb_stream *s);
/* stdin's buffer, made at its first read */
void cb_libc_stdin_buf(cb_proc *pr);
void cb_st_drop_backup(cb_proc *pr, cb_stream *s);
/* Writes out what waits in the buffer; false: the write failed. */
bool cb_st_flush(cb_proc *pr, cb_stream *s);
cb_ofd *cb_st_ofd(cb_proc *pr, cb_stream *s);
uint64_t cb_st_tell(cb_proc *pr, cb_stream *s);
/* Leaves reading: the kernel's offset goes back to the stream's. */
void cb_st_leave_read(cb_proc *pr, cb_stream *s);
/* __underflow: the bytes the refill brought (0: end or error), -1 after
 * failing the run. */
int64_t cb_st_fill(cb_proc *pr, cb_stream *s);
bool cb_st_can_read(cb_proc *pr, cb_stream *s);
/* The next byte, EOF, or -2 after failing the run. */
int cb_st_getc(cb_proc *pr, cb_stream *s);
/* k buffered bytes to the program's dst, with memcpy's traffic. */
bool cb_st_copy_out(cb_proc *pr, cb_stream *s, uint64_t dst, uint64_t k);
/* fopen (fdopen when by_fd) and fclose. */
cb_stop cb_st_fopen(cb_proc *pr, const cb_value *a, bool by_fd, cb_value *ret);
cb_stop cb_st_fclose(cb_proc *pr, cb_stream *s, cb_value *ret);

/* The run's state, made at the first use. */
cb_files *cb_files_get(cb_proc *pr);
/* The vfile behind descriptor fd, NULL when fd is not a file's. */
cb_ofd *cb_fd_ofd(cb_proc *pr, int fd);

#endif
