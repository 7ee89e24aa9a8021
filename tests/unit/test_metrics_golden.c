/* Golden run files: small fixtures written through the real store, with
 * hand-chosen rows, read by fs_metrics_load and fs_summary_load; every
 * figure checked against what the rows give by hand. Then the same file as
 * an older feedscope wrote it (no io_classes, no mounts.disks): not
 * recorded, no error. Then damaged: the readers fail, never a half-filled
 * success. The expected values are worked out next to each check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/load/load.h"
#include "analysis/load/metrics.h"
#include "analysis/load/query.h"
#include "analysis/load/summary.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9

static char dir[] = "/tmp/fs-golden-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

static void meta(struct fs_sink *s)
{
	const char *kv[][2] = {
		{"mode", "run"}, {"pid", "100"}, {"interval_s", "1"}, {"ncpu", "4"}, {"mem_bytes", "8000000000"},
		{"end_unix", "1700000010"}, {"duration_s", "10"}, {"loader.train.num_workers", "2"},
		{"loader.train.batch_size", "32"}, {"loader.train.prefetch_factor", "2"},
		{"loader.train.persistent_workers", "false"}, {"loader.train.pin_memory", "true"},
		{"probe.loop0.seq_read_bytes_per_s", "500000000"}, {"source.net", "unavailable: test"},
	};
	for (size_t i = 0; i < sizeof kv / sizeof kv[0]; i++)
		fs_sink_meta(s, kv[i][0], kv[i][1]);
}

/* Steps: pid 100 (the job's main process, the trainer: it waits longest)
 * with loaders train (2 epochs of 4 steps) and val (2 steps); pid 200, a
 * second rank, train (3 steps). Phases: an epoch_end and two checkpoints
 * of pid 100, a checkpoint of pid 200 (not the trainer's). */
static void steps(struct fs_sink *s)
{
	static const double w[2][4] = {{0.5, 0.25, 0.25, 0.25}, {1.0, 0.25, 0.125, 0.375}};
	for (int e = 0; e < 2; e++)
		for (int i = 0; i < 4; i++)
			golden_row(s, FS_T_STEPS, 1 + 4 * e + i, "pid=100 loader=train epoch=%d step=%d wait_s=%g compute_s=0.25",
				   e, i, w[e][i]);
	golden_row(s, FS_T_STEPS, 9, "pid=100 loader=val epoch=0 step=0 wait_s=0.125 compute_s=0.125");
	/* its loop ends at 9.875 + 0.125 = 10, the last tick: the machine's
	 * figures are the same over the loop and over the whole run */
	golden_row(s, FS_T_STEPS, 9.875, "pid=100 loader=val epoch=0 step=1 wait_s=0.125 compute_s=0.125");
	for (int i = 0; i < 3; i++)
		golden_row(s, FS_T_STEPS, 1 + i, "pid=200 loader=train epoch=0 step=%d wait_s=0.125 compute_s=0.5", i);
	golden_row(s, FS_T_PHASES, 0, "t_start=4.5 t_end=4.75 pid=100 name=epoch_end");
	golden_row(s, FS_T_PHASES, 0, "t_start=2 t_end=3 pid=100 name=checkpoint");
	golden_row(s, FS_T_PHASES, 0, "t_start=6.5 t_end=7 pid=100 name=checkpoint");
	golden_row(s, FS_T_PHASES, 0, "t_start=1 t_end=1.5 pid=200 name=checkpoint");
}

/* The trainer's main thread writes + syncs files at t = 3 (0.5 s: inside
 * the 2..3 checkpoint), 6 (1 s: alone) and 7 (0.75 s: starts before the
 * 6.5..7 checkpoint); a background thread and a socket write do not count.
 * Its workers read through files and a socket; their paths are hashed
 * (--hash-paths), so which disk holds them is told by the disks' reads. */
