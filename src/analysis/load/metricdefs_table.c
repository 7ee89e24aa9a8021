/* metricdefs_table.c - the tables of metricdefs_table.h: the sources and
 * the one-row definitions (the keyed ones: metricdefs_keyed.c). */
#include "analysis/load/metricdefs_table.h"

#include "analysis/load/query.h"

#define WINDOW "t BETWEEN ?1 AND ?2"
#define TWIN FS_Q_TIER_WINDOW("")

/* The tracer's rows by process group, as FS_MS_PROCS groups processes:
 * the trainer (?3), its children (the loaders), the rest. */
#define GROUP_OF_PID_IN(proc) "CASE WHEN pid = ?3 THEN 'main' WHEN pid IN (SELECT pid FROM " proc " WHERE ppid = ?3)" \
				" THEN 'children' ELSE 'others' END AS grp"
#define GROUP_OF_PID GROUP_OF_PID_IN("proc")
/* the same over the per-minute tables: the trainer's children from proc_1m */
#define TGROUP_OF_PID GROUP_OF_PID_IN("proc_1m")

/* The sources. Where a rate is integrated a view gives each row its length
 * (dt): the tick's (joined from ticks) for the job's tables, the row's own
 * dt_s for the machine-wide ones (sampled at the system interval); it keeps
 * t for the window. */
