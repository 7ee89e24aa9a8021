/* window.h - a trial's steady-state window: how it is cut from the
 * trial's steps and where its epochs start (pure; docs/tune.md). Used by
 * trial.c to read a trial, and by plan.h, which says how every trial's
 * window is cut. */
#ifndef FS_TUNE_WINDOW_H
#define FS_TUNE_WINDOW_H

#include <stdbool.h>

/* How a trial's steady-state window is cut (fs_tune_span). */
enum fs_tune_window {
	FS_TUNE_WINDOW_AUTO,       /* whole epochs where the trial holds an epoch start after the
				      warm-up and a whole epoch, else steps */
	FS_TUNE_WINDOW_STEPS,      /* steps inside one epoch, clear of its first and last prefill */
	FS_TUNE_WINDOW_EPOCHS,     /* whole epochs (each with its start and one end) */
};
const char *fs_tune_window_name(enum fs_tune_window w); /* "auto", "steps", "epochs" */

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

#endif
