/* html_series.c - the read side of the HTML report: each run file's
 * timelines, downsampled in SQL (GROUP BY the column a sample falls in:
 * min and max per column, so a spike of one tick in a 24-hour run still
 * shows), its phases merged to the column's width, and its tables. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/query.h"
#include "render/html.h"
#include "store/rollup.h"
#include "store/series.h"
#include "util/fmt.h"

/* Where the columns are: column c covers [origin + c*width, origin + (c+1)*width)
 * in the file's own seconds. */
struct axis {
	double origin, width;
};

/* Bind the column geometry as ?4 (origin) and ?5 (width): every timeline
 * query writes its column as CAST((t - ?4) / ?5 AS INTEGER). ?1 and ?2 are
 * the window (fs_q_prep binds them). */
static sqlite3_stmt *prep(struct fs_q *q, const struct axis *ax, const char *sql)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (st && sqlite3_bind_parameter_count(st) >= 5) {
		sqlite3_bind_double(st, 4, ax->origin);
		sqlite3_bind_double(st, 5, ax->width);
	}
	return st;
}

#define COL(t) "CAST((" t " - ?4) / ?5 AS INTEGER)"
#define WIN(t) t " >= ?1 AND " t " <= ?2"
/* A long window read per minute (fs_q_tier): a minute's row in the column
 * of its middle; the extremes are the minutes' _min and _max. */
#define TCOL COL("t - 30")
#define TWIN(a) FS_Q_TIER_WINDOW(a)

/* A window read per second (series_1s): a second's row in the column of
 * its middle. */
#define SCOL COL("t - 0.5")
#define SWIN "t > ?1 AND t - 1 < ?2"

/* Where the (lo, hi) pairs of a timeline query go: pair j of a row
 * labelled L to the series "L" + suffix of chart, values times scale. */
struct dest {
	struct fs_html_chart *chart;
	const char *suffix;
	double scale;
};
#define MAX_PAIRS 4

/* A new series of c labelled label + suffix, all columns empty; NULL when
 * c is full. */
static struct fs_html_series *new_series(struct fs_html_chart *c, const char *label, const char *suffix)
{
	if (c->nseries == FS_HTML_MAX_SERIES)
		return NULL;
	struct fs_html_series *s = &c->s[c->nseries++];
	snprintf(s->label, sizeof s->label, "%s%s", label, suffix);
	s->points = 0;
	for (int i = 0; i < FS_HTML_COLUMNS; i++)
		s->lo[i] = s->hi[i] = NAN;
	return s;
}

/* Series that got no value (a column that is NULL in this run file) are
 * left out: a legend entry with nothing behind it says nothing. */
static void drop_empty(struct fs_html_chart *c)
{
	int n = 0;
	for (int i = 0; i < c->nseries; i++)
		if (c->s[i].points > 0) {
			if (n != i)
				c->s[n] = c->s[i];
			n++;
		}
	c->nseries = n;
}

/* One scan of a table for the series of several charts: sql's rows are
 * (label, column, then a (lo, hi) pair per dest), ordered by label then
 * column; a new label starts a new series in each dest's chart. */
static void add_series(struct fs_q *q, const struct axis *ax, const char *sql, int k, const struct dest *d)
{
	sqlite3_stmt *st = prep(q, ax, sql);
	struct fs_html_series *cur[MAX_PAIRS] = {NULL};
	char label[128] = "";
	bool first = true;
	while (fs_q_step(q, st)) {
		const char *l = fs_q_col_text(st, 0);
		if (first || strncmp(l, label, sizeof label - 1)) {
			snprintf(label, sizeof label, "%s", l);
			for (int j = 0; j < k; j++)
				cur[j] = new_series(d[j].chart, label, d[j].suffix);
			first = false;
		}
		long col = sqlite3_column_int64(st, 1);
		if (col == FS_HTML_COLUMNS)
			col--; /* a sample at the axis's very end (the last tick): the last column's */
		if (col < 0 || col >= FS_HTML_COLUMNS)
			continue;
		for (int j = 0; j < k; j++) {
			double lo = fs_q_col(st, 2 + 2 * j) * d[j].scale, hi = fs_q_col(st, 3 + 2 * j) * d[j].scale;
			if (!cur[j] || !isfinite(lo) || !isfinite(hi))
				continue;
			float *L = &cur[j]->lo[col], *H = &cur[j]->hi[col];
			cur[j]->points += isnan(*H);
			*L = isnan(*L) ? (float)lo : fminf(*L, (float)lo);
			*H = isnan(*H) ? (float)hi : fmaxf(*H, (float)hi);
		}
	}
	sqlite3_finalize(st);
	for (int j = 0; j < k; j++)
		drop_empty(d[j].chart);
}

