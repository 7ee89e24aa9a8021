/* The training processes of a run file (src/analysis/load/loops.c), on small
 * golden run files: which processes are ranks (the ranks table, its latest
 * row per process, the topmost of each rank), which one the verdict speaks
 * for (the least time waiting on the other ranks; the longest wait; the busiest
 * loaders), a wrapper looked through, epoch boundaries from worker
 * restarts without steps, the GPU of a rank, and the device under the
 * files the loaders read. Expected values are worked out beside each
 * check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/advise/diagnose.h"
#include "analysis/load/load.h"
#include "analysis/load/metrics.h"
#include "analysis/load/tree.h"
#include "analysis/judge/verdict.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9

static char dir[] = "/tmp/fs-loops-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

static struct fs_store *begin(const char *path, const char *pid, int ticks)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return NULL;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", pid);
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "ncpu", "4");
	fs_sink_meta(s, "end_unix", "1700000010");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= ticks; t++)
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
	return st;
}

static const struct fs_loop_proc *loop_of(const struct fs_metrics *m, int pid)
{
	for (int i = 0; i < m->nloops; i++)
		if (m->loops[i].pid == pid)
			return &m->loops[i];
	return NULL;
}

/* torchrun (pid 50) with two ranks, 100 (rank 0) and 200 (rank 1), each
 * with a DataLoader worker (101, 201) that inherits its rank. Rank 0 has
 * an older row without a rank (seen before its exec). */
static void ranks_and_procs(struct fs_sink *s, int ticks, bool busy0)
{
	golden_row(s, FS_T_RANKS, 0, "pid=100 ppid=50 t=0.1");
	golden_row(s, FS_T_RANKS, 0, "pid=100 ppid=50 rank=0 local_rank=0 world_size=2 var=RANK t=1");
	golden_row(s, FS_T_RANKS, 0, "pid=200 ppid=50 rank=1 local_rank=1 world_size=2 var=RANK t=1");
	golden_row(s, FS_T_RANKS, 0, "pid=101 ppid=100 rank=0 local_rank=0 world_size=2 var=RANK t=1.5");
	golden_row(s, FS_T_RANKS, 0, "pid=201 ppid=200 rank=1 local_rank=1 world_size=2 var=RANK t=1.5");
	for (int t = 1; t <= ticks; t++) {
		golden_row(s, FS_T_PROC, t, "pid=50 ppid=1 role=main running=0 blocked_io=0 sleeping=1");
		golden_row(s, FS_T_PROC, t, "pid=100 ppid=50 role=worker running=0 blocked_io=0 sleeping=3");
		golden_row(s, FS_T_PROC, t, "pid=200 ppid=50 role=worker running=0 blocked_io=0 sleeping=3");
		/* rank 0's worker blocked in I/O (busy) or asleep; rank 1's the other way */
		golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker running=0 blocked_io=%d sleeping=1", busy0);
		golden_row(s, FS_T_PROC, t, "pid=201 ppid=200 role=worker running=0 blocked_io=%d sleeping=1", !busy0);
		golden_row(s, FS_T_GPU, t, "gpu=0 name=G util_pct=30");
		golden_row(s, FS_T_GPU, t, "gpu=1 name=G util_pct=40");
	}
}

/* With steps: rank 0 waits 0.5 s a step but spends 0.45 s of its compute
 * in the collective; rank 1 waits 0.4 s and never in a collective: rank 1
 * is the one the other waits for, though rank 0 waited longer. */
