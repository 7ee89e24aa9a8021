/* perfetto.c - a run file as Chrome trace-event JSON (see perfetto.h). */
#include "render/perfetto.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/load/query.h"
#include "util/json.h"

/* A writer: the JSON stream, the run file, and the next synthetic tid. */
struct tw {
	struct fs_json j;
	struct fs_q q;
	long next_tid;
};

/* Seconds since t = 0 as the format's microseconds, kept to the ns: the
 * recorder's clock has no finer grain, and shorter numbers keep the file small. */
static double us(double s)
{
	return round(s * 1e9) / 1e3;
}

/* meta start_unix ("S.FFFFFF", seconds) as integer ns, exactly: a double
 * has 16 digits and ns since the epoch need 19. False when absent or malformed. */
static bool unix_ns(const char *s, long long *ns)
{
	long long sec = 0, frac = 0;
	int digits = 0;
	const char *p = s;
	if (*p < '0' || *p > '9')
		return false;
	for (; *p >= '0' && *p <= '9'; p++)
		if ((sec = sec * 10 + (*p - '0')) > 9000000000LL)
			return false;
	if (*p == '.')
		for (p++; *p >= '0' && *p <= '9'; p++)
			if (digits < 9)
				frac = frac * 10 + (*p - '0'), digits++;
	if (*p)
		return false;
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000LL + frac;
	return true;
}

/* {"ph":"M","name":WHAT,"pid":P,"tid":T,"args":{KEY:...}}: a track's name or sort order. */
static void meta_name(struct tw *w, const char *what, long pid, long tid, const char *name)
{
	fs_json_object(&w->j, NULL);
	fs_json_string(&w->j, "ph", "M");
	fs_json_string(&w->j, "name", what);
	fs_json_int(&w->j, "pid", pid);
	fs_json_int(&w->j, "tid", tid);
	fs_json_int(&w->j, "ts", 0); /* not needed by the format, but some readers want every event to have one */
	fs_json_object(&w->j, "args");
	fs_json_string(&w->j, "name", name);
	fs_json_end(&w->j);
	fs_json_end(&w->j);
}

static void meta_sort(struct tw *w, const char *what, long pid, long tid, long index)
{
	fs_json_object(&w->j, NULL);
	fs_json_string(&w->j, "ph", "M");
	fs_json_string(&w->j, "name", what);
	fs_json_int(&w->j, "pid", pid);
	fs_json_int(&w->j, "tid", tid);
	fs_json_int(&w->j, "ts", 0);
	fs_json_object(&w->j, "args");
	fs_json_int(&w->j, "sort_index", index);
	fs_json_end(&w->j);
	fs_json_end(&w->j);
}

/* The start of an X slice; the caller may add "args", then ends the object. */
static void slice(struct tw *w, const char *name, const char *cat, long pid, long tid, double t0, double dur)
{
	fs_json_object(&w->j, NULL);
	fs_json_string(&w->j, "ph", "X");
	fs_json_string(&w->j, "name", name);
	fs_json_string(&w->j, "cat", cat);
	fs_json_int(&w->j, "pid", pid);
	fs_json_int(&w->j, "tid", tid);
	fs_json_number(&w->j, "ts", us(t0));
	fs_json_number(&w->j, "dur", us(dur));
}

/* A new synthetic thread in pid, named (and sorted after the real ones). */
static long new_track(struct tw *w, long pid, const char *label, const char *name)
{
	char title[512];
	long tid = w->next_tid++;
	snprintf(title, sizeof title, "%s%s", label, name);
	meta_name(w, "thread_name", pid, tid, title);
	meta_sort(w, "thread_sort_index", pid, tid, tid - FS_PERFETTO_ID_BASE);
	return tid;
}

/* Every job process: named "comm (role)", with its rank when it has one
 * (its latest ranks row; a DataLoader worker inherits its rank's), the
 * main one first. A run file without a ranks table: names without ranks. */