/* The thread states of the loaders: the workers' when the job had any
 * (DataLoader workers are the job's processes below the main one), else
 * the main process's; summed per tick, then the mean per column (a stack
 * of means adds up; a stack of maxima would not). */
static void thread_states(struct fs_q *q, const struct axis *ax, struct fs_html_chart *c)
{
	double workers;
	bool tier = fs_q_tier(q);
	fs_q_row(q, tier ? "SELECT EXISTS (SELECT 1 FROM proc_1m WHERE role = 'worker' AND " TWIN("") ")"
			 : "SELECT EXISTS (SELECT 1 FROM proc WHERE role = 'worker' AND " WIN("t") " AND " FS_Q_ROWS_PROC("") ")",
		 1, &workers);
	snprintf(c->subject, sizeof c->subject, "%s", workers > 0 ? "DataLoader workers" : "the main process");
	char sql[900];
	if (tier) /* per minute: each state's samples over the minute's ticks, summed over processes */
		snprintf(sql, sizeof sql,
			 "SELECT '', " TCOL " AS c, avg(r), avg(r), avg(d), avg(d), avg(s), avg(s), avg(o), avg(o) FROM"
			 " (SELECT x.t AS t, sum(x.running * x.n) / max(k.n) AS r, sum(x.blocked_io * x.n) / max(k.n) AS d,"
			 " sum(x.sleeping * x.n) / max(k.n) AS s, sum(x.other * x.n) / max(k.n) AS o FROM proc_1m x"
			 " JOIN ticks_1m k ON k.t = x.t WHERE x.role = '%s' AND " TWIN("x.") " GROUP BY x.t) GROUP BY c ORDER BY c",
			 workers > 0 ? "worker" : "main");
	else
		snprintf(sql, sizeof sql,
			 "SELECT '', " COL("t") " AS c, avg(r), avg(r), avg(d), avg(d), avg(s), avg(s), avg(o), avg(o) FROM"
			 " (SELECT t, sum(running) AS r, sum(blocked_io) AS d, sum(sleeping) AS s, sum(other) AS o FROM proc"
			 " WHERE role = '%s' AND " WIN("t") " AND " FS_Q_ROWS_PROC("") " GROUP BY t) GROUP BY c ORDER BY c",
			 workers > 0 ? "worker" : "main");
	add_series(q, ax, sql, 4,
		   (struct dest[]){{c, "running", 1}, {c, "blocked in I/O (D)", 1}, {c, "sleeping", 1}, {c, "other", 1}});
}

/* The job's memory: Σ PSS per tick of the trainer (?3), its children (the
 * workers) and the job's other processes, the mean per column stacked (as
 * the thread states); /dev/shm used, min and max, a line over them. Per
 * minute (and where the seconds of series_1s are read: it has no PSS),
 * each process's mean over its minute. */
static void job_memory(struct fs_q *q, const struct axis *ax, struct fs_html_chart *c)
{
	const double mib = 1.0 / (1 << 20);
	const struct dest parts[] = {{c, "main (trainer)", mib}, {c, "workers", mib}, {c, "others", mib}};
#define PARTS(col) "sum(CASE WHEN pid = ?3 THEN " col " END) AS m, sum(CASE WHEN ppid = ?3 THEN " col " END) AS w," \
		   " sum(CASE WHEN pid != ?3 AND ppid != ?3 THEN " col " END) AS o"
	if (fs_q_tier(q)) {
		add_series(q, ax,
			   "SELECT '', " TCOL " AS c, avg(m), avg(m), avg(w), avg(w), avg(o), avg(o) FROM (SELECT t, "
			   PARTS("pss_bytes") " FROM proc_1m WHERE " TWIN("") " GROUP BY t) GROUP BY c ORDER BY c",
			   3, parts);
		add_series(q, ax,
			   "SELECT '', " TCOL " AS c, min(dev_shm_bytes_min), max(dev_shm_bytes_max) FROM mem_1m WHERE "
			   TWIN("") " GROUP BY c ORDER BY c",
			   1, (struct dest[]){{c, FS_HTML_SHM_LABEL, mib}});
	} else {
		add_series(q, ax,
			   "SELECT '', " COL("t") " AS c, avg(m), avg(m), avg(w), avg(w), avg(o), avg(o) FROM (SELECT t, "
			   PARTS("pss_bytes") " FROM proc WHERE " WIN("t") " AND " FS_Q_ROWS_PROC("") " GROUP BY t)"
			   " GROUP BY c ORDER BY c",
			   3, parts);
		add_series(q, ax,
			   "SELECT '', " COL("t") " AS c, min(dev_shm_bytes), max(dev_shm_bytes) FROM mem WHERE " WIN("t")
			   " AND " FS_Q_ROWS_MEM("") " GROUP BY c ORDER BY c",
			   1, (struct dest[]){{c, FS_HTML_SHM_LABEL, mib}});
	}
#undef PARTS
}

