/* metrics.c - the queries that turn a run file into struct fs_metrics. */
#include "analysis/load/metrics.h"

#include "analysis/load/metricdefs.h"
#include "analysis/load/metrics_int.h"
#include "analysis/load/peers.h"
#include "analysis/load/query.h"
#include "analysis/load/sync.h"
#include "analysis/thresholds.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the recording was finished (fs_session_finish writes end_unix and
 * duration_s), and where its samples stop (the whole run's last tick). */
static void load_completeness(struct fs_q *q, struct fs_metrics *m)
{
	char end[64];
	fs_q_meta(q, "end_unix", end, sizeof end);
	m->incomplete = end[0] == '\0';
	double w0 = q->w0, w1 = q->w1; /* the whole run, not the window */
	q->w0 = -INFINITY;
	q->w1 = INFINITY;
	struct fs_metric_values mv;
	fs_metricdefs_load_ids(q, (enum fs_md_id[]){FS_MD_LAST_TICK_S}, 1, &mv);
	m->recorded_until_s = mv.v[FS_MD_LAST_TICK_S];
	q->w0 = w0;
	q->w1 = w1;
}

/* Phase names read per trainer (the hook sends a handful: checkpoint,
 * epoch_end, collective, validation, and what the job names). */
#define FS_MAX_PHASE_NAMES 64

/* The job-level step figures: the trainer's (m->loops[m->trainer]). */
static void load_steps(struct fs_q *q, struct fs_metrics *m)
{
	const struct fs_loop_proc *L = fs_metrics_trainer(m);
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
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_TRAINER_STEPS), &mv);
	m->epochs = to_count(mv.v[FS_MD_TRAINER_EPOCHS]);
	struct fs_metric_row rows[FS_MAX_PHASE_NAMES];
	int n = fs_metricdefs_load_keyed(q, FS_MS_TRAINER_PHASES, rows, FS_MAX_PHASE_NAMES);
	m->epoch_ends = m->checkpoints = 0;
	m->checkpoint_phase_s = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].key, "epoch_end"))
			m->epoch_ends = to_count(rows[i].v[FS_MDK_TRAINER_PHASE_COUNT]);
		if (!strcmp(rows[i].key, "checkpoint")) {
			m->checkpoints = to_count(rows[i].v[FS_MDK_TRAINER_PHASE_COUNT]);
			m->checkpoint_phase_s = rows[i].v[FS_MDK_TRAINER_PHASE_TOTAL_S];
		}
	}
	m->checkpoint_every_steps = m->checkpoints >= 2 ? (double)m->steps / (double)m->checkpoints : NAN;
}

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

/* The loader knobs (meta loader.NAME.*) of the trainer's main loader. */
static void load_knobs(struct fs_q *q, struct fs_metrics *m)
{
	fs_m_main_loader(q, m->loader, sizeof m->loader);
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
	struct fs_metric_values mv; /* the gpu table's definitions (metricdefs.c) */
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_GPU), &mv);
	double n = mv.v[FS_MD_GPU_COUNT], busy = mv.v[FS_MD_GPU_UTIL_PCT];
	m->have_gpu = n > 0 && !isnan(busy);
	m->ngpus = to_int(n, 0);
	m->gpu_busy = m->have_gpu ? busy / 100 : NAN;
	m->pcie_rx_max_bytes_per_s = mv.v[FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S];
	/* A gpu row at t covers (t - dt, t]: those ending inside a checkpoint. */
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_CKPT_GPU), &mv);
	m->gpu_busy_in_checkpoints = mv.v[FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT];
}

/* Fill s from one group's row (FS_MS_PROCS), time_s the ticks' time. */
static void set_states(struct fs_states *s, const struct fs_metric_row *r, double time_s)
{
	const double *v = r->v;
	double n = v[FS_MDK_PROCS_SAMPLES];
	memset(s, 0, sizeof *s);
	s->samples = to_count(n);
	s->procs = to_count(v[FS_MDK_PROCS_COUNT]);
	s->blocked = v[FS_MDK_PROCS_BLOCKED_SAMPLES] / n;
	s->running = v[FS_MDK_PROCS_RUNNING_SAMPLES] / n;
	s->sleeping = 1 - s->blocked - s->running;
	double blk_s = v[FS_MDK_PROCS_BLOCKED_S], meta_s = v[FS_MDK_PROCS_BLOCKED_META_S];
	s->meta_calls = blk_s > 0 && meta_s >= 0 ? fmin(1, meta_s / blk_s) : NAN;
	s->cpu_cores = time_s > 0 ? v[FS_MDK_PROCS_CPU_S] / time_s : NAN;
	s->run_wait = time_s > 0 ? v[FS_MDK_PROCS_RUN_WAIT_S] / time_s : NAN;
}

