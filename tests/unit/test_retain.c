/* test_retain.c - which raw rows a long run keeps (store/retain.h): the
 * spans that steps, phases, GPU samples and new processes add, and the stretches of a
 * minute no span keeps. */
#include <math.h>
#include <string.h>

#include "check.h"
#include "store/retain.h"
#include "store/schema.h"

static void step(struct fs_retain *r, double t, double wait, double compute)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_STEPS, t);
	fs_row_int(&row, FS_STEPS_pid, 100);
	fs_row_text(&row, FS_STEPS_loader, "train");
	fs_row_real(&row, FS_STEPS_wait_s, wait);
	fs_row_real(&row, FS_STEPS_compute_s, compute);
	fs_retain_row(r, &row);
}

static void gpu(struct fs_retain *r, double t, int g, double util)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_GPU, t);
	fs_row_int(&row, FS_GPU_gpu, g);
	fs_row_real(&row, FS_GPU_util_pct, util);
	fs_retain_row(r, &row);
}

static void phase(struct fs_retain *r, double a, double b, const char *name)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_PHASES, a);
	fs_row_real(&row, FS_PHASES_t_start, a); /* not a sampled table: no t of its own */
	fs_row_real(&row, FS_PHASES_t_end, b);
	fs_row_int(&row, FS_PHASES_pid, 100);
	fs_row_text(&row, FS_PHASES_name, name);
	fs_retain_row(r, &row);
}

static void proc(struct fs_retain *r, double t, int pid, int ppid)
{
	struct fs_row row;
	fs_row_init(&row, FS_T_PROC, t);
	fs_row_int(&row, FS_PROC_pid, pid);
	fs_row_int(&row, FS_PROC_ppid, ppid);
	fs_retain_row(r, &row);
}

/* Whether t is inside a gap of (a, b] (a row there would be deleted). */
static bool deleted(const struct fs_retain *r, bool is_gpu, double a, double b, double t)
{
	double g[66][2];
	int n = fs_retain_gaps(r, is_gpu, a, b, g, 66);
	for (int i = 0; i < n; i++)
		if (t > g[i][0] && t <= g[i][1])
			return true;
	return false;
}

static void test_steps(void)
{
	struct fs_retain r;
	fs_retain_init(&r);
	/* 1000 steps of 40 ms, then a 3 s wait at t = 5000: a stall */
	for (int i = 0; i < 1000; i++)
		step(&r, 4000 + i * 0.04, 0.01, 0.03);
	CHECK_INT(r.n, 0);
	step(&r, 5000, 3.0, 0.03);
	CHECK_INT(r.n, 1);
	CHECK_INT((int)r.stalls, 1);
	CHECK_NEAR(r.span[0].a, 5000 - 3 - FS_RETAIN_AROUND_S, 1e-9);
	CHECK_NEAR(r.span[0].b, 5000 + FS_RETAIN_AROUND_S, 1e-9);
	CHECK(r.span[0].kind == FS_RETAIN_ALL);
	/* a second one 100 s later: not within the same half hour */
	step(&r, 5100, 4.0, 0.03);
	CHECK_INT((int)r.stalls, 1);
	/* a wait of 0.9 s (under FS_RETAIN_STALL_S), later: none */
	step(&r, 8000, 0.9, 0.03);
	CHECK_INT((int)r.stalls, 1);
	/* half an hour on, a long wait is a stall again */
	step(&r, 5000 + FS_RETAIN_STALL_EVERY_S + 10, 2.0, 0.03);
	CHECK_INT((int)r.stalls, 2);
	/* the minute (4980, 5040]: the stall's rows kept, the rest not */
	CHECK(!deleted(&r, false, 4980, 5040, 5000));
	CHECK(!deleted(&r, false, 4980, 5040, 4990));
	CHECK(deleted(&r, false, 4980, 5040, 4985));
	CHECK(deleted(&r, false, 4980, 5040, 5011));
	CHECK(deleted(&r, false, 5040, 5100, 5050));
	/* a slow job whose every step waits 2 s is not stalling: 5 x its mean */
	struct fs_retain slow;
	fs_retain_init(&slow);
	for (int i = 0; i < 100; i++)
		step(&slow, 100 + i * 2.1, 2.0, 0.1);
	CHECK_INT((int)slow.stalls, 0);
}

