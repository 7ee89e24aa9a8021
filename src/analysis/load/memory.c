/* memory.c - the job's memory over the window (memory.h), from the
 * metric definitions of metricdefs_table.c. */
#include "analysis/load/memory.h"

#include <math.h>
#include <string.h>

#include "analysis/load/metricdefs.h"

static double val(const struct fs_metric_values *mv, enum fs_md_id id)
{
	return fs_metricdefs_valid(mv, id) ? mv->v[id] : NAN;
}

void fs_m_load_memory(struct fs_q *q, double mem_total, struct fs_memory *mem)
{
	struct fs_metric_values mv;
	memset(mem, 0, sizeof *mem);
	/* The loaders' span within the window: from the first sample with a
	 * worker (the DataLoader's iter(), after the dataset was built) to the
	 * last, with or without the hook's steps */
	double w0 = q->w0, w1 = q->w1;
	fs_metricdefs_load_ids(q, (enum fs_md_id[]){FS_MD_WORKERS_FIRST_T, FS_MD_WORKERS_LAST_T}, 2, &mv);
	if (fs_metricdefs_valid(&mv, FS_MD_WORKERS_FIRST_T) && mv.v[FS_MD_WORKERS_LAST_T] > mv.v[FS_MD_WORKERS_FIRST_T]) {
		q->w0 = fmax(q->w0, mv.v[FS_MD_WORKERS_FIRST_T]);
		q->w1 = fmin(q->w1, mv.v[FS_MD_WORKERS_LAST_T]);
	}
	mem->window_s = isfinite(q->w0) && isfinite(q->w1) ? q->w1 - q->w0 : NAN;
	mem->mem_total = mem_total;
	fs_metricdefs_load_from(q, FS_MD_FROM(FS_MS_MEM_TICKS) | FS_MD_FROM(FS_MS_MEM_PROCS) |
					   FS_MD_FROM(FS_MS_PSS_TICKS),
				&mv);
	mem->job_pss_max = val(&mv, FS_MD_JOB_PSS_MAX_BYTES);
	mem->main_pss_max = val(&mv, FS_MD_MAIN_PSS_MAX_BYTES);
	mem->workers_pss_max = val(&mv, FS_MD_WORKERS_PSS_MAX_BYTES);
	mem->others_pss_max = val(&mv, FS_MD_OTHERS_PSS_MAX_BYTES);
	mem->shmem_pss_max = val(&mv, FS_MD_JOB_SHMEM_PSS_MAX_BYTES);
	mem->swap_max = val(&mv, FS_MD_JOB_SWAP_MAX_BYTES);
	mem->growth = val(&mv, FS_MD_JOB_MEM_GROWTH_BYTES);
	mem->workers_uss_growth = val(&mv, FS_MD_WORKERS_USS_GROWTH_BYTES);
	mem->workers_rss_growth = val(&mv, FS_MD_WORKERS_RSS_GROWTH_BYTES);
	mem->main_rss_growth = val(&mv, FS_MD_MAIN_RSS_GROWTH_BYTES);
	mem->worker_uss_mean = val(&mv, FS_MD_WORKER_USS_MAX_MEAN_BYTES);
	double w = val(&mv, FS_MD_WORKERS_COUNT);
	mem->workers = isfinite(w) ? (int)w : 0;
	mem->workers_minflt = val(&mv, FS_MD_WORKERS_MINOR_FAULTS);
	mem->workers_sys_s = val(&mv, FS_MD_WORKERS_SYSTEM_CPU_S);
	mem->workers_cpu_s = val(&mv, FS_MD_WORKERS_CPU_S);
	mem->have_pss = isfinite(mem->job_pss_max);
	mem->late_slope = NAN;
	if (mem->window_s > 0) {
		double span0 = q->w0;
		q->w0 = span0 + mem->window_s / 2;
		fs_metricdefs_load_ids(q, (enum fs_md_id[]){FS_MD_JOB_PSS_SLOPE_BYTES_PER_S}, 1, &mv);
		mem->late_slope = val(&mv, FS_MD_JOB_PSS_SLOPE_BYTES_PER_S);
		q->w0 = span0;
	}
	fs_metricdefs_load_ids(q,
			       (enum fs_md_id[]){FS_MD_DEV_SHM_USED_MAX_BYTES, FS_MD_DEV_SHM_SIZE_BYTES,
						 FS_MD_CGROUP_MEM_LIMIT_BYTES, FS_MD_CGROUP_MEM_USAGE_MAX_BYTES,
						 FS_MD_CGROUP_MEM_PEAK_BYTES, FS_MD_MEM_AVAILABLE_MIN_BYTES},
			       6, &mv);
	mem->shm_used_max = val(&mv, FS_MD_DEV_SHM_USED_MAX_BYTES);
	mem->shm_size = val(&mv, FS_MD_DEV_SHM_SIZE_BYTES);
	mem->cg_limit = val(&mv, FS_MD_CGROUP_MEM_LIMIT_BYTES);
	mem->cg_usage_max = val(&mv, FS_MD_CGROUP_MEM_USAGE_MAX_BYTES);
	mem->cg_peak = val(&mv, FS_MD_CGROUP_MEM_PEAK_BYTES);
	mem->mem_available_min = val(&mv, FS_MD_MEM_AVAILABLE_MIN_BYTES);
	q->w0 = w0;
	q->w1 = w1;
}