static void io(struct fs_sink *s)
{
	golden_row(s, FS_T_IO_CLASSES, 3, "pid=100 class=file thread=main read_s=0 write_s=0.25 sync_s=0.25");
	golden_row(s, FS_T_IO_CLASSES, 6, "pid=100 class=file thread=main read_s=0 write_s=0.5 sync_s=0.5");
	golden_row(s, FS_T_IO_CLASSES, 7, "pid=100 class=file thread=main read_s=0 write_s=0.25 sync_s=0.5");
	golden_row(s, FS_T_IO_CLASSES, 8, "pid=100 class=file thread=other write_s=0 sync_s=2");
	golden_row(s, FS_T_IO_CLASSES, 8, "pid=100 class=socket thread=main write_s=1 sync_s=0");
	golden_row(s, FS_T_IO_CLASSES, 2, "pid=101 class=file thread=main read_s=0.5 read_bytes=1000 meta_s=0.125");
	golden_row(s, FS_T_IO_CLASSES, 2, "pid=102 class=socket thread=main read_s=0.25 read_bytes=500");
	golden_row(s, FS_T_FILES, 0, "pid=100 path=/ckpt/model.pt write_bytes=1000000 main_write_time_s=1"
				     " main_meta_time_s=0.125");
	golden_row(s, FS_T_FILES, 0, "pid=101 path=a1b2c3d4e5f60718 opens=2 stats=1 reads=10 read_bytes=4096 seq_reads=8");
	golden_row(s, FS_T_FILES, 0, "pid=102 path=0f1e2d3c4b5a6978 opens=1 stats=0 reads=5 read_bytes=2048 seq_reads=5");
	golden_row(s, FS_T_FILES, 0, "pid=102 path='(other files)' opens=100 reads=100"); /* not a file */
	golden_row(s, FS_T_FILES, 0, "pid=100 path=/data/c opens=7 reads=7"); /* the trainer's, not a loader's */
	golden_row(s, FS_T_IO_INTERVALS, 2, "pid=101 io_time_s=0.5");
	golden_row(s, FS_T_IO_INTERVALS, 3, "pid=102 io_time_s=0.25");
	golden_row(s, FS_T_IO_INTERVALS, 3, "pid=100 io_time_s=1");
}

/* Worker 101: in D at t 1..4, running 5..8, asleep 9..10; worker 102: in D
 * at 1..2, running after. Process 200 (ppid 1) is neither. t = 0 has no
 * dt_s: its rows count nowhere. */
static void procs(struct fs_sink *s, double t)
{
	golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main running=1 blocked_io=0 sleeping=3 cpu_pct=100"
				    " read_bytes_per_s=100 rchar_per_s=100");
	golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker running=%d blocked_io=%d sleeping=1 cpu_pct=50"
				    " run_wait_pct=10 rchar_per_s=1000 read_bytes_per_s=500 majflt_per_s=1",
		   t >= 5 && t <= 8, t >= 1 && t <= 4 ? 1 : 0);
	golden_row(s, FS_T_PROC, t, "pid=102 ppid=100 role=worker running=%d blocked_io=%d sleeping=1 cpu_pct=25"
				    " run_wait_pct=0 rchar_per_s=2000 read_bytes_per_s=250 majflt_per_s=0",
		   t >= 3, t <= 2 ? 1 : 0);
	golden_row(s, FS_T_PROC, t, "pid=200 ppid=1 role=main running=0 blocked_io=0 sleeping=2 cpu_pct=10");
}

