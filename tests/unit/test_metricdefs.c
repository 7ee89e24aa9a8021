/* The metric definitions (analysis/load/metricdefs_table.c) against golden run files:
 * every definition prepares against the real schema; every value is what
 * the rows give by hand, over the whole run and inside windows; a table or
 * a column the file lacks leaves only its ids not valid, with no error; a
 * damaged file is an error, never "not recorded". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/metricdefs.h"
#include "analysis/load/load.h"
#include "analysis/load/metrics.h"
#include "analysis/load/query.h"
#include "analysis/load/summary.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9

static char dir[] = "/tmp/fs-metricdefs-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

/* Ticks t = 1..10 of the machine tables (values worked out in check_*):
 * cpu user t (+ nice 1 on even t), iowait 2t; psi cpu t, io 10 + t (full
 * t / 2), memory only at t <= 5; mem falling MemAvailable, growing cache,
 * faults t^2, dentries 100 + t^2; nfs mount /a always, /b from t = 5; gpu 0
 * climbing, gpu 1 flat without PCIe figures. */
static void machine(struct fs_sink *s, int t)
{
	golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
	golden_row(s, FS_T_CPU, t, "user_pct=%d nice_pct=%s system_pct=5 iowait_pct=%d idle_pct=50 steal_pct=0.5", t,
		   t % 2 ? "NULL" : "1", 2 * t);
	golden_row(s, FS_T_PSI, t, "resource=cpu some_pct=%d full_pct=0", t);
	golden_row(s, FS_T_PSI, t, "resource=io some_pct=%d full_pct=%g", 10 + t, t / 2.0);
	if (t <= 5)
		golden_row(s, FS_T_PSI, t, "resource=memory some_pct=%d full_pct=0.5", t);
	golden_row(s, FS_T_MEM, t, "available_bytes=%.0f cached_bytes=%.0f majflt_per_s=%d dentries=%d", 1e9 - t * 1e7,
		   t * 1e8, t * t, 100 + t * t);
	golden_row(s, FS_T_TCP, t, "retrans_segs_per_s=%g", 0.25 * t);
	golden_row(s, FS_T_NFS, t, "mount=/a read_ops_per_s=10 read_rtt_ms=2");
	if (t >= 5)
		golden_row(s, FS_T_NFS, t, "mount=/b read_ops_per_s=30 read_rtt_ms=6");
	golden_row(s, FS_T_GPU, t, "gpu=0 util_pct=%d mem_used_bytes=%.0f pcie_rx_bytes_per_s=%.0f", 10 * t, 1e9 * t,
		   1e6 * t);
	golden_row(s, FS_T_GPU, t, "gpu=1 util_pct=50 mem_used_bytes=500000000");
	golden_row(s, FS_T_CGROUP, t, "path=/job cpu_quota_cores=1.5 throttled_pct=%d mem_limit_bytes=2000000000"
		   " mem_usage_bytes=%.0f", t, 1e8 * t);
	/* disks: sda busy, climbing; loop0 small requests, flat */
	golden_row(s, FS_T_DISK, t, "dt_s=1 device=sda reads_per_s=100 read_bytes_per_s=%.0f write_bytes_per_s=500000"
		   " read_await_ms=%d util_pct=%d queue_depth=2", 1e6 * t, t, 10 * t);
	golden_row(s, FS_T_DISK, t, "dt_s=1 device=loop0 reads_per_s=50 read_bytes_per_s=200000 write_bytes_per_s=0"
		   " read_await_ms=1 util_pct=5 queue_depth=1");
	/* interfaces: lo (never counted), eth0 flat, veth0 climbing */
	golden_row(s, FS_T_NET, t, "dt_s=1 iface=lo rx_bytes_per_s=1e9 tx_bytes_per_s=1e9");
	golden_row(s, FS_T_NET, t, "dt_s=1 iface=eth0 rx_bytes_per_s=1e6 tx_bytes_per_s=1e5 speed_mbps=1000");
	golden_row(s, FS_T_NET, t, "dt_s=1 iface=veth0 rx_bytes_per_s=%.0f tx_bytes_per_s=0", 1e5 * t);
	/* the job: main 100; worker 101 blocked on even t, running on odd;
	 * worker 102 from t = 6, asleep */
	golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main threads=4 running=1 blocked_io=0 sleeping=3 cpu_pct=100"
		   " rchar_per_s=1e6 read_bytes_per_s=0 majflt_per_s=0 run_wait_pct=10");
	golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker threads=2 running=%d blocked_io=%d sleeping=1"
		   " cpu_pct=50 rchar_per_s=2e6 read_bytes_per_s=1e6 majflt_per_s=2 run_wait_pct=0", t % 2, 1 - t % 2);
	if (t >= 6)
		golden_row(s, FS_T_PROC, t, "pid=102 ppid=100 role=worker threads=1 running=0 blocked_io=0 sleeping=1"
			   " cpu_pct=0 rchar_per_s=0 read_bytes_per_s=0");
	golden_row(s, FS_T_IO_INTERVALS, t, "pid=101 io_time_s=0.1 read_bytes=4096 ops=2");
	golden_row(s, FS_T_IO_CLASSES, t, "pid=101 class=file thread=main read_s=0.05 read_bytes=4096 meta_s=0.01");
	golden_row(s, FS_T_IO_CLASSES, t, "pid=101 class=socket thread=main read_s=0.02 read_bytes=100");
	golden_row(s, FS_T_IO_CLASSES, t, "pid=101 class=file thread=helper read_s=9 read_bytes=9"); /* not main */
	golden_row(s, FS_T_STEPS, t, "pid=100 loader=train epoch=%d step=%d wait_s=0.1 compute_s=0.3", t > 5, t);
	if (t % 5 == 0)
		golden_row(s, FS_T_STEPS, t, "pid=100 loader=val epoch=%d step=0 wait_s=0.2 compute_s=0.2", t > 5);
}

