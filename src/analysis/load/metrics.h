/* metrics.h - the numbers the diagnosis works from, read out of a run file:
 * the types.
 *
 * fs_metrics_load (load.h) is the only function of the analysis that
 * reads: it runs a fixed set of queries over the run file (within an
 * optional time window) and fills struct fs_metrics. Everything after it
 * (findings, verdict, recommendations) is a pure function of this struct.
 * NaN = not recorded. The load room's files fill it (README.md there).
 */
#ifndef FS_METRICS_H
#define FS_METRICS_H

#include <stdbool.h>
#include <stddef.h>

#include "analysis/load/memory.h"
#include "analysis/load/peers.h"
#include "analysis/load/threads.h"
#include "analysis/load/stages.h"

struct fs_window {
	double start_s, end_s; /* seconds since the run started; -inf/+inf = open */
};

/* Where a group of processes spent its samples: the share of process
 * samples with a thread in D (blocked in I/O), else one running, else all
 * asleep. */
struct fs_states {
	double blocked, running, sleeping;
	double meta_calls;    /* of the thread-seconds in D, the share inside metadata system
			       * calls (proc.blocked_meta); NaN: not recorded, or no time in D */
	double cpu_cores;     /* mean CPU use, in cores */
	double run_wait;      /* mean runnable-but-waiting, in threads */
	long samples;         /* process samples counted */
	long procs;           /* distinct processes */
};

/* One training process (a rank, or the job's only loop): its loop's time
 * as the accounting (accounting.c) splits it. From the steps where the hook
 * sent them; without steps, the process's lifetime in the window. */
#define FS_MAX_LOOPS 16
#define FS_MAX_TREE 256
struct fs_loop_proc {
	int pid;
	int rank, local_rank;      /* from the ranks table; -1 when unknown */
	bool have_steps;
	long steps;
	double t0, t1;             /* its loop's span: first step's start, last step's end (steps) */
	double loop_s;             /* wait + compute + epoch_end, or the window without steps */
	double wait_s, compute_s, epoch_end_s, epoch_excess_s;
	long epoch_starts;         /* epochs > 0 counted in epoch_excess_s */
	double collective_s;       /* collective phases (torch.distributed, under the hook) */
	long collectives;
	double host_io_s;          /* the checkpoint / host-I/O bucket (see checkpoint_s) */
	double write_sync_s;       /* of which its main thread in write + sync on files (NaN: no io_classes) */
	double checkpoint_phase_s; /* its torch.save phases */
	double helper_write_s;     /* its other threads in write + sync on files, a union of intervals (NaN: no io_classes) */
	double gpu_busy;           /* 0..1: its GPU (the only one, the one of its local rank, or its gpu_proc samples), else all GPUs' mean; NaN */
	double gpu_busy_in_host_io; /* util % during its host-I/O bucket, NaN */
	char gpu_basis[16];        /* "its GPU", "local_rank", "process", "all GPUs", "" */
	/* The device's own clock (devclock.c): its idle time inside the host's
	 * waits for input, from the hook's device events (dev_clock "events")
	 * or from NVML against the waits, a second at a time ("gpu": an upper
	 * bound, dev_idle_wait_lower_s the lower); NaN, "": not known (no
	 * steps, no GPU signal, per-process GPU samples, or a run read per
	 * minute), and the host's waits stand for it. */
	double dev_idle_wait_s, dev_idle_wait_lower_s;
	char dev_clock[8];
	double loader_active;      /* share of its loaders' samples with a thread running or in D; NaN */
	double sync_wait_s;        /* waiting on other ranks seen at the step boundaries (sync.h), NaN when not in step */
	/* Its sockets and its children's (peers table, analysis/load/peers.h), over
	 * their whole life: the data network and the traffic with the job's own
	 * processes (collectives, rendezvous store). */
	struct fs_net net;
};

/* The limits of the storage a loader's read can meet (saturation.c,
 * docs/verdicts.md "Which limit of the storage"); NONE: no known one. */
enum fs_limit { FS_LIMIT_BYTES, FS_LIMIT_IOPS, FS_LIMIT_LATENCY, FS_LIMIT_METADATA, FS_LIMIT_NONE, FS_LIMIT__N };

/* Where the saturation's metadata level comes from: the tracer's call
 * times (io_classes), the loaders' D inside metadata system calls
 * (proc.blocked_meta: without the tracer), or nowhere. */
enum fs_meta_src { FS_META_NONE, FS_META_CALL_TIMES, FS_META_BLOCKED };

struct fs_saturation {
	bool have;                    /* some wait was weighed */
	enum fs_meta_src meta_src;
	bool steps;                   /* the wait weighed is the loop's input wait (steps), else the loaders' time in D */
	double wait_s;                /* that wait, seconds */
	double ceiling[FS_LIMIT__N];  /* bytes/s, IO/s, QD 1 latency (s); NaN: not known (metadata, none: always) */
	char source[FS_LIMIT__N][160]; /* where each ceiling came from */
	double share[FS_LIMIT__N];    /* share of the wait each limited (exclusive; NaN: its ceiling not known) */
	double level[FS_LIMIT__N];    /* mean use over ceiling during the wait */
	enum fs_limit named, runner;  /* the largest share and the next (runner FS_LIMIT__N: none known) */
	char mount[256];              /* where the device is mounted (for the probe command line) */
	/* The device's queue: reads it holds at most (meta queue.<disk>.*: the
	 * device's own queue depth where it has one, else the block layer's
	 * nr_requests; NaN: not recorded) and its mean depth over the window.
	 * Context for the latency line, not a limit weighed. */
	double queue_slots, queue_depth;
	const char *queue_slots_from;
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
	/* Read from the per-minute tables (fs_q_tier: a long window, or
	 * --resolution minute), not every sample. */
	bool per_minute;

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

