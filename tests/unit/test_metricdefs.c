/* The metric definitions (analysis/metricdefs.c) against golden run files:
 * every definition prepares against the real schema; every value is what
 * the rows give by hand, over the whole run and inside windows; a table or
 * a column the file lacks leaves only its ids not valid, with no error; a
 * damaged file is an error, never "not recorded". */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metricdefs.h"
#include "analysis/metrics.h"
#include "analysis/query.h"
#include "analysis/summary.h"
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
#define BIT(id) (UINT64_C(1) << (id))
#define ALL (BIT(FS_MD__N) - 1)

static bool valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	bool ok = fs_metricdefs_valid(mv, id);
	CHECK(ok == !isnan(mv->v[id])); /* the bit and the value agree */
	return ok;
}

/* (a) The table itself: ids in order, names unique with their unit in
 * them, every table sampled, every query prepares on a fresh run file. */
static void test_table(void)
{
	static const struct {
		const char *unit, *suffix;
	} units[] = {{"%", "_pct"}, {"bytes", "_bytes"}, {"B/s", "_bytes_per_s"}, {"1/s", "_per_s"},
		     {"ms", "_ms"},  {"count", ""},       {"fraction", ""}};
	char p[512], sql[2048];
	path_of(p, sizeof p, "empty.db");
	struct fs_store *st = golden_create(p);
	CHECK(st && fs_store_close(st) == 0);
	sqlite3 *db = NULL;
	CHECK_INT(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	for (int i = 0; i < FS_MD__N; i++) {
		const struct fs_metricdef *d = &fs_metricdefs[i];
		CHECK_INT(d->id, i);
		CHECK(d->name && d->expr && d->meaning && d->meaning[0]);
		if (!d->name || !d->expr)
			continue;
		for (int j = 0; j < i; j++)
			CHECK(strcmp(d->name, fs_metricdefs[j].name) != 0);
		CHECK(fs_tables[d->table].sampled); /* the window is over t */
		bool unit_ok = false;
		for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
			size_t n = strlen(d->name), k = strlen(units[u].suffix);
			if (d->unit && !strcmp(d->unit, units[u].unit))
				unit_ok = n > k && !strcmp(d->name + n - k, units[u].suffix);
		}
		CHECK(unit_ok);
		CHECK_INT(fs_metricdefs_sql(d->table, i, sql, sizeof sql), 1);
		sqlite3_stmt *s = NULL;
		int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
		CHECK_INT(rc, SQLITE_OK);
		if (rc != SQLITE_OK)
			fprintf(stderr, "  %s: %s (in: %s)\n", d->name, sqlite3_errmsg(db), sql);
		sqlite3_finalize(s);
	}
	/* one query per table: all its definitions as columns */
	int cols = 0;
	for (int t = 0; t < FS_T__COUNT; t++) {
		int n = fs_metricdefs_sql((enum fs_table_id)t, -1, sql, sizeof sql);
		CHECK(n >= 0);
		cols += n > 0 ? n : 0;
	}
	CHECK_INT(cols, FS_MD__N);
	CHECK_INT(fs_metricdefs_sql(FS_T_CPU, -1, sql, 16), -1); /* does not fit */
	CHECK_INT(fs_metricdefs_sql(FS_T_STEPS, -1, sql, sizeof sql), 0);
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
	CHECK(mv.valid == ALL);
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
	CHECK(mv.valid == (ALL & ~BIT(FS_MD_PSI_MEMORY_SOME_PCT) & ~BIT(FS_MD_PSI_MEMORY_FULL_PCT)));

	/* after the last sample: nothing valid, the GPU count included */
	CHECK_INT(load(p, 20, 30, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	CHECK(mv.valid == 0);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(!valid(&mv, (enum fs_md_id)i));
}

/* Only the tables asked for are read. */
static void test_mask(const char *p)
{
	struct fs_q q;
	char err[600];
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	struct fs_metric_values mv;
	CHECK_INT(fs_metricdefs_load_from(&q, FS_MD_FROM(FS_T_GPU), &mv), 0);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(valid(&mv, (enum fs_md_id)i) == (fs_metricdefs[i].table == FS_T_GPU));
	fs_q_close(&q);
}

/* (c) The psi table empty, then gone (an older feedscope, a kernel
 * without PSI): its ids are not valid, the others are, and it is no error;
 * the summary and the metrics say "not recorded" for it. */
static void test_no_psi(const char *how)
{
	char p[512];
	path_of(p, sizeof p, "nopsi.db");
	CHECK(build(p, 0));
	CHECK_INT(golden_sql(p, how), 0);
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, -INFINITY, INFINITY, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	for (int i = 0; i < FS_MD__N; i++)
		CHECK(valid(&mv, (enum fs_md_id)i) == (fs_metricdefs[i].table != FS_T_PSI));
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
	path_of(p, sizeof p, "nodentries.db");
	CHECK(build(p, 0));
	CHECK_INT(golden_sql(p, "ALTER TABLE mem DROP COLUMN dentries"), 0);
	struct fs_metric_values mv;
	long errors;
	CHECK_INT(load(p, -INFINITY, INFINITY, &mv, &errors), 0);
	CHECK_INT(errors, 0);
	CHECK(!valid(&mv, FS_MD_DENTRIES_GROWTH));
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 9e8);
	VAL(FS_MD_PAGE_CACHE_MAX_BYTES, 1e9);
	VAL(FS_MD_MAJOR_FAULTS_PER_S, 38.5);
	CHECK(mv.valid == (ALL & ~BIT(FS_MD_DENTRIES_GROWTH)));

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
	free(s);
}

/* (d) A damaged page in the middle of cpu: the loader fails, the failure
 * is in q with SQLite's message, nothing is valid; both readers fail. */
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
	CHECK(mv.valid == 0);
	CHECK(isnan(mv.v[FS_MD_GPU_UTIL_PCT])); /* other tables' ids too: the file is not to be trusted */
	fs_q_close(&q);
	struct fs_metrics m;
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), -1);
	CHECK(strstr(err, "reading the run file failed: database disk image is malformed") != NULL);
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
	test_readers(p);
	test_no_psi("DELETE FROM psi");
	test_no_psi("DROP TABLE psi");
	test_old_column();
	test_damaged();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_metricdefs");
}