/* One tick t = 1..10 of the machine tables. */
static void machine(struct fs_sink *s, double t)
{
	golden_row(s, FS_T_CPU, t, "user_pct=30 system_pct=5 iowait_pct=%d idle_pct=50", t <= 5 ? 10 : 20);
	golden_row(s, FS_T_PSI, t, "resource=cpu some_pct=5 full_pct=0");
	golden_row(s, FS_T_PSI, t, "resource=io some_pct=20 full_pct=10");
	golden_row(s, FS_T_PSI, t, "resource=memory some_pct=1 full_pct=0");
	golden_row(s, FS_T_MEM, t, "available_bytes=%.0f cached_bytes=2000000000 majflt_per_s=%g dentries=%.0f",
		   1e9 + t * 1e8, t, 1000 + 10 * t);
	/* loop0 (a file system on an image in a file of sda) reads 90% of sda */
	golden_row(s, FS_T_DISK, t, "dt_s=1 device=loop0 reads_per_s=9 read_bytes_per_s=900 read_await_ms=%d util_pct=40"
				    " queue_depth=0.5", t <= 5 ? 1 : 3);
	golden_row(s, FS_T_DISK, t, "dt_s=1 device=sda reads_per_s=10 read_bytes_per_s=1000 read_await_ms=1 util_pct=60"
				    " queue_depth=1");
	golden_row(s, FS_T_NET, t, "dt_s=1 iface=lo rx_bytes_per_s=1000000000 tx_bytes_per_s=1000000000");
	golden_row(s, FS_T_NET, t, "dt_s=1 iface=eth0 rx_bytes_per_s=1000 tx_bytes_per_s=10 speed_mbps=1000");
	golden_row(s, FS_T_TCP, t, "retrans_segs_per_s=0.5");
	golden_row(s, FS_T_GPU, t, "gpu=0 name=G util_pct=%g pcie_rx_bytes_per_s=%g", 10 * t, 1e6 * t);
	golden_row(s, FS_T_GPU, t, "gpu=1 name=G util_pct=50");
	golden_row(s, FS_T_CGROUP, t, "path=/job cpu_quota_cores=2 throttled_pct=%d mem_limit_bytes=4000000000"
				      " mem_usage_bytes=%.0f", t <= 5 ? 10 : 0, 2e9 + t * 1e8);
}

/* The fixture at path; with pad, 600 more process samples of an unrelated
 * process (so proc spans many pages, for the damaged-file test). */
static bool build(const char *path, bool pad)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return false;
	struct fs_sink *s = fs_store_sink(st);
	meta(s);
	golden_row(s, FS_T_MOUNTS, 0, "mount=/ device=sda disks=sda");
	golden_row(s, FS_T_MOUNTS, 0, "mount=/data device=loop0 disks=sda");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	procs(s, 0);
	golden_row(s, FS_T_PROC, 0, "pid=101 ppid=100 role=worker running=0 blocked_io=5 cpu_pct=1000");
	for (int t = 1; t <= 10; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		procs(s, t);
		machine(s, t);
	}
	for (int i = 0; pad && i < 600; i++)
		golden_row(s, FS_T_PROC, 1 + i % 10, "pid=%d ppid=9 role=other comm=padding-padding-padding", 1000 + i);
	steps(s);
	io(s);
	return fs_store_close(st) == 0;
}

static void check_steps(const struct fs_metrics *m)
{
	CHECK(m->have_steps);
	CHECK_INT(m->steps, 10);   /* the trainer's (pid 100) */
	CHECK_INT(m->epochs, 3);   /* train/0, train/1, val/0 */
	CHECK_NEAR(m->wait_s, 1.25 + 1.75 + 0.25, EXACT);
	CHECK_NEAR(m->compute_s, 8 * 0.25 + 2 * 0.125, EXACT);
	CHECK_STR(m->loader, "train");
	CHECK_INT(m->epoch_ends, 1);
	CHECK_NEAR(m->epoch_end_s, 0.25, EXACT);
	CHECK_NEAR(m->loop_s, 3.25 + 2.25 + 0.25, EXACT);
	/* epoch 1 of train: step 0 waited 1.0; the usual wait, from step 2 on
	 * (2 workers), is (0.125 + 0.375) / 2 */
	CHECK_INT(m->epoch_starts, 1);
	CHECK_NEAR(m->epoch_start_excess_s, 0.75, EXACT);
	CHECK_INT(m->num_workers, 2);
	CHECK_INT(m->batch_size, 32);
	CHECK_INT(m->prefetch_factor, 2);
	CHECK_STR(m->persistent_workers, "false");
	CHECK_STR(m->pin_memory, "true");
}

/* Phases 2..3 and 6.5..7; main-thread writes (2.5, 3], (5, 6], (6.25, 7]:
 * the union is 1 + 1 + 0.75 s; beyond the phases' 1.5 s by 1.25 s, so the
 * open/close time of the file written (0.125 s) counts whole (1.25 / 1 s
 * of write time >= 1). GPU samples in the union: t = 3, 6, 7, each
 * weighed by how much of its tick the union covers. */
