/* feedscope tune's analysis (src/analysis/tune/trial.c, tune.c): a trial's
 * steady state read from a golden run file (the warm-up left out: its slow
 * first steps change nothing), and the search on trials made by hand: each way it
 * stops, the next setting each verdict points to, the cap on workers, the
 * 3% rule keeping the cheaper of two equal settings, samples/s when batch
 * sizes differ, the line of Python. Expected values are worked out beside
 * each check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/tune/knobs.h"
#include "analysis/tune/plan.h"
#include "analysis/tune/trial.h"
#include "analysis/tune/tune.h"
#include "check.h"
#include "golden.h"
#include "render/tune.h"

static char dir[] = "/tmp/fs-tune-XXXXXX";

/* pid 100, loader "train" with 4 workers and batch 16; WARM slow steps
 * (wait 1 s, compute 0.1 s), then FAST steps (wait 0.1 s, compute 0.1 s). */
#define WARM 5
#define FAST 20
static void write_run(const char *path, double available)
{
	struct fs_store *st = golden_create(path);
	if (!st)
		return;
	struct fs_sink *s = fs_store_sink(st);
	fs_sink_meta(s, "mode", "run");
	fs_sink_meta(s, "pid", "100");
	fs_sink_meta(s, "interval_s", "1");
	fs_sink_meta(s, "ncpu", "4");
	fs_sink_meta(s, "command", "python3 train.py");
	fs_sink_meta(s, "mem_bytes", "1000000000");
	fs_sink_meta(s, "end_unix", "1700000020");
	fs_sink_meta(s, "loader.train.num_workers", "4");
	fs_sink_meta(s, "loader.train.batch_size", "16");
	fs_sink_meta(s, "loader.train.prefetch_factor", "2");
	fs_sink_meta(s, "loader.train.pin_memory", "false");
	fs_sink_meta(s, "loader.train.persistent_workers", "true");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= 12; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_CPU, t, "user_pct=20 system_pct=0 iowait_pct=0 idle_pct=80 steal_pct=0 ncpu=4");
		/* the trainer's RSS peaks at t = 2, in the warm-up (outside the
		 * window); a worker's PSS grows from 5e7 to 6e7 */
		golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main running=1 blocked_io=0 sleeping=0 rss_bytes=%.0f",
			   t == 2 ? 3e8 : 1e8);
		golden_row(s, FS_T_PROC, t, "pid=101 ppid=100 role=worker running=1 blocked_io=0 sleeping=0"
			   " rss_bytes=200000000 pss_bytes=%.0f", t < 6 ? 5e7 : 6e7);
		golden_row(s, FS_T_MEM, t, "available_bytes=%.0f total_bytes=1000000000", available);
	}
	double t = 1;
	for (int i = 0; i < WARM + FAST; i++) {
		double wait = i < WARM ? 1 : 0.1;
		t += wait; /* a step's t is the end of its wait */
		golden_row(s, FS_T_STEPS, t, "pid=100 loader=train epoch=0 step=%d wait_s=%g compute_s=0.1", i, wait);
		t += 0.1;
	}
	CHECK(fs_store_close(st) == 0);
}

