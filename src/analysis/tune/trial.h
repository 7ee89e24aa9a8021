/* trial.h - one trial of `feedscope tune`: what it measured, read from
 * its run file through the report's path.
 *
 * A trial is one run of the job with some DataLoader keyword arguments
 * overridden; its steady state is its steps after the warm-up: the step
 * time is the wall time from the end of step W to the end of the last
 * step, over the steps in between (epoch boundaries, validation and
 * checkpoints included: what the job's loop pays), and its verdict is the
 * report's over that same window (cut by window.h; its noise: noise.h).
 * docs/tune.md describes the search. */
#ifndef FS_TUNE_TRIAL_H
#define FS_TUNE_TRIAL_H

#include <stdbool.h>

#include "analysis/judge/verdict.h"
#include "analysis/tune/knobs.h"
#include "analysis/tune/window.h"

/* A recommendation of the trial's verdict that is a loader knob. */
struct fs_tune_move {
	enum fs_tune_knob knob;
	int value;
	char relieves[64];
};

struct fs_tune_trial {
	int id;
	char why[160];             /* "baseline", or what the verdict pointed to */
	bool confirms;             /* a run again after the search, of the best's setting or the
				      baseline's, to confirm a gain (no candidate) */
	struct fs_tune_knobs asked;   /* what the trial set */
	struct fs_tune_knobs eff;     /* the main loader's settings as the hook saw them (-1 unknown) */
	char status[24];           /* "ok", "failed" (exit status not 0), "too_few_steps", "budget", "unreadable",
				      "memory" (ran short), "not_applied" (the loader had other settings) */
	char status_text[720];
	int exit_code;
	double duration_s;         /* the whole trial, start to exit */
	/* the steady state (NaN when unknown) */
	long steps;                /* measured (after the warm-up) */
	long first_step;           /* the window's first step (0-based; steps from there are measured) */
	enum fs_tune_window window; /* how the window was cut (STEPS or EPOCHS once read) */
	long epoch_steps;          /* steps in the trial's first epoch, 0 when it did not end */
	long prefill;              /* batches its loader asks for at each iterator start (workers x prefetch) */
	double step_s, samples_per_s, wait_share;
	double step_se_rel;        /* the step time's standard error, a share of it (fs_tune_step_noise) */
	double cpu_cores;          /* the job's CPU use over the window, in cores */
	double main_rss_bytes, workers_rss_bytes, workers_pss_bytes, workers_pss_growth_bytes;
	double dev_shm_bytes, mem_available_min_bytes;
	/* What more workers or deeper prefetch would cost, over the whole
	 * trial (judge/memory.h): one more worker's memory (its private
	 * memory and its share of the /dev/shm batches); the room the trial
	 * left before memory runs short, the smaller of the cgroup's (its
	 * limit less mem_headroom_min, less the job's PSS peak) and the
	 * machine's (MemAvailable's low less mem_available_low), and which one
	 * it is ("the cgroup's limit", "the machine's memory"); /dev/shm's room
	 * (its size less mem_headroom_min, less its peak). NaN unknown. */
	double per_worker_bytes, mem_room_bytes, shm_room_bytes;
	char mem_room_of[32];
	/* the verdict over the window */
	bool have_verdict;
	enum fs_verdict_id verdict;
	double predicted_speedup;
	char relieves[64];         /* the resource its first recommendation relieves, "" */
	int nmoves;
	struct fs_tune_move moves[FS_MAX_RECS];
	/* what the search needs of the machine */
	int ncpu;
	double quota_cores;        /* the job's cgroup CPU quota, NaN without one */
	bool quota_throttled;      /* the verdict found the job throttled by it */
};

/* Read trial t's figures from its run file (t->id, why, asked, status,
 * exit_code and duration_s are the caller's), over the window fs_tune_span
 * cuts (warmup: the steps skipped at least; window: how). Returns 0, or -1
 * with t->status "unreadable" / "too_few_steps" and status_text saying
 * why. A trial read (0) whose figures are no candidate has status "memory"
 * or "not_applied" (a knob it asked for that the loader, as the hook
 * recorded it, did not have). */
int fs_tune_trial_read(const char *path, long warmup, enum fs_tune_window window, struct fs_tune_trial *t);

/* The steps a trial runs (the hook ends it after them) to measure about
 * `steps` of them: warm-up and prefill, then the steps; with whole epochs
 * of epoch_steps, the epochs after those that cover the warm-up and
 * prefill, round(steps / epoch_steps) of them (at least 1), and one step of
 * the next (its start closes the last). */
long fs_tune_trial_length(long warmup, long steps, long prefill, enum fs_tune_window window, long epoch_steps);

#endif
