/* whatif.c - a recommendation's own what-if (docs/verdicts.md, "A what-if
 * per recommendation"). Pure: a function of the metrics and the verdict's
 * accounting.
 *
 * With steps, the loop's step is as long as the longest of what it needs:
 * the device's time a step (speedup.h), the loaders' time to deliver a
 * batch, and the CPU the loaders need over the cores they may use. Input
 * bound, the loaders deliver a batch a step now, so their time a step is
 * the step; a change scales the parts of it (fs_loader_shares) and their
 * parallelism, and the new step is the longest of the three again: that
 * one is the limit that caps the change next. */
#include "analysis/advise/whatif.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/advise/speedup.h"
#include "util/fmt.h"

struct fs_change fs_change_input(const char *what)
{
	struct fs_change c = {.network = 1, .storage = 1, .metadata = 1, .cpu = 1, .idle = 1, .main = 1,
			      .parallel = 1, .cores = NAN, .bucket = -1, .bucket_left = 1, .bucket_floor = 0};
	snprintf(c.what, sizeof c.what, "%s", what);
	return c;
}

struct fs_change fs_change_bucket(const char *what, int bucket, double left, double floor)
{
	struct fs_change c = fs_change_input(what);
	c.bucket = bucket;
	c.bucket_left = left;
	c.bucket_floor = floor;
	return c;
}

/* The loaders' time in parts; from their sampled states where the tracer
 * did not time their calls. */
static void parts(const struct fs_metrics *m, double p[5])
{
	struct fs_loader_shares sh;
	if (fs_loader_shares(m, &sh)) {
		double v[5] = {sh.network, sh.storage, sh.metadata, sh.cpu, sh.idle};
		memcpy(p, v, sizeof v);
	} else {
		double v[5] = {0, m->loaders.blocked, 0, m->loaders.running, m->loaders.sleeping};
		memcpy(p, v, sizeof v);
	}
	double sum = 0;
	for (int i = 0; i < 5; i++)
		sum += p[i] = isfinite(p[i]) && p[i] > 0 ? p[i] : 0;
	for (int i = 0; i < 5; i++)
		p[i] = sum > 0 ? p[i] / sum : (i == 3);
}

static const char *const part_names[6] = {"socket reads", "file reads", "metadata calls", "CPU work",
					  "waiting", "the training process's own work in next()"};

/* The loaders' time after the change, as a share of now's, and the part
 * of it that is largest after the change. */
static double scaled(const struct fs_change *c, const double p[5], int *largest)
{
	double f[5] = {c->network, c->storage, c->metadata, c->cpu, c->idle};
	double sum = 0, big = -1;
	for (int i = 0; i < 5; i++) {
		double x = p[i] * f[i];
		sum += x;
		if (x > big) {
			big = x;
			*largest = i;
		}
	}
	return sum / fmax(c->parallel, 1e-9);
}

/* The share of the wait that is the training process's own work: the
 * hook's parts of next() (sampler and unpickling over the wait), else its
 * CPU while it waited (a core all the wait: all of it); NaN: not known. */
static double main_share(const struct fs_metrics *m)
{
	if (m->next_steps > 0 && m->next_wait_s > 0)
		return fmin(1, (m->next_index_s + m->next_get_cpu_s) / m->next_wait_s);
	return isfinite(m->main_wait_cores) ? fmin(1, m->main_wait_cores) : NAN;
}

static void name_device(const struct fs_metrics *m, char *out, size_t cap)
{
	const struct fs_loop_proc *T = fs_metrics_trainer(m);
	snprintf(out, cap, "%s", m->have_gpu || (T && T->dev_clock[0]) ? "the accelerator" : "the loop's own compute");
}