static void no_states(struct fs_states *s)
{
	memset(s, 0, sizeof *s);
	s->blocked = s->running = s->sleeping = s->cpu_cores = s->run_wait = s->meta_calls = NAN;
}

static double value_or0(double v)
{
	return isnan(v) ? 0 : v;
}

/* The job's process samples by group (FS_MS_PROCS: the process running
 * the loop, or the job's main process; its children, the loaders; the
 * rest). A process sample is blocked if a thread is in D, else running if
 * one is in R, else sleeping. */
static void load_job(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_TICKS) | FS_MD_FROM(FS_MS_CGROUP), &mv);
	double time_s = mv.v[FS_MD_RECORDED_S];
	m->cg_quota_cores = mv.v[FS_MD_CGROUP_CPU_QUOTA_CORES];
	m->cg_throttled_pct = mv.v[FS_MD_CGROUP_THROTTLED_PCT];
	m->cg_mem_limit_bytes = mv.v[FS_MD_CGROUP_MEM_LIMIT_BYTES];
	m->cg_mem_usage_max_bytes = mv.v[FS_MD_CGROUP_MEM_USAGE_MAX_BYTES];
	struct fs_metric_row rows[3];
	int n = fs_metricdefs_load_keyed(q, FS_MS_PROCS, rows, 3);
	const struct fs_metric_row *main = NULL, *children = NULL;
	double cpu = 0, read = 0;
	no_states(&m->main);
	no_states(&m->loaders);
	for (int i = 0; i < n; i++) {
		m->have_job = true;
		if (!strcmp(rows[i].key, "main"))
			set_states(&m->main, main = &rows[i], time_s);
		else if (!strcmp(rows[i].key, "children"))
			set_states(&m->loaders, children = &rows[i], time_s);
		cpu += value_or0(rows[i].v[FS_MDK_PROCS_CPU_S]);
		read += value_or0(rows[i].v[FS_MDK_PROCS_READ_BYTES]);
	}
	if (!m->have_job)
		return;
	m->loaders_are_main = m->loaders.samples == 0;
	if (m->loaders_are_main)
		m->loaders = m->main;
	const struct fs_metric_row *lg = m->loaders_are_main ? main : children;
	if (lg) {
		m->loader_rchar_bytes = lg->v[FS_MDK_PROCS_RCHAR_BYTES];
		m->loader_read_bytes = lg->v[FS_MDK_PROCS_READ_BYTES];
		m->loader_time_s = lg->v[FS_MDK_PROCS_ALIVE_S];
		m->loader_majflt = lg->v[FS_MDK_PROCS_MAJOR_FAULTS];
		m->have_meta_calls = isfinite(lg->v[FS_MDK_PROCS_BLOCKED_META_S]);
	}
	m->job_read_bytes = read;
	m->job_cpu_cores = time_s > 0 ? cpu / time_s : NAN;
}

/* The row of the loaders' group ("children" of the trainer, or "main"
 * when it has none) among n keyed rows, or NULL. */
static const struct fs_metric_row *loaders_row(const struct fs_metrics *m, const struct fs_metric_row *rows, int n)
{
	const char *group = m->loaders_are_main ? "main" : "children";
	for (int i = 0; i < n; i++)
		if (!strcmp(rows[i].key, group))
			return &rows[i];
	return NULL;
}

/* SQL for the pids of the loaders (the trainer ?3's children, or the
 * trainer itself when it has none: the "children" or "main" group of
 * FS_MS_PROCS), for "pid IN (...)". */
static const char *loaders_sql(struct fs_q *q, const struct fs_metrics *m)
{
	return m->loaders_are_main ? "SELECT ?3"
	       : fs_q_tier(q)      ? "SELECT DISTINCT pid FROM proc_1m WHERE ppid = ?3"
				   : "SELECT DISTINCT pid FROM proc WHERE ppid = ?3";
}

const char *fs_m_loaders_sql(struct fs_q *q, const struct fs_metrics *m)
{
	return loaders_sql(q, m);
}

