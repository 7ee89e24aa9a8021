/* series_1s (store/series.h) against the raw rows it was made from: every
 * row must equal what SQL computes over the raw tables for that second,
 * independently: per tick the GPUs' mean, least and most; the busiest
 * disk and interface (one of the two disks a device-mapper volume over
 * the other: the same bytes); the thread states summed per role; then
 * over the second's ticks the mean weighted by each tick's length, the
 * least and the most. The recording has the awkward parts of real ones:
 * missed ticks (a longer dt), a tick whose GPU rows are all NULL, a worker
 * that starts late, steps whose records arrive late (within the grace:
 * in their second; after it: counted in series_1s.late_steps and left
 * out), a second with steps and no tick (the recorder's clock jumps past
 * a stretch), and the last seconds written at close. */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "sqlnum.h"
#include "store/series.h"
#include "store/store.h"

static char dir[] = "/tmp/fs-series-XXXXXX";

/* The second a raw row's t falls in: k - 1 < t <= k, and t <= 0 in 0. */
#define SECOND(t) "(CASE WHEN " t " <= 0 THEN 0 WHEN CAST(" t " AS INTEGER) = " t " THEN CAST(" t " AS INTEGER)" \
		  " ELSE CAST(" t " AS INTEGER) + 1 END)"

static void step_row(struct fs_sink *s, double t, const char *loader, int step)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_STEPS, t);
	fs_row_int(&r, FS_STEPS_pid, 1);
	fs_row_text(&r, FS_STEPS_loader, loader);
	fs_row_int(&r, FS_STEPS_epoch, 0);
	fs_row_int(&r, FS_STEPS_step, step);
	fs_row_real(&r, FS_STEPS_wait_s, (step % 7) / 100.0);
	fs_row_real(&r, FS_STEPS_compute_s, 0.15);
	fs_sink_row(s, &r);
}

