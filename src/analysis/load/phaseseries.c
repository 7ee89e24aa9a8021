/* phaseseries.c - the loop's per-second series in bins, and where it
 * changes (phaseseries.h). */
#include "analysis/load/phaseseries.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/changepoint.h"
#include "analysis/load/query.h"

/* The bins the Schwarz criterion weighs at most (a long run's bins grow). */
#define MAX_BINS 400
/* A bin holds at least this many steps on average: a share of one or two
 * steps' times is noise, not a level. */
#define STEPS_PER_BIN 4
/* Fewer bins than this: too short to split. */
#define MIN_BINS 8

enum { F_WAIT, F_RUN, F_BLOCKED, F_GPU, F__N };

struct acc {
	double wait, compute, run, blocked, total, gpu, gpu_n;
};

/* The loop's span: the trainer's steps, else the window's ticks. */
static void loop_span(const struct fs_metrics *m, double *a, double *b)
{
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	if (T && T->have_steps && T->t1 > T->t0) {
		*a = T->t0;
		*b = T->t1;
	} else {
		*a = isfinite(m->window.start_s) ? m->window.start_s : 0;
		*b = isfinite(m->window.end_s) ? m->window.end_s : *a + m->duration_s;
	}
	*a = fmax(*a, isfinite(m->window.start_s) ? m->window.start_s : -INFINITY);
	*b = fmin(*b, isfinite(m->window.end_s) ? m->window.end_s : INFINITY);
}

/* Without steps, the loop is not the process's whole life: from the
 * accelerator's first work to its last (not the interpreter's start-up),
 * else the span the workers lived. False when neither says. */
static bool work_span(struct fs_q *q, double *a, double *b)
{
	static const char *const sql[2] = {
		"SELECT min(t), max(t) FROM gpu WHERE util_pct > 0 AND t BETWEEN ?1 AND ?2",
		"SELECT min(t), max(t) FROM proc WHERE role = 'worker' AND t BETWEEN ?1 AND ?2",
	};
	for (int i = 0; i < 2; i++) {
		sqlite3_stmt *st = fs_q_prep(q, sql[i]);
		double x = NAN, y = NAN;
		if (fs_q_step(q, st)) {
			x = fs_q_col(st, 0);
			y = fs_q_col(st, 1);
		}
		sqlite3_finalize(st);
		if (y > x) {
			*a = x;
			*b = y;
			return true;
		}
	}
	return false;
}

/* series_1s into bins of bin_s from a (summed by SQLite: a day's 86 400
 * seconds come back as at most MAX_BINS rows); false when it has no rows. */
static bool read_bins(struct fs_q *q, const struct fs_metrics *m, double a, double bin_s, int n, struct acc *acc)
{
	char sql[900];
	const char *who = m->loaders_are_main ? "main" : "worker";
	/* a second's row is the second's end: its middle, t - 0.5, says the bin */
	snprintf(sql, sizeof sql,
		 "SELECT CAST((t - 0.5 - %.17g) / %.17g AS INTEGER) AS i, total(wait_s), total(compute_s),"
		 " total(CASE WHEN wait_s IS NOT NULL AND compute_s IS NOT NULL THEN 1 END),"
		 " total(%s_running), total(%s_blocked_io),"
		 " total(%s_running + %s_blocked_io + %s_sleeping + %s_other),"
		 " total(CASE WHEN gpus > 0 THEN gpu_util_pct END) / 100, count(CASE WHEN gpus > 0 THEN gpu_util_pct END)"
		 " FROM series_1s WHERE t > ?1 AND t <= ?2 AND t - 0.5 >= %.17g GROUP BY i ORDER BY i",
		 a, bin_s, who, who, who, who, who, who, a);
	sqlite3_stmt *st = fs_q_prep(q, sql);
	bool any = false;
	while (fs_q_step(q, st)) {
		int i = sqlite3_column_int(st, 0);
		if (i < 0 || i >= n)
			continue;
		struct acc *b = &acc[i];
		if (fs_q_col(st, 3) > 0) {
			b->wait = fs_q_col(st, 1);
			b->compute = fs_q_col(st, 2);
		}
		b->run = fs_q_col(st, 4);
		b->blocked = fs_q_col(st, 5);
		b->total = fs_q_col(st, 6);
		if (m->have_gpu && fs_q_col(st, 8) > 0) {
			b->gpu = fs_q_col(st, 7);
			b->gpu_n = fs_q_col(st, 8);
		}
		any = true;
	}
	sqlite3_finalize(st);
	return any;
}

struct epochs {
	int n;
	double *start;
	long *epoch;
};

