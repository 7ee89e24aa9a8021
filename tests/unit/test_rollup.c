/* The per-minute tables (store/rollup.h) against the raw rows they were
 * made from: every <table>_1m row must equal what SQL computes over the raw
 * table for that minute and key, independently: the means weighted by the
 * ticks' lengths (NULLs left out), min, max, the sums, proc's shares of
 * samples by state, the steps' counts and sums. The job recorded here has
 * the awkward parts of real ones: missed ticks (a longer dt), a process
 * that starts late and one that exits, a process that runs another program
 * (its comm changes: a new key), NULL values, a table sampled once a
 * second, a machine-wide table sampled at its own interval (its rows weigh
 * by their own dt_s, the first has none, one interval is two seconds), steps and phases whose records arrive late (within and after
 * the grace the aggregator waits for them), two ranks' collectives, a
 * checkpoint across a minute's end, and the device's idle inside the
 * steps' waits measured for some steps of the first epoch (none of the
 * second: summed and counted where it is, NULL and 0 where not). */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "sqlnum.h"
#include "store/rollup.h"
#include "store/store.h"

static char dir[] = "/tmp/fs-rollup-XXXXXX";

/* The minute a raw row's t falls in, as the aggregator counts them: the
 * minute k covers (60k, 60(k+1)], and t = 0 is in the first. */
#define MINUTE(t) "(CASE WHEN " t " <= 0 THEN 0 WHEN CAST(" t " / 60 AS INTEGER) = " t " / 60.0" \
		  " THEN CAST(" t " / 60 AS INTEGER) - 1 ELSE CAST(" t " / 60 AS INTEGER) END)"