	/* Every training process (at most FS_MAX_LOOPS, those that waited
	 * longest first), and which of them the job-level figures above and
	 * below describe: the straggler (trainer), the one the others wait on. */
	int nloops;
	struct fs_loop_proc loops[FS_MAX_LOOPS];
	int trainer;               /* index into loops, -1 if none */
	int trainer_pid;
	char trainer_why[96];      /* how it was chosen */
	/* The training processes' steps against each other (sync.h): whether
	 * they are in step (synchronous data parallelism), over how many steps,
	 * and the skew of their ends (NaN when fewer than two have steps). */
	bool steps_in_step;
	long synced_steps;
	double step_end_skew_median_s, step_end_skew_p95_s;

	/* loader configuration (meta loader.<loader>.*), -1 / "" when unknown */
	int num_workers, batch_size, prefetch_factor;
	char persistent_workers[16], pin_memory[16];
	int tune_worker_threads; /* torch's threads per worker a tune trial's hook set (-1: none) */

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
	/* The trainer's own CPU, in cores, while it waited for a batch and
	 * while it computed (mainwait.h: fitted over its samples against its
	 * steps' waits); NaN: not told apart (no steps, a run read per minute,
	 * samples that all hold the same mix of waiting and computing). */
	double main_wait_cores, main_compute_cores;
	const char *main_wait_basis; /* "steps" (its waits), "gpu idle" (no steps: the accelerator idle), NULL */
	/* The parts of next() the hook timed (steps.index_s, ..., schema 13),
	 * summed over the trainer's steps that have them: in its sampler, in
	 * taking batches off the workers' queue (and the thread's CPU in it:
	 * unpickling), the pin thread's CPU; and those steps' waits and loop
	 * time. next_steps 0: not timed. */
	long next_steps;
	double next_index_s, next_get_s, next_get_cpu_s, next_pin_cpu_s, next_wait_s, next_loop_s;
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
	/* proc.blocked_meta was recorded for the loaders (schema 11, job.meta_calls
	 * not off): loaders.meta_calls is then their D time's share in metadata calls */
	bool have_meta_calls;
	double loader_majflt;        /* major page faults of the loaders (proc), total */
	/* Of the loaders' main threads' socket reads, those from the job's own
	 * processes (peers: collectives on a loop without workers), whole run;
	 * not the data network. 0 without a peers table. */
	bool have_peers;
	double loader_coll_read_s, loader_coll_read_bytes;
	/* The processes of each training process, itself and its children:
	 * tree_pid[i] belongs to loops[tree_loop[i]] (for the peers rows). */
	int ntree;
	int tree_pid[FS_MAX_TREE], tree_loop[FS_MAX_TREE];

	/* the machine */
	double cpu_busy_pct, cpu_iowait_pct;
	double psi_cpu, psi_io, psi_io_full, psi_mem;
	double mem_available_min_bytes, cached_max_bytes, majflt_per_s;
	double dentries_growth;      /* new dentries over the window */

	/* the device that holds the data: under the files the loaders read
	 * most (disk_basis says so), else the one read most */
	char disk[64];
	char disk_basis[48];
	double disk_read_bytes_per_s, disk_util_pct, disk_req_bytes, disk_await_ms, disk_iops;
	double disk_queue_depth, disk_read_bytes;
	double disk_ceiling_bytes_per_s; /* the device's probed sequential read rate (meta probe.<disk>.*), NaN if never probed */
	double disk_ceiling_iops;        /* its probed 4 KiB random read IOPS at QD 32 */
	/* Which limit of the storage the loaders met, against the ceilings
	 * that apply to that device (saturation.c) */
	struct fs_saturation sat;

	/* network */
	char nic[32];
	double nic_rx_bytes_per_s, nic_speed_bytes_per_s, tcp_retrans_per_s;
	double nfs_read_ops_per_s, nfs_rtt_ms;

	/* the job's memory over the trainer's loop (memory.h) */
	struct fs_memory mem;
	/* the job's threads and the cores it may use (threads.h) */
	struct fs_threads threads;

	/* the DataLoader workers' time per stage over the trainer's loop
	 * (stages.h: the hook's, schema 14); stages.timed false: not timed */
	struct fs_stages stages;
};

/* The trainer's entry of m->loops, or NULL when there is none. */
static inline const struct fs_loop_proc *fs_metrics_trainer(const struct fs_metrics *m)
{
	return m->trainer >= 0 && m->trainer < m->nloops ? &m->loops[m->trainer] : NULL;
}

/* L's time waiting on other ranks: the larger of its time inside the
 * collectives the hook saw and its wait seen at the step boundaries of all
 * ranks (sync.h: DDP's reducer, whose all_reduce the hook does not see).
 * Each is a lower bound of the same time; 0 when neither was measured. */
static inline double fs_loop_ranks_wait_s(const struct fs_loop_proc *L)
{
	double c = L->collectives > 0 && L->collective_s > 0 ? L->collective_s : 0;
	double s = L->sync_wait_s > 0 ? L->sync_wait_s : 0;
	return c > s ? c : s;
}

/* One process's steps in the order they ended: each one's end (t +
 * compute_s: t is the end of its wait), wait and compute. */
struct fs_steps_series {
	double *end, *wait, *compute;
	size_t n;
};

#endif
