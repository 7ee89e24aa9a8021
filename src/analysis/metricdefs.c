#include "analysis/metricdefs.h"

#include <math.h>
#include <stdio.h>

_Static_assert(FS_MD__N <= 64, "one validity bit per definition in a uint64_t");
_Static_assert(FS_T__COUNT <= 32, "one bit per table in FS_MD_FROM's uint32_t");

/* A mean over samples is over rows: each row is one sample of the
 * interval that ends at its t. PSI has a row per resource, told apart in
 * the aggregate. */
#define PSI(res, col) "avg(CASE WHEN resource = '" res "' THEN " col " END)"

const struct fs_metricdef fs_metricdefs[FS_MD__N] = {
	[FS_MD_CPU_BUSY_PCT] = {FS_MD_CPU_BUSY_PCT, "cpu_busy_pct", "%", FS_T_CPU, "avg(100 - idle_pct - iowait_pct)",
				"all CPUs' time neither idle nor in iowait (user, nice, system, irq, steal), mean"},
	[FS_MD_CPU_IOWAIT_PCT] = {FS_MD_CPU_IOWAIT_PCT, "cpu_iowait_pct", "%", FS_T_CPU, "avg(iowait_pct)",
				  "all CPUs' time idle with I/O outstanding, mean"},
	[FS_MD_CPU_USER_PCT] = {FS_MD_CPU_USER_PCT, "cpu_user_pct", "%", FS_T_CPU,
				"avg(user_pct + coalesce(nice_pct, 0))", "user time, niced included, mean"},
	[FS_MD_CPU_SYSTEM_PCT] = {FS_MD_CPU_SYSTEM_PCT, "cpu_system_pct", "%", FS_T_CPU, "avg(system_pct)",
				  "kernel time, mean"},
	[FS_MD_CPU_STEAL_PCT] = {FS_MD_CPU_STEAL_PCT, "cpu_steal_pct", "%", FS_T_CPU, "avg(steal_pct)",
				 "time the hypervisor gave to others, mean"},
	[FS_MD_CPU_IDLE_PCT] = {FS_MD_CPU_IDLE_PCT, "cpu_idle_pct", "%", FS_T_CPU, "avg(idle_pct)",
				"idle time (iowait apart), mean"},
	[FS_MD_PSI_CPU_SOME_PCT] = {FS_MD_PSI_CPU_SOME_PCT, "psi_cpu_some_pct", "%", FS_T_PSI, PSI("cpu", "some_pct"),
				    "time some task waited for a CPU, mean"},
	[FS_MD_PSI_CPU_FULL_PCT] = {FS_MD_PSI_CPU_FULL_PCT, "psi_cpu_full_pct", "%", FS_T_PSI, PSI("cpu", "full_pct"),
				    "time all non-idle tasks waited for a CPU (cgroups; 0 machine-wide), mean"},
	[FS_MD_PSI_IO_SOME_PCT] = {FS_MD_PSI_IO_SOME_PCT, "psi_io_some_pct", "%", FS_T_PSI, PSI("io", "some_pct"),
				   "time some task was stalled on I/O, mean"},
	[FS_MD_PSI_IO_FULL_PCT] = {FS_MD_PSI_IO_FULL_PCT, "psi_io_full_pct", "%", FS_T_PSI, PSI("io", "full_pct"),
				   "time all non-idle tasks were stalled on I/O, mean"},
	[FS_MD_PSI_MEMORY_SOME_PCT] = {FS_MD_PSI_MEMORY_SOME_PCT, "psi_memory_some_pct", "%", FS_T_PSI,
				       PSI("memory", "some_pct"), "time some task was stalled on memory (reclaim, refaults), mean"},
	[FS_MD_PSI_MEMORY_FULL_PCT] = {FS_MD_PSI_MEMORY_FULL_PCT, "psi_memory_full_pct", "%", FS_T_PSI,
				       PSI("memory", "full_pct"), "time all non-idle tasks were stalled on memory, mean"},
	[FS_MD_MEM_AVAILABLE_MIN_BYTES] = {FS_MD_MEM_AVAILABLE_MIN_BYTES, "mem_available_min_bytes", "bytes", FS_T_MEM,
					   "min(available_bytes)", "the lowest MemAvailable seen"},
	[FS_MD_PAGE_CACHE_MAX_BYTES] = {FS_MD_PAGE_CACHE_MAX_BYTES, "page_cache_max_bytes", "bytes", FS_T_MEM,
					"max(cached_bytes)", "the largest page cache (Cached) seen"},
	[FS_MD_MAJOR_FAULTS_PER_S] = {FS_MD_MAJOR_FAULTS_PER_S, "major_faults_per_s", "1/s", FS_T_MEM,
				      "avg(majflt_per_s)", "the machine's major page faults (pgmajfault), mean rate"},
	[FS_MD_DENTRIES_GROWTH] = {FS_MD_DENTRIES_GROWTH, "dentries_growth", "count", FS_T_MEM,
				   "max(dentries) - min(dentries)",
				   "the dentry cache's growth, largest less smallest count (new file names looked up)"},
	[FS_MD_TCP_RETRANS_PER_S] = {FS_MD_TCP_RETRANS_PER_S, "tcp_retrans_per_s", "1/s", FS_T_TCP,
				     "avg(retrans_segs_per_s)", "TCP segments retransmitted, mean rate"},
	[FS_MD_NFS_READ_OPS_PER_S] = {FS_MD_NFS_READ_OPS_PER_S, "nfs_read_ops_per_s", "1/s", FS_T_NFS,
				      "avg(read_ops_per_s)", "NFS READ operations, mean rate over the mounts' samples"},
	[FS_MD_NFS_READ_RTT_MS] = {FS_MD_NFS_READ_RTT_MS, "nfs_read_rtt_ms", "ms", FS_T_NFS,
				   "sum(read_rtt_ms * read_ops_per_s) / nullif(sum(read_ops_per_s), 0)",
				   "NFS READ round trip, weighted by READs (none: not valid)"},
	[FS_MD_GPU_COUNT] = {FS_MD_GPU_COUNT, "gpu_count", "count", FS_T_GPU, "nullif(count(DISTINCT gpu), 0)",
			     "GPUs sampled (none: not valid)"},
	[FS_MD_GPU_UTIL_PCT] = {FS_MD_GPU_UTIL_PCT, "gpu_util_pct", "%", FS_T_GPU, "avg(util_pct)",
				"GPU busy (NVML utilization), mean over all GPUs' samples"},
	[FS_MD_GPU_MEM_USED_MAX_BYTES] = {FS_MD_GPU_MEM_USED_MAX_BYTES, "gpu_mem_used_max_bytes", "bytes", FS_T_GPU,
					  "max(mem_used_bytes)", "the most memory used on one GPU"},
	[FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S] = {FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S, "gpu_pcie_rx_max_bytes_per_s", "B/s",
					       FS_T_GPU, "max(pcie_rx_bytes_per_s)",
					       "the highest PCIe receive rate of one GPU"},
};