/* The fixture; cpu_pad more cpu rows after t = 10 (a table of many pages,
 * for the damaged-file test), none when 0. */
static bool build(const char *path, int cpu_pad)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return false;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "100");
	fs_sink_meta(s, "end_unix", "1700000010");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= 10; t++)
		machine(s, t);
	golden_row(s, FS_T_FILES, 0, "pid=101 path=/data/a opens=2 stats=1 reads=10 read_bytes=40960 seq_reads=9");
	golden_row(s, FS_T_FILES, 0, "pid=102 path=/data/b opens=1 stats=0 reads=5 read_bytes=5000 seq_reads=0");
	golden_row(s, FS_T_FILES, 0, "pid=101 path='(other files)' opens=99 reads=99 read_bytes=99");
	golden_row(s, FS_T_FILES, 0, "pid=100 path=/ckpt opens=1 reads=0 read_bytes=0 writes=3 write_bytes=300");
	golden_row(s, FS_T_PHASES, 0, "t_start=4.5 t_end=5 pid=100 name=checkpoint");
	golden_row(s, FS_T_PHASES, 0, "t_start=2 t_end=3 pid=555 name=checkpoint"); /* not the trainer's */
	golden_row(s, FS_T_PHASES, 0, "t_start=9 t_end=9.75 pid=100 name=checkpoint");
	golden_row(s, FS_T_PHASES, 0, "t_start=5 t_end=5.1 pid=100 name=epoch_end");
	for (int i = 0; i < cpu_pad; i++)
		golden_row(s, FS_T_CPU, 11 + i, "user_pct=1 system_pct=1 iowait_pct=1 idle_pct=97");
	return fs_store_close(st) == 0;
}

/* Load path within [w0, w1]; returns the loader's status, q's error count
 * in *errors. */
static int load(const char *path, double w0, double w1, struct fs_metric_values *mv, long *errors)
{
	struct fs_q q;
	char err[600];
	memset(mv, 0, sizeof *mv);
	if (fs_q_open(&q, path, err, sizeof err) < 0) {
		fprintf(stderr, "  %s\n", err);
		CHECK(!"fs_q_open");
		*errors = -1;
		return -2;
	}
	q.w0 = w0;
	q.w1 = w1;
	int rc = fs_metricdefs_load(&q, mv);
	*errors = q.errors;
	if (rc < 0)
		fprintf(stderr, "  (expected?) %s\n", fs_q_failed(&q) ? fs_q_failed(&q) : "no message");
	fs_q_close(&q);
	return rc;
}

#define VAL(id, want) CHECK_NEAR(mv.v[id], want, EXACT)
/* The memory overheads: machine()'s rows have no dev_shm_bytes, rss_bytes,
 * pss_bytes, uss_bytes, minflt_per_s or mem_peak_bytes
 * (test_metricdefs_mem.c pins these on a fixture of its own). */
static bool memory(int id)
{
	switch (id) {
	case FS_MD_DEV_SHM_USED_MAX_BYTES: case FS_MD_DEV_SHM_GROWTH_BYTES: case FS_MD_MAIN_RSS_MAX_BYTES:
	case FS_MD_WORKERS_RSS_MAX_BYTES: case FS_MD_WORKERS_PSS_MAX_BYTES: case FS_MD_WORKERS_PSS_GROWTH_BYTES:
	case FS_MD_DEV_SHM_SIZE_BYTES: case FS_MD_CGROUP_MEM_PEAK_BYTES:
		return true;
	default: /* the trainer (?3) is 0 here: no process has the workers' role */
		return fs_metricdefs[id].source == FS_MS_MEM_TICKS || fs_metricdefs[id].source == FS_MS_MEM_PROCS ||
		       fs_metricdefs[id].source == FS_MS_WORKER_ROWS;
	}
}

/* Every id's validity is what want(id) says. */
static void check_valid_set(const struct fs_metric_values *mv, bool (*want)(int id))
{
	for (int i = 0; i < FS_MD__N; i++) {
		CHECK(fs_metricdefs_valid(mv, (enum fs_md_id)i) == want(i));
		if (fs_metricdefs_valid(mv, (enum fs_md_id)i) != want(i))
			fprintf(stderr, "  %s: valid %d\n", fs_metricdefs[i].name, fs_metricdefs_valid(mv, (enum fs_md_id)i));
	}
}
static bool all_but_epochs_memory(int id)
{
	return id != FS_MD_TRAINER_EPOCHS && !memory(id);
}
static bool all_but_psi_mem_epochs_ckgpu_memory(int id)
{
	return id != FS_MD_PSI_MEMORY_SOME_PCT && id != FS_MD_PSI_MEMORY_FULL_PCT && id != FS_MD_TRAINER_EPOCHS &&
	       id != FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT && !memory(id);
}
static bool unwindowed(int id)
{
	return id == FS_MD_TRACE_ROWS_COUNT || id == FS_MD_IO_CLASSES_ROWS_COUNT;
}
static bool all_but_dentries_epochs_memory(int id)
{
	return id != FS_MD_DENTRIES_GROWTH && all_but_epochs_memory(id);
}
static bool none(int id)
{
	(void)id;
	return false;
}

static bool valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	bool ok = fs_metricdefs_valid(mv, id);
	CHECK(ok == !isnan(mv->v[id])); /* the bit and the value agree */
	return ok;
}

/* (a) The table itself: ids in order, names unique with their unit in
 * them, every table sampled, every query prepares on a fresh run file. */
