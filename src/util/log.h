/* log.h - diagnostics on stderr, always prefixed "feedscope: ".
 *
 * feedscope never writes diagnostics to stdout: stdout belongs to machine
 * output (--json) and, under `run`, to the job.
 */
#ifndef FS_LOG_H
#define FS_LOG_H

#include <stdbool.h>

/* Print "feedscope: <message>\n" on stderr. */
void fs_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Like fs_warn, unless *once is already set; sets it. For "said once" messages. */
void fs_warn_once(bool *once, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Silence fs_warn/fs_warn_once (used by --quiet); errors from fs_usage_error still print. */
void fs_log_set_quiet(bool quiet);

/* Silence fs_usage_error too (the MPI ranks other than 0: they reach the
 * same usage errors as rank 0, which says them once). */
void fs_log_set_usage_silent(bool silent);

/* Like fs_warn, but printed even when quiet: for errors the user must see. */
void fs_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Print "feedscope: <message>\n" on stderr and return 2 (the usage-error exit status). */
int fs_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The usage error for getopt's '?' (unknown option) or ':' (missing value),
 * naming the option as the user typed it. Returns 2. */
int fs_bad_option(const char *cmd, int getopt_result, char **argv);

#endif
