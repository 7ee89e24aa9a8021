/* feedscope tune's measuring (src/analysis/tune/: window.c, trial.c,
 * plan.c, noise.c): the window of a trial (whole epochs, or steps clear of
 * an epoch's first and last prefill), the trials' lengths, the plan after
 * the baseline, and the noise of a mean step (robust batch means; whole
 * epochs by their parts).
 * Expected values are worked out beside each check. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/tune/knobs.h"
#include "analysis/tune/noise.h"
#include "analysis/tune/plan.h"
#include "analysis/tune/trial.h"
#include "analysis/tune/window.h"
#include "check.h"
#include "golden.h"

static char dir[] = "/tmp/fs-tune-window-XXXXXX";

/* A baseline read by hand: ok, step_s, workers. */
static struct fs_tune_trial trial(int id, double step_s, int batch, int workers, enum fs_verdict_id v)
{
	struct fs_tune_trial t = {.id = id};
	snprintf(t.status, sizeof t.status, "ok");
	fs_tune_knobs_unset(&t.asked);
	fs_tune_knobs_unset(&t.eff);
	t.step_s = step_s;
	t.samples_per_s = batch / step_s;
	t.eff.v[FS_KNOB_BATCH_SIZE] = batch;
	t.eff.v[FS_KNOB_NUM_WORKERS] = workers;
	t.have_verdict = true;
	t.verdict = v;
	return t;
}

/* pid 100, loader "train", 2 workers, prefetch 2 (4 batches asked at an
 * iterator's start), batch 16; EPOCHS epochs of 10 steps and one step of
 * the next, as a sampler drawn in the training process makes them: an
 * epoch's first step waits 0.4 s (the 4 batches' indices), its next 6 wait
 * 0.1 s (one batch each), its last 3 none (the sampler is spent); each
 * computes 0.1 s. An epoch: 0.4 + 0.6 + 1 = 2 s, 0.2 s a step. */
#define EPOCHS 6
static void write_epochs(const char *path)
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
	fs_sink_meta(s, "loader.train.num_workers", "2");
	fs_sink_meta(s, "loader.train.batch_size", "16");
	fs_sink_meta(s, "loader.train.prefetch_factor", "2");
	fs_sink_meta(s, "loader.train.pin_memory", "false");
	fs_sink_meta(s, "loader.train.persistent_workers", "true");
	golden_row(s, FS_T_TICKS, 0, "missed=0");
	for (int t = 1; t <= 14; t++) {
		golden_row(s, FS_T_TICKS, t, "dt_s=1 missed=0");
		golden_row(s, FS_T_CPU, t, "user_pct=20 system_pct=0 iowait_pct=0 idle_pct=80 steal_pct=0 ncpu=4");
		golden_row(s, FS_T_PROC, t, "pid=100 ppid=1 role=main running=1 blocked_io=0 sleeping=0");
		golden_row(s, FS_T_MEM, t, "available_bytes=500000000 total_bytes=1000000000");
	}
	double t = 1;
	for (int i = 0; i < EPOCHS * 10 + 1; i++) {
		int k = i % 10;
		double wait = k == 0 ? 0.4 : k <= 6 ? 0.1 : 0;
		t += wait;
		golden_row(s, FS_T_STEPS, t, "pid=100 loader=train epoch=%d step=%d wait_s=%g compute_s=0.1", i / 10, k, wait);
		t += 0.1;
	}
	CHECK(fs_store_close(st) == 0);
}

/* The window: whole epochs where epochs end inside a trial, else steps
 * clear of each epoch's first and last prefill; the trials' lengths and
 * the plan after the baseline. */
