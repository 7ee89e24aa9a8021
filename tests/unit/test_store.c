/* The run file: create, refuse to clobber, insert, commit, close into one
 * self-contained file, and read back exactly what was written. */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "store/store.h"

static char dir[] = "/tmp/fs-store-XXXXXX";

static void path_of(char *out, size_t cap, const char *name)
{
	snprintf(out, cap, "%s/%s", dir, name);
}

static int count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	int n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return n;
}

static void test_roundtrip(void)
{
	char p[512], err[512];
	path_of(p, sizeof p, "a.db");
	struct fs_store *st = fs_store_create(p, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	struct fs_sink *sink = fs_store_sink(st);
	fs_sink_meta(sink, "command", "python train.py");
	fs_sink_meta(sink, "command", "python train.py --epochs 2"); /* later wins */
	for (int i = 0; i < 1000; i++) {
		struct fs_row r;
		fs_row_init(&r, FS_T_DISK, i * 0.1);
		fs_row_text(&r, FS_DISK_device, i % 2 ? "vda" : "nvme0n1");
		fs_row_real(&r, FS_DISK_reads_per_s, i);
		fs_row_real(&r, FS_DISK_read_await_ms, NAN); /* not reported -> NULL */
		fs_sink_row(sink, &r);
	}
	struct fs_row r;
	fs_row_init(&r, FS_T_MOUNTS, 0);
	fs_row_text(&r, FS_MOUNTS_mount, "/mnt/a b");
	fs_row_text(&r, FS_MOUNTS_device, NULL);
	fs_sink_row(sink, &r);
	CHECK_INT(fs_store_rows(st), 1001);
	CHECK_INT(fs_store_close(st), 0);

	char side[600];
	snprintf(side, sizeof side, "%s-wal", p);
	CHECK(access(side, F_OK) != 0); /* one self-contained file */

	sqlite3 *db;
	CHECK_INT(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	CHECK_INT(count(db, "SELECT count(*) FROM disk"), 1000);
	CHECK_INT(count(db, "SELECT count(*) FROM disk WHERE read_await_ms IS NULL"), 1000);
	CHECK_INT(count(db, "SELECT count(*) FROM disk WHERE device = 'vda'"), 500);
	CHECK_INT(count(db, "SELECT sum(reads_per_s) FROM disk"), 999 * 1000 / 2);
	CHECK_INT(count(db, "SELECT count(*) FROM disk WHERE t = 99.9"), 1);
	CHECK_INT(count(db, "SELECT count(*) FROM meta WHERE key = 'command' AND value = 'python train.py --epochs 2'"), 1);
	CHECK_INT(count(db, "SELECT count(*) FROM mounts WHERE mount = '/mnt/a b' AND device IS NULL"), 1);
	CHECK_INT(count(db, "PRAGMA user_version"), FS_SCHEMA_VERSION);
	/* Every table of the schema exists with its columns in order. */
	for (int t = 0; t < FS_T__COUNT; t++) {
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s')", fs_tables[t].name);
		CHECK_INT(count(db, sql), fs_tables[t].ncols);
		snprintf(sql, sizeof sql, "SELECT count(*) FROM pragma_table_info('%s') WHERE cid = 0 AND name = '%s'",
			 fs_tables[t].name, fs_tables[t].cols[0].name);
		CHECK_INT(count(db, sql), 1);
		if (fs_tables[t].sampled)
			CHECK_STR(fs_tables[t].cols[0].name, "t");
	}
	sqlite3_close(db);
}

static void test_refusals(void)
{
	char p[512], err[512];
	path_of(p, sizeof p, "a.db");
	/* exists: refused, untouched */
	struct stat before, after;
	stat(p, &before);
	CHECK(fs_store_create(p, false, err, sizeof err) == NULL);
	CHECK(strstr(err, "already exists") != NULL);
	stat(p, &after);
	CHECK_INT(after.st_size, before.st_size);
	/* --force: replaced by an empty run file */
	struct fs_store *st = fs_store_create(p, true, err, sizeof err);
	CHECK(st != NULL);
	if (st)
		fs_store_close(st);
	sqlite3 *db;
	sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL);
	CHECK_INT(count(db, "SELECT count(*) FROM disk"), 0);
	sqlite3_close(db);
	/* a directory that does not exist */
	CHECK(fs_store_create("/nonexistent-dir/x.db", false, err, sizeof err) == NULL);
	CHECK(strstr(err, "No such file or directory") != NULL);
	fs_store_unlink(p);
	CHECK(access(p, F_OK) != 0);
}

static void test_uncommitted_on_crash(void)
{
	/* Rows are committed at most once a second: what a crash loses is the
	 * uncommitted tail, and the file still opens. Simulated by copying the
	 * database and its WAL while the store is open. */
	char p[512], err[512], cmd[2048];
	path_of(p, sizeof p, "c.db");
	struct fs_store *st = fs_store_create(p, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	struct fs_sink *sink = fs_store_sink(st);
	struct fs_row r;
	for (int i = 0; i < 10; i++) {
		fs_row_init(&r, FS_T_CPU, i);
		fs_row_real(&r, FS_CPU_user_pct, 1);
		fs_sink_row(sink, &r);
	}
	fs_store_commit(st);
	fs_row_init(&r, FS_T_CPU, 10);
	fs_sink_row(sink, &r); /* not committed */
	snprintf(cmd, sizeof cmd, "cp %s %s/crash.db && cp %s-wal %s/crash.db-wal", p, dir, p, dir);
	CHECK_INT(system(cmd), 0);
	fs_store_close(st);
	char c[512];
	path_of(c, sizeof c, "crash.db");
	sqlite3 *db;
	CHECK_INT(sqlite3_open_v2(c, &db, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
	CHECK_INT(count(db, "SELECT count(*) FROM cpu"), 10);
	sqlite3_close(db);
}

static void test_held_until_commit(void)
{
	/* A run file's rows wait in memory for the commit (store/rowq.h):
	 * another reader sees none before it and every one after, in the
	 * order they came, text intact; an in-memory store (watch, top)
	 * reads its own rows back at once. */
	char p[512], err[512];
	path_of(p, sizeof p, "h.db");
	struct fs_store *st = fs_store_create(p, false, err, sizeof err);
	CHECK(st != NULL);
	if (!st)
		return;
	struct fs_sink *sink = fs_store_sink(st);
	char name[32];
	for (int i = 0; i < 300; i++) {
		struct fs_row r;
		fs_row_init(&r, i % 3 ? FS_T_NET : FS_T_CPU, i * 0.1);
		snprintf(name, sizeof name, "eth%d", i);
		if (i % 3)
			fs_row_text(&r, FS_NET_iface, name);
		fs_sink_row(sink, &r);
		memset(name, '?', sizeof name - 1); /* the source reuses its buffer */
	}
	CHECK_INT(fs_store_rows(st), 300);
	sqlite3 *db;
	CHECK_INT(sqlite3_open_v2(p, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	CHECK_INT(count(db, "SELECT count(*) FROM net"), 0);
	CHECK_INT(fs_store_commit(st), 0);
	CHECK_INT(count(db, "SELECT count(*) FROM net"), 200);
	CHECK_INT(count(db, "SELECT count(*) FROM cpu"), 100);
	/* in order: rowid and t grow together, each row its own name */
	CHECK_INT(count(db, "SELECT count(*) FROM net a JOIN net b ON b.rowid = a.rowid + 1 WHERE b.t <= a.t"), 0);
	CHECK_INT(count(db, "SELECT count(*) FROM net WHERE iface = 'eth' || CAST(round(t * 10) AS INTEGER)"), 200);
	sqlite3_close(db);
	fs_store_close(st);

	struct fs_store *mem = fs_store_create_memory(err, sizeof err);
	CHECK(mem != NULL);
	if (!mem)
		return;
	struct fs_row r;
	fs_row_init(&r, FS_T_CPU, 1);
	fs_sink_row(fs_store_sink(mem), &r);
	CHECK_INT(count(fs_store_db(mem), "SELECT count(*) FROM cpu"), 1);
	fs_store_close(mem);
}

int main(void)
{
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_roundtrip();
	test_refusals();
	test_uncommitted_on_crash();
	test_held_until_commit();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", dir);
	return check_exit("test_store");
}
