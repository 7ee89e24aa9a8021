/* memory.h - the job's memory read out of a run file: each process's
 * smaps_rollup figures (PSS, USS, swap, shared memory) by role, what the
 * job added over the window, the workers' page faults and kernel time,
 * /dev/shm and the cgroup's limit and peak. Types and the loader;
 * judge/memory.c decides from them. NaN = not recorded. */
#ifndef FS_LOAD_MEMORY_H
#define FS_LOAD_MEMORY_H

#include <stdbool.h>

#include "analysis/load/query.h"

struct fs_memory {
	bool have_pss;           /* smaps_rollup readings in the window */
	double window_s;         /* the window's length: the trainer's loop */
	/* the job's PSS summed (what its processes hold together), largest,
	 * and by role: the trainer, its children (workers), the others */
	double job_pss_max, main_pss_max, workers_pss_max, others_pss_max;
	double shmem_pss_max;    /* Pss_Shmem summed, largest (NaN before kernel 5.8) */
	double swap_max;         /* the processes' swapped-out bytes, largest each, summed */
	/* What the job added over the window (load/metricdefs_table.c,
	 * job_mem_growth_bytes), and its parts */
	double growth, workers_uss_growth, workers_rss_growth, main_rss_growth;
	/* The job's PSS summed, its slope over the span's second half (bytes
	 * a second): the rate it still grows at once the workers' start-up is
	 * over (a worker's own allocations at its start are no growth of the
	 * loop's) */
	double late_slope;
	double worker_uss_mean;  /* a worker's largest USS, mean: one more worker's cost */
	int workers;             /* children seen in the window */
	double workers_minflt, workers_sys_s, workers_cpu_s; /* totals over the window */
	/* /dev/shm (the mount, machine-wide) and the cgroup */
	double shm_used_max, shm_size;
	double cg_limit, cg_usage_max, cg_peak;
	double mem_total, mem_available_min;
};

/* Fill mem from q's window (the trainer's loop, as fs_metrics_load sets
 * it), mem_total from meta. Failed queries are recorded in q. */
void fs_m_load_memory(struct fs_q *q, double mem_total, struct fs_memory *mem);

#endif