static void record(const char *path)
{
	char err[512];
	struct fs_store *st = fs_store_create(path, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	srand(7);
	double t = 0;
	int k = 0;
	struct { double t; int step; } late[4];
	int nlate = 0, step = 0;
	double last_net = -1;
	while (t < 200) {
		/* every 37th tick was missed: the next covers three */
		double dt = k % 37 == 36 ? 0.3 : 0.1;
		double prev = t;
		t = k ? t + dt : 0;
		struct fs_row r;
		for (int pid = 1; pid <= 3; pid++) {
			if ((pid == 2 && t < 70) || (pid == 3 && t > 150))
				continue;
			fs_row_init(&r, FS_T_PROC, t);
			fs_row_int(&r, FS_PROC_pid, pid);
			fs_row_int(&r, FS_PROC_ppid, pid == 1 ? 0 : 1);
			fs_row_text(&r, FS_PROC_role, pid == 1 ? "main" : "worker");
			fs_row_text(&r, FS_PROC_comm, pid == 1 && t > 100 ? "python3" : "sh");
			int run = rand() % 3, blk = rand() % 2;
			fs_row_int(&r, FS_PROC_threads, 4);
			fs_row_int(&r, FS_PROC_running, run);
			fs_row_int(&r, FS_PROC_blocked_io, blk);
			fs_row_int(&r, FS_PROC_sleeping, 4 - run - blk);
			/* a process's first row has no rates */
			bool first = (pid == 2 && prev < 70) || k == 0;
			fs_row_real(&r, FS_PROC_cpu_pct, first ? NAN : rand() % 1000 / 10.0);
			fs_row_real(&r, FS_PROC_read_bytes_per_s, first || rand() % 5 == 0 ? NAN : rand() % 100000);
			fs_row_int(&r, FS_PROC_rss_bytes, 1000000 + rand() % 1000);
			fs_sink_row(s, &r);
		}
		for (int d = 0; d < 2; d++) {
			fs_row_init(&r, FS_T_DISK, t);
			fs_row_text(&r, FS_DISK_device, d ? "vda" : "loop0");
			fs_row_real(&r, FS_DISK_read_bytes_per_s, rand() % 1000000);
			fs_row_real(&r, FS_DISK_util_pct, rand() % 100);
			if (rand() % 4) /* some ticks without reads: no latency */
				fs_row_real(&r, FS_DISK_reads_per_s, rand() % 500);
			fs_row_real(&r, FS_DISK_read_await_ms, (rand() % 1000) / 100.0);
			fs_sink_row(s, &r);
		}
		/* net: about once a second (every 10th tick), not on the 4th of
		 * every 7: an interval of its own, in its dt_s */
		if (k % 10 == 0 && k % 70 != 30) {
			for (int i = 0; i < 2; i++) {
				fs_row_init(&r, FS_T_NET, t);
				fs_row_text(&r, FS_NET_iface, i ? "eth0" : "lo");
				fs_row_real(&r, FS_NET_rx_bytes_per_s, rand() % 1000000);
				if (rand() % 5)
					fs_row_real(&r, FS_NET_tx_bytes_per_s, rand() % 1000);
				fs_row_real(&r, FS_NET_dt_s, last_net < 0 ? NAN : t - last_net);
				fs_sink_row(s, &r);
			}
			last_net = t;
		}
		if (k % 10 == 0) {
			fs_row_init(&r, FS_T_MEM, t);
			fs_row_int(&r, FS_MEM_available_bytes, 5000000000 - rand() % 1000000);
			fs_sink_row(s, &r);
		}
		fs_row_init(&r, FS_T_IO_INTERVALS, t);
		fs_row_int(&r, FS_IO_INTERVALS_pid, 1);
		fs_row_real(&r, FS_IO_INTERVALS_io_time_s, rand() % 100 / 1000.0);
		fs_row_int(&r, FS_IO_INTERVALS_read_bytes, rand() % 100000);
		fs_sink_row(s, &r);
		/* a step every 0.3 s; three reach the recorder late: 25 s after
		 * a t 10 s before its minute's end (after the grace: a second
		 * row for that minute), 15 s after a t 20 s before it, and 2 s
		 * after a t 2 s before it (within the grace: the same row) */
		if (k % 3 == 0) {
			fs_row_init(&r, FS_T_STEPS, t);
			fs_row_int(&r, FS_STEPS_pid, 1);
			fs_row_text(&r, FS_STEPS_loader, "train");
			fs_row_int(&r, FS_STEPS_epoch, t < 120 ? 0 : 1);
			fs_row_int(&r, FS_STEPS_step, step);
			double wait = rand() % 100 / 1000.0;
			fs_row_real(&r, FS_STEPS_wait_s, wait);
			fs_row_real(&r, FS_STEPS_compute_s, 0.2);
			if (t < 120 && step % 3 != 2) /* the device's idle: at most the wait */
				fs_row_real(&r, FS_STEPS_device_idle_s, wait * (step % 3) / 2);
			double in = fmod(t, 60);
			bool is_late = (in >= 50 && in < 50.3 && t < 60) || (in >= 40 && in < 40.3 && t > 60 && t < 120) ||
				       (in >= 58 && in < 58.3 && t > 120);
			if (is_late && nlate < 4) {
				late[nlate].t = t;
				late[nlate++].step = step;
			} else {
				fs_sink_row(s, &r);
			}
			step++;
			/* the step's collective, on two ranks (pids 1 and 2) that leave
			 * it 1 ms apart */
			for (int pid = 1; pid <= 2; pid++) {
				fs_row_init(&r, FS_T_PHASES, 0);
				fs_row_real(&r, FS_PHASES_t_start, t - 0.01 * pid);
				fs_row_real(&r, FS_PHASES_t_end, t + 0.001 * pid);
				fs_row_int(&r, FS_PHASES_pid, pid);
				fs_row_text(&r, FS_PHASES_name, "collective");
				fs_sink_row(s, &r);
			}
		}
		/* a checkpoint from 100 to 125 s (in the minute of its end), and
		 * one from 30 to 31 s whose record comes at 95 s (after the grace:
		 * a second row for its minute) */
		if (k == 1250 || k == 950) {
			fs_row_init(&r, FS_T_PHASES, 0);
			fs_row_real(&r, FS_PHASES_t_start, k == 1250 ? 100 : 30);
			fs_row_real(&r, FS_PHASES_t_end, k == 1250 ? 125 : 31);
			fs_row_int(&r, FS_PHASES_pid, 1);
			fs_row_text(&r, FS_PHASES_name, "checkpoint");
			fs_sink_row(s, &r);
		}
		if (k == 400) {
			fs_row_init(&r, FS_T_PHASES, 0);
			fs_row_real(&r, FS_PHASES_t_start, 30);
			fs_row_real(&r, FS_PHASES_t_end, 30.5);
			fs_row_int(&r, FS_PHASES_pid, 1);
			fs_row_text(&r, FS_PHASES_name, "checkpoint");
			fs_sink_row(s, &r);
		}
		for (int i = 0; i < nlate; i++) {
			double in = fmod(late[i].t, 60), delay = in < 45 ? 15 : in < 55 ? 25 : 2;
			if (late[i].t >= 0 && t >= late[i].t + delay) {
				fs_row_init(&r, FS_T_STEPS, late[i].t);
				fs_row_int(&r, FS_STEPS_pid, 1);
				fs_row_text(&r, FS_STEPS_loader, "train");
				fs_row_int(&r, FS_STEPS_epoch, late[i].t < 120 ? 0 : 1);
				fs_row_int(&r, FS_STEPS_step, late[i].step);
				fs_row_real(&r, FS_STEPS_wait_s, 0.5);
				fs_row_real(&r, FS_STEPS_compute_s, 0.2);
				if (late[i].t < 120)
					fs_row_real(&r, FS_STEPS_device_idle_s, 0.125);
				fs_sink_row(s, &r);
				late[i].t = -1;
			}
		}
		fs_row_init(&r, FS_T_TICKS, t);
		fs_row_real(&r, FS_TICKS_dt_s, k ? dt : NAN);
		fs_row_real(&r, FS_TICKS_sample_us, 200 + rand() % 100);
		fs_row_int(&r, FS_TICKS_missed, dt > 0.2 ? 2 : 0);
		fs_sink_row(s, &r);
		k++;
	}
	CHECK_INT(fs_store_close(st), 0);
}

/* Every row of the per-minute table `tier` whose value `col` differs from
 * `expect` (SQL over the raw rows, correlated on the minute and the key by
 * `match`) by more than a relative 1e-9: 0 when all agree. */
static int mismatches(sqlite3 *db, const char *tier, const char *col, const char *expect)
{
	char sql[4096];
	snprintf(sql, sizeof sql,
		 "SELECT count(*) FROM %s u WHERE NOT (coalesce(abs(u.%s - (%s)) <= 1e-9 * max(1, abs(u.%s)), 0)"
		 " OR (u.%s IS NULL AND (%s) IS NULL))",
		 tier, col, expect, col, col, expect);
	return (int)sql_num(db, sql);
}

static void test_against_raw(void)
{
	char p[600];
	snprintf(p, sizeof p, "%s/run.db", dir);
	record(p);
	sqlite3 *db;
	CHECK(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK);

	/* one row per minute and key, as many as the raw rows make */
	CHECK_INT(sql_num(db, "SELECT count(*) FROM proc_1m"),
		  sql_num(db, "SELECT count(*) FROM (SELECT DISTINCT " MINUTE("t") ", pid, ppid, role, comm FROM proc)"));
	CHECK(sql_num(db, "SELECT count(*) FROM proc_1m") >= 10); /* 4 minutes, 3 pids, a comm change */
	CHECK_INT(sql_num(db, "SELECT count(*) FROM disk_1m"), 8);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM net_1m"), 8);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM ticks_1m"), 4);
	CHECK_INT(sql_num(db, "SELECT sum(n) FROM proc_1m"), sql_num(db, "SELECT count(*) FROM proc"));
	CHECK_INT(sql_num(db, "SELECT sum(n) FROM ticks_1m"), sql_num(db, "SELECT count(*) FROM ticks"));
	CHECK_NEAR(sql_num(db, "SELECT sum(dt_s) FROM ticks_1m"), sql_num(db, "SELECT sum(dt_s) FROM ticks"), 1e-9);
	CHECK_INT(sql_num(db, "SELECT max(t) FROM ticks_1m"), 240);

