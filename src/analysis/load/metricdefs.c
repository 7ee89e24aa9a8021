#include "analysis/load/metricdefs.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

_Static_assert(FS_MD__N <= 64, "one validity bit per definition in a uint64_t");
_Static_assert(FS_MDK__N <= 64, "one validity bit per keyed definition in a uint64_t");
_Static_assert(FS_MS__N <= 32, "one bit per source in FS_MD_FROM's uint32_t");

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
					  "max(mem_limit_bytes)", "the job's cgroup memory limit",
		.tier = "max(mem_limit_bytes_max)"},
	[FS_MD_CGROUP_MEM_USAGE_MAX_BYTES] = {FS_MD_CGROUP_MEM_USAGE_MAX_BYTES, "cgroup_mem_usage_max_bytes", "bytes",
					      FS_MS_CGROUP, "max(mem_usage_bytes)", "the job's cgroup memory use, largest",
		.tier = "max(mem_usage_bytes_max)"},
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
};

/* Keyed: a row per device, interface, loader, phase name, process group,
 * GPU, process. */
const struct fs_metricdef fs_metricdefs_by[FS_MDK__N] = {
	[FS_MDK_DISK_READ_BYTES] = {FS_MDK_DISK_READ_BYTES, "disk_read_bytes", "bytes", FS_MS_DISK,
				    "sum(read_bytes_per_s * dt)", "the device's bytes read, total", NULL},
	[FS_MDK_DISK_WRITE_BYTES] = {FS_MDK_DISK_WRITE_BYTES, "disk_write_bytes", "bytes", FS_MS_DISK,
				     "sum(write_bytes_per_s * dt)", "the device's bytes written, total", NULL},
	[FS_MDK_DISK_READ_BYTES_PER_S] = {FS_MDK_DISK_READ_BYTES_PER_S, "disk_read_bytes_per_s", "B/s", FS_MS_DISK,
					  "avg(read_bytes_per_s)", "the device's read rate, mean",
		.tier = TAVG("read_bytes_per_s")},
	[FS_MDK_DISK_WRITE_BYTES_PER_S] = {FS_MDK_DISK_WRITE_BYTES_PER_S, "disk_write_bytes_per_s", "B/s", FS_MS_DISK,
					   "avg(write_bytes_per_s)", "the device's write rate, mean",
		.tier = TAVG("write_bytes_per_s")},
	[FS_MDK_DISK_RW_BYTES_PER_S] = {FS_MDK_DISK_RW_BYTES_PER_S, "disk_rw_bytes_per_s", "B/s", FS_MS_DISK,
					"avg(read_bytes_per_s + write_bytes_per_s)", "the device's read + write rate, mean",
		.tier = TAVG("read_bytes_per_s + write_bytes_per_s")},
	[FS_MDK_DISK_READS_PER_S] = {FS_MDK_DISK_READS_PER_S, "disk_reads_per_s", "1/s", FS_MS_DISK, "avg(reads_per_s)",
				     "the device's read requests completed (IOPS), mean",
		.tier = TAVG("reads_per_s")},
	[FS_MDK_DISK_READ_REQ_BYTES] = {FS_MDK_DISK_READ_REQ_BYTES, "disk_read_req_bytes", "bytes", FS_MS_DISK,
					"sum(read_bytes_per_s * dt) / nullif(sum(reads_per_s * dt), 0)",
					"the device's mean read request: bytes over requests", NULL},
	[FS_MDK_DISK_READ_AWAIT_MS] = {FS_MDK_DISK_READ_AWAIT_MS, "disk_read_await_ms", "ms", FS_MS_DISK,
				       "sum(read_await_ms * reads_per_s) / nullif(sum(reads_per_s), 0)",
				       "the device's read latency (queue + service), weighted by reads",
		.tier = "sum(read_await_reads_ms * reads_per_s * n) / nullif(sum(reads_per_s * n), 0)"},
	[FS_MDK_DISK_UTIL_PCT] = {FS_MDK_DISK_UTIL_PCT, "disk_util_pct", "%", FS_MS_DISK, "avg(util_pct)",
				  "the device's time busy (io_ticks), mean",
		.tier = TAVG("util_pct")},
	[FS_MDK_DISK_UTIL_MAX_PCT] = {FS_MDK_DISK_UTIL_MAX_PCT, "disk_util_max_pct", "%", FS_MS_DISK, "max(util_pct)",
				      "the device's time busy, highest sample",
		.tier = "max(util_pct_max)"},
	[FS_MDK_DISK_QUEUE_DEPTH] = {FS_MDK_DISK_QUEUE_DEPTH, "disk_queue_depth", "count", FS_MS_DISK,
				     "avg(queue_depth)", "the device's requests in flight (time-weighted), mean",
		.tier = TAVG("queue_depth")},
	[FS_MDK_NIC_BYTES] = {FS_MDK_NIC_BYTES, "nic_bytes", "bytes", FS_MS_NIC,
			      "sum((rx_bytes_per_s + tx_bytes_per_s) * dt)", "the interface's bytes received and sent, total", NULL},
	[FS_MDK_NIC_RX_BYTES_PER_S] = {FS_MDK_NIC_RX_BYTES_PER_S, "nic_rx_bytes_per_s", "B/s", FS_MS_NIC,
				       "avg(rx_bytes_per_s)", "the interface's receive rate, mean",
		.tier = TAVG("rx_bytes_per_s")},
	[FS_MDK_NIC_TX_BYTES_PER_S] = {FS_MDK_NIC_TX_BYTES_PER_S, "nic_tx_bytes_per_s", "B/s", FS_MS_NIC,
				       "avg(tx_bytes_per_s)", "the interface's send rate, mean",
		.tier = TAVG("tx_bytes_per_s")},
	[FS_MDK_NIC_SPEED_BYTES_PER_S] = {FS_MDK_NIC_SPEED_BYTES_PER_S, "nic_speed_bytes_per_s", "B/s", FS_MS_NIC,
					  "max(speed_mbps) * 125000.0", "the interface's nominal link speed",
		.tier = "max(speed_mbps_max) * 125000.0"},
	[FS_MDK_LOADER_STEPS] = {FS_MDK_LOADER_STEPS, "loader_steps", "count", FS_MS_LOADER, "count(*)",
				 "steps of the loader (all processes)",
		.tier = "sum(n)"},
	[FS_MDK_LOADER_EPOCHS] = {FS_MDK_LOADER_EPOCHS, "loader_epochs", "count", FS_MS_LOADER, "count(DISTINCT epoch)",
				  "epochs of the loader", NULL},
	[FS_MDK_LOADER_WAIT_S] = {FS_MDK_LOADER_WAIT_S, "loader_wait_s", "s", FS_MS_LOADER, "sum(wait_s)",
				  "time the loop waited for the loader's next batch, total", NULL},
	[FS_MDK_LOADER_COMPUTE_S] = {FS_MDK_LOADER_COMPUTE_S, "loader_compute_s", "s", FS_MS_LOADER, "sum(compute_s)",
				     "time from a batch's arrival to the next request, total", NULL},
	[FS_MDK_LOADER_WAIT_SHARE] = {FS_MDK_LOADER_WAIT_SHARE, "loader_wait_share", "fraction", FS_MS_LOADER,
				      "sum(wait_s) / nullif(sum(wait_s + compute_s), 0)",
				      "waiting's share of step time (the verdict's input_wait bucket is of loop time)", NULL},
	[FS_MDK_PHASE_COUNT] = {FS_MDK_PHASE_COUNT, "phase_count", "count", FS_MS_PHASE, "count(*)",
				"phases of that name",
		.tier = "sum(n)"},
	[FS_MDK_PHASE_TOTAL_S] = {FS_MDK_PHASE_TOTAL_S, "phase_total_s", "s", FS_MS_PHASE, "sum(t_end - t_start)",
				  "phases of that name, total time",
		.tier = "sum(phase_s)"},
	[FS_MDK_PROCS_SAMPLES] = {FS_MDK_PROCS_SAMPLES, "procs_samples", "count", FS_MS_PROCS, "count(*)",
				  "process samples of the group",
		.tier = "sum(n)"},
	[FS_MDK_PROCS_BLOCKED_SAMPLES] = {FS_MDK_PROCS_BLOCKED_SAMPLES, "procs_blocked_samples", "count", FS_MS_PROCS,
					  "sum(min(blocked_io, 1.0))",
					  "of which a thread was blocked in I/O (D) (BPF rows: the mean threads in D, at most 1)",
		.tier = "sum(blocked_any_pct * n) / 100.0"},
	[FS_MDK_PROCS_RUNNING_SAMPLES] = {FS_MDK_PROCS_RUNNING_SAMPLES, "procs_running_samples", "count", FS_MS_PROCS,
					  "sum(min(running, 1.0) * (1 - min(blocked_io, 1.0)))",
					  "of which none was in D and one running (R) (BPF rows: the same of the means)",
		.tier = "sum(running_only_pct * n) / 100.0"},
	[FS_MDK_PROCS_COUNT] = {FS_MDK_PROCS_COUNT, "procs_count", "count", FS_MS_PROCS, "count(DISTINCT pid)",
				"distinct processes of the group", NULL},
	[FS_MDK_PROCS_CPU_S] = {FS_MDK_PROCS_CPU_S, "procs_cpu_s", "s", FS_MS_PROCS, "sum(cpu_pct * dt) / 100",
				"the group's CPU time", NULL},
	[FS_MDK_PROCS_RUN_WAIT_S] = {FS_MDK_PROCS_RUN_WAIT_S, "procs_run_wait_s", "s", FS_MS_PROCS,
				     "sum(run_wait_pct * dt) / 100", "the group's time runnable but waiting for a CPU", NULL},
	[FS_MDK_PROCS_RCHAR_BYTES] = {FS_MDK_PROCS_RCHAR_BYTES, "procs_rchar_bytes", "bytes", FS_MS_PROCS,
				      "sum(rchar_per_s * dt)", "the group's bytes through read calls (rchar)", NULL},
	[FS_MDK_PROCS_READ_BYTES] = {FS_MDK_PROCS_READ_BYTES, "procs_read_bytes", "bytes", FS_MS_PROCS,
				     "sum(read_bytes_per_s * dt)", "the group's reads from storage (read_bytes)", NULL},
	[FS_MDK_PROCS_ALIVE_S] = {FS_MDK_PROCS_ALIVE_S, "procs_alive_s", "s", FS_MS_PROCS, "sum(dt)",
				  "process-seconds the group's processes were sampled alive", NULL},
	[FS_MDK_PROCS_MAJOR_FAULTS] = {FS_MDK_PROCS_MAJOR_FAULTS, "procs_major_faults", "count", FS_MS_PROCS,
				       "sum(majflt_per_s * dt)", "the group's major page faults (mmap'd or swapped-in pages read)", NULL},
	[FS_MDK_PROCS_BLOCKED_S] = {FS_MDK_PROCS_BLOCKED_S, "procs_blocked_s", "s", FS_MS_PROCS, "sum(blocked_io * dt)",
				    "the group's thread-seconds in D (blocked in I/O)", NULL},
	[FS_MDK_PROCS_BLOCKED_META_S] = {FS_MDK_PROCS_BLOCKED_META_S, "procs_blocked_meta_s", "s", FS_MS_PROCS,
					 "sum(blocked_meta * dt)",
					 "of those, in D inside a metadata system call (open, stat, getdents, ...: proc.blocked_meta;"
					 " not recorded before schema 11 or where job.meta_calls is off)", NULL},
	[FS_MDK_FILES_COUNT] = {FS_MDK_FILES_COUNT, "files_count", "count", FS_MS_FILES_BY_GROUP, "count(DISTINCT path)",
				"distinct files the group's processes touched (the tracer's)", NULL},
	[FS_MDK_FILES_OPENS] = {FS_MDK_FILES_OPENS, "files_opens", "count", FS_MS_FILES_BY_GROUP, "sum(opens)",
				"their opens", NULL},
	[FS_MDK_FILES_STATS] = {FS_MDK_FILES_STATS, "files_stats", "count", FS_MS_FILES_BY_GROUP, "sum(stats)",
				"their stat calls", NULL},
	[FS_MDK_FILES_READS] = {FS_MDK_FILES_READS, "files_reads", "count", FS_MS_FILES_BY_GROUP, "sum(reads)",
				"their read calls", NULL},
	[FS_MDK_FILES_READ_BYTES] = {FS_MDK_FILES_READ_BYTES, "files_read_bytes", "bytes", FS_MS_FILES_BY_GROUP,
				     "sum(read_bytes)", "bytes their read calls returned", NULL},
	[FS_MDK_FILES_SEQ_READS] = {FS_MDK_FILES_SEQ_READS, "files_seq_reads", "count", FS_MS_FILES_BY_GROUP,
				    "sum(seq_reads)", "of their reads, those that went on where the last one ended", NULL},
	[FS_MDK_IO_TIME_S] = {FS_MDK_IO_TIME_S, "io_time_s", "s", FS_MS_IO_BY_GROUP, "sum(io_time_s)",
			      "the group's time inside intercepted I/O calls", NULL},
	[FS_MDK_SOCKET_READ_S] = {FS_MDK_SOCKET_READ_S, "socket_read_s", "s", FS_MS_CLASSES_BY_GROUP,
				  "total(CASE WHEN class = 'socket' THEN read_s END)", "main threads' time reading sockets", NULL},
	[FS_MDK_SOCKET_READ_BYTES] = {FS_MDK_SOCKET_READ_BYTES, "socket_read_bytes", "bytes", FS_MS_CLASSES_BY_GROUP,
				      "total(CASE WHEN class = 'socket' THEN read_bytes END)", "bytes they read from sockets", NULL},
	[FS_MDK_FILE_READ_S] = {FS_MDK_FILE_READ_S, "file_read_s", "s", FS_MS_CLASSES_BY_GROUP,
				"total(CASE WHEN class = 'file' THEN read_s END)", "main threads' time reading regular files", NULL},
	[FS_MDK_FILE_READ_BYTES] = {FS_MDK_FILE_READ_BYTES, "file_read_bytes", "bytes", FS_MS_CLASSES_BY_GROUP,
				    "total(CASE WHEN class = 'file' THEN read_bytes END)", "bytes they read from regular files", NULL},
	[FS_MDK_FILE_META_S] = {FS_MDK_FILE_META_S, "file_meta_s", "s", FS_MS_CLASSES_BY_GROUP,
				"total(CASE WHEN class = 'file' THEN meta_s END)",
				"main threads' time in open, close, stat, seek, mmap, readdir on files", NULL},
	[FS_MDK_TRAINER_PHASE_COUNT] = {FS_MDK_TRAINER_PHASE_COUNT, "trainer_phase_count", "count", FS_MS_TRAINER_PHASES,
					"count(*)", "the trainer's phases of that name",
		.tier = "sum(n)"},
	[FS_MDK_TRAINER_PHASE_TOTAL_S] = {FS_MDK_TRAINER_PHASE_TOTAL_S, "trainer_phase_total_s", "s",
					  FS_MS_TRAINER_PHASES, "sum(t_end - t_start)",
					  "the trainer's phases of that name, total time",
		.tier = "sum(phase_s)"},
	[FS_MDK_GPU_DEV_UTIL_PCT] = {FS_MDK_GPU_DEV_UTIL_PCT, "gpu_dev_util_pct", "%", FS_MS_GPU_BY_DEVICE,
				     "avg(util_pct)", "the GPU's busy time (NVML utilization), mean",
		.tier = TAVG("util_pct")},
	[FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES] = {FS_MDK_GPU_DEV_MEM_USED_MAX_BYTES, "gpu_dev_mem_used_max_bytes", "bytes",
					       FS_MS_GPU_BY_DEVICE, "max(mem_used_bytes)", "the GPU's memory used, largest",
		.tier = "max(mem_used_bytes_max)"},
	[FS_MDK_GPU_DEV_MEM_TOTAL_BYTES] = {FS_MDK_GPU_DEV_MEM_TOTAL_BYTES, "gpu_dev_mem_total_bytes", "bytes",
					    FS_MS_GPU_BY_DEVICE, "max(mem_total_bytes)", "the GPU's memory",
		.tier = "max(mem_total_bytes_max)"},
	[FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S] = {FS_MDK_GPU_DEV_PCIE_RX_BYTES_PER_S, "gpu_dev_pcie_rx_bytes_per_s", "B/s",
						FS_MS_GPU_BY_DEVICE, "avg(pcie_rx_bytes_per_s)",
						"host to GPU over PCIe, mean of NVML's spot measurements",
		.tier = TAVG("pcie_rx_bytes_per_s")},
	[FS_MDK_GPU_DEV_PCIE_TX_BYTES_PER_S] = {FS_MDK_GPU_DEV_PCIE_TX_BYTES_PER_S, "gpu_dev_pcie_tx_bytes_per_s", "B/s",
						FS_MS_GPU_BY_DEVICE, "avg(pcie_tx_bytes_per_s)",
						"GPU to host over PCIe, mean of NVML's spot measurements",
		.tier = TAVG("pcie_tx_bytes_per_s")},
	[FS_MDK_PID_THREADS] = {FS_MDK_PID_THREADS, "pid_threads", "count", FS_MS_PROC_BY_PID, "avg(threads)",
				"the process's threads, mean over its samples",
		.tier = TAVG("threads")},
	[FS_MDK_PID_THREADS_RUNNING] = {FS_MDK_PID_THREADS_RUNNING, "pid_threads_running", "count", FS_MS_PROC_BY_PID,
					"avg(running)", "its threads running or runnable (R), mean",
		.tier = TAVG("running")},
	[FS_MDK_PID_THREADS_BLOCKED] = {FS_MDK_PID_THREADS_BLOCKED, "pid_threads_blocked", "count", FS_MS_PROC_BY_PID,
					"avg(blocked_io)", "its threads blocked in I/O (D), mean",
		.tier = TAVG("blocked_io")},
	[FS_MDK_PID_THREADS_RUNNING_PCT] = {FS_MDK_PID_THREADS_RUNNING_PCT, "pid_threads_running_pct", "%",
					    FS_MS_PROC_BY_PID, "100.0 * sum(running) / nullif(sum(tot), 0)",
					    "its thread samples running (R)",
		.tier = "100.0 * sum(running * n) / nullif(sum(tot * n), 0)"},
	[FS_MDK_PID_THREADS_BLOCKED_PCT] = {FS_MDK_PID_THREADS_BLOCKED_PCT, "pid_threads_blocked_pct", "%",
					    FS_MS_PROC_BY_PID, "100.0 * sum(blocked_io) / nullif(sum(tot), 0)",
					    "its thread samples blocked in I/O (D)",
		.tier = "100.0 * sum(blocked_io * n) / nullif(sum(tot * n), 0)"},
	[FS_MDK_PID_CPU_PCT] = {FS_MDK_PID_CPU_PCT, "pid_cpu_pct", "%", FS_MS_PROC_BY_PID, "avg(cpu_pct)",
				"its CPU use, % of one core, mean",
		.tier = TAVG("cpu_pct")},
	[FS_MDK_PID_READ_BYTES_PER_S] = {FS_MDK_PID_READ_BYTES_PER_S, "pid_read_bytes_per_s", "B/s", FS_MS_PROC_BY_PID,
					 "avg(read_bytes_per_s)", "its reads from storage (read_bytes), mean rate",
		.tier = TAVG("read_bytes_per_s")},
};

