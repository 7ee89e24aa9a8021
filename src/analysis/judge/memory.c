/* memory.c - the memory findings (memory.h; docs/verdicts.md, "Memory"). */
#include "analysis/judge/memory.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "util/fmt.h"

#define MIB (1024.0 * 1024.0)
/* A container's /dev/shm unless told otherwise (Docker, containerd). */
#define CONTAINER_SHM_BYTES (64.0 * MIB)

static const char *const names[FS_MEMF__N] = {
	[FS_MEMF_LOADER_GROWTH] = "loader_memory_growth",
	[FS_MEMF_SHM_HEADROOM] = "shm_headroom",
	[FS_MEMF_LIMIT_HEADROOM] = "memory_limit_headroom",
};

const char *fs_mem_finding_name(enum fs_mem_finding_id id)
{
	return id < FS_MEMF__N ? names[id] : "memory";
}

#define EV(f, ...) fs_evidence_add((f)->ev, &(f)->nev, __VA_ARGS__)

static struct fs_mem_finding *add(struct fs_memory_verdict *out, enum fs_mem_finding_id id, double bytes,
				  double of_bytes)
{
	struct fs_mem_finding *f = &out->find[out->nfind++];
	memset(f, 0, sizeof *f);
	f->id = id;
	f->bytes = bytes;
	f->of_bytes = of_bytes;
	f->rate_bytes_per_s = f->to_limit_s = NAN;
	return f;
}

static void fix(struct fs_mem_finding *f, const char *relieves, const char *knob, const char *current,
		const char *suggested)
{
	snprintf(f->relieves, sizeof f->relieves, "%s", relieves);
	snprintf(f->knob, sizeof f->knob, "%s", knob);
	snprintf(f->current, sizeof f->current, "%s", current);
	snprintf(f->suggested, sizeof f->suggested, "%s", suggested);
}

/* The limit the job's memory is held against: its cgroup's, else the
 * machine's. */
static void limit_of(const struct fs_memory *mem, struct fs_memory_verdict *out)
{
	out->limit_is_cgroup = mem->cg_limit > 0;
	out->limit_bytes = out->limit_is_cgroup ? mem->cg_limit : mem->mem_total > 0 ? mem->mem_total : NAN;
}

static void growth_fix(const struct fs_metrics *m, struct fs_mem_finding *f)
{
	const struct fs_memory *mem = &m->mem;
	char a[32], b[32], c[32], cur[128];
	if (f->copy_on_read) {
		double copied = mem->workers_uss_growth - fmax(mem->workers_rss_growth, 0);
		snprintf(cur, sizeof cur, "Python objects (lists, dicts, tuples) read by %d worker%s", mem->workers,
			 mem->workers == 1 ? "" : "s");
		fix(f, "memory (each worker's copy of the dataset's Python objects)", "the dataset's index", cur,
		    "a numpy array or an Arrow table (reading it writes no reference counts)");
		snprintf(f->why, sizeof f->why,
			 "the workers' private memory grew by %s while their resident memory grew by %s: they copied "
			 "pages of the parent's objects they only read (copy-on-read, pytorch/pytorch#13246); an index "
			 "in a numpy array or Arrow table keeps those pages shared: about %s less, %s a worker",
			 fs_fmt_bytes(a, 32, mem->workers_uss_growth), fs_fmt_bytes(b, 32, fmax(mem->workers_rss_growth, 0)),
			 fs_fmt_bytes(c, 32, copied), fs_fmt_bytes(cur, 32, copied / (mem->workers > 0 ? mem->workers : 1)));
		return;
	}
	char d[32];
	fix(f, "memory (what the job keeps)", "what the training loop keeps", "grows over the loop",
	    "release what is kept across steps (tensors in a list, a growing cache)");
	snprintf(f->why, sizeof f->why, "the job added %s over %s (the trainer's resident memory %s, the workers' "
		 "private memory %s): at that rate it needs %s more each hour",
		 fs_fmt_bytes(a, 32, f->bytes), fs_fmt_time(b, 32, mem->window_s),
		 fs_fmt_bytes(c, 32, mem->main_rss_growth), fs_fmt_bytes(cur, 32, mem->workers_uss_growth),
		 fs_fmt_bytes(d, 32, f->rate_bytes_per_s * 3600));
}

/* loader_memory_growth: the job added a fifth of what it held (and
 * 128 MiB) over the loop, and still grows: at the rate of the span's
 * second half (the slope of its PSS summed) the span adds 128 MiB too. A
 * job whose workers take their memory at their start and then hold it
 * has grown, but is not growing: no finding (a projection to the limit
 * at the start-up's rate would be false). */
