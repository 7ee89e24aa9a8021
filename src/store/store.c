#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/retain.h"
#include "store/rollup.h"
#include "store/rowq.h"
#include "store/runfile.h"
#include "store/schema.h"
#include "store/series.h"
#include "util/clock.h"
#include "util/log.h"
#include "util/pathhash.h"

struct fs_store {
	struct fs_sink sink; /* first: the sink callbacks get it back */
	sqlite3 *db;
	sqlite3_stmt *insert[FS_T__COUNT];
	sqlite3_stmt *meta;
	sqlite3_stmt *begin, *commit; /* prepared once: a second's BEGIN and COMMIT parse nothing */
	bool in_txn;
	uint64_t last_commit_ns;
	uint64_t rows, errors;
	bool said_error;
	bool hash_paths;        /* meta values: words holding a '/' hashed */
	struct fs_runfile file; /* where it is on disk */
	bool memory;            /* fs_store_create_memory: no file at all */
	struct fs_rollup *rollup;                 /* the per-minute tables (files only) */
	sqlite3_stmt *tier_insert[FS_RT__COUNT];
	struct fs_series *series; /* series_1s (files only) */
	sqlite3_stmt *series_insert;
	/* rowids_1m: the rowids each sampled table was given in the minute
	 * of the recorder's clock (the latest tick's t) */
	struct { int64_t first, last; } span[FS_T__COUNT];
	long span_minute; /* -1 before the first tick */
	sqlite3_stmt *span_insert;
	/* the raw rows outside the kept windows are deleted (retain.h);
	 * NULL: every row is kept (--keep-all, or no per-minute tables) */
	struct fs_retain *keep;
	sqlite3_stmt *spans_of;
	sqlite3_stmt *del[FS_T__COUNT];
	uint64_t deleted;
	/* a file's rows, held until the next commit (rowq.h); an in-memory
	 * store (watch, top) is read between commits: it inserts at once */
	struct fs_rowq held;
	bool hold;
};

