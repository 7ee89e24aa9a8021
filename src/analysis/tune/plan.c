/* plan.c - how every trial is measured, after the baseline (plan.h;
 * docs/tune.md). */
#include "analysis/tune/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/thresholds.h"
#include "util/fmt.h"

int fs_tune_replan(struct fs_tune_plan *pl, const struct fs_tune_trial *base, double interval_s, bool allow_rerun,
		   char *note, size_t cap)
{
	note[0] = 0;
	pl->prefill = base->prefill;
	bool ok = !strcmp(base->status, "ok") && isfinite(base->step_s) && base->step_s > 0;
	if (!allow_rerun || !ok) {
		pl->window = base->window == FS_TUNE_WINDOW_EPOCHS ? FS_TUNE_WINDOW_EPOCHS : FS_TUNE_WINDOW_STEPS;
		pl->epoch_steps = base->epoch_steps;
		return 0;
	}
	int why = 0;
	char a[32], b[32];
	double need_s = fs_thresholds.tune_min_samples * interval_s, have_s = (double)base->steps * base->step_s;
	if (have_s < need_s) {
		long want = (long)ceil(need_s / base->step_s);
		if (want > 100 * pl->steps)
			want = 100 * pl->steps;
		if (want > pl->steps) {
			snprintf(note, cap, "%ld steps lasted %s, fewer than the %.0f samples a verdict needs (%s): each "
					    "trial measures %ld steps instead",
				 base->steps, fs_fmt_time(a, sizeof a, have_s), fs_thresholds.tune_min_samples,
				 fs_fmt_time(b, sizeof b, need_s), want);
			pl->steps = want;
			why |= 1;
		}
	}
	pl->window = base->window == FS_TUNE_WINDOW_EPOCHS ? FS_TUNE_WINDOW_EPOCHS : FS_TUNE_WINDOW_STEPS;
	pl->epoch_steps = base->epoch_steps;
	if (base->window == FS_TUNE_WINDOW_STEPS && base->epoch_steps > 0 &&
	    fs_tune_trial_length(pl->warmup, pl->steps, base->prefill, FS_TUNE_WINDOW_EPOCHS, base->epoch_steps) <=
		    4 * (pl->warmup + pl->steps)) {
		size_t n = strlen(note);
		snprintf(note + n, cap - n, "%sepochs of %ld steps end inside a trial: each trial measures whole epochs",
			 n ? "; " : "", base->epoch_steps);
		pl->window = FS_TUNE_WINDOW_EPOCHS;
		why |= 2;
	}
	return why;
}
