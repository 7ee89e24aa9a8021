#include "analysis/summary.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One number from a query (first column of the first row); NaN if the query
 * returns nothing, NULL, or fails. */
static double q1(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	double v = NAN;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return NAN;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_double(st, 0);
	sqlite3_finalize(st);
	return v;
}

static void meta(sqlite3 *db, const char *key, char *out, size_t cap)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

static double meta_num(sqlite3 *db, const char *key)
{
	char v[64];
	meta(db, key, v, sizeof v);
	return v[0] ? atof(v) : NAN;
}

static void load_skipped(sqlite3 *db, struct fs_summary *s)
{
	sqlite3_stmt *st;
	size_t n = 0;
	if (sqlite3_prepare_v2(db, "SELECT substr(key, 8), value FROM meta WHERE key LIKE 'source.%' "
				   "AND value != 'ok' ORDER BY key", -1, &st, NULL) != SQLITE_OK)
		return;
	while (sqlite3_step(st) == SQLITE_ROW && n < sizeof s->skipped) {
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

static void load_disks(sqlite3 *db, struct fs_summary *s)
{
	sqlite3_stmt *st;
	const char *sql =
		"SELECT d.device, avg(d.read_bytes_per_s), avg(d.write_bytes_per_s), avg(d.reads_per_s),"
		" sum(d.read_bytes_per_s * k.dt_s) / nullif(sum(d.reads_per_s * k.dt_s), 0),"
		" sum(d.read_await_ms * d.reads_per_s) / nullif(sum(d.reads_per_s), 0),"
		" avg(d.util_pct), max(d.util_pct), sum(d.read_bytes_per_s * k.dt_s)"
		" FROM disk d JOIN ticks k ON k.t = d.t GROUP BY d.device"
		" HAVING sum(d.read_bytes_per_s + d.write_bytes_per_s) > 0 OR max(d.util_pct) > 0"
		" ORDER BY sum(d.read_bytes_per_s + d.write_bytes_per_s) DESC, max(d.util_pct) DESC LIMIT 3";
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return;
	while (s->ndisks < FS_SUMMARY_DISKS && sqlite3_step(st) == SQLITE_ROW) {
		struct fs_summary_disk *d = &s->disks[s->ndisks++];
		snprintf(d->name, sizeof d->name, "%s", (const char *)sqlite3_column_text(st, 0));
		double *f[] = {&d->read_bytes_per_s, &d->write_bytes_per_s, &d->reads_per_s,
			       &d->read_req_bytes,   &d->read_await_ms,     &d->util_pct,
			       &d->util_max_pct,     &d->read_bytes};
		for (int i = 0; i < 8; i++)
			*f[i] = sqlite3_column_type(st, i + 1) == SQLITE_NULL ? NAN
									       : sqlite3_column_double(st, i + 1);
	}
	sqlite3_finalize(st);
}

static void load_net(sqlite3 *db, struct fs_summary *s)
{
	sqlite3_stmt *st;
	s->net_rx_bytes_per_s = s->net_tx_bytes_per_s = NAN;
	if (sqlite3_prepare_v2(db, "SELECT iface, avg(rx_bytes_per_s), avg(tx_bytes_per_s) FROM net"
				   " WHERE iface != 'lo' GROUP BY iface"
				   " HAVING sum(rx_bytes_per_s + tx_bytes_per_s) > 0"
				   " ORDER BY sum(rx_bytes_per_s + tx_bytes_per_s) DESC LIMIT 1",
			       -1, &st, NULL) != SQLITE_OK)
		return;
	if (sqlite3_step(st) == SQLITE_ROW) {
		snprintf(s->net_iface, sizeof s->net_iface, "%s", (const char *)sqlite3_column_text(st, 0));
		s->net_rx_bytes_per_s = sqlite3_column_double(st, 1);
		s->net_tx_bytes_per_s = sqlite3_column_double(st, 2);
	}
	sqlite3_finalize(st);
}

static void load_job(sqlite3 *db, struct fs_summary *s)
{
	s->job_procs_max = (long)q1(db, "SELECT max(n) FROM (SELECT count(*) n FROM proc GROUP BY t)");
	s->job_threads_max = (long)q1(db, "SELECT max(n) FROM (SELECT sum(threads) n FROM proc GROUP BY t)");
	s->job_cpu_pct = q1(db, "SELECT avg(c) FROM (SELECT sum(cpu_pct) c FROM proc GROUP BY t)");
	const char *share = "SELECT 100.0 * sum(%s) / nullif(sum(running + blocked_io + sleeping"
			    " + coalesce(other, 0)), 0) FROM proc%s";
	char sql[512];
	const char *cols[] = {"running", "blocked_io", "sleeping", "coalesce(other, 0)"};
	double *all[] = {&s->thr_running, &s->thr_blocked, &s->thr_sleeping, &s->thr_other};
	double *wrk[] = {&s->wrk_running, &s->wrk_blocked, &s->wrk_sleeping};
	for (int i = 0; i < 4; i++) {
		snprintf(sql, sizeof sql, share, cols[i], "");
		*all[i] = q1(db, sql);
		if (i < 3) {
			snprintf(sql, sizeof sql, share, cols[i], " WHERE role = 'worker'");
			*wrk[i] = q1(db, sql);
		}
	}
	s->job_read_bytes = q1(db, "SELECT sum(p.read_bytes_per_s * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t");
	s->job_rchar = q1(db, "SELECT sum(p.rchar_per_s * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t");
}

static void load_gpu(sqlite3 *db, struct fs_summary *s)
{
	s->ngpus = (int)q1(db, "SELECT count(DISTINCT gpu) FROM gpu");
	s->gpu_util = q1(db, "SELECT avg(util_pct) FROM gpu");
	s->gpu_mem_used_max = q1(db, "SELECT max(mem_used_bytes) FROM gpu");
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT name FROM gpu WHERE name IS NOT NULL LIMIT 1", -1, &st, NULL) ==
	    SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			snprintf(s->gpu_name, sizeof s->gpu_name, "%s",
				 (const char *)sqlite3_column_text(st, 0));
		sqlite3_finalize(st);
	}
}

static void load_steps(sqlite3 *db, struct fs_summary *s)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, "SELECT loader, count(*), count(DISTINCT epoch), sum(wait_s), sum(compute_s)"
				   " FROM steps GROUP BY loader ORDER BY count(*) DESC LIMIT 3",
			       -1, &st, NULL) == SQLITE_OK) {
		while (s->nloaders < FS_SUMMARY_LOADERS && sqlite3_step(st) == SQLITE_ROW) {
			struct fs_summary_loader *l = &s->loaders[s->nloaders++];
			snprintf(l->name, sizeof l->name, "%s", (const char *)sqlite3_column_text(st, 0));
			l->steps = sqlite3_column_int64(st, 1);
			l->epochs = sqlite3_column_int64(st, 2);
			l->wait_s = sqlite3_column_double(st, 3);
			l->compute_s = sqlite3_column_double(st, 4);
		}
		sqlite3_finalize(st);
	}
	if (sqlite3_prepare_v2(db, "SELECT name, count(*), sum(t_end - t_start) FROM phases"
				   " GROUP BY name ORDER BY sum(t_end - t_start) DESC LIMIT 3",
			       -1, &st, NULL) == SQLITE_OK) {
		while (s->nphases < FS_SUMMARY_PHASES && sqlite3_step(st) == SQLITE_ROW) {
			struct fs_summary_phase *p = &s->phases[s->nphases++];
			snprintf(p->name, sizeof p->name, "%s", (const char *)sqlite3_column_text(st, 0));
			p->count = sqlite3_column_int64(st, 1);
			p->total_s = sqlite3_column_double(st, 2);
		}
		sqlite3_finalize(st);
	}
	meta(db, "hook", s->hook, sizeof s->hook);
}

