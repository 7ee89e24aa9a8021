/* tune.h - `feedscope tune`'s search: which trial to run next (the one
 * the best trial's verdict points to), the best trial, and whether tune
 * recommends it (pure). Its trials are trial.h's, their settings knobs.h's.
 * docs/tune.md describes the search. */
#ifndef FS_TUNE_H
#define FS_TUNE_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/tune/knobs.h"
#include "analysis/tune/trial.h"

/* The thresholds of the search (a gain that counts, the samples a verdict
 * needs) are in the one table, analysis/thresholds.c (tune_*). */

/* The search's state: the trials so far (trials[0] the baseline). */
struct fs_tune {
	int ntrials;
	struct fs_tune_trial *trials;
	int best;                  /* index of the fastest usable trial, -1 */
	unsigned knobs;            /* the knobs it may change, bit per enum fs_tune_knob */
	int max_workers;           /* never more workers than this */
	/* The settings the search did not try because they would not fit in
	 * memory (a trial's per-worker cost and room, trial.h), each said
	 * once: "num_workers=8 would not fit: ..." */
	int nruled;
	char ruled[4][360];
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