static void check_def(sqlite3 *db, const struct fs_metricdef *d, int i, const struct fs_metricdef *all)
{
	static const struct {
		const char *unit, *suffix;
	} units[] = {{"%", "_pct"}, {"bytes", "_bytes"}, {"B/s", "_bytes_per_s"}, {"1/s", "_per_s"},
		     {"ms", "_ms"},  {"s", "_s"},         {"cores", "_cores"},     {"count", ""},
		     {"fraction", ""}};
	char sql[4096];
	CHECK_INT(d->id, i);
	CHECK(d->name && d->expr && d->meaning && d->meaning[0]);
	if (!d->name || !d->expr)
		return;
	for (int j = 0; j < i; j++)
		CHECK(strcmp(d->name, all[j].name) != 0);
	CHECK((int)d->source >= 0 && d->source < FS_MS__N);
	bool unit_ok = false;
	for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
		size_t n = strlen(d->name), k = strlen(units[u].suffix);
		if (d->unit && !strcmp(d->unit, units[u].unit))
			unit_ok = n > k && !strcmp(d->name + n - k, units[u].suffix);
	}
	CHECK(unit_ok);
	if (!unit_ok)
		fprintf(stderr, "  %s: unit %s not in its name\n", d->name, d->unit);
	CHECK_INT(fs_metricdefs_sql(d->source, i, sql, sizeof sql), 1);
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	CHECK_INT(rc, SQLITE_OK);
	if (rc != SQLITE_OK)
		fprintf(stderr, "  %s: %s (in: %s)\n", d->name, sqlite3_errmsg(db), sql);
	sqlite3_finalize(s);
	/* its per-minute form: on a source with tiers, one column that
	 * prepares on the same fresh file, unless read raw; none without */
	const struct fs_md_sourcedef *src = &fs_md_sources[d->source];
	bool raw = d->tier && !strcmp(d->tier, FS_MD_RAW);
	int nt = fs_metricdefs_tier_sql(d->source, i, sql, sizeof sql);
	CHECK_INT(nt, src->tier && !raw ? 1 : 0);
	CHECK(!d->tier || src->tier); /* a tier form on a source without tiers is never read */
	CHECK(!src->tier == !src->tier_where);
	if (nt == 1) {
		rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
		CHECK_INT(rc, SQLITE_OK);
		if (rc != SQLITE_OK)
			fprintf(stderr, "  %s (per minute): %s (in: %s)\n", d->name, sqlite3_errmsg(db), sql);
		sqlite3_finalize(s);
	}
}

/* (a) The tables themselves: ids in order, names unique (over both) with
 * their unit in them, every source's table has t (the window is over it),
 * every query prepares on a fresh run file. */
