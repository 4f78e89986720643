/* The subcommands of `cbana`, one file each in cli/. Each takes the
 * arguments after its own name and returns the process exit status:
 * 0 success, 1 a gate failed (validate, check), 2 an error before any
 * input ran (usage, compile, configuration), 3 some input stopped. */
#ifndef CBANA_CLI_COMMANDS_H
#define CBANA_CLI_COMMANDS_H

typedef struct cb_command {
  const char *name;
  const char *summary;
  int (*run)(int argc, char **argv);
  void (*usage)(void);
} cb_command;

extern const cb_command cb_commands[];

/* cli/analyze.c */
int cb_cmd_analyze_run(int argc, char **argv);
void cb_cmd_analyze_usage(void);

/* cli/validate.c */
int cb_cmd_validate_run(int argc, char **argv);
void cb_cmd_validate_usage(void);

/* cli/sim.c */
int cb_cmd_sim_run(int argc, char **argv);
void cb_cmd_sim_usage(void);
/* cbana dump (cli/dump.c) */
int dump_run(int argc, char **argv);
void dump_usage(void);

/* cli/check.c, cli/diff.c, cli/annotate.c, cli/paths.c */
int cb_cmd_check_run(int argc, char **argv);
void cb_cmd_check_usage(void);
int cb_cmd_diff_run(int argc, char **argv);
void cb_cmd_diff_usage(void);
int cb_cmd_annotate_run(int argc, char **argv);
void cb_cmd_annotate_usage(void);
int cb_cmd_paths_run(int argc, char **argv);
void cb_cmd_paths_usage(void);

/* cli/merge.c, cli/report.c: joining JSON reports, rendering one */
int cb_cmd_merge_run(int argc, char **argv);
void cb_cmd_merge_usage(void);
int cb_cmd_report_run(int argc, char **argv);
void cb_cmd_report_usage(void);

#endif
