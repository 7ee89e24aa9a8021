/* csv.c - a run file as one CSV file per table (see csv.h). */
#include "render/csv.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/load/query.h"
#include "store/rollup.h"
#include "store/schema.h"
#include "store/series.h"
#include "util/text.h"

/* How a column is written: its header, the factor to base units, and
 * whether an absolute-time column follows it. */
struct col {
	char name[128];
	double factor; /* 0: as stored; else value x factor, or / (1 / factor) when < 1 */
	bool unix_after;
};

/* Unit suffixes converted to base units (csv.h). */
static const struct {
	const char *suffix, *base;
	double factor;
} units[] = {
	{"_pct", "_ratio", 1e-2},
	{"_ms", "_s", 1e-3},
	{"_us", "_s", 1e-6},
	{"_mbps", "_bits_per_s", 1e6},
};

/* Columns holding seconds since t = 0. */
static const char *const since_start[] = {"t", "t_start", "t_end", "first_t", "last_t"};

static void describe(struct col *c, const char *name)
{
	size_t n = strlen(name);
	snprintf(c->name, sizeof c->name, "%s", name);
	c->factor = 0;
	c->unix_after = false;
	/* a per-minute table's NAME_min, NAME_max: NAME's unit, the suffix kept */
	const char *tail = "";
	if (n > 4 && (!strcmp(name + n - 4, "_min") || !strcmp(name + n - 4, "_max"))) {
		tail = name + n - 4;
		n -= 4;
	}
	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
		size_t k = strlen(units[i].suffix);
		if (n > k && !strncmp(name + n - k, units[i].suffix, k)) {
			snprintf(c->name, sizeof c->name, "%.*s%s%s", (int)(n - k), name, units[i].base, tail);
			c->factor = units[i].factor;
		}
	}
	for (size_t i = 0; i < sizeof since_start / sizeof since_start[0]; i++)
		c->unix_after |= !strcmp(name, since_start[i]);
}

/* A text field, quoted when RFC 4180 asks; valid UTF-8 out whatever comes in. */
static void put_text(FILE *f, const unsigned char *s, size_t n)
{
	bool quote = n == 0; /* "" tells an empty string from NULL */
	for (size_t i = 0; i < n && !quote; i++)
		quote = s[i] == ',' || s[i] == '"' || s[i] == '\r' || s[i] == '\n';
	if (quote)
		fputc('"', f);
	while (n > 0) {
		uint32_t cp = 0;
		size_t len = fs_text_utf8_decode(s, n, &cp);
		if (len == 0 || cp == 0) { /* a NUL byte stops most CSV readers: U+FFFD too */
			fputs("\xef\xbf\xbd", f);
			len = len ? len : 1;
		} else {
			if (cp == '"')
				fputc('"', f);
			fwrite(s, 1, len, f);
		}
		s += len;
		n -= len;
	}
	if (quote)
		fputc('"', f);
}

/* A stored value: the shortest of %.15g and %.17g that reads back as v. A
 * converted one: 15 digits (the conversion rounded it already). */
static void put_real(FILE *f, double v, bool converted)
{
	char buf[40];
	if (!isfinite(v))
		return; /* an infinity or NaN is no measurement: an empty field */
	snprintf(buf, sizeof buf, "%.15g", v);
	if (!converted && strtod(buf, NULL) != v)
		snprintf(buf, sizeof buf, "%.17g", v);
	fputs(buf, f);
}

/* Dividing by 100 gives 0.35 where multiplying by 0.01 gives 0.35000000000000003. */
static double to_base(double v, double factor)
{
	return factor == 0 ? v : factor < 1 ? v / round(1 / factor) : v * factor;
}

static void put_field(FILE *f, sqlite3_stmt *st, int i, const struct col *c)
{
	int type = sqlite3_column_type(st, i);
	if (type == SQLITE_NULL)
		return;
	if (type == SQLITE_INTEGER && c->factor == 0)
		fprintf(f, "%lld", (long long)sqlite3_column_int64(st, i));
	else if (type == SQLITE_INTEGER || type == SQLITE_FLOAT)
		put_real(f, to_base(sqlite3_column_double(st, i), c->factor), c->factor != 0);
	else
		put_text(f, sqlite3_column_text(st, i), (size_t)sqlite3_column_bytes(st, i));
}