/* The tracer's view of the loaders: time inside I/O calls, files, opens. */
static void load_trace(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_TRACE), &mv);
	m->have_trace = mv.v[FS_MD_TRACE_ROWS_COUNT] > 0;
	if (!m->have_trace)
		return;
	struct fs_metric_row rows[3];
	int n = fs_metricdefs_load_keyed(q, FS_MS_IO_BY_GROUP, rows, 3);
	const struct fs_metric_row *r = loaders_row(m, rows, n);
	if (r)
		m->loader_io_time_s = r->v[FS_MDK_IO_TIME_S];
	n = fs_metricdefs_load_keyed(q, FS_MS_FILES_BY_GROUP, rows, 3);
	r = loaders_row(m, rows, n);
	m->trace_files = 0; /* none of theirs: no file, the other counts unknown */
	if (r) {
		m->trace_files = r->v[FS_MDK_FILES_COUNT];
		m->trace_opens = r->v[FS_MDK_FILES_OPENS];
		m->trace_stats = r->v[FS_MDK_FILES_STATS];
		m->trace_reads = r->v[FS_MDK_FILES_READS];
		m->trace_read_bytes = r->v[FS_MDK_FILES_READ_BYTES];
		m->trace_seq_reads = r->v[FS_MDK_FILES_SEQ_READS];
	}
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

/* The loaders' main threads by descriptor class (io_classes): 0 for a
 * class they never used, once the tracer recorded classes at all. */
static void load_classes(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_IO_CLASSES), &mv);
	if (!(mv.v[FS_MD_IO_CLASSES_ROWS_COUNT] > 0))
		return;
	m->have_classes = true;
	struct fs_metric_row rows[3];
	int n = fs_metricdefs_load_keyed(q, FS_MS_CLASSES_BY_GROUP, rows, 3);
	const struct fs_metric_row *r = loaders_row(m, rows, n);
	m->loader_sock_read_s = r ? r->v[FS_MDK_SOCKET_READ_S] : 0;
	m->loader_sock_read_bytes = r ? r->v[FS_MDK_SOCKET_READ_BYTES] : 0;
	m->loader_file_read_s = r ? r->v[FS_MDK_FILE_READ_S] : 0;
	m->loader_file_read_bytes = r ? r->v[FS_MDK_FILE_READ_BYTES] : 0;
	m->loader_meta_s = r ? r->v[FS_MDK_FILE_META_S] : 0;
}

int fs_metrics_loop_of(const struct fs_metrics *m, int pid)
{
	for (int i = 0; i < m->ntree; i++)
		if (m->tree_pid[i] == pid)
			return m->tree_loop[i];
	return -1;
}

/* The processes of each training process: itself and its children. */
static void load_tree(struct fs_q *q, struct fs_metrics *m)
{
	m->ntree = 0;
	for (int i = 0; i < m->nloops && m->ntree < FS_MAX_TREE; i++) {
		m->tree_pid[m->ntree] = m->loops[i].pid;
		m->tree_loop[m->ntree++] = i;
	}
	/* proc_1m holds every (pid, ppid) of the rows rowids_1m says it
	 * covers: only the rows after them are read (a day-long run's proc
	 * has millions); a file without them is scanned */
	sqlite3_stmt *st = fs_q_prep(q, "SELECT pid, ppid FROM (SELECT pid, ppid, min(t) AS f FROM proc_1m GROUP BY pid, ppid"
				   " UNION ALL SELECT pid, ppid, min(t) FROM proc WHERE rowid >"
				   " coalesce((SELECT max(last) FROM rowids_1m WHERE tbl = 'proc'), 0) GROUP BY pid, ppid)"
				   " GROUP BY pid, ppid ORDER BY min(f), pid");
	if (!st && !fs_q_failed(q))
		st = fs_q_prep(q, "SELECT DISTINCT pid, ppid FROM proc");
	while (m->ntree < FS_MAX_TREE && fs_q_step(q, st)) {
		int p = sqlite3_column_int(st, 0), pp = sqlite3_column_int(st, 1);
		for (int i = 0; i < m->nloops; i++)
			if (m->loops[i].pid == pp && fs_metrics_loop_of(m, p) < 0) {
				m->tree_pid[m->ntree] = p;
				m->tree_loop[m->ntree++] = i;
				break;
			}
	}
	sqlite3_finalize(st);
}

/* The sockets of the job (peers table) classified (analysis/load/peers.h):
 * each training process's data network and traffic with the job's own
 * processes, its children's included; the loaders' main threads' reads
 * from the job's own processes, which are not the data network. Rows are
 * whole-process totals: the window does not apply to them. */
