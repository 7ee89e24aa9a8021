/* metrics.h - the numbers the diagnosis works from, read out of a run file.
 *
 * fs_metrics_load is the only function of the analysis that reads: it runs a
 * fixed set of queries over the run file (within an optional time window)
 * and fills struct fs_metrics. Everything after it (findings, verdict,
 * recommendations) is a pure function of this struct. NaN = not recorded.
 */
#ifndef FS_METRICS_H
#define FS_METRICS_H

#include <stdbool.h>
#include <stddef.h>

struct fs_window {
	double start_s, end_s; /* seconds since the run started; -inf/+inf = open */
};

/* Where a group of processes spent its samples: the share of process
 * samples with a thread in D (blocked in I/O), else one running, else all
 * asleep. */
struct fs_states {
	double blocked, running, sleeping;
	double cpu_cores;     /* mean CPU use, in cores */
	double run_wait;      /* mean runnable-but-waiting, in threads */
	long samples;         /* process samples counted */
	long procs;           /* distinct processes */
};

struct fs_metrics {
	/* the run */
	char mode[16];
	double duration_s, interval_s;
	int ncpu;
	double mem_total_bytes;
	struct fs_window window;
	/* No end record (meta end_unix, written when a recording finishes):
	 * the recorder was killed, or is still recording. recorded_until_s is
	 * the last sample's t (NaN if there is none). */
	bool incomplete;
	double recorded_until_s;

	/* steps (from inside the job) */
	bool have_steps;
	char loader[64];           /* the loop with the most steps */
	long steps, epochs;
	double wait_s, compute_s;  /* totals over all loops */
	double epoch_end_s;        /* epoch_end phases */
	long epoch_ends;
	double epoch_start_excess_s; /* sum over epochs > 0 of step 0's wait beyond the epoch's median wait */
	long epoch_starts;         /* epochs > 0 counted there */
	/* The checkpoint / host-I/O bucket: per tick, the larger of the
	 * checkpoint phases' time (torch.save, from the hook) and the trainer's
	 * main thread's time in write + sync on regular files (io_classes),
	 * plus the open/close of the files it wrote; phases alone where the
	 * tracer did not record io_classes. Inside the steps' compute. */
	double checkpoint_s;
	double checkpoint_phase_s; /* checkpoint phases alone */
	double host_io_s;          /* main thread in write + sync on files (io_classes), all of it */
	long checkpoints;          /* checkpoint phases */
	double checkpoint_every_steps; /* steps between checkpoints, NaN if < 2 */
	double loop_s;             /* wait + compute + epoch_end: the loop's time */

	/* loader configuration (meta loader.<loader>.*), -1 / "" when unknown */
	int num_workers, batch_size, prefetch_factor;
	char persistent_workers[16], pin_memory[16];

	/* the accelerator */
	bool have_gpu;
	int ngpus;
	double gpu_busy;             /* mean util 0..1 */
	double gpu_busy_in_checkpoints; /* mean util % during checkpoint phases */
	double pcie_rx_max_bytes_per_s;

	/* the job's processes */
	bool have_job;
	struct fs_states loaders;    /* DataLoader workers, or the main process when there are none */
	struct fs_states main;
	bool loaders_are_main;
	double job_cpu_cores;
	double loader_rchar_bytes, loader_read_bytes; /* totals: through syscalls, from storage */
	double job_read_bytes;
	double cg_quota_cores, cg_throttled_pct, cg_mem_limit_bytes, cg_mem_usage_max_bytes;

	/* the I/O tracer (files, io_intervals), for the loaders */
	bool have_trace;
	double loader_time_s;        /* process-seconds the loaders were alive (sampled) */
	double loader_io_time_s;     /* of which inside intercepted I/O calls */
	double trace_files, trace_opens, trace_stats, trace_reads, trace_read_bytes, trace_seq_reads;
	/* The loaders' main threads by descriptor class (io_classes): seconds
	 * and bytes. have_classes: the run file has io_classes rows. */
	bool have_classes;
	double loader_sock_read_s, loader_sock_read_bytes; /* class socket, read-like calls */
	double loader_file_read_s, loader_file_read_bytes; /* class file, read-like calls */
	double loader_meta_s;        /* class file, open/close/stat/seek/mmap/readdir */
	double loader_majflt;        /* major page faults of the loaders (proc), total */

	/* the machine */
	double cpu_busy_pct, cpu_iowait_pct;
	double psi_cpu, psi_io, psi_io_full, psi_mem;
	double mem_available_min_bytes, cached_max_bytes, majflt_per_s;
	double dentries_growth;      /* new dentries over the window */

	/* the device the job read from (most bytes) */
	char disk[64];
	double disk_read_bytes_per_s, disk_util_pct, disk_req_bytes, disk_await_ms, disk_iops;
	double disk_queue_depth, disk_read_bytes;
	double disk_ceiling_bytes_per_s; /* the device's probed sequential read rate (meta probe.<disk>.*), NaN if never probed */
	double disk_ceiling_iops;        /* its probed 4 KiB random read IOPS at QD 32 */

	/* network */
	char nic[32];
	double nic_rx_bytes_per_s, nic_speed_bytes_per_s, tcp_retrans_per_s;
	double nfs_read_ops_per_s, nfs_rtt_ms;
};

/* Read the metrics of the run file at path within window w (NULL: all).
 * Returns 0, or -1 with a reason in err (not a run file, cannot open). */
int fs_metrics_load(const char *path, const struct fs_window *w, struct fs_metrics *m,
		    char *err, size_t errlen);

#endif
