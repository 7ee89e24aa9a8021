/* tally.c - running totals of a run file, read incrementally (tally.h). */
#include "analysis/load/tally.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const fs_tally_role_names[FS_TALLY__ROLES] = {"main", "worker"};
const char *const fs_tally_state_names[FS_TALLY__STATES] = {"running", "blocked_io", "sleeping", "other"};
const char *const fs_tally_class_names[FS_TALLY__CLASSES] = {"file", "socket", "pipe", "device", "other"};
const char *const fs_tally_call_names[FS_TALLY__CALLS] = {"read", "write", "sync", "meta"};
const char *const fs_tally_part_names[FS_TALLY__PARTS] = {"main", "workers", "others"};

/* One statement per table, each reading after ?1, at most ?2 rows, and
 * (those that join the tick's length) up to the last tick read, ?4. */
enum { S_TICKS, S_STEPS, S_PROC, S_CLASSES, S_GPU, S_RANKS, S_HOOK, S_PMEM, S_SHM, S_CG, S_STALLS, S__N };
static const char *const sql[] = {
	[S_TICKS] = "SELECT rowid, t, missed FROM ticks WHERE rowid > ?5 ORDER BY rowid LIMIT ?4",
	[S_STEPS] = "SELECT rowid, pid, loader, epoch, wait_s, compute_s FROM steps WHERE rowid > ?5 ORDER BY rowid LIMIT ?4",
	[S_PROC] = "SELECT p.rowid, p.role, p.running, p.blocked_io, p.sleeping, p.other, p.cpu_pct, k.dt_s"
		   " FROM proc p JOIN ticks k ON k.t = p.t WHERE p.rowid > ?5 AND p.t <= ?6 ORDER BY p.rowid LIMIT ?4",
	[S_CLASSES] = "SELECT rowid, class, thread, read_s, write_s, sync_s, meta_s, read_bytes, write_bytes, calls"
		      " FROM io_classes WHERE rowid > ?5 AND t <= ?6 ORDER BY rowid LIMIT ?4",
	[S_GPU] = "SELECT g.rowid, g.gpu, g.name, g.util_pct, g.mem_used_bytes, g.mem_total_bytes, g.power_w, k.dt_s"
		  " FROM gpu g JOIN ticks k ON k.t = g.t WHERE g.rowid > ?5 AND g.t <= ?6 ORDER BY g.rowid LIMIT ?4",
	[S_RANKS] = "SELECT rowid, pid, rank FROM ranks WHERE rowid > ?5 ORDER BY rowid LIMIT ?4",
	/* the key range uses meta's primary key; meta is small but not tiny */
	[S_HOOK] = "SELECT key, value FROM meta WHERE key >= 'hook.rank.' AND key < 'hook.rank/'",
	/* memory (schema 13; a file without these columns has no memory figures) */
	[S_PMEM] = "SELECT rowid, t, pid, ppid, pss_bytes, uss_bytes, swap_bytes FROM proc"
		   " WHERE rowid > ?5 AND t <= ?6 ORDER BY rowid LIMIT ?4",
	[S_SHM] = "SELECT rowid, dev_shm_bytes, dev_shm_size_bytes FROM mem WHERE rowid > ?5 ORDER BY rowid LIMIT ?4",
	[S_CG] = "SELECT rowid, t, mem_limit_bytes, mem_peak_bytes, mem_usage_bytes FROM cgroup"
		 " WHERE rowid > ?5 AND t <= ?6 ORDER BY rowid LIMIT ?4",
	/* stalls (schema 14) */
	[S_STALLS] = "SELECT rowid, stall, event, t_start FROM stalls WHERE rowid > ?5 ORDER BY rowid LIMIT ?4",
};
_Static_assert(S__N <= sizeof ((struct fs_tally *)0)->st / sizeof(sqlite3_stmt *), "fs_tally.st");
_Static_assert(S__N <= sizeof ((struct fs_tally *)0)->last_rowid / sizeof(int64_t), "fs_tally.last_rowid");