static void test_collectives(void)
{
	char path[256];
	path_of(path, sizeof path, "coll.db");
	struct fs_store *st = begin(path, "50", 5);
	struct fs_sink *s = fs_store_sink(st);
	ranks_and_procs(s, 5, false);
	for (int i = 0; i < 4; i++) {
		golden_row(s, FS_T_STEPS, 1.5 + i, "pid=100 loader=train epoch=0 step=%d wait_s=0.5 compute_s=0.5", i);
		golden_row(s, FS_T_STEPS, 1.5 + i, "pid=200 loader=train epoch=0 step=%d wait_s=0.4 compute_s=0.6", i);
		golden_row(s, FS_T_PHASES, 0, "t_start=%g t_end=%g pid=100 name=collective", 1.55 + i, 2.0 + i);
	}
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK_INT(m.nloops, 2);
	CHECK_INT(m.loops[0].pid, 100); /* the longest wait first */
	const struct fs_loop_proc *r0 = loop_of(&m, 100), *r1 = loop_of(&m, 200);
	CHECK(r0 && r1);
	if (!r0 || !r1)
		return;
	CHECK_INT(r0->rank, 0); /* its latest row, not the one before its exec */
	CHECK_INT(r1->rank, 1);
	CHECK_INT(r0->collectives, 4);
	CHECK_NEAR(r0->collective_s, 4 * 0.45, EXACT);
	CHECK_NEAR(r1->collective_s, 0, EXACT);
	CHECK_NEAR(r0->loop_s, 4, EXACT);
	CHECK_INT(m.trainer_pid, 200);
	CHECK(strstr(m.trainer_why, "waiting on the other ranks") != NULL);
	CHECK_NEAR(m.wait_s, 1.6, EXACT); /* the job-level figures are the trainer's */
	/* two GPUs: each rank's is the one of its local rank, over its loop */
	CHECK_STR(r1->gpu_basis, "local_rank");
	CHECK_NEAR(r0->gpu_busy, 0.30, EXACT);
	CHECK_NEAR(r1->gpu_busy, 0.40, EXACT);
	/* the accounting: rank 0's collective share is its wait on rank 1 */
	struct fs_accounting a;
	CHECK(fs_account(&m, r0, &a));
	CHECK_NEAR(a.share[FS_BUCKET_RANKS], 0.45, EXACT);
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 0.5, EXACT);
	CHECK_NEAR(a.share[FS_BUCKET_BUSY], 0.05, EXACT); /* 0.05 of compute left, GPU busier than that */
	/* the loaders of the trainer: rank 1's worker */
	CHECK_INT(m.loaders.procs, 1);
}

/* DDP: no collective phases (its all_reduce is not seen), the two ranks'
 * steps end together (rank 1's 2 ms later). Rank 0 waits 0.7 s for its
 * data and computes 0.1 s; rank 1 has its data in 0.05 s and spends 0.75 s
 * in the step, 0.65 s of it waiting for rank 0. Shifted by 0.3 s (out of
 * step), nothing is inferred. */
static void test_in_step(double shift)
{
	char path[256];
	path_of(path, sizeof path, shift > 0 ? "apart.db" : "instep.db");
	struct fs_store *st = begin(path, "50", 8);
	struct fs_sink *s = fs_store_sink(st);
	ranks_and_procs(s, 8, false);
	for (int i = 0; i < 6; i++) {
		/* t is the end of the wait; the step ends compute_s later */
		golden_row(s, FS_T_STEPS, 1.8 - 0.1 + 0.8 * i,
			   "pid=100 loader=train epoch=0 step=%d wait_s=0.7 compute_s=0.1", i);
		golden_row(s, FS_T_STEPS, 1.802 - 0.75 + shift + 0.8 * i,
			   "pid=200 loader=train epoch=0 step=%d wait_s=0.05 compute_s=0.75", i);
	}
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	const struct fs_loop_proc *r0 = loop_of(&m, 100), *r1 = loop_of(&m, 200);
	CHECK(r0 && r1);
	if (!r0 || !r1)
		return;
	CHECK_INT(m.trainer_pid, 100);
	CHECK_INT(r0->collectives, 0);
	if (shift > 0) {
		CHECK(!m.steps_in_step);
		CHECK(isnan(r0->sync_wait_s) && isnan(r1->sync_wait_s));
		CHECK_NEAR(m.step_end_skew_median_s, 0.302, 1e-9);
		CHECK(strstr(m.trainer_why, "waited longest for input") != NULL);
		return;
	}
	CHECK(m.steps_in_step);
	CHECK_INT(m.synced_steps, 6);
	CHECK_NEAR(m.step_end_skew_median_s, 0.002, 1e-9);
	CHECK_NEAR(m.step_end_skew_p95_s, 0.002, 1e-9);
	CHECK_NEAR(r0->sync_wait_s, 0, EXACT);
	CHECK_NEAR(r1->sync_wait_s, 6 * 0.65, 1e-9);
	CHECK_NEAR(fs_loop_ranks_wait_s(r1), 6 * 0.65, 1e-9);
	CHECK(strstr(m.trainer_why, "waiting on the other ranks") != NULL);
	struct fs_accounting a;
	CHECK(fs_account(&m, r1, &a));
	CHECK_NEAR(a.share[FS_BUCKET_RANKS], 0.65 / 0.8, 1e-9);
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 0.05 / 0.8, 1e-9);
	CHECK(fs_account(&m, r0, &a));
	CHECK_NEAR(a.share[FS_BUCKET_RANKS], 0, EXACT);
}

/* Without steps: the ranks are the topmost processes of each rank (not
 * the workers that inherit it, not the launcher), and the one whose
 * loaders are busiest is the one the other waits for. */
