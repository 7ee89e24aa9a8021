/* summary.h - what a run file recorded, boiled down to one screen's worth
 * of numbers. Pure: reads the run file, nothing else. NaN = not recorded. */
#ifndef FS_SUMMARY_H
#define FS_SUMMARY_H

#include <stdbool.h>
#include <stddef.h>

#define FS_SUMMARY_DISKS 3
#define FS_SUMMARY_LOADERS 3
#define FS_SUMMARY_PHASES 3

struct fs_summary_loader {
	char name[64];
	long steps, epochs;
	double wait_s, compute_s; /* totals */
	double wait_share;        /* waiting's share of step time (metricdefs: loader_wait_share) */
};

struct fs_summary_phase {
	char name[64];
	long count;
	double total_s;
};

struct fs_summary_disk {
	char name[64];
	double read_bytes_per_s, write_bytes_per_s, reads_per_s;
	double read_req_bytes, read_await_ms;
	double util_pct, util_max_pct;
	double read_bytes; /* total over the run */
};

struct fs_summary {
	char mode[16];
	char command[512];
	int pid;
	double duration_s, interval_s;
	long ticks;
	bool has_exit;
	int exit_code;
	bool incomplete;         /* no end record (meta end_unix): recorder killed, or still recording */
	double recorded_until_s; /* the last sample's t, NaN if none */
	bool per_minute;         /* read from the per-minute tables (fs_q_tier) */
	char skipped[1024]; /* "name (why); name (why)" */

	double cpu_user, cpu_system, cpu_iowait, cpu_idle, cpu_steal;
	double psi_cpu_some, psi_io_some, psi_io_full, psi_mem_some, psi_mem_full;
	double mem_available_min, mem_cached_max, majflt_per_s;

	int ndisks;
	struct fs_summary_disk disks[FS_SUMMARY_DISKS];

	char net_iface[64];
	double net_rx_bytes_per_s, net_tx_bytes_per_s;

	long job_procs_max, job_threads_max;
	double job_cpu_pct;                 /* mean over ticks of the sum over processes */
	double thr_running, thr_blocked, thr_sleeping, thr_other;  /* % of thread samples */
	double wrk_running, wrk_blocked, wrk_sleeping;             /* workers only */
	double job_read_bytes, job_rchar;   /* totals over the run */

	int ngpus;
	char gpu_name[128];
	double gpu_util, gpu_mem_used_max;

	int nloaders;
	struct fs_summary_loader loaders[FS_SUMMARY_LOADERS];
	int nphases;
	struct fs_summary_phase phases[FS_SUMMARY_PHASES];
	char hook[128];

	double recorder_cpu_s, recorder_cpu_start_s, recorder_sample_us;
	/* thread states by BPF (meta job.states), and its programs' time in
	 * the kernel where counted (job.bpf_cpu_s; NaN where not) */
	bool states_bpf;
	double bpf_cpu_s;
};

/* Load the summary of the run file at path. Returns 0, or -1 with a reason
 * in err. */
int fs_summary_load(const char *path, struct fs_summary *out, char *err, size_t errlen);

#endif
