#include "analysis/summary.h"

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

static void load_gpu(struct fs_q *q, struct fs_summary *s)
{
	double n;
	fs_q_row(q, "SELECT count(DISTINCT gpu), avg(util_pct), max(mem_used_bytes) FROM gpu", 3, &n, &s->gpu_util,
		 &s->gpu_mem_used_max);
	s->ngpus = (int)to_long(n, 0); /* a count of rows */
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

	fs_q_row(&q, "SELECT avg(user_pct + coalesce(nice_pct, 0)), avg(system_pct), avg(iowait_pct), avg(idle_pct),"
		     " avg(steal_pct) FROM cpu", 5, &s->cpu_user, &s->cpu_system, &s->cpu_iowait, &s->cpu_idle,
		 &s->cpu_steal);
	fs_q_row(&q, "SELECT avg(CASE WHEN resource = 'cpu' THEN some_pct END),"
		     " avg(CASE WHEN resource = 'io' THEN some_pct END), avg(CASE WHEN resource = 'io' THEN full_pct END),"
		     " avg(CASE WHEN resource = 'memory' THEN some_pct END),"
		     " avg(CASE WHEN resource = 'memory' THEN full_pct END) FROM psi",
		 5, &s->psi_cpu_some, &s->psi_io_some, &s->psi_io_full, &s->psi_mem_some, &s->psi_mem_full);
	fs_q_row(&q, "SELECT min(available_bytes), max(cached_bytes), avg(majflt_per_s) FROM mem", 3,
		 &s->mem_available_min, &s->mem_cached_max, &s->majflt_per_s);

	load_disks(&q, s);
	load_net(&q, s);
	load_job(&q, s);
	load_gpu(&q, s);
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
