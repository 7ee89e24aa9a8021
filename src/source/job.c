/* job - the training job's process tree, one `proc` row per process per tick
 * (are the DataLoader workers running, blocked in I/O, sleeping, or waiting
 * for a CPU?) and one `cgroup` row per cgroup the job runs in.
 *
 * The tree is the root and its descendants, found through every thread's
 * task/TID/children file, plus (when we are the job's subreaper) every child
 * of this process. Kernels without children files get a /proc scan every
 * second instead. Descriptors stay open and are re-read with pread; see
 * jobproc.c. Which rank of a distributed job each process is: jobranks.c.
 * Each process's PSS (smaps_rollup, costly) at most once a second, less
 * often for a job of more than 1 GiB resident.
 *
 * Thread states come from one of two paths (meta job.states). BPF
 * (jobbpf.c), where it loads: the kernel accounts each tracked thread's
 * time per state at every switch, the tree is followed at fork, and a tick
 * reads the per-thread records from a mapped array (jobbpfread.c: each
 * process's stat once a second, its io every tick); the state columns are then the
 * interval's mean number of threads in each state. /proc otherwise:
 * every thread's schedstat (and stat when it ran) each tick, the states
 * counted at the sample.
 * Tables: proc, cgroup, ranks. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "source/job_int.h"
#include "util/log.h"
#include "util/parse.h"

#define SCAN_EVERY_NS 1000000000ull      /* full /proc scan without children files */
#define DELAYACCT_EVERY_NS 5000000000ull /* re-check kernel.task_delayacct */
#define MAX_KEPT_THREADS 2000            /* threads whose descriptors stay open */
#define DENTS_BYTES 32768
/* BPF path: forks are followed in the kernel; the children files are walked
 * on the first tick (what the job had already started, for attach) and
 * then this seldom, for a fork that raced the first walk: those of the
 * processes seen before they were followed (and of all, once the program
 * has lost a thread or an event). */
#define BPF_WALK_EVERY_NS 10000000000ull

bool job_born_in_interval(struct job_state *s, uint64_t starttime)
{
	if (!s->have_tick || !s->ctx || s->clk_tck <= 0)
		return false;
	if (s->uptime_gen != s->gen) {
		s->uptime_gen = s->gen;
		s->uptime_s = NAN;
		if (fs_pfile_read(&s->uptime, &s->buf) > 0)
			s->uptime_s = strtod(s->buf.data, NULL);
	}
	if (!isfinite(s->uptime_s))
		return false;
	/* uptime and starttime are both truncated to 10 ms: claim "started after
	 * the previous tick" only when that holds whatever the truncation hid. */
	double prev_tick_s = s->uptime_s - (double)(s->ctx->now_ns - s->prev_tick_ns) / 1e9;
	double start_s = (double)starttime / (double)s->clk_tck;
	return start_s >= prev_tick_s + 0.01 - 1e-9;
}

static void check_delayacct(struct job_state *s, const struct fs_source_ctx *ctx)
{
	if (s->delayacct_on >= 0 && ctx->now_ns - s->delayacct_ns < DELAYACCT_EVERY_NS)
		return;
	s->delayacct_ns = ctx->now_ns;
	int on = fs_pfile_read(&s->delayacct, &s->buf) > 0 && s->buf.data[0] == '1';
	if (on != s->delayacct_on)
		fs_sink_meta(ctx->sink, "job.delayacct",
			     on ? "on" : "off: blkio_delay_pct is NULL (sysctl kernel.task_delayacct=1 "
					 "turns it on)");
	s->delayacct_on = on;
}

/* <proc>/self as a pid: the link's target, else the pid in self/stat. */
static int read_self_pid(struct job_state *s)
{
	char link[32];
	ssize_t n = readlinkat(s->proc_fd, "self", link, sizeof link - 1);
	if (n > 0) {
		link[n] = '\0';
		return atoi(link);
	}
	char path[512];
	struct fs_pstat st;
	if (fs_read_file(fs_proc_path(path, sizeof path, &s->paths, "self/stat"), &s->buf) > 0 &&
	    fs_pstat_parse(s->buf.data, &st))
		return st.pid;
	return -1;
}