/* Open the connection and prepare the statements: 0, or -1 with why. */
static int connect(struct fs_tally *t, char *err, size_t errlen)
{
	if ((t->opener ? t->opener(t->opener_arg, &t->q, t->path, err, errlen) : fs_q_open(&t->q, t->path, err, errlen)) < 0) {
		fs_q_close(&t->q);
		return -1;
	}
	t->open = true;
	for (size_t i = 0; i < sizeof sql / sizeof *sql; i++)
		t->st[i] = fs_q_prep(&t->q, sql[i]); /* NULL: a table this file lacks */
	if (fs_q_failed(&t->q)) {
		snprintf(err, errlen, "%s: %s", t->path, fs_q_failed(&t->q));
		fs_tally_release(t);
		return -1;
	}
	return 0;
}

int fs_tally_open(struct fs_tally *t, const char *path, char *err, size_t errlen)
{
	return fs_tally_open_with(t, path, NULL, NULL, err, errlen);
}

int fs_tally_open_with(struct fs_tally *t, const char *path, fs_tally_opener fn, void *arg, char *err, size_t errlen)
{
	memset(t, 0, sizeof *t);
	snprintf(t->path, sizeof t->path, "%s", path);
	t->opener = fn;
	t->opener_arg = arg;
	if (connect(t, err, errlen) < 0)
		return -1;
	fs_q_meta(&t->q, "mode", t->d.mode, sizeof t->d.mode);
	fs_q_meta(&t->q, "hostname", t->d.host, sizeof t->d.host);
	double pid = fs_q_meta_num(&t->q, "pid");
	t->main_pid = isfinite(pid) ? (int)pid : 0;
	struct fs_tally_data *d = &t->d;
	d->shm_used = d->shm_size = d->cg_limit = d->cg_peak = d->cg_usage = NAN;
	t->procs_t = t->cg_t = NAN;
	t->attached = true;
	return 0;
}

void fs_tally_release(struct fs_tally *t)
{
	for (size_t i = 0; i < sizeof t->st / sizeof *t->st; i++)
		sqlite3_finalize(t->st[i]);
	memset(t->st, 0, sizeof t->st);
	if (t->open)
		fs_q_close(&t->q);
	t->open = false;
}

void fs_tally_close(struct fs_tally *t)
{
	fs_tally_release(t);
	free(t->procs);
	t->procs = NULL;
	t->nprocs = t->procs_cap = 0;
	t->attached = false;
}

/* Start statement i after rowid `after`, up to tick time t_max. */
static sqlite3_stmt *begin(struct fs_tally *t, int i, int64_t after, double t_max)
{
	sqlite3_stmt *st = t->st[i];
	if (!st)
		return NULL;
	sqlite3_reset(st);
	if (sqlite3_bind_parameter_count(st) >= 4)
		sqlite3_bind_int64(st, 4, FS_TALLY_BATCH);
	if (sqlite3_bind_parameter_count(st) >= 5)
		sqlite3_bind_int64(st, 5, after);
	if (sqlite3_bind_parameter_count(st) >= 6)
		sqlite3_bind_double(st, 6, t_max);
	return st;
}

/* The stalls' rows since the last update: how many, and whether the
 * latest is on. Returns whether more rows wait. */
static bool read_stalls(struct fs_tally *t)
{
	struct fs_tally_data *d = &t->d;
	long n = 0;
	sqlite3_stmt *st;
	for (st = begin(t, S_STALLS, t->last_rowid[S_STALLS], 0); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_STALLS] = sqlite3_column_int64(st, 0);
		int id = sqlite3_column_int(st, 1);
		bool start = !strcmp(fs_q_col_text(st, 2), "start");
		if (start && id > d->stalls) {
			d->stalls = id;
			d->stalled = true;
			d->stall_start = fs_q_col(st, 3);
		} else if (!start && id == d->stalls) {
			d->stalled = false;
		}
	}
	return n >= FS_TALLY_BATCH;
}

static double nz(double v)
{
	return isnan(v) ? 0 : v;
}