static void test_table(void)
{
	char p[512], sql[2048];
	path_of(p, sizeof p, "empty.db");
	struct fs_store *st = golden_create(p);
	CHECK(st && fs_store_close(st) == 0);
	sqlite3 *db = NULL;
	CHECK_INT(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (int i = 0; i < FS_MS__N; i++) {
		CHECK_INT(fs_md_sources[i].id, i);
		CHECK(fs_md_sources[i].name && fs_md_sources[i].from && fs_md_sources[i].where);
	}
	for (int i = 0; i < FS_MD__N; i++) {
		check_def(db, &fs_metricdefs[i], i, fs_metricdefs);
		CHECK(!fs_md_sources[fs_metricdefs[i].source].key);
	}
	for (int i = 0; i < FS_MDK__N; i++) {
		check_def(db, &fs_metricdefs_by[i], i, fs_metricdefs_by);
		CHECK(fs_md_sources[fs_metricdefs_by[i].source].key != NULL);
		for (int j = 0; j < FS_MD__N; j++)
			CHECK(strcmp(fs_metricdefs_by[i].name, fs_metricdefs[j].name) != 0);
	}
	/* one query per source: all its definitions as columns */
	int cols = 0;
	for (int s = 0; s < FS_MS__N; s++) {
		int n = fs_metricdefs_sql((enum fs_md_source)s, -1, sql, sizeof sql);
		CHECK(n > 0); /* every source has definitions */
		cols += n > 0 ? n : 0;
	}
	CHECK_INT(cols, FS_MD__N + FS_MDK__N);
	CHECK_INT(fs_metricdefs_sql(FS_MS_CPU, -1, sql, 16), -1); /* does not fit */
	CHECK_INT(fs_metricdefs_sql(FS_MS__N, -1, sql, sizeof sql), 0);
	sqlite3_close(db);
}

/* (b) The whole run: worked out from machine()'s rows. */
static void test_values(const char *p)
{
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, -INFINITY, INFINITY, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	VAL(FS_MD_CPU_BUSY_PCT, 100 - 50 - 11); /* iowait 2t: mean 11 */
	VAL(FS_MD_CPU_IOWAIT_PCT, 11);
	VAL(FS_MD_CPU_USER_PCT, 5.5 + 5 * 1 / 10.0); /* nice NULL on odd t counts as 0 */
	VAL(FS_MD_CPU_SYSTEM_PCT, 5);
	VAL(FS_MD_CPU_STEAL_PCT, 0.5);
	VAL(FS_MD_CPU_IDLE_PCT, 50);
	VAL(FS_MD_PSI_CPU_SOME_PCT, 5.5);
	VAL(FS_MD_PSI_CPU_FULL_PCT, 0);
	VAL(FS_MD_PSI_IO_SOME_PCT, 15.5);
	VAL(FS_MD_PSI_IO_FULL_PCT, 2.75);
	VAL(FS_MD_PSI_MEMORY_SOME_PCT, 3); /* t = 1..5 */
	VAL(FS_MD_PSI_MEMORY_FULL_PCT, 0.5);
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 9e8);
	VAL(FS_MD_PAGE_CACHE_MAX_BYTES, 1e9);
	VAL(FS_MD_MAJOR_FAULTS_PER_S, 38.5); /* mean of t^2 */
	VAL(FS_MD_DENTRIES_GROWTH, 200 - 101);
	VAL(FS_MD_TCP_RETRANS_PER_S, 1.375);
	VAL(FS_MD_NFS_READ_OPS_PER_S, (10 * 10 + 6 * 30) / 16.0); /* 16 rows */
	VAL(FS_MD_NFS_READ_RTT_MS, (10 * 10 * 2 + 6 * 30 * 6) / (100 + 180.0));
	VAL(FS_MD_GPU_COUNT, 2);
	VAL(FS_MD_GPU_UTIL_PCT, (55 + 50) / 2.0);
	VAL(FS_MD_GPU_MEM_USED_MAX_BYTES, 1e10);
	VAL(FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S, 1e7);
	VAL(FS_MD_CGROUP_CPU_QUOTA_CORES, 1.5);
	VAL(FS_MD_CGROUP_THROTTLED_PCT, 5.5);
	VAL(FS_MD_CGROUP_MEM_LIMIT_BYTES, 2e9);
	VAL(FS_MD_CGROUP_MEM_USAGE_MAX_BYTES, 1e9);
	VAL(FS_MD_TICKS_COUNT, 11); /* t = 0 has no length */
	VAL(FS_MD_RECORDED_S, 10);
	VAL(FS_MD_FIRST_TICK_S, 0);
	VAL(FS_MD_LAST_TICK_S, 10);
	VAL(FS_MD_NET_RX_BYTES_PER_S, 1e6 + 5.5e5); /* lo apart */
	VAL(FS_MD_NET_TX_BYTES_PER_S, 1e5);
	VAL(FS_MD_JOB_PROCS_MAX, 3);
	VAL(FS_MD_JOB_PROCS_MEAN, 2.5);
	VAL(FS_MD_JOB_THREADS_MAX, 7);
	VAL(FS_MD_JOB_THREADS_MEAN, 6.5);
	VAL(FS_MD_JOB_THREADS_RUNNING_MEAN, 1.5);
	VAL(FS_MD_JOB_THREADS_BLOCKED_MEAN, 0.5);
	VAL(FS_MD_JOB_THREADS_SLEEPING_MEAN, 4.5);
	VAL(FS_MD_JOB_CPU_PCT, 150);
	/* thread samples: main 40 (10 R), 101 20 (5 R, 5 D), 102 5 (S) */
	VAL(FS_MD_THREADS_RUNNING_PCT, 100.0 * 15 / 65);
	VAL(FS_MD_THREADS_BLOCKED_PCT, 100.0 * 5 / 65);
	VAL(FS_MD_THREADS_SLEEPING_PCT, 100.0 * 45 / 65);
	VAL(FS_MD_THREADS_OTHER_PCT, 0);
	VAL(FS_MD_WORKER_THREADS_RUNNING_PCT, 20);
	VAL(FS_MD_WORKER_THREADS_BLOCKED_PCT, 20);
	VAL(FS_MD_WORKER_THREADS_SLEEPING_PCT, 60);
	VAL(FS_MD_JOB_READ_BYTES, 1e7);
	VAL(FS_MD_JOB_RCHAR_BYTES, 3e7);
	VAL(FS_MD_TRACE_ROWS_COUNT, 4 + 10);
	VAL(FS_MD_IO_CLASSES_ROWS_COUNT, 30);
	VAL(FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT, (50 + 50 + 30 + 50) / 4.0); /* t = 5 in (4.5, 5], t = 3 in pid 555's (2, 3] */
	CHECK(!valid(&mv, FS_MD_TRAINER_EPOCHS)); /* q.trainer 0: no steps of pid 0 */
	check_valid_set(&mv, all_but_epochs_memory);
}

/* The keyed sources over the whole run and in a window, worked out from
 * machine()'s rows; the busier order. */
