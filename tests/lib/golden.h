/* golden.h - small hand-made run files for the analysis tests, written
 * through the real store (store/store.h), so they have the real schema.
 *
 *   struct fs_store *st = golden_create(path);
 *   struct fs_sink *s = fs_store_sink(st);
 *   fs_sink_meta(s, "pid", "100");
 *   golden_row(s, FS_T_DISK, 1.0, "device=sda read_bytes_per_s=1000 reads_per_s=10");
 *   fs_store_close(st);
 *
 * Then change it as an older feedscope would have written it (golden_sql)
 * or damage it (golden_corrupt). A helper that fails says why on stderr and
 * counts a failed check (check.h), so the test fails. */
#ifndef FS_GOLDEN_H
#define FS_GOLDEN_H

#include "store/store.h"

/* A new run file at path (replacing one that exists). NULL on failure
 * (said). The caller closes it with fs_store_close. */
struct fs_store *golden_create(const char *path);

/* Insert one row of table at time t (ignored for tables without t) from
 * "col=value col=value ..." (printf-style): each column is looked up in the schema, a
 * value is stored as its column's type (INTEGER, REAL, TEXT; 'in quotes'
 * it may hold spaces), NULL leaves it NULL, unnamed columns stay NULL.
 * An unknown column or a bad number fails the test. */
void golden_row(struct fs_sink *sink, enum fs_table_id table, double t, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Run sql on the run file at path, read-write. Returns 0, or -1 (said). */
int golden_sql(const char *path, const char *sql);

/* Overwrite, with bytes no page can start with, a leaf page of table that
 * lies in the middle of its pages (the table needs at least one leaf page
 * besides its root; dbstat, else the root page). Returns the page number
 * overwritten, or -1 (said). */
long golden_corrupt(const char *path, const char *table);

#endif
