/* tune.h - `feedscope tune`: what one trial measured (read from its run
 * file through the report's path) and which trial to run next (pure).
 *
 * A trial is one run of the job with some DataLoader keyword arguments
 * overridden; its steady state is its steps after the warm-up: the step
 * time is the wall time from the end of step W to the end of the last
 * step, over the steps in between (epoch boundaries, validation and
 * checkpoints included: what the job's loop pays), and its verdict is the
 * report's over that same window. docs/tune.md describes the search. */
#ifndef FS_TUNE_H
#define FS_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/judge/verdict.h"

/* The thresholds of the search (a gain that counts, the samples a verdict
 * needs) are in the one table, analysis/thresholds.c (tune_*). */

enum fs_tune_knob {
	FS_KNOB_NUM_WORKERS,
	FS_KNOB_PREFETCH_FACTOR,
	FS_KNOB_PIN_MEMORY,
	FS_KNOB_PERSISTENT_WORKERS,
	FS_KNOB_BATCH_SIZE,
	FS_KNOB__N
};

/* The knob's DataLoader keyword ("num_workers", ...); its index from a
 * name, -1 when it is not one. */
const char *fs_tune_knob_name(enum fs_tune_knob k);
int fs_tune_knob_parse(const char *name);

/* Whether knob k is a boolean (pin_memory, persistent_workers); value v of
 * knob k as Python writes it ("True", "8") into out. */
bool fs_tune_knob_is_bool(int k);
void fs_tune_knob_value(char *out, size_t cap, int k, int v);

/* A setting: each knob's value, -1 for "the job's own" (booleans 0/1). */
struct fs_tune_knobs {
	int v[FS_KNOB__N];
};

void fs_tune_knobs_unset(struct fs_tune_knobs *k);
/* The FEEDSCOPE_TUNE words for k and a stop after steps ("num_workers=8
 * steps=60"). */
void fs_tune_knobs_env(const struct fs_tune_knobs *k, long steps, char *out, size_t cap);
/* "num_workers=8, prefetch_factor=4" (the knobs set in k; "the job's own
 * settings" when none). */
void fs_tune_knobs_text(const struct fs_tune_knobs *k, char *out, size_t cap);
bool fs_tune_knobs_equal(const struct fs_tune_knobs *a, const struct fs_tune_knobs *b);

/* A recommendation of the trial's verdict that is a loader knob. */
struct fs_tune_move {
	enum fs_tune_knob knob;
	int value;
	char relieves[64];
};

/* How a trial's steady-state window is cut (fs_tune_span). */
enum fs_tune_window {
	FS_TUNE_WINDOW_AUTO,       /* whole epochs where the trial holds an epoch start after the
				      warm-up and a whole epoch, else steps */
	FS_TUNE_WINDOW_STEPS,      /* steps inside one epoch, clear of its first and last prefill */
	FS_TUNE_WINDOW_EPOCHS,     /* whole epochs (each with its start and one end) */
};
const char *fs_tune_window_name(enum fs_tune_window w); /* "auto", "steps", "epochs" */

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

/* The batches a loader asks for when an iterator starts: workers x
 * prefetch_factor (2 when unknown); 0 without workers. */
long fs_tune_prefill(int workers, int prefetch_factor);

/* A trial's steady-state window over its n steps, starts[i] set where step
 * i begins an iterator (an epoch; starts[0] the first). An iterator's start
 * asks for `prefill` batches at once and its last `prefill` steps ask for
 * none (the sampler is spent), so a window cut near either end measures
 * more or less than a step's share of the work (a sampler drawn in the
 * training process: 1.4x for nothing). Whole epochs hold each of those
 * once; inside one epoch, a window clear of prefill steps after its start
 * and before its end holds neither. Both skip at least `warmup` steps and
 * the first prefill. STEPS also drops the first (steps mod workers) steps
 * (workers started together hand their batches over together).
 * AUTO: whole epochs if one fits, else STEPS, else (a baseline too short
 * for either) the steps after the warm-up and prefill, epochs or not.
 * Returns true with the window's first and last step (inclusive), the
 * cut used and the first epoch's steps (0: it did not end); false when no
 * window of 2 steps (EPOCHS: of a whole epoch) fits. */
struct fs_tune_span {
	long first, last;
	enum fs_tune_window window;
	long epoch_steps;
};
bool fs_tune_span(const unsigned char *starts, long n, long warmup, long prefill, int workers,
		  enum fs_tune_window window, struct fs_tune_span *out);

/* How every trial is measured: at least `warmup` steps skipped, about
 * `steps` measured, the window cut so (STEPS or EPOCHS once the baseline
 * is read; AUTO before), epoch_steps the baseline's epoch. */
struct fs_tune_plan {
	long warmup, steps;
	enum fs_tune_window window;
	long epoch_steps;
	long prefill;              /* the baseline's (fs_tune_prefill), once it ran: for its runs again */
};

/* After the baseline trial base (read with AUTO): how the trials are to be
 * measured. With allow_rerun, the plan may ask for the baseline to be run
 * again (returns non-zero, note saying why): 1 when its window held fewer
 * than tune_min_samples samples of interval_s (pl->steps becomes what
 * covers them, at most 100 times more), 2 when it crossed an epoch's end
 * without holding a whole epoch after its warm-up (pl->window becomes
 * EPOCHS, if that trial is at most 4 times as long), or both (3). Returns 0
 * otherwise, pl->window and epoch_steps then the baseline's own; either
 * way pl->prefill is the baseline's. Pure. */
