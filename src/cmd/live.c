/* live.c - the in-memory run file behind `watch` and `top` (live.h). */
#include "cmd/live.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/clock.h"
#include "util/log.h"
#include "util/parse.h"

static struct fs_live *live_of(struct fs_sink *sink)
{
	return (struct fs_live *)sink; /* the sink is its first member */
}

static void take_row(struct fs_sink *sink, const struct fs_row *r)
{
	fs_sink_row(live_of(sink)->mem_sink, r);
}

/* Meta too: which sources are unavailable, and why, is shown from it. */
static void take_meta(struct fs_sink *sink, const char *key, const char *value)
{
	fs_sink_meta(live_of(sink)->mem_sink, key, value);
}

/* Drop the sampled rows at or before t (the meta, the ranks and the other
 * tables written once per process or per run stay). */
static void forget(struct fs_live *l, double t)
{
	sqlite3 *db = fs_store_db(l->mem);
	for (int i = 0; i < FS_T__COUNT; i++) {
		if (!fs_tables[i].sampled)
			continue;
		char sql[128];
		snprintf(sql, sizeof sql, "DELETE FROM %s WHERE t <= ?1", fs_tables[i].name);
		sqlite3_stmt *st = NULL;
		if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
			sqlite3_bind_double(st, 1, t);
			sqlite3_step(st);
		}
		sqlite3_finalize(st);
	}
}

static void tick_end(struct fs_sink *sink, double t)
{
	struct fs_live *l = live_of(sink);
	l->show(l, t);
	forget(l, t - l->keep_s);
	l->mem_sink->tick_end(l->mem_sink, t); /* commits now and then */
}

int fs_live_open(struct fs_live *l, const char *cmd, double keep_s, fs_live_show_fn show)
{
	*l = (struct fs_live){.sink = {.row = take_row, .meta = take_meta, .tick_end = tick_end},
			      .cmd = cmd,
			      .keep_s = keep_s,
			      .show = show};
	char err[256];
	l->mem = fs_store_create_memory(err, sizeof err);
	if (!l->mem) {
		fs_error("%s: %s", cmd, err);
		return -1;
	}
	l->mem_sink = fs_store_sink(l->mem);
	return 0;
}

void fs_live_close(struct fs_live *l)
{
	if (l->mem)
		fs_store_close(l->mem);
	l->mem = NULL;
}

void fs_live_query(struct fs_live *l, struct fs_q *q, double w0, double w1)
{
	fs_q_use(q, fs_store_db(l->mem));
	q->w0 = w0;
	q->w1 = w1;
}

void fs_live_query_done(struct fs_live *l, struct fs_q *q)
{
	if (fs_q_failed(q) && !l->read_failed) {
		l->read_failed = true;
		fs_error("%s: reading the tick back failed: %s (figures shown as -)", l->cmd, fs_q_failed(q));
	}
	fs_q_close(q);
}

struct fs_recorder *fs_live_recorder(struct fs_live *l, const struct fs_paths *paths, struct fs_job *job, int pid,
				     bool no_gpu)
{
	*job = (struct fs_job){.root = pid};
	/* Without a pid there is no job: don't open the job source at all. */
	struct fs_recorder_opts ro = {.no_gpu = no_gpu, .only = pid ? NULL : "cpu,psi,mem,disk,net,gpu"};
	if (fs_loop_block_signals() < 0) {
		fs_error("%s: cannot block signals: %s", l->cmd, strerror(errno));
		return NULL;
	}
	return fs_recorder_open(paths, &l->sink, pid ? job : NULL, &ro, 0);
}

static void tick(void *rec, double t, uint64_t missed)
{
	fs_recorder_sample(rec, t, missed);
}

int fs_live_run(struct fs_recorder *rec, double interval, int count, int pid, const struct fs_loop_input *input,
		struct fs_loop_result *res)
{
	uint64_t start = fs_now_ns();
	fs_recorder_sample(rec, 0, 0);
	struct fs_loop_opts lo = {.interval_s = interval,
				  .max_ticks = (uint64_t)count,
				  .watched = pid,
				  .start_ns = start,
				  .input = input};
	return fs_loop_run(&lo, tick, rec, res);
}

int fs_live_parse_interval(const char *cmd, const char *arg, double *seconds)
{
	if (!fs_parse_seconds(arg, seconds) || *seconds < 0.001 || *seconds > 3600)
		return fs_usage_error("%s: bad interval '%s' (seconds, 0.001 to 3600)", cmd, arg);
	return 0;
}

int fs_live_parse_pid(const char *cmd, const char *arg, int *pid)
{
	if (!fs_parse_pos_int(arg, pid))
		return fs_usage_error("%s: bad PID '%s'", cmd, arg);
	if (kill(*pid, 0) < 0 && errno == ESRCH)
		return fs_usage_error("%s: no process %d", cmd, *pid);
	return 0;
}

/* x in width columns with p decimals and suffix (0: none), if it fits;
 * with a suffix, only where the number shown is not 0 (99999 is not "0M"). */
static bool fits(char *out, size_t cap, double x, int width, int p, char suffix)
{
	int n = suffix ? snprintf(out, cap, "%*.*f%c", width - 1, p, x, suffix)
		       : snprintf(out, cap, "%*.*f", width, p, x);
	return n >= 0 && n <= width && (!suffix || strtod(out, NULL) != 0);
}

char *fs_live_fit(char *out, size_t cap, double x, int width, int prec)
{
	static const char suffixes[] = "kMGT";
	if (cap == 0)
		return out;
	if (width < 1 || (size_t)width >= cap)
		width = (int)cap - 1;
	if (!isfinite(x)) {
		snprintf(out, cap, "%*s", width, "-");
		return out;
	}
	for (int p = prec; p >= 0; p--)
		if (fits(out, cap, x, width, p, 0))
			return out;
	double v = x;
	for (const char *s = suffixes; *s && width >= 2; s++) {
		v /= 1000;
		for (int p = prec; p >= 0; p--)
			if (fits(out, cap, v, width, p, *s))
				return out;
	}
	memset(out, '#', (size_t)width);
	out[width] = '\0';
	return out;
}

char *fs_live_cut(char *s, int width)
{
	int chars = 0;
	size_t last = 0; /* where character number width - 1 (from 0) starts */
	for (size_t i = 0; s[i]; i++) {
		if (((unsigned char)s[i] & 0xC0) == 0x80)
			continue; /* inside a UTF-8 sequence */
		if (chars == width - 1)
			last = i;
		if (++chars > width) {
			s[last] = '~';
			s[last + 1] = '\0';
			break;
		}
	}
	if (width <= 0)
		s[0] = '\0';
	return s;
}
