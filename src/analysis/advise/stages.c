/* stages.c - cpu_preprocess's fix for the stage that holds the loaders'
 * time (stages.h). Which fix follows from the measured shares and the
 * stage's kind; the names only say which transforms draw at random and
 * which resize. */
#include "analysis/advise/stages.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The class name of a stage: what follows the last ':' ("transform[2]:RandomResizedCrop"). */
static const char *label(const char *name)
{
	const char *c = strrchr(name, ':');
	return c ? c + 1 : name;
}

bool fs_stage_is_random(const char *name)
{
	static const char *const known[] = {"ColorJitter", "AutoAugment", "RandAugment", "TrivialAugmentWide",
					    "AugMix", "GaussianBlur", "ElasticTransform", "RandomApply",
					    "RandomChoice", "RandomOrder", "Jitter", "Augment"};
	const char *l = label(name);
	/* Random* (torchvision), Rand + a capital (MONAI: RandFlip, RandRotate) */
	if (!strncmp(l, "Random", 6) || (!strncmp(l, "Rand", 4) && l[4] >= 'A' && l[4] <= 'Z'))
		return true;
	for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
		if (strstr(l, known[i]))
			return true;
	return false;
}

static bool is_resize(const char *name)
{
	return strcasestr(label(name), "resize") != NULL;
}

/* The first random transform's place in the pipeline (a large number: none). */
static int first_random(const struct fs_stages *st)
{
	int first = 1 << 30;
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->s[i].kind, "transform") && st->s[i].index >= 0 && fs_stage_is_random(st->s[i].name) &&
		    st->s[i].index < first)
			first = st->s[i].index;
	return first;
}

/* The change that takes `left` of CPU seconds cpu_s away from the loaders'
 * CPU producing batches. */
static struct fs_change cpu_change(const struct fs_stages *st, double cpu_s, double left, const char *what)
{
	struct fs_change c = fs_change_input(what);
	double total = st->busy_cpu_s > 0 ? st->busy_cpu_s : st->busy_s;
	c.cpu = total > 0 ? fmax(0, 1 - fmin(cpu_s, total) * (1 - left) / total) : 1;
	return c;
}

/* Cache what precedes the first random transform: the getitem's own work
 * and the deterministic transforms before it. */
static bool cache_prefix(const struct fs_stages *st, int first, const struct fs_thresholds *t, struct fs_stage_fix *fx)
{
	double cpu = 0, share = 0;
	int k = 0;
	char names[160] = "";
	for (int i = 0; i < st->n; i++) {
		const struct fs_loader_stage *s = &st->s[i];
		bool before = !strcmp(s->kind, "getitem") || (!strcmp(s->kind, "transform") && s->index >= 0 && s->index < first);
		if (!before)
			continue;
		cpu += s->self_cpu_s;
		share += s->self_share;
		if (k++ < 3)
			snprintf(names + strlen(names), sizeof names - strlen(names), "%s%.40s", k > 1 ? ", " : "", s->name);
	}
	if (!(share >= t->stage_named_share))
		return false;
	snprintf(fx->relieves, sizeof fx->relieves, "CPU (the deterministic stages)");
	snprintf(fx->knob, sizeof fx->knob, "cache before the first random transform");
	snprintf(fx->current, sizeof fx->current, "%.80s: %.0f%% of the workers' time, every epoch", names, 100 * share);
	snprintf(fx->suggested, sizeof fx->suggested, "computed once and cached (as MONAI's CacheDataset does)");
	snprintf(fx->why, sizeof fx->why, "no transform before them draws at random (by their names: check that they are "
		 "deterministic), so their output is the same every epoch; cache it in memory or on local disk "
		 "and run only what follows each epoch");
	fx->change = cpu_change(st, cpu, 0, "the stages before the first random transform cached");
	return true;
}

bool fs_stage_fix(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_stage_fix *fx)
{
	const struct fs_stages *st = &m->stages;
	if (!st->timed || st->n == 0 || !(st->s[0].self_share >= t->stage_named_share))
		return false;
	const struct fs_loader_stage *top = &st->s[0];
	int first = first_random(st);
	memset(fx, 0, sizeof *fx);
	bool resize = false;
	for (int i = 0; i < st->n; i++)
		resize |= !strcmp(st->s[i].kind, "transform") && is_resize(st->s[i].name);
	if (!strcmp(top->kind, "getitem") && resize && top->self_cpu_s >= 0.5 * top->self_s) {
		snprintf(fx->relieves, sizeof fx->relieves, "CPU (decoding: %.40s)", top->name);
		snprintf(fx->knob, sizeof fx->knob, "decode size");
		snprintf(fx->current, sizeof fx->current, "%.60s itself %.0f%% of the workers' time, then a resize",
			 top->name, 100 * top->self_share);
		snprintf(fx->suggested, sizeof fx->suggested, "decode at a reduced size (PIL draft(), DALI's fused decode+resize)");
		snprintf(fx->why, sizeof fx->why, "the samples are decoded at full size and resized after: a JPEG decoder "
			 "scales by 1/2 to 1/8 while it decodes (libjpeg's DCT scaling) for a fraction of the CPU");
		fx->change = cpu_change(st, top->self_cpu_s, t->stage_fix_left, "the decode at half its CPU");
		return true;
	}
	if (!strcmp(top->kind, "getitem") || (!strcmp(top->kind, "transform") && top->index >= 0 && top->index < first))
		return cache_prefix(st, first, t, fx);
	if (!strcmp(top->kind, "transform")) {
		snprintf(fx->relieves, sizeof fx->relieves, "CPU (%.56s)", top->name);
		snprintf(fx->knob, sizeof fx->knob, "%.63s", top->name);
		snprintf(fx->current, sizeof fx->current, "in the workers, %.0f%% of their time (CPU %.0f%% of it)",
			 100 * top->self_share, top->self_s > 0 ? 100 * fmin(1, top->self_cpu_s / top->self_s) : 0);
		snprintf(fx->suggested, sizeof fx->suggested, "on the accelerator, on the batch (transforms v2 on device, Kornia, DALI)");
		snprintf(fx->why, sizeof fx->why, "one transform holds the workers' time; on the accelerator it runs on a "
			 "whole batch at once after the copy, and the workers only decode");
		fx->change = cpu_change(st, top->self_cpu_s, 0, "the transform's CPU off the workers");
		return true;
	}
	if (!strcmp(top->kind, "collate")) {
		snprintf(fx->relieves, sizeof fx->relieves, "CPU (collate_fn)");
		snprintf(fx->knob, sizeof fx->knob, "collate_fn");
		snprintf(fx->current, sizeof fx->current, "%.0f%% of the workers' time, once per batch", 100 * top->self_share);
		snprintf(fx->suggested, sizeof fx->suggested, "vectorised: one torch.stack / pad_sequence per batch");
		snprintf(fx->why, sizeof fx->why, "the collate holds the workers' time: per-sample Python work in it (lists, "
			 "padding, conversions) is the usual cost; return tensors from the dataset and stack or pad "
			 "them in one call");
		fx->change = cpu_change(st, top->self_cpu_s, t->stage_fix_left, "the collate_fn at half its CPU");
		return true;
	}
	return false;
}