/* load_charts over the per-minute tables. */
static void load_charts_tier(struct fs_q *q, const struct axis *ax, struct fs_html_chart *ch)
{
	add_series(q, ax,
		   "SELECT 'GPU ' || gpu || coalesce(' ' || name, ''), " TCOL " AS c, min(util_pct_min), max(util_pct_max)"
		   " FROM gpu_1m WHERE " TWIN("") " GROUP BY gpu, c ORDER BY gpu, c",
		   1, (struct dest[]){{&ch[FS_HC_GPU], "", 1}});
	add_series(q, ax,
		   "SELECT 'pid ' || pid || ' ' || loader, " TCOL " AS c, min(wait_s / n), max(wait_max_s)"
		   " FROM steps_1m WHERE " TWIN("") " GROUP BY pid, loader, c ORDER BY pid, loader, c",
		   1, (struct dest[]){{&ch[FS_HC_WAIT], "", 1000}});
	thread_states(q, ax, &ch[FS_HC_THREADS]);
	add_series(q, ax,
		   "SELECT '', " TCOL " AS c, min(100 - idle_pct - iowait_pct), max(100 - idle_pct - iowait_pct),"
		   " min(iowait_pct_min), max(iowait_pct_max) FROM cpu_1m WHERE " TWIN("") " GROUP BY c ORDER BY c",
		   2, (struct dest[]){{&ch[FS_HC_CPU], "busy", 1}, {&ch[FS_HC_CPU], "iowait", 1}});
	add_series(q, ax,
		   "SELECT resource, " TCOL " AS c, min(some_pct_min), max(some_pct_max), min(CASE WHEN resource = 'io'"
		   " THEN full_pct_min END), max(CASE WHEN resource = 'io' THEN full_pct_max END) FROM psi_1m"
		   " WHERE resource IN ('cpu', 'io', 'memory') AND " TWIN("") " GROUP BY resource, c ORDER BY 1, 2",
		   2, (struct dest[]){{&ch[FS_HC_PSI], " some", 1}, {&ch[FS_HC_PSI], " full", 1}});
	add_series(q, ax,
		   "WITH top AS (SELECT device FROM disk_1m WHERE " TWIN("") " GROUP BY device"
		   " HAVING max(coalesce(read_bytes_per_s_max, 0) + coalesce(write_bytes_per_s_max, 0)) > 0"
		   " ORDER BY sum((coalesce(read_bytes_per_s, 0) + coalesce(write_bytes_per_s, 0)) * n) DESC LIMIT 4)"
		   " SELECT device, " TCOL " AS c, min(read_bytes_per_s_min), max(read_bytes_per_s_max), min(write_bytes_per_s_min),"
		   " max(write_bytes_per_s_max), min(util_pct_min), max(util_pct_max) FROM disk_1m WHERE device IN top AND " TWIN("")
		   " GROUP BY device, c ORDER BY 1, 2",
		   3, (struct dest[]){{&ch[FS_HC_DISK_MB], " read", 1e-6}, {&ch[FS_HC_DISK_MB], " write", 1e-6},
				      {&ch[FS_HC_DISK_UTIL], "", 1}});
	add_series(q, ax,
		   "WITH top AS (SELECT iface FROM net_1m WHERE " TWIN("") " GROUP BY iface"
		   " HAVING max(coalesce(rx_bytes_per_s_max, 0) + coalesce(tx_bytes_per_s_max, 0)) > 0"
		   " ORDER BY sum((coalesce(rx_bytes_per_s, 0) + coalesce(tx_bytes_per_s, 0)) * n) DESC LIMIT 4)"
		   " SELECT iface, " TCOL " AS c, min(rx_bytes_per_s_min), max(rx_bytes_per_s_max), min(tx_bytes_per_s_min),"
		   " max(tx_bytes_per_s_max) FROM net_1m WHERE iface IN top AND " TWIN("") " GROUP BY iface, c ORDER BY 1, 2",
		   2, (struct dest[]){{&ch[FS_HC_NET], " rx", 1e-6}, {&ch[FS_HC_NET], " tx", 1e-6}});
	const double gib = 1.0 / (1 << 30);
	add_series(q, ax,
		   "SELECT '', " TCOL " AS c, min(available_bytes_min), max(available_bytes_max), min(cached_bytes_min),"
		   " max(cached_bytes_max), min(dirty_bytes_min), max(dirty_bytes_max) FROM mem_1m WHERE " TWIN("")
		   " GROUP BY c ORDER BY c",
		   3, (struct dest[]){{&ch[FS_HC_MEM], "available", gib}, {&ch[FS_HC_MEM], "page cache", gib},
				      {&ch[FS_HC_MEM], "dirty", gib}});
}

