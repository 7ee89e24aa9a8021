/* sync.h - the time each rank waits for the others, seen at the step
 * boundaries of all ranks (data-parallel training without the collectives
 * in view: DDP's reducer runs its all_reduce inside backward, in C++,
 * where the hook's torch.distributed wrappers do not see it).
 *
 * In synchronous data parallelism every rank leaves a step together: the
 * gradients' all_reduce completes on all ranks at once. So the k-th step of
 * every rank ends at about the same instant, and a rank whose own work for
 * the step took less than the slowest's spent the difference waiting inside
 * the step. For step k, the rank with the least compute (the one that
 * arrived last: it waited on no one) gives the step's own work; every other
 * rank's compute beyond it is time waiting on other ranks.
 *
 * That holds only when the ranks are in step: each step of the reference
 * rank has a step of every other rank ending near it, and the ends' skew is
 * small beside the step (thresholds: step_sync_skew). Ranks that do not
 * synchronize (independent jobs, parameter servers, pipeline stages) have
 * step ends at unrelated times and are left alone. Pure; no I/O. */
#ifndef FS_SYNC_H
#define FS_SYNC_H

#include <stdbool.h>
#include <stddef.h>

/* One rank's steps, in order of their end: end (seconds, one clock for
 * all), and each step's wait and compute. */
struct fs_rank_steps {
	const double *end, *wait, *compute;
	long n;
};

struct fs_sync {
	bool synced;          /* the ranks are in step */
	long steps;           /* steps of the reference rank matched on every rank */
	double match_share;   /* of the reference rank's steps */
	double skew_median_s; /* max - min of the matched ends, median over steps */
	double skew_p95_s;
	double step_median_s; /* the reference rank's step (wait + compute), median */
};

/* Match the steps of n ranks (n >= 2; rank 0 the reference), and when they
 * are in step (matched share >= min_match and median skew <= max_skew of
 * the median step), add each rank's wait on the others to wait_s[i]
 * (seconds; left alone otherwise). Returns false when they are not in step
 * or out of memory (s->synced says which). */
bool fs_sync_ranks(const struct fs_rank_steps *r, int n, double max_skew, double min_match, struct fs_sync *s,
		   double *wait_s);

/* The median (q = 0.5), p95 (0.95), ... of x[0..n) by linear interpolation
 * between order statistics; x is sorted in place. NaN when n is 0. */
double fs_quantile(double *x, size_t n, double q);

#endif
