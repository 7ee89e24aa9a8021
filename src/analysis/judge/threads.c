/* threads.c - the oversubscription finding (threads.h; docs/verdicts.md
 * section 12). */
#include "analysis/judge/threads.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define EV(o, ...) fs_evidence_add((o)->ev, &(o)->nev, __VA_ARGS__)

const char *fs_oversub_name(void)
{
	return "oversubscription";
}

/* The cores the job may use: the fewest of its cgroup's quota, its
 * cpuset, its affinity and the machine's. */
static void cores_of(const struct fs_metrics *m, struct fs_oversub *o)
{
	const struct fs_threads *th = &m->threads;
	o->cores = NAN;
	snprintf(o->cores_from, sizeof o->cores_from, "unknown");
	const struct {
		double n;
		const char *from;
	} lim[] = {
		{m->ncpu > 0 ? m->ncpu : NAN, "the machine's CPUs"},
		{th->cpus_allowed > 0 ? th->cpus_allowed : NAN, "its affinity"},
		{th->cpuset_cpus > 0 ? th->cpuset_cpus : NAN, "its cpuset"},
		{m->cg_quota_cores > 0 ? m->cg_quota_cores : NAN, "its cgroup's CPU quota"},
	};
	for (size_t i = 0; i < sizeof lim / sizeof lim[0]; i++)
		if (isfinite(lim[i].n) && !(lim[i].n >= o->cores)) {
			o->cores = lim[i].n;
			snprintf(o->cores_from, sizeof o->cores_from, "%s", lim[i].from);
		}
}

/* "torch.set_num_threads(1) in worker_init_fn; OMP_NUM_THREADS=1; ...":
 * the fixes for the pools the workers map or were seen by name. */
static void fix_words(const struct fs_threads *th, char *out, size_t cap)
{
	bool torch = strstr(th->libs, "torch") != NULL;
	bool omp = strstr(th->libs, "gomp") || strstr(th->libs, "iomp") || strstr(th->pools, "openmp");
	bool mkl = strstr(th->libs, "mkl") || strstr(th->pools, "mkl");
	bool blas = strstr(th->libs, "openblas") != NULL;
	bool cv = strstr(th->libs, "opencv") != NULL;
	size_t n = 0;
	out[0] = 0;
	if (torch || !(omp || mkl || blas || cv))
		n += (size_t)snprintf(out + n, cap - n, "torch.set_num_threads(1) in worker_init_fn");
	if ((omp || mkl || blas) && n < cap)
		n += (size_t)snprintf(out + n, cap - n, "%s%s=1 in the job's environment", n ? "; " : "",
				      mkl ? "OMP_NUM_THREADS=1 MKL_NUM_THREADS" : blas ? "OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS"
											: "OMP_NUM_THREADS");
	if (cv && n < cap)
		snprintf(out + n, cap - n, "%scv2.setNumThreads(0) in worker_init_fn", n ? "; " : "");
}

static void evidence(const struct fs_metrics *m, struct fs_oversub *o)
{
	const struct fs_threads *th = &m->threads;
	double busy = th->workers_cpu_s + th->workers_wait_s;
	EV(o, "runnable_threads", o->runnable, "threads", "thread_pools (schedstat)",
	   "the job's threads wanted %.1f CPUs on average (on a CPU or waiting for one: workers %.1f, trainer %.1f), "
	   "%.1fx the %.3g cores it may use (%s)",
	   o->runnable, busy / th->span_s, (th->trainer_cpu_s + th->trainer_wait_s) / th->span_s, o->ratio, o->cores,
	   o->cores_from);
	EV(o, "worker_pool_threads", o->pool_threads, "threads", "thread_pools (schedstat, comm)",
	   "each of %d worker%s ran %.1f threads at work at once while at work (%.1f beside its main thread; %.0f "
	   "threads each in all; pools: %s; libraries mapped: %s)",
	   o->workers, o->workers == 1 ? "" : "s", 1 + o->pool_threads, o->pool_threads, th->worker_threads,
	   th->pools[0] ? th->pools : "none named", th->libs[0] ? th->libs : "none known");
	EV(o, "workers_run_wait_share", o->wait_share, "fraction", "thread_pools (schedstat)",
	   "the workers' threads waited on a run queue %.0f%% of the time they wanted a CPU (%.1f s waiting, %.1f s "
	   "on a CPU)",
	   100 * o->wait_share, th->workers_wait_s, th->workers_cpu_s);
	if (isfinite(m->cg_throttled_pct) && m->cg_throttled_pct > 0)
		EV(o, "cgroup_throttled_pct", m->cg_throttled_pct, "%", "cgroup",
		   "its cgroup was throttled %.0f%% of the time by its quota", m->cg_throttled_pct);
}

void fs_judge_threads(const struct fs_metrics *m, const struct fs_thresholds *t, struct fs_oversub *out)
{
	const struct fs_threads *th = &m->threads;
	memset(out, 0, sizeof *out);
	out->predicted_speedup = out->after_runnable = out->after_wait_share = NAN;
	cores_of(m, out);
	out->runnable = fs_threads_job_runnable(th);
	double busy = th->workers_cpu_s + th->workers_wait_s;
	out->wait_share = busy > 0 ? th->workers_wait_s / busy : NAN;
	out->ratio = out->cores > 0 ? out->runnable / out->cores : NAN;
	out->pool_threads = th->worker_pool_active;
	out->workers = th->workers;
	out->known = th->have && isfinite(out->runnable) && isfinite(out->cores);
	if (!out->known)
		return;
	/* one thread per worker while at work, the rest as it was */
	out->after_runnable = out->runnable - busy / th->span_s + th->workers * th->worker_busy;
	out->after_wait_share = fmax(0, 1 - out->cores / out->after_runnable);
	out->found = out->pool_threads >= t->oversub_pool_threads && out->ratio >= t->oversub_ratio &&
		     out->wait_share >= t->oversub_wait_share;
	if (!out->found)
		return;
	evidence(m, out);
	char fix[160];
	fix_words(th, fix, sizeof fix);
	snprintf(out->relieves, sizeof out->relieves, "CPU (run-queue contention)");
	snprintf(out->knob, sizeof out->knob, "threads per DataLoader worker");
	snprintf(out->current, sizeof out->current, "%.1f at work at once (%.0f in all)", 1 + out->pool_threads,
		 th->worker_threads);
	snprintf(out->suggested, sizeof out->suggested, "1: %s", fix);
}
