/* loops.c - the training processes of a run file and what the accounting
 * needs about each (struct fs_loop_proc): their steps, collectives,
 * checkpoint / host-I/O bucket, GPU, epoch boundaries; and which of them the
 * job-level figures describe (the trainer). Part of fs_metrics_load. */
#include "analysis/load/loops.h"
#include "analysis/load/numbers.h"
#include "analysis/load/steps.h"
#include "store/rollup.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Step 0's wait beyond the epoch's usual wait, summed over epochs after the
 * first (the first pays for cold caches too), for the process ?3. Steps
 * below the worker count are left out of "usual": each worker's first batch
 * waits for its start. */
static void epoch_starts(struct fs_q *q, int workers, double *excess_s, long *count)
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

/* epoch_starts over the per-minute steps (fs_q_tier): each epoch's wait
 * and steps from steps_1m; step 0's wait and those of the steps below the
 * worker count from the raw steps of the minutes around the epoch's first
 * (rowids_1m: a step's row is given in the minute its record arrived). An
 * epoch whose raw step 0 is not there is left out. */
static void epoch_starts_tier(struct fs_q *q, int workers, double *excess_s, long *count)
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

/* The checkpoint / host-I/O bucket (metrics.h) as a union of intervals: each
 * checkpoint phase, and for each tick the trainer's main-thread write + sync
 * time s on files as (t - s, t] (the tracer books a call when it ends, and
 * the main thread's calls follow each other, so a 2 s fsync is the 2 s
 * before its tick). The union, not the sum: a torch.save phase already
 * holds its own writes. The open/close time of the files it wrote (files,
 * run totals) is added in proportion to the write time outside phases. The
 * accelerator's use during the bucket is the mean util of the GPU samples
 * inside it. A run file without io_classes keeps the phases alone. */
struct span {
	double a, b;
};

static int by_start(const void *x, const void *y)
{
	double d = ((const struct span *)x)->a - ((const struct span *)y)->a;
	return d < 0 ? -1 : d > 0;
}

/* Merge sorted spans in place; returns how many remain. */
static size_t merge_spans(struct span *sp, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k > 0 && sp[i].a <= sp[k - 1].b) {
			if (sp[i].b > sp[k - 1].b)
				sp[k - 1].b = sp[i].b;
		} else {
			sp[k++] = sp[i];
		}
	}
	return k;
}

/* Mean GPU util inside the merged spans (NaN if none): each GPU sample
 * covers its tick, (t - dt, t], and weighs by how much of that the spans
 * cover, so a 1 ms write inside a busy tick (a log line, a small file)
 * counts a thousandth of a 2 s fsync's tick, not as much. */
static double util_inside(struct fs_q *q, const struct span *sp, size_t n)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT g.t, avg(g.util_pct), k.dt_s FROM gpu g JOIN ticks k ON k.t = g.t"
				   " WHERE g.t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_GPU("g.") " AND k.dt_s > 0 GROUP BY g.t ORDER BY g.t");
	double sum = 0, weight = 0;
	size_t i = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), u = fs_q_col(st, 1), dt = fs_q_col(st, 2);
		if (isnan(u) || !(dt > 0))
			continue;
		double lo = t - dt;
		while (i < n && sp[i].b <= lo)
			i++;
		double cover = 0;
		for (size_t j = i; j < n && sp[j].a < t; j++)
			cover += fmin(sp[j].b, t) - fmax(sp[j].a, lo);
		if (cover > 0) {
			sum += u * cover;
			weight += cover;
		}
	}
	sqlite3_finalize(st);
	return weight > 0 ? sum / weight : NAN;
}

/* The rows (a, b[, kind]) of st as spans, sorted and merged; the caller
 * frees them and finalizes st. Rows with b <= a (or NaN) are left out;
 * *kind1_s (when not NULL) gets the length, before merging, of the rows
 * whose third column is 1. On running out of memory *oom is set and the
 * spans read so far are returned. *n is the count (0: NULL may come back). */
static struct span *read_spans(struct fs_q *q, sqlite3_stmt *st, size_t *n, double *kind1_s, bool *oom)
{
	struct span *sp = NULL;
	size_t cap = 0;
	*n = 0;
	*oom = false;
	if (kind1_s)
		*kind1_s = 0;
	while (fs_q_step(q, st)) {
		if (*n == cap) {
			struct span *more = realloc(sp, (cap = cap ? 2 * cap : 1024) * sizeof *sp);
			if (!more) {
				*oom = true;
				break;
			}
			sp = more;
		}
		struct span x = {fs_q_col(st, 0), fs_q_col(st, 1)};
		if (!(x.b > x.a))
			continue;
		if (kind1_s && sqlite3_column_int(st, 2))
			*kind1_s += x.b - x.a;
		sp[(*n)++] = x;
	}
	if (*n > 0) {
		qsort(sp, *n, sizeof *sp, by_start);
		*n = merge_spans(sp, *n);
	}
	return sp;
}

static double span_length(const struct span *sp, size_t n)
{
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += sp[i].b - sp[i].a;
	return total;
}