static bool has_children_file(struct job_state *s, int pid)
{
	char rel[64];
	snprintf(rel, sizeof rel, "%d/task/%d/children", pid, pid);
	return pid > 0 && faccessat(s->proc_fd, rel, R_OK, 0) == 0;
}

static int max_kept_threads(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return MAX_KEPT_THREADS;
	/* Up to 3 descriptors a thread, in at most half the allowance. */
	rlim_t n = rl.rlim_cur / 2 / 3;
	return n < MAX_KEPT_THREADS ? (int)n : MAX_KEPT_THREADS;
}

static void job_free(struct job_state *s)
{
	job_bpf_close(s->bpf);
	for (int i = 0; i < s->nprocs; i++)
		job_proc_close(s, &s->procs[i]);
	job_proc_close(s, &s->self);
	free(s->procs);
	free(s->queue);
	free(s->scratch);
	free(s->dents);
	free(s->scan);
	free(s->dbuf);
	free(s->envbuf);
	fs_buf_free(&s->buf);
	fs_pfile_close(&s->uptime);
	fs_pfile_close(&s->delayacct);
	fs_cgset_free(&s->cg);
	if (s->proc_fd >= 0)
		close(s->proc_fd);
	free(s);
}

static struct job_state *job_new(const struct fs_source_ctx *ctx)
{
	struct job_state *s = calloc(1, sizeof *s);
	if (!s)
		return NULL;
	s->paths = *ctx->paths;
	s->root = ctx->job->root;
	s->adopt = ctx->job->adopt_own_children;
	s->pss = ctx->job->pss;
	s->proc_fd = s->self.task_fd = s->self.stat_fd = s->self.io_fd = -1;
	s->uptime.fd = s->delayacct.fd = -1;
	s->delayacct_on = -1;
	s->clk_tck = sysconf(_SC_CLK_TCK);
	long pg = sysconf(_SC_PAGESIZE);
	s->page_bytes = pg > 0 ? (uint64_t)pg : 4096;
	s->max_kept_threads = max_kept_threads();
	s->dbuf_len = DENTS_BYTES;
	s->dbuf = malloc(s->dbuf_len);
	s->envbuf = malloc(FS_RANKENV_CAP);
	char path[512];
	if (fs_pfile_init(&s->uptime, fs_proc_path(path, sizeof path, &s->paths, "uptime")) < 0 ||
	    fs_pfile_init(&s->delayacct, fs_proc_path(path, sizeof path, &s->paths,
						      "sys/kernel/task_delayacct")) < 0 ||
	    !s->dbuf || !s->envbuf) {
		job_free(s);
		return NULL;
	}
	return s;
}

/* Choose how thread states are read, and say which in meta job.states. */
static void open_states(struct job_state *s, const struct fs_source_ctx *ctx)
{
	char why[400] = "";
	if (ctx->job->states == FS_STATES_PROC)
		snprintf(why, sizeof why, "--states proc");
	else if (strcmp(s->paths.proc, "/proc") != 0)
		snprintf(why, sizeof why, "%s is not the kernel's /proc (FEEDSCOPE_PROC_ROOT)", s->paths.proc);
	else
		s->bpf = job_bpf_open(s->root, ctx->job->bpf_stats, why, sizeof why);
	if (s->bpf) {
		fs_sink_meta(ctx->sink, "job.states", "bpf");
		fs_sink_meta(ctx->sink, "job.states_settle", "switches; a thread long on a CPU at each read "
			     "(task/TID/schedstat)");
		const char *no_meta = job_bpf_meta_why(s->bpf);
		if (no_meta)
			fs_sink_metaf(ctx->sink, "job.meta_calls", "off: bpf_task_pt_regs: %s", no_meta);
		else
			fs_sink_meta(ctx->sink, "job.meta_calls", "bpf");
		const char *no_io = job_bpf_io_why(s->bpf);
		if (no_io)
			fs_sink_metaf(ctx->sink, "job.io", "proc: %s", no_io);
		else
			fs_sink_meta(ctx->sink, "job.io", "bpf");
		return;
	}
	fs_sink_meta(ctx->sink, "job.io", "proc");
	fs_sink_metaf(ctx->sink, "job.states", "proc: %s", why);
	fs_sink_meta(ctx->sink, "job.meta_calls", "proc");
	if (ctx->job->states == FS_STATES_BPF)
		fs_warn("job: --states bpf: %s; thread states are read from /proc", why);
}

