#include "analysis/load/query.h"

#include <math.h>
#include <stdint.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A prepare error that means "this run file did not record it": a table
 * or a column that the file lacks (written by an older feedscope). A name
 * misspelt in the SQL reads the same; the golden fixtures
 * (tests/unit/test_metrics_golden.c) are what catch that. */
static bool not_recorded(const char *msg)
{
	return !strncmp(msg, "no such table: ", 15) || !strncmp(msg, "no such column: ", 16);
}

/* Count a failure of sql and keep the first one's message. */
static void q_fail(struct fs_q *q, const char *sql)
{
	if (q->errors++ > 0)
		return;
	const char *msg = q->db ? sqlite3_errmsg(q->db) : "no database";
	size_t n = sql ? strlen(sql) : 0;
	snprintf(q->failed, sizeof q->failed, "%s (in: %.60s%s)", msg, sql ? sql : "?", n > 60 ? "..." : "");
}

/* FEEDSCOPE_SQL_PROFILE=1: every statement the analysis runs, with the
 * time it took, on stderr (finding the slow query of a long run). */
static int q_profile(unsigned kind, void *ctx, void *p, void *x)
{
	(void)ctx;
	if (kind == SQLITE_TRACE_PROFILE) {
		char *sql = sqlite3_expanded_sql(p);
		fprintf(stderr, "sql %9.3f ms  %.300s\n", (double)*(sqlite3_int64 *)x / 1e6, sql ? sql : "?");
		sqlite3_free(sql);
	}
	return 0;
}

static void q_trace(sqlite3 *db)
{
	const char *e = getenv("FEEDSCOPE_SQL_PROFILE");
	if (db && e && *e && strcmp(e, "0"))
		sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, q_profile, NULL);
}

int fs_q_open(struct fs_q *q, const char *path, char *err, size_t errlen)
{
	q->w0 = -INFINITY;
	q->w1 = INFINITY;
	q->trainer = 0;
	q->errors = 0;
	q->failed[0] = '\0';
	q->borrowed = false;
	q->rowids = -1;
	q->nrows = 0;
	q->tier = -1;
	if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, q->db ? sqlite3_errmsg(q->db) : "cannot open");
		sqlite3_close(q->db);
		q->db = NULL;
		return -1;
	}
	sqlite3_busy_timeout(q->db, FS_Q_BUSY_MS);
	q_trace(q->db);
	double n;
	bool got = fs_q_row(q, "SELECT count(*) FROM meta", 1, &n);
	if (fs_q_failed(q))
		snprintf(err, errlen, "%s: %s", path, fs_q_failed(q));
	else if (!got || !(n > 0))
		snprintf(err, errlen, "%s: not a feedscope run file", path);
	if (fs_q_failed(q) || !got || !(n > 0)) {
		fs_q_close(q);
		return -1;
	}
	return 0;
}

void fs_q_close(struct fs_q *q)
{
	if (!q->borrowed)
		sqlite3_close(q->db);
	q->db = NULL;
}

void fs_q_use(struct fs_q *q, sqlite3 *db)
{
	q->db = db;
	q->w0 = -INFINITY;
	q->w1 = INFINITY;
	q->trainer = 0;
	q->errors = 0;
	q->failed[0] = '\0';
	q->borrowed = true;
	q->rowids = -1;
	q->nrows = 0;
	q->tier = -1;
}

static enum fs_q_resolution resolution = FS_Q_RES_AUTO;

void fs_q_set_resolution(enum fs_q_resolution r)
{
	resolution = r;
}

enum fs_q_resolution fs_q_get_resolution(void)
{
	return resolution;
}

/* The first row's first n columns of one statement over ?1, ?2 into v
 * (NaN for NULL), without recording a failure: false for a file without
 * the table, or no row. */
static bool quiet_row(sqlite3 *db, const char *sql, double w0, double w1, int n, double *v)
{
	sqlite3_stmt *st;
	bool got = false;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_double(st, 1, w0);
		sqlite3_bind_double(st, 2, w1);
		if ((got = sqlite3_step(st) == SQLITE_ROW))
			for (int i = 0; i < n; i++)
				v[i] = sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
	}
	sqlite3_finalize(st);
	return got;
}

/* A count (-1: the file has no such table). */
static double quiet_count(sqlite3 *db, const char *sql, double w0, double w1)
{
	double v;
	return quiet_row(db, sql, w0, w1, 1, &v) ? v : -1;
}