static void test_read(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/trial.db", dir);
	write_run(path, 5e8);
	struct fs_tune_trial t = {0};
	fs_tune_knobs_unset(&t.asked);
	CHECK_INT(fs_tune_trial_read(path, WARM, FS_TUNE_WINDOW_AUTO, &t), 0);
	CHECK(!strcmp(t.status, "ok"));
	/* one epoch: a window of steps; 4 workers × prefetch 2 ask for 8
	 * batches at the start, so the window starts after step 8 (not 5),
	 * and 1 more is left out for whole rounds of 4: 16 fast steps of
	 * 0.2 s; half of each is wait; 16 samples a step */
	CHECK_INT(t.prefill, 8);
	CHECK_INT(t.window, FS_TUNE_WINDOW_STEPS);
	CHECK_INT(t.epoch_steps, 0);
	CHECK_INT(t.first_step, 9);
	CHECK_INT(t.steps, 16);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	/* every fast step alike: no noise (16 steps, 4 rounds of 4 workers: 4 blocks) */
	CHECK_NEAR(t.step_se_rel, 0, 1e-9);
	CHECK_NEAR(t.wait_share, 0.5, 1e-6);
	CHECK_NEAR(t.samples_per_s, 80, 1e-3);
	CHECK_INT(t.eff.v[FS_KNOB_NUM_WORKERS], 4);
	CHECK_INT(t.eff.v[FS_KNOB_BATCH_SIZE], 16);
	CHECK_INT(t.eff.v[FS_KNOB_PREFETCH_FACTOR], 2);
	CHECK_INT(t.eff.v[FS_KNOB_PIN_MEMORY], 0);
	CHECK_INT(t.eff.v[FS_KNOB_PERSISTENT_WORKERS], 1);
	CHECK(t.have_verdict);
	/* memory over the whole trial, not the window (t 7.2-10.5 s): the
	 * trainer's peak at t = 2 counts, and the worker's PSS growth from its
	 * first sample (a starved recorder can leave a short window with no
	 * process sample at all) */
	CHECK_NEAR(t.main_rss_bytes, 3e8, 1);
	CHECK_NEAR(t.workers_rss_bytes, 2e8, 1);
	CHECK_NEAR(t.workers_pss_bytes, 6e7, 1);
	CHECK_NEAR(t.workers_pss_growth_bytes, 1e7, 1);
	/* a warm-up of 3, or none: the prefill's 8 steps are skipped all the same */
	CHECK_INT(fs_tune_trial_read(path, 3, FS_TUNE_WINDOW_STEPS, &t), 0);
	CHECK_INT(t.steps, 16);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	CHECK_INT(fs_tune_trial_read(path, 0, FS_TUNE_WINDOW_STEPS, &t), 0);
	CHECK_INT(t.first_step, 9);
	/* whole epochs asked of a run of one: none fits */
	CHECK_INT(fs_tune_trial_read(path, WARM, FS_TUNE_WINDOW_EPOCHS, &t), -1);
	CHECK(!strcmp(t.status, "too_few_steps"));
	/* more warm-up than steps: too few */
	CHECK_INT(fs_tune_trial_read(path, WARM + FAST, FS_TUNE_WINDOW_AUTO, &t), -1);
	CHECK(!strcmp(t.status, "too_few_steps"));
	CHECK_INT(t.steps, WARM + FAST);
	/* memory available 4% of RAM (under mem_available_low, 5%): the
	 * figures are there, but the trial is no candidate */
	snprintf(path, sizeof path, "%s/short.db", dir);
	write_run(path, 4e7);
	CHECK_INT(fs_tune_trial_read(path, WARM, FS_TUNE_WINDOW_AUTO, &t), 0);
	CHECK(!strcmp(t.status, "memory"));
	CHECK(strstr(t.status_text, "ran short of memory") != NULL);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	CHECK_NEAR(t.mem_available_min_bytes, 4e7, 1);
	/* a knob asked for that the loader did not have (6 workers asked, the
	 * hook recorded 4): the figures are another setting's, no candidate */
	snprintf(path, sizeof path, "%s/trial.db", dir);
	t.asked.v[FS_KNOB_NUM_WORKERS] = 6;
	CHECK_INT(fs_tune_trial_read(path, WARM, FS_TUNE_WINDOW_AUTO, &t), 0);
	CHECK(!strcmp(t.status, "not_applied"));
	CHECK(strstr(t.status_text, "num_workers=6") && strstr(t.status_text, "num_workers=4"));
	t.asked.v[FS_KNOB_NUM_WORKERS] = 4; /* what it had: a candidate */
	CHECK_INT(fs_tune_trial_read(path, WARM, FS_TUNE_WINDOW_AUTO, &t), 0);
	CHECK(!strcmp(t.status, "ok"));
	fs_tune_knobs_unset(&t.asked);
	/* not a run file */
	snprintf(path, sizeof path, "%s/none.db", dir);
	CHECK_INT(fs_tune_trial_read(path, 0, FS_TUNE_WINDOW_AUTO, &t), -1);
	CHECK(!strcmp(t.status, "unreadable"));
}