static int job_open(void **state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	if (!ctx->job || ctx->job->root <= 0) {
		snprintf(why, whylen, "no job");
		return FS_SOURCE_UNAVAILABLE;
	}
	struct job_state *s = job_new(ctx);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return FS_SOURCE_UNAVAILABLE;
	}
	s->proc_fd = open(s->paths.proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (s->proc_fd < 0) {
		snprintf(why, whylen, "cannot open %s: %s", s->paths.proc, strerror(errno));
		job_free(s);
		return FS_SOURCE_UNAVAILABLE;
	}
	s->self_pid = read_self_pid(s);
	s->use_children = has_children_file(s, s->root) || has_children_file(s, s->self_pid);
	if (s->adopt && s->use_children)
		s->self.task_fd = openat(s->proc_fd, "self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	fs_sink_meta(ctx->sink, "job.discovery",
		     s->use_children ? "task children files"
				     : "full /proc scan every 1 s (no task/TID/children files: "
				       "kernel without CONFIG_PROC_CHILDREN)");
	fs_sink_meta(ctx->sink, "job.cgroup", fs_cgset_init(&s->cg, &s->paths));
	open_states(s, ctx);
	if (!s->bpf)
		check_delayacct(s, ctx);
	*state = s;
	return FS_SOURCE_OK;
}

/* Read p; if that fails on a process we knew, its pid may have been reused
 * (our descriptors see the old one): reopen once. */
static bool read_or_reopen(struct job_state *s, struct jproc *p)
{
	if (job_proc_read(s, p))
		return true;
	if (!p->have_prev)
		return false;
	int pid = p->pid;
	job_proc_close(s, p);
	return job_proc_open(s, p, pid) && job_proc_read(s, p);
}

/* With children files: walk down from the root (and our own children). */
static void discover_children(struct job_state *s)
{
	s->nqueue = 0;
	job_queue(s, s->root);
	if (s->adopt)
		job_self_children(s);
	for (int i = 0; i < s->nqueue; i++) {
		struct jproc *p = job_find(s, s->queue[i]);
		if (p && p->tried == s->gen)
			continue;
		if (!p && !(p = job_add(s, s->queue[i])))
			continue;
		bool ok = read_or_reopen(s, p);
		p->tried = s->gen;
		if (ok)
			p->ok = s->gen;
	}
}

static bool is_top(const struct job_state *s, const struct jproc *p)
{
	return p->pid == s->root || (s->adopt && s->self_pid > 0 && p->now.st.ppid == s->self_pid);
}

/* Without children files: the table (plus what a full scan adds) read, then
 * kept if its parent chain leads to the root or to us. */
static void discover_scan(struct job_state *s, const struct fs_source_ctx *ctx)
{
	if (!s->have_scan || ctx->now_ns - s->scan_ns >= SCAN_EVERY_NS) {
		s->have_scan = job_full_scan(s);
		s->scan_ns = ctx->now_ns;
	}
	for (int i = 0; i < s->nprocs; i++) {
		struct jproc *p = &s->procs[i];
		bool ok = read_or_reopen(s, p); /* may reset *p */
		p->tried = s->gen;
		p->member = ok && is_top(s, p);
		p->ok = p->member ? s->gen : 0;
	}
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < s->nprocs; i++) {
			struct jproc *p = &s->procs[i], *parent;
			if (p->member || p->tried != s->gen || !p->now.nread)
				continue;
			if ((parent = job_find(s, p->now.st.ppid)) && parent->member) {
				p->member = changed = true;
				p->ok = s->gen;
			}
		}
	}
}

/* BPF path: the processes the kernel followed, the root, and (on a walk)
 * the children files' finds; each read once. */
