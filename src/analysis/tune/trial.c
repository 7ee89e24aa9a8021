/* trial.c - one trial of `feedscope tune`: its figures from its run
 * file, over its steady-state window (window.c), with their noise
 * (noise.c); and the steps it runs (trial.h; docs/tune.md). */
#include "analysis/tune/trial.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare/merge.h"
#include "analysis/judge/memory.h"
#include "analysis/load/metricdefs.h"
#include "analysis/load/query.h"
#include "analysis/thresholds.h"
#include "analysis/tune/noise.h"
#include "util/fmt.h"

static void clear_figures(struct fs_tune_trial *t)
{
	t->steps = t->first_step = t->epoch_steps = t->prefill = 0;
	t->window = FS_TUNE_WINDOW_AUTO;
	t->step_s = t->samples_per_s = t->wait_share = t->cpu_cores = t->step_se_rel = NAN;
	t->main_rss_bytes = t->workers_rss_bytes = t->workers_pss_bytes = NAN;
	t->workers_pss_growth_bytes = t->dev_shm_bytes = t->mem_available_min_bytes = NAN;
	t->per_worker_bytes = t->mem_room_bytes = t->shm_room_bytes = NAN;
	t->mem_room_of[0] = 0;
	t->have_verdict = false;
	t->predicted_speedup = NAN;
	t->relieves[0] = 0;
	t->nmoves = 0;
	t->ncpu = 0;
	t->quota_cores = NAN;
	fs_tune_knobs_unset(&t->eff);
}

static int bool_knob(const char *s)
{
	return !strcmp(s, "true") ? 1 : !strcmp(s, "false") ? 0 : -1;
}

/* The main loader's settings, as the hook recorded them (metrics.h). */
static void effective(const struct fs_metrics *m, struct fs_tune_knobs *k)
{
	fs_tune_knobs_unset(k);
	k->v[FS_KNOB_NUM_WORKERS] = m->num_workers;
	k->v[FS_KNOB_BATCH_SIZE] = m->batch_size;
	k->v[FS_KNOB_PREFETCH_FACTOR] = m->prefetch_factor;
	k->v[FS_KNOB_PIN_MEMORY] = bool_knob(m->pin_memory);
	k->v[FS_KNOB_PERSISTENT_WORKERS] = bool_knob(m->persistent_workers);
	k->v[FS_KNOB_WORKER_THREADS] = m->tune_worker_threads;
}

/* The loader knobs among the verdict's recommendations, as moves. */
static void moves_of(const struct fs_verdict *v, struct fs_tune_trial *t)
{
	t->nmoves = 0;
	for (int i = 0; i < v->nrec && t->nmoves < FS_MAX_RECS; i++) {
		const struct fs_recommendation *r = &v->rec[i];
		int k = fs_tune_knob_parse(r->knob);
		if (k < 0)
			continue;
		int value;
		if (fs_tune_knob_is_bool(k)) {
			value = bool_knob(r->suggested);
		} else {
			char *end;
			long x = strtol(r->suggested, &end, 10);
			value = end != r->suggested && *end == 0 && x > 0 && x < 100000 ? (int)x : -1;
		}
		if (value < 0)
			continue;
		struct fs_tune_move *mv = &t->moves[t->nmoves++];
		mv->knob = k;
		mv->value = value;
		snprintf(mv->relieves, sizeof mv->relieves, "%s", r->relieves);
	}
}

static double value(const struct fs_metric_values *mv, enum fs_md_id id)
{
	return fs_metricdefs_valid(mv, id) ? mv->v[id] : NAN;
}

/* The memory figures, from the metric definitions over the whole trial
 * (the trainer's RSS, its workers' RSS and PSS, their PSS growth,
 * /dev/shm): what a setting costs in memory is its peak from the start,
 * workers' start-up included, not the steady window's alone. (The window
 * was used before: a recorder starved by a job that fills every CPU can
 * miss ticks, and a trial's window of 1-2 s then held no process sample;
 * a CI run lost a trial's figures that way.) */
