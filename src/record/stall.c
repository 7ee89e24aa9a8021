/* stall - the detector: progress, the bound, a stall's start and end
 * (stall.h). What each process is blocked on: stall_probe.c. */
#include "record/stall.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/thresholds.h"
#include "record/stall_int.h"
#include "util/clock.h"
#include "util/paths.h"
#include "util/pfile.h"
#include "source/procstat.h"

double fs_stall_bound(double hang_after_s, bool have_steps, double median_step_s)
{
	const struct fs_thresholds *th = &fs_thresholds;
	if (hang_after_s > 0)
		return hang_after_s;
	if (!have_steps)
		return th->hang_startup_s;
	double b = th->hang_step_multiple * (isnan(median_step_s) ? 0 : median_step_s);
	return b > th->hang_floor_s ? b : th->hang_floor_s;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static double median_step(const struct fs_stall *d)
{
	double v[STALL_STEPS_KEPT];
	if (d->ndur == 0)
		return NAN;
	memcpy(v, d->dur, (size_t)d->ndur * sizeof v[0]);
	qsort(v, (size_t)d->ndur, sizeof v[0], cmp_double);
	return d->ndur % 2 ? v[d->ndur / 2] : (v[d->ndur / 2 - 1] + v[d->ndur / 2]) / 2;
}

static double now_s(const struct fs_stall *d)
{
	return (double)(fs_now_ns() - d->o.start_ns) / 1e9;
}

static void saw_proc(struct fs_stall *d, const struct fs_row *r)
{
	double t = r->v[FS_PROC_t].d;
	if (t != d->procs_t) {
		d->procs_t = t;
		d->nprocs = 0;
	}
	if (d->nprocs == d->procs_cap) {
		if (d->procs_cap >= FS_STALL_MAX_PROCS)
			return;
		int cap = d->procs_cap ? d->procs_cap * 2 : 16;
		struct stall_proc *p = realloc(d->procs, (size_t)cap * sizeof *p);
		if (!p)
			return;
		d->procs = p;
		d->procs_cap = cap;
	}
	struct stall_proc *p = &d->procs[d->nprocs++];
	p->pid = (int)r->v[FS_PROC_pid].i;
	p->ppid = r->v[FS_PROC_ppid].kind == FS_V_INT ? (int)r->v[FS_PROC_ppid].i : 0;
	snprintf(p->role, sizeof p->role, "%s", r->v[FS_PROC_role].kind == FS_V_TEXT ? r->v[FS_PROC_role].s : "?");
	snprintf(p->comm, sizeof p->comm, "%s", r->v[FS_PROC_comm].kind == FS_V_TEXT ? r->v[FS_PROC_comm].s : "");
	double cpu;
	if (!strcmp(p->role, "main") && fs_value_num(&r->v[FS_PROC_cpu_pct], &cpu) &&
	    cpu >= fs_thresholds.hang_main_cpu_pct && t > d->last_activity)
		d->last_activity = t;
}

static void saw_row(struct fs_stall *d, const struct fs_row *r)
{
	double x;
	switch (r->table) {
	case FS_T_STEPS: {
		double w = 0, c = 0;
		fs_value_num(&r->v[FS_STEPS_wait_s], &w);
		fs_value_num(&r->v[FS_STEPS_compute_s], &c);
		d->dur[d->durpos] = w + c;
		d->durpos = (d->durpos + 1) % STALL_STEPS_KEPT;
		d->ndur += d->ndur < STALL_STEPS_KEPT;
		d->steps++;
		d->last_step = now_s(d); /* its record came: the loop asked for the next batch */
		break;
	}
	case FS_T_PROC:
		if (r->v[FS_PROC_pid].kind == FS_V_INT && r->v[0].kind == FS_V_REAL)
			saw_proc(d, r);
		break;
	case FS_T_IO_INTERVALS:
		if (fs_value_num(&r->v[FS_IO_INTERVALS_read_bytes], &x) && x > 0 && r->v[0].d > d->last_activity)
			d->last_activity = r->v[0].d;
		break;
	case FS_T_GPU:
		if (fs_value_num(&r->v[FS_GPU_util_pct], &x) && x >= fs_thresholds.hang_device_busy_pct &&
		    r->v[0].d > d->last_activity)
			d->last_activity = r->v[0].d;
		break;
	default:
		break;
	}
}

/* hook.stacks.PID: that process registered the signal; kept out of the
 * run file (one key per process of a long job), counted instead. */
static bool saw_meta(struct fs_stall *d, const char *key)
{
	if (strncmp(key, "hook.stacks.", 12))
		return false;
	char *end;
	long pid = strtol(key + 12, &end, 10);
	if (*end || pid <= 0 || pid > 1 << 22 || !d->o.stacks_dir)
		return true;
	char rel[64], path[512];
	struct fs_buf buf = {0};
	struct fs_pstat ps;
	snprintf(rel, sizeof rel, "%ld/stat", pid);
	bool ok = fs_read_file(fs_proc_path(path, sizeof path, d->o.paths, rel), &buf) >= 0 &&
		  fs_pstat_parse(buf.data, &ps);
	fs_buf_free(&buf);
	if (!ok)
		return true; /* gone already */
	int i;
	for (i = 0; i < d->nhooked && d->hooked[i].pid != pid; i++)
		;
	if (i == d->nhooked) {
		if (d->nhooked == d->hooked_cap) {
			int cap = d->hooked_cap ? d->hooked_cap * 2 : 32;
			struct stall_hooked *h = realloc(d->hooked, (size_t)cap * sizeof *h);
			if (!h)
				return true;
			d->hooked = h;
			d->hooked_cap = cap;
		}
		d->nhooked++;
	}
	d->hooked[i] = (struct stall_hooked){(int)pid, ps.starttime};
	d->registered++;
	return true;
}

bool fs_stall_is_hooked(const struct fs_stall *d, const struct fs_blocked *b)
{
	for (int i = 0; i < d->nhooked; i++)
		if (d->hooked[i].pid == b->pid)
			return d->hooked[i].starttime == b->starttime;
	return false;
}

static void filter_row(struct fs_sink *s, const struct fs_row *r)
{
	struct fs_stall *d = (struct fs_stall *)s;
	saw_row(d, r);
	fs_sink_row(d->inner, r);
}

static void filter_meta(struct fs_sink *s, const char *key, const char *value)
{
	struct fs_stall *d = (struct fs_stall *)s;
	if (!saw_meta(d, key))
		d->inner->meta(d->inner, key, value);
}

static void filter_tick_end(struct fs_sink *s, double t)
{
	struct fs_stall *d = (struct fs_stall *)s;
	if (d->inner->tick_end)
		d->inner->tick_end(d->inner, t);
}

struct fs_stall *fs_stall_new(const struct fs_stall_opts *o, struct fs_sink *inner)
{
	struct fs_stall *d = calloc(1, sizeof *d);
	if (!d)
		return NULL;
	d->sink = (struct fs_sink){.row = filter_row, .meta = filter_meta, .tick_end = filter_tick_end};
	d->inner = inner;
	d->o = *o;
	if (o->stacks_dir) {
		snprintf(d->stacks_dir, sizeof d->stacks_dir, "%s", o->stacks_dir);
		d->o.stacks_dir = d->stacks_dir;
	}
	d->procs_t = NAN;
	const struct fs_thresholds *th = &fs_thresholds;
	if (o->hang_after_s > 0)
		fs_sink_metaf(inner, "stall.rule", "no step for %g s (--hang-after); without steps, none of the job's reads, "
			      "its device busy >= %g%%, its main process on a CPU >= %g%% for as long",
			      o->hang_after_s, th->hang_device_busy_pct, th->hang_main_cpu_pct);
	else
		fs_sink_metaf(inner, "stall.rule", "no step for max(%g x the median step, %g s); without steps (before "
			      "the first, or no hook), none of the job's reads, its device busy >= %g%%, its main process "
			      "on a CPU >= %g%% for %g s",
			      th->hang_step_multiple, th->hang_floor_s, th->hang_device_busy_pct, th->hang_main_cpu_pct,
			      th->hang_startup_s);
	return d;
}

void fs_stall_start_at(struct fs_stall *d, uint64_t start_ns)
{
	d->o.start_ns = start_ns;
}

struct fs_sink *fs_stall_sink(struct fs_stall *d)
{
	return &d->sink;
}

static void end_stall(struct fs_stall *d, double t_end)
{
	struct fs_row r;
	fs_row_init(&r, FS_T_STALLS, 0);
	fs_row_int(&r, FS_STALLS_stall, d->nstalls);
	fs_row_text(&r, FS_STALLS_event, "end");
	fs_row_real(&r, FS_STALLS_t, t_end);
	fs_row_real(&r, FS_STALLS_t_start, d->s_start);
	fs_row_real(&r, FS_STALLS_bound_s, d->s_bound);
	fs_row_text(&r, FS_STALLS_basis, d->basis);
	fs_sink_row(d->inner, &r);
	if (t_end - d->s_start > d->longest_s)
		d->longest_s = t_end - d->s_start;
	d->state = STALL_IDLE;
}

/* What the bound came from, for the row and the line. */
static void say_basis(struct fs_stall *d, bool steps, double median)
{
	const struct fs_thresholds *th = &fs_thresholds;
	if (d->o.hang_after_s > 0)
		snprintf(d->basis, sizeof d->basis, steps ? "steps, --hang-after" : "no steps: activity, --hang-after");
	else if (steps)
		snprintf(d->basis, sizeof d->basis, "steps: max(%g x median %.3g s, %g s)", th->hang_step_multiple, median,
			 th->hang_floor_s);
	else
		snprintf(d->basis, sizeof d->basis, "no steps: activity, %g s", th->hang_startup_s);
}

void fs_stall_tick(struct fs_stall *d, double t)
{
	bool steps = d->steps > 0;
	double last = steps ? d->last_step : d->last_activity;
	if (d->state == STALL_IDLE) {
		/* the least the bound can be first: the median only when past it */
		double least = fs_stall_bound(d->o.hang_after_s, steps, 0);
		if (t - last <= least)
			return;
		double median = steps && d->o.hang_after_s <= 0 ? median_step(d) : NAN;
		double bound = fs_stall_bound(d->o.hang_after_s, steps, median);
		if (t - last <= bound)
			return;
		say_basis(d, steps, median);
		d->nstalls++;
		d->s_start = last;
		d->s_detect = t;
		d->s_bound = bound;
		d->s_deadline = t + FS_STALL_DUMP_WAIT_S;
		d->state = STALL_COLLECTING;
		fs_stall_probe_start(d, last, t);
		return;
	}
	bool resumed = last > d->s_start;
	if (d->state == STALL_COLLECTING && (resumed || fs_stall_probe_collect(d, t))) {
		fs_stall_probe_write(d);
		d->state = STALL_STALLED;
	}
	if (resumed)
		end_stall(d, last);
}

void fs_stall_finish(struct fs_stall *d, double t)
{
	if (d->state == STALL_COLLECTING)
		fs_stall_probe_write(d);
	if (d->state != STALL_IDLE)
		end_stall(d, t);
	fs_sink_metaf(d->inner, "stall.count", "%d", d->nstalls);
	if (d->nstalls)
		fs_sink_metaf(d->inner, "stall.longest_s", "%.3f", d->longest_s);
	if (d->o.stacks_dir)
		fs_sink_metaf(d->inner, "stall.stacks", "%ld processes registered signal %d for their Python stacks",
			      d->registered, d->o.stacks_signal);
	if (d->missing[0])
		fs_sink_meta(d->inner, "stall.missing", d->missing);
}

void fs_stall_free(struct fs_stall *d)
{
	if (!d)
		return;
	for (int i = 0; i < d->nprobes; i++)
		free(d->probes[i].stack);
	free(d->probes);
	free(d->procs);
	free(d->hooked);
	free(d);
}

void fs_stall_stacks_env(int signum, const char *dir, char *out, size_t cap)
{
	snprintf(out, cap, "%d:%s", signum, dir);
}