static const struct fs_metricdef *defs_of(enum fs_md_source source, int *n)
{
	bool keyed = fs_md_sources[source].key != NULL;
	*n = keyed ? FS_MDK__N : FS_MD__N;
	return keyed ? fs_metricdefs_by : fs_metricdefs;
}

bool fs_metricdefs_valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	return (int)id >= 0 && (int)id < FS_MD__N && (mv->valid >> id & 1);
}

bool fs_metricdefs_row_valid(const struct fs_metric_row *r, enum fs_mdk_id id)
{
	return (int)id >= 0 && (int)id < FS_MDK__N && (r->valid >> id & 1);
}

/* Whether definition i of source's table is a column of its query (all
 * of them, or only `only`; over the tiers, not those read raw). */
static bool in_query(const struct fs_metricdef *d, int i, enum fs_md_source source, int only, bool tier)
{
	return d->source == source && (only < 0 || i == only) && !(tier && d->tier && !strcmp(d->tier, FS_MD_RAW));
}

static int build_sql(enum fs_md_source source, int only, bool tier, bool legacy, char *out, size_t cap)
{
	if ((int)source < 0 || source >= FS_MS__N)
		return 0;
	const struct fs_md_sourcedef *src = &fs_md_sources[source];
	if (tier && !src->tier)
		return 0;
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	size_t n = 0;
	int cols = 0;
	int w = snprintf(out, cap, "SELECT %s", src->key ? src->key : "");
	if (w < 0 || (size_t)w >= cap)
		return -1;
	n = (size_t)w;
	for (int i = 0; i < ndefs; i++) {
		if (!in_query(&defs[i], i, source, only, tier))
			continue;
		const char *e = tier && defs[i].tier ? defs[i].tier : defs[i].expr;
		w = snprintf(out + n, cap - n, "%s%s", cols || src->key ? ", " : "", e);
		if (w < 0 || (size_t)w >= cap - n)
			return -1;
		n += (size_t)w;
		cols++;
	}
	if (cols == 0)
		return 0;
	const char *from = tier ? src->tier : legacy ? src->legacy : src->from;
	const char *where = tier ? src->tier_where : src->where;
	if (!from)
		return 0;
	if (src->key)
		w = snprintf(out + n, cap - n, " FROM %s WHERE %s AND %s IS NOT NULL GROUP BY %s ORDER BY %s", from,
			     where, src->key, src->key, src->key);
	else
		w = snprintf(out + n, cap - n, " FROM %s WHERE %s", from, where);
	return w < 0 || (size_t)w >= cap - n ? -1 : cols;
}

