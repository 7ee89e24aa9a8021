/* threads.c (advise) - the oversubscription finding's predicted effect
 * (threads.h; docs/verdicts.md section 12). */
#include "analysis/advise/threads.h"

#include "analysis/advise/speedup.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Put the fix first among v's recommendations (the last one dropped when
 * they are full). */
static void first_rec(struct fs_verdict *v, const struct fs_oversub *o)
{
	int n = v->nrec < FS_MAX_RECS ? v->nrec : FS_MAX_RECS - 1;
	memmove(&v->rec[1], &v->rec[0], (size_t)n * sizeof v->rec[0]);
	v->nrec = n + 1;
	struct fs_recommendation *r = &v->rec[0];
	memset(r, 0, sizeof *r);
	snprintf(r->relieves, sizeof r->relieves, "%s", o->relieves);
	snprintf(r->knob, sizeof r->knob, "worker_threads");
	snprintf(r->current, sizeof r->current, "%.96s", o->current);
	snprintf(r->suggested, sizeof r->suggested, "1");
	snprintf(r->why, sizeof r->why, "the workers' thread pools fight for %.3g cores (%.0f%% of their time waiting on "
		 "a run queue): %.120s", o->cores, 100 * o->wait_share, o->suggested + 3);
	r->speedup = o->predicted_speedup;
	snprintf(r->change, sizeof r->change, "one thread per worker, the input's wait removed");
}

/* The most the loop can gain: its input wait removed, the mean step over
 * the larger of the compute and the device's own time
 * (fs_speedup_device_step); without steps, the verdict's 1 / (1 - input).
 * Not the verdict's CPU cap: the CPU a step takes now is what the pools'
 * spinning inflates (the oversub scenario: a cap of 1.02x, a fix of 3x).
 * Nothing the run shows bounds it lower: a worker's main thread spins at
 * its pool's barriers too, so its CPU is no floor of the work with one
 * thread (its CPU alone gave 2.05x where the fix gave 2.7-3.7x). */
static double up_to(const struct fs_metrics *m, const struct fs_verdict *v)
{
	if (!m->have_steps || m->steps <= 0)
		return v->predicted_speedup;
	double floor_s = fs_speedup_device_step(m, NULL, 0);
	return floor_s > 0 ? m->loop_s / (double)m->steps / floor_s : NAN;
}

void fs_advise_oversub(const struct fs_metrics *m, struct fs_verdict *v)
{
	struct fs_oversub *o = &v->oversub;
	if (!o->found)
		return;
	char what[160];
	snprintf(what, sizeof what, "with one thread per worker the job's threads would want %.1f CPUs of %.3g "
		 "(run-queue wait ~%.0f%% instead of %.0f%%)", o->after_runnable, o->cores, 100 * o->after_wait_share,
		 100 * o->wait_share);
	double most = up_to(m, v);
	if (v->primary == FS_VERDICT_CPU_PREPROCESS && isfinite(most)) {
		o->predicted_speedup = most;
		snprintf(o->why, sizeof o->why, "%.150s; the workers' CPU is what the loop waits for (cpu_preprocess): up to %.2fx, the input "
			 "wait removed; how much of it the pools' spinning holds only a run with the fix measures "
			 "(feedscope tune tries worker_threads=1)", what, most);
		first_rec(v, o);
	} else if (v->primary == FS_VERDICT_COMPUTE_BOUND) {
		o->predicted_speedup = 1;
		snprintf(o->why, sizeof o->why, "%.160s; the loop does not wait for input: no faster step, CPU freed for "
			 "the trainer and others", what);
	} else {
		snprintf(o->why, sizeof o->why, "%.160s; the loop waits for %s, not for the workers' CPU: CPU freed, no "
			 "step time predicted", what, fs_verdict_name(v->primary));
	}
}
