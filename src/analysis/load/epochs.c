/* epochs.c - the epoch boundaries of a training process (epochs.h): step
 * 0's excess wait, or without steps, its workers' restarts. */
#include "analysis/load/epochs.h"

#include "store/rollup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Step 0's wait beyond the epoch's usual wait, summed over epochs after the
 * first (the first pays for cold caches too), for the process ?3. Steps
 * below the worker count are left out of "usual": each worker's first batch
 * waits for its start. */
void fs_m_epoch_starts(struct fs_q *q, int workers, double *excess_s, long *count)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT loader, epoch, step, wait_s FROM steps"
				   " WHERE t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_STEPS("") " AND pid = ?3 ORDER BY loader, epoch, step");
	char cur[64] = "";
	long epoch = -1;
	double first = NAN, sum = 0;
	long n = 0;
	int skip = workers > 1 ? workers : 1;
	*excess_s = 0;
	*count = 0;
	for (bool more = fs_q_step(q, st);; more = fs_q_step(q, st)) {
		const char *l = more ? fs_q_col_text(st, 0) : ""; /* NULL in a damaged file */
		long e = more ? sqlite3_column_int64(st, 1) : -1;
		if (!more || strcmp(l, cur) != 0 || e != epoch) {
			if (epoch > 0 && !isnan(first) && n > 0) {
				double excess = first - sum / (double)n;
				*excess_s += excess > 0 ? excess : 0;
				(*count)++;
			}
			if (!more)
				break;
			snprintf(cur, sizeof cur, "%s", l);
			epoch = e;
			first = NAN;
			sum = 0;
			n = 0;
		}
		long step = sqlite3_column_int64(st, 2);
		double wait = sqlite3_column_double(st, 3);
		if (step == 0)
			first = wait;
		else if (step >= skip) {
			sum += wait;
			n++;
		}
	}
	sqlite3_finalize(st);
}

/* fs_m_epoch_starts over the per-minute steps (fs_q_tier): each epoch's wait
 * and steps from steps_1m; step 0's wait and those of the steps below the
 * worker count from the raw steps of the minutes around the epoch's first
 * (rowids_1m: a step's row is given in the minute its record arrived). An
 * epoch whose raw step 0 is not there is left out. */
void fs_m_epoch_starts_tier(struct fs_q *q, int workers, double *excess_s, long *count)
{
	*excess_s = 0;
	*count = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT loader, epoch, sum(n), sum(wait_s), min(CASE WHEN first_step = 0 THEN t END)"
				   " FROM steps_1m WHERE " FS_Q_TIER_WINDOW("") " AND pid = ?3 AND epoch > 0"
				   " GROUP BY loader, epoch ORDER BY loader, epoch");
	sqlite3_stmt *raw = st ? fs_q_prep(q, "SELECT step, wait_s FROM steps WHERE rowid BETWEEN ?4 AND ?5 AND pid = ?3"
					      " AND loader = ?6 AND epoch = ?7 AND step < ?8") : NULL;
	int skip = workers > 1 ? workers : 1;
	while (raw && fs_q_step(q, st)) {
		double n = fs_q_col(st, 2), wait = fs_q_col(st, 3), m0 = fs_q_col(st, 4);
		long long lo, hi;
		if (isnan(m0) || !(n > skip) || isnan(wait) ||
		    !fs_q_minute_rows(q, "steps", m0 - FS_ROLLUP_PERIOD_S, m0 + 2 * FS_ROLLUP_PERIOD_S, &lo, &hi))
			continue;
		sqlite3_reset(raw);
		sqlite3_bind_int64(raw, 4, lo);
		sqlite3_bind_int64(raw, 5, hi);
		sqlite3_bind_text(raw, 6, fs_q_col_text(st, 0), -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(raw, 7, sqlite3_column_int64(st, 1));
		sqlite3_bind_int(raw, 8, skip);
		double first = NAN, early = 0;
		long nearly = 0;
		while (fs_q_step(q, raw)) {
			double w = fs_q_col(raw, 1);
			if (isnan(w))
				continue;
			if (sqlite3_column_int64(raw, 0) == 0)
				first = w;
			early += w;
			nearly++;
		}
		if (isnan(first) || !(n - (double)nearly > 0))
			continue;
		double excess = first - (wait - early) / (n - (double)nearly);
		*excess_s += excess > 0 ? excess : 0;
		(*count)++;
	}
	sqlite3_finalize(raw);
	sqlite3_finalize(st);
}

/* Without steps, epoch boundaries from the process's DataLoader workers:
 * a new generation of them (a tick on which every child is seen for the
 * first time: non-persistent workers are shut down at each epoch's end and
 * started at the next one's beginning, often within one tick) costs the
 * accelerator the gap between its last busy sample before the generation
 * and its first busy one after (shutdown, start-up, the first batch), as
 * the hook's epoch_end phase and step 0's excess wait do. The first
 * generation, before any accelerator use, has no gap. Within the process's
 * loop span (q's window); gpu_filter selects its GPU. Past a run file's
 * first hour the raw rows are kept around each generation (store/retain.h):
 * a gap whose ticks are not all there (the rows between were let go) is
 * not known, and not counted. */
void fs_m_worker_restarts(struct fs_q *q, struct fs_loop_proc *L, const char *gpu_filter)
{
	L->epoch_excess_s = 0;
	L->epoch_starts = 0;
	sqlite3_stmt *st = fs_q_prep(q, "WITH f AS (SELECT pid, min(t) AS t0 FROM proc WHERE ppid = ?3 GROUP BY pid)"
				   " SELECT t FROM (SELECT p.t AS t, count(*) AS n, sum(p.t = f.t0) AS fresh FROM proc p"
				   " JOIN f ON f.pid = p.pid WHERE p.ppid = ?3 AND p.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC("p.")
				   " GROUP BY p.t)"
				   " WHERE fresh = n ORDER BY t");
	char sql[512];
	/* The generation's tick covers (t - dt, t], the GPU sample of that tick
	 * too: busy then is busy before the workers came. */
	snprintf(sql, sizeof sql, "SELECT a, b, (SELECT dt_s FROM ticks WHERE t = b),"
		 " (SELECT total(dt_s) FROM ticks WHERE t > a AND t <= b) FROM"
		 " (SELECT (SELECT max(t) FROM gpu WHERE util_pct > 0 AND t <= ?4 AND t >= ?1%s) AS a,"
		 " (SELECT min(t) FROM gpu WHERE util_pct > 0 AND t > ?4 AND t <= ?2%s) AS b)", gpu_filter, gpu_filter);
	sqlite3_stmt *gap = st ? fs_q_prep(q, sql) : NULL;
	while (gap && fs_q_step(q, st)) {
		double start = fs_q_col(st, 0);
		sqlite3_reset(gap);
		sqlite3_bind_double(gap, 4, start);
		sqlite3_bind_int(gap, 5, L->local_rank);
		if (fs_q_step(q, gap)) {
			/* the idle samples between a and b cover (a, b - dt_b] */
			double a = fs_q_col(gap, 0), b = fs_q_col(gap, 1), dt = fs_q_col(gap, 2), covered = fs_q_col(gap, 3);
			double idle = b - a - (dt > 0 ? dt : 0);
			if (idle > 0 && covered >= 0.99 * (b - a)) {
				L->epoch_excess_s += idle;
				L->epoch_starts++;
			}
		}
	}
	sqlite3_finalize(gap);
	sqlite3_finalize(st);
}