int fs_metricdefs_sql(enum fs_md_source source, int only, char *out, size_t cap)
{
	return build_sql(source, only, false, false, out, cap);
}

int fs_metricdefs_tier_sql(enum fs_md_source source, int only, char *out, size_t cap)
{
	return build_sql(source, only, true, false, out, cap);
}

/* Whether source's per-minute table is in the run file: phases_1m came
 * in schema 8, after the others (an older file's phases are read raw). */
static bool tier_recorded(struct fs_q *q, enum fs_md_source source)
{
	return fs_md_sources[source].table != FS_T_PHASES || fs_q_has_table(q, "phases_1m");
}

/* Where one query's values go: a one-row load, or the rows of a keyed one. */
struct dest {
	struct fs_metric_values *one;
	struct fs_metric_row *rows;
	int cap, n;
};

static void reset_row(struct fs_metric_row *r)
{
	r->key[0] = '\0';
	r->valid = 0;
	for (int i = 0; i < FS_MDK__N; i++)
		r->v[i] = NAN;
}

/* The row of key in d->rows (the rows come in key order from every query
 * of the source, so a key is either the last one or new), or NULL when
 * full. */
static struct fs_metric_row *row_for(struct dest *d, const char *key)
{
	for (int i = d->n - 1; i >= 0; i--)
		if (!strncmp(d->rows[i].key, key, sizeof d->rows[i].key - 1))
			return &d->rows[i];
	if (d->n >= d->cap)
		return NULL;
	struct fs_metric_row *r = &d->rows[d->n++];
	reset_row(r);
	snprintf(r->key, sizeof r->key, "%s", key);
	return r;
}

