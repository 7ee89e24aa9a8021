/* nodesample.c - the machine-wide sources into nodestat (nodesample.h). */
#include "serve/nodesample.h"

#include <stdio.h>
#include <stdlib.h>

#include "record/recorder.h"
#include "util/paths.h"

struct fs_nodesample {
	struct fs_sink sink; /* first: the recorder's rows come back to us */
	struct fs_paths paths;
	struct fs_recorder *rec;
	struct fs_nodestat st;
};

static void take_row(struct fs_sink *sink, const struct fs_row *r)
{
	fs_nodestat_row(&((struct fs_nodesample *)sink)->st, r);
}

static void take_meta(struct fs_sink *sink, const char *key, const char *value)
{
	fs_nodestat_meta(&((struct fs_nodesample *)sink)->st, key, value);
}

static void tick_end(struct fs_sink *sink, double t)
{
	(void)t;
	fs_nodestat_end(&((struct fs_nodesample *)sink)->st);
}

struct fs_nodesample *fs_nodesample_open(char *err, size_t errlen)
{
	struct fs_nodesample *n = calloc(1, sizeof *n);
	if (!n) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	n->sink = (struct fs_sink){.row = take_row, .meta = take_meta, .tick_end = tick_end};
	fs_paths_from_env(&n->paths);
	fs_nodestat_init(&n->st);
	/* every machine-wide source at each sample: the sampler's interval is
	 * the system interval */
	struct fs_recorder_opts ro = {.no_gpu = true, .only = "cpu,psi,mem,disk,net", .system_interval_s = 0};
	if (!(n->rec = fs_recorder_open(&n->paths, &n->sink, NULL, &ro, 0.0))) {
		snprintf(err, errlen, "out of memory");
		free(n);
		return NULL;
	}
	return n;
}

const struct fs_nodestat *fs_nodesample_take(struct fs_nodesample *n, double t)
{
	fs_recorder_sample(n->rec, t, 0);
	return &n->st;
}

const struct fs_nodestat *fs_nodesample_stat(const struct fs_nodesample *n)
{
	return &n->st;
}

void fs_nodesample_close(struct fs_nodesample *n)
{
	if (!n)
		return;
	fs_recorder_close(n->rec);
	free(n);
}
