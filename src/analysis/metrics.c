/* metrics.c - the queries that turn a run file into struct fs_metrics. */
#include "analysis/metrics.h"

#include <math.h>
#include <stdarg.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct q {
	sqlite3 *db;
	double w0, w1;
	int trainer; /* the pid whose loop the steps time, or the job's main pid */
};

/* Prepare sql and bind the window (?1, ?2) and the trainer pid (?3) where used. */
static sqlite3_stmt *prep(struct q *q, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	int n = sqlite3_bind_parameter_count(st);
	if (n >= 1)
		sqlite3_bind_double(st, 1, q->w0);
	if (n >= 2)
		sqlite3_bind_double(st, 2, q->w1);
	if (n >= 3)
		sqlite3_bind_int(st, 3, q->trainer);
	return st;
}

static double col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

/* Run sql and store the first row's columns into the n doubles given. */
static bool row(struct q *q, const char *sql, int n, ...)
{
	sqlite3_stmt *st = prep(q, sql);
	va_list ap;
	va_start(ap, n);
	bool got = st && sqlite3_step(st) == SQLITE_ROW;
	for (int i = 0; i < n; i++)
		*va_arg(ap, double *) = got ? col(st, i) : NAN;
	va_end(ap);
	sqlite3_finalize(st);
	return got;
}

