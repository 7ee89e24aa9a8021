/* threads - the job's threads by pool, per process, and the cores each
 * process may use (issue 39: threads fighting for the cores). Table:
 * thread_pools (docs/schema.md).
 *
 * Every period (1 s; nthreads x 4 ms past 250 threads, at most 10 s: the
 * reads cost some 4 us a thread) each job process's threads are listed:
 * each one's task/TID/schedstat (time on a CPU, time runnable waiting for
 * one: the run queue), its name (task/TID/comm, at its first two reads: a
 * pool names its threads just after making them) and so its pool
 * (threadpool.h). Per process: its affinity (status Cpus_allowed_list),
 * its cpuset's CPUs (v1 cpuset.effective_cpus, v2 cpuset.cpus.effective),
 * and the pool libraries it maps (maps, read again when its thread count
 * changed). A process's first read is a baseline: no row. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source/cgroup.h"
#include "source/procstat.h"
#include "source/source.h"
#include "source/threadpool.h"
#include "util/pfile.h"

#define PERIOD_NS 1000000000ull
#define PERIOD_NS_PER_THREAD 4000000ull
#define PERIOD_MAX_NS 10000000000ull
/* A thread that wanted a CPU (on one, or waiting for one) this share of
 * the interval counts as active: a pool thread at work, not one asleep. */
#define ACTIVE_SHARE 0.10
#define MAX_THREADS_PER_PROC 4096

struct tp_thread {
	int tid;
	uint8_t pool;
	uint8_t name_reads;
	bool seen;          /* listed at this read */
	bool have;          /* run/wait hold an earlier read */
	uint64_t run_ns, wait_ns; /* schedstat's totals at the last read */
	uint64_t d_run, d_wait;   /* their growth over the interval it closed (a
	                           * thread born in it: from 0; a counter that
	                           * went back: 0) */
};

struct tp_proc {
	int pid;
	bool seen;
	bool have_prev;
	uint64_t prev_ns;
	char comm[32];
	struct tp_thread *th;
	int nth, cap;
	int maps_nth;       /* threads at the last maps read; -1 none */
	char libs[96];
};

struct threads_state {
	const struct fs_paths *paths;
	struct tp_proc *p;
	int n, cap;
	struct fs_buf buf;
	struct fs_cg_mounts m;
	char cpuset_v1[FS_CG_PATH_MAX], v2[FS_CG_PATH_MAX]; /* mapped */
	bool have_last;
	uint64_t last_ns, period_ns;
};

static int threads_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	if (!ctx->job) {
		snprintf(why, whylen, "no job");
		return FS_SOURCE_DISABLED;
	}
	struct threads_state *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	s->paths = ctx->paths;
	s->period_ns = PERIOD_NS;
	char path[512];
	if (fs_read_file(fs_proc_path(path, sizeof path, ctx->paths, "self/mountinfo"), &s->buf) >= 0)
		fs_cg_parse_mountinfo(s->buf.data, &s->m);
	if (s->m.cpuset_v1[0])
		fs_host_path(s->cpuset_v1, sizeof s->cpuset_v1, ctx->paths, s->m.cpuset_v1);
	if (s->m.v2[0])
		fs_host_path(s->v2, sizeof s->v2, ctx->paths, s->m.v2);
	*state = s;
	return FS_SOURCE_OK;
}

static const char *read_rel(struct threads_state *s, const char *fmt, int a, int b)
{
	char rel[96], path[512];
	snprintf(rel, sizeof rel, fmt, a, b);
	if (fs_read_file(fs_proc_path(path, sizeof path, s->paths, rel), &s->buf) <= 0)
		return NULL;
	return s->buf.data;
}

static struct tp_proc *proc_get(struct threads_state *s, int pid)
{
	for (int i = 0; i < s->n; i++)
		if (s->p[i].pid == pid)
			return &s->p[i];
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct tp_proc *np = realloc(s->p, (size_t)cap * sizeof *np);
		if (!np)
			return NULL;
		s->p = np;
		s->cap = cap;
	}
	struct tp_proc *p = &s->p[s->n++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->maps_nth = -1;
	return p;
}