static void processes(struct tw *w)
{
	sqlite3_stmt *st = fs_q_prep(&w->q, "SELECT p.pid, max(p.role), max(p.comm), (SELECT r.rank FROM ranks r "
					    "WHERE r.pid = p.pid ORDER BY r.t DESC LIMIT 1) FROM proc p GROUP BY p.pid ORDER BY p.pid");
	if (!st)
		st = fs_q_prep(&w->q, "SELECT pid, max(role), max(comm), NULL FROM proc GROUP BY pid ORDER BY pid");
	while (fs_q_step(&w->q, st)) {
		long pid = sqlite3_column_int64(st, 0);
		const char *role = fs_q_col_text(st, 1);
		char name[512], rank[32] = "";
		if (sqlite3_column_type(st, 3) != SQLITE_NULL)
			snprintf(rank, sizeof rank, ", rank %lld", (long long)sqlite3_column_int64(st, 3));
		snprintf(name, sizeof name, "%s (%s%s)", fs_q_col_text(st, 2), role, rank);
		meta_name(w, "process_name", pid, 0, name);
		meta_sort(w, "process_sort_index", pid, 0, strcmp(role, "main") ? 2 : 1);
	}
	sqlite3_finalize(st);
	meta_name(w, "process_name", FS_PERFETTO_ID_BASE, 0, "machine");
	meta_sort(w, "process_sort_index", FS_PERFETTO_ID_BASE, 0, 0);
}

/* Two slices a step: its wait for the batch (ending at t) and its compute
 * (from t); a thread per (pid, loader). An unknown (NULL) time has no slice. */
static void steps(struct tw *w)
{
	sqlite3_stmt *st = fs_q_prep(&w->q, "SELECT pid, loader, epoch, step, t, wait_s, compute_s FROM steps "
					    "WHERE t BETWEEN ?1 AND ?2 ORDER BY pid, loader, t");
	long pid = -1, tid = 0;
	char loader[256] = "";
	while (fs_q_step(&w->q, st)) {
		long p = sqlite3_column_int64(st, 0);
		const char *l = fs_q_col_text(st, 1);
		if (p != pid || strncmp(l, loader, sizeof loader - 1)) {
			pid = p;
			snprintf(loader, sizeof loader, "%s", l);
			tid = new_track(w, pid, "steps: ", loader);
		}
		double t = fs_q_col(st, 4), wait = fs_q_col(st, 5), compute = fs_q_col(st, 6);
		for (int k = 0; k < 2; k++) {
			double t0 = k ? t : t - wait, dur = k ? compute : wait;
			if (!(dur >= 0) || !isfinite(t0))
				continue;
			slice(w, k ? "compute" : "wait", "step", pid, tid, t0, dur);
			fs_json_object(&w->j, "args");
			fs_json_int(&w->j, "epoch", sqlite3_column_int64(st, 2));
			fs_json_int(&w->j, "step", sqlite3_column_int64(st, 3));
			fs_json_end(&w->j);
			fs_json_end(&w->j);
		}
	}
	sqlite3_finalize(st);
}

/* A slice per phase that overlaps the window, a thread per (pid, name):
 * phases of one name nest, those of different names need not. */
static void phases(struct tw *w)
{
	sqlite3_stmt *st = fs_q_prep(&w->q, "SELECT pid, name, t_start, t_end FROM phases "
					    "WHERE t_end >= ?1 AND t_start <= ?2 ORDER BY pid, name, t_start");
	long pid = -1, tid = 0;
	char name[256] = "";
	while (fs_q_step(&w->q, st)) {
		long p = sqlite3_column_int64(st, 0);
		const char *n = fs_q_col_text(st, 1);
		if (p != pid || strncmp(n, name, sizeof name - 1)) {
			pid = p;
			snprintf(name, sizeof name, "%s", n);
			tid = new_track(w, pid, "phase: ", name);
		}
		double t0 = fs_q_col(st, 2), t1 = fs_q_col(st, 3);
		if (!(t1 >= t0))
			continue;
		slice(w, n, "phase", pid, tid, t0, t1 - t0);
		fs_json_end(&w->j);
	}
	sqlite3_finalize(st);
}

/* --trace-ops: every recorded I/O call, on its own thread. */
static void ops(struct tw *w)
{
	sqlite3_stmt *st = fs_q_prep(&w->q, "SELECT pid, tid, op, t, duration_s, path, offset, length, result, layer "
					    "FROM ops WHERE t BETWEEN ?1 AND ?2 ORDER BY pid, tid, t");
	long pid = -1, tid = -1;
	while (fs_q_step(&w->q, st)) {
		long p = sqlite3_column_int64(st, 0), t = sqlite3_column_int64(st, 1);
		if (p != pid || t != tid) {
			char name[64];
			pid = p, tid = t;
			snprintf(name, sizeof name, t == p ? "main thread %ld" : "thread %ld", t);
			meta_name(w, "thread_name", pid, tid, name);
		}
		double t0 = fs_q_col(st, 3), dur = fs_q_col(st, 4);
		if (!isfinite(t0))
			continue;
		slice(w, fs_q_col_text(st, 2), "io", pid, tid, t0, dur >= 0 ? dur : 0);
		fs_json_object(&w->j, "args");
		fs_json_string(&w->j, "path", fs_q_col_text(st, 5));
		for (int c = 6; c <= 8; c++)
			if (sqlite3_column_type(st, c) != SQLITE_NULL)
				fs_json_int(&w->j, sqlite3_column_name(st, c), sqlite3_column_int64(st, c));
		fs_json_string(&w->j, "layer", fs_q_col_text(st, 9));
		fs_json_end(&w->j);
		fs_json_end(&w->j);
	}
	sqlite3_finalize(st);
}