/* A trial by hand: ok, step_s, batch, workers; a verdict with moves. */
static struct fs_tune_trial trial(int id, double step_s, int batch, int workers, enum fs_verdict_id v)
{
	struct fs_tune_trial t = {.id = id};
	snprintf(t.status, sizeof t.status, "ok");
	fs_tune_knobs_unset(&t.asked);
	fs_tune_knobs_unset(&t.eff);
	t.step_s = step_s;
	t.samples_per_s = batch / step_s;
	t.wait_share = 0.5;
	t.eff.v[FS_KNOB_BATCH_SIZE] = batch;
	t.eff.v[FS_KNOB_NUM_WORKERS] = workers;
	t.eff.v[FS_KNOB_PREFETCH_FACTOR] = 2;
	t.eff.v[FS_KNOB_PIN_MEMORY] = 0;
	t.eff.v[FS_KNOB_PERSISTENT_WORKERS] = 0;
	t.have_verdict = true;
	t.verdict = v;
	t.predicted_speedup = NAN;
	return t;
}

static void move(struct fs_tune_trial *t, enum fs_tune_knob k, int value, const char *relieves)
{
	t->moves[t->nmoves].knob = k;
	t->moves[t->nmoves].value = value;
	snprintf(t->moves[t->nmoves].relieves, sizeof t->moves[0].relieves, "%s", relieves);
	t->nmoves++;
}

static const unsigned all = 1u << FS_KNOB_NUM_WORKERS | 1u << FS_KNOB_PREFETCH_FACTOR | 1u << FS_KNOB_PIN_MEMORY |
			    1u << FS_KNOB_PERSISTENT_WORKERS;

static void test_stops(void)
{
	struct fs_tune_trial tr[4];
	struct fs_tune T = {.trials = tr, .ntrials = 1, .best = -1, .knobs = all, .max_workers = 8};
	struct fs_tune_knobs next;
	char why[400];

	/* no steps at all: no DataLoader */
	tr[0] = trial(0, NAN, 16, 1, FS_VERDICT_UNDETERMINED);
	snprintf(tr[0].status, sizeof tr[0].status, "too_few_steps");
	tr[0].steps = 0;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_NO_DATALOADER);
	/* some steps but the job failed */
	tr[0].steps = 3;
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_JOB_FAILED);

	/* compute-bound baseline */
	tr[0] = trial(0, 0.1, 16, 2, FS_VERDICT_COMPUTE_BOUND);
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_COMPUTE_BOUND);
	CHECK_INT(T.best, 0);

	/* storage at its ceiling: the verdict recommends no loader knob */
	tr[0] = trial(0, 0.1, 16, 2, FS_VERDICT_STORAGE_BANDWIDTH);
	snprintf(tr[0].relieves, sizeof tr[0].relieves, "storage bandwidth");
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_NO_KNOB_HELPS);
	CHECK(strstr(why, "storage_bandwidth") && strstr(why, "storage bandwidth"));
}