/* The host-I/O bucket of process ?3 (its checkpoint phases' time phase_s
 * is already known): *bucket, *io (its main thread in write + sync, NaN
 * without io_classes) and *util (mean GPU util inside the bucket, NaN). A
 * run file without io_classes keeps the phases alone. */
static void host_io_tier(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util);

static void host_io_for(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util)
{
	if (fs_q_tier(q)) {
		host_io_tier(q, phase_s, bucket_s, io_s, util);
		return;
	}
	*bucket_s = phase_s;
	*io_s = *util = NAN;
	sqlite3_stmt *st = fs_q_prep(q,
		"SELECT t - s, t, 1 FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes WHERE pid = ?3"
		" AND thread = 'main' AND class = 'file' AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_IO_CLASSES("")
		" GROUP BY t) WHERE s > 0"
		" UNION ALL SELECT max(t_start, ?1), min(t_end, ?2), 0 FROM phases WHERE name = 'checkpoint'"
		" AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2");
	if (!st)
		return; /* no io_classes in this run file: the phases alone */
	size_t n;
	double io;
	bool oom;
	struct span *sp = read_spans(q, st, &n, &io, &oom);
	sqlite3_finalize(st);
	if (!sp && !oom)
		*io_s = 0; /* nothing written, no phases */
	if (oom || !sp) {
		free(sp);
		return; /* the phases alone */
	}
	double bucket = span_length(sp, n);
	double meta, written;
	fs_q_row(q, "SELECT sum(main_meta_time_s), sum(main_write_time_s) FROM files WHERE pid = ?3 AND write_bytes > 0",
		 2, &meta, &written);
	double beyond = bucket - phase_s;
	if (meta > 0 && written > 0 && beyond > 0)
		bucket += meta * fmin(1, beyond / written);
	*io_s = io;
	if (bucket > *bucket_s)
		*bucket_s = bucket;
	*util = n > 0 ? util_inside(q, sp, n) : NAN;
	free(sp);
}

/* host_io_for over the per-minute tables (fs_q_tier): a minute's write +
 * sync time s (io_classes_1m) is placed in the minute, outside the
 * checkpoint phases that overlap it (a torch.save phase holds its own
 * writes): the bucket is the phases' time plus, per minute, s less the
 * phases' time in that minute (at least 0, at most the rest of the
 * minute). The accelerator's use in it: the phases' own GPU samples (raw,
 * by rowid), and each minute's mean (gpu_1m) for the writes outside them. */
struct phase_span {
	double a, b;
};

static double overlap(double a, double b, const struct phase_span *ph, size_t n)
{
	double o = 0;
	for (size_t i = 0; i < n; i++)
		o += fmax(0, fmin(b, ph[i].b) - fmax(a, ph[i].a));
	return o;
}

static void host_io_tier(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util)
{
	*bucket_s = phase_s;
	*io_s = *util = NAN;
	struct phase_span ph[256];
	size_t nph = 0;
	double usum = 0, uw = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT max(t_start, ?1), min(t_end, ?2) FROM phases WHERE name = 'checkpoint'"
				   " AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2 ORDER BY t_start");
	while (fs_q_step(q, st))
		if (nph < sizeof ph / sizeof ph[0])
			ph[nph++] = (struct phase_span){fs_q_col(st, 0), fs_q_col(st, 1)};
	sqlite3_finalize(st);
	/* the phases' own GPU samples, each phase's by rowid */
	st = nph ? fs_q_prep(q, "SELECT total(util_pct), count(util_pct) FROM gpu WHERE rowid BETWEEN ?5 AND ?6"
				" AND t > ?4 AND t <= ?7")
		 : NULL;
	for (size_t i = 0; st && i < nph; i++) {
		long long lo, hi;
		if (!(ph[i].b > ph[i].a) ||
		    !fs_q_minute_rows(q, "gpu", ph[i].a, ph[i].b + 2 * FS_ROLLUP_PERIOD_S, &lo, &hi))
			continue;
		sqlite3_reset(st);
		sqlite3_bind_double(st, 4, ph[i].a);
		sqlite3_bind_int64(st, 5, lo);
		sqlite3_bind_int64(st, 6, hi);
		sqlite3_bind_double(st, 7, ph[i].b);
		if (fs_q_step(q, st)) {
			double sum = fs_q_col(st, 0), cnt = fs_q_col(st, 1);
			if (cnt > 0) {
				usum += sum / cnt * (ph[i].b - ph[i].a);
				uw += ph[i].b - ph[i].a;
			}
		}
	}
	sqlite3_finalize(st);
	st = fs_q_prep(q, "SELECT c.t, sum(c.write_s + c.sync_s), (SELECT " FS_Q_TAVG("g.util_pct")
			  " FROM gpu_1m g WHERE g.t = c.t) FROM io_classes_1m c WHERE c.pid = ?3 AND c.thread = 'main'"
			  " AND c.class = 'file' AND " FS_Q_TIER_WINDOW("c.") " GROUP BY c.t ORDER BY c.t");
	if (!st)
		return; /* no io_classes in this run file: the phases alone */
	double io = 0, beyond = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), w = fs_q_col(st, 1), u = fs_q_col(st, 2);
		if (!(w > 0))
			continue;
		io += w;
		double in_phases = overlap(t - FS_ROLLUP_PERIOD_S, t, ph, nph);
		double out = fmin(fmax(0, w - in_phases), FS_ROLLUP_PERIOD_S - in_phases);
		if (out > 0) {
			beyond += out;
			if (!isnan(u)) {
				usum += u * out;
				uw += out;
			}
		}
	}
	sqlite3_finalize(st);
	double bucket = phase_s + beyond;
	double meta, written;
	fs_q_row(q, "SELECT sum(main_meta_time_s), sum(main_write_time_s) FROM files WHERE pid = ?3 AND write_bytes > 0",
		 2, &meta, &written);
	if (meta > 0 && written > 0 && beyond > 0)
		bucket += meta * fmin(1, beyond / written);
	*io_s = io;
	*bucket_s = bucket;
	*util = uw > 0 ? usum / uw : NAN;
}

