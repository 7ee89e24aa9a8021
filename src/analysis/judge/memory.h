/* memory.h - the memory findings (docs/verdicts.md, "Memory"): the job's
 * growth over the loop (copy-on-read in DataLoader workers), /dev/shm's
 * headroom, the memory limit's headroom; what one more worker costs; and
 * whether the workers' CPU is the kernel copying pages. Pure. They are
 * not causes of the accelerator's idle time: they come beside the verdict
 * (JSON findings[], the text's memory section), each with its fix. */
#ifndef FS_JUDGE_MEMORY_H
#define FS_JUDGE_MEMORY_H

#include <stdbool.h>

#include "analysis/judge/evidence.h"
#include "analysis/load/metrics.h"
#include "analysis/thresholds.h"

enum fs_mem_finding_id {
	FS_MEMF_LOADER_GROWTH,   /* "loader_memory_growth" */
	FS_MEMF_SHM_HEADROOM,    /* "shm_headroom" */
	FS_MEMF_LIMIT_HEADROOM,  /* "memory_limit_headroom" */
	FS_MEMF__N
};

struct fs_mem_finding {
	enum fs_mem_finding_id id;
	double bytes;           /* growth / /dev/shm's peak / the job's peak */
	double of_bytes;        /* what it is held against: the limit, the size; NaN */
	double rate_bytes_per_s; /* growth: over the window; NaN */
	double to_limit_s;      /* growth: time to the limit at that rate; NaN */
	bool copy_on_read;      /* growth: the workers' copies of inherited pages */
	int nev;
	struct fs_evidence ev[FS_MAX_EVIDENCE];
	/* the fix: the resource it relieves, the knob, now, then, and why
	 * with the predicted effect */
	char relieves[64], knob[64], current[128], suggested[128], why[320];
};

struct fs_memory_verdict {
	int nfind;
	struct fs_mem_finding find[FS_MEMF__N];
	/* What one more DataLoader worker adds: a worker's largest private
	 * memory (USS), mean, and its share of the job's /dev/shm batches;
	 * NaN without workers or readings. */
	double per_worker_bytes;
	/* The workers' CPU in the kernel, share, and their minor faults per
	 * second of it; page_copies: that CPU is the kernel copying pages
	 * (then cpu_preprocess's advice is the dataset's index, not cheaper
	 * transforms). */
	double workers_sys_share, faults_per_sys_s;
	bool page_copies;
	/* The memory one can still use: the cgroup's limit, else the
	 * machine's; NaN when neither is known. */
	double limit_bytes;
	bool limit_is_cgroup;
};

/* The stable id ("loader_memory_growth", ...). */
const char *fs_mem_finding_name(enum fs_mem_finding_id id);

/* The memory findings of m (m->mem) with thresholds t, into out. */
void fs_judge_memory(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_memory_verdict *out);

#endif
