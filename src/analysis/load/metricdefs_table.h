/* metricdefs_table.h - the definitions of every figure read out of a run
 * file, each defined once: the tables (metricdefs_table.c) and their types.
 *
 * Two const tables of one kind say, for each figure, its name, unit,
 * source and the SQL aggregate over the source's rows, and what it means:
 *   fs_metricdefs     one value per window: the machine (cpu, psi, mem,
 *                     tcp, nfs, gpu, cgroup), the ticks, and the job's
 *                     processes taken together;
 *   fs_metricdefs_by  one value per key and window: per disk device, per
 *                     network interface, per loader (steps), per phase
 *                     name, per group of the job's processes (the trainer,
 *                     its children, the rest), per GPU, per process.
 * A source is a run-file table, or a view over one (the ticks' lengths
 * joined in, interfaces summed per tick, ...), and the window's condition
 * on it. metricdefs.h builds and runs their queries.
 */
#ifndef FS_LOAD_METRICDEFS_TABLE_H
#define FS_LOAD_METRICDEFS_TABLE_H

#include "store/schema.h"

/* Where a definition's rows come from. */
enum fs_md_source {
	FS_MS_CPU,
	FS_MS_PSI,
	FS_MS_MEM,
	FS_MS_TCP,
	FS_MS_NFS,
	FS_MS_GPU,
	FS_MS_CGROUP,
	FS_MS_TICKS,
	FS_MS_NET_TICKS,  /* per sample: every interface but lo, summed */
	FS_MS_JOB_TICKS,  /* per tick: the job's processes, summed */
	FS_MS_JOB,        /* the job's process samples, with their tick's length */
	FS_MS_TRACE,      /* the tracer's rows, files and intervals (not windowed) */
	FS_MS_IO_CLASSES, /* the tracer's per-class rows (not windowed) */
	FS_MS_TRAINER_STEPS, /* the trainer's (pid ?3) steps */
	FS_MS_CKPT_GPU,   /* GPU samples inside checkpoint phases */
	FS_MS_RSS_TICKS,  /* per tick: the trainer's (pid ?3) RSS, its children's summed */
	FS_MS_PSS_TICKS,  /* per tick: the trainer's children's PSS, summed */
	FS_MS_WORKER_PSS, /* the children's PSS samples, each with its process's first and last in the window */
	FS_MS_MEM_TICKS,  /* per tick: the job's PSS (by role) and shared-memory PSS, summed */
	FS_MS_MEM_PROCS,  /* per process: its first and last USS and RSS in the window, faults and CPU */
	FS_MS_WORKER_ROWS, /* the trainer's children's samples (their times) */
	/* keyed: a row per key */
	FS_MS_DISK,       /* by device, with the tick's length */
	FS_MS_NIC,        /* by interface (lo apart), with the tick's length */
	FS_MS_LOADER,     /* steps by loader */
	FS_MS_PHASE,      /* phases by name (a phase counts when it overlaps the window) */
	FS_MS_PROCS,      /* process samples by group: main (pid ?3), children (ppid ?3), others */
	FS_MS_FILES_BY_GROUP,   /* the tracer's files by process group (not windowed) */
	FS_MS_IO_BY_GROUP,      /* the tracer's intervals by process group */
	FS_MS_CLASSES_BY_GROUP, /* the main threads' per-class I/O by process group */
	FS_MS_TRAINER_PHASES,   /* the trainer's phases by name */
	FS_MS_GPU_BY_DEVICE,    /* GPU samples by device index (top) */
	FS_MS_PROC_BY_PID,      /* the job's process samples by pid (top) */
	FS_MS__N
};

struct fs_md_sourcedef {
	enum fs_md_source id;
	const char *name;     /* as docs/verdicts.md names it */
	enum fs_table_id table; /* the table it reads (its absence: not recorded) */
	const char *from;     /* SQL after FROM */
	const char *where;    /* the window (?1..?2) on it */
	const char *key;      /* NULL, or the column a row per value of is made for */
	/* Read from the per-minute tables (fs_q_tier): SQL after FROM and the
	 * window on it; NULL: the raw rows at any resolution (small tables,
	 * not windowed). Its rows weigh by n, the raw samples each stands for. */
	const char *tier;
	const char *tier_where;
	/* Read raw from a file of schema 9 or before, whose machine-wide rows
	 * were every tick's and had no dt_s of their own: SQL after FROM,
	 * tried when `from` names a column the file lacks; NULL: none. */
	const char *legacy;
};

extern const struct fs_md_sourcedef fs_md_sources[FS_MS__N];

