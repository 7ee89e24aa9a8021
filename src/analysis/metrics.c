/* metrics.c - the queries that turn a run file into struct fs_metrics. */
#include "analysis/metrics.h"

#include "analysis/query.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v as an int, or dflt when it is NaN or out of int's range (a cast would
 * be undefined behaviour). */
static int to_int(double v, int dflt)
{
	return v >= INT_MIN && v <= INT_MAX ? (int)v : dflt;
}

/* A count read as a double (NaN when its query failed, e.g. a table the run
 * file lacks): 0 unless it is a representable non-negative number. */
static long to_count(double v)
{
	return v >= 0 && v <= (double)LONG_MAX / 2 ? (long)v : 0;
}

static int loader_int(struct fs_q *q, const char *loader, const char *knob)
{
	char key[160];
	snprintf(key, sizeof key, "loader.%s.%s", loader, knob);
	return to_int(fs_q_meta_num(q, key), -1);
}

/* Whether the recording was finished (fs_session_finish writes end_unix and
 * duration_s), and where its samples stop. */
static void load_completeness(struct fs_q *q, struct fs_metrics *m)
{
	char end[64];
	fs_q_meta(q, "end_unix", end, sizeof end);
	m->incomplete = end[0] == '\0';
	double last;
	fs_q_row(q, "SELECT max(t) FROM ticks", 1, &last);
	m->recorded_until_s = last;
}

/* Step 0's wait beyond the epoch's usual wait, summed over epochs after the
 * first (the first pays for cold caches too), for the process ?3. Steps
 * below the worker count are left out of "usual": each worker's first batch
 * waits for its start. */
static void epoch_starts(struct fs_q *q, int workers, double *excess_s, long *count)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT loader, epoch, step, wait_s FROM steps"
				   " WHERE t BETWEEN ?1 AND ?2 AND pid = ?3 ORDER BY loader, epoch, step");
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

/* The loader with the most steps of process ?3 into out. */
static void main_loader(struct fs_q *q, char *out, size_t cap)
{
	fs_q_text(q, "SELECT loader FROM steps WHERE t BETWEEN ?1 AND ?2 AND pid = ?3 GROUP BY loader"
		  " ORDER BY count(*) DESC LIMIT 1", out, cap);
}