/* With steps: the longest of the device's time, the loaders' and their CPU floor. */
static void with_steps(const struct fs_metrics *m, const struct fs_change *c, struct fs_recommendation *r)
{
	char a[32];
	double steps = (double)m->steps;
	double step = m->loop_s / steps;
	double dev = fs_speedup_device_step(m, NULL, 0);
	double p[5];
	int largest = 3;
	parts(m, p);
	double ratio = scaled(c, p, &largest);
	/* the loaders' time a step after it: a training process that loads
	 * its own batches (no workers) waits for them in series with its
	 * compute; workers load alongside it */
	double wait = fmax(0, m->wait_s) / steps;
	double loaders = m->loaders_are_main ? step - wait + wait * ratio : step * ratio;
	if (c->main != 1 && isfinite(main_share(m))) {
		/* the training process's own work inside next(), in series with
		 * its compute: the share of the wait it is (a core busy all the
		 * wait: all of it) scaled */
		double own = main_share(m);
		loaders = step - wait * own * (1 - c->main);
		largest = 5;
	}
	double cores = isfinite(c->cores) ? c->cores : fs_speedup_loader_cores(m);
	double floor_s = 0;
	if (!m->loaders_are_main && isfinite(m->loaders.cpu_cores) && cores > 0 && m->duration_s > 0)
		floor_s = m->loaders.cpu_cores * m->duration_s / steps * c->cpu / cores;
	double next = fmax(dev, fmax(loaders, floor_s));
	r->speedup = fmax(1, step / fmax(next, 1e-9));
	if (next == dev)
		name_device(m, r->then, sizeof r->then);
	else if (next == floor_s)
		snprintf(r->then, sizeof r->then, "CPU (%s for the loaders)", fs_fmt_sig(a, 32, cores, 2, " cores"));
	else if (largest == 5)
		snprintf(r->then, sizeof r->then, "%s", part_names[largest]);
	else
		snprintf(r->then, sizeof r->then, "the loaders' %s", part_names[largest]);
}

/* Without steps: the input bucket shrinks by the loaders' time's ratio. */
static void without_steps(const struct fs_metrics *m, const struct fs_accounting *A, const struct fs_change *c,
			  struct fs_recommendation *r)
{
	double p[5];
	int largest = 3;
	parts(m, p);
	double ratio = scaled(c, p, &largest);
	if (c->main != 1 && isfinite(main_share(m))) { /* the training process's own part of the wait */
		ratio = 1 - main_share(m) * (1 - c->main);
		largest = 5;
	}
	double input = A->share[FS_BUCKET_INPUT];
	double left = input * fmin(1, ratio);
	r->speedup = 1 / fmax(1 - input + left, 1e-9);
	if (left >= A->share[FS_BUCKET_BUSY])
		snprintf(r->then, sizeof r->then, "%s%s", largest == 5 ? "" : "the loaders' ", part_names[largest]);
	else
		name_device(m, r->then, sizeof r->then);
}

static void bucket_change(const struct fs_metrics *m, const struct fs_accounting *A, const struct fs_change *c,
			  struct fs_recommendation *r)
{
	double b = A->share[c->bucket];
	double rest = 1 - b + b * c->bucket_left;
	double next = fmax(rest, c->bucket_floor);
	r->speedup = fmax(1, 1 / fmax(next, 1e-9));
	if (c->bucket_floor > rest) {
		snprintf(r->then, sizeof r->then, "the %s still needed alongside the loop", fs_bucket_name(c->bucket));
		return;
	}
	/* the largest of what is left */
	int big = FS_BUCKET_BUSY;
	for (int i = 0; i < FS_BUCKET__N; i++)
		if (i != c->bucket && A->share[i] > A->share[big])
			big = i;
	if (big == FS_BUCKET_BUSY)
		name_device(m, r->then, sizeof r->then);
	else
		snprintf(r->then, sizeof r->then, "the %s bucket (%.0f%% of the loop)", fs_bucket_name(big),
			 100 * A->share[big]);
}

void fs_whatif(const struct fs_metrics *m, const struct fs_verdict *v, const struct fs_change *c,
	       struct fs_recommendation *r)
{
	r->speedup = NAN;
	r->then[0] = '\0';
	snprintf(r->change, sizeof r->change, "%s", c->what);
	const struct fs_accounting *A = fs_verdict_trainer(v);
	if (!A || !A->valid)
		return;
	if (c->bucket >= 0 && c->bucket < FS_BUCKET__N)
		bucket_change(m, A, c, r);
	else if (m->have_steps && m->steps > 0 && m->loop_s > 0)
		with_steps(m, c, r);
	else
		without_steps(m, A, c, r);
}
