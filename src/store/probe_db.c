/* probe_db.c (was src/bench/probe_db.c) - the probes database: one row
 * per `feedscope probe`, so that a
 * later diagnosis can compare a job's throughput with the ceiling probed on
 * the same device (fs_probe_lookup). A plain SQLite file, one table: */
#include "bench/probe/probe.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/paths.h"

static const char schema_sql[] =
	"CREATE TABLE IF NOT EXISTS probes ("
	" device TEXT,"              /* whole disk ("vda"); NULL: none (tmpfs, nfs) */
	" majmin TEXT,"              /* the file system's MAJ:MIN */
	" dir TEXT,"                 /* the --dir probed */
	" time_unix INTEGER,"
	" seq_read_bytes_per_s REAL,"
	" randread_iops_qd1 REAL,"
	" randread_iops_qd32 REAL,"
	" meta_ops_per_s REAL,"
	" fsync_p50_ms REAL,"
	" fsync_p99_ms REAL,"
	" fs_type TEXT,"
	" direct INTEGER,"           /* 1: the read tests used O_DIRECT */
	" engine TEXT,"              /* the read tests' engine */
	" file_bytes INTEGER,"       /* the test file */
	" runtime_s REAL);"          /* per timed test */
	"CREATE INDEX IF NOT EXISTS probes_device ON probes(device, time_unix);";

/* Columns added after the first version of the table: added to an older
 * table before a save; a lookup reads them when they are there. */
static const char *const later_cols[] = {"direct INTEGER", "engine TEXT", "file_bytes INTEGER", "runtime_s REAL"};

void fs_probe_result_init(struct fs_probe_result *r)
{
	memset(r, 0, sizeof *r);
	double *nan_fields[] = {
		&r->runtime_s, &r->seq_read_bytes_per_s, &r->randread_iops_qd1, &r->randread_iops_qd32,
		&r->meta_ops_per_s, &r->fsync_p50_ms, &r->fsync_p99_ms, &r->create_per_s, &r->stat_per_s,
		&r->open_per_s, &r->close_per_s, &r->unlink_per_s, &r->fsync_per_s,
		&r->prep_write_bytes_per_s, &r->randread_iops};
	for (size_t i = 0; i < sizeof nan_fields / sizeof nan_fields[0]; i++)
		*nan_fields[i] = NAN;
	struct fs_probe_lat *lats[] = {&r->seq_lat, &r->qd1_lat, &r->qd32_lat, &r->meta_lat, &r->fsync_lat,
				       &r->randread_lat};
	for (int i = 0; i < 6; i++)
		lats[i]->p50_us = lats[i]->p90_us = lats[i]->p99_us = lats[i]->p999_us = lats[i]->max_us = NAN;
}

char *fs_probe_db_path(char *out, size_t cap)
{
	const char *env = getenv("FEEDSCOPE_PROBE_DB");
	char state[PATH_MAX];
	int n;
	if (env && *env)
		n = snprintf(out, cap, "%s", env);
	else if (fs_state_dir(state, sizeof state))
		n = snprintf(out, cap, "%s/probes.db", state);
	else
		return NULL;
	return n > 0 && (size_t)n < cap ? out : NULL;
}

/* mkdir -p of path's parent directory. Returns 0 or -1 with errno. */
static int make_parents(const char *path)
{
	char d[PATH_MAX];
	if (snprintf(d, sizeof d, "%s", path) >= (int)sizeof d) {
		errno = ENAMETOOLONG;
		return -1;
	}
	char *slash = strrchr(d, '/');
	if (!slash || slash == d)
		return 0;
	*slash = '\0';
	return fs_make_dirs(d, 0755);
}