/* load_charts over series_1s: the node's measures, one series each (the
 * GPUs' mean with the least and most used one as its band; the busiest
 * disk and interface). */
static void load_charts_series(struct fs_q *q, const struct axis *ax, struct fs_html_chart *ch)
{
	add_series(q, ax,
		   "SELECT CASE WHEN max(gpus) > 1 THEN 'GPUs (mean; band: least to most used)' ELSE 'GPU' END, " SCOL
		   " AS c, min(gpu_util_pct_min), max(gpu_util_pct_max) FROM " FS_SERIES_TABLE " WHERE " SWIN
		   " AND gpus > 0 GROUP BY c ORDER BY c",
		   1, (struct dest[]){{&ch[FS_HC_GPU], "", 1}});
	add_series(q, ax,
		   "SELECT 'all loaders', " SCOL " AS c, min(wait_s / steps), max(wait_max_s) FROM " FS_SERIES_TABLE
		   " WHERE " SWIN " AND steps > 0 GROUP BY c ORDER BY c",
		   1, (struct dest[]){{&ch[FS_HC_WAIT], "", 1000}});
	struct fs_html_chart *c = &ch[FS_HC_THREADS];
	double workers;
	fs_q_row(q, "SELECT EXISTS (SELECT 1 FROM " FS_SERIES_TABLE " WHERE " SWIN " AND worker_running + worker_blocked_io"
		    " + worker_sleeping + worker_other > 0)", 1, &workers);
	snprintf(c->subject, sizeof c->subject, "%s", workers > 0 ? "DataLoader workers" : "the main process");
	add_series(q, ax,
		   workers > 0 ? "SELECT '', " SCOL " AS c, avg(worker_running), avg(worker_running), avg(worker_blocked_io),"
				 " avg(worker_blocked_io), avg(worker_sleeping), avg(worker_sleeping), avg(worker_other),"
				 " avg(worker_other) FROM " FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c ORDER BY c"
			       : "SELECT '', " SCOL " AS c, avg(main_running), avg(main_running), avg(main_blocked_io),"
				 " avg(main_blocked_io), avg(main_sleeping), avg(main_sleeping), avg(main_other),"
				 " avg(main_other) FROM " FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c ORDER BY c",
		   4, (struct dest[]){{c, "running", 1}, {c, "blocked in I/O (D)", 1}, {c, "sleeping", 1}, {c, "other", 1}});
	add_series(q, ax,
		   "SELECT '', " SCOL " AS c, min(cpu_busy_pct), max(cpu_busy_pct_max), min(cpu_iowait_pct),"
		   " max(cpu_iowait_pct_max) FROM " FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c ORDER BY c",
		   2, (struct dest[]){{&ch[FS_HC_CPU], "busy", 1}, {&ch[FS_HC_CPU], "iowait", 1}});
	add_series(q, ax,
		   "SELECT 'cpu' AS r, " SCOL " AS c, min(psi_cpu_some_pct), max(psi_cpu_some_pct_max), NULL, NULL FROM "
		   FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c UNION ALL SELECT 'io', " SCOL " AS c, min(psi_io_some_pct),"
		   " max(psi_io_some_pct_max), min(psi_io_full_pct), max(psi_io_full_pct_max) FROM " FS_SERIES_TABLE
		   " WHERE " SWIN " GROUP BY c UNION ALL SELECT 'memory', " SCOL " AS c, min(psi_memory_some_pct),"
		   " max(psi_memory_some_pct_max), NULL, NULL FROM " FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c ORDER BY 1, 2",
		   2, (struct dest[]){{&ch[FS_HC_PSI], " some", 1}, {&ch[FS_HC_PSI], " full", 1}});
	add_series(q, ax,
		   "SELECT 'busiest disk', " SCOL " AS c, min(disk_read_bytes_per_s), max(disk_read_bytes_per_s_max),"
		   " min(disk_write_bytes_per_s), max(disk_write_bytes_per_s_max), min(disk_util_pct), max(disk_util_pct_max)"
		   " FROM " FS_SERIES_TABLE " WHERE " SWIN " GROUP BY c ORDER BY c",
		   3, (struct dest[]){{&ch[FS_HC_DISK_MB], " read", 1e-6}, {&ch[FS_HC_DISK_MB], " write", 1e-6},
				      {&ch[FS_HC_DISK_UTIL], "", 1}});
	add_series(q, ax,
		   "SELECT 'busiest interface', " SCOL " AS c, min(net_rx_bytes_per_s), max(net_rx_bytes_per_s_max),"
		   " min(net_tx_bytes_per_s), max(net_tx_bytes_per_s_max) FROM " FS_SERIES_TABLE " WHERE " SWIN
		   " GROUP BY c ORDER BY c",
		   2, (struct dest[]){{&ch[FS_HC_NET], " rx", 1e-6}, {&ch[FS_HC_NET], " tx", 1e-6}});
	const double gib = 1.0 / (1 << 30);
	add_series(q, ax,
		   "SELECT '', " SCOL " AS c, min(mem_available_bytes), max(mem_available_bytes_max), min(mem_cached_bytes),"
		   " max(mem_cached_bytes_max), min(mem_dirty_bytes), max(mem_dirty_bytes_max) FROM " FS_SERIES_TABLE
		   " WHERE " SWIN " GROUP BY c ORDER BY c",
		   3, (struct dest[]){{&ch[FS_HC_MEM], "available", gib}, {&ch[FS_HC_MEM], "page cache", gib},
				      {&ch[FS_HC_MEM], "dirty", gib}});
}