static struct tp_thread *thread_get(struct tp_proc *p, int tid)
{
	for (int i = 0; i < p->nth; i++)
		if (p->th[i].tid == tid)
			return &p->th[i];
	if (p->nth >= MAX_THREADS_PER_PROC)
		return NULL;
	if (p->nth == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		struct tp_thread *nt = realloc(p->th, (size_t)cap * sizeof *nt);
		if (!nt)
			return NULL;
		p->th = nt;
		p->cap = cap;
	}
	struct tp_thread *t = &p->th[p->nth++];
	memset(t, 0, sizeof *t);
	t->tid = tid;
	t->pool = FS_TPOOL_OTHER;
	return t;
}

/* The CPUs of pid's cpuset, -1 unknown. */
static int cpuset_cpus(struct threads_state *s, int pid)
{
	const char *text = read_rel(s, "%d/cgroup", pid, 0);
	struct fs_cg_member mb;
	if (!text || !fs_cg_parse_member(text, &mb))
		return -1;
	char dir[FS_CG_PATH_MAX * 2], path[FS_CG_PATH_MAX * 2 + 32];
	if (s->cpuset_v1[0] && mb.cpuset_v1[0]) {
		fs_cg_dir(dir, sizeof dir, s->cpuset_v1, s->m.cpuset_v1_root, mb.cpuset_v1);
		snprintf(path, sizeof path, "%s/cpuset.effective_cpus", dir);
		if (fs_read_file(path, &s->buf) <= 0) {
			snprintf(path, sizeof path, "%s/cpuset.cpus", dir);
			if (fs_read_file(path, &s->buf) <= 0)
				return -1;
		}
		return fs_cpulist_count(s->buf.data);
	}
	if (s->v2[0] && mb.have_v2) {
		fs_cg_dir(dir, sizeof dir, s->v2, s->m.v2_root, mb.v2);
		snprintf(path, sizeof path, "%s/cpuset.cpus.effective", dir);
		if (fs_read_file(path, &s->buf) <= 0)
			return -1;
		return fs_cpulist_count(s->buf.data);
	}
	return -1;
}

/* Read p's threads' schedstat (and new ones' names). Returns the threads
 * listed, -1 when the process is gone. */
static int read_threads(struct threads_state *s, struct tp_proc *p)
{
	char rel[64], path[512];
	snprintf(rel, sizeof rel, "%d/task", p->pid);
	DIR *d = opendir(fs_proc_path(path, sizeof path, s->paths, rel));
	if (!d)
		return -1;
	for (int i = 0; i < p->nth; i++)
		p->th[i].seen = false;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long tid = strtol(e->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		const char *text = read_rel(s, "%d/task/%d/schedstat", p->pid, (int)tid);
		struct fs_schedstat st;
		if (!text || !fs_schedstat_parse(text, &st))
			continue;
		struct tp_thread *t = thread_get(p, (int)tid);
		if (!t)
			continue;
		t->seen = true;
		n++;
		t->d_run = !t->have ? st.run_ns : st.run_ns >= t->run_ns ? st.run_ns - t->run_ns : 0;
		t->d_wait = !t->have ? st.wait_ns : st.wait_ns >= t->wait_ns ? st.wait_ns - t->wait_ns : 0;
		t->run_ns = st.run_ns;
		t->wait_ns = st.wait_ns;
		t->have = true;
		if (t->name_reads < 2 && (text = read_rel(s, "%d/task/%d/comm", p->pid, (int)tid))) {
			if ((int)tid == p->pid)
				snprintf(p->comm, sizeof p->comm, "%.*s", (int)strcspn(text, "\n"), text);
			t->pool = (uint8_t)fs_tpool_of(text, p->comm[0] ? p->comm : NULL, (int)tid == p->pid);
			t->name_reads++;
		}
	}
	closedir(d);
	return n;
}

struct pool_sum {
	int threads, active;
	double run_ns, wait_ns;
};