static void growth(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_memory_verdict *out)
{
	const struct fs_memory *mem = &m->mem;
	double held = mem->job_pss_max - mem->growth; /* at the loop's start */
	if (!(mem->growth >= t->mem_growth_min_bytes) || !(mem->growth >= t->mem_growth_share * held))
		return;
	double rate = isfinite(mem->late_slope) ? mem->late_slope : mem->window_s > 0 ? mem->growth / mem->window_s : NAN;
	if (isfinite(mem->late_slope) && !(rate * mem->window_s >= t->mem_growth_min_bytes))
		return;
	struct fs_mem_finding *f = add(out, FS_MEMF_LOADER_GROWTH, mem->growth, out->limit_bytes);
	char a[32], b[32], c[32], d[32], e[32];
	f->rate_bytes_per_s = rate;
	if (f->rate_bytes_per_s > 0 && out->limit_bytes > mem->job_pss_max)
		f->to_limit_s = (out->limit_bytes - mem->job_pss_max) / f->rate_bytes_per_s;
	/* most of the workers' growth is copies (USS without RSS), and it is
	 * a good part of the job's */
	double copied = mem->workers_uss_growth - fmax(mem->workers_rss_growth, 0);
	f->copy_on_read = mem->workers > 0 && copied >= 0.5 * mem->workers_uss_growth &&
			  mem->workers_uss_growth >= 0.3 * mem->growth;
	EV(f, "job_memory_growth_bytes", mem->growth, "bytes", "proc (smaps_rollup)",
	   "the job added %s over the loop (%s), and grew %s/s in its second half; it held %s at the start and %s at "
	   "its peak (PSS summed)",
	   fs_fmt_bytes(a, 32, mem->growth), fs_fmt_time(b, 32, mem->window_s), fs_fmt_bytes(c, 32, f->rate_bytes_per_s),
	   fs_fmt_bytes(d, 32, held), fs_fmt_bytes(e, 32, mem->job_pss_max));
	EV(f, "workers_uss_growth_bytes", mem->workers_uss_growth, "bytes", "proc (smaps_rollup)",
	   "%d worker%s: private memory (USS) +%s, resident memory (RSS) +%s; the trainer's resident memory +%s",
	   mem->workers, mem->workers == 1 ? "" : "s", fs_fmt_bytes(a, 32, mem->workers_uss_growth),
	   fs_fmt_bytes(b, 32, mem->workers_rss_growth), fs_fmt_bytes(c, 32, mem->main_rss_growth));
	if (isfinite(f->to_limit_s))
		EV(f, "time_to_limit_s", f->to_limit_s, "s", out->limit_is_cgroup ? "cgroup" : "meminfo",
		   "at that rate the %s (%s) is reached in %s", out->limit_is_cgroup ? "cgroup's limit" : "machine's memory",
		   fs_fmt_bytes(a, 32, out->limit_bytes), fs_fmt_time(b, 32, f->to_limit_s));
	growth_fix(m, f);
}

/* shm_headroom: /dev/shm's peak use against its size, and a container's
 * default size. */
static void shm(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_memory_verdict *out)
{
	const struct fs_memory *mem = &m->mem;
	if (!(mem->shm_size > 0) || !(mem->shm_used_max >= t->shm_full_share * mem->shm_size))
		return;
	struct fs_mem_finding *f = add(out, FS_MEMF_SHM_HEADROOM, mem->shm_used_max, mem->shm_size);
	char a[32], b[32], cur[128], sug[128];
	EV(f, "dev_shm_used_max_bytes", mem->shm_used_max, "bytes", "mem (statvfs /dev/shm)",
	   "/dev/shm held %s at most, %.0f%% of its %s: a batch past its size kills the worker that writes it "
	   "(\"DataLoader worker ... killed by signal: Bus error\")",
	   fs_fmt_bytes(a, 32, mem->shm_used_max), 100 * mem->shm_used_max / mem->shm_size, fs_fmt_bytes(b, 32, mem->shm_size));
	if (isfinite(mem->shmem_pss_max))
		EV(f, "job_shmem_pss_max_bytes", mem->shmem_pss_max, "bytes", "proc (smaps_rollup Pss_Shmem)",
		   "the job's processes mapped %s of shared memory at most", fs_fmt_bytes(a, 32, mem->shmem_pss_max));
	if (mem->shm_used_max > CONTAINER_SHM_BYTES)
		EV(f, "container_shm_bytes", CONTAINER_SHM_BYTES, "bytes", "mem (statvfs /dev/shm)",
		   "in a container with the default 64 MiB /dev/shm this job would fail (it used %s)",
		   fs_fmt_bytes(a, 32, mem->shm_used_max));
	snprintf(cur, sizeof cur, "%s", fs_fmt_bytes(a, 32, mem->shm_size));
	double want = ceil(mem->shm_used_max / t->shm_full_share / MIB / 64) * 64 * MIB;
	snprintf(sug, sizeof sug, "%s or more (docker --shm-size, a Memory-backed emptyDir)", fs_fmt_bytes(b, 32, want));
	fix(f, "/dev/shm space", "/dev/shm size", cur, sug);
	snprintf(f->why, sizeof f->why,
		 "batches in flight (workers x prefetch_factor x a batch's bytes) take %s of %s; at %s the peak "
		 "would use %.0f%%. Fewer workers or a smaller prefetch_factor lower it too",
		 fs_fmt_bytes(a, 32, mem->shm_used_max), cur, fs_fmt_bytes(b, 32, want), 100 * mem->shm_used_max / want);
}

/* memory_limit_headroom: the job's peak (PSS summed) against its cgroup's
 * limit, else the machine's memory. */
