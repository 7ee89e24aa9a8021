/* threads.h - the oversubscription finding (docs/verdicts.md section 12):
 * the DataLoader workers run thread pools (OpenMP, MKL, torch's intra-op,
 * OpenCV, OpenBLAS: more than one of each worker's threads at work at
 * once), and the job's runnable threads are well beyond the cores it may
 * use (its cgroup's quota, its cpuset, its affinity, the machine's: the
 * fewest), its workers' threads waiting on a run queue for a good share
 * of their time. Pure. Like the memory findings it comes beside the
 * verdict (JSON findings[], the text's threads section), with its fix:
 * one thread per worker. advise/threads.c adds the predicted effect. */
#ifndef FS_JUDGE_THREADS_H
#define FS_JUDGE_THREADS_H

#include <stdbool.h>

#include "analysis/judge/evidence.h"
#include "analysis/load/metrics.h"
#include "analysis/thresholds.h"

struct fs_oversub {
	bool known;            /* the figures were recorded (thread_pools, schema 14) */
	bool found;            /* the finding holds */
	double cores;          /* the cores the job may use; NaN unknown */
	char cores_from[48];   /* which limit gave them: "cgroup quota", "cpuset", "affinity", "machine" */
	double runnable;       /* the job's runnable threads, mean (on a CPU or waiting for one) */
	double ratio;          /* runnable / cores */
	double wait_share;     /* the workers' threads' run-queue wait over their runnable time */
	double pool_threads;   /* threads at work per worker beyond its main one, while at work */
	int workers;
	/* after the fix, as predicted: one thread per worker at work */
	double after_runnable, after_wait_share;
	double predicted_speedup; /* the loop's, advise/threads.c; NaN: none to give */
	int nev;
	struct fs_evidence ev[FS_MAX_EVIDENCE];
	char relieves[64], knob[64], current[128], suggested[200], why[400];
};

/* The finding's id: "oversubscription". */
const char *fs_oversub_name(void);

/* Judge m's threads (m->threads) against the cores with thresholds t. */
void fs_judge_threads(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_oversub *out);

#endif
