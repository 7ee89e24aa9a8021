/* diff.h (render) - `feedscope diff` as text (one screen, the headline last)
 * and as JSON (the shape in docs/verdicts.md, "diff"). Pure: write to out
 * only. pa, pb: the run files' paths as given. */
#ifndef FS_RENDER_DIFF_H
#define FS_RENDER_DIFF_H

#include <stdio.h>

#include "analysis/diff.h"

void fs_diff_render_text(FILE *out, const struct fs_diff *d, const char *pa, const char *pb);
void fs_diff_render_json(FILE *out, const struct fs_diff *d, const char *pa, const char *pb);

#endif