static FILE *create(int dirfd, const char *table, char *err, size_t errlen)
{
	char name[160];
	snprintf(name, sizeof name, "%s.csv", table);
	int fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		snprintf(err, errlen, "%s: %s", name, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	return f;
}

static int finish(FILE *f, const char *table, char *err, size_t errlen)
{
	int e = ferror(f) ? EIO : 0;
	if (fclose(f) != 0 && !e)
		e = errno;
	if (e)
		snprintf(err, errlen, "%s.csv: writing failed: %s", table, strerror(e));
	return e ? -2 : 0;
}

/* One table (or meta) into TABLE.csv, created at its first row: a table
 * without rows has no file. Returns 1 (written), 0 (no rows), or -2. */
static int table_csv(struct fs_q *q, int dirfd, const char *table, const char *sql, double start_unix, char *err,
		     size_t errlen)
{
	sqlite3_stmt *st = fs_q_prep(q, sql);
	int n = st ? sqlite3_column_count(st) : 0;
	struct col *cols = calloc((size_t)(n ? n : 1), sizeof *cols);
	FILE *f = NULL;
	int rc = 0;
	while (cols && fs_q_step(q, st)) {
		if (!f) {
			if (!(f = create(dirfd, table, err, errlen))) {
				rc = -2;
				break;
			}
			for (int i = 0; i < n; i++) {
				describe(&cols[i], sqlite3_column_name(st, i));
				fprintf(f, "%s%s", i ? "," : "", cols[i].name);
				if (cols[i].unix_after && isfinite(start_unix))
					fprintf(f, ",%s_unix", cols[i].name);
			}
			fputs("\r\n", f);
		}
		for (int i = 0; i < n; i++) {
			if (i)
				fputc(',', f);
			put_field(f, st, i, &cols[i]);
			if (cols[i].unix_after && isfinite(start_unix)) {
				fputc(',', f);
				double t = fs_q_col(st, i);
				if (isfinite(t)) /* the anchor's µs: a double keeps them at this size */
					fprintf(f, "%.6f", start_unix + t);
			}
		}
		fputs("\r\n", f);
	}
	sqlite3_finalize(st);
	free(cols);
	if (f) {
		int frc = finish(f, table, err, errlen);
		return rc ? rc : frc ? frc : 1;
	}
	if (!cols && rc == 0) {
		snprintf(err, errlen, "out of memory");
		rc = -2;
	}
	return rc;
}

int fs_csv_write(int dirfd, const char *path, const struct fs_window *w, int *files, char *err, size_t errlen)
{
	struct fs_q q;
	*files = 0;
	if (fs_q_open(&q, path, err, errlen) < 0)
		return -1;
	if (w)
		q.w0 = w->start_s, q.w1 = w->end_s;
	double start_unix = fs_q_meta_num(&q, "start_unix");
	int rc = table_csv(&q, dirfd, "meta", "SELECT key, value FROM meta ORDER BY key", NAN, err, errlen);
	*files += rc > 0;
	for (int i = 0; rc >= 0 && i < FS_T__COUNT; i++) {
		const struct fs_table *t = &fs_tables[i];
		char sql[256];
		const char *where = t->sampled ? " WHERE t BETWEEN ?1 AND ?2"
				    : i == FS_T_PHASES ? " WHERE t_end >= ?1 AND t_start <= ?2"
						       : "";
		snprintf(sql, sizeof sql, "SELECT * FROM %s%s ORDER BY rowid", t->name, where);
		rc = table_csv(&q, dirfd, t->name, sql, start_unix, err, errlen);
		*files += rc > 0;
	}
	/* the per-minute tables (schema 6; an older file has none: not recorded) */
	for (int i = 0; rc >= 0 && i < FS_RT__COUNT; i++) {
		const char *name = fs_rollup_table_name((enum fs_rollup_table)i);
		char sql[256];
		snprintf(sql, sizeof sql, "SELECT * FROM %s WHERE t BETWEEN ?1 AND ?2 ORDER BY rowid", name);
		rc = table_csv(&q, dirfd, name, sql, start_unix, err, errlen);
		*files += rc > 0;
	}
	/* the per-second timelines (schema 9) */
	if (rc >= 0) {
		rc = table_csv(&q, dirfd, FS_SERIES_TABLE,
			       "SELECT * FROM " FS_SERIES_TABLE " WHERE t BETWEEN ?1 AND ?2 ORDER BY t", start_unix, err, errlen);
		*files += rc > 0;
	}
	if (rc >= 0 && fs_q_failed(&q)) {
		snprintf(err, errlen, "%s: reading the run file failed: %s", path, fs_q_failed(&q));
		rc = -1;
	}
	fs_q_close(&q);
	return rc < 0 ? rc : 0;
}