static void test_keyed(const char *p)
{
	struct fs_q q;
	char err[600];
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	q.trainer = 100;
	struct fs_metric_row r[8];
	int n = fs_metricdefs_load_keyed(&q, FS_MS_DISK, r, 8);
	CHECK_INT(n, 2); /* in key order: loop0, sda */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "loop0") && !strcmp(r[1].key, "sda"));
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_BYTES], 55e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_WRITE_BYTES], 5e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_BYTES_PER_S], 5.5e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_RW_BYTES_PER_S], 6e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READS_PER_S], 100, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_REQ_BYTES], 55e6 / 1000, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_AWAIT_MS], 5.5, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_UTIL_PCT], 55, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_UTIL_MAX_PCT], 100, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_QUEUE_DEPTH], 2, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_DISK_READ_REQ_BYTES], 4000, EXACT);
		CHECK(!fs_metricdefs_row_valid(&r[0], FS_MDK_NIC_BYTES));
		qsort(r, 2, sizeof r[0], fs_metricdefs_busier);
		CHECK(!strcmp(r[0].key, "sda"));
		CHECK(fs_metricdefs_active(&r[1]));
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_NIC, r, 8);
	CHECK_INT(n, 2); /* lo apart */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "eth0") && !strcmp(r[1].key, "veth0"));
		CHECK_NEAR(r[0].v[FS_MDK_NIC_BYTES], 11e6, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_NIC_SPEED_BYTES_PER_S], 1.25e8, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_NIC_RX_BYTES_PER_S], 5.5e5, EXACT);
		CHECK(!fs_metricdefs_row_valid(&r[1], FS_MDK_NIC_SPEED_BYTES_PER_S));
		qsort(r, 2, sizeof r[0], fs_metricdefs_busier);
		CHECK(!strcmp(r[0].key, "eth0"));
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_LOADER, r, 8);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "train") && !strcmp(r[1].key, "val"));
		CHECK_NEAR(r[0].v[FS_MDK_LOADER_STEPS], 10, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_LOADER_EPOCHS], 2, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_LOADER_WAIT_S], 1, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_LOADER_COMPUTE_S], 3, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_LOADER_WAIT_SHARE], 0.25, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_LOADER_WAIT_SHARE], 0.5, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_PHASE, r, 8);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "checkpoint"));
		CHECK_NEAR(r[0].v[FS_MDK_PHASE_COUNT], 3, EXACT); /* every process's */
		CHECK_NEAR(r[0].v[FS_MDK_PHASE_TOTAL_S], 2.25, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PHASE_TOTAL_S], 0.1, 1e-12);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_PROCS, r, 8);
	CHECK_INT(n, 2); /* children, main (no others) */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "children") && !strcmp(r[1].key, "main"));
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_SAMPLES], 15, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_BLOCKED_SAMPLES], 5, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_RUNNING_SAMPLES], 5, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_COUNT], 2, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_CPU_S], 5, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_RCHAR_BYTES], 2e7, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_READ_BYTES], 1e7, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_ALIVE_S], 15, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PROCS_MAJOR_FAULTS], 20, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PROCS_RUN_WAIT_S], 1, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PROCS_CPU_S], 10, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_FILES_BY_GROUP, r, 8);
	CHECK_INT(n, 2); /* children (101, 102), main (100); "(other files)" apart */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "children") && !strcmp(r[1].key, "main"));
		CHECK_NEAR(r[0].v[FS_MDK_FILES_COUNT], 2, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILES_OPENS], 3, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILES_STATS], 1, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILES_READS], 15, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILES_READ_BYTES], 45960, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILES_SEQ_READS], 9, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_FILES_COUNT], 1, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_IO_BY_GROUP, r, 8);
	CHECK_INT(n, 1);
	if (n == 1)
		CHECK_NEAR(r[0].v[FS_MDK_IO_TIME_S], 1, 1e-12);
	n = fs_metricdefs_load_keyed(&q, FS_MS_CLASSES_BY_GROUP, r, 8);
	CHECK_INT(n, 1); /* main threads only: the helper's 9 s apart */
	if (n == 1) {
		CHECK_NEAR(r[0].v[FS_MDK_SOCKET_READ_S], 0.2, 1e-12);
		CHECK_NEAR(r[0].v[FS_MDK_SOCKET_READ_BYTES], 1000, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILE_READ_S], 0.5, 1e-12);
		CHECK_NEAR(r[0].v[FS_MDK_FILE_READ_BYTES], 40960, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_FILE_META_S], 0.1, 1e-12);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_TRAINER_PHASES, r, 8);
	CHECK_INT(n, 2); /* pid 555's checkpoint apart */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "checkpoint"));
		CHECK_NEAR(r[0].v[FS_MDK_TRAINER_PHASE_COUNT], 2, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_TRAINER_PHASE_TOTAL_S], 1.25, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_GPU_BY_DEVICE, r, 8);
	CHECK_INT(n, 2); /* by index: gpu 0 climbing, gpu 1 flat without PCIe or total */
	if (n == 2) {
		CHECK(!strcmp(r[0].key, "0") && !strcmp(r[1].key, "1"));
		CHECK_NEAR(r[0].v[FS_MDK_GPU_DEV_UTIL_PCT], 55, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES], 1e10, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S], 5.5e6, EXACT);
		CHECK(!fs_metricdefs_row_valid(&r[0], FS_MDK_GPU_DEV_PCIE_TX_BYTES_PER_S));
		CHECK(!fs_metricdefs_row_valid(&r[0], FS_MDK_GPU_DEV_MEM_TOTAL_BYTES));
		CHECK_NEAR(r[1].v[FS_MDK_GPU_DEV_UTIL_PCT], 50, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES], 5e8, EXACT);
		CHECK(!fs_metricdefs_row_valid(&r[1], FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S));
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_PROC_BY_PID, r, 8);
	CHECK_INT(n, 3); /* 100, 101, 102 */
	if (n == 3) {
		CHECK(!strcmp(r[0].key, "100") && !strcmp(r[1].key, "101") && !strcmp(r[2].key, "102"));
		CHECK_NEAR(r[0].v[FS_MDK_PID_THREADS], 4, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PID_THREADS_RUNNING], 1, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PID_THREADS_BLOCKED], 0, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PID_THREADS_RUNNING_PCT], 25, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_PID_CPU_PCT], 100, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_RUNNING], 0.5, EXACT); /* R on odd t, D on even */
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_BLOCKED], 0.5, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_BLOCKED_PCT], 25, EXACT); /* 5 of 20 thread samples */
		CHECK_NEAR(r[1].v[FS_MDK_PID_READ_BYTES_PER_S], 1e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PID_CPU_PCT], 50, EXACT);
		CHECK_NEAR(r[2].v[FS_MDK_PID_THREADS], 1, EXACT); /* t = 6..10 only */
		CHECK_NEAR(r[2].v[FS_MDK_PID_THREADS_RUNNING_PCT], 0, EXACT);
	}
	struct fs_metric_values mv;
	CHECK_INT(fs_metricdefs_load_from(&q, FS_MD_FROM(FS_MS_TRAINER_STEPS), &mv), 0);
	CHECK_NEAR(mv.v[FS_MD_TRAINER_EPOCHS], 4, EXACT); /* train 0, 1; val 0, 1 */
	/* a window: t = 6..7; the phase overlapping it does not exist (5.1 ends) */
	q.w0 = 6;
	q.w1 = 7;
	n = fs_metricdefs_load_keyed(&q, FS_MS_DISK, r, 8);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_BYTES], 13e6, EXACT);
	CHECK_INT(fs_metricdefs_load_keyed(&q, FS_MS_PHASE, r, 8), 0);
	/* one tick (as top reads the screen): t = 6, worker 101 blocked */
	q.w0 = q.w1 = 6;
	n = fs_metricdefs_load_keyed(&q, FS_MS_PROC_BY_PID, r, 8);
	CHECK_INT(n, 3);
	if (n == 3) {
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_BLOCKED], 1, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_BLOCKED_PCT], 50, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_PID_THREADS_RUNNING_PCT], 0, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_GPU_BY_DEVICE, r, 8);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_NEAR(r[0].v[FS_MDK_GPU_DEV_UTIL_PCT], 60, EXACT);
		CHECK_NEAR(r[0].v[FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S], 6e6, EXACT);
	}
	/* cap: only the first key */
	q.w0 = -INFINITY;
	q.w1 = INFINITY;
	CHECK_INT(fs_metricdefs_load_keyed(&q, FS_MS_DISK, r, 1), 1);
	CHECK(!strcmp(r[0].key, "loop0"));
	CHECK_INT(fs_metricdefs_load_keyed(&q, FS_MS_CPU, r, 8), 0); /* not keyed */
	CHECK_INT(q.errors, 0);
	fs_q_close(&q);
}