static void check_checkpoints(const struct fs_metrics *m, bool classes)
{
	CHECK_INT(m->checkpoints, 2);
	CHECK_NEAR(m->checkpoint_phase_s, 1.5, EXACT);
	CHECK_NEAR(m->checkpoint_every_steps, 5, EXACT);
	if (classes) {
		CHECK_NEAR(m->checkpoint_s, 2.75 + 0.125, EXACT);
		CHECK_NEAR(m->host_io_s, 0.5 + 1 + 0.75, EXACT);
		/* the GPU samples' ticks (2, 3], (5, 6], (6, 7] covered 1, 1 and
		 * 0.75 s by the union; both GPUs' mean util 40, 55, 60 */
		CHECK_NEAR(m->gpu_busy_in_checkpoints, (40 + 55 + 0.75 * 60) / 2.75, EXACT);
	} else { /* the phases alone; their GPU samples t = 3 and 7 */
		CHECK_NEAR(m->checkpoint_s, 1.5, EXACT);
		CHECK(isnan(m->host_io_s));
		CHECK_NEAR(m->gpu_busy_in_checkpoints, (30 + 50 + 70 + 50) / 4.0, EXACT);
	}
}

static void check_job(const struct fs_metrics *m)
{
	CHECK(m->have_job);
	CHECK(!m->loaders_are_main);
	/* 20 worker samples: in D 4 + 2, running 4 + 8, asleep 2 */
	CHECK_INT(m->loaders.samples, 20);
	CHECK_INT(m->loaders.procs, 2);
	CHECK_NEAR(m->loaders.blocked, 0.3, EXACT);
	CHECK_NEAR(m->loaders.running, 0.6, EXACT);
	CHECK_NEAR(m->loaders.sleeping, 0.1, EXACT);
	CHECK_NEAR(m->loaders.cpu_cores, (500 + 250) / 100.0 / 10, EXACT);
	CHECK_NEAR(m->loaders.run_wait, 100 / 100.0 / 10, EXACT);
	CHECK_INT(m->main.samples, 10);
	CHECK_NEAR(m->main.running, 1, EXACT);
	CHECK_NEAR(m->main.blocked, 0, EXACT);
	CHECK_NEAR(m->main.cpu_cores, 1, EXACT);
	CHECK_NEAR(m->job_cpu_cores, (1000 + 750 + 100) / 100.0 / 10, EXACT);
	CHECK_NEAR(m->loader_time_s, 20, EXACT);
	CHECK_NEAR(m->loader_rchar_bytes, 10 * 1000 + 10 * 2000, EXACT);
	CHECK_NEAR(m->loader_read_bytes, 10 * 500 + 10 * 250, EXACT);
	CHECK_NEAR(m->loader_majflt, 10, EXACT);
	CHECK_NEAR(m->job_read_bytes, 1000 + 7500, EXACT);
	CHECK_NEAR(m->cg_quota_cores, 2, EXACT);
	CHECK_NEAR(m->cg_throttled_pct, 5, EXACT);
	CHECK_NEAR(m->cg_mem_limit_bytes, 4e9, EXACT);
	CHECK_NEAR(m->cg_mem_usage_max_bytes, 3e9, EXACT);
}

static void check_trace(const struct fs_metrics *m, bool classes)
{
	CHECK(m->have_trace);
	CHECK_NEAR(m->loader_io_time_s, 0.75, EXACT);
	CHECK_NEAR(m->trace_files, 2, EXACT); /* the two files, not "(other files)" */
	CHECK_NEAR(m->trace_opens, 3, EXACT);
	CHECK_NEAR(m->trace_stats, 1, EXACT);
	CHECK_NEAR(m->trace_reads, 15, EXACT);
	CHECK_NEAR(m->trace_read_bytes, 6144, EXACT);
	CHECK_NEAR(m->trace_seq_reads, 13, EXACT);
	CHECK(m->have_classes == classes);
	if (classes) {
		CHECK_NEAR(m->loader_sock_read_s, 0.25, EXACT);
		CHECK_NEAR(m->loader_sock_read_bytes, 500, EXACT);
		CHECK_NEAR(m->loader_file_read_s, 0.5, EXACT);
		CHECK_NEAR(m->loader_file_read_bytes, 1000, EXACT);
		CHECK_NEAR(m->loader_meta_s, 0.125, EXACT);
	} else {
		CHECK(isnan(m->loader_sock_read_s) && isnan(m->loader_file_read_s) && isnan(m->loader_meta_s));
	}
}

