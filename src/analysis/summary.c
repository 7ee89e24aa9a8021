#include "analysis/summary.h"

#include "analysis/metricdefs.h"
#include "analysis/query.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v as a long, or dflt when NaN or out of range (a cast would be undefined). */
static long to_long(double v, long dflt)
{
	return v >= (double)LONG_MIN && v < (double)LONG_MAX ? (long)v : dflt;
}

static void load_skipped(struct fs_q *q, struct fs_summary *s)
{
	size_t n = 0;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT substr(key, 8), value FROM meta WHERE key LIKE 'source.%' "
				    "AND value != 'ok' ORDER BY key");
	while (n < sizeof s->skipped && fs_q_step(q, st)) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		const char *why = (const char *)sqlite3_column_text(st, 1);
		if (why && !strncmp(why, "unavailable: ", 13))
			why += 13;
		int w = snprintf(s->skipped + n, sizeof s->skipped - n, "%s%s (%s)", n ? "; " : "",
				 name ? name : "?", why ? why : "?");
		if (w < 0)
			break;
		n += (size_t)w;
	}
	sqlite3_finalize(st);
}

static void load_disks(struct fs_q *q, struct fs_summary *s)
{
	const char *sql =
		"SELECT d.device, avg(d.read_bytes_per_s), avg(d.write_bytes_per_s), avg(d.reads_per_s),"
		" sum(d.read_bytes_per_s * k.dt_s) / nullif(sum(d.reads_per_s * k.dt_s), 0),"
		" sum(d.read_await_ms * d.reads_per_s) / nullif(sum(d.reads_per_s), 0),"
		" avg(d.util_pct), max(d.util_pct), sum(d.read_bytes_per_s * k.dt_s)"
		" FROM disk d JOIN ticks k ON k.t = d.t GROUP BY d.device"
		" HAVING sum(d.read_bytes_per_s + d.write_bytes_per_s) > 0 OR max(d.util_pct) > 0"
		" ORDER BY sum(d.read_bytes_per_s + d.write_bytes_per_s) DESC, max(d.util_pct) DESC LIMIT 3";
	sqlite3_stmt *st = fs_q_prep(q, sql);
	while (s->ndisks < FS_SUMMARY_DISKS && fs_q_step(q, st)) {
		struct fs_summary_disk *d = &s->disks[s->ndisks++];
		snprintf(d->name, sizeof d->name, "%s", fs_q_col_text(st, 0));
		double *f[] = {&d->read_bytes_per_s, &d->write_bytes_per_s, &d->reads_per_s,
			       &d->read_req_bytes,   &d->read_await_ms,     &d->util_pct,
			       &d->util_max_pct,     &d->read_bytes};
		for (int i = 0; i < 8; i++)
			*f[i] = fs_q_col(st, i + 1);
	}
	sqlite3_finalize(st);
}

static void load_net(struct fs_q *q, struct fs_summary *s)
{
	s->net_rx_bytes_per_s = s->net_tx_bytes_per_s = NAN;
	sqlite3_stmt *st = fs_q_prep(q, "SELECT iface, avg(rx_bytes_per_s), avg(tx_bytes_per_s) FROM net"
				    " WHERE iface != 'lo' GROUP BY iface"
				    " HAVING sum(rx_bytes_per_s + tx_bytes_per_s) > 0"
				    " ORDER BY sum(rx_bytes_per_s + tx_bytes_per_s) DESC LIMIT 1");
	if (fs_q_step(q, st)) {
		snprintf(s->net_iface, sizeof s->net_iface, "%s", fs_q_col_text(st, 0));
		s->net_rx_bytes_per_s = fs_q_col(st, 1);
		s->net_tx_bytes_per_s = fs_q_col(st, 2);
	}
	sqlite3_finalize(st);
}

static void load_job(struct fs_q *q, struct fs_summary *s)
{
	double procs, threads, cpu;
	fs_q_row(q, "SELECT max(n), max(th), avg(c) FROM (SELECT count(*) n, sum(threads) th, sum(cpu_pct) c"
		    " FROM proc GROUP BY t)", 3, &procs, &threads, &cpu);
	s->job_procs_max = to_long(procs, 0);
	s->job_threads_max = to_long(threads, 0);
	s->job_cpu_pct = cpu;
	/* thread-state shares, all processes and workers only */
	fs_q_row(q, "SELECT 100.0 * sum(running) / nullif(sum(tot), 0), 100.0 * sum(blocked_io) / nullif(sum(tot), 0),"
		    " 100.0 * sum(sleeping) / nullif(sum(tot), 0), 100.0 * sum(oth) / nullif(sum(tot), 0),"
		    " 100.0 * sum(w * running) / nullif(sum(w * tot), 0), 100.0 * sum(w * blocked_io) / nullif(sum(w * tot), 0),"
		    " 100.0 * sum(w * sleeping) / nullif(sum(w * tot), 0)"
		    " FROM (SELECT running, blocked_io, sleeping, coalesce(other, 0) oth,"
		    " running + blocked_io + sleeping + coalesce(other, 0) tot, role = 'worker' w FROM proc)",
		 7, &s->thr_running, &s->thr_blocked, &s->thr_sleeping, &s->thr_other, &s->wrk_running,
		 &s->wrk_blocked, &s->wrk_sleeping);
	fs_q_row(q, "SELECT sum(p.read_bytes_per_s * k.dt_s), sum(p.rchar_per_s * k.dt_s) FROM proc p"
		    " JOIN ticks k ON k.t = p.t", 2, &s->job_read_bytes, &s->job_rchar);
}

