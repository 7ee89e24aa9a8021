/* exporter_page.h - the exporter's /metrics page: every family, from the
 * running totals of each run file served (analysis/load/tally.h), its latest
 * verdict, and the server's own counters. A pure function of what it is
 * given; the list of metrics is docs/exporter.md. */
#ifndef FS_EXPORTER_PAGE_H
#define FS_EXPORTER_PAGE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/load/tally.h"
#include "analysis/judge/verdict.h"
#include "render/openmetrics.h"

/* The verdict of a recent window, as the exporter keeps it. */
struct fs_exporter_verdict {
	bool valid;
	char primary[32], basis[64];
	double confidence, input_bound, accelerator_idle; /* 0..1, NaN unknown */
	bool have_shares;
	double share[FS_BUCKET__N]; /* the trainer's loop time by bucket */
	double window_s;            /* the window's length (the whole run: its length) */
	double at_s;                /* the run's time its window ended at */
};

struct fs_exporter_job {
	const char *job;            /* the job label */
	bool up;                    /* the run file was read (its last update succeeded) */
	const struct fs_tally_data *d;
	const struct fs_exporter_verdict *v;
};

struct fs_exporter_counters {
	uint64_t connections, evicted, timed_out, requests, bad_requests;
};

/* Write the page into o (fs_om_init'ed); n jobs. */
void fs_exporter_page(struct fs_om *o, const struct fs_exporter_job *jobs, int n, const struct fs_exporter_counters *c);

#endif
