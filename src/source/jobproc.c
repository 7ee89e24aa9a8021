/* jobproc - find the job's processes and read them: the process table,
 * thread listings (getdents64 on a kept-open task directory), per-thread
 * stat/schedstat/children with kept-open descriptors, and the full /proc scan
 * used where the kernel has no children files. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source/job_int.h"
#include "source/metacalls.h"
#include "util/parse.h"

static bool grow(void **arr, int *cap, int want, size_t elem)
{
	if (want <= *cap)
		return true;
	int n = *cap ? *cap : 16;
	while (n < want)
		n *= 2;
	void *p = realloc(*arr, (size_t)n * elem);
	if (!p)
		return false;
	*arr = p;
	*cap = n;
	return true;
}

void job_queue(struct job_state *s, int pid)
{
	if (grow((void **)&s->queue, &s->capqueue, s->nqueue + 1, sizeof *s->queue))
		s->queue[s->nqueue++] = pid;
}

static int cmp_dent(const void *a, const void *b)
{
	int x = ((const struct jdent *)a)->id, y = ((const struct jdent *)b)->id;
	return (x > y) - (x < y);
}

/* List the numeric entries of directory fd into s->dents, sorted by id.
 * Returns their number, or -1 when the directory cannot be read (a directory
 * that was removed reads as empty). */
static int list_dir(struct job_state *s, int fd)
{
	if (lseek(fd, 0, SEEK_SET) < 0)
		return -1;
	int n = 0;
	bool sorted = true;
	for (;;) {
		ssize_t got = getdents64(fd, s->dbuf, s->dbuf_len);
		if (got < 0)
			return n ? n : -1;
		if (got == 0)
			break;
		for (ssize_t off = 0; off < got;) {
			const struct dirent64 *d = (const struct dirent64 *)(s->dbuf + off);
			off += d->d_reclen;
			const char *q = d->d_name;
			uint64_t id;
			if (!fs_scan_u64(&q, &id) || *q || id == 0 || id > 0x3fffffff)
				continue;
			if (!grow((void **)&s->dents, &s->capdents, n + 1, sizeof *s->dents))
				return -1;
			struct jdent *e = &s->dents[n];
			e->id = (int)id;
			e->ino = d->d_ino;
			e->ppid = -1;
			e->mark = false;
			if (n && s->dents[n - 1].id > e->id)
				sorted = false;
			n++;
		}
		/* procfs fills the buffer while entries remain: room left for
		 * another entry means the listing is complete, and the empty
		 * getdents64 that would say so is saved. */
		if ((size_t)got + sizeof(struct dirent64) + 256 < s->dbuf_len)
			break;
	}
	if (!sorted)
		qsort(s->dents, (size_t)n, sizeof *s->dents, cmp_dent);
	s->ndents = n;
	return n;
}

/* Say once that we ran out of descriptors (after an open failed with err). */
static void note_open_error(struct job_state *s, int err)
{
	if ((err != EMFILE && err != ENFILE) || s->said_fds || !s->ctx)
		return;
	s->said_fds = true;
	fs_sink_metaf(s->ctx->sink, "job.fds",
		      "out of file descriptors (%s): some processes or threads are missing; "
		      "raise the limit (ulimit -n)", strerror(err));
}

ssize_t job_read_rel(struct job_state *s, int dirfd, int id, const char *name)
{
	char rel[48];
	snprintf(rel, sizeof rel, "%d/%s", id, name);
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		note_open_error(s, errno);
		return -1;
	}
	ssize_t n = fs_read_fd(fd, &s->buf);
	close(fd);
	return n;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

static void thread_close(struct job_state *s, struct jthread *t)
{
	close_fd(&t->stat_fd);
	close_fd(&t->sched_fd);
	close_fd(&t->child_fd);
	if (t->kept)
		s->kept_threads--;
	t->kept = false;
}

