/* fuzz_runfile - libFuzzer target: a real run file, made with the project's
 * own store and schema (src/store/), whose meta and rows come from the
 * input, then read by everything `feedscope report` does (runfile_common.c).
 *
 * The input is text in the tests' dump format (tests/lib/dump.c; the
 * fixtures' expected.txt files are valid inputs), one row or meta per line:
 *
 *   meta KEY="VALUE"
 *   TABLE col=VALUE col=VALUE ...      VALUE: NULL, "text" or a number
 *
 * Unknown tables and columns are ignored; a number goes in as an integer
 * when the column is INTEGER and it parses as one, else as a real; an
 * unquoted word is text. So a row may hold a type its column does not
 * declare, as a foreign or damaged run file could. Lines starting with
 * "==" or "#" are ignored. Seeds: tests/fuzz/runfile/. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runfile_common.h"
#include "store/store.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_LINES 4000

static char path[320];
static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc, (void)argv;
	fuzz_runfile_init(path, sizeof path);
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		exit(1);
	return 0;
}

static int table_id(const char *name)
{
	for (int t = 0; t < FS_T__COUNT; t++)
		if (!strcmp(fs_tables[t].name, name))
			return t;
	return -1;
}

static int column(const struct fs_table *tb, const char *name)
{
	for (int c = 0; c < tb->ncols; c++)
		if (!strcmp(tb->cols[c].name, name))
			return c;
	return -1;
}

/* The value at *p (NUL-terminated in place); *p moves past it. A quoted
 * value ends at a '"' followed by a blank or the end of the line. */
static char *value(char **p, bool *quoted)
{
	char *v = *p, *end;
	*quoted = *v == '"';
	if (*quoted) {
		v++;
		for (end = v; *end && !(end[0] == '"' && (end[1] == ' ' || !end[1])); end++)
			;
	} else {
		end = v + strcspn(v, " ");
	}
	*p = *end ? end + 1 : end;
	if (*quoted && **p == ' ')
		(*p)++;
	*end = '\0';
	return v;
}

static void set(struct fs_row *r, const struct fs_table *tb, int c, char *v, bool quoted)
{
	char *end;
	if (quoted) {
		fs_row_text(r, c, v);
		return;
	}
	if (!strcmp(v, "NULL")) {
		r->v[c].kind = FS_V_NULL;
		return;
	}
	errno = 0;
	long long i = strtoll(v, &end, 10);
	if (!strcmp(tb->cols[c].type, "INTEGER") && end != v && !*end && !errno) {
		fs_row_int(r, c, i);
		return;
	}
	double d = strtod(v, &end);
	if (end != v && !*end)
		fs_row_real(r, c, d);
	else
		fs_row_text(r, c, v);
}

static void row_line(struct fs_sink *sink, int t, char *p)
{
	const struct fs_table *tb = &fs_tables[t];
	struct fs_row r;
	fs_row_init(&r, (enum fs_table_id)t, 0);
	while (*p) {
		char *eq = strchr(p, '=');
		if (!eq)
			break;
		*eq = '\0';
		int c = column(tb, p);
		p = eq + 1;
		bool quoted;
		char *v = value(&p, &quoted);
		if (c >= 0)
			set(&r, tb, c, v, quoted);
	}
	fs_sink_row(sink, &r);
}

static void meta_line(struct fs_sink *sink, char *p)
{
	char *eq = strchr(p, '=');
	if (!eq)
		return;
	*eq = '\0';
	char *v = eq + 1;
	bool quoted;
	v = value(&v, &quoted);
	fs_sink_meta(sink, p, v);
}

static void line(struct fs_sink *sink, char *l)
{
	if (!*l || *l == '#' || !strncmp(l, "==", 2))
		return;
	char *sp = strchr(l, ' ');
	if (!sp)
		return;
	*sp = '\0';
	if (!strcmp(l, "meta")) {
		meta_line(sink, sp + 1);
		return;
	}
	int t = table_id(l);
	if (t >= 0)
		row_line(sink, t, sp + 1);
}

static void fill(struct fs_sink *sink, char *text)
{
	char *save = NULL;
	int n = 0;
	for (char *l = strtok_r(text, "\n", &save); l && n < MAX_LINES; l = strtok_r(NULL, "\n", &save), n++)
		line(sink, l);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	char err[512];
	struct fs_store *st = fs_store_create(path, true, err, sizeof err);
	if (!st) {
		fprintf(stderr, "fuzz_runfile: %s\n", err);
		exit(1);
	}
	fill(fs_store_sink(st), text);
	free(text);
	if (fs_store_close(st) == 0)
		fuzz_runfile_read(path, devnull);
	return 0;
}
