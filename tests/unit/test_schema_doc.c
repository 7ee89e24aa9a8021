/* docs/schema.md documents every table and every column of the run file:
 * each table has a "### `name`" section naming each column in backticks. */
#include <stdlib.h>

#include "check.h"
#include "store/schema.h"
#include "util/pfile.h"

int main(void)
{
	struct fs_buf doc = {0};
	if (fs_read_file("docs/schema.md", &doc) < 0) {
		fprintf(stderr, "cannot read docs/schema.md (run from the repository root)\n");
		return 1;
	}
	for (int t = 0; t < FS_T__COUNT; t++) {
		const struct fs_table *tb = &fs_tables[t];
		char heading[128];
		snprintf(heading, sizeof heading, "### `%s`\n", tb->name);
		const char *sec = strstr(doc.data, heading);
		CHECK(sec != NULL);
		if (!sec) {
			fprintf(stderr, "  no section for table %s\n", tb->name);
			continue;
		}
		/* the section runs to the next table's heading or the next part
		 * of the document (a "## " heading), whichever comes first */
		const char *end = strstr(sec + strlen(heading), "\n### ");
		const char *part = strstr(sec + strlen(heading), "\n## ");
		if (part && (!end || part < end))
			end = part;
		size_t len = end ? (size_t)(end - sec) : strlen(sec);
		for (int c = 0; c < tb->ncols; c++) {
			if (tb->sampled && c == 0)
				continue; /* t is documented once, above */
			char name[96];
			snprintf(name, sizeof name, "`%s`", tb->cols[c].name);
			const char *hit = memmem(sec, len, name, strlen(name));
			CHECK(hit != NULL);
			if (!hit)
				fprintf(stderr, "  %s.%s is not documented\n", tb->name, tb->cols[c].name);
		}
	}
	CHECK(strstr(doc.data, "### `meta`") != NULL);
	fs_buf_free(&doc);
	return check_exit("test_schema_doc");
}
