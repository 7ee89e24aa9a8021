/* phases.c - the loop's phases (phases.h). A candidate stretch is cut
 * where the loop's series changes level (load/phaseseries.c); it becomes a
 * phase of its own only when its diagnosis names another cause than its
 * neighbour's: a level that moves and a cause that stays is one phase. */
#include "analysis/advise/phases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/advise/diagnose.h"
#include "analysis/load/saturation.h"

static bool storage_family(enum fs_verdict_id id)
{
	return id == FS_VERDICT_STORAGE_BANDWIDTH || id == FS_VERDICT_STORAGE_LATENCY || id == FS_VERDICT_METADATA ||
	       id == FS_VERDICT_MEMORY_PRESSURE;
}

/* A phase from a diagnosis of its stretch. */
static void from_verdict(const struct fs_metrics *m, const struct fs_verdict *d, const struct fs_phase_span *s,
			 struct fs_phase *p)
{
	memset(p, 0, sizeof *p);
	p->start_s = s->start_s;
	p->end_s = s->end_s;
	p->first_epoch = s->first_epoch;
	p->last_epoch = s->last_epoch;
	p->primary = d->primary;
	p->input_bound_fraction = d->input_bound_fraction;
	p->confidence = d->confidence;
	p->predicted_speedup = d->predicted_speedup;
	if (m && storage_family(d->primary) && m->sat.have && m->sat.named != FS_LIMIT_NONE)
		snprintf(p->limit, sizeof p->limit, "storage %s", fs_limit_name(m->sat.named));
	else if (d->nrec > 0)
		snprintf(p->limit, sizeof p->limit, "%s", d->rec[0].relieves);
	if (d->nrec > 0) {
		snprintf(p->knob, sizeof p->knob, "%s", d->rec[0].knob);
		snprintf(p->suggested, sizeof p->suggested, "%s", d->rec[0].suggested);
	}
}

/* A runner-up names the cause id (the loaders' shares name the storage
 * family "storage": any of its verdicts). */
static bool names(const char *runner, enum fs_verdict_id id)
{
	return !strcmp(runner, fs_verdict_name(id)) || (!strcmp(runner, "storage") && storage_family(id));
}

/* The TF profiler's band of an input-bound share: not (< 5%), moderately,
 * highly (>= 20%); -1 not known. */
static int band(const struct fs_thresholds *t, double x)
{
	return !isfinite(x) ? -1 : x < t->input_bound_min ? 0 : x < t->input_bound_high ? 1 : 2;
}

/* compute_bound beside a cause, both in the same band: the loop waited
 * about as much in both, on either side of the input-wait floor, and what
 * changed is which side of it, not the bottleneck. */
static bool floor_call(const struct fs_thresholds *t, const struct fs_phase *a, const struct fs_phase *b)
{
	return (a->primary == FS_VERDICT_COMPUTE_BOUND) != (b->primary == FS_VERDICT_COMPUTE_BOUND) &&
	       band(t, a->input_bound_fraction) == band(t, b->input_bound_fraction);
}

/* b joins a (its right neighbour): the figures weighed by their lengths,
 * the limit and advice of the longer. */
static void join(struct fs_phase *a, const struct fs_phase *b)
{
	double la = a->end_s - a->start_s, lb = b->end_s - b->start_s, l = la + lb;
	double *fa[] = {&a->input_bound_fraction, &a->confidence, &a->predicted_speedup};
	const double fb[] = {b->input_bound_fraction, b->confidence, b->predicted_speedup};
	for (int i = 0; i < 3; i++)
		*fa[i] = isfinite(*fa[i]) && isfinite(fb[i]) && l > 0 ? (*fa[i] * la + fb[i] * lb) / l
		       : isfinite(*fa[i]) ? *fa[i] : fb[i];
	if (lb > la) {
		snprintf(a->limit, sizeof a->limit, "%s", b->limit);
		snprintf(a->knob, sizeof a->knob, "%s", b->knob);
		snprintf(a->suggested, sizeof a->suggested, "%s", b->suggested);
	}
	a->end_s = b->end_s;
	if (b->last_epoch >= 0)
		a->last_epoch = b->last_epoch;
	if (a->first_epoch < 0)
		a->first_epoch = b->first_epoch;
}

/* The whole run as its one phase. */
static void one_phase(const struct fs_phase_cands *c, struct fs_verdict *v, const struct fs_metrics *m)
{
	struct fs_phase_span whole = c->span[0];
	if (c->n > 1) {
		whole.end_s = c->span[c->n - 1].end_s;
		whole.last_epoch = c->span[c->n - 1].last_epoch;
	}
	from_verdict(m, v, &whole, &v->phase[0]);
	v->nphases = 1;
	v->steady = 0;
}

void fs_phases(const struct fs_phase_cands *c, const struct fs_metrics *m, const struct fs_metrics *seg,
	       const struct fs_thresholds *t, struct fs_verdict *v)
{
	snprintf(v->phase_method, sizeof v->phase_method, "%s", c->method);
	v->nphases = 0;
	if (c->n < 1) /* not sought */
		return;
	if (c->n < 2 || !seg) {
		one_phase(c, v, m);
		return;
	}
	struct fs_verdict *d = malloc(sizeof *d);
	if (!d) {
		one_phase(c, v, m);
		return;
	}
	int n = 0;
	char runner[FS_MAX_PHASES][32]; /* each phase's runner-up cause, "" if none was close */
	double conf[FS_MAX_PHASES];     /* the confidence of the stretch whose cause it has */
	for (int k = 0; k < c->n && k < FS_MAX_PHASES; k++) {
		fs_diagnose(&seg[k], t, d);
		struct fs_phase p;
		from_verdict(&seg[k], d, &c->span[k], &p);
		/* the same cause, or a close call between the two causes (each
		 * one's runner-up is the other's cause: the two are close in both
		 * stretches), or compute_bound beside a cause in the same band:
		 * one phase */
		bool same = n > 0 && (v->phase[n - 1].primary == p.primary ||
				      (names(d->runner_up, v->phase[n - 1].primary) && names(runner[n - 1], p.primary)) ||
				      floor_call(t, &v->phase[n - 1], &p));
		if (same) {
			/* the cause of the more confident of the two (the first's on a tie) */
			bool take = p.confidence > conf[n - 1];
			enum fs_verdict_id keep = take ? p.primary : v->phase[n - 1].primary;
			join(&v->phase[n - 1], &p);
			v->phase[n - 1].primary = keep;
			if (take) {
				conf[n - 1] = p.confidence;
				snprintf(runner[n - 1], sizeof runner[n - 1], "%s", d->runner_up);
			}
		} else {
			snprintf(runner[n], sizeof runner[n], "%s", d->runner_up);
			conf[n] = p.confidence;
			v->phase[n++] = p;
		}
	}
	free(d);
	if (n < 2) {
		one_phase(c, v, m);
		return;
	}
	v->nphases = n;
	v->steady = n - 1;
}