bool fs_metricdefs_valid(const struct fs_metric_values *mv, enum fs_md_id id)
{
	return (int)id >= 0 && (int)id < FS_MD__N && (mv->valid >> id & 1);
}

int fs_metricdefs_sql(enum fs_table_id table, int only, char *out, size_t cap)
{
	size_t n = 0;
	int cols = 0;
	for (int i = 0; i < FS_MD__N; i++) {
		if (fs_metricdefs[i].table != table || (only >= 0 && i != only))
			continue;
		int w = snprintf(out + n, cap - n, "%s%s", cols ? ", " : "SELECT ", fs_metricdefs[i].expr);
		if (w < 0 || (size_t)w >= cap - n)
			return -1;
		n += (size_t)w;
		cols++;
	}
	if (cols == 0)
		return 0;
	int w = snprintf(out + n, cap - n, " FROM %s WHERE t BETWEEN ?1 AND ?2", fs_tables[table].name);
	return w < 0 || (size_t)w >= cap - n ? -1 : cols;
}

/* Whether the run file has table (a prepare that fails as "not recorded"
 * says it lacks it; any other failure is recorded in q). */
static bool has_table(struct fs_q *q, enum fs_table_id table)
{
	char sql[128];
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 0", fs_tables[table].name);
	sqlite3_stmt *st = fs_q_prep(q, sql);
	sqlite3_finalize(st);
	return st != NULL;
}

/* Run table's query (all its definitions, or only `only`) and store its
 * row. Returns 1 when it ran, 0 when not recorded, -1 when it failed (in q). */
static int run_one(struct fs_q *q, enum fs_table_id table, int only, struct fs_metric_values *out)
{
	char sql[2048];
	if (fs_metricdefs_sql(table, only, sql, sizeof sql) <= 0)
		return 0; /* no definition (cannot overflow: the table is fixed) */
	long before = q->errors;
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (!st)
		return q->errors > before ? -1 : 0;
	if (fs_q_step(q, st)) {
		int c = 0;
		for (int i = 0; i < FS_MD__N; i++) {
			if (fs_metricdefs[i].table != table || (only >= 0 && i != only))
				continue;
			out->v[i] = fs_q_col(st, c++);
			if (!isnan(out->v[i]))
				out->valid |= UINT64_C(1) << i;
		}
	}
	sqlite3_finalize(st);
	return q->errors > before ? -1 : 1;
}

/* Table's definitions: one query; when the file lacks a column one of
 * them reads (an older feedscope), each alone, so the others still count. */
static void load_table(struct fs_q *q, enum fs_table_id table, struct fs_metric_values *out)
{
	if (run_one(q, table, -1, out) != 0 || !has_table(q, table))
		return;
	for (int i = 0; i < FS_MD__N; i++)
		if (fs_metricdefs[i].table == table)
			run_one(q, table, i, out);
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
	for (int t = 0; t < FS_T__COUNT; t++)
		if (mask & FS_MD_FROM(t))
			load_table(q, (enum fs_table_id)t, out);
	if (q->errors == before)
		return 0;
	reset(out); /* nothing of a file that failed a query is kept as valid */
	return -1;
}

int fs_metricdefs_load(struct fs_q *q, struct fs_metric_values *out)
{
	uint32_t mask = 0;
	for (int i = 0; i < FS_MD__N; i++)
		mask |= FS_MD_FROM(fs_metricdefs[i].table);
	return fs_metricdefs_load_from(q, mask, out);
}
