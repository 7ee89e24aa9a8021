/* row.h - one row of a run-file table, as sources produce it, and the sink
 * that consumes rows (the SQLite store, the `watch` printer, the tests'
 * text dumper all implement it). */
#ifndef FS_ROW_H
#define FS_ROW_H

#include <stdbool.h>
#include <stdint.h>

#include "store/schema.h"

enum fs_value_kind { FS_V_NULL = 0, FS_V_INT, FS_V_REAL, FS_V_TEXT };

struct fs_value {
	enum fs_value_kind kind;
	union {
		int64_t i;
		double d;
		const char *s; /* borrowed: valid until the sink's row() returns */
	};
};

struct fs_row {
	enum fs_table_id table;
	struct fs_value v[FS_MAX_COLS];
};

/* Start a row of table `table` with every column NULL and, for sampled
 * tables, column 0 (t) set to t. */
void fs_row_init(struct fs_row *r, enum fs_table_id table, double t);

/* Set a REAL column; NaN and infinities become NULL ("not reported"). */
void fs_row_real(struct fs_row *r, int col, double x);
void fs_row_int(struct fs_row *r, int col, int64_t x);
/* s is borrowed; NULL stays NULL. */
void fs_row_text(struct fs_row *r, int col, const char *s);

/* A column's value as a double: true for an INTEGER or REAL one (*x set),
 * false for NULL or TEXT. */
bool fs_value_num(const struct fs_value *v, double *x);

struct fs_sink {
	/* A finished row. */
	void (*row)(struct fs_sink *sink, const struct fs_row *row);
	/* A meta key (run-level fact); a later value for the same key wins. */
	void (*meta)(struct fs_sink *sink, const char *key, const char *value);
	/* Every source has been sampled for the tick at time t (may be NULL). */
	void (*tick_end)(struct fs_sink *sink, double t);
};

static inline void fs_sink_row(struct fs_sink *s, const struct fs_row *r)
{
	s->row(s, r);
}

void fs_sink_meta(struct fs_sink *s, const char *key, const char *value);
void fs_sink_metaf(struct fs_sink *s, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
