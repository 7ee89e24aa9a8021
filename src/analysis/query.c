#include "analysis/query.h"

#include <math.h>
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
	return st;
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