static void test_climb(void)
{
	struct fs_tune_trial tr[5];
	struct fs_tune T = {.trials = tr, .ntrials = 1, .best = -1, .knobs = all, .max_workers = 8};
	struct fs_tune_knobs next;
	char why[400];

	/* 1 worker, late input: the verdict asks for 6 workers */
	tr[0] = trial(0, 0.4, 16, 1, FS_VERDICT_LOADER_PARALLELISM);
	move(&tr[0], FS_KNOB_NUM_WORKERS, 6, "loader concurrency");
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 6);
	CHECK_INT(next.v[FS_KNOB_PREFETCH_FACTOR], -1);
	CHECK(strstr(why, "loader concurrency") != NULL);

	/* trial 1 (6 workers) is 2× faster; its verdict asks for 12: capped at 8 */
	tr[1] = trial(1, 0.2, 16, 6, FS_VERDICT_LOADER_PARALLELISM);
	tr[1].asked = next;
	move(&tr[1], FS_KNOB_NUM_WORKERS, 12, "loader concurrency");
	T.ntrials = 2;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(T.best, 1);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 8);
	CHECK_NEAR(fs_tune_speedup(&tr[0], &tr[1]), 2, 1e-9);

	/* trial 2 (8 workers) is 2% faster: not a gain; the cheaper 6 stays best */
	tr[2] = trial(2, 0.2 / 1.02, 16, 8, FS_VERDICT_LOADER_PARALLELISM);
	tr[2].asked = next;
	T.ntrials = 3;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	CHECK_INT(T.best, 1);
	CHECK(strstr(why, "1.020× trial 1: a gain under the 3.0% needed") != NULL);

	char py[200];
	fs_tune_python(&T, py, sizeof py);
	CHECK(!strcmp(py, "DataLoader(..., num_workers=6)"));

	/* had trial 1 been at the cap already (8 asked, 8 the cap): deeper prefetch next */
	T.ntrials = 2;
	T.best = -1;
	tr[1].asked.v[FS_KNOB_NUM_WORKERS] = 8;
	tr[1].eff.v[FS_KNOB_NUM_WORKERS] = 8;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 8);
	CHECK_INT(next.v[FS_KNOB_PREFETCH_FACTOR], 4);
	/* ... unless prefetch_factor may not change: nothing left */
	T.knobs = all & ~(1u << FS_KNOB_PREFETCH_FACTOR);
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	T.knobs = all;

	/* with batch_size allowed: after the verdict's moves, batch ×2 */
	T.knobs = all | 1u << FS_KNOB_BATCH_SIZE;
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_PREFETCH_FACTOR], 4);
	tr[2] = trial(2, 0.1, 16, 8, FS_VERDICT_LOADER_PARALLELISM); /* prefetch 4: 2× faster */
	tr[2].asked = next;
	T.ntrials = 3;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(T.best, 2);
	CHECK_INT(next.v[FS_KNOB_BATCH_SIZE], 32);
	CHECK_INT(next.v[FS_KNOB_PREFETCH_FACTOR], 4);
	CHECK(strstr(why, "batch_size") != NULL);
	T.knobs = all;

	/* epoch starts: persistent workers, on top of the best's own settings */
	T.ntrials = 1;
	T.best = -1;
	tr[0] = trial(0, 0.4, 16, 4, FS_VERDICT_EPOCH_START);
	move(&tr[0], FS_KNOB_PERSISTENT_WORKERS, 1, "worker start-up at each epoch");
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_PERSISTENT_WORKERS], 1);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], -1);
	/* with no workers, persistence is no setting */
	tr[0].eff.v[FS_KNOB_NUM_WORKERS] = 0;
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_NO_KNOB_HELPS);

	/* undetermined: one measured try of twice the workers; with
	 * num_workers not allowed, nothing (and no claim that no knob helps) */
	T.ntrials = 1;
	T.best = -1;
	tr[0] = trial(0, 0.4, 16, 3, FS_VERDICT_UNDETERMINED);
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 6);
	T.knobs = all & ~(1u << FS_KNOB_NUM_WORKERS);
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	CHECK(strstr(why, "names no cause") != NULL);
	T.knobs = all;

	/* memory pressure: half the workers */
	T.ntrials = 1;
	T.best = -1;
	tr[0] = trial(0, 0.4, 16, 6, FS_VERDICT_MEMORY_PRESSURE);
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 3);
	CHECK(strstr(why, "page cache") != NULL);

	/* a failed trial is no candidate, and ends the climb */
	tr[0] = trial(0, 0.4, 16, 1, FS_VERDICT_LOADER_PARALLELISM);
	move(&tr[0], FS_KNOB_NUM_WORKERS, 4, "loader concurrency");
	tr[1] = trial(1, 0.1, 16, 4, FS_VERDICT_LOADER_PARALLELISM);
	snprintf(tr[1].status, sizeof tr[1].status, "failed");
	T.ntrials = 2;
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	CHECK_INT(T.best, 0);
}