static void load_peers(struct fs_q *q, struct fs_metrics *m)
{
	for (int i = 0; i < m->nloops; i++)
		fs_net_unknown(&m->loops[i].net);
	load_tree(q, m);
	struct fs_peer_rows rows = {0};
	struct fs_peers_report rep = {0};
	if (fs_peers_load(q, 0, &rows) < 0 || rows.n == 0 || fs_peers_analyse(&rows, &rep) < 0) {
		fs_peer_rows_free(&rows);
		return;
	}
	m->have_peers = true;
	for (int i = 0; i < m->nloops; i++) {
		struct fs_net *n = &m->loops[i].net;
		n->data_bytes = n->data_s = n->coll_bytes = n->coll_s = n->top_bytes = 0; /* known: none */
	}
	for (size_t k = 0; k < rep.n; k++) {
		int j = fs_metrics_loop_of(m, rep.procs[k].pid);
		if (j >= 0)
			fs_net_add(&m->loops[j].net, &rep.procs[k]);
	}
	/* the loaders: the trainer's children, or the trainer itself */
	int tl = m->trainer;
	for (size_t r = 0; r < rows.n; r++) {
		const struct fs_peer_row *R = &rows.v[r];
		bool loader = m->loaders_are_main ? R->pid == m->trainer_pid
						  : tl >= 0 && R->pid != m->trainer_pid && fs_metrics_loop_of(m, R->pid) == tl;
		if (loader && R->main_thread && rep.row_class[r] == FS_PEER_COLLECTIVE) {
			m->loader_coll_read_s += R->read_s > 0 ? R->read_s : 0;
			m->loader_coll_read_bytes += R->read_bytes > 0 ? R->read_bytes : 0;
		}
	}
	fs_peers_report_free(&rep);
	fs_peer_rows_free(&rows);
}

/* Whether device is stacked: a mounted file system sits on it and it
 * stands on other disks (device mapper, md, a loop device's file), as the
 * recorder wrote in mounts.disks (src/source/devpath.c, the one definition
 * of which disks hold a file system). Run files recorded before that
 * column tell it by the device's name. */
