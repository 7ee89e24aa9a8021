/* stalls - a run file's stalls (stalls.h). */
#include "analysis/load/stalls.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/query.h"

static struct fs_stall_rec *find(struct fs_stalls *s, int stall)
{
	for (int i = 0; i < s->n; i++)
		if (s->v[i].stall == stall)
			return &s->v[i];
	return NULL;
}

static void copy(char *out, size_t cap, sqlite3_stmt *st, int col)
{
	snprintf(out, cap, "%s", fs_q_col_text(st, col));
}

static int read_stalls(struct fs_q *q, struct fs_stalls *s)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT stall, event, t, t_start, bound_s, basis, procs FROM stalls "
					"ORDER BY stall, event DESC");
	while (fs_q_step(q, st)) {
		int id = sqlite3_column_int(st, 0);
		struct fs_stall_rec *r = find(s, id);
		if (!r) {
			struct fs_stall_rec *v = realloc(s->v, (size_t)(s->n + 1) * sizeof *v);
			if (!v) {
				sqlite3_finalize(st);
				return -1;
			}
			s->v = v;
			r = &s->v[s->n++];
			memset(r, 0, sizeof *r);
			r->stall = id;
			r->t_detect = r->t_end = NAN;
			r->t_start = fs_q_col(st, 3);
			r->bound_s = fs_q_col(st, 4);
			copy(r->basis, sizeof r->basis, st, 5);
		}
		if (!strcmp(fs_q_col_text(st, 1), "start"))
			r->t_detect = fs_q_col(st, 2);
		else
			r->t_end = fs_q_col(st, 2);
	}
	sqlite3_finalize(st);
	return 0;
}

static int read_procs(struct fs_q *q, struct fs_stalls *s)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT stall, pid, ppid, role, comm, state, syscall, syscall_nr, fd, target, "
					"target_kind, peer, wchan, kernel_stack, python_stack, python FROM stall_procs "
					"ORDER BY rowid");
	while (fs_q_step(q, st)) {
		struct fs_stall_rec *r = find(s, sqlite3_column_int(st, 0));
		if (!r)
			continue;
		struct fs_stall_proc *v = realloc(r->procs, (size_t)(r->nprocs + 1) * sizeof *v);
		if (!v) {
			sqlite3_finalize(st);
			return -1;
		}
		r->procs = v;
		struct fs_stall_proc *p = &r->procs[r->nprocs++];
		memset(p, 0, sizeof *p);
		p->pid = sqlite3_column_int(st, 1);
		p->ppid = sqlite3_column_int(st, 2);
		copy(p->role, sizeof p->role, st, 3);
		copy(p->comm, sizeof p->comm, st, 4);
		copy(p->state, sizeof p->state, st, 5);
		copy(p->syscall, sizeof p->syscall, st, 6);
		p->syscall_nr = sqlite3_column_type(st, 7) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 7);
		p->fd = sqlite3_column_type(st, 8) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 8);
		copy(p->target, sizeof p->target, st, 9);
		copy(p->target_kind, sizeof p->target_kind, st, 10);
		copy(p->peer, sizeof p->peer, st, 11);
		copy(p->wchan, sizeof p->wchan, st, 12);
		copy(p->kstack, sizeof p->kstack, st, 13);
		if (sqlite3_column_type(st, 14) != SQLITE_NULL)
			p->python_stack = strdup(fs_q_col_text(st, 14));
		copy(p->python, sizeof p->python, st, 15);
	}
	sqlite3_finalize(st);
	return 0;
}

int fs_stalls_load(const char *path, struct fs_stalls *s, char *err, size_t errlen)
{
	struct fs_q q;
	memset(s, 0, sizeof *s);
	if (fs_q_open(&q, path, err, errlen) < 0) {
		fs_q_close(&q);
		return -1;
	}
	int rc = 0;
	if (fs_q_has_table(&q, "stalls") && (read_stalls(&q, s) < 0 || read_procs(&q, s) < 0)) {
		snprintf(err, errlen, "%s: out of memory", path);
		rc = -1;
	} else if (fs_q_failed(&q)) {
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
		rc = -1;
	}
	fs_q_close(&q);
	return rc;
}

void fs_stalls_free(struct fs_stalls *s)
{
	for (int i = 0; i < s->n; i++) {
		for (int j = 0; j < s->v[i].nprocs; j++)
			free(s->v[i].procs[j].python_stack);
		free(s->v[i].procs);
	}
	free(s->v);
	memset(s, 0, sizeof *s);
}
