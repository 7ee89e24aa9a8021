/* test_oversub - the oversubscription finding (judge/threads.c) and its
 * predicted effect (advise/threads.c) on figures made up here. */
#include <math.h>
#include <string.h>

#include "analysis/advise/threads.h"
#include "analysis/judge/threads.h"
#include "analysis/thresholds.h"
#include "check.h"

static struct fs_metrics m;

/* 2 workers on a 2-CPU machine, 10 s: each worker's main thread and one
 * pool thread at work all along, 2.5 s on a CPU and 7.5 s waiting each
 * (4 threads wanting 2 CPUs, and others' load) */
static void oversubscribed(void)
{
	memset(&m, 0, sizeof m);
	m.ncpu = 2;
	m.cg_quota_cores = NAN;
	m.cg_throttled_pct = NAN;
	struct fs_threads *th = &m.threads;
	th->have = true;
	th->workers = 2;
	th->worker_threads = 5;
	th->worker_active = 2.05;
	th->worker_pool_active = 1.05;
	th->worker_busy = 1;
	th->workers_cpu_s = 4 * 2.5;
	th->workers_wait_s = 4 * 7.5;
	th->trainer_cpu_s = 0.5;
	th->trainer_wait_s = 0.1;
	th->span_s = 10;
	th->cpus_allowed = 2;
	th->cpuset_cpus = 2;
	snprintf(th->pools, sizeof th->pools, "unnamed");
	snprintf(th->libs, sizeof th->libs, "gomp,torch");
}

static void test_found(void)
{
	struct fs_oversub o;
	oversubscribed();
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(o.known);
	CHECK(o.found);
	CHECK_NEAR(o.cores, 2, 0);
	CHECK_STR(o.cores_from, "the machine's CPUs");
	CHECK_NEAR(o.runnable, 4.06, 1e-9);
	CHECK_NEAR(o.ratio, 2.03, 1e-9);
	CHECK_NEAR(o.wait_share, 0.75, 1e-9);
	/* one thread per worker at work: 2 + the trainer's 0.06 */
	CHECK_NEAR(o.after_runnable, 2.06, 1e-9);
	CHECK_NEAR(o.after_wait_share, 1 - 2 / 2.06, 1e-9);
	CHECK(strstr(o.suggested, "torch.set_num_threads(1) in worker_init_fn") != NULL);
	CHECK(strstr(o.suggested, "OMP_NUM_THREADS=1") != NULL);
	CHECK(strstr(o.suggested, "cv2") == NULL); /* no cv2 module mapped */
	CHECK(o.nev >= 3);
	CHECK(isnan(o.predicted_speedup)); /* advise's */

	/* the quota is tighter than the machine: it is the cores */
	m.cg_quota_cores = 0.5;
	m.threads.cpuset_cpus = 1;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK_NEAR(o.cores, 0.5, 0);
	CHECK_STR(o.cores_from, "its cgroup's CPU quota");
	m.cg_quota_cores = NAN;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK_STR(o.cores_from, "its cpuset");

	/* an OpenCV job: cv2 named; MKL: its variable */
	oversubscribed();
	snprintf(m.threads.libs, sizeof m.threads.libs, "mkl,opencv");
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(strstr(o.suggested, "cv2.setNumThreads(0)") != NULL);
	CHECK(strstr(o.suggested, "MKL_NUM_THREADS") != NULL);
	CHECK(strstr(o.suggested, "torch.set_num_threads") == NULL);
}

