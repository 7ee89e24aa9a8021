/* devclock.c - the accelerator's idle time inside the host's waits for
 * input, on the device's own clock (devclock.h; docs/verdicts.md, "The
 * device's clock"). */
#include "analysis/load/devclock.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The bins the NVML estimate is taken over: NVML's utilisation is the
 * share of its own sample period (1/6 s to 1 s, by the driver) in which a
 * kernel ran, and the tests' stand-in counts busy time in 10 ms pieces; a
 * bin of a second holds whole periods, so a sample's timing inside the
 * tick does not move time between idle and busy. */
#define DEVCLOCK_BIN_S 1.0
#define DEVCLOCK_MAX_BINS (1 << 22)

/* The events' figure: the steps' device_idle_s (the hook's device events;
 * steps.device_idle_s, schema 12), each step without one counted at its
 * host wait (the most it can be). NaN when the run file has no such
 * column or no step with the figure. */
static double from_events(struct fs_q *q)
{
	double idle = NAN, n = NAN;
	fs_q_row(q, "SELECT total(coalesce(device_idle_s, wait_s)), count(device_idle_s) FROM steps"
		    " WHERE pid = ?3 AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("") " AND wait_s IS NOT NULL",
		 2, &idle, &n);
	return n > 0 ? idle : NAN;
}

struct bins {
	double w0, w1;
	size_t n;
	double *idle, *wait, *cov; /* the device's idle, the host's wait, the time GPU samples cover */
};

/* Add rate x the overlap of [a, b] with each bin of v. */
static void spread(const struct bins *B, double *v, double a, double b, double rate)
{
	a = fmax(a, B->w0);
	b = fmin(b, B->w1);
	if (!(b > a))
		return;
	size_t i = (size_t)((a - B->w0) / DEVCLOCK_BIN_S);
	for (; i < B->n; i++) {
		double lo = B->w0 + (double)i * DEVCLOCK_BIN_S, hi = fmin(lo + DEVCLOCK_BIN_S, B->w1);
		if (lo >= b)
			break;
		double o = fmin(b, hi) - fmax(a, lo);
		if (o > 0)
			v[i] += rate * o;
	}
}

