/* summary_text.h - the one-screen text summary printed when a recording ends. */
#ifndef FS_SUMMARY_TEXT_H
#define FS_SUMMARY_TEXT_H

#include <stdio.h>

#include "analysis/load/summary.h"

/* Write the summary of run file `path` to out. */
void fs_summary_render_text(FILE *out, const struct fs_summary *s, const char *path);

#endif
