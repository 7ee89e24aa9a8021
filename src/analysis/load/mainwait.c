/* mainwait.c - the training process's CPU inside its waits (mainwait.h).
 *
 * A sample of the process covers (t - dt, t]; the share of it the loop
 * spent waiting in next(), w, comes from the steps (a wait is
 * [t - wait_s, t] of its step's t). Its CPU then is, on average,
 * a * w + b * (1 - w): a cores while it waits, b while it computes. The
 * waits and the samples are not in phase (a sample holds parts of several
 * steps, more or less of their waits), so w varies from sample to sample
 * and least squares over the samples tells a from b. Where w barely varies
 * (every sample the same mix) the two are not told apart: NaN. */
#include "analysis/load/mainwait.h"

#include <math.h>
#include <stdlib.h>

#include "analysis/load/steps.h"

/* The samples whose wait shares are this correlated with their compute
 * shares (|r|, of w and 1 - w against their own means: the same as w's
 * spread) tell nothing apart: w must vary. */
#define MIN_W_SPREAD 0.05

struct fit {
	double suu, suv, svv, suy, svy, sw, su, suu_c;
	long n;
};

/* The share of (a, b] inside the waits of s (ends sorted), from *k on. */
static double in_waits(const struct fs_steps_series *s, size_t *k, double a, double b)
{
	double in = 0;
	/* steps whose compute ended before a cannot overlap later samples */
	while (*k < s->n && s->end[*k] < a)
		(*k)++;
	for (size_t j = *k; j < s->n; j++) {
		double w1 = s->end[j] - s->compute[j], w0 = w1 - s->wait[j];
		if (w0 >= b)
			break;
		double lo = fmax(a, w0), hi = fmin(b, w1);
		if (hi > lo)
			in += hi - lo;
	}
	return b > a ? in / (b - a) : 0;
}

static void add(struct fit *f, double w, double y, double dt)
{
	double u = w, v = 1 - w;
	f->suu += dt * u * u;
	f->suv += dt * u * v;
	f->svv += dt * v * v;
	f->suy += dt * u * y;
	f->svy += dt * v * y;
	f->sw += dt;
	f->su += dt * u;
	f->n++;
}

/* The fit's two figures into m (NaN where w did not vary). */
static void solve(const struct fit *f, struct fs_metrics *m)
{
	if (f->n < 3 || !(f->sw > 0))
		return;
	double mean = f->su / f->sw, var = f->suu / f->sw - mean * mean;
	double det = f->suu * f->svv - f->suv * f->suv;
	if (!(sqrt(fmax(var, 0)) >= MIN_W_SPREAD) || !(fabs(det) > 0))
		return;
	double a = (f->suy * f->svv - f->svy * f->suv) / det;
	double b = (f->svy * f->suu - f->suy * f->suv) / det;
	double cap = m->ncpu > 0 ? m->ncpu : INFINITY;
	m->main_wait_cores = fmax(0, fmin(cap, a));
	m->main_compute_cores = fmax(0, fmin(cap, b));
}

/* Without steps: the accelerator's idle share of each sample stands for
 * the waits (NVML: a loop that waits for input leaves it idle). */
static void against_gpu(struct fs_q *q, const struct fs_loop_proc *T, struct fs_metrics *m)
{
	int trainer = q->trainer;
	q->trainer = T->pid;
	/* the accelerators' mean use per tick joined, not looked up per row:
	 * gpu has no index on t, and a subquery per sample read the whole
	 * table each time (a 25-hour raw file took minutes) */
	sqlite3_stmt *st = fs_q_prep(q, "WITH g AS (SELECT t, avg(util_pct) u FROM gpu GROUP BY t)"
					" SELECT p.t, k.dt_s, p.cpu_pct, g.u"
					" FROM proc p JOIN ticks k ON k.t = p.t LEFT JOIN g ON g.t = p.t"
					" WHERE p.pid = ?3 AND p.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC("p.")
					" AND k.dt_s > 0 AND p.cpu_pct IS NOT NULL"
					/* the loop: from the accelerator's first work to its last (not the
					 * interpreter's start-up, idle accelerator and a busy CPU) */
					" AND p.t >= (SELECT min(t) FROM gpu WHERE util_pct > 0)"
					" AND p.t <= (SELECT max(t) FROM gpu WHERE util_pct > 0) ORDER BY p.t");
	q->trainer = trainer;
	struct fit f = {0};
	while (fs_q_step(q, st)) {
		double dt = fs_q_col(st, 1), y = fs_q_col(st, 2) / 100, util = fs_q_col(st, 3);
		if (isfinite(util))
			add(&f, 1 - fmax(0, fmin(100, util)) / 100, y, dt);
	}
	sqlite3_finalize(st);
	solve(&f, m);
	m->main_wait_basis = "gpu idle";
}

void fs_m_main_in_wait(struct fs_q *q, struct fs_metrics *m)
{
	m->main_wait_cores = m->main_compute_cores = NAN;
	m->main_wait_basis = NULL;
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	if (!T || m->per_minute)
		return;
	if (!T->have_steps) {
		if (m->have_gpu)
			against_gpu(q, T, m);
		return;
	}
	struct fs_steps_series s;
	if (!fs_metrics_read_steps(q, T->pid, true, &s) || s.n == 0) {
		fs_steps_series_free(&s);
		return;
	}
	int trainer = q->trainer;
	q->trainer = T->pid;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT p.t, k.dt_s, p.cpu_pct FROM proc p JOIN ticks k ON k.t = p.t"
					" WHERE p.pid = ?3 AND p.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC("p.")
					" AND k.dt_s > 0 AND p.cpu_pct IS NOT NULL ORDER BY p.t");
	q->trainer = trainer;
	struct fit f = {0};
	size_t k = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), dt = fs_q_col(st, 1), y = fs_q_col(st, 2) / 100;
		if (t - dt < T->t0 || t > T->t1) /* the loop's samples only */
			continue;
		add(&f, in_waits(&s, &k, t - dt, t), y, dt);
	}
	sqlite3_finalize(st);
	fs_steps_series_free(&s);
	solve(&f, m);
	m->main_wait_basis = "steps";
}

void fs_m_next_parts(struct fs_q *q, struct fs_metrics *m)
{
	m->next_steps = 0;
	m->next_index_s = m->next_get_s = m->next_get_cpu_s = m->next_pin_cpu_s = NAN;
	m->next_wait_s = m->next_loop_s = NAN;
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	if (!T || !T->have_steps || m->per_minute) /* not in the per-minute tables */
		return;
	int trainer = q->trainer;
	q->trainer = T->pid;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT count(*), sum(index_s), sum(get_s), sum(get_cpu_s), sum(pin_cpu_s),"
					" sum(wait_s), sum(wait_s + compute_s) FROM steps WHERE pid = ?3"
					" AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("") " AND index_s IS NOT NULL");
	q->trainer = trainer;
	if (fs_q_step(q, st) && fs_q_col(st, 0) > 0) {
		m->next_steps = (long)fs_q_col(st, 0);
		m->next_index_s = fs_q_col(st, 1);
		m->next_get_s = fs_q_col(st, 2);
		m->next_get_cpu_s = fs_q_col(st, 3);
		m->next_pin_cpu_s = fs_q_col(st, 4);
		m->next_wait_s = fs_q_col(st, 5);
		m->next_loop_s = fs_q_col(st, 6);
	}
	sqlite3_finalize(st);
}