static struct fs_tally_loop *loop_of(struct fs_tally_data *d, int pid, const char *loader)
{
	for (int i = 0; i < d->nloops; i++)
		if (d->loops[i].pid == pid && !strcmp(d->loops[i].loader, loader))
			return &d->loops[i];
	if (d->nloops >= FS_TALLY_LOOPS - 1) { /* the last slot folds the rest, and is shown */
		struct fs_tally_loop *o = &d->loops[FS_TALLY_LOOPS - 1];
		if (d->nloops < FS_TALLY_LOOPS) {
			memset(o, 0, sizeof *o);
			strcpy(o->loader, "(other)");
			o->rank = -1;
			d->nloops = FS_TALLY_LOOPS;
		}
		return o;
	}
	struct fs_tally_loop *l = &d->loops[d->nloops++];
	memset(l, 0, sizeof *l);
	l->pid = pid;
	l->rank = -1;
	snprintf(l->loader, sizeof l->loader, "%s", loader);
	return l;
}

static int *pid_slot(struct fs_tally *t, int pid, bool hook)
{
	for (int i = 0; i < t->npids; i++)
		if (t->pids[i].pid == pid)
			return hook ? &t->pids[i].hook_rank : &t->pids[i].rank;
	if (t->npids == FS_TALLY_PIDS)
		return NULL;
	int i = t->npids++;
	t->pids[i].pid = pid;
	t->pids[i].rank = t->pids[i].hook_rank = -1;
	return hook ? &t->pids[i].hook_rank : &t->pids[i].rank;
}

/* Each table's new rows; returns whether one hit the batch limit. */
static bool read_new(struct fs_tally *t, double t_max)
{
	struct fs_tally_data *d = &t->d;
	bool more = false;
	long n = 0;
	sqlite3_stmt *st;
	for (st = begin(t, S_STEPS, t->last_rowid[S_STEPS], 0); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_STEPS] = sqlite3_column_int64(st, 0);
		struct fs_tally_loop *l = loop_of(d, sqlite3_column_int(st, 1), fs_q_col_text(st, 2));
		l->steps++;
		l->epoch = sqlite3_column_int(st, 3);
		l->wait_s += nz(fs_q_col(st, 4));
		l->compute_s += nz(fs_q_col(st, 5));
	}
	more |= n >= FS_TALLY_BATCH;
	for (n = 0, st = begin(t, S_PROC, t->last_rowid[S_PROC], t_max); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_PROC] = sqlite3_column_int64(st, 0);
		int role = strcmp(fs_q_col_text(st, 1), "worker") ? FS_TALLY_MAIN : FS_TALLY_WORKER;
		double dt = nz(fs_q_col(st, 7));
		d->have_proc = true;
		for (int s = 0; s < FS_TALLY__STATES; s++)
			d->thread_s[role][s] += nz(fs_q_col(st, 2 + s)) * dt;
		d->cpu_s[role] += nz(fs_q_col(st, 6)) / 100 * dt;
	}
	more |= n >= FS_TALLY_BATCH;
	for (n = 0, st = begin(t, S_CLASSES, t->last_rowid[S_CLASSES], t_max); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_CLASSES] = sqlite3_column_int64(st, 0);
		const char *cls = fs_q_col_text(st, 1);
		int c = FS_TALLY_OCLASS;
		for (int k = 0; k < FS_TALLY_OCLASS; k++)
			if (!strcmp(cls, fs_tally_class_names[k]))
				c = k;
		int th = strcmp(fs_q_col_text(st, 2), "main") != 0;
		d->have_classes = true;
		for (int k = 0; k < FS_TALLY__CALLS; k++)
			d->io_s[c][th][k] += nz(fs_q_col(st, 3 + k));
		d->io_bytes[c][th][0] += nz(fs_q_col(st, 7));
		d->io_bytes[c][th][1] += nz(fs_q_col(st, 8));
		d->io_calls[c][th] += nz(fs_q_col(st, 9));
	}
	more |= n >= FS_TALLY_BATCH;
	for (n = 0, st = begin(t, S_GPU, t->last_rowid[S_GPU], t_max); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_GPU] = sqlite3_column_int64(st, 0);
		int id = sqlite3_column_int(st, 1), i = 0;
		while (i < d->ngpus && d->gpus[i].gpu != id)
			i++;
		if (i == d->ngpus) {
			if (d->ngpus == FS_TALLY_GPUS)
				continue;
			d->gpus[d->ngpus++] = (struct fs_tally_gpu){.gpu = id};
		}
		struct fs_tally_gpu *g = &d->gpus[i];
		d->have_gpu = true;
		snprintf(g->name, sizeof g->name, "%s", fs_q_col_text(st, 2));
		g->util_pct = fs_q_col(st, 3);
		g->mem_used_bytes = fs_q_col(st, 4);
		g->mem_total_bytes = fs_q_col(st, 5);
		g->power_w = fs_q_col(st, 6);
		g->busy_s += nz(g->util_pct) / 100 * nz(fs_q_col(st, 7));
	}
	more |= n >= FS_TALLY_BATCH;
	for (n = 0, st = begin(t, S_RANKS, t->last_rowid[S_RANKS], 0); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_RANKS] = sqlite3_column_int64(st, 0);
		int *r = pid_slot(t, sqlite3_column_int(st, 1), false);
		if (r) /* a process's latest row holds its current values */
			*r = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
	}
	more |= n >= FS_TALLY_BATCH;
	return more;
}