static void definitions(const char *path, int trainer_pid, struct fs_tune_trial *t)
{
	struct fs_q q;
	char err[600];
	if (fs_q_open(&q, path, err, sizeof err) == 0) {
		q.w0 = -INFINITY;
		q.w1 = INFINITY;
		q.trainer = trainer_pid;
		struct fs_metric_values mv;
		fs_metricdefs_load(&q, &mv);
		t->main_rss_bytes = value(&mv, FS_MD_MAIN_RSS_MAX_BYTES);
		t->workers_rss_bytes = value(&mv, FS_MD_WORKERS_RSS_MAX_BYTES);
		t->workers_pss_bytes = value(&mv, FS_MD_WORKERS_PSS_MAX_BYTES);
		t->workers_pss_growth_bytes = value(&mv, FS_MD_WORKERS_PSS_GROWTH_BYTES);
		t->dev_shm_bytes = value(&mv, FS_MD_DEV_SHM_USED_MAX_BYTES);
	}
	fs_q_close(&q);
}

/* A faster setting that runs the machine out of memory is not the best:
 * the trial is marked "memory", no candidate. The limit is the verdict's
 * own (thresholds.c: mem_available_low); MemAvailable counts the page
 * cache that can be reclaimed, so a dataset filling the cache is no
 * shortage. (A cgroup's usage is not used: in cgroup v1 it includes that
 * cache. A trial killed by the OOM killer exits 137: "failed".) */
static void out_of_memory(const struct fs_metrics *m, struct fs_tune_trial *t)
{
	const struct fs_thresholds *th = &fs_thresholds;
	char a[32], b[32];
	if (isfinite(m->mem_available_min_bytes) && m->mem_total_bytes > 0 &&
	    m->mem_available_min_bytes < th->mem_available_low * m->mem_total_bytes) {
		snprintf(t->status, sizeof t->status, "memory");
		snprintf(t->status_text, sizeof t->status_text,
			 "memory available fell to %s of %s (under %.0f%%): the machine ran short of memory",
			 fs_fmt_bytes(a, sizeof a, m->mem_available_min_bytes), fs_fmt_bytes(b, sizeof b, m->mem_total_bytes),
			 100 * th->mem_available_low);
	}
}

/* What more workers would cost and the room there is for them, from the
 * whole run's memory (m over the trainer's loop; trial.h). */
static void memory_room(const struct fs_metrics *m, struct fs_tune_trial *t)
{
	const struct fs_thresholds *th = &fs_thresholds;
	const struct fs_memory *mem = &m->mem;
	struct fs_memory_verdict mv;
	fs_judge_memory(m, th, &mv);
	t->per_worker_bytes = mv.per_worker_bytes;
	if (mem->cg_limit > 0 && mem->job_pss_max > 0) {
		t->mem_room_bytes = (1 - th->mem_headroom_min) * mem->cg_limit - mem->job_pss_max;
		snprintf(t->mem_room_of, sizeof t->mem_room_of, "the cgroup's limit");
	}
	if (isfinite(mem->mem_available_min) && mem->mem_total > 0) {
		double room = mem->mem_available_min - th->mem_available_low * mem->mem_total;
		if (!(t->mem_room_bytes <= room)) {
			t->mem_room_bytes = room;
			snprintf(t->mem_room_of, sizeof t->mem_room_of, "the machine's memory");
		}
	}
	if (mem->shm_size > 0 && isfinite(mem->shm_used_max))
		t->shm_room_bytes = (1 - th->mem_headroom_min) * mem->shm_size - mem->shm_used_max;
}

static int load(const char *path, const struct fs_window *w, struct fs_merge_file *f, char *err, size_t cap)
{
	memset(f, 0, sizeof *f);
	if (fs_merge_head(path, f, err, cap) < 0)
		return -1;
	f->want_steps = true; /* the steady state is read off them */
	if (fs_merge_load(f, w, err, cap) < 0) {
		fs_merge_file_free(f);
		return -1;
	}
	return 0;
}

/* A knob the trial asked for that the loader did not have (the hook's
 * record of it): the trial measured another setting, and is no candidate. */