static void limit(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_memory_verdict *out)
{
	const struct fs_memory *mem = &m->mem;
	double peak = mem->job_pss_max, lim = out->limit_bytes;
	if (!(lim > 0) || !(peak >= (1 - t->mem_headroom_min) * lim))
		return;
	struct fs_mem_finding *f = add(out, FS_MEMF_LIMIT_HEADROOM, peak, lim);
	char a[32], b[32], c[32], cur[128], sug[128];
	EV(f, "job_pss_max_bytes", peak, "bytes", "proc (smaps_rollup)",
	   "the job held %s at its peak (PSS summed: the trainer %s, workers %s), %.0f%% of the %s %s",
	   fs_fmt_bytes(a, 32, peak), fs_fmt_bytes(b, 32, mem->main_pss_max), fs_fmt_bytes(c, 32, mem->workers_pss_max),
	   100 * peak / lim, out->limit_is_cgroup ? "cgroup's limit" : "machine's memory", fs_fmt_bytes(cur, 32, lim));
	if (out->limit_is_cgroup && isfinite(mem->cg_peak))
		EV(f, "cgroup_mem_peak_bytes", mem->cg_peak, "bytes", "cgroup",
		   "the cgroup's own peak, page cache included: %s", fs_fmt_bytes(a, 32, mem->cg_peak));
	else if (isfinite(mem->mem_available_min))
		EV(f, "mem_available_min_bytes", mem->mem_available_min, "bytes", "meminfo",
		   "the machine had %s available at least", fs_fmt_bytes(a, 32, mem->mem_available_min));
	double want = ceil(peak / (1 - t->mem_headroom_min) / (256 * MIB)) * 256 * MIB;
	snprintf(cur, sizeof cur, "%s", fs_fmt_bytes(a, 32, lim));
	if (out->limit_is_cgroup)
		snprintf(sug, sizeof sug, "%s or more", fs_fmt_bytes(b, 32, want));
	else
		snprintf(sug, sizeof sug, "a machine with %s or more, or a smaller job", fs_fmt_bytes(b, 32, want));
	fix(f, "memory (the limit)", out->limit_is_cgroup ? "the cgroup's memory limit" : "the machine's memory", cur, sug);
	int fewer = out->per_worker_bytes > 0 && mem->workers > 1
			    ? (int)ceil((peak - (1 - t->mem_headroom_min) * lim) / out->per_worker_bytes)
			    : 0;
	if (fewer > 0 && fewer < mem->workers)
		snprintf(f->why, sizeof f->why, "%.0f%% of it was left at the peak: the next epoch's growth or the page "
			 "cache the data needs meets the OOM killer; at %s the peak is %.0f%% of it. Or %d worker%s fewer "
			 "(each holds %s of its own)", 100 * (1 - peak / lim), fs_fmt_bytes(a, 32, want), 100 * peak / want,
			 fewer, fewer == 1 ? "" : "s", fs_fmt_bytes(c, 32, out->per_worker_bytes));
	else
		snprintf(f->why, sizeof f->why, "%.0f%% of it was left at the peak: the next epoch's growth or the page "
			 "cache the data needs meets the OOM killer; at %s the peak is %.0f%% of it",
			 100 * (1 - peak / lim), fs_fmt_bytes(a, 32, want), 100 * peak / want);
}

/* The workers' CPU: the kernel copying pages (minor faults) or their own
 * work. */
static void page_copies(const struct fs_memory *mem, const struct fs_thresholds *t, struct fs_memory_verdict *out)
{
	out->workers_sys_share = mem->workers_cpu_s > 0 ? mem->workers_sys_s / mem->workers_cpu_s : NAN;
	out->faults_per_sys_s = mem->workers_sys_s > 0 ? mem->workers_minflt / mem->workers_sys_s : NAN;
	/* faults on fresh pages (the batches' shared memory, new buffers)
	 * cost kernel time too: the copies are told by the workers' private
	 * memory growing without their resident memory, by as much as makes a
	 * growth finding (a 64 MiB /dev/shm's batch stream: 72% of the
	 * workers' CPU in the kernel, 211 000 faults a kernel-second, 50 MiB
	 * of USS growth and no copy) */
	double copied = mem->workers_uss_growth - fmax(mem->workers_rss_growth, 0);
	out->page_copies = out->workers_sys_share >= t->page_copy_sys_share &&
			   out->faults_per_sys_s >= t->page_copy_faults_per_sys_s && copied >= t->mem_growth_min_bytes &&
			   copied >= 0.5 * mem->workers_uss_growth;
}

void fs_judge_memory(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_memory_verdict *out)
{
	const struct fs_memory *mem = &m->mem;
	memset(out, 0, sizeof *out);
	limit_of(mem, out);
	out->per_worker_bytes = NAN;
	if (mem->workers > 0 && mem->worker_uss_mean > 0)
		out->per_worker_bytes = mem->worker_uss_mean + (mem->shmem_pss_max > 0 ? mem->shmem_pss_max / mem->workers : 0);
	page_copies(mem, t, out);
	growth(m, t, out);
	shm(m, t, out);
	limit(m, t, out);
}