/* How many of the latest tick's processes have ppid as their parent, and
 * one of them. */
static int children(const struct fs_tally *t, int ppid, int *child)
{
	int n = 0;
	for (int i = 0; i < t->nprocs; i++)
		if (t->procs[i].ppid == ppid && t->procs[i].pid != ppid) {
			n++;
			*child = t->procs[i].pid;
		}
	return n;
}

/* The training processes: those whose steps were read (pids[n]);
 * without steps the job's main process, below a wrapper (exactly one
 * child, itself with children) its child, as the report picks it. */
static int trainers(const struct fs_tally *t, int *pids, int cap)
{
	int n = 0;
	for (int i = 0; i < t->d.nloops && n < cap; i++)
		if (t->d.loops[i].pid > 0 && t->d.loops[i].steps > 0)
			pids[n++] = t->d.loops[i].pid;
	if (n > 0)
		return n;
	int pid = t->main_pid, child = 0, grandchild;
	for (int depth = 0; depth < 8 && children(t, pid, &child) == 1 && children(t, child, &grandchild) > 0; depth++)
		pid = child;
	pids[0] = pid;
	return 1;
}

static bool among(const int *pids, int n, int pid)
{
	for (int i = 0; i < n; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* The latest tick's processes summed by part into t->d. */
static void memory_parts(struct fs_tally *t)
{
	struct fs_tally_data *d = &t->d;
	int main[FS_TALLY_LOOPS];
	int nmain = trainers(t, main, FS_TALLY_LOOPS);
	double pss[FS_TALLY__PARTS] = {0}, uss[FS_TALLY__PARTS] = {0}, swap[FS_TALLY__PARTS] = {0};
	bool any = false;
	for (int i = 0; i < t->nprocs; i++) {
		const struct fs_tally_proc *p = &t->procs[i];
		int part = among(main, nmain, p->pid)	 ? FS_TALLY_PART_MAIN
			   : among(main, nmain, p->ppid) ? FS_TALLY_PART_WORKERS
							 : FS_TALLY_PART_OTHERS;
		any |= !isnan(p->pss);
		pss[part] += nz(p->pss);
		uss[part] += nz(p->uss);
		swap[part] += nz(p->swap);
	}
	d->have_pss = any;
	memcpy(d->pss, pss, sizeof pss);
	memcpy(d->uss, uss, sizeof uss);
	memcpy(d->swap, swap, sizeof swap);
}

/* The memory tables' new rows: the processes of the tick being read (a
 * new tick starts the list again), the latest mem row, the largest of the
 * latest tick's cgroups. The parts are summed once the batch ends on a
 * whole tick. Returns whether a table hit the batch limit. */
static bool read_memory(struct fs_tally *t, double t_max)
{
	struct fs_tally_data *d = &t->d;
	bool more = false;
	long n = 0;
	sqlite3_stmt *st;
	for (st = begin(t, S_PMEM, t->last_rowid[S_PMEM], t_max); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_PMEM] = sqlite3_column_int64(st, 0);
		double tt = fs_q_col(st, 1);
		if (tt != t->procs_t)
			t->nprocs = 0;
		t->procs_t = tt;
		if (t->nprocs == t->procs_cap) {
			int cap = t->procs_cap ? 2 * t->procs_cap : 64;
			struct fs_tally_proc *p = realloc(t->procs, (size_t)cap * sizeof *p);
			if (!p)
				continue; /* this process is left out of the sums */
			t->procs = p;
			t->procs_cap = cap;
		}
		t->procs[t->nprocs++] = (struct fs_tally_proc){sqlite3_column_int(st, 2), sqlite3_column_int(st, 3),
							       fs_q_col(st, 4), fs_q_col(st, 5), fs_q_col(st, 6)};
	}
	bool whole = n < FS_TALLY_BATCH && !fs_q_failed(&t->q);
	more |= !whole;
	if (whole && n > 0)
		memory_parts(t);
	for (n = 0, st = begin(t, S_SHM, t->last_rowid[S_SHM], 0); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_SHM] = sqlite3_column_int64(st, 0);
		d->shm_used = fs_q_col(st, 1);
		d->shm_size = fs_q_col(st, 2);
	}
	more |= n >= FS_TALLY_BATCH;
	for (n = 0, st = begin(t, S_CG, t->last_rowid[S_CG], t_max); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_CG] = sqlite3_column_int64(st, 0);
		double tt = fs_q_col(st, 1);
		if (tt != t->cg_t)
			t->cg_cur[0] = t->cg_cur[1] = t->cg_cur[2] = NAN;
		t->cg_t = tt;
		for (int k = 0; k < 3; k++)
			t->cg_cur[k] = fmax(t->cg_cur[k], fs_q_col(st, 2 + k)); /* fmax: NaN only when both are */
	}
	whole = n < FS_TALLY_BATCH && !fs_q_failed(&t->q);
	more |= !whole;
	if (whole && n > 0) {
		d->cg_limit = t->cg_cur[0];
		d->cg_peak = t->cg_cur[1];
		d->cg_usage = t->cg_cur[2];
	}
	return more;
}

