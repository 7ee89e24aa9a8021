/* test_job - the /proc/PID/stat, io, schedstat and smaps_rollup parsers,
 * the rate functions, and the job source on a real process tree forked
 * here (a worker's PSS growing by copy-on-write, and read again after it
 * runs another program). */
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "source/job_int.h"
#include "source/procstat.h"
#include "source/source.h"

extern const struct fs_source_ops fs_source_job;

/* A real line (kernel 6.x, 52 fields) with the comm replaced. */
#define STAT_TAIL                                                                       \
	" S 8015 8015 6737 0 -1 4194304 101 0 7 0 250 40 0 0 20 0 3 0 51372 3133440 377 " \
	"18446744073709551615 94230733242368 94230733262249 140727823561840 0 0 0 0 0 0 0 0 0 " \
	"17 1 0 0 12 0 0 94230733278256 94230733279872 94231573831680 140727823567302 "     \
	"140727823567322 140727823567322 140727823568875 0\n"

static void test_stat(void)
{
	struct fs_pstat st;
	CHECK(fs_pstat_parse("8024 (a) b (c)" STAT_TAIL, &st));
	CHECK_INT(st.pid, 8024);
	CHECK_STR(st.comm, "a) b (c");
	CHECK_INT(st.state, 'S');
	CHECK_INT(st.ppid, 8015);
	CHECK_INT(st.majflt, 7);
	CHECK_INT(st.utime, 250);
	CHECK_INT(st.stime, 40);
	CHECK_INT(st.num_threads, 3);
	CHECK_INT(st.starttime, 51372);
	CHECK_INT(st.rss_pages, 377);
	CHECK(st.have_blkio);
	CHECK_INT(st.blkio_ticks, 12);
	CHECK_INT(st.env_start, 140727823567322); /* fields 50, 51 */
	CHECK_INT(st.env_end, 140727823568875);

	CHECK(fs_pstat_parse("1 ())" STAT_TAIL, &st)); /* comm ")" */
	CHECK_STR(st.comm, ")");
	CHECK(fs_pstat_parse("2 ()" STAT_TAIL, &st)); /* empty comm */
	CHECK_STR(st.comm, "");
	CHECK(fs_pstat_parse("3 (x) (y) z)" STAT_TAIL, &st));
	CHECK_STR(st.comm, "x) (y) z");

	/* Cut after rss (field 24): fine, without field 42. */
	CHECK(fs_pstat_parse("5 (cut) R 1 5 5 0 -1 0 0 0 2 0 3 4 0 0 20 0 1 0 99 1000 55", &st));
	CHECK_INT(st.rss_pages, 55);
	CHECK_INT(st.state, 'R');
	CHECK(!st.have_blkio);
	CHECK_INT(st.env_start, 0);
	CHECK_INT(st.env_end, 0);
	/* Cut before rss, or before anything: refused. */
	CHECK(!fs_pstat_parse("5 (cut) R 1 5 5 0 -1 0 0 0 2 0 3 4 0 0 20 0 1 0 99", &st));
	CHECK(!fs_pstat_parse("5 (cut) ", &st));
	CHECK(!fs_pstat_parse("5 (cut", &st));
	CHECK(!fs_pstat_parse("", &st));
	CHECK(!fs_pstat_parse("x (y) S 1", &st));
}

static void test_io_schedstat(void)
{
	struct fs_pio io;
	CHECK(fs_pio_parse("rchar: 6976\nwchar: 12\nsyscr: 10\nsyscw: 0\nread_bytes: 4096\n"
			   "write_bytes: 8192\ncancelled_write_bytes: 0\n",
			   &io));
	CHECK_INT(io.rchar, 6976);
	CHECK_INT(io.wchar, 12);
	CHECK_INT(io.read_bytes, 4096);
	CHECK_INT(io.write_bytes, 8192);
	CHECK(!fs_pio_parse("rchar: 1\nwchar: 2\n", &io));

	struct fs_schedstat ss;
	CHECK(fs_schedstat_parse("0 34301 1\n", &ss));
	CHECK_INT(ss.run_ns, 0);
	CHECK_INT(ss.wait_ns, 34301);
	CHECK_INT(ss.slices, 1);
	CHECK(fs_schedstat_parse("5 6\n", &ss)); /* no slices: 0 */
	CHECK_INT(ss.slices, 0);
	CHECK(!fs_schedstat_parse("17\n", &ss));
	CHECK(!fs_schedstat_parse("", &ss));
}