/* Returns how many steps came after the grace. */
static int record(const char *path)
{
	char err[512];
	struct fs_store *st = fs_store_create(path, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return 0;
	fs_store_keep_all(st);
	struct fs_sink *s = fs_store_sink(st);
	srand(11);
	double t = 0;
	int k = 0, step = 0, late = 0;
	double pending[2] = {-1, -1}; /* a step's t whose record comes 4 s and 15 s late */
	while (t < 60) {
		double dt = k % 23 == 22 ? 0.3 : 0.1; /* a missed tick now and then */
		t = k ? t + dt : 0;
		if (k == 300)
			t += 20; /* the clock jumps past 30..50 s */
		struct fs_row r;
		for (int g = 0; g < 2; g++) {
			fs_row_init(&r, FS_T_GPU, t);
			fs_row_int(&r, FS_GPU_gpu, g);
			if (k % 50 != 7) /* one tick in 50: no utilisation from either */
				fs_row_real(&r, FS_GPU_util_pct, rand() % 1000 / 10.0);
			fs_sink_row(s, &r);
		}
		double bytes = rand() % 1000000;
		for (int d = 0; d < 2; d++) { /* dm-0 over vda: the same reads */
			fs_row_init(&r, FS_T_DISK, t);
			fs_row_text(&r, FS_DISK_device, d ? "vda" : "dm-0");
			fs_row_real(&r, FS_DISK_read_bytes_per_s, bytes);
			fs_row_real(&r, FS_DISK_write_bytes_per_s, d ? rand() % 5000 : 0);
			fs_row_real(&r, FS_DISK_util_pct, rand() % 100);
			fs_sink_row(s, &r);
		}
		for (int i = 0; i < 2; i++) {
			fs_row_init(&r, FS_T_NET, t);
			fs_row_text(&r, FS_NET_iface, i ? "eth0" : "lo");
			fs_row_real(&r, FS_NET_rx_bytes_per_s, rand() % 100000);
			fs_row_real(&r, FS_NET_tx_bytes_per_s, rand() % 100000);
			fs_sink_row(s, &r);
		}
		fs_row_init(&r, FS_T_CPU, t);
		fs_row_real(&r, FS_CPU_idle_pct, rand() % 50);
		fs_row_real(&r, FS_CPU_iowait_pct, rand() % 30);
		fs_sink_row(s, &r);
		const char *res[3] = {"cpu", "io", "memory"};
		for (int i = 0; i < 3; i++) {
			fs_row_init(&r, FS_T_PSI, t);
			fs_row_text(&r, FS_PSI_resource, res[i]);
			fs_row_real(&r, FS_PSI_some_pct, rand() % 400 / 10.0);
			fs_row_real(&r, FS_PSI_full_pct, rand() % 200 / 10.0);
			fs_sink_row(s, &r);
		}
		if (k % 10 == 0) { /* mem once a second */
			fs_row_init(&r, FS_T_MEM, t);
			fs_row_int(&r, FS_MEM_available_bytes, 5000000000 - rand() % 1000000);
			fs_row_int(&r, FS_MEM_cached_bytes, 200000000 + rand() % 1000000);
			fs_row_int(&r, FS_MEM_dirty_bytes, rand() % 100000);
			fs_sink_row(s, &r);
		}
		for (int pid = 1; pid <= 3; pid++) {
			if (pid == 3 && t < 12)
				continue;
			fs_row_init(&r, FS_T_PROC, t);
			fs_row_int(&r, FS_PROC_pid, pid);
			fs_row_text(&r, FS_PROC_role, pid == 1 ? "main" : "worker");
			int run = rand() % 3, blk = rand() % 2;
			fs_row_int(&r, FS_PROC_running, run);
			fs_row_int(&r, FS_PROC_blocked_io, blk);
			fs_row_int(&r, FS_PROC_sleeping, 4 - run - blk);
			fs_row_int(&r, FS_PROC_other, pid == 2 ? rand() % 2 : 0);
			fs_sink_row(s, &r);
		}
		if (k % 2 == 0) {
			if (k == 100 || k == 160) {
				pending[k == 160] = t;
			} else {
				step_row(s, t, "train", step);
			}
			step++;
		}
		if (k == 302) /* in the jump (within the grace): a second with a step and no tick */
			step_row(s, t - 8.05, "train", step++);
		for (int i = 0; i < 2; i++)
			if (pending[i] >= 0 && t >= pending[i] + (i ? 15 : 4)) {
				step_row(s, pending[i], i ? "late" : "train", step++);
				late += i;
				pending[i] = -1;
			}
		fs_row_init(&r, FS_T_TICKS, t);
		fs_row_real(&r, FS_TICKS_dt_s, k ? dt : NAN);
		fs_sink_row(s, &r);
		k++;
	}
	CHECK_INT(fs_store_close(st), 0);
	return late;
}

/* Rows of series_1s whose col differs from expect (SQL over e, the
 * expected figures by second k) by more than a relative 1e-9, or whose
 * NULL-ness differs: 0 when all agree. */
static int mismatches(sqlite3 *db, const char *col, const char *e)
{
	char sql[8192];
	snprintf(sql, sizeof sql,
		 "WITH e AS (%s) SELECT count(*) FROM series_1s u LEFT JOIN e ON e.k = u.t WHERE NOT"
		 " (coalesce(abs(u.%s - e.x) <= 1e-9 * max(1, abs(u.%s)), 0) OR (u.%s IS NULL AND e.x IS NULL))",
		 e, col, col, col);
	return (int)sql_num(db, sql);
}

/* The per-tick figure `tick` (SQL: t, v) over each second: mean weighted
 * by dt (ticks without a value left out), min, max. */
static void check_measure(sqlite3 *db, const char *name, const char *tick, const char *lo, const char *hi, bool has_min,
			  bool has_max)
{
	char e[4096], col[96];
	const char *base = "SELECT " SECOND("k.t") " AS k, k.dt_s AS w, v.v AS v, v.lo AS lo, v.hi AS hi FROM ticks k"
			   " JOIN (%s) v ON v.t = k.t WHERE v.v IS NOT NULL";
	char joined[2048];
	char tk[1024];
	snprintf(tk, sizeof tk, "SELECT t, v, %s AS lo, %s AS hi FROM (%s)", lo, hi, tick);
	snprintf(joined, sizeof joined, base, tk);
	/* byte quantities in whole bytes */
	bool bytes = strstr(name, "_bytes") != NULL;
	snprintf(e, sizeof e, "SELECT k, %s(CASE WHEN total(w) > 0 THEN total(v * w) / total(w) ELSE avg(v) END) AS x FROM (%s)"
		 " GROUP BY k", bytes ? "round" : "", joined);
	int bad = mismatches(db, name, e);
	if (bad)
		fprintf(stderr, "%s: %d seconds differ\n", name, bad);
	CHECK_INT(bad, 0);
	snprintf(e, sizeof e, "SELECT k, max(hi) AS x FROM (%s) GROUP BY k", joined);
	snprintf(col, sizeof col, "%s_max", name);
	if (has_max)
		CHECK_INT(mismatches(db, col, e), 0);
	if (has_min) {
		snprintf(e, sizeof e, "SELECT k, min(lo) AS x FROM (%s) GROUP BY k", joined);
		snprintf(col, sizeof col, "%s_min", name);
		CHECK_INT(mismatches(db, col, e), 0);
	}
}

static void test_against_raw(void)
{
	char p[600];
	snprintf(p, sizeof p, "%s/run.db", dir);
	int late = record(p);
	CHECK_INT(late, 1);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);

	/* a row for each second with a tick or a step, each once */
	CHECK_INT(sql_num(db, "SELECT count(*) FROM series_1s"),
		  sql_num(db, "SELECT count(*) FROM (SELECT " SECOND("t") " FROM ticks UNION SELECT " SECOND("t")
			  " FROM steps WHERE loader <> 'late')"));
	CHECK(sql_num(db, "SELECT count(*) FROM series_1s") > 30);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM series_1s WHERE n = 0 AND steps > 0"), 1); /* the jump's step */
	CHECK_INT(sql_num(db, "SELECT max(t) FROM series_1s"), sql_num(db, "SELECT " SECOND("max(t)") " FROM ticks"));
	CHECK_INT(mismatches(db, "n", "SELECT " SECOND("t") " AS k, count(*) AS x FROM ticks GROUP BY k UNION"
				      " SELECT t, 0 FROM series_1s WHERE t NOT IN (SELECT " SECOND("t") " FROM ticks)"), 0);
	CHECK_INT(mismatches(db, "dt_s", "SELECT " SECOND("t") " AS k, CASE WHEN count(*) THEN total(dt_s) END AS x"
					" FROM ticks GROUP BY k"), 0);
	CHECK_INT(mismatches(db, "gpus", "SELECT " SECOND("t") " AS k, max(c) AS x FROM (SELECT t, count(*) AS c FROM gpu"
					" GROUP BY t) GROUP BY k"), 0);

	/* the GPUs: their mean per tick, the band from the least to the most used */
	check_measure(db, "gpu_util_pct", "SELECT t, avg(util_pct) AS v, min(util_pct) AS mn, max(util_pct) AS mx FROM gpu GROUP BY t",
		      "mn", "mx", true, true);
	/* the busiest disk: never the two summed */
	check_measure(db, "disk_read_bytes_per_s", "SELECT t, max(read_bytes_per_s) AS v FROM disk GROUP BY t", "v", "v", false, true);
	CHECK(sql_num(db, "SELECT max(disk_read_bytes_per_s_max) FROM series_1s") < 1000000);
	check_measure(db, "disk_write_bytes_per_s", "SELECT t, max(write_bytes_per_s) AS v FROM disk GROUP BY t", "v", "v", false, true);
	check_measure(db, "disk_util_pct", "SELECT t, max(util_pct) AS v FROM disk GROUP BY t", "v", "v", false, true);
	check_measure(db, "net_rx_bytes_per_s", "SELECT t, max(rx_bytes_per_s) AS v FROM net GROUP BY t", "v", "v", false, true);
	check_measure(db, "net_tx_bytes_per_s", "SELECT t, max(tx_bytes_per_s) AS v FROM net GROUP BY t", "v", "v", false, true);
	check_measure(db, "cpu_busy_pct", "SELECT t, 100 - idle_pct - iowait_pct AS v FROM cpu", "v", "v", false, true);
	check_measure(db, "cpu_iowait_pct", "SELECT t, iowait_pct AS v FROM cpu", "v", "v", false, true);
	check_measure(db, "psi_cpu_some_pct", "SELECT t, some_pct AS v FROM psi WHERE resource = 'cpu'", "v", "v", false, true);
	check_measure(db, "psi_io_some_pct", "SELECT t, some_pct AS v FROM psi WHERE resource = 'io'", "v", "v", false, true);
	check_measure(db, "psi_io_full_pct", "SELECT t, full_pct AS v FROM psi WHERE resource = 'io'", "v", "v", false, true);
	check_measure(db, "psi_memory_some_pct", "SELECT t, some_pct AS v FROM psi WHERE resource = 'memory'", "v", "v", false, true);
	check_measure(db, "mem_available_bytes", "SELECT t, available_bytes AS v FROM mem", "v", "v", false, true);
	check_measure(db, "mem_dirty_bytes", "SELECT t, dirty_bytes AS v FROM mem", "v", "v", false, true);
	/* thread states: summed over the role's processes per tick */
	check_measure(db, "main_running", "SELECT t, sum(running) AS v FROM proc WHERE role = 'main' GROUP BY t", "v", "v", false, false);
	check_measure(db, "worker_running", "SELECT t, sum(running) AS v FROM proc WHERE role = 'worker' GROUP BY t", "v", "v", false, false);
	check_measure(db, "worker_blocked_io", "SELECT t, sum(blocked_io) AS v FROM proc WHERE role = 'worker' GROUP BY t", "v",
		      "v", false, false);
	check_measure(db, "worker_other", "SELECT t, sum(other) AS v FROM proc WHERE role = 'worker' GROUP BY t", "v", "v", false, false);
	CHECK(sql_num(db, "SELECT max(worker_running) FROM series_1s") > 1); /* two workers' sum, not a mean */

	/* steps by their own t; the one after the grace is left out and counted */
	const char *steps = "SELECT " SECOND("t") " AS k, count(*) AS c, total(wait_s) AS w, max(wait_s) AS m,"
			    " total(compute_s) AS cs FROM steps WHERE loader <> 'late' GROUP BY k";
	char e[1024];
	snprintf(e, sizeof e, "SELECT k, c AS x FROM (%s) UNION SELECT t, 0 FROM series_1s WHERE t NOT IN (SELECT k FROM (%s))",
		 steps, steps);
	CHECK_INT(mismatches(db, "steps", e), 0);
	snprintf(e, sizeof e, "SELECT k, w AS x FROM (%s)", steps);
	CHECK_INT(mismatches(db, "wait_s", e), 0);
	snprintf(e, sizeof e, "SELECT k, m AS x FROM (%s)", steps);
	CHECK_INT(mismatches(db, "wait_max_s", e), 0);
	snprintf(e, sizeof e, "SELECT k, cs AS x FROM (%s)", steps);
	CHECK_INT(mismatches(db, "compute_s", e), 0);
	CHECK_INT(sql_num(db, "SELECT value FROM meta WHERE key = 'series_1s.late_steps'"), 1);
	CHECK_INT(sql_num(db, "SELECT sum(steps) FROM series_1s"), sql_num(db, "SELECT count(*) FROM steps") - 1);
	sqlite3_close(db);
	if (!getenv("KEEP"))
		unlink(p);
}