static void discover_bpf(struct job_state *s, const struct fs_source_ctx *ctx)
{
	bool walk = !s->have_walk || ctx->now_ns - s->walk_ns >= BPF_WALK_EVERY_NS;
	if (walk) {
		s->have_walk = true;
		s->walk_ns = ctx->now_ns;
		struct job_bpf_cost c;
		job_bpf_cost(s->bpf, &c);
		s->bpf_whole = c.missed == 0 && job_bpf_dropped(s->bpf) == 0;
	}
	const int *tgids;
	int n = job_bpf_tgids(s->bpf, &tgids);
	s->nqueue = 0;
	job_queue(s, s->root);
	for (int i = 0; i < n; i++)
		if (job_bpf_find(s->bpf, tgids[i])->threads > 0) /* else it has exited */
			job_queue(s, tgids[i]);
	if (walk && s->adopt && s->use_children)
		job_self_children(s);
	if (walk && !s->use_children && job_full_scan(s)) /* adds what the job already had */
		for (int i = 0; i < s->nprocs; i++)
			job_queue(s, s->procs[i].pid);
	for (int i = 0; i < s->nqueue; i++) {
		struct jproc *p = job_find(s, s->queue[i]);
		if (p && p->tried == s->gen)
			continue;
		if (!p && !(p = job_add(s, s->queue[i])))
			continue;
		bool ok = job_proc_read_bpf(s, p, walk);
		p->tried = s->gen;
		if (ok)
			p->ok = s->gen;
	}
}

/* A process that left: where its parent's counters are /proc/PID/io, which
 * grows by all of the child's when the parent reaps it, note the child's
 * last counters in the parent, to be taken back out (compute_proc). */
static void note_reaped(struct job_state *s, const struct jproc *c)
{
	if (!c->have_prev || !c->prev.have_io)
		return;
	struct jproc *q = job_find(s, c->last_ppid);
	if (!q || q->ok != s->gen || q->io_src == JOB_IO_BPF)
		return; /* not in the job, gone too, or counted from its threads' counters */
	q->have_reaped = true;
	fs_pio_add(&q->reaped, &c->prev.io);
}

/* Close the processes not read fine this tick. */
static void drop_gone(struct job_state *s)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].ok != s->gen)
			note_reaped(s, &s->procs[i]);
	int j = 0;
	for (int i = 0; i < s->nprocs; i++) {
		if (s->procs[i].ok == s->gen) {
			s->procs[j++] = s->procs[i];
			continue;
		}
		if (s->bpf)
			job_bpf_untrack(s->bpf, s->procs[i].pid);
		job_proc_close(s, &s->procs[i]);
	}
	s->nprocs = j;
}

/* The root first, then by pid. */
static int cmp_proc(const void *a, const void *b, void *arg)
{
	int root = *(const int *)arg;
	int x = ((const struct jproc *)a)->pid, y = ((const struct jproc *)b)->pid;
	if (x == root || y == root)
		return (y == root) - (x == root);
	return (x > y) - (x < y);
}

/* Are the processes already in cmp_proc's order? (They mostly are: a
 * tick's discovery appends, so the sort, which copies the large entries
 * through a temporary, is needed only after a new process came.) */
static bool procs_in_order(const struct job_state *s)
{
	for (int i = 1; i < s->nprocs; i++)
		if (cmp_proc(&s->procs[i - 1], &s->procs[i], (void *)&s->root) > 0)
			return false;
	return true;
}

struct jrow {
	struct fs_prates r;
	double run_wait_pct, blkio_delay_pct;
};