static void test_rates(void)
{
	struct fs_pcounters a = {.cpu_ticks = 100, .majflt = 5, .have_io = true,
				 .io = {1000, 2000, 4096, 0}};
	struct fs_pcounters b = {.cpu_ticks = 250, .majflt = 9, .have_io = true,
				 .io = {3000, 2000, 12288, 4096}};
	struct fs_prates r;
	fs_prates_compute(&a, &b, 0.5, 100, &r);
	CHECK_NEAR(r.cpu_pct, 300, 1e-9); /* 1.5 CPU-seconds in 0.5 s: three threads busy */
	CHECK_NEAR(r.majflt_per_s, 8, 1e-9);
	CHECK_NEAR(r.rchar_per_s, 4000, 1e-9);
	CHECK_NEAR(r.wchar_per_s, 0, 0);
	CHECK_NEAR(r.read_bytes_per_s, 16384, 1e-9);
	CHECK_NEAR(r.write_bytes_per_s, 8192, 1e-9);

	fs_prates_compute(&b, &a, 1, 100, &r); /* backwards: 0 */
	CHECK_NEAR(r.cpu_pct, 0, 0);
	CHECK_NEAR(r.rchar_per_s, 0, 0);
	b.have_io = false;
	fs_prates_compute(&a, &b, 1, 100, &r);
	CHECK(isnan(r.rchar_per_s) && isnan(r.write_bytes_per_s));
	CHECK_NEAR(r.cpu_pct, 150, 1e-9);
	fs_prates_compute(&a, &b, 0, 100, &r);
	CHECK(isnan(r.cpu_pct) && isnan(r.majflt_per_s));

	/* a reaped child's counters, taken back out where the growth holds them */
	struct fs_pio prev = {1000, 1000, 0, 0}, cur = {1000 + 50 + 700, 1000 + 30, 4096, 0};
	struct fs_pio kid = {700, 400, 4096, 8192};
	fs_pio_unreap(&cur, &prev, &kid);
	CHECK_INT(cur.rchar, 1050);      /* grew 750 >= 700: its own 50 left */
	CHECK_INT(cur.wchar, 1030);      /* grew 30 < 400: not reaped into it, kept */
	CHECK_INT(cur.read_bytes, 0);    /* grew exactly 4096 */
	CHECK_INT(cur.write_bytes, 0);   /* nothing to take */
	struct fs_pio back = {10, 10, 10, 10}, none = {0};
	cur = (struct fs_pio){5, 5, 5, 5};
	fs_pio_unreap(&cur, &back, &kid); /* went backwards: left as read */
	CHECK_INT(cur.rchar, 5);
	fs_pio_unreap(&cur, &back, &none);
	CHECK_INT(cur.wchar, 5);

	CHECK_NEAR(fs_thread_pct(3e8, 1e9, 0.5), 60, 1e-9);
	CHECK_NEAR(fs_thread_pct(75, 100, 1), 75, 1e-9);
	CHECK(isnan(fs_thread_pct(1, 1e9, 0)));
}

/* smaps_rollup as kernel 6.x writes it (the ugly cases are also fixture
 * trees: tests/fixtures/job/pss). */
