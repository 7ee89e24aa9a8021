/* cmd.h - one entry point per subcommand (src/cmd/<name>.c).
 * Each takes argv with argv[0] = the subcommand's name and returns the
 * process exit status: 0 success, 1 failed at its job, 2 bad usage; `run`
 * returns the job's own status. */
#ifndef FS_CMD_H
#define FS_CMD_H

int fs_cmd_run(int argc, char **argv);
int fs_cmd_attach(int argc, char **argv);
int fs_cmd_watch(int argc, char **argv);
int fs_cmd_report(int argc, char **argv);
int fs_cmd_bench(int argc, char **argv);
int fs_cmd_probe(int argc, char **argv);

#endif