const struct fs_md_sourcedef fs_md_sources[FS_MS__N] = {
	[FS_MS_CPU] = {FS_MS_CPU, "cpu", FS_T_CPU, "(SELECT * FROM cpu WHERE " FS_Q_ROWS_CPU("") ")", WINDOW, NULL,
		"cpu_1m", TWIN, NULL},
	[FS_MS_PSI] = {FS_MS_PSI, "psi", FS_T_PSI, "(SELECT * FROM psi WHERE " FS_Q_ROWS_PSI("") ")", WINDOW, NULL,
		"psi_1m", TWIN, NULL},
	[FS_MS_MEM] = {FS_MS_MEM, "mem", FS_T_MEM, "(SELECT * FROM mem WHERE " FS_Q_ROWS_MEM("") ")", WINDOW, NULL,
		"mem_1m", TWIN, NULL},
	[FS_MS_TCP] = {FS_MS_TCP, "tcp", FS_T_TCP, "(SELECT * FROM tcp WHERE " FS_Q_ROWS_TCP("") ")", WINDOW, NULL,
		"tcp_1m", TWIN, NULL},
	[FS_MS_NFS] = {FS_MS_NFS, "nfs", FS_T_NFS, "(SELECT * FROM nfs WHERE " FS_Q_ROWS_NFS("") ")", WINDOW, NULL,
		"nfs_1m", TWIN, NULL},
	[FS_MS_GPU] = {FS_MS_GPU, "gpu", FS_T_GPU, "(SELECT * FROM gpu WHERE " FS_Q_ROWS_GPU("") ")", WINDOW, NULL,
		"gpu_1m", TWIN, NULL},
	[FS_MS_CGROUP] = {FS_MS_CGROUP, "cgroup", FS_T_CGROUP, "(SELECT * FROM cgroup WHERE " FS_Q_ROWS_CGROUP("") ")", WINDOW, NULL,
		"cgroup_1m", TWIN, NULL},
	[FS_MS_TICKS] = {FS_MS_TICKS, "ticks", FS_T_TICKS, "(SELECT * FROM ticks WHERE " FS_Q_ROWS_TICKS("") ")", WINDOW, NULL,
		"ticks_1m", TWIN, NULL},
	[FS_MS_NET_TICKS] = {FS_MS_NET_TICKS, "net per sample", FS_T_NET,
			     "(SELECT t, sum(rx_bytes_per_s) AS rx, sum(tx_bytes_per_s) AS tx FROM net"
			     " WHERE iface != 'lo' AND " FS_Q_ROWS_NET("") " GROUP BY t)", WINDOW, NULL,
		"(SELECT x.t, max(x.n) AS n, sum(x.rx_bytes_per_s * x.n) / max(x.n) AS rx,"
		" sum(x.tx_bytes_per_s * x.n) / max(x.n) AS tx FROM net_1m x"
		" WHERE x.iface != 'lo' GROUP BY x.t)", TWIN, NULL},
	[FS_MS_JOB_TICKS] = {FS_MS_JOB_TICKS, "proc per tick", FS_T_PROC,
			     "(SELECT t, count(*) AS procs, sum(threads) AS threads, sum(running) AS run,"
			     " sum(blocked_io) AS blk, sum(sleeping) AS slp, sum(cpu_pct) AS cpu FROM proc WHERE " FS_Q_ROWS_PROC("")
			     " GROUP BY t)",
			     WINDOW, NULL,
		"(SELECT x.t, max(k.n) AS n, sum(x.n) * 1.0 / max(k.n) AS procs, sum(x.threads * x.n) / max(k.n) AS threads,"
		" sum(x.running * x.n) / max(k.n) AS run, sum(x.blocked_io * x.n) / max(k.n) AS blk,"
		" sum(x.sleeping * x.n) / max(k.n) AS slp, sum(x.cpu_pct * x.n) / max(k.n) AS cpu"
		" FROM proc_1m x JOIN ticks_1m k ON k.t = x.t GROUP BY x.t)", TWIN, NULL},
	[FS_MS_JOB] = {FS_MS_JOB, "proc", FS_T_PROC,
		       "(SELECT p.*, k.dt_s AS dt, p.running + p.blocked_io + p.sleeping + coalesce(p.other, 0) AS tot,"
		       " p.role = 'worker' AS w FROM proc p LEFT JOIN ticks k ON k.t = p.t WHERE " FS_Q_ROWS_PROC("p.") ")",
		       WINDOW, NULL,
		"(SELECT p.*, p.dt_s AS dt, p.running + p.blocked_io + p.sleeping + coalesce(p.other, 0) AS tot,"
		" p.role = 'worker' AS w FROM proc_1m p)", TWIN, NULL},
	[FS_MS_TRACE] = {FS_MS_TRACE, "trace rows", FS_T_FILES,
			 "(SELECT (SELECT count(*) FROM files) + (SELECT count(*) FROM io_intervals) AS n)", "1", NULL,
		NULL, NULL, NULL},
	[FS_MS_IO_CLASSES] = {FS_MS_IO_CLASSES, "io_classes rows", FS_T_IO_CLASSES, "io_classes", "1", NULL,
		NULL, NULL, NULL},
	[FS_MS_TRAINER_STEPS] = {FS_MS_TRAINER_STEPS, "steps of the trainer", FS_T_STEPS,
				 "(SELECT * FROM steps WHERE pid = ?3 AND " FS_Q_ROWS_STEPS("") ")", WINDOW, NULL,
		"(SELECT * FROM steps_1m WHERE pid = ?3)", TWIN, NULL},
	[FS_MS_CKPT_GPU] = {FS_MS_CKPT_GPU, "gpu in checkpoints", FS_T_GPU,
			    "(SELECT g.* FROM gpu g JOIN phases p ON g.t > p.t_start AND g.t <= p.t_end"
			    " WHERE p.name = 'checkpoint' AND " FS_Q_ROWS_GPU("g.") ")", WINDOW, NULL,
		/* each phase's GPU rows by the rowids of its minutes (a table's
		 * rowids grow with t: the first minute at or after the phase's
		 * start, the last up to two minutes after its end); phases first */
		"(SELECT g.* FROM phases p CROSS JOIN gpu g ON g.rowid BETWEEN"
		" coalesce((SELECT r.first FROM rowids_1m r WHERE r.tbl = 'gpu' AND r.t >= p.t_start ORDER BY r.t LIMIT 1), 0)"
		" AND coalesce((SELECT r.last FROM rowids_1m r WHERE r.tbl = 'gpu' AND r.t <= p.t_end + 120 ORDER BY r.t DESC"
		" LIMIT 1), 9223372036854775807) AND g.t > p.t_start AND g.t <= p.t_end WHERE p.name = 'checkpoint')", WINDOW, NULL},
	[FS_MS_RSS_TICKS] = {FS_MS_RSS_TICKS, "rss per tick", FS_T_PROC,
			     "(SELECT t, sum(CASE WHEN pid = ?3 THEN rss_bytes END) AS main_rss,"
			     " sum(CASE WHEN ppid = ?3 THEN rss_bytes END) AS workers_rss FROM proc WHERE " FS_Q_ROWS_PROC("")
			     " GROUP BY t)",
			     WINDOW, NULL,
		"(SELECT t, sum(CASE WHEN pid = ?3 THEN rss_bytes_max END) AS main_rss,"
		" sum(CASE WHEN ppid = ?3 THEN rss_bytes_max END) AS workers_rss FROM proc_1m GROUP BY t)", TWIN, NULL},
	/* Apart from rss per tick: a file from before pss_bytes fails this
	 * source's query alone, and the RSS figures still count. */
	[FS_MS_PSS_TICKS] = {FS_MS_PSS_TICKS, "workers' pss per tick", FS_T_PROC,
			     "(SELECT t, sum(pss_bytes) AS pss FROM proc WHERE ppid = ?3 AND " FS_Q_ROWS_PROC("")
			     " GROUP BY t)", WINDOW, NULL,
		"(SELECT t, sum(pss_bytes_max) AS pss FROM proc_1m WHERE ppid = ?3 GROUP BY t)", TWIN, NULL},
	/* A process's first and last sample in the window: the window is
	 * applied inside too, before the window functions see the rows. */
	[FS_MS_WORKER_PSS] = {FS_MS_WORKER_PSS, "workers' pss samples", FS_T_PROC,
			      "(SELECT t, pid, row_number() OVER w AS nth, first_value(pss_bytes) OVER w AS first_pss,"
			      " last_value(pss_bytes) OVER w AS last_pss FROM proc"
			      " WHERE ppid = ?3 AND pss_bytes IS NOT NULL AND " FS_Q_ROWS_PROC("") " AND " WINDOW
			      " WINDOW w AS (PARTITION BY pid ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))",
			      WINDOW, NULL,
		"(SELECT t, pid, row_number() OVER w AS nth, first_value(pss_bytes) OVER w AS first_pss,"
		" last_value(pss_bytes) OVER w AS last_pss FROM proc_1m WHERE ppid = ?3 AND pss_bytes IS NOT NULL AND " TWIN
		" WINDOW w AS (PARTITION BY pid ORDER BY t ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))", TWIN, NULL},
	/* The job's memory per tick: rows between two smaps_rollup reads repeat
	 * the last one (docs/schema.md, proc.pss_bytes). */
	[FS_MS_MEM_TICKS] = {FS_MS_MEM_TICKS, "memory per tick", FS_T_PROC,
			     "(SELECT t, sum(pss_bytes) AS pss, sum(CASE WHEN pid = ?3 THEN pss_bytes END) AS main_pss,"
			     " sum(CASE WHEN pid != ?3 AND ppid != ?3 THEN pss_bytes END) AS others_pss,"
			     " sum(shmem_pss_bytes) AS shmem, sum(ppid = ?3) AS nw FROM proc WHERE " FS_Q_ROWS_PROC("") " GROUP BY t)",
			     WINDOW, NULL,
		"(SELECT t, sum(pss_bytes_max) AS pss, sum(CASE WHEN pid = ?3 THEN pss_bytes_max END) AS main_pss,"
		" sum(CASE WHEN pid != ?3 AND ppid != ?3 THEN pss_bytes_max END) AS others_pss,"
		" sum(shmem_pss_bytes_max) AS shmem, sum(ppid = ?3) AS nw FROM proc_1m GROUP BY t)", TWIN, NULL},
	/* Each process of the job in the window, one row: its role, whether it
	 * was there in the window's last second (alive: workers shutting down
	 * at the end leave a tick or two apart), its first and last USS (of
	 * the rows that have one) and RSS (the first from a second into the
	 * window: the BPF path reads stat once a second, and a reading older
	 * than the window's start holds what the trainer had before it
	 * finished building its dataset), its largest USS and swap, its minor
	 * faults and CPU seconds (x 100). Grouped by process, each first and
	 * last reading a min(t)/max(t) of its own (window functions over the
	 * whole window took 8 s on a 2-hour run file, these 2). Read raw at
	 * any resolution (no per-minute form). */
	[FS_MS_MEM_PROCS] = {FS_MS_MEM_PROCS, "memory by process", FS_T_PROC,
			     "(SELECT y.*, y.t1 >= max(y.t1) OVER () - 1 AS alive FROM (SELECT a.pid, a.t1, a.grp, u0.v AS uss0,"
			     " u1.v AS uss1, r0.v AS rss0, r1.v AS rss1, a.uss_max, a.swap_max, a.minflt, a.sys, a.cpu FROM"
			     " (SELECT p.pid, max(p.t) AS t1,"
			     " CASE WHEN p.pid = ?3 THEN 'main' WHEN max(p.ppid = ?3) THEN 'workers' ELSE 'others' END AS grp,"
			     " max(p.uss_bytes) AS uss_max, max(p.swap_bytes) AS swap_max, sum(p.minflt_per_s * k.dt_s) AS minflt,"
			     " sum(p.system_pct * k.dt_s) AS sys, sum(p.cpu_pct * k.dt_s) AS cpu FROM proc p LEFT JOIN ticks k ON k.t = p.t"
			     " WHERE " FS_Q_ROWS_PROC("p.") " AND p.t BETWEEN ?1 AND ?2 GROUP BY p.pid) a"
			     /* a process's first and last reading: SQLite gives a bare
			      * column the row of the one min() or max() */
			     " LEFT JOIN (SELECT pid, min(t), uss_bytes AS v FROM proc WHERE " FS_Q_ROWS_PROC("") " AND t BETWEEN ?1 AND ?2"
			     " AND uss_bytes IS NOT NULL GROUP BY pid) u0 ON u0.pid = a.pid"
			     " LEFT JOIN (SELECT pid, max(t), uss_bytes AS v FROM proc WHERE " FS_Q_ROWS_PROC("") " AND t BETWEEN ?1 AND ?2"
			     " AND uss_bytes IS NOT NULL GROUP BY pid) u1 ON u1.pid = a.pid"
			     " LEFT JOIN (SELECT pid, min(t), rss_bytes AS v FROM proc WHERE " FS_Q_ROWS_PROC("") " AND t BETWEEN ?1 AND ?2"
			     " AND rss_bytes IS NOT NULL AND t >= ?1 + 1 GROUP BY pid) r0 ON r0.pid = a.pid"
			     " LEFT JOIN (SELECT pid, max(t), rss_bytes AS v FROM proc WHERE " FS_Q_ROWS_PROC("") " AND t BETWEEN ?1 AND ?2"
			     " AND rss_bytes IS NOT NULL GROUP BY pid) r1 ON r1.pid = a.pid) y)",
			     "t1 BETWEEN ?1 AND ?2", NULL, NULL, NULL, NULL},
	/* The trainer's children's samples: when the loaders' span starts
	 * and ends (one scan, where the per-tick sums above sort the whole
	 * window by time). Read raw at any resolution. */
	[FS_MS_WORKER_ROWS] = {FS_MS_WORKER_ROWS, "workers' samples", FS_T_PROC,
			       "(SELECT t FROM proc WHERE ppid = ?3 AND " FS_Q_ROWS_PROC("") ")", WINDOW, NULL, NULL, NULL, NULL},
	[FS_MS_DISK] = {FS_MS_DISK, "disk by device", FS_T_DISK,
			"(SELECT d.*, d.dt_s AS dt FROM disk d WHERE " FS_Q_ROWS_DISK("d.") ")", WINDOW,
			"device",
		"(SELECT d.*, d.dt_s AS dt FROM disk_1m d)", TWIN,
		.legacy = "(SELECT d.*, k.dt_s AS dt FROM disk d JOIN ticks k ON k.t = d.t WHERE " FS_Q_ROWS_DISK("d.") ")"},
	[FS_MS_NIC] = {FS_MS_NIC, "net by interface", FS_T_NET,
		       "(SELECT n.*, n.dt_s AS dt FROM net n WHERE n.iface != 'lo' AND "
		       FS_Q_ROWS_NET("n.") ")", WINDOW,
		       "iface",
		"(SELECT x.*, x.dt_s AS dt FROM net_1m x WHERE x.iface != 'lo')", TWIN,
		.legacy = "(SELECT n.*, k.dt_s AS dt FROM net n JOIN ticks k ON k.t = n.t WHERE n.iface != 'lo' AND "
			  FS_Q_ROWS_NET("n.") ")"},
	[FS_MS_LOADER] = {FS_MS_LOADER, "steps by loader", FS_T_STEPS, "(SELECT * FROM steps WHERE " FS_Q_ROWS_STEPS("") ")",
			  WINDOW, "loader",
		"steps_1m", TWIN, NULL},
	/* per minute: phases_1m (collectives past the raw windows are gone) */
	[FS_MS_PHASE] = {FS_MS_PHASE, "phases by name", FS_T_PHASES, "phases", "t_end >= ?1 AND t_start <= ?2", "name",
		"phases_1m", TWIN, NULL},
	[FS_MS_PROCS] = {FS_MS_PROCS, "proc by group", FS_T_PROC,
			 "(SELECT CASE WHEN p.pid = ?3 THEN 'main' WHEN p.ppid = ?3 THEN 'children' ELSE 'others' END"
			 " AS grp, p.*, k.dt_s AS dt FROM proc p JOIN ticks k ON k.t = p.t WHERE k.dt_s IS NOT NULL AND "
			 FS_Q_ROWS_PROC("p.") ")",
			 WINDOW, "grp",
		"(SELECT CASE WHEN p.pid = ?3 THEN 'main' WHEN p.ppid = ?3 THEN 'children' ELSE 'others' END"
		" AS grp, p.*, p.dt_s AS dt FROM proc_1m p)", TWIN, NULL},
	[FS_MS_FILES_BY_GROUP] = {FS_MS_FILES_BY_GROUP, "files by group", FS_T_FILES,
				  "(SELECT " GROUP_OF_PID ", * FROM files WHERE path != '(other files)')", "1", "grp",
		NULL, NULL, NULL},
	[FS_MS_IO_BY_GROUP] = {FS_MS_IO_BY_GROUP, "io_intervals by group", FS_T_IO_INTERVALS,
			       "(SELECT " GROUP_OF_PID ", * FROM io_intervals WHERE " FS_Q_ROWS_IO_INTERVALS("") ")", WINDOW, "grp",
		"(SELECT " TGROUP_OF_PID ", * FROM io_intervals_1m)", TWIN, NULL},
	[FS_MS_CLASSES_BY_GROUP] = {FS_MS_CLASSES_BY_GROUP, "io_classes of main threads by group", FS_T_IO_CLASSES,
				    "(SELECT " GROUP_OF_PID ", * FROM io_classes WHERE thread = 'main' AND " FS_Q_ROWS_IO_CLASSES("") ")",
				    WINDOW, "grp",
		"(SELECT " TGROUP_OF_PID ", * FROM io_classes_1m WHERE thread = 'main')", TWIN, NULL},
	[FS_MS_TRAINER_PHASES] = {FS_MS_TRAINER_PHASES, "phases of the trainer by name", FS_T_PHASES,
				  "(SELECT * FROM phases WHERE pid = ?3)", "t_end >= ?1 AND t_start <= ?2", "name",
		"(SELECT * FROM phases_1m WHERE pid = ?3)", TWIN, NULL},
	[FS_MS_GPU_BY_DEVICE] = {FS_MS_GPU_BY_DEVICE, "gpu by device", FS_T_GPU, "(SELECT * FROM gpu WHERE " FS_Q_ROWS_GPU("") ")",
				 WINDOW, "gpu",
		"gpu_1m", TWIN, NULL},
	[FS_MS_PROC_BY_PID] = {FS_MS_PROC_BY_PID, "proc by pid", FS_T_PROC,
			       "(SELECT p.*, p.running + p.blocked_io + p.sleeping + coalesce(p.other, 0) AS tot FROM proc p WHERE "
			       FS_Q_ROWS_PROC("p.") ")",
			       WINDOW, "pid",
		"(SELECT p.*, p.running + p.blocked_io + p.sleeping + coalesce(p.other, 0) AS tot FROM proc_1m p)", TWIN, NULL},
};

