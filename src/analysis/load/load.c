/* load.c - the queries that turn a run file into struct fs_metrics
 * (load.h): the run, the training processes (loops.h), the trainer's
 * steps and loader knobs, the job's processes (job.h), the peers (tree.h),
 * then the machine over the trainer's loop (machine.h). */
#include "analysis/load/load.h"

#include "analysis/load/job.h"
#include "analysis/load/loops.h"
#include "analysis/load/machine.h"
#include "analysis/load/mainwait.h"
#include "analysis/load/memory.h"
#include "analysis/load/metricdefs.h"
#include "analysis/load/numbers.h"
#include "analysis/load/query.h"
#include "analysis/load/stages.h"
#include "analysis/load/steps.h"
#include "analysis/load/tree.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the recording was finished (fs_session_finish writes end_unix and
 * duration_s), and where its samples stop (the whole run's last tick). */
static void load_completeness(struct fs_q *q, struct fs_metrics *m)
{
	char end[64];
	fs_q_meta(q, "end_unix", end, sizeof end);
	m->incomplete = end[0] == '\0';
	double w0 = q->w0, w1 = q->w1; /* the whole run, not the window */
	q->w0 = -INFINITY;
	q->w1 = INFINITY;
	struct fs_metric_values mv;
	fs_metricdefs_load_ids(q, (enum fs_md_id[]){FS_MD_LAST_TICK_S}, 1, &mv);
	m->recorded_until_s = mv.v[FS_MD_LAST_TICK_S];
	q->w0 = w0;
	q->w1 = w1;
}

/* Phase names read per trainer (the hook sends a handful: checkpoint,
 * epoch_end, collective, validation, and what the job names). */
#define FS_MAX_PHASE_NAMES 64

/* The job-level step figures: the trainer's (m->loops[m->trainer]). */
static void load_steps(struct fs_q *q, struct fs_metrics *m)
{
	const struct fs_loop_proc *L = fs_metrics_trainer(m);
	m->have_steps = L && L->have_steps && L->steps > 0;
	if (!m->have_steps) {
		if (L) { /* the boundaries seen from worker restarts */
			m->epoch_start_excess_s = L->epoch_excess_s;
			m->epoch_starts = L->epoch_starts;
		}
		m->epoch_end_s = 0;
		m->checkpoint_s = m->checkpoint_phase_s = 0;
		return;
	}
	m->steps = L->steps;
	m->wait_s = L->wait_s;
	m->compute_s = L->compute_s;
	m->epoch_end_s = L->epoch_end_s;
	m->epoch_start_excess_s = L->epoch_excess_s;
	m->epoch_starts = L->epoch_starts;
	m->loop_s = L->loop_s;
	struct fs_metric_values mv;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_TRAINER_STEPS), &mv);
	m->epochs = to_count(mv.v[FS_MD_TRAINER_EPOCHS]);
	struct fs_metric_row rows[FS_MAX_PHASE_NAMES];
	int n = fs_metricdefs_load_keyed(q, FS_MS_TRAINER_PHASES, rows, FS_MAX_PHASE_NAMES);
	m->epoch_ends = m->checkpoints = 0;
	m->checkpoint_phase_s = 0;
	for (int i = 0; i < n; i++) {
		if (!strcmp(rows[i].key, "epoch_end"))
			m->epoch_ends = to_count(rows[i].v[FS_MDK_TRAINER_PHASE_COUNT]);
		if (!strcmp(rows[i].key, "checkpoint")) {
			m->checkpoints = to_count(rows[i].v[FS_MDK_TRAINER_PHASE_COUNT]);
			m->checkpoint_phase_s = rows[i].v[FS_MDK_TRAINER_PHASE_TOTAL_S];
		}
	}
	m->checkpoint_every_steps = m->checkpoints >= 2 ? (double)m->steps / (double)m->checkpoints : NAN;
}

/* The loader knobs (meta loader.NAME.*) of the trainer's main loader. */
static void load_knobs(struct fs_q *q, struct fs_metrics *m)
{
	fs_m_main_loader(q, m->loader, sizeof m->loader);
	m->num_workers = loader_int(q, m->loader, "num_workers");
	m->batch_size = loader_int(q, m->loader, "batch_size");
	m->prefetch_factor = loader_int(q, m->loader, "prefetch_factor");
	char key[160];
	snprintf(key, sizeof key, "loader.%s.persistent_workers", m->loader);
	fs_q_meta(q, key, m->persistent_workers, sizeof m->persistent_workers);
	snprintf(key, sizeof key, "loader.%s.pin_memory", m->loader);
	fs_q_meta(q, key, m->pin_memory, sizeof m->pin_memory);
	/* torch's threads per worker as a tune trial set them (the hook's
	 * hook.tune.applied.1: "num_workers=4 worker_threads=1") */
	char applied[256];
	fs_q_meta(q, "hook.tune.applied.1", applied, sizeof applied);
	const char *wt = strstr(applied, "worker_threads=");
	m->tune_worker_threads = wt ? atoi(wt + strlen("worker_threads=")) : -1;
}

static void load_gpu(struct fs_q *q, struct fs_metrics *m)
{
	struct fs_metric_values mv; /* the gpu table's definitions (metricdefs_table.c) */
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_GPU), &mv);
	double n = mv.v[FS_MD_GPU_COUNT], busy = mv.v[FS_MD_GPU_UTIL_PCT];
	m->have_gpu = n > 0 && !isnan(busy);
	m->ngpus = to_int(n, 0);
	m->gpu_busy = m->have_gpu ? busy / 100 : NAN;
	m->pcie_rx_max_bytes_per_s = mv.v[FS_MD_GPU_PCIE_RX_MAX_BYTES_PER_S];
	/* A gpu row at t covers (t - dt, t]: those ending inside a checkpoint. */
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_CKPT_GPU), &mv);
	m->gpu_busy_in_checkpoints = mv.v[FS_MD_GPU_UTIL_IN_CHECKPOINTS_PCT];
}