static void test_window(void)
{
	char path[256];
	snprintf(path, sizeof path, "%s/epochs.db", dir);
	write_epochs(path);
	struct fs_tune_trial t = {0};
	fs_tune_knobs_unset(&t.asked);
	/* 61 steps, warm-up 10: epochs 1 to 5 (steps 10 to 59), 2 s each: 0.2 s
	 * a step, the epoch's own mean */
	CHECK_INT(fs_tune_trial_read(path, 10, FS_TUNE_WINDOW_AUTO, &t), 0);
	CHECK_INT(t.window, FS_TUNE_WINDOW_EPOCHS);
	CHECK_INT(t.epoch_steps, 10);
	CHECK_INT(t.first_step, 10);
	CHECK_INT(t.steps, 50);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	CHECK_NEAR(t.step_se_rel, 0, 1e-9); /* epochs alike: no noise, their shape is none */
	/* a warm-up of 12: epochs 2 to 5 */
	CHECK_INT(fs_tune_trial_read(path, 12, FS_TUNE_WINDOW_EPOCHS, &t), 0);
	CHECK_INT(t.first_step, 20);
	CHECK_INT(t.steps, 40);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	/* steps asked for: inside epoch 1 (steps 10 to 19), clear of its first
	 * 4 and its last 4: steps 14 and 15, 0.1 s of wait and 0.1 s each */
	CHECK_INT(fs_tune_trial_read(path, 12, FS_TUNE_WINDOW_STEPS, &t), 0);
	CHECK_INT(t.window, FS_TUNE_WINDOW_STEPS);
	CHECK_INT(t.first_step, 14);
	CHECK_INT(t.steps, 2);
	CHECK_NEAR(t.step_s, 0.2, 1e-6);
	CHECK_NEAR(t.wait_share, 0.5, 1e-6);

	/* fs_tune_span on starts by hand */
	unsigned char st[200] = {0};
	struct fs_tune_span sp;
	st[0] = 1;
	/* one epoch: from the warm-up (10 > the prefill 4) to the end */
	CHECK(fs_tune_span(st, 60, 10, 4, 2, FS_TUNE_WINDOW_AUTO, &sp));
	CHECK(sp.first == 10 && sp.last == 59 && sp.window == FS_TUNE_WINDOW_STEPS && sp.epoch_steps == 0);
	/* a prefill of 16 (8 workers × 2) longer than the warm-up: from step
	 * 16; 44 steps, 4 left out for whole rounds of 8 */
	CHECK(fs_tune_span(st, 60, 10, 16, 8, FS_TUNE_WINDOW_STEPS, &sp));
	CHECK(sp.first == 20 && sp.last == 59);
	/* epochs of 40 (the sampler test's), 60 steps, prefill 4: no whole
	 * epoch after the warm-up; inside epoch 0, clear of its last 4 steps:
	 * 10 to 35 */
	st[40] = 1;
	CHECK(fs_tune_span(st, 60, 10, 4, 2, FS_TUNE_WINDOW_AUTO, &sp));
	CHECK(sp.first == 10 && sp.last == 35 && sp.window == FS_TUNE_WINDOW_STEPS && sp.epoch_steps == 40);
	CHECK(!fs_tune_span(st, 60, 10, 4, 2, FS_TUNE_WINDOW_EPOCHS, &sp));
	/* a prefill of 32 (8 workers × 4) leaves no clean steps in epoch 0
	 * (32 to 40 - 1 - 32): the baseline, AUTO, is read from step 32 on */
	CHECK(!fs_tune_span(st, 60, 10, 32, 8, FS_TUNE_WINDOW_STEPS, &sp));
	CHECK(fs_tune_span(st, 60, 10, 32, 8, FS_TUNE_WINDOW_AUTO, &sp));
	CHECK(sp.first == 32 && sp.last == 59 && sp.epoch_steps == 40);
	/* 121 steps (fs_tune_trial_length below): epochs 1 and 2 */
	st[80] = 1;
	st[120] = 1;
	CHECK(fs_tune_span(st, 121, 5, 32, 8, FS_TUNE_WINDOW_EPOCHS, &sp));
	CHECK(sp.first == 40 && sp.last == 119 && sp.epoch_steps == 40);
	/* in epoch 1 (warm-up 45), an epoch as long as the first ends at 79:
	 * clear of its last 4, steps 45 to 75 (31: 1 left out for rounds of 2) */
	memset(st, 0, sizeof st);
	st[0] = st[40] = 1;
	CHECK(fs_tune_span(st, 90, 45, 4, 2, FS_TUNE_WINDOW_STEPS, &sp));
	CHECK(sp.first == 46 && sp.last == 75);

	/* the trials' lengths */
	CHECK_INT(fs_tune_trial_length(10, 50, 4, FS_TUNE_WINDOW_STEPS, 0), 60);
	CHECK_INT(fs_tune_trial_length(5, 40, 8, FS_TUNE_WINDOW_STEPS, 0), 48);
	CHECK_INT(fs_tune_trial_length(10, 50, 4, FS_TUNE_WINDOW_EPOCHS, 10), 61);  /* (1 + 5) × 10 + 1 */
	CHECK_INT(fs_tune_trial_length(5, 60, 32, FS_TUNE_WINDOW_EPOCHS, 40), 121); /* (1 + 2) × 40 + 1 */
	CHECK_INT(fs_tune_trial_length(5, 10, 4, FS_TUNE_WINDOW_EPOCHS, 40), 81);   /* at least 1 epoch */

	/* the plan after the baseline */
	struct fs_tune_plan pl = {.warmup = 5, .steps = 60, .window = FS_TUNE_WINDOW_AUTO};
	struct fs_tune_trial b = trial(0, 0.057, 16, 2, FS_VERDICT_LOADER_PARALLELISM);
	b.steps = 56;
	b.window = FS_TUNE_WINDOW_STEPS;
	b.epoch_steps = 40;
	b.prefill = 4;
	char note[400];
	/* 3.2 s of steps (enough samples at 0.1 s), but epochs of 40 end inside
	 * it: whole epochs, the baseline again */
	CHECK_INT(fs_tune_replan(&pl, &b, 0.1, true, note, sizeof note), 2);
	CHECK_INT(pl.window, FS_TUNE_WINDOW_EPOCHS);
	CHECK_INT(pl.epoch_steps, 40);
	CHECK(strstr(note, "whole epochs") != NULL);
	/* the baseline run again and read in whole epochs: the plan is its */
	b.window = FS_TUNE_WINDOW_EPOCHS;
	b.steps = 80;
	CHECK_INT(fs_tune_replan(&pl, &b, 0.1, true, note, sizeof note), 0);
	CHECK_INT(pl.window, FS_TUNE_WINDOW_EPOCHS);
	/* too short for 30 samples: 48 steps of 26 ms (1.25 s) at 0.1 s: 116 steps */
	pl = (struct fs_tune_plan){.warmup = 5, .steps = 48, .window = FS_TUNE_WINDOW_AUTO};
	b = trial(0, 0.026, 16, 3, FS_VERDICT_LOADER_PARALLELISM);
	b.steps = 48;
	b.window = FS_TUNE_WINDOW_STEPS;
	CHECK_INT(fs_tune_replan(&pl, &b, 0.1, true, note, sizeof note), 1);
	CHECK_INT(pl.steps, 116);
	CHECK_INT(pl.window, FS_TUNE_WINDOW_STEPS);
	/* no more runs of the baseline: the plan takes it as it is */
	b.epoch_steps = 40;
	CHECK_INT(fs_tune_replan(&pl, &b, 0.1, false, note, sizeof note), 0);
	CHECK_INT(pl.window, FS_TUNE_WINDOW_STEPS);
	CHECK_INT(pl.epoch_steps, 40);
}

