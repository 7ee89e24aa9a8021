/* loop_fill.c - what the accounting needs about one training process
 * (loop_fill.h): its rank, phases, host-I/O bucket, epoch boundaries, loop
 * span, loaders and GPU. */
#include "analysis/load/loop_fill.h"

#include "analysis/load/devclock.h"
#include "analysis/load/epochs.h"
#include "analysis/load/hostio.h"
#include "analysis/load/numbers.h"
#include "analysis/load/steps.h"

#include <math.h>
#include <stdio.h>

/* Which GPU process ?3 used, and how busy it was over q's window:
 * - the only GPU, when there is one;
 * - else the GPU whose index is its local rank (the usual
 *   torch.cuda.set_device(local_rank); NVML's order can differ from CUDA's);
 * - else its own NVML process samples (gpu_proc), time-weighted over the
 *   window with the ticks it has no sample in as idle (NVML lists a process
 *   only when it used the GPU; per-process samples are coarse, so they come
 *   after the device's own figure);
 * - else all GPUs' mean. */
static void loop_gpu_in(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	double busy = NAN, n;
	bool tier = fs_q_tier(q);
	if (ngpus > 1 && L->local_rank >= 0 && L->local_rank < ngpus) {
		char sql[256];
		if (tier)
			snprintf(sql, sizeof sql, "SELECT " FS_Q_TAVG("util_pct") " FROM gpu_1m WHERE gpu = %d AND "
				 FS_Q_TIER_WINDOW(""), L->local_rank);
		else
			snprintf(sql, sizeof sql, "SELECT avg(util_pct) FROM gpu WHERE gpu = %d AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_GPU(""), L->local_rank);
		fs_q_row(q, sql, 1, &busy);
		if (!isnan(busy)) {
			L->gpu_busy = busy / 100;
			snprintf(L->gpu_basis, sizeof L->gpu_basis, "local_rank");
			return;
		}
	}
	if (ngpus > 1) {
		if (tier)
			fs_q_row(q, "SELECT sum(n), total(sm_util_pct * dt_s) / (SELECT sum(dt_s) FROM ticks_1m WHERE "
				 FS_Q_TIER_WINDOW("") ") FROM gpu_proc_1m WHERE pid = ?3 AND " FS_Q_TIER_WINDOW(""), 2, &n, &busy);
		else
			fs_q_row(q, "SELECT count(*), total(g.sm_util_pct * k.dt_s) / (SELECT sum(dt_s) FROM ticks WHERE t BETWEEN ?1 AND ?2)"
			       " FROM gpu_proc g JOIN ticks k ON k.t = g.t WHERE g.pid = ?3 AND g.t BETWEEN ?1 AND ?2 AND k.dt_s IS NOT NULL",
				 2, &n, &busy);
		if (n > 0 && !isnan(busy)) {
			L->gpu_busy = fmin(1, busy / 100);
			snprintf(L->gpu_basis, sizeof L->gpu_basis, "process");
			return;
		}
	}
	/* the only GPU, or all GPUs' mean */
	fs_q_row(q, tier ? "SELECT " FS_Q_TAVG("util_pct") " FROM gpu_1m WHERE " FS_Q_TIER_WINDOW("")
			 : "SELECT avg(util_pct) FROM gpu WHERE t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_GPU(""),
		 1, &busy);
	L->gpu_busy = isnan(busy) ? NAN : busy / 100;
	if (!isnan(busy))
		snprintf(L->gpu_basis, sizeof L->gpu_basis, "%s", ngpus == 1 ? "its GPU" : "all GPUs");
}

/* loop_gpu_in over the loop's span where the steps give one (start-up and
 * exit are not the loop's), within the window, and the device's clock over
 * the same span. */
static void loop_gpu(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	double w0 = q->w0, w1 = q->w1;
	L->gpu_basis[0] = '\0';
	if (L->t1 > L->t0) {
		q->w0 = fmax(w0, L->t0);
		q->w1 = fmin(w1, L->t1);
	}
	loop_gpu_in(q, L, ngpus);
	fs_m_device_clock(q, L, ngpus);
	q->w0 = w0;
	q->w1 = w1;
}

/* Its rank and local rank: the ranks table's, else the hook's. */
static void loop_rank(struct fs_q *q, struct fs_loop_proc *L)
{
	L->rank = L->local_rank = -1;
	double r, lr;
	if (fs_q_row(q, "SELECT rank, local_rank FROM ranks WHERE pid = ?3 ORDER BY t DESC LIMIT 1", 2, &r, &lr)) {
		L->rank = to_int(r, -1);
		L->local_rank = to_int(lr, -1);
	}
	if (L->rank < 0) { /* no rank variable (torch.multiprocessing.spawn): the hook's, from torch.distributed */
		char key[64];
		snprintf(key, sizeof key, "hook.rank.%d", L->pid);
		L->rank = to_int(fs_q_meta_num(q, key), -1);
	}
}

/* Its phases within the window: epoch_end, collective, checkpoint. */
static void loop_phases(struct fs_q *q, struct fs_loop_proc *L)
{
	double v, n, total;
	fs_q_row(q, "SELECT sum(t_end - t_start) FROM phases WHERE name = 'epoch_end' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 1, &v);
	L->epoch_end_s = v > 0 ? v : 0;
	/* per minute (a DDP job's collectives past the raw windows are gone:
	 * store/retain.h) from phases_1m, where the run file has it */
	if (fs_q_tier(q) && fs_q_has_table(q, "phases_1m") /* schema 8 */)
		fs_q_row(q, "SELECT sum(n), sum(phase_s) FROM phases_1m WHERE name = 'collective' AND pid = ?3 AND "
		       FS_Q_TIER_WINDOW(""), 2, &n, &total);
	else
		fs_q_row(q, "SELECT count(*), sum(t_end - t_start) FROM phases WHERE name = 'collective' AND pid = ?3"
		       " AND t_end >= ?1 AND t_start <= ?2", 2, &n, &total);
	L->collectives = to_count(n);
	L->collective_s = n > 0 ? total : 0;
	fs_q_row(q, "SELECT sum(t_end - t_start) FROM phases WHERE name = 'checkpoint' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 1, &v);
	L->checkpoint_phase_s = v > 0 ? v : 0;
}

/* With steps: the epoch boundaries (step 0's wait) and the loop's time. */
static void loop_with_steps(struct fs_q *q, struct fs_loop_proc *L)
{
	char loader[64];
	fs_m_main_loader(q, loader, sizeof loader);
	if (fs_q_tier(q))
		fs_m_epoch_starts_tier(q, loader_int(q, loader, "num_workers"), &L->epoch_excess_s, &L->epoch_starts);
	else
		fs_m_epoch_starts(q, loader_int(q, loader, "num_workers"), &L->epoch_excess_s, &L->epoch_starts);
	L->loop_s = L->wait_s + L->compute_s + L->epoch_end_s;
}

/* Without steps the loop is where the accelerator worked: from the
 * first to the last GPU sample with any use (of its GPU where that is
 * known), while the process lived; the interpreter's start-up and
 * exit are not the loop's. No GPU samples: its whole life. */
static void loop_without_steps(struct fs_q *q, struct fs_metrics *m, struct fs_loop_proc *L)
{
	double v;
	char sql[320];
	const char *own = m->ngpus > 1 && L->local_rank >= 0 && L->local_rank < m->ngpus ? " AND gpu = ?5" : "";
	bool tier = fs_q_tier(q); /* per minute: the first busy minute's start, the last's end */
	if (tier)
		snprintf(sql, sizeof sql, "SELECT min(t) - 60, max(t) FROM gpu_1m WHERE util_pct_max > 0 AND "
			 FS_Q_TIER_WINDOW("") "%s", own);
	else
		snprintf(sql, sizeof sql, "SELECT min(t), max(t) FROM gpu WHERE util_pct > 0 AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_GPU("") "%s", own);
	double t0 = NAN, t1 = NAN;
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (st) {
		sqlite3_bind_int(st, 5, L->local_rank);
		if (fs_q_step(q, st)) {
			t0 = fs_q_col(st, 0);
			t1 = fs_q_col(st, 1);
		}
	}
	sqlite3_finalize(st);
	double w0 = q->w0, w1 = q->w1;
	if (t1 > t0) {
		L->t0 = q->w0 = fmax(w0, t0);
		L->t1 = q->w1 = fmin(w1, t1);
	}
	if (fs_q_tier(q))
		fs_q_row(q, "SELECT sum(dt_s) FROM proc_1m WHERE pid = ?3 AND " FS_Q_TIER_WINDOW(""), 1, &v);
	else
		fs_q_row(q, "SELECT sum(k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t WHERE p.pid = ?3"
		       " AND p.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC("p.") " AND k.dt_s IS NOT NULL", 1, &v);
	if (m->have_gpu)
		fs_m_worker_restarts(q, L, own);
	q->w0 = w0;
	q->w1 = w1;
	L->loop_s = v;
}

/* Everything the accounting needs about the training process ?3. */
void fs_m_loop_fill(struct fs_q *q, struct fs_metrics *m, struct fs_loop_proc *L)
{
	loop_rank(q, L);
	loop_phases(q, L);
	fs_m_host_io_for(q, L->checkpoint_phase_s, &L->host_io_s, &L->write_sync_s, &L->gpu_busy_in_host_io);
	L->helper_write_s = fs_m_helper_writes(q);
	if (L->have_steps)
		loop_with_steps(q, L);
	else
		loop_without_steps(q, m, L);
	/* per minute: the samples with a thread in D, and those with none in D
	 * but one running, are apart (proc_1m) */
	fs_q_row(q, fs_q_tier(q) ? "SELECT " FS_Q_TAVG("(blocked_any_pct + running_only_pct) / 100.0")
				   " FROM proc_1m WHERE ppid = ?3 AND " FS_Q_TIER_WINDOW("")
				 : "SELECT avg(min(1.0, min(running, 1.0) + min(blocked_io, 1.0))) FROM proc WHERE ppid = ?3"
				   " AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC(""),
		 1, &L->loader_active);
	loop_gpu(q, L, m->ngpus);
}