/* Turn p's reading and its previous one into rates. */
static void compute_proc(const struct job_state *s, const struct jproc *p, uint64_t now_ns,
			 struct jrow *out)
{
	const struct jtick *k = &p->now;
	struct fs_pcounters zero = {.have_io = k->cur.have_io};
	double dt = NAN;
	const struct fs_pcounters *prev = NULL;
	if (p->have_prev) {
		prev = &p->prev;
		dt = (double)(now_ns - p->prev_ns) / 1e9;
	} else if (k->born) {
		prev = &zero; /* all of its counters accrued in this interval */
		dt = (double)(now_ns - s->prev_tick_ns) / 1e9;
	}
	struct fs_pcounters cur = k->cur;
	if (p->have_reaped && p->have_prev && cur.have_io && prev->have_io)
		fs_pio_unreap(&cur.io, &prev->io, &p->reaped); /* its children's I/O is theirs */
	fs_prates_compute(prev ? prev : &zero, &cur, prev ? dt : NAN, s->clk_tck, &out->r);
	if (k->have_js) {
		struct fs_prates tick = out->r; /* the io counters are read every tick */
		out->r = p->slow_rates;
		out->r.rchar_per_s = tick.rchar_per_s;
		out->r.wchar_per_s = tick.wchar_per_s;
		out->r.read_bytes_per_s = tick.read_bytes_per_s;
		out->r.write_bytes_per_s = tick.write_bytes_per_s;
		out->r.cpu_pct = k->js.cpu_pct;
		out->run_wait_pct = k->js.run_wait_pct;
		out->blkio_delay_pct = k->js.blkio_delay_pct;
		return;
	}
	out->run_wait_pct = prev && k->any_sched ? fs_thread_pct(k->wait_ns, 1e9, dt) : NAN;
	out->blkio_delay_pct = prev && k->any_blkio && s->delayacct_on == 1
				       ? fs_thread_pct(k->blkio_ticks, (double)s->clk_tck, dt)
				       : NAN;
}

static void emit_proc(const struct job_state *s, const struct fs_source_ctx *ctx,
		      const struct jproc *p, const struct jrow *j)
{
	const struct jtick *k = &p->now;
	struct fs_row r;
	fs_row_init(&r, FS_T_PROC, ctx->t);
	fs_row_int(&r, FS_PROC_pid, p->pid);
	fs_row_int(&r, FS_PROC_ppid, k->st.ppid);
	fs_row_text(&r, FS_PROC_role, p->pid == s->root ? "main" : "worker");
	fs_row_text(&r, FS_PROC_comm, k->st.comm);
	fs_row_int(&r, FS_PROC_threads, k->nread);
	if (k->have_js) {
		fs_row_real(&r, FS_PROC_running, k->js.running);
		fs_row_real(&r, FS_PROC_blocked_io, k->js.blocked_io);
		if (!job_bpf_meta_why(s->bpf))
			fs_row_real(&r, FS_PROC_blocked_meta, k->js.blocked_meta);
		fs_row_real(&r, FS_PROC_sleeping, k->js.sleeping);
		fs_row_real(&r, FS_PROC_other, k->js.other);
	} else {
		fs_row_int(&r, FS_PROC_running, k->running);
		fs_row_int(&r, FS_PROC_blocked_io, k->blocked_io);
		if (!s->meta_off)
			fs_row_int(&r, FS_PROC_blocked_meta, k->blocked_meta);
		fs_row_int(&r, FS_PROC_sleeping, k->sleeping);
		fs_row_int(&r, FS_PROC_other, k->other);
	}
	fs_row_real(&r, FS_PROC_cpu_pct, j->r.cpu_pct);
	fs_row_real(&r, FS_PROC_rchar_per_s, j->r.rchar_per_s);
	fs_row_real(&r, FS_PROC_wchar_per_s, j->r.wchar_per_s);
	fs_row_real(&r, FS_PROC_read_bytes_per_s, j->r.read_bytes_per_s);
	fs_row_real(&r, FS_PROC_write_bytes_per_s, j->r.write_bytes_per_s);
	fs_row_real(&r, FS_PROC_majflt_per_s, j->r.majflt_per_s);
	fs_row_real(&r, FS_PROC_minflt_per_s, j->r.minflt_per_s);
	fs_row_real(&r, FS_PROC_system_pct, j->r.sys_pct);
	fs_row_real(&r, FS_PROC_run_wait_pct, j->run_wait_pct);
	fs_row_real(&r, FS_PROC_blkio_delay_pct, j->blkio_delay_pct);
	if (k->st.rss_pages >= 0)
		fs_row_int(&r, FS_PROC_rss_bytes, k->st.rss_pages * (int64_t)s->page_bytes);
	if (p->pss.have_pss)
		fs_row_int(&r, FS_PROC_pss_bytes, p->pss.pss_bytes);
	if (p->pss.have_shared)
		fs_row_int(&r, FS_PROC_shared_bytes, p->pss.shared_bytes);
	if (p->pss.have_private)
		fs_row_int(&r, FS_PROC_uss_bytes, p->pss.private_bytes);
	if (p->pss.have_swap)
		fs_row_int(&r, FS_PROC_swap_bytes, p->pss.swap_bytes);
	if (p->pss.have_shmem)
		fs_row_int(&r, FS_PROC_shmem_pss_bytes, p->pss.shmem_bytes);
	fs_sink_row(ctx->sink, &r);
}