/* A counter group: a query giving, per sample, the track's key, the start
 * of the interval the values cover (t - dt_s: a counter holds from its ts
 * to the next; the machine-wide tables' own dt_s, the GPU's its tick's),
 * and up to 3 values, which Perfetto names "NAME VALUE_NAME". */
#define NVAL 3
struct counter {
	const char *name; /* a printf format for the key ("disk %s") */
	const char *vals[NVAL];
	const char *src; /* columns k, s, v1..v3, within ?1..?2 */
};

#define DT "LEFT JOIN ticks k ON k.t = x.t WHERE x.t BETWEEN ?1 AND ?2"
#define OWN "WHERE x.t BETWEEN ?1 AND ?2"
static const struct counter counters[] = {
	{"CPU", {"user %", "system %", "iowait %"},
	 "SELECT '' AS k, x.t - coalesce(x.dt_s, 0) AS s, x.user_pct + coalesce(x.nice_pct, 0), x.system_pct, "
	 "x.iowait_pct FROM cpu x " OWN},
	{"PSI some", {"cpu %", "io %", "memory %"},
	 "SELECT '' AS k, x.t - coalesce(max(x.dt_s), 0) AS s, max(CASE x.resource WHEN 'cpu' THEN x.some_pct END), "
	 "max(CASE x.resource WHEN 'io' THEN x.some_pct END), max(CASE x.resource WHEN 'memory' THEN x.some_pct END) "
	 "FROM psi x " OWN " GROUP BY x.t"},
	{"disk %s", {"read MB/s", "write MB/s", NULL},
	 "SELECT x.device AS k, x.t - coalesce(x.dt_s, 0) AS s, x.read_bytes_per_s / 1e6, x.write_bytes_per_s / 1e6, "
	 "NULL FROM disk x " OWN},
	{"net %s", {"rx MB/s", "tx MB/s", NULL}, /* lo never leaves the machine: left out */
	 "SELECT x.iface AS k, x.t - coalesce(x.dt_s, 0) AS s, x.rx_bytes_per_s / 1e6, x.tx_bytes_per_s / 1e6, NULL "
	 "FROM net x " OWN " AND x.iface <> 'lo'"},
	{"GPU %s", {"busy %", NULL, NULL},
	 "SELECT CAST(x.gpu AS TEXT) AS k, x.t - coalesce(k.dt_s, 0) AS s, x.util_pct, NULL, NULL FROM gpu x " DT},
};
#undef DT
#undef OWN

/* The mean of each value over one bin of samples. */
struct bin {
	double s, sum[NVAL];
	int n[NVAL];
	bool open;
};

static void bin_flush(struct tw *w, const struct counter *c, const char *key, struct bin *b)
{
	bool any = false;
	for (int i = 0; i < NVAL; i++)
		any |= b->n[i] > 0;
	if (b->open && any) {
		char name[512];
		snprintf(name, sizeof name, c->name, key);
		fs_json_object(&w->j, NULL);
		fs_json_string(&w->j, "ph", "C");
		fs_json_string(&w->j, "name", name);
		fs_json_int(&w->j, "pid", FS_PERFETTO_ID_BASE);
		fs_json_int(&w->j, "tid", FS_PERFETTO_ID_BASE);
		fs_json_number(&w->j, "ts", us(b->s));
		fs_json_object(&w->j, "args");
		/* a value with no sample in the bin is left out: Perfetto refuses null */
		for (int i = 0; i < NVAL; i++)
			if (c->vals[i] && b->n[i] > 0)
				fs_json_number(&w->j, c->vals[i], b->sum[i] / b->n[i]);
		fs_json_end(&w->j);
		fs_json_end(&w->j);
	}
	memset(b, 0, sizeof *b);
}

/* One key's samples, ORDER BY s; binned when there are more than the cap. */
struct track {
	char key[256];
	double s0, width; /* width 0: a point per sample */
};

