/* steps.c - the steps readers (steps.h): a process's steps, its main
 * loader, and the training processes' steps against each other. */
#include "analysis/load/steps.h"

#include "analysis/load/sync.h"
#include "analysis/thresholds.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fs_metrics_read_steps(struct fs_q *q, int pid, bool windowed, struct fs_steps_series *s)
{
	memset(s, 0, sizeof *s);
	/* a step's t is the end of its wait (the batch's arrival); it ends
	 * compute_s later, when the loop asks for the next batch: the moment
	 * ranks in step leave it together */
	sqlite3_stmt *st = fs_q_prep(q, windowed ? "SELECT t + compute_s, wait_s, compute_s FROM steps WHERE pid = ?4"
						   " AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("")
						   " AND wait_s IS NOT NULL AND compute_s IS NOT NULL"
						   " ORDER BY t + compute_s"
						 : "SELECT t + compute_s, wait_s, compute_s FROM steps WHERE pid = ?4"
						   " AND wait_s IS NOT NULL AND compute_s IS NOT NULL ORDER BY t + compute_s");
	if (st)
		sqlite3_bind_int(st, 4, pid);
	size_t cap = 0;
	bool ok = true;
	while (fs_q_step(q, st)) {
		if (s->n == cap) {
			cap = cap ? 2 * cap : 1024;
			double *e = realloc(s->end, cap * sizeof *e);
			s->end = e ? e : s->end;
			double *w = realloc(s->wait, cap * sizeof *w);
			s->wait = w ? w : s->wait;
			double *c = realloc(s->compute, cap * sizeof *c);
			s->compute = c ? c : s->compute;
			if (!e || !w || !c) {
				s->n = 0; /* out of memory: no steps, no claim */
				ok = false;
				break;
			}
		}
		s->end[s->n] = fs_q_col(st, 0);
		s->wait[s->n] = fs_q_col(st, 1);
		s->compute[s->n++] = fs_q_col(st, 2);
	}
	sqlite3_finalize(st);
	return ok;
}

void fs_steps_series_free(struct fs_steps_series *s)
{
	free(s->end);
	free(s->wait);
	free(s->compute);
	*s = (struct fs_steps_series){0};
}

/* The loader with the most steps of process ?3 into out. */
void fs_m_main_loader(struct fs_q *q, char *out, size_t cap)
{
	if (fs_q_tier(q))
		fs_q_text(q, "SELECT loader FROM steps_1m WHERE " FS_Q_TIER_WINDOW("") " AND pid = ?3 GROUP BY loader"
			  " ORDER BY sum(n) DESC LIMIT 1", out, cap);
	else
		fs_q_text(q, "SELECT loader FROM steps WHERE t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("") " AND pid = ?3 GROUP BY loader"
			  " ORDER BY count(*) DESC LIMIT 1", out, cap);
}

/* The training processes' steps against each other (sync.h): in step, the
 * time each waited on the others inside its steps (DDP's all_reduce, which
 * the hook does not see), and the skew of their step ends. */
void fs_m_load_sync(struct fs_q *q, struct fs_metrics *m)
{
	m->step_end_skew_median_s = m->step_end_skew_p95_s = NAN;
	for (int i = 0; i < m->nloops; i++)
		m->loops[i].sync_wait_s = NAN;
	struct fs_steps_series buf[FS_MAX_LOOPS];
	struct fs_rank_steps r[FS_MAX_LOOPS];
	int idx[FS_MAX_LOOPS], n = 0, with_steps = 0;
	double last = -INFINITY;
	for (int i = 0; i < m->nloops; i++)
		if (m->loops[i].have_steps) {
			with_steps++;
			last = fmax(last, m->loops[i].t1);
		}
	if (with_steps < 2)
		return; /* one loop has no other to wait on */
	/* Read per minute, the ranks' steps are compared over the window's
	 * last stretch of FS_Q_TIER_TICKS default ticks (an hour; whether they
	 * step together does not change along a run), and each rank's wait on
	 * the others is scaled from its steps there to its whole loop. */
	double w0 = q->w0, span = FS_Q_TIER_TICKS * 0.1;
	bool sample = fs_q_tier(q) && isfinite(last) && last - span > q->w0;
	if (sample)
		q->w0 = last - span;
	for (int i = 0; i < m->nloops; i++) {
		if (!m->loops[i].have_steps)
			continue;
		fs_metrics_read_steps(q, m->loops[i].pid, true, &buf[n]); /* out of memory: none, no claim */
		r[n] = (struct fs_rank_steps){buf[n].end, buf[n].wait, buf[n].compute, (long)buf[n].n};
		idx[n++] = i;
	}
	q->w0 = w0;
	if (n >= 2) {
		double wait[FS_MAX_LOOPS] = {0};
		struct fs_sync s;
		fs_sync_ranks(r, n, fs_thresholds.step_sync_skew, fs_thresholds.step_sync_match, &s, wait);
		m->steps_in_step = s.synced;
		m->synced_steps = s.steps;
		m->step_end_skew_median_s = s.skew_median_s;
		m->step_end_skew_p95_s = s.skew_p95_s;
		for (int k = 0; k < n && s.synced; k++) {
			double in_sample = 0;
			for (size_t j = 0; sample && j < buf[k].n; j++)
				in_sample += buf[k].wait[j] + buf[k].compute[j];
			const struct fs_loop_proc *L = &m->loops[idx[k]];
			double scale = sample && in_sample > 0 ? (L->wait_s + L->compute_s) / in_sample : 1;
			m->loops[idx[k]].sync_wait_s = wait[k] * scale;
		}
	}
	for (int k = 0; k < n; k++)
		fs_steps_series_free(&buf[k]);
}
