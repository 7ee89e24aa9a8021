/* tune.c - one trial's figures from its run file, and the search's next
 * setting (tune.h; docs/tune.md). */
#include "analysis/tune.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/merge.h"
#include "analysis/metricdefs.h"
#include "analysis/query.h"
#include "analysis/thresholds.h"
#include "util/fmt.h"

static const char *const knob_names[FS_KNOB__N] = {
	[FS_KNOB_NUM_WORKERS] = "num_workers",
	[FS_KNOB_PREFETCH_FACTOR] = "prefetch_factor",
	[FS_KNOB_PIN_MEMORY] = "pin_memory",
	[FS_KNOB_PERSISTENT_WORKERS] = "persistent_workers",
	[FS_KNOB_BATCH_SIZE] = "batch_size",
};

const char *fs_tune_knob_name(enum fs_tune_knob k)
{
	return k < FS_KNOB__N ? knob_names[k] : "?";
}

int fs_tune_knob_parse(const char *name)
{
	for (int k = 0; k < FS_KNOB__N; k++)
		if (!strcmp(name, knob_names[k]))
			return k;
	return -1;
}

static bool is_bool(int k)
{
	return k == FS_KNOB_PIN_MEMORY || k == FS_KNOB_PERSISTENT_WORKERS;
}

void fs_tune_knobs_unset(struct fs_tune_knobs *k)
{
	for (int i = 0; i < FS_KNOB__N; i++)
		k->v[i] = -1;
}

bool fs_tune_knobs_equal(const struct fs_tune_knobs *a, const struct fs_tune_knobs *b)
{
	return !memcmp(a->v, b->v, sizeof a->v);
}

static void add(char *out, size_t cap, const char *fmt, const char *name, int v)
{
	size_t n = strlen(out);
	if (n < cap)
		snprintf(out + n, cap - n, fmt, name, v);
}

void fs_tune_knobs_env(const struct fs_tune_knobs *k, long steps, char *out, size_t cap)
{
	out[0] = 0;
	for (int i = 0; i < FS_KNOB__N; i++)
		if (k->v[i] >= 0)
			add(out, cap, "%s=%d ", knob_names[i], k->v[i]);
	size_t n = strlen(out);
	if (n < cap)
		snprintf(out + n, cap - n, "steps=%ld", steps);
}

static void knob_value(char *out, size_t cap, int k, int v)
{
	if (is_bool(k))
		snprintf(out, cap, "%s", v ? "True" : "False");
	else
		snprintf(out, cap, "%d", v);
}

void fs_tune_knobs_text(const struct fs_tune_knobs *k, char *out, size_t cap)
{
	out[0] = 0;
	for (int i = 0; i < FS_KNOB__N; i++) {
		if (k->v[i] < 0)
			continue;
		char v[16];
		knob_value(v, sizeof v, i, k->v[i]);
		size_t n = strlen(out);
		if (n < cap)
			snprintf(out + n, cap - n, "%s%s=%s", n ? ", " : "", knob_names[i], v);
	}
	if (!out[0])
		snprintf(out, cap, "the job's own settings");
}

/* ------------------------------------------------------------ one trial */