/* Where the raw rows will not do (fs_q_tier), the finest table that fills
 * the columns: series_1s where a column is narrower than a minute (a
 * file of schema 9 or later: it has the table), else the minutes; the
 * minutes always when they were asked for (--resolution minute). */
static bool per_second(struct fs_q *q, const struct axis *ax)
{
	return ax->width < FS_ROLLUP_PERIOD_S && fs_q_get_resolution() != FS_Q_RES_MINUTE &&
	       fs_q_has_table(q, FS_SERIES_TABLE);
}

static void load_charts(struct fs_q *q, const struct axis *ax, struct fs_html_node *n)
{
	struct fs_html_chart *ch = n->chart;
	if (fs_q_tier(q)) {
		job_memory(q, ax, &ch[FS_HC_JOBMEM]);
		bool sec = per_second(q, ax);
		n->resolution = sec ? "per second" : "per minute";
		if (sec)
			load_charts_series(q, ax, ch);
		else
			load_charts_tier(q, ax, ch);
		return;
	}
	job_memory(q, ax, &ch[FS_HC_JOBMEM]);
	n->resolution = "every tick";
	add_series(q, ax,
		   "SELECT 'GPU ' || gpu || coalesce(' ' || name, ''), " COL("t") " AS c, min(util_pct), max(util_pct)"
		   " FROM gpu WHERE " WIN("t") " AND " FS_Q_ROWS_GPU("") " GROUP BY gpu, c ORDER BY gpu, c",
		   1, (struct dest[]){{&ch[FS_HC_GPU], "", 1}});
	add_series(q, ax,
		   "SELECT 'pid ' || pid || ' ' || loader, " COL("t") " AS c, min(wait_s), max(wait_s)"
		   " FROM steps WHERE " WIN("t") " AND " FS_Q_ROWS_STEPS("") " GROUP BY pid, loader, c ORDER BY pid, loader, c",
		   1, (struct dest[]){{&ch[FS_HC_WAIT], "", 1000}});
	thread_states(q, ax, &ch[FS_HC_THREADS]);
	add_series(q, ax,
		   "SELECT '', " COL("t") " AS c, min(100 - idle_pct - iowait_pct), max(100 - idle_pct - iowait_pct),"
		   " min(iowait_pct), max(iowait_pct) FROM cpu WHERE " WIN("t") " AND " FS_Q_ROWS_CPU("") " GROUP BY c ORDER BY c",
		   2, (struct dest[]){{&ch[FS_HC_CPU], "busy", 1}, {&ch[FS_HC_CPU], "iowait", 1}});
	/* full only for io: a machine's cpu "full" is not a stall of the job */
	add_series(q, ax,
		   "SELECT resource, " COL("t") " AS c, min(some_pct), max(some_pct), min(CASE WHEN resource = 'io'"
		   " THEN full_pct END), max(CASE WHEN resource = 'io' THEN full_pct END) FROM psi"
		   " WHERE resource IN ('cpu', 'io', 'memory') AND " WIN("t") " AND " FS_Q_ROWS_PSI("") " GROUP BY resource, c ORDER BY 1, 2",
		   2, (struct dest[]){{&ch[FS_HC_PSI], " some", 1}, {&ch[FS_HC_PSI], " full", 1}});
	/* the 4 devices and interfaces that moved the most bytes */
	add_series(q, ax,
		   "WITH top AS (SELECT device FROM disk WHERE " WIN("t") " AND " FS_Q_ROWS_DISK("") " GROUP BY device"
		   " HAVING max(coalesce(read_bytes_per_s, 0) + coalesce(write_bytes_per_s, 0)) > 0"
		   " ORDER BY sum(coalesce(read_bytes_per_s, 0) + coalesce(write_bytes_per_s, 0)) DESC LIMIT 4)"
		   " SELECT device, " COL("t") " AS c, min(read_bytes_per_s), max(read_bytes_per_s), min(write_bytes_per_s),"
		   " max(write_bytes_per_s), min(util_pct), max(util_pct) FROM disk WHERE device IN top AND " WIN("t") " AND " FS_Q_ROWS_DISK("")
		   " GROUP BY device, c ORDER BY 1, 2",
		   3, (struct dest[]){{&ch[FS_HC_DISK_MB], " read", 1e-6}, {&ch[FS_HC_DISK_MB], " write", 1e-6},
				      {&ch[FS_HC_DISK_UTIL], "", 1}});
	add_series(q, ax,
		   "WITH top AS (SELECT iface FROM net WHERE " WIN("t") " AND " FS_Q_ROWS_NET("") " GROUP BY iface"
		   " HAVING max(coalesce(rx_bytes_per_s, 0) + coalesce(tx_bytes_per_s, 0)) > 0"
		   " ORDER BY sum(coalesce(rx_bytes_per_s, 0) + coalesce(tx_bytes_per_s, 0)) DESC LIMIT 4)"
		   " SELECT iface, " COL("t") " AS c, min(rx_bytes_per_s), max(rx_bytes_per_s), min(tx_bytes_per_s),"
		   " max(tx_bytes_per_s) FROM net WHERE iface IN top AND " WIN("t") " AND " FS_Q_ROWS_NET("") " GROUP BY iface, c ORDER BY 1, 2",
		   2, (struct dest[]){{&ch[FS_HC_NET], " rx", 1e-6}, {&ch[FS_HC_NET], " tx", 1e-6}});
	const double gib = 1.0 / (1 << 30);
	add_series(q, ax,
		   "SELECT '', " COL("t") " AS c, min(available_bytes), max(available_bytes), min(cached_bytes),"
		   " max(cached_bytes), min(dirty_bytes), max(dirty_bytes) FROM mem WHERE " WIN("t") " AND " FS_Q_ROWS_MEM("") " GROUP BY c ORDER BY c",
		   3, (struct dest[]){{&ch[FS_HC_MEM], "available", gib}, {&ch[FS_HC_MEM], "page cache", gib},
				      {&ch[FS_HC_MEM], "dirty", gib}});
}

