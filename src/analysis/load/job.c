/* job.c - the job's processes by group, and the tracer's view of the
 * loaders (job.h). */
#include "analysis/load/job.h"

#include "analysis/load/metricdefs.h"
#include "analysis/load/numbers.h"

#include <math.h>
#include <string.h>

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

/* The job's process samples by group (FS_MS_PROCS: the process running
 * the loop, or the job's main process; its children, the loaders; the
 * rest). A process sample is blocked if a thread is in D, else running if
 * one is in R, else sleeping. */
void fs_m_load_job(struct fs_q *q, struct fs_metrics *m)
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
const char *fs_m_loaders_sql(struct fs_q *q, const struct fs_metrics *m)
{
	return m->loaders_are_main ? "SELECT ?3"
	       : fs_q_tier(q)      ? "SELECT DISTINCT pid FROM proc_1m WHERE ppid = ?3"
				   : "SELECT DISTINCT pid FROM proc WHERE ppid = ?3";
}

/* The tracer's view of the loaders: time inside I/O calls, files, opens. */
void fs_m_load_trace(struct fs_q *q, struct fs_metrics *m)
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

/* The loaders' main threads by descriptor class (io_classes): 0 for a
 * class they never used, once the tracer recorded classes at all. */
void fs_m_load_classes(struct fs_q *q, struct fs_metrics *m)
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