/* No rank variables (torch.multiprocessing.spawn sets none): the rank the
 * hook read from torch.distributed (meta hook.rank.PID); a rank variable
 * wins over it where both exist. */
static void test_hook_ranks(void)
{
	char path[256];
	path_of(path, sizeof path, "hookrank.db");
	struct fs_store *st = begin(path, "50", 5);
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "hook.rank.100", "1");
	fs_sink_meta(s, "hook.rank.200", "0");
	fs_sink_meta(s, "hook.rank.300", "5");
	golden_row(s, FS_T_RANKS, 0, "pid=300 ppid=50 rank=2 local_rank=0 world_size=3 var=RANK t=1");
	for (int i = 0; i < 3; i++)
		for (int pid = 100; pid <= 300; pid += 100)
			golden_row(s, FS_T_STEPS, 1.5 + i, "pid=%d loader=train epoch=0 step=%d wait_s=0.%d compute_s=0.5",
				   pid, i, pid / 100);
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	const struct fs_loop_proc *a = loop_of(&m, 100), *b = loop_of(&m, 200), *c = loop_of(&m, 300);
	CHECK(a && b && c);
	if (a && b && c) {
		CHECK_INT(a->rank, 1);
		CHECK_INT(b->rank, 0);
		CHECK_INT(c->rank, 2);
		CHECK_INT(a->local_rank, -1);
	}
}

/* The peers rows of two ranks: rank 0's worker (101) fetched its samples
 * from a server outside the job, the ranks' main threads talk to each
 * other (both ends traced: collective). Each rank's data network and
 * traffic with the job are its own sockets' and its workers'. */
static void test_network(void)
{
	char path[256];
	path_of(path, sizeof path, "net.db");
	struct fs_store *st = begin(path, "50", 5);
	struct fs_sink *s = fs_store_sink(st);
	ranks_and_procs(s, 5, false);
	for (int i = 0; i < 4; i++) {
		golden_row(s, FS_T_STEPS, 1.5 + i, "pid=100 loader=train epoch=0 step=%d wait_s=0.5 compute_s=0.5", i);
		golden_row(s, FS_T_STEPS, 1.5 + i, "pid=200 loader=train epoch=0 step=%d wait_s=0.4 compute_s=0.6", i);
	}
	golden_row(s, FS_T_PEERS, 0, "pid=101 thread=main kind=peer family=inet local_addr=10.1.0.2 local_port=40000"
		   " peer_addr=10.9.0.9 peer_port=8080 read_bytes=5000 write_bytes=100 read_s=2 write_s=0.01 calls=10");
	golden_row(s, FS_T_PEERS, 0, "pid=100 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=5000"
		   " peer_addr=127.0.0.1 peer_port=6000 read_bytes=3000 write_bytes=3000 read_s=1 write_s=0.5 calls=8");
	golden_row(s, FS_T_PEERS, 0, "pid=200 thread=other kind=peer family=inet local_addr=127.0.0.1 local_port=6000"
		   " peer_addr=127.0.0.1 peer_port=5000 read_bytes=3000 write_bytes=3000 read_s=0.2 write_s=0.1 calls=8");
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	const struct fs_loop_proc *r0 = loop_of(&m, 100), *r1 = loop_of(&m, 200);
	CHECK(m.have_peers && r0 && r1);
	if (!r0 || !r1)
		return;
	CHECK_NEAR(r0->net.data_bytes, 5100, EXACT); /* its worker's */
	CHECK_NEAR(r0->net.data_s, 2.01, 1e-12);
	CHECK_NEAR(r0->net.coll_bytes, 6000, EXACT);
	CHECK_NEAR(r0->net.coll_s, 1.5, 1e-12);
	CHECK_STR(r0->net.top_peer, "10.9.0.9:8080");
	CHECK_NEAR(r1->net.data_bytes, 0, EXACT);
	CHECK_NEAR(r1->net.coll_bytes, 6000, EXACT);
	CHECK_STR(r1->net.top_peer, "");
	CHECK_INT(fs_metrics_loop_of(&m, 101), (int)(r0 - m.loops));
	CHECK_INT(fs_metrics_loop_of(&m, 201), (int)(r1 - m.loops));
	CHECK_INT(fs_metrics_loop_of(&m, 50), -1);
	/* the loaders are the trainer's children: the main threads' talk is not theirs */
	CHECK_NEAR(m.loader_coll_read_s, 0, EXACT);
}

/* A loop without workers that receives its collectives on its main
 * thread: those socket reads are not the data network. */
