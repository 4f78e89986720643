/* Running cachegrind and reading its output: the ground truth that
 * `cbana validate` compares the analysis with.
 *
 * cb_cg_run() runs
 *   valgrind --tool=cachegrind --cache-sim=yes --D1=.. --LL=.. --I1=..
 *            --cachegrind-out-file=TMP --log-file=TMP PROG ARGS...
 * with an EMPTY environment (as `env -i valgrind ...` does), by fork/exec,
 * no shell; it parses the output file and removes its temporary files on
 * every path. The process layout under valgrind depends on the program path
 * as passed (argv[0] is not made absolute), the arguments and, through the
 * Debian wrapper's PWD, on the working directory: see
 * docs/process-model.md. */
#ifndef CBANA_CLI_CACHEGRIND_H
#define CBANA_CLI_CACHEGRIND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The events of `--cache-sim=yes`, in the order cachegrind writes them. */
enum {
  CB_CG_IR,
  CB_CG_I1MR,
  CB_CG_ILMR,
  CB_CG_DR,
  CB_CG_D1MR,
  CB_CG_DLMR,
  CB_CG_DW,
  CB_CG_D1MW,
  CB_CG_DLMW,
  CB_CG_NEVENTS
};

/* Name of an event ("Ir", "D1mr", ...), NULL when out of range. */
const char *cb_cg_event_name(int ev);

typedef struct cb_cg_counts {
  uint64_t v[CB_CG_NEVENTS];
} cb_cg_counts;

/* A cache geometry; size 0 means "not given". */
typedef struct cb_cg_cache {
  uint64_t size;  /* bytes */
  unsigned assoc; /* ways */
  unsigned line;  /* bytes */
} cb_cg_cache;

/* One row of the output: counts of one source line of one function. */
typedef struct cb_cg_row {
  uint32_t file; /* index in cb_cg_result.files */
  uint32_t fn;   /* index in cb_cg_result.fns */
  uint32_t line; /* 0: code without a source line */
  cb_cg_counts c;
} cb_cg_row;

typedef struct cb_cg_result {
  char *cmd;              /* "cmd:" line */
  cb_cg_cache i1, d1, ll; /* from the "desc:" lines */
  unsigned event_mask;    /* bit ev set: the file had that event */
  char **files;           /* file names as cachegrind printed them */
  size_t nfiles;
  char **fns; /* function names */
  size_t nfns;
  cb_cg_row *rows;
  size_t nrows;
  int has_summary;
  cb_cg_counts summary; /* the "summary:" line */
  cb_cg_counts total;   /* the sum of all rows */
  /* Filled by cb_cg_run: how the program ended. */
  int exited; /* 1: exit_code valid; 0: killed by term_signal */
  int exit_code;
  int term_signal;
} cb_cg_result;

/* Parses a cachegrind output file. Returns 0, or -1 with a message
 * "PATH:LINE: what" in err. *out must be freed with cb_cg_result_free on
 * both paths (it is zeroed first). */
int cb_cg_parse_file(const char *path, cb_cg_result *out, char *err,
                     size_t errlen);
/* The same on an open stream; name is used in messages. */
int cb_cg_parse_stream(FILE *f, const char *name, cb_cg_result *out, char *err,
                       size_t errlen);
void cb_cg_result_free(cb_cg_result *r);

typedef struct cb_cg_request {
  const char *program;     /* executable, passed to valgrind as given */
  const char *const *args; /* its arguments, NULL-terminated; may be NULL */
  const char *stdin_path;  /* NULL: /dev/null */
  const char *stdout_path; /* program's stdout to this file; NULL: discard */
  const char *stderr_path; /* program's stderr, and valgrind's messages,
                              to this file; NULL: discarded */
  const char *cwd;         /* working directory; NULL: the current one */
  cb_cg_cache d1;          /* required */
  cb_cg_cache ll;          /* size 0: CB_CG_NEUTRAL_LL_SIZE, 16-way, d1 line */
  cb_cg_cache i1;          /* size 0: 32 KiB, 8-way, d1 line */
  const char *valgrind;    /* NULL: "valgrind" looked up in $PATH */
  const char *tmpdir;      /* NULL: $TMPDIR, else /tmp */
  unsigned timeout_sec;    /* 0: none; else kill valgrind after it */
} cb_cg_request;

/* The LL used when the request gives none: large enough that its misses
 * are compulsory only, so that it does not matter when one compares D1. */
#define CB_CG_NEUTRAL_LL_SIZE (128ull << 20)

/* Runs the program under cachegrind and parses the result. Returns 0 when
 * cachegrind wrote its output (whatever the program's exit status, which
 * is in out->exited/exit_code/term_signal), -1 with a message otherwise.
 * *out must be freed with cb_cg_result_free on both paths. */
int cb_cg_run(const cb_cg_request *req, cb_cg_result *out, char *err,
              size_t errlen);

/* Whether a file name as cachegrind printed it names the source file src
 * (as given to the compiler; relative paths are relative to compdir, or to
 * the current directory when compdir is NULL). Lexical comparison after
 * normalising "." and ".." and repeated slashes; when one name is relative
 * and cannot be anchored, it matches a trailing run of whole path
 * components of the other. */
int cb_cg_path_matches(const char *cg_name, const char *src,
                       const char *compdir);

/* Sums the rows (line 0 included) whose file is one of files[0..n). */
void cb_cg_sum_files(const cb_cg_result *r, const char *const *files,
                     size_t nfiles, const char *compdir, cb_cg_counts *out);

#endif
