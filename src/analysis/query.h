/* query.h - the read side of a run file, shared by the summary and the
 * metrics: open read-only, run a query (binding the time window as ?1, ?2
 * and the trainer pid as ?3 where the SQL uses them), read numbers. */
#ifndef FS_QUERY_H
#define FS_QUERY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

struct fs_q {
	sqlite3 *db;
	double w0, w1; /* the window, seconds; -inf/+inf when open */
	int trainer;   /* the pid running the loop (or the job's main pid) */
};

/* Open path read-only and check it is a run file (it has meta rows).
 * Returns 0, or -1 with a reason in err. Close with fs_q_close. */
int fs_q_open(struct fs_q *q, const char *path, char *err, size_t errlen);
void fs_q_close(struct fs_q *q);

/* A prepared statement with the bindings above, or NULL. Caller finalizes. */
sqlite3_stmt *fs_q_prep(struct fs_q *q, const char *sql);

/* Column i of the current row as text: "" for NULL (never a NULL pointer).
 * Valid until the statement steps again or is finalized. */
const char *fs_q_col_text(sqlite3_stmt *st, int i);

/* Column i as a double, NaN for NULL (and for an infinity). */
double fs_q_col(sqlite3_stmt *st, int i);

/* Run sql; store the first row's first n columns in the doubles given
 * (NaN when there is no row). Returns true if there was a row. */
bool fs_q_row(struct fs_q *q, const char *sql, int n, ...);

/* The first column of the first row as text into out[cap] ("" if none). */
void fs_q_text(struct fs_q *q, const char *sql, char *out, size_t cap);

/* A meta value, as text ("" if absent) or as a number (NaN if absent, not
 * a number, or not finite). */
void fs_q_meta(struct fs_q *q, const char *key, char *out, size_t cap);
double fs_q_meta_num(struct fs_q *q, const char *key);

#endif
