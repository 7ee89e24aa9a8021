/* tune.c - the search's next setting, the best trial and whether tune
 * recommends it (tune.h; docs/tune.md). One trial's figures: trial.c; the
 * knobs: knobs.c. */
#include "analysis/tune/tune.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/judge/verdict.h"
#include "analysis/thresholds.h"
#include "util/fmt.h"

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

/* A setting ruled out for memory, said once. */
static void rule_out(struct fs_tune *T, const char *text)
{
	for (int i = 0; i < T->nruled; i++)
		if (!strcmp(T->ruled[i], text))
			return;
	if (T->nruled < (int)(sizeof T->ruled / sizeof T->ruled[0]))
		snprintf(T->ruled[T->nruled++], sizeof T->ruled[0], "%s", text);
}

/* One more worker's memory: best trial B's own, else the largest any
 * trial measured; NaN when none did. */
static double per_worker(const struct fs_tune *T, const struct fs_tune_trial *B)
{
	if (B->per_worker_bytes > 0)
		return B->per_worker_bytes;
	double pw = NAN;
	for (int i = 0; i < T->ntrials; i++)
		if (T->trials[i].per_worker_bytes > 0 && !(pw >= T->trials[i].per_worker_bytes))
			pw = T->trials[i].per_worker_bytes;
	return pw;
}

/* The most workers, up to want, that fit in the memory best trial B left:
 * its workers and as many more as its room holds at one worker's cost.
 * want itself when it fits or either figure is unknown; a smaller number
 * rules want out (said in T->ruled). */
static int workers_that_fit(struct fs_tune *T, const struct fs_tune_trial *B, int want)
{
	int cur = value_in(B, FS_KNOB_NUM_WORKERS);
	double pw = per_worker(T, B), room = B->mem_room_bytes;
	if (want <= cur || cur < 0 || !(pw > 0) || !isfinite(room))
		return want;
	int fit = cur + (room > 0 ? (int)floor(room / pw) : 0);
	if (fit >= want)
		return want;
	char a[32], b[32], c[32], text[360];
	snprintf(text, sizeof text, "num_workers=%d would not fit in memory: %d more worker%s at %s each is %s, and "
				    "trial %d left %s under %s%s",
		 want, want - cur, want - cur == 1 ? "" : "s", fs_fmt_bytes(a, sizeof a, pw),
		 fs_fmt_bytes(b, sizeof b, (want - cur) * pw), B->id, fs_fmt_bytes(c, sizeof c, fmax(room, 0)),
		 B->mem_room_of, fit > cur ? "" : ": no more workers fit");
	rule_out(T, text);
	return fit;
}

/* Whether doubling best trial B's prefetch fits: the batches in flight,
 * and so /dev/shm's use, double (as much again as its peak), held in
 * both /dev/shm's room and the memory's. Said in T->ruled when not. */
static bool prefetch_fits(struct fs_tune *T, const struct fs_tune_trial *B, int pf)
{
	double more = B->dev_shm_bytes;
	if (!(more > 0))
		return true;
	const char *of = NULL;
	double room = NAN;
	if (isfinite(B->shm_room_bytes) && more > B->shm_room_bytes) {
		of = "/dev/shm's size";
		room = B->shm_room_bytes;
	} else if (isfinite(B->mem_room_bytes) && more > B->mem_room_bytes) {
		of = B->mem_room_of;
		room = B->mem_room_bytes;
	}
	if (!of)
		return true;
	char a[32], b[32], text[360];
	snprintf(text, sizeof text, "prefetch_factor=%d would not fit in memory: twice the batches in flight add about "
				    "%s to /dev/shm (its peak again), and trial %d left %s under %s",
		 2 * pf, fs_fmt_bytes(a, sizeof a, more), B->id, fs_fmt_bytes(b, sizeof b, fmax(room, 0)), of);
	rule_out(T, text);
	return false;
}

/* Candidate i of best trial B (0: its verdict's first loader knob, ...):
 * 1 with it in *k, 0 when candidate i is no change (a knob not allowed,
 * already at that value), -1 when there are no more. */
static int candidate(struct fs_tune *T, const struct fs_tune_trial *B, int i, struct fs_tune_knobs *k,
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
		/* more workers only as many as fit in memory (none: no candidate) */
		if (mv->knob == FS_KNOB_NUM_WORKERS && value > value_in(B, mv->knob)) {
			value = workers_that_fit(T, B, value);
			if (value <= value_in(B, mv->knob))
				return 0;
		}
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
		k->v[FS_KNOB_NUM_WORKERS] = workers_that_fit(T, B, want > T->max_workers ? T->max_workers : want);
		if (k->v[FS_KNOB_NUM_WORKERS] <= w)
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
	if (pf <= 0 || value_in(B, FS_KNOB_NUM_WORKERS) == 0 || !prefetch_fits(T, B, pf))
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
		if (!usable(&T->trials[i]) || T->trials[i].confirms)
			continue;
		if (T->best < 0 || fs_tune_faster(&T->trials[T->best], &T->trials[i]))
			T->best = i;
	}
}

