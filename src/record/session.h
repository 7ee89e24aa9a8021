/* session.h - what `run` and `attach` share: the run file, the meta facts
 * about the machine and the run, the recorder, the tick callback, and the
 * summary at the end. */
#ifndef FS_SESSION_H
#define FS_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "record/loop.h"
#include "record/markers.h"
#include "record/recorder.h"
#include "record/stall.h"
#include "store/store.h"

struct fs_session_opts {
	const char *out_path;   /* NULL: feedscope-YYYYmmdd-HHMMSS.db in out_dir */
	const char *out_dir;    /* --output-dir (made when missing); NULL: the cwd */
	bool to_runs_dir;       /* --to-runs-dir: out_dir is the runs directory (util/paths.h) */
	double interval_s;
	double system_interval_s; /* --system-interval (FS_SYSTEM_INTERVAL_S; 0: every tick) */
	bool no_gpu;
	bool force;             /* overwrite an existing -o file */
	bool quiet;             /* no summary */
	const char *only;       /* --sources list, or NULL */
	bool hash_paths;        /* --hash-paths: no path in clear in the run file */
	int pss;                /* smaps_rollup reads: FS_PSS_* (--pss, --no-pss) */
	int states;             /* --states: FS_STATES_AUTO (0), _PROC or _BPF */
	bool bpf_stats;         /* --bpf-stats: count the BPF programs' time in the kernel */
	bool keep_all;          /* --keep-all: no raw row deleted (store/retain.h) */
	bool stalls;            /* run: look for stalls while recording (record/stall.h) */
	double hang_after_s;    /* --hang-after: the stall bound, fixed; 0: derived */
};

struct fs_session {
	struct fs_session_opts opts;
	char path[4096];
	struct fs_paths paths;
	struct fs_job job;
	struct fs_store *store;
	struct fs_recorder *rec;
	uint64_t start_ns;
	uint64_t missed;
	struct fs_markers *markers;  /* run: the marker channel, or NULL */
	char trace_dir[256];         /* run: the tracer's region directory, "" = none */
	struct fs_loop_input input;  /* polls the marker channel */
	struct fs_stall *stall;      /* run: the stall detector, in front of the store's sink; or NULL */
	char stacks_dir[256];        /* run: where the hook dumps Python stacks, "" = none */
};

/* Create the run file (before any job is started, so a bad -o path is a
 * usage error): -o's file (store/runfile.h for what may be replaced), or
 * the first free feedscope-YYYYmmdd-HHMMSS[-N].db in out_dir (made, as
 * mkdir -p, when missing; the runs directory with to_runs_dir; else the
 * cwd), each name made with O_EXCL. -o with a directory option is a usage
 * error. With hash_paths, makes the hash key first (util/pathhash.h) and
 * every meta value is hashed from then on. Returns 0, or 2 after saying why
 * on stderr. */
int fs_session_create(struct fs_session *s, const struct fs_session_opts *o);

/* Write the run-level meta (mode, command, machine facts). */
void fs_session_meta_start(struct fs_session *s, const char *mode, int argc, char **argv);

/* Open the sources for job (fills s->job) and take the t = 0 sample; t = 0
 * is now. Returns 0, or 1 on out-of-memory. */
int fs_session_start(struct fs_session *s, pid_t root, bool adopt);

/* Open the marker channel (run only; before the job is forked, so its
 * address can go into the job's environment). Failing is not fatal: said
 * once, recorded in meta. Returns the channel's address or NULL. */
const char *fs_session_open_markers(struct fs_session *s);

/* Make the tracer's region directory (under /dev/shm); the job source's
 * job gets it. Returns it, or NULL (said once, recorded in meta). It is
 * removed when the session ends. */
const char *fs_session_open_trace(struct fs_session *s, bool hash_paths);

/* The hook will run: make the directory its Python stacks are dumped to
 * at a stall (record/stall.h) and put "SIGNUM:DIR" for FEEDSCOPE_STACKS
 * into env[cap]. False (said once, recorded in meta) when it cannot be
 * made, or stalls are not looked for. It is removed when the session ends. */
bool fs_session_open_stacks(struct fs_session *s, char *env, size_t cap);

/* The tracer will not run after all: remove its directory, say why in meta. */
void fs_session_no_trace(struct fs_session *s, const char *why);

/* The loop input for the marker channel, or NULL when there is none. */
const struct fs_loop_input *fs_session_input(struct fs_session *s);

/* The tick callback for fs_loop_run (arg = the session). */
void fs_session_tick(void *arg, double t, uint64_t missed);

/* Record end meta (exit_code may be < 0: unknown), close everything, print
 * the summary on stderr unless quiet. s->path then says where the run file
 * is (a temporary NAME.partial-PID if it could not replace NAME). Returns
 * 0, or 1 if the run file could not be completed or put in place. */
int fs_session_finish(struct fs_session *s, int exit_code, int term_signal);

/* Abandon the session and delete the run file it made (the job never
 * started); a file -f was to replace is left as it was. */
void fs_session_abort(struct fs_session *s);

/* The sampling interval's range (-i of run, attach and tune), seconds. */
#define FS_INTERVAL_MIN_S 0.001
#define FS_INTERVAL_MAX_S 3600.0

/* The machine-wide sources' interval by default (--system-interval):
 * /proc/stat, diskstats, net/dev and the pressure files cost about 120 us a
 * tick together, 0.12% of a core at 0.1 s, for counters that are not the
 * job's own; iostat, pidstat and node_exporter read them at 1 s or more. */
#define FS_SYSTEM_INTERVAL_S 1.0

/* Parse the options run and attach share; returns 1 if opt was one of
 * them (value in arg), 0 if not, or 2 after a usage error. */
int fs_session_parse_opt(struct fs_session_opts *o, int opt, const char *arg, const char *cmd);

#endif