static void not_applied(struct fs_tune_trial *t)
{
	for (int k = 0; k < FS_KNOB__N; k++) {
		if (t->asked.v[k] < 0 || t->eff.v[k] < 0 || t->asked.v[k] == t->eff.v[k])
			continue;
		char a[16], e[16];
		fs_tune_knob_value(a, sizeof a, k, t->asked.v[k]);
		fs_tune_knob_value(e, sizeof e, k, t->eff.v[k]);
		snprintf(t->status, sizeof t->status, "not_applied");
		snprintf(t->status_text, sizeof t->status_text,
			 "asked for %s=%s, the loader had %s=%s: the trial measured another setting", fs_tune_knob_name(k), a,
			 fs_tune_knob_name(k), e);
		return;
	}
}

static int fail(struct fs_tune_trial *t, const char *status, const char *text)
{
	snprintf(t->status, sizeof t->status, "%s", status);
	snprintf(t->status_text, sizeof t->status_text, "%.600s", text);
	return -1;
}

long fs_tune_trial_length(long warmup, long steps, long prefill, enum fs_tune_window window, long epoch_steps)
{
	long w0 = warmup > prefill ? warmup : prefill;
	if (window != FS_TUNE_WINDOW_EPOCHS || epoch_steps <= 0)
		return w0 + steps;
	long k = (steps + epoch_steps / 2) / epoch_steps;
	return ((w0 + epoch_steps - 1) / epoch_steps + (k > 1 ? k : 1)) * epoch_steps + 1;
}

/* Which of the loop's n steps (of process pid, in the order of the steps
 * series: by their ends) start an epoch of its first loader: the loader of
 * its first step, whose epoch is not its step before's (another loader's
 * steps, a validation pass, belong to the epoch they follow). Returns
 * false (and no start but the first) when the run file says nothing of it
 * or lists another number of steps. */
static bool read_starts(const char *path, int pid, long n, unsigned char *starts)
{
	memset(starts, 0, (size_t)n);
	struct fs_q q;
	char err[600], first[256] = "";
	long i = 0;
	double prev = NAN;
	if (fs_q_open(&q, path, err, sizeof err) == 0) {
		sqlite3_stmt *st = fs_q_prep(&q, "SELECT loader, epoch FROM steps WHERE pid = ?4 AND wait_s IS NOT NULL"
						 " AND compute_s IS NOT NULL ORDER BY t + compute_s");
		if (st)
			sqlite3_bind_int(st, 4, pid);
		for (; fs_q_step(&q, st); i++) {
			const char *loader = fs_q_col_text(st, 0);
			double epoch = fs_q_col(st, 1);
			if (i == 0)
				snprintf(first, sizeof first, "%s", loader);
			else if (strcmp(loader, first))
				continue;
			if (i < n)
				starts[i] = i == 0 || epoch != prev;
			prev = epoch;
		}
		sqlite3_finalize(st);
	}
	fs_q_close(&q);
	if (i != n)
		memset(starts, 0, (size_t)n);
	starts[0] = 1;
	return i == n;
}

/* ----------------------------------------------------------- the trial */

/* The figures over the window [first, last] of the trainer's steps s. */
static void figures(const char *path, struct fs_merge_file *f, const struct fs_window *w, long steps,
		    double wait, struct fs_tune_trial *t)
{
	double span = w->end_s - w->start_s;
	t->steps = steps;
	t->step_s = span > 0 ? span / (double)steps : NAN;
	t->wait_share = span > 0 ? fmin(1, wait / span) : NAN;
	t->samples_per_s = f->m.batch_size > 0 && span > 0 ? (double)steps * f->m.batch_size / span : NAN;
	t->cpu_cores = f->m.job_cpu_cores;
	t->mem_available_min_bytes = f->m.mem_available_min_bytes;
	t->ncpu = f->m.ncpu;
	t->quota_cores = f->m.cg_quota_cores;
	definitions(path, f->m.trainer_pid, t);
}

/* The verdict over the window (f loaded over it). */
static void verdict(struct fs_merge_file *f, const struct fs_window *w, struct fs_merged *g, struct fs_tune_trial *t)
{
	if (fs_merge(f, 1, w, g) != 0)
		return;
	t->have_verdict = true;
	t->verdict = g->v.primary;
	t->predicted_speedup = g->v.predicted_speedup;
	if (g->v.nrec > 0)
		snprintf(t->relieves, sizeof t->relieves, "%s", g->v.rec[0].relieves);
	moves_of(&g->v, t);
}

