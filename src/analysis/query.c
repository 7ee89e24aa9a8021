#include "analysis/query.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fs_q_open(struct fs_q *q, const char *path, char *err, size_t errlen)
{
	q->w0 = -INFINITY;
	q->w1 = INFINITY;
	q->trainer = 0;
	if (sqlite3_open_v2(path, &q->db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, q->db ? sqlite3_errmsg(q->db) : "cannot open");
		sqlite3_close(q->db);
		q->db = NULL;
		return -1;
	}
	double n;
	if (!fs_q_row(q, "SELECT count(*) FROM meta", 1, &n) || !(n > 0)) {
		snprintf(err, errlen, "%s: not a feedscope run file", path);
		fs_q_close(q);
		return -1;
	}
	return 0;
}

void fs_q_close(struct fs_q *q)
{
	sqlite3_close(q->db);
	q->db = NULL;
}

sqlite3_stmt *fs_q_prep(struct fs_q *q, const char *sql)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(q->db, sql, -1, &st, NULL) != SQLITE_OK)
		return NULL;
	int n = sqlite3_bind_parameter_count(st);
	if (n >= 1)
		sqlite3_bind_double(st, 1, q->w0);
	if (n >= 2)
		sqlite3_bind_double(st, 2, q->w1);
	if (n >= 3)
		sqlite3_bind_int(st, 3, q->trainer);
	return st;
}

double fs_q_col(sqlite3_stmt *st, int i)
{
	double v = sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
	return isfinite(v) ? v : NAN; /* an infinity in a run file is not a measurement */
}

bool fs_q_row(struct fs_q *q, const char *sql, int n, ...)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	bool got = st && sqlite3_step(st) == SQLITE_ROW;
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
	if (st && sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		snprintf(out, cap, "%s", (const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
}

void fs_q_meta(struct fs_q *q, const char *key, char *out, size_t cap)
{
	sqlite3_stmt *st;
	out[0] = '\0';
	if (sqlite3_prepare_v2(q->db, "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) != SQLITE_OK)
		return;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
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