/* Each epoch's first step's start, in order (the trainer's main loader). */
static int epoch_starts(struct fs_q *q, const struct fs_metrics *m, double *start, long *epoch, int cap)
{
	/* a long run's from its per-minute steps (first_t: the first step's
	 * start), not its millions of raw ones */
	sqlite3_stmt *st = fs_q_prep(q, fs_q_tier(q) ? "SELECT epoch, min(first_t) FROM steps_1m WHERE pid = ?3 AND loader = ?60"
						       " GROUP BY epoch ORDER BY epoch"
						     : "SELECT epoch, min(t - wait_s) FROM steps WHERE pid = ?3 AND loader = ?60"
						       " GROUP BY epoch ORDER BY epoch");
	if (!st)
		return 0;
	sqlite3_bind_text(st, 60, m->loader, -1, SQLITE_TRANSIENT);
	int n = 0;
	while (fs_q_step(q, st))
		if (n < cap) {
			epoch[n] = (long)fs_q_col(st, 0);
			start[n++] = fs_q_col(st, 1);
		}
	sqlite3_finalize(st);
	return n;
}

/* A bin's value is clipped at this many noise units from its column's
 * median (the conventional three sigma of robust estimation). */
#define CLIP_UNITS 3.0

/* The median of column c (stride d), NaN rows left out: the raw values'
 * (the caller puts it in units of the column's noise). */
static double median_raw(const double *x, int n, int d, int c)
{
	double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
	if (!v)
		return NAN;
	int m = 0;
	for (int i = 0; i < n; i++)
		if (!isnan(x[i * d + c]))
			v[m++] = x[i * d + c];
	double med = fs_changepoint_median(v, m);
	free(v);
	return med;
}

/* The bins as features in units of their noise; columns without a value
 * left out. Returns the number of columns kept. */
static int features(const struct acc *acc, int n, double floor, double *z)
{
	double *x = malloc((size_t)n * F__N * sizeof *x);
	if (!x)
		return 0;
	for (int i = 0; i < n; i++) {
		const struct acc *b = &acc[i];
		x[i * F__N + F_WAIT] = b->wait + b->compute > 0 ? b->wait / (b->wait + b->compute) : NAN;
		x[i * F__N + F_RUN] = b->total > 0 ? b->run / b->total : NAN;
		x[i * F__N + F_BLOCKED] = b->total > 0 ? b->blocked / b->total : NAN;
		x[i * F__N + F_GPU] = b->gpu_n > 0 ? b->gpu / b->gpu_n : NAN;
	}
	int d = 0;
	for (int c = 0; c < F__N; c++) {
		/* a bin without a value takes its predecessor's (the first
		 * ones, the first value's): no level change at it */
		double last = NAN;
		for (int i = 0; i < n && isnan(last); i++)
			last = x[i * F__N + c];
		if (isnan(last))
			continue;
		double sigma = fs_changepoint_noise(x, n, F__N, c, floor);
		double med = median_raw(x, n, F__N, c) / sigma;
		const double CLIP = CLIP_UNITS;
		for (int i = 0; i < n; i++) {
			double v = x[i * F__N + c];
			if (!isnan(v))
				last = v;
			/* clipped at 3 noise units from the column's median: a level
			 * held over many bins moves the means as before, one bin's
			 * spike (a stall, a checkpoint) no longer pays for a cut */
			z[i * F__N + d] = fmax(med - CLIP, fmin(med + CLIP, last / sigma));
		}
		d++;
	}
	/* packed: rows of d */
	for (int i = 0; i < n; i++)
		for (int c = 0; c < d; c++)
			z[i * d + c] = z[i * F__N + c];
	free(x);
	return d;
}

/* The bin length: at most MAX_BINS bins over the span, at least a second
 * (series_1s) and STEPS_PER_BIN steps on average. */
static double bin_length(const struct fs_metrics *m, double span)
{
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	double b = fmax(1, ceil(span / MAX_BINS));
	if (T && T->have_steps && T->steps > 0)
		b = fmax(b, ceil(STEPS_PER_BIN * span / (double)T->steps));
	return b;
}

/* Where the cuts may go: the bins that hold an epoch's first step (not the
 * first epoch's), cut_t[bin] that step's start. Returns the epochs with a
 * first step in the span, *first_epoch the first of them. */
static long epoch_bins(const struct epochs *E, double a, double bin_s, int n, bool *allowed, double *cut_t,
		       long *first_epoch)
{
	long count = 0;
	*first_epoch = -1;
	for (int k = 0; k < E->n; k++) {
		int i = (int)floor((E->start[k] - a) / bin_s);
		if (E->start[k] < a - bin_s || i >= n)
			continue;
		if (count++ == 0) {
			*first_epoch = E->epoch[k];
			continue;
		}
		if (i > 0 && !allowed[i]) {
			allowed[i] = true;
			cut_t[i] = E->start[k];
		}
	}
	return count;
}

