/* plan.h - how every trial of `feedscope tune` is measured, settled once
 * the baseline trial is read (pure; docs/tune.md). The samples a verdict
 * needs are in the one table, analysis/thresholds.c (tune_min_samples). */
#ifndef FS_TUNE_PLAN_H
#define FS_TUNE_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/tune/trial.h"
#include "analysis/tune/window.h"

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

#endif
