#include "store/store.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store/schema.h"
#include "util/clock.h"
#include "util/log.h"

struct fs_store {
	struct fs_sink sink; /* first: the sink callbacks get it back */
	sqlite3 *db;
	sqlite3_stmt *insert[FS_T__COUNT];
	sqlite3_stmt *meta;
	bool in_txn;
	uint64_t last_commit_ns;
	uint64_t rows, errors;
	bool said_error;
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
			       SQLITE_PREPARE_PERSISTENT, &st->meta, NULL) != SQLITE_OK) {
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

static void begin(struct fs_store *st)
{
	if (st->in_txn)
		return;
	if (sqlite3_exec(st->db, "BEGIN", NULL, NULL, NULL) == SQLITE_OK)
		st->in_txn = true;
	else
		say_error(st, "BEGIN");
}

static void sink_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct fs_store *st = (struct fs_store *)sink;
	sqlite3_stmt *s = st->insert[r->table];
	int ncols = fs_tables[r->table].ncols;
	begin(st);
	for (int c = 0; c < ncols; c++) {
		const struct fs_value *v = &r->v[c];
		switch (v->kind) {
		case FS_V_INT:
			sqlite3_bind_int64(s, c + 1, v->i);
			break;
		case FS_V_REAL:
			sqlite3_bind_double(s, c + 1, v->d);
			break;
		case FS_V_TEXT:
			sqlite3_bind_text(s, c + 1, v->s, -1, SQLITE_TRANSIENT);
			break;
		default:
			sqlite3_bind_null(s, c + 1);
		}
	}
	if (sqlite3_step(s) == SQLITE_DONE)
		st->rows++;
	else
		say_error(st, "insert");
	sqlite3_reset(s);
}

static void sink_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct fs_store *st = (struct fs_store *)sink;
	begin(st);
	sqlite3_bind_text(st->meta, 1, key, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st->meta, 2, value, -1, SQLITE_TRANSIENT);
	if (sqlite3_step(st->meta) != SQLITE_DONE)
		say_error(st, "meta");
	sqlite3_reset(st->meta);
}

int fs_store_commit(struct fs_store *st)
{
	st->last_commit_ns = fs_now_ns();
	if (!st->in_txn)
		return 0;
	st->in_txn = false;
	if (sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
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

struct fs_store *fs_store_create(const char *path, bool overwrite, char *err, size_t errlen)
{
	/* O_EXCL gives a clear "exists" and proves the directory is writable
	 * before any job is started. */
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (overwrite ? O_TRUNC : O_EXCL), 0644);
	if (fd < 0) {
		if (errno == EEXIST)
			snprintf(err, errlen, "%s: already exists (use --force to overwrite)", path);
		else
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	close(fd);
	if (overwrite) {
		char side[4200];
		snprintf(side, sizeof side, "%s-wal", path);
		unlink(side);
		snprintf(side, sizeof side, "%s-shm", path);
		unlink(side);
	}
	struct fs_store *st = calloc(1, sizeof *st);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", path, st->db ? sqlite3_errmsg(st->db) : "cannot open");
		goto fail;
	}
	/* Someone may open the file while it is being set up (a script polling
	 * for it): wait for their lock instead of failing. */
	sqlite3_busy_timeout(st->db, 5000);
	char why[512];
	if (exec(st->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", why, sizeof why) < 0 ||
	    create_tables(st->db, why, sizeof why) < 0 || prepare_inserts(st, why, sizeof why) < 0) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto fail;
	}
	st->sink.row = sink_row;
	st->sink.meta = sink_meta;
	st->sink.tick_end = sink_tick_end;
	st->last_commit_ns = fs_now_ns();
	return st;
fail:
	for (int t = 0; t < FS_T__COUNT; t++)
		sqlite3_finalize(st->insert[t]);
	sqlite3_finalize(st->meta);
	sqlite3_close(st->db);
	free(st);
	unlink(path);
	return NULL;
}

struct fs_sink *fs_store_sink(struct fs_store *st)
{
	return &st->sink;
}

uint64_t fs_store_rows(const struct fs_store *st)
{
	return st->rows;
}

int fs_store_close(struct fs_store *st)
{
	int rc = fs_store_commit(st);
	for (int t = 0; t < FS_T__COUNT; t++)
		sqlite3_finalize(st->insert[t]);
	sqlite3_finalize(st->meta);
	char why[256];
	if (exec(st->db, "PRAGMA wal_checkpoint(TRUNCATE); PRAGMA journal_mode=DELETE;", why,
		 sizeof why) < 0)
		fs_error("run file: could not fold the WAL back (%s); keep the -wal file with it", why);
	sqlite3_close(st->db);
	free(st);
	return rc;
}

void fs_store_unlink(const char *path)
{
	char side[4200];
	unlink(path);
	snprintf(side, sizeof side, "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof side, "%s-shm", path);
	unlink(side);
}
