#include "store/row.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void fs_row_init(struct fs_row *r, enum fs_table_id table, double t)
{
	memset(r, 0, sizeof *r);
	r->table = table;
	if (fs_tables[table].sampled)
		fs_row_real(r, 0, t);
}

void fs_row_real(struct fs_row *r, int col, double x)
{
	if (!isfinite(x)) {
		r->v[col].kind = FS_V_NULL;
		return;
	}
	r->v[col].kind = FS_V_REAL;
	r->v[col].d = x;
}

void fs_row_int(struct fs_row *r, int col, int64_t x)
{
	r->v[col].kind = FS_V_INT;
	r->v[col].i = x;
}

bool fs_value_num(const struct fs_value *v, double *x)
{
	if (v->kind == FS_V_INT)
		*x = (double)v->i;
	else if (v->kind == FS_V_REAL)
		*x = v->d;
	else
		return false;
	return true;
}

void fs_row_text(struct fs_row *r, int col, const char *s)
{
	r->v[col].kind = s ? FS_V_TEXT : FS_V_NULL;
	r->v[col].s = s;
}

void fs_sink_meta(struct fs_sink *s, const char *key, const char *value)
{
	if (s->meta)
		s->meta(s, key, value);
}

void fs_sink_metaf(struct fs_sink *s, const char *key, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	fs_sink_meta(s, key, buf);
}