int fs_tune_replan(struct fs_tune_plan *pl, const struct fs_tune_trial *base, double interval_s, bool allow_rerun,
		   char *note, size_t cap);

/* The steps a trial runs (the hook ends it after them) to measure about
 * `steps` of them: warm-up and prefill, then the steps; with whole epochs
 * of epoch_steps, the epochs after those that cover the warm-up and
 * prefill, round(steps / epoch_steps) of them (at least 1), and one step of
 * the next (its start closes the last). */
long fs_tune_trial_length(long warmup, long steps, long prefill, enum fs_tune_window window, long epoch_steps);

/* The noise of a mean step time over steps first..n-1, whose ends are
 * end_s[first-1] (start_s when first is 0) .. end_s[n-1]: the window cut
 * into 8 blocks of whole rounds of `round` steps (at least 4 blocks of a
 * round or more; else NaN), each block's mean step, and the standard
 * error of their mean from their median absolute deviation (robust batch
 * means: a block holding a one-off cost, an epoch start, weighs as one
 * block, not as noise). Returns it as a share of the blocks' median step;
 * NaN when there are too few steps. */
double fs_tune_step_noise(const double *end_s, double start_s, long first, long n, int round);

/* The same for a window of whole epochs, steps first..last, epochs
 * starting where starts[i] is set: each epoch cut into 8 blocks (fewer in
 * an epoch of fewer steps) by its position, and the spread of each block's
 * mean step about that block's mean over the epochs (the epoch's own shape,
 * its start and its end, is no noise). Returns it as a share of the
 * blocks' median step; NaN under 2 epochs (or over 63). */
double fs_tune_epoch_noise(const double *end_s, double start_s, const unsigned char *starts, long first, long last);

/* The search's state: the trials so far (trials[0] the baseline). */
struct fs_tune {
	int ntrials;
	struct fs_tune_trial *trials;
	int best;                  /* index of the fastest usable trial, -1 */
	unsigned knobs;            /* the knobs it may change, bit per enum fs_tune_knob */
	int max_workers;           /* never more workers than this */
};

/* Why the search stopped (a stable id: docs/tune.md). */
enum fs_tune_stop {
	FS_TUNE_GOING,
	FS_TUNE_CONVERGED,         /* the last trial gained less than fs_tune_gain_needed, or no move is left */
	FS_TUNE_NO_KNOB_HELPS,     /* the baseline's cause is not the loader's (its resource is full) */
	FS_TUNE_COMPUTE_BOUND,     /* the loop does not wait for input: nothing to gain */
	FS_TUNE_BUDGET,            /* the time budget is spent */
	FS_TUNE_NO_DATALOADER,     /* the job created no DataLoader (no steps) */
	FS_TUNE_JOB_FAILED,        /* the baseline failed */
	FS_TUNE_INTERRUPTED,       /* a signal (Ctrl-C) ended it */
};
const char *fs_tune_stop_name(enum fs_tune_stop s);

/* Trial b's speedup over trial a: a's step time over b's, or b's samples/s
 * over a's when their batch sizes differ. The one definition: every
 * speedup tune prints (table, best line, JSON, progress) is this one,
 * against the baseline trial unless said otherwise. NaN when either is
 * unknown. */
double fs_tune_speedup(const struct fs_tune_trial *a, const struct fs_tune_trial *b);

/* The gain (a share: 0.03) b must show over a to count as faster: the
 * larger of tune_min_gain and tune_noise_z standard errors of their ratio
 * (from both trials' step_se_rel; tune_min_gain alone where one is
 * unknown). */
double fs_tune_gain_needed(const struct fs_tune_trial *a, const struct fs_tune_trial *b);

/* Whether b is faster than a by at least the gain needed. */
bool fs_tune_faster(const struct fs_tune_trial *a, const struct fs_tune_trial *b);

/* Whether tune recommends a change: the best trial is not the baseline
 * and is faster (fs_tune_faster) than it, and so is a second run of its
 * setting than a second run of the baseline, both made after the search,
 * in that order (trials with confirms set: trials drift apart with what
 * else the machine does, by more than either's own steps show, and one
 * lucky run of the best would beat two of the baseline). When not, why
 * says so ("no change recommended: ..."); when so, why is "". */
bool fs_tune_recommends(const struct fs_tune *T, char *why, size_t cap);

/* Whether the search's result needs that second pair: a change would be
 * recommended but for it. */
bool fs_tune_needs_confirm(const struct fs_tune *T);

/* The second pair: the runs again of the baseline's setting (*base_again)
 * and of the best trial's (*best_again), NULL where not made. */
void fs_tune_again(const struct fs_tune *T, const struct fs_tune_trial **base_again,
		   const struct fs_tune_trial **best_again);

enum fs_tune_stop fs_tune_next(struct fs_tune *T, struct fs_tune_knobs *next, char *why, size_t cap);

/* The best setting as one line of Python ("DataLoader(..., num_workers=8,
 * prefetch_factor=4)"): the best trial's knobs that differ from the
 * baseline's. */
void fs_tune_python(const struct fs_tune *T, char *out, size_t cap);

#endif
