#include "store/rowq.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A record: this head, the table's ncols values, then the text values'
 * bytes (NUL-terminated), padded to 8 bytes. A text value's .i holds the
 * offset of its bytes from the head until it is drained. */
struct rec {
	uint32_t size; /* bytes of the whole record, padding included */
	uint32_t table;
};

static size_t pad8(size_t n)
{
	return (n + 7) & ~(size_t)7;
}

static int reserve(struct fs_rowq *q, size_t more)
{
	if (q->cap - q->len >= more)
		return 0;
	size_t cap = q->cap ? q->cap : 16384;
	while (cap - q->len < more)
		cap *= 2;
	unsigned char *p = realloc(q->buf, cap);
	if (!p)
		return -1;
	q->buf = p;
	q->cap = cap;
	return 0;
}

int fs_rowq_push(struct fs_rowq *q, const struct fs_row *r)
{
	int nc = fs_tables[r->table].ncols;
	size_t vals = sizeof(struct rec), size = vals + (size_t)nc * sizeof(struct fs_value);
	for (int c = 0; c < nc; c++)
		if (r->v[c].kind == FS_V_TEXT)
			size += strlen(r->v[c].s) + 1;
	size = pad8(size);
	if (size > UINT32_MAX || reserve(q, size) < 0)
		return -1;
	unsigned char *at = q->buf + q->len;
	struct rec head = {.size = (uint32_t)size, .table = (uint32_t)r->table};
	memcpy(at, &head, sizeof head);
	struct fs_value *v = (struct fs_value *)(at + vals);
	size_t text = vals + (size_t)nc * sizeof(struct fs_value);
	for (int c = 0; c < nc; c++) {
		v[c] = r->v[c];
		if (r->v[c].kind != FS_V_TEXT)
			continue;
		size_t n = strlen(r->v[c].s) + 1;
		memcpy(at + text, r->v[c].s, n);
		v[c].i = (int64_t)text;
		text += n;
	}
	q->len += size;
	q->rows++;
	return 0;
}

void fs_rowq_drain(struct fs_rowq *q, void (*fn)(void *ctx, const struct fs_row *r), void *ctx)
{
	struct fs_row r;
	memset(&r, 0, sizeof r);
	for (size_t off = 0; off < q->len;) {
		unsigned char *at = q->buf + off;
		struct rec head;
		memcpy(&head, at, sizeof head);
		int nc = fs_tables[head.table].ncols;
		const struct fs_value *v = (const struct fs_value *)(at + sizeof head);
		r.table = (enum fs_table_id)head.table;
		for (int c = 0; c < nc; c++) {
			r.v[c] = v[c];
			if (v[c].kind == FS_V_TEXT)
				r.v[c].s = (const char *)at + v[c].i;
		}
		fn(ctx, &r);
		for (int c = 0; c < nc; c++)
			r.v[c].kind = FS_V_NULL; /* the next row's extra columns */
		off += head.size;
	}
	q->len = 0;
	q->rows = 0;
}

void fs_rowq_free(struct fs_rowq *q)
{
	free(q->buf);
	*q = (struct fs_rowq)FS_ROWQ_INIT;
}