static void test_collectives_not_network(void)
{
	char path[256];
	path_of(path, sizeof path, "coll-net.db");
	struct fs_store *st = begin(path, "300", 10);
	struct fs_sink *s = fs_store_sink(st);
	for (int t = 1; t <= 10; t++) {
		golden_row(s, FS_T_PROC, t, "pid=300 ppid=1 role=main running=0 blocked_io=0 sleeping=2");
		golden_row(s, FS_T_PROC, t, "pid=301 ppid=1 role=main running=0 blocked_io=0 sleeping=2");
		golden_row(s, FS_T_IO_CLASSES, t, "pid=300 class=socket thread=main read_s=0.4 read_bytes=400000");
		golden_row(s, FS_T_IO_CLASSES, t, "pid=300 class=file thread=main read_s=0.1 read_bytes=2000000");
		golden_row(s, FS_T_STEPS, t - 0.5, "pid=300 loader=train epoch=0 step=%d wait_s=0.4 compute_s=0.5", t);
	}
	golden_row(s, FS_T_PEERS, 0, "pid=300 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=5000"
		   " peer_addr=127.0.0.1 peer_port=6000 read_bytes=3000000 write_bytes=0 read_s=3 write_s=0 calls=30");
	golden_row(s, FS_T_PEERS, 0, "pid=301 thread=main kind=peer family=inet local_addr=127.0.0.1 local_port=6000"
		   " peer_addr=127.0.0.1 peer_port=5000 read_bytes=0 write_bytes=3000000 read_s=0 write_s=3 calls=30");
	golden_row(s, FS_T_PEERS, 0, "pid=300 thread=main kind=peer family=inet local_addr=10.1.0.2 local_port=40000"
		   " peer_addr=10.9.0.9 peer_port=8080 read_bytes=1000000 write_bytes=0 read_s=1 write_s=0 calls=10");
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK(m.loaders_are_main && m.have_peers);
	CHECK_NEAR(m.loader_coll_read_s, 3, EXACT);
	CHECK_NEAR(m.loader_coll_read_bytes, 3e6, EXACT);
	struct fs_loader_shares sh;
	CHECK(fs_loader_shares(&m, &sh));
	CHECK_NEAR(m.loader_sock_read_s, 4, 1e-9);
	CHECK_NEAR(sh.network, (4 - 3) / m.loader_time_s, 1e-9); /* the 1 s from 10.9.0.9, not 4 s */
}

static void test_ranks_without_steps(void)
{
	char path[256];
	path_of(path, sizeof path, "ranks.db");
	struct fs_store *st = begin(path, "50", 5);
	ranks_and_procs(fs_store_sink(st), 5, true);
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK(!m.have_steps);
	CHECK_INT(m.nloops, 2);
	CHECK(loop_of(&m, 100) && loop_of(&m, 200));
	CHECK(!loop_of(&m, 101) && !loop_of(&m, 50));
	CHECK_INT(m.trainer_pid, 100); /* its worker is in D, rank 1's asleep */
	CHECK(strstr(m.trainer_why, "busiest loaders") != NULL);
	const struct fs_loop_proc *r0 = loop_of(&m, 100);
	if (r0) {
		CHECK_NEAR(r0->loader_active, 1, EXACT);
		CHECK_NEAR(r0->gpu_busy, 0.30, EXACT);
		CHECK_NEAR(r0->loop_s, 5, EXACT); /* the GPU's span: t 1..5, each tick 1 s */
	}
}

/* A shell script that runs the trainer: sh (10) -> python (11) -> two
 * workers. No ranks, no steps: the trainer is python. */
static void test_wrapper(void)
{
	char path[256];
	path_of(path, sizeof path, "wrap.db");
	struct fs_store *st = begin(path, "10", 3);
	struct fs_sink *s = fs_store_sink(st);
	for (int t = 1; t <= 3; t++) {
		golden_row(s, FS_T_PROC, t, "pid=10 ppid=1 role=main sleeping=1");
		golden_row(s, FS_T_PROC, t, "pid=11 ppid=10 role=worker sleeping=2");
		golden_row(s, FS_T_PROC, t, "pid=12 ppid=11 role=worker blocked_io=1");
		golden_row(s, FS_T_PROC, t, "pid=13 ppid=11 role=worker sleeping=1");
	}
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK_INT(m.nloops, 1);
	CHECK_INT(m.trainer_pid, 11);
	CHECK(strstr(m.trainer_why, "wrapper") != NULL);
	CHECK_INT(m.loaders.procs, 2); /* python's workers, not python */
	CHECK_NEAR(m.loaders.blocked, 0.5, EXACT);
}