/* The time process ?3's other threads spent in write + sync on files, as
 * a union of intervals: for each tick t whose calls took s, (t - s, t], as
 * for the main thread (the tracer books a call in the tick it ends: a 2 s
 * fsync is the 2 s before it; several threads' time in one tick is summed,
 * an overestimate only when they wrote at the same time). NaN without
 * io_classes. */
static double helper_writes(struct fs_q *q)
{
	if (fs_q_tier(q)) { /* per minute: the minute's time, at most the minute */
		double v;
		fs_q_row(q, "SELECT total(min(s, 60.0)) FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes_1m"
			 " WHERE pid = ?3 AND thread = 'other' AND class = 'file' AND " FS_Q_TIER_WINDOW("") " GROUP BY t)",
			 1, &v);
		return v;
	}
	sqlite3_stmt *st = fs_q_prep(q, "SELECT t - s, t FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes"
				   " WHERE pid = ?3 AND thread = 'other' AND class = 'file' AND t BETWEEN ?1 AND ?2 AND "
				   FS_Q_ROWS_IO_CLASSES("") " GROUP BY t)"
				   " WHERE s > 0");
	if (!st)
		return NAN;
	size_t n;
	bool oom; /* what was read still counts */
	struct span *sp = read_spans(q, st, &n, NULL, &oom);
	sqlite3_finalize(st);
	double total = span_length(sp, n);
	free(sp);
	return total;
}

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
 * exit are not the loop's), within the window. */
static void loop_gpu(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	double w0 = q->w0, w1 = q->w1;
	L->gpu_basis[0] = '\0';
	if (L->t1 > L->t0) {
		q->w0 = fmax(w0, L->t0);
		q->w1 = fmin(w1, L->t1);
	}
	loop_gpu_in(q, L, ngpus);
	q->w0 = w0;
	q->w1 = w1;
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
static void worker_restarts(struct fs_q *q, struct fs_loop_proc *L, const char *gpu_filter)
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

/* Everything the accounting needs about the training process ?3. */
static void loop_fill(struct fs_q *q, struct fs_metrics *m, struct fs_loop_proc *L)
{
	double v, n, total;
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
	host_io_for(q, L->checkpoint_phase_s, &L->host_io_s, &L->write_sync_s, &L->gpu_busy_in_host_io);
	L->helper_write_s = helper_writes(q);
	if (L->have_steps) {
		char loader[64];
		fs_m_main_loader(q, loader, sizeof loader);
		if (fs_q_tier(q))
			epoch_starts_tier(q, loader_int(q, loader, "num_workers"), &L->epoch_excess_s, &L->epoch_starts);
		else
			epoch_starts(q, loader_int(q, loader, "num_workers"), &L->epoch_excess_s, &L->epoch_starts);
		L->loop_s = L->wait_s + L->compute_s + L->epoch_end_s;
	} else {
		/* Without steps the loop is where the accelerator worked: from the
		 * first to the last GPU sample with any use (of its GPU where that is
		 * known), while the process lived; the interpreter's start-up and
		 * exit are not the loop's. No GPU samples: its whole life. */
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
			worker_restarts(q, L, own);
		q->w0 = w0;
		q->w1 = w1;
		L->loop_s = v;
	}
	/* per minute: the samples with a thread in D, and those with none in D
	 * but one running, are apart (proc_1m) */
	fs_q_row(q, fs_q_tier(q) ? "SELECT " FS_Q_TAVG("(blocked_any_pct + running_only_pct) / 100.0")
				   " FROM proc_1m WHERE ppid = ?3 AND " FS_Q_TIER_WINDOW("")
				 : "SELECT avg(min(1.0, min(running, 1.0) + min(blocked_io, 1.0))) FROM proc WHERE ppid = ?3"
				   " AND t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_PROC(""),
		 1, &L->loader_active);
	loop_gpu(q, L, m->ngpus);
}

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

/* The straggler of n training processes (metrics.h): the rule that picks
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
		loop_fill(q, m, &m->loops[i]);
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