/* A mean over samples is over rows: each row is one sample of the
 * interval that ends at its t. PSI has a row per resource, told apart in
 * the aggregate. */
#define PSI(res, col) "avg(CASE WHEN resource = '" res "' THEN " col " END)"

/* Over per-minute rows: a mean weighs each row by the raw samples it
 * stands for (n); NULL rows left out as avg() leaves them. */
#define TAVG(x) FS_Q_TAVG(x)
#define TPSI(res, col) TAVG("CASE WHEN resource = '" res "' THEN " col " END")

const struct fs_metricdef fs_metricdefs[FS_MD__N] = {
	[FS_MD_CPU_BUSY_PCT] = {FS_MD_CPU_BUSY_PCT, "cpu_busy_pct", "%", FS_MS_CPU, "avg(100 - idle_pct - iowait_pct)",
				"all CPUs' time neither idle nor in iowait (user, nice, system, irq, steal), mean",
		.tier = TAVG("100 - idle_pct - iowait_pct")},
	[FS_MD_CPU_IOWAIT_PCT] = {FS_MD_CPU_IOWAIT_PCT, "cpu_iowait_pct", "%", FS_MS_CPU, "avg(iowait_pct)",
				  "all CPUs' time idle with I/O outstanding, mean",
		.tier = TAVG("iowait_pct")},
	[FS_MD_CPU_USER_PCT] = {FS_MD_CPU_USER_PCT, "cpu_user_pct", "%", FS_MS_CPU,
				"avg(user_pct + coalesce(nice_pct, 0))", "user time, niced included, mean",
		.tier = TAVG("user_pct + coalesce(nice_pct, 0)")},
	[FS_MD_CPU_SYSTEM_PCT] = {FS_MD_CPU_SYSTEM_PCT, "cpu_system_pct", "%", FS_MS_CPU, "avg(system_pct)",
				  "kernel time, mean",
		.tier = TAVG("system_pct")},
	[FS_MD_CPU_STEAL_PCT] = {FS_MD_CPU_STEAL_PCT, "cpu_steal_pct", "%", FS_MS_CPU, "avg(steal_pct)",
				 "time the hypervisor gave to others, mean",
		.tier = TAVG("steal_pct")},
	[FS_MD_CPU_IDLE_PCT] = {FS_MD_CPU_IDLE_PCT, "cpu_idle_pct", "%", FS_MS_CPU, "avg(idle_pct)",
				"idle time (iowait apart), mean",
		.tier = TAVG("idle_pct")},
	[FS_MD_PSI_CPU_SOME_PCT] = {FS_MD_PSI_CPU_SOME_PCT, "psi_cpu_some_pct", "%", FS_MS_PSI, PSI("cpu", "some_pct"),
				    "time some task waited for a CPU, mean",
		.tier = TPSI("cpu", "some_pct")},
	[FS_MD_PSI_CPU_FULL_PCT] = {FS_MD_PSI_CPU_FULL_PCT, "psi_cpu_full_pct", "%", FS_MS_PSI, PSI("cpu", "full_pct"),
				    "time all non-idle tasks waited for a CPU (cgroups; 0 machine-wide), mean",
		.tier = TPSI("cpu", "full_pct")},
	[FS_MD_PSI_IO_SOME_PCT] = {FS_MD_PSI_IO_SOME_PCT, "psi_io_some_pct", "%", FS_MS_PSI, PSI("io", "some_pct"),
				   "time some task was stalled on I/O, mean",
		.tier = TPSI("io", "some_pct")},
	[FS_MD_PSI_IO_FULL_PCT] = {FS_MD_PSI_IO_FULL_PCT, "psi_io_full_pct", "%", FS_MS_PSI, PSI("io", "full_pct"),
				   "time all non-idle tasks were stalled on I/O, mean",
		.tier = TPSI("io", "full_pct")},
	[FS_MD_PSI_MEMORY_SOME_PCT] = {FS_MD_PSI_MEMORY_SOME_PCT, "psi_memory_some_pct", "%", FS_MS_PSI,
				       PSI("memory", "some_pct"), "time some task was stalled on memory (reclaim, refaults), mean",
		.tier = TPSI("memory", "some_pct")},
	[FS_MD_PSI_MEMORY_FULL_PCT] = {FS_MD_PSI_MEMORY_FULL_PCT, "psi_memory_full_pct", "%", FS_MS_PSI,
				       PSI("memory", "full_pct"), "time all non-idle tasks were stalled on memory, mean",
		.tier = TPSI("memory", "full_pct")},
	[FS_MD_MEM_AVAILABLE_MIN_BYTES] = {FS_MD_MEM_AVAILABLE_MIN_BYTES, "mem_available_min_bytes", "bytes", FS_MS_MEM,
					   "min(available_bytes)", "the lowest MemAvailable seen",
		.tier = "min(available_bytes_min)"},
	[FS_MD_PAGE_CACHE_MAX_BYTES] = {FS_MD_PAGE_CACHE_MAX_BYTES, "page_cache_max_bytes", "bytes", FS_MS_MEM,
					"max(cached_bytes)", "the largest page cache (Cached) seen",
		.tier = "max(cached_bytes_max)"},
	[FS_MD_MAJOR_FAULTS_PER_S] = {FS_MD_MAJOR_FAULTS_PER_S, "major_faults_per_s", "1/s", FS_MS_MEM,
				      "avg(majflt_per_s)", "the machine's major page faults (pgmajfault), mean rate",
		.tier = TAVG("majflt_per_s")},
	[FS_MD_DENTRIES_GROWTH] = {FS_MD_DENTRIES_GROWTH, "dentries_growth", "count", FS_MS_MEM,
				   "max(dentries) - min(dentries)",
				   "the dentry cache's growth, largest less smallest count (new file names looked up)",
		.tier = "max(dentries_max) - min(dentries_min)"},
	[FS_MD_TCP_RETRANS_PER_S] = {FS_MD_TCP_RETRANS_PER_S, "tcp_retrans_per_s", "1/s", FS_MS_TCP,
				     "avg(retrans_segs_per_s)", "TCP segments retransmitted, mean rate",
		.tier = TAVG("retrans_segs_per_s")},
	[FS_MD_NFS_READ_OPS_PER_S] = {FS_MD_NFS_READ_OPS_PER_S, "nfs_read_ops_per_s", "1/s", FS_MS_NFS,
				      "avg(read_ops_per_s)", "NFS READ operations, mean rate over the mounts' samples",
		.tier = TAVG("read_ops_per_s")},
	[FS_MD_NFS_READ_RTT_MS] = {FS_MD_NFS_READ_RTT_MS, "nfs_read_rtt_ms", "ms", FS_MS_NFS,
				   "sum(read_rtt_ms * read_ops_per_s) / nullif(sum(read_ops_per_s), 0)",
				   "NFS READ round trip, weighted by READs (none: not valid)",
		.tier = "sum(read_rtt_ms * read_ops_per_s * n) / nullif(sum(read_ops_per_s * n), 0)"},
	[FS_MD_GPU_COUNT] = {FS_MD_GPU_COUNT, "gpu_count", "count", FS_MS_GPU, "nullif(count(DISTINCT gpu), 0)",
			     "GPUs sampled (none: not valid)", NULL},
	[FS_MD_GPU_UTIL_PCT] = {FS_MD_GPU_UTIL_PCT, "gpu_util_pct", "%", FS_MS_GPU, "avg(util_pct)",
				"GPU busy (NVML utilization), mean over all GPUs' samples",
		.tier = TAVG("util_pct")},
	[FS_MD_GPU_MEM_USED_MAX_BYTES] = {FS_MD_GPU_MEM_USED_MAX_BYTES, "gpu_mem_used_max_bytes", "bytes", FS_MS_GPU,
					  "max(mem_used_bytes)", "the most memory used on one GPU",
		.tier = "max(mem_used_bytes_max)"},
	[FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S] = {FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S, "gpu_pcie_rx_max_bytes_per_s", "B/s",
					       FS_MS_GPU, "max(pcie_rx_bytes_per_s)",
					       "the highest PCIe receive rate of one GPU",
		.tier = "max(pcie_rx_bytes_per_s_max)"},
	[FS_MD_CGROUP_CPU_QUOTA_CORES] = {FS_MD_CGROUP_CPU_QUOTA_CORES, "cgroup_cpu_quota_cores", "cores", FS_MS_CGROUP,
					  "max(cpu_quota_cores)", "the job's cgroup CPU quota (cpu.max, cfs_quota/period), largest",
		.tier = "max(cpu_quota_cores_max)"},
	[FS_MD_CGROUP_THROTTLED_PCT] = {FS_MD_CGROUP_THROTTLED_PCT, "cgroup_throttled_pct", "%", FS_MS_CGROUP,
					"avg(throttled_pct)", "the job's cgroup's periods throttled by its quota, mean",
		.tier = TAVG("throttled_pct")},
	[FS_MD_CGROUP_MEM_LIMIT_BYTES] = {FS_MD_CGROUP_MEM_LIMIT_BYTES, "cgroup_mem_limit_bytes", "bytes", FS_MS_CGROUP,
					  "min(mem_limit_bytes)",
					  "the job's cgroup memory limit (the tightest, where its processes are in several)",
		.tier = "min(mem_limit_bytes_min)"},
	[FS_MD_CGROUP_MEM_USAGE_MAX_BYTES] = {FS_MD_CGROUP_MEM_USAGE_MAX_BYTES, "cgroup_mem_usage_max_bytes", "bytes",
					      FS_MS_CGROUP,
					      "coalesce(max(CASE WHEN mem_limit_bytes IS NOT NULL THEN mem_usage_bytes END),"
					      " max(mem_usage_bytes))",
					      "the job's cgroup memory use, largest (of the cgroups with a limit, where there is one)",
		.tier = "coalesce(max(CASE WHEN mem_limit_bytes_max IS NOT NULL THEN mem_usage_bytes_max END),"
			" max(mem_usage_bytes_max))"},
	[FS_MD_TICKS_COUNT] = {FS_MD_TICKS_COUNT, "ticks_count", "count", FS_MS_TICKS, "nullif(count(*), 0)",
			       "samples taken (ticks; none: not valid)",
		.tier = "nullif(sum(n), 0)"},
	[FS_MD_RECORDED_S] = {FS_MD_RECORDED_S, "recorded_s", "s", FS_MS_TICKS, "sum(dt_s)",
			      "time the samples cover: the sum of the ticks' lengths", NULL},
	[FS_MD_FIRST_TICK_S] = {FS_MD_FIRST_TICK_S, "first_tick_s", "s", FS_MS_TICKS, "min(t)", "the first sample's t",
		.tier = FS_MD_RAW},
	[FS_MD_LAST_TICK_S] = {FS_MD_LAST_TICK_S, "last_tick_s", "s", FS_MS_TICKS, "max(t)", "the last sample's t",
		.tier = FS_MD_RAW},
	[FS_MD_NET_RX_BYTES_PER_S] = {FS_MD_NET_RX_BYTES_PER_S, "net_rx_bytes_per_s", "B/s", FS_MS_NET_TICKS, "avg(rx)",
				      "received on every interface but lo, mean of the samples' sums",
		.tier = TAVG("rx")},
	[FS_MD_NET_TX_BYTES_PER_S] = {FS_MD_NET_TX_BYTES_PER_S, "net_tx_bytes_per_s", "B/s", FS_MS_NET_TICKS, "avg(tx)",
				      "sent on every interface but lo, mean of the samples' sums",
		.tier = TAVG("tx")},
	[FS_MD_JOB_PROCS_MAX] = {FS_MD_JOB_PROCS_MAX, "job_procs_max", "count", FS_MS_JOB_TICKS, "max(procs)",
				 "the job's processes, most at once", NULL},
	[FS_MD_JOB_PROCS_MEAN] = {FS_MD_JOB_PROCS_MEAN, "job_procs_mean", "count", FS_MS_JOB_TICKS, "avg(procs)",
				  "the job's processes, mean over ticks",
		.tier = TAVG("procs")},
	[FS_MD_JOB_THREADS_MAX] = {FS_MD_JOB_THREADS_MAX, "job_threads_max", "count", FS_MS_JOB_TICKS, "max(threads)",
				   "the job's threads, most at once", NULL},
	[FS_MD_JOB_THREADS_MEAN] = {FS_MD_JOB_THREADS_MEAN, "job_threads_mean", "count", FS_MS_JOB_TICKS,
				    "avg(threads)", "the job's threads, mean over ticks",
		.tier = TAVG("threads")},
	[FS_MD_JOB_THREADS_RUNNING_MEAN] = {FS_MD_JOB_THREADS_RUNNING_MEAN, "job_threads_running_mean", "count",
					    FS_MS_JOB_TICKS, "avg(run)", "the job's threads running or runnable (R), mean",
		.tier = TAVG("run")},
	[FS_MD_JOB_THREADS_BLOCKED_MEAN] = {FS_MD_JOB_THREADS_BLOCKED_MEAN, "job_threads_blocked_mean", "count",
					    FS_MS_JOB_TICKS, "avg(blk)", "the job's threads blocked in I/O (D), mean",
		.tier = TAVG("blk")},
	[FS_MD_JOB_THREADS_SLEEPING_MEAN] = {FS_MD_JOB_THREADS_SLEEPING_MEAN, "job_threads_sleeping_mean", "count",
					     FS_MS_JOB_TICKS, "avg(slp)", "the job's threads sleeping (S), mean",
		.tier = TAVG("slp")},
	[FS_MD_JOB_CPU_PCT] = {FS_MD_JOB_CPU_PCT, "job_cpu_pct", "%", FS_MS_JOB_TICKS, "avg(cpu)",
			       "the job's CPU use, % of one core, mean over ticks of the sum over processes",
		.tier = TAVG("cpu")},
	[FS_MD_THREADS_RUNNING_PCT] = {FS_MD_THREADS_RUNNING_PCT, "threads_running_pct", "%", FS_MS_JOB,
				       "100.0 * sum(running) / nullif(sum(tot), 0)", "the job's thread samples running (R)",
		.tier = "100.0 * sum(running * n) / nullif(sum(tot * n), 0)"},
	[FS_MD_THREADS_BLOCKED_PCT] = {FS_MD_THREADS_BLOCKED_PCT, "threads_blocked_pct", "%", FS_MS_JOB,
				       "100.0 * sum(blocked_io) / nullif(sum(tot), 0)",
				       "the job's thread samples blocked in I/O (D)",
		.tier = "100.0 * sum(blocked_io * n) / nullif(sum(tot * n), 0)"},
	[FS_MD_THREADS_SLEEPING_PCT] = {FS_MD_THREADS_SLEEPING_PCT, "threads_sleeping_pct", "%", FS_MS_JOB,
					"100.0 * sum(sleeping) / nullif(sum(tot), 0)", "the job's thread samples sleeping (S)",
		.tier = "100.0 * sum(sleeping * n) / nullif(sum(tot * n), 0)"},
	[FS_MD_THREADS_OTHER_PCT] = {FS_MD_THREADS_OTHER_PCT, "threads_other_pct", "%", FS_MS_JOB,
				     "100.0 * sum(coalesce(other, 0)) / nullif(sum(tot), 0)",
				     "the job's thread samples in another state (stopped, zombie, idle kernel)",
		.tier = "100.0 * sum(coalesce(other, 0) * n) / nullif(sum(tot * n), 0)"},
	[FS_MD_WORKER_THREADS_RUNNING_PCT] = {FS_MD_WORKER_THREADS_RUNNING_PCT, "worker_threads_running_pct", "%",
					      FS_MS_JOB, "100.0 * sum(w * running) / nullif(sum(w * tot), 0)",
					      "DataLoader workers' thread samples running (R)",
		.tier = "100.0 * sum(w * running * n) / nullif(sum(w * tot * n), 0)"},
	[FS_MD_WORKER_THREADS_BLOCKED_PCT] = {FS_MD_WORKER_THREADS_BLOCKED_PCT, "worker_threads_blocked_pct", "%",
					      FS_MS_JOB, "100.0 * sum(w * blocked_io) / nullif(sum(w * tot), 0)",
					      "DataLoader workers' thread samples blocked in I/O (D)",
		.tier = "100.0 * sum(w * blocked_io * n) / nullif(sum(w * tot * n), 0)"},
	[FS_MD_WORKER_THREADS_SLEEPING_PCT] = {FS_MD_WORKER_THREADS_SLEEPING_PCT, "worker_threads_sleeping_pct", "%",
					       FS_MS_JOB, "100.0 * sum(w * sleeping) / nullif(sum(w * tot), 0)",
					       "DataLoader workers' thread samples sleeping (S)",
		.tier = "100.0 * sum(w * sleeping * n) / nullif(sum(w * tot * n), 0)"},
	[FS_MD_JOB_READ_BYTES] = {FS_MD_JOB_READ_BYTES, "job_read_bytes", "bytes", FS_MS_JOB, "sum(read_bytes_per_s * dt)",
				  "the job's processes' reads from storage (read_bytes), total", NULL},
	[FS_MD_JOB_RCHAR_BYTES] = {FS_MD_JOB_RCHAR_BYTES, "job_rchar_bytes", "bytes", FS_MS_JOB, "sum(rchar_per_s * dt)",
				   "the job's processes' bytes through read calls (rchar), total", NULL},
	[FS_MD_TRACE_ROWS_COUNT] = {FS_MD_TRACE_ROWS_COUNT, "trace_rows_count", "count", FS_MS_TRACE, "nullif(max(n), 0)",
				    "rows the I/O tracer left (files, intervals), whole run; none: not valid", NULL},
	[FS_MD_IO_CLASSES_ROWS_COUNT] = {FS_MD_IO_CLASSES_ROWS_COUNT, "io_classes_rows_count", "count", FS_MS_IO_CLASSES,
					 "nullif(count(*), 0)", "per-class rows the tracer left, whole run; none: not valid", NULL},
	[FS_MD_TRAINER_EPOCHS] = {FS_MD_TRAINER_EPOCHS, "trainer_epochs", "count", FS_MS_TRAINER_STEPS,
				  "nullif(count(DISTINCT loader || '/' || epoch), 0)", "epochs of the trainer's loaders (each loader's own); none: not valid", NULL},
	[FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT] = {FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT, "gpu_util_in_checkpoints_pct", "%",
					       FS_MS_CKPT_GPU, "avg(util_pct)",
					       "GPU busy in samples that end inside a checkpoint phase, mean", NULL},
	[FS_MD_DEV_SHM_USED_MAX_BYTES] = {FS_MD_DEV_SHM_USED_MAX_BYTES, "dev_shm_used_max_bytes", "bytes", FS_MS_MEM,
					  "max(dev_shm_bytes)", "the most bytes used on /dev/shm (DataLoader batches pass there)",
		.tier = "max(dev_shm_bytes_max)"},
	[FS_MD_DEV_SHM_GROWTH_BYTES] = {FS_MD_DEV_SHM_GROWTH_BYTES, "dev_shm_growth_bytes", "bytes", FS_MS_MEM,
					"max(dev_shm_bytes) - (SELECT dev_shm_bytes FROM mem WHERE " WINDOW
					" AND dev_shm_bytes IS NOT NULL ORDER BY t LIMIT 1)",
					"/dev/shm's most bytes used less its first sample's",
		.tier = "max(dev_shm_bytes_max) - (SELECT dev_shm_bytes_min FROM mem_1m WHERE " TWIN " AND dev_shm_bytes IS NOT NULL ORDER BY t LIMIT 1)"},
	[FS_MD_MAIN_RSS_MAX_BYTES] = {FS_MD_MAIN_RSS_MAX_BYTES, "main_rss_max_bytes", "bytes", FS_MS_RSS_TICKS,
				      "max(main_rss)", "the trainer's resident set, largest", NULL},
	[FS_MD_WORKERS_RSS_MAX_BYTES] = {FS_MD_WORKERS_RSS_MAX_BYTES, "workers_rss_max_bytes", "bytes",
					 FS_MS_RSS_TICKS, "max(workers_rss)",
					 "the trainer's children's (its DataLoader workers') resident sets summed, largest;"
					 " pages they share counted in each", NULL},
	[FS_MD_WORKERS_PSS_MAX_BYTES] = {FS_MD_WORKERS_PSS_MAX_BYTES, "workers_pss_max_bytes", "bytes",
					 FS_MS_PSS_TICKS, "max(pss)",
					 "their proportional set sizes summed, largest: shared pages divided among the"
					 " processes mapping them", NULL},
	[FS_MD_WORKERS_PSS_GROWTH_BYTES] = {FS_MD_WORKERS_PSS_GROWTH_BYTES, "workers_pss_growth_bytes", "bytes",
					    FS_MS_WORKER_PSS, "sum(CASE WHEN nth = 1 THEN last_pss - first_pss END)",
					    "each worker's last PSS sample less its first, summed (copy-on-read: inherited"
					    " pages made private); one sample: 0", NULL},
	[FS_MD_JOB_PSS_MAX_BYTES] = {FS_MD_JOB_PSS_MAX_BYTES, "job_pss_max_bytes", "bytes", FS_MS_MEM_TICKS, "max(pss)",
				     "the job's processes' proportional set sizes summed (the memory they hold together), largest", NULL},
	[FS_MD_MAIN_PSS_MAX_BYTES] = {FS_MD_MAIN_PSS_MAX_BYTES, "main_pss_max_bytes", "bytes", FS_MS_MEM_TICKS,
				      "max(main_pss)", "the trainer's proportional set size, largest", NULL},
	[FS_MD_OTHERS_PSS_MAX_BYTES] = {FS_MD_OTHERS_PSS_MAX_BYTES, "others_pss_max_bytes", "bytes", FS_MS_MEM_TICKS,
					"max(others_pss)",
					"the job's other processes' (neither the trainer nor its children) PSS summed, largest", NULL},
	[FS_MD_WORKERS_FIRST_T] = {FS_MD_WORKERS_FIRST_T, "workers_first_t_s", "s", FS_MS_WORKER_ROWS,
				   "min(t)", "the first sample with a child of the trainer (a DataLoader's iter())", NULL},
	[FS_MD_WORKERS_LAST_T] = {FS_MD_WORKERS_LAST_T, "workers_last_t_s", "s", FS_MS_WORKER_ROWS,
				  "max(t)", "the last sample with a child of the trainer", NULL},
	[FS_MD_JOB_SHMEM_PSS_MAX_BYTES] = {FS_MD_JOB_SHMEM_PSS_MAX_BYTES, "job_shmem_pss_max_bytes", "bytes",
					   FS_MS_MEM_TICKS, "max(shmem)",
					   "the job's shares of shared memory it maps (Pss_Shmem: /dev/shm batches) summed, largest", NULL},
	[FS_MD_JOB_PSS_SLOPE_BYTES_PER_S] = {FS_MD_JOB_PSS_SLOPE_BYTES_PER_S, "job_pss_slope_bytes_per_s", "B/s",
					     FS_MS_MEM_TICKS,
					     "(count(pss) * sum(t * pss) - sum(CASE WHEN pss IS NOT NULL THEN t END) * sum(pss))"
					     " / nullif(count(pss) * sum(CASE WHEN pss IS NOT NULL THEN t * t END)"
					     " - sum(CASE WHEN pss IS NOT NULL THEN t END) * sum(CASE WHEN pss IS NOT NULL THEN t END), 0)",
					     "the job's PSS summed per sample, its least-squares slope over the window (the memory "
					     "findings read it over the loaders' span's second half: still growing, or settled)",
					     NULL},
	[FS_MD_JOB_MEM_GROWTH_BYTES] = {FS_MD_JOB_MEM_GROWTH_BYTES, "job_mem_growth_bytes", "bytes", FS_MS_MEM_PROCS,
					"CASE WHEN count(uss1) > 0 THEN sum(CASE WHEN NOT alive THEN 0 WHEN grp = 'main' THEN rss1 - rss0 ELSE uss1 - uss0 END) END",
					"what the job's processes there at the window's end added to its memory: the trainer's resident"
					" growth, each other process's USS growth from its first read (a worker's copies and"
					" allocations)", NULL},
	[FS_MD_WORKERS_USS_GROWTH_BYTES] = {FS_MD_WORKERS_USS_GROWTH_BYTES, "workers_uss_growth_bytes", "bytes",
					    FS_MS_MEM_PROCS, "sum(CASE WHEN grp = 'workers' AND alive THEN uss1 - uss0 END)",
					    "the trainer's children's (those there at the window's end) USS growth, each from its"
					    " first read, summed", NULL},
	[FS_MD_MAIN_RSS_GROWTH_BYTES] = {FS_MD_MAIN_RSS_GROWTH_BYTES, "main_rss_growth_bytes", "bytes", FS_MS_MEM_PROCS,
					 "sum(CASE WHEN grp = 'main' THEN rss1 - rss0 END)", "the trainer's resident set, last sample less first", NULL},
	[FS_MD_WORKERS_RSS_GROWTH_BYTES] = {FS_MD_WORKERS_RSS_GROWTH_BYTES, "workers_rss_growth_bytes", "bytes",
					    FS_MS_MEM_PROCS, "sum(CASE WHEN grp = 'workers' AND alive THEN rss1 - rss0 END)",
					    "the trainer's children's (those there at the window's end) resident sets, each its last"
					    " sample less its first, summed"
					    " (a copy of a page already resident does not move it)", NULL},
	[FS_MD_WORKER_USS_MAX_MEAN_BYTES] = {FS_MD_WORKER_USS_MAX_MEAN_BYTES, "worker_uss_max_mean_bytes", "bytes",
					     FS_MS_MEM_PROCS, "avg(CASE WHEN grp = 'workers' THEN uss_max END)",
					     "a child's largest USS, the mean over them: what one more worker adds", NULL},
	[FS_MD_WORKERS_COUNT] = {FS_MD_WORKERS_COUNT, "workers_count", "count", FS_MS_MEM_PROCS, "nullif(sum(grp = 'workers'), 0)",
				 "the trainer's children seen in the window", NULL},
	[FS_MD_JOB_SWAP_MAX_BYTES] = {FS_MD_JOB_SWAP_MAX_BYTES, "job_swap_max_bytes", "bytes", FS_MS_MEM_PROCS, "sum(swap_max)",
				      "each process's most bytes swapped out, summed", NULL},
	[FS_MD_WORKERS_MINOR_FAULTS] = {FS_MD_WORKERS_MINOR_FAULTS, "workers_minor_faults", "count", FS_MS_MEM_PROCS,
					"sum(CASE WHEN grp = 'workers' THEN minflt END)",
					"the trainer's children's minor faults (copy-on-write copies among them), total", NULL},
	[FS_MD_WORKERS_SYSTEM_CPU_S] = {FS_MD_WORKERS_SYSTEM_CPU_S, "workers_system_cpu_s", "s", FS_MS_MEM_PROCS,
					"sum(CASE WHEN grp = 'workers' THEN sys END) / 100",
					"the trainer's children's CPU time in the kernel, total", NULL},
	[FS_MD_WORKERS_CPU_S] = {FS_MD_WORKERS_CPU_S, "workers_cpu_s", "s", FS_MS_MEM_PROCS,
				 "sum(CASE WHEN grp = 'workers' THEN cpu END) / 100", "the trainer's children's CPU time, total", NULL},
	[FS_MD_DEV_SHM_SIZE_BYTES] = {FS_MD_DEV_SHM_SIZE_BYTES, "dev_shm_size_bytes", "bytes", FS_MS_MEM,
				      "max(dev_shm_size_bytes)", "the size of the file system at /dev/shm",
		.tier = "max(dev_shm_size_bytes_max)"},
	[FS_MD_CGROUP_MEM_PEAK_BYTES] = {FS_MD_CGROUP_MEM_PEAK_BYTES, "cgroup_mem_peak_bytes", "bytes", FS_MS_CGROUP,
					 "coalesce(max(CASE WHEN mem_limit_bytes IS NOT NULL THEN mem_peak_bytes END),"
					 " max(mem_peak_bytes))",
					 "the job's cgroup's peak memory (page cache included) since the group was made (of the "
					 "cgroups with a limit, where there is one: a parent the job's launcher started in holds "
					 "more than the job)",
		.tier = "coalesce(max(CASE WHEN mem_limit_bytes_max IS NOT NULL THEN mem_peak_bytes_max END),"
			" max(mem_peak_bytes_max))"},
};
