/* noise.h - the noise of a trial's mean step time over its window, from
 * the steps' end times (pure; docs/tune.md). Used by trial.c; a trial keeps
 * it as step_se_rel, which tune.c's fs_tune_gain_needed reads. */
#ifndef FS_TUNE_NOISE_H
#define FS_TUNE_NOISE_H

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

#endif