static void check_machine(const struct fs_metrics *m)
{
	CHECK_NEAR(m->cpu_busy_pct, 100 - 50 - 15, EXACT);
	CHECK_NEAR(m->cpu_iowait_pct, 15, EXACT);
	CHECK_NEAR(m->psi_cpu, 5, EXACT);
	CHECK_NEAR(m->psi_io, 20, EXACT);
	CHECK_NEAR(m->psi_io_full, 10, EXACT);
	CHECK_NEAR(m->psi_mem, 1, EXACT);
	CHECK_NEAR(m->mem_available_min_bytes, 1.1e9, EXACT);
	CHECK_NEAR(m->cached_max_bytes, 2e9, EXACT);
	CHECK_NEAR(m->majflt_per_s, 5.5, EXACT);
	CHECK_NEAR(m->dentries_growth, 90, EXACT);
	/* loop0 carries 9000 of sda's 10000 bytes (>= 80%): loop0 is named */
	CHECK_STR(m->disk, "loop0");
	CHECK_NEAR(m->disk_read_bytes, 9000, EXACT);
	CHECK_NEAR(m->disk_read_bytes_per_s, 900, EXACT);
	CHECK_NEAR(m->disk_util_pct, 40, EXACT);
	CHECK_NEAR(m->disk_req_bytes, 100, EXACT);
	CHECK_NEAR(m->disk_await_ms, 2, EXACT);
	CHECK_NEAR(m->disk_iops, 9, EXACT);
	CHECK_NEAR(m->disk_queue_depth, 0.5, EXACT);
	CHECK_NEAR(m->disk_ceiling_bytes_per_s, 5e8, EXACT);
	CHECK(isnan(m->disk_ceiling_iops));
	CHECK_STR(m->nic, "eth0");
	CHECK_NEAR(m->nic_rx_bytes_per_s, 1000, EXACT);
	CHECK_NEAR(m->nic_speed_bytes_per_s, 1000 * 1e6 / 8, EXACT);
	CHECK_NEAR(m->tcp_retrans_per_s, 0.5, EXACT);
	CHECK(isnan(m->nfs_read_ops_per_s) && isnan(m->nfs_rtt_ms));
}

/* Everything fs_metrics_load gives for the fixture; classes: whether the
 * file still has io_classes. */
static void check_metrics(const char *path, bool classes)
{
	struct fs_metrics m;
	char err[600] = "";
	int rc = fs_metrics_load(path, NULL, &m, err, sizeof err);
	CHECK_INT(rc, 0);
	if (rc != 0) {
		fprintf(stderr, "  %s\n", err);
		return;
	}
	CHECK_STR(m.mode, "run");
	CHECK_NEAR(m.interval_s, 1, EXACT);
	CHECK_INT(m.ncpu, 4);
	CHECK_NEAR(m.mem_total_bytes, 8e9, EXACT);
	CHECK_NEAR(m.duration_s, 10, EXACT);
	CHECK(!m.incomplete);
	CHECK_NEAR(m.recorded_until_s, 10, EXACT);
	CHECK(m.have_gpu);
	CHECK_INT(m.ngpus, 2);
	CHECK_NEAR(m.gpu_busy, (55 + 50) / 2.0 / 100, EXACT); /* gpu 0: 10..100, gpu 1: 50 */
	CHECK_NEAR(m.pcie_rx_max_bytes_per_s, 1e7, EXACT);
	check_steps(&m);
	check_checkpoints(&m, classes);
	check_job(&m);
	check_trace(&m, classes);
	check_machine(&m);
}