/* (b) Inside windows (both ends in), and a window with no rows. */
static void test_windows(const char *p)
{
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, 3, 6, &mv, &errors), 0); /* t = 3, 4, 5, 6 */
	CHECK_INT(errors, 0);
	VAL(FS_MD_CPU_BUSY_PCT, 50 - 9);
	VAL(FS_MD_CPU_USER_PCT, 4.5 + 2 / 4.0);
	VAL(FS_MD_PSI_IO_FULL_PCT, 2.25);
	VAL(FS_MD_PSI_MEMORY_SOME_PCT, 4); /* t = 3, 4, 5 */
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 9.4e8);
	VAL(FS_MD_PAGE_CACHE_MAX_BYTES, 6e8);
	VAL(FS_MD_MAJOR_FAULTS_PER_S, (9 + 16 + 25 + 36) / 4.0);
	VAL(FS_MD_DENTRIES_GROWTH, 136 - 109);
	VAL(FS_MD_TCP_RETRANS_PER_S, 1.125);
	VAL(FS_MD_NFS_READ_OPS_PER_S, (4 * 10 + 2 * 30) / 6.0);
	VAL(FS_MD_NFS_READ_RTT_MS, (4 * 10 * 2 + 2 * 30 * 6) / 100.0);
	VAL(FS_MD_GPU_UTIL_PCT, (45 + 50) / 2.0);
	VAL(FS_MD_GPU_MEM_USED_MAX_BYTES, 6e9);
	VAL(FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S, 6e6);

	/* t = 6..10: no memory pressure rows: those two alone are not valid */
	CHECK_INT(load(p, 6, 10, &mv, &errors), 0);
	CHECK(!valid(&mv, FS_MD_PSI_MEMORY_SOME_PCT) && !valid(&mv, FS_MD_PSI_MEMORY_FULL_PCT));
	CHECK(valid(&mv, FS_MD_PSI_CPU_SOME_PCT));
	VAL(FS_MD_PSI_CPU_SOME_PCT, 8);
	check_valid_set(&mv, all_but_psi_mem_epochs_ckgpu_memory);

	/* after the last sample: nothing valid, the GPU count included, but
	 * the two counts of the whole run (their sources are not windowed) */
	CHECK_INT(load(p, 20, 30, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	check_valid_set(&mv, unwindowed);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(valid(&mv, (enum fs_md_id)i) == !strcmp(fs_md_sources[fs_metricdefs[i].source].where, "1"));
}

/* Only the tables asked for are read. */
static void test_mask(const char *p)
{
	struct fs_q q;
	char err[600];
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	struct fs_metric_values mv;
	CHECK_INT(fs_metricdefs_load_from(&q, FS_MD_FROM(FS_MS_GPU), &mv), 0);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(valid(&mv, (enum fs_md_id)i) == (fs_metricdefs[i].source == FS_MS_GPU));
	fs_q_close(&q);
}

/* The fixture as another feedscope or kernel would have left it: built
 * into name's path (p), then sql run on it. */
static void altered(char *p, size_t cap, const char *name, const char *sql)
{
	path_of(p, cap, name);
	CHECK(build(p, 0));
	CHECK_INT(golden_sql(p, sql), 0);
}

/* (c) The psi table empty, then gone (an older feedscope, a kernel
 * without PSI): its ids are not valid, the others are, and it is no error;
 * the summary and the metrics say "not recorded" for it. */
static void test_no_psi(const char *how)
{
	char p[512];
	altered(p, sizeof p, "nopsi.db", how);
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, -INFINITY, INFINITY, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(valid(&mv, (enum fs_md_id)i) ==
		      (fs_metricdefs[i].source != FS_MS_PSI && i != FS_MD_TRAINER_EPOCHS && !memory(i)));
	VAL(FS_MD_CPU_IOWAIT_PCT, 11);

	struct fs_metrics m;
	char err[600] = "";
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK(isnan(m.psi_cpu) && isnan(m.psi_io) && isnan(m.psi_io_full) && isnan(m.psi_mem));
	CHECK_NEAR(m.cpu_iowait_pct, 11, EXACT);
	struct fs_summary *s = calloc(1, sizeof *s);
	CHECK(s != NULL);
	if (s) {
		CHECK_INT(fs_summary_load(p, s, err, sizeof err), 0);
		CHECK(isnan(s->psi_cpu_some) && isnan(s->psi_mem_full));
		CHECK_NEAR(s->cpu_iowait, 11, EXACT);
	}
	free(s);
}

/* (c) A column an older file lacks (mem.dentries): only the definition
 * that reads it is not valid; the rest of its table still counts, in the
 * loader, the metrics and the summary. */
static void test_old_column(void)
{
	char p[512];
	altered(p, sizeof p, "nodentries.db", "ALTER TABLE mem DROP COLUMN dentries");
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, -INFINITY, INFINITY, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	CHECK(!valid(&mv, FS_MD_DENTRIES_GROWTH));
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 9e8);
	VAL(FS_MD_PAGE_CACHE_MAX_BYTES, 1e9);
	VAL(FS_MD_MAJOR_FAULTS_PER_S, 38.5);
	check_valid_set(&mv, all_but_dentries_epochs_memory);

	struct fs_metrics m;
	char err[600] = "";
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK(isnan(m.dentries_growth));
	CHECK_NEAR(m.mem_available_min_bytes, 9e8, EXACT);
	CHECK_NEAR(m.majflt_per_s, 38.5, EXACT);
	struct fs_summary *s = calloc(1, sizeof *s);
	CHECK(s != NULL);
	if (s) {
		CHECK_INT(fs_summary_load(p, s, err, sizeof err), 0);
		CHECK_NEAR(s->mem_available_min, 9e8, EXACT);
	}
	free(s);
}

