/* The accelerator's own clock (src/analysis/load/devclock.c, the
 * accounting and the speedup on it): golden run files whose GPU and steps
 * say how the device and the host spent each second.
 *
 * - async: the host ran ahead and waits in next() 0.9 s of each second
 *   while the device works 0.6 s of it: the device's idle inside the wait
 *   is 0.4 s a second, not 0.9 (the host's clock said 90% input-bound).
 * - sync: the loop syncs every step: the device idles exactly while the
 *   host waits: the device's clock and the host's agree.
 * - no GPU: the host's waits stand for the device's idle, as before. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/advise/speedup.h"
#include "analysis/load/load.h"
#include "analysis/thresholds.h"
#include "check.h"
#include "golden.h"

#define EXACT 1e-9
#define STEPS 20

static char dir[] = "/tmp/fs-devclock-XXXXXX";

/* A run of pid 10: ticks of 1 s from t = 0 to STEPS + 1, a step a
 * second (its wait from k to k + wait_s, then its compute), and the GPU's
 * util at each tick (util < 0: no GPU). */
static int write_run(const char *path, double wait_s, int util, double device_idle_s)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return -1;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "10");
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "ncpu", "4");
	fs_sink_meta(s, "end_unix", "1700000030");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= STEPS + 1; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_PROC, t, "pid=10 ppid=1 role=main running=1 sleeping=0");
		if (util >= 0)
			golden_row(s, FS_T_GPU, t, "gpu=0 name=G util_pct=%d", util);
	}
	for (int k = 1; k <= STEPS; k++)
		if (device_idle_s >= 0)
			golden_row(s, FS_T_STEPS, k + wait_s,
				   "pid=10 loader=L epoch=0 step=%d wait_s=%.17g compute_s=%.17g device_idle_s=%.17g", k - 1,
				   wait_s, 1 - wait_s, device_idle_s);
		else
			golden_row(s, FS_T_STEPS, k + wait_s, "pid=10 loader=L epoch=0 step=%d wait_s=%.17g compute_s=%.17g",
				   k - 1, wait_s, 1 - wait_s);
	return fs_store_close(st);
}

/* The run judged; its predicted speedup taken as for an input cause (the
 * run has no loaders' signals to name one: the verdict is undetermined). */
static void load(const char *name, double wait_s, int util, double device_idle_s, struct fs_metrics *m,
		 struct fs_verdict *v)
{
	char path[256], err[256];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	CHECK_INT(write_run(path, wait_s, util, device_idle_s), 0);
	CHECK_INT(fs_metrics_load(path, NULL, m, err, sizeof err), 0);
	CHECK_INT(m->nloops, 1);
	fs_diagnose(m, &fs_thresholds, v);
	v->primary = FS_VERDICT_LOADER_PARALLELISM;
	v->speedup_cap[0] = '\0';
	fs_speedup(m, v);
}

static void test_async(void)
{
	struct fs_metrics m;
	struct fs_verdict v;
	load("async.db", 0.9, 60, -1, &m, &v);
	const struct fs_loop_proc *L = &m.loops[0];
	CHECK_STR(L->dev_clock, "gpu");
	CHECK_NEAR(L->loop_s, STEPS, 1e-6);
	CHECK_NEAR(L->wait_s, 0.9 * STEPS, 1e-6);
	/* each second: 0.4 s idle, 0.9 s of wait: at most 0.4 inside it, at
	 * least 0.4 + 0.9 - 1 */
	CHECK_NEAR(L->dev_idle_wait_s, 0.4 * STEPS, 1e-6);
	CHECK_NEAR(L->dev_idle_wait_lower_s, 0.3 * STEPS, 1e-6);
	const struct fs_accounting *A = fs_verdict_trainer(&v);
	CHECK(A && A->valid);
	if (!A)
		return;
	CHECK_NEAR(A->share[FS_BUCKET_INPUT], 0.4, 1e-6);
	CHECK_NEAR(A->share[FS_BUCKET_BUSY], 0.6, 1e-6);
	CHECK_NEAR(A->share[FS_BUCKET_OTHER], 0, 1e-6);
	CHECK_STR(A->basis, "steps + gpu (device clock)");
	CHECK_NEAR(v.input_bound_fraction, 0.4, 1e-6);
	/* a step of 1 s against 0.6 s of device work: 1.67x, not 1 / 0.1 */
	CHECK_NEAR(v.predicted_speedup, 1 / 0.6, 1e-6);
	CHECK(strstr(v.speedup_cap, "the accelerator's own time") != NULL);
}

