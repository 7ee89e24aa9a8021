/* docs/verdicts.md lists every metric definition (analysis/metricdefs.c)
 * as it is: a table row "| `name` | unit | `table` | `expr` | meaning |",
 * so a definition changed in the code and not in the docs fails here. */
#include <stdlib.h>

#include "analysis/metricdefs.h"
#include "check.h"
#include "util/pfile.h"

int main(void)
{
	struct fs_buf doc = {0};
	if (fs_read_file("docs/verdicts.md", &doc) < 0) {
		fprintf(stderr, "cannot read docs/verdicts.md (run from the repository root)\n");
		return 1;
	}
	for (int i = 0; i < FS_MD__N; i++) {
		const struct fs_metricdef *d = &fs_metricdefs[i];
		char row[512];
		snprintf(row, sizeof row, "\n| `%s` | %s | `%s` | `%s` |", d->name, d->unit, fs_tables[d->table].name,
			 d->expr);
		CHECK(strstr(doc.data, row) != NULL);
		if (!strstr(doc.data, row))
			fprintf(stderr, "  docs/verdicts.md has no row%s\n", row);
	}
	fs_buf_free(&doc);
	return check_exit("test_metricdefs_doc");
}
