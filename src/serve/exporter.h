/* exporter.h - the Prometheus exporter: run files served over HTTP, for
 * `feedscope exporter` and `feedscope run --export` (docs/exporter.md).
 *
 * Three threads of its own, none of them the recorder's: the HTTP server
 * (serve/httpd.c), which only renders what the others keep; the reader,
 * which brings each run file's totals up to date once a second
 * (analysis/load/tally.c, its own read-only SQLite connection) and, when a runs
 * directory is watched, takes the run files that appear there and drops
 * those that vanish (serve/runsdir.h); the verdict, which runs the
 * analysis of `feedscope report --window` over the latest window at most
 * every verdict_every_s seconds. With the machine's figures
 * (fs_exporter_node), a fourth samples them once a second
 * (serve/nodesample.h). A scrape never waits on SQLite nor /proc: it gets
 * the latest totals, verdict and sample. Every thread runs at nice +10 and
 * blocks every signal. */
#ifndef FS_EXPORTER_H
#define FS_EXPORTER_H

#include <stdbool.h>
#include <stddef.h>

#define FS_EXPORTER_MAX_JOBS 64
/* What the reader may spend on one run file in one refresh: waiting for a
 * lock and reading (docs/exporter.md, "Reading run files safely"). */
#define FS_EXPORTER_FILE_DEADLINE_MS 250
/* Descriptors kept for all but the HTTP connections (the run files being
 * read, their -wal and -shm, the machine's sources, the server's own). */
#define FS_EXPORTER_FD_RESERVE 32
#define FS_EXPORTER_DEFAULT_LISTEN "127.0.0.1:9464"

struct fs_exporter_opts {
	double verdict_window_s; /* 60; 0: the whole run */
	double verdict_every_s;  /* 30 */
};
#define FS_EXPORTER_OPTS_DEFAULT ((struct fs_exporter_opts){60, 30})

struct fs_exporter;

/* Bind listen (serve/httpd.h for its forms). Returns the exporter, or
 * NULL with why in err (a port in use: "127.0.0.1:9464: Address already in
 * use"). */
struct fs_exporter *fs_exporter_new(const char *listen, const struct fs_exporter_opts *o, char *err, size_t errlen);

/* The address it listens on ("127.0.0.1:9464"). */
const char *fs_exporter_addr(const struct fs_exporter *x);

/* Serve the run file at path as job (copied). Before fs_exporter_start.
 * The file need not be readable yet (a run being recorded: until its
 * first commit): the reader tries again every second, and the job is
 * feedscope_run_file_up 0 meanwhile. Returns 0, or -1 when
 * FS_EXPORTER_MAX_JOBS are served already. */
int fs_exporter_add(struct fs_exporter *x, const char *path, const char *job);

/* Also serve the run files of dir, as they appear there while the
 * exporter runs (serve/runsdir.h; a missing dir is said once, and its files
 * served once it is there). Before fs_exporter_start. Returns 0, or -1
 * (out of memory). */
int fs_exporter_watch(struct fs_exporter *x, const char *dir);

/* Also serve the machine's own figures (feedscope_node_*: the machine-wide
 * sources, sampled once a second). Opens the sources now (one that cannot
 * be opened is said once on stderr and left out). Before
 * fs_exporter_start. Returns 0, or -1 with why in err. */
int fs_exporter_node(struct fs_exporter *x, char *err, size_t errlen);

/* Is job a job label already served? */
bool fs_exporter_has_job(const struct fs_exporter *x, const char *job);

/* Start the threads. Returns 0, or -1 with why in err (and x still to free). */
int fs_exporter_start(struct fs_exporter *x, char *err, size_t errlen);

/* Stop the threads (if started), close everything, free x (NULL: no-op). */
void fs_exporter_free(struct fs_exporter *x);

/* The job label for a run file's path: its file name without a
 * ".partial-PID" (a run being written under -f) and without ".db". */
void fs_exporter_job_name(const char *path, char *out, size_t cap);

#endif