static void bind_text(sqlite3_stmt *st, int i, const char *s)
{
	if (s && *s)
		sqlite3_bind_text(st, i, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double x)
{
	if (isfinite(x))
		sqlite3_bind_double(st, i, x);
	else
		sqlite3_bind_null(st, i);
}

int fs_probe_save(const char *db_path, const struct fs_probe_result *r, char *why, size_t whylen)
{
	if (make_parents(db_path) < 0) {
		snprintf(why, whylen, "%s: cannot create its directory: %s", db_path, strerror(errno));
		return -1;
	}
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(db, 5000);
		rc = sqlite3_exec(db, schema_sql, NULL, NULL, NULL);
	}
	for (size_t i = 0; rc == SQLITE_OK && i < sizeof later_cols / sizeof later_cols[0]; i++) {
		char sql[96];
		snprintf(sql, sizeof sql, "ALTER TABLE probes ADD COLUMN %s", later_cols[i]);
		sqlite3_exec(db, sql, NULL, NULL, NULL); /* "duplicate column": already there */
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_prepare_v2(db,
					"INSERT INTO probes (device, majmin, dir, time_unix, seq_read_bytes_per_s,"
					" randread_iops_qd1, randread_iops_qd32, meta_ops_per_s, fsync_p50_ms,"
					" fsync_p99_ms, fs_type, direct, engine, file_bytes, runtime_s)"
					" VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
					-1, &st, NULL);
	if (rc == SQLITE_OK) {
		bind_text(st, 1, r->device);
		bind_text(st, 2, r->majmin);
		bind_text(st, 3, r->dir);
		sqlite3_bind_int64(st, 4, r->time_unix);
		bind_real(st, 5, r->seq_read_bytes_per_s);
		bind_real(st, 6, r->randread_iops_qd1);
		bind_real(st, 7, r->randread_iops_qd32);
		bind_real(st, 8, r->meta_ops_per_s);
		bind_real(st, 9, r->fsync_p50_ms);
		bind_real(st, 10, r->fsync_p99_ms);
		bind_text(st, 11, r->fs_type);
		sqlite3_bind_int(st, 12, r->direct);
		bind_text(st, 13, r->engine);
		sqlite3_bind_int64(st, 14, (sqlite3_int64)r->file_bytes);
		bind_real(st, 15, r->runtime_s);
		rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : SQLITE_ERROR;
	}
	if (rc != SQLITE_OK)
		snprintf(why, whylen, "%s: %s", db_path, db ? sqlite3_errmsg(db) : "cannot open");
	sqlite3_finalize(st);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static double col_real(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL ? NAN : sqlite3_column_double(st, i);
}

static void col_text(sqlite3_stmt *st, int i, char *out, size_t cap)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	snprintf(out, cap, "%s", s ? (const char *)s : "");
}

/* The later columns of row rowid into out, where the table has them. */
static void read_later(sqlite3 *db, sqlite3_int64 rowid, struct fs_probe_result *out)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db, "SELECT direct, engine, file_bytes, runtime_s FROM probes WHERE rowid = ?",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_int64(st, 1, rowid);
		if (sqlite3_step(st) == SQLITE_ROW) {
			out->direct = sqlite3_column_int(st, 0) != 0;
			col_text(st, 1, out->engine, sizeof out->engine);
			out->file_bytes = (uint64_t)sqlite3_column_int64(st, 2);
			out->runtime_s = col_real(st, 3);
		}
	}
	sqlite3_finalize(st);
}

int fs_probe_lookup_in(const char *db_path, const char *device, struct fs_probe_result *out)
{
	fs_probe_result_init(out);
	if (!db_path || access(db_path, R_OK) < 0)
		return -1;
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	sqlite3_int64 rowid = 0;
	int found = -1;
	if (sqlite3_open_v2(db_path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(db, 2000);
		if (sqlite3_prepare_v2(db,
				       "SELECT device, majmin, dir, time_unix, seq_read_bytes_per_s,"
				       " randread_iops_qd1, randread_iops_qd32, meta_ops_per_s, fsync_p50_ms,"
				       " fsync_p99_ms, fs_type, rowid FROM probes WHERE device IS ?1"
				       " ORDER BY time_unix DESC, rowid DESC LIMIT 1",
				       -1, &st, NULL) == SQLITE_OK) {
			if (device && *device)
				sqlite3_bind_text(st, 1, device, -1, SQLITE_STATIC);
			else
				sqlite3_bind_null(st, 1);
			if (sqlite3_step(st) == SQLITE_ROW) {
				col_text(st, 0, out->device, sizeof out->device);
				col_text(st, 1, out->majmin, sizeof out->majmin);
				col_text(st, 2, out->dir, sizeof out->dir);
				out->time_unix = sqlite3_column_int64(st, 3);
				out->seq_read_bytes_per_s = col_real(st, 4);
				out->randread_iops_qd1 = col_real(st, 5);
				out->randread_iops_qd32 = col_real(st, 6);
				out->meta_ops_per_s = col_real(st, 7);
				out->fsync_p50_ms = col_real(st, 8);
				out->fsync_p99_ms = col_real(st, 9);
				col_text(st, 10, out->fs_type, sizeof out->fs_type);
				rowid = sqlite3_column_int64(st, 11);
				found = 0;
			}
		}
		sqlite3_finalize(st);
		if (found == 0)
			read_later(db, rowid, out);
	}
	sqlite3_close(db);
	return found;
}

int fs_probe_lookup(const char *device, struct fs_probe_result *out)
{
	char path[PATH_MAX];
	return fs_probe_lookup_in(fs_probe_db_path(path, sizeof path), device, out);
}
