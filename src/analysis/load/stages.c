/* stages.c - the DataLoader workers' time per stage (stages.h). */
#include "analysis/load/stages.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The loader whose rows are read: the one named where it has rows, else
 * all of them ("" into out). */
static void pick_loader(struct fs_q *q, const char *loader, char *out, size_t cap)
{
	out[0] = '\0';
	if (!loader || !loader[0])
		return;
	sqlite3_stmt *s = fs_q_prep(q, "SELECT count(*) FROM loader_stages WHERE t >= ?1 AND t - dt_s <= ?2 AND loader = ?4");
	if (!s)
		return;
	sqlite3_bind_text(s, 4, loader, -1, SQLITE_TRANSIENT);
	if (fs_q_step(q, s) && fs_q_col(s, 0) > 0)
		snprintf(out, cap, "%s", loader);
	sqlite3_finalize(s);
}

/* The transform's place in its pipeline: the I of "...[I]:NAME", else -1. */
static int transform_index(const char *name)
{
	const char *colon = strrchr(name, ':');
	if (!colon || colon == name || colon[-1] != ']')
		return -1;
	const char *open = colon - 1;
	while (open > name && open[-1] != '[')
		open--;
	if (open == name)
		return -1;
	char *end;
	long i = strtol(open, &end, 10);
	return end == colon - 1 && i >= 0 && i < 100000 ? (int)i : -1;
}

/* One row of the grouped query into st: the totals, or a stage. */
static void add_row(struct fs_stages *st, const char *kind, const char *name, long calls, double wall,
		    double cpu, int pids)
{
	if (!strcmp(kind, "worker")) {
		st->worker_s += wall;
		st->worker_cpu_s += cpu;
		st->workers = pids > st->workers ? pids : st->workers;
		return;
	}
	if (!strcmp(kind, "fetch")) {
		st->busy_s += wall;
		st->busy_cpu_s += cpu;
		st->batches += calls;
		return;
	}
	if (st->n >= FS_MAX_STAGES)
		return;
	struct fs_loader_stage *s = &st->s[st->n++];
	memset(s, 0, sizeof *s);
	snprintf(s->name, sizeof s->name, "%s", name);
	snprintf(s->kind, sizeof s->kind, "%s", kind);
	s->index = strcmp(kind, "transform") ? -1 : transform_index(name);
	s->calls = calls;
	s->seconds = s->self_s = wall;
	s->cpu_s = s->self_cpu_s = cpu;
	s->io_s = NAN;
}

static int by_self(const void *a, const void *b)
{
	double d = ((const struct fs_loader_stage *)b)->self_s - ((const struct fs_loader_stage *)a)->self_s;
	return d < 0 ? -1 : d > 0;
}

/* Exclusive times (a getitem less its transforms) and the shares. */
static void finish(struct fs_stages *st)
{
	double tw = 0, tc = 0;
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->s[i].kind, "transform")) {
			tw += st->s[i].seconds;
			tc += st->s[i].cpu_s;
		}
	for (int i = 0; i < st->n; i++) {
		struct fs_loader_stage *s = &st->s[i];
		if (!strcmp(s->kind, "getitem")) {
			s->self_s = fmax(0, s->seconds - tw);
			s->self_cpu_s = fmax(0, s->cpu_s - tc);
		}
		s->share = st->worker_s > 0 ? s->seconds / st->worker_s : NAN;
		s->self_share = st->worker_s > 0 ? s->self_s / st->worker_s : NAN;
		s->busy_share = st->busy_s > 0 ? s->seconds / st->busy_s : NAN;
		s->self_busy_share = st->busy_s > 0 ? s->self_s / st->busy_s : NAN;
	}
	qsort(st->s, (size_t)st->n, sizeof st->s[0], by_self);
}

/* The getitem's I/O: its workers' main threads in file and socket calls. */
static void load_io(struct fs_q *q, struct fs_stages *st)
{
	struct fs_loader_stage *g = (struct fs_loader_stage *)fs_stages_getitem(st);
	if (!g)
		return;
	sqlite3_stmt *s = fs_q_prep(q, "SELECT sum(read_s + write_s + meta_s), count(*) FROM io_classes"
				       " WHERE t BETWEEN ?1 AND ?2 AND " FS_Q_ROWS_IO_CLASSES("") " AND thread = 'main'"
				       " AND class IN ('file', 'socket') AND pid IN (SELECT DISTINCT pid FROM loader_stages"
				       " WHERE t >= ?1 AND t - dt_s <= ?2 AND (?4 = '' OR loader = ?4))");
	if (!s)
		return;
	sqlite3_bind_text(s, 4, st->loader, -1, SQLITE_TRANSIENT);
	if (fs_q_step(q, s))
		g->io_s = fs_q_col(s, 1) > 0 ? fmin(fs_q_col(s, 0), g->self_s) : 0;
	sqlite3_finalize(s);
	/* a run file whose tracer recorded nothing at all: not traced */
	if (g->io_s == 0 && !fs_q_row(q, "SELECT 1 FROM io_classes LIMIT 1", 0))
		g->io_s = NAN;
}

void fs_m_load_stages(struct fs_q *q, const char *loader, struct fs_stages *st)
{
	memset(st, 0, sizeof *st);
	st->have_table = fs_q_has_table(q, "loader_stages");
	if (!st->have_table)
		return;
	pick_loader(q, loader, st->loader, sizeof st->loader);
	/* a row covers (t - dt_s, t]: the part inside the window counts, its
	 * figures spread evenly over it (a flush is about a second) */
	sqlite3_stmt *s = fs_q_prep(q, "SELECT kind, stage, sum(calls * f), sum(wall_s * f), sum(cpu_s * f), count(DISTINCT pid)"
				       " FROM (SELECT *, CASE WHEN dt_s > 0 THEN max(0, min(t, ?2) - max(t - dt_s, ?1)) / dt_s"
				       " ELSE (t BETWEEN ?1 AND ?2) END AS f FROM loader_stages"
				       " WHERE t >= ?1 AND t - dt_s <= ?2 AND (?4 = '' OR loader = ?4))"
				       " WHERE f > 0 GROUP BY kind, stage ORDER BY kind, stage");
	if (!s)
		return;
	sqlite3_bind_text(s, 4, st->loader, -1, SQLITE_TRANSIENT);
	while (fs_q_step(q, s))
		add_row(st, fs_q_col_text(s, 0), fs_q_col_text(s, 1), lround(fs_q_col(s, 2)), fs_q_col(s, 3),
			fs_q_col(s, 4), (int)fs_q_col(s, 5));
	sqlite3_finalize(s);
	st->timed = st->busy_s > 0 && st->n > 0;
	if (!st->timed)
		return;
	finish(st);
	load_io(q, st);
}

const struct fs_loader_stage *fs_stages_getitem(const struct fs_stages *st)
{
	for (int i = 0; i < st->n; i++)
		if (!strcmp(st->s[i].kind, "getitem"))
			return &st->s[i];
	return NULL;
}