/* The host's waits of process ?3 into B->wait; returns the steps read. */
static long host_waits(struct fs_q *q, struct bins *B)
{
	long n = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT t - wait_s, t FROM steps WHERE pid = ?3 AND t BETWEEN ?1 AND ?2 AND "
					FS_Q_ROWS_STEPS("") " AND wait_s IS NOT NULL ORDER BY t");
	while (fs_q_step(q, st)) {
		spread(B, B->wait, fs_q_col(st, 0), fs_q_col(st, 1), 1);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* sql (its one %s: the GPU's condition) prepared for one GPU, ?5 bound
 * to it, or for the mean of all (gpu -1). NULL: a failed prepare (fs_q
 * counts it; fs_q_step of NULL is false). */
static sqlite3_stmt *prep_gpu(struct fs_q *q, const char *sql, int gpu)
{
	char buf[512];
	snprintf(buf, sizeof buf, sql, gpu >= 0 ? " AND g.gpu = ?5" : "");
	sqlite3_stmt *st = fs_q_prep(q, buf);
	if (st && gpu >= 0)
		sqlite3_bind_int(st, 5, gpu);
	return st;
}

/* The device's idle time into B->idle: each GPU sample covers its tick,
 * (t - dt_s, t], idle 1 - util over it. gpu: the device's index, or -1
 * for the mean of all GPUs at each tick. Returns the samples read. */
static long device_idle(struct fs_q *q, struct bins *B, int gpu)
{
	long n = 0;
	sqlite3_stmt *st = prep_gpu(q, "SELECT g.t, avg(g.util_pct), k.dt_s FROM gpu g JOIN ticks k ON k.t = g.t"
				       " WHERE g.t BETWEEN ?1 AND ?2 + 2 AND " FS_Q_ROWS_GPU("g.")
				       " AND g.util_pct IS NOT NULL AND k.dt_s > 0%s GROUP BY g.t ORDER BY g.t",
				    gpu);
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), u = fs_q_col(st, 1), dt = fs_q_col(st, 2);
		spread(B, B->idle, t - dt, t, fmin(1, fmax(0, 1 - u / 100)));
		spread(B, B->cov, t - dt, t, 1);
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* One bin's share of the estimate: the idle inside the wait is at most
 * the smaller of the device's idle and the host's wait, and at least what
 * their sum has beyond the bin. Where GPU samples cover less than half of
 * the bin, the device says nothing there: the host's wait stands for it
 * (its lower bound 0); else the idle seen is taken over the whole bin. */
static void bin_bounds(double idle, double wait, double cov, double len, double *est, double *lower)
{
	if (!(cov >= len / 2)) {
		*est += wait;
		return;
	}
	idle = fmin(len, idle * len / cov);
	*est += fmin(idle, wait);
	*lower += fmax(0, idle + wait - len);
}

/* The NVML estimate, a bin at a time (bin_bounds): the upper bound,
 * min(idle, wait), exact when, within a bin, the device idles only while
 * the host waits (a loop that syncs every step) or the host waits whenever
 * the device idles (a host that ran ahead and waits for the next batch).
 * gpu: the device's index, or -1 for the mean of all GPUs. */
static double from_gpu_bins(struct fs_q *q, int gpu, double *lower)
{
	struct bins B = {.w0 = q->w0, .w1 = q->w1};
	double span = B.w1 - B.w0;
	if (!(span > 0) || span / DEVCLOCK_BIN_S > DEVCLOCK_MAX_BINS)
		return NAN;
	B.n = (size_t)ceil(span / DEVCLOCK_BIN_S);
	B.idle = calloc(B.n, sizeof *B.idle);
	B.wait = calloc(B.n, sizeof *B.wait);
	B.cov = calloc(B.n, sizeof *B.cov);
	double est = NAN;
	if (B.idle && B.wait && B.cov && host_waits(q, &B) > 0 && device_idle(q, &B, gpu) > 0) {
		est = *lower = 0;
		for (size_t i = 0; i < B.n; i++) {
			double lo = B.w0 + (double)i * DEVCLOCK_BIN_S;
			bin_bounds(B.idle[i], B.wait[i], B.cov[i], fmin(lo + DEVCLOCK_BIN_S, B.w1) - lo, &est, lower);
		}
	}
	free(B.idle);
	free(B.wait);
	free(B.cov);
	return est;
}

/* The same from the per-minute tables (a long run): a minute a bin, the
 * device's idle from gpu_1m's mean util over the time its samples cover,
 * the host's waits from steps_1m's sums. Coarser bins give a larger upper
 * bound (the sum of minima grows with the bin). */
static double from_gpu_minutes(struct fs_q *q, int gpu, double *lower)
{
	/* the minutes' waits summed once (a subquery per minute scanned
	 * steps_1m once a minute: a day-long run's 1440 times) */
	sqlite3_stmt *st = prep_gpu(q, "SELECT avg((100 - g.util_pct) / 100.0 * g.dt_s), avg(g.dt_s), coalesce(max(s.w), 0)"
				       " FROM gpu_1m g LEFT JOIN (SELECT t, total(wait_s) AS w FROM steps_1m WHERE pid = ?3"
				       " AND " FS_Q_TIER_WINDOW("") " GROUP BY t) s ON s.t = g.t WHERE " FS_Q_TIER_WINDOW("g.")
				       " AND g.util_pct IS NOT NULL%s GROUP BY g.t ORDER BY g.t",
				    gpu);
	double est = 0;
	long n = 0;
	*lower = 0;
	while (fs_q_step(q, st)) {
		bin_bounds(fs_q_col(st, 0), fs_q_col(st, 2), fs_q_col(st, 1), 60, &est, lower);
		n++;
	}
	sqlite3_finalize(st);
	return n > 0 ? est : NAN;
}

/* The GPU the loop's busy share was read from (L->gpu_basis): its index,
 * -1 for the mean of all, -2 for none that a tick can be read from
 * (per-process samples). */
static int gpu_of(const struct fs_loop_proc *L, int ngpus)
{
	if (!strcmp(L->gpu_basis, "its GPU"))
		return -1;
	if (!strcmp(L->gpu_basis, "local_rank"))
		return L->local_rank;
	if (!strcmp(L->gpu_basis, "all GPUs") && ngpus > 1)
		return -1;
	return -2;
}

void fs_m_device_clock(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	L->dev_idle_wait_s = L->dev_idle_wait_lower_s = NAN;
	L->dev_clock[0] = '\0';
	if (!L->have_steps)
		return;
	bool tier = fs_q_tier(q);
	double v = tier ? NAN : from_events(q);
	if (isfinite(v)) {
		L->dev_idle_wait_s = L->dev_idle_wait_lower_s = v;
		snprintf(L->dev_clock, sizeof L->dev_clock, "events");
		return;
	}
	int gpu = gpu_of(L, ngpus);
	if (gpu < -1)
		return;
	double lower = NAN;
	v = tier ? from_gpu_minutes(q, gpu, &lower) : from_gpu_bins(q, gpu, &lower);
	if (isfinite(v)) {
		L->dev_idle_wait_s = v;
		L->dev_idle_wait_lower_s = lower;
		snprintf(L->dev_clock, sizeof L->dev_clock, "gpu");
	}
}
