/* query.h - the read side of a run file, shared by the summary and the
 * metrics: open read-only, run a query (binding the time window as ?1, ?2
 * and the trainer pid as ?3 where the SQL uses them), read numbers.
 *
 * "Not recorded" and "failed" are kept apart. A query that names a table
 * or a column this run file lacks (written by an older feedscope: SQLite's
 * "no such table: X", "no such column: X" at prepare) is not recorded: no
 * row, NaN, and nothing else. Every other failure, at prepare or at step
 * (a corrupt page, not a database, out of memory, an I/O error, a syntax
 * error, busy past the timeout), is
 * counted in the struct fs_q and the first one kept with the start of its
 * SQL: a reader checks fs_q_failed() before it trusts what it read. */
#ifndef FS_QUERY_H
#define FS_QUERY_H

#include <sqlite3.h>
#include <stdbool.h>
#include <stddef.h>

struct fs_q_rows {
	int param;     /* the lower bound's parameter number */
	double w0, w1; /* the window they are for */
	long long lo, hi;
};

struct fs_q {
	sqlite3 *db;
	double w0, w1; /* the window, seconds; -inf/+inf when open */
	int trainer;   /* the pid running the loop (or the job's main pid) */
	long errors;   /* queries that failed (not "not recorded") */
	char failed[256]; /* the first of them: "MSG (in: SQL...)" */
	bool borrowed;    /* db is the caller's (fs_q_use) */
	int rowids;       /* the file has rowids_1m: 1, 0, or -1 not known yet */
	struct fs_q_rows rows[8]; /* the latest bounds looked up (a small cache) */
	int nrows;
	int tier;          /* fs_q_tier's answer for tier_w0..tier_w1: 1, 0, or -1 not known */
	double tier_w0, tier_w1;
};

/* Which rows the analysis reads (`report --resolution`): the raw rows, the
 * per-minute tables (docs/schema.md, "Per-minute tables"), or, by default,
 * the per-minute tables when the window holds more than FS_Q_TIER_TICKS
 * ticks and the file has them (a long run: its raw rows cost seconds a
 * day), else the raw rows. */
enum fs_q_resolution { FS_Q_RES_AUTO, FS_Q_RES_RAW, FS_Q_RES_MINUTE };

/* An hour of ticks at the default 0.1 s: a report over it reads 0.9 M raw
 * rows of a 5-process job in about 1.7 s here (make bench). */
#define FS_Q_TIER_TICKS 36000

/* The process-wide choice (default FS_Q_RES_AUTO); set once, by the
 * command, before anything is read. */
void fs_q_set_resolution(enum fs_q_resolution r);
enum fs_q_resolution fs_q_get_resolution(void);

/* Whether q's window is read from the per-minute tables: as the resolution
 * says; for FS_Q_RES_MINUTE, only where the file has them (ticks_1m with a
 * row: schema 6, a minute recorded). Decided once per window. */
bool fs_q_tier(struct fs_q *q);

/* The window's condition on a per-minute table (its t the end of a
 * minute): the minutes that overlap ?1..?2. */
#define FS_Q_TIER_WINDOW(a) a "t > ?1 AND " a "t - 60 < ?2"

/* A mean over per-minute rows: each weighs by the raw samples it stands
 * for (n); NULL rows left out, as avg() leaves them out of the raw ones. */
#define FS_Q_TAVG(x) "sum((" x ") * n) / nullif(sum(CASE WHEN (" x ") IS NOT NULL THEN n END), 0)"

/* The rowids table tbl's rows were given from the minute that ends at
 * t_from to the one that ends at t_to (rowids_1m); false when the file has
 * no such minutes (or no rowids_1m). For reading a few raw rows (a step 0,
 * a phase's samples) inside a span otherwise read per minute. */
bool fs_q_minute_rows(struct fs_q *q, const char *tbl, double t_from, double t_to, long long *lo, long long *hi);

/* A window's rows of a sampled table by rowid (a range of the table's
 * b-tree) rather than by t (no index: a scan of the whole table), from the
 * rowid spans the store writes each minute (rowids_1m, docs/schema.md):
 * FS_Q_ROWS_PROC("p.") is "p.rowid BETWEEN ?36 AND ?37", bound by
 * fs_q_prep to the rowids of the minutes that can hold the window's rows
 * (one minute of slack after it: a step's record reaches the recorder
 * after its t). A file without rowids_1m, or an open window, binds the
 * whole range. The SQL keeps its t BETWEEN ?1 AND ?2 too: the range only
 * narrows what is read. */