/* Keep the thread's descriptors open if the budget allows. */
static void thread_keep(struct job_state *s, int task_fd, struct jthread *t, bool stats)
{
	if (t->kept || s->kept_threads >= s->max_kept_threads)
		return;
	char rel[48];
	if (stats) {
		snprintf(rel, sizeof rel, "%d/stat", t->tid);
		t->stat_fd = openat(task_fd, rel, O_RDONLY | O_CLOEXEC);
		if (t->stat_fd < 0)
			return;
		snprintf(rel, sizeof rel, "%d/schedstat", t->tid);
		t->sched_fd = openat(task_fd, rel, O_RDONLY | O_CLOEXEC);
	}
	if (s->use_children) {
		snprintf(rel, sizeof rel, "%d/children", t->tid);
		t->child_fd = openat(task_fd, rel, O_RDONLY | O_CLOEXEC);
	}
	t->kept = true;
	s->kept_threads++;
}

/* Make p->th match the listing in s->dents (n entries): keep known threads,
 * add new ones, close the departed. Returns false on out of memory. */
static bool merge_threads(struct job_state *s, struct jproc *p, int n)
{
	if (!grow((void **)&s->scratch, &s->capscratch, n, sizeof *s->scratch) ||
	    !grow((void **)&p->th, &p->cap, n, sizeof *p->th))
		return false;
	int i = 0;
	for (int j = 0; j < n; j++) {
		int tid = s->dents[j].id;
		while (i < p->nth && p->th[i].tid < tid)
			thread_close(s, &p->th[i++]);
		if (i < p->nth && p->th[i].tid == tid) {
			s->scratch[j] = p->th[i++];
		} else {
			struct jthread *t = &s->scratch[j];
			memset(t, 0, sizeof *t);
			t->tid = tid;
			t->stat_fd = t->sched_fd = t->child_fd = -1;
		}
	}
	while (i < p->nth)
		thread_close(s, &p->th[i++]);
	memcpy(p->th, s->scratch, (size_t)n * sizeof *p->th);
	p->nth = n;
	return true;
}

/* Queue the pids of a thread's children file. */
static void read_children(struct job_state *s, int task_fd, struct jthread *t)
{
	ssize_t n = t->child_fd >= 0 ? fs_read_fd(t->child_fd, &s->buf)
				     : job_read_rel(s, task_fd, t->tid, "children");
	if (n <= 0)
		return;
	const char *q = s->buf.data;
	uint64_t pid;
	while (fs_scan_u64(&q, &pid)) {
		if (pid > 0 && pid <= 0x3fffffff)
			job_queue(s, (int)pid);
		while (*q == '\n')
			q++;
	}
}

void job_count_state(struct jtick *k, char state)
{
	switch (state) {
	case 'R': k->running++; break;
	case 'D': k->blocked_io++; break;
	case 'S': case 'I': k->sleeping++; break;
	default: k->other++; break;
	}
}

/* Add the thread's increase of a counter to *sum: from the last tick, or
 * all of it when the thread started within this interval. */
static void add_delta(struct job_state *s, bool valid, bool had, uint64_t prev, uint64_t cur,
		      uint64_t starttime, double *sum)
{
	if (!valid)
		return;
	if (had)
		*sum += (double)fs_counter_delta(prev, cur);
	else if (job_born_in_interval(s, starttime))
		*sum += (double)cur;
}

static bool sched_same(const struct fs_schedstat *a, const struct fs_schedstat *b)
{
	return a->run_ns == b->run_ns && a->wait_ns == b->wait_ns && a->slices == b->slices;
}

/* Whether the thread, read in D, is inside a metadata system call
 * (metacalls.h): the number its task/TID/syscall file starts with. A file
 * that cannot be read for want of permission (another user's process under
 * attach; ptrace's rules) turns the column off for the run, said once. */