/* Run source's query (all its definitions, or only `only`; legacy: its
 * raw rows as an older file holds them) and store its row(s). Returns 1
 * when it ran, 0 when not recorded, -1 when it failed (in q). */
static int run_one(struct fs_q *q, enum fs_md_source source, int only, bool legacy, struct dest *d)
{
	char sql[4096];
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	/* over the tiers where q's window is and the source has them, but a
	 * definition read raw alone is read raw */
	bool tier = fs_md_sources[source].tier && fs_q_tier(q) &&
		    !(only >= 0 && defs[only].tier && !strcmp(defs[only].tier, FS_MD_RAW)) && tier_recorded(q, source);
	if ((legacy && tier) || build_sql(source, only, tier, legacy, sql, sizeof sql) <= 0)
		return 0; /* no definition (cannot overflow: the table is fixed) */
	long before = q->errors;
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (!st)
		return q->errors > before ? -1 : 0;
	bool keyed = fs_md_sources[source].key != NULL;
	while (fs_q_step(q, st)) {
		double *v;
		uint64_t *valid;
		if (keyed) {
			struct fs_metric_row *r = row_for(d, fs_q_col_text(st, 0));
			if (!r)
				continue;
			v = r->v;
			valid = &r->valid;
		} else {
			v = d->one->v;
			valid = &d->one->valid;
		}
		int c = keyed ? 1 : 0;
		for (int i = 0; i < ndefs; i++) {
			if (!in_query(&defs[i], i, source, only, tier))
				continue;
			v[i] = fs_q_col(st, c++);
			if (!isnan(v[i]))
				*valid |= UINT64_C(1) << i;
		}
		if (!keyed)
			break;
	}
	sqlite3_finalize(st);
	return q->errors > before ? -1 : 1;
}