static void test_batch_and_text(void)
{
	/* batch 16 at 0.2 s (80/s) against batch 32 at 0.3 s (106.7/s):
	 * compared in samples/s, 1.33×, though the step is slower */
	struct fs_tune_trial a = trial(0, 0.2, 16, 2, FS_VERDICT_LOADER_PARALLELISM);
	struct fs_tune_trial b = trial(1, 0.3, 32, 2, FS_VERDICT_LOADER_PARALLELISM);
	CHECK_NEAR(fs_tune_speedup(&a, &b), (32 / 0.3) / (16 / 0.2), 1e-9);

	struct fs_tune_knobs k;
	fs_tune_knobs_unset(&k);
	char s[200];
	fs_tune_knobs_env(&k, 60, s, sizeof s);
	CHECK(!strcmp(s, "steps=60"));
	fs_tune_knobs_text(&k, s, sizeof s);
	CHECK(!strcmp(s, "the job's own settings"));
	k.v[FS_KNOB_NUM_WORKERS] = 8;
	k.v[FS_KNOB_PERSISTENT_WORKERS] = 1;
	fs_tune_knobs_env(&k, 60, s, sizeof s);
	CHECK(!strcmp(s, "num_workers=8 persistent_workers=1 steps=60"));
	fs_tune_knobs_text(&k, s, sizeof s);
	CHECK(!strcmp(s, "num_workers=8, persistent_workers=True"));
	CHECK_INT(fs_tune_knob_parse("prefetch_factor"), FS_KNOB_PREFETCH_FACTOR);
	CHECK_INT(fs_tune_knob_parse("workers"), -1);
	CHECK(!strcmp(fs_tune_stop_name(FS_TUNE_NO_KNOB_HELPS), "no_knob_helps"));

	/* the JSON of a finished search parses as JSON (python3 -m json.tool) */
	struct fs_tune_trial tr[2] = {a, b};
	tr[1].asked = k;
	struct fs_tune T = {.trials = tr, .ntrials = 2, .best = 1, .knobs = all, .max_workers = 8};
	char *argv[] = {"python3", "train \"x\".py"};
	struct fs_tune_plan pl = {.warmup = 10, .steps = 50, .window = FS_TUNE_WINDOW_STEPS};
	struct fs_tune_result r = {.T = &T, .stop = FS_TUNE_CONVERGED, .stop_text = "done", .time_s = 3,
				   .budget_s = 600, .plan = &pl, .dir = dir, .argc = 2, .argv = argv};
	char path[256], cmd[800];
	snprintf(path, sizeof path, "%s/tune.json", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fs_tune_render_json(f, &r);
		fclose(f);
		snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
					  "assert d[\"best\"][\"trial\"]==1 and d[\"trials\"][1][\"asked\"][\"num_workers\"]==8 "
					  "and d[\"command\"][1]==\"train \\\"x\\\".py\"' %s",
			 path);
		CHECK(system(cmd) == 0);
	}
	f = fopen("/dev/null", "w");
	if (f) {
		fs_tune_render_text(f, &r);
		fclose(f);
	}
}

/* The gain needed, whether a change is recommended, and that every
 * speedup printed (table, best line, JSON) is fs_tune_speedup's. */
