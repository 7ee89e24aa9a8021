/* docs/verdicts.md lists every metric definition (analysis/load/metricdefs_table.c)
 * as it is: a table row "| `name` | unit | `source` | `expr` | meaning |"
 * for each definition, and "| `source` | `from` | `where` | key |" for
 * each source, so a definition changed in the code and not in the docs
 * fails here. */
#include <stdlib.h>

#include "analysis/load/metricdefs.h"
#include "check.h"
#include "util/pfile.h"

static void check_row(const char *doc, const char *row)
{
	CHECK(strstr(doc, row) != NULL);
	if (!strstr(doc, row))
		fprintf(stderr, "  docs/verdicts.md has no row%s\n", row);
}

static void check_defs(const char *doc, const struct fs_metricdef *defs, int n)
{
	for (int i = 0; i < n; i++) {
		const struct fs_metricdef *d = &defs[i];
		char row[4096];
		snprintf(row, sizeof row, "\n| `%s` | %s | `%s` | `%s` |", d->name, d->unit,
			 fs_md_sources[d->source].name, d->expr);
		check_row(doc, row);
	}
}

int main(void)
{
	struct fs_buf doc = {0};
	if (fs_read_file("docs/verdicts.md", &doc) < 0) {
		fprintf(stderr, "cannot read docs/verdicts.md (run from the repository root)\n");
		return 1;
	}
	check_defs(doc.data, fs_metricdefs, FS_MD__N);
	check_defs(doc.data, fs_metricdefs_by, FS_MDK__N);
	for (int i = 0; i < FS_MS__N; i++) {
		const struct fs_md_sourcedef *s = &fs_md_sources[i];
		char row[4096];
		snprintf(row, sizeof row, "\n| `%s` | `%s` | `%s` | %s |", s->name, s->from, s->where,
			 s->key ? s->key : "-");
		check_row(doc.data, row);
	}
	fs_buf_free(&doc);
	return check_exit("test_metricdefs_doc");
}