static bool thread_in_meta_call(struct job_state *s, struct jproc *p, struct jthread *t)
{
	if (s->meta_off)
		return false;
	char rel[48];
	snprintf(rel, sizeof rel, "%d/syscall", t->tid);
	int fd = openat(p->task_fd, rel, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? fs_read_fd(fd, &s->buf) : -1;
	int err = errno;
	if (fd >= 0)
		close(fd);
	long nr;
	if (n > 0)
		return fs_metacall_parse(s->buf.data, &nr) && fs_metacall_is(nr);
	if (n < 0 && (err == EACCES || err == EPERM)) {
		s->meta_off = true;
		char path[512], prel[64];
		snprintf(prel, sizeof prel, "%d/task/%d/syscall", p->pid, t->tid);
		if (!s->said_meta && s->ctx)
			fs_sink_metaf(s->ctx->sink, "job.meta_calls",
				      "off: cannot read %s: %s; blocked_meta is NULL",
				      fs_proc_path(path, sizeof path, &s->paths, prel), strerror(err));
		s->said_meta = true;
	}
	return false;
}

/* Read the thread's stat into t (and its blkio delta into k). False: gone. */
static bool thread_stat(struct job_state *s, struct jproc *p, struct jthread *t, bool valid)
{
	struct jtick *k = &p->now;
	struct fs_pstat st;
	ssize_t n = t->stat_fd >= 0 ? fs_read_fd_one(t->stat_fd, &s->buf)
				    : job_read_rel(s, p->task_fd, t->tid, "stat");
	if (n <= 0 || !fs_pstat_parse(s->buf.data, &st)) {
		thread_close(s, t); /* a reused tid gets fresh descriptors */
		t->prev_sched = t->prev_blkio = false;
		t->state = 0;
		return false;
	}
	t->state = st.state;
	t->starttime = st.starttime;
	t->stat_ns = s->ctx->now_ns;
	t->in_meta = st.state == 'D' && thread_in_meta_call(s, p, t);
	if (st.have_blkio) {
		k->any_blkio = true;
		add_delta(s, valid, t->prev_blkio, t->blkio_ticks, st.blkio_ticks, st.starttime,
			  &k->blkio_ticks);
		t->blkio_ticks = st.blkio_ticks;
	}
	t->prev_blkio = st.have_blkio;
	return true;
}

/* Read one thread's schedstat and (unless it has not run) stat into p->now.
 * False: it is gone. */
static bool thread_read(struct job_state *s, struct jproc *p, struct jthread *t)
{
	struct jtick *k = &p->now;
	bool valid = p->have_prev || k->born;
	thread_keep(s, p->task_fd, t, true);
	struct fs_schedstat ss;
	ssize_t n = t->sched_fd >= 0 ? fs_read_fd_one(t->sched_fd, &s->buf)
				     : job_read_rel(s, p->task_fd, t->tid, "schedstat");
	bool sched = n > 0 && fs_schedstat_parse(s->buf.data, &ss);
	bool idle = sched && t->prev_sched && t->state && ss.slices > 0 &&
		    sched_same(&ss, &t->sched) && s->ctx->now_ns - t->stat_ns < JOB_STAT_REFRESH_NS;
	if (idle)
		k->any_blkio |= t->prev_blkio; /* unchanged: a zero delta */
	else if (!thread_stat(s, p, t, valid))
		return false;
	job_count_state(k, t->state);
	if (t->state == 'D' && t->in_meta)
		k->blocked_meta++;
	k->nread++;
	if (sched) {
		k->any_sched = true;
		add_delta(s, valid, t->prev_sched, t->sched.wait_ns, ss.wait_ns, t->starttime,
			  &k->wait_ns);
		t->sched = ss;
	}
	t->prev_sched = sched;
	if (s->use_children)
		read_children(s, p->task_fd, t);
	return true;
}

static void say_io(struct job_state *s, int pid, int err)
{
	if (s->said_io || !s->ctx)
		return;
	s->said_io = true;
	char rel[32], path[512];
	snprintf(rel, sizeof rel, "%d/io", pid);
	fs_sink_metaf(s->ctx->sink, "job.io",
		      "cannot read %s: %s; I/O rates of such processes are NULL",
		      fs_proc_path(path, sizeof path, &s->paths, rel), strerror(err));
}

void job_read_io(struct job_state *s, struct jproc *p)
{
	struct fs_pcounters *c = &p->now.cur;
	if (p->io_fd < 0)
		return;
	if (fs_read_fd_one(p->io_fd, &s->buf) < 0) {
		say_io(s, p->pid, errno);
		close_fd(&p->io_fd);
		return;
	}
	c->have_io = fs_pio_parse(s->buf.data, &c->io);
}

bool job_proc_read(struct job_state *s, struct jproc *p)
{
	struct jtick *k = &p->now;
	memset(k, 0, sizeof *k);
	if (fs_read_fd_one(p->stat_fd, &s->buf) <= 0 || !fs_pstat_parse(s->buf.data, &k->st))
		return false;
	int n = list_dir(s, p->task_fd);
	if (n <= 0 || !merge_threads(s, p, n))
		return false;
	k->born = !p->have_prev && job_born_in_interval(s, k->st.starttime);
	for (int i = 0; i < p->nth; i++)
		thread_read(s, p, &p->th[i]);
	if (k->nread == 0)
		return false;
	k->cur.cpu_ticks = k->st.utime + k->st.stime;
	k->cur.majflt = k->st.majflt;
	k->cur.minflt = k->st.minflt;
	k->cur.sys_ticks = k->st.stime;
	job_read_io(s, p);
	return true;
}

/* An exited process (a zombie, or one whose memory is being torn down)
 * fails with ESRCH; that is no news. Anything else, once. */
static void say_pss(struct job_state *s, int pid, int err)
{
	if (s->said_pss || !s->ctx || err == ESRCH)
		return;
	s->said_pss = true;
	char rel[40], path[512];
	snprintf(rel, sizeof rel, "%d/smaps_rollup", pid);
	fs_sink_metaf(s->ctx->sink, "job.pss", "cannot read %s: %s; pss_bytes and shared_bytes of such processes are NULL",
		      fs_proc_path(path, sizeof path, &s->paths, rel), err ? strerror(err) : "no \"Pss: N kB\" line");
}

/* Opened for each read, not kept: an open smaps_rollup stays bound to the
 * memory of the program the process ran when it was opened, and a process
 * is often first seen before its exec (run's main process, spawned
 * workers). The open is ~1/1000 of the read. */
void job_proc_read_pss(struct job_state *s, struct jproc *p)
{
	memset(&p->pss, 0, sizeof p->pss);
	p->pss_read = true;
	p->pss_ns = s->ctx ? s->ctx->now_ns : 0;
	if (p->task_fd < 0)
		return;
	int fd = openat(p->task_fd, "../smaps_rollup", O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;
		note_open_error(s, err);
		/* ENOENT with its stat gone too: the process left since its read */
		bool gone = err == ENOENT && faccessat(p->task_fd, "../stat", F_OK, 0) != 0;
		if (err != EMFILE && err != ENFILE && !gone)
			say_pss(s, p->pid, err);
		return;
	}
	ssize_t n = fs_read_fd_one(fd, &s->buf);
	int err = n < 0 ? errno : 0;
	close(fd);
	if (n < 0)
		say_pss(s, p->pid, err);
	else if (!fs_psmaps_parse(s->buf.data, &p->pss) && n > 0)
		say_pss(s, p->pid, 0);
}

bool job_list_threads(struct job_state *s, struct jproc *p)
{
	int n = list_dir(s, p->task_fd);
	return n > 0 && merge_threads(s, p, n);
}

void job_thread_children(struct job_state *s, struct jproc *p, struct jthread *t)
{
	thread_keep(s, p->task_fd, t, false);
	read_children(s, p->task_fd, t);
}

void job_self_children(struct job_state *s)
{
	struct jproc *p = &s->self;
	int n = p->task_fd >= 0 ? list_dir(s, p->task_fd) : -1;
	if (n <= 0 || !merge_threads(s, p, n))
		return;
	for (int i = 0; i < p->nth; i++) {
		thread_keep(s, p->task_fd, &p->th[i], false);
		read_children(s, p->task_fd, &p->th[i]);
	}
}

bool job_proc_open(struct job_state *s, struct jproc *p, int pid)
{
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->task_fd = p->stat_fd = p->io_fd = -1;
	p->cg_cpu = p->cg_mem = -1;
	char rel[32];
	snprintf(rel, sizeof rel, "%d", pid);
	int dir = openat(s->proc_fd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir < 0) {
		note_open_error(s, errno);
		return false;
	}
	p->task_fd = openat(dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	p->stat_fd = openat(dir, "stat", O_RDONLY | O_CLOEXEC);
	if (p->task_fd < 0 || p->stat_fd < 0) {
		note_open_error(s, errno);
		close(dir);
		job_proc_close(s, p);
		return false;
	}
	p->io_fd = openat(dir, "io", O_RDONLY | O_CLOEXEC);
	if (p->io_fd < 0 && (errno == EMFILE || errno == ENFILE))
		note_open_error(s, errno);
	else if (p->io_fd < 0)
		say_io(s, pid, errno);
	close(dir);
	job_proc_cgroup(s, p, s->ctx ? s->ctx->now_ns : 0);
	return true;
}

void job_proc_cgroup(struct job_state *s, struct jproc *p, uint64_t now_ns)
{
	if (p->cg_ns && now_ns - p->cg_ns < JOB_CG_RECHECK_NS)
		return;
	p->cg_ns = now_ns ? now_ns : 1;
	char rel[40];
	snprintf(rel, sizeof rel, "%d/cgroup", p->pid);
	int fd = openat(s->proc_fd, rel, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return; /* gone: its stat says so */
	if (fs_read_fd(fd, &s->buf) > 0)
		fs_cgset_attach(&s->cg, s->buf.data, &p->cg_cpu, &p->cg_mem);
	close(fd);
}

void job_proc_close(struct job_state *s, struct jproc *p)
{
	for (int i = 0; i < p->nth; i++)
		thread_close(s, &p->th[i]);
	free(p->th);
	p->th = NULL;
	p->nth = p->cap = 0;
	close_fd(&p->task_fd);
	close_fd(&p->stat_fd);
	close_fd(&p->io_fd);
}

struct jproc *job_find(struct job_state *s, int pid)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	return NULL;
}

struct jproc *job_add(struct job_state *s, int pid)
{
	if (!grow((void **)&s->procs, &s->capprocs, s->nprocs + 1, sizeof *s->procs))
		return NULL;
	struct jproc *p = &s->procs[s->nprocs];
	if (!job_proc_open(s, p, pid))
		return NULL;
	s->nprocs++;
	return p;
}

/* Index of pid in the sorted listing, or -1. */
static int dent_find(const struct jdent *d, int n, int pid)
{
	int lo = 0, hi = n - 1;
	while (lo <= hi) {
		int mid = lo + (hi - lo) / 2;
		if (d[mid].id == pid)
			return mid;
		if (d[mid].id < pid)
			lo = mid + 1;
		else
			hi = mid - 1;
	}
	return -1;
}

/* Fill each entry's ppid: from the previous scan when the directory is the
 * same one (same inode: same process), else from its stat. */
static void scan_parents(struct job_state *s, int n)
{
	int j = 0;
	for (int i = 0; i < n; i++) {
		struct jdent *d = &s->dents[i];
		while (j < s->nscan && s->scan[j].id < d->id)
			j++;
		if (j < s->nscan && s->scan[j].id == d->id && s->scan[j].ino == d->ino) {
			d->ppid = s->scan[j].ppid;
			continue;
		}
		struct fs_pstat st;
		if (job_read_rel(s, s->proc_fd, d->id, "stat") > 0 && fs_pstat_parse(s->buf.data, &st))
			d->ppid = st.ppid;
	}
}

/* Mark the job: the root, the adopted, the known, and their descendants. */
static void scan_mark(struct job_state *s, int n)
{
	struct jdent *d = s->dents;
	for (int i = 0; i < n; i++)
		d[i].mark = d[i].id == s->root ||
			    (s->adopt && s->self_pid > 0 && d[i].ppid == s->self_pid) ||
			    job_find(s, d[i].id);
	for (bool changed = true; changed;) {
		changed = false;
		for (int i = 0; i < n; i++) {
			if (d[i].mark || d[i].ppid <= 0)
				continue;
			int k = dent_find(d, n, d[i].ppid);
			if (k >= 0 && d[k].mark) {
				d[i].mark = true;
				changed = true;
			}
		}
	}
}

bool job_full_scan(struct job_state *s)
{
	int n = list_dir(s, s->proc_fd);
	if (n < 0)
		return false;
	scan_parents(s, n);
	scan_mark(s, n);
	for (int i = 0; i < n; i++)
		if (s->dents[i].mark && !job_find(s, s->dents[i].id))
			job_add(s, s->dents[i].id);
	/* This listing becomes the scan the next one compares against. */
	struct jdent *t = s->scan;
	int cap = s->capscan;
	s->scan = s->dents;
	s->capscan = s->capdents;
	s->nscan = n;
	s->dents = t;
	s->capdents = cap;
	s->ndents = 0;
	return true;
}