int fs_summary_load(const char *path, struct fs_summary *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof *s);
	sqlite3 *db;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, db ? sqlite3_errmsg(db) : "cannot open");
		sqlite3_close(db);
		return -1;
	}
	if (isnan(q1(db, "SELECT count(*) FROM meta"))) {
		snprintf(err, errlen, "%s: not a feedscope run file", path);
		sqlite3_close(db);
		return -1;
	}
	meta(db, "mode", s->mode, sizeof s->mode);
	meta(db, "command", s->command, sizeof s->command);
	s->pid = (int)meta_num(db, "pid");
	s->duration_s = meta_num(db, "duration_s");
	s->interval_s = meta_num(db, "interval_s");
	s->ticks = (long)q1(db, "SELECT count(*) FROM ticks");
	double code = meta_num(db, "exit_code");
	s->has_exit = !isnan(code);
	s->exit_code = s->has_exit ? (int)code : 0;
	load_skipped(db, s);

	s->cpu_user = q1(db, "SELECT avg(user_pct + coalesce(nice_pct, 0)) FROM cpu");
	s->cpu_system = q1(db, "SELECT avg(system_pct) FROM cpu");
	s->cpu_iowait = q1(db, "SELECT avg(iowait_pct) FROM cpu");
	s->cpu_idle = q1(db, "SELECT avg(idle_pct) FROM cpu");
	s->cpu_steal = q1(db, "SELECT avg(steal_pct) FROM cpu");
	s->psi_cpu_some = q1(db, "SELECT avg(some_pct) FROM psi WHERE resource = 'cpu'");
	s->psi_io_some = q1(db, "SELECT avg(some_pct) FROM psi WHERE resource = 'io'");
	s->psi_io_full = q1(db, "SELECT avg(full_pct) FROM psi WHERE resource = 'io'");
	s->psi_mem_some = q1(db, "SELECT avg(some_pct) FROM psi WHERE resource = 'memory'");
	s->psi_mem_full = q1(db, "SELECT avg(full_pct) FROM psi WHERE resource = 'memory'");
	s->mem_available_min = q1(db, "SELECT min(available_bytes) FROM mem");
	s->mem_cached_max = q1(db, "SELECT max(cached_bytes) FROM mem");
	s->majflt_per_s = q1(db, "SELECT avg(majflt_per_s) FROM mem");

	load_disks(db, s);
	load_net(db, s);
	load_job(db, s);
	load_gpu(db, s);
	load_steps(db, s);
	s->recorder_cpu_s = meta_num(db, "recorder_cpu_s");
	s->recorder_cpu_start_s = meta_num(db, "recorder_cpu_start_s");
	s->recorder_sample_us = meta_num(db, "recorder_sample_us");
	sqlite3_close(db);
	return 0;
}
