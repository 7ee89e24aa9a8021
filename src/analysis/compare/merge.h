/* merge.h - the run files of several nodes (one per node) as one job: the
 * straggler across all their training processes and its cause, a table per
 * rank and per node, their clocks aligned, the skew of step ends across
 * ranks (docs/verdicts.md, "Several nodes").
 *
 * The reading is fs_merge_head and fs_merge_load (the metrics through
 * fs_metrics_load, then the few series the clocks and the skew need);
 * fs_merge is a pure function of what they read. One run file goes through
 * the same path: its ranks and its straggler. */
#ifndef FS_MERGE_H
#define FS_MERGE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/metrics.h"
#include "analysis/load/phaseseries.h"
#include "analysis/load/sync.h"
#include "analysis/judge/verdict.h"

#define FS_MERGE_MAX_FILES 64
#define FS_MERGE_MAX_RANKS (FS_MERGE_MAX_FILES * FS_MAX_LOOPS)

/* Times of one process in its run file's seconds (since that file's
 * t = 0), in the order they happened. */
struct fs_series {
	double *t;
	size_t n;
};


/* One run file (one node), as fs_merge_head and fs_merge_load read it. */
struct fs_merge_file {
	char path[1024];
	char mode[16];      /* meta mode: "run", "attach", "bench" */
	char host[256];     /* meta hostname, "" when absent */
	double start_unix;  /* meta start_unix: the wall clock at t = 0; NaN when absent */
	struct fs_metrics m;
	/* per m.loops[i], over the whole run file (whatever the window): the
	 * ends of its collective phases, and its steps */
	struct fs_series coll_end[FS_MAX_LOOPS];
	struct fs_steps_series steps[FS_MAX_LOOPS]; /* in its run file's seconds */
	struct fs_peer_rows peers; /* its peers rows (run = its index is set by fs_merge) */
	/* set by the caller before fs_merge_load to have every loop's steps
	 * read whole (steps[]): merging several files (the k-th step's
	 * alignment across them), tune (a trial's steady state). Otherwise a
	 * file's steps are read only when it has several loops: a day-long
	 * run's steps are millions of rows */
	bool want_steps;
	/* set by the caller before fs_merge_load to have the verdict split
	 * into phases (advise/phases.h): the loop's candidate stretches and
	 * the metrics of each (seg: cands.n of them when cands.n > 1) */
	bool want_phases;
	struct fs_phase_cands cands;
	struct fs_metrics *seg;
};

/* Read path's meta (mode, hostname, start_unix) into f, which it clears.
 * Returns 0, or -1 with a reason in err ("PATH: not a feedscope run file",
 * or SQLite's message). */
int fs_merge_head(const char *path, struct fs_merge_file *f, char *err, size_t errlen);

/* Then f's metrics within window w (its own seconds; NULL: all) and its
 * series. Returns 0, or -1 with a reason in err (fs_metrics_load's, or a
 * query of the series that failed). Free with fs_merge_file_free. */
int fs_merge_load(struct fs_merge_file *f, const struct fs_window *w, char *err, size_t errlen);
void fs_merge_file_free(struct fs_merge_file *f);

/* Which file's t = 0 is the merged t = 0: the earliest start_unix (the
 * first file when none has one). */
int fs_merge_reference(const struct fs_merge_file *files, int n);

/* The window w (seconds since the reference file's start) in file i's own
 * seconds, by the wall clock (meta start_unix). */
struct fs_window fs_merge_file_window(const struct fs_merge_file *files, int n, int i, const struct fs_window *w);

/* A training process of one of the files. */
struct fs_merge_rank {
	int file, loop;            /* files[file].m.loops[loop] */
	int pid, rank, local_rank; /* rank, local_rank -1 when unknown */
	long steps;
	struct fs_accounting a;    /* its buckets (accounting.c) */
	double input_wait_s;       /* its input_wait bucket, seconds (NaN: not valid) */
	double lost_waiting_s;     /* its other_ranks bucket: inside collectives, waiting on the others */
	double sync_wait_s;        /* of several files: its wait on the others seen at the step boundaries of
				    * all ranks (sync.h), NaN when they are not in step */
	struct fs_net net;         /* its sockets and its workers' (peers.h): the data network and the traffic
				    * with the job's processes, classified over every file given */
};

/* One run file as a node of the job. */
struct fs_merge_node {
	char name[320];            /* hostname; "hostname (file)" when two files share one; the file's name without */
	char path[1024];
	int ranks;                 /* its training processes */
	int straggler;             /* its own straggler, index into fs_merged.ranks */
	enum fs_verdict_id verdict; /* its own verdict (for its own straggler) */
	double input_wait_share;   /* Σ input wait ÷ Σ loop time of its ranks */
	double gpu_busy;           /* its GPUs' mean util over its window, 0..1, NaN */
	/* the clock: file time t is t + offset_s - correction_s after the
	 * reference's t = 0 */
	double offset_s;           /* by the wall clock (start_unix), 0 without one */
	bool wall_clock;           /* it has a start_unix */
	double correction_s;       /* how far its clock is ahead of the collectives' reference node's (0: none) */
	double uncertainty_s;      /* the correction's spread (median absolute deviation); NaN: unknown */
	long collective_ends;      /* collective ends the correction was taken from (0: wall clock only) */
};

struct fs_merged {
	int nfiles;
	struct fs_merge_node nodes[FS_MERGE_MAX_FILES];
	int nranks;
	struct fs_merge_rank ranks[FS_MERGE_MAX_RANKS];
	int straggler;             /* index into ranks, -1 when none */
	char straggler_why[96];
	double lost_by_others_s;   /* Σ of the other ranks' lost_waiting_s */
	/* the clocks */
	int reference;             /* the node whose t = 0 is the merged t = 0 */
	int clock_reference;       /* the node the corrections are relative to (-1: no collectives) */
	long collective_ends;      /* over all nodes */
	double max_correction_s;   /* the correction of largest size (0 without) */
	double uncertainty_s;      /* the largest node's uncertainty; NaN when a node has none (wall clock only) */
	/* step ends across the ranks of all files, on the aligned clock
	 * (sync.h: each step of the first rank matched with the nearest of
	 * every other's): max - min of the matched ends */
	long skew_steps;           /* steps matched on every rank (0: fewer than two ranks with steps) */
	double skew_median_s, skew_p95_s;
	bool in_step;              /* the ranks are in step (synchronous data parallelism) */
	/* the verdict: fs_diagnose on the straggler's file's metrics with its
	 * trainer set to the straggler */
	int verdict_file;
	struct fs_metrics m;
	struct fs_verdict v;
};

/* Merge n loaded files (1 <= n <= FS_MERGE_MAX_FILES) into g; w is the
 * report's window in merged seconds (NULL: all), for the skew. Pure.
 * Returns 0, or -1 when memory ran out (g then holds no verdict). */
int fs_merge(const struct fs_merge_file *files, int n, const struct fs_window *w, struct fs_merged *g);

/* The order ranks are shown in: by rank (unknown last), then by node;
 * order[0..g->nranks) gets indices into g->ranks. */
void fs_merge_rank_order(const struct fs_merged *g, int *order);

#endif
