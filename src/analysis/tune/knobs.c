/* knobs.c - the knobs' names, values and a setting's words (knobs.h;
 * docs/tune.md). */
#include "analysis/tune/knobs.h"

#include <stdio.h>
#include <string.h>

static const char *const knob_names[FS_KNOB__N] = {
	[FS_KNOB_NUM_WORKERS] = "num_workers",
	[FS_KNOB_PREFETCH_FACTOR] = "prefetch_factor",
	[FS_KNOB_PIN_MEMORY] = "pin_memory",
	[FS_KNOB_PERSISTENT_WORKERS] = "persistent_workers",
	[FS_KNOB_BATCH_SIZE] = "batch_size",
	[FS_KNOB_WORKER_THREADS] = "worker_threads",
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

bool fs_tune_knob_is_bool(int k)
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

void fs_tune_knob_value(char *out, size_t cap, int k, int v)
{
	if (fs_tune_knob_is_bool(k))
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
		fs_tune_knob_value(v, sizeof v, i, k->v[i]);
		size_t n = strlen(out);
		if (n < cap)
			snprintf(out + n, cap - n, "%s%s=%s", n ? ", " : "", knob_names[i], v);
	}
	if (!out[0])
		snprintf(out, cap, "the job's own settings");
}