static void test_not_found(void)
{
	struct fs_oversub o;
	/* no pools: one thread a worker at work (a CPU-bound decode, 2 workers on 2 cores) */
	oversubscribed();
	m.threads.worker_pool_active = 0.06;
	m.threads.workers_cpu_s = 2 * 4;
	m.threads.workers_wait_s = 2 * 6;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(o.known);
	CHECK(!o.found);
	/* pools, but cores to spare: 4 threads on 16 CPUs */
	oversubscribed();
	m.ncpu = 16;
	m.threads.cpus_allowed = m.threads.cpuset_cpus = 16;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(!o.found);
	/* pools and the ratio, but hardly a wait (the pools take turns) */
	oversubscribed();
	m.threads.workers_cpu_s = 36;
	m.threads.workers_wait_s = 4;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(!o.found);
	/* not recorded: an older run file */
	oversubscribed();
	m.threads.have = false;
	fs_judge_threads(&m, &fs_thresholds, &o);
	CHECK(!o.known);
	CHECK(!o.found);
}

static void test_advise(void)
{
	struct fs_verdict v;
	oversubscribed();
	memset(&v, 0, sizeof v);
	fs_judge_threads(&m, &fs_thresholds, &v.oversub);
	v.primary = FS_VERDICT_CPU_PREPROCESS;
	v.predicted_speedup = 3.2;
	v.nrec = 1;
	snprintf(v.rec[0].knob, sizeof v.rec[0].knob, "num_workers");
	fs_advise_oversub(&m, &v);
	CHECK_NEAR(v.oversub.predicted_speedup, 3.2, 0);
	CHECK_INT(v.nrec, 2);
	CHECK_STR(v.rec[0].knob, "worker_threads");
	CHECK_STR(v.rec[0].suggested, "1");
	CHECK_STR(v.rec[1].knob, "num_workers");
	CHECK(strstr(v.oversub.why, "up to 3.20x") != NULL);

	/* with steps: the wait removed, not the verdict's CPU cap (the CPU a
	 * step takes now is what the pools' spinning inflates) */
	memset(&v, 0, sizeof v);
	m.have_steps = true;
	m.steps = 10;
	m.loop_s = 4;
	m.compute_s = 0.5;
	fs_judge_threads(&m, &fs_thresholds, &v.oversub);
	v.primary = FS_VERDICT_CPU_PREPROCESS;
	v.predicted_speedup = 3.2; /* capped by the CPU */
	fs_advise_oversub(&m, &v);
	CHECK_NEAR(v.oversub.predicted_speedup, 8, 1e-9); /* 0.4 s a step over 0.05 of compute */
	CHECK_NEAR(v.rec[0].speedup, 8, 1e-9);
	m.have_steps = false;

	memset(&v, 0, sizeof v);
	fs_judge_threads(&m, &fs_thresholds, &v.oversub);
	v.primary = FS_VERDICT_STORAGE_BANDWIDTH;
	v.predicted_speedup = 4;
	fs_advise_oversub(&m, &v);
	CHECK(isnan(v.oversub.predicted_speedup));
	CHECK_INT(v.nrec, 0);
	CHECK(strstr(v.oversub.why, "storage_bandwidth") != NULL);

	memset(&v, 0, sizeof v);
	fs_judge_threads(&m, &fs_thresholds, &v.oversub);
	v.primary = FS_VERDICT_COMPUTE_BOUND;
	fs_advise_oversub(&m, &v);
	CHECK_NEAR(v.oversub.predicted_speedup, 1, 0);

	/* full recommendations: the last one gives way */
	memset(&v, 0, sizeof v);
	fs_judge_threads(&m, &fs_thresholds, &v.oversub);
	v.primary = FS_VERDICT_CPU_PREPROCESS;
	v.predicted_speedup = 2;
	v.nrec = FS_MAX_RECS;
	for (int i = 0; i < FS_MAX_RECS; i++)
		snprintf(v.rec[i].knob, sizeof v.rec[i].knob, "k%d", i);
	fs_advise_oversub(&m, &v);
	CHECK_INT(v.nrec, FS_MAX_RECS);
	CHECK_STR(v.rec[0].knob, "worker_threads");
	CHECK_STR(v.rec[FS_MAX_RECS - 1].knob, "k4");
}

int main(void)
{
	test_found();
	test_not_found();
	test_advise();
	return check_exit("test_oversub");
}