bool fs_q_minute_rows(struct fs_q *q, const char *tbl, double t_from, double t_to, long long *lo, long long *hi)
{
	sqlite3_stmt *st = NULL;
	*lo = 1;
	*hi = 0;
	if (!q->db || sqlite3_prepare_v2(q->db, "SELECT min(first), max(last) FROM rowids_1m WHERE tbl = ?1 AND t >= ?2"
					 " AND t <= ?3", -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return false;
	}
	sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, t_from);
	sqlite3_bind_double(st, 3, t_to);
	bool got = false;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
		*lo = sqlite3_column_int64(st, 0);
		*hi = sqlite3_column_int64(st, 1);
		got = true;
	} else if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
		q_fail(q, "SELECT min(first), max(last) FROM rowids_1m");
	}
	sqlite3_finalize(st);
	return got;
}

bool fs_q_tier(struct fs_q *q)
{
	if (q->tier >= 0 && q->tier_w0 == q->w0 && q->tier_w1 == q->w1)
		return q->tier;
	bool tier = false;
	if (resolution != FS_Q_RES_RAW && q->db &&
	    quiet_count(q->db, "SELECT count(*) FROM (SELECT 1 FROM ticks_1m LIMIT 1)", 0, 0) > 0) {
		/* ticks has an index on t: counting the window's is cheap */
		char sql[128];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT 1 FROM ticks WHERE t BETWEEN ?1 AND ?2 LIMIT %d)",
			 FS_Q_TIER_TICKS + 1);
		tier = resolution == FS_Q_RES_MINUTE || quiet_count(q->db, sql, q->w0, q->w1) > FS_Q_TIER_TICKS;
		/* the window's whole minutes have fewer raw ticks than their
		 * per-minute rows stand for: the raw rows were let go there
		 * (store/retain.h), only the per-minute tables cover it */
		if (!tier && resolution == FS_Q_RES_AUTO) {
			double m[3] = {0, NAN, NAN}; /* samples folded, first and last minute */
			quiet_row(q->db, "SELECT total(n), min(t), max(t) FROM ticks_1m WHERE t - 60 >= ?1 AND t <= ?2", q->w0,
				  q->w1, 3, m);
			double folded = m[0], lo = m[1], hi = m[2];
			/* minute 0 also holds the ticks at t <= 0 */
			double raw = folded > 0 ? quiet_count(q->db, "SELECT count(*) FROM ticks WHERE t > ?1 AND t <= ?2",
							      lo <= 60 ? -INFINITY : lo - 60, hi)
						: 0;
			tier = folded > 0 && raw >= 0 && raw < folded;
		}
	}
	q->tier = tier;
	q->tier_w0 = q->w0;
	q->tier_w1 = q->w1;
	return tier;
}

/* The tables of the FS_Q_ROWS_* parameters (query.h), by (number - 20) / 2. */
static const char *const rows_table[] = {"cpu", "cpu_core", "psi", "mem", "disk", "net", "tcp", "nfs",
					 "proc", "cgroup", "gpu", "steps", "io_intervals", "io_classes", "ticks"};
#define ROWS_FIRST 20
#define ROWS_SLACK_S 60.0

static long long rows_lookup(struct fs_q *q, const char *sql, const char *tbl, double t, long long none)
{
	sqlite3_stmt *st;
	long long v = none;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK) {
		q_fail(q, sql);
		return none;
	}
	sqlite3_bind_text(st, 1, tbl, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 2, t);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		v = sqlite3_column_int64(st, 0);
	else if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		q_fail(q, sql);
	sqlite3_finalize(st);
	return v;
}