static void test_sync(void)
{
	struct fs_metrics m;
	struct fs_verdict v;
	load("sync.db", 0.4, 60, -1, &m, &v);
	const struct fs_loop_proc *L = &m.loops[0];
	CHECK_STR(L->dev_clock, "gpu");
	CHECK_NEAR(L->dev_idle_wait_s, 0.4 * STEPS, 1e-6);
	CHECK_NEAR(L->dev_idle_wait_lower_s, 0, 1e-6); /* the bins alone allow 0..0.4 */
	const struct fs_accounting *A = fs_verdict_trainer(&v);
	CHECK(A != NULL);
	if (!A)
		return;
	CHECK_NEAR(A->share[FS_BUCKET_INPUT], 0.4, 1e-6);
	CHECK_NEAR(A->share[FS_BUCKET_BUSY], 0.6, 1e-6);
	CHECK_NEAR(v.predicted_speedup, 1 / 0.6, 1e-6);
}

static void test_no_gpu(void)
{
	struct fs_metrics m;
	struct fs_verdict v;
	load("nogpu.db", 0.9, -1, -1, &m, &v);
	const struct fs_loop_proc *L = &m.loops[0];
	CHECK_STR(L->dev_clock, "");
	CHECK(isnan(L->dev_idle_wait_s));
	const struct fs_accounting *A = fs_verdict_trainer(&v);
	CHECK(A != NULL);
	if (!A)
		return;
	CHECK_NEAR(A->share[FS_BUCKET_INPUT], 0.9, 1e-6); /* the host's clock: all it has */
	CHECK_STR(A->basis, "steps");
	CHECK_NEAR(v.predicted_speedup, 1 / 0.1, 1e-6);
}

/* The hook's device events (steps.device_idle_s) and no GPU signal: the
 * events say the device idled 0.4 s of each 0.9 s wait; it worked the
 * rest of the wait (and, at most, through the compute): 1.67x, not 10x. */
static void test_events_no_gpu(void)
{
	struct fs_metrics m;
	struct fs_verdict v;
	load("events.db", 0.9, -1, 0.4, &m, &v);
	const struct fs_loop_proc *L = &m.loops[0];
	CHECK_STR(L->dev_clock, "events");
	CHECK_NEAR(L->dev_idle_wait_s, 0.4 * STEPS, 1e-6);
	const struct fs_accounting *A = fs_verdict_trainer(&v);
	CHECK(A != NULL);
	if (!A)
		return;
	CHECK_STR(A->basis, "steps + events (device clock)");
	CHECK_NEAR(A->share[FS_BUCKET_INPUT], 0.4, 1e-6);
	CHECK_NEAR(A->share[FS_BUCKET_BUSY], 0.6, 1e-6);
	CHECK_NEAR(v.predicted_speedup, 1 / 0.6, 1e-6);
}

/* Metrics built by hand (no device clock filled in: zeroed) are judged on
 * the host's clock, as before. */
static void test_zeroed(void)
{
	struct fs_metrics m = {0};
	m.have_steps = true;
	m.nloops = 1;
	m.trainer = 0;
	struct fs_loop_proc *L = &m.loops[0];
	L->have_steps = true;
	L->steps = 10;
	L->wait_s = 9;
	L->compute_s = 1;
	L->loop_s = 10;
	L->gpu_busy = NAN;
	struct fs_accounting a;
	CHECK(fs_account(&m, L, &a));
	CHECK_NEAR(a.share[FS_BUCKET_INPUT], 0.9, EXACT);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_async();
	test_sync();
	test_no_gpu();
	test_events_no_gpu();
	test_zeroed();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	if (getenv("KEEP") ? 0 : system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_devclock");
}
