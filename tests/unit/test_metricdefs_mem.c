/* The memory-overhead definitions (analysis/load/metricdefs_table.c) on a golden run
 * file of their own: the trainer's RSS, its workers' RSS and PSS summed per
 * tick, the workers' PSS growth, /dev/shm's use and growth, the lowest
 * MemAvailable; over the whole run and inside windows; with no trainer;
 * and on a file from before these columns (schema 4), where they read as
 * not recorded and the rest still counts. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/metricdefs.h"
#include "analysis/load/load.h"
#include "analysis/load/metrics.h"
#include "analysis/load/query.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9
#define MB 1e6

static char dir[] = "/tmp/fs-metricdefs-mem-XXXXXX";

/* Ticks t = 0..6 (sizes in MB of 1e6 bytes):
 *   trainer 100 (ppid 1)     rss 100 + t, t = 0..6
 *   worker 101 (ppid 100)    t = 1..5, rss 50, pss 20 + 2t   (grows 8)
 *   worker 102 (ppid 100)    t = 3..5, rss 60, pss 30, 31, 35 (grows 5)
 *   worker 103 (ppid 100)    t = 4 only, rss 40, pss 10       (seen once: 0)
 *   worker 105 (ppid 100)    t = 1..5, rss 7, pss NULL (unreadable)
 *   104 (ppid 101), 200 (ppid 1): not the trainer's children, never counted
 *   /dev/shm used            NULL, 1000, 5000, 3000, 8000, 2000, 2000 bytes
 *   MemAvailable             900, 800, 700, 600, 650, 750, 850 MB */
static void tick(struct fs_sink *s, int t)
{
	static const char *const shm[] = {"NULL", "1000", "5000", "3000", "8000", "2000", "2000"};
	static const int avail[] = {900, 800, 700, 600, 650, 750, 850};
	static const int pss102[] = {30, 31, 35};
	golden_row(s, FS_T_TICKS, t, t ? "dt_s=1" : "missed=0");
	golden_row(s, FS_T_MEM, t, "dev_shm_bytes=%s available_bytes=%.0f", shm[t], avail[t] * MB);
	golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main rss_bytes=%.0f pss_bytes=%.0f", (100 + t) * MB, 90 * MB);
	golden_row(s, FS_T_PROC, t, "pid=200 ppid=1 role=worker rss_bytes=%.0f pss_bytes=%.0f", 999 * MB, 999 * MB);
	if (t < 1 || t > 5)
		return;
	golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker rss_bytes=%.0f pss_bytes=%.0f", 50 * MB,
		   (20 + 2 * t) * MB);
	golden_row(s, FS_T_PROC, t, "pid=104 ppid=101 role=worker rss_bytes=%.0f pss_bytes=%.0f", 500 * MB, 500 * MB);
	golden_row(s, FS_T_PROC, t, "pid=105 ppid=100 role=worker rss_bytes=%.0f pss_bytes=NULL", 7 * MB);
	if (t >= 3)
		golden_row(s, FS_T_PROC, t, "pid=102 ppid=100 role=worker rss_bytes=%.0f pss_bytes=%.0f", 60 * MB,
			   pss102[t - 3] * MB);
	if (t == 4)
		golden_row(s, FS_T_PROC, t, "pid=103 ppid=100 role=worker rss_bytes=%.0f pss_bytes=%.0f", 40 * MB,
			   10 * MB);
}

static bool build(const char *path)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return false;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "100");
	for (int t = 0; t <= 6; t++)
		tick(s, t);
	return fs_store_close(st) == 0;
}

/* Load path within [w0, w1] for trainer; q's error count must stay 0. */
static void load(const char *path, int trainer, double w0, double w1, struct fs_metric_values *mv)
{
	struct fs_q q;
	char err[600];
	memset(mv, 0, sizeof *mv);
	if (fs_q_open(&q, path, err, sizeof err) < 0) {
		fprintf(stderr, "  %s\n", err);
		CHECK(!"fs_q_open");
		return;
	}
	q.trainer = trainer;
	q.w0 = w0;
	q.w1 = w1;
	CHECK_INT(fs_metricdefs_load(&q, mv), 0);
	CHECK_INT(q.errors, 0);
	fs_q_close(&q);
}

static bool valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	bool ok = fs_metricdefs_valid(mv, id);
	CHECK(ok == !isnan(mv->v[id]));
	return ok;
}

#define VAL(id, want) CHECK_NEAR(mv.v[id], want, EXACT)

static const enum fs_md_id trainer_ids[] = {FS_MD_MAIN_RSS_MAX_BYTES, FS_MD_WORKERS_RSS_MAX_BYTES,
					    FS_MD_WORKERS_PSS_MAX_BYTES, FS_MD_WORKERS_PSS_GROWTH_BYTES};

static void test_whole(const char *p)
{
	struct fs_metric_values mv;
	load(p, 100, -INFINITY, INFINITY, &mv);
	VAL(FS_MD_MAIN_RSS_MAX_BYTES, 106 * MB);
	VAL(FS_MD_WORKERS_RSS_MAX_BYTES, (50 + 7 + 60 + 40) * MB); /* t = 4 */
	VAL(FS_MD_WORKERS_PSS_MAX_BYTES, (28 + 31 + 10) * MB);     /* t = 4; 105 unreadable */
	VAL(FS_MD_WORKERS_PSS_GROWTH_BYTES, (8 + 5 + 0) * MB);
	VAL(FS_MD_DEV_SHM_USED_MAX_BYTES, 8000);
	VAL(FS_MD_DEV_SHM_GROWTH_BYTES, 8000 - 1000); /* the first sample with a value: t = 1 */
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 600 * MB);
}

