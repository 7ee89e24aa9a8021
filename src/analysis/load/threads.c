/* threads.c - the job's threads by pool, and the cores it may use
 * (threads.h). */
#include "analysis/load/threads.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* The rows of the window, with each process's group (grp: main, children,
 * others) as the metric sources name them. */
#define TP_ROWS                                                                                                 \
	"WITH tp AS (SELECT x.*, CASE WHEN x.pid = ?3 THEN 'main' WHEN x.pid IN (SELECT pid FROM proc WHERE ppid = " \
	"?3) THEN 'children' ELSE 'others' END AS grp FROM thread_pools x WHERE x.t BETWEEN ?1 AND ?2) "

void fs_m_load_threads(struct fs_q *q, struct fs_threads *th)
{
	memset(th, 0, sizeof *th);
	th->cpus_allowed = th->cpuset_cpus = -1;
	double n = NAN, thr = NAN, act = NAN, pact = NAN, busy = NAN, t0 = NAN, t1 = NAN;
	fs_q_row(q, TP_ROWS ", ps AS (SELECT pid, t, sum(threads) AS th, sum(active) AS act,"
		    " sum(CASE WHEN pool != 'main' THEN active ELSE 0 END) AS pact, max(dt_s) AS dt FROM tp"
		    " WHERE grp = 'children' GROUP BY pid, t)"
		    " SELECT count(DISTINCT pid), avg(th), avg(CASE WHEN act > 0 THEN act END),"
		    " avg(CASE WHEN act > 0 THEN pact END), avg(act > 0), min(t - dt), max(t) FROM ps",
		 7, &n, &thr, &act, &pact, &busy, &t0, &t1);
	if (!(n > 0))
		return;
	th->have = true;
	th->workers = (int)n;
	th->worker_threads = thr;
	th->worker_active = act;
	th->worker_pool_active = pact;
	th->worker_busy = busy;
	th->span_s = t1 > t0 ? t1 - t0 : NAN;
	double c[3], w[3];
	static const char *const grp[3] = {"children", "main", "others"};
	for (int g = 0; g < 3; g++) {
		char sql[1024];
		snprintf(sql, sizeof sql, TP_ROWS "SELECT coalesce(sum(cpu_pct * dt_s), 0) / 100, coalesce(sum(run_wait_pct * dt_s), 0) / 100"
			 " FROM tp WHERE grp = '%s' AND t > %.17g AND t <= %.17g", grp[g], t0, t1);
		fs_q_row(q, sql, 2, &c[g], &w[g]);
	}
	th->workers_cpu_s = c[0], th->workers_wait_s = w[0];
	th->trainer_cpu_s = c[1], th->trainer_wait_s = w[1];
	th->others_cpu_s = c[2], th->others_wait_s = w[2];
	double ta = NAN, allowed = NAN, cpuset = NAN;
	fs_q_row(q, TP_ROWS "SELECT (SELECT avg(a) FROM (SELECT sum(active) AS a FROM tp WHERE grp = 'main' GROUP BY t)),"
		    " max(cpus_allowed), max(cpuset_cpus) FROM tp",
		 3, &ta, &allowed, &cpuset);
	th->trainer_active = ta;
	th->cpus_allowed = allowed > 0 ? (int)allowed : -1;
	th->cpuset_cpus = cpuset > 0 ? (int)cpuset : -1;
	fs_q_text(q, TP_ROWS "SELECT group_concat(pool) FROM (SELECT pool FROM tp WHERE grp = 'children' AND pool != 'main'"
		     " AND active > 0 GROUP BY pool ORDER BY sum(active) DESC)",
		  th->pools, sizeof th->pools);
	fs_q_text(q, TP_ROWS "SELECT libs FROM tp WHERE grp = 'children' AND libs != '' ORDER BY length(libs) DESC LIMIT 1",
		  th->libs, sizeof th->libs);
}

double fs_threads_workers_runnable(const struct fs_threads *th)
{
	return th->have && th->span_s > 0 ? (th->workers_cpu_s + th->workers_wait_s) / th->span_s : NAN;
}

double fs_threads_job_runnable(const struct fs_threads *th)
{
	if (!th->have || !(th->span_s > 0))
		return NAN;
	return (th->workers_cpu_s + th->workers_wait_s + th->trainer_cpu_s + th->trainer_wait_s + th->others_cpu_s +
		th->others_wait_s) /
	       th->span_s;
}