static enum fs_html_span_kind span_kind(const char *name)
{
	return !strcmp(name, "checkpoint") ? FS_HS_CHECKPOINT : !strcmp(name, "epoch_end") ? FS_HS_EPOCH_END : FS_HS_OTHER;
}

/* Add [t0, t1] (file seconds) to n's spans, merged with the previous one of
 * its kind when they are closer than gap (a column): a checkpoint every
 * step of a long run is one band, not a million rectangles. */
static void add_span(struct fs_html_node *n, enum fs_html_span_kind k, const char *name, double t0, double t1, double gap,
		     int *last)
{
	struct fs_html_span *p = last[k] >= 0 ? &n->span[last[k]] : NULL;
	t0 += n->shift_s;
	t1 += n->shift_s;
	if (p && t0 - p->t1 < gap && (k != FS_HS_OTHER || !strcmp(p->name, name))) {
		p->t1 = fmax(p->t1, t1);
		p->count++;
		return;
	}
	if (n->nspans == FS_HTML_MAX_SPANS)
		return;
	p = &n->span[last[k] = n->nspans++];
	p->t0 = t0;
	p->t1 = t1;
	p->kind = k;
	p->count = 1;
	snprintf(p->name, sizeof p->name, "%s", name);
}

/* The phases worth shading (collectives are per step: the wait chart shows
 * them better), and each epoch's start after the first: the moment its
 * first batch was asked for. */
