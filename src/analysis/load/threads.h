/* threads.h - the job's threads and the cores it may use, read out of a
 * run file (table thread_pools, schema 14; docs/verdicts.md section 12):
 * per group (the trainer, its children the DataLoader workers, the
 * others) the threads, those at work (wanting a CPU a tenth of an
 * interval or more), their time on a CPU and waiting on a run queue; the
 * pools the workers' threads belong to and the pool libraries they map;
 * each process's affinity and cpuset. judge/threads.c decides from them.
 * NaN = not recorded; a file without the table has have false. */
#ifndef FS_LOAD_THREADS_H
#define FS_LOAD_THREADS_H

#include <stdbool.h>

#include "analysis/load/query.h"

struct fs_threads {
	bool have;               /* thread_pools rows of the trainer's children in the window */
	int workers;             /* the trainer's children seen in it */
	double worker_threads;   /* threads per worker, mean over its samples */
	/* threads at work per worker, and of them outside its main thread
	 * (its pools), mean over the samples in which it was at work */
	double worker_active, worker_pool_active;
	double worker_busy;      /* share of the workers' samples in which they were at work */
	/* thread-seconds on a CPU and waiting on a run queue, totals */
	double workers_cpu_s, workers_wait_s, trainer_cpu_s, trainer_wait_s, others_cpu_s, others_wait_s;
	double span_s;           /* the time the rows cover (the workers' first to last) */
	double trainer_active;   /* the trainer's threads at work, mean */
	int cpus_allowed;        /* the largest affinity among the job's processes; -1 unknown */
	int cpuset_cpus;         /* the largest cpuset among them; -1 unknown */
	char pools[64];          /* the workers' pools with threads at work, beside "main" ("unnamed,openmp") */
	char libs[96];           /* the pool libraries a worker maps ("gomp,torch") */
};

/* Fill th from q's window (the trainer's loop) and trainer. Failed queries
 * are recorded in q; a file without thread_pools leaves have false. */
void fs_m_load_threads(struct fs_q *q, struct fs_threads *th);

/* The mean runnable threads (on a CPU or waiting for one) of each group
 * over th's span, and of the job; NaN when not known. */
double fs_threads_workers_runnable(const struct fs_threads *th);
double fs_threads_job_runnable(const struct fs_threads *th);

#endif
