/* thresholds.h - every number the diagnosis compares against, in one table.
 * docs/verdicts.md explains each and where it comes from; change them here
 * only. */
#ifndef FS_THRESHOLDS_H
#define FS_THRESHOLDS_H

struct fs_thresholds {
	/* How much accelerator idle time makes a job input-bound (TensorFlow
	 * profiler's input-pipeline analyzer: < 5% not, 5-20% moderately,
	 * >= 20% highly input-bound). */
	double input_bound_min;      /* below: compute_bound */
	/* The input-wait floor (MLPerf Storage: a storage system keeps up
	 * when the accelerators are busy >= 90% of the time): below it no
	 * input cause is named and the loader gets no recommendation. */
	double input_wait_floor;
	/* Which limit of the storage (saturation.c): a resource is at its
	 * ceiling in an interval when its use is at least this share of it ... */
	double ceiling_saturated;
	/* ... and metadata limits an interval when metadata calls took at
	 * least this share of the loaders' storage time in it. */
	double metadata_time_major;
	double input_bound_high;     /* at or above: "highly" */
	/* A finding must explain at least this share of step time to be reported. */
	double finding_min_share;
	/* Loader processes (DataLoader workers) */
	double loader_blocked_io;    /* share of samples with a thread in D: storage-bound */
	double loader_running;       /* share with a thread running: CPU-bound */
	double loader_idle;          /* share with every thread asleep: waiting on nothing local */
	/* Machine */
	double cpu_saturated_pct;    /* busy % of all cores (100 - idle - iowait) */
	double cgroup_throttled_pct; /* share of time the job's cgroup was CPU-throttled */
	double psi_io_stalled_pct;   /* /proc/pressure/io some %: tasks stalled on I/O */
	double psi_mem_stalled_pct;  /* /proc/pressure/memory some % */
	double disk_busy_pct;        /* device %util: busy */
	double large_request_bytes;  /* mean read request at or above: bandwidth, below: latency */
	double opens_per_sample;     /* tracer: files opened per sample loaded */
	double small_sample_bytes;   /* bytes read per sample below this: per-file costs dominate */
	double mem_limit_full;       /* cgroup memory usage / limit at or above: full */
	double mem_available_low;    /* MemAvailable / MemTotal below: low */
	double reread_ratio;         /* storage bytes read / bytes read by the job at or above: cache misses */
	double nic_saturated;        /* NIC receive rate / link speed */
	double nfs_rtt_slow_ms;      /* mean NFS READ round trip above: slow remote storage */
	/* Ranks in step (sync.h): their steps end together, the k-th of each
	 * within this share of a step of the others' (median skew) ... */
	double step_sync_skew;
	/* ... for at least this share of the reference rank's steps. */
	double step_sync_match;
	/* feedscope tune (analysis/tune/tune.c, docs/tune.md): a setting is faster
	 * than another only by a speedup of at least 1 + the larger of
	 * tune_min_gain and tune_noise_z standard errors of the two step
	 * times' ratio (each trial's from its own steps: robust batch means);
	 * a gain under that is no gain, and no change is recommended. */
	double tune_min_gain;
	double tune_noise_z;
	/* A trial's steady state holds at least this many samples (of the
	 * recorder's interval) for its verdict to be followed. */
	double tune_min_samples;
	/* Phases (load/phaseseries.c): the least noise a share of a bin is
	 * taken to have, so a series that barely moves is not cut on
	 * differences below what its samples resolve. */
	double phase_noise_floor;
	/* Memory overheads (judge/memory.c, docs/verdicts.md "Memory"):
	 * loader_memory_growth when the job added at least mem_growth_share
	 * of what it held at the loop's start and at least
	 * mem_growth_min_bytes; shm_headroom when /dev/shm's peak use is at
	 * least shm_full_share of its size; memory_limit_headroom when less
	 * than mem_headroom_min of the limit (cgroup, else the machine) was
	 * left at the peak. The workers' CPU is the kernel copying pages when
	 * at least page_copy_sys_share of it was in the kernel with at least
	 * page_copy_faults_per_sys_s minor faults per second of that time. */
	double mem_growth_share;
	double mem_growth_min_bytes;
	double shm_full_share;
	double mem_headroom_min;
	double page_copy_sys_share;
	double page_copy_faults_per_sys_s;
	/* Stalls (record/stall.c, docs/verdicts.md "Stalls"): no step for
	 * max(hang_step_multiple x the median step so far, hang_floor_s) is a
	 * stall; before the first step (or, without steps, the first sign of
	 * progress) the bound is at least hang_startup_s from the start.
	 * Without steps, progress is the job's reads (tracer), its device busy
	 * at least hang_device_busy_pct, or its main process on a CPU at
	 * least hang_main_cpu_pct of a core. */
	double hang_step_multiple;
	double hang_floor_s;
	double hang_startup_s;
	double hang_device_busy_pct;
	double hang_main_cpu_pct;
	/* Oversubscription (judge/threads.c): the workers run
	 * oversub_pool_threads threads at work beside their main one while at
	 * work, the job's runnable threads are oversub_ratio times the cores it
	 * may use or more, and the workers' threads waited on a run queue
	 * oversub_wait_share of their runnable time or more. */
	double oversub_pool_threads;
	double oversub_ratio;
	double oversub_wait_share;
	/* The loaders' stages (the hook's loader_stages): a stage is named
	 * by cpu_preprocess when its own time holds at least stage_named_share
	 * of the DataLoader workers' time; a stage made cheaper (decoded at a
	 * reduced size, a collate vectorised) is assumed to keep stage_fix_left
	 * of its CPU. */
	double stage_named_share;
	double stage_fix_left;
};

/* The thresholds in force. */
extern const struct fs_thresholds fs_thresholds;

#endif
