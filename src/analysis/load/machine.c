/* machine.c - the machine's figures, the device that holds the data and
 * the network interface (machine.h). */
#include "analysis/load/machine.h"

#include "analysis/load/job.h"
#include "analysis/load/metricdefs.h"
#include "analysis/load/numbers.h"
#include "analysis/load/saturation.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether device is stacked: a mounted file system sits on it and it
 * stands on other disks (device mapper, md, a loop device's file), as the
 * recorder wrote in mounts.disks (src/source/devpath.c, the one definition
 * of which disks hold a file system). Run files recorded before that
 * column tell it by the device's name. */
static bool stacked(struct fs_q *q, const char *device)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT disks FROM mounts LIMIT 0");
	bool have_disks = st != NULL;
	sqlite3_finalize(st);
	if (!have_disks)
		return !strncmp(device, "dm-", 3) || !strncmp(device, "md", 2) || !strncmp(device, "loop", 4);
	st = fs_q_prep(q, "SELECT 1 FROM mounts WHERE device = ?4 AND disks IS NOT NULL"
			  " AND instr(',' || disks || ',', ',' || device || ',') = 0 LIMIT 1");
	if (st)
		sqlite3_bind_text(st, 4, device, -1, SQLITE_TRANSIENT);
	bool yes = fs_q_step(q, st);
	sqlite3_finalize(st);
	return yes;
}

/* The block device under the files the loaders read the most bytes from
 * (read calls, plus the extent of mmap'd files): each file's mount is the
 * longest recorded mount point (not hidden) that prefixes its path; a file
 * on tmpfs or NFS has no device. "" when the tracer recorded no files, the
 * paths are hashed, or the most-read files are on no block device. */
static void data_device(struct fs_q *q, const struct fs_metrics *m, char *out, size_t cap)
{
	char sql[1536];
	snprintf(sql, sizeof sql,
		 "WITH fm AS (SELECT f.read_bytes + CASE WHEN f.mmaps > 0 THEN f.max_offset ELSE 0 END AS b,"
		 " (SELECT mo.device FROM mounts mo WHERE coalesce(mo.hidden, 0) = 0 AND (mo.mount = '/'"
		 " OR f.path = mo.mount OR substr(f.path, 1, length(mo.mount) + 1) = mo.mount || '/')"
		 " ORDER BY length(mo.mount) DESC LIMIT 1) AS device"
		 " FROM files f WHERE substr(f.path, 1, 1) = '/' AND f.pid IN (%s))"
		 " SELECT device, sum(b) AS total FROM fm GROUP BY device HAVING total > 0 ORDER BY total DESC LIMIT 1",
		 fs_m_loaders_sql(q, m));
	out[0] = '\0';
	sqlite3_stmt *st = fs_q_prep(q, sql);
	if (fs_q_step(q, st))
		snprintf(out, cap, "%s", fs_q_col_text(st, 0));
	sqlite3_finalize(st);
}

#define FS_MAX_DEVICES 256

/* The device that holds the data: the one under the files the loaders read
 * most from (data_device). Without that (no tracer, hashed paths, a killed
 * recorder): the device read most; but a stacked device (device mapper,
 * md, loop: stacked()) that carries at least 80% of that is preferred: the
 * file system sits on it, and the disks under it only pass its reads on
 * (LVM or dm-crypt over nvme0n1, a loop-mounted image). Its figures are
 * the per-device definitions (metricdefs_table.c, FS_MS_DISK). */
