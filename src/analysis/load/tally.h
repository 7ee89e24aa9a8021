/* tally.h - running totals of a run file, read incrementally while it is
 * recorded (or once, finished): what the exporter serves as counters.
 *
 * Rows are appended in time order, so each table is read from the rowid
 * after the last one read (`rowid > ?`), at most FS_TALLY_BATCH rows a
 * table per update; totals are kept in memory. An update costs what was
 * appended since the last one, never the whole table. Rows that need their
 * tick's length (proc, gpu) are read only up to the last tick read, so a
 * tick's rows are never counted before its length is known. */
#ifndef FS_TALLY_H
#define FS_TALLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/load/query.h"

#define FS_TALLY_BATCH 100000
#define FS_TALLY_LOOPS 64  /* (pid, loader) pairs: 63, and the steps of the others folded into one "(other)" */
#define FS_TALLY_GPUS 16
#define FS_TALLY_PIDS 512  /* ranks remembered */

enum fs_tally_role { FS_TALLY_MAIN, FS_TALLY_WORKER, FS_TALLY__ROLES };
enum fs_tally_state { FS_TALLY_RUNNING, FS_TALLY_BLOCKED_IO, FS_TALLY_SLEEPING, FS_TALLY_OTHER, FS_TALLY__STATES };
enum fs_tally_class { FS_TALLY_FILE, FS_TALLY_SOCKET, FS_TALLY_PIPE, FS_TALLY_DEVICE, FS_TALLY_OCLASS, FS_TALLY__CLASSES };
enum fs_tally_call { FS_TALLY_READ, FS_TALLY_WRITE, FS_TALLY_SYNC, FS_TALLY_META, FS_TALLY__CALLS };
/* The job's memory by part: the training processes (those that report
 * steps; without steps the job's main process, or below a wrapper its
 * only child with children of its own), their children (the DataLoader
 * workers), the other processes of the job. */
enum fs_tally_part { FS_TALLY_PART_MAIN, FS_TALLY_PART_WORKERS, FS_TALLY_PART_OTHERS, FS_TALLY__PARTS };

/* The names used as label values ("worker", "blocked_io", "socket", "sync"). */
extern const char *const fs_tally_role_names[FS_TALLY__ROLES];
extern const char *const fs_tally_state_names[FS_TALLY__STATES];
extern const char *const fs_tally_class_names[FS_TALLY__CLASSES];
extern const char *const fs_tally_call_names[FS_TALLY__CALLS];
extern const char *const fs_tally_part_names[FS_TALLY__PARTS]; /* "main", "workers", "others" */

struct fs_tally_loop {
	int pid;
	int rank;            /* ranks table (latest row), else meta hook.rank.PID; -1 unknown */
	char loader[64];
	long steps, epoch;   /* epoch: the latest step's */
	double wait_s, compute_s;
};

struct fs_tally_gpu {
	int gpu;
	char name[96];
	double util_pct, mem_used_bytes, mem_total_bytes, power_w; /* the latest row; NaN unknown */
	double busy_s;       /* Σ util_pct / 100 × dt_s */
};

/* Plain data: copied whole from the reader to whoever shows it. */
struct fs_tally_data {
	char mode[16], host[128];
	bool complete;       /* meta end_unix is there: the recording finished */
	double recorded_s;   /* the last tick's t */
	long ticks;
	double missed_ticks; /* Σ ticks.missed */
	int nloops;
	struct fs_tally_loop loops[FS_TALLY_LOOPS];
	bool have_proc, have_classes, have_gpu;
	double thread_s[FS_TALLY__ROLES][FS_TALLY__STATES]; /* Σ threads in the state × dt_s */
	double cpu_s[FS_TALLY__ROLES];                      /* Σ cpu_pct / 100 × dt_s */
	double io_s[FS_TALLY__CLASSES][2][FS_TALLY__CALLS]; /* [class][thread: 0 main, 1 other][call] */
	double io_bytes[FS_TALLY__CLASSES][2][2];           /* [..][0 read, 1 write] */
	double io_calls[FS_TALLY__CLASSES][2];
	int ngpus;
	struct fs_tally_gpu gpus[FS_TALLY_GPUS];
	/* Memory, the latest whole tick's (proc, cgroup) or the latest mem
	 * row's; NaN not recorded. pss, uss, swap: Σ over the part's
	 * processes (0: none of them), set only where the tick has a PSS
	 * reading (have_pss) */
	bool have_pss;
	double pss[FS_TALLY__PARTS], uss[FS_TALLY__PARTS], swap[FS_TALLY__PARTS];
	double shm_used, shm_size;        /* mem.dev_shm_bytes, dev_shm_size_bytes */
	double cg_limit, cg_peak, cg_usage; /* cgroup.mem_*: the largest of the job's cgroups */
	/* Stalls (the stalls table, schema 14): found so far; whether the
	 * latest one is still on (a start without its end), and since when
	 * (its t_start, seconds since the run started) */
	int stalls;
	bool stalled;
	double stall_start;
};

/* A process of the tick being read (its memory). */
struct fs_tally_proc {
	int pid, ppid;
	double pss, uss, swap;
};

/* How the connection is opened (NULL: fs_q_open): 0, or -1 with why. */
typedef int (*fs_tally_opener)(void *arg, struct fs_q *q, const char *path, char *err, size_t errlen);

struct fs_tally {
	char path[4096];
	fs_tally_opener opener;
	void *opener_arg;
	struct fs_q q;
	bool attached; /* opened (fs_tally_open) and not closed */
	bool open;     /* the connection is open (not released) */
	int64_t last_rowid[12]; /* per table read after a rowid (tally.c's statements) */
	sqlite3_stmt *st[12];
	int main_pid;  /* meta pid */
	/* the proc rows of the latest tick read (memory), the cgroup rows' */
	struct fs_tally_proc *procs;
	int nprocs, procs_cap;
	double procs_t, cg_t;
	double cg_cur[3];
	int npids;
	struct { int pid, rank, hook_rank; } pids[FS_TALLY_PIDS];
	struct fs_tally_data d;
};

/* Open path read-only (fs_q_open: it must hold meta rows already). Returns
 * 0, or -1 with why in err; t is then closed (fs_tally_close harmless). */
int fs_tally_open(struct fs_tally *t, const char *path, char *err, size_t errlen);

/* The same, each connection (this one, and those after a release) opened
 * by fn (the exporter's reader: serve/runfile.h). */
int fs_tally_open_with(struct fs_tally *t, const char *path, fs_tally_opener fn, void *arg, char *err, size_t errlen);

/* Read what was appended since the last update into t->d. Returns 1 when
 * a table had more than FS_TALLY_BATCH new rows (call again soon), 0 when
 * caught up, -1 with why in err when a query failed (SQLite's message). */
int fs_tally_update(struct fs_tally *t, char *err, size_t errlen);

/* Close the connection, keeping the totals; the next update opens it
 * again. Between updates of a run being recorded: its recorder can leave
 * WAL mode at its end (one file again) only while no other connection has
 * the file open. */
void fs_tally_release(struct fs_tally *t);

/* Close t (harmless twice, or after a failed open). */
void fs_tally_close(struct fs_tally *t);

#endif
