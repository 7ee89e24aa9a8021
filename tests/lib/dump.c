#include "dump.h"

#include <string.h>

void dump_text(FILE *out, const char *text, const char *strip)
{
	size_t n = strip ? strlen(strip) : 0;
	for (const char *p = text; *p;) {
		if (n && strncmp(p, strip, n) == 0) {
			fputs("$ROOT", out);
			p += n;
		} else {
			fputc(*p++, out);
		}
	}
}

static void dump_row(struct fs_sink *sink, const struct fs_row *r)
{
	struct dump_sink *d = (struct dump_sink *)sink;
	const struct fs_table *tb = &fs_tables[r->table];
	fputs(tb->name, d->out);
	for (int c = 0; c < tb->ncols; c++) {
		const struct fs_value *v = &r->v[c];
		fprintf(d->out, " %s=", tb->cols[c].name);
		switch (v->kind) {
		case FS_V_INT:
			fprintf(d->out, "%lld", (long long)v->i);
			break;
		case FS_V_REAL:
			fprintf(d->out, "%.6g", v->d);
			break;
		case FS_V_TEXT:
			fputc('"', d->out);
			dump_text(d->out, v->s, d->strip);
			fputc('"', d->out);
			break;
		default:
			fputs("NULL", d->out);
		}
	}
	fputc('\n', d->out);
}

static void dump_meta(struct fs_sink *sink, const char *key, const char *value)
{
	struct dump_sink *d = (struct dump_sink *)sink;
	fprintf(d->out, "meta %s=\"", key);
	dump_text(d->out, value, d->strip);
	fputs("\"\n", d->out);
}

void dump_sink_init(struct dump_sink *d, FILE *out, const char *strip)
{
	memset(d, 0, sizeof *d);
	d->sink.row = dump_row;
	d->sink.meta = dump_meta;
	d->out = out;
	d->strip = strip;
}