static void test_gain_and_recommend(void)
{
	struct fs_tune_trial tr[4];
	struct fs_tune T = {.trials = tr, .ntrials = 2, .best = -1, .knobs = all, .max_workers = 8};
	struct fs_tune_knobs next;
	char why[400];
	tr[0] = trial(0, 0.1, 16, 4, FS_VERDICT_UNDETERMINED);
	tr[1] = trial(1, 0.1 / 1.05, 16, 8, FS_VERDICT_LOADER_PARALLELISM);
	tr[1].asked.v[FS_KNOB_NUM_WORKERS] = 8;
	/* quiet trials: the minimum, 3%; 5% faster counts, and makes trial 1
	 * the best; but a gain is recommended only once a second pair of runs
	 * (trial 1's setting, then the baseline's) confirms it */
	tr[0].step_se_rel = tr[1].step_se_rel = 0.002;
	CHECK_NEAR(fs_tune_gain_needed(&tr[0], &tr[1]), 0.03, 1e-12);
	CHECK(fs_tune_faster(&tr[0], &tr[1]));
	fs_tune_next(&T, &next, why, sizeof why);
	CHECK_INT(T.best, 1);
	CHECK(fs_tune_needs_confirm(&T));
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	CHECK(strstr(why, "trial 1's 1.050× over the baseline is unconfirmed: no second pair") != NULL);
	/* trial 1 again (2), the baseline again (3), as the first pair: 5% holds */
	tr[2] = tr[1];
	tr[2].id = 2;
	tr[2].confirms = true;
	tr[3] = trial(3, 0.1, 16, 4, FS_VERDICT_UNDETERMINED);
	tr[3].confirms = true;
	tr[3].step_se_rel = 0.002;
	T.ntrials = 3; /* half a pair is none */
	CHECK(fs_tune_needs_confirm(&T));
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	T.ntrials = 4;
	const struct fs_tune_trial *a2, *b2;
	fs_tune_again(&T, &a2, &b2);
	CHECK(a2 == &tr[3] && b2 == &tr[2]);
	CHECK(!fs_tune_needs_confirm(&T));
	CHECK(fs_tune_recommends(&T, why, sizeof why));
	CHECK_STR(why, "");
	/* the second pair 1% apart (trial 1 ran while the machine was quiet,
	 * faster than both runs of the baseline: one lucky run): no change */
	tr[2].step_s = 0.1 / 1.01;
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	CHECK(strstr(why, "did not hold in a second pair of runs: trial 2 (its setting again) was 1.010× trial 3 "
			  "(the baseline again), under the 3.0% needed") != NULL);
	/* ... and a confirming run is never the best, however fast */
	tr[3].step_s = 0.05;
	fs_tune_next(&T, &next, why, sizeof why);
	CHECK_INT(T.best, 1);
	T.ntrials = 2;
	/* noisy trials (±3% each): 2 × √(2 × 0.03²) = 8.5% needed; 5% is noise:
	 * the baseline stays best and no change is recommended */
	tr[0].step_se_rel = tr[1].step_se_rel = 0.03;
	CHECK_NEAR(fs_tune_gain_needed(&tr[0], &tr[1]), 2 * sqrt(2 * 0.03 * 0.03), 1e-12);
	CHECK(!fs_tune_faster(&tr[0], &tr[1]));
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	CHECK_INT(T.best, 0);
	CHECK(strstr(why, "1.050× trial 0") && strstr(why, "8.5% needed"));
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	CHECK(strstr(why, "no change recommended") != NULL);
	/* unknown noise (too few steps to tell): the minimum alone */
	tr[1].step_se_rel = NAN;
	CHECK_NEAR(fs_tune_gain_needed(&tr[0], &tr[1]), 0.03, 1e-12);

	/* a best trial (2, made so by hand) 10% faster than the baseline, the
	 * two ±5%: 2 × √(2 × 0.05²) = 14.1% needed, so no change is
	 * recommended (a chain of gains over trial 1 can end so) */
	tr[0].step_se_rel = 0.05;
	tr[1].step_se_rel = NAN;
	tr[2] = trial(2, 0.1 / 1.1, 16, 8, FS_VERDICT_LOADER_PARALLELISM);
	tr[2].step_se_rel = 0.05;
	T.ntrials = 3;
	T.best = 2;
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	CHECK(strstr(why, "trial 2's 1.100×") != NULL);

	/* the text and the JSON print the same speedup, fs_tune_speedup's:
	 * 0.1 s against 0.04 s, 2.50× (and in the second pair 0.098 / 0.041 =
	 * 2.39×; the baseline again is 1.02× the first) */
	tr[0] = trial(0, 0.1, 16, 1, FS_VERDICT_LOADER_PARALLELISM);
	tr[1] = trial(1, 0.04, 16, 4, FS_VERDICT_COMPUTE_BOUND);
	tr[1].asked.v[FS_KNOB_NUM_WORKERS] = 4;
	tr[0].step_se_rel = tr[1].step_se_rel = 0.01;
	T.ntrials = 2;
	T.best = -1;
	fs_tune_next(&T, &next, why, sizeof why);
	CHECK_INT(T.best, 1);
	/* 2.5× is no exception: unconfirmed, no recommendation yet */
	CHECK(fs_tune_needs_confirm(&T));
	CHECK(!fs_tune_recommends(&T, why, sizeof why));
	tr[2] = tr[1];
	tr[2].id = 2;
	tr[2].step_s = 0.041;
	tr[2].confirms = true;
	snprintf(tr[2].why, sizeof tr[2].why, "trial 1 again: its gain must hold");
	tr[3] = trial(3, 0.098, 16, 1, FS_VERDICT_LOADER_PARALLELISM);
	tr[3].confirms = true;
	tr[3].step_se_rel = 0.01;
	snprintf(tr[3].why, sizeof tr[3].why, "the baseline again: the second pair's");
	tr[3].first_step = 10;
	tr[3].steps = 50;
	T.ntrials = 4;
	char *argv[] = {"python3", "train.py"};
	struct fs_tune_plan pl = {.warmup = 10, .steps = 50, .window = FS_TUNE_WINDOW_STEPS};
	struct fs_tune_result r = {.T = &T, .stop = FS_TUNE_CONVERGED, .stop_text = "done", .time_s = 3,
				   .budget_s = 600, .plan = &pl, .dir = dir, .argc = 2, .argv = argv};
	char path[200], cmd[2000];
	snprintf(path, sizeof path, "%s/rec.txt", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fs_tune_render_text(f, &r);
		fclose(f);
		/* trial 1's row ends in "2.50×  compute_bound", trial 3's in 1.02×; the best line says
		 * 2.50× and the Python */
		snprintf(cmd, sizeof cmd, "grep -q '^\\*1 .* 2.50×  compute_bound$' %s && grep -q '^ 3 .* 1.02×  loader_' %s && "
					  "grep -q '^best: trial 1, 2.50× ' %s && grep -q 'DataLoader(..., num_workers=4)' %s "
					  "&& ! grep -q 'no change' %s && grep -q '^trial 3 (steps 10-59): the baseline again' %s "
					  "&& grep -q '(a gain counts from 3.0%%), 2.39× in the second pair (trial 2 over 3)' %s",
			 path, path, path, path, path, path, path);
		CHECK(system(cmd) == 0);
	}
	snprintf(path, sizeof path, "%s/rec.json", dir);
	f = fopen(path, "w");
	if (f) {
		fs_tune_render_json(f, &r);
		fclose(f);
		snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
					  "assert d[\"recommend\"] is True and d[\"recommend_text\"] is None; "
					  "assert abs(d[\"best\"][\"speedup\"] - 2.5) < 1e-9; "
					  "assert abs(d[\"trials\"][1][\"speedup\"] - 2.5) < 1e-9; "
					  "assert abs(d[\"trials\"][1][\"step_se_rel\"] - 0.01) < 1e-9; "
					  "assert abs(d[\"best\"][\"speedup_again\"] - 0.098 / 0.041) < 1e-9; "
					  "assert d[\"trials\"][3][\"confirms\"] is True and not d[\"trials\"][1][\"confirms\"]' %s",
			 path);
		CHECK(system(cmd) == 0);
	}
	/* the same trials, trial 1 only 2% faster: no change, said so; no DataLoader line */
	T.ntrials = 2;
	tr[1].step_s = 0.1 / 1.02;
	tr[1].samples_per_s = 16 / tr[1].step_s;
	T.best = -1;
	fs_tune_next(&T, &next, why, sizeof why);
	CHECK_INT(T.best, 0);
	snprintf(path, sizeof path, "%s/norec.txt", dir);
	f = fopen(path, "w");
	if (f) {
		fs_tune_render_text(f, &r);
		fclose(f);
		snprintf(cmd, sizeof cmd, "grep -q '^no change recommended: ' %s && ! grep -q 'DataLoader(' %s && "
					  "! grep -q '^best:' %s && grep -q '^ 1 .* 1.02×  compute_bound$' %s",
			 path, path, path, path);
		CHECK(system(cmd) == 0);
	}
	snprintf(path, sizeof path, "%s/norec.json", dir);
	f = fopen(path, "w");
	if (f) {
		fs_tune_render_json(f, &r);
		fclose(f);
		snprintf(cmd, sizeof cmd, "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
					  "assert d[\"recommend\"] is False and d[\"recommend_text\"].startswith(\"no change\"); "
					  "assert d[\"best\"][\"trial\"] == 0' %s",
			 path);
		CHECK(system(cmd) == 0);
	}
}