static void pick_disk(struct fs_q *q, struct fs_metrics *m)
{
	char data_dev[64];
	data_device(q, m, data_dev, sizeof data_dev);
	if (data_dev[0])
		snprintf(m->disk_basis, sizeof m->disk_basis, "the files the loaders read");
	struct fs_metric_row *rows = malloc(FS_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_DISK, rows, FS_MAX_DEVICES);
	double most = 0;
	for (int i = 0; i < n; i++)
		most = fmax(most, value_or0(rows[i].v[FS_MDK_DISK_READ_BYTES]));
	const struct fs_metric_row *best = NULL;
	int best_rank = -1;
	for (int i = 0; i < n; i++) {
		const struct fs_metric_row *r = &rows[i];
		double b = value_or0(r->v[FS_MDK_DISK_READ_BYTES]);
		bool is_data = data_dev[0] && !strcmp(r->key, data_dev);
		if (is_data && !(b > 0)) {
			best = NULL; /* the data's device read nothing: the page cache served it */
			break;
		}
		if (!(b > 0))
			continue;
		/* the data's device, then a stacked one carrying most, then most read */
		int rank = is_data ? 2 : b >= 0.8 * most && stacked(q, r->key) ? 1 : 0;
		if (rank > best_rank || (rank == best_rank && b > value_or0(best->v[FS_MDK_DISK_READ_BYTES]))) {
			best = r;
			best_rank = rank;
		}
	}
	if (best) {
		const double *v = best->v;
		snprintf(m->disk, sizeof m->disk, "%s", best->key);
		m->disk_read_bytes = v[FS_MDK_DISK_READ_BYTES];
		m->disk_read_bytes_per_s = v[FS_MDK_DISK_READ_BYTES_PER_S];
		m->disk_util_pct = v[FS_MDK_DISK_UTIL_PCT];
		m->disk_req_bytes = v[FS_MDK_DISK_READ_REQ_BYTES];
		m->disk_await_ms = v[FS_MDK_DISK_READ_AWAIT_MS];
		m->disk_iops = v[FS_MDK_DISK_READS_PER_S];
		m->disk_queue_depth = v[FS_MDK_DISK_QUEUE_DEPTH];
	}
	free(rows);
	if (m->disk[0]) {
		char key[128];
		snprintf(key, sizeof key, "probe.%s.seq_read_bytes_per_s", m->disk);
		m->disk_ceiling_bytes_per_s = fs_q_meta_num(q, key);
		snprintf(key, sizeof key, "probe.%s.randread_iops_qd32", m->disk);
		m->disk_ceiling_iops = fs_q_meta_num(q, key);
	}
}

/* The network interface: the busiest (fs_metricdefs_busier), lo apart. */
static void pick_nic(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_row *rows = malloc(FS_MAX_DEVICES * sizeof *rows);
	if (!rows)
		return;
	int n = fs_metricdefs_load_keyed(q, FS_MS_NIC, rows, FS_MAX_DEVICES);
	if (n > 0) {
		qsort(rows, (size_t)n, sizeof *rows, fs_metricdefs_busier);
		snprintf(m->nic, sizeof m->nic, "%.*s", (int)sizeof m->nic - 1, rows[0].key);
		m->nic_rx_bytes_per_s = rows[0].v[FS_MDK_NIC_RX_BYTES_PER_S];
		m->nic_speed_bytes_per_s = rows[0].v[FS_MDK_NIC_SPEED_BYTES_PER_S];
	}
	free(rows);
}

void fs_m_load_machine(struct fs_q *q, struct fs_metrics *m)
{
	/* cpu, psi, mem, tcp, nfs: their one definition (metricdefs_table.c); NaN
	 * where not valid */
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_CPU) | FS_MD_FROM(FS_MS_PSI) | FS_MD_FROM(FS_MS_MEM) |
				    FS_MD_FROM(FS_MS_TCP) | FS_MD_FROM(FS_MS_NFS), &mv);
	m->cpu_busy_pct = mv.v[FS_MD_CPU_BUSY_PCT];
	m->cpu_iowait_pct = mv.v[FS_MD_CPU_IOWAIT_PCT];
	m->psi_cpu = mv.v[FS_MD_PSI_CPU_SOME_PCT];
	m->psi_io = mv.v[FS_MD_PSI_IO_SOME_PCT];
	m->psi_io_full = mv.v[FS_MD_PSI_IO_FULL_PCT];
	m->psi_mem = mv.v[FS_MD_PSI_MEMORY_SOME_PCT];
	m->mem_available_min_bytes = mv.v[FS_MD_MEM_AVAILABLE_MIN_BYTES];
	m->cached_max_bytes = mv.v[FS_MD_PAGE_CACHE_MAX_BYTES];
	m->majflt_per_s = mv.v[FS_MD_MAJOR_FAULTS_PER_S];
	m->dentries_growth = mv.v[FS_MD_DENTRIES_GROWTH];
	m->tcp_retrans_per_s = mv.v[FS_MD_TCP_RETRANS_PER_S];
	m->nfs_read_ops_per_s = mv.v[FS_MD_NFS_READ_OPS_PER_S];
	m->nfs_rtt_ms = mv.v[FS_MD_NFS_READ_RTT_MS];

	pick_disk(q, m);
	pick_nic(q, m);
	fs_m_load_saturation(q, m);
}