static void text(struct q *q, const char *sql, char *out, size_t cap)
{
	sqlite3_stmt *st = prep(q, sql);
	out[0] = '\0';
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static void meta_text(struct q *q, const char *key, char *out, size_t cap)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_prepare_v2(q->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static double meta_num(struct q *q, const char *key)
{
	char v[64];
	meta_text(q, key, v, sizeof v);
	char *end;
	double d = strtod(v, &end);
	return v[0] && end != v ? d : NAN;
}

static int loader_int(struct q *q, const char *loader, const char *knob)
{
	char key[160];
	snprintf(key, sizeof key, "loader.%s.%s", loader, knob);
	double v = meta_num(q, key);
	return isnan(v) ? -1 : (int)v;
}

/* Step 0's wait beyond the epoch's usual wait, summed over epochs after the
 * first (the first pays for cold caches too). Steps below the worker count
 * are left out of "usual": each worker's first batch waits for its start. */
static void epoch_starts(struct q *q, struct fs_metrics *m)
{
	sqlite3_stmt *st = prep(q, "SELECT loader, epoch, step, wait_s FROM steps"
				   " WHERE t BETWEEN ?1 AND ?2 ORDER BY loader, epoch, step");
	char cur[64] = "";
	long epoch = -1;
	double first = NAN, sum = 0;
	long n = 0;
	int skip = m->num_workers > 1 ? m->num_workers : 1;
	m->epoch_start_excess_s = 0;
	m->epoch_starts = 0;
	for (bool more = st && sqlite3_step(st) == SQLITE_ROW;; more = sqlite3_step(st) == SQLITE_ROW) {
		const char *l = more ? (const char *)sqlite3_column_text(st, 0) : "";
		long e = more ? sqlite3_column_int64(st, 1) : -1;
		if (!more || strcmp(l, cur) != 0 || e != epoch) {
			if (epoch > 0 && !isnan(first) && n > 0) {
				double excess = first - sum / (double)n;
				m->epoch_start_excess_s += excess > 0 ? excess : 0;
				m->epoch_starts++;
			}
			if (!more)
				break;
			snprintf(cur, sizeof cur, "%s", l ? l : "");
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

static void load_steps(struct q *q, struct fs_metrics *m)
{
	double steps, epochs, wait, compute;
	row(q, "SELECT count(*), count(DISTINCT loader || '/' || epoch), sum(wait_s), sum(compute_s)"
	       " FROM steps WHERE t BETWEEN ?1 AND ?2", 4, &steps, &epochs, &wait, &compute);
	m->have_steps = steps > 0;
	m->steps = isnan(steps) ? 0 : (long)steps;
	m->epochs = isnan(epochs) ? 0 : (long)epochs;
	m->wait_s = m->have_steps ? wait : NAN;
	m->compute_s = m->have_steps ? compute : NAN;
	text(q, "SELECT loader FROM steps WHERE t BETWEEN ?1 AND ?2 GROUP BY loader"
		" ORDER BY count(*) DESC LIMIT 1", m->loader, sizeof m->loader);
	double pid;
	row(q, "SELECT pid FROM steps WHERE t BETWEEN ?1 AND ?2 GROUP BY pid ORDER BY count(*) DESC LIMIT 1",
	    1, &pid);
	if (!isnan(pid))
		q->trainer = (int)pid;

	double n, total;
	row(q, "SELECT count(*), sum(t_end - t_start) FROM phases WHERE name = 'epoch_end'"
	       " AND t_end >= ?1 AND t_start <= ?2", 2, &n, &total);
	m->epoch_ends = (long)n;
	m->epoch_end_s = n > 0 ? total : 0;
	row(q, "SELECT count(*), sum(t_end - t_start) FROM phases WHERE name = 'checkpoint'"
	       " AND t_end >= ?1 AND t_start <= ?2", 2, &n, &total);
	m->checkpoints = (long)n;
	m->checkpoint_s = n > 0 ? total : 0;
	m->checkpoint_every_steps = m->checkpoints >= 2 ? (double)m->steps / (double)m->checkpoints : NAN;
	m->loop_s = m->have_steps ? wait + compute + m->epoch_end_s : NAN;

	m->num_workers = loader_int(q, m->loader, "num_workers");
	m->batch_size = loader_int(q, m->loader, "batch_size");
	m->prefetch_factor = loader_int(q, m->loader, "prefetch_factor");
	char key[160];
	snprintf(key, sizeof key, "loader.%s.persistent_workers", m->loader);
	meta_text(q, key, m->persistent_workers, sizeof m->persistent_workers);
	snprintf(key, sizeof key, "loader.%s.pin_memory", m->loader);
	meta_text(q, key, m->pin_memory, sizeof m->pin_memory);
	if (m->have_steps)
		epoch_starts(q, m);
}

static void load_gpu(struct q *q, struct fs_metrics *m)
{
	double n, busy, pcie;
	row(q, "SELECT count(DISTINCT gpu), avg(util_pct), max(pcie_rx_bytes_per_s) FROM gpu"
	       " WHERE t BETWEEN ?1 AND ?2", 3, &n, &busy, &pcie);
	m->have_gpu = n > 0 && !isnan(busy);
	m->ngpus = isnan(n) ? 0 : (int)n;
	m->gpu_busy = m->have_gpu ? busy / 100 : NAN;
	m->pcie_rx_max_bytes_per_s = pcie;
	/* A gpu row at t covers (t - dt, t]: those ending inside a checkpoint. */
	row(q, "SELECT avg(g.util_pct) FROM gpu g JOIN phases p ON g.t > p.t_start AND g.t <= p.t_end"
	       " WHERE p.name = 'checkpoint' AND g.t BETWEEN ?1 AND ?2", 1, &m->gpu_busy_in_checkpoints);
}

/* The states of a group of processes (filter: an SQL condition on p). */
static void load_states(struct q *q, const char *filter, struct fs_states *s)
{
	char sql[1024];
	snprintf(sql, sizeof sql,
		 "SELECT count(*), sum(p.blocked_io > 0), sum(p.blocked_io = 0 AND p.running > 0),"
		 " count(DISTINCT p.pid), sum(p.cpu_pct * k.dt_s), sum(p.run_wait_pct * k.dt_s),"
		 " (SELECT sum(dt_s) FROM ticks WHERE t BETWEEN ?1 AND ?2 AND dt_s IS NOT NULL)"
		 " FROM proc p JOIN ticks k ON k.t = p.t WHERE p.t BETWEEN ?1 AND ?2 AND k.dt_s IS NOT NULL AND %s",
		 filter);
	double n, blocked, running, procs, cpu, runwait, time_s;
	row(q, sql, 7, &n, &blocked, &running, &procs, &cpu, &runwait, &time_s);
	memset(s, 0, sizeof *s);
	s->samples = isnan(n) ? 0 : (long)n;
	s->procs = isnan(procs) ? 0 : (long)procs;
	if (s->samples == 0) {
		s->blocked = s->running = s->sleeping = s->cpu_cores = s->run_wait = NAN;
		return;
	}
	s->blocked = blocked / n;
	s->running = running / n;
	s->sleeping = 1 - s->blocked - s->running;
	s->cpu_cores = time_s > 0 ? cpu / 100 / time_s : NAN;
	s->run_wait = time_s > 0 ? runwait / 100 / time_s : NAN;
}

static void load_job(struct q *q, struct fs_metrics *m)
{
	double n;
	row(q, "SELECT count(*) FROM proc WHERE t BETWEEN ?1 AND ?2", 1, &n);
	m->have_job = n > 0;
	if (!m->have_job)
		return;
	load_states(q, "p.pid = ?3", &m->main);
	load_states(q, "p.ppid = ?3", &m->loaders);
	const char *loader_filter = "p.ppid = ?3";
	m->loaders_are_main = m->loaders.samples == 0;
	if (m->loaders_are_main) {
		m->loaders = m->main;
		loader_filter = "p.pid = ?3";
	}
	char sql[512];
	snprintf(sql, sizeof sql,
		 "SELECT sum(p.rchar_per_s * k.dt_s), sum(p.read_bytes_per_s * k.dt_s) FROM proc p"
		 " JOIN ticks k ON k.t = p.t WHERE p.t BETWEEN ?1 AND ?2 AND %s", loader_filter);
	row(q, sql, 2, &m->loader_rchar_bytes, &m->loader_read_bytes);
	row(q, "SELECT sum(p.read_bytes_per_s * k.dt_s), sum(p.cpu_pct * k.dt_s) / 100 /"
	       " (SELECT sum(dt_s) FROM ticks WHERE t BETWEEN ?1 AND ?2) FROM proc p"
	       " JOIN ticks k ON k.t = p.t WHERE p.t BETWEEN ?1 AND ?2",
	    2, &m->job_read_bytes, &m->job_cpu_cores);
	row(q, "SELECT max(cpu_quota_cores), avg(throttled_pct), max(mem_limit_bytes), max(mem_usage_bytes)"
	       " FROM cgroup WHERE t BETWEEN ?1 AND ?2",
	    4, &m->cg_quota_cores, &m->cg_throttled_pct, &m->cg_mem_limit_bytes, &m->cg_mem_usage_max_bytes);
}

static void load_machine(struct q *q, struct fs_metrics *m)
{
	row(q, "SELECT avg(100 - idle_pct - iowait_pct), avg(iowait_pct) FROM cpu WHERE t BETWEEN ?1 AND ?2",
	    2, &m->cpu_busy_pct, &m->cpu_iowait_pct);
	row(q, "SELECT avg(CASE WHEN resource = 'cpu' THEN some_pct END),"
	       " avg(CASE WHEN resource = 'io' THEN some_pct END),"
	       " avg(CASE WHEN resource = 'io' THEN full_pct END),"
	       " avg(CASE WHEN resource = 'memory' THEN some_pct END) FROM psi WHERE t BETWEEN ?1 AND ?2",
	    4, &m->psi_cpu, &m->psi_io, &m->psi_io_full, &m->psi_mem);
	row(q, "SELECT min(available_bytes), max(cached_bytes), avg(majflt_per_s), max(dentries) - min(dentries)"
	       " FROM mem WHERE t BETWEEN ?1 AND ?2",
	    4, &m->mem_available_min_bytes, &m->cached_max_bytes, &m->majflt_per_s, &m->dentries_growth);

	sqlite3_stmt *st = prep(q,
		"SELECT d.device, sum(d.read_bytes_per_s * k.dt_s), avg(d.read_bytes_per_s), avg(d.util_pct),"
		" sum(d.read_bytes_per_s * k.dt_s) / nullif(sum(d.reads_per_s * k.dt_s), 0),"
		" sum(d.read_await_ms * d.reads_per_s) / nullif(sum(d.reads_per_s), 0),"
		" avg(d.reads_per_s), avg(d.queue_depth)"
		" FROM disk d JOIN ticks k ON k.t = d.t WHERE d.t BETWEEN ?1 AND ?2"
		" GROUP BY d.device ORDER BY 2 DESC LIMIT 1");
	if (st && sqlite3_step(st) == SQLITE_ROW && col(st, 1) > 0) {
		snprintf(m->disk, sizeof m->disk, "%s", (const char *)sqlite3_column_text(st, 0));
		m->disk_read_bytes = col(st, 1);
		m->disk_read_bytes_per_s = col(st, 2);
		m->disk_util_pct = col(st, 3);
		m->disk_req_bytes = col(st, 4);
		m->disk_await_ms = col(st, 5);
		m->disk_iops = col(st, 6);
		m->disk_queue_depth = col(st, 7);
	}
	sqlite3_finalize(st);

	st = prep(q, "SELECT iface, avg(rx_bytes_per_s), max(speed_mbps) FROM net"
		     " WHERE iface != 'lo' AND t BETWEEN ?1 AND ?2 GROUP BY iface ORDER BY 2 DESC LIMIT 1");
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		snprintf(m->nic, sizeof m->nic, "%s", (const char *)sqlite3_column_text(st, 0));
		m->nic_rx_bytes_per_s = col(st, 1);
		m->nic_speed_bytes_per_s = col(st, 2) * 1e6 / 8;
	}
	sqlite3_finalize(st);
	row(q, "SELECT avg(retrans_segs_per_s) FROM tcp WHERE t BETWEEN ?1 AND ?2", 1, &m->tcp_retrans_per_s);
	row(q, "SELECT avg(read_ops_per_s), sum(read_rtt_ms * read_ops_per_s) / nullif(sum(read_ops_per_s), 0)"
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
		&m->epoch_start_excess_s,
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
	struct q q = {.w0 = w ? w->start_s : -INFINITY, .w1 = w ? w->end_s : INFINITY};
	m->window = (struct fs_window){q.w0, q.w1};
	if (sqlite3_open_v2(path, &q.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, q.db ? sqlite3_errmsg(q.db) : "cannot open");
		sqlite3_close(q.db);
		return -1;
	}
	double nmeta;
	if (!row(&q, "SELECT count(*) FROM meta", 1, &nmeta) || !(nmeta > 0)) {
		snprintf(err, errlen, "%s: not a feedscope run file", path);
		sqlite3_close(q.db);
		return -1;
	}
	meta_text(&q, "mode", m->mode, sizeof m->mode);
	m->interval_s = meta_num(&q, "interval_s");
	m->ncpu = (int)meta_num(&q, "ncpu");
	m->mem_total_bytes = meta_num(&q, "mem_bytes");
	double first, last;
	row(&q, "SELECT min(t), max(t) FROM ticks WHERE t BETWEEN ?1 AND ?2", 2, &first, &last);
	m->duration_s = last - first;
	q.trainer = (int)meta_num(&q, "pid");
	load_steps(&q, m);
	load_gpu(&q, m);
	load_job(&q, m);
	load_machine(&q, m);
	sqlite3_close(q.db);
	return 0;
}