/* The column list: names the timelines read, unique, within the bound. */
static void test_columns(void)
{
	const struct fs_rollup_col *c;
	int n = fs_series_columns(&c);
	CHECK(n > 8 && n <= FS_SERIES_MAX_COLS);
	CHECK_STR(c[0].name, "t");
	int dup = 0, gpu_min = 0, disk_min = 0;
	for (int i = 0; i < n; i++) {
		for (int j = i + 1; j < n; j++)
			dup += !strcmp(c[i].name, c[j].name);
		gpu_min += !strcmp(c[i].name, "gpu_util_pct_min");
		disk_min += !strcmp(c[i].name, "disk_read_bytes_per_s_min");
	}
	CHECK_INT(dup, 0);
	CHECK_INT(gpu_min, 1);
	CHECK_INT(disk_min, 0);
}

/* Machine-wide rows sampled at their own interval (dt_s, about a second;
 * one of two seconds; the first of memory without one), on ticks 13 ms
 * past each tenth of a second, as the recorder's are: each lands in the
 * second the middle of its interval falls in, weighs by its own dt_s, and
 * a row without one stays in its tick's second. The last comes after the
 * last ticks row (the recorder's catch-up at the end of a run). */
static void test_own_interval(void)
{
	char p[600], err[512];
	snprintf(p, sizeof p, "%s/own.db", dir);
	struct fs_store *st = fs_store_create(p, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	fs_store_keep_all(st);
	struct fs_sink *s = fs_store_sink(st);
	double last = 0.013, t = 0.013;
	struct fs_row r;
	for (int k = 0; k <= 55; k++) {
		t = 0.013 + 0.1 * k;
		if (k == 0 || (k % 10 == 0 && k != 30)) { /* no sample at 3 s: 2 to 4 is one interval */
			fs_row_init(&r, FS_T_MEM, t);
			fs_row_int(&r, FS_MEM_available_bytes, 1000 + k);
			if (k)
				fs_row_real(&r, FS_MEM_dt_s, t - last);
			fs_sink_row(s, &r);
		}
		if (k && k % 10 == 0 && k != 30) {
			fs_row_init(&r, FS_T_CPU, t);
			fs_row_real(&r, FS_CPU_idle_pct, 50 - k / 10);
			fs_row_real(&r, FS_CPU_iowait_pct, 0);
			fs_row_real(&r, FS_CPU_dt_s, t - last);
			fs_sink_row(s, &r);
			last = t;
		}
		fs_row_init(&r, FS_T_TICKS, t);
		fs_row_real(&r, FS_TICKS_dt_s, k ? 0.1 : NAN);
		fs_sink_row(s, &r);
	}
	fs_row_init(&r, FS_T_CPU, t); /* the catch-up: 5.013 to 5.513 */
	fs_row_real(&r, FS_CPU_idle_pct, 10);
	fs_row_real(&r, FS_CPU_iowait_pct, 0);
	fs_row_real(&r, FS_CPU_dt_s, 0.5);
	fs_sink_row(s, &r);
	CHECK_INT(fs_store_close(st), 0);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);
	CHECK_INT(mismatches(db, "cpu_busy_pct", "SELECT " SECOND("t - dt_s / 2") " AS k, 100 - idle_pct AS x FROM cpu"), 0);
	CHECK_NEAR(sql_num(db, "SELECT cpu_busy_pct FROM series_1s WHERE t = 1"), 51, 1e-9); /* not in second 2 */
	CHECK_NEAR(sql_num(db, "SELECT cpu_busy_pct FROM series_1s WHERE t = 4"), 54, 1e-9); /* 2.013..4.013 */
	CHECK_NEAR(sql_num(db, "SELECT cpu_busy_pct FROM series_1s WHERE t = 6"), 90, 1e-9); /* the catch-up */
	CHECK_INT(sql_num(db, "SELECT count(*) FROM series_1s WHERE t = 3 AND cpu_busy_pct IS NOT NULL"), 0);
	/* the first memory row (no interval: its tick's, the first, of no
	 * length) and the one over 0.013..1.013 in second 1: the second's */
	CHECK_NEAR(sql_num(db, "SELECT mem_available_bytes FROM series_1s WHERE t = 1"), 1010, 1e-9);
	CHECK_NEAR(sql_num(db, "SELECT mem_available_bytes_max FROM series_1s WHERE t = 1"), 1010, 1e-9);
	CHECK_NEAR(sql_num(db, "SELECT mem_available_bytes FROM series_1s WHERE t = 4"), 1040, 1e-9);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM series_1s WHERE t = 3 AND mem_available_bytes IS NOT NULL"), 0);
	sqlite3_close(db);
	unlink(p);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_columns();
	test_against_raw();
	test_own_interval();
	rmdir(dir);
	return check_exit("test_series");
}