/* How often each process's smaps_rollup is read: its cost follows the
 * pages mapped, so the period follows the job's resident total (this
 * tick's stat); job_int.h. */
static uint64_t pss_period_ns(const struct job_state *s)
{
	uint64_t pages = 0;
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].now.st.rss_pages > 0)
			pages += (uint64_t)s->procs[i].now.st.rss_pages;
	uint64_t mib = pages * s->page_bytes >> 20;
	bool every = s->pss == FS_PSS_EVERY;
	uint64_t ns = mib * (every ? JOB_PSS_NS_PER_RESIDENT_MIB : JOB_PSS_BOUNDED_NS_PER_RESIDENT_MIB);
	uint64_t max = every ? JOB_PSS_MAX_REFRESH_NS : JOB_PSS_BOUNDED_MOVING_MAX_NS;
	return ns < JOB_PSS_REFRESH_NS ? JOB_PSS_REFRESH_NS : ns > max ? max : ns;
}

/* What moves a process's own memory: its faults and its resident pages. */
static uint64_t pss_moves(const struct jproc *p)
{
	uint64_t rss = p->now.st.rss_pages > 0 ? (uint64_t)p->now.st.rss_pages : 0;
	return p->now.st.minflt + p->now.st.majflt + rss;
}

static bool pss_due(const struct job_state *s, const struct jproc *p, uint64_t now_ns, uint64_t period_ns)
{
	if (!p->pss_read)
		return true;
	uint64_t since = now_ns - p->pss_ns;
	if (s->pss == FS_PSS_BOUNDED && pss_moves(p) == p->pss_moves)
		return since >= JOB_PSS_BOUNDED_MAX_REFRESH_NS;
	return since >= period_ns;
}

/* Whether p's smaps_rollup should be read before q's: never read first,
 * then the one read longest ago. */
static bool pss_before(const struct jproc *p, const struct jproc *q)
{
	if (p->pss_read != q->pss_read)
		return !p->pss_read;
	return p->pss_ns < q->pss_ns;
}

/* Read the smaps_rollup of the processes that are due, at most
 * nprocs x tick / period of them a tick (the most urgent first): enough for
 * each to be read about once a period, and workers started together spread
 * over the ticks instead of all costing one (at ~10 ms each, 16 of them
 * would overrun a 100 ms tick). The first tick reads every process. */
static void sample_pss(struct job_state *s, const struct fs_source_ctx *ctx)
{
	/* A new child shares its parent's pages: the parent's PSS halves
	 * without a fault of its own. Read it again among the first. */
	for (int i = 0; i < s->nprocs; i++)
		if (!s->procs[i].pss_read)
			for (int k = 0; k < s->nprocs; k++)
				if (s->procs[k].pid == s->procs[i].now.st.ppid)
					s->procs[k].pss_read = false;
	uint64_t period = pss_period_ns(s);
	uint64_t tick_ns = s->have_tick ? ctx->now_ns - s->prev_tick_ns : period;
	uint64_t reads = ((uint64_t)s->nprocs * tick_ns + period - 1) / period;
	for (uint64_t k = 0; k < reads; k++) {
		struct jproc *next = NULL;
		for (int i = 0; i < s->nprocs; i++) {
			struct jproc *p = &s->procs[i];
			if (pss_due(s, p, ctx->now_ns, period) && (!next || pss_before(p, next)))
				next = p;
		}
		if (!next)
			break;
		job_proc_read_pss(s, next);
		next->pss_moves = pss_moves(next);
	}
}

/* Tell the other sources which processes the job has now: job->pids points
 * at this source's own array (valid until the next tick or close). */