static void fill_spans(struct fs_phase_cands *c, double a, double b, double bin_s, const int *cuts, int ncuts,
		       const double *cut_t, const struct epochs *E)
{
	c->n = ncuts + 1;
	for (int s = 0; s < c->n; s++) {
		struct fs_phase_span *p = &c->span[s];
		p->start_s = s == 0 ? a : (cut_t && !isnan(cut_t[cuts[s - 1]]) ? cut_t[cuts[s - 1]] : a + cuts[s - 1] * bin_s);
		p->end_s = b;
		if (s > 0)
			c->span[s - 1].end_s = p->start_s;
		p->first_epoch = p->last_epoch = -1;
	}
	/* each span's epochs: those whose first step starts in it */
	for (int s = 0; s < c->n && E; s++)
		for (int k = 0; k < E->n; k++)
			if (E->start[k] >= c->span[s].start_s - (s == 0 ? bin_s : 1e-9) && E->start[k] < c->span[s].end_s) {
				if (c->span[s].first_epoch < 0)
					c->span[s].first_epoch = E->epoch[k];
				c->span[s].last_epoch = E->epoch[k];
			}
}

int fs_m_phase_candidates(const char *path, const struct fs_metrics *m, double noise_floor,
			  struct fs_phase_cands *c, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	double a, b;
	loop_span(m, &a, &b);
	c->n = 1;
	c->span[0] = (struct fs_phase_span){a, b, -1, -1};
	if (!(b > a)) {
		snprintf(c->method, sizeof c->method, "not split: no loop to split");
		return 0;
	}
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	q.w0 = a;
	q.w1 = b + 1;
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	q.trainer = T ? T->pid : q.trainer;
	if (!(T && T->have_steps) && work_span(&q, &a, &b)) {
		c->span[0] = (struct fs_phase_span){a, b, -1, -1};
		q.w0 = a;
		q.w1 = b + 1;
	}
	c->bin_s = bin_length(m, b - a);
	int n = (int)ceil((b - a) / c->bin_s);
	c->bins = n;
	struct acc *acc = calloc((size_t)n + 1, sizeof *acc);
	double *z = malloc(((size_t)n + 1) * F__N * sizeof *z);
	bool *allowed = calloc((size_t)n + 1, sizeof *allowed);
	double *cut_t = malloc(((size_t)n + 1) * sizeof *cut_t);
	int rc = 0;
	if (!acc || !z || !allowed || !cut_t) {
		snprintf(err, errlen, "%s: out of memory reading the loop's series", path);
		rc = -1;
		goto out;
	}
	for (int i = 0; i <= n; i++)
		cut_t[i] = NAN;
	if (n < MIN_BINS) {
		snprintf(c->method, sizeof c->method, "not split: %d bins of %.0f s, under %d", n, c->bin_s, MIN_BINS);
		goto out;
	}
	if (!read_bins(&q, m, a, c->bin_s, n, acc)) {
		snprintf(c->method, sizeof c->method, "not split: no per-second series (series_1s, schema 8)");
		goto out;
	}
	long first_epoch = -1;
	enum { CAP = 100000 };
	struct epochs E = {0, malloc(CAP * sizeof *E.start), malloc(CAP * sizeof *E.epoch)};
	if (m->have_steps && E.start && E.epoch)
		E.n = epoch_starts(&q, m, E.start, E.epoch, CAP);
	c->epochs = epoch_bins(&E, a, c->bin_s, n, allowed, cut_t, &first_epoch);
	bool by_epoch = c->epochs >= 2;
	c->features = features(acc, n, noise_floor, z);
	int min_len = by_epoch ? 2 : (n / 20 > 3 ? n / 20 : 3);
	int cuts[FS_MAX_PHASES];
	int ncuts = c->features > 0 ? fs_changepoints(z, n, c->features, by_epoch ? allowed : NULL, min_len,
						     FS_MAX_PHASES, cuts) : 0;
	fill_spans(c, a, b, c->bin_s, cuts, ncuts, by_epoch ? cut_t : NULL, first_epoch >= 0 ? &E : NULL);
	free(E.start);
	free(E.epoch);
	snprintf(c->method, sizeof c->method,
		 "%s: %d bins of %.0f s, %d features in units of their noise, %d cut%s where the Schwarz criterion "
		 "gained ((d + 1) ln n)", by_epoch ? "at epoch starts" : "change points", n, c->bin_s, c->features,
		 ncuts, ncuts == 1 ? "" : "s");
out:
	if (fs_q_failed(&q)) {
		snprintf(err, errlen, "%s: reading the loop's series failed: %s", path, fs_q_failed(&q));
		rc = -1;
	}
	fs_q_close(&q);
	free(acc);
	free(z);
	free(allowed);
	free(cut_t);
	return rc;
}