enum fs_md_id {
	FS_MD_CPU_BUSY_PCT,
	FS_MD_CPU_IOWAIT_PCT,
	FS_MD_CPU_USER_PCT,
	FS_MD_CPU_SYSTEM_PCT,
	FS_MD_CPU_STEAL_PCT,
	FS_MD_CPU_IDLE_PCT,
	FS_MD_PSI_CPU_SOME_PCT,
	FS_MD_PSI_CPU_FULL_PCT,
	FS_MD_PSI_IO_SOME_PCT,
	FS_MD_PSI_IO_FULL_PCT,
	FS_MD_PSI_MEMORY_SOME_PCT,
	FS_MD_PSI_MEMORY_FULL_PCT,
	FS_MD_MEM_AVAILABLE_MIN_BYTES,
	FS_MD_PAGE_CACHE_MAX_BYTES,
	FS_MD_MAJOR_FAULTS_PER_S,
	FS_MD_DENTRIES_GROWTH,
	FS_MD_TCP_RETRANS_PER_S,
	FS_MD_NFS_READ_OPS_PER_S,
	FS_MD_NFS_READ_RTT_MS,
	FS_MD_GPU_COUNT,
	FS_MD_GPU_UTIL_PCT,
	FS_MD_GPU_MEM_USED_MAX_BYTES,
	FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S,
	FS_MD_CGROUP_CPU_QUOTA_CORES,
	FS_MD_CGROUP_THROTTLED_PCT,
	FS_MD_CGROUP_MEM_LIMIT_BYTES,
	FS_MD_CGROUP_MEM_USAGE_MAX_BYTES,
	FS_MD_TICKS_COUNT,
	FS_MD_RECORDED_S,
	FS_MD_FIRST_TICK_S,
	FS_MD_LAST_TICK_S,
	FS_MD_NET_RX_BYTES_PER_S,
	FS_MD_NET_TX_BYTES_PER_S,
	FS_MD_JOB_PROCS_MAX,
	FS_MD_JOB_PROCS_MEAN,
	FS_MD_JOB_THREADS_MAX,
	FS_MD_JOB_THREADS_MEAN,
	FS_MD_JOB_THREADS_RUNNING_MEAN,
	FS_MD_JOB_THREADS_BLOCKED_MEAN,
	FS_MD_JOB_THREADS_SLEEPING_MEAN,
	FS_MD_JOB_CPU_PCT,
	FS_MD_THREADS_RUNNING_PCT,
	FS_MD_THREADS_BLOCKED_PCT,
	FS_MD_THREADS_SLEEPING_PCT,
	FS_MD_THREADS_OTHER_PCT,
	FS_MD_WORKER_THREADS_RUNNING_PCT,
	FS_MD_WORKER_THREADS_BLOCKED_PCT,
	FS_MD_WORKER_THREADS_SLEEPING_PCT,
	FS_MD_JOB_READ_BYTES,
	FS_MD_JOB_RCHAR_BYTES,
	FS_MD_TRACE_ROWS_COUNT,
	FS_MD_IO_CLASSES_ROWS_COUNT,
	FS_MD_TRAINER_EPOCHS,
	FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT,
	FS_MD_DEV_SHM_USED_MAX_BYTES,
	FS_MD_DEV_SHM_GROWTH_BYTES,
	FS_MD_MAIN_RSS_MAX_BYTES,
	FS_MD_WORKERS_RSS_MAX_BYTES,
	FS_MD_WORKERS_PSS_MAX_BYTES,
	FS_MD_WORKERS_PSS_GROWTH_BYTES,
	FS_MD_JOB_PSS_MAX_BYTES,
	FS_MD_MAIN_PSS_MAX_BYTES,
	FS_MD_OTHERS_PSS_MAX_BYTES,
	FS_MD_WORKERS_FIRST_T,
	FS_MD_WORKERS_LAST_T,
	FS_MD_JOB_SHMEM_PSS_MAX_BYTES,
	FS_MD_JOB_MEM_GROWTH_BYTES,
	FS_MD_JOB_PSS_SLOPE_BYTES_PER_S,
	FS_MD_WORKERS_USS_GROWTH_BYTES,
	FS_MD_MAIN_RSS_GROWTH_BYTES,
	FS_MD_WORKERS_RSS_GROWTH_BYTES,
	FS_MD_WORKER_USS_MAX_MEAN_BYTES,
	FS_MD_WORKERS_COUNT,
	FS_MD_JOB_SWAP_MAX_BYTES,
	FS_MD_WORKERS_MINOR_FAULTS,
	FS_MD_WORKERS_SYSTEM_CPU_S,
	FS_MD_WORKERS_CPU_S,
	FS_MD_DEV_SHM_SIZE_BYTES,
	FS_MD_CGROUP_MEM_PEAK_BYTES,
	FS_MD__N
};