static void test_gpu_and_phases(void)
{
	struct fs_retain r;
	fs_retain_init(&r);
	/* idle before it ever worked (start-up): no stall */
	for (int i = 0; i < 30; i++)
		gpu(&r, i * 0.1, 0, 0);
	gpu(&r, 3.0, 0, 90);
	CHECK_INT((int)r.stalls, 0);
	/* busy, then idle 0.5 s: no stall; then idle 2 s: a stall */
	gpu(&r, 3.1, 0, 90);
	gpu(&r, 3.2, 0, 0);
	gpu(&r, 3.7, 0, 80);
	CHECK_INT((int)r.stalls, 0);
	gpu(&r, 10.0, 0, 0);
	gpu(&r, 12.0, 0, 85);
	CHECK_INT((int)r.stalls, 1);
	CHECK_NEAR(r.span[0].a, 10.0 - FS_RETAIN_AROUND_S, 1e-9);
	/* a GPU index past the table is left alone */
	gpu(&r, 20, FS_RETAIN_GPUS, 0);
	gpu(&r, 30, FS_RETAIN_GPUS, 50);
	/* a checkpoint phase keeps the GPU's rows, not the others'; a
	 * collective keeps nothing */
	int before = r.n;
	phase(&r, 7000, 7005, "collective");
	CHECK_INT(r.n, before);
	phase(&r, 7200, 7210, "checkpoint");
	CHECK_INT(r.n, before + 1);
	CHECK(r.span[r.n - 1].kind == FS_RETAIN_GPU);
	CHECK(!deleted(&r, true, 7200, 7260, 7205));
	CHECK(!deleted(&r, true, 7200, 7260, 7211.5));
	CHECK(deleted(&r, true, 7200, 7260, 7213));
	CHECK(deleted(&r, false, 7200, 7260, 7205));
	/* gaps of a minute without spans: the whole minute */
	double g[4][2];
	CHECK_INT(fs_retain_gaps(&r, true, 9000, 9060, g, 4), 1);
	CHECK_NEAR(g[0][0], 9000, 1e-9);
	CHECK_NEAR(g[0][1], 9060, 1e-9);
	/* a span covering the whole minute: no gap */
	phase(&r, 8000, 8100, "validation");
	CHECK_INT(fs_retain_gaps(&r, true, 8010, 8070, g, 4), 0);
	/* forgetting drops the spans that end before t */
	fs_retain_forget(&r, 7500);
	for (int i = 0; i < r.n; i++)
		CHECK(r.span[i].b >= 7500);
	CHECK_INT(r.n, 1);
}

/* A new generation of a process's children (non-persistent DataLoader
 * workers at an epoch's start) keeps every table's rows around it; the
 * first generation, a process's later samples, and a second generation
 * within FS_RETAIN_RESTART_EVERY_S do not add a span. */
static void test_generations(void)
{
	struct fs_retain r;
	fs_retain_init(&r);
	proc(&r, 0.1, 100, 1); /* the main process: the launcher's first child */
	for (int w = 0; w < 4; w++)
		proc(&r, 5.0, 200 + w, 100); /* the first generation, one tick */
	for (double t = 5.1; t < 4000; t += 10) {
		proc(&r, t, 100, 1);
		for (int w = 0; w < 4; w++)
			proc(&r, t, 200 + w, 100);
	}
	CHECK_INT(r.n, 0);
	CHECK_INT((int)r.restarts, 0);
	/* the next epoch's workers at 4000.2 */
	for (int w = 0; w < 4; w++)
		proc(&r, 4000.2, 300 + w, 100);
	CHECK_INT((int)r.restarts, 1);
	CHECK_INT(r.n, 1);
	CHECK(r.span[0].kind == FS_RETAIN_ALL);
	CHECK(!deleted(&r, false, 3960, 4020, 3975));
	CHECK(!deleted(&r, false, 4020, 4080, 4030));
	CHECK(deleted(&r, false, 3900, 3960, 3950));
	CHECK(deleted(&r, false, 4020, 4080, 4031));
	/* a worker's crash and replacement 20 s later: within the minute */
	proc(&r, 4020.5, 304, 100);
	CHECK_INT((int)r.restarts, 1);
	/* the epoch after */
	for (int w = 0; w < 4; w++)
		proc(&r, 6000, 400 + w, 100);
	CHECK_INT((int)r.restarts, 2);
	/* a process id 0 or a parent 0 (unknown) tells nothing */
	proc(&r, 9000, 0, 100);
	proc(&r, 9000, 500, 0);
	CHECK_INT((int)r.restarts, 2);
}

/* More spans than the table holds: the oldest go first. */
static void test_full(void)
{
	struct fs_retain r;
	fs_retain_init(&r);
	for (int i = 0; i < FS_RETAIN_SPANS + 10; i++)
		phase(&r, i * 100.0, i * 100.0 + 1, "checkpoint");
	CHECK_INT(r.n, FS_RETAIN_SPANS);
	CHECK_NEAR(r.span[r.n - 1].a, (FS_RETAIN_SPANS + 9) * 100.0 - FS_RETAIN_PHASE_MARGIN_S, 1e-9);
	CHECK_NEAR(r.span[0].a, 10 * 100.0 - FS_RETAIN_PHASE_MARGIN_S, 1e-9);
}

int main(void)
{
	test_steps();
	test_gpu_and_phases();
	test_generations();
	test_full();
	return check_exit("test_retain");
}