#define ROLLUP_HEAD "00400000-7fff357a4000 ---p 00000000 00:00 0      [rollup]\nRss:   386200 kB\n"
#define ROLLUP_REST                                                                            \
	"Pss_Dirty:        126281 kB\nPss_Anon:         126248 kB\nPss_Shmem:            33 kB\n"    \
	"Shared_Clean:     116464 kB\nShared_Dirty:     217356 kB\nPrivate_Dirty:     45904 kB\n" \
	"SwapPss:               0 kB\n"

static void test_psmaps(void)
{
	struct fs_psmaps m;
	CHECK(fs_psmaps_parse(ROLLUP_HEAD "Pss:              186448 kB\n" ROLLUP_REST, &m));
	CHECK(m.have_pss && m.have_shared);
	CHECK_INT(m.pss_bytes, 186448 * 1024LL); /* not Pss_Dirty, Pss_Anon, SwapPss */
	CHECK_INT(m.shared_bytes, (116464 + 217356) * 1024LL);
	/* empty, no Pss line, a line without its unit, a number cut short */
	CHECK(!fs_psmaps_parse("", &m) && !m.have_pss && !m.have_shared);
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD ROLLUP_REST, &m) && m.have_shared);
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:              186448\n" ROLLUP_REST, &m));
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:              186448", &m));
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:              186448 k", &m));
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:              186448 kBytes\n", &m));
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:             -186448 kB\n", &m));
	CHECK(!fs_psmaps_parse(ROLLUP_HEAD "Pss:  kB\n", &m));
	CHECK(fs_psmaps_parse("Pss: 7 kB", &m)); /* the last line, unterminated but whole */
	CHECK_INT(m.pss_bytes, 7168);
	CHECK(!m.have_shared);
	/* cut inside Shared_Dirty: Pss stands, shared does not */
	CHECK(fs_psmaps_parse("Pss: 1 kB\nShared_Clean: 2 kB\nShared_Dirty: 3", &m) && !m.have_shared);
	/* huge: kB x 1024 past int64_t, a number past 64 bits, the largest that fits */
	CHECK(!fs_psmaps_parse("Pss: 9007199254740992 kB\n", &m));
	CHECK(!fs_psmaps_parse("Pss: 99999999999999999999 kB\n", &m));
	CHECK(fs_psmaps_parse("Pss: 9007199254740991 kB\n", &m));
	CHECK_INT(m.pss_bytes, 9007199254740991LL * 1024);
	CHECK(fs_psmaps_parse("Pss: 1 kB\nShared_Clean: 9007199254740991 kB\nShared_Dirty: 9007199254740991 kB\n",
			      &m) && !m.have_shared); /* the sum would overflow */
	/* a key twice is not trusted */
	CHECK(!fs_psmaps_parse("Pss: 1 kB\nPss: 2 kB\n", &m));
	/* a key must start its line */
	CHECK(!fs_psmaps_parse("XPss: 1 kB\n", &m));

	/* USS (Private_Clean + Private_Dirty), Swap (not SwapPss), Pss_Shmem */
	CHECK(fs_psmaps_parse(ROLLUP_HEAD "Pss: 186448 kB\nPrivate_Clean: 6476 kB\n" ROLLUP_REST "Swap: 2048 kB\n", &m));
	CHECK(m.have_private && m.have_swap && m.have_shmem);
	CHECK_INT(m.private_bytes, (6476 + 45904) * 1024LL);
	CHECK_INT(m.swap_bytes, 2048 * 1024LL);
	CHECK_INT(m.shmem_bytes, 33 * 1024LL);
	/* kernel 4.14-5.7: no Pss_Shmem; SwapPss alone is not Swap; one of
	 * the private pair missing leaves USS absent */
	CHECK(fs_psmaps_parse("Pss: 1 kB\nPrivate_Dirty: 5 kB\nSwapPss: 3 kB\n", &m));
	CHECK(!m.have_private && !m.have_swap && !m.have_shmem);
	CHECK(fs_psmaps_parse("Pss: 1 kB\nPrivate_Clean: 9007199254740991 kB\nPrivate_Dirty: 9007199254740991 kB\n",
			      &m) && !m.have_private); /* the sum would overflow */
	CHECK(fs_psmaps_parse("Pss: 1 kB\nSwap: 4 kB\nSwap: 4 kB\n", &m) && !m.have_swap); /* twice */
}