/* Without steps, epoch boundaries from worker restarts: workers 21, 22 at
 * t 1..3, then 23, 24 from t 4 (the old ones gone within the tick); the
 * GPU busy at 1..3 and 8..10, idle at 4..7. The restart at 4 costs the
 * idle samples between the busy ones at 3 and 8: 4 s. The first
 * generation, seen with the GPU already busy in its tick, none. */
static void test_worker_restarts(void)
{
	char path[256];
	path_of(path, sizeof path, "epochs.db");
	struct fs_store *st = begin(path, "20", 11);
	struct fs_sink *s = fs_store_sink(st);
	for (int t = 1; t <= 11; t++) {
		golden_row(s, FS_T_PROC, t, "pid=20 ppid=1 role=main sleeping=1");
		golden_row(s, FS_T_PROC, t, "pid=%d ppid=20 role=worker sleeping=1", t <= 3 ? 21 : 23);
		golden_row(s, FS_T_PROC, t, "pid=%d ppid=20 role=worker sleeping=1", t <= 3 ? 22 : 24);
		golden_row(s, FS_T_GPU, t, "gpu=0 name=G util_pct=%d", (t <= 3 || (t >= 8 && t <= 10)) ? 50 : 0);
	}
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK_INT(m.nloops, 1);
	const struct fs_loop_proc *L = &m.loops[0];
	CHECK_INT(L->epoch_starts, 1);
	CHECK_NEAR(L->epoch_excess_s, 4, EXACT);
	CHECK_NEAR(L->loop_s, 10, EXACT);          /* the GPU's span, t 1..10 */
	CHECK_NEAR(L->gpu_busy, 6 * 50 / 10.0 / 100, EXACT);
	struct fs_accounting a;
	CHECK(fs_account(&m, L, &a));
	CHECK_NEAR(a.share[FS_BUCKET_EPOCH], 0.4, EXACT);
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 1 - 0.3 - 0.4, EXACT);
	struct fs_verdict v;
	fs_diagnose(&m, &fs_thresholds, &v);
	CHECK_STR(fs_verdict_name(v.primary), "epoch_start");
}

/* The device that holds the data: the loop device under /data, where the
 * loaders' files are, although the disk under it (and the root file
 * system) read more; with hashed paths, the rule of bytes read. */
static void data_disk(bool hashed)
{
	char path[256];
	path_of(path, sizeof path, hashed ? "disk-hashed.db" : "disk.db");
	struct fs_store *st = begin(path, "30", 3);
	struct fs_sink *s = fs_store_sink(st);
	golden_row(s, FS_T_MOUNTS, 0, "mount=/ device=vda disks=vda");
	golden_row(s, FS_T_MOUNTS, 0, "mount=/data device=loop0 disks=vda");
	golden_row(s, FS_T_MOUNTS, 0, "mount=/data/cache hidden=1"); /* covered: no path reaches it */
	for (int t = 1; t <= 3; t++) {
		golden_row(s, FS_T_PROC, t, "pid=30 ppid=1 role=main sleeping=1");
		golden_row(s, FS_T_PROC, t, "pid=31 ppid=30 role=worker blocked_io=1");
		golden_row(s, FS_T_DISK, t, "dt_s=1 device=vda reads_per_s=10 read_bytes_per_s=1000 util_pct=10");
		golden_row(s, FS_T_DISK, t, "dt_s=1 device=loop0 reads_per_s=1 read_bytes_per_s=300 util_pct=90");
	}
	golden_row(s, FS_T_FILES, 0, "pid=31 path=%s reads=3 read_bytes=900", hashed ? "a1b2c3d4" : "/data/cache/x");
	golden_row(s, FS_T_FILES, 0, "pid=31 path=%s reads=1 read_bytes=100", hashed ? "b1b2c3d4" : "/etc/hosts");
	CHECK(fs_store_close(st) == 0);
	struct fs_metrics m;
	char err[256];
	CHECK_INT(fs_metrics_load(path, NULL, &m, err, sizeof err), 0);
	CHECK_STR(m.disk, hashed ? "vda" : "loop0");
	CHECK_STR(m.disk_basis, hashed ? "" : "the files the loaders read");
	CHECK_NEAR(m.disk_util_pct, hashed ? 10 : 90, EXACT);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_collectives();
	test_in_step(0);
	test_in_step(0.3);
	test_hook_ranks();
	test_network();
	test_collectives_not_network();
	test_ranks_without_steps();
	test_wrapper();
	test_worker_restarts();
	data_disk(false);
	data_disk(true);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_loops_golden");
}