#define FS_Q_ROWS_CPU(a) a "rowid BETWEEN ?20 AND ?21"
#define FS_Q_ROWS_CPU_CORE(a) a "rowid BETWEEN ?22 AND ?23"
#define FS_Q_ROWS_PSI(a) a "rowid BETWEEN ?24 AND ?25"
#define FS_Q_ROWS_MEM(a) a "rowid BETWEEN ?26 AND ?27"
#define FS_Q_ROWS_DISK(a) a "rowid BETWEEN ?28 AND ?29"
#define FS_Q_ROWS_NET(a) a "rowid BETWEEN ?30 AND ?31"
#define FS_Q_ROWS_TCP(a) a "rowid BETWEEN ?32 AND ?33"
#define FS_Q_ROWS_NFS(a) a "rowid BETWEEN ?34 AND ?35"
#define FS_Q_ROWS_PROC(a) a "rowid BETWEEN ?36 AND ?37"
#define FS_Q_ROWS_CGROUP(a) a "rowid BETWEEN ?38 AND ?39"
#define FS_Q_ROWS_GPU(a) a "rowid BETWEEN ?40 AND ?41"
#define FS_Q_ROWS_STEPS(a) a "rowid BETWEEN ?42 AND ?43"
#define FS_Q_ROWS_IO_INTERVALS(a) a "rowid BETWEEN ?44 AND ?45"
#define FS_Q_ROWS_IO_CLASSES(a) a "rowid BETWEEN ?46 AND ?47"
#define FS_Q_ROWS_TICKS(a) a "rowid BETWEEN ?48 AND ?49"

/* How long a query waits for the recorder's lock (a run file is read while
 * it is written, WAL mode; the recorder folds the WAL back at its close)
 * before it fails with SQLITE_BUSY. */
#define FS_Q_BUSY_MS 5000

/* Open path read-only and check it is a run file (it has meta rows); the
 * error count starts at 0. Returns 0, or -1 with a reason in err ("PATH:
 * not a feedscope run file", or "PATH: " and SQLite's message when it
 * cannot be read). Close with fs_q_close (also after -1: harmless). */
int fs_q_open(struct fs_q *q, const char *path, char *err, size_t errlen);
void fs_q_close(struct fs_q *q);

/* Read db (open, the caller's: an in-memory run file) through q, window
 * open, no error yet; fs_q_close then forgets it without closing it. */
void fs_q_use(struct fs_q *q, sqlite3 *db);

/* A prepared statement with the bindings above, or NULL: not recorded (a
 * table or column the run file lacks), or failed (recorded in q). Caller
 * finalizes (sqlite3_finalize(NULL) is harmless). */
sqlite3_stmt *fs_q_prep(struct fs_q *q, const char *sql);

/* Whether the run file has the table name (a table of a later schema; a
 * failure other than "not recorded" is recorded in q). */
bool fs_q_has_table(struct fs_q *q, const char *name);

/* Step st (NULL: false). True when it gave a row; false at the end, and
 * false with the error recorded in q for anything but SQLITE_DONE. Loop
 * with `while (fs_q_step(q, st))`; after false, only finalize. */
bool fs_q_step(struct fs_q *q, sqlite3_stmt *st);

/* NULL when no query of q has failed; else the first failure's message
 * and the start of its SQL, owned by q (valid until fs_q_close). */
const char *fs_q_failed(const struct fs_q *q);

/* Column i of the current row as text: "" for NULL (never a NULL pointer).
 * Valid until the statement steps again or is finalized. */
const char *fs_q_col_text(sqlite3_stmt *st, int i);

/* Column i as a double, NaN for NULL (and for an infinity). */
double fs_q_col(sqlite3_stmt *st, int i);

/* Run sql; store the first row's first n columns in the doubles given
 * (NaN when there is no row, or the query failed: then recorded in q).
 * Returns true if there was a row. */
bool fs_q_row(struct fs_q *q, const char *sql, int n, ...);

/* The first column of the first row as text into out[cap] ("" if none;
 * a failure is recorded in q). */
void fs_q_text(struct fs_q *q, const char *sql, char *out, size_t cap);

/* A meta value, as text ("" if absent) or as a number (NaN if absent, not
 * a number, or not finite). A failed read is recorded in q. */
void fs_q_meta(struct fs_q *q, const char *key, char *out, size_t cap);
double fs_q_meta_num(struct fs_q *q, const char *key);

#endif