/* (d) A file of schema 9 or before: the machine-wide rows every tick's,
 * without their own dt_s. The disks' and interfaces' totals still come,
 * from the ticks' lengths; a file that lacks the column and has no ticks
 * has them not recorded, never failed. */
static void test_schema9(void)
{
	char p[512];
	altered(p, sizeof p, "schema9.db", "ALTER TABLE disk DROP COLUMN dt_s; ALTER TABLE net DROP COLUMN dt_s");
	struct fs_q q;
	char err[600];
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	q.trainer = 100;
	struct fs_metric_row r[8];
	int n = fs_metricdefs_load_keyed(&q, FS_MS_DISK, r, 8);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK(!strcmp(r[1].key, "sda"));
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_BYTES], 55e6, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_READ_REQ_BYTES], 55e6 / 1000, EXACT);
		CHECK_NEAR(r[1].v[FS_MDK_DISK_UTIL_PCT], 55, EXACT);
	}
	n = fs_metricdefs_load_keyed(&q, FS_MS_NIC, r, 8);
	CHECK_INT(n, 2);
	if (n == 2)
		CHECK_NEAR(r[0].v[FS_MDK_NIC_BYTES], 11e6, EXACT);
	CHECK(!fs_q_failed(&q));
	fs_q_close(&q);
	CHECK_INT(golden_sql(p, "DROP TABLE ticks"), 0);
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	n = fs_metricdefs_load_keyed(&q, FS_MS_DISK, r, 8);
	CHECK(n >= 0);
	for (int i = 0; i < n; i++)
		CHECK(!fs_metricdefs_row_valid(&r[i], FS_MDK_DISK_READ_BYTES));
	CHECK(!fs_q_failed(&q));
	fs_q_close(&q);
}

/* The metrics and the summary of the whole fixture: the same figures from
 * the same definitions (no steps: the metrics' window is the whole run). */