static void publish_pids(struct job_state *s, struct fs_job *job)
{
	if (s->cap_pub < s->nprocs) {
		int cap = s->nprocs + 16;
		int *p = realloc(s->pub, (size_t)cap * sizeof *p);
		if (!p)
			return;
		s->pub = p;
		s->cap_pub = cap;
	}
	for (int i = 0; i < s->nprocs; i++)
		s->pub[i] = s->procs[i].pid;
	job->pids = s->pub;
	job->npids = s->nprocs;
	s->published = job;
}

static int job_sample(void *state, const struct fs_source_ctx *ctx, char *why, size_t whylen)
{
	(void)why;
	(void)whylen;
	struct job_state *s = state;
	s->ctx = ctx;
	s->gen++;
	if (s->bpf) {
		job_bpf_read(s->bpf, ctx->now_ns);
		discover_bpf(s, ctx);
	} else {
		check_delayacct(s, ctx);
		if (s->use_children)
			discover_children(s);
		else
			discover_scan(s, ctx);
	}
	drop_gone(s);
	if (!procs_in_order(s))
		qsort_r(s->procs, (size_t)s->nprocs, sizeof *s->procs, cmp_proc, &s->root);
	if (s->pss)
		sample_pss(s, ctx);
	for (int i = 0; i < s->nprocs; i++) {
		struct jproc *p = &s->procs[i];
		struct jrow j;
		compute_proc(s, p, ctx->now_ns, &j);
		emit_proc(s, ctx, p, &j);
		job_ranks_sample(s, ctx, p);
		p->prev = p->now.cur;
		p->prev_ns = ctx->now_ns;
		p->have_prev = true;
		p->last_ppid = p->now.st.ppid;
		p->have_reaped = false;
		p->reaped = (struct fs_pio){0};
		job_proc_cgroup(s, p, ctx->now_ns);
		fs_cgset_use(&s->cg, p->cg_cpu);
		fs_cgset_use(&s->cg, p->cg_mem);
	}
	fs_cgset_sample(&s->cg, ctx);
	publish_pids(s, ctx->job);
	s->prev_tick_ns = ctx->now_ns;
	s->have_tick = true;
	s->ctx = NULL;
	return FS_SOURCE_OK;
}

/* The BPF path's own cost, which is the job's (it runs in the job's
 * switches), and threads it could not follow: in meta at the end. */
static void job_finish(void *state, const struct fs_source_ctx *ctx)
{
	struct job_state *s = state;
	if (!s->bpf)
		return;
	job_bpf_cost_meta(s->bpf, ctx->sink);
	/* switch-ins not seen: each stretch split by the kernel's counts when
	 * found (jobstates.bpf.c, unseen_in and seen_late) */
	fs_sink_metaf(ctx->sink, "job.bpf_unseen_in", "%llu", (unsigned long long)job_bpf_unseen_in(s->bpf));
	const char *why;
	uint64_t since = job_bpf_sample_since(s->bpf, &why);
	if (since)
		fs_sink_metaf(ctx->sink, "job.bpf_sample", "every %.0f ms on each CPU from t = %.1f s, the first "
			      "switch-in not seen found", FS_JS_SAMPLE_NS / 1e6,
			      ctx->t - (double)(ctx->now_ns - since) / 1e9);
	else
		fs_sink_metaf(ctx->sink, "job.bpf_sample", "off: %s", why ? why : "no switch-in not seen");
	uint64_t dropped = job_bpf_dropped(s->bpf);
	if (dropped)
		fs_sink_metaf(ctx->sink, "job.bpf_dropped",
			      "%llu threads or processes not followed: more than %d threads or %d processes at once",
			      (unsigned long long)dropped, FS_JS_MAX_THREADS, FS_JS_MAX_PROCS);
}

static void job_close(void *state)
{
	struct job_state *s = state;
	if (s->published) {
		s->published->pids = NULL;
		s->published->npids = 0;
	}
	free(s->pub);
	job_free(state);
}

const struct fs_source_ops fs_source_job = {
	.abi = FS_SOURCE_ABI,
	.name = "job",
	.open = job_open,
	.sample = job_sample,
	.finish = job_finish,
	.close = job_close,
};