static bool stacked(struct fs_q *q, const char *device)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT disks FROM mounts LIMIT 0");
	bool have_disks = st != NULL;
	sqlite3_finalize(st);
	if (!have_disks)
		return !strncmp(device, "dm-", 3) || !strncmp(device, "md", 2) || !strncmp(device, "loop", 4);
	st = fs_q_prep(q, "SELECT 1 FROM mounts WHERE device = ?4 AND disks IS NOT NULL"
			  " AND instr(',' || disks || ',', ',' || device || ',') = 0 LIMIT 1");
	if (st)
		sqlite3_bind_text(st, 4, device, -1, SQLITE_TRANSIENT);
	bool yes = fs_q_step(q, st);
	sqlite3_finalize(st);
	return yes;
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
		 loaders_sql(q, m));
	out[0] = '\0';
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (fs_q_step(q, st))
		snprintf(out, cap, "%s", fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

#define FS_MAX_DEVICES 256

/* The device that holds the data: the one under the files the loaders read
 * most from (data_device). Without that (no tracer, hashed paths, a killed
 * recorder): the device read most; but a stacked device (device mapper,
 * md, loop: stacked()) that carries at least 80% of that is preferred: the
 * file system sits on it, and the disks under it only pass its reads on
 * (LVM or dm-crypt over nvme0n1, a loop-mounted image). Its figures are
 * the per-device definitions (metricdefs.c, FS_MS_DISK). */
static void pick_disk(struct fs_q *q, struct fs_metrics *m)
{
	char data_dev[64];
	data_device(q, m, data_dev, sizeof data_dev);
	if (data_dev[0])
		snprintf(m->disk_basis, sizeof m->disk_basis, "the files the loaders read");
	struct fs_metric_row *rows = malloc(FS_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_DISK, rows, FS_MAX_DEVICES);
	double most = 0;
	for (int i = 0; i < n; i++)
		most = fmax(most, value_or0(rows[i].v[FS_MDK_DISK_READ_BYTES]));
	const struct fs_metric_row *best = NULL;
	int best_rank = -1;
	for (int i = 0; i < n; i++) {
		const struct fs_metric_row *r = &rows[i];
		double b = value_or0(r->v[FS_MDK_DISK_READ_BYTES]);
		bool is_data = data_dev[0] && !strcmp(r->key, data_dev);
		if (is_data && !(b > 0)) {
			best = NULL; /* the data's device read nothing: the page cache served it */
			break;
		}
		if (!(b > 0))
			continue;
		/* the data's device, then a stacked one carrying most, then most read */
		int rank = is_data ? 2 : b >= 0.8 * most && stacked(q, r->key) ? 1 : 0;
		if (rank > best_rank || (rank == best_rank && b > value_or0(best->v[FS_MDK_DISK_READ_BYTES]))) {
			best = r;
			best_rank = rank;
		}
	}
	if (best) {
		const double *v = best->v;
		snprintf(m->disk, sizeof m->disk, "%s", best->key);
		m->disk_read_bytes = v[FS_MDK_DISK_READ_BYTES];
		m->disk_read_bytes_per_s = v[FS_MDK_DISK_READ_BYTES_PER_S];
		m->disk_util_pct = v[FS_MDK_DISK_UTIL_PCT];
		m->disk_req_bytes = v[FS_MDK_DISK_READ_REQ_BYTES];
		m->disk_await_ms = v[FS_MDK_DISK_READ_AWAIT_MS];
		m->disk_iops = v[FS_MDK_DISK_READS_PER_S];
		m->disk_queue_depth = v[FS_MDK_DISK_QUEUE_DEPTH];
	}
	free(rows);
	if (m->disk[0]) {
		char key[128];
		snprintf(key, sizeof key, "probe.%s.seq_read_bytes_per_s", m->disk);
		m->disk_ceiling_bytes_per_s = fs_q_meta_num(q, key);
		snprintf(key, sizeof key, "probe.%s.randread_iops_qd32", m->disk);
		m->disk_ceiling_iops = fs_q_meta_num(q, key);
	}
}

/* The network interface: the busiest (fs_metricdefs_busier), lo apart. */
static void pick_nic(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_row *rows = malloc(FS_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_NIC, rows, FS_MAX_DEVICES);
	if (n > 0) {
		qsort(rows, (size_t)n, sizeof *rows, fs_metricdefs_busier);
		snprintf(m->nic, sizeof m->nic, "%.*s", (int)sizeof m->nic - 1, rows[0].key);
		m->nic_rx_bytes_per_s = rows[0].v[FS_MDK_NIC_RX_BYTES_PER_S];
		m->nic_speed_bytes_per_s = rows[0].v[FS_MDK_NIC_SPEED_BYTES_PER_S];
	}
	free(rows);
}

static void load_machine(struct fs_q *q, struct fs_metrics *m)
{
	/* cpu, psi, mem, tcp, nfs: their one definition (metricdefs.c); NaN
	 * where not valid */
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_CPU) | FS_MD_FROM(FS_MS_PSI) | FS_MD_FROM(FS_MS_MEM) |
				    FS_MD_FROM(FS_MS_TCP) | FS_MD_FROM(FS_MS_NFS), &mv);
	m->cpu_busy_pct = mv.v[FS_MD_CPU_BUSY_PCT];
	m->cpu_iowait_pct = mv.v[FS_MD_CPU_IOWAIT_PCT];
	m->psi_cpu = mv.v[FS_MD_PSI_CPU_SOME_PCT];
	m->psi_io = mv.v[FS_MD_PSI_IO_SOME_PCT];
	m->psi_io_full = mv.v[FS_MD_PSI_IO_FULL_PCT];
	m->psi_mem = mv.v[FS_MD_PSI_MEMORY_SOME_PCT];
	m->mem_available_min_bytes = mv.v[FS_MD_MEM_AVAILABLE_MIN_BYTES];
	m->cached_max_bytes = mv.v[FS_MD_PAGE_CACHE_MAX_BYTES];
	m->majflt_per_s = mv.v[FS_MD_MAJOR_FAULTS_PER_S];
	m->dentries_growth = mv.v[FS_MD_DENTRIES_GROWTH];
	m->tcp_retrans_per_s = mv.v[FS_MD_TCP_RETRANS_PER_S];
	m->nfs_read_ops_per_s = mv.v[FS_MD_NFS_READ_OPS_PER_S];
	m->nfs_rtt_ms = mv.v[FS_MD_NFS_READ_RTT_MS];

	pick_disk(q, m);
	pick_nic(q, m);
	fs_m_load_saturation(q, m);
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
	struct fs_metric_values ticks;
	/* from the index on ticks.t alone, whatever the run's length */
	fs_metricdefs_load_ids(&q, (enum fs_md_id[]){FS_MD_FIRST_TICK_S, FS_MD_LAST_TICK_S}, 2, &ticks);
	m->duration_s = ticks.v[FS_MD_LAST_TICK_S] - ticks.v[FS_MD_FIRST_TICK_S];
	q.trainer = to_int(fs_q_meta_num(&q, "pid"), 0);
	m->per_minute = fs_q_tier(&q);
	load_completeness(&q, m);
	load_gpu(&q, m);
	fs_m_load_loops(&q, m);
	load_steps(&q, m);
	load_knobs(&q, m);
	load_job(&q, m);
	load_host_io(&q, m);
	load_trace(&q, m);
	load_classes(&q, m);
	load_peers(&q, m);
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