/* Source's definitions: one query; when the file lacks a column one of
 * them reads (an older feedscope), each alone, so the others still count. */
static void load_source(struct fs_q *q, enum fs_md_source source, struct dest *d)
{
	int ndefs;
	const struct fs_metricdef *defs = defs_of(source, &ndefs);
	int rc = run_one(q, source, -1, false, d);
	if (rc != 0 && fs_md_sources[source].tier && fs_q_tier(q)) /* those read raw at any resolution */
		for (int i = 0; i < ndefs; i++)
			if (defs[i].source == source && defs[i].tier && !strcmp(defs[i].tier, FS_MD_RAW))
				run_one(q, source, i, false, d);
	if (rc != 0 || !fs_q_has_table(q, fs_tables[fs_md_sources[source].table].name))
		return;
	if (fs_md_sources[source].legacy && run_one(q, source, -1, true, d) != 0)
		return; /* a file from before the rows' own dt_s */
	for (int i = 0; i < ndefs; i++)
		if (defs[i].source == source)
			run_one(q, source, i, false, d);
}

static void reset(struct fs_metric_values *out)
{
	out->valid = 0;
	for (int i = 0; i < FS_MD__N; i++)
		out->v[i] = NAN;
}

int fs_metricdefs_load_from(struct fs_q *q, uint32_t mask, struct fs_metric_values *out)
{
	reset(out);
	long before = q->errors;
	struct dest d = {.one = out};
	for (int s = 0; s < FS_MS__N; s++)
		if ((mask & FS_MD_FROM(s)) && !fs_md_sources[s].key)
			load_source(q, (enum fs_md_source)s, &d);
	if (q->errors == before)
		return 0;
	reset(out); /* nothing of a file that failed a query is kept as valid */
	return -1;
}