/* Settings that would not fit in memory are not tried: one more worker's
 * cost (its USS and /dev/shm share) against the room the best trial left. */
static void test_memory_rule(void)
{
	struct fs_tune_trial tr[3];
	struct fs_tune T = {.trials = tr, .ntrials = 1, .best = -1, .knobs = all, .max_workers = 16};
	struct fs_tune_knobs next;
	char why[400];

	/* 2 workers at 300 MiB each; 1000 MiB of room under the cgroup's
	 * limit: 2 + floor(1000/300) = 5 workers fit, the verdict asks for 8 */
	tr[0] = trial(0, 0.4, 16, 2, FS_VERDICT_LOADER_PARALLELISM);
	move(&tr[0], FS_KNOB_NUM_WORKERS, 8, "loader concurrency");
	tr[0].per_worker_bytes = 300.0 * (1 << 20);
	tr[0].mem_room_bytes = 1000.0 * (1 << 20);
	snprintf(tr[0].mem_room_of, sizeof tr[0].mem_room_of, "the cgroup's limit");
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 5);
	CHECK_INT(T.nruled, 1);
	CHECK(strstr(T.ruled[0], "num_workers=8 would not fit in memory: 6 more workers at 300 MiB each") != NULL);
	CHECK(strstr(T.ruled[0], "the cgroup's limit") != NULL);
	/* asked again: said once */
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(T.nruled, 1);

	/* room for none (200 MiB left, 300 MiB a worker): no more workers are
	 * tried; deeper prefetch fits when the job uses no /dev/shm */
	T.nruled = 0;
	T.best = -1;
	tr[0].mem_room_bytes = 200.0 * (1 << 20);
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], -1);
	CHECK_INT(next.v[FS_KNOB_PREFETCH_FACTOR], 4);
	CHECK(strstr(T.ruled[0], "no more workers fit") != NULL);
	/* ... but not when twice the batches in flight overflow /dev/shm
	 * (40 MiB at its peak, 20 MiB left): nothing is left to try */
	T.nruled = 0;
	T.best = -1;
	tr[0].dev_shm_bytes = 40.0 * (1 << 20);
	tr[0].shm_room_bytes = 20.0 * (1 << 20);
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_CONVERGED);
	CHECK_INT(T.nruled, 2);
	CHECK(strstr(T.ruled[1], "prefetch_factor=4 would not fit") && strstr(T.ruled[1], "/dev/shm's size"));
	CHECK(strstr(why, "does not fit in memory") != NULL);

	/* unknown cost (no worker measured): the verdict's number stands */
	T.nruled = 0;
	T.best = -1;
	tr[0].per_worker_bytes = NAN;
	tr[0].dev_shm_bytes = NAN;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 8);
	CHECK_INT(T.nruled, 0);

	/* a baseline without workers: the cost is another trial's, the room
	 * the best trial's own (trial 1: 4 workers at 250 MiB, 600 MiB left:
	 * 6 fit of the 12 its verdict asks for) */
	tr[0] = trial(0, 0.4, 16, 0, FS_VERDICT_LOADER_PARALLELISM);
	move(&tr[0], FS_KNOB_NUM_WORKERS, 4, "loader concurrency");
	tr[1] = trial(1, 0.2, 16, 4, FS_VERDICT_LOADER_PARALLELISM);
	tr[1].asked.v[FS_KNOB_NUM_WORKERS] = 4;
	move(&tr[1], FS_KNOB_NUM_WORKERS, 12, "loader concurrency");
	tr[1].per_worker_bytes = 250.0 * (1 << 20);
	tr[1].mem_room_bytes = 600.0 * (1 << 20);
	T.ntrials = 2;
	T.best = -1;
	CHECK_INT(fs_tune_next(&T, &next, why, sizeof why), FS_TUNE_GOING);
	CHECK_INT(T.best, 1);
	CHECK_INT(next.v[FS_KNOB_NUM_WORKERS], 6);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_read();
	test_stops();
	test_climb();
	test_batch_and_text();
	test_gain_and_recommend();
	test_memory_rule();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_tune");
}
