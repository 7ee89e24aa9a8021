#include "record/recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"

struct slot {
	const struct fs_source_ops *ops;
	void *state;
	bool open;
	bool said_sample_error;
	char status[256];
	uint64_t cpu_ns; /* CPU time spent in sample() on the timed ticks, rows handed to the sink included */
	bool every_tick;  /* not machine-wide, or the system interval is a tick's */
	double last_t;    /* machine-wide: the tick it was last sampled at; < 0 never */
};

/* Each source's CPU time is read around its sample() on one tick in this
 * many (a thread CPU clock read is a system call: one per source per tick
 * was 3% of the recorder's CPU at 0.1 s); the tick's total, every tick; a
 * machine-wide source's at each of its samples (once a system interval). */
#define TIME_SOURCES_EVERY 8

struct fs_recorder {
	const struct fs_paths *paths;
	struct fs_sink *sink;
	struct fs_job *job;
	struct slot *slots;
	int nslots;
	uint64_t ticks, busy_ns;
	uint64_t timed_ticks; /* ticks whose sources were timed one by one */
	double prev_t;
	double system_s; /* the machine-wide sources' interval (opts) */
	/* the sink's tick_end (a run file inserts a second's rows and commits
	 * there): its CPU over the run, and the last one's wall and CPU time,
	 * counted in the next tick's ticks row */
	uint64_t store_cpu_ns, tick_end_ns, tick_end_cpu_ns;
};

static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (len == n && strncmp(p, name, n) == 0)
			return true;
		p = end ? end + 1 : NULL;
	}
	return false;
}

struct fs_recorder *fs_recorder_open(const struct fs_paths *paths, struct fs_sink *sink,
				     struct fs_job *job,
				     const struct fs_recorder_opts *opts, double t)
{
	struct fs_recorder *r = calloc(1, sizeof *r);
	int n = 0;
	while (fs_sources[n])
		n++;
	if (!r || !(r->slots = calloc((size_t)n, sizeof *r->slots))) {
		free(r);
		return NULL;
	}
	r->paths = paths;
	r->sink = sink;
	r->job = job;
	r->nslots = n;
	r->prev_t = t;
	r->system_s = opts->system_interval_s;
	struct fs_source_ctx ctx = {.paths = paths, .sink = sink, .job = job, .t = t};
	for (int i = 0; i < n; i++) {
		struct slot *s = &r->slots[i];
		s->ops = fs_sources[i];
		s->every_tick = !s->ops->machine || !(opts->system_interval_s > 0);
		s->last_t = -1;
		char key[64];
		snprintf(key, sizeof key, "source.%s", s->ops->name);
		if (s->ops->abi != FS_SOURCE_ABI) {
			snprintf(s->status, sizeof s->status, "unavailable: built for source ABI %d, not %d",
				 s->ops->abi, FS_SOURCE_ABI);
		} else if ((opts->no_gpu && strcmp(s->ops->name, "gpu") == 0) ||
			   (opts->only && !listed(opts->only, s->ops->name))) {
			snprintf(s->status, sizeof s->status, "disabled");
		} else {
			char why[200] = "";
			ctx.now_ns = fs_now_ns();
			int rc = s->ops->open(&s->state, &ctx, why, sizeof why);
			if (rc == FS_SOURCE_OK) {
				s->open = true;
				snprintf(s->status, sizeof s->status, "ok");
			} else if (rc == FS_SOURCE_DISABLED) {
				snprintf(s->status, sizeof s->status, "disabled: %s", why);
			} else {
				snprintf(s->status, sizeof s->status, "unavailable: %s", why);
				fs_warn("%s: %s; skipped", s->ops->name, why);
			}
		}
		fs_sink_meta(sink, key, s->status);
	}
	return r;
}

/* Whether a machine-wide source is due at the tick at t: a system interval
 * since its last sample, less half a tick (a tick that comes a little early
 * counts; one late by most of a tick would not wait a whole interval more). */
static bool due(const struct fs_recorder *r, const struct slot *s, double t)
{
	if (s->every_tick || s->last_t < 0)
		return true;
	return t - s->last_t + (t - r->prev_t) / 2 >= r->system_s;
}