static void check_summary(const char *path)
{
	struct fs_summary *s = calloc(1, sizeof *s);
	char err[600] = "";
	CHECK(s != NULL);
	if (!s)
		return;
	int rc = fs_summary_load(path, s, err, sizeof err);
	CHECK_INT(rc, 0);
	if (rc == 0) {
		CHECK_INT(s->pid, 100);
		CHECK_INT(s->ticks, 11);
		CHECK_STR(s->skipped, "net (test)");
		CHECK_INT(s->ndisks, 2);
		CHECK_STR(s->disks[0].name, "sda"); /* the summary lists the busiest first */
		CHECK_NEAR(s->disks[1].read_bytes, 9000, EXACT);
		CHECK_INT(s->nloaders, 2); /* all processes' loops */
		CHECK_STR(s->loaders[0].name, "train");
		CHECK_INT(s->loaders[0].steps, 11);
		CHECK_NEAR(s->loaders[0].wait_s, 3.0 + 0.375, EXACT);
		CHECK_INT(s->nphases, 2);
		CHECK_STR(s->phases[0].name, "checkpoint");
		CHECK_INT(s->phases[0].count, 3);
		CHECK_NEAR(s->phases[0].total_s, 2, EXACT);
		CHECK_STR(s->net_iface, "eth0");
		CHECK_INT(s->ngpus, 2);
		CHECK_STR(s->gpu_name, "G");
	} else {
		fprintf(stderr, "  %s\n", err);
	}
	free(s);
}

static void test_full(void)
{
	char p[512];
	path_of(p, sizeof p, "full.db");
	CHECK(build(p, false));
	check_metrics(p, true);
	check_summary(p);
	/* 0..5 s, both ends in: train's epoch 0 (t = 1..4) and step 0 of epoch
	 * 1 (t = 5, waited 1.0); ticks 0..5 */
	struct fs_window w = {0, 5};
	struct fs_metrics mw;
	char werr[600] = "";
	CHECK_INT(fs_metrics_load(p, &w, &mw, werr, sizeof werr), 0);
	CHECK_INT(mw.steps, 5);
	CHECK_NEAR(mw.wait_s, 1.25 + 1.0, EXACT);
	CHECK_NEAR(mw.compute_s, 5 * 0.25, EXACT);
	CHECK_NEAR(mw.duration_s, 5, EXACT);
	CHECK_INT(mw.checkpoints, 1);
	/* sda read twice as much: loop0 carries 45% of it, and sda is named */
	CHECK_INT(golden_sql(p, "UPDATE disk SET read_bytes_per_s = 2000 WHERE device = 'sda'"), 0);
	struct fs_metrics m;
	char err[600];
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), 0);
	CHECK_STR(m.disk, "sda");
	CHECK_NEAR(m.disk_read_bytes, 20000, EXACT);
}

/* As written before io_classes and mounts.disks: both are "not recorded",
 * never an error; the disk is told stacked by its name (loop*). */
static void test_old(void)
{
	char p[512];
	path_of(p, sizeof p, "old.db");
	CHECK(build(p, false));
	CHECK_INT(golden_sql(p, "DROP TABLE io_classes; ALTER TABLE mounts DROP COLUMN disks"), 0);
	check_metrics(p, false);
	check_summary(p);
	struct fs_q q;
	char err[600];
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	double n;
	CHECK(!fs_q_row(&q, "SELECT count(*) FROM io_classes", 1, &n));
	CHECK(isnan(n));
	sqlite3_stmt *st = fs_q_prep(&q, "SELECT disks FROM mounts LIMIT 0");
	CHECK(st == NULL);
	CHECK(!fs_q_step(&q, st));
	CHECK(fs_q_failed(&q) == NULL);
	CHECK_INT(q.errors, 0);
	fs_q_close(&q);
}

/* Anything else that fails is recorded: the first message, with the start
 * of its SQL, and a count. */