#define P_KEY "FROM proc p JOIN ticks k ON k.t = p.t WHERE " MINUTE("p.t") " = CAST(u.t / 60 AS INTEGER) - 1" \
	      " AND p.pid = u.pid AND p.ppid = u.ppid AND p.role = u.role AND p.comm = u.comm"
	/* weighted means, NULLs (and the first tick, of no length) left out */
	CHECK_INT(mismatches(db, "proc_1m", "cpu_pct",
			     "SELECT sum(p.cpu_pct * k.dt_s) / sum(CASE WHEN p.cpu_pct IS NOT NULL THEN k.dt_s END) " P_KEY),
		  0);
	CHECK_INT(mismatches(db, "proc_1m", "read_bytes_per_s",
			     "SELECT sum(p.read_bytes_per_s * k.dt_s) / sum(CASE WHEN p.read_bytes_per_s IS NOT NULL"
			     " THEN k.dt_s END) " P_KEY),
		  0);
	CHECK_INT(mismatches(db, "proc_1m", "cpu_pct_max", "SELECT max(p.cpu_pct) " P_KEY), 0);
	CHECK_INT(mismatches(db, "proc_1m", "rss_bytes_min", "SELECT min(p.rss_bytes) " P_KEY), 0);
	CHECK_INT(mismatches(db, "proc_1m", "dt_s", "SELECT total(k.dt_s) " P_KEY), 0);
	CHECK_INT(mismatches(db, "proc_1m", "blocked_any_pct", "SELECT 100.0 * avg(min(p.blocked_io, 1.0)) " P_KEY), 0);
	CHECK_INT(mismatches(db, "proc_1m", "running_only_pct",
			     "SELECT 100.0 * avg(min(p.running, 1.0) * (1 - min(p.blocked_io, 1.0))) " P_KEY),
		  0);
	/* the integral of a rate over the minute is its mean times dt_s when
	 * no row had it NULL */
	CHECK_NEAR(sql_num(db, "SELECT sum(u.cpu_pct * u.dt_s) FROM proc_1m u WHERE u.pid = 3 AND u.t <= 120"),
		   sql_num(db, "SELECT sum(p.cpu_pct * k.dt_s) FROM proc p JOIN ticks k ON k.t = p.t"
			   " WHERE p.pid = 3 AND p.t > 0 AND p.t <= 120"),
		   1e-6);
	/* a late process's first minute, and the comm change as a new key */
	CHECK_INT(sql_num(db, "SELECT count(*) FROM proc_1m WHERE pid = 2 AND t = 60"), 0);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM proc_1m WHERE pid = 1 AND t = 120"), 2);

	CHECK_INT(mismatches(db, "disk_1m", "util_pct",
			     "SELECT sum(d.util_pct * k.dt_s) / sum(k.dt_s) FROM disk d JOIN ticks k ON k.t = d.t"
			     " WHERE " MINUTE("d.t") " = CAST(u.t / 60 AS INTEGER) - 1 AND d.device = u.device"),
		  0);
	/* a table with its own interval: its rows weigh by their dt_s, and
	 * the minute's dt_s is theirs, not the ticks' they came on */
