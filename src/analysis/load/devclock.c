/* devclock.c - the accelerator's idle time inside the host's waits for
 * input, on the device's own clock (devclock.h; docs/verdicts.md, "The
 * device's clock"). */
#include "analysis/load/devclock.h"

#include <math.h>
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
	double *idle, *wait;
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

/* The device's idle time into B->idle: each GPU sample covers its tick,
 * (t - dt_s, t], idle 1 - util over it. gpu: the device's index, or -1
 * for the mean of all GPUs at each tick. Returns the samples read. */
static long device_idle(struct fs_q *q, struct bins *B, int gpu)
{
	long n = 0;
	char sql[384];
	snprintf(sql, sizeof sql,
		 "SELECT g.t, avg(g.util_pct), k.dt_s FROM gpu g JOIN ticks k ON k.t = g.t WHERE g.t BETWEEN ?1 AND ?2 + 2"
		 " AND " FS_Q_ROWS_GPU("g.") " AND g.util_pct IS NOT NULL AND k.dt_s > 0%s GROUP BY g.t ORDER BY g.t",
		 gpu >= 0 ? " AND g.gpu = ?5" : "");
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (st && gpu >= 0)
		sqlite3_bind_int(st, 5, gpu);
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), u = fs_q_col(st, 1), dt = fs_q_col(st, 2);
		spread(B, B->idle, t - dt, t, fmin(1, fmax(0, 1 - u / 100)));
		n++;
	}
	sqlite3_finalize(st);
	return n;
}

/* The NVML estimate: in each bin, the device's idle time and the host's
 * time inside next(); the idle inside the wait is at most the smaller of
 * the two, and at least what their sum has beyond the bin. The estimate
 * is the upper bound, min(idle, wait): exact when, within a bin, the
 * device idles only while the host waits (a loop that syncs every step)
 * or the host waits whenever the device idles (a host that ran ahead and
 * waits for the next batch). *lower gets the sum of the lower bounds. */
static double from_gpu_bins(struct fs_q *q, const struct fs_loop_proc *L, int ngpus, double *lower)
{
	int gpu;
	if (!strcmp(L->gpu_basis, "its GPU"))
		gpu = -1;
	else if (!strcmp(L->gpu_basis, "local_rank"))
		gpu = L->local_rank;
	else if (!strcmp(L->gpu_basis, "all GPUs") && ngpus > 1)
		gpu = -1;
	else
		return NAN; /* per-process samples: not per tick enough to weigh */
	struct bins B = {.w0 = q->w0, .w1 = q->w1};
	double span = B.w1 - B.w0;
	if (!(span > 0) || span / DEVCLOCK_BIN_S > DEVCLOCK_MAX_BINS)
		return NAN;
	B.n = (size_t)ceil(span / DEVCLOCK_BIN_S);
	B.idle = calloc(B.n, sizeof *B.idle);
	B.wait = calloc(B.n, sizeof *B.wait);
	double est = NAN;
	if (B.idle && B.wait && host_waits(q, &B) > 0 && device_idle(q, &B, gpu) > 0) {
		est = 0;
		*lower = 0;
		for (size_t i = 0; i < B.n; i++) {
			double len = fmin(B.w0 + (double)(i + 1) * DEVCLOCK_BIN_S, B.w1) - (B.w0 + (double)i * DEVCLOCK_BIN_S);
			est += fmin(B.idle[i], B.wait[i]);
			*lower += fmax(0, B.idle[i] + B.wait[i] - len);
		}
	}
	free(B.idle);
	free(B.wait);
	return est;
}

void fs_m_device_clock(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	L->dev_idle_wait_s = L->dev_idle_wait_lower_s = NAN;
	L->dev_clock[0] = '\0';
	if (!L->have_steps || fs_q_tier(q))
		return;
	double v = from_events(q);
	if (isfinite(v)) {
		L->dev_idle_wait_s = L->dev_idle_wait_lower_s = v;
		snprintf(L->dev_clock, sizeof L->dev_clock, "events");
		return;
	}
	if (!L->gpu_basis[0])
		return;
	double lower = NAN;
	v = from_gpu_bins(q, L, ngpus, &lower);
	if (isfinite(v)) {
		L->dev_idle_wait_s = v;
		L->dev_idle_wait_lower_s = lower;
		snprintf(L->dev_clock, sizeof L->dev_clock, "gpu");
	}
}
