/* diff.h (render) - `feedscope diff` as text (one screen, the headline last),
 * as JSON (the shape in docs/verdicts.md, "diff") and as one self-contained
 * HTML document (the headline first; the report's look, render/html.h).
 * Pure: write to out only. pa, pb: the run files' paths as given. */
#ifndef FS_RENDER_DIFF_H
#define FS_RENDER_DIFF_H

#include <stddef.h>
#include <stdio.h>

#include "analysis/compare/diff.h"

void fs_diff_render_text(FILE *out, const struct fs_diff *d, const char *pa, const char *pb);
void fs_diff_render_json(FILE *out, const struct fs_diff *d, const char *pa, const char *pb);
void fs_diff_render_html(FILE *out, const struct fs_diff *d, const char *pa, const char *pb);

/* Shared by the text and the HTML (diff_text.c): each bucket's name as
 * shown ("input wait"); a resource figure's value in its definition's
 * unit ("12.5%", "210 MB/s", "unknown"); a ratio as "B/A 0.52" ("" when
 * unknown). Each writes into out[cap] and returns out. */
extern const char *const fs_diff_bucket_label[FS_BUCKET__N];
const char *fs_diff_value(char *out, size_t cap, double v, const char *unit);
const char *fs_diff_ratio_note(char *out, size_t cap, double r);

#endif