/* The job-level step figures: the trainer's (m->loops[m->trainer]). */
static void load_steps(struct fs_q *q, struct fs_metrics *m)
{
	const struct fs_loop_proc *L = m->trainer >= 0 ? &m->loops[m->trainer] : NULL;
	m->have_steps = L && L->have_steps && L->steps > 0;
	if (!m->have_steps) {
		if (L) { /* the boundaries seen from worker restarts */
			m->epoch_start_excess_s = L->epoch_excess_s;
			m->epoch_starts = L->epoch_starts;
		}
		m->epoch_end_s = 0;
		m->checkpoint_s = m->checkpoint_phase_s = 0;
		return;
	}
	m->steps = L->steps;
	m->wait_s = L->wait_s;
	m->compute_s = L->compute_s;
	m->epoch_end_s = L->epoch_end_s;
	m->epoch_start_excess_s = L->epoch_excess_s;
	m->epoch_starts = L->epoch_starts;
	m->loop_s = L->loop_s;
	double epochs, n, total;
	fs_q_row(q, "SELECT count(DISTINCT loader || '/' || epoch) FROM steps WHERE t BETWEEN ?1 AND ?2 AND pid = ?3",
		 1, &epochs);
	m->epochs = to_count(epochs);
	fs_q_row(q, "SELECT count(*) FROM phases WHERE name = 'epoch_end' AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2",
		 1, &n);
	m->epoch_ends = to_count(n);
	fs_q_row(q, "SELECT count(*), sum(t_end - t_start) FROM phases WHERE name = 'checkpoint' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 2, &n, &total);
	m->checkpoints = to_count(n);
	m->checkpoint_phase_s = n > 0 ? total : 0;
	m->checkpoint_every_steps = m->checkpoints >= 2 ? (double)m->steps / (double)m->checkpoints : NAN;
}

/* The loader knobs (meta loader.NAME.*) of the trainer's main loader. */
static void load_knobs(struct fs_q *q, struct fs_metrics *m)
{
	main_loader(q, m->loader, sizeof m->loader);
	m->num_workers = loader_int(q, m->loader, "num_workers");
	m->batch_size = loader_int(q, m->loader, "batch_size");
	m->prefetch_factor = loader_int(q, m->loader, "prefetch_factor");
	char key[160];
	snprintf(key, sizeof key, "loader.%s.persistent_workers", m->loader);
	fs_q_meta(q, key, m->persistent_workers, sizeof m->persistent_workers);
	snprintf(key, sizeof key, "loader.%s.pin_memory", m->loader);
	fs_q_meta(q, key, m->pin_memory, sizeof m->pin_memory);
}

static void load_gpu(struct fs_q *q, struct fs_metrics *m)
{
	double n, busy, pcie;
	fs_q_row(q, "SELECT count(DISTINCT gpu), avg(util_pct), max(pcie_rx_bytes_per_s) FROM gpu"
	       " WHERE t BETWEEN ?1 AND ?2", 3, &n, &busy, &pcie);
	m->have_gpu = n > 0 && !isnan(busy);
	m->ngpus = isnan(n) ? 0 : (int)n;
	m->gpu_busy = m->have_gpu ? busy / 100 : NAN;
	m->pcie_rx_max_bytes_per_s = pcie;
	/* A gpu row at t covers (t - dt, t]: those ending inside a checkpoint. */
	fs_q_row(q, "SELECT avg(g.util_pct) FROM gpu g JOIN phases p ON g.t > p.t_start AND g.t <= p.t_end"
	       " WHERE p.name = 'checkpoint' AND g.t BETWEEN ?1 AND ?2", 1, &m->gpu_busy_in_checkpoints);
}

/* Fill s from one group's sums (see load_job's query). */
static void set_states(struct fs_states *s, sqlite3_stmt *st, double time_s)
{
	double n = fs_q_col(st, 1), blocked = fs_q_col(st, 2), running = fs_q_col(st, 3);
	memset(s, 0, sizeof *s);
	s->samples = to_count(n);
	s->procs = to_count(fs_q_col(st, 4));
	s->blocked = blocked / n;
	s->running = running / n;
	s->sleeping = 1 - s->blocked - s->running;
	s->cpu_cores = time_s > 0 ? fs_q_col(st, 5) / 100 / time_s : NAN;
	s->run_wait = time_s > 0 ? fs_q_col(st, 6) / 100 / time_s : NAN;
}

static void no_states(struct fs_states *s)
{
	memset(s, 0, sizeof *s);
	s->blocked = s->running = s->sleeping = s->cpu_cores = s->run_wait = NAN;
}

/* One pass over the job's process samples, grouped: 0 the process running
 * the loop (or the job's main process), 1 its children (the loaders), 2 the
 * rest. A process sample is blocked if a thread is in D, else running if
 * one is in R, else sleeping. */
static void load_job(struct fs_q *q, struct fs_metrics *m)
{
	double time_s;
	fs_q_row(q, "SELECT sum(dt_s) FROM ticks WHERE t BETWEEN ?1 AND ?2 AND dt_s IS NOT NULL", 1, &time_s);
	sqlite3_stmt *st = fs_q_prep(q,
		"SELECT CASE WHEN p.pid = ?3 THEN 0 WHEN p.ppid = ?3 THEN 1 ELSE 2 END AS g, count(*),"
		" sum(p.blocked_io > 0), sum(p.blocked_io = 0 AND p.running > 0), count(DISTINCT p.pid),"
		" sum(p.cpu_pct * k.dt_s), sum(p.run_wait_pct * k.dt_s), sum(p.rchar_per_s * k.dt_s),"
		" sum(p.read_bytes_per_s * k.dt_s), sum(k.dt_s), sum(p.majflt_per_s * k.dt_s)"
		" FROM proc p JOIN ticks k ON k.t = p.t WHERE p.t BETWEEN ?1 AND ?2 AND k.dt_s IS NOT NULL"
		" GROUP BY g");
	double rchar[3] = {NAN, NAN, NAN}, rbytes[3] = {NAN, NAN, NAN}, alive[3] = {NAN, NAN, NAN};
	double majflt[3] = {NAN, NAN, NAN};
	double cpu = 0, read = 0;
	no_states(&m->main);
	no_states(&m->loaders);
	while (fs_q_step(q, st)) {
		int g = sqlite3_column_int(st, 0);
		m->have_job = true;
		if (g == 0)
			set_states(&m->main, st, time_s);
		else if (g == 1)
			set_states(&m->loaders, st, time_s);
		rchar[g] = fs_q_col(st, 7);
		rbytes[g] = fs_q_col(st, 8);
		alive[g] = fs_q_col(st, 9);
		majflt[g] = fs_q_col(st, 10);
		cpu += isnan(fs_q_col(st, 5)) ? 0 : fs_q_col(st, 5);
		read += isnan(fs_q_col(st, 8)) ? 0 : fs_q_col(st, 8);
	}
	sqlite3_finalize(st);
	if (!m->have_job)
		return;
	m->loaders_are_main = m->loaders.samples == 0;
	if (m->loaders_are_main)
		m->loaders = m->main;
	int lg = m->loaders_are_main ? 0 : 1;
	m->loader_rchar_bytes = rchar[lg];
	m->loader_read_bytes = rbytes[lg];
	m->loader_time_s = alive[lg];
	m->loader_majflt = majflt[lg];
	m->job_read_bytes = read;
	m->job_cpu_cores = time_s > 0 ? cpu / 100 / time_s : NAN;
	fs_q_row(q, "SELECT max(cpu_quota_cores), avg(throttled_pct), max(mem_limit_bytes), max(mem_usage_bytes)"
	       " FROM cgroup WHERE t BETWEEN ?1 AND ?2",
	    4, &m->cg_quota_cores, &m->cg_throttled_pct, &m->cg_mem_limit_bytes, &m->cg_mem_usage_max_bytes);
}

/* The tracer's view of the loaders: time inside I/O calls, files, opens. */
static void load_trace(struct fs_q *q, struct fs_metrics *m)
{
	const char *loaders = m->loaders_are_main ? "SELECT ?3" : "SELECT DISTINCT pid FROM proc WHERE ppid = ?3";
	char sql[512];
	double n;
	fs_q_row(q, "SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM io_intervals)", 1, &n);
	m->have_trace = n > 0;
	if (!m->have_trace)
		return;
	snprintf(sql, sizeof sql, "SELECT sum(io_time_s) FROM io_intervals WHERE t BETWEEN ?1 AND ?2 AND pid IN (%s)",
		 loaders);
	fs_q_row(q, sql, 1, &m->loader_io_time_s);
	snprintf(sql, sizeof sql, "SELECT count(DISTINCT path), sum(opens), sum(stats), sum(reads), sum(read_bytes),"
				  " sum(seq_reads) FROM files WHERE path != '(other files)' AND pid IN (%s)", loaders);
	fs_q_row(q, sql, 6, &m->trace_files, &m->trace_opens, &m->trace_stats, &m->trace_reads,
		 &m->trace_read_bytes, &m->trace_seq_reads);
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

/* Mean GPU util of the samples inside the merged spans (NaN if none). */
static double util_inside(struct fs_q *q, const struct span *sp, size_t n)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT t, avg(util_pct) FROM gpu WHERE t BETWEEN ?1 AND ?2 GROUP BY t ORDER BY t");
	double sum = 0;
	long cnt = 0;
	size_t i = 0;
	while (fs_q_step(q, st)) {
		double t = fs_q_col(st, 0), u = fs_q_col(st, 1);
		while (i < n && sp[i].b < t)
			i++;
		if (i < n && t > sp[i].a && t <= sp[i].b && !isnan(u)) {
			sum += u;
			cnt++;
		}
	}
	sqlite3_finalize(st);
	return cnt > 0 ? sum / (double)cnt : NAN;
}

/* The host-I/O bucket of process ?3 (its checkpoint phases' time phase_s
 * is already known): *bucket, *io (its main thread in write + sync, NaN
 * without io_classes) and *util (mean GPU util inside the bucket, NaN). A
 * run file without io_classes keeps the phases alone. */
static void host_io_for(struct fs_q *q, double phase_s, double *bucket_s, double *io_s, double *util)
{
	*bucket_s = phase_s;
	*io_s = *util = NAN;
	sqlite3_stmt *st = fs_q_prep(q,
		"SELECT t - s, t, 1 FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes WHERE pid = ?3"
		" AND thread = 'main' AND class = 'file' AND t BETWEEN ?1 AND ?2 GROUP BY t) WHERE s > 0"
		" UNION ALL SELECT max(t_start, ?1), min(t_end, ?2), 0 FROM phases WHERE name = 'checkpoint'"
		" AND pid = ?3 AND t_end >= ?1 AND t_start <= ?2");
	if (!st)
		return; /* no io_classes in this run file: the phases alone */
	struct span *sp = NULL;
	size_t n = 0, cap = 0;
	double io = 0;
	bool oom = false;
	while (!oom && fs_q_step(q, st)) {
		if (n == cap) {
			struct span *more = realloc(sp, (cap = cap ? 2 * cap : 1024) * sizeof *sp);
			if (!more) {
				oom = true;
				break;
			}
			sp = more;
		}
		sp[n] = (struct span){fs_q_col(st, 0), fs_q_col(st, 1)};
		if (isnan(sp[n].a) || isnan(sp[n].b) || sp[n].b <= sp[n].a)
			continue;
		if (sqlite3_column_int(st, 2))
			io += sp[n].b - sp[n].a;
		n++;
	}
	sqlite3_finalize(st);
	if (!sp && !oom)
		*io_s = 0; /* nothing written, no phases */
	if (oom || !sp) {
		free(sp);
		return; /* the phases alone */
	}
	qsort(sp, n, sizeof *sp, by_start);
	n = merge_spans(sp, n);
	double bucket = 0;
	for (size_t i = 0; i < n; i++)
		bucket += sp[i].b - sp[i].a;
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

/* The job-level host-I/O figures: the trainer's. */
static void load_host_io(struct fs_q *q, struct fs_metrics *m)
{
	(void)q;
	if (m->trainer < 0)
		return;
	const struct fs_loop_proc *L = &m->loops[m->trainer];
	m->checkpoint_s = L->host_io_s;
	m->host_io_s = L->write_sync_s;
	if (!isnan(L->gpu_busy_in_host_io))
		m->gpu_busy_in_checkpoints = L->gpu_busy_in_host_io;
}

/* Which GPU process ?3 used: its own NVML samples (gpu_proc), else the GPU
 * whose index is its local rank (the usual torch.cuda.set_device(local_rank);
 * NVML's order can differ from CUDA's), else all GPUs' mean. */
static void loop_gpu_in(struct fs_q *q, struct fs_loop_proc *L, int ngpus)
{
	double busy = NAN, n;
	fs_q_row(q, "SELECT count(*), avg(sm_util_pct) FROM gpu_proc WHERE pid = ?3 AND t BETWEEN ?1 AND ?2", 2, &n, &busy);
	if (n > 0 && !isnan(busy)) {
		L->gpu_busy = busy / 100;
		snprintf(L->gpu_basis, sizeof L->gpu_basis, "process");
		return;
	}
	if (ngpus > 1 && L->local_rank >= 0 && L->local_rank < ngpus) {
		char sql[160];
		snprintf(sql, sizeof sql, "SELECT avg(util_pct) FROM gpu WHERE gpu = %d AND t BETWEEN ?1 AND ?2", L->local_rank);
		fs_q_row(q, sql, 1, &busy);
		if (!isnan(busy)) {
			L->gpu_busy = busy / 100;
			snprintf(L->gpu_basis, sizeof L->gpu_basis, "local_rank");
			return;
		}
	}
	fs_q_row(q, "SELECT avg(util_pct) FROM gpu WHERE t BETWEEN ?1 AND ?2", 1, &busy);
	L->gpu_busy = isnan(busy) ? NAN : busy / 100;
	if (!isnan(busy))
		snprintf(L->gpu_basis, sizeof L->gpu_basis, "all GPUs");
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
 * loop span (q's window); gpu_filter selects its GPU. */
static void worker_restarts(struct fs_q *q, struct fs_loop_proc *L, const char *gpu_filter)
{
	L->epoch_excess_s = 0;
	L->epoch_starts = 0;
	sqlite3_stmt *st = fs_q_prep(q, "WITH f AS (SELECT pid, min(t) AS t0 FROM proc WHERE ppid = ?3 GROUP BY pid)"
				   " SELECT t FROM (SELECT p.t AS t, count(*) AS n, sum(p.t = f.t0) AS fresh FROM proc p"
				   " JOIN f ON f.pid = p.pid WHERE p.ppid = ?3 AND p.t BETWEEN ?1 AND ?2 GROUP BY p.t)"
				   " WHERE fresh = n ORDER BY t");
	char sql[256];
	/* The generation's tick covers (t - dt, t], the GPU sample of that tick
	 * too: busy then is busy before the workers came. */
	snprintf(sql, sizeof sql, "SELECT (SELECT max(t) FROM gpu WHERE util_pct > 0 AND t <= ?4 AND t >= ?1%s),"
		 " (SELECT min(t) FROM gpu WHERE util_pct > 0 AND t > ?4 AND t <= ?2%s)", gpu_filter, gpu_filter);
	sqlite3_stmt *gap = st ? fs_q_prep(q, sql) : NULL;
	while (gap && fs_q_step(q, st)) {
		double start = fs_q_col(st, 0);
		sqlite3_reset(gap);
		sqlite3_bind_double(gap, 4, start);
		sqlite3_bind_int(gap, 5, L->local_rank);
		if (fs_q_step(q, gap)) {
			double a = fs_q_col(gap, 0), b = fs_q_col(gap, 1);
			if (b > a) {
				L->epoch_excess_s += b - a;
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
	fs_q_row(q, "SELECT sum(t_end - t_start) FROM phases WHERE name = 'epoch_end' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 1, &v);
	L->epoch_end_s = v > 0 ? v : 0;
	fs_q_row(q, "SELECT count(*), sum(t_end - t_start) FROM phases WHERE name = 'collective' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 2, &n, &total);
	L->collectives = to_count(n);
	L->collective_s = n > 0 ? total : 0;
	fs_q_row(q, "SELECT sum(t_end - t_start) FROM phases WHERE name = 'checkpoint' AND pid = ?3"
	       " AND t_end >= ?1 AND t_start <= ?2", 1, &v);
	L->checkpoint_phase_s = v > 0 ? v : 0;
	host_io_for(q, L->checkpoint_phase_s, &L->host_io_s, &L->write_sync_s, &L->gpu_busy_in_host_io);
	L->helper_write_s = NAN;
	fs_q_row(q, "SELECT total(min(c.s, k.dt_s)) FROM (SELECT t, sum(write_s + sync_s) AS s FROM io_classes"
	       " WHERE pid = ?3 AND thread = 'other' AND class = 'file' AND t BETWEEN ?1 AND ?2 GROUP BY t) c"
	       " JOIN ticks k ON k.t = c.t WHERE k.dt_s IS NOT NULL", 1, &L->helper_write_s);
	if (L->have_steps) {
		char loader[64];
		main_loader(q, loader, sizeof loader);
		epoch_starts(q, loader_int(q, loader, "num_workers"), &L->epoch_excess_s, &L->epoch_starts);
		L->loop_s = L->wait_s + L->compute_s + L->epoch_end_s;
	} else {
		/* Without steps the loop is where the accelerator worked: from the
		 * first to the last GPU sample with any use (of its GPU where that is
		 * known), while the process lived; the interpreter's start-up and
		 * exit are not the loop's. No GPU samples: its whole life. */
		char sql[320];
		const char *own = m->ngpus > 1 && L->local_rank >= 0 && L->local_rank < m->ngpus ? " AND gpu = ?5" : "";
		snprintf(sql, sizeof sql, "SELECT min(t), max(t) FROM gpu WHERE util_pct > 0 AND t BETWEEN ?1 AND ?2%s", own);
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
		fs_q_row(q, "SELECT sum(k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t WHERE p.pid = ?3"
		       " AND p.t BETWEEN ?1 AND ?2 AND k.dt_s IS NOT NULL", 1, &v);
		if (m->have_gpu)
			worker_restarts(q, L, own);
		q->w0 = w0;
		q->w1 = w1;
		L->loop_s = v;
	}
	fs_q_row(q, "SELECT avg(blocked_io > 0 OR running > 0) FROM proc WHERE ppid = ?3 AND t BETWEEN ?1 AND ?2", 1,
		 &L->loader_active);
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
		if (!fs_q_row(q, "SELECT count(DISTINCT pid), min(pid) FROM proc WHERE ppid = ?3 AND t BETWEEN ?1 AND ?2",
			      2, &n, &child) || n != 1)
			break;
		q->trainer = to_int(child, 0);
		fs_q_row(q, "SELECT count(DISTINCT pid) FROM proc WHERE ppid = ?3 AND t BETWEEN ?1 AND ?2", 1,
			 &grandchildren);
		if (!(grandchildren > 0))
			break;
		pid = q->trainer;
	}
	q->trainer = pid;
	return pid;
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
static void load_loops(struct fs_q *q, struct fs_metrics *m)
{
	int main_pid = q->trainer;
	m->nloops = 0;
	m->trainer = -1;
	m->trainer_pid = main_pid;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT pid, count(*), sum(wait_s), sum(compute_s), min(t - wait_s),"
				   " max(t + compute_s) FROM steps"
				   " WHERE t BETWEEN ?1 AND ?2 GROUP BY pid ORDER BY sum(wait_s) DESC, count(*) DESC LIMIT 16");
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
	int best = m->nloops > 0 ? 0 : -1;
	const char *why = steps ? "waited longest for input" : "is the job's main process";
	bool coll = false;
	for (int i = 0; i < m->nloops; i++)
		coll = coll || m->loops[i].collectives > 0;
	for (int i = 1; i < m->nloops; i++) {
		const struct fs_loop_proc *a = &m->loops[i], *b = &m->loops[best];
		if (coll) {
			double sa = a->loop_s > 0 ? a->collective_s / a->loop_s : 1;
			double sb = b->loop_s > 0 ? b->collective_s / b->loop_s : 1;
			if (sa < sb)
				best = i;
		} else if (!steps && (a->loader_active > b->loader_active || isnan(b->loader_active))) {
			best = i;
		}
	}
	if (coll)
		why = "spent the least time in collectives: the others wait for it";
	else if (!steps && m->nloops > 1)
		why = "has the busiest loaders: the other ranks' sleep, waiting for it";
	else if (!steps && m->loops[0].pid != main_pid)
		why = m->loops[0].rank >= 0 ? "is the only rank" : "trains under the job's main process (a wrapper)";
	m->trainer = best;
	if (best >= 0) {
		m->trainer_pid = m->loops[best].pid;
		snprintf(m->trainer_why, sizeof m->trainer_why, "%s", why);
	}
	q->trainer = m->trainer_pid;
}

/* The loaders' main threads by descriptor class (io_classes). */
static void load_classes(struct fs_q *q, struct fs_metrics *m)
{
	double n;
	if (!fs_q_row(q, "SELECT count(*) FROM io_classes", 1, &n) || !(n > 0))
		return;
	m->have_classes = true;
	char sql[768];
	snprintf(sql, sizeof sql,
		 "SELECT total(CASE WHEN class = 'socket' THEN read_s END), total(CASE WHEN class = 'socket' THEN read_bytes END),"
		 " total(CASE WHEN class = 'file' THEN read_s END), total(CASE WHEN class = 'file' THEN read_bytes END),"
		 " total(CASE WHEN class = 'file' THEN meta_s END) FROM io_classes"
		 " WHERE thread = 'main' AND t BETWEEN ?1 AND ?2 AND pid IN (%s)",
		 m->loaders_are_main ? "SELECT ?3" : "SELECT DISTINCT pid FROM proc WHERE ppid = ?3");
	fs_q_row(q, sql, 5, &m->loader_sock_read_s, &m->loader_sock_read_bytes, &m->loader_file_read_s,
		 &m->loader_file_read_bytes, &m->loader_meta_s);
}

/* SQL, true for a device of `per` that a mounted file system sits on and
 * that stands on other disks (device mapper, md, a loop device's file): what
 * the recorder wrote in mounts.disks (src/source/devpath.c, the one
 * definition of which disks hold a file system). Run files recorded before
 * that column tell it by the device's name. */
static const char *stacked_sql(struct fs_q *q)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT disks FROM mounts LIMIT 0");
	bool have_disks = st != NULL;
	sqlite3_finalize(st);
	return have_disks ? "EXISTS (SELECT 1 FROM mounts mo WHERE mo.device = per.device AND mo.disks IS NOT NULL"
			    " AND instr(',' || mo.disks || ',', ',' || mo.device || ',') = 0)"
			  : "(device GLOB 'dm-*' OR device GLOB 'md*' OR device GLOB 'loop*')";
}

/* The block device under the files the loaders read the most bytes from
 * (read calls, plus the extent of mmap'd files): each file's mount is the
 * longest recorded mount point (not hidden) that prefixes its path; a file
 * on tmpfs or NFS has no device. "" when the tracer recorded no files, the
 * paths are hashed, or the most-read files are on no block device. */
static void data_device(struct fs_q *q, const struct fs_metrics *m, char *out, size_t cap)
{
	char sql[1536];
	snprintf(sql, sizeof sql,
		 "WITH fm AS (SELECT f.read_bytes + CASE WHEN f.mmaps > 0 THEN f.max_offset ELSE 0 END AS b,"
		 " (SELECT mo.device FROM mounts mo WHERE coalesce(mo.hidden, 0) = 0 AND (mo.mount = '/'"
		 " OR f.path = mo.mount OR substr(f.path, 1, length(mo.mount) + 1) = mo.mount || '/')"
		 " ORDER BY length(mo.mount) DESC LIMIT 1) AS device"
		 " FROM files f WHERE substr(f.path, 1, 1) = '/' AND f.pid IN (%s))"
		 " SELECT device, sum(b) AS total FROM fm GROUP BY device HAVING total > 0 ORDER BY total DESC LIMIT 1",
		 m->loaders_are_main ? "SELECT ?3" : "SELECT DISTINCT pid FROM proc WHERE ppid = ?3");
	out[0] = '\0';
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (fs_q_step(q, st))
		snprintf(out, cap, "%s", fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

static void load_machine(struct fs_q *q, struct fs_metrics *m)
{
	fs_q_row(q, "SELECT avg(100 - idle_pct - iowait_pct), avg(iowait_pct) FROM cpu WHERE t BETWEEN ?1 AND ?2",
	    2, &m->cpu_busy_pct, &m->cpu_iowait_pct);
	fs_q_row(q, "SELECT avg(CASE WHEN resource = 'cpu' THEN some_pct END),"
	       " avg(CASE WHEN resource = 'io' THEN some_pct END),"
	       " avg(CASE WHEN resource = 'io' THEN full_pct END),"
	       " avg(CASE WHEN resource = 'memory' THEN some_pct END) FROM psi WHERE t BETWEEN ?1 AND ?2",
	    4, &m->psi_cpu, &m->psi_io, &m->psi_io_full, &m->psi_mem);
	fs_q_row(q, "SELECT min(available_bytes), max(cached_bytes), avg(majflt_per_s), max(dentries) - min(dentries)"
	       " FROM mem WHERE t BETWEEN ?1 AND ?2",
	    4, &m->mem_available_min_bytes, &m->cached_max_bytes, &m->majflt_per_s, &m->dentries_growth);

	/* The device that holds the data: the one under the files the loaders
	 * read most from (data_device). Without that (no tracer, hashed paths,
	 * a killed recorder): the device read most; but a stacked device (device
	 * mapper, md, loop: stacked_sql) that carries at least 80% of that is
	 * preferred: the file system sits on it, and the disks under it only
	 * pass its reads on (LVM or dm-crypt over nvme0n1, a loop-mounted image). */
	char sql[2048], data_dev[64];
	data_device(q, m, data_dev, sizeof data_dev);
	if (data_dev[0])
		snprintf(m->disk_basis, sizeof m->disk_basis, "the files the loaders read");
	snprintf(sql, sizeof sql,
		"WITH per AS MATERIALIZED (SELECT d.device AS device, sum(d.read_bytes_per_s * k.dt_s) AS b,"
		" avg(d.read_bytes_per_s) AS rate, avg(d.util_pct) AS util,"
		" sum(d.read_bytes_per_s * k.dt_s) / nullif(sum(d.reads_per_s * k.dt_s), 0) AS req,"
		" sum(d.read_await_ms * d.reads_per_s) / nullif(sum(d.reads_per_s), 0) AS await,"
		" avg(d.reads_per_s) AS iops, avg(d.queue_depth) AS qd"
		" FROM disk d JOIN ticks k ON k.t = d.t WHERE d.t BETWEEN ?1 AND ?2 GROUP BY d.device)"
		" SELECT device, b, rate, util, req, await, iops, qd FROM per"
		" ORDER BY device = ?4 DESC, %s AND b >= 0.8 * (SELECT max(b) FROM per) DESC, b DESC LIMIT 1",
		stacked_sql(q));
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (st)
		sqlite3_bind_text(st, 4, data_dev, -1, SQLITE_TRANSIENT);
	if (fs_q_step(q, st) && fs_q_col(st, 1) > 0) {
		snprintf(m->disk, sizeof m->disk, "%s", fs_q_col_text(st, 0));
		m->disk_read_bytes = fs_q_col(st, 1);
		m->disk_read_bytes_per_s = fs_q_col(st, 2);
		m->disk_util_pct = fs_q_col(st, 3);
		m->disk_req_bytes = fs_q_col(st, 4);
		m->disk_await_ms = fs_q_col(st, 5);
		m->disk_iops = fs_q_col(st, 6);
		m->disk_queue_depth = fs_q_col(st, 7);
	}
	sqlite3_finalize(st);
	if (m->disk[0]) {
		char key[128];
		snprintf(key, sizeof key, "probe.%s.seq_read_bytes_per_s", m->disk);
		m->disk_ceiling_bytes_per_s = fs_q_meta_num(q, key);
		snprintf(key, sizeof key, "probe.%s.randread_iops_qd32", m->disk);
		m->disk_ceiling_iops = fs_q_meta_num(q, key);
	}

	st = fs_q_prep(q, "SELECT iface, avg(rx_bytes_per_s), max(speed_mbps) FROM net"
		     " WHERE iface != 'lo' AND t BETWEEN ?1 AND ?2 GROUP BY iface ORDER BY 2 DESC LIMIT 1");
	if (fs_q_step(q, st)) {
		snprintf(m->nic, sizeof m->nic, "%s", fs_q_col_text(st, 0));
		m->nic_rx_bytes_per_s = fs_q_col(st, 1);
		m->nic_speed_bytes_per_s = fs_q_col(st, 2) * 1e6 / 8;
	}
	sqlite3_finalize(st);
	fs_q_row(q, "SELECT avg(retrans_segs_per_s) FROM tcp WHERE t BETWEEN ?1 AND ?2", 1, &m->tcp_retrans_per_s);
	fs_q_row(q, "SELECT avg(read_ops_per_s), sum(read_rtt_ms * read_ops_per_s) / nullif(sum(read_ops_per_s), 0)"
	       " FROM nfs WHERE t BETWEEN ?1 AND ?2", 2, &m->nfs_read_ops_per_s, &m->nfs_rtt_ms);
}

static void set_nan(struct fs_metrics *m)
{
	double *all[] = {
		&m->duration_s, &m->interval_s, &m->mem_total_bytes, &m->wait_s, &m->compute_s,
		&m->loop_s, &m->checkpoint_every_steps, &m->gpu_busy, &m->gpu_busy_in_checkpoints,
		&m->pcie_rx_max_bytes_per_s, &m->job_cpu_cores, &m->loader_rchar_bytes,
		&m->loader_read_bytes, &m->job_read_bytes, &m->cg_quota_cores, &m->cg_throttled_pct,
		&m->cg_mem_limit_bytes, &m->cg_mem_usage_max_bytes, &m->cpu_busy_pct, &m->cpu_iowait_pct,
		&m->psi_cpu, &m->psi_io, &m->psi_io_full, &m->psi_mem, &m->mem_available_min_bytes,
		&m->cached_max_bytes, &m->majflt_per_s, &m->dentries_growth, &m->disk_read_bytes_per_s,
		&m->disk_util_pct, &m->disk_req_bytes, &m->disk_await_ms, &m->disk_iops,
		&m->disk_queue_depth, &m->disk_read_bytes, &m->nic_rx_bytes_per_s,
		&m->nic_speed_bytes_per_s, &m->tcp_retrans_per_s, &m->nfs_read_ops_per_s, &m->nfs_rtt_ms,
		&m->epoch_start_excess_s, &m->loader_time_s, &m->loader_io_time_s, &m->trace_files,
		&m->trace_opens, &m->trace_stats, &m->trace_reads, &m->trace_read_bytes, &m->trace_seq_reads,
		&m->disk_ceiling_bytes_per_s, &m->disk_ceiling_iops, &m->checkpoint_phase_s, &m->host_io_s,
		&m->loader_sock_read_s, &m->loader_sock_read_bytes, &m->loader_file_read_s,
		&m->loader_file_read_bytes, &m->loader_meta_s, &m->loader_majflt,
	};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		*all[i] = NAN;
	m->num_workers = m->batch_size = m->prefetch_factor = -1;
}

int fs_metrics_load(const char *path, const struct fs_window *w, struct fs_metrics *m,
		    char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	set_nan(m);
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	if (w) {
		q.w0 = w->start_s;
		q.w1 = w->end_s;
	}
	m->window = (struct fs_window){q.w0, q.w1};
	fs_q_meta(&q, "mode", m->mode, sizeof m->mode);
	m->interval_s = fs_q_meta_num(&q, "interval_s");
	m->ncpu = to_int(fs_q_meta_num(&q, "ncpu"), 0);
	m->mem_total_bytes = fs_q_meta_num(&q, "mem_bytes");
	double first, last;
	fs_q_row(&q, "SELECT min(t), max(t) FROM ticks WHERE t BETWEEN ?1 AND ?2", 2, &first, &last);
	m->duration_s = last - first;
	q.trainer = to_int(fs_q_meta_num(&q, "pid"), 0);
	load_completeness(&q, m);
	load_gpu(&q, m);
	load_loops(&q, m);
	load_steps(&q, m);
	load_knobs(&q, m);
	load_job(&q, m);
	load_host_io(&q, m);
	load_trace(&q, m);
	load_classes(&q, m);
	/* The machine's figures over the trainer's loop (start-up and exit are
	 * not what the verdict is about), within the window. */
	if (m->trainer >= 0 && m->loops[m->trainer].t1 > m->loops[m->trainer].t0) {
		q.w0 = fmax(q.w0, m->loops[m->trainer].t0);
		q.w1 = fmin(q.w1, m->loops[m->trainer].t1);
	}
	load_machine(&q, m);
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}