static void test_readers(const char *p)
{
	struct fs_metrics m;
	char err[600] = "";
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK_NEAR(m.cpu_busy_pct, 39, EXACT);
	CHECK_NEAR(m.psi_io_full, 2.75, EXACT);
	CHECK_NEAR(m.psi_mem, 3, EXACT);
	CHECK_NEAR(m.cached_max_bytes, 1e9, EXACT);
	CHECK_NEAR(m.dentries_growth, 99, EXACT);
	CHECK_NEAR(m.tcp_retrans_per_s, 1.375, EXACT);
	CHECK_NEAR(m.nfs_rtt_ms, 1280 / 280.0, EXACT);
	CHECK(m.have_gpu);
	CHECK_INT(m.ngpus, 2);
	CHECK_NEAR(m.gpu_busy, 0.525, EXACT);
	CHECK_NEAR(m.pcie_rx_max_bytes_per_s, 1e7, EXACT);
	struct fs_summary *s = calloc(1, sizeof *s);
	CHECK(s != NULL);
	if (!s)
		return;
	CHECK_INT(fs_summary_load(p, s, err, sizeof err), 0);
	CHECK_NEAR(s->cpu_user, 6, EXACT);
	CHECK_NEAR(s->cpu_system, 5, EXACT);
	CHECK_NEAR(s->cpu_iowait, m.cpu_iowait_pct, EXACT);
	CHECK_NEAR(s->cpu_idle, 50, EXACT);
	CHECK_NEAR(s->cpu_steal, 0.5, EXACT);
	CHECK_NEAR(s->psi_cpu_some, m.psi_cpu, EXACT);
	CHECK_NEAR(s->psi_io_some, m.psi_io, EXACT);
	CHECK_NEAR(s->psi_mem_full, 0.5, EXACT);
	CHECK_NEAR(s->mem_available_min, m.mem_available_min_bytes, EXACT);
	CHECK_NEAR(s->mem_cached_max, 1e9, EXACT);
	CHECK_NEAR(s->majflt_per_s, m.majflt_per_s, EXACT);
	CHECK_INT(s->ngpus, 2);
	CHECK_NEAR(s->gpu_util, 52.5, EXACT);
	CHECK_NEAR(s->gpu_mem_used_max, 1e10, EXACT);
	/* keyed figures: the same definitions in both readers */
	CHECK(!strcmp(m.disk, "sda")); /* the device read most (no tracer, nothing stacked) */
	CHECK_NEAR(m.disk_read_bytes, 55e6, EXACT);
	CHECK_NEAR(m.disk_req_bytes, 55e3, EXACT);
	CHECK_NEAR(m.disk_await_ms, 5.5, EXACT);
	CHECK_INT(s->ndisks, 2);
	CHECK(!strcmp(s->disks[0].name, "sda") && !strcmp(s->disks[1].name, "loop0"));
	CHECK_NEAR(s->disks[0].read_req_bytes, m.disk_req_bytes, EXACT);
	CHECK_NEAR(s->disks[0].read_await_ms, m.disk_await_ms, EXACT);
	CHECK_NEAR(s->disks[0].util_pct, m.disk_util_pct, EXACT);
	CHECK(!strcmp(m.nic, "eth0") && !strcmp(s->net_iface, "eth0"));
	CHECK_NEAR(m.nic_rx_bytes_per_s, 1e6, EXACT);
	CHECK_NEAR(s->net_tx_bytes_per_s, 1e5, EXACT);
	CHECK_NEAR(m.nic_speed_bytes_per_s, 1.25e8, EXACT);
	CHECK(m.have_job && !m.loaders_are_main);
	CHECK_NEAR(m.loaders.blocked, 5 / 15.0, EXACT);
	CHECK_NEAR(m.loaders.running, 5 / 15.0, EXACT);
	CHECK_INT(m.loaders.procs, 2);
	CHECK_NEAR(m.loader_read_bytes, 1e7, EXACT);
	CHECK_NEAR(m.loader_majflt, 20, EXACT);
	CHECK_NEAR(m.job_cpu_cores, 1.5, EXACT);
	CHECK_NEAR(m.cg_quota_cores, 1.5, EXACT);
	CHECK_NEAR(s->job_read_bytes, m.job_read_bytes, EXACT);
	CHECK_INT(s->job_procs_max, 3);
	CHECK_NEAR(s->wrk_blocked, 20, EXACT);
	CHECK_INT(s->ticks, 11);
	CHECK_INT(s->nloaders, 2);
	CHECK(!strcmp(s->loaders[0].name, "train"));
	CHECK_NEAR(s->loaders[0].wait_share, 0.25, EXACT);
	CHECK_INT(s->nphases, 2);
	CHECK(!strcmp(s->phases[0].name, "checkpoint") && s->phases[0].count == 3);
	/* the trainer's (pid 100) alone in the metrics; the tracer's, the loaders' */
	CHECK_INT(m.checkpoints, 2);
	CHECK_NEAR(m.checkpoint_phase_s, 1.25, EXACT);
	CHECK_INT(m.epoch_ends, 1);
	CHECK_INT(m.epochs, 4);
	CHECK(m.have_trace && m.have_classes);
	CHECK_NEAR(m.trace_files, 2, EXACT);
	CHECK_NEAR(m.trace_read_bytes, 45960, EXACT);
	CHECK_NEAR(m.loader_io_time_s, 1, 1e-12);
	CHECK_NEAR(m.loader_sock_read_bytes, 1000, EXACT);
	CHECK_NEAR(m.loader_meta_s, 0.1, 1e-12);
	CHECK_NEAR(m.recorded_until_s, 10, EXACT);
	free(s);
}

/* (d) A damaged page in the middle of cpu: the loader fails, the failure
 * is in q with SQLite's message, nothing is valid; the summary fails. */
static void test_damaged(void)
{
	char p[512];
	path_of(p, sizeof p, "bad.db");
	CHECK(build(p, 1500));
	CHECK(golden_corrupt(p, "cpu") > 1);
	struct fs_q q;
	char err[600] = "";
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	struct fs_metric_values mv;
	CHECK_INT(fs_metricdefs_load(&q, &mv), -1);
	CHECK(q.errors > 0);
	const char *f = fs_q_failed(&q);
	CHECK(f && strstr(f, "malformed") && strstr(f, "(in: SELECT avg(100"));
	if (f)
		fprintf(stderr, "  (expected) %s\n", f);
	check_valid_set(&mv, none);
	CHECK(isnan(mv.v[FS_MD_GPU_UTIL_PCT])); /* other tables' ids too: the file is not to be trusted */
	fs_q_close(&q);
	/* a window's rows are read by rowid (rowids_1m): one over the damaged
	 * rows (the padding, t 11 to 1510) fails; the verdict's figures, over
	 * the trainer's loop (t 1 to 10), read only the rows before it */
	long errors;
	CHECK_INT(load(p, 200, 1400, &mv, &errors), -1);
	CHECK(errors > 0);
	struct fs_metrics m;
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK_NEAR(m.cpu_busy_pct, 39, EXACT);
	struct fs_summary *s = calloc(1, sizeof *s);
	if (s)
		CHECK_INT(fs_summary_load(p, s, err, sizeof err), -1);
	free(s);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char p[512];
	path_of(p, sizeof p, "full.db");
	test_table();
	CHECK(build(p, 0));
	test_values(p);
	test_windows(p);
	test_mask(p);
	test_keyed(p);
	test_readers(p);
	test_no_psi("DELETE FROM psi");
	test_no_psi("DROP TABLE psi");
	test_old_column();
	test_schema9();
	test_damaged();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_metricdefs");
}
