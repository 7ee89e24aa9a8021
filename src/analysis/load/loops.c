/* loops.c - the training processes of a run file, each filled by
 * loop_fill.c (its steps, collectives, checkpoint / host-I/O bucket, GPU,
 * epoch boundaries), and which of them the job-level figures describe (the
 * trainer). Part of fs_metrics_load. */
#include "analysis/load/loops.h"

#include "analysis/load/loop_fill.h"
#include "analysis/load/numbers.h"
#include "analysis/load/steps.h"

#include <math.h>
#include <stdio.h>

/* Below a wrapper (a shell script, `uv run`, a one-process launcher): while
 * the process has exactly one child and that child has children of its
 * own, the child is the one that trains (its children are its loaders). */
static int wrapped_trainer(struct fs_q *q, int pid)
{
	for (int depth = 0; depth < 8; depth++) {
		double n, child, grandchildren;
		q->trainer = pid;
		const char *sql = fs_q_tier(q) ? "SELECT count(DISTINCT pid), min(pid) FROM proc_1m WHERE ppid = ?3 AND "
						 FS_Q_TIER_WINDOW("")
					       : "SELECT count(DISTINCT pid), min(pid) FROM proc WHERE ppid = ?3 AND t BETWEEN ?1 AND ?2"
						 " AND " FS_Q_ROWS_PROC("");
		if (!fs_q_row(q, sql, 2, &n, &child) || n != 1)
			break;
		q->trainer = to_int(child, 0);
		fs_q_row(q, sql, 2, &grandchildren, &child);
		if (!(grandchildren > 0))
			break;
		pid = q->trainer;
	}
	q->trainer = pid;
	return pid;
}

/* Share of p's loop spent waiting on other ranks (fs_loop_ranks_wait_s;
 * 1 without a loop: it cannot be the one the others wait on). */
static double collective_share(const struct fs_loop_proc *p)
{
	return p->loop_s > 0 ? fs_loop_ranks_wait_s(p) / p->loop_s : 1;
}

/* The straggler of n training processes (loops.h): the rule that picks
 * the trainer, also across the run files of several nodes (merge.c). */
int fs_straggler(const struct fs_loop_proc *const *loops, int n, const char **why)
{
	bool coll = false, steps = false;
	for (int i = 0; i < n; i++) {
		coll = coll || loops[i]->collectives > 0 || isfinite(loops[i]->sync_wait_s);
		steps = steps || loops[i]->have_steps;
	}
	int best = n > 0 ? 0 : -1;
	for (int i = 1; i < n; i++) {
		const struct fs_loop_proc *a = loops[i], *b = loops[best];
		if (coll ? collective_share(a) < collective_share(b)
			 : steps ? a->wait_s > b->wait_s
				 : a->loader_active > b->loader_active || isnan(b->loader_active))
			best = i;
	}
	*why = coll ? "spent the least time waiting on the other ranks: the others wait for it"
	     : steps ? "waited longest for input"
	     : n > 1 ? "has the busiest loaders: the other ranks' sleep, waiting for it" : NULL;
	return best;
}

/* The training processes: those that sent steps (the longest waits first);
 * without steps, the topmost process of each rank (ranks table: a rank's
 * DataLoader workers inherit its variables), else the job's main process.
 * Then the trainer, whose figures the job-level ones are:
 * - with collectives, the one that spent the least of its loop in them:
 *   the others wait for it;
 * - else with steps, the one that waited longest for input;
 * - else the one whose loaders were busiest (the others' sleep with full
 *   queues, waiting for it). */
void fs_m_load_loops(struct fs_q *q, struct fs_metrics *m)
{
	int main_pid = q->trainer;
	m->nloops = 0;
	m->trainer = -1;
	m->trainer_pid = main_pid;
	sqlite3_stmt *st = fs_q_prep(q, fs_q_tier(q) ? "SELECT pid, sum(n), sum(wait_s), sum(compute_s), min(first_t),"
						       " max(last_t) FROM steps_1m WHERE " FS_Q_TIER_WINDOW("")
						       " GROUP BY pid ORDER BY sum(wait_s) DESC, sum(n) DESC LIMIT 16"
						     : "SELECT pid, count(*), sum(wait_s), sum(compute_s), min(t - wait_s),"
						       " max(t + compute_s) FROM steps"
						       " WHERE t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("")
						       " GROUP BY pid ORDER BY sum(wait_s) DESC, count(*) DESC LIMIT 16");
	while (m->nloops < FS_MAX_LOOPS && fs_q_step(q, st)) {
		struct fs_loop_proc *L = &m->loops[m->nloops++];
		L->pid = sqlite3_column_int(st, 0);
		L->have_steps = true;
		L->steps = to_count(fs_q_col(st, 1));
		L->wait_s = fs_q_col(st, 2);
		L->compute_s = fs_q_col(st, 3);
		L->t0 = fs_q_col(st, 4);
		L->t1 = fs_q_col(st, 5);
	}
	sqlite3_finalize(st);
	bool steps = m->nloops > 0;
	if (!steps) {
		/* a process's latest row (it is read again when it runs another
		 * program); the topmost of each rank: its parent is not of it */
		st = fs_q_prep(q, "WITH cur AS (SELECT * FROM ranks r WHERE t = (SELECT max(t) FROM ranks WHERE pid = r.pid))"
			      " SELECT r.pid FROM cur r WHERE r.rank IS NOT NULL AND NOT EXISTS"
			      " (SELECT 1 FROM cur u WHERE u.pid = r.ppid AND u.rank IS r.rank) ORDER BY r.rank LIMIT 16");
		while (m->nloops < FS_MAX_LOOPS && fs_q_step(q, st))
			m->loops[m->nloops++].pid = sqlite3_column_int(st, 0);
		sqlite3_finalize(st);
	}
	if (m->nloops == 0 && main_pid > 0)
		m->loops[m->nloops++].pid = wrapped_trainer(q, main_pid);
	for (int i = 0; i < m->nloops; i++) {
		q->trainer = m->loops[i].pid;
		fs_m_loop_fill(q, m, &m->loops[i]);
	}
	fs_m_load_sync(q, m);
	const struct fs_loop_proc *all[FS_MAX_LOOPS] = {0};
	for (int i = 0; i < m->nloops; i++)
		all[i] = &m->loops[i];
	const char *why;
	int best = fs_straggler(all, m->nloops, &why);
	if (!why && m->nloops > 0 && m->loops[0].pid != main_pid)
		why = m->loops[0].rank >= 0 ? "is the only rank" : "trains under the job's main process (a wrapper)";
	else if (!why)
		why = "is the job's main process";
	m->trainer = best;
	if (best >= 0) {
		m->trainer_pid = m->loops[best].pid;
		snprintf(m->trainer_why, sizeof m->trainer_why, "%s", why);
	}
	q->trainer = m->trainer_pid;
}