void fs_tune_again(const struct fs_tune *T, const struct fs_tune_trial **base_again,
		   const struct fs_tune_trial **best_again)
{
	*base_again = *best_again = NULL;
	for (int i = 1; i < T->ntrials; i++) {
		const struct fs_tune_trial *t = &T->trials[i];
		if (!t->confirms)
			continue;
		if (fs_tune_knobs_equal(&t->asked, &T->trials[0].asked))
			*base_again = t;
		else if (T->best > 0 && fs_tune_knobs_equal(&t->asked, &T->trials[T->best].asked))
			*best_again = t;
	}
}

/* Whether a change is recommended but for the second pair of runs; when
 * not, why says so. */
static bool recommends(const struct fs_tune *T, char *why, size_t cap)
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
	double s = fs_tune_speedup(base, B);
	if (!fs_tune_faster(base, B)) {
		snprintf(why, cap, "no change recommended: trial %d's %.3f× over the baseline is under the %.1f%% gain "
				   "needed (the minimum, or %.0f standard errors of the two measurements)",
			 B->id, s, 100 * fs_tune_gain_needed(base, B), fs_thresholds.tune_noise_z);
		return false;
	}
	return true;
}

bool fs_tune_needs_confirm(const struct fs_tune *T)
{
	char why[400];
	const struct fs_tune_trial *a, *b;
	fs_tune_again(T, &a, &b);
	return recommends(T, why, sizeof why) && (!a || !b);
}

bool fs_tune_recommends(const struct fs_tune *T, char *why, size_t cap)
{
	if (!recommends(T, why, cap))
		return false;
	const struct fs_tune_trial *B = &T->trials[T->best], *A2, *B2;
	fs_tune_again(T, &A2, &B2);
	double s = fs_tune_speedup(&T->trials[0], B);
	if (!A2 || !B2) {
		snprintf(why, cap, "no change recommended: trial %d's %.3f× over the baseline is unconfirmed: no second "
				   "pair of runs (its setting's and the baseline's again) was made (no time left in the "
				   "budget, or interrupted)",
			 B->id, s);
		return false;
	}
	if (!usable(A2) || !usable(B2)) {
		snprintf(why, cap, "no change recommended: trial %d's %.3f× over the baseline is unconfirmed: trial %d "
				   "(%s again) gave no steady state",
			 B->id, s, usable(B2) ? A2->id : B2->id, usable(B2) ? "the baseline" : "its setting");
		return false;
	}
	if (!fs_tune_faster(A2, B2)) {
		snprintf(why, cap, "no change recommended: trial %d's %.3f× over the baseline did not hold in a second "
				   "pair of runs: trial %d (its setting again) was %.3f× trial %d (the baseline again), "
				   "under the %.1f%% needed",
			 B->id, s, B2->id, fs_tune_speedup(A2, B2), A2->id, 100 * fs_tune_gain_needed(A2, B2));
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
	if (T->nruled > 0) {
		snprintf(why, cap, "what %s's verdict points to does not fit in memory: %s", T->best == 0 ? "the baseline" : "the best trial",
			 T->ruled[T->nruled - 1]);
		return FS_TUNE_CONVERGED;
	}
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
	int n = 0, threads = -1;
	for (int k = 0; k < FS_KNOB__N; k++) {
		int v = value_in(B, k);
		if (v < 0 || v == value_in(base, k))
			continue;
		if (k == FS_KNOB_WORKER_THREADS) { /* no keyword: said after the call */
			threads = v;
			n++;
			continue;
		}
		char s[16];
		fs_tune_knob_value(s, sizeof s, k, v);
		size_t len = strlen(out);
		if (len < cap)
			snprintf(out + len, cap - len, ", %s=%s", fs_tune_knob_name(k), s);
		n++;
	}
	size_t len = strlen(out);
	if (len < cap)
		snprintf(out + len, cap - len, ")%s", n ? "" : "  # the job's own settings");
	len = strlen(out);
	if (threads >= 0 && len < cap)
		snprintf(out + len, cap - len, "  # and torch.set_num_threads(%d) at the end of its worker_init_fn", threads);
}