static int exec(sqlite3 *db, const char *sql, char *err, size_t errlen)
{
	char *msg = NULL;
	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

/* Fold the WAL back into the file and leave WAL mode, so the run file is
 * one file. Leaving WAL mode needs the file to ourselves: a reader with it
 * open (`feedscope exporter` serving the recording, which opens it for a
 * moment each second) makes SQLite answer "database is locked" at once,
 * busy timeout or not; so tried again every 20 ms for up to FOLD_WAIT_MS.
 * Returns 0, or -1 with SQLite's reason. */
#define FOLD_WAIT_MS 5000
static int fold_wal(sqlite3 *db, char *err, size_t errlen)
{
	for (int waited = 0;; waited += 20) {
		if (exec(db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", err, errlen) == 0)
			return 0;
		if (sqlite3_errcode(db) != SQLITE_BUSY && sqlite3_errcode(db) != SQLITE_LOCKED)
			return -1;
		if (waited >= FOLD_WAIT_MS)
			return -1;
		nanosleep(&(struct timespec){0, 20 * 1000000L}, NULL);
	}
}

static int create_tables(sqlite3 *db, char *err, size_t errlen)
{
	char sql[4096];
	if (exec(db, "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT)", err, errlen) < 0)
		return -1;
	for (int t = 0; t < FS_T__COUNT; t++) {
		const struct fs_table *tb = &fs_tables[t];
		int n = snprintf(sql, sizeof sql, "CREATE TABLE %s(", tb->name);
		for (int c = 0; c < tb->ncols; c++)
			n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%s %s", c ? ", " : "",
				      tb->cols[c].name, tb->cols[c].type);
		snprintf(sql + n, sizeof sql - (size_t)n, ")");
		if (exec(db, sql, err, errlen) < 0)
			return -1;
	}
	/* Rates are integrated by joining on ticks.t; t only grows, so the
	 * index costs little to keep. */
	if (exec(db, "CREATE INDEX ticks_t ON ticks(t)", err, errlen) < 0)
		return -1;
	snprintf(sql, sizeof sql, "PRAGMA user_version=%d", FS_SCHEMA_VERSION);
	return exec(db, sql, err, errlen);
}

static int prepare_inserts(struct fs_store *st, char *err, size_t errlen)
{
	char sql[4096];
	for (int t = 0; t < FS_T__COUNT; t++) {
		const struct fs_table *tb = &fs_tables[t];
		int n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES(", tb->name);
		for (int c = 0; c < tb->ncols; c++)
			n += snprintf(sql + n, sizeof sql - (size_t)n, "%s?", c ? "," : "");
		snprintf(sql + n, sizeof sql - (size_t)n, ")");
		if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->insert[t],
				       NULL) != SQLITE_OK) {
			snprintf(err, errlen, "%s", sqlite3_errmsg(st->db));
			return -1;
		}
	}
	if (sqlite3_prepare_v3(st->db, "INSERT OR REPLACE INTO meta VALUES(?,?)", -1,
			       SQLITE_PREPARE_PERSISTENT, &st->meta, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(st->db, "BEGIN", -1, SQLITE_PREPARE_PERSISTENT, &st->begin, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v3(st->db, "COMMIT", -1, SQLITE_PREPARE_PERSISTENT, &st->commit, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

static void say_error(struct fs_store *st, const char *what)
{
	st->errors++;
	if (!st->said_error) {
		st->said_error = true;
		fs_error("run file: %s: %s (further errors counted, not repeated)", what,
			sqlite3_errmsg(st->db));
	}
}

/* One run of a prepared statement that returns no rows: SQLITE_DONE or
 * the error. */
static int run_once(sqlite3_stmt *s)
{
	int rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc;
}

static void begin(struct fs_store *st)
{
	if (st->in_txn)
		return;
	if (run_once(st->begin) == SQLITE_DONE)
		st->in_txn = true;
	else
		say_error(st, "BEGIN");
}

static void bind_values(sqlite3_stmt *s, const struct fs_value *vals, int ncols)
{
	for (int c = 0; c < ncols; c++) {
		const struct fs_value *v = &vals[c];
		switch (v->kind) {
		case FS_V_INT:
			sqlite3_bind_int64(s, c + 1, v->i);
			break;
		case FS_V_REAL:
			sqlite3_bind_double(s, c + 1, v->d);
			break;
		case FS_V_TEXT:
			/* not copied: the statement is stepped before the text goes, and
			 * every column is bound again before the next step */
			sqlite3_bind_text(s, c + 1, v->s, -1, SQLITE_STATIC);
			break;
		default:
			sqlite3_bind_null(s, c + 1);
		}
	}
}

/* The minute's rowid spans into rowids_1m; the spans start again. */
static void write_spans(struct fs_store *st)
{
	for (int t = 0; t < FS_T__COUNT; t++) {
		if (!st->span[t].first)
			continue;
		sqlite3_stmt *s = st->span_insert;
		sqlite3_bind_double(s, 1, (double)(st->span_minute + 1) * FS_ROLLUP_PERIOD_S);
		sqlite3_bind_text(s, 2, fs_tables[t].name, -1, SQLITE_STATIC);
		sqlite3_bind_int64(s, 3, st->span[t].first);
		sqlite3_bind_int64(s, 4, st->span[t].last);
		if (sqlite3_step(s) != SQLITE_DONE)
			say_error(st, "insert (rowids_1m)");
		sqlite3_reset(s);
		st->span[t].first = st->span[t].last = 0;
	}
}

static int table_id(const char *name)
{
	for (int t = 0; t < FS_T__COUNT; t++)
		if (!strcmp(fs_tables[t].name, name))
			return t;
	return -1;
}

/* The delete of table t's rows of a rowid span within a stretch of t (the
 * steps below FS_RETAIN_EPOCH_STEPS are kept; of the phases, only
 * collectives go, by their end), prepared once. */
static sqlite3_stmt *del_stmt(struct fs_store *st, int t)
{
	if (!st->del[t]) {
		char sql[256];
		int n = t == FS_T_PHASES ? snprintf(sql, sizeof sql, "DELETE FROM phases WHERE rowid BETWEEN ?1 AND ?2"
						    " AND t_end > ?3 AND t_end <= ?4 AND name = 'collective'")
					 : snprintf(sql, sizeof sql, "DELETE FROM %s WHERE rowid BETWEEN ?1 AND ?2 AND t > ?3 AND t <= ?4",
						    fs_tables[t].name);
		if (t == FS_T_STEPS)
			snprintf(sql + n, sizeof sql - (size_t)n, " AND step >= %d", FS_RETAIN_EPOCH_STEPS);
		if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->del[t], NULL) != SQLITE_OK) {
			say_error(st, "prepare (retention)");
			sqlite3_finalize(st->del[t]);
			st->del[t] = NULL;
		}
	}
	return st->del[t];
}

/* Minute m of the recorder's clock has closed: the minute that has just
 * left the latest FS_RETAIN_TAIL_S loses its raw rows but those the spans
 * keep (retain.h), unless it is in the first FS_RETAIN_HEAD_S. A minute's
 * rows are its rowid span in rowids_1m (kept: it still bounds what is
 * left); a step's or a phase's row is in the minute its record came,
 * which may be before or after the minute of its t: its stretch reaches a
 * minute each way (the spans are known an hour on), never into the first
 * FS_RETAIN_HEAD_S. */
static void retain_minute(struct fs_store *st, long m)
{
	long d = m - (long)(FS_RETAIN_TAIL_S / FS_ROLLUP_PERIOD_S);
	double end = (double)(d + 1) * FS_ROLLUP_PERIOD_S, start = end - FS_ROLLUP_PERIOD_S;
	if (!st->keep || !st->spans_of || end <= FS_RETAIN_HEAD_S)
		return;
	sqlite3_stmt *q = st->spans_of;
	sqlite3_bind_double(q, 1, end);
	while (sqlite3_step(q) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(q, 0);
		int t = name ? table_id((const char *)name) : -1;
		sqlite3_stmt *del = t >= 0 ? del_stmt(st, t) : NULL;
		if (!del)
			continue;
		double gaps[66][2];
		bool own = t == FS_T_STEPS || t == FS_T_PHASES;
		double from = own ? fmax(start - FS_ROLLUP_PERIOD_S, FS_RETAIN_HEAD_S) : start;
		double to = own ? end + FS_ROLLUP_PERIOD_S : end;
		int ng = fs_retain_gaps(st->keep, t == FS_T_GPU, from, to, gaps, 66);
		for (int g = 0; g < ng; g++) {
			sqlite3_bind_int64(del, 1, sqlite3_column_int64(q, 1));
			sqlite3_bind_int64(del, 2, sqlite3_column_int64(q, 2));
			sqlite3_bind_double(del, 3, gaps[g][0]);
			sqlite3_bind_double(del, 4, gaps[g][1]);
			if (sqlite3_step(del) == SQLITE_DONE)
				st->deleted += (uint64_t)sqlite3_changes(st->db);
			else
				say_error(st, "delete (retention)");
			sqlite3_reset(del);
		}
	}
	sqlite3_reset(q);
	fs_retain_forget(st->keep, start - 2 * FS_ROLLUP_PERIOD_S);
}

/* A row of a sampled table, or a phase, was given rowid: into its table's
 * span. The minute moves on with the first row of a later tick (steps and
 * phases carry their own, earlier, times: they never move it). */
static void track_span(struct fs_store *st, const struct fs_row *r, int64_t rowid)
{
	if (r->table != FS_T_STEPS && r->table != FS_T_PHASES && r->v[0].kind == FS_V_REAL) {
		long m = fs_rollup_minute(r->v[0].d);
		if (st->span_minute < 0)
			st->span_minute = m;
		else if (m > st->span_minute) {
			write_spans(st);
			retain_minute(st, st->span_minute);
			st->span_minute = m;
		}
	}
	if (!st->span[r->table].first)
		st->span[r->table].first = rowid;
	st->span[r->table].last = rowid;
}

static void insert_row(void *ctx, const struct fs_row *r)
{
	struct fs_store *st = ctx;
	sqlite3_stmt *s = st->insert[r->table];
	begin(st);
	bind_values(s, r->v, fs_tables[r->table].ncols);
	if (sqlite3_step(s) == SQLITE_DONE) {
		st->rows++;
		if (st->span_insert && (fs_tables[r->table].sampled || r->table == FS_T_PHASES))
			track_span(st, r, sqlite3_last_insert_rowid(st->db));
	} else {
		say_error(st, "insert");
	}
	sqlite3_reset(s);
	if (st->rollup)
		fs_rollup_row(st->rollup, r);
	if (st->series)
		fs_series_row(st->series, r);
	if (st->keep)
		fs_retain_row(st->keep, r);
}

/* The held rows into their tables, in the order they came. */
static void insert_held(struct fs_store *st)
{
	fs_rowq_drain(&st->held, insert_row, st);
}

static void sink_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct fs_store *st = (struct fs_store *)sink;
	if (st->hold && fs_rowq_push(&st->held, r) == 0)
		return;
	insert_held(st);
	insert_row(st, r);
}

/* A finished aggregate row into its table (insert: its prepared INSERT). */
static void insert_values(struct fs_store *st, sqlite3_stmt *insert, const struct fs_value *v, int n, const char *what)
{
	begin(st);
	bind_values(insert, v, n);
	if (sqlite3_step(insert) != SQLITE_DONE)
		say_error(st, what);
	sqlite3_reset(insert);
}

/* A finished per-minute row (store/rollup.h). */
static void tier_row(void *ctx, enum fs_rollup_table rt, const struct fs_value *v, int n)
{
	struct fs_store *st = ctx;
	insert_values(st, st->tier_insert[rt], v, n, "insert (per-minute table)");
}

/* A finished second of series_1s (store/series.h). */
static void series_row(void *ctx, const struct fs_value *v, int n)
{
	struct fs_store *st = ctx;
	insert_values(st, st->series_insert, v, n, "insert (series_1s)");
}

/* Create the aggregate table name with columns c (the first its INTEGER
 * PRIMARY KEY when keyed) and prepare its INSERT into *insert. Returns 0,
 * or -1 with err. */
static int create_aggregate(struct fs_store *st, const char *name, const struct fs_rollup_col *c, int nc, bool keyed,
			    sqlite3_stmt **insert, char *err, size_t errlen)
{
	char sql[8192];
	int n = snprintf(sql, sizeof sql, "CREATE TABLE %s(", name);
	for (int i = 0; i < nc; i++)
		n += snprintf(sql + n, sizeof sql - (size_t)n, "%s%s %s%s", i ? ", " : "", c[i].name, c[i].type,
			      keyed && i == 0 ? " PRIMARY KEY" : "");
	snprintf(sql + n, sizeof sql - (size_t)n, ")");
	if (exec(st->db, sql, err, errlen) < 0)
		return -1;
	n = snprintf(sql, sizeof sql, "INSERT INTO %s VALUES(", name);
	for (int i = 0; i < nc; i++)
		n += snprintf(sql + n, sizeof sql - (size_t)n, "%s?", i ? "," : "");
	snprintf(sql + n, sizeof sql - (size_t)n, ")");
	if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, insert, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	return 0;
}

/* series_1s, keyed on its second (a window is a range of the rowid), its
 * insert and its aggregator. Returns 0, or -1 with err. */
static int open_series(struct fs_store *st, char *err, size_t errlen)
{
	const struct fs_rollup_col *c;
	int nc = fs_series_columns(&c);
	if (create_aggregate(st, FS_SERIES_TABLE, c, nc, true, &st->series_insert, err, errlen) < 0)
		return -1;
	if (!(st->series = fs_series_new(series_row, st))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

/* The per-minute tables, their inserts, and the aggregator that feeds
 * them. Returns 0, or -1 with err. */
static int open_tiers(struct fs_store *st, char *err, size_t errlen)
{
	for (int rt = 0; rt < FS_RT__COUNT; rt++) {
		const struct fs_rollup_col *c;
		int nc = fs_rollup_columns((enum fs_rollup_table)rt, &c);
		if (create_aggregate(st, fs_rollup_table_name((enum fs_rollup_table)rt), c, nc, false, &st->tier_insert[rt],
				     err, errlen) < 0)
			return -1;
	}
	if (!(st->rollup = fs_rollup_new(tier_row, st))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* keyed on (tbl, t): a window's rowid bounds are two range lookups */
	if (exec(st->db, "CREATE TABLE rowids_1m(t REAL, tbl TEXT, first INTEGER, last INTEGER,"
			 " PRIMARY KEY (tbl, t)) WITHOUT ROWID", err, errlen) < 0)
		return -1;
	if (sqlite3_prepare_v3(st->db, "INSERT OR REPLACE INTO rowids_1m VALUES(?,?,?,?)", -1,
			       SQLITE_PREPARE_PERSISTENT, &st->span_insert, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	st->span_minute = -1;
	if (sqlite3_prepare_v3(st->db, "SELECT tbl, first, last FROM rowids_1m WHERE t = ?1", -1,
			       SQLITE_PREPARE_PERSISTENT, &st->spans_of, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(st->db));
		return -1;
	}
	if (!(st->keep = malloc(sizeof *st->keep))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	fs_retain_init(st->keep);
	return 0;
}

void fs_store_keep_all(struct fs_store *st)
{
	free(st->keep);
	st->keep = NULL;
}

uint64_t fs_store_deleted(const struct fs_store *st)
{
	return st->deleted;
}

static void close_tiers(struct fs_store *st)
{
	fs_rollup_free(st->rollup);
	st->rollup = NULL;
	fs_series_free(st->series);
	st->series = NULL;
	sqlite3_finalize(st->series_insert);
	st->series_insert = NULL;
	sqlite3_finalize(st->span_insert);
	st->span_insert = NULL;
	sqlite3_finalize(st->spans_of);
	st->spans_of = NULL;
	for (int t = 0; t < FS_T__COUNT; t++) {
		sqlite3_finalize(st->del[t]);
		st->del[t] = NULL;
	}
	free(st->keep);
	st->keep = NULL;
	for (int rt = 0; rt < FS_RT__COUNT; rt++) {
		sqlite3_finalize(st->tier_insert[rt]);
		st->tier_insert[rt] = NULL;
	}
}

static void sink_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct fs_store *st = (struct fs_store *)sink;
	char *hashed = NULL;
	if (st->hash_paths) {
		hashed = fs_pathhash_words(value);
		if (!hashed) {
			say_error(st, "meta (out of memory)");
			return; /* never the clear value */
		}
		value = hashed;
	}
	begin(st);
	sqlite3_bind_text(st->meta, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st->meta, 2, value, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st->meta) != SQLITE_DONE)
		say_error(st, "meta");
	sqlite3_reset(st->meta);
	free(hashed);
}

void fs_store_hash_paths(struct fs_store *st, bool on)
{
	st->hash_paths = on;
}

int fs_store_commit(struct fs_store *st)
{
	insert_held(st);
	st->last_commit_ns = fs_now_ns();
	if (!st->in_txn)
		return 0;
	st->in_txn = false;
	if (run_once(st->commit) != SQLITE_DONE) {
		say_error(st, "commit");
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	return 0;
}

static void sink_tick_end(struct fs_sink *sink, double t)
{
	(void)t;
	struct fs_store *st = (struct fs_store *)sink;
	if (fs_now_ns() - st->last_commit_ns >= FS_NS_PER_S)
		fs_store_commit(st);
}

/* Open the created file with SQLite and lay out the schema. Returns 0, or
 * -1 with err. */
static int open_db(struct fs_store *st, char *err, size_t errlen)
{
	const char *path = st->file.path;
	/* NOMUTEX: one thread uses the connection (readers open their own) */
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOFOLLOW | SQLITE_OPEN_NOMUTEX,
			    NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
		return -1;
	}
	if (fs_runfile_verify(&st->file, err, errlen) < 0)
		return -1;
	/* Someone may open the file while it is being set up (a script polling
	 * for it): wait for their lock instead of failing. */
	sqlite3_busy_timeout(st->db, 5000);
	char why[512];
	if (exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", why, sizeof why) < 0 ||
	    create_tables(st->db, why, sizeof why) < 0 || prepare_inserts(st, why, sizeof why) < 0 ||
	    open_tiers(st, why, sizeof why) < 0 || open_series(st, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		return -1;
	}
	return 0;
}

/* The statements every store prepares (prepare_inserts). */
static void finalize_writes(struct fs_store *st)
{
	for (int t = 0; t < FS_T__COUNT; t++)
		sqlite3_finalize(st->insert[t]);
	sqlite3_finalize(st->meta);
	sqlite3_finalize(st->begin);
	sqlite3_finalize(st->commit);
}

static void close_db(struct fs_store *st)
{
	close_tiers(st);
	finalize_writes(st);
	sqlite3_close(st->db);
	st->db = NULL;
	fs_rowq_free(&st->held);
}

struct fs_store *fs_store_create_ex(const char *path, bool overwrite, bool *exists, char *err, size_t errlen)
{
	bool ex = false;
	if (!exists)
		exists = &ex;
	struct fs_store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* O_EXCL (or a temporary renamed at the end) gives a clear "exists"
	 * and proves the directory is writable before any job is started. */
	if (fs_runfile_create(&st->file, path, overwrite, exists, err, errlen) < 0) {
		free(st);
		return NULL;
	}
	if (open_db(st, err, errlen) < 0) {
		close_db(st);
		fs_runfile_discard(&st->file);
		free(st);
		return NULL;
	}
	st->sink.row = sink_row;
	st->sink.meta = sink_meta;
	st->sink.tick_end = sink_tick_end;
	st->last_commit_ns = fs_now_ns();
	st->hold = true;
	return st;
}

struct fs_store *fs_store_create_memory(char *err, size_t errlen)
{
	struct fs_store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	st->memory = true;
	char why[512];
	if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK ||
	    create_tables(st->db, why, sizeof why) < 0 || prepare_inserts(st, why, sizeof why) < 0) {
		snprintf(err, errlen, "in-memory run file: %s", st->db ? sqlite3_errmsg(st->db) : "cannot open");
		close_db(st);
		free(st);
		return NULL;
	}
	st->sink.row = sink_row;
	st->sink.meta = sink_meta;
	st->sink.tick_end = sink_tick_end;
	st->last_commit_ns = fs_now_ns();
	return st;
}

sqlite3 *fs_store_db(struct fs_store *st)
{
	insert_held(st); /* what the caller reads is in the tables */
	return st->db;
}

struct fs_store *fs_store_create(const char *path, bool overwrite, char *err, size_t errlen)
{
	return fs_store_create_ex(path, overwrite, NULL, err, errlen);
}

const char *fs_store_path(const struct fs_store *st)
{
	return st->file.path;
}

struct fs_sink *fs_store_sink(struct fs_store *st)
{
	return &st->sink;
}

uint64_t fs_store_rows(const struct fs_store *st)
{
	return st->rows + st->held.rows;
}

int fs_store_close_at(struct fs_store *st, char *path_out, size_t cap)
{
	insert_held(st);
	if (st->rollup)
		fs_rollup_flush(st->rollup); /* the last, partial minute */
	if (st->series) {
		fs_series_flush(st->series); /* the last seconds */
		if (fs_series_late(st->series))
			fs_sink_metaf(&st->sink, "series_1s.late_steps", "%llu",
				      (unsigned long long)fs_series_late(st->series));
	}
	if (st->span_insert)
		write_spans(st);
	int rc = fs_store_commit(st);
	if (st->memory) {
		close_db(st);
		if (path_out)
			snprintf(path_out, cap, ":memory:");
		free(st);
		return rc;
	}
	close_tiers(st);
	finalize_writes(st);
	char why[256];
	bool folded = fold_wal(st->db, why, sizeof why) == 0;
	if (!folded)
		fs_error("run file: could not fold the WAL back (%s); keep the -wal file with it", why);
	sqlite3_close(st->db);
	fs_rowq_free(&st->held);
	if (fs_runfile_finish(&st->file, folded && rc == 0) < 0)
		rc = -1;
	if (path_out)
		snprintf(path_out, cap, "%s", st->file.path);
	free(st);
	return rc;
}

int fs_store_close(struct fs_store *st)
{
	return fs_store_close_at(st, NULL, 0);
}

void fs_store_discard(struct fs_store *st)
{
	close_db(st);
	fs_runfile_discard(&st->file);
	free(st);
}

void fs_store_unlink(const char *path)
{
	fs_runfile_unlink(path);
}