void fs_recorder_sample(struct fs_recorder *r, double t, uint64_t missed)
{
	uint64_t start = fs_now_ns();
	uint64_t cpu_start = fs_thread_cpu_ns(), cpu_mark = cpu_start;
	bool timed = r->ticks % TIME_SOURCES_EVERY == 0;
	r->timed_ticks += timed;
	struct fs_source_ctx ctx = {.paths = r->paths, .sink = r->sink, .job = r->job, .t = t};
	for (int i = 0; i < r->nslots; i++) {
		struct slot *s = &r->slots[i];
		if (!s->open || !due(r, s, t))
			continue;
		char why[200] = "";
		ctx.now_ns = fs_now_ns();
		if (!timed && !s->every_tick)
			cpu_mark = fs_thread_cpu_ns();
		int rc = s->ops->sample(s->state, &ctx, why, sizeof why);
		s->last_t = t;
		if (timed || !s->every_tick) {
			uint64_t cpu_now = fs_thread_cpu_ns();
			s->cpu_ns += cpu_now - cpu_mark;
			cpu_mark = cpu_now;
		}
		if (rc != FS_SOURCE_OK && !s->said_sample_error) {
			s->said_sample_error = true;
			fs_warn("%s: %s (said once; still trying)", s->ops->name, why);
		}
	}
	if (!timed)
		cpu_mark = fs_thread_cpu_ns();
	uint64_t busy = fs_now_ns() - start + r->tick_end_ns;
	struct fs_row row;
	fs_row_init(&row, FS_T_TICKS, t);
	if (r->ticks > 0)
		fs_row_real(&row, FS_TICKS_dt_s, t - r->prev_t);
	fs_row_real(&row, FS_TICKS_sample_us, (double)busy / 1e3);
	fs_row_real(&row, FS_TICKS_cpu_us, (double)(cpu_mark - cpu_start + r->tick_end_cpu_ns) / 1e3);
	fs_row_int(&row, FS_TICKS_missed, (int64_t)missed);
	fs_sink_row(r->sink, &row);
	uint64_t end_start = fs_now_ns();
	if (r->sink->tick_end)
		r->sink->tick_end(r->sink, t);
	uint64_t end_ns = fs_now_ns(), end_cpu = fs_thread_cpu_ns();
	r->tick_end_ns = end_ns - end_start;
	r->tick_end_cpu_ns = end_cpu - cpu_mark;
	r->store_cpu_ns += r->tick_end_cpu_ns;
	r->busy_ns += end_ns - start;
	r->ticks++;
	r->prev_t = t;
}

uint64_t fs_recorder_ticks(const struct fs_recorder *r)
{
	return r->ticks;
}

uint64_t fs_recorder_busy_ns(const struct fs_recorder *r)
{
	return r->busy_ns;
}

void fs_recorder_missing(const struct fs_recorder *r, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (int i = 0; i < r->nslots; i++) {
		if (r->slots[i].open)
			continue;
		int n = snprintf(out + len, cap - len, "%s%s", len ? "," : "", r->slots[i].ops->name);
		if (n < 0 || (size_t)n >= cap - len)
			break;
		len += (size_t)n;
	}
}

void fs_recorder_finish(struct fs_recorder *r)
{
	struct fs_source_ctx ctx = {.paths = r->paths, .sink = r->sink, .job = r->job, .t = r->prev_t};
	/* The machine-wide sources once more, so that their rows cover the run
	 * to its last tick (the rows go with it: its t, their own dt_s). */
	ctx.final = true;
	for (int i = 0; i < r->nslots; i++) {
		struct slot *s = &r->slots[i];
		if (!s->open || s->every_tick || s->last_t < 0 || s->last_t >= r->prev_t)
			continue;
		char why[200] = "";
		ctx.now_ns = fs_now_ns();
		s->ops->sample(s->state, &ctx, why, sizeof why);
		s->last_t = r->prev_t;
	}
	ctx.final = false;
	for (int i = 0; i < r->nslots; i++) {
		struct slot *s = &r->slots[i];
		if (s->open && s->ops->finish) {
			ctx.now_ns = fs_now_ns();
			s->ops->finish(s->state, &ctx);
		}
	}
}

void fs_recorder_close(struct fs_recorder *r)
{
	if (!r)
		return;
	/* What each source cost (CPU time per tick, the mean over the timed
	 * ticks; a machine-wide source's, every sample's over every tick), for
	 * `make bench` and the curious. */
	for (int i = 0; i < r->nslots && r->timed_ticks; i++) {
		if (!r->slots[i].open)
			continue;
		char key[64];
		snprintf(key, sizeof key, "recorder.%s_us", r->slots[i].ops->name);
		double per = r->slots[i].every_tick ? (double)r->timed_ticks : (double)r->ticks;
		fs_sink_metaf(r->sink, key, "%.1f", (double)r->slots[i].cpu_ns / 1e3 / per);
	}
	if (r->ticks)
		fs_sink_metaf(r->sink, "recorder.store_us", "%.1f", (double)r->store_cpu_ns / 1e3 / (double)r->ticks);
	for (int i = 0; i < r->nslots; i++)
		if (r->slots[i].open)
			r->slots[i].ops->close(r->slots[i].state);
	free(r->slots);
	free(r);
}
