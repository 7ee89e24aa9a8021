#include "store/retain.h"

#include <math.h>
#include <string.h>

#include "store/schema.h"

void fs_retain_init(struct fs_retain *r)
{
	memset(r, 0, sizeof *r);
	r->step_mean_s = NAN;
	r->last_stall = -INFINITY;
	r->last_restart = -INFINITY;
	for (int i = 0; i < FS_RETAIN_GPUS; i++)
		r->idle_from[i] = NAN;
}

/* Add (a, b] of kind, merged with the last span of that kind when they
 * touch; a full list drops its oldest (a long run's early spans are
 * decided long before). */
static void add(struct fs_retain *r, double a, double b, enum fs_retain_kind kind)
{
	if (!(b > a))
		return;
	for (int i = r->n - 1; i >= 0 && i >= r->n - 8; i--) {
		struct fs_retain_span *s = &r->span[i];
		if (s->kind == kind && a <= s->b && b >= s->a) {
			s->a = fmin(s->a, a);
			s->b = fmax(s->b, b);
			return;
		}
	}
	if (r->n == FS_RETAIN_SPANS) {
		memmove(r->span, r->span + 1, (FS_RETAIN_SPANS - 1) * sizeof r->span[0]);
		r->n--;
	}
	r->span[r->n++] = (struct fs_retain_span){a, b, kind};
}

/* A stall from a to b: every table's rows around it, the first of each
 * FS_RETAIN_STALL_EVERY_S. */
static void stall(struct fs_retain *r, double a, double b)
{
	if (a < r->last_stall + FS_RETAIN_STALL_EVERY_S)
		return;
	r->last_stall = a;
	r->stalls++;
	add(r, a - FS_RETAIN_AROUND_S, b + FS_RETAIN_AROUND_S, FS_RETAIN_ALL);
}

/* A finite number (fs_value_num). */
static bool real(const struct fs_value *v, double *x)
{
	return fs_value_num(v, x) && isfinite(*x);
}

/* The slot of pid in set (open addressing): its own, or the free one it
 * would take; -1 when the set is full without it. */
static int slot(const int *set, int pid)
{
	unsigned h = (unsigned)pid * 2654435761u;
	for (int i = 0; i < FS_RETAIN_PIDS; i++) {
		int k = (int)((h + (unsigned)i) % FS_RETAIN_PIDS);
		if (set[k] == pid || set[k] == 0)
			return k;
	}
	return -1;
}

/* A process's sample: its first, when its parent's first child came on an
 * earlier tick, is a new generation of children. */
static void proc_row(struct fs_retain *r, double t, int pid, int ppid)
{
	int k = pid > 0 ? slot(r->seen, pid) : -1;
	if (k < 0 || r->seen[k] == pid)
		return; /* seen before, or no room to tell */
	r->seen[k] = pid;
	int p = ppid > 0 ? slot(r->parent, ppid) : -1;
	if (p < 0)
		return;
	if (r->parent[p] != ppid) {
		r->parent[p] = ppid;
		r->first_child_t[p] = t;
		return;
	}
	if (t > r->first_child_t[p] && t >= r->last_restart + FS_RETAIN_RESTART_EVERY_S) {
		r->last_restart = t;
		r->restarts++;
		add(r, t - FS_RETAIN_RESTART_BEFORE_S, t + FS_RETAIN_RESTART_AFTER_S, FS_RETAIN_ALL);
	}
}

void fs_retain_row(struct fs_retain *r, const struct fs_row *row)
{
	double t, x, y;
	switch (row->table) {
	case FS_T_STEPS:
		if (!real(&row->v[FS_STEPS_t], &t) || !real(&row->v[FS_STEPS_wait_s], &x))
			return;
		if (!real(&row->v[FS_STEPS_compute_s], &y))
			y = 0;
		/* against the mean of the steps before it */
		if (r->steps > 0 && x >= FS_RETAIN_STALL_S && x >= FS_RETAIN_STALL_FACTOR * r->step_mean_s)
			stall(r, t - x, t);
		r->steps++;
		r->step_mean_s = r->steps == 1 ? x + y : r->step_mean_s + (x + y - r->step_mean_s) / (double)r->steps;
		return;
	case FS_T_PHASES:
		if (row->v[FS_PHASES_name].kind == FS_V_TEXT && row->v[FS_PHASES_name].s &&
		    !strcmp(row->v[FS_PHASES_name].s, "collective"))
			return;
		if (real(&row->v[FS_PHASES_t_start], &x) && real(&row->v[FS_PHASES_t_end], &y))
			add(r, x - FS_RETAIN_PHASE_MARGIN_S, y + FS_RETAIN_PHASE_MARGIN_S, FS_RETAIN_GPU);
		return;
	case FS_T_PROC: {
		double pid, ppid;
		if (real(&row->v[FS_PROC_t], &t) && real(&row->v[FS_PROC_pid], &pid) && real(&row->v[FS_PROC_ppid], &ppid))
			proc_row(r, t, (int)pid, (int)ppid);
		return;
	}
	case FS_T_GPU: {
		double g;
		if (!real(&row->v[FS_GPU_t], &t) || !real(&row->v[FS_GPU_util_pct], &x) || !real(&row->v[FS_GPU_gpu], &g) ||
		    g < 0 || g >= FS_RETAIN_GPUS)
			return;
		int i = (int)g;
		if (x <= 0) {
			if (isnan(r->idle_from[i]))
				r->idle_from[i] = t;
			return;
		}
		if (r->worked[i] && !isnan(r->idle_from[i]) && t - r->idle_from[i] >= FS_RETAIN_STALL_S)
			stall(r, r->idle_from[i], t);
		r->idle_from[i] = NAN;
		r->worked[i] = true;
		return;
	}
	default:
		return;
	}
}

int fs_retain_gaps(const struct fs_retain *r, bool gpu, double a, double b, double (*gap)[2], int cap)
{
	/* the spans that cut (a, b], in order of start (few: sort in place) */
	struct fs_retain_span cut[64];
	int nc = 0;
	for (int i = 0; i < r->n && nc < 64; i++) {
		const struct fs_retain_span *s = &r->span[i];
		if ((s->kind == FS_RETAIN_ALL || gpu) && s->b > a && s->a < b)
			cut[nc++] = *s;
	}
	for (int i = 1; i < nc; i++)
		for (int j = i; j > 0 && cut[j].a < cut[j - 1].a; j--) {
			struct fs_retain_span tmp = cut[j];
			cut[j] = cut[j - 1];
			cut[j - 1] = tmp;
		}
	int n = 0;
	double at = a;
	for (int i = 0; i <= nc && n < cap; i++) {
		double until = i < nc ? cut[i].a : b;
		if (until > at)
			gap[n][0] = at, gap[n][1] = fmin(until, b), n++;
		if (i < nc)
			at = fmax(at, cut[i].b);
	}
	return n;
}

void fs_retain_forget(struct fs_retain *r, double t)
{
	int k = 0;
	for (int i = 0; i < r->n; i++)
		if (r->span[i].b >= t)
			r->span[k++] = r->span[i];
	r->n = k;
}
