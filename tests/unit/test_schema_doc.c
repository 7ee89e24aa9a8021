/* docs/schema.md documents every table and every column of the run file:
 * each table (and series_1s) has a "### `name`" section naming each column
 * in backticks; the per-minute tables' section names the columns steps_1m
 * and phases_1m make of their own (the others' follow a rule). */
#include <stdlib.h>

#include "check.h"
#include "store/rollup.h"
#include "store/schema.h"
#include "store/series.h"
#include "util/pfile.h"

/* Table name's "### `name`" section: to the next table's heading or the
 * next part of the document (a "## " heading), whichever comes first;
 * NULL when there is none. */
static const char *section(const char *doc, const char *name, size_t *len)
{
	char heading[128];
	snprintf(heading, sizeof heading, "### `%s`\n", name);
	const char *sec = strstr(doc, heading);
	CHECK(sec != NULL);
	if (!sec) {
		fprintf(stderr, "  no section for table %s\n", name);
		return NULL;
	}
	const char *end = strstr(sec + strlen(heading), "\n### ");
	const char *part = strstr(sec + strlen(heading), "\n## ");
	if (part && (!end || part < end))
		end = part;
	*len = end ? (size_t)(end - sec) : strlen(sec);
	return sec;
}

static void documented(const char *sec, size_t len, const char *table, const char *col)
{
	char name[96];
	snprintf(name, sizeof name, "`%s`", col);
	const char *hit = memmem(sec, len, name, strlen(name));
	CHECK(hit != NULL);
	if (!hit)
		fprintf(stderr, "  %s.%s is not documented\n", table, col);
}

int main(void)
{
	struct fs_buf doc = {0};
	if (fs_read_file("docs/schema.md", &doc) < 0) {
		fprintf(stderr, "cannot read docs/schema.md (run from the repository root)\n");
		return 1;
	}
	size_t len;
	for (int t = 0; t < FS_T__COUNT; t++) {
		const struct fs_table *tb = &fs_tables[t];
		const char *sec = section(doc.data, tb->name, &len);
		for (int c = 0; sec && c < tb->ncols; c++)
			if (!(tb->sampled && c == 0)) /* t is documented once, above */
				documented(sec, len, tb->name, tb->cols[c].name);
	}
	const struct fs_rollup_col *sc;
	int n = fs_series_columns(&sc);
	const char *sec = section(doc.data, FS_SERIES_TABLE, &len);
	for (int c = 0; sec && c < n; c++)
		documented(sec, len, FS_SERIES_TABLE, sc[c].name);
	const char *tiers = strstr(doc.data, "### Per-minute tables: `<table>_1m`\n");
	CHECK(tiers != NULL);
	if (tiers) {
		const char *end = strstr(tiers + 4, "\n### ");
		len = end ? (size_t)(end - tiers) : strlen(tiers);
		enum fs_rollup_table own[] = {FS_RT_STEPS, FS_RT_PHASES};
		for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
			n = fs_rollup_columns(own[i], &sc);
			for (int c = 0; c < n; c++)
				documented(tiers, len, fs_rollup_table_name(own[i]), sc[c].name);
		}
	}
	CHECK(strstr(doc.data, "### `meta`") != NULL);
	fs_buf_free(&doc);
	return check_exit("test_schema_doc");
}