/* The window of the trial in f (its whole run loaded): into t (first_step,
 * steps, window, epoch_steps, step_se_rel), *w and *wait. Returns false
 * with t's status set when none fits. */
static bool window_of(const char *path, const struct fs_merge_file *f, long warmup, enum fs_tune_window mode,
		      struct fs_tune_trial *t, struct fs_window *w, double *wait)
{
	int L = f->m.trainer;
	const struct fs_steps_series *s = L >= 0 ? &f->steps[L] : NULL;
	long n = s ? (long)s->n : 0;
	char text[300];
	t->steps = n;
	if (n < warmup + 2) {
		snprintf(text, sizeof text, "%ld steps recorded, %ld needed (the warm-up and 2)", n, warmup + 2);
		fail(t, "too_few_steps", text);
		return false;
	}
	unsigned char *starts = malloc((size_t)n);
	if (!starts) {
		fail(t, "unreadable", "out of memory");
		return false;
	}
	int workers = t->eff.v[FS_KNOB_NUM_WORKERS];
	t->prefill = fs_tune_prefill(workers, t->eff.v[FS_KNOB_PREFETCH_FACTOR]);
	read_starts(path, f->m.loops[L].pid, n, starts);
	struct fs_tune_span sp;
	bool ok = fs_tune_span(starts, n, warmup, t->prefill, workers, mode, &sp);
	if (ok && sp.window == FS_TUNE_WINDOW_EPOCHS)
		t->step_se_rel = fs_tune_epoch_noise(s->end, sp.first > 0 ? s->end[sp.first - 1] : f->m.loops[L].t0,
						     starts, sp.first, sp.last);
	free(starts);
	if (!ok) {
		snprintf(text, sizeof text, "%ld steps recorded: no window of %s after %ld of warm-up and the loader's "
					    "first %ld batches",
			 n, mode == FS_TUNE_WINDOW_EPOCHS ? "a whole epoch" : "2 steps", warmup, t->prefill);
		fail(t, "too_few_steps", text);
		return false;
	}
	*w = (struct fs_window){sp.first > 0 ? s->end[sp.first - 1] : f->m.loops[L].t0, s->end[sp.last]};
	*wait = 0;
	for (long i = sp.first; i <= sp.last; i++)
		*wait += s->wait[i];
	long m = sp.last - sp.first + 1;
	/* whole rounds of the workers, as the window: a block is not cut in a burst */
	int round = workers > 1 && m % workers == 0 ? workers : 1;
	if (sp.window == FS_TUNE_WINDOW_STEPS)
		t->step_se_rel = fs_tune_step_noise(s->end, w->start_s, sp.first, sp.last + 1, round);
	t->first_step = sp.first;
	t->steps = m;
	t->window = sp.window;
	t->epoch_steps = sp.epoch_steps;
	return true;
}

int fs_tune_trial_read(const char *path, long warmup, enum fs_tune_window window, struct fs_tune_trial *t)
{
	char err[600];
	clear_figures(t);
	struct fs_merge_file *f = malloc(sizeof *f);
	struct fs_merged *g = malloc(sizeof *g);
	int rc = -1;
	if (!f || !g) {
		fail(t, "unreadable", "out of memory");
		goto out;
	}
	/* The whole run first: the trainer's steps give the window. */
	if (load(path, NULL, f, err, sizeof err) < 0) {
		fail(t, "unreadable", err);
		goto out;
	}
	effective(&f->m, &t->eff);
	memory_room(&f->m, t);
	struct fs_window w;
	double wait;
	bool ok = window_of(path, f, warmup, window, t, &w, &wait);
	fs_merge_file_free(f);
	if (!ok)
		goto out;
	/* Then the steady state: the verdict and the figures over the window. */
	if (load(path, &w, f, err, sizeof err) < 0) {
		fail(t, "unreadable", err);
		goto out;
	}
	long steps = t->steps;
	double se = t->step_se_rel;
	figures(path, f, &w, steps, wait, t);
	t->step_se_rel = se;
	verdict(f, &w, g, t);
	snprintf(t->status, sizeof t->status, "ok");
	t->status_text[0] = 0;
	not_applied(t);
	out_of_memory(&f->m, t);
	fs_merge_file_free(f);
	rc = 0;
out:
	free(f);
	free(g);
	return rc;
}