static void counter_rows(struct tw *w, const struct counter *c, struct track *tr, int ntr)
{
	char sql[1024];
	snprintf(sql, sizeof sql, "SELECT * FROM (%s) ORDER BY k, s", c->src);
	sqlite3_stmt *st = fs_q_prep(&w->q, sql);
	struct bin b = {0};
	int at = -1;
	long idx = -1;
	while (fs_q_step(&w->q, st)) {
		const char *key = fs_q_col_text(st, 0);
		double s = fs_q_col(st, 1);
		if (at < 0 || strncmp(key, tr[at].key, sizeof tr[at].key - 1)) {
			bin_flush(w, c, at >= 0 ? tr[at].key : "", &b);
			for (at++; at < ntr && strncmp(key, tr[at].key, sizeof tr[at].key - 1); at++)
				;
			if (at >= ntr)
				break; /* cannot happen: both queries see the same rows */
			idx = -1;
		}
		if (!isfinite(s))
			continue;
		long i = tr[at].width > 0 ? (long)((s - tr[at].s0) / tr[at].width) : idx + 1;
		if (i > FS_PERFETTO_MAX_POINTS - 1 && tr[at].width > 0)
			i = FS_PERFETTO_MAX_POINTS - 1;
		if (i != idx) {
			bin_flush(w, c, tr[at].key, &b);
			b.open = true;
			b.s = s;
			idx = i;
		}
		for (int v = 0; v < NVAL; v++) {
			double x = fs_q_col(st, 2 + v);
			if (isfinite(x))
				b.sum[v] += x, b.n[v]++;
		}
	}
	if (at >= 0 && at < ntr)
		bin_flush(w, c, tr[at].key, &b);
	sqlite3_finalize(st);
}

/* Each key's sample count and span first, to size its bins. */
static void counter_group(struct tw *w, const struct counter *c)
{
	char sql[1024];
	snprintf(sql, sizeof sql, "SELECT k, count(*), min(s), max(s) FROM (%s) GROUP BY k ORDER BY k", c->src);
	sqlite3_stmt *st = fs_q_prep(&w->q, sql);
	struct track *tr = NULL;
	int ntr = 0, cap = 0;
	while (fs_q_step(&w->q, st)) {
		if (ntr == cap) {
			struct track *more = realloc(tr, (size_t)(cap = cap ? 2 * cap : 8) * sizeof *tr);
			if (!more)
				break;
			tr = more;
		}
		struct track *t = &tr[ntr++];
		snprintf(t->key, sizeof t->key, "%s", fs_q_col_text(st, 0));
		double n = fs_q_col(st, 1), s0 = fs_q_col(st, 2), s1 = fs_q_col(st, 3);
		t->s0 = s0;
		t->width = n > FS_PERFETTO_MAX_POINTS && s1 > s0 ? (s1 - s0) / (FS_PERFETTO_MAX_POINTS - 1) : 0;
	}
	sqlite3_finalize(st);
	if (ntr > 0)
		counter_rows(w, c, tr, ntr);
	free(tr);
}

/* Top level: the clock anchor and display unit before the events (kineto
 * puts them there too, so a streaming reader sees them first). */
static void header(struct tw *w)
{
	char start[64], text[512];
	long long ns;
	fs_json_object(&w->j, NULL);
	fs_json_string(&w->j, "displayTimeUnit", "ms");
	fs_q_meta(&w->q, "start_unix", start, sizeof start);
	if (unix_ns(start, &ns))
		fs_json_int(&w->j, "baseTimeNanoseconds", ns);
	fs_json_object(&w->j, "otherData");
	fs_json_string(&w->j, "generator", "feedscope " FS_VERSION);
	static const char *const keys[] = {"hostname", "command", "start_unix", "duration_s", "interval_s"};
	for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
		fs_q_meta(&w->q, keys[i], text, sizeof text);
		if (text[0])
			fs_json_string(&w->j, keys[i], text);
	}
	fs_json_end(&w->j);
}

int fs_perfetto_write(FILE *out, const char *path, const struct fs_window *win, char *err, size_t errlen)
{
	struct tw w = {.next_tid = FS_PERFETTO_ID_BASE + 1};
	if (fs_q_open(&w.q, path, err, errlen) < 0)
		return -1;
	if (win)
		w.q.w0 = win->start_s, w.q.w1 = win->end_s;
	fs_json_init(&w.j, out);
	header(&w);
	fs_json_array(&w.j, "traceEvents");
	processes(&w);
	steps(&w);
	phases(&w);
	ops(&w);
	for (size_t i = 0; i < sizeof counters / sizeof counters[0]; i++)
		counter_group(&w, &counters[i]);
	fs_json_end(&w.j);
	fs_json_end(&w.j);
	int rc = 0;
	if (fs_q_failed(&w.q)) {
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&w.q));
		rc = -1;
	}
	fs_q_close(&w.q);
	return rc;
}