enum fs_mdk_id {
	FS_MDK_DISK_READ_BYTES,
	FS_MDK_DISK_WRITE_BYTES,
	FS_MDK_DISK_READ_BYTES_PER_S,
	FS_MDK_DISK_WRITE_BYTES_PER_S,
	FS_MDK_DISK_RW_BYTES_PER_S,
	FS_MDK_DISK_READS_PER_S,
	FS_MDK_DISK_READ_REQ_BYTES,
	FS_MDK_DISK_READ_AWAIT_MS,
	FS_MDK_DISK_UTIL_PCT,
	FS_MDK_DISK_UTIL_MAX_PCT,
	FS_MDK_DISK_QUEUE_DEPTH,
	FS_MDK_NIC_BYTES,
	FS_MDK_NIC_RX_BYTES_PER_S,
	FS_MDK_NIC_TX_BYTES_PER_S,
	FS_MDK_NIC_SPEED_BYTES_PER_S,
	FS_MDK_LOADER_STEPS,
	FS_MDK_LOADER_EPOCHS,
	FS_MDK_LOADER_WAIT_S,
	FS_MDK_LOADER_COMPUTE_S,
	FS_MDK_LOADER_WAIT_SHARE,
	FS_MDK_PHASE_COUNT,
	FS_MDK_PHASE_TOTAL_S,
	FS_MDK_PROCS_SAMPLES,
	FS_MDK_PROCS_BLOCKED_SAMPLES,
	FS_MDK_PROCS_RUNNING_SAMPLES,
	FS_MDK_PROCS_COUNT,
	FS_MDK_PROCS_CPU_S,
	FS_MDK_PROCS_RUN_WAIT_S,
	FS_MDK_PROCS_RCHAR_BYTES,
	FS_MDK_PROCS_READ_BYTES,
	FS_MDK_PROCS_ALIVE_S,
	FS_MDK_PROCS_MAJOR_FAULTS,
	FS_MDK_PROCS_BLOCKED_S,
	FS_MDK_PROCS_BLOCKED_META_S,
	FS_MDK_FILES_COUNT,
	FS_MDK_FILES_OPENS,
	FS_MDK_FILES_STATS,
	FS_MDK_FILES_READS,
	FS_MDK_FILES_READ_BYTES,
	FS_MDK_FILES_SEQ_READS,
	FS_MDK_IO_TIME_S,
	FS_MDK_SOCKET_READ_S,
	FS_MDK_SOCKET_READ_BYTES,
	FS_MDK_FILE_READ_S,
	FS_MDK_FILE_READ_BYTES,
	FS_MDK_FILE_META_S,
	FS_MDK_TRAINER_PHASE_COUNT,
	FS_MDK_TRAINER_PHASE_TOTAL_S,
	FS_MDK_GPU_DEV_UTIL_PCT,
	FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES,
	FS_MDK_GPU_DEV_MEM_TOTAL_BYTES,
	FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S,
	FS_MDK_GPU_DEV_PCIE_TX_BYTES_PER_S,
	FS_MDK_PID_THREADS,
	FS_MDK_PID_THREADS_RUNNING,
	FS_MDK_PID_THREADS_BLOCKED,
	FS_MDK_PID_THREADS_RUNNING_PCT,
	FS_MDK_PID_THREADS_BLOCKED_PCT,
	FS_MDK_PID_CPU_PCT,
	FS_MDK_PID_READ_BYTES_PER_S,
	FS_MDK__N
};

/* One definition: the value is `SELECT expr FROM <source> WHERE <window>`
 * (GROUP BY its key for a keyed source). unit is one of "%", "bytes",
 * "B/s", "1/s", "fraction", "count", "ms", "s", "cores"; the name carries
 * it and is the key the verdict's JSON uses for it where it has one. id is
 * an enum fs_md_id (fs_metricdefs) or fs_mdk_id (fs_metricdefs_by). */
struct fs_metricdef {
	int id;
	const char *name;
	const char *unit;
	enum fs_md_source source;
	const char *expr;    /* an SQL aggregate over the source's columns */
	const char *meaning; /* one line */
	/* The same figure over the source's per-minute rows (its tier): NULL
	 * when expr reads them as it reads the raw rows (a rate times its dt,
	 * a sum, a count of distinct keys); FS_MD_RAW: from the raw rows even
	 * then (SQLite answers it from an index). */
	const char *tier;
};

#define FS_MD_RAW "-raw-"

/* The tables, indexed by id. */
extern const struct fs_metricdef fs_metricdefs[FS_MD__N];
extern const struct fs_metricdef fs_metricdefs_by[FS_MDK__N];

#endif
