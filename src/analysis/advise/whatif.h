/* whatif.h - a recommendation's own what-if: the speedup to expect under
 * the change it names, and the limit that caps it next (whatif.c,
 * docs/verdicts.md "A what-if per recommendation"). Pure. */
#ifndef FS_WHATIF_H
#define FS_WHATIF_H

#include "analysis/judge/verdict.h"

/* A change, as the model assumes it. An input change scales the parts of
 * the loaders' time (fs_loader_shares: 1 leaves a part as it is, 0.5
 * halves it, 0 removes it), multiplies their throughput (parallel: more
 * workers) and may give them other cores; a bucket change takes a share of
 * one accounting bucket away (checkpoints, epoch boundaries). */
struct fs_change {
	char what[96];           /* "transforms at half the CPU per sample" */
	double network, storage, metadata, cpu, idle, main; /* factors on the loaders' time, and the main process's */
	double parallel;         /* the loaders' throughput times this */
	double cores;            /* cores the loaders may use after it; NaN: as now */
	int bucket;              /* -1: an input change; else the enum fs_bucket taken away */
	double bucket_left;      /* of that bucket, the share left after the change */
	double bucket_floor;     /* the loop cannot be shorter than this share of it (a background writer's own time) */
};

/* An input change that changes nothing yet, named what. */
struct fs_change fs_change_input(const char *what);

/* An accounting bucket's change: left of the bucket remains, and the loop
 * keeps at least floor of its time. */
struct fs_change fs_change_bucket(const char *what, int bucket, double left, double floor);

/* Fill r->speedup, r->change and r->then from m and v's accounting for
 * change c (r->speedup NaN where the model cannot say). */
void fs_whatif(const struct fs_metrics *m, const struct fs_verdict *v, const struct fs_change *c,
	       struct fs_recommendation *r);

#endif