/* minflt (field 10) and the kernel's share of the CPU (stime). */
static void test_faults_sys(void)
{
	struct fs_pstat st;
	CHECK(fs_pstat_parse("42 (w) S 1 1 1 0 -1 4194560 70000 5 3 0 120 80 0 0 20 0 1 0 1000 1 2000", &st));
	CHECK_INT(st.minflt, 70000); /* not cminflt (11) */
	CHECK_INT(st.majflt, 3);
	CHECK_INT(st.utime, 120);
	CHECK_INT(st.stime, 80);
	struct fs_pcounters a = {.cpu_ticks = 100, .sys_ticks = 40, .minflt = 1000};
	struct fs_pcounters b = {.cpu_ticks = 200, .sys_ticks = 90, .minflt = 26000};
	struct fs_prates r;
	fs_prates_compute(&a, &b, 0.5, 100, &r);
	CHECK_NEAR(r.cpu_pct, 200, 1e-9);
	CHECK_NEAR(r.sys_pct, 100, 1e-9); /* half of it in the kernel */
	CHECK_NEAR(r.minflt_per_s, 50000, 1e-9);
	fs_prates_compute(&b, &a, 0.5, 100, &r); /* backwards: 0 */
	CHECK_NEAR(r.sys_pct, 0, 0);
	CHECK_NEAR(r.minflt_per_s, 0, 0);
	fs_prates_compute(&a, &b, 0, 100, &r);
	CHECK(isnan(r.sys_pct) && isnan(r.minflt_per_s));
}

static void test_no_job(void)
{
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct fs_source_ctx ctx = {.paths = &paths};
	void *st = NULL;
	char why[100] = "";
	CHECK_INT(fs_source_job.open(&st, &ctx, why, sizeof why), FS_SOURCE_UNAVAILABLE);
	CHECK_STR(why, "no job");
}

/* ---- live: a real tree ---- */

struct prow {
	int pid, ppid, threads, running, blocked_io, sleeping, other;
	char role[8];
	double cpu_pct, run_wait_pct;
	double m_running, m_blocked_io, m_sleeping; /* the state columns as numbers (BPF: means) */
	int64_t pss_bytes; /* -1: NULL */
};

struct collect {
	struct fs_sink sink;
	struct prow rows[64];
	int n;
	bool said_pss; /* meta job.pss was written */
};

static void collect_meta(struct fs_sink *sink, const char *key, const char *value)
{
	(void)value;
	if (!strcmp(key, "job.pss"))
		((struct collect *)sink)->said_pss = true;
}

static double real_or_nan(const struct fs_value *v)
{
	return v->kind == FS_V_REAL ? v->d : NAN;
}

static double number(const struct fs_value *v)
{
	return v->kind == FS_V_REAL ? v->d : v->kind == FS_V_INT ? (double)v->i : NAN;
}

static void collect_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct collect *c = (struct collect *)sink;
	if (r->table != FS_T_PROC || c->n == 64)
		return;
	struct prow *p = &c->rows[c->n++];
	p->pid = (int)r->v[FS_PROC_pid].i;
	p->ppid = (int)r->v[FS_PROC_ppid].i;
	p->threads = (int)r->v[FS_PROC_threads].i;
	p->running = (int)r->v[FS_PROC_running].i;
	p->blocked_io = (int)r->v[FS_PROC_blocked_io].i;
	p->sleeping = (int)r->v[FS_PROC_sleeping].i;
	p->other = (int)r->v[FS_PROC_other].i;
	snprintf(p->role, sizeof p->role, "%s", r->v[FS_PROC_role].s);
	p->cpu_pct = real_or_nan(&r->v[FS_PROC_cpu_pct]);
	p->run_wait_pct = real_or_nan(&r->v[FS_PROC_run_wait_pct]);
	p->m_running = number(&r->v[FS_PROC_running]);
	p->m_blocked_io = number(&r->v[FS_PROC_blocked_io]);
	p->m_sleeping = number(&r->v[FS_PROC_sleeping]);
	p->pss_bytes = r->v[FS_PROC_pss_bytes].kind == FS_V_INT ? r->v[FS_PROC_pss_bytes].i : -1;
}

