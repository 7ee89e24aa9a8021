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

/* One statement per table, each reading after ?1, at most ?2 rows, and
 * (those that join the tick's length) up to the last tick read, ?4. */
enum { S_TICKS, S_STEPS, S_PROC, S_CLASSES, S_GPU, S_RANKS, S_HOOK };
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
};

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
	for (int r = 0; r < FS_TALLY__ROLES; r++)
		t->d.cpu_s[r] = 0;
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
	more |= read_new(t, d->recorded_s);
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