/* The machine's figures, from their one definition (metricdefs.c), over
 * the whole run (q's window is open): NaN where not valid. */
static void load_machine(struct fs_q *q, struct fs_summary *s)
{
	struct fs_metric_values mv;
	fs_metricdefs_load(q, &mv);
	const double *v = mv.v;
	s->cpu_user = v[FS_MD_CPU_USER_PCT];
	s->cpu_system = v[FS_MD_CPU_SYSTEM_PCT];
	s->cpu_iowait = v[FS_MD_CPU_IOWAIT_PCT];
	s->cpu_idle = v[FS_MD_CPU_IDLE_PCT];
	s->cpu_steal = v[FS_MD_CPU_STEAL_PCT];
	s->psi_cpu_some = v[FS_MD_PSI_CPU_SOME_PCT];
	s->psi_io_some = v[FS_MD_PSI_IO_SOME_PCT];
	s->psi_io_full = v[FS_MD_PSI_IO_FULL_PCT];
	s->psi_mem_some = v[FS_MD_PSI_MEMORY_SOME_PCT];
	s->psi_mem_full = v[FS_MD_PSI_MEMORY_FULL_PCT];
	s->mem_available_min = v[FS_MD_MEM_AVAILABLE_MIN_BYTES];
	s->mem_cached_max = v[FS_MD_PAGE_CACHE_MAX_BYTES];
	s->majflt_per_s = v[FS_MD_MAJOR_FAULTS_PER_S];
	s->ngpus = (int)to_long(v[FS_MD_GPU_COUNT], 0); /* NaN: none sampled */
	s->gpu_util = v[FS_MD_GPU_UTIL_PCT];
	s->gpu_mem_used_max = v[FS_MD_GPU_MEM_USED_MAX_BYTES];
}

static void load_gpu_name(struct fs_q *q, struct fs_summary *s)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT name FROM gpu WHERE name IS NOT NULL LIMIT 1");
	if (fs_q_step(q, st))
		snprintf(s->gpu_name, sizeof s->gpu_name, "%s", fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

static void load_steps(struct fs_q *q, struct fs_summary *s)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT loader, count(*), count(DISTINCT epoch), sum(wait_s), sum(compute_s)"
				    " FROM steps GROUP BY loader ORDER BY count(*) DESC LIMIT 3");
	while (s->nloaders < FS_SUMMARY_LOADERS && fs_q_step(q, st)) {
		struct fs_summary_loader *l = &s->loaders[s->nloaders++];
		snprintf(l->name, sizeof l->name, "%s", fs_q_col_text(st, 0));
		l->steps = sqlite3_column_int64(st, 1);
		l->epochs = sqlite3_column_int64(st, 2);
		l->wait_s = fs_q_col(st, 3);
		l->compute_s = fs_q_col(st, 4);
	}
	sqlite3_finalize(st);
	st = fs_q_prep(q, "SELECT name, count(*), sum(t_end - t_start) FROM phases"
			  " GROUP BY name ORDER BY sum(t_end - t_start) DESC LIMIT 3");
	while (s->nphases < FS_SUMMARY_PHASES && fs_q_step(q, st)) {
		struct fs_summary_phase *p = &s->phases[s->nphases++];
		snprintf(p->name, sizeof p->name, "%s", fs_q_col_text(st, 0));
		p->count = sqlite3_column_int64(st, 1);
		p->total_s = fs_q_col(st, 2);
	}
	sqlite3_finalize(st);
	fs_q_meta(q, "hook", s->hook, sizeof s->hook);
}

/* A finished recording has an end record (meta end_unix, see
 * fs_session_finish); without one the recorder was killed or still runs. */
static void load_completeness(struct fs_q *q, struct fs_summary *s)
{
	char end[64];
	fs_q_meta(q, "end_unix", end, sizeof end);
	s->incomplete = end[0] == '\0';
	fs_q_row(q, "SELECT max(t) FROM ticks", 1, &s->recorded_until_s);
}

int fs_summary_load(const char *path, struct fs_summary *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	fs_q_meta(&q, "mode", s->mode, sizeof s->mode);
	fs_q_meta(&q, "command", s->command, sizeof s->command);
	double pid = fs_q_meta_num(&q, "pid");
	s->pid = pid >= 0 && pid <= INT_MAX ? (int)pid : 0;
	s->duration_s = fs_q_meta_num(&q, "duration_s");
	s->interval_s = fs_q_meta_num(&q, "interval_s");
	double ticks, code = fs_q_meta_num(&q, "exit_code");
	fs_q_row(&q, "SELECT count(*) FROM ticks", 1, &ticks);
	s->ticks = to_long(ticks, 0);
	s->has_exit = code >= INT_MIN && code <= INT_MAX;
	s->exit_code = s->has_exit ? (int)code : 0;
	load_completeness(&q, s);
	load_skipped(&q, s);

	load_machine(&q, s);
	load_disks(&q, s);
	load_net(&q, s);
	load_job(&q, s);
	load_gpu_name(&q, s);
	load_steps(&q, s);
	s->recorder_cpu_s = fs_q_meta_num(&q, "recorder_cpu_s");
	s->recorder_cpu_start_s = fs_q_meta_num(&q, "recorder_cpu_start_s");
	s->recorder_sample_us = fs_q_meta_num(&q, "recorder_sample_us");
	/* A query that failed (not a table this file lacks) would pass for
	 * "not recorded": the summary is not to be trusted then. */
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}