#define N_KEY "FROM net x WHERE " MINUTE("x.t") " = CAST(u.t / 60 AS INTEGER) - 1 AND x.iface = u.iface"
	CHECK_INT(mismatches(db, "net_1m", "dt_s", "SELECT total(x.dt_s) " N_KEY), 0);
	CHECK_INT(mismatches(db, "net_1m", "n", "SELECT count(*) " N_KEY), 0);
	CHECK_INT(mismatches(db, "net_1m", "rx_bytes_per_s",
			     "SELECT sum(x.rx_bytes_per_s * x.dt_s) / sum(CASE WHEN x.rx_bytes_per_s IS NOT NULL THEN x.dt_s END) " N_KEY),
		  0);
	CHECK_INT(mismatches(db, "net_1m", "tx_bytes_per_s",
			     "SELECT sum(x.tx_bytes_per_s * x.dt_s) / sum(CASE WHEN x.tx_bytes_per_s IS NOT NULL THEN x.dt_s END) " N_KEY),
		  0);
	CHECK_INT(mismatches(db, "net_1m", "rx_bytes_per_s_max", "SELECT max(x.rx_bytes_per_s) " N_KEY), 0);
	CHECK(sql_num(db, "SELECT max(dt_s) FROM net") > 1.9); /* the skipped second */
	/* the minutes' sum is the time the rows cover: the run, less the first */
	CHECK_NEAR(sql_num(db, "SELECT sum(dt_s) FROM net_1m WHERE iface = 'eth0'"),
		   sql_num(db, "SELECT max(t) - min(t) FROM net WHERE iface = 'eth0'"), 1e-6);
	/* the read latency weighted by reads, as the analysis weighs it */
	CHECK_INT(mismatches(db, "disk_1m", "read_await_reads_ms",
			     "SELECT sum(d.read_await_ms * d.reads_per_s) / nullif(sum(CASE WHEN d.read_await_ms IS NOT NULL"
			     " AND d.reads_per_s > 0 THEN d.reads_per_s END), 0) FROM disk d"
			     " WHERE " MINUTE("d.t") " = CAST(u.t / 60 AS INTEGER) - 1 AND d.device = u.device"),
		  0);
	CHECK(sql_num(db, "SELECT count(*) FROM disk_1m WHERE read_await_reads_ms IS NOT NULL") > 0);
	CHECK_INT(mismatches(db, "mem_1m", "available_bytes_min",
			     "SELECT min(available_bytes) FROM mem WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"),
		  0);
	CHECK_INT(mismatches(db, "mem_1m", "n",
			     "SELECT count(*) FROM mem WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"),
		  0);
	/* per-interval quantities are summed */
	CHECK_INT(mismatches(db, "io_intervals_1m", "read_bytes",
			     "SELECT sum(read_bytes) FROM io_intervals WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"),
		  0);
	CHECK_INT(mismatches(db, "ticks_1m", "missed",
			     "SELECT sum(missed) FROM ticks WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"),
		  0);
	CHECK(sql_num(db, "SELECT sum(missed) FROM ticks_1m") > 0);

	/* steps: every raw step counted once, whatever its delay; the one
	 * that came after the grace makes a second row for its minute */
	CHECK_INT(sql_num(db, "SELECT sum(n) FROM steps_1m"), sql_num(db, "SELECT count(*) FROM steps"));
	CHECK_NEAR(sql_num(db, "SELECT sum(wait_s) FROM steps_1m"), sql_num(db, "SELECT sum(wait_s) FROM steps"), 1e-9);
	CHECK_NEAR(sql_num(db, "SELECT sum(compute_s) FROM steps_1m"), sql_num(db, "SELECT sum(compute_s) FROM steps"), 1e-9);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM (SELECT t, epoch FROM steps_1m GROUP BY t, epoch HAVING count(*) > 1)"),
		  1);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM steps_1m WHERE t = 60"), 2);
	CHECK_INT(mismatches(db, "(SELECT t, epoch, sum(n) AS n, max(wait_max_s) AS w, min(first_t) AS f,"
				 " max(last_step) AS ls FROM steps_1m GROUP BY t, epoch)",
			     "w",
			     "SELECT max(wait_s) FROM steps WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND epoch = u.epoch"),
		  0);
	CHECK_INT(mismatches(db, "(SELECT t, epoch, min(first_t) AS f FROM steps_1m GROUP BY t, epoch)", "f",
			     "SELECT min(t - wait_s) FROM steps WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND epoch = u.epoch"),
		  0);

	/* the device's idle inside the waits: summed over the steps that have
	 * it, and counted, per minute and key (a late row's with it); NULL
	 * and 0 in the minutes of the epoch without it */
	CHECK(sql_num(db, "SELECT count(device_idle_s) FROM steps") > 100);
	CHECK(sql_num(db, "SELECT count(*) FROM steps WHERE device_idle_s IS NULL AND epoch = 0") > 50);
	CHECK_INT(sql_num(db, "SELECT sum(device_steps) FROM steps_1m"), sql_num(db, "SELECT count(device_idle_s) FROM steps"));
	CHECK_NEAR(sql_num(db, "SELECT sum(device_idle_s) FROM steps_1m"), sql_num(db, "SELECT sum(device_idle_s) FROM steps"),
		   1e-9);
	CHECK_INT(mismatches(db, "(SELECT t, epoch, sum(device_idle_s) AS d FROM steps_1m GROUP BY t, epoch)", "d",
			     "SELECT sum(device_idle_s) FROM steps WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND epoch = u.epoch"),
		  0);
	CHECK_INT(mismatches(db, "(SELECT t, epoch, sum(device_steps) AS c FROM steps_1m GROUP BY t, epoch)", "c",
			     "SELECT count(device_idle_s) FROM steps WHERE " MINUTE("t") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND epoch = u.epoch"),
		  0);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM steps_1m WHERE epoch = 1"), 2);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM steps_1m WHERE epoch = 1 AND device_idle_s IS NULL AND device_steps = 0"),
		  2);

	/* phases: by (pid, name) in the minute of their end, every one
	 * counted once; a late one makes a second row for its minute */
	CHECK_INT(sql_num(db, "SELECT sum(n) FROM phases_1m"), sql_num(db, "SELECT count(*) FROM phases"));
	CHECK_INT(sql_num(db, "SELECT count(*) FROM phases_1m WHERE name = 'collective'"), 8); /* 4 minutes, 2 pids */
	CHECK_INT(mismatches(db, "(SELECT * FROM phases_1m WHERE name = 'collective')", "n",
			     "SELECT count(*) FROM phases WHERE " MINUTE("t_end") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND pid = u.pid AND name = u.name"),
		  0);
	CHECK_INT(mismatches(db, "(SELECT * FROM phases_1m WHERE name = 'collective')", "phase_s",
			     "SELECT sum(t_end - t_start) FROM phases WHERE " MINUTE("t_end") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND pid = u.pid AND name = u.name"),
		  0);
	CHECK_INT(mismatches(db, "(SELECT * FROM phases_1m WHERE name = 'collective')", "last_t",
			     "SELECT max(t_end) FROM phases WHERE " MINUTE("t_end") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND pid = u.pid AND name = u.name"),
		  0);
	CHECK_INT(mismatches(db, "(SELECT * FROM phases_1m WHERE name = 'collective')", "first_t",
			     "SELECT min(t_start) FROM phases WHERE " MINUTE("t_end") " = CAST(u.t / 60 AS INTEGER) - 1"
			     " AND pid = u.pid AND name = u.name"),
		  0);
	CHECK_NEAR(sql_num(db, "SELECT phase_s FROM phases_1m WHERE name = 'checkpoint' AND t = 180"), 25, 1e-9);
	CHECK_NEAR(sql_num(db, "SELECT first_t FROM phases_1m WHERE name = 'checkpoint' AND t = 180"), 100, 1e-9);
	CHECK_INT(sql_num(db, "SELECT count(*) FROM phases_1m WHERE name = 'checkpoint' AND t = 60"), 2);
	CHECK_NEAR(sql_num(db, "SELECT sum(phase_s) FROM phases_1m WHERE name = 'checkpoint' AND t = 60"), 1.5, 1e-9);
	CHECK_NEAR(sql_num(db, "SELECT max(phase_max_s) FROM phases_1m WHERE name = 'checkpoint' AND t = 60"), 1, 1e-9);
	sqlite3_close(db);
	fs_store_unlink(p);
}

/* The column lists: every value column of proc three times, sums once. */
static void test_columns(void)
{
	const struct fs_rollup_col *c;
	int n = fs_rollup_columns(FS_RT_PROC, &c);
	CHECK(n > 40 && n <= FS_ROLLUP_MAX_COLS);
	CHECK(!strcmp(c[0].name, "t") && !strcmp(c[1].name, "n") && !strcmp(c[2].name, "dt_s"));
	int found = 0;
	for (int i = 0; i < n; i++)
		found += !strcmp(c[i].name, "cpu_pct") || !strcmp(c[i].name, "cpu_pct_min") ||
			 !strcmp(c[i].name, "cpu_pct_max");
	CHECK_INT(found, 3);
	n = fs_rollup_columns(FS_RT_IO_CLASSES, &c);
	for (int i = 0; i < n; i++)
		CHECK(!strstr(c[i].name, "_max"));
	n = fs_rollup_columns(FS_RT_PHASES, &c);
	CHECK_INT(n, 8);
	CHECK(!strcmp(c[1].name, "n") && !strcmp(c[2].name, "pid") && !strcmp(c[3].name, "name") &&
	      !strcmp(c[4].name, "phase_s"));
	for (int rt = 0; rt < FS_RT__COUNT; rt++)
		CHECK(fs_rollup_columns((enum fs_rollup_table)rt, &c) <= FS_ROLLUP_MAX_COLS);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_columns();
	test_against_raw();
	rmdir(dir);
	return check_exit("test_rollup");
}
