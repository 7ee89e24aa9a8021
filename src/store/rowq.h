/* rowq.h - rows held in memory until the run file's next commit.
 *
 * The store commits at most once a second, so a row inserted the moment
 * it comes and one inserted just before the commit are seen by readers
 * at the same moment, in the same order. Held back, a second's rows are
 * inserted in one burst, where SQLite's code and the tables' last pages
 * stay in the CPU's caches; spread over ten ticks, among the sources'
 * reads of /proc, every insert found them cold (issue 14: the recorder's
 * cost).
 *
 * A row is copied whole, its text too: the source's buffers may change
 * as soon as the sink's row() returns. Pure: no SQLite here. */
#ifndef FS_ROWQ_H
#define FS_ROWQ_H

#include <stddef.h>

#include "store/row.h"

struct fs_rowq {
	unsigned char *buf; /* records, one after another (rowq.c) */
	size_t len, cap;    /* bytes */
	size_t rows;
};

#define FS_ROWQ_INIT {NULL, 0, 0, 0}

/* Append a copy of r. Returns 0, or -1 when out of memory (q unchanged:
 * the caller writes r itself, after draining q, to keep the order). */
int fs_rowq_push(struct fs_rowq *q, const struct fs_row *r);

/* Each held row, in the order pushed, to fn (its text valid until fn
 * returns; columns past the table's are NULL); then q is empty, its
 * memory kept for the next rows. fn must not push to q. */
void fs_rowq_drain(struct fs_rowq *q, void (*fn)(void *ctx, const struct fs_row *r), void *ctx);

/* Drop the held rows and free the memory. */
void fs_rowq_free(struct fs_rowq *q);

#endif