static void clear_figures(struct fs_tune_trial *t)
{
	t->steps = 0;
	t->step_s = t->samples_per_s = t->wait_share = t->cpu_cores = t->step_se_rel = NAN;
	t->main_rss_bytes = t->workers_rss_bytes = t->workers_pss_bytes = NAN;
	t->workers_pss_growth_bytes = t->dev_shm_bytes = t->mem_available_min_bytes = NAN;
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
		if (is_bool(k)) {
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

/* The memory figures, from the metric definitions over the window (the
 * trainer's RSS, its workers' RSS and PSS, their PSS growth, /dev/shm). */
static void definitions(const char *path, const struct fs_window *w, int trainer_pid, struct fs_tune_trial *t)
{
	struct fs_q q;
	char err[600];
	if (fs_q_open(&q, path, err, sizeof err) == 0) {
		q.w0 = w->start_s;
		q.w1 = w->end_s;
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
		knob_value(a, sizeof a, k, t->asked.v[k]);
		knob_value(e, sizeof e, k, t->eff.v[k]);
		snprintf(t->status, sizeof t->status, "not_applied");
		snprintf(t->status_text, sizeof t->status_text,
			 "asked for %s=%s, the loader had %s=%s: the trial measured another setting", knob_names[k], a,
			 knob_names[k], e);
		return;
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

#define NOISE_BLOCKS 8
#define NOISE_MIN_BLOCKS 4

double fs_tune_step_noise(const double *end_s, double start_s, long first, long n, int round)
{
	if (round < 1)
		round = 1;
	long rounds = (n - first) / round;
	if (rounds < NOISE_MIN_BLOCKS)
		return NAN;
	int nb = rounds < NOISE_BLOCKS ? (int)rounds : NOISE_BLOCKS;
	double mean[NOISE_BLOCKS], dev[NOISE_BLOCKS];
	for (int b = 0; b < nb; b++) {
		long i0 = first + (long)b * rounds / nb * round, i1 = first + (long)(b + 1) * rounds / nb * round;
		double t0 = i0 > 0 ? end_s[i0 - 1] : start_s;
		mean[b] = (end_s[i1 - 1] - t0) / (double)(i1 - i0);
	}
	double med = median(mean, nb);
	if (!(med > 0))
		return NAN;
	for (int b = 0; b < nb; b++)
		dev[b] = fabs(mean[b] - med);
	/* 1.4826 × MAD estimates a normal spread's standard deviation */
	return 1.4826 * median(dev, nb) / sqrt((double)nb) / med;
}

static int fail(struct fs_tune_trial *t, const char *status, const char *text)
{
	snprintf(t->status, sizeof t->status, "%s", status);
	snprintf(t->status_text, sizeof t->status_text, "%.600s", text);
	return -1;
}

int fs_tune_trial_read(const char *path, long warmup, struct fs_tune_trial *t)
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
	int L = f->m.trainer;
	const struct fs_steps_series *s = L >= 0 ? &f->steps[L] : NULL;
	long n = s ? (long)s->n : 0;
	if (n < warmup + 2) {
		char text[200];
		snprintf(text, sizeof text, "%ld steps recorded, %ld needed (the warm-up and 2)", n, warmup + 2);
		fs_merge_file_free(f);
		fail(t, "too_few_steps", text);
		t->steps = n;
		goto out;
	}
	/* Workers started together hand their batches over together: a window
	 * of whole rounds (a multiple of the workers) has no phase error, so
	 * the first (n - warmup) mod workers steps after the warm-up are left
	 * out too, as long as 2 steps remain. */
	int workers = t->eff.v[FS_KNOB_NUM_WORKERS];
	if (workers > 1 && (n - warmup) % workers && n - warmup - (n - warmup) % workers >= 2)
		warmup += (n - warmup) % workers;
	struct fs_window w = {warmup > 0 ? s->end[warmup - 1] : f->m.loops[L].t0, s->end[n - 1]};
	double wait = 0;
	for (long i = warmup; i < n; i++)
		wait += s->wait[i];
	/* whole rounds of the workers, as the window: a block is not cut in a burst */
	int round = workers > 1 && (n - warmup) % workers == 0 ? workers : 1;
	double noise = fs_tune_step_noise(s->end, w.start_s, warmup, n, round);
	fs_merge_file_free(f);

	/* Then the steady state: the verdict and the figures over the window. */
	if (load(path, &w, f, err, sizeof err) < 0) {
		fail(t, "unreadable", err);
		goto out;
	}
	double span = w.end_s - w.start_s;
	t->steps = n - warmup;
	t->step_s = span > 0 ? span / (double)t->steps : NAN;
	t->step_se_rel = noise;
	t->wait_share = span > 0 ? fmin(1, wait / span) : NAN;
	t->samples_per_s = f->m.batch_size > 0 && span > 0 ? (double)t->steps * f->m.batch_size / span : NAN;
	t->cpu_cores = f->m.job_cpu_cores;
	t->mem_available_min_bytes = f->m.mem_available_min_bytes;
	t->ncpu = f->m.ncpu;
	t->quota_cores = f->m.cg_quota_cores;
	definitions(path, &w, f->m.trainer_pid, t);
	if (fs_merge(f, 1, &w, g) == 0) {
		t->have_verdict = true;
		t->verdict = g->v.primary;
		t->predicted_speedup = g->v.predicted_speedup;
		if (g->v.nrec > 0)
			snprintf(t->relieves, sizeof t->relieves, "%s", g->v.rec[0].relieves);
		moves_of(&g->v, t);
	}
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

/* ------------------------------------------------------------ the search */

static const char *const stop_names[] = {
	[FS_TUNE_GOING] = "going",
	[FS_TUNE_CONVERGED] = "converged",
	[FS_TUNE_NO_KNOB_HELPS] = "no_knob_helps",
	[FS_TUNE_COMPUTE_BOUND] = "compute_bound",
	[FS_TUNE_BUDGET] = "budget",
	[FS_TUNE_NO_DATALOADER] = "no_dataloader",
	[FS_TUNE_JOB_FAILED] = "job_failed",
	[FS_TUNE_INTERRUPTED] = "interrupted",
};

const char *fs_tune_stop_name(enum fs_tune_stop s)
{
	return s <= FS_TUNE_INTERRUPTED ? stop_names[s] : "?";
}

static bool usable(const struct fs_tune_trial *t)
{
	return !strcmp(t->status, "ok") && isfinite(t->step_s) && t->step_s > 0;
}

double fs_tune_speedup(const struct fs_tune_trial *a, const struct fs_tune_trial *b)
{
	if (!usable(a) || !usable(b))
		return NAN;
	int ba = a->eff.v[FS_KNOB_BATCH_SIZE], bb = b->eff.v[FS_KNOB_BATCH_SIZE];
	if (ba > 0 && bb > 0 && ba != bb)
		return isfinite(a->samples_per_s) && a->samples_per_s > 0 ? b->samples_per_s / a->samples_per_s : NAN;
	return a->step_s / b->step_s;
}

double fs_tune_gain_needed(const struct fs_tune_trial *a, const struct fs_tune_trial *b)
{
	const struct fs_thresholds *th = &fs_thresholds;
	double se = sqrt(a->step_se_rel * a->step_se_rel + b->step_se_rel * b->step_se_rel);
	return isfinite(se) ? fmax(th->tune_min_gain, th->tune_noise_z * se) : th->tune_min_gain;
}

bool fs_tune_faster(const struct fs_tune_trial *a, const struct fs_tune_trial *b)
{
	double s = fs_tune_speedup(a, b);
	return isfinite(s) && s >= 1 + fs_tune_gain_needed(a, b);
}

static bool tried(const struct fs_tune *T, const struct fs_tune_knobs *k)
{
	for (int i = 0; i < T->ntrials; i++)
		if (fs_tune_knobs_equal(&T->trials[i].asked, k))
			return true;
	return false;
}

/* The value a knob has in trial t: what it asked, else what the job had. */
static int value_in(const struct fs_tune_trial *t, int k)
{
	return t->asked.v[k] >= 0 ? t->asked.v[k] : t->eff.v[k];
}

/* Latency-type causes: more workers, and deeper prefetch, keep more
 * samples in flight. */
static bool latency_cause(enum fs_verdict_id v)
{
	return v == FS_VERDICT_LOADER_PARALLELISM || v == FS_VERDICT_STORAGE_LATENCY || v == FS_VERDICT_NETWORK;
}

/* Candidate i of best trial B (0: its verdict's first loader knob, ...):
 * 1 with it in *k, 0 when candidate i is no change (a knob not allowed,
 * already at that value), -1 when there are no more. */
static int candidate(const struct fs_tune *T, const struct fs_tune_trial *B, int i, struct fs_tune_knobs *k,
		      char *why, size_t cap)
{
	if (!B->have_verdict)
		return -1;
	/* the verdict's own recommendations, then deeper prefetch for a
	 * latency-type cause that also asked for more workers */
	int nmoves = B->nmoves, workers_move = -1;
	for (int j = 0; j < B->nmoves; j++)
		if (B->moves[j].knob == FS_KNOB_NUM_WORKERS)
			workers_move = j;
	bool prefetch = latency_cause(B->verdict) && workers_move >= 0 && (T->knobs >> FS_KNOB_PREFETCH_FACTOR & 1);
	/* and last, only where --knobs allows it, a batch twice as large:
	 * per-batch costs (collate, the hand-over between processes) are paid
	 * half as often; it is compared in samples/s */
	bool batch = (T->knobs >> FS_KNOB_BATCH_SIZE & 1) && value_in(B, FS_KNOB_BATCH_SIZE) > 0;
	/* an input-bound loop whose cause the verdict could not name: one
	 * measured try of twice the workers (no verdict says it would not help) */
	bool guess = B->verdict == FS_VERDICT_UNDETERMINED && (T->knobs >> FS_KNOB_NUM_WORKERS & 1) &&
		     value_in(B, FS_KNOB_NUM_WORKERS) >= 0;
	/* memory pressure (the page cache cannot keep the data): fewer workers
	 * hold less memory and leave more of it to the cache */
	bool fewer = B->verdict == FS_VERDICT_MEMORY_PRESSURE && (T->knobs >> FS_KNOB_NUM_WORKERS & 1) &&
		     value_in(B, FS_KNOB_NUM_WORKERS) > 1;
	if (i >= nmoves + prefetch + batch + guess + fewer)
		return -1;
	if (fewer && i == nmoves + prefetch + batch + guess) {
		k->v[FS_KNOB_NUM_WORKERS] = value_in(B, FS_KNOB_NUM_WORKERS) / 2;
		snprintf(why, cap, "memory_pressure: fewer workers hold less memory and leave more to the page cache");
		return 1;
	}
	*k = B->asked;
	if (i < nmoves) {
		const struct fs_tune_move *mv = &B->moves[i];
		if (!(T->knobs >> mv->knob & 1))
			return 0;
		int value = mv->value;
		if (mv->knob == FS_KNOB_NUM_WORKERS && value > T->max_workers)
			value = T->max_workers;
		if (value == value_in(B, mv->knob))
			return 0;
		k->v[mv->knob] = value;
		/* a loader without workers has no prefetch or persistence to set */
		if (mv->knob == FS_KNOB_PERSISTENT_WORKERS && value && value_in(B, FS_KNOB_NUM_WORKERS) == 0)
			return 0;
		snprintf(why, cap, "%s: %s%s%s", fs_verdict_name(B->verdict), fs_tune_knob_name(mv->knob),
			 mv->relieves[0] ? " relieves " : "", mv->relieves);
		return 1;
	}
	if (guess && i == nmoves + prefetch + batch) {
		int w = value_in(B, FS_KNOB_NUM_WORKERS);
		int want = w > 0 ? 2 * w : 2;
		k->v[FS_KNOB_NUM_WORKERS] = want > T->max_workers ? T->max_workers : want;
		if (k->v[FS_KNOB_NUM_WORKERS] == w)
			return 0;
		snprintf(why, cap, "undetermined: the verdict names no cause, so one measured try of more workers");
		return 1;
	}
	if (batch && i == nmoves + prefetch) {
		k->v[FS_KNOB_BATCH_SIZE] = 2 * value_in(B, FS_KNOB_BATCH_SIZE);
		snprintf(why, cap, "%s: batch_size ×2 (allowed by --knobs): per-batch costs paid half as often",
			 fs_verdict_name(B->verdict));
		return 1;
	}
	int pf = value_in(B, FS_KNOB_PREFETCH_FACTOR);
	if (pf <= 0 || value_in(B, FS_KNOB_NUM_WORKERS) == 0)
		return 0;
	k->v[FS_KNOB_PREFETCH_FACTOR] = 2 * pf;
	snprintf(why, cap, "%s: deeper prefetch keeps more samples in flight", fs_verdict_name(B->verdict));
	return 1;
}

/* The best trial: the first usable one, replaced by a later one only when
 * that is faster by the gain needed (fs_tune_faster: the minimum gain, and
 * beyond the two measurements' noise). Of two settings within that of
 * each other, the earlier (cheaper, closer to the job's own) stays. */
static void update_best(struct fs_tune *T)
{
	T->best = -1;
	for (int i = 0; i < T->ntrials; i++) {
		if (!usable(&T->trials[i]))
			continue;
		if (T->best < 0 || fs_tune_faster(&T->trials[T->best], &T->trials[i]))
			T->best = i;
	}
}

bool fs_tune_recommends(const struct fs_tune *T, char *why, size_t cap)
{
	why[0] = 0;
	if (T->best < 0) {
		snprintf(why, cap, "no change recommended: no trial gave a steady state");
		return false;
	}
	const struct fs_tune_trial *base = &T->trials[0], *B = &T->trials[T->best];
	if (T->best == 0) {
		int n = snprintf(why, cap, "no change recommended: the job's own settings (trial 0) are the fastest measured");
		if (T->ntrials > 1 && base->have_verdict && isfinite(base->predicted_speedup) && n > 0 && (size_t)n < cap)
			snprintf(why + n, cap - (size_t)n, "; the baseline's verdict, %s, predicted %.2f×, and no trial "
							   "of what it points to gained what counts",
				 fs_verdict_name(base->verdict), base->predicted_speedup);
		return false;
	}
	if (!fs_tune_faster(base, B)) {
		snprintf(why, cap, "no change recommended: trial %d's %.3f× over the baseline is under the %.1f%% gain "
				   "needed (the minimum, or %.0f standard errors of the two measurements)",
			 B->id, fs_tune_speedup(base, B), 100 * fs_tune_gain_needed(base, B), fs_thresholds.tune_noise_z);
		return false;
	}
	return true;
}

enum fs_tune_stop fs_tune_next(struct fs_tune *T, struct fs_tune_knobs *next, char *why, size_t cap)
{
	update_best(T);
	const struct fs_tune_trial *base = &T->trials[0];
	if (!usable(base)) {
		if (!strcmp(base->status, "too_few_steps") && base->steps == 0) {
			snprintf(why, cap, "the job timed no DataLoader steps: it created no torch DataLoader (or "
					   "iterated none in its main process), so there is nothing to tune");
			return FS_TUNE_NO_DATALOADER;
		}
		snprintf(why, cap, "the baseline trial did not give a steady state: %s",
			 base->status_text[0] ? base->status_text : base->status);
		return FS_TUNE_JOB_FAILED;
	}
	int last = T->ntrials - 1;
	if (last > 0 && T->best != last) {
		const struct fs_tune_trial *t = &T->trials[last], *B = &T->trials[T->best];
		double s = fs_tune_speedup(B, t);
		char k[160];
		fs_tune_knobs_text(&t->asked, k, sizeof k);
		if (usable(t))
			snprintf(why, cap, "trial %d (%s) was %.3f× trial %d: a gain under the %.1f%% needed", t->id, k, s,
				 B->id, 100 * fs_tune_gain_needed(B, t));
		else
			snprintf(why, cap, "trial %d (%s) is no candidate (%s: %s)", t->id, k, t->status,
				 t->status_text[0] ? t->status_text : "no steady state");
		return FS_TUNE_CONVERGED;
	}
	const struct fs_tune_trial *B = &T->trials[T->best];
	if (B->have_verdict && B->verdict == FS_VERDICT_COMPUTE_BOUND) {
		if (T->best == 0)
			snprintf(why, cap, "the loop does not wait for input (input wait %.0f%% of a step): no loader "
					   "setting makes it faster", 100 * B->wait_share);
		else
			snprintf(why, cap, "trial %d left the loop waiting for input %.0f%% of a step: compute-bound", B->id,
				 100 * B->wait_share);
		return T->best == 0 ? FS_TUNE_COMPUTE_BOUND : FS_TUNE_CONVERGED;
	}
	for (int i = 0;; i++) {
		char reason[160];
		int c = candidate(T, B, i, next, reason, sizeof reason);
		if (c < 0)
			break;
		if (c > 0 && !tried(T, next)) {
			snprintf(why, cap, "%s", reason);
			return FS_TUNE_GOING;
		}
	}
	/* nothing the verdict points to is left */
	if (T->best == 0 && B->have_verdict && B->verdict == FS_VERDICT_UNDETERMINED) {
		snprintf(why, cap, "the baseline's verdict names no cause (undetermined: `feedscope report` on its run file "
				   "says what was missing) and num_workers may not change");
		return FS_TUNE_CONVERGED;
	}
	if (T->best == 0) {
		if (B->have_verdict)
			snprintf(why, cap, "the cause is %s%s%s: no loader setting relieves it", fs_verdict_name(B->verdict),
				 B->relieves[0] ? ", the remedy is for " : "", B->relieves);
		else
			snprintf(why, cap, "the baseline has no verdict to follow");
		return FS_TUNE_NO_KNOB_HELPS;
	}
	snprintf(why, cap, "trial %d's verdict (%s) points to no loader setting not yet tried", B->id,
		 B->have_verdict ? fs_verdict_name(B->verdict) : "none");
	return FS_TUNE_CONVERGED;
}

void fs_tune_python(const struct fs_tune *T, char *out, size_t cap)
{
	out[0] = 0;
	if (T->best < 0)
		return;
	const struct fs_tune_trial *B = &T->trials[T->best], *base = &T->trials[0];
	snprintf(out, cap, "DataLoader(...");
	int n = 0;
	for (int k = 0; k < FS_KNOB__N; k++) {
		int v = value_in(B, k);
		if (v < 0 || v == value_in(base, k))
			continue;
		char s[16];
		knob_value(s, sizeof s, k, v);
		size_t len = strlen(out);
		if (len < cap)
			snprintf(out + len, cap - len, ", %s=%s", knob_names[k], s);
		n++;
	}
	size_t len = strlen(out);
	if (len < cap)
		snprintf(out + len, cap - len, ")%s", n ? "" : "  # the job's own settings");
}
