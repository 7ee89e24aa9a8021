/* dump.h - a sink that prints rows as text, one per line, for golden files:
 *   table col=value col=value ...
 * NULL columns print as col=NULL; reals with %.6g. */
#ifndef FS_TEST_DUMP_H
#define FS_TEST_DUMP_H

#include <stdio.h>

#include "store/row.h"

struct dump_sink {
	struct fs_sink sink;
	FILE *out;
	const char *strip; /* a prefix replaced by "$ROOT" in text values */
};

void dump_sink_init(struct dump_sink *d, FILE *out, const char *strip);

/* Print text with `strip` replaced by "$ROOT". */
void dump_text(FILE *out, const char *text, const char *strip);

#endif
