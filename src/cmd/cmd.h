/* cmd.h - one entry point per subcommand (src/cmd/<name>.c).
 * Each takes argv with argv[0] = the subcommand's name and returns the
 * process exit status: 0 success, 1 failed at its job, 2 bad usage; `run`
 * returns the job's own status. */
#ifndef FS_CMD_H
#define FS_CMD_H

#include <stdbool.h>
#include <stdio.h>

int fs_cmd_run(int argc, char **argv);
int fs_cmd_attach(int argc, char **argv);
int fs_cmd_watch(int argc, char **argv);
int fs_cmd_top(int argc, char **argv);
int fs_cmd_report(int argc, char **argv);
int fs_cmd_diff(int argc, char **argv);
int fs_cmd_export(int argc, char **argv);
int fs_cmd_exporter(int argc, char **argv);
int fs_cmd_tune(int argc, char **argv);
int fs_cmd_bench(int argc, char **argv);
int fs_cmd_probe(int argc, char **argv);

/* Shared by the commands that read run files (defined in report.c): a
 * --window argument "S:E", "S:", ":E" in seconds (false on junk or S > E);
 * a run-file argument that must be a regular file, or a symlink to one
 * (SQLite would block on a FIFO): 0, or 2 after saying why, prefixed by
 * cmd; and the end of a command that prints: stdout flushed, a write that
 * failed (>/dev/full, a closed pipe) said and exit 1, else rc. */
struct fs_window;
bool fs_cmd_parse_window(const char *s, struct fs_window *w);
int fs_cmd_check_run_file(const char *cmd, const char *path);
int fs_cmd_finish_stdout(const char *cmd, int rc);

/* And for a document written to a file (-o FILE of report and diff
 * --format html): fs_cmd_check_output refuses, before anything is read,
 * what is not a regular file or a new name in an existing directory (2
 * after saying why; "-" is stdout); fs_cmd_write_output has render(out,
 * arg) write FILE.partial-PID and renames it over FILE when complete, so
 * FILE is never half written and a failure leaves it as it was: 0, or 1
 * after saying why. */
int fs_cmd_check_output(const char *cmd, const char *dest);
int fs_cmd_write_output(const char *cmd, const char *dest, void (*render)(FILE *out, const void *arg), const void *arg);

#endif