/* The rowid bounds of table param's rows for q's window. */
static void rows_bounds(struct fs_q *q, int param, long long *lo, long long *hi)
{
	*lo = INT64_MIN;
	*hi = INT64_MAX;
	if (q->rowids < 0) {
		sqlite3_stmt *st;
		q->rowids = sqlite3_prepare_v2(q->db, "SELECT 1 FROM rowids_1m", -1, &st, NULL) == SQLITE_OK;
		sqlite3_finalize(st);
	}
	if (!q->rowids || (isinf(q->w0) && isinf(q->w1)))
		return;
	for (int i = 0; i < q->nrows; i++) {
		const struct fs_q_rows *c = &q->rows[i];
		if (c->param == param && c->w0 == q->w0 && c->w1 == q->w1) {
			*lo = c->lo;
			*hi = c->hi;
			return;
		}
	}
	const char *tbl = rows_table[(param - ROWS_FIRST) / 2];
	/* rows of t >= w0 were all given their rowid in a minute ending at or
	 * after w0; those of t <= w1 by the end of the minute after it (the
	 * slack). A window past the last minute written reaches the rows
	 * being written now: no upper bound. */
	if (!isinf(q->w0)) {
		*lo = rows_lookup(q, "SELECT min(first) FROM rowids_1m WHERE tbl = ?1 AND t >= ?2", tbl, q->w0, INT64_MAX);
		if (*lo == INT64_MAX) /* nothing written since w0 yet: what comes next */
			*lo = rows_lookup(q, "SELECT max(last) + 1 FROM rowids_1m WHERE tbl = ?1 AND t >= ?2", tbl,
					  -INFINITY, INT64_MIN);
	}
	if (!isinf(q->w1) &&
	    rows_lookup(q, "SELECT 1 FROM rowids_1m WHERE tbl = ?1 AND t > ?2 LIMIT 1", tbl,
			q->w1 + 2 * ROWS_SLACK_S, 0))
		*hi = rows_lookup(q, "SELECT max(last) FROM rowids_1m WHERE tbl = ?1 AND t <= ?2", tbl,
				  q->w1 + 2 * ROWS_SLACK_S, INT64_MIN);
	struct fs_q_rows *c = &q->rows[q->nrows < 8 ? q->nrows++ : (param / 2) % 8];
	*c = (struct fs_q_rows){param, q->w0, q->w1, *lo, *hi};
}

sqlite3_stmt *fs_q_prep(struct fs_q *q, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK) {
		if (!not_recorded(sqlite3_errmsg(q->db)))
			q_fail(q, sql);
		sqlite3_finalize(st);
		return NULL;
	}
	int n = sqlite3_bind_parameter_count(st);
	if (n >= 1)
		sqlite3_bind_double(st, 1, q->w0);
	if (n >= 2)
		sqlite3_bind_double(st, 2, q->w1);
	if (n >= 3)
		sqlite3_bind_int(st, 3, q->trainer);
	int last = ROWS_FIRST + 2 * (int)(sizeof rows_table / sizeof rows_table[0]);
	for (int p = ROWS_FIRST; p + 1 < last && p + 1 <= n; p += 2) {
		if (!sqlite3_bind_parameter_name(st, p))
			continue;
		long long lo, hi;
		rows_bounds(q, p, &lo, &hi);
		sqlite3_bind_int64(st, p, lo);
		sqlite3_bind_int64(st, p + 1, hi);
	}
	return st;
}

bool fs_q_has_table(struct fs_q *q, const char *name)
{
	char sql[160];
	snprintf(sql, sizeof sql, "SELECT 1 FROM %s LIMIT 0", name);
	sqlite3_stmt *st = fs_q_prep(q, sql);
	sqlite3_finalize(st);
	return st != NULL;
}

bool fs_q_step(struct fs_q *q, sqlite3_stmt *st)
{
	if (!st)
		return false;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		return true;
	if (rc != SQLITE_DONE)
		q_fail(q, sqlite3_sql(st));
	return false;
}

const char *fs_q_failed(const struct fs_q *q)
{
	return q->errors > 0 ? q->failed : NULL;
}

double fs_q_col(sqlite3_stmt *st, int i)
{
	double v = sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
	return isfinite(v) ? v : NAN; /* an infinity in a run file is not a measurement */
}

bool fs_q_row(struct fs_q *q, const char *sql, int n, ...)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	bool got = fs_q_step(q, st);
	va_list ap;
	va_start(ap, n);
	for (int i = 0; i < n; i++)
		*va_arg(ap, double *) = got ? fs_q_col(st, i) : NAN;
	va_end(ap);
	sqlite3_finalize(st);
	return got;
}

void fs_q_text(struct fs_q *q, const char *sql, char *out, size_t cap)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	out[0] = '\0';
	if (fs_q_step(q, st) && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

void fs_q_meta(struct fs_q *q, const char *key, char *out, size_t cap)
{
	sqlite3_stmt *st = fs_q_prep(q, "SELECT value FROM meta WHERE key = ?1");
	out[0] = '\0';
	if (!st)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (fs_q_step(q, st) && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

double fs_q_meta_num(struct fs_q *q, const char *key)
{
	char v[64];
	fs_q_meta(q, key, v, sizeof v);
	char *end;
	double d = strtod(v, &end);
	return v[0] && end != v && isfinite(d) ? d : NAN; /* "inf", "nan": unknown */
}

const char *fs_q_col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? (const char *)t : "";
}
