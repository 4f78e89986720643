/* cbana's entry point: finds the subcommand and hands it the rest of the
 * command line. The table below is the one list of subcommands. */
#include "commands.h"

#include <stdio.h>
#include <string.h>

#define CBANA_VERSION "0.1.0"

static int help_run(int argc, char **argv);
static void help_usage(void);

const cb_command cb_commands[] = {
    {"help", "describe a subcommand", help_run, help_usage},
    {"analyze", "predict the cache behaviour of a program for its inputs",
     cb_cmd_analyze_run, cb_cmd_analyze_usage},
    {"validate", "analyze, and compare with cachegrind runs",
     cb_cmd_validate_run, cb_cmd_validate_usage},
    {"annotate", "the source with accesses and misses per line",
     cb_cmd_annotate_run, cb_cmd_annotate_usage},
    {"paths", "the program-state graph: branches, path classes, inputs",
     cb_cmd_paths_run, cb_cmd_paths_usage},
    {"check", "CI gate: fail when misses grew past a baseline",
     cb_cmd_check_run, cb_cmd_check_usage},
    {"diff", "what changed between two JSON reports", cb_cmd_diff_run,
     cb_cmd_diff_usage},
    {"merge", "join JSON reports of shards, caches or programs",
     cb_cmd_merge_run, cb_cmd_merge_usage},
    {"report", "render a JSON report as text, HTML or SARIF", cb_cmd_report_run,
     cb_cmd_report_usage},
    {"sim", "run an address trace through a cache hierarchy", cb_cmd_sim_run,
     cb_cmd_sim_usage},
    {"dump", "print the lowered program: functions, loops, sites, globals",
     dump_run, dump_usage},
    {NULL, NULL, NULL, NULL},
};

static const cb_command *find_command(const char *name) {
  for (const cb_command *c = cb_commands; c->name; c++)
    if (strcmp(c->name, name) == 0)
      return c;
  return NULL;
}

static void print_overview(FILE *out) {
  fprintf(out, "usage: cbana COMMAND [ARGS...]\n\n"
               "cbana predicts the data-cache behaviour of a C program for\n"
               "given inputs, without running it on the target machine.\n\n"
               "commands:\n");
  for (const cb_command *c = cb_commands; c->name; c++)
    fprintf(out, "  %-10s %s\n", c->name, c->summary);
  fprintf(out, "\n`cbana help COMMAND` or `cbana COMMAND --help` for more.\n");
}

static void help_usage(void) {
  printf("usage: cbana help [COMMAND]\n");
}

static int help_run(int argc, char **argv) {
  if (argc < 1) {
    print_overview(stdout);
    return 0;
  }
  const cb_command *c = find_command(argv[0]);
  if (!c) {
    fprintf(stderr, "cbana: unknown command '%s'\n", argv[0]);
    return 2;
  }
  c->usage();
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    print_overview(stderr);
    return 2;
  }
  if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
    print_overview(stdout);
    return 0;
  }
  if (strcmp(argv[1], "--version") == 0) {
    printf("cbana %s\n", CBANA_VERSION);
    return 0;
  }
  const cb_command *c = find_command(argv[1]);
  if (!c) {
    fprintf(stderr, "cbana: unknown command '%s' (see `cbana --help`)\n",
            argv[1]);
    return 2;
  }
  for (int i = 2; i < argc; i++)
    if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
      c->usage();
      return 0;
    }
  return c->run(argc - 2, argv + 2);
}