int fs_metricdefs_load_ids(struct fs_q *q, const enum fs_md_id *ids, int n, struct fs_metric_values *out)
{
	reset(out);
	long before = q->errors;
	struct dest d = {.one = out};
	for (int i = 0; i < n; i++)
		if ((int)ids[i] >= 0 && ids[i] < FS_MD__N && !fs_md_sources[fs_metricdefs[ids[i]].source].key)
			run_one(q, fs_metricdefs[ids[i]].source, (int)ids[i], false, &d);
	if (q->errors == before)
		return 0;
	reset(out);
	return -1;
}

int fs_metricdefs_load(struct fs_q *q, struct fs_metric_values *out)
{
	uint32_t mask = 0;
	for (int s = 0; s < FS_MS__N; s++)
		mask |= FS_MD_FROM(s);
	return fs_metricdefs_load_from(q, mask, out);
}

int fs_metricdefs_load_keyed(struct fs_q *q, enum fs_md_source source, struct fs_metric_row *out, int cap)
{
	if ((int)source < 0 || source >= FS_MS__N || !fs_md_sources[source].key || cap <= 0)
		return 0;
	long before = q->errors;
	struct dest d = {.rows = out, .cap = cap};
	load_source(q, source, &d);
	return q->errors == before ? d.n : -1;
}

static double or0(const struct fs_metric_row *r, int id)
{
	return (r->valid >> id & 1) ? r->v[id] : 0;
}

static double moved(const struct fs_metric_row *r)
{
	return or0(r, FS_MDK_DISK_READ_BYTES) + or0(r, FS_MDK_DISK_WRITE_BYTES) + or0(r, FS_MDK_NIC_BYTES);
}

bool fs_metricdefs_active(const struct fs_metric_row *r)
{
	return moved(r) > 0 || or0(r, FS_MDK_DISK_UTIL_MAX_PCT) > 0;
}

int fs_metricdefs_busier(const void *a, const void *b)
{
	const struct fs_metric_row *x = a, *y = b;
	double bx = moved(x), by = moved(y);
	if (bx != by)
		return bx > by ? -1 : 1;
	double ux = or0(x, FS_MDK_DISK_UTIL_MAX_PCT), uy = or0(y, FS_MDK_DISK_UTIL_MAX_PCT);
	if (ux != uy)
		return ux > uy ? -1 : 1;
	return strcmp(x->key, y->key);
}