static void load_spans(struct fs_q *q, const struct axis *ax, struct fs_html_node *n)
{
	int last[FS_HS__N] = {-1, -1, -1, -1};
	sqlite3_stmt *st = fs_q_prep(q, "SELECT name, t_start, t_end FROM phases WHERE name <> 'collective'"
					" AND t_end >= ?1 AND t_start <= ?2 ORDER BY name, t_start");
	while (fs_q_step(q, st)) {
		const char *name = fs_q_col_text(st, 0);
		double a = fs_q_col(st, 1), b = fs_q_col(st, 2);
		enum fs_html_span_kind k = span_kind(name);
		if (k == FS_HS_OTHER && last[k] >= 0 && strcmp(n->span[last[k]].name, name))
			last[k] = -1; /* a phase of another name: its own spans */
		if (isfinite(a) && isfinite(b))
			add_span(n, k, name, a, b, ax->width, last);
	}
	sqlite3_finalize(st);
	st = fs_q_prep(q, fs_q_tier(q) ? "SELECT min(first_t) AS s FROM steps_1m WHERE " TWIN("")
					 " AND epoch > 0 GROUP BY pid, loader, epoch ORDER BY s"
				       : "SELECT min(t - wait_s) AS s FROM steps WHERE " WIN("t") " AND " FS_Q_ROWS_STEPS("")
					 " AND epoch > 0 GROUP BY pid, loader, epoch ORDER BY s");
	while (fs_q_step(q, st)) {
		double a = fs_q_col(st, 0);
		if (isfinite(a))
			add_span(n, FS_HS_EPOCH_START, "epoch start", a, a, ax->width, last);
	}
	sqlite3_finalize(st);
}

/* Rows of sql into t: each column as text; where fmt[i] is set, a number
 * written as a size ("bytes"), a time ("time"), or through a printf
 * format for one double. */
static void load_table(struct fs_q *q, const char *sql, struct fs_html_table *t, const char *const fmt[6])
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	int ncol = st ? sqlite3_column_count(st) : 0;
	while (t->nrows < FS_HTML_MAX_ROWS && fs_q_step(q, st)) {
		struct fs_html_row *r = &t->row[t->nrows++];
		for (int i = 0; i < 6 && i < ncol; i++) {
			double v = fs_q_col(st, i);
			if (fmt && fmt[i] && isfinite(v) && !strcmp(fmt[i], "bytes"))
				fs_fmt_bytes(r->cell[i], sizeof r->cell[i], v);
			else if (fmt && fmt[i] && isfinite(v) && !strcmp(fmt[i], "time"))
				fs_fmt_time(r->cell[i], sizeof r->cell[i], v);
			else if (fmt && fmt[i] && isfinite(v))
				snprintf(r->cell[i], sizeof r->cell[i], fmt[i], v);
			else if (fmt && fmt[i])
				snprintf(r->cell[i], sizeof r->cell[i], "-");
			else
				snprintf(r->cell[i], sizeof r->cell[i], "%s", fs_q_col_text(st, i));
		}
	}
	sqlite3_finalize(st);
}

/* The tables: files by I/O time and by bytes (the tracer's `files`, whole
 * run: it has no times per tick), the job's processes within the window,
 * the loaders' knobs (meta loader.NAME.KNOB). */
static void load_tables(struct fs_q *q, struct fs_html_node *n)
{
	static const char *const files_fmt[6] = {NULL, "time", "bytes", "%.0f", "%.0f", NULL};
	static const char *const procs_fmt[6] = {"%.0f", "%.0f", NULL, NULL, "%.0f", "%.0f"};
	const char *files =
		"SELECT path, sum(read_time_s + write_time_s + meta_time_s) AS s, sum(read_bytes + write_bytes) AS b,"
		" sum(opens), sum(reads + writes) FROM files GROUP BY path_hash, path ORDER BY %s DESC LIMIT 20";
	char sql[512];
	snprintf(sql, sizeof sql, files, "s");
	load_table(q, sql, &n->files_by_time, files_fmt);
	snprintf(sql, sizeof sql, files, "b");
	load_table(q, sql, &n->files_by_bytes, files_fmt);
	load_table(q,
		   fs_q_tier(q) ? "SELECT pid, ppid, role, comm, " FS_Q_TAVG("cpu_pct") " AS cpu, max(threads_max) FROM proc_1m"
				  " WHERE " TWIN("") " GROUP BY pid ORDER BY cpu DESC LIMIT 20"
				: "SELECT pid, ppid, role, comm, avg(cpu_pct) AS cpu, max(threads) FROM proc WHERE " WIN("t")
				  " AND " FS_Q_ROWS_PROC("") " GROUP BY pid ORDER BY cpu DESC LIMIT 20",
		   &n->procs, procs_fmt);
	load_table(q, "SELECT key, value FROM meta WHERE key LIKE 'loader.%' ORDER BY key", &n->knobs, NULL);
}

static void load_meta(struct fs_q *q, struct fs_html_node *n)
{
	fs_q_meta(q, "command", n->command, sizeof n->command);
	fs_q_meta(q, "hostname", n->host, sizeof n->host);
	fs_q_meta(q, "feedscope_version", n->version, sizeof n->version);
	n->start_unix = fs_q_meta_num(q, "start_unix");
	n->duration_s = fs_q_meta_num(q, "duration_s");
	n->interval_s = fs_q_meta_num(q, "interval_s");
	fs_q_row(q, "SELECT max(t) FROM ticks", 1, &n->end_s);
}