static const struct prow *find_row(const struct collect *c, int pid)
{
	for (int i = 0; i < c->n; i++)
		if (c->rows[i].pid == pid)
			return &c->rows[i];
	return NULL;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *reader(void *arg)
{
	char c;
	ssize_t n = read(*(int *)arg, &c, 1); /* blocks: nobody writes */
	(void)n;
	return NULL;
}

/* The job's root: a busy child, a sleeping child, a thread blocked in read(). */
static void run_root(int report_fd)
{
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pid_t kids[2];
	kids[0] = fork();
	if (kids[0] == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		uint64_t end = now_ns() + 5000000000ull; /* spin in user space, killed sooner */
		volatile uint64_t x = 0;
		while (now_ns() < end)
			for (int i = 0; i < 100000; i++)
				x += (uint64_t)i;
		_exit(x == 1 ? 1 : 0); /* x read, so no compiler calls it unused */
	}
	kids[1] = fork();
	if (kids[1] == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	static int pfd[2];
	pthread_t th;
	if (pipe(pfd) < 0 || pthread_create(&th, NULL, reader, &pfd[0]) != 0)
		_exit(1);
	if (write(report_fd, kids, sizeof kids) != (ssize_t)sizeof kids)
		_exit(1);
	for (;;)
		pause();
}

static void sample(void *st, struct fs_source_ctx *ctx, struct collect *c, double t)
{
	char why[200];
	c->n = 0;
	ctx->t = t;
	ctx->now_ns = now_ns();
	CHECK_INT(fs_source_job.sample(st, ctx, why, sizeof why), FS_SOURCE_OK);
}

static void sleep_ms(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

/* The tree of run_root() recorded at 0.1 s: a spinning worker, a paused
 * one, the root (main thread and a reader thread, both sleeping). With
 * states = FS_STATES_PROC the counts at each sample are exact; with BPF
 * (root only) they are the interval's means: the sleepers' within 5% of a
 * thread of their count (the sleeper never runs; 5% leaves room for the
 * first interval's share of seeding), the spinner running most of it. */
static void test_live(bool force_scan, int states)
{
	int rep[2];
	if (pipe(rep) < 0)
		return;
	pid_t root = fork();
	if (root == 0) {
		close(rep[0]);
		run_root(rep[1]);
	}
	close(rep[1]);
	pid_t kids[2] = {0, 0};
	CHECK_INT(read(rep[0], kids, sizeof kids), sizeof kids);
	close(rep[0]);
	pid_t busy = kids[0], sleeper = kids[1];
	sleep_ms(50); /* let the sleeper reach pause() */

	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct fs_job job = {.root = root, .states = states};
	struct collect c = {.sink = {.row = collect_row}};
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &c.sink, .job = &job};
	void *st = NULL;
	char why[200] = "";
	ctx.now_ns = now_ns();
	CHECK_INT(fs_source_job.open(&st, &ctx, why, sizeof why), FS_SOURCE_OK);
	if (!st)
		return;
	if (force_scan) /* the path kernels without CONFIG_PROC_CHILDREN take */
		((struct job_state *)st)->use_children = false;
	bool bpf = ((struct job_state *)st)->bpf != NULL;
	if (states == FS_STATES_BPF && !bpf) {
		if (getenv("CI") && !strcmp(getenv("CI"), "true") && geteuid() == 0)
			CHECK(!"the BPF path loads as root under CI");
		else
			check_skip("live (bpf): the BPF program does not load here (not root, or no BPF build)");
	}

	sample(st, &ctx, &c, 0);
	CHECK_INT(c.n, 3);
	const struct prow *r = find_row(&c, root);
	CHECK(r && strcmp(r->role, "main") == 0 && r->ppid == getpid() && isnan(r->cpu_pct));
	double max_busy = 0;
	for (int i = 1; i <= 3 || (i <= 30 && max_busy <= 50); i++) {
		sleep_ms(100);
		sample(st, &ctx, &c, i * 0.1);
		CHECK_INT(c.n, 3);
		const struct prow *b = find_row(&c, busy);
		CHECK(b && strcmp(b->role, "worker") == 0 && b->ppid == root && b->threads == 1);
		if (b && b->cpu_pct > max_busy)
			max_busy = b->cpu_pct;
		CHECK(b && !isnan(b->run_wait_pct));
	}
	CHECK(max_busy > 50);
	const struct prow *s = find_row(&c, sleeper);
	CHECK(s && strcmp(s->role, "worker") == 0 && s->ppid == root);
	r = find_row(&c, root);
	const struct prow *b = find_row(&c, busy);
	if (bpf) {
		CHECK(s && s->threads == 1 && fabs(s->m_sleeping - 1) < 0.05 && s->m_running < 0.05);
		CHECK(r && r->threads == 2 && fabs(r->m_sleeping - 2) < 0.05 && r->m_blocked_io < 0.05);
		CHECK(b && b->m_running > 0.5);
	} else {
		CHECK(s && s->threads == 1 && s->sleeping == 1 && s->running == 0);
		CHECK(r && r->threads == 2 && r->sleeping == 2 && r->blocked_io == 0);
	}
	if (r)
		fprintf(stderr, "live%s%s: busy child max cpu_pct %.0f\n", force_scan ? " (scan)" : "",
			bpf ? " (bpf)" : "", max_busy);

	kill(busy, SIGKILL);
	kill(sleeper, SIGKILL);
	kill(root, SIGKILL);
	waitpid(root, NULL, 0);
	/* BPF follows the tree by fork, not by parent: a worker that outlives
	 * the root (here by the few ms SIGKILL takes) is still the job's */
	for (int i = 0; bpf && i < 200 && (kill(busy, 0) == 0 || kill(sleeper, 0) == 0); i++)
		sleep_ms(10);
	sample(st, &ctx, &c, 99);
	CHECK(!find_row(&c, root) && !find_row(&c, busy) && !find_row(&c, sleeper));
	CHECK_INT(c.n, 0);
	sample(st, &ctx, &c, 100);
	CHECK_INT(c.n, 0);
	fs_source_job.close(st);
}

static int64_t pss_of(const struct collect *c, int pid)
{
	const struct prow *r = find_row(c, pid);
	return r ? r->pss_bytes : -2;
}

#define COW_BYTES (64u << 20)

/* The job's root maps 64 MiB and writes it, then forks a worker that shares
 * those pages until it writes them too (what Python's reference counts do
 * to a dataset a DataLoader worker inherits: copy-on-read). The worker's
 * PSS must grow by about half of that (its share went from 1/2 to all). It
 * then runs another program: its PSS must still be read (smaps_rollup is
 * opened per read, never bound to the image it was first opened for). */
static void test_live_pss(void)
{
	int go[2], done[2];
	if (pipe(go) < 0 || pipe(done) < 0)
		return;
	pid_t root = fork();
	if (root == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		char *mem = mmap(NULL, COW_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			_exit(1);
		memset(mem, 1, COW_BYTES);
		pid_t w = fork();
		if (w == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			char cmd;
			if (read(go[0], &cmd, 1) != 1)
				_exit(1);
			memset(mem, 2, COW_BYTES); /* every page copied */
			if (write(done[1], "w", 1) != 1 || read(go[0], &cmd, 1) != 1)
				_exit(1);
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
			_exit(127);
		}
		if (write(done[1], &w, sizeof w) != (ssize_t)sizeof w)
			_exit(1);
		for (;;)
			pause();
	}
	pid_t w = 0;
	CHECK_INT(read(done[0], &w, sizeof w), sizeof w);
	struct fs_paths paths;
	fs_paths_from_env(&paths);
	struct fs_job job = {.root = root, .pss = FS_PSS_EVERY, .states = FS_STATES_PROC};
	struct collect c = {.sink = {.row = collect_row, .meta = collect_meta}};
	struct fs_source_ctx ctx = {.paths = &paths, .sink = &c.sink, .job = &job};
	void *st = NULL;
	char why[200] = "";
	uint64_t t0 = now_ns();
	ctx.now_ns = t0;
	CHECK_INT(fs_source_job.open(&st, &ctx, why, sizeof why), FS_SOURCE_OK);
	if (!st)
		return;
	CHECK_INT(fs_source_job.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	int64_t before = pss_of(&c, w), root_pss = pss_of(&c, root);
	CHECK(before > 0 && root_pss > 0);
	/* 0.5 s later (the clock is the caller's): not read again yet */
	char cmd = 'g', got;
	CHECK_INT(write(go[1], &cmd, 1), 1);
	CHECK_INT(read(done[0], &got, 1), 1);
	c.n = 0;
	ctx.now_ns = t0 + 500000000ull;
	CHECK_INT(fs_source_job.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	CHECK_INT(pss_of(&c, w), before);
	c.n = 0;
	ctx.now_ns = t0 + 1100000000ull;
	CHECK_INT(fs_source_job.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	int64_t after = pss_of(&c, w);
	fprintf(stderr, "live pss: worker %lld -> %lld KiB after writing 64 MiB it shared\n", (long long)before / 1024,
		(long long)after / 1024);
	CHECK(after - before >= (int64_t)(COW_BYTES / 2) * 3 / 4);
	CHECK(after - before <= (int64_t)COW_BYTES);

	CHECK_INT(write(go[1], &cmd, 1), 1); /* exec sleep */
	char comm[64] = "", path[64];
	snprintf(path, sizeof path, "/proc/%d/comm", (int)w);
	for (int i = 0; i < 200 && strncmp(comm, "sleep", 5); i++) {
		sleep_ms(10);
		FILE *f = fopen(path, "r");
		if (f) {
			if (!fgets(comm, sizeof comm, f))
				comm[0] = '\0';
			fclose(f);
		}
	}
	CHECK(!strncmp(comm, "sleep", 5));
	c.n = 0;
	ctx.now_ns = t0 + 2200000000ull;
	CHECK_INT(fs_source_job.sample(st, &ctx, why, sizeof why), FS_SOURCE_OK);
	int64_t slept = pss_of(&c, w);
	CHECK(slept > 0 && slept < after); /* sleep's image, far smaller than 64 MiB */
	CHECK(!c.said_pss);               /* nothing to say about processes we may read */
	kill(w, SIGKILL);
	kill(root, SIGKILL);
	waitpid(root, NULL, 0);
	fs_source_job.close(st);
	close(go[0]);
	close(go[1]);
	close(done[0]);
	close(done[1]);
}

int main(void)
{
	test_stat();
	test_psmaps();
	test_faults_sys();
	test_io_schedstat();
	test_rates();
	test_no_job();
	test_live(false, FS_STATES_PROC);
	test_live(true, FS_STATES_PROC);
	if (geteuid() == 0) {
		test_live(false, FS_STATES_BPF);
		test_live(true, FS_STATES_BPF);
	} else {
		check_skip("live (bpf): not root, the BPF program cannot load");
	}
	test_live_pss();
	return check_exit("test_job");
}