/* The job-level host-I/O figures: the trainer's. */
static void load_host_io(struct fs_q *q, struct fs_metrics *m)
{
	(void)q;
	if (m->trainer < 0)
		return;
	const struct fs_loop_proc *L = &m->loops[m->trainer];
	m->checkpoint_s = L->host_io_s;
	m->host_io_s = L->write_sync_s;
	if (!isnan(L->gpu_busy_in_host_io))
		m->gpu_busy_in_checkpoints = L->gpu_busy_in_host_io;
}

static void set_nan(struct fs_metrics *m)
{
	double *all[] = {
		&m->duration_s, &m->interval_s, &m->mem_total_bytes, &m->wait_s, &m->compute_s,
		&m->loop_s, &m->checkpoint_every_steps, &m->gpu_busy, &m->gpu_busy_in_checkpoints,
		&m->pcie_rx_max_bytes_per_s, &m->job_cpu_cores, &m->loader_rchar_bytes,
		&m->loader_read_bytes, &m->job_read_bytes, &m->cg_quota_cores, &m->cg_throttled_pct,
		&m->cg_mem_limit_bytes, &m->cg_mem_usage_max_bytes, &m->cpu_busy_pct, &m->cpu_iowait_pct,
		&m->psi_cpu, &m->psi_io, &m->psi_io_full, &m->psi_mem, &m->mem_available_min_bytes,
		&m->cached_max_bytes, &m->majflt_per_s, &m->dentries_growth, &m->disk_read_bytes_per_s,
		&m->disk_util_pct, &m->disk_req_bytes, &m->disk_await_ms, &m->disk_iops,
		&m->disk_queue_depth, &m->disk_read_bytes, &m->nic_rx_bytes_per_s,
		&m->nic_speed_bytes_per_s, &m->tcp_retrans_per_s, &m->nfs_read_ops_per_s, &m->nfs_rtt_ms,
		&m->epoch_start_excess_s, &m->loader_time_s, &m->loader_io_time_s, &m->trace_files,
		&m->trace_opens, &m->trace_stats, &m->trace_reads, &m->trace_read_bytes, &m->trace_seq_reads,
		&m->disk_ceiling_bytes_per_s, &m->disk_ceiling_iops, &m->checkpoint_phase_s, &m->host_io_s,
		&m->loader_sock_read_s, &m->loader_sock_read_bytes, &m->loader_file_read_s,
		&m->loader_file_read_bytes, &m->loader_meta_s, &m->loader_majflt, &m->main_wait_cores,
		&m->main_compute_cores,
	};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
		*all[i] = NAN;
	m->num_workers = m->batch_size = m->prefetch_factor = m->tune_worker_threads = -1;
}

int fs_metrics_load(const char *path, const struct fs_window *w, struct fs_metrics *m,
		    char *err, size_t errlen)
{
	memset(m, 0, sizeof *m);
	set_nan(m);
	struct fs_q q;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	if (w) {
		q.w0 = w->start_s;
		q.w1 = w->end_s;
	}
	m->window = (struct fs_window){q.w0, q.w1};
	fs_q_meta(&q, "mode", m->mode, sizeof m->mode);
	m->interval_s = fs_q_meta_num(&q, "interval_s");
	m->ncpu = to_int(fs_q_meta_num(&q, "ncpu"), 0);
	m->mem_total_bytes = fs_q_meta_num(&q, "mem_bytes");
	struct fs_metric_values ticks;
	/* from the index on ticks.t alone, whatever the run's length */
	fs_metricdefs_load_ids(&q, (enum fs_md_id[]){FS_MD_FIRST_TICK_S, FS_MD_LAST_TICK_S}, 2, &ticks);
	m->duration_s = ticks.v[FS_MD_LAST_TICK_S] - ticks.v[FS_MD_FIRST_TICK_S];
	q.trainer = to_int(fs_q_meta_num(&q, "pid"), 0);
	m->per_minute = fs_q_tier(&q);
	load_completeness(&q, m);
	load_gpu(&q, m);
	fs_m_load_loops(&q, m);
	load_steps(&q, m);
	load_knobs(&q, m);
	fs_m_load_job(&q, m);
	fs_m_main_in_wait(&q, m);
	fs_m_next_parts(&q, m);
	load_host_io(&q, m);
	fs_m_load_trace(&q, m);
	fs_m_load_classes(&q, m);
	fs_m_load_peers(&q, m);
	/* The machine's figures over the trainer's loop (start-up and exit are
	 * not what the verdict is about), within the window. */
	if (m->trainer >= 0 && m->loops[m->trainer].t1 > m->loops[m->trainer].t0) {
		q.w0 = fmax(q.w0, m->loops[m->trainer].t0);
		q.w1 = fmin(q.w1, m->loops[m->trainer].t1);
	}
	fs_m_load_machine(&q, m);
	fs_m_load_memory(&q, m->mem_total_bytes, &m->mem);
	fs_m_load_threads(&q, &m->threads);
	fs_m_load_stages(&q, m->loader, &m->stages);
	int rc = fs_q_failed(&q) ? -1 : 0;
	if (rc < 0)
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
	fs_q_close(&q);
	return rc;
}
