/* window.c - a trial's steady-state window (window.h; docs/tune.md). */
#include "analysis/tune/window.h"

const char *fs_tune_window_name(enum fs_tune_window w)
{
	return w == FS_TUNE_WINDOW_STEPS ? "steps" : w == FS_TUNE_WINDOW_EPOCHS ? "epochs" : "auto";
}

long fs_tune_prefill(int workers, int prefetch_factor)
{
	return workers > 0 ? (long)workers * (prefetch_factor > 0 ? prefetch_factor : 2) : 0;
}

/* The window inside one epoch: from w0, clear of `prefill` steps after the
 * start of the epoch holding it and before that epoch's end (the next
 * start, or where an epoch as long as the first would end); whole rounds
 * of the workers. */
static bool inside_epoch(const unsigned char *starts, long n, long w0, long prefill, int workers, long epoch_steps,
			 struct fs_tune_span *out)
{
	long s0 = 0, end = n - 1;
	for (long i = 1; i <= w0 && i < n; i++)
		if (starts[i])
			s0 = i;
	if (w0 < s0 + prefill)
		w0 = s0 + prefill;
	for (long i = w0 + 1; i < n; i++)
		if (starts[i]) {
			end = i - 1 - prefill;
			break;
		}
	if (epoch_steps > 0 && s0 + epoch_steps - 1 - prefill < end)
		end = s0 + epoch_steps - 1 - prefill;
	long m = end - w0 + 1;
	if (m < 2)
		return false;
	if (workers > 1 && m % workers && m - m % workers >= 2)
		w0 += m % workers;
	*out = (struct fs_tune_span){.first = w0, .last = end, .window = FS_TUNE_WINDOW_STEPS,
				     .epoch_steps = epoch_steps};
	return true;
}

bool fs_tune_span(const unsigned char *starts, long n, long warmup, long prefill, int workers,
		  enum fs_tune_window window, struct fs_tune_span *out)
{
	long w0 = warmup > prefill ? warmup : prefill, e = 0, a = -1, b = -1;
	for (long i = 1; i < n; i++) {
		if (!starts[i])
			continue;
		if (!e)
			e = i; /* the first epoch ended at step i - 1 */
		if (a < 0 && i >= w0)
			a = i;
		b = i - 1; /* the last epoch the trial saw end */
	}
	if (w0 == 0)
		a = 0; /* no warm-up: from the first iterator's start */
	bool whole = a >= 0 && b >= a + 1;
	if (window == FS_TUNE_WINDOW_AUTO && !whole) {
		if (inside_epoch(starts, n, w0, prefill, workers, e, out))
			return true;
		/* the baseline, read before the plan: the steps after the warm-up
		 * (and the prefill, if that leaves 2), epochs or not; its
		 * epoch_steps makes the plan measure whole epochs */
		long first = n - w0 >= 2 ? w0 : warmup;
		if (n - first < 2)
			return false;
		*out = (struct fs_tune_span){.first = first, .last = n - 1, .window = FS_TUNE_WINDOW_STEPS,
					     .epoch_steps = e};
		return true;
	}
	if (window == FS_TUNE_WINDOW_STEPS)
		return inside_epoch(starts, n, w0, prefill, workers, e, out);
	if (!whole)
		return false;
	*out = (struct fs_tune_span){.first = a, .last = b, .window = FS_TUNE_WINDOW_EPOCHS, .epoch_steps = e};
	return true;
}