/* The noise of a mean step (robust batch means), on step ends made by hand. */
static void test_noise(void)
{
	double end[64];
	/* 48 steps of 0.1 s after a start at 0: no noise */
	for (int i = 0; i < 48; i++)
		end[i] = 0.1 * (i + 1);
	CHECK_NEAR(fs_tune_step_noise(end, 0, 0, 48, 1), 0, 1e-9);
	/* one block (of 8, 6 steps each) holds a 1 s epoch start: one block of
	 * eight is no noise (the median absolute deviation is 0) */
	for (int i = 20; i < 48; i++)
		end[i] += 1;
	CHECK_NEAR(fs_tune_step_noise(end, 0, 0, 48, 1), 0, 1e-9);
	/* blocks alternately 0.09 s and 0.11 s a step: median 0.1, every
	 * deviation 0.01: 1.4826 × 0.01 / √8 / 0.1 */
	double t = 0;
	for (int b = 0; b < 8; b++)
		for (int i = 0; i < 6; i++)
			end[b * 6 + i] = (t += b % 2 ? 0.11 : 0.09);
	CHECK_NEAR(fs_tune_step_noise(end, 0, 0, 48, 1), 1.4826 * 0.01 / sqrt(8) / 0.1, 1e-9);
	/* the same after a warm-up of 4 steps, from end[3] */
	double w[64];
	for (int i = 0; i < 4; i++)
		w[i] = 0.5 * (i + 1);
	for (int i = 0; i < 48; i++)
		w[4 + i] = 2 + end[i];
	CHECK_NEAR(fs_tune_step_noise(w, 0, 4, 52, 1), 1.4826 * 0.01 / sqrt(8) / 0.1, 1e-9);
	/* rounds of 8 workers: 6 rounds, 6 blocks of one round each */
	CHECK(isfinite(fs_tune_step_noise(end, 0, 0, 48, 8)));
	/* 3 rounds of 16: too few blocks to tell */
	CHECK(isnan(fs_tune_step_noise(end, 0, 0, 48, 16)));
	CHECK(isnan(fs_tune_step_noise(end, 0, 0, 3, 1)));
}

/* The noise of whole epochs: the spread of each part of an epoch about
 * that part's mean over the epochs. */
static void test_epoch_noise(void)
{
	/* two epochs of 8 steps: the first step 0.5 s, the others 0.1 s; the
	 * second epoch 10% slower throughout. Blocks of 1 step: each block's
	 * residual is half the epochs' difference, 0.025 for the first steps,
	 * 0.005 for the 14 others: median 0.005; the blocks' median step is
	 * 0.11; so 1.4826 × 0.005 × √2 / √16 / 0.11 */
	double end[16], t = 0;
	unsigned char st[17] = {0};
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 8; i++)
			end[k * 8 + i] = (t += (i ? 0.1 : 0.5) * (k ? 1.1 : 1));
	st[0] = st[8] = 1;
	CHECK_NEAR(fs_tune_epoch_noise(end, 0, st, 0, 15), 1.4826 * 0.005 * sqrt(2) / 4 / 0.11, 1e-9);
	/* one epoch: no spread to tell */
	CHECK(isnan(fs_tune_epoch_noise(end, 0, st, 0, 7)));
	/* the same epochs alike: none */
	t = 0;
	for (int k = 0; k < 2; k++)
		for (int i = 0; i < 8; i++)
			end[k * 8 + i] = (t += i ? 0.1 : 0.5);
	CHECK_NEAR(fs_tune_epoch_noise(end, 0, st, 0, 15), 0, 1e-12);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_window();
	test_noise();
	test_epoch_noise();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_tune_window");
}