static int rank_of(const struct fs_tally *t, int pid)
{
	for (int i = 0; i < t->npids; i++)
		if (t->pids[i].pid == pid)
			return t->pids[i].rank >= 0 ? t->pids[i].rank : t->pids[i].hook_rank;
	return -1;
}

int fs_tally_update(struct fs_tally *t, char *err, size_t errlen)
{
	struct fs_tally_data *d = &t->d;
	if (!t->attached) {
		snprintf(err, errlen, "not open");
		return -1;
	}
	if (!t->open && connect(t, err, errlen) < 0)
		return -1;
	t->q.errors = 0; /* each update on its own: a busy moment is not for ever */
	t->q.failed[0] = 0;
	if (!d->complete) {
		char end[32];
		fs_q_meta(&t->q, "end_unix", end, sizeof end);
		d->complete = end[0] != 0;
	}
	long n = 0;
	double t_max = d->recorded_s;
	sqlite3_stmt *st;
	for (st = begin(t, S_TICKS, t->last_rowid[S_TICKS], 0); fs_q_step(&t->q, st); n++) {
		t->last_rowid[S_TICKS] = sqlite3_column_int64(st, 0);
		t_max = fs_q_col(st, 1);
		d->ticks++;
		d->missed_ticks += nz(fs_q_col(st, 2));
	}
	sqlite3_reset(st);
	if (!isnan(t_max))
		d->recorded_s = t_max;
	bool more = n >= FS_TALLY_BATCH;
	more |= read_stalls(t);
	more |= read_new(t, d->recorded_s);
	more |= read_memory(t, d->recorded_s);
	for (st = begin(t, S_HOOK, 0, 0); fs_q_step(&t->q, st);) {
		int pid = atoi(fs_q_col_text(st, 0) + strlen("hook.rank."));
		int *r = pid > 0 ? pid_slot(t, pid, true) : NULL;
		if (r)
			*r = atoi(fs_q_col_text(st, 1));
	}
	for (size_t i = 0; i < sizeof t->st / sizeof *t->st; i++)
		if (t->st[i])
			sqlite3_reset(t->st[i]); /* no read transaction held between updates */
	for (int i = 0; i < d->nloops; i++)
		if (strcmp(d->loops[i].loader, "(other)"))
			d->loops[i].rank = rank_of(t, d->loops[i].pid);
	if (fs_q_failed(&t->q)) {
		snprintf(err, errlen, "%s", fs_q_failed(&t->q));
		return -1;
	}
	return more ? 1 : 0;
}