static void emit(const struct fs_source_ctx *ctx, const struct tp_proc *p,
		 const struct pool_sum *sum, double dt_s, int allowed, int cpuset)
{
	for (int k = 0; k < FS_TPOOL__N; k++) {
		if (!sum[k].threads)
			continue;
		struct fs_row r;
		fs_row_init(&r, FS_T_THREAD_POOLS, ctx->t);
		fs_row_int(&r, FS_THREAD_POOLS_pid, p->pid);
		fs_row_text(&r, FS_THREAD_POOLS_pool, fs_tpool_name((enum fs_tpool)k));
		fs_row_int(&r, FS_THREAD_POOLS_threads, sum[k].threads);
		fs_row_int(&r, FS_THREAD_POOLS_active, sum[k].active);
		fs_row_real(&r, FS_THREAD_POOLS_cpu_pct, 100.0 * sum[k].run_ns / 1e9 / dt_s);
		fs_row_real(&r, FS_THREAD_POOLS_run_wait_pct, 100.0 * sum[k].wait_ns / 1e9 / dt_s);
		fs_row_real(&r, FS_THREAD_POOLS_dt_s, dt_s);
		if (allowed > 0)
			fs_row_int(&r, FS_THREAD_POOLS_cpus_allowed, allowed);
		if (cpuset > 0)
			fs_row_int(&r, FS_THREAD_POOLS_cpuset_cpus, cpuset);
		if (k == FS_TPOOL_MAIN)
			fs_row_text(&r, FS_THREAD_POOLS_libs, p->libs);
		fs_sink_row(ctx->sink, &r);
	}
}

/* Read process p (in the job this tick) and emit its rows. Returns its
 * threads, -1 when gone. */
static int sample_proc(struct threads_state *s, const struct fs_source_ctx *ctx, struct tp_proc *p)
{
	int n = read_threads(s, p);
	if (n < 0)
		return -1;
	struct pool_sum sum[FS_TPOOL__N];
	memset(sum, 0, sizeof sum);
	double dt_ns = p->have_prev ? (double)(ctx->now_ns - p->prev_ns) : 0;
	for (int i = 0; i < p->nth; i++) {
		struct tp_thread *t = &p->th[i];
		if (!t->seen)
			continue;
		double dr = (double)t->d_run, dw = (double)t->d_wait;
		struct pool_sum *ps = &sum[t->pool < FS_TPOOL__N ? t->pool : FS_TPOOL_OTHER];
		ps->threads++;
		ps->run_ns += dr;
		ps->wait_ns += dw;
		if (dt_ns > 0 && dr + dw >= ACTIVE_SHARE * dt_ns)
			ps->active++;
	}
	/* drop the threads gone */
	int k = 0;
	for (int i = 0; i < p->nth; i++)
		if (p->th[i].seen)
			p->th[k++] = p->th[i];
	p->nth = k;
	if (p->maps_nth != n) {
		const char *maps = read_rel(s, "%d/maps", p->pid, 0);
		if (maps)
			fs_pool_libs(maps, p->libs, sizeof p->libs);
		p->maps_nth = n;
	}
	if (p->have_prev && dt_ns > 0) {
		const char *status = read_rel(s, "%d/status", p->pid, 0);
		int allowed = status ? fs_status_cpus_allowed(status) : -1;
		emit(ctx, p, sum, dt_ns / 1e9, allowed, cpuset_cpus(s, p->pid));
	}
	p->have_prev = true;
	p->prev_ns = ctx->now_ns;
	return n;
}

static int threads_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	struct threads_state *s = state;
	(void)why;
	(void)whylen;
	const struct fs_job *job = ctx->job;
	if (!job || (s->have_last && ctx->now_ns - s->last_ns < s->period_ns && !ctx->final))
		return FS_SOURCE_OK;
	s->have_last = true;
	s->last_ns = ctx->now_ns;
	for (int i = 0; i < s->n; i++)
		s->p[i].seen = false;
	long total = 0;
	for (int i = 0; i < job->npids; i++) {
		struct tp_proc *p = proc_get(s, job->pids[i]);
		if (!p)
			continue;
		int n = sample_proc(s, ctx, p);
		if (n >= 0) {
			p->seen = true;
			total += n;
		}
	}
	int k = 0;
	for (int i = 0; i < s->n; i++) {
		if (s->p[i].seen)
			s->p[k++] = s->p[i];
		else
			free(s->p[i].th);
	}
	s->n = k;
	uint64_t period = (uint64_t)total * PERIOD_NS_PER_THREAD;
	s->period_ns = period < PERIOD_NS ? PERIOD_NS : period > PERIOD_MAX_NS ? PERIOD_MAX_NS : period;
	return FS_SOURCE_OK;
}

static void threads_close(void *state)
{
	struct threads_state *s = state;
	if (!s)
		return;
	for (int i = 0; i < s->n; i++)
		free(s->p[i].th);
	free(s->p);
	fs_buf_free(&s->buf);
	free(s);
}

const struct fs_source_ops fs_source_threads = {
	.abi = FS_SOURCE_ABI,
	.name = "threads",
	.machine = false,
	.open = threads_open,
	.sample = threads_sample,
	.close = threads_close,
};
