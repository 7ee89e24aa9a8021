/* accounting.h - where each training process's loop time went: the
 * buckets that add up to 1 (accounting.c, docs/verdicts.md "The
 * accounting"). Pure: a function of struct fs_metrics. */
#ifndef FS_ACCOUNTING_H
#define FS_ACCOUNTING_H

#include <stdbool.h>

#include "analysis/load/metrics.h"

/* The accounting (docs/verdicts.md): a training process's
 * loop time in buckets that add up to 1. */
enum fs_bucket {
	FS_BUCKET_BUSY,        /* the accelerator busy */
	FS_BUCKET_INPUT,       /* waiting for input (steady state) */
	FS_BUCKET_HOST_IO,     /* checkpoint and other host-side file I/O of the loop's thread */
	FS_BUCKET_RANKS,       /* waiting on other ranks (inside collectives) */
	FS_BUCKET_EPOCH,       /* epoch boundaries (worker start-up and shutdown) */
	FS_BUCKET_OTHER,       /* host-side other: the rest, unexplained */
	FS_BUCKET__N
};

/* The stable name of a bucket ("busy", "input_wait", "host_io",
 * "other_ranks", "epoch_boundary", "other"). */
const char *fs_bucket_name(enum fs_bucket b);

struct fs_accounting {
	bool valid;               /* false: neither steps nor an accelerator signal */
	int pid, rank;            /* rank -1 when unknown */
	double loop_s;
	double share[FS_BUCKET__N]; /* 0..1, summing to 1 when valid */
	char basis[32];           /* "steps + gpu", "steps", "gpu" */
};

/* Split process L's loop time (m for the job-wide signals). Returns
 * a->valid. */
bool fs_account(const struct fs_metrics *m, const struct fs_loop_proc *L, struct fs_accounting *a);

#endif