static void test_windows(const char *p)
{
	struct fs_metric_values mv;
	load(p, 100, 3, 4, &mv); /* first and last are those of the window */
	VAL(FS_MD_MAIN_RSS_MAX_BYTES, 104 * MB);
	VAL(FS_MD_WORKERS_RSS_MAX_BYTES, 157 * MB);
	VAL(FS_MD_WORKERS_PSS_MAX_BYTES, 69 * MB);
	VAL(FS_MD_WORKERS_PSS_GROWTH_BYTES, (2 + 1 + 0) * MB);
	VAL(FS_MD_DEV_SHM_USED_MAX_BYTES, 8000);
	VAL(FS_MD_DEV_SHM_GROWTH_BYTES, 8000 - 3000);
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 600 * MB);

	load(p, 100, 5, 5, &mv); /* one tick: no growth, but a worker's figures */
	VAL(FS_MD_WORKERS_PSS_GROWTH_BYTES, 0);
	VAL(FS_MD_WORKERS_PSS_MAX_BYTES, 65 * MB);
	VAL(FS_MD_DEV_SHM_GROWTH_BYTES, 0);

	load(p, 100, 6, 6, &mv); /* the workers are gone: not valid, not 0 */
	VAL(FS_MD_MAIN_RSS_MAX_BYTES, 106 * MB);
	CHECK(!valid(&mv, FS_MD_WORKERS_RSS_MAX_BYTES));
	CHECK(!valid(&mv, FS_MD_WORKERS_PSS_MAX_BYTES));
	CHECK(!valid(&mv, FS_MD_WORKERS_PSS_GROWTH_BYTES));
	VAL(FS_MD_DEV_SHM_USED_MAX_BYTES, 2000);

	load(p, 100, 0, 0, &mv); /* /dev/shm not readable then */
	CHECK(!valid(&mv, FS_MD_DEV_SHM_USED_MAX_BYTES) && !valid(&mv, FS_MD_DEV_SHM_GROWTH_BYTES));

	load(p, 100, 20, 30, &mv); /* after the run */
	for (size_t i = 0; i < sizeof trainer_ids / sizeof trainer_ids[0]; i++)
		CHECK(!valid(&mv, trainer_ids[i]));
	CHECK(!valid(&mv, FS_MD_DEV_SHM_USED_MAX_BYTES));
}

/* Without a trainer (q.trainer 0) nobody is main or its child. */
static void test_no_trainer(const char *p)
{
	struct fs_metric_values mv;
	load(p, 0, -INFINITY, INFINITY, &mv);
	for (size_t i = 0; i < sizeof trainer_ids / sizeof trainer_ids[0]; i++)
		CHECK(!valid(&mv, trainer_ids[i]));
	VAL(FS_MD_DEV_SHM_USED_MAX_BYTES, 8000);
	/* another process as the trainer: 101's child 104 is its worker */
	load(p, 101, -INFINITY, INFINITY, &mv);
	VAL(FS_MD_MAIN_RSS_MAX_BYTES, 50 * MB);
	VAL(FS_MD_WORKERS_PSS_MAX_BYTES, 500 * MB);
	VAL(FS_MD_WORKERS_PSS_GROWTH_BYTES, 0);
}

/* A run file of schema 4: no proc.pss_bytes, proc.shared_bytes or
 * mem.dev_shm_bytes. Those figures are not recorded; RSS and the rest of
 * mem still count; the metrics still load. */
static void test_schema4(void)
{
	char p[512];
	snprintf(p, sizeof p, "%s/v4.db", dir);
	CHECK(build(p));
	CHECK_INT(golden_sql(p, "ALTER TABLE proc DROP COLUMN pss_bytes; ALTER TABLE proc DROP COLUMN shared_bytes;"
				"ALTER TABLE mem DROP COLUMN dev_shm_bytes; PRAGMA user_version = 4;"
				"UPDATE meta SET value = '4' WHERE key = 'schema_version'"),
		  0);
	struct fs_metric_values mv;
	load(p, 100, -INFINITY, INFINITY, &mv);
	CHECK(!valid(&mv, FS_MD_WORKERS_PSS_MAX_BYTES));
	CHECK(!valid(&mv, FS_MD_WORKERS_PSS_GROWTH_BYTES));
	CHECK(!valid(&mv, FS_MD_DEV_SHM_USED_MAX_BYTES));
	CHECK(!valid(&mv, FS_MD_DEV_SHM_GROWTH_BYTES));
	VAL(FS_MD_MAIN_RSS_MAX_BYTES, 106 * MB);
	VAL(FS_MD_WORKERS_RSS_MAX_BYTES, 157 * MB);
	VAL(FS_MD_MEM_AVAILABLE_MIN_BYTES, 600 * MB);
	struct fs_metrics m;
	char err[600] = "";
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK_NEAR(m.mem_available_min_bytes, 600 * MB, EXACT);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	char p[512];
	snprintf(p, sizeof p, "%s/mem.db", dir);
	CHECK(build(p));
	test_whole(p);
	test_windows(p);
	test_no_trainer(p);
	test_schema4();
	return check_exit("test_metricdefs_mem");
}
