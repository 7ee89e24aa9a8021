#include "golden.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

/* Say what went wrong and count it as a failed check. */
static void golden_fail(const char *what, const char *detail)
{
	check_count++;
	check_failures++;
	fprintf(stderr, "golden: %s: %s\n", what, detail);
}

struct fs_store *golden_create(const char *path)
{
	char err[512];
	fs_store_unlink(path);
	struct fs_store *st = fs_store_create(path, false, err, sizeof err);
	if (!st)
		golden_fail(path, err);
	return st;
}

static int column_of(enum fs_table_id table, const char *name)
{
	for (int c = 0; c < fs_tables[table].ncols; c++)
		if (!strcmp(fs_tables[table].cols[c].name, name))
			return c;
	return -1;
}

/* Set column c of r from text v, as the column's type. False if v is not
 * a number where one is needed. v is borrowed until the row is sunk. */
static bool set_value(struct fs_row *r, enum fs_table_id table, int c, const char *v)
{
	const char *type = fs_tables[table].cols[c].type;
	char *end;
	if (!strcmp(v, "NULL"))
		return true;
	if (!strcmp(type, "TEXT")) {
		fs_row_text(r, c, v);
		return true;
	}
	errno = 0;
	if (!strcmp(type, "INTEGER")) {
		long long i = strtoll(v, &end, 10);
		fs_row_int(r, c, i);
	} else {
		fs_row_real(r, c, strtod(v, &end));
	}
	return errno == 0 && end != v && *end == '\0';
}

/* The next "col=value" of *pos into name and value (both inside buf,
 * NUL-terminated); a value in single quotes may hold spaces. False at the
 * end or on a word without '='. */
static bool next_pair(char **pos, char **name, char **value)
{
	char *p = *pos + strspn(*pos, " ");
	if (!*p)
		return false;
	char *eq = strchr(p, '=');
	char *sp = strchr(p, ' ');
	if (!eq || (sp && sp < eq)) {
		*name = p;
		*value = NULL;
		return true;
	}
	*eq = '\0';
	*name = p;
	char *v = eq + 1, *end;
	if (*v == '\'') {
		end = strchr(++v, '\'');
		end = end ? end : v + strlen(v);
	} else {
		end = v + strcspn(v, " ");
	}
	*pos = *end ? end + 1 : end;
	*end = '\0';
	*value = v;
	return true;
}

void golden_row(struct fs_sink *sink, enum fs_table_id table, double t, const char *fmt, ...)
{
	char cols[2048], buf[2048];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cols, sizeof cols, fmt, ap);
	va_end(ap);
	struct fs_row r;
	fs_row_init(&r, table, t);
	snprintf(buf, sizeof buf, "%s", cols);
	char *pos = buf, *name, *value;
	while (next_pair(&pos, &name, &value)) {
		int c = value ? column_of(table, name) : -1;
		if (c < 0 || !set_value(&r, table, c, value)) {
			golden_fail(fs_tables[table].name, !value ? "not col=value" : c < 0 ? "no such column"
											 : "not a number");
			fprintf(stderr, "golden:   in \"%s\" (%s)\n", cols, name);
			return;
		}
	}
	fs_sink_row(sink, &r);
}

int golden_sql(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	char *msg = NULL;
	int rc = sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
	if (rc != SQLITE_OK) {
		char why[1024];
		snprintf(why, sizeof why, "%s (in: %s)", msg ? msg : db ? sqlite3_errmsg(db) : "cannot open", sql);
		golden_fail(path, why);
	}
	sqlite3_free(msg);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

/* The leaf page of table in the middle of its leaves (dbstat), else its
 * root page; and the page size. -1 when neither is known. */
static long page_of(sqlite3 *db, const char *table, long *page_size)
{
	sqlite3_stmt *st = NULL;
	long pages[4096], n = 0, root = -1;
	*page_size = -1;
	if (sqlite3_prepare_v2(db, "PRAGMA page_size", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		*page_size = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	if (sqlite3_prepare_v2(db, "SELECT pageno FROM dbstat WHERE name = ?1 AND pagetype = 'leaf' ORDER BY pageno",
			       -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		while (n < (long)(sizeof pages / sizeof pages[0]) && sqlite3_step(st) == SQLITE_ROW)
			pages[n++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (n > 0)
		return pages[n / 2];
	if (sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_master WHERE type = 'table' AND name = ?1", -1, &st,
			       NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW)
			root = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return root;
}

long golden_corrupt(const char *path, const char *table)
{
	sqlite3 *db = NULL;
	long page = -1, size = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK)
		page = page_of(db, table, &size);
	sqlite3_close(db);
	if (page <= 1 || size <= 0) { /* page 1 holds the header and the schema */
		golden_fail(path, "no page of that table to corrupt");
		return -1;
	}
	char junk[65536];
	memset(junk, 0xff, sizeof junk); /* 0xff is no b-tree page type */
	int fd = open(path, O_WRONLY);
	bool ok = fd >= 0 && size <= (long)sizeof junk &&
		  pwrite(fd, junk, (size_t)size, (off_t)((page - 1) * size)) == (ssize_t)size;
	if (fd >= 0 && close(fd) != 0)
		ok = false;
	if (!ok) {
		golden_fail(path, "could not overwrite the page");
		return -1;
	}
	return page;
}