/* The axis: the window where it is finite, else from the reference's t = 0
 * to the last tick of any file. */
static void set_axis(struct fs_html_report *r, const struct fs_window *w)
{
	double end = 0;
	for (int i = 0; i < r->nnodes; i++) {
		const struct fs_html_node *n = &r->node[i];
		double e = isfinite(n->end_s) ? n->end_s : n->duration_s;
		if (isfinite(e))
			end = fmax(end, e + n->shift_s);
	}
	r->t0 = w && isfinite(w->start_s) ? w->start_s : 0;
	r->t1 = w && isfinite(w->end_s) ? w->end_s : end;
	if (!(r->t1 > r->t0))
		r->t1 = r->t0 + 1; /* an empty run still gets an axis */
}

static int load_node(struct fs_html_report *r, int i, const struct fs_merge_file *f, char *err, size_t errlen)
{
	struct fs_html_node *n = &r->node[i];
	const char *path = f->path;
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	q.trainer = f->m.trainer_pid; /* the job's memory by part: the report's trainer */
	q.w0 = r->t0 - n->shift_s;
	q.w1 = r->t1 - n->shift_s;
	struct axis ax = {q.w0, (r->t1 - r->t0) / FS_HTML_COLUMNS};
	load_charts(&q, &ax, n);
	load_spans(&q, &ax, n);
	load_tables(&q, n);
	int rc = 0;
	if (fs_q_failed(&q)) {
		snprintf(err, errlen, "%s: %s", path, fs_q_failed(&q));
		rc = -1;
	}
	fs_q_close(&q);
	return rc;
}

/* The verdict's phases, where it changed during the run, on the timelines
 * of the file it speaks for. */
static void verdict_phases(const struct fs_merged *g, struct fs_html_report *r)
{
	const struct fs_verdict *v = &g->v;
	if (v->nphases < 2 || g->verdict_file < 0 || g->verdict_file >= r->nnodes)
		return;
	struct fs_html_node *n = &r->node[g->verdict_file];
	for (int k = 0; k < v->nphases && n->nspans < FS_HTML_MAX_SPANS; k++) {
		const struct fs_phase *p = &v->phase[k];
		struct fs_html_span *s = &n->span[n->nspans++];
		s->t0 = p->start_s + n->shift_s;
		s->t1 = p->end_s + n->shift_s;
		s->kind = FS_HS_VERDICT;
		s->count = 1;
		if (p->first_epoch >= 0)
			snprintf(s->name, sizeof s->name, "phase %d, epochs %ld-%ld: %s, input-bound %.0f%%", k + 1,
				 p->first_epoch, p->last_epoch, fs_verdict_name(p->primary), 100 * p->input_bound_fraction);
		else
			snprintf(s->name, sizeof s->name, "phase %d: %s, input-bound %.0f%%", k + 1,
				 fs_verdict_name(p->primary), 100 * p->input_bound_fraction);
	}
}

/* Each file's meta first (the axis needs every file's end), then its series. */
struct fs_html_report *fs_html_load(const struct fs_merged *g, const struct fs_merge_file *files, int n,
				    const struct fs_window *w, char *err, size_t errlen)
{
	struct fs_html_report *r = calloc(1, sizeof *r);
	if (!r || !(r->node = calloc((size_t)n, sizeof *r->node))) {
		snprintf(err, errlen, "out of memory");
		fs_html_free(r);
		return NULL;
	}
	r->nnodes = n;
	for (int i = 0; i < n; i++) {
		struct fs_html_node *N = &r->node[i];
		struct fs_q q;
		snprintf(N->name, sizeof N->name, "%s", g->nodes[i].name);
		snprintf(N->path, sizeof N->path, "%s", files[i].path);
		N->shift_s = n > 1 ? g->nodes[i].offset_s - g->nodes[i].correction_s : 0;
		if (fs_q_open(&q, files[i].path, err, errlen) < 0)
			goto fail;
		load_meta(&q, N);
		const char *failed = fs_q_failed(&q);
		if (failed)
			snprintf(err, errlen, "%s: %s", files[i].path, failed);
		fs_q_close(&q);
		if (failed)
			goto fail;
	}
	set_axis(r, w);
	for (int i = 0; i < n; i++)
		if (load_node(r, i, &files[i], err, errlen) < 0)
			goto fail;
	verdict_phases(g, r);
	return r;
fail:
	fs_html_free(r);
	return NULL;
}

void fs_html_free(struct fs_html_report *r)
{
	if (r)
		free(r->node);
	free(r);
}