static void test_query_errors(void)
{
	char p[512], err[600];
	path_of(p, sizeof p, "full.db");
	struct fs_q q;
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	CHECK(fs_q_failed(&q) == NULL);
	double v;
	CHECK(fs_q_row(&q, "SELECT count(*) FROM steps", 1, &v));
	CHECK_NEAR(v, 13, EXACT);
	CHECK(fs_q_failed(&q) == NULL);
	CHECK(!fs_q_row(&q, "SELEC count(*) FROM steps WHERE t BETWEEN ?1 AND ?2 AND pid = ?3 AND this_is_long", 1, &v));
	CHECK(isnan(v));
	const char *f = fs_q_failed(&q);
	CHECK(f != NULL);
	CHECK(f && strstr(f, "syntax error") != NULL);
	CHECK(f && strstr(f, "(in: SELEC count(*) FROM steps WHERE t BETWEEN ?1 AND ?2 AND pid ...)") != NULL);
	/* a step error: a function that fails at run time */
	sqlite3_stmt *st = fs_q_prep(&q, "SELECT json_extract('not json', '$.a') FROM ticks");
	CHECK(st != NULL);
	CHECK(!fs_q_step(&q, st));
	sqlite3_finalize(st);
	CHECK_INT(q.errors, 2);
	CHECK(f && strstr(fs_q_failed(&q), "syntax error") != NULL); /* the first is kept */
	fs_q_close(&q);

	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0);
	char text[64];
	fs_q_text(&q, "SELECT json_extract('{', '$') FROM ticks", text, sizeof text);
	CHECK_STR(text, "");
	CHECK(fs_q_failed(&q) && strstr(fs_q_failed(&q), "malformed JSON") != NULL);
	fs_q_close(&q);
}

/* A writer holds the lock: a reader waits for it (FS_Q_BUSY_MS) instead of
 * reading "not recorded"; past its timeout, it is a failure. */
static void test_busy(void)
{
	char p[512], err[600];
	path_of(p, sizeof p, "full.db");
	int go[2], done[2];
	CHECK_INT(pipe(go), 0);
	CHECK_INT(pipe(done), 0);
	pid_t pid = fork();
	if (pid == 0) {
		sqlite3 *db;
		char c = 0;
		if (sqlite3_open_v2(p, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "BEGIN EXCLUSIVE", NULL, NULL, NULL) != SQLITE_OK)
			_exit(1);
		if (write(go[1], "x", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(1);
		usleep(200 * 1000); /* then the reader, already waiting, gets in */
		sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
		sqlite3_close(db);
		_exit(0);
	}
	char c;
	CHECK(pid > 0 && read(go[0], &c, 1) == 1);
	struct fs_q q;
	q.db = NULL;
	sqlite3 *raw;
	/* without a timeout, the lock is an error at once */
	CHECK_INT(sqlite3_open_v2(p, &raw, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	struct fs_q tmp = {.db = raw};
	double v;
	CHECK(!fs_q_row(&tmp, "SELECT count(*) FROM meta", 1, &v));
	CHECK(fs_q_failed(&tmp) && strstr(fs_q_failed(&tmp), "locked") != NULL);
	sqlite3_close(raw);
	CHECK(write(done[1], "x", 1) == 1);
	CHECK_INT(fs_q_open(&q, p, err, sizeof err), 0); /* waits for the COMMIT */
	if (q.db) {
		CHECK(fs_q_failed(&q) == NULL);
		fs_q_close(&q);
	} else {
		fprintf(stderr, "  %s\n", err);
	}
	int status = -1;
	CHECK(pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

/* A damaged page in the middle of proc: both readers fail with SQLite's
 * message; a file that is no database fails at open. */
static void test_corrupt(void)
{
	char p[512], err[600];
	path_of(p, sizeof p, "bad.db");
	CHECK(build(p, true));
	CHECK(golden_corrupt(p, "proc") > 1);
	struct fs_metrics m;
	err[0] = '\0';
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), -1);
	CHECK(strstr(err, "malformed") != NULL);
	struct fs_summary *s = calloc(1, sizeof *s);
	CHECK(s != NULL);
	if (s) {
		err[0] = '\0';
		CHECK_INT(fs_summary_load(p, s, err, sizeof err), -1);
		CHECK(strstr(err, "bad.db: reading the run file failed: database disk image is malformed (in: ") != NULL);
	}
	if (strstr(err, "malformed") == NULL)
		fprintf(stderr, "  err: %s\n", err);

	CHECK(build(p, false));
	FILE *f = fopen(p, "r+");
	CHECK(f != NULL);
	if (f) {
		fputs("this is not the SQLite header ", f);
		fclose(f);
	}
	CHECK_INT(fs_metrics_load(p, NULL, &m, err, sizeof err), -1);
	CHECK(strstr(err, "file is not a database") != NULL);
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
	test_full();
	test_old();
	test_query_errors();
	test_busy();
	test_corrupt();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_metrics_golden");
}
